/* SPDX-License-Identifier: MIT */
/*
 * The console's 8x16 font: Terminus (Dimitar Zhekov, SIL Open Font License
 * 1.1), the ISO 8859-1 code page of xfonts-terminus' ter-u16n, converted at
 * build time by tools/pcf2c.py into $(BUILD)/gen/font8x16.inc (see the
 * Makefile).  The copyright and licence notice travel in the generated
 * file.
 *
 * No firmware calls (firmware-free: in the host archive).
 */
#include <stdint.h>

#include "report/font8x16.h"

#include "font8x16.inc"
