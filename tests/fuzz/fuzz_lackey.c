/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: the lackey trace reader (traces/FORMAT.md) on arbitrary
 * bytes, compressed or not, read to the end.  Seeds: corpus/lackey/.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_read_trace(data, size, TLBSIM_TRACE_LACKEY);
}
