/* SPDX-License-Identifier: MIT */
/*
 * tlbsim convert end to end (src/cli/cmd_convert.c): foreign formats in,
 * native formats out, round trips that must give the same events back,
 * and output left untouched when a conversion fails.
 */
#include "cli/cli_test.h"
#include "traces/lackey_excerpt.h"

#define ALL_KINDS "tests/data/traces/all_kinds.txt"
#define BAD_LACKEY "tests/data/traces/lackey/invalid/memory_syscall_never_returned/input"

static int setup(void **state)
{
	*state = make_tmpdir();
	return 0;
}

static int teardown(void **state)
{
	rm_tree(*state);
	return 0;
}

static void path_in(char *buf, size_t size, void **state, const char *name)
{
	snprintf(buf, size, "%s/%s", (char *)*state, name);
}

static void lackey_log_to_binary_to_text_gives_the_hand_worked_events(void **state)
{
	size_t want = sizeof(lackey_excerpt_events) / sizeof(lackey_excerpt_events[0]), n;
	char bin[600], txt[600], **lines;

	path_in(bin, sizeof(bin), state, "excerpt.tlbt.xz");
	path_in(txt, sizeof(txt), state, "excerpt.txt");
	char *to_bin[] = {
	    (char *)tlbsim_bin(), "convert", LACKEY_EXCERPT, bin, "--compress", "xz", NULL};
	char *to_txt[] = {(char *)tlbsim_bin(), "convert", bin, txt, "--to", "text", NULL};

	assert_int_equal(run(to_bin), 0);
	assert_int_equal(run(to_txt), 0);
	lines = trace_lines(txt, &n);
	assert_int_equal(n, want);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(lines[i], lackey_excerpt_events[i]);
	free_lines(lines, n);
}

static void text_to_binary_and_back_keeps_every_line(void **state)
{
	char bin[600], txt[600], **a, **b;
	size_t na, nb;

	path_in(bin, sizeof(bin), state, "all.tlbt");
	path_in(txt, sizeof(txt), state, "all.txt");
	char *to_bin[] = {(char *)tlbsim_bin(), "convert", ALL_KINDS, bin, NULL};
	char *to_txt[] = {(char *)tlbsim_bin(), "convert", "--to", "text", bin, txt, NULL};

	assert_int_equal(run(to_bin), 0);
	assert_int_equal(run(to_txt), 0);
	a = trace_lines(ALL_KINDS, &na);
	b = trace_lines(txt, &nb);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++)
		assert_string_equal(a[i], b[i]);
	free_lines(a, na);
	free_lines(b, nb);
}

static void champsim_needs_from_champsim(void **state)
{
	/* one record: ip 0x401000, source_memory[0] 0x601000 */
	uint8_t rec[64] = {
	    [0] = 0x00, [1] = 0x10, [2] = 0x40, [32] = 0x00, [33] = 0x10, [34] = 0x60};
	static const char *const want[] = {
	    "proc_create 1 1",
	    "T1 mmap 0x1000 0x3ffff000 rwx private,anon",
	    "T1 fetch 0x401000 1",
	    "T1 load 0x601000 1",
	};
	char in[600], out[600], **lines;
	size_t n;
	FILE *f;

	path_in(in, sizeof(in), state, "one.champsim");
	path_in(out, sizeof(out), state, "one.txt");
	f = fopen(in, "wb");
	assert_int_equal(fwrite(rec, 1, sizeof(rec), f), sizeof(rec));
	fclose(f);
	char *guess[] = {(char *)tlbsim_bin(), "convert", in, out, NULL};
	char *named[] = {
	    (char *)tlbsim_bin(), "convert", "--from", "champsim", "--to", "text", in, out, NULL};

	assert_int_equal(wait_status(spawn(guess, 1)), 2);
	assert_false(file_exists(out));
	assert_int_equal(run(named), 0);
	lines = trace_lines(out, &n);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(lines[i], want[i]);
	free_lines(lines, n);
}

static void a_failed_conversion_leaves_the_output_as_it_was(void **state)
{
	char out[600], *text;
	FILE *f;

	path_in(out, sizeof(out), state, "keep.tlbt");
	f = fopen(out, "w");
	fputs("old", f);
	fclose(f);
	char *argv[] = {(char *)tlbsim_bin(), "convert", BAD_LACKEY, out, NULL};

	/* the log fails on its line 4, after one event was written */
	assert_int_equal(wait_status(spawn(argv, 1)), 2);
	text = read_all(out, NULL);
	assert_string_equal(text, "old");
	free(text);
	assert_false(has_file_starting(*state, "keep.tlbt.tmp."));
}

static void only_native_formats_are_written(void **state)
{
	char *argv[] = {(char *)tlbsim_bin(), "convert", ALL_KINDS, "x", "--to", "lackey", NULL};
	char *comp[] = {(char *)tlbsim_bin(), "convert", ALL_KINDS, "x",
			"--compress",	      "gzip",	 NULL};

	assert_int_equal(wait_status(spawn(argv, 1)), 2);
	assert_int_equal(wait_status(spawn(comp, 1)), 2);
	assert_false(file_exists("x"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
		lackey_log_to_binary_to_text_gives_the_hand_worked_events, setup, teardown),
	    cmocka_unit_test_setup_teardown(text_to_binary_and_back_keeps_every_line, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(champsim_needs_from_champsim, setup, teardown),
	    cmocka_unit_test_setup_teardown(a_failed_conversion_leaves_the_output_as_it_was, setup,
					    teardown),
	    cmocka_unit_test(only_native_formats_are_written),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
