/* SPDX-License-Identifier: MIT */
/* The Limine core's refusals (lmerr.h).  Firmware-free. */
#include <stdarg.h>

#include "limine/lmerr.h"
#include "report/fmt.h"

int lm_refuse(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (why && whylen) {
		va_start(ap, fmt);
		fmt_vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return -1;
}
