/* SPDX-License-Identifier: MIT */
/*
 * The OS model's front end (src/os/sim.c route() and lifecycle()) on
 * hand-built text traces (traces/FORMAT.md, "Threads and processes"): a
 * process or thread created while its pid or tid is in use, and an event
 * of a thread after its exit, are input errors naming the trace and the
 * event; pid and tid reuse after an exit is legal and makes a new thread;
 * events of a thread never created stay legal and are counted; an ordered
 * replay whose next event belongs to a thread that can never run stops at
 * once with an error instead of spinning.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "os/os.h"
#include "support/machines.h"
#include "tlbsim/trace.h"

#define HEADER "tlbsim-trace 1 isa=x86-64 page_shift=12\n"

static int reader_next(void *arg, struct tlbsim_event *ev, struct tlbsim_error *err)
{
	return tlbsim_trace_next(arg, ev, err);
}

struct result {
	int rc;
	struct tlbsim_error err;
	uint64_t events_run, unknown_thread_events, faults, segv, ignored[2];
	uint32_t threads, mms;
};

/* Run the text trace @text, named @name, on a 2-cpu x86 machine. */
static void run_text(const char *name, const char *text, int ordered, struct result *res)
{
	struct tlbsim_machine *m = test_machine(TLBSIM_ISA_X86_64, 2);
	struct tlbsim_sim_config cfg = {
	    .machine = m, .threads = 1, .ordered = ordered, .name = name};
	tlbsim_trace_reader *r = NULL;
	tlbsim_sim *sim = NULL;
	struct os *os;

	memset(res, 0, sizeof(*res));
	tlbsim_error_clear(&res->err);
	assert_int_equal(
	    tlbsim_trace_open_mem(text, strlen(text), name, TLBSIM_TRACE_TEXT, &r, &res->err), 0);
	assert_int_equal(tlbsim_sim_create(&cfg, &sim, &res->err), 0);
	res->rc = tlbsim_sim_run(sim, reader_next, r, &res->err);
	os = os_of_sim(sim);
	for (unsigned c = 0; c < m->nr_cpus; c++) {
		res->events_run += os->cpu[c].st.events;
		res->faults += os->cpu[c].st.faults;
		res->segv += os->cpu[c].st.segv;
		if (c < 2)
			res->ignored[c] = os->cpu[c].st.ignored;
	}
	res->unknown_thread_events = os->st.unknown_thread_events;
	res->threads = os->nr_threads;
	res->mms = os->nr_mms;
	tlbsim_sim_destroy(sim);
	tlbsim_trace_close(r);
	tlbsim_machine_free(m);
}

static void assert_input_error(const struct result *res, const char *file, const char *text)
{
	assert_int_equal(res->rc, -TLBSIM_EINVAL);
	assert_int_equal(res->err.code, -TLBSIM_EINVAL);
	assert_string_equal(res->err.source, file);
	if (!strstr(res->err.text, text))
		fail_msg("message '%s' lacks '%s'", res->err.text, text);
}

static void proc_create_of_a_pid_in_use_is_an_input_error(void **state)
{
	struct result res;

	(void)state;
	/* event 0 makes pid 5 (thread 5); event 1 names pid 5 again, with a
	 * new tid, while thread 5 is alive */
	run_text("dup-pid.tlbt", HEADER "proc_create 5 5\nproc_create 5 6\n", 0, &res);
	assert_input_error(&res, "dup-pid.tlbt",
			   "event 1 (proc_create): pid 5 is in use (1 thread alive): a pid not in "
			   "use expected");
}

static void thread_create_of_a_live_tid_is_an_input_error(void **state)
{
	struct result res;

	(void)state;
	/* events: 0 proc_create, 1 thread_create 2, 2 thread_create 2 again */
	run_text("dup-tid.tlbt", HEADER "proc_create 1 1\nT1 thread_create 2\nT1 thread_create 2\n",
		 0, &res);
	assert_input_error(&res, "dup-tid.tlbt",
			   "event 2 (thread_create): thread 2 is alive (created at event 1): a tid "
			   "not in use expected");
}

