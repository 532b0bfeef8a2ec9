/* SPDX-License-Identifier: MIT */
/* Rules of trace headers shared by every format (trace_format.h). */
#include <stddef.h>

#include "trace_format.h"

/* The names machine JSON uses (models/README.md): one spelling everywhere. */
const struct trace_name trace_isa_names[] = {
    {TLBSIM_ISA_X86_64, "x86-64"},
    {TLBSIM_ISA_ARM64, "arm64"},
    {0, NULL},
};

int trace_page_shift_ok(unsigned page_shift)
{
	return page_shift == 12 || page_shift == 14 || page_shift == 16;
}

int trace_source_bad_char(const char *s, size_t n)
{
	/* Control characters would break the one-line text header; UTF-8 is fine. */
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] == 0x7f)
			return (int)i;
	return -1;
}
