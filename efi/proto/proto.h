/* SPDX-License-Identifier: MIT */
/*
 * The boot protocols a --kernel file may be handed over by (proto.c): the
 * one table that names them.  The pipeline (core/kernel.c) and the run's
 * levels (core/run.c) know a protocol only through its struct
 * kernel_proto (core/kernel.h) from here.
 */
#ifndef PTLAB_EFI_PROTO_PROTO_H
#define PTLAB_EFI_PROTO_PROTO_H

struct kernel_proto;

/* The protocols, NULL-ended, in the order a file's bytes are tried against them. */
extern const struct kernel_proto *const proto_table[];

#endif
