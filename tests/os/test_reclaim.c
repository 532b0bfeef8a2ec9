/* SPDX-License-Identifier: MIT */
/*
 * Page reclaim with the deferred, batched flush (src/os/reclaim.c; Linux
 * mm/rmap.c try_to_unmap_one(), set_tlb_ubc_flush_pending(),
 * try_to_unmap_flush(), flush_tlb_batched_pending(); x86
 * arch_tlbbatch_add_pending()/arch_tlbbatch_flush(), arm64's since 6.5).
 * Each test's counts are worked out below from those functions.
 */
#include "support/sim.h"

#define A 0x10000000ull /* a 2 MiB-aligned region */
#define KSWAPD 9

static void ev_kthread(struct evlist *l, uint32_t tid)
{
	ev_add(l, TLBSIM_EV_KTHREAD_CREATE, TLBSIM_TID_NONE)->kthread_create.tid = tid;
}

static void ev_reclaim(struct evlist *l, uint32_t tid, uint32_t pid, uint64_t addr, uint64_t len)
{
	struct tlbsim_event *e = ev_add(l, TLBSIM_EV_RECLAIM, tid);

	e->reclaim.pid = pid;
	e->reclaim.addr = addr;
	e->reclaim.len = len;
}

/* Process 1's thread 1 on cpu 0 maps 8 pages at A and writes pages 0..3. */
static void writer(struct evlist *l)
{
	ev_proc(l, 1, 1);
	ev_pin(l, 1, 0);
	ev_mmap(l, 1, A, 8 * PAGE, RW, 0);
	for (unsigned p = 0; p < 4; p++)
		ev_access(l, 1, TLBSIM_EV_STORE, A + p * PAGE);
}

/* kswapd (kernel thread 9) on cpu 1 waits 1M cycles, reclaims @len bytes
 * of A, waits @gap cycles (none if 0) and flushes its batch. */
static void kswapd(struct evlist *l, uint64_t len, uint64_t gap)
{
	ev_kthread(l, KSWAPD);
	ev_pin(l, KSWAPD, 1);
	ev_compute(l, KSWAPD, 1000000);
	ev_reclaim(l, KSWAPD, 1, A, len);
	if (gap)
		ev_compute(l, KSWAPD, gap);
	ev_simple(l, TLBSIM_EV_RECLAIM_FLUSH, KSWAPD);
}

/*
 * writer(), then thread 1 either keeps running (compute 10M cycles) or
 * sleeps; kswapd reclaims the 8 pages and flushes; thread 1 then reads
 * page 0 (@running) or is woken by kswapd and reads it.
 */
static void build(struct evlist *l, bool running)
{
	writer(l);
	if (running)
		ev_compute(l, 1, 10000000);
	else
		ev_simple(l, TLBSIM_EV_SLEEP, 1);
	ev_access(l, 1, TLBSIM_EV_LOAD, A);
	ev_simple(l, TLBSIM_EV_SLEEP, 1);
	kswapd(l, 8 * PAGE, 0);
	if (!running)
		ev_wake(l, KSWAPD, 1);
	ev_simple(l, TLBSIM_EV_SLEEP, KSWAPD);
}

/*
 * x86, thread 1 running on cpu 0: mm_cpumask = {0}, so for each of the 4
 * PTEs should_defer_flush() is true (a cpu other than kswapd's cpu 1) and
 * arch_tlbbatch_add_pending() bumps tlb_gen: 4.  try_to_unmap_flush():
 * the batch's cpumask {0} has a cpu other than 1, so flush_tlb_multi():
 * one IPI (not one per page), whose handler finds local generation 0,
 * mm 4: one full flush, a CR3 write with flush (cpu 0's second: the first
 * loaded the mm).  No flush_range request was made (flushes 0).  The
 * 4 pages are freed; thread 1's load faults page 0 in again: 4 + 1
 * faults.
 */
static void x86_batch_is_one_ipi_to_the_running_cpu(void **state)
{
	struct evlist l = {0};
	struct run r;

	(void)state;
	build(&l, true);
	run_events(&r, TLBSIM_ISA_X86_64, 2, "x86-stock", &l);
	assert_int_equal(r.os->st.reclaimed, 4);
	assert_int_equal(r.os->st.reclaim_refaults, 0);
	assert_int_equal(r.os->mms[0]->pub.tlb_gen, 4);
	assert_int_equal(r.os->mms[0]->st.flushes, 0);
	assert_int_equal(os_hw(r.os, 0)->st.ipis_received, 1);
	assert_int_equal(os_hw(r.os, 1)->st.ipis_sent, 1);
	assert_int_equal(inval(&r, 0, TLBSIM_INVAL_CR3_FLUSH), 2);
	assert_int_equal(inval(&r, 0, TLBSIM_INVAL_INVLPG), 0);
	assert_int_equal(r.os->mms[0]->st.faults, 5);
	assert_int_equal(r.os->swapcache.n, 0);
	run_free(&r);
	evlist_free(&l);
}

/*
 * x86, thread 1 asleep: cpu 0 is idle in lazy TLB mode with the mm still
 * loaded and its bit still set (x86-stock clears it only on a switch to
 * another mm), so the flush is still deferred, but should_flush_tlb()
 * skips the lazy cpu: no IPI at all.  When kswapd wakes thread 1, cpu 0
 * leaves lazy mode on the same mm: its slot is at generation 0, the mm at
 * 4, so switch_mm_irqs_off() writes CR3 with a flush (cpu 0's second).
 */
