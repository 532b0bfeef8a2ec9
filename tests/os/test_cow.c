/* SPDX-License-Identifier: MIT */
/*
 * fork() and copy-on-write through the OS model (src/os/mm.c), against
 * Linux: dup_mmap() write-protects the parent's private writable PTEs,
 * shares the pages with the child and ends with flush_tlb_mm(oldmm);
 * do_wp_page() copies a page still mapped by the other side
 * (wp_page_copy(): ptep_clear_flush() of the old PTE) and reuses a page
 * only this side maps any more (wp_page_reuse(): made writable, no flush);
 * exit_mmap() frees only the frames no one else maps.
 */
#include "support/sim.h"

#define A 0x10000000ull /* a 2 MiB-aligned region */

/*
 * Parent thread 1 (cpu 0) populates the 4 pages of A: 4 data frames, F0-F3.
 * It forks child process 2 (thread 2, placed on the idle cpu 1): the child
 * maps F0-F3 read-only, the parent's PTEs become read-only, and the parent
 * is flushed whole (a CR3 flush on cpu 0, its only cpu).
 * At 1M cycles the parent writes page 0: F0 is mapped twice, a copy: F0'
 * (5 frames), and a one-page flush of mm1 (one INVLPG on cpu 0).
 * At 2M the child writes page 0: F0 is the child's alone now: reused, no
 * copy, no flush.  It writes page 1: F1 is shared: a copy F1' (6 frames)
 * and a one-page flush of mm2.  The child exits: its mm maps F0, F1', F2,
 * F3; F0 and F1' are freed (2 pages), F2 and F3 stay (the parent maps
 * them): 4 frames.  At 3M the parent writes pages 1 and 2: both are its
 * own now (F1 since the child copied, F2 since it exited): reused.
 * Totals: mm1 faults 4 (demand) + 3 (write-protect) = 7, 1 COW copy, 2
 * flushes (fork: full; the copy of page 0); mm2 2 faults, 1 COW copy, 2
 * flushes (the copy; exit_mmap, full), 2 pages freed.
 */
static void cow_copies_shared_pages_and_reuses_private_ones(void **state)
{
	struct evlist l = {0};
	struct run r;
	struct os_mm *mm1, *mm2;

	(void)state;
	ev_proc(&l, 1, 1);
	ev_mmap(&l, 1, A, 4 * PAGE, RW, 0);
	for (unsigned p = 0; p < 4; p++)
		ev_access(&l, 1, TLBSIM_EV_STORE, A + p * PAGE);
	ev_fork(&l, 1, 2, 2);
	ev_compute(&l, 1, 1000000);
	ev_access(&l, 1, TLBSIM_EV_STORE, A);
	ev_compute(&l, 2, 2000000);
	ev_access(&l, 2, TLBSIM_EV_STORE, A);
	ev_access(&l, 2, TLBSIM_EV_STORE, A + PAGE);
	ev_simple(&l, TLBSIM_EV_EXIT, 2);
	ev_compute(&l, 1, 3000000);
	ev_access(&l, 1, TLBSIM_EV_STORE, A + PAGE);
	ev_access(&l, 1, TLBSIM_EV_STORE, A + 2 * PAGE);
	ev_simple(&l, TLBSIM_EV_SLEEP, 1);
	run_events(&r, TLBSIM_ISA_X86_64, 2, "x86-stock", &l);
	mm1 = r.os->mms[0];
	mm2 = r.os->mms[1];
	assert_int_equal(mm2->pid, 2);
	assert_int_equal(mm1->st.faults, 7);
	assert_int_equal(mm1->st.cow_copies, 1);
	assert_int_equal(mm1->st.flushes, 2);
	assert_int_equal(mm1->st.full_flushes, 1);
	assert_int_equal(mm2->st.faults, 2);
	assert_int_equal(mm2->st.cow_copies, 1);
	assert_int_equal(mm2->st.flushes, 2);
	assert_int_equal(mm2->st.pages_freed, 2);
	assert_int_equal(data_frames(&r), 4);
	/* Cpu 0: CR3 flushes at the first load and at fork's flush_tlb_mm;
	 * one INVLPG for the copied page. */
	assert_int_equal(inval(&r, 0, TLBSIM_INVAL_CR3_FLUSH), 2);
	assert_int_equal(inval(&r, 0, TLBSIM_INVAL_INVLPG), 1);
	assert_int_equal(r.os->cpu[0].st.segv, 0);
	assert_int_equal(r.os->cpu[1].st.segv, 0);
	run_free(&r);
	evlist_free(&l);
}

