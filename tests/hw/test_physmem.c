/* SPDX-License-Identifier: MIT */
/*
 * Tests of src/hw/physmem.c: the frame allocator (frame numbers from 1,
 * LIFO reuse, generations, kinds, capacity) and table-frame contents with
 * the global write counter.  Expected values follow from the rules in
 * include/tlbsim/pgtable.h, worked by hand in the comments.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "hw/physmem.h"
#include "tlbsim/error.h"
#include "tlbsim/pgtable.h"

static uint64_t alloc(tlbsim_physmem *pm, enum tlbsim_frame_kind kind)
{
	uint64_t pfn = 0;

	assert_int_equal(tlbsim_physmem_alloc(pm, kind, &pfn), 0);
	return pfn;
}

static void frames_are_numbered_from_one(void **state)
{
	tlbsim_physmem *pm = tlbsim_physmem_create(16);

	/* Fresh frames in order 1, 2, 3: pfn 0 is reserved for "none". */
	assert_int_equal(alloc(pm, TLBSIM_FRAME_DATA), 1);
	assert_int_equal(alloc(pm, TLBSIM_FRAME_TABLE), 2);
	assert_int_equal(alloc(pm, TLBSIM_FRAME_DATA), 3);
	tlbsim_physmem_destroy(pm);
}

static void freed_frames_are_reused_last_in_first_out(void **state)
{
	tlbsim_physmem *pm = tlbsim_physmem_create(16);

	for (int i = 0; i < 4; i++)
		alloc(pm, TLBSIM_FRAME_DATA); /* frames 1..4 */
	assert_int_equal(tlbsim_physmem_free(pm, 1), 0);
	assert_int_equal(tlbsim_physmem_free(pm, 3), 0);
	assert_int_equal(tlbsim_physmem_free(pm, 2), 0);
	/* Freed 1, 3, 2: reused 2, 3, 1, then the never-used frame 5. */
	assert_int_equal(alloc(pm, TLBSIM_FRAME_TABLE), 2);
	assert_int_equal(alloc(pm, TLBSIM_FRAME_DATA), 3);
	assert_int_equal(alloc(pm, TLBSIM_FRAME_DATA), 1);
	assert_int_equal(alloc(pm, TLBSIM_FRAME_DATA), 5);
	tlbsim_physmem_destroy(pm);
}

static void generation_counts_allocations_of_a_frame(void **state)
{
	tlbsim_physmem *pm = tlbsim_physmem_create(16);
	uint64_t pfn;

	assert_int_equal(tlbsim_physmem_generation(pm, 1), 0); /* never allocated */
	pfn = alloc(pm, TLBSIM_FRAME_TABLE);
	assert_int_equal(tlbsim_physmem_generation(pm, pfn), 1);
	/* Freeing does not count; each reuse does: 3 more allocations -> 4. */
	for (int i = 0; i < 3; i++) {
		assert_int_equal(tlbsim_physmem_free(pm, pfn), 0);
		assert_int_equal(tlbsim_physmem_generation(pm, pfn), 1 + i);
		assert_int_equal(alloc(pm, i % 2 ? TLBSIM_FRAME_TABLE : TLBSIM_FRAME_DATA), pfn);
	}
	assert_int_equal(tlbsim_physmem_generation(pm, pfn), 4);
	assert_int_equal(tlbsim_physmem_generation(pm, 0), 0);
	assert_int_equal(tlbsim_physmem_generation(pm, 1000), 0);
	tlbsim_physmem_destroy(pm);
}

static void double_free_and_unknown_frames_are_rejected(void **state)
{
	tlbsim_physmem *pm = tlbsim_physmem_create(16);
	uint64_t pfn = alloc(pm, TLBSIM_FRAME_DATA);

	assert_int_equal(tlbsim_physmem_free(pm, pfn), 0);
	assert_int_equal(tlbsim_physmem_free(pm, pfn), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_physmem_free(pm, 0), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_physmem_free(pm, 2), -TLBSIM_EINVAL); /* never allocated */
	/* The failed frees changed nothing: the next allocation reuses pfn once. */
	assert_int_equal(alloc(pm, TLBSIM_FRAME_DATA), pfn);
	assert_int_equal(alloc(pm, TLBSIM_FRAME_DATA), 2);
	tlbsim_physmem_destroy(pm);
}

