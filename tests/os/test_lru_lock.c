/* SPDX-License-Identifier: MIT */
/*
 * The lruvec lock (src/os/lru.c): a FIFO resource per NUMA node that a cpu
 * holds lru_page cycles per page it takes off the LRU (Linux mm/swap.c
 * release_pages() after a munmap or madvise) or puts on it (a fault's
 * folio batch, 15 pages at a time).  The waits are counted as waiting
 * (lru_wait_cycles), the hold as busy.
 *
 * The lock is driven directly on a simulation that has not run (both
 * cpus' clocks set by hand), then through a whole run of one thread.
 * Machines: tests/support/machines.h (round costs), lru_page set here.
 */
#include "support/sim.h"

#define A 0x10000000ull /* 256 MiB: a 2 MiB-aligned region */
#define ANON (TLBSIM_MAP_PRIVATE | TLBSIM_MAP_ANON)
#define T0 1000 /* the cpus' clocks when they take the lock */

struct lab {
	struct tlbsim_machine *m;
	tlbsim_sim *sim;
	struct os *os;
};

/* A simulation of @cpus cpus (@per_node of them per NUMA node) with
 * lru_page = @lru_page, not run; every cpu's clock at T0. */
static void lab_open(struct lab *b, unsigned cpus, unsigned per_node, unsigned lru_page)
{
	struct tlbsim_sim_config cfg = {0};
	struct tlbsim_error err;

	b->m = test_machine(TLBSIM_ISA_X86_64, cpus);
	b->m->topology.nodes_per_socket = cpus / per_node;
	b->m->topology.cores_per_cluster = per_node;
	b->m->costs.lru_page = lru_page;
	cfg.machine = b->m;
	cfg.policy = "x86-stock";
	cfg.threads = 1;
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_sim_create(&cfg, &b->sim, &err), 0);
	b->os = os_of_sim(b->sim);
	for (unsigned i = 0; i < cpus; i++)
		os_hw(b->os, i)->core->now = T0;
}

static void lab_close(struct lab *b)
{
	tlbsim_sim_destroy(b->sim);
	tlbsim_machine_free(b->m);
}

static struct eng_core *core(struct lab *b, unsigned cpu)
{
	return os_hw(b->os, cpu)->core;
}

/*
 * lru_page 100, both cpus free 8 pages at cycle 1000, cpu 0 first (the
 * serial phase's (time, cpu) order).  Cpu 0: lock free, holds 8 x 100 =
 * 800: clock 1800, busy 800, no wait.  Cpu 1: waits until 1800, i.e. 800 =
 * 8 x lru_page, then holds 800: clock 2600, waiting 800, busy 800.  The
 * lock: taken twice, 800 cycles queued.
 */
static void second_cpu_freeing_at_the_same_cycle_waits_n_times_lru_page(void **state)
{
	struct lab b;

	(void)state;
	lab_open(&b, 2, 2, 100);
	os_lru_release(b.os, os_hw(b.os, 0), 8);
	os_lru_release(b.os, os_hw(b.os, 1), 8);
	assert_int_equal(core(&b, 0)->now, 1800);
	assert_int_equal(core(&b, 0)->st.busy, 800);
	assert_int_equal(core(&b, 0)->st.waiting, 0);
	assert_int_equal(b.os->cpu[0].st.lru_wait_cycles, 0);
	assert_int_equal(core(&b, 1)->now, 2600);
	assert_int_equal(core(&b, 1)->st.busy, 800);
	assert_int_equal(core(&b, 1)->st.waiting, 800);
	assert_int_equal(b.os->cpu[1].st.lru_wait_cycles, 800);
	assert_int_equal(b.os->nr_lru, 1);
	assert_int_equal(b.os->lru[0].srv.served, 2);
	assert_int_equal(b.os->lru[0].srv.queued_cycles, 800);
	lab_close(&b);
}

/*
 * A cpu arriving after the lock was released does not wait: cpu 0 holds
 * it 1000-1800; cpu 1's clock is 2000 > 1800: clock 2000 + 800 = 2800,
 * no wait.
 */
