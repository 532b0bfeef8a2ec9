/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: herd7 litmus tests (src/check/litmus_parse.c, format in
 * docs/litmus.md) on arbitrary text, parsed and, when they parse, judged by
 * the VMSA model (src/check/litmus_model.c) as `tlbsim litmus` does, with and
 * without ETS2.  A parse error must be a negative code with a message
 * naming the file; a judged test must say Allowed, Forbidden or Required.
 * Every input is bounded: at most MAX_WORK thread runs and candidate
 * executions, so it runs in well under a second.  Seeds: corpus/litmus/
 * (the tests of tests/litmus/ without their comments, and a few of the
 * subset's corners).
 */
#include <stdlib.h>
#include <string.h>

#include "check/litmus.h"
#include "fuzz.h"
#include "tlbsim/check.h"

/* The shipped tests need at most about two thousand. */
#define MAX_WORK 5000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lit_test *t = malloc(sizeof(*t));
	struct tlbsim_cpumask all = {0};
	struct tlbsim_error err;
	int rc, pass;

	FUZZ_ASSERT(t, "memory for a test");
	tlbsim_error_clear(&err);
	rc = chk_lit_parse_text("fuzz.litmus", (const char *)data, size, t, &err);
	if (rc) {
		fuzz_check_error(rc, &err);
		FUZZ_ASSERT(rc == -TLBSIM_ENOMEM || !strcmp(err.source, "fuzz.litmus"),
			    "a parse error names the test");
		free(t);
		return 0;
	}
	for (pass = 0; pass < 8; pass++)
		tlbsim_cpumask_set(&all, (unsigned)pass);
	for (pass = 0; pass < 2; pass++) {
		struct tlbsim_litmus_opts opts = {.ets2 = pass ? &all : NULL,
						  .max_candidates = MAX_WORK};
		struct tlbsim_litmus_result res;

		tlbsim_error_clear(&err);
		rc = chk_lit_check(t, &opts, &res, &err);
		if (rc) {
			fuzz_check_error(rc, &err);
			continue;
		}
		FUZZ_ASSERT(!strcmp(res.verdict, "Allowed") || !strcmp(res.verdict, "Forbidden") ||
				!strcmp(res.verdict, "Required"),
			    "a verdict");
		FUZZ_ASSERT(res.consistent <= res.candidates && res.positive <= res.consistent,
			    "counts that add up");
	}
	free(t);
	return 0;
}
