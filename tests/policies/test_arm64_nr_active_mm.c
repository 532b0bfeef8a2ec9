/* SPDX-License-Identifier: MIT */
/*
 * arm64-nr-active-mm against arm64-stock on the workload of its
 * calibration (CALIBRATION.md 4.2; A. Arcangeli, "[PATCH 3/3] arm64: tlb:
 * skip tlbi broadcast", 2020): a process of two threads, one asleep, the
 * other looping on mprotect.  In the patch, nr_active_mm counts the cpus
 * that run the mm and are not lazy: switch_mm() increments it,
 * enter_lazy_tlb() for the idle task decrements it; tlb_flush_check()
 * flushes locally when the count is 1 and the mm is this cpu's, marks
 * every other cpu stale in mm_cpumask, and a stale cpu flushes the ASID
 * locally (TLBI ASIDE1) when it switches to the mm.
 */
#include "support/sim.h"

#define A 0x10000000ull /* a 2 MiB-aligned region */
#define RO TLBSIM_PROT_READ
#define LOOPS_ALONE 10	/* mprotect pairs while thread 2 sleeps */
#define LOOPS_BOTH 5	/* mprotect pairs while both run */

static void mprotect_loop(struct evlist *l, unsigned pairs)
{
	for (unsigned i = 0; i < pairs; i++) {
		ev_mprotect(l, 1, A, 4 * PAGE, RO);
		ev_mprotect(l, 1, A, 4 * PAGE, RW);
	}
}

/*
 * Thread 1 on cpu 0 maps and populates the 4 pages of A and creates thread
 * 2 (placed on the idle cpu 1), which moves to cpu 7, reads A and sleeps:
 * cpus 1 and 7 go idle, lazily, and leave nr_active_mm.  After 1M cycles
 * thread 1 runs LOOPS_ALONE pairs of mprotect(A, RO) / mprotect(A, RW).
 * Each mprotect rewrites the 4 PTEs and flushes 4 pages (arm64 flushes
 * every changed PTE: no pte_needs_flush() there).  When @wake, thread 1
 * then wakes thread 2 (pinned to cpu 7, it runs there for 20M cycles) and
 * runs LOOPS_BOTH more pairs.
 */
static void build_loop(struct evlist *l, bool wake)
{
	ev_proc(l, 1, 1);
	ev_mmap(l, 1, A, 4 * PAGE, RW, 0);
	for (unsigned p = 0; p < 4; p++)
		ev_access(l, 1, TLBSIM_EV_STORE, A + p * PAGE);
	ev_thread(l, 1, 2);
	ev_pin(l, 2, 7);
	ev_access(l, 2, TLBSIM_EV_LOAD, A);
	ev_simple(l, TLBSIM_EV_SLEEP, 2);
	ev_compute(l, 1, 1000000);
	mprotect_loop(l, LOOPS_ALONE);
	if (wake) {
		ev_wake(l, 1, 2);
		ev_compute(l, 2, 20000000);
		ev_simple(l, TLBSIM_EV_SLEEP, 2);
		ev_compute(l, 1, 1000000);
		mprotect_loop(l, LOOPS_BOTH);
	}
	ev_simple(l, TLBSIM_EV_SLEEP, 1);
}

/*
 * While thread 2 sleeps, nr_active_mm is 1 (cpu 0) and the mm is cpu 0's:
 * all 2 x 10 = 20 flushes are local, each 4 TLBI VALE1 on cpu 0, and no
 * broadcast is sent: 80 local VALE1.
 */
static void sleeping_thread_leaves_every_flush_local(void **state)
{
	struct evlist l = {0};
	struct run r;

	(void)state;
	build_loop(&l, false);
	run_events(&r, TLBSIM_ISA_ARM64, 8, "arm64-nr-active-mm", &l);
	assert_int_equal(r.os->mms[0]->st.flushes, 2 * LOOPS_ALONE);
	assert_int_equal(r.os->cpu[0].st.flushes_local, 2 * LOOPS_ALONE);
	assert_int_equal(r.os->cpu[0].st.flushes_broadcast, 0);
	assert_int_equal(os_hw(r.os, 0)->st.tlbi_bcast_sent, 0);
	assert_int_equal(os_hw(r.os, 7)->st.tlbi_bcast_received, 0);
	assert_int_equal(inval(&r, 0, TLBSIM_INVAL_TLBI_VALE1), 4 * 2 * LOOPS_ALONE);
	/* Everyone slept at the end: no cpu counts in nr_active_mm. */
	assert_int_equal(r.os->mms[0]->pub.nr_active, 0);
	run_free(&r);
	evlist_free(&l);
}

/*
 * Woken, thread 2 switches in on cpu 7, which the local-only flushes marked
 * stale: one local TLBI ASIDE1 there (its first switch-in, before any
 * flush, found it not stale: that is the only one).  With both threads
 * running nr_active_mm is 2: the 2 x 5 = 10 later flushes broadcast 4
 * TLBI VALE1IS each: 40 sent by cpu 0, 40 received by cpu 7.
 */
static void woken_thread_flushes_its_asid_then_flushes_broadcast(void **state)
{
	struct evlist l = {0};
	struct run r;

	(void)state;
	build_loop(&l, true);
	run_events(&r, TLBSIM_ISA_ARM64, 8, "arm64-nr-active-mm", &l);
	assert_int_equal(r.os->mms[0]->st.flushes, 2 * (LOOPS_ALONE + LOOPS_BOTH));
	assert_int_equal(inval(&r, 7, TLBSIM_INVAL_TLBI_ASIDE1), 1);
	assert_int_equal(r.os->cpu[0].st.flushes_local, 2 * LOOPS_ALONE);
	assert_int_equal(r.os->cpu[0].st.flushes_broadcast, 2 * LOOPS_BOTH);
	assert_int_equal(os_hw(r.os, 0)->st.tlbi_bcast_sent, 4 * 2 * LOOPS_BOTH);
	assert_int_equal(os_hw(r.os, 7)->st.tlbi_bcast_received, 4 * 2 * LOOPS_BOTH);
	run_free(&r);
	evlist_free(&l);
}

