/* SPDX-License-Identifier: MIT */
/*
 * The tlb_gen rule of x86 (Linux arch/x86/mm/tlb.c): each mm counts its
 * flush requests (inc_mm_tlb_gen()), each cpu remembers per PCID slot the
 * generation it has flushed to.  flush_tlb_func() flushes the request's
 * range only when the request is the single generation the cpu is behind
 * (f->new_tlb_gen == local_tlb_gen + 1 == mm_tlb_gen), otherwise the whole
 * PCID (a CR3 write without the no-flush bit), and nothing when it is up
 * to date.  switch_mm_irqs_off() flushes the PCID when its slot's
 * generation is behind, and writes CR3 with the no-flush bit otherwise.
 * Exercised through the OS model (src/os/context.c, policies/x86_stock.c).
 */
#include "support/sim.h"

#define A 0x10000000ull /* a 2 MiB-aligned region */

/*
 * Threads 1, 2, 3 of one process on cpus 0, 1, 2 (each placed on the
 * least loaded cpu); thread 2 sleeps at once, thread 3 reads A and
 * computes for 50M cycles.  At time t thread 1 wakes thread 2: cpu 1
 * starts it at t and pays context_switch + switch_mm = 2000 + 100 cycles
 * (mm still loaded, generation current: no CR3 write); thread 1 computes
 * those 2100 cycles too.  So both reach their madvise(MADV_DONTNEED) at
 * t + 2100 and are served in the same serial phase, cpu 0 first (madvise
 * takes mmap_lock for reading, so the two run at once; two munmaps could
 * not, they take it for writing):
 *   cpu 0 zaps page 1: tlb_gen 1, IPIs to 1 and 2, local: local 0,
 *     request 1, mm 1: one INVLPG; cpu 0 is at generation 1;
 *   cpu 1 zaps page 2: tlb_gen 2, IPIs to 0 and 2, local: local 0,
 *     request 2, mm 2: not the single missing one: a CR3 flush.
 * Both send to 2 targets with the same costs, so their IPIs reach cpu 2
 * together; cpu 0's (lower sender id) is taken first: local 0, request 1,
 * mm 2: a CR3 flush up to generation 2; cpu 1's then finds it up to date.
 * Cpu 0 takes cpu 1's IPI: local 1, request 2, mm 2: one INVLPG.  Cpu 1
 * takes cpu 0's: up to date.
 * Per cpu MMU counts (each cpu also wrote CR3 with a flush once, when the
 * mm was first loaded into slot 0):
 *   cpu 0: 2 INVLPG, 1 CR3 flush;  cpu 1: 0 INVLPG, 2 CR3 flushes;
 *   cpu 2: 0 INVLPG, 2 CR3 flushes (two IPIs, one full flush).
 */
static void cpu_behind_by_two_requests_flushes_fully_once(void **state)
{
	struct evlist l = {0};
	struct run r;

	(void)state;
	ev_proc(&l, 1, 1);
	ev_mmap(&l, 1, A, 8 * PAGE, RW, 0);
	for (unsigned p = 0; p < 8; p++)
		ev_access(&l, 1, TLBSIM_EV_STORE, A + p * PAGE);
	ev_thread(&l, 1, 2);
	ev_thread(&l, 1, 3);
	ev_simple(&l, TLBSIM_EV_SLEEP, 2);
	ev_madvise(&l, 2, A + 2 * PAGE, PAGE, TLBSIM_MADV_DONTNEED);
	ev_simple(&l, TLBSIM_EV_SLEEP, 2);
	ev_access(&l, 3, TLBSIM_EV_LOAD, A);
	ev_compute(&l, 3, 50000000);
	ev_simple(&l, TLBSIM_EV_SLEEP, 3);
	ev_compute(&l, 1, 1000000);
	ev_wake(&l, 1, 2);
	ev_compute(&l, 1, 2100);
	ev_madvise(&l, 1, A + PAGE, PAGE, TLBSIM_MADV_DONTNEED);
	ev_simple(&l, TLBSIM_EV_SLEEP, 1);
	/* Without the nested-flush rule, which would make cpu 1's request a
	 * full flush of its own (mm_tlb_flush_nested()): this test is about
	 * tlb_gen alone. */
	run_opts(&r, TLBSIM_ISA_X86_64, 4, "x86-stock", &l,
		 &(struct run_opts){.os_flags = TLBSIM_OS_NO_NESTED_FLUSH});
	assert_int_equal(r.os->mms[0]->pub.tlb_gen, 2);
	assert_int_equal(os_hw(r.os, 2)->st.ipis_received, 2);
	assert_int_equal(os_hw(r.os, 0)->st.ipis_received, 1);
	assert_int_equal(os_hw(r.os, 1)->st.ipis_received, 1);
	assert_int_equal(inval(&r, 0, TLBSIM_INVAL_INVLPG), 2);
	assert_int_equal(inval(&r, 0, TLBSIM_INVAL_CR3_FLUSH), 1);
	assert_int_equal(inval(&r, 1, TLBSIM_INVAL_INVLPG), 0);
	assert_int_equal(inval(&r, 1, TLBSIM_INVAL_CR3_FLUSH), 2);
	assert_int_equal(inval(&r, 2, TLBSIM_INVAL_INVLPG), 0);
	assert_int_equal(inval(&r, 2, TLBSIM_INVAL_CR3_FLUSH), 2);
	/* Every cpu ends at generation 2 in slot 0. */
	for (unsigned c = 0; c < 3; c++)
		assert_int_equal(r.os->cpu[c].pub.ctxs[0].tlb_gen, 2);
	run_free(&r);
	evlist_free(&l);
}