static void proc_create_naming_a_live_tid_is_an_input_error(void **state)
{
	struct result res;

	(void)state;
	run_text("dup-tid2.tlbt", HEADER "proc_create 1 1\nproc_create 2 1\n", 0, &res);
	assert_input_error(&res, "dup-tid2.tlbt",
			   "event 1 (proc_create): thread 1 is alive (created at event 0)");
}

static void fork_to_a_pid_in_use_is_an_input_error(void **state)
{
	struct result res;

	(void)state;
	/* thread 1 forks pid 1 (its own) with a new tid 3 */
	run_text("dup-fork.tlbt", HEADER "proc_create 1 1\nT1 fork 1 3\n", 0, &res);
	assert_input_error(&res, "dup-fork.tlbt", "event 1 (fork): pid 1 is in use");
}

static void an_event_after_its_threads_exit_is_an_input_error(void **state)
{
	struct result res;

	(void)state;
	/* events: 0 proc_create, 1 thread_create 2, 2 T2 exit, 3 T2 load */
	run_text("after-exit.tlbt",
		 HEADER "proc_create 1 1\nT1 thread_create 2\nT2 exit\nT2 load 0x10000000 8\n", 0,
		 &res);
	assert_input_error(&res, "after-exit.tlbt",
			   "event 3 (load): thread 2 exited at event 2: an event of a live thread "
			   "expected");
}

/*
 * Process 5 (thread 5) maps a page, writes it (one fault), exits; then
 * pid 5 and tid 5 are used again for a second process doing the same.
 * Both run: 2 threads, 2 address spaces, 2 faults, and every thread event
 * runs: mmap, store, exit twice = 6 (proc_create of no thread runs at
 * read time, not on a cpu), none left over.
 */
static void exec_with_another_live_thread_is_an_input_error(void **state)
{
	struct result res;

	(void)state;
	/* events: 0 proc_create, 1 thread_create 2, 2 T1 exec while T2 lives */
	run_text("exec-threads.tlbt", HEADER "proc_create 1 1\nT1 thread_create 2\nT1 exec\n", 0,
		 &res);
	assert_input_error(&res, "exec-threads.tlbt",
			   "event 2 (exec): process 1 has 2 live threads: its other threads' exits "
			   "expected before an exec");
}

/*
 * An exec after the other thread's exit is legal: the process gets a new
 * address space (2 mms: the first and the exec'd image's), its old mapping
 * is gone (the load at 0x10000000 after the exec faults on the new mm and
 * is a segv, the store before it faulted on the old one: 2 faults), and
 * the thread goes on with its tid: the cpus run 7 events (all but the
 * proc_create, which no thread performs).
 */
static void exec_after_the_other_threads_exit_gives_a_new_address_space(void **state)
{
	struct result res;

	(void)state;
	run_text("exec.tlbt",
		 HEADER "proc_create 1 1\nT1 thread_create 2\nT2 exit\n"
			"T1 mmap 0x10000000 0x1000 rw- private,anon\nT1 store 0x10000000 8\n"
			"T1 exec\nT1 load 0x10000000 8\nT1 exit\n",
		 0, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.mms, 2);
	assert_int_equal(res.faults, 2);
	assert_int_equal(res.events_run, 7);
}

static void pid_and_tid_reuse_after_exit_is_legal(void **state)
{
	static const char once[] = "proc_create 5 5\n"
				   "T5 mmap 0x10000000 0x1000 rw- private,anon\n"
				   "T5 store 0x10000000 8\n"
				   "T5 exit\n";
	char text[512];
	struct result res;

	(void)state;
	snprintf(text, sizeof(text), HEADER "%s%s", once, once);
	run_text("reuse.tlbt", text, 0, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.threads, 2);
	assert_int_equal(res.mms, 2);
	assert_int_equal(res.faults, 2);
	assert_int_equal(res.events_run, 6);
	assert_int_equal(res.unknown_thread_events, 0);
}