/* arm64-stock: every mprotect is one broadcast of 4 TLBI VALE1IS, asleep
 * or not: 20 broadcasts, 80 TLBIs sent, each received by the 7 others. */
static void stock_broadcasts_every_mprotect(void **state)
{
	struct evlist l = {0};
	struct run r;

	(void)state;
	build_loop(&l, false);
	run_events(&r, TLBSIM_ISA_ARM64, 8, "arm64-stock", &l);
	assert_int_equal(r.os->cpu[0].st.flushes_broadcast, 2 * LOOPS_ALONE);
	assert_int_equal(r.os->cpu[0].st.flushes_local, 0);
	assert_int_equal(os_hw(r.os, 0)->st.tlbi_bcast_sent, 4 * 2 * LOOPS_ALONE);
	for (unsigned c = 1; c < 8; c++)
		assert_int_equal(os_hw(r.os, c)->st.tlbi_bcast_received, 4 * 2 * LOOPS_ALONE);
	assert_int_equal(inval(&r, 7, TLBSIM_INVAL_TLBI_ASIDE1), 0);
	run_free(&r);
	evlist_free(&l);
}

/*
 * A kernel thread borrows the process's mm (kthread_use_mm(), with an
 * mm_users reference) on cpu 5 and keeps using it (a 20M-cycle compute
 * after a read of A) while thread 1 runs LOOPS_ALONE mprotect pairs.  It
 * went through switch_mm: nr_active_mm is 2 (cpus 0 and 5), and every
 * flush broadcasts: 2 x 10 flushes of 4 TLBI VALE1IS, 80 received by cpu
 * 5.  Mutation kthread_uncounted=1: the kernel thread is not counted, so
 * nr_active_mm stays 1 and every flush is local although cpu 5 caches A
 * (tests/hazards/55-* shows the stale use).  When it lets the mm go
 * (kthread_unuse_mm()), the count drops back to 1.
 */
static void build_kthread(struct evlist *l)
{
	struct tlbsim_event *e;

	ev_proc(l, 1, 1);
	ev_mmap(l, 1, A, 4 * PAGE, RW, 0);
	for (unsigned p = 0; p < 4; p++)
		ev_access(l, 1, TLBSIM_EV_STORE, A + p * PAGE);
	ev_add(l, TLBSIM_EV_KTHREAD_CREATE, 1)->kthread_create.tid = 9;
	ev_pin(l, 9, 5);
	e = ev_add(l, TLBSIM_EV_KTHREAD_USE_MM, 9);
	e->kthread_use_mm.pid = 1;
	e->kthread_use_mm.mmget = 1;
	ev_access(l, 9, TLBSIM_EV_LOAD, A);
	ev_compute(l, 9, 20000000);
	ev_simple(l, TLBSIM_EV_KTHREAD_UNUSE_MM, 9);
	ev_simple(l, TLBSIM_EV_SLEEP, 9);
	ev_compute(l, 1, 1000000);
	mprotect_loop(l, LOOPS_ALONE);
	ev_simple(l, TLBSIM_EV_SLEEP, 1);
}

static void kthread_using_the_mm_is_counted_and_flushes_broadcast(void **state)
{
	struct evlist l = {0};
	struct run r;

	(void)state;
	build_kthread(&l);
	run_events(&r, TLBSIM_ISA_ARM64, 8, "arm64-nr-active-mm", &l);
	assert_int_equal(r.os->cpu[0].st.flushes_broadcast, 2 * LOOPS_ALONE);
	assert_int_equal(r.os->cpu[0].st.flushes_local, 0);
	assert_int_equal(os_hw(r.os, 5)->st.tlbi_bcast_received, 4 * 2 * LOOPS_ALONE);
	/* Both slept at the end: nobody counted; the kthread's reference is
	 * gone (users = thread 1 only). */
	assert_int_equal(r.os->mms[0]->pub.nr_active, 0);
	assert_int_equal(r.os->mms[0]->pub.users, 1);
	run_free(&r);
	evlist_free(&l);
}

static void uncounted_kthread_leaves_the_flushes_local(void **state)
{
	struct evlist l = {0};
	struct run r;

	(void)state;
	build_kthread(&l);
	run_events(&r, TLBSIM_ISA_ARM64, 8, "arm64-nr-active-mm:kthread_uncounted=1", &l);
	assert_int_equal(r.os->cpu[0].st.flushes_local, 2 * LOOPS_ALONE);
	assert_int_equal(r.os->cpu[0].st.flushes_broadcast, 0);
	assert_int_equal(os_hw(r.os, 5)->st.tlbi_bcast_received, 0);
	run_free(&r);
	evlist_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(sleeping_thread_leaves_every_flush_local),
	    cmocka_unit_test(woken_thread_flushes_its_asid_then_flushes_broadcast),
	    cmocka_unit_test(stock_broadcasts_every_mprotect),
	    cmocka_unit_test(kthread_using_the_mm_is_counted_and_flushes_broadcast),
	    cmocka_unit_test(uncounted_kthread_leaves_the_flushes_local),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
