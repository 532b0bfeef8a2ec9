/* SPDX-License-Identifier: MIT */
/*
 * x86-stock on hand-built scenarios (Linux arch/x86/mm/tlb.c): who gets a
 * shootdown IPI, lazy cpus, and the tlb_gen rule.
 */
#include "support/sim.h"

#define A 0x10000000ull /* a 2 MiB-aligned region */

/*
 * One process, threads 1-4 pinned to cpus 0-3; thread 1 populates the 4
 * pages of A (an unpopulated page would have no PTE to zap, and munmap
 * would flush nothing), the others touch its first page.  Thread 4 then sleeps for good: cpu 3 goes
 * idle in lazy TLB mode, its bit still in mm_cpumask.  After a 5M-cycle
 * delay (everyone is set up by then) thread 1 unmaps page 1 of A: the PT
 * still maps pages 0, 2, 3, so no table is freed: IPIs to cpus 1 and 2
 * only (native_flush_tlb_multi() skips lazy cpus).  Then it unmaps the
 * rest: the VMA is gone and its PT, PD and PDPT are freed: IPIs to 1, 2
 * and the lazy 3 (freed_tables).  Threads 2 and 3 compute long enough to
 * still be running.  Total on cpu 0: 2 shootdowns, 2 + 3 = 5 IPIs.
 */
static void lazy_cpu_gets_no_ipi_unless_tables_are_freed(void **state)
{
	struct evlist l = {0};
	struct run r;
	unsigned t;

	(void)state;
	ev_proc(&l, 1, 1);
	ev_pin(&l, 1, 0);
	ev_mmap(&l, 1, A, 4 * PAGE, RW, 0);
	for (t = 0; t < 4; t++)
		ev_access(&l, 1, TLBSIM_EV_STORE, A + t * PAGE);
	for (t = 2; t <= 4; t++)
		ev_thread(&l, 1, t);
	for (t = 2; t <= 4; t++) {
		ev_pin(&l, t, t - 1);
		ev_access(&l, t, TLBSIM_EV_LOAD, A);
	}
	ev_simple(&l, TLBSIM_EV_SLEEP, 4);
	ev_compute(&l, 2, 20000000);
	ev_compute(&l, 3, 20000000);
	ev_compute(&l, 1, 5000000);
	ev_munmap(&l, 1, A + PAGE, PAGE);
	ev_compute(&l, 1, 1000000);
	ev_munmap(&l, 1, A, 4 * PAGE);
	run_events(&r, TLBSIM_ISA_X86_64, 4, "x86-stock", &l);
	assert_int_equal(os_hw(r.os, 0)->st.shootdowns, 2);
	assert_int_equal(os_hw(r.os, 0)->st.ipis_sent, 5);
	assert_int_equal(os_hw(r.os, 1)->st.ipis_received, 2);
	assert_int_equal(os_hw(r.os, 2)->st.ipis_received, 2);
	assert_int_equal(os_hw(r.os, 3)->st.ipis_received, 1);
	/* The second munmap freed the PT, PD and PDPT of A (the PML4 root
	 * stays): 3 table pages. */
	assert_int_equal(r.os->mms[0]->st.tables_freed, 3);
	/* Cpu 3 left the mm when the freed-tables IPI reached it lazy. */
	assert_null(r.os->cpu[3].pub.loaded_mm);
	assert_false(tlbsim_cpumask_test(&r.os->mms[0]->pub.cpumask, 3));
	run_free(&r);
	evlist_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lazy_cpu_gets_no_ipi_unless_tables_are_freed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