static void kinds_and_counts_are_tracked(void **state)
{
	tlbsim_physmem *pm = tlbsim_physmem_create(16);
	uint64_t d = alloc(pm, TLBSIM_FRAME_DATA);
	uint64_t t1 = alloc(pm, TLBSIM_FRAME_TABLE);
	uint64_t t2 = alloc(pm, TLBSIM_FRAME_TABLE);
	uint64_t pfn;

	assert_int_equal(tlbsim_physmem_kind(pm, d), TLBSIM_FRAME_DATA);
	assert_int_equal(tlbsim_physmem_kind(pm, t1), TLBSIM_FRAME_TABLE);
	assert_int_equal(tlbsim_physmem_kind(pm, 9), TLBSIM_FRAME_FREE);
	assert_int_equal(tlbsim_physmem_nr_used(pm, TLBSIM_FRAME_DATA), 1);
	assert_int_equal(tlbsim_physmem_nr_used(pm, TLBSIM_FRAME_TABLE), 2);
	assert_non_null(hw_physmem_table(pm, t2));
	assert_null(hw_physmem_table(pm, d));

	/* A table frame freed and reused as data is no longer a table. */
	assert_int_equal(tlbsim_physmem_free(pm, t2), 0);
	assert_int_equal(tlbsim_physmem_kind(pm, t2), TLBSIM_FRAME_FREE);
	assert_null(hw_physmem_table(pm, t2));
	assert_int_equal(alloc(pm, TLBSIM_FRAME_DATA), t2);
	assert_int_equal(tlbsim_physmem_kind(pm, t2), TLBSIM_FRAME_DATA);
	assert_null(hw_physmem_table(pm, t2));
	assert_int_equal(tlbsim_physmem_nr_used(pm, TLBSIM_FRAME_DATA), 2);
	assert_int_equal(tlbsim_physmem_nr_used(pm, TLBSIM_FRAME_TABLE), 1);

	assert_int_equal(tlbsim_physmem_alloc(pm, TLBSIM_FRAME_FREE, &pfn), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_physmem_alloc(pm, (enum tlbsim_frame_kind)7, &pfn), -TLBSIM_EINVAL);
	tlbsim_physmem_destroy(pm);
}

static void allocation_beyond_max_frames_fails(void **state)
{
	tlbsim_physmem *pm = tlbsim_physmem_create(3);
	uint64_t pfn = 99;

	alloc(pm, TLBSIM_FRAME_DATA);
	alloc(pm, TLBSIM_FRAME_TABLE);
	alloc(pm, TLBSIM_FRAME_DATA);
	/* Frames 1..3 in use: a fourth of either kind fails, @pfn untouched. */
	assert_int_equal(tlbsim_physmem_alloc(pm, TLBSIM_FRAME_DATA, &pfn), -TLBSIM_ENOMEM);
	assert_int_equal(tlbsim_physmem_alloc(pm, TLBSIM_FRAME_TABLE, &pfn), -TLBSIM_ENOMEM);
	assert_int_equal(pfn, 99);
	assert_int_equal(tlbsim_physmem_nr_used(pm, TLBSIM_FRAME_TABLE), 1);
	assert_int_equal(tlbsim_physmem_free(pm, 2), 0);
	assert_int_equal(alloc(pm, TLBSIM_FRAME_TABLE), 2);
	tlbsim_physmem_destroy(pm);
}

