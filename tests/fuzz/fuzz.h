/* SPDX-License-Identifier: MIT */
/*
 * Shared by the libFuzzer harnesses (tests/fuzz/fuzz_<name>.c): read a
 * whole trace held in memory with one reader, to its end or its first
 * error, checking what a reader promises (include/tlbsim/trace.h): every
 * event it returns passes tlbsim_event_validate(), errors are negative
 * TLBSIM_E* codes with a message, and errors are sticky.  A broken promise
 * aborts, which libFuzzer (and the replay driver) report as a crash.
 */
#ifndef TLBSIM_FUZZ_H
#define TLBSIM_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlbsim/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Fails the run, naming the broken promise. */
#define FUZZ_ASSERT(cond, what)                                                                    \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "fuzz: broken promise: %s\n", what);                       \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

static inline void fuzz_check_error(int rc, const struct tlbsim_error *err)
{
	FUZZ_ASSERT(rc < 0 && strcmp(tlbsim_err_name(rc), "TLBSIM_E?") != 0,
		    "an error is a TLBSIM_E* code");
	FUZZ_ASSERT(err->code == rc, "the report carries the returned code");
	FUZZ_ASSERT(err->text[0] != '\0', "an error has a message");
}

/* Reads the trace in @data with reader options @opts, checking the promises. */
static inline int fuzz_read_trace_opts(const uint8_t *data, size_t size,
				       const struct tlbsim_trace_opts *opts)
{
	struct tlbsim_trace_stats st;
	struct tlbsim_error err;
	struct tlbsim_event ev;
	tlbsim_trace_reader *r;
	char why[256];
	int rc;

	tlbsim_error_clear(&err);
	rc = tlbsim_trace_open_mem_opts(data, size, "<fuzz>", opts, &r, &err);
	if (rc) {
		fuzz_check_error(rc, &err);
		FUZZ_ASSERT(r == NULL, "a failed open returns no reader");
		return 0;
	}
	while ((rc = tlbsim_trace_next(r, &ev, &err)) == 1) {
		if (tlbsim_event_validate(&ev, why, sizeof(why)) != 0)
			fprintf(stderr, "fuzz: event %llu: %s\n",
				(unsigned long long)tlbsim_trace_nr_events(r) - 1, why);
		FUZZ_ASSERT(tlbsim_event_validate(&ev, why, sizeof(why)) == 0,
			    "every event returned is valid");
	}
	if (rc < 0) {
		struct tlbsim_error again;

		fuzz_check_error(rc, &err);
		tlbsim_error_clear(&again);
		FUZZ_ASSERT(tlbsim_trace_next(r, &ev, &again) == rc && again.code == rc,
			    "errors are sticky");
	}
	tlbsim_trace_stats(r, &st);
	FUZZ_ASSERT(st.events == tlbsim_trace_nr_events(r), "stats count the events returned");
	{
		/* Unknown instructions are never dropped silently: the counts by
		 * mnemonic add up to the total (trace.h). */
		struct tlbsim_trace_insn_count c[64];
		size_t n = tlbsim_trace_insn_counts(r, NULL, 0), i;
		uint64_t sum = 0;

		if (n <= 64) {
			FUZZ_ASSERT(tlbsim_trace_insn_counts(r, c, 64) == n, "counts are stable");
			for (i = 0; i < n; i++)
				sum += c[i].count;
			FUZZ_ASSERT(sum == st.unknown_insns,
				    "unknown instructions by mnemonic add up to their total");
		}
	}
	tlbsim_trace_close(r);
	return 0;
}

static inline int fuzz_read_trace(const uint8_t *data, size_t size, enum tlbsim_trace_format format)
{
	struct tlbsim_trace_opts opts = {.format = format};

	return fuzz_read_trace_opts(data, size, &opts);
}

#endif /* TLBSIM_FUZZ_H */