static void x86_lazy_cpu_gets_no_ipi_and_catches_up_by_tlb_gen(void **state)
{
	struct evlist l = {0};
	struct run r;

	(void)state;
	build(&l, false);
	run_events(&r, TLBSIM_ISA_X86_64, 2, "x86-stock", &l);
	assert_int_equal(r.os->st.reclaimed, 4);
	assert_int_equal(r.os->mms[0]->pub.tlb_gen, 4);
	assert_int_equal(os_hw(r.os, 0)->st.ipis_received, 0);
	assert_int_equal(inval(&r, 0, TLBSIM_INVAL_CR3_FLUSH), 2);
	assert_int_equal(r.os->cpu[0].pub.ctxs[0].tlb_gen, 4);
	run_free(&r);
	evlist_free(&l);
}

/*
 * arm64: should_defer is true on any machine of more than one cpu;
 * add_pending issues one TLBI VALE1IS per page at once (4 broadcasts from
 * cpu 1), and try_to_unmap_flush() is a single DSB ISH.  No IPI; no
 * flush_range request.
 */
static void arm64_batch_is_a_tlbi_per_page_and_one_dsb(void **state)
{
	struct evlist l = {0};
	struct run r;

	(void)state;
	build(&l, true);
	run_events(&r, TLBSIM_ISA_ARM64, 2, "arm64-stock", &l);
	assert_int_equal(r.os->st.reclaimed, 4);
	assert_int_equal(os_hw(r.os, 1)->st.tlbi_bcast_sent, 4);
	assert_int_equal(os_hw(r.os, 1)->st.dsbs, 1);
	assert_int_equal(os_hw(r.os, 0)->st.ipis_received, 0);
	assert_int_equal(r.os->mms[0]->st.flushes, 0);
	run_free(&r);
	evlist_free(&l);
}

/*
 * The swap cache: thread 2 of the process, on cpu 2, reads page 0 between
 * kswapd's reclaim (at 1M cycles) and its flush (at 2M): cpu 2 never held
 * the translation, so it walks, finds no PTE and faults; the fault finds
 * the folio in the swap cache and maps the same frame (do_swap_page()),
 * so the batch frees 3 pages, not 4: 1 refault.  (Thread 1's own read
 * would hit cpu 0's entry, still there: the flush is deferred.)
 */
static void a_refault_before_the_flush_maps_the_same_frame(void **state)
{
	struct evlist l = {0};
	struct tlbsim_mapping m0, m1;
	struct run r;

	(void)state;
	writer(&l);
	ev_thread(&l, 1, 2);
	ev_simple(&l, TLBSIM_EV_SLEEP, 1);
	ev_pin(&l, 2, 2);
	ev_compute(&l, 2, 1500000);
	ev_access(&l, 2, TLBSIM_EV_LOAD, A);
	ev_simple(&l, TLBSIM_EV_SLEEP, 2);
	kswapd(&l, 4 * PAGE, 1000000);
	ev_simple(&l, TLBSIM_EV_SLEEP, KSWAPD);
	run_events(&r, TLBSIM_ISA_X86_64, 3, "x86-stock", &l);
	assert_int_equal(r.os->st.reclaimed, 4);
	assert_int_equal(r.os->st.reclaim_refaults, 1);
	assert_int_equal(r.os->swapcache.n, 0);
	/* page 0 is mapped again, pages 1..3 are not */
	assert_int_equal(tlbsim_pgtable_lookup(r.os->mms[0]->pgt, A, &m0), 0);
	assert_int_not_equal(tlbsim_pgtable_lookup(r.os->mms[0]->pgt, A + PAGE, &m1), 0);
	assert_int_equal(r.os->mapcount[m0.pfn], 1);
	run_free(&r);
	evlist_free(&l);
}

/*
 * flush_tlb_batched_pending(): after kswapd's reclaim (flush deferred,
 * mm->tlb_flush_batched set) thread 1, on cpu 0, mprotects the range
 * read-only before kswapd's flush: every PTE is gone, so the mprotect
 * changes none; with the rule it still flushes the whole mm once (one
 * request, a full one; tlb_flush_batched is cleared); without it
 * (TLBSIM_OS_NO_BATCHED_PENDING, Linux before 3ea277194daa) it requests
 * nothing.  Thread 1 mprotects at 1.5M, kswapd reclaims at 1M, flushes at
 * 2M.
 */
static void mprotect_flushes_the_mm_when_a_reclaim_batch_is_pending(void **state)
{
	for (int mutated = 0; mutated < 2; mutated++) {
		struct evlist l = {0};
		struct run r;

		(void)state;
		writer(&l);
		ev_compute(&l, 1, 1500000);
		ev_mprotect(&l, 1, A, 4 * PAGE, TLBSIM_PROT_READ);
		ev_simple(&l, TLBSIM_EV_SLEEP, 1);
		kswapd(&l, 4 * PAGE, 1000000);
		ev_simple(&l, TLBSIM_EV_SLEEP, KSWAPD);
		run_opts(
		    &r, TLBSIM_ISA_X86_64, 2, "x86-stock", &l,
		    &(struct run_opts){.os_flags = mutated ? TLBSIM_OS_NO_BATCHED_PENDING : 0});
		assert_int_equal(r.os->mms[0]->st.flushes, mutated ? 0 : 1);
		assert_int_equal(r.os->mms[0]->st.full_flushes, mutated ? 0 : 1);
		assert_int_equal(r.os->mms[0]->tlb_flush_batched, mutated ? true : false);
		run_free(&r);
		evlist_free(&l);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(x86_batch_is_one_ipi_to_the_running_cpu),
	    cmocka_unit_test(x86_lazy_cpu_gets_no_ipi_and_catches_up_by_tlb_gen),
	    cmocka_unit_test(arm64_batch_is_a_tlbi_per_page_and_one_dsb),
	    cmocka_unit_test(a_refault_before_the_flush_maps_the_same_frame),
	    cmocka_unit_test(mprotect_flushes_the_mm_when_a_reclaim_batch_is_pending),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
