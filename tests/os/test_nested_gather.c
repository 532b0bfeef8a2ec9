/* SPDX-License-Identifier: MIT */
/*
 * tlb_finish_mmu()'s forced flush of a nested mmu_gather (src/os/gather.c;
 * Linux mm/mmu_gather.c): when another gather of the mm is in flight
 * (mm_tlb_flush_nested()), the flush request becomes the whole mm with
 * freed_tables (7a30df49f63a, Linux 5.2); with the mutation
 * TLBSIM_OS_NESTED_RESET_RANGE (Linux 4.20-5.1) __tlb_reset_range() +
 * __tlb_adjust_range(start, end): the call's range, PAGE_SHIFT stride, and
 * freed_tables dropped.  A policy that records each request shows what
 * the OS model asks for.
 */
#include "support/sim.h"

#define A 0x10000000ull

static struct tlbsim_flush_info last;
static unsigned nr_requests;

static void record_flush_range(struct tlbsim_pctx *ctx, const struct tlbsim_flush_info *info)
{
	(void)ctx;
	last = *info;
	nr_requests++;
}

static const struct tlbsim_policy recorder = {
    .name = "test-record-requests",
    .summary = "records flush requests, flushes nothing",
    .source = "tests/os/test_nested_gather.c",
    .abi = TLBSIM_POLICY_ABI,
    .isa_mask = TLBSIM_ISA_BIT(TLBSIM_ISA_ARM64),
    .flush_range = record_flush_range,
};

/*
 * A process whose thread sleeps at once; then, outside the run, cpu 0
 * finishes a gather of munmap's range [A, A + 4 pages) that changed one
 * page (A + 1 page, 4 KiB) and freed a page table, while another gather
 * of the mm is in flight (tlb_flush_pending 2).
 */
static void finish_nested(unsigned os_flags)
{
	struct evlist l = {0};
	struct os_gather *g;
	struct os_mm *mm;
	struct run r;

	ev_proc(&l, 1, 1);
	ev_simple(&l, TLBSIM_EV_SLEEP, 1);
	run_opts(&r, TLBSIM_ISA_ARM64, 2, "test-record-requests", &l,
		 &(struct run_opts){.os_flags = os_flags});
	mm = r.os->mms[0];
	g = &r.os->cpu[0].gather;
	nr_requests = 0;
	os_gather_init(g, mm, false);
	mm->tlb_flush_pending++; /* the other gather */
	g->call_start = A;
	g->call_end = A + 4 * PAGE;
	os_gather_add_range(g, A + PAGE, A + 2 * PAGE, 12);
	g->freed_tables = true;
	os_gather_finish(r.os, os_hw(r.os, 0), NULL);
	assert_int_equal(nr_requests, 1);
	assert_int_equal(mm->tlb_flush_pending, 1);
	mm->tlb_flush_pending--;
	run_free(&r);
	evlist_free(&l);
}

static void nested_flush_is_the_whole_mm_with_freed_tables(void **state)
{
	(void)state;
	finish_nested(0);
	assert_int_equal(last.start, 0);
	assert_int_equal(last.end, TLBSIM_FLUSH_ALL);
	assert_int_equal(last.stride_shift, 12);
	assert_true(last.freed_tables);
}

/* The mutation: [A, A + 4 pages), not the one page gathered nor the whole
 * mm, and no freed_tables although a table was freed. */
static void issue_25_reset_range_drops_freed_tables(void **state)
{
	(void)state;
	finish_nested(TLBSIM_OS_NESTED_RESET_RANGE);
	assert_int_equal(last.start, A);
	assert_int_equal(last.end, A + 4 * PAGE);
	assert_int_equal(last.stride_shift, 12);
	assert_false(last.freed_tables);
}

static int setup(void **state)
{
	(void)state;
	return tlbsim_policy_register(&recorder);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(nested_flush_is_the_whole_mm_with_freed_tables),
	    cmocka_unit_test(issue_25_reset_range_drops_freed_tables),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