static void cpu_arriving_after_release_does_not_wait(void **state)
{
	struct lab b;

	(void)state;
	lab_open(&b, 2, 2, 100);
	core(&b, 1)->now = 2000;
	os_lru_release(b.os, os_hw(b.os, 0), 8);
	os_lru_release(b.os, os_hw(b.os, 1), 8);
	assert_int_equal(core(&b, 1)->now, 2800);
	assert_int_equal(core(&b, 1)->st.waiting, 0);
	assert_int_equal(b.os->cpu[1].st.lru_wait_cycles, 0);
	lab_close(&b);
}

/* lru_page 0: no lock: both clocks stay at 1000, nothing charged. */
static void lru_page_zero_changes_nothing(void **state)
{
	struct lab b;

	(void)state;
	lab_open(&b, 2, 2, 0);
	os_lru_release(b.os, os_hw(b.os, 0), 8);
	os_lru_release(b.os, os_hw(b.os, 1), 8);
	for (unsigned i = 0; i < 15; i++)
		os_lru_add(b.os, os_hw(b.os, 1));
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(core(&b, i)->now, T0);
		assert_int_equal(core(&b, i)->st.busy, 0);
		assert_int_equal(core(&b, i)->st.waiting, 0);
	}
	assert_int_equal(b.os->lru[0].srv.served, 0);
	lab_close(&b);
}

/*
 * Two NUMA nodes of one cpu each: one lock per node, so both cpus free 8
 * pages at 1000 without waiting: both clocks 1800.
 */
static void cpus_of_different_nodes_do_not_wait_for_each_other(void **state)
{
	struct lab b;

	(void)state;
	lab_open(&b, 2, 1, 100);
	assert_int_equal(b.os->nr_lru, 2);
	os_lru_release(b.os, os_hw(b.os, 0), 8);
	os_lru_release(b.os, os_hw(b.os, 1), 8);
	assert_int_equal(core(&b, 0)->now, 1800);
	assert_int_equal(core(&b, 1)->now, 1800);
	assert_int_equal(core(&b, 1)->st.waiting, 0);
	assert_int_equal(b.os->lru[0].srv.served, 1);
	assert_int_equal(b.os->lru[1].srv.served, 1);
	lab_close(&b);
}

/*
 * Faulted-in pages go on a per-cpu batch of 15: the first 14 take no lock
 * (clock 1000); the 15th takes it for 15 x 100 = 1500 (clock 2500).  Cpu
 * 1's 15th page at 1000 then waits for cpu 0's batch: 1500, and holds
 * 1500: clock 1000 + 1500 + 1500 = 4000.
 */
static void faults_take_the_lock_once_per_15_pages_per_cpu(void **state)
{
	struct lab b;

	(void)state;
	lab_open(&b, 2, 2, 100);
	for (unsigned i = 0; i < 14; i++)
		os_lru_add(b.os, os_hw(b.os, 0));
	assert_int_equal(core(&b, 0)->now, T0);
	assert_int_equal(b.os->lru[0].srv.served, 0);
	os_lru_add(b.os, os_hw(b.os, 0));
	assert_int_equal(core(&b, 0)->now, 2500);
	assert_int_equal(core(&b, 0)->st.busy, 1500);
	for (unsigned i = 0; i < 15; i++)
		os_lru_add(b.os, os_hw(b.os, 1));
	assert_int_equal(core(&b, 1)->now, 4000);
	assert_int_equal(b.os->cpu[1].st.lru_wait_cycles, 1500);
	assert_int_equal(b.os->lru[0].srv.served, 2);
	lab_close(&b);
}

/* One thread on cpu 0 of a 1-cpu machine: 16 stores, then munmap of the
 * 16 pages; busy cycles of cpu 0 with lru_page @lru_page. */
