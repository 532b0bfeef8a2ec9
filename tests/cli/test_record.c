/* SPDX-License-Identifier: MIT */
/*
 * tlbsim record --via lackey end to end (src/cli/cmd_record.c): real
 * programs run under valgrind's lackey, their logs turned into traces
 * through a pipe (tests/record/ tests tlbsim's own valgrind tool).  What each
 * trace must hold is worked out from the program recorded, not from what
 * the code printed.  Skipped when valgrind is not installed.
 */
#include <time.h>

#include "cli/cli_test.h"

#define EXCERPT_C "tests/data/traces/lackey/excerpt.c"

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

static void need_valgrind(void)
{
	if (!in_path("valgrind"))
		skip();
}

static void true_makes_one_process_with_one_thread(void **state)
{
	uint64_t by_kind[TLBSIM_EV_NR_KINDS];
	struct tlbsim_event first, last;
	tlbsim_trace_reader *r;
	char out[600];

	need_valgrind();
	snprintf(out, sizeof(out), "%s/true.tlbt.zst", (char *)*state);
	char *argv[] = {(char *)tlbsim_bin(), "record", "--via", "lackey", "-o", out, "--",
			"/bin/true", NULL};
	assert_int_equal(run(argv), 0);
	assert_false(has_file_starting(*state, "true.tlbt.zst.tmp."));

	/* zstd by default, binary, and the source names the command */
	assert_int_equal(tlbsim_trace_open(out, TLBSIM_TRACE_AUTO, &r, NULL), 0);
	assert_int_equal(tlbsim_trace_info(r)->format, TLBSIM_TRACE_BINARY);
	assert_int_equal(tlbsim_trace_info(r)->compression, TLBSIM_COMPRESS_ZSTD);
	assert_non_null(strstr(tlbsim_trace_info(r)->source, "lackey: /bin/true"));
	tlbsim_trace_close(r);

	/* true has one thread: the process is created first, its only thread
	 * exits last, nothing creates another; the loader maps libc */
	assert_true(trace_kinds(out, by_kind, &first, &last) > 1000);
	assert_int_equal(first.kind, TLBSIM_EV_PROC_CREATE);
	assert_int_equal(last.kind, TLBSIM_EV_EXIT);
	assert_int_equal(last.tid, first.proc_create.tid);
	assert_int_equal(by_kind[TLBSIM_EV_PROC_CREATE], 1);
	assert_int_equal(by_kind[TLBSIM_EV_EXIT], 1);
	assert_int_equal(by_kind[TLBSIM_EV_THREAD_CREATE], 0);
	assert_true(by_kind[TLBSIM_EV_FETCH] > 0);
	assert_true(by_kind[TLBSIM_EV_MMAP] > 0);
}

/*
 * excerpt.c: main starts a worker that maps 64 KiB, stores, madvises
 * (DONTNEED), mprotects one page read-only and unmaps; joins it; starts a
 * sleeper blocked in read(); then mremaps 8 KiB to 16 KiB and _exits.
 */
static void a_threaded_program_gives_its_threads_and_syscalls(void **state)
{
	char prog[600], out[600], cmd[1400];
	tlbsim_trace_reader *r;
	struct tlbsim_event ev;
	uint32_t worker = 0;
	int step = 0, creates = 0, exits = 0, mremaps = 0;

	need_valgrind();
	snprintf(prog, sizeof(prog), "%s/excerpt", (char *)*state);
	snprintf(out, sizeof(out), "%s/excerpt.tlbt", (char *)*state);
	snprintf(cmd, sizeof(cmd), "cc -O1 -pthread -o %s %s 2>/dev/null", prog, EXCERPT_C);
	if (system(cmd) != 0)
		skip(); /* no C compiler */
	char *argv[] = {(char *)tlbsim_bin(), "record", "--via", "lackey", "-o", out,
			"--compress", "none", "--", prog, NULL};
	assert_int_equal(run(argv), 0);

	assert_int_equal(tlbsim_trace_open(out, TLBSIM_TRACE_AUTO, &r, NULL), 0);
	while (tlbsim_trace_next(r, &ev, NULL) == 1) {
		if (ev.kind == TLBSIM_EV_THREAD_CREATE && !creates++)
			worker = ev.thread_create.tid;
		exits += ev.kind == TLBSIM_EV_EXIT;
		if (ev.kind == TLBSIM_EV_MREMAP && ev.mremap.old_len == 0x2000 &&
		    ev.mremap.new_len == 0x4000 && ev.mremap.flags == TLBSIM_MREMAP_MAYMOVE)
			mremaps++;
		if (!worker || ev.tid != worker)
			continue;
		/* the worker's syscalls, in its program order */
		if (step == 0 && ev.kind == TLBSIM_EV_MMAP && ev.mmap.len == 0x10000 &&
		    ev.mmap.prot == (TLBSIM_PROT_READ | TLBSIM_PROT_WRITE) &&
		    ev.mmap.flags == (TLBSIM_MAP_PRIVATE | TLBSIM_MAP_ANON))
			step = 1;
		else if (step == 1 && ev.kind == TLBSIM_EV_MADVISE && ev.madvise.len == 0x10000 &&
			 ev.madvise.advice == TLBSIM_MADV_DONTNEED)
			step = 2;
		else if (step == 2 && ev.kind == TLBSIM_EV_MPROTECT && ev.mprotect.len == 0x1000 &&
			 ev.mprotect.prot == TLBSIM_PROT_READ)
			step = 3;
		else if (step == 3 && ev.kind == TLBSIM_EV_MUNMAP && ev.munmap.len == 0x10000)
			step = 4;
	}
	tlbsim_trace_close(r);
	assert_int_equal(creates, 2); /* worker and sleeper */
	assert_int_equal(exits, 3);   /* worker, then sleeper and main at _exit */
	assert_int_equal(step, 4);
	assert_int_equal(mremaps, 1);
}

