/* SPDX-License-Identifier: MIT */
/*
 * mmap_lock in the OS model (src/os/mm.c): munmap takes it for writing to
 * detach the VMAs, then downgrades to reading for the zap, the page-table
 * frees and the flush (Linux 4.20, dd2283f2605e; mm/mmap.c
 * do_vmi_align_munmap() mmap_write_downgrade()); madvise takes it for
 * reading.  Observed through the nested-flush rule (mm/mmu_gather.c
 * tlb_finish_mmu(), mm_tlb_flush_nested()): a gather that finishes while
 * another gather of the mm is still waiting for its acknowledgements
 * flushes the whole mm, so a full-mm request counts a syscall that ran
 * during another cpu's shootdown.
 */
#include "support/sim.h"

#define A 0x10000000ull /* a 2 MiB-aligned region */

/*
 * Threads 1, 2, 3 of one process on cpus 0, 1, 2; thread 3 reads A and
 * computes (keeps cpu 2 in mm_cpumask), thread 2 sleeps at once.  Thread 1
 * wakes thread 2 and computes the 2100 cycles cpu 1 pays to start it
 * (context_switch 2000 + switch_mm 100, as in test_tlb_gen.c), so both
 * reach their syscall at the same time and are served in one serial
 * phase, cpu 0 first:
 *   cpu 0: @first takes the lock (write for munmap, read for madvise),
 *     zaps page 1; its gather is the only one pending: a range flush by
 *     IPI to cpus 1 and 2, and cpu 0 blocks for the acknowledgements;
 *   cpu 1: @second asks for the lock while cpu 0 still holds it.
 * If cpu 1 gets it (cpu 0 holds it for reading and cpu 1 wants reading),
 * its gather finishes with two pending: full-mm flush, 1 full request.
 * If cpu 1 must wait (a writer involved), it runs after cpu 0 returned:
 * one pending, a range flush, 0 full requests.  Cpu 0 never sees a
 * nested gather: 0 full requests.
 */
static unsigned full_requests_of_second(enum tlbsim_event_kind first, enum tlbsim_event_kind second)
{
	struct evlist l = {0};
	struct run r;
	unsigned n;

	ev_proc(&l, 1, 1);
	ev_mmap(&l, 1, A, 8 * PAGE, RW, 0);
	for (unsigned p = 0; p < 8; p++)
		ev_access(&l, 1, TLBSIM_EV_STORE, A + p * PAGE);
	ev_thread(&l, 1, 2);
	ev_thread(&l, 1, 3);
	ev_simple(&l, TLBSIM_EV_SLEEP, 2);
	if (second == TLBSIM_EV_MUNMAP)
		ev_munmap(&l, 2, A + 2 * PAGE, PAGE);
	else
		ev_madvise(&l, 2, A + 2 * PAGE, PAGE, TLBSIM_MADV_DONTNEED);
	ev_simple(&l, TLBSIM_EV_SLEEP, 2);
	ev_access(&l, 3, TLBSIM_EV_LOAD, A);
	ev_compute(&l, 3, 50000000);
	ev_simple(&l, TLBSIM_EV_SLEEP, 3);
	ev_compute(&l, 1, 1000000);
	ev_wake(&l, 1, 2);
	ev_compute(&l, 1, 2100);
	if (first == TLBSIM_EV_MUNMAP)
		ev_munmap(&l, 1, A + PAGE, PAGE);
	else
		ev_madvise(&l, 1, A + PAGE, PAGE, TLBSIM_MADV_DONTNEED);
	ev_simple(&l, TLBSIM_EV_SLEEP, 1);
	run_events(&r, TLBSIM_ISA_X86_64, 4, "x86-stock", &l);
	assert_int_equal(r.os->cpu[0].st.full_flushes, 0);
	/* Both requests went out: tlb_gen 2. */
	assert_int_equal(r.os->mms[0]->pub.tlb_gen, 2);
	n = (unsigned)r.os->cpu[1].st.full_flushes;
	run_free(&r);
	evlist_free(&l);
	return n;
}

static void madvise_runs_during_munmap_shootdown_after_downgrade(void **state)
{
	(void)state;
	assert_int_equal(full_requests_of_second(TLBSIM_EV_MUNMAP, TLBSIM_EV_MADVISE), 1);
}

static void two_madvise_share_the_lock(void **state)
{
	(void)state;
	assert_int_equal(full_requests_of_second(TLBSIM_EV_MADVISE, TLBSIM_EV_MADVISE), 1);
}

static void munmap_waits_for_madvise_reader(void **state)
{
	(void)state;
	assert_int_equal(full_requests_of_second(TLBSIM_EV_MADVISE, TLBSIM_EV_MUNMAP), 0);
}

static void munmap_waits_for_downgraded_munmap(void **state)
{
	(void)state;
	assert_int_equal(full_requests_of_second(TLBSIM_EV_MUNMAP, TLBSIM_EV_MUNMAP), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(madvise_runs_during_munmap_shootdown_after_downgrade),
		cmocka_unit_test(two_madvise_share_the_lock),
		cmocka_unit_test(munmap_waits_for_madvise_reader),
		cmocka_unit_test(munmap_waits_for_downgraded_munmap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