/*
 * Thread 2 is made, exits, and is made again before the first creation
 * has run (all of it is read ahead): the earlier creation starts the
 * earlier thread 2 (which exits), the later one the later (which writes
 * the page: one fault).  Events run: thread 1's mmap, two thread_creates
 * and exit (4), the first thread 2's exit (1), the second's store and
 * exit (2) = 7; 3 threads; nothing left over.
 */
static void a_tid_made_again_before_its_first_creation_ran_is_a_new_thread(void **state)
{
	struct result res;

	(void)state;
	run_text("reuse-thread.tlbt",
		 HEADER "proc_create 1 1\n"
			"T1 mmap 0x10000000 0x1000 rw- private,anon\n"
			"T1 thread_create 2\n"
			"T2 exit\n"
			"T1 thread_create 2\n"
			"T2 store 0x10000000 8\n"
			"T2 exit\n"
			"T1 exit\n",
		 0, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.threads, 3);
	assert_int_equal(res.faults, 1);
	assert_int_equal(res.events_run, 7);
	assert_int_equal(res.unknown_thread_events, 0);
}

/* Thread 9 is never created: its one event is counted, not run, and the
 * trace is not refused (an excerpt of a longer trace has such threads). */
static void events_of_a_thread_never_created_are_counted(void **state)
{
	struct result res;

	(void)state;
	run_text("excerpt.tlbt",
		 HEADER "proc_create 1 1\nT1 mmap 0x10000000 0x1000 rw- private,anon\n"
			"T9 load 0x10000000 8\n",
		 0, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.unknown_thread_events, 1);
	assert_int_equal(res.events_run, 1);
}

/*
 * Kernel-level events on a cpu for no thread ("cpu1 invlpg", "cpu0
 * commit") are the kernel-level replayer's: the OS model counts each as an
 * ignored event of the cpu it names, as it does in a thread's stream
 * ("T1@cpu0 invlpg"), never as an event of a thread no event created; in
 * ordered replay too, which must not wait for them.  Events run: thread
 * 1's mmap, its invlpg (ignored, on cpu0) and exit, plus the two cpu
 * events = 5; ignored: cpu0 2 (its invlpg, the commit), cpu1 1.
 */
static void kernel_events_for_no_thread_are_ignored_on_their_cpu(void **state)
{
	static const char text[] = HEADER "proc_create 1 1\n"
					  "T1 mmap 0x10000000 0x1000 rw- private,anon\n"
					  "cpu1 invlpg 0x10000000\n"
					  "T1@cpu0 invlpg 0x10000000\n"
					  "cpu0 commit 0x1000 0x10000000 0x1000\n"
					  "T1 exit\n";
	struct result res;

	(void)state;
	for (int ordered = 0; ordered < 2; ordered++) {
		run_text("kernel-events.tlbt", text, ordered, &res);
		assert_int_equal(res.rc, 0);
		assert_int_equal(res.unknown_thread_events, 0);
		assert_int_equal(res.ignored[0], 2);
		assert_int_equal(res.ignored[1], 1);
		assert_int_equal(res.events_run, 5);
	}
}

/*
 * A kernel thread after kthread_unuse_mm() runs on the mm lazily: the
 * cpu keeps its page tables loaded, so an access the TLB or a walk of
 * those tables can translate succeeds, as on the hardware; one that
 * faults finds no mm and is a segv (Linux arch/x86/mm/fault.c
 * do_user_addr_fault(): no mm, bad_area_nosemaphore()).  T1 writes page A
 * (fault 1); T9 borrows mm 1 and reads A (present: no fault), unuses it,
 * reads A again (translated through the lazy mm: no fault) and page B,
 * mapped but never touched (fault 2, a segv: no mm to fault it in).  T1
 * makes T9 after its store, so T9's first read finds A written, and ends
 * asleep: no exit_mmap() under T9.
 */
