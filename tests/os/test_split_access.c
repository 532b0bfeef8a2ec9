/* SPDX-License-Identifier: MIT */
/*
 * An access whose bytes cross a 4 KiB boundary needs a translation for
 * each page it touches, and faults on any of them (Intel SDM vol. 3
 * 4.10.2.3; translate_pages() in src/os/sim.c).  Before, only the page of its
 * first byte was translated: a store of 8 bytes at the last 4 of a page
 * never faulted in the next page, and a store past the end of a mapping
 * was no SIGSEGV (found by the tester of 2026-12-06).  The counts below
 * are worked out by hand from the model's rules:
 *   - a first touch of a page: an L1 miss, an L2 miss, a walk that finds
 *     no PTE, the fault; the retry counts an L1 and an L2 miss again and
 *     walks again (the fault dropped the VA everywhere), which fills;
 *   - a page that is in the L1 dTLB: one hit, nothing else;
 *   - one process of one thread on cpu 0 of a 2-cpu x86-64 machine.
 */
#include "support/sim.h"

#define BASE 0x10000000ull
#define HUGE_BASE 0x40000000ull
#define MIB (1ull << 20)

static void access_sized(struct evlist *l, unsigned kind, uint64_t va, uint32_t size)
{
	struct tlbsim_event *e = ev_add(l, kind, 1);

	e->access.va = va;
	e->access.size = size;
}

static const struct tlbsim_mmu_stats *mmu0(struct run *r)
{
	return tlbsim_mmu_stats(os_hw(r->os, 0)->mmu);
}

/* Process 1, thread 1, mapping @len bytes at @base (@flags: 0 for private
 * anonymous). */
static void start(struct evlist *l, uint64_t base, uint64_t len, unsigned flags)
{
	memset(l, 0, sizeof(*l));
	ev_proc(l, 1, 1);
	ev_mmap(l, 1, base, len, RW, flags);
}

/* Thread 1 exits, and @l runs to its end; in ordered replay if @ordered
 * (struct tlbsim_sim_config's @ordered). */
static void run_one(struct run *r, struct evlist *l, bool ordered)
{
	struct run_opts o = {.ordered = ordered};

	ev_simple(l, TLBSIM_EV_EXIT, 1);
	run_opts(r, TLBSIM_ISA_X86_64, 2, NULL, l, &o);
	assert_int_equal(r->rc, 0);
}

/*
 * 8 bytes at the last 4 of the first of two mapped pages: both pages are
 * touched for the first time, so 2 faults, 4 walks, 4 L1 and 4 L2 misses;
 * the access is one event.  Then a load of the same bytes: both pages in
 * the L1 dTLB, 2 hits.  The same in ordered replay, whose accesses run in
 * the serial phase.
 */
static void store_across_a_page_faults_in_both(void **state)
{
	for (int ordered = 0; ordered <= 1; ordered++) {
		struct evlist l;
		struct run r;

		(void)state;
		start(&l, BASE, 2 * PAGE, 0);
		access_sized(&l, TLBSIM_EV_STORE, BASE + PAGE - 4, 8);
		access_sized(&l, TLBSIM_EV_LOAD, BASE + PAGE - 4, 8);
		run_one(&r, &l, ordered);
		assert_int_equal(r.os->cpu[0].st.faults + r.os->cpu[1].st.faults, 2);
		assert_int_equal(r.os->cpu[0].st.segv + r.os->cpu[1].st.segv, 0);
		assert_int_equal(mmu0(&r)->walks, 4);
		assert_int_equal(mmu0(&r)->l1d_misses, 4);
		assert_int_equal(mmu0(&r)->l2_misses, 4);
		assert_int_equal(mmu0(&r)->l1d_hits, 2);
		assert_int_equal(data_frames(&r), 0); /* the exit freed both */
		run_free(&r);
		evlist_free(&l);
	}
}

