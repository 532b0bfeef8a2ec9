/* SPDX-License-Identifier: MIT */
/*
 * The shared kernel lines the OS model and the policies touch
 * (src/os/lines.c, the line model of src/fabric/line.c): what a context
 * switch pays for mm_cpumask under x86-stock and x86-lazy-cpumask, and
 * how page faults queue on their page-table locks in the modes mm and
 * split.  The OS is driven directly on a simulation that has not run,
 * the cpus' clocks set by hand, as in test_lru_lock.c; each expected
 * value is worked out in the comment above it.  Each cpu's work is placed
 * after the last one's (the clocks set apart), as the line model orders
 * accesses by time.
 */
#include "support/sim.h"

#define T0 1000000 /* the cpus' clocks when the measured work starts */
#define MB2 (2ull << 20)
#define R0 0x40000000ull /* region k is R0 + k * 2 MiB: its own PTE table */

struct lab {
	struct tlbsim_machine *m;
	tlbsim_sim *sim;
	struct os *os;
};

/* A simulation of @m (owned by the lab from now on) under @policy with
 * OS options @os_flags, not run. */
static void lab_open(struct lab *b, struct tlbsim_machine *m, const char *policy, unsigned os_flags)
{
	struct tlbsim_sim_config cfg = {0};
	struct tlbsim_error err;

	b->m = m;
	cfg.machine = m;
	cfg.policy = policy;
	cfg.threads = 1;
	cfg.os_flags = os_flags;
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_sim_create(&cfg, &b->sim, &err), 0);
	b->os = os_of_sim(b->sim);
}

static void lab_close(struct lab *b)
{
	tlbsim_sim_destroy(b->sim);
	tlbsim_machine_free(b->m);
}

static struct tlbsim_machine *milan(void)
{
	struct tlbsim_machine *m = NULL;

	assert_int_equal(tlbsim_machine_find("milan-36", &m, NULL), 0);
	/* models/machines/milan-36.json: cores 0-5 are CCX 0, 6-11 CCX 1; a
	 * line crosses CCXs in 660 cycles (topology.line.node, CALIBRATION.md
	 * 2.1: ~220 ns at 3 GHz); an atomic takes 17 (costs.atomic_rmw). */
	assert_int_equal(m->topology.cores_per_cluster, 6);
	assert_int_equal(m->topology.line_node, 660);
	assert_int_equal(m->costs.atomic_rmw, 17);
	return m;
}

/*
 * Milan under @policy with two address spaces, *@a and *@mb: cpu 0 runs
 * A from cycle 0, then cpu 6 (the other CCX) runs A and B from T0; cpu 0's
 * clock is set to 2 T0, after all of that.
 */
static void cpu6_ran_both(struct lab *b, const char *policy, struct os_mm **a, struct os_mm **mb)
{
	lab_open(b, milan(), policy, 0);
	*a = os_mm_create(b->os, 1);
	*mb = os_mm_create(b->os, 2);
	os_switch_mm(b->os, os_hw(b->os, 0), *a);
	os_hw(b->os, 6)->core->now = T0;
	os_switch_mm(b->os, os_hw(b->os, 6), *a);
	os_switch_mm(b->os, os_hw(b->os, 6), *mb);
	os_hw(b->os, 0)->core->now = 2 * T0;
}

static struct tlbsim_line_stats cpumask_of(struct lab *b, unsigned cpu)
{
	return b->os->cpu[cpu].st.line[TLBSIM_LINE_MM_CPUMASK];
}

/*
 * x86-stock on Milan: cpu 0 runs A; cpu 6 (the other CCX) runs A, then B,
 * so A's and B's mm_cpumask lines were last written by cpu 6.  Cpu 0 then
 * switches from A to B: it clears its bit in A's mask and sets it in B's,
 * two atomics on lines held in the other CCX: 2 x 660 = 1320 cycles of
 * transfer, 2 x 17 of atomics; B's tlb_gen was never written (no flush):
 * its read costs nothing.  With switch_mm's bookkeeping (200) and the CR3
 * write (120: B takes a new PCID slot) the switch costs 1320 + 34 + 200
 * + 120 = 1674 cycles.
 */
