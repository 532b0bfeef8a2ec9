/* SPDX-License-Identifier: MIT */
/*
 * The native binary trace reader (traces/read_native.c): the hand-encoded
 * trace of trace_test.h decodes to its events, and malformed inputs, one
 * folder per case under tests/data/traces/native/invalid/ (their bytes are
 * explained in that folder's README.md), fail where and as expected.
 */
#include "trace_test.h"

#define INVALID_DIR "tests/data/traces/native/invalid"

static void documented_bytes_decode_to_the_documented_events(void **state)
{
	tlbsim_trace_reader *r;
	struct tlbsim_event ev;
	struct tlbsim_error err;
	char line[TLBSIM_EVENT_LINE_MAX];
	size_t i = 0;
	int rc;

	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_trace_open_mem(documented_trace, sizeof(documented_trace), NULL,
					       TLBSIM_TRACE_AUTO, &r, &err),
			 0);
	assert_int_equal(tlbsim_trace_info(r)->format, TLBSIM_TRACE_BINARY);
	assert_int_equal(tlbsim_trace_info(r)->isa, TLBSIM_ISA_ARM64);
	assert_int_equal(tlbsim_trace_info(r)->page_shift, 12);
	assert_int_equal(tlbsim_trace_info(r)->nr_threads, 2);
	assert_string_equal(tlbsim_trace_info(r)->source, "abc");
	while ((rc = tlbsim_trace_next(r, &ev, &err)) == 1) {
		assert_true(i < sizeof(documented_events) / sizeof(documented_events[0]));
		tlbsim_event_format(&ev, line, sizeof(line));
		assert_string_equal(line, documented_events[i]);
		i++;
	}
	if (rc < 0)
		fail_msg("@%lld: %s", err.offset, err.text);
	assert_int_equal(i, 9);
	tlbsim_trace_close(r);
}

static void header_and_end_record_alone_are_an_empty_trace(void **state)
{
	/* 18 header bytes (x86-64, 4 KiB pages, no threads declared, no source), end: 0 events */
	static const uint8_t trace[] = {'T', 'L', 'B', 'S', 'I', 'M', 'T', 'R', 1, 0,
					1,   12,  0,   0,   0,	 0,   0,   0,	0, 0};
	tlbsim_trace_reader *r;
	struct tlbsim_event ev;

	assert_int_equal(
	    tlbsim_trace_open_mem(trace, sizeof(trace), NULL, TLBSIM_TRACE_BINARY, &r, NULL), 0);
	assert_int_equal(tlbsim_trace_next(r, &ev, NULL), 0);
	assert_int_equal(tlbsim_trace_next(r, &ev, NULL), 0);
	assert_int_equal(tlbsim_trace_nr_events(r), 0);
	tlbsim_trace_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(documented_bytes_decode_to_the_documented_events),
	    cmocka_unit_test(header_and_end_record_alone_are_an_empty_trace),
	};
	/* at least 10 malformed inputs, as the issue asks */
	if (count_cases(INVALID_DIR) < 10)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL) |
	       run_invalid_cases("native_invalid", INVALID_DIR, TLBSIM_TRACE_BINARY);
}