static void capacity_bounds_are_checked(void **state)
{
	tlbsim_physmem *pm;

	assert_null(tlbsim_physmem_create(0));
	assert_null(tlbsim_physmem_create((1ull << 40) + 1));
	/*
	 * 2^40 frames is accepted and costs nothing until used: metadata for
	 * 2^40 frames would not fit in memory (let alone under ASan).
	 */
	pm = tlbsim_physmem_create(1ull << 40);
	assert_non_null(pm);
	assert_int_equal(alloc(pm, TLBSIM_FRAME_TABLE), 1);
	tlbsim_physmem_destroy(pm);
	tlbsim_physmem_destroy(NULL);
}

static void writes_bump_the_global_counter(void **state)
{
	tlbsim_physmem *pm = tlbsim_physmem_create(16);
	uint64_t a = alloc(pm, TLBSIM_FRAME_TABLE);
	uint64_t b = alloc(pm, TLBSIM_FRAME_TABLE);
	uint64_t raw = 1, version = 1;

	/* A fresh table: 512 zero descriptors, version 0 = never written. */
	for (unsigned i = 0; i < TLBSIM_PTRS_PER_TABLE; i++) {
		assert_int_equal(tlbsim_physmem_read_desc(pm, a, i, &raw, &version), 0);
		assert_int_equal(raw, 0);
		assert_int_equal(version, 0);
	}
	/* Three writes across two tables get versions 1, 2, 3 in order. */
	assert_int_equal(tlbsim_physmem_write_desc(pm, a, 0, 0x1111), 0);
	assert_int_equal(tlbsim_physmem_write_desc(pm, b, 511, 0x2222), 0);
	assert_int_equal(tlbsim_physmem_write_desc(pm, a, 0, 0x3333), 0);
	assert_int_equal(tlbsim_physmem_read_desc(pm, a, 0, &raw, &version), 0);
	assert_int_equal(raw, 0x3333);
	assert_int_equal(version, 3);
	assert_int_equal(tlbsim_physmem_read_desc(pm, b, 511, &raw, NULL), 0);
	assert_int_equal(raw, 0x2222);
	assert_int_equal(hw_physmem_table(pm, b)->version[511], 2);
	/* The internal writer shares the counter: the 4th write is version 4. */
	hw_physmem_write(pm, hw_physmem_table(pm, b), 7, 0x4444);
	assert_int_equal(tlbsim_physmem_read_desc(pm, b, 7, &raw, &version), 0);
	assert_int_equal(raw, 0x4444);
	assert_int_equal(version, 4);
	tlbsim_physmem_destroy(pm);
}

static void reused_table_frame_starts_zeroed(void **state)
{
	tlbsim_physmem *pm = tlbsim_physmem_create(16);
	uint64_t t = alloc(pm, TLBSIM_FRAME_TABLE);
	uint64_t raw = 1, version = 1;

	assert_int_equal(tlbsim_physmem_write_desc(pm, t, 5, 0xdead), 0);
	assert_int_equal(tlbsim_physmem_free(pm, t), 0);
	/* Reused as a table (LIFO gives the same frame): raw and version are 0 again. */
	assert_int_equal(alloc(pm, TLBSIM_FRAME_TABLE), t);
	assert_int_equal(tlbsim_physmem_read_desc(pm, t, 5, &raw, &version), 0);
	assert_int_equal(raw, 0);
	assert_int_equal(version, 0);
	/* The counter itself is global and keeps going: the next write is 2. */
	assert_int_equal(tlbsim_physmem_write_desc(pm, t, 5, 0xbeef), 0);
	assert_int_equal(tlbsim_physmem_read_desc(pm, t, 5, &raw, &version), 0);
	assert_int_equal(version, 2);
	tlbsim_physmem_destroy(pm);
}

static void descriptor_access_needs_a_table_frame(void **state)
{
	tlbsim_physmem *pm = tlbsim_physmem_create(16);
	uint64_t d = alloc(pm, TLBSIM_FRAME_DATA);
	uint64_t t = alloc(pm, TLBSIM_FRAME_TABLE);
	uint64_t raw;

	assert_int_equal(tlbsim_physmem_read_desc(pm, d, 0, &raw, NULL), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_physmem_write_desc(pm, d, 0, 1), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_physmem_read_desc(pm, t, 512, &raw, NULL), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_physmem_write_desc(pm, t, 512, 1), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_physmem_read_desc(pm, 0, 0, &raw, NULL), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_physmem_read_desc(pm, 77, 0, &raw, NULL), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_physmem_free(pm, t), 0);
	assert_int_equal(tlbsim_physmem_read_desc(pm, t, 0, &raw, NULL), -TLBSIM_EINVAL);
	tlbsim_physmem_destroy(pm);
}