static uint64_t busy_of_fault_and_unmap(unsigned lru_page, uint64_t *lock_taken)
{
	struct tlbsim_sim_config cfg = {0};
	struct tlbsim_error err;
	struct evlist l = {0};
	struct tlbsim_machine *m = test_machine(TLBSIM_ISA_X86_64, 1);
	tlbsim_sim *sim;
	struct os *os;
	uint64_t busy;

	m->costs.lru_page = lru_page;
	ev_proc(&l, 1, 1);
	ev_mmap(&l, 1, A, 16 * PAGE, RW, ANON);
	for (unsigned p = 0; p < 16; p++)
		ev_access(&l, 1, TLBSIM_EV_STORE, A + p * PAGE);
	ev_munmap(&l, 1, A, 16 * PAGE);
	ev_simple(&l, TLBSIM_EV_SLEEP, 1);
	cfg.machine = m;
	cfg.policy = "x86-stock";
	cfg.threads = 1;
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_sim_create(&cfg, &sim, &err), 0);
	assert_int_equal(tlbsim_sim_run(sim, evlist_next, &l, &err), 0);
	os = os_of_sim(sim);
	/* The munmap freed the page table too (free_pgtables): it must
	 * not count for the LRU. */
	assert_true(os->mms[0]->st.tables_freed > 0);
	assert_int_equal(os->mms[0]->st.pages_freed, 16);
	busy = os_hw(os, 0)->core->st.busy;
	*lock_taken = os->lru[0].srv.served;
	tlbsim_sim_destroy(sim);
	tlbsim_machine_free(m);
	evlist_free(&l);
	return busy;
}

/*
 * Through the OS model, lru_page 100 against 0: the 16 faults fill one
 * batch of 15 (15 x 100 = 1500; the 16th page stays in the batch), the
 * munmap frees 16 data pages (16 x 100 = 1600) and its page-table pages
 * (not on the LRU: nothing).  One cpu, so no wait: busy grows by exactly
 * 1500 + 1600 = 3100, and the lock was taken twice.
 */
static void munmap_and_faults_hold_the_lock_for_data_pages_only(void **state)
{
	uint64_t taken0, taken;
	uint64_t base = busy_of_fault_and_unmap(0, &taken0);
	uint64_t with = busy_of_fault_and_unmap(100, &taken);

	(void)state;
	assert_int_equal(taken0, 0);
	assert_int_equal(taken, 2);
	assert_int_equal(with - base, 3100);
}

/*
 * Four threads on four cpus, each touching and madvise(DONTNEED)-ing its
 * own pages in a loop under x86-invlpgb (as will-it-scale tlb_flush2):
 * the lock is contended (some cpu waited), and the waits are the same on
 * 1 and 2 host threads, since the lock is taken only in the serial phase.
 */
static uint64_t lru_waits(int threads)
{
	struct tlbsim_sim_config cfg = {0};
	struct tlbsim_error err;
	struct evlist l = {0};
	struct tlbsim_machine *m = test_machine(TLBSIM_ISA_X86_64, 4);
	tlbsim_sim *sim;
	struct os *os;
	uint64_t w = 0;

	m->costs.lru_page = 2000;
	ev_proc(&l, 1, 1);
	ev_mmap(&l, 1, A, 64 * PAGE, RW, ANON);
	for (uint32_t t = 2; t <= 4; t++)
		ev_thread(&l, 1, t);
	for (uint32_t t = 1; t <= 4; t++) {
		uint64_t base = A + (t - 1) * 16 * PAGE;

		ev_pin(&l, t, t - 1);
		for (unsigned round = 0; round < 4; round++)
			for (unsigned p = 0; p < 16; p++) {
				ev_access(&l, t, TLBSIM_EV_STORE, base + p * PAGE);
				ev_madvise(&l, t, base + p * PAGE, PAGE, TLBSIM_MADV_DONTNEED);
			}
	}
	cfg.machine = m;
	cfg.policy = "x86-invlpgb";
	cfg.threads = threads;
	cfg.share_all = threads > 1;
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_sim_create(&cfg, &sim, &err), 0);
	assert_int_equal(tlbsim_sim_run(sim, evlist_next, &l, &err), 0);
	os = os_of_sim(sim);
	for (unsigned i = 0; i < 4; i++) {
		w += os->cpu[i].st.lru_wait_cycles;
		assert_true(os_hw(os, i)->core->st.waiting >= os->cpu[i].st.lru_wait_cycles);
	}
	assert_int_equal(w, os->lru[0].srv.queued_cycles);
	tlbsim_sim_destroy(sim);
	tlbsim_machine_free(m);
	evlist_free(&l);
	return w;
}

/*
 * lru_add_drain() (the OS option lru_add_drain): the cpu's add batch goes
 * onto the LRU under the lock, if it holds a page.  Cpus 0 and 1 each
 * hold 5 pages in their batch and drain at 1000, lru_page 100: one NUMA
 * node, one lock: cpu 0 holds it 1000-1500, cpu 1 waits 500 = 5 x
 * lru_page and is done at 2000.  NPS2 (two nodes of one cpu, AMD's
 * NUMA-per-socket setting): two locks, both done at 1500, no wait.  An
 * empty batch takes no lock.
 */
