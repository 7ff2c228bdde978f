// SPDX-License-Identifier: MIT
/* The synthetic bzImage of the tests: see bzimage.h. */
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "bzimage.h"
#include "lib/le.h"

uint8_t *bz_image(size_t len)
{
	uint8_t *f = malloc(len);

	assert_non_null(f);
	for (size_t i = 0; i < len; i++)
		f[i] = (uint8_t)(i * 7 + 3);
	/* every header byte zero except the fields the test sets */
	memset(f + O_SETUP_SECTS, 0, 0x290 - O_SETUP_SECTS);
	f[O_SETUP_SECTS] = T_SETUP_SECTS;
	le_stn(f + O_SYSSIZE, 4, T_SYSSIZE);
	le_stn(f + O_BOOT_FLAG, 2, 0xaa55);
	f[0x200] = 0xeb;                          /* jmp short */
	f[O_JUMP] = T_JUMP;
	memcpy(f + O_MAGIC, "HdrS", 4);
	le_stn(f + O_VERSION, 2, T_VERSION);
	f[O_LOADFLAGS] = T_LOADFLAGS;
	le_stn(f + O_INITRD_MAX, 4, T_INITRD_MAX);
	le_stn(f + O_KERNEL_ALIGN, 4, T_ALIGN);
	f[O_RELOCATABLE] = T_RELOCATABLE;
	le_stn(f + O_XLOADFLAGS, 2, T_XLF);
	le_stn(f + O_CMDLINE_SIZE, 4, T_CMDLINE_SIZE);
	le_stn(f + O_PREF_ADDRESS, 8, T_PREF);
	le_stn(f + O_INIT_SIZE, 4, T_INIT_SIZE);
	return f;
}
