/* SPDX-License-Identifier: MIT */
/*
 * x86-invlpgb (Linux 6.15 arch/x86/mm/tlb.c, AMD broadcast TLB
 * invalidation; CALIBRATION.md 5.8-5.11): an mm active on min_cpus cpus
 * (default 3) gets a global ASID and is flushed by INVLPGB + TLBSYNC; the
 * cpus still on a per-cpu PCID get one more IPI, whose handler moves them
 * to the global ASID (flush_tlb_func(): "Reload the ASID if transitioning
 * into or out of a global ASID"); the ASID goes back to the pool when the
 * mm is destroyed (destroy_context_free_global_asid()).
 */
#include "support/sim.h"

#define A 0x10000000ull /* a 2 MiB-aligned region */
#define NR_CPUS 8
/* The first global ASID: PCIDs 1..6 are the per-cpu dynamic slots
 * (TLB_NR_DYN_ASIDS = 6, kern_pcid(slot) = slot + 1), so the pool starts
 * at 7 (mech.c's gasid_init). */
#define FIRST_GLOBAL_ASID 7

/*
 * Thread 1 (cpu 0) maps and populates 8 pages of A; thread 2, created on
 * the idle cpu 1, reads A and computes for 50M cycles.  Flush 1: thread 1
 * unmaps page 1 with the mm on 2 cpus: 2 < 3, an IPI to cpu 1.  Thread 3,
 * created on cpu 2 (cpus 0 and 1 are busy), reads A and computes.
 * Flush 2: page 2 unmapped with the mm on 3 cpus: the mm gets global ASID
 * 7; one INVLPGB (1 page), and, as cpus 1 and 2 still run it on their
 * dynamic PCID, IPIs to both, whose handlers switch them to PCID 7; cpu 0
 * switches too; then TLBSYNC.  Flush 3: page 3: one INVLPGB and TLBSYNC,
 * no IPI.  Then the threads end (@exit) or sleep.
 */
static void build(struct evlist *l, bool exit)
{
	ev_proc(l, 1, 1);
	ev_mmap(l, 1, A, 8 * PAGE, RW, 0);
	for (unsigned p = 0; p < 8; p++)
		ev_access(l, 1, TLBSIM_EV_STORE, A + p * PAGE);
	ev_thread(l, 1, 2);
	ev_access(l, 2, TLBSIM_EV_LOAD, A);
	ev_compute(l, 2, 50000000);
	ev_simple(l, exit ? TLBSIM_EV_EXIT : TLBSIM_EV_SLEEP, 2);
	ev_compute(l, 1, 1000000);
	ev_munmap(l, 1, A + PAGE, PAGE);
	ev_thread(l, 1, 3);
	ev_access(l, 3, TLBSIM_EV_LOAD, A);
	ev_compute(l, 3, 50000000);
	ev_simple(l, exit ? TLBSIM_EV_EXIT : TLBSIM_EV_SLEEP, 3);
	ev_compute(l, 1, 1000000);
	ev_munmap(l, 1, A + 2 * PAGE, PAGE);
	ev_compute(l, 1, 1000000);
	ev_munmap(l, 1, A + 3 * PAGE, PAGE);
	ev_simple(l, exit ? TLBSIM_EV_EXIT : TLBSIM_EV_SLEEP, 1);
}

/*
 * Cpu 0: flush 1 by IPI (1 IPI), flush 2 by INVLPGB and 2 transition IPIs
 * (counted as an IPI flush, the strongest mechanism), flush 3 by INVLPGB
 * alone: 2 shootdowns, 3 IPIs, 2 INVLPGBs, each received by the 7 other
 * cpus.  Cpu 1 takes 2 IPIs, cpu 2 one.  Afterwards cpus 0-2 all use
 * PCID 7.
 */
static void three_cpus_use_invlpgb_after_one_transition(void **state)
{
	struct evlist l = {0};
	struct run r;
	struct os_mm *mm;

	(void)state;
	build(&l, false);
	run_events(&r, TLBSIM_ISA_X86_64, NR_CPUS, "x86-invlpgb", &l);
	mm = r.os->mms[0];
	assert_int_equal(mm->st.flushes, 3);
	assert_int_equal(mm->pub.global_asid, FIRST_GLOBAL_ASID);
	assert_int_equal(r.os->cpu[0].st.flushes_ipi, 2);
	assert_int_equal(r.os->cpu[0].st.flushes_invlpgb, 1);
	assert_int_equal(os_hw(r.os, 0)->st.shootdowns, 2);
	assert_int_equal(os_hw(r.os, 0)->st.ipis_sent, 3);
	assert_int_equal(os_hw(r.os, 0)->st.invlpgb_sent, 2);
	assert_int_equal(os_hw(r.os, 0)->st.tlbsyncs, 2);
	assert_int_equal(os_hw(r.os, 1)->st.ipis_received, 2);
	assert_int_equal(os_hw(r.os, 2)->st.ipis_received, 1);
	for (unsigned c = 1; c < NR_CPUS; c++)
		assert_int_equal(os_hw(r.os, c)->st.invlpgb_received, 2);
	for (unsigned c = 0; c < 3; c++) {
		assert_ptr_equal(r.os->cpu[c].pub.loaded_mm, &mm->pub);
		assert_int_equal(r.os->cpu[c].pub.loaded_asid, FIRST_GLOBAL_ASID);
	}
	run_free(&r);
	evlist_free(&l);
}