static void drains_on_two_nodes_do_not_contend_on_one_node_they_do(void **state)
{
	struct lab b;

	(void)state;
	for (unsigned per_node = 2; per_node >= 1; per_node--) {
		lab_open(&b, 2, per_node, 100);
		assert_int_equal(b.os->nr_lru, 2 / per_node);
		b.os->cpu[0].lru_batch = b.os->cpu[1].lru_batch = 5;
		os_lru_drain(b.os, os_hw(b.os, 0));
		os_lru_drain(b.os, os_hw(b.os, 1));
		assert_int_equal(core(&b, 0)->now, 1500);
		assert_int_equal(core(&b, 1)->now, per_node == 2 ? 2000 : 1500);
		assert_int_equal(b.os->cpu[1].st.lru_wait_cycles, per_node == 2 ? 500 : 0);
		assert_int_equal(b.os->cpu[0].lru_batch + b.os->cpu[1].lru_batch, 0);
		os_lru_drain(b.os, os_hw(b.os, 0));
		assert_int_equal(core(&b, 0)->now, 1500);
		lab_close(&b);
	}
}

/* One thread: 5 rounds of a store to a page and madvise(DONTNEED) of it,
 * lru_page 100, OS options @os_flags; the lock's acquisitions and cpu 0's
 * busy cycles. */
static uint64_t madvise_rounds(unsigned os_flags, uint64_t *taken)
{
	struct evlist l = {0};
	struct run r;
	uint64_t busy;

	ev_proc(&l, 1, 1);
	ev_mmap(&l, 1, A, PAGE, RW, ANON);
	for (unsigned round = 0; round < 5; round++) {
		ev_access(&l, 1, TLBSIM_EV_STORE, A);
		ev_madvise(&l, 1, A, PAGE, TLBSIM_MADV_DONTNEED);
	}
	ev_simple(&l, TLBSIM_EV_SLEEP, 1);
	run_opts(&r, TLBSIM_ISA_X86_64, 1, "x86-stock", &l,
		 &(struct run_opts){.os_flags = os_flags, .lru_page = 100});
	*taken = r.os->lru[0].srv.served;
	busy = os_hw(r.os, 0)->core->st.busy;
	run_free(&r);
	evlist_free(&l);
	return busy;
}

/*
 * Without the drain each madvise frees its one page under the lock (5
 * acquisitions; the faulted pages wait in the batch of 15, never full).
 * With lru_add_drain on, every madvise first drains the batch, which
 * holds the page just faulted in: 5 more acquisitions, 5 x 100 more busy
 * cycles (one page each).
 */
static void lru_add_drain_takes_the_lock_on_every_madvise(void **state)
{
	uint64_t off, on;
	uint64_t busy_off = madvise_rounds(0, &off);
	uint64_t busy_on = madvise_rounds(TLBSIM_OS_LRU_ADD_DRAIN, &on);

	(void)state;
	assert_int_equal(off, 5);
	assert_int_equal(on, 10);
	assert_int_equal(busy_on - busy_off, 5 * 100);
}

static void lru_waits_do_not_depend_on_host_threads(void **state)
{
	uint64_t one = lru_waits(1);

	(void)state;
	assert_true(one > 0);
	assert_int_equal(lru_waits(2), one);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(second_cpu_freeing_at_the_same_cycle_waits_n_times_lru_page),
	    cmocka_unit_test(cpu_arriving_after_release_does_not_wait),
	    cmocka_unit_test(lru_page_zero_changes_nothing),
	    cmocka_unit_test(cpus_of_different_nodes_do_not_wait_for_each_other),
	    cmocka_unit_test(faults_take_the_lock_once_per_15_pages_per_cpu),
	    cmocka_unit_test(munmap_and_faults_hold_the_lock_for_data_pages_only),
	    cmocka_unit_test(lru_waits_do_not_depend_on_host_threads),
	    cmocka_unit_test(drains_on_two_nodes_do_not_contend_on_one_node_they_do),
	    cmocka_unit_test(lru_add_drain_takes_the_lock_on_every_madvise),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
