/* SPDX-License-Identifier: MIT */
/*
 * --dump and --dump-firmware (dump.c): the built tables and the
 * firmware's, as ptdump-style runs under region markers.
 */
#ifndef PTLAB_EFI_DUMP_H
#define PTLAB_EFI_DUMP_H

struct ptlab;

/* --dump=ranges: the built tables as ptdump-style runs under region markers. */
void ptlab_dump_tables(struct ptlab *p);
/* --dump-firmware=ranges|leaves: the firmware's live tables (CR3 at entry). */
void ptlab_dump_firmware(struct ptlab *p);

#endif
