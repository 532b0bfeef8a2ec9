/* SPDX-License-Identifier: MIT */
/*
 * The trace's order of memory syscalls on overlapping ranges
 * (src/os/hb.c, issue 30): a syscall starts only once every earlier one
 * (trace order) of another thread of its process on an overlapping range
 * has returned, unless both are madvise; the result no longer depends on
 * the policy.
 */
#include "support/sim.h"

#define R 0x7f0000000000ull /* the range thread 2 unmaps and thread 3 maps again */
#define PAGES 4

/*
 * Issue 30's minimal trace: thread 1 maps R (4 pages) and starts threads
 * 2 and 3.  Thread 2 computes 100,000 cycles, writes each page of R and
 * unmaps it; then (trace order) thread 3 maps R again, computes 200,000
 * cycles and writes each page.  The program, run for real, never faults
 * outside a mapping: thread 3's mmap came after thread 2's munmap
 * returned.  Worked out by hand with the order kept: thread 2's 4 stores
 * demand-fault the pages of thread 1's mapping (4 faults), the munmap
 * removes it, thread 3's mmap maps R again and its 4 stores fault them in
 * (4 faults): 8 faults, 0 segv, and one syscall waited (thread 3's mmap,
 * read at once but due only after thread 2's munmap).  Without the order,
 * thread 3's mmap ran at once (replacing thread 1's mapping), thread 2's
 * munmap then removed thread 3's mapping, and thread 3's 4 stores were
 * segv (8 faults, 4 of them segv).
 */
static void build_reuse(struct evlist *l, enum tlbsim_event_kind later)
{
	ev_proc(l, 1, 1);
	ev_mmap(l, 1, R, PAGES * PAGE, RW, 0);
	ev_thread(l, 1, 2);
	ev_thread(l, 1, 3);
	ev_compute(l, 2, 100000);
	for (unsigned p = 0; p < PAGES; p++)
		ev_access(l, 2, TLBSIM_EV_STORE, R + p * PAGE);
	ev_munmap(l, 2, R, PAGES * PAGE);
	if (later == TLBSIM_EV_MMAP)
		ev_mmap(l, 3, R, PAGES * PAGE, RW, 0);
	else
		ev_mmap(l, 3, R + 64 * PAGE, PAGES * PAGE, RW, 0); /* elsewhere */
	ev_compute(l, 3, 200000);
	for (unsigned p = 0; p < PAGES; p++)
		ev_access(l, 3, TLBSIM_EV_STORE, (later == TLBSIM_EV_MMAP ? R : R + 64 * PAGE) + p * PAGE);
	ev_simple(l, TLBSIM_EV_EXIT, 2);
	ev_simple(l, TLBSIM_EV_EXIT, 3);
	ev_simple(l, TLBSIM_EV_EXIT, 1);
}

static uint64_t total(struct run *r, size_t field)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < r->m->nr_cpus; i++)
		n += *(const uint64_t *)((const char *)&r->os->cpu[i].st + field);
	return n;
}

static void issue_30_mmap_of_a_range_another_thread_unmapped_waits_for_the_munmap(void **state)
{
	static const char *const policies[] = {"x86-stock", "x86-lazy-cpumask", "flush-all"};

	(void)state;
	for (unsigned k = 0; k < 3; k++) {
		struct evlist l = {0};
		struct run r;

		build_reuse(&l, TLBSIM_EV_MMAP);
		run_events(&r, TLBSIM_ISA_X86_64, 4, policies[k], &l);
		assert_int_equal(total(&r, offsetof(struct os_cpu_stats, segv)), 0);
		assert_int_equal(total(&r, offsetof(struct os_cpu_stats, faults)), 2 * PAGES);
		assert_int_equal(r.os->st.syscall_order_waits, 1);
		run_free(&r);
		evlist_free(&l);
	}
}

/* The same with thread 3's mapping elsewhere: nothing overlaps, nothing
 * waits (4 faults each, as above). */
static void a_syscall_on_another_range_does_not_wait(void **state)
{
	struct evlist l = {0};
	struct run r;

	(void)state;
	build_reuse(&l, TLBSIM_EV_NONE);
	run_events(&r, TLBSIM_ISA_X86_64, 4, "x86-stock", &l);
	assert_int_equal(total(&r, offsetof(struct os_cpu_stats, segv)), 0);
	assert_int_equal(total(&r, offsetof(struct os_cpu_stats, faults)), 2 * PAGES);
	assert_int_equal(r.os->st.syscall_order_waits, 0);
	run_free(&r);
	evlist_free(&l);
}

