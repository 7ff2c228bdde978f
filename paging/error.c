// SPDX-License-Identifier: MIT
/* Names of the library's error codes. */
#include <ptlab/pt.h>

const char *pt_strerror(int err)
{
	switch (err) {
	case PT_OK:		return "PT_OK";
	case PT_EINVAL:		return "PT_EINVAL";
	case PT_ENONCANON:	return "PT_ENONCANON";
	case PT_EALIGN_VA:	return "PT_EALIGN_VA";
	case PT_EALIGN_PA:	return "PT_EALIGN_PA";
	case PT_EALIGN_LEN:	return "PT_EALIGN_LEN";
	case PT_ELEN:		return "PT_ELEN";
	case PT_EPHYS:		return "PT_EPHYS";
	case PT_EEXIST:		return "PT_EEXIST";
	case PT_ENOTMAPPED:	return "PT_ENOTMAPPED";
	case PT_EBLOCKED:	return "PT_EBLOCKED";
	case PT_ENOMEM:		return "PT_ENOMEM";
	case PT_EFLAGS:		return "PT_EFLAGS";
	case PT_EFRAME:		return "PT_EFRAME";
	case PT_ECAPACITY:	return "PT_ECAPACITY";
	case PT_EMAPBAD:	return "PT_EMAPBAD";
	case PT_ECORRUPT:	return "PT_ECORRUPT";
	}
	return "PT_E?";
}