/*
 * The same store with only the first page mapped: the first page faults
 * in (1 fault, 2 walks), then the second page's walk faults and no VMA
 * covers it: a second fault, a SIGSEGV, and the access is done (3 walks).
 */
static void store_past_the_end_of_a_mapping_is_a_segv(void **state)
{
	struct evlist l;
	struct run r;

	(void)state;
	start(&l, BASE, PAGE, 0);
	access_sized(&l, TLBSIM_EV_STORE, BASE + PAGE - 4, 8);
	run_one(&r, &l, false);
	assert_int_equal(r.os->cpu[0].st.faults, 2);
	assert_int_equal(r.os->cpu[0].st.segv, 1);
	assert_int_equal(mmu0(&r)->walks, 3);
	run_free(&r);
	evlist_free(&l);
}

/*
 * One store of 1 MiB over a 1 MiB mapping (a REP STOS): 256 pages, each
 * faulted in once and retried from its own page, 256 faults and 512 walks
 * (more than MAX_FAULT_RETRIES faults for one access, none a SIGSEGV: each
 * is progress).  A last byte alone, and 8 bytes ending at a page's end,
 * cross nothing: one translation each (L1 hits: the store left them).
 */
static void long_store_faults_each_page_once(void **state)
{
	struct evlist l;
	struct run r;

	(void)state;
	start(&l, BASE, MIB, 0);
	access_sized(&l, TLBSIM_EV_STORE, BASE, (uint32_t)MIB);
	access_sized(&l, TLBSIM_EV_LOAD, BASE + MIB - 1, 1);
	access_sized(&l, TLBSIM_EV_LOAD, BASE + MIB - 8, 8);
	run_one(&r, &l, false);
	assert_int_equal(r.os->cpu[0].st.faults, 256);
	assert_int_equal(r.os->cpu[0].st.segv, 0);
	assert_int_equal(mmu0(&r)->walks, 512);
	assert_int_equal(mmu0(&r)->l1d_misses, 512);
	assert_int_equal(mmu0(&r)->l1d_hits, 2);
	run_free(&r);
	evlist_free(&l);
}

/*
 * A 2 MiB hugetlb page holds both sides of a 4 KiB boundary: one
 * translation.  The store at 4 KiB - 4 faults the first huge page in (1
 * fault, 2 walks); the load at 8 KiB - 4 hits it once in the L1; the load
 * at 2 MiB - 4 crosses into the second huge page: a hit on the first, then
 * the second faults in (2 walks): 2 faults, 4 walks, 4 misses, 2 hits.
 */
static void a_huge_page_holds_a_split_access(void **state)
{
	struct evlist l;
	struct run r;

	(void)state;
	start(&l, HUGE_BASE, 4 * MIB, TLBSIM_MAP_PRIVATE | TLBSIM_MAP_ANON | TLBSIM_MAP_HUGETLB);
	access_sized(&l, TLBSIM_EV_STORE, HUGE_BASE + PAGE - 4, 8);
	access_sized(&l, TLBSIM_EV_LOAD, HUGE_BASE + 2 * PAGE - 4, 8);
	access_sized(&l, TLBSIM_EV_LOAD, HUGE_BASE + 2 * MIB - 4, 8);
	run_one(&r, &l, false);
	assert_int_equal(r.os->cpu[0].st.faults, 2);
	assert_int_equal(r.os->cpu[0].st.segv, 0);
	assert_int_equal(mmu0(&r)->walks, 4);
	assert_int_equal(mmu0(&r)->l1d_misses, 4);
	assert_int_equal(mmu0(&r)->l1d_hits, 2);
	run_free(&r);
	evlist_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(store_across_a_page_faults_in_both),
	    cmocka_unit_test(store_past_the_end_of_a_mapping_is_a_segv),
	    cmocka_unit_test(long_store_faults_each_page_once),
	    cmocka_unit_test(a_huge_page_holds_a_split_access),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