static void a_kthread_after_unuse_translates_lazily_and_cannot_fault(void **state)
{
	static const char text[] = HEADER "proc_create 1 1\n"
					  "T1@cpu0 switch\n"
					  "T1 mmap 0x10000000 0x2000 rw- private,anon\n"
					  "T1 store 0x10000000 8\n"
					  "T1 kthread_create 9\n"
					  "T9@cpu1 switch\n"
					  "T9 kthread_use_mm 1 mmget\n"
					  "T9 load 0x10000000 8\n"
					  "T9 kthread_unuse_mm\n"
					  "T9 load 0x10000000 8\n"
					  "T9 load 0x10001000 8\n"
					  "T9 exit\n"
					  "T1 sleep\n";
	struct result res;

	(void)state;
	run_text("kthread-unuse.tlbt", text, 0, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.faults, 2);
	assert_int_equal(res.segv, 1);
}

/*
 * An exec by a kernel thread is ignored (traces/FORMAT.md): alone, and
 * while it borrows process 1's mm, which must survive it: T1's load and
 * store after it run normally (T1's first store is fault 1, the store
 * to the second page fault 2) and none is a segv.  Ignored events: the
 * two execs.
 */
static void exec_by_a_kthread_is_ignored(void **state)
{
	static const char text[] = HEADER "kthread_create 6\n"
					  "T6@cpu1 switch\n"
					  "T6 exec\n"
					  "T6 exit\n"
					  "proc_create 1 1\n"
					  "T1@cpu0 switch\n"
					  "T1 mmap 0x10000 0x2000 rw- private,anon\n"
					  "T1 store 0x10000 8\n"
					  "T1 kthread_create 5\n"
					  "T5@cpu1 switch\n"
					  "T5 kthread_use_mm 1\n"
					  "T5 exec\n"
					  "T5 kthread_unuse_mm\n"
					  "T5 exit\n"
					  "T1 load 0x10000 8\n"
					  "T1 store 0x11000 8\n"
					  "T1 sleep\n";
	struct result res;

	(void)state;
	run_text("kthread-exec.tlbt", text, 0, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.segv, 0);
	assert_int_equal(res.faults, 2);
	assert_int_equal(res.ignored[0] + res.ignored[1], 2);
}

/* In trace order, event 1 waits for thread 3, which nothing creates: the
 * replay stops at once with an error rather than spinning. */
static void ordered_replay_of_a_thread_never_created_stops_with_an_error(void **state)
{
	struct result res;

	(void)state;
	run_text("stuck.tlbt",
		 HEADER "proc_create 1 1\nT3 load 0x10000000 8\nT1 load 0x10000000 8\n", 1, &res);
	assert_input_error(&res, "stuck.tlbt",
			   "ordered replay is stuck: event 1 cannot start: its thread 3 was not "
			   "created by an earlier event");
}

/* Thread 1 sleeps and only its own later event could be a wake: stuck. */
static void ordered_replay_waiting_on_a_sleeper_stops_with_an_error(void **state)
{
	struct result res;

	(void)state;
	run_text("sleeper.tlbt",
		 HEADER "proc_create 1 1\nT1 thread_create 2\nT2 sleep\nT2 load 0x10000000 8\n"
			"T1 wake 2\n",
		 1, &res);
	assert_input_error(&res, "sleeper.tlbt",
			   "ordered replay is stuck: event 3 cannot start: its thread 2 sleeps");
}

/* Out of trace order too: thread 2 sleeps at event 2 and no event after
 * it wakes it, so its two loads can never run.  A complete run ends with
 * an error naming that sleep, not with the loads quietly left out. */
static void a_sleep_no_event_ends_strands_its_thread_with_an_error(void **state)
{
	struct result res;

	(void)state;
	run_text("asleep.tlbt",
		 HEADER "proc_create 1 1\nT1 thread_create 2\nT2 sleep\nT2 load 0x10000000 8\n"
			"T2 load 0x10000000 8\n",
		 0, &res);
	assert_input_error(&res, "asleep.tlbt",
			   "event 2 (sleep): thread 2 sleeps for good: no later event wakes it (a "
			   "`wake 2` by a thread that runs expected after it), and 2 of its events "
			   "after it cannot run (2 of sleeping threads in all)");
}