/*
 * The parent's pages after fork are read-only in both mms; a read takes
 * no fault and copies nothing.  Parent populates 2 pages, forks; the child
 * reads both and exits (its exit frees nothing: the parent maps both);
 * the parent reads both: still 2 frames, no COW copy, no fault after the
 * 2 demand faults.
 */
static void reads_after_fork_share_frames(void **state)
{
	struct evlist l = {0};
	struct run r;

	(void)state;
	ev_proc(&l, 1, 1);
	ev_mmap(&l, 1, A, 2 * PAGE, RW, 0);
	ev_access(&l, 1, TLBSIM_EV_STORE, A);
	ev_access(&l, 1, TLBSIM_EV_STORE, A + PAGE);
	ev_fork(&l, 1, 2, 2);
	ev_access(&l, 2, TLBSIM_EV_LOAD, A);
	ev_access(&l, 2, TLBSIM_EV_LOAD, A + PAGE);
	ev_simple(&l, TLBSIM_EV_EXIT, 2);
	ev_compute(&l, 1, 1000000);
	ev_access(&l, 1, TLBSIM_EV_LOAD, A);
	ev_access(&l, 1, TLBSIM_EV_LOAD, A + PAGE);
	ev_simple(&l, TLBSIM_EV_SLEEP, 1);
	run_events(&r, TLBSIM_ISA_X86_64, 2, "x86-stock", &l);
	assert_int_equal(r.os->mms[0]->st.faults, 2);
	assert_int_equal(r.os->mms[1]->st.faults, 0);
	assert_int_equal(r.os->mms[0]->st.cow_copies + r.os->mms[1]->st.cow_copies, 0);
	assert_int_equal(r.os->mms[1]->st.pages_freed, 0);
	assert_int_equal(data_frames(&r), 2);
	run_free(&r);
	evlist_free(&l);
}

/*
 * A 2 MiB hugetlb page after fork is shared read-only like a small one,
 * and a write to it copies all of it (mm/hugetlb.c hugetlb_wp(): a page
 * mapped by both sides is copied; the old PTE is cleared and flushed with
 * huge_ptep_clear_flush()).  Parent populates one 2M page of H (512
 * frames), forks; at 1M cycles it writes H + 8 KiB: a copy (1024
 * frames), one flush of mm1 of one 2M page (one INVLPG on cpu 0 besides
 * fork's CR3 flush).  The child, at 2M, writes H: the old block is its own
 * now: reused, no copy.
 */
