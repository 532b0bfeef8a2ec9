/* SPDX-License-Identifier: MIT */
/*
 * rcu-table-free composed with x86-stock (Linux mm/mmu_gather.c,
 * MMU_GATHER_RCU_TABLE_FREE: tlb_remove_table() batches table pages and
 * frees them with call_rcu() after a grace period) against x86-stock
 * alone, which frees them right after the flush (tlb_finish_mmu()).  The
 * grace period ends once every cpu that was running when call_rcu() ran
 * has passed a quiescent state (a context switch or going idle; the test
 * machine has no time slice, hence no tick) and rcu_grace_min cycles
 * have passed (src/os/rcu.c).
 */
#include "support/sim.h"

#define A 0x10000000ull /* a 2 MiB-aligned region */
/* Table frames in use while A is mapped: init_mm's root, the mm's root,
 * and A's PDPT, PD and PT (4-level x86-64). */
#define TABLES_MAPPED 5
/* munmap of A's only page frees its PT, PD and PDPT. */
#define TABLES_OF_A 3

/*
 * Thread 1 (cpu 0) maps and touches one page of A; thread 2 (cpu 1)
 * computes for 12M cycles and sleeps, unless @t2_sleeps_first, when it
 * sleeps at once.  At 1M thread 1 unmaps A (3 tables unlinked; an IPI to
 * cpu 1, freed tables reach even a lazy cpu), computes 5M and sleeps
 * (about 6M: cpu 0's quiescent state).
 */
static void build(struct evlist *l, bool t2_sleeps_first)
{
	ev_proc(l, 1, 1);
	ev_mmap(l, 1, A, PAGE, RW, 0);
	ev_access(l, 1, TLBSIM_EV_STORE, A);
	ev_thread(l, 1, 2);
	if (!t2_sleeps_first)
		ev_compute(l, 2, 12000000);
	ev_simple(l, TLBSIM_EV_SLEEP, 2);
	ev_compute(l, 1, 1000000);
	ev_munmap(l, 1, A, PAGE);
	ev_compute(l, 1, 5000000);
	ev_simple(l, TLBSIM_EV_SLEEP, 1);
}

static void run_capped(struct run *r, const char *policy, struct evlist *l, uint64_t cap)
{
	struct run_opts o = {.max_cycles = cap};

	run_opts(r, TLBSIM_ISA_X86_64, 2, policy, l, &o);
}

/*
 * Stopped at 4M (after the munmap, before any quiescent state) and at 9M
 * (cpu 0 idle since about 6M, cpu 1 still running thread 2): the 3 tables
 * are still allocated with rcu-table-free (5 table frames), freed with
 * x86-stock (2).  Both count them as freed by the mm at the gather.
 */
static void tables_stay_allocated_until_every_running_cpu_passed_a_qs(void **state)
{
	static const uint64_t caps[] = {4000000, 9000000};
	struct evlist l = {0};
	struct run r;

	(void)state;
	build(&l, false);
	for (unsigned i = 0; i < 2; i++) {
		run_capped(&r, "x86-stock+rcu-table-free", &l, caps[i]);
		assert_int_equal(r.rc, 1);
		assert_int_equal(r.os->mms[0]->st.tables_freed, TABLES_OF_A);
		assert_int_equal(r.os->st.rcu_batches, 1);
		assert_int_equal(r.os->st.rcu_tables_freed, 0);
		assert_int_equal(table_frames(&r), TABLES_MAPPED);
		run_free(&r);
		run_capped(&r, "x86-stock", &l, caps[i]);
		assert_int_equal(r.os->mms[0]->st.tables_freed, TABLES_OF_A);
		assert_int_equal(r.os->st.rcu_batches, 0);
		assert_int_equal(table_frames(&r), TABLES_MAPPED - TABLES_OF_A);
		run_free(&r);
	}
	evlist_free(&l);
}

/* To the end (thread 2 slept at about 12M): the batch was freed. */
static void tables_are_freed_after_the_grace_period(void **state)
{
	struct evlist l = {0};
	struct run r;

	(void)state;
	build(&l, false);
	run_events(&r, TLBSIM_ISA_X86_64, 2, "x86-stock+rcu-table-free", &l);
	assert_int_equal(r.os->st.rcu_batches, 1);
	assert_int_equal(r.os->st.rcu_tables_freed, TABLES_OF_A);
	assert_int_equal(table_frames(&r), TABLES_MAPPED - TABLES_OF_A);
	run_free(&r);
	evlist_free(&l);
}

/* With thread 2 asleep from the start, cpu 1 is idle at call_rcu() and
 * does not hold the grace period: stopped at 9M, after cpu 0's
 * quiescent state, the tables are already freed. */
static void idle_cpu_does_not_hold_the_grace_period(void **state)
{
	struct evlist l = {0};
	struct run r;

	(void)state;
	build(&l, true);
	run_capped(&r, "x86-stock+rcu-table-free", &l, 9000000);
	assert_int_equal(r.os->st.rcu_tables_freed, TABLES_OF_A);
	assert_int_equal(table_frames(&r), TABLES_MAPPED - TABLES_OF_A);
	run_free(&r);
	evlist_free(&l);
}

/*
 * The only difference on cpu 0 between the two runs is the one call_rcu()
 * of the one batch: its busy cycles differ by costs.call_rcu = 50.
 */
static void each_batch_is_charged_one_call_rcu(void **state)
{
	struct evlist l = {0};
	struct run r;
	uint64_t busy_rcu, busy_stock;

	(void)state;
	build(&l, false);
	run_events(&r, TLBSIM_ISA_X86_64, 2, "x86-stock+rcu-table-free", &l);
	assert_int_equal(r.m->costs.call_rcu, 50);
	busy_rcu = os_hw(r.os, 0)->core->st.busy;
	run_free(&r);
	run_events(&r, TLBSIM_ISA_X86_64, 2, "x86-stock", &l);
	busy_stock = os_hw(r.os, 0)->core->st.busy;
	run_free(&r);
	assert_int_equal(busy_rcu - busy_stock, 50);
	evlist_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tables_stay_allocated_until_every_running_cpu_passed_a_qs),
		cmocka_unit_test(tables_are_freed_after_the_grace_period),
		cmocka_unit_test(idle_cpu_does_not_hold_the_grace_period),
		cmocka_unit_test(each_batch_is_charged_one_call_rcu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