/* Each thread's wake of the other comes after its own sleep (events 2
 * and 3): whichever runs first, both sleep for good.  The earlier sleep
 * in the trace is named, whichever thread made it; one event of each is
 * left. */
static void two_threads_asleep_waiting_for_each_other_are_an_error(void **state)
{
	struct result res;

	(void)state;
	run_text("deadlock.tlbt",
		 HEADER "proc_create 1 1\nT1 thread_create 2\nT1 sleep\nT2 sleep\nT1 wake 2\n"
			"T2 wake 1\n",
		 0, &res);
	assert_input_error(&res, "deadlock.tlbt",
			   "event 2 (sleep): thread 1 sleeps for good: no later event wakes it (a "
			   "`wake 1` by a thread that runs expected after it), and 1 of its events "
			   "after it cannot run (2 of sleeping threads in all)");
	run_text("deadlock2.tlbt",
		 HEADER "proc_create 1 1\nT1 thread_create 2\nT2 sleep\nT1 sleep\nT2 wake 1\n"
			"T1 wake 2\n",
		 0, &res);
	assert_input_error(&res, "deadlock2.tlbt",
			   "event 2 (sleep): thread 2 sleeps for good: no later event wakes it (a "
			   "`wake 2` by a thread that runs expected after it), and 1 of its events "
			   "after it cannot run (2 of sleeping threads in all)");
}

/* A thread may end the trace asleep, with nothing after its sleep; and a
 * wake read before the sleep it ends leaves a token: both run whole.
 * Events on cpus: thread_create, wake, sleep, mmap, store (5); the
 * store's page faults in once. */
static void a_last_sleep_and_an_early_wake_run_whole(void **state)
{
	struct result res;

	(void)state;
	run_text("last-sleep.tlbt", HEADER "proc_create 1 1\nT1 thread_create 2\nT2 sleep\n", 0,
		 &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.events_run, 2);
	run_text("early-wake.tlbt",
		 HEADER "proc_create 1 1\nT1 thread_create 2\nT1 wake 2\nT2 sleep\n"
			"T2 mmap 0x100000000000 0x1000 rw- private,anon\n"
			"T2 store 0x100000000000 8\n",
		 0, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.events_run, 5);
	assert_int_equal(res.faults, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(proc_create_of_a_pid_in_use_is_an_input_error),
	    cmocka_unit_test(thread_create_of_a_live_tid_is_an_input_error),
	    cmocka_unit_test(proc_create_naming_a_live_tid_is_an_input_error),
	    cmocka_unit_test(fork_to_a_pid_in_use_is_an_input_error),
	    cmocka_unit_test(an_event_after_its_threads_exit_is_an_input_error),
	    cmocka_unit_test(exec_with_another_live_thread_is_an_input_error),
	    cmocka_unit_test(exec_after_the_other_threads_exit_gives_a_new_address_space),
	    cmocka_unit_test(pid_and_tid_reuse_after_exit_is_legal),
	    cmocka_unit_test(a_tid_made_again_before_its_first_creation_ran_is_a_new_thread),
	    cmocka_unit_test(events_of_a_thread_never_created_are_counted),
	    cmocka_unit_test(kernel_events_for_no_thread_are_ignored_on_their_cpu),
	    cmocka_unit_test(a_kthread_after_unuse_translates_lazily_and_cannot_fault),
	    cmocka_unit_test(exec_by_a_kthread_is_ignored),
	    cmocka_unit_test(ordered_replay_of_a_thread_never_created_stops_with_an_error),
	    cmocka_unit_test(ordered_replay_waiting_on_a_sleeper_stops_with_an_error),
	    cmocka_unit_test(a_sleep_no_event_ends_strands_its_thread_with_an_error),
	    cmocka_unit_test(two_threads_asleep_waiting_for_each_other_are_an_error),
	    cmocka_unit_test(a_last_sleep_and_an_early_wake_run_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
