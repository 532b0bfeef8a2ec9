/* SPDX-License-Identifier: MIT */
/*
 * The text trace reader (traces/read_text.c): what it accepts, checked
 * against events worked out by hand, and what it rejects, one folder per
 * case under tests/data/traces/text/invalid/ (see trace_test.h).
 */
#include "trace_test.h"

#define INVALID_DIR "tests/data/traces/text/invalid"

/* Read all of @text, expecting the lines @want in order, then the end. */
static void expect_events(const char *text, const char *const *want, size_t n)
{
	tlbsim_trace_reader *r;
	struct tlbsim_event ev;
	struct tlbsim_error err;
	char line[TLBSIM_EVENT_LINE_MAX];
	size_t i = 0;
	int rc;

	tlbsim_error_clear(&err);
	assert_int_equal(
	    tlbsim_trace_open_mem(text, strlen(text), "<t>", TLBSIM_TRACE_AUTO, &r, &err), 0);
	while ((rc = tlbsim_trace_next(r, &ev, &err)) == 1) {
		assert_true(i < n);
		tlbsim_event_format(&ev, line, sizeof(line));
		assert_string_equal(line, want[i]);
		i++;
	}
	if (rc < 0)
		fail_msg("%s:%d:%d: %s", err.source, err.line, err.column, err.text);
	assert_int_equal(i, n);
	tlbsim_trace_close(r);
}

static void comments_blank_lines_crlf_and_a_missing_final_newline_are_accepted(void **state)
{
	/* decimal 10 is 0xa; 0X10 is 16; pcid=0x10 is 16; keyed fields in any order */
	static const char text[] = "tlbsim-trace 1 page_shift=16 isa=arm64\r\n"
				   "# a comment\n"
				   "\n"
				   "  \t\n"
				   "  T7 load 10 0x8 # a trailing comment\r\n"
				   "T7@cpu3 store 0X10 1#touching comment\n"
				   "cpu0 invpcid 0 va=16 pcid=0x10";
	static const char *const want[] = {
	    "T7 load 0xa 8",
	    "T7@cpu3 store 0x10 1",
	    "cpu0 invpcid 0 pcid=16 va=0x10",
	};
	tlbsim_trace_reader *r;

	expect_events(text, want, 3);
	assert_int_equal(
	    tlbsim_trace_open_mem(text, strlen(text), NULL, TLBSIM_TRACE_TEXT, &r, NULL), 0);
	assert_int_equal(tlbsim_trace_info(r)->isa, TLBSIM_ISA_ARM64);
	assert_int_equal(tlbsim_trace_info(r)->page_shift, 16);
	assert_int_equal(tlbsim_trace_info(r)->nr_threads, 0); /* threads= omitted: unknown */
	assert_string_equal(tlbsim_trace_info(r)->source, "");
	tlbsim_trace_close(r);
}

static void header_source_is_the_rest_of_the_line(void **state)
{
	static const char text[] = "tlbsim-trace 1 isa=x86-64 page_shift=12 threads=2 "
				   "source=valgrind lackey: ls -l # not a comment\n";
	tlbsim_trace_reader *r;
	struct tlbsim_event ev;

	assert_int_equal(
	    tlbsim_trace_open_mem(text, strlen(text), NULL, TLBSIM_TRACE_AUTO, &r, NULL), 0);
	assert_string_equal(tlbsim_trace_info(r)->source, "valgrind lackey: ls -l # not a comment");
	assert_int_equal(tlbsim_trace_info(r)->nr_threads, 2);
	assert_int_equal(tlbsim_trace_info(r)->format, TLBSIM_TRACE_TEXT);
	assert_int_equal(tlbsim_trace_next(r, &ev, NULL), 0);
	tlbsim_trace_close(r);
}

static void optional_fields_given_as_zero_are_accepted_and_written_without(void **state)
{
	static const char text[] = "tlbsim-trace 1 isa=arm64 page_shift=12\n"
				   "cpu2 tlbi vae1 va=0x1000 asid=0\n"
				   "cpu0 cr3_write 0x5 pcid=0\n";
	static const char *const want[] = {"cpu2 tlbi vae1 va=0x1000", "cpu0 cr3_write 0x5"};

	expect_events(text, want, 2);
}

static void an_error_is_sticky(void **state)
{
	static const char text[] = "tlbsim-trace 1 isa=arm64 page_shift=12\n"
				   "T1 load 0x1000 8\n"
				   "T1 lod 0x1000 8\n"
				   "T1 load 0x1000 8\n";
	tlbsim_trace_reader *r;
	struct tlbsim_event ev;
	struct tlbsim_error err;

	assert_int_equal(
	    tlbsim_trace_open_mem(text, strlen(text), NULL, TLBSIM_TRACE_AUTO, &r, NULL), 0);
	assert_int_equal(tlbsim_trace_next(r, &ev, NULL), 1);
	assert_int_equal(tlbsim_trace_next(r, &ev, NULL), -TLBSIM_EPARSE);
	/* asked again, the reader repeats the error and its report: line 3 */
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_trace_next(r, &ev, &err), -TLBSIM_EPARSE);
	assert_int_equal(err.line, 3);
	assert_int_equal(err.column, 4);
	assert_int_equal(tlbsim_trace_nr_events(r), 1);
	tlbsim_trace_close(r);
}

static void unknown_input_names_the_known_formats(void **state)
{
	static const char text[] = "ChampSim?";
	tlbsim_trace_reader *r;
	struct tlbsim_error err;

	tlbsim_error_clear(&err);
	assert_int_equal(
	    tlbsim_trace_open_mem(text, strlen(text), NULL, TLBSIM_TRACE_AUTO, &r, &err),
	    -TLBSIM_EPARSE);
	assert_null(r);
	assert_string_equal(err.source, "<memory>");
	/* 'C' 'h' 'a' 'm' 'p' 'S' 'i' 'm' in hex */
	assert_non_null(strstr(err.text,
			       "(binary, text, insn, lackey, execlog; champsim only when named), found first "
			       "bytes [43 68 61 6d 70 53 69 6d]"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(comments_blank_lines_crlf_and_a_missing_final_newline_are_accepted),
	    cmocka_unit_test(header_source_is_the_rest_of_the_line),
	    cmocka_unit_test(optional_fields_given_as_zero_are_accepted_and_written_without),
	    cmocka_unit_test(an_error_is_sticky),
	    cmocka_unit_test(unknown_input_names_the_known_formats),
	};
	/* at least 10 malformed inputs, as the issue asks */
	if (count_cases(INVALID_DIR) < 10)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL) |
	       run_invalid_cases("text_invalid", INVALID_DIR, TLBSIM_TRACE_TEXT);
}
