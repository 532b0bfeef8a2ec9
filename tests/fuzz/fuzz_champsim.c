/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: the champsim trace reader (traces/FORMAT.md) on arbitrary
 * bytes, compressed or not, read to the end.  Seeds: corpus/champsim/.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_read_trace(data, size, TLBSIM_TRACE_CHAMPSIM);
}