static void many_tables_keep_their_own_contents(void **state)
{
	/* 1000 tables: past any small initial pool; each holds its own pfn. */
	enum { N = 1000 };
	tlbsim_physmem *pm = tlbsim_physmem_create(N);
	uint64_t raw;

	for (uint64_t i = 1; i <= N; i++) {
		assert_int_equal(alloc(pm, TLBSIM_FRAME_TABLE), i);
		assert_int_equal(tlbsim_physmem_write_desc(pm, i, (unsigned)(i % 512), i * 3), 0);
	}
	for (uint64_t i = 1; i <= N; i++) {
		assert_int_equal(tlbsim_physmem_read_desc(pm, i, (unsigned)(i % 512), &raw, NULL),
				 0);
		assert_int_equal(raw, i * 3);
	}
	tlbsim_physmem_destroy(pm);
}

/*
 * A 2 MiB block (order 9) after frame 1 starts at the next multiple of 512:
 * frame 512.  Frames 2..511 are skipped for alignment and become free, so
 * the next single allocation takes the last one pushed, 511; the block's
 * frames are data, each freed on its own.
 */
static void block_is_aligned_and_skipped_frames_become_free(void **state)
{
	tlbsim_physmem *pm = tlbsim_physmem_create(4096);
	uint64_t pfn, block;

	(void)state;
	assert_int_equal(tlbsim_physmem_alloc(pm, TLBSIM_FRAME_DATA, &pfn), 0);
	assert_int_equal(pfn, 1);
	assert_int_equal(tlbsim_physmem_alloc_block(pm, 9, &block), 0);
	assert_int_equal(block, 512);
	assert_int_equal(tlbsim_physmem_nr_used(pm, TLBSIM_FRAME_DATA), 1 + 512);
	assert_int_equal(tlbsim_physmem_kind(pm, 1023), TLBSIM_FRAME_DATA);
	assert_int_equal(tlbsim_physmem_kind(pm, 300), TLBSIM_FRAME_FREE);
	assert_int_equal(tlbsim_physmem_alloc(pm, TLBSIM_FRAME_DATA, &pfn), 0);
	assert_int_equal(pfn, 511);
	assert_int_equal(tlbsim_physmem_free(pm, 700), 0);
	assert_int_equal(tlbsim_physmem_alloc_block(pm, 19, &block), -TLBSIM_EINVAL);
	/* 4096 frames: a second 2 MiB block would end at 1535, a 1 GiB one
	 * cannot fit. */
	assert_int_equal(tlbsim_physmem_alloc_block(pm, 18, &block), -TLBSIM_ENOMEM);
	tlbsim_physmem_destroy(pm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(block_is_aligned_and_skipped_frames_become_free),
	    cmocka_unit_test(frames_are_numbered_from_one),
	    cmocka_unit_test(freed_frames_are_reused_last_in_first_out),
	    cmocka_unit_test(generation_counts_allocations_of_a_frame),
	    cmocka_unit_test(double_free_and_unknown_frames_are_rejected),
	    cmocka_unit_test(kinds_and_counts_are_tracked),
	    cmocka_unit_test(allocation_beyond_max_frames_fails),
	    cmocka_unit_test(capacity_bounds_are_checked),
	    cmocka_unit_test(writes_bump_the_global_counter),
	    cmocka_unit_test(reused_table_frame_starts_zeroed),
	    cmocka_unit_test(descriptor_access_needs_a_table_frame),
	    cmocka_unit_test(many_tables_keep_their_own_contents),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