static void x86_stock_switch_costs_two_cross_ccx_cpumask_transfers(void **state)
{
	struct lab b;
	struct os_mm *a, *mb;
	struct tlbsim_line_stats before, after;
	uint64_t t, sw;

	(void)state;
	cpu6_ran_both(&b, "x86-stock", &a, &mb);
	before = cpumask_of(&b, 0);
	t = os_hw(b.os, 0)->core->now;
	sw = b.os->cpu[0].st.switch_line_cycles;
	os_switch_mm(b.os, os_hw(b.os, 0), mb);
	after = cpumask_of(&b, 0);
	assert_int_equal(after.accesses - before.accesses, 2);
	assert_int_equal(after.transfers - before.transfers, 2);
	assert_int_equal(after.transfer_cycles - before.transfer_cycles, 2 * 660);
	assert_int_equal(after.wait_cycles - before.wait_cycles, 0);
	assert_int_equal(b.os->cpu[0].st.line[TLBSIM_LINE_TLB_GEN].transfer_cycles, 0);
	assert_int_equal(os_hw(b.os, 0)->core->now - t, 1320 + 34 + 200 + 120);
	/* The lines' part, in compare's coherence: transfers and atomics. */
	assert_int_equal(b.os->cpu[0].st.switch_line_cycles - sw, 1320 + 34);
	assert_false(tlbsim_cpumask_test(&a->pub.cpumask, 0));
	assert_true(tlbsim_cpumask_test(&mb->pub.cpumask, 0));
	lab_close(&b);
}

/*
 * The same under x86-lazy-cpumask, then back: cpu 0 runs A, cpu 6 runs A
 * and then B, cpu 0 switches to B (its bit is not set there: a read and
 * an atomic on a line of cpu 6's), and back to A.  A's line was last
 * written by cpu 6 (setting its own bit), and cpu 0's bit is still set
 * in it (lazy: switching to B did not clear it): the switch back reads
 * the line (660 from cpu 6), finds the bit, and writes nothing.  Had cpu
 * 0 been the last to write A's line, the read would cost nothing at all:
 * the second round shows it (cpu 0 alone switches A -> B -> A): no
 * transfer, no atomic, only switch_mm's 200 (the PCID slot of A is still
 * up to date: no CR3 flush, and a CR3 write of 120).
 */
static void lazy_cpumask_switch_back_to_a_set_bit_writes_nothing(void **state)
{
	struct lab b;
	struct os_mm *a, *mb;
	struct tlbsim_line_stats before, after;
	uint64_t t, sw;

	(void)state;
	cpu6_ran_both(&b, "x86-lazy-cpumask", &a, &mb);
	os_switch_mm(b.os, os_hw(b.os, 0), mb);
	before = cpumask_of(&b, 0);
	sw = b.os->cpu[0].st.switch_line_cycles;
	os_switch_mm(b.os, os_hw(b.os, 0), a);
	after = cpumask_of(&b, 0);
	assert_int_equal(after.accesses - before.accesses, 1); /* the read */
	assert_int_equal(after.transfer_cycles - before.transfer_cycles, 660);
	/* A's tlb_gen, never written, is read for nothing: the read of the
	 * mask is the switch's whole line cost. */
	assert_int_equal(b.os->cpu[0].st.switch_line_cycles - sw, 660);
	assert_true(tlbsim_cpumask_test(&mb->pub.cpumask, 0)); /* left set */

	/* Cpu 0 alone: to B (its bit set by the round above: a read of
	 * B's line, last written by cpu 0 itself) and back to A (the line
	 * now shared by cpu 0 since its read): nothing moves. */
	os_switch_mm(b.os, os_hw(b.os, 0), mb);
	before = cpumask_of(&b, 0);
	t = os_hw(b.os, 0)->core->now;
	os_switch_mm(b.os, os_hw(b.os, 0), a);
	after = cpumask_of(&b, 0);
	assert_int_equal(after.accesses - before.accesses, 1);
	assert_int_equal(after.transfers - before.transfers, 0);
	assert_int_equal(after.transfer_cycles - before.transfer_cycles, 0);
	assert_int_equal(os_hw(b.os, 0)->core->now - t, 200 + 120);
	lab_close(&b);
}

/*
 * Faults: 9 cpus in one cluster, a line transfer 100 cycles, an atomic
 * 20; page_fault 1000 (of it the PTE store, pte_update = 10, is made under
 * the page-table lock), page_copy 500; per-VMA locks, one VMA per 2 MiB
 * region.  Cpu 8 first faults one page of each region (so the PTE tables
 * exist, and cpu 8 holds every lock's line).  Then cpus 0..n-1, all at
 * T0 and served in cpu order as the serial phase does, fault the second
 * page of region k (cpu k) or, @same, all of region 0.
 *
 * A fault of cpu k: 990 cycles, then its VMA's lock (an atomic on a line
 * of cpu 8's: 100 + 20; distinct VMAs do not wait), the page zeroed
 * (500): at T0 + 1610 it takes the page-table lock for 100 + 20 + 10 =
 * 130 cycles (transfer from the last holder, the atomic, the PTE store).
 *   mm: one lock for all: cpu 0 holds it 1610..1740, cpu 1 waits 130,
 *       cpu k waits k x 130: the last of n waits n - 1 holds;
 *   split: region k's lock is its own: nobody waits.
 */