/* min_cpus=4: at 3 cpus the mm keeps its per-cpu PCIDs and all 3 flushes
 * are IPIs: cpu 0 sends 1 + 2 + 2 = 5, no INVLPGB at all. */
static void min_cpus_4_keeps_ipis_at_three_cpus(void **state)
{
	struct evlist l = {0};
	struct run r;

	(void)state;
	build(&l, false);
	run_events(&r, TLBSIM_ISA_X86_64, NR_CPUS, "x86-invlpgb:min_cpus=4", &l);
	assert_int_equal(r.os->mms[0]->pub.global_asid, 0);
	assert_int_equal(r.os->cpu[0].st.flushes_ipi, 3);
	assert_int_equal(r.os->cpu[0].st.flushes_invlpgb, 0);
	assert_int_equal(os_hw(r.os, 0)->st.ipis_sent, 5);
	assert_int_equal(os_hw(r.os, 0)->st.invlpgb_sent, 0);
	assert_int_equal(os_hw(r.os, 1)->st.ipis_received, 3);
	assert_int_equal(os_hw(r.os, 2)->st.ipis_received, 2);
	run_free(&r);
	evlist_free(&l);
}

/*
 * When the last thread exits, exit_mmap()'s full flush is one INVLPGB of
 * the whole PCID 7, and destroy_context() gives the ASID back: the mm has
 * none left, and ASID 7 is marked freed (reusable only after the next
 * reset of the pool, reset_global_asid_space()).
 */
static void global_asid_is_returned_at_exit(void **state)
{
	struct evlist l = {0};
	struct run r;
	struct os_mm *mm;

	(void)state;
	build(&l, true);
	run_events(&r, TLBSIM_ISA_X86_64, NR_CPUS, "x86-invlpgb", &l);
	mm = r.os->mms[0];
	assert_true(mm->dead);
	assert_int_equal(mm->st.flushes, 4);
	assert_int_equal(mm->st.full_flushes, 1);
	assert_int_equal(mm->pub.global_asid, 0);
	assert_int_equal(r.os->gasid_used[FIRST_GLOBAL_ASID], 2);
	run_free(&r);
	evlist_free(&l);
}

/*
 * Reclaiming the pool (reset_global_asid_space(): one INVLPGB of every
 * non-global entry, TLBSYNC) makes the allocating cpu wait, so it may only
 * happen where Linux allocates: in flush_tlb_mm_range()
 * (consider_global_asid() after the flush), never in switch_mm.
 * A machine with 4-bit PCIDs has global ASIDs 7..14: a pool of 8; grow=0
 * keeps the threshold at 3 cpus.  A driver thread (cpu 0) starts 9
 * processes one after the other, 3M cycles apart; each has 3 threads on
 * cpus 1-3, unmaps a page (its first flush: it takes the next global
 * ASID) and exits (the ASID goes back, reusable after a reset).  The 9th
 * also puts a 4th thread on cpu 4 before its flush: that switch_mm sees
 * the mm active on 3 cpus but must not allocate; the flush then finds the
 * pool empty: one reset, and ASID 7 again.  At the end ASID 7 is freed
 * again, the 7 others available: 7 free in the pool.
 */