/*
 * Two cpus.  Thread 2 (process 1) reads A on cpu 1 and sleeps; process 2,
 * created by thread 1, starts thread 9 on the idle cpu 1: switch_mm from
 * mm1 to mm2 takes cpu 1 out of mm_cpumask(mm1) and puts mm2 in slot 1;
 * thread 9 sleeps.  Thread 1 unmaps two pages: tlb_gen 2, both local
 * (cpu 0 alone in the mask).  Thread 2 is woken onto cpu 1 (its last
 * cpu, idle): slot 0 holds mm1 at generation 0, two behind: CR3 write
 * with a flush.  Then thread 9 and thread 2 again: both slots up to date:
 * two CR3 writes with the no-flush bit.
 * Cpu 1 in all: CR3 flushes 3 (mm1 new, mm2 new, mm1 behind), no-flush
 * CR3 writes 2, no INVLPG, no IPI.
 */
static void cpu_switching_back_two_generations_behind_writes_cr3_with_flush(void **state)
{
	struct evlist l = {0};
	struct run r;

	(void)state;
	ev_proc(&l, 1, 1);
	ev_mmap(&l, 1, A, 8 * PAGE, RW, 0);
	for (unsigned p = 0; p < 8; p++)
		ev_access(&l, 1, TLBSIM_EV_STORE, A + p * PAGE);
	ev_thread(&l, 1, 2);
	ev_access(&l, 2, TLBSIM_EV_LOAD, A);
	ev_simple(&l, TLBSIM_EV_SLEEP, 2);
	ev_compute(&l, 1, 1000000);
	ev_proc_by(&l, 1, 2, 9);
	ev_simple(&l, TLBSIM_EV_SLEEP, 9);
	ev_compute(&l, 1, 1000000);
	ev_munmap(&l, 1, A + PAGE, PAGE);
	ev_munmap(&l, 1, A + 2 * PAGE, PAGE);
	ev_wake(&l, 1, 2);
	ev_access(&l, 2, TLBSIM_EV_LOAD, A + 3 * PAGE);
	ev_simple(&l, TLBSIM_EV_SLEEP, 2);
	ev_compute(&l, 1, 1000000);
	ev_wake(&l, 1, 9);
	ev_simple(&l, TLBSIM_EV_SLEEP, 9);
	ev_compute(&l, 1, 1000000);
	ev_wake(&l, 1, 2);
	ev_simple(&l, TLBSIM_EV_SLEEP, 2);
	ev_simple(&l, TLBSIM_EV_SLEEP, 1);
	run_events(&r, TLBSIM_ISA_X86_64, 2, "x86-stock", &l);
	assert_int_equal(r.os->mms[0]->pub.tlb_gen, 2);
	assert_int_equal(r.os->cpu[0].st.flushes_local, 2);
	assert_int_equal(os_hw(r.os, 1)->st.ipis_received, 0);
	assert_int_equal(inval(&r, 1, TLBSIM_INVAL_CR3_FLUSH), 3);
	assert_int_equal(inval(&r, 1, TLBSIM_INVAL_CR3_NOFLUSH), 2);
	assert_int_equal(inval(&r, 1, TLBSIM_INVAL_INVLPG), 0);
	assert_int_equal(r.os->cpu[1].pub.ctxs[0].tlb_gen, 2);
	run_free(&r);
	evlist_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cpu_behind_by_two_requests_flushes_fully_once),
		cmocka_unit_test(cpu_switching_back_two_generations_behind_writes_cr3_with_flush),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