static void fault_in_regions(unsigned n, unsigned os_flags, bool same, uint64_t *wait,
			     enum tlbsim_line_kind *kind)
{
	struct tlbsim_machine *m = test_machine(TLBSIM_ISA_X86_64, 9);
	struct lab b;
	struct os_mm *mm;

	m->topology.line_cluster = m->topology.line_node = m->topology.line_socket =
	    m->topology.line_remote = 100;
	m->costs.atomic_rmw = 20;
	lab_open(&b, m, "x86-stock", os_flags | TLBSIM_OS_PER_VMA_LOCK);
	mm = os_mm_create(b.os, 1);
	for (unsigned k = 0; k < 8; k++) {
		assert_int_equal(
		    os_vma_insert(mm, R0 + k * MB2, R0 + (k + 1) * MB2, RW, OS_VMA_ANON), 0);
		assert_true(os_fault(b.os, os_hw(b.os, 8), mm, R0 + k * MB2, TLBSIM_ACCESS_STORE));
		os_kernel_exit(b.os, os_hw(b.os, 8));
	}
	assert_true(os_hw(b.os, 8)->core->now < T0);
	*kind =
	    os_flags & TLBSIM_OS_FAULT_LOCK_MM ? TLBSIM_LINE_PAGE_TABLE_LOCK : TLBSIM_LINE_PTE_LOCK;
	for (unsigned k = 0; k < n; k++) {
		uint64_t va = same ? R0 + (k + 1) * PAGE : R0 + k * MB2 + PAGE;

		os_hw(b.os, k)->core->now = T0;
		assert_true(os_fault(b.os, os_hw(b.os, k), mm, va, TLBSIM_ACCESS_STORE));
		os_kernel_exit(b.os, os_hw(b.os, k));
		wait[k] = b.os->cpu[k].st.line[*kind].wait_cycles;
		/* Nothing else waited: the VMA locks are distinct (or, with
		 * @same, fit between each other's uses). */
		if (!same)
			assert_int_equal(b.os->cpu[k].st.line[TLBSIM_LINE_VMA_LOCK].wait_cycles, 0);
	}
	lab_close(&b);
}

static void mm_lock_queues_every_fault_behind_the_others(void **state)
{
	enum tlbsim_line_kind kind;
	uint64_t wait[8];

	(void)state;
	fault_in_regions(2, TLBSIM_OS_FAULT_LOCK_MM, false, wait, &kind);
	assert_int_equal(kind, TLBSIM_LINE_PAGE_TABLE_LOCK);
	assert_int_equal(wait[0], 0);
	assert_int_equal(wait[1], 130);
	fault_in_regions(8, TLBSIM_OS_FAULT_LOCK_MM, false, wait, &kind);
	for (unsigned k = 0; k < 8; k++)
		assert_int_equal(wait[k], k * 130);
}

static void split_locks_let_faults_in_other_pte_tables_proceed(void **state)
{
	enum tlbsim_line_kind kind;
	uint64_t wait[8];

	(void)state;
	fault_in_regions(2, 0, false, wait, &kind);
	assert_int_equal(kind, TLBSIM_LINE_PTE_LOCK);
	assert_int_equal(wait[0] + wait[1], 0);
	fault_in_regions(8, 0, false, wait, &kind);
	for (unsigned k = 0; k < 8; k++)
		assert_int_equal(wait[k], 0);
}

/*
 * Split locks, but both faults in region 0 (one PTE table, one VMA).
 * Cpu 0 as above: VMA lock 990..1110, PTE lock 1610..1740, VMA unlock
 * (its own line: 20) 1740..1760.  Cpu 1 at T0: its VMA-lock atomic
 * needs 100 + 20 and fits between cpu 0's uses (1110..1230, cpu 0's line
 * before the gap); zeroed at 1730, it takes the PTE lock when cpu 0 is
 * done with it, at 1740: waits 10, transfer 100 from cpu 0.
 */
static void split_locks_queue_faults_in_the_same_pte_table(void **state)
{
	enum tlbsim_line_kind kind;
	uint64_t wait[8];

	(void)state;
	fault_in_regions(2, 0, true, wait, &kind);
	assert_int_equal(wait[0], 0);
	assert_int_equal(wait[1], 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(x86_stock_switch_costs_two_cross_ccx_cpumask_transfers),
	    cmocka_unit_test(lazy_cpumask_switch_back_to_a_set_bit_writes_nothing),
	    cmocka_unit_test(mm_lock_queues_every_fault_behind_the_others),
	    cmocka_unit_test(split_locks_let_faults_in_other_pte_tables_proceed),
	    cmocka_unit_test(split_locks_queue_faults_in_the_same_pte_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
