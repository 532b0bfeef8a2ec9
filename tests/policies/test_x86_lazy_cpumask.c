/* SPDX-License-Identifier: MIT */
/*
 * x86-lazy-cpumask against x86-stock on a migrated thread (R. van Riel,
 * "x86/mm/tlb: Update mm_cpumask lazily", 2024; BACKGROUND.md 2): stock
 * switch_mm() clears the cpu's bit in the previous mm's mm_cpumask; the
 * lazy variant leaves it, and the first flush IPI that finds the cpu
 * running another mm clears it (flush_tlb_func(): f->mm != loaded_mm).
 */
#include "support/sim.h"

#define A 0x10000000ull /* a 2 MiB-aligned region */

/*
 * Thread 1 (process 1) moves to cpu 1 (cpu 0, where it started, idles in
 * lazy mode with mm1 loaded), maps and populates the 4 pages of A, and
 * creates process 2, whose thread 2 starts on the idle cpu 0 (the least
 * loaded, lowest numbered) and queues itself behind thread 1 on cpu 1;
 * cpu 0 idles again, lazily, now with mm2 loaded.  Thread 1 then moves to
 * cpu 5, so cpu 1 switches from mm1 to mm2 and runs thread 2 for 50M
 * cycles.  On cpu 5, thread 1 unmaps page 1, then page 2 of A: two
 * one-page flushes that free no table (pages 0 and 3 keep the PT).
 *
 * mm_cpumask(mm1) before the first flush:
 *   stock  {5}        cpus 0 and 1 left it when they switched to mm2
 *   lazy   {0, 1, 5}  nobody cleared anything
 * Flush 1 (tlb_gen 1): lazy: cpu 0 is lazy (idle) and no table is freed:
 *   skipped (should_flush_tlb()); cpu 1 runs mm2 and is not lazy: one
 *   IPI, whose handler only clears bit 1.  Stock: no other cpu, local only.
 * Flush 2 (tlb_gen 2): lazy: {0, 5}, cpu 0 still lazy: local only.
 * So on cpu 5: lazy 1 shootdown with 1 IPI, 1 local-only flush; stock 2
 * local-only flushes.  Both do 2 INVLPGs on cpu 5 (one page each, under
 * the 33-page ceiling), and cpu 1 invalidates nothing for mm1 in either
 * (its IPI found mm2 loaded).  Lazy leaves cpu 0's bit set: no IPI ever
 * reached it.
 */
static void build_migration(struct evlist *l)
{
	ev_proc(l, 1, 1);
	ev_pin(l, 1, 1);
	ev_mmap(l, 1, A, 4 * PAGE, RW, 0);
	for (unsigned p = 0; p < 4; p++)
		ev_access(l, 1, TLBSIM_EV_STORE, A + p * PAGE);
	ev_proc_by(l, 1, 2, 2);
	ev_pin(l, 2, 1);
	ev_compute(l, 2, 50000000);
	ev_simple(l, TLBSIM_EV_SLEEP, 2);
	ev_compute(l, 1, 1000000);
	ev_pin(l, 1, 5);
	ev_compute(l, 1, 1000000);
	ev_munmap(l, 1, A + PAGE, PAGE);
	ev_compute(l, 1, 1000000);
	ev_munmap(l, 1, A + 2 * PAGE, PAGE);
	ev_simple(l, TLBSIM_EV_SLEEP, 1);
}

static struct os_mm *mm_of_pid(struct run *r, uint32_t pid)
{
	for (uint32_t i = 0; i < r->os->nr_mms; i++)
		if (r->os->mms[i]->pid == pid)
			return r->os->mms[i];
	fail_msg("no mm for pid %u", pid);
	return NULL;
}

static void first_flush_ipis_the_cpu_that_left_and_clears_its_bit(void **state)
{
	struct evlist l = {0};
	struct run r;
	struct os_mm *mm1;

	(void)state;
	build_migration(&l);
	run_events(&r, TLBSIM_ISA_X86_64, 8, "x86-lazy-cpumask", &l);
	mm1 = mm_of_pid(&r, 1);
	assert_int_equal(mm1->pub.tlb_gen, 2);
	assert_int_equal(os_hw(r.os, 5)->st.shootdowns, 1);
	assert_int_equal(os_hw(r.os, 5)->st.ipis_sent, 1);
	assert_int_equal(r.os->cpu[5].st.flushes_ipi, 1);
	assert_int_equal(r.os->cpu[5].st.flushes_local, 1);
	assert_int_equal(os_hw(r.os, 1)->st.ipis_received, 1);
	assert_int_equal(os_hw(r.os, 0)->st.ipis_received, 0);
	assert_int_equal(inval(&r, 5, TLBSIM_INVAL_INVLPG), 2);
	assert_int_equal(inval(&r, 1, TLBSIM_INVAL_INVLPG), 0);
	assert_false(tlbsim_cpumask_test(&mm1->pub.cpumask, 1));
	assert_true(tlbsim_cpumask_test(&mm1->pub.cpumask, 0));
	assert_true(tlbsim_cpumask_test(&mm1->pub.cpumask, 5));
	assert_int_equal(tlbsim_cpumask_weight(&mm1->pub.cpumask), 2);
	run_free(&r);
	evlist_free(&l);
}

static void stock_clears_the_bit_at_switch_and_sends_no_ipi(void **state)
{
	struct evlist l = {0};
	struct run r;
	struct os_mm *mm1;

	(void)state;
	build_migration(&l);
	run_events(&r, TLBSIM_ISA_X86_64, 8, "x86-stock", &l);
	mm1 = mm_of_pid(&r, 1);
	assert_int_equal(mm1->pub.tlb_gen, 2);
	assert_int_equal(os_hw(r.os, 5)->st.shootdowns, 0);
	assert_int_equal(os_hw(r.os, 5)->st.ipis_sent, 0);
	assert_int_equal(r.os->cpu[5].st.flushes_local, 2);
	assert_int_equal(os_hw(r.os, 1)->st.ipis_received, 0);
	assert_int_equal(inval(&r, 5, TLBSIM_INVAL_INVLPG), 2);
	assert_int_equal(inval(&r, 1, TLBSIM_INVAL_INVLPG), 0);
	assert_int_equal(tlbsim_cpumask_weight(&mm1->pub.cpumask), 1);
	assert_true(tlbsim_cpumask_test(&mm1->pub.cpumask, 5));
	run_free(&r);
	evlist_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(first_flush_ipis_the_cpu_that_left_and_clears_its_bit),
		cmocka_unit_test(stock_clears_the_bit_at_switch_and_sends_no_ipi),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
