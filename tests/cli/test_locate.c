/* SPDX-License-Identifier: MIT */
/*
 * Errors the OS model and the kernel-level replayer find in a well-formed
 * trace, as tlbsim run and tlbsim check print them (src/cli/main.c's
 * cli_fail_run_err(), traces/trace_locate.c): "FILE:LINE: event N ..." for
 * text, "FILE:@OFFSET: event N ..." for binary (in the decompressed stream
 * when compressed), the event index alone for standard input, which
 * cannot be read again.  Lines and offsets worked out by hand below.
 */
#include "cli/cli_test.h"

#define MACHINE "generic-x86-64"
#define DUP_TEXT "thread 2 is alive (created at event 1): a tid not in use expected"

/*
 * Event 2, the second thread_create of tid 2, is on line 6: the header,
 * a comment, events 0 and 1, a blank line.
 */
static const char dup_trace[] = "tlbsim-trace 1 isa=x86-64 page_shift=12\n"
				"# a thread made twice\n"
				"proc_create 1 1\n"
				"T1 thread_create 2\n"
				"\n"
				"T1 thread_create 2\n";

/*
 * Run @argv with standard input from @in (NULL: /dev/null) and standard
 * error into @dir/stderr; its exit status, and what it printed in @msg.
 */
static int run_err(const char *dir, char *const argv[], const char *in, char *msg, size_t size)
{
	char err_path[600];
	pid_t pid;
	char *text;
	int status;

	snprintf(err_path, sizeof(err_path), "%s/stderr", dir);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd_in = open(in ? in : "/dev/null", O_RDONLY);
		int fd_err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int fd_out = open("/dev/null", O_WRONLY);

		dup2(fd_in, 0);
		dup2(fd_out, 1);
		dup2(fd_err, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	status = wait_status(pid);
	text = read_all(err_path, NULL);
	snprintf(msg, size, "%s", text);
	free(text);
	return status;
}

/*
 * dup_trace in the binary format, compressed as @c (traces/FORMAT.md):
 *   0..17  header, no source
 *  18..20  05 01 01     proc_create 1 1                       event 0
 *  21..23  86 01 02     thread_create + 0x80: tid 1, then tid 2 event 1
 *  24..25  06 02        thread_create 2, tid 1 unchanged       event 2
 */
static void write_dup_binary(const char *path, enum tlbsim_trace_compression c)
{
	const struct tlbsim_trace_info info = {.isa = TLBSIM_ISA_X86_64, .page_shift = 12};
	struct tlbsim_event ev[3];
	struct tlbsim_error err;
	tlbsim_trace_writer *w;

	memset(ev, 0, sizeof(ev));
	ev[0].kind = TLBSIM_EV_PROC_CREATE;
	ev[0].cpu = TLBSIM_CPU_ANY;
	ev[0].proc_create.pid = 1;
	ev[0].proc_create.tid = 1;
	for (int i = 1; i < 3; i++) {
		ev[i].kind = TLBSIM_EV_THREAD_CREATE;
		ev[i].cpu = TLBSIM_CPU_ANY;
		ev[i].tid = 1;
		ev[i].thread_create.tid = 2;
	}
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_trace_writer_open(path, TLBSIM_TRACE_BINARY, c, &info, &w, &err),
			 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(tlbsim_trace_writer_write(w, &ev[i], &err), 0);
	assert_int_equal(tlbsim_trace_writer_close(w, &err), 0);
}

/*
 * tlbsim run on @path (or, with @from_stdin, on "-" fed @path): the message
 * it prints must be "tlbsim: SOURCE@where: event 2 ..." for dup_trace.
 */
static void expect_dup_error(void **state, const char *path, int from_stdin, const char *where)
{
	char msg[2048], want[2048];
	char *argv[] = {(char *)tlbsim_bin(),
			"run",
			"--machine",
			MACHINE,
			"--quiet",
			from_stdin ? "-" : (char *)path,
			NULL};

	assert_int_equal(run_err(*state, argv, from_stdin ? path : NULL, msg, sizeof(msg)), 2);
	snprintf(want, sizeof(want), "tlbsim: %s%s: event 2 (thread_create): " DUP_TEXT "\n",
		 from_stdin ? "-" : path, where);
	assert_string_equal(msg, want);
}

static void run_names_the_line_of_a_text_event_the_os_model_refuses(void **state)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/dup.txt", (char *)*state);
	write_text_file(path, dup_trace);
	expect_dup_error(state, path, 0, ":6");
}

static void run_names_the_offset_of_a_binary_event_record(void **state)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/dup.tlbt", (char *)*state);
	write_dup_binary(path, TLBSIM_COMPRESS_NONE);
	expect_dup_error(state, path, 0, ":@24");
}

static void run_names_the_decompressed_offset_of_a_zstd_event_record(void **state)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/dup.tlbt.zst", (char *)*state);
	write_dup_binary(path, TLBSIM_COMPRESS_ZSTD);
	expect_dup_error(state, path, 0, ":@24");
}

/* "-" cannot be read again: no line, though the text names it. */
static void run_from_stdin_keeps_the_event_index_alone(void **state)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/dup.txt", (char *)*state);
	write_text_file(path, dup_trace);
	expect_dup_error(state, path, 1, "");
}

/* Kernel-level replay: event 0, on line 3 after a comment, names no cpu. */
static void run_kernel_names_the_line_of_an_event_without_a_cpu(void **state)
{
	char path[600], msg[2048], want[2048];

	snprintf(path, sizeof(path), "%s/nocpu.txt", (char *)*state);
	write_text_file(path, "tlbsim-trace 1 isa=x86-64 page_shift=12\n"
			      "# no cpu named\n"
			      "T1 load 0x1000 8\n");
	char *argv[] = {(char *)tlbsim_bin(), "run",	 "--machine", MACHINE,
			"--kernel",	      "--quiet", path,	      NULL};

	assert_int_equal(run_err(*state, argv, NULL, msg, sizeof(msg)), 2);
	snprintf(want, sizeof(want), "tlbsim: %s:3: event 0 has no cpu", path);
	assert_memory_equal(msg, want, strlen(want));
}

/* A scenario: the header, two directives, then the events of dup_trace on lines 4-6. */
static void check_names_the_line_of_a_scenario_event_the_os_model_refuses(void **state)
{
	char path[600], msg[2048], want[2048];

	snprintf(path, sizeof(path), "%s/dup.tlbt", (char *)*state);
	write_text_file(path, "tlbsim-trace 1 isa=x86-64 page_shift=12\n"
			      "#@ machine " MACHINE "\n"
			      "#@ expect safe\n"
			      "proc_create 1 1\n"
			      "T1 thread_create 2\n"
			      "T1 thread_create 2\n");
	char *argv[] = {(char *)tlbsim_bin(), "check", path, NULL};

	assert_int_equal(run_err(*state, argv, NULL, msg, sizeof(msg)), 2);
	snprintf(want, sizeof(want), "tlbsim: %s:6: event 2 (thread_create): " DUP_TEXT "\n", path);
	assert_string_equal(msg, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(run_names_the_line_of_a_text_event_the_os_model_refuses,
					    tmpdir_setup, tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(run_names_the_offset_of_a_binary_event_record,
					    tmpdir_setup, tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(
		run_names_the_decompressed_offset_of_a_zstd_event_record, tmpdir_setup,
		tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(run_from_stdin_keeps_the_event_index_alone,
					    tmpdir_setup, tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(run_kernel_names_the_line_of_an_event_without_a_cpu,
					    tmpdir_setup, tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(
		check_names_the_line_of_a_scenario_event_the_os_model_refuses, tmpdir_setup,
		tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
