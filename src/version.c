/* SPDX-License-Identifier: MIT */
#include "tlbsim/tlbsim.h"

const char *tlbsim_version(void)
{
	return TLBSIM_VERSION;
}