/* Start recording @prog, wait until its trace is being written, then SIGINT. */
static int record_and_interrupt(const char *dir, const char *out, char **prog)
{
	char *argv[16] = {(char *)tlbsim_bin(), "record", "--via", "lackey", "-o", (char *)out, "--"};
	int n = 7, waited;
	pid_t pid;

	while (*prog)
		argv[n++] = *prog++;
	argv[n] = NULL;
	pid = spawn(argv, 1);
	/* the temporary file appears once the log's first 64 KiB are read */
	for (waited = 0; waited < 600 && !has_file_starting(dir, "int.tlbt.tmp."); waited++)
		nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL); /* 0.1 s */
	sleep(1);
	kill(pid, SIGINT);
	return wait_status(pid);
}

static void sigint_keeps_a_valid_trace_of_what_was_recorded(void **state)
{
	uint64_t by_kind[TLBSIM_EV_NR_KINDS];
	struct tlbsim_event first, last;
	char out[600];
	char *prog[] = {"yes", NULL};

	need_valgrind();
	snprintf(out, sizeof(out), "%s/int.tlbt", (char *)*state);
	/* yes never ends by itself; SIGINT, passed on, ends it */
	assert_int_equal(record_and_interrupt(*state, out, prog), 130);
	assert_false(has_file_starting(*state, "int.tlbt.tmp."));
	/* trace_kinds fails on a cut or malformed trace */
	assert_true(trace_kinds(out, by_kind, &first, &last) > 0);
	assert_int_equal(first.kind, TLBSIM_EV_PROC_CREATE);
	assert_true(by_kind[TLBSIM_EV_FETCH] > 0);
}

static void a_program_ignoring_sigint_and_sigterm_is_killed(void **state)
{
	uint64_t by_kind[TLBSIM_EV_NR_KINDS];
	struct tlbsim_event first, last;
	char out[600];
	char *prog[] = {"/bin/sh", "-c", "trap '' INT TERM; while :; do :; done", NULL};

	need_valgrind();
	snprintf(out, sizeof(out), "%s/int.tlbt", (char *)*state);
	/* valgrind ignores SIGINT and SIGTERM its program ignores: SIGKILL follows */
	assert_int_equal(record_and_interrupt(*state, out, prog), 130);
	assert_false(has_file_starting(*state, "int.tlbt.tmp."));
	assert_true(trace_kinds(out, by_kind, &first, &last) > 0);
	assert_int_equal(first.kind, TLBSIM_EV_PROC_CREATE);
}

static void usage_errors_exit_with_2(void **state)
{
	char *no_output[] = {(char *)tlbsim_bin(), "record", "--", "/bin/true", NULL};
	char *no_program[] = {(char *)tlbsim_bin(), "record", "-o", "x.tlbt", NULL};
	char *bad_format[] = {
	    (char *)tlbsim_bin(), "record", "-o", "x.tlbt", "--format", "lackey", "--",
	    "/bin/true",	  NULL};

	assert_int_equal(wait_status(spawn(no_output, 1)), 2);
	assert_int_equal(wait_status(spawn(no_program, 1)), 2);
	assert_int_equal(wait_status(spawn(bad_format, 1)), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(true_makes_one_process_with_one_thread, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(a_threaded_program_gives_its_threads_and_syscalls,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(sigint_keeps_a_valid_trace_of_what_was_recorded, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(a_program_ignoring_sigint_and_sigterm_is_killed, setup,
					    teardown),
	    cmocka_unit_test(usage_errors_exit_with_2),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
