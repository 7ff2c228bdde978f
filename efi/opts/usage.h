/* SPDX-License-Identifier: MIT */
/*
 * The usage text of ptlab's options (usage.c), beside the option table
 * of opts.h that it describes.  Firmware-free.
 */
#ifndef PTLAB_EFI_OPTS_USAGE_H
#define PTLAB_EFI_OPTS_USAGE_H

/**
 * opts_usage() - the usage text, lines ending in "\n"
 */
const char *opts_usage(void);

#endif /* PTLAB_EFI_OPTS_USAGE_H */
