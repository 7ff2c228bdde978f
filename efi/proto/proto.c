/* SPDX-License-Identifier: MIT */
/*
 * The boot protocols (see proto.h).  A new protocol is its struct
 * kernel_proto and one line here.  Firmware-free: a table of pointers.
 */
#include "proto/proto.h"
#include "limine/lmhandoff.h"
#include "linux/linux.h"

const struct kernel_proto *const proto_table[] = {
	&kernel_linux,           /* a bzImage: first, an EFI-stub kernel is a PE file too */
	&kernel_limine,          /* an ELF file */
	NULL,
};