static void pool_is_reset_in_a_flush_never_in_switch_mm(void **state)
{
	struct run_opts o = {.asid_bits = 4};
	struct evlist l = {0};
	struct run r;

	(void)state;
	ev_proc(&l, 100, 1000);
	for (uint32_t k = 1; k <= 9; k++) {
		uint32_t t1 = 10 * k + 1;

		ev_proc_by(&l, 1000, k, t1);
		ev_compute(&l, 1000, 3000000);
		ev_mmap(&l, t1, A, 4 * PAGE, RW, 0);
		for (unsigned p = 0; p < 4; p++)
			ev_access(&l, t1, TLBSIM_EV_STORE, A + p * PAGE);
		for (uint32_t t = t1 + 1; t <= t1 + (k == 9 ? 3 : 2); t++) {
			ev_thread(&l, t1, t);
			ev_access(&l, t, TLBSIM_EV_LOAD, A);
			ev_compute(&l, t, 500000);
			ev_simple(&l, TLBSIM_EV_EXIT, t);
			ev_compute(&l, t1, 50000);
		}
		ev_munmap(&l, t1, A + PAGE, PAGE);
		ev_simple(&l, TLBSIM_EV_EXIT, t1);
	}
	ev_simple(&l, TLBSIM_EV_SLEEP, 1000);
	run_opts(&r, TLBSIM_ISA_X86_64, NR_CPUS, "x86-invlpgb:grow=0", &l, &o);
	assert_int_equal(r.os->nr_mms, 10);
	for (uint32_t i = 1; i < 10; i++)
		assert_true(r.os->mms[i]->dead);
	assert_int_equal(r.os->st.global_asid_resets, 1);
	assert_int_equal(r.os->gasid_used[FIRST_GLOBAL_ASID], 2);
	assert_int_equal(r.os->gasid_avail, 7);
	run_free(&r);
	evlist_free(&l);
}

/*
 * INVLPGB strides by 4 KiB or 2 MiB only (AMD APM vol. 3, INVLPGB: ECX[31]);
 * Linux broadcast_tlb_flush() flushes 1 GiB pages with one single-page
 * INVLPGB per page (nr = 1 when stride_shift > PMD_SHIFT).  Two 1 GiB
 * hugetlb pages at G, stored by thread 1 (cpu 0) and read by threads 2
 * and 3 (cpus 1, 2); thread 1 then write-protects both: the mm is on 3
 * cpus, so it gets its global ASID: 2 INVLPGBs (one per page), each
 * received by the 7 other cpus, the 2 transition IPIs, one TLBSYNC.
 * Threads 2 and 3 then store, each to the page the other did not read
 * last: a stale writable entry would let the store through; the flushed
 * TLBs make both fault and, the VMA being read-only, segv.  (The model
 * once sent one INVLPGB with a 1 GiB stride, which the instruction has
 * not: an abort.)
 */
#define G 0x40000000ull
#define GIB (1ull << 30)

static void one_gib_pages_take_one_invlpgb_each(void **state)
{
	struct evlist l = {0};
	struct run r;

	(void)state;
	ev_proc(&l, 1, 1);
	ev_mmap(&l, 1, G, 2 * GIB, RW,
		TLBSIM_MAP_PRIVATE | TLBSIM_MAP_ANON | TLBSIM_MAP_HUGETLB_1G);
	ev_access(&l, 1, TLBSIM_EV_STORE, G);
	ev_access(&l, 1, TLBSIM_EV_STORE, G + GIB);
	for (uint32_t t = 2; t <= 3; t++) {
		ev_thread(&l, 1, t);
		ev_access(&l, t, TLBSIM_EV_LOAD, G);
		ev_access(&l, t, TLBSIM_EV_LOAD, G + GIB);
		ev_compute(&l, t, 50000000);
		ev_access(&l, t, TLBSIM_EV_STORE, t == 2 ? G + GIB : G);
		ev_simple(&l, TLBSIM_EV_SLEEP, t);
	}
	ev_compute(&l, 1, 1000000);
	ev_mprotect(&l, 1, G, 2 * GIB, TLBSIM_PROT_READ);
	ev_simple(&l, TLBSIM_EV_SLEEP, 1);
	run_events(&r, TLBSIM_ISA_X86_64, NR_CPUS, "x86-invlpgb", &l);
	assert_int_equal(r.os->mms[0]->st.flushes, 1);
	assert_int_equal(r.os->mms[0]->pub.global_asid, FIRST_GLOBAL_ASID);
	assert_int_equal(os_hw(r.os, 0)->st.invlpgb_sent, 2);
	assert_int_equal(os_hw(r.os, 0)->st.ipis_sent, 2);
	assert_int_equal(os_hw(r.os, 0)->st.tlbsyncs, 1);
	for (unsigned c = 1; c < NR_CPUS; c++)
		assert_int_equal(os_hw(r.os, c)->st.invlpgb_received, 2);
	assert_int_equal(r.os->cpu[1].st.segv, 1);
	assert_int_equal(r.os->cpu[2].st.segv, 1);
	run_free(&r);
	evlist_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(three_cpus_use_invlpgb_after_one_transition),
		cmocka_unit_test(min_cpus_4_keeps_ipis_at_three_cpus),
		cmocka_unit_test(global_asid_is_returned_at_exit),
		cmocka_unit_test(pool_is_reset_in_a_flush_never_in_switch_mm),
		cmocka_unit_test(one_gib_pages_take_one_invlpgb_each),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