static void cow_of_a_huge_page_copies_the_whole_page(void **state)
{
	const uint64_t H = 0x40000000ull; /* 1 GiB, 2 MiB-aligned */
	struct evlist l = {0};
	struct run r;

	(void)state;
	ev_proc(&l, 1, 1);
	ev_mmap(&l, 1, H, 2ull << 20, RW, TLBSIM_MAP_PRIVATE | TLBSIM_MAP_ANON | TLBSIM_MAP_HUGETLB);
	ev_access(&l, 1, TLBSIM_EV_STORE, H);
	ev_fork(&l, 1, 2, 2);
	ev_compute(&l, 1, 1000000);
	ev_access(&l, 1, TLBSIM_EV_STORE, H + 2 * PAGE);
	ev_simple(&l, TLBSIM_EV_SLEEP, 1);
	ev_compute(&l, 2, 2000000);
	ev_access(&l, 2, TLBSIM_EV_STORE, H);
	ev_simple(&l, TLBSIM_EV_SLEEP, 2);
	run_events(&r, TLBSIM_ISA_X86_64, 2, "x86-stock", &l);
	assert_int_equal(r.os->mms[0]->st.cow_copies, 1);
	assert_int_equal(r.os->mms[1]->st.cow_copies, 0);
	assert_int_equal(r.os->mms[0]->st.flushes, 2);
	assert_int_equal(r.os->mms[1]->st.flushes, 0);
	assert_int_equal(data_frames(&r), 1024);
	assert_int_equal(inval(&r, 0, TLBSIM_INVAL_INVLPG), 1);
	run_free(&r);
	evlist_free(&l);
}

/*
 * The shared zero page (mm/memory.c do_anonymous_page(): a read fault on
 * private anonymous memory maps ZERO_PAGE read-only, no page is allocated).
 * One process reads the 3 pages of A: 3 faults, one data frame in use (the
 * zero page), all three PTEs on the same frame, read-only, and no page put
 * on the LRU.  It writes page 1: a fault that copies (wp_page_copy():
 * cow_copies 1, 2 data frames, one INVLPG flushing the read-only entry),
 * the copy writable.  Its munmap frees the copy only (pages_freed 1): the
 * zero page stays.  Faults: 3 + 1, and 1 for a file-backed mapping's read,
 * which still allocates (the page cache's page): B, 1 more frame, so 2 at
 * the end.  INVLPGs: 1 for the copy, 3 for the munmap of A's 3 PTEs (below
 * the 33-page ceiling: one each).
 */
static void read_faults_on_anonymous_memory_map_the_zero_page(void **state)
{
	const uint64_t B = 0x20000000ull;
	struct evlist l = {0};
	struct tlbsim_mapping m[3];
	struct run r;

	(void)state;
	ev_proc(&l, 1, 1);
	ev_mmap(&l, 1, A, 3 * PAGE, RW, 0);
	for (unsigned p = 0; p < 3; p++)
		ev_access(&l, 1, TLBSIM_EV_LOAD, A + p * PAGE);
	ev_simple(&l, TLBSIM_EV_SLEEP, 1);
	run_events(&r, TLBSIM_ISA_X86_64, 1, "x86-stock", &l);
	assert_int_equal(r.os->mms[0]->st.faults, 3);
	assert_int_equal(data_frames(&r), 1);
	for (unsigned p = 0; p < 3; p++) {
		assert_int_equal(tlbsim_pgtable_lookup(r.os->mms[0]->pgt, A + p * PAGE, &m[p]), 0);
		assert_int_equal(m[p].pfn, m[0].pfn);
		assert_false(m[p].prot & TLBSIM_PROT_WRITE);
	}
	assert_int_equal(r.os->cpu[0].lru_batch, 0);
	run_free(&r);

	l.n = 0;
	ev_proc(&l, 1, 1);
	ev_mmap(&l, 1, A, 3 * PAGE, RW, 0);
	for (unsigned p = 0; p < 3; p++)
		ev_access(&l, 1, TLBSIM_EV_LOAD, A + p * PAGE);
	ev_access(&l, 1, TLBSIM_EV_STORE, A + PAGE);
	ev_mmap(&l, 1, B, PAGE, RW, TLBSIM_MAP_PRIVATE);
	ev_access(&l, 1, TLBSIM_EV_LOAD, B);
	ev_munmap(&l, 1, A, 3 * PAGE);
	ev_simple(&l, TLBSIM_EV_SLEEP, 1);
	run_events(&r, TLBSIM_ISA_X86_64, 1, "x86-stock", &l);
	assert_int_equal(r.os->mms[0]->st.faults, 5);
	assert_int_equal(r.os->mms[0]->st.cow_copies, 1);
	assert_int_equal(r.os->mms[0]->st.pages_freed, 1);
	assert_int_equal(inval(&r, 0, TLBSIM_INVAL_INVLPG), 4);
	assert_int_equal(data_frames(&r), 2);
	run_free(&r);
	evlist_free(&l);
}