/*
 * Two madvise calls on one range do not wait for each other (Linux runs
 * them side by side under the read mmap_lock, mm/madvise.c), but an
 * mprotect after a madvise does.  Thread 2 computes 100,000 cycles and
 * madvises R; thread 3 then (trace order) madvises R at once: no wait.
 * With an mprotect by thread 3 instead: one wait.
 */
static uint64_t waits_after_madvise(enum tlbsim_event_kind later)
{
	struct evlist l = {0};
	struct run r;
	uint64_t n;

	ev_proc(&l, 1, 1);
	ev_mmap(&l, 1, R, PAGES * PAGE, RW, 0);
	ev_thread(&l, 1, 2);
	ev_thread(&l, 1, 3);
	ev_compute(&l, 2, 100000);
	ev_madvise(&l, 2, R, PAGES * PAGE, TLBSIM_MADV_DONTNEED);
	if (later == TLBSIM_EV_MADVISE)
		ev_madvise(&l, 3, R, PAGES * PAGE, TLBSIM_MADV_DONTNEED);
	else
		ev_mprotect(&l, 3, R, PAGES * PAGE, TLBSIM_PROT_READ);
	ev_simple(&l, TLBSIM_EV_EXIT, 2);
	ev_simple(&l, TLBSIM_EV_EXIT, 3);
	ev_simple(&l, TLBSIM_EV_EXIT, 1);
	run_events(&r, TLBSIM_ISA_X86_64, 4, "x86-stock", &l);
	n = r.os->st.syscall_order_waits;
	run_free(&r);
	evlist_free(&l);
	return n;
}

static void two_madvise_do_not_wait_an_mprotect_does(void **state)
{
	(void)state;
	assert_int_equal(waits_after_madvise(TLBSIM_EV_MADVISE), 0);
	assert_int_equal(waits_after_madvise(TLBSIM_EV_MPROTECT), 1);
}

/*
 * A trace no run can follow: thread 2 sleeps, then unmaps R; thread 3
 * maps R again (after the munmap, trace order) and only then wakes thread
 * 2.  Thread 3's mmap waits for the munmap, which waits for the wake-up:
 * an input error at the mmap (event 7: proc_create 0, mmap 1,
 * thread_create 2 and 3, sleep 4, munmap 5, sleep of thread 1 6, mmap 7).
 */
static void an_order_no_run_can_keep_is_an_input_error(void **state)
{
	struct tlbsim_sim_config cfg = {0};
	struct tlbsim_machine *m = test_machine(TLBSIM_ISA_X86_64, 4);
	struct evlist l = {0};
	struct tlbsim_error err;
	tlbsim_sim *sim;

	(void)state;
	ev_proc(&l, 1, 1);
	ev_mmap(&l, 1, R, PAGES * PAGE, RW, 0);
	ev_thread(&l, 1, 2);
	ev_thread(&l, 1, 3);
	ev_simple(&l, TLBSIM_EV_SLEEP, 2);
	ev_munmap(&l, 2, R, PAGES * PAGE);
	ev_simple(&l, TLBSIM_EV_SLEEP, 1);
	ev_mmap(&l, 3, R, PAGES * PAGE, RW, 0);
	ev_wake(&l, 3, 2);
	cfg.machine = m;
	cfg.threads = 1;
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_sim_create(&cfg, &sim, &err), 0);
	assert_int_equal(tlbsim_sim_run(sim, evlist_next, &l, &err), -TLBSIM_EINVAL);
	assert_int_equal(err.event, 7);
	assert_non_null(strstr(err.text, "thread 3's syscall waits for an earlier memory syscall "
					 "(trace order) of thread 2"));
	tlbsim_sim_destroy(sim);
	tlbsim_machine_free(m);
	evlist_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(issue_30_mmap_of_a_range_another_thread_unmapped_waits_for_the_munmap),
	    cmocka_unit_test(a_syscall_on_another_range_does_not_wait),
	    cmocka_unit_test(two_madvise_do_not_wait_an_mprotect_does),
	    cmocka_unit_test(an_order_no_run_can_keep_is_an_input_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
