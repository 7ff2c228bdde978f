/* SPDX-License-Identifier: MIT */
/*
 * The Linux/x86 boot protocol below the kernel hand-off pipeline
 * (linux.c, over the firmware-free linux/linuxboot.c).
 */
#ifndef PTLAB_EFI_LINUX_LINUX_H
#define PTLAB_EFI_LINUX_LINUX_H

#include "core/kernel.h"

extern const struct kernel_proto kernel_linux;

#endif