/*
 * A fault that finds another cpu's fault of the same huge page in
 * progress (os_cow_busy()) waits for it, and is then served again; the
 * access is translated again only once the wait is over.  It used to be
 * translated, walked and faulted again at every window of the wait (9,693
 * walks for one load in the tester's case, 2026-12-06), so the counts grew
 * with the wait.  The tester's case, pinned: process 1's threads 1 (cpu 0)
 * and 2 (cpu 1); a 4 MiB hugetlb region; thread 2 forks process 3 (thread
 * 3, cpu 2) and stores to the region's first huge page while thread 1
 * loads from it; thread 3 stores to the second.  Run with page_copy (the
 * cost of zeroing or copying 4 KiB, 512 times a huge page) as the test
 * machine has it and 4 times that: cpu 0 waits longer, and its walks and
 * faults stay the same, and few.
 */
static void run_huge_page_wait(struct run *r, struct evlist *l, unsigned copy_scale)
{
	struct run_opts o = {.page_copy_scale = copy_scale};

	memset(l, 0, sizeof(*l));
	ev_proc(l, 1, 1);
	ev_pin(l, 1, 0);
	ev_mmap(l, 1, 0x40000000ull, 4ull << 20, RW,
		TLBSIM_MAP_PRIVATE | TLBSIM_MAP_ANON | TLBSIM_MAP_HUGETLB);
	ev_thread(l, 1, 2);
	ev_pin(l, 2, 1);
	ev_fork(l, 2, 3, 3);
	ev_access(l, 2, TLBSIM_EV_STORE, 0x40000000ull);
	ev_access(l, 1, TLBSIM_EV_LOAD, 0x40000000ull);
	ev_pin(l, 3, 2);
	ev_access(l, 3, TLBSIM_EV_STORE, 0x40200000ull);
	run_opts(r, TLBSIM_ISA_X86_64, 4, "x86-stock", l, &o);
	assert_int_equal(r->rc, 0);
}

static void a_fault_waiting_for_another_cpus_huge_page_is_not_retranslated(void **state)
{
	struct evlist l1, l4;
	struct run r1, r4;
	uint64_t walks1, walks4;

	(void)state;
	run_huge_page_wait(&r1, &l1, 1);
	run_huge_page_wait(&r4, &l4, 4);
	walks1 = tlbsim_mmu_stats(os_hw(r1.os, 0)->mmu)->walks;
	walks4 = tlbsim_mmu_stats(os_hw(r4.os, 0)->mmu)->walks;
	assert_true(os_hw(r1.os, 0)->core->st.waiting > 0);
	assert_true(os_hw(r4.os, 0)->core->st.waiting > 2 * os_hw(r1.os, 0)->core->st.waiting);
	assert_int_equal(walks1, walks4);
	assert_true(walks1 <= 4);
	assert_int_equal(r1.os->cpu[0].st.faults, r4.os->cpu[0].st.faults);
	assert_int_equal(r1.os->cpu[0].st.segv, 0);
	run_free(&r1);
	run_free(&r4);
	evlist_free(&l1);
	evlist_free(&l4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cow_copies_shared_pages_and_reuses_private_ones),
		cmocka_unit_test(reads_after_fork_share_frames),
		cmocka_unit_test(cow_of_a_huge_page_copies_the_whole_page),
		cmocka_unit_test(read_faults_on_anonymous_memory_map_the_zero_page),
		cmocka_unit_test(a_fault_waiting_for_another_cpus_huge_page_is_not_retranslated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
