/* SPDX-License-Identifier: MIT */
/*
 * Tests of src/hw/pgtable.c: radix page tables in simulated memory, for
 * x86-64 (4- and 5-level) and arm64 (4-level, 4 KiB granule).
 *
 * Table counts follow from the spans of the levels (machine.h): a level-k
 * descriptor covers 2^(12+9k) bytes, so a PT (level-0 table) spans 2 MiB,
 * a PD 1 GiB, a PDPT 512 GiB, a PML4 256 TiB.  Frame numbers follow from
 * the allocator's rules (frames numbered from 1, LIFO reuse) on a fresh
 * physmem, where the root takes frame 1.  Versions follow from the global
 * write counter starting at 0 (the first write gets version 1).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "hw/pgtable_internal.h"
#include "tlbsim/error.h"
#include "tlbsim/pgtable.h"

#define R TLBSIM_PROT_READ
#define W TLBSIM_PROT_WRITE
#define X TLBSIM_PROT_EXEC
#define U TLBSIM_PROT_USER
#define G TLBSIM_PROT_GLOBAL

#define KiB(n) ((uint64_t)(n) << 10)
#define MiB(n) ((uint64_t)(n) << 20)
#define GiB(n) ((uint64_t)(n) << 30)

struct fixture {
	tlbsim_physmem *pm;
	tlbsim_pgtable *pt;
};

static struct fixture make(enum tlbsim_isa isa, unsigned levels)
{
	struct fixture f;

	f.pm = tlbsim_physmem_create(1u << 20);
	assert_non_null(f.pm);
	f.pt = tlbsim_pgtable_create(f.pm, isa, levels);
	assert_non_null(f.pt);
	return f;
}

static void unmake(struct fixture *f)
{
	tlbsim_pgtable_destroy(f->pt);
	assert_int_equal(tlbsim_physmem_nr_used(f->pm, TLBSIM_FRAME_TABLE), 0);
	tlbsim_physmem_destroy(f->pm);
}

/* Raw descriptor @index of table @pfn. */
static uint64_t desc(struct fixture *f, uint64_t pfn, unsigned index)
{
	uint64_t raw;

	assert_int_equal(tlbsim_physmem_read_desc(f->pm, pfn, index, &raw, NULL), 0);
	return raw;
}

/* Record of the calls a free_tables receiver got. */
struct freed {
	unsigned n;
	uint64_t pfn[8];
	unsigned level[8];
	uint64_t va[8];
};

static void record_free(void *arg, uint64_t pfn, unsigned level, uint64_t va)
{
	struct freed *fr = arg;

	assert_true(fr->n < 8);
	fr->pfn[fr->n] = pfn;
	fr->level[fr->n] = level;
	fr->va[fr->n] = va;
	fr->n++;
}

static void bad_isa_and_level_combinations_are_refused(void **state)
{
	tlbsim_physmem *pm = tlbsim_physmem_create(16);

	assert_null(tlbsim_pgtable_create(pm, TLBSIM_ISA_ARM64, 5));
	assert_null(tlbsim_pgtable_create(pm, TLBSIM_ISA_X86_64, 3));
	assert_null(tlbsim_pgtable_create(pm, (enum tlbsim_isa)0, 4));
	assert_null(tlbsim_pgtable_create(NULL, TLBSIM_ISA_X86_64, 4));
	/* Nothing leaked into physical memory. */
	assert_int_equal(tlbsim_physmem_nr_used(pm, TLBSIM_FRAME_TABLE), 0);
	tlbsim_pgtable_destroy(NULL);
	tlbsim_physmem_destroy(pm);
}

static void one_4k_page_in_4_level_tree_needs_four_tables(void **state)
{
	struct fixture f = make(TLBSIM_ISA_X86_64, 4);
	struct tlbsim_mapping m;
	uint64_t pdpt, pd, ptab;

	assert_int_equal(tlbsim_pgtable_nr_tables(f.pt), 1); /* the root */
	assert_int_equal(tlbsim_pgtable_root(f.pt), 1);	     /* first frame */
	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(4), 0x1234, 12, W | U), 0);
	/* Root + PDPT + PD + PT. */
	assert_int_equal(tlbsim_pgtable_nr_tables(f.pt), 4);
	assert_int_equal(tlbsim_physmem_nr_used(f.pm, TLBSIM_FRAME_TABLE), 4);

	/*
	 * Walk by hand: 0x400000 has indices 0 (PML4), 0 (PDPT), 2 (PD:
	 * 4 MiB / 2 MiB), 0 (PT).  Tables were allocated top-down: frames 2,
	 * 3, 4; a table descriptor is address | 0x27 (P, R/W, U/S, A).
	 */
	pdpt = desc(&f, 1, 0);
	assert_int_equal(pdpt, 0x2027);
	pd = desc(&f, 2, 0);
	assert_int_equal(pd, 0x3027);
	ptab = desc(&f, 3, 2);
	assert_int_equal(ptab, 0x4027);
	/* The leaf is the one worked out in test_pte.c: P|RW|US|A|D, NX. */
	assert_int_equal(desc(&f, 4, 0), 0x8000000001234067ull);

	assert_int_equal(tlbsim_pgtable_lookup(f.pt, MiB(4) + 0xabc, &m), 0);
	assert_int_equal(m.pfn, 0x1234);
	assert_int_equal(m.size_shift, 12);
	assert_int_equal(m.prot, R | W | U); /* READ implied */
	assert_int_equal(m.level, 0);
	assert_int_equal(m.table_pfn, 4);
	assert_int_equal(tlbsim_pgtable_lookup(f.pt, MiB(4) + KiB(4), &m), -TLBSIM_ENOENT);
	assert_int_equal(tlbsim_pgtable_lookup(f.pt, MiB(4) - 1, &m), -TLBSIM_ENOENT);
	unmake(&f);
}

static void one_4k_page_in_5_level_tree_needs_five_tables(void **state)
{
	struct fixture f = make(TLBSIM_ISA_X86_64, 5);
	struct tlbsim_mapping m;

	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(4), 0x1234, 12, W | U), 0);
	/* Root (PML5) + PML4 + PDPT + PD + PT. */
	assert_int_equal(tlbsim_pgtable_nr_tables(f.pt), 5);
	/* 5-level reaches VAs at and above 2^47, below 2^56. */
	assert_int_equal(tlbsim_pgtable_map(f.pt, 1ull << 55, 0x99, 12, W | U), 0);
	assert_int_equal(tlbsim_pgtable_lookup(f.pt, (1ull << 55) + 8, &m), 0);
	assert_int_equal(m.pfn, 0x99);
	/* The second page shares only the root: 4 more tables, 9 in all. */
	assert_int_equal(tlbsim_pgtable_nr_tables(f.pt), 9);
	assert_int_equal(tlbsim_pgtable_map(f.pt, 1ull << 56, 0x99, 12, U), -TLBSIM_EINVAL);
	unmake(&f);
}

static void one_4k_page_in_arm64_tree_needs_four_tables(void **state)
{
	struct fixture f = make(TLBSIM_ISA_ARM64, 4);
	struct tlbsim_mapping m;

	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(4), 0x1234, 12, W | U), 0);
	assert_int_equal(tlbsim_pgtable_nr_tables(f.pt), 4);
	/* Table descriptors are address | 0x3 (valid, table); frames 2, 3, 4. */
	assert_int_equal(desc(&f, 1, 0), 0x2003);
	assert_int_equal(desc(&f, 2, 0), 0x3003);
	assert_int_equal(desc(&f, 3, 2), 0x4003);
	/* The user RW page worked out in test_pte.c. */
	assert_int_equal(desc(&f, 4, 0), 0x0060000001234f43ull);
	assert_int_equal(tlbsim_pgtable_lookup(f.pt, MiB(4) + 0xfff, &m), 0);
	assert_int_equal(m.pfn, 0x1234);
	assert_int_equal(m.prot, R | W | U);
	/* TTBR0 range: below 2^48 (T0SZ = 16). */
	assert_int_equal(tlbsim_pgtable_map(f.pt, (1ull << 48) - KiB(4), 7, 12, U), 0);
	assert_int_equal(tlbsim_pgtable_map(f.pt, 1ull << 48, 7, 12, U), -TLBSIM_EINVAL);
	unmake(&f);
}

static void pages_2m_apart_share_pdpt_and_pd(void **state)
{
	struct fixture f = make(TLBSIM_ISA_X86_64, 4);

	/*
	 * 0x400000 and 0x600000: same PML4 and PDPT index (0), PD indices 2
	 * and 3, so one PDPT, one PD and two PTs: 1 + 1 + 1 + 2 = 5.
	 */
	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(4), 10, 12, U), 0);
	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(6), 11, 12, U), 0);
	assert_int_equal(tlbsim_pgtable_nr_tables(f.pt), 5);
	/* A third page in the first 2 MiB (0x401000) adds nothing. */
	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(4) + KiB(4), 12, 12, U), 0);
	assert_int_equal(tlbsim_pgtable_nr_tables(f.pt), 5);
	/*
	 * 1 GiB + 4 MiB: PDPT index 1, so a new PD and PT but the same PDPT:
	 * 5 + 2 = 7.
	 */
	assert_int_equal(tlbsim_pgtable_map(f.pt, GiB(1) + MiB(4), 13, 12, U), 0);
	assert_int_equal(tlbsim_pgtable_nr_tables(f.pt), 7);
	/* 512 GiB: PML4 index 1, a whole new path: 7 + 3 = 10. */
	assert_int_equal(tlbsim_pgtable_map(f.pt, GiB(512), 14, 12, U), 0);
	assert_int_equal(tlbsim_pgtable_nr_tables(f.pt), 10);
	unmake(&f);
}

static void large_pages_map_and_look_up(void **state)
{
	enum tlbsim_isa isas[] = {TLBSIM_ISA_X86_64, TLBSIM_ISA_ARM64};

	for (unsigned i = 0; i < 2; i++) {
		struct fixture f = make(isas[i], 4);
		struct tlbsim_mapping m;

		/* 2M leaf at 2 MiB: PD level, so root + PDPT + PD = 3 tables. */
		assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(2), 0x200, 21, W | U), 0);
		assert_int_equal(tlbsim_pgtable_nr_tables(f.pt), 3);
		assert_int_equal(tlbsim_pgtable_lookup(f.pt, MiB(2) + 0xabcde, &m), 0);
		assert_int_equal(m.pfn, 0x200); /* first frame, not 0x200 + 0xab */
		assert_int_equal(m.size_shift, 21);
		assert_int_equal(m.level, 1);
		assert_int_equal(m.table_pfn, 3); /* the PD: frames 2 PDPT, 3 PD */

		/* 1G leaf at 1 GiB: in the existing PDPT, no new table. */
		assert_int_equal(tlbsim_pgtable_map(f.pt, GiB(1), 0x40000, 30, X | G), 0);
		assert_int_equal(tlbsim_pgtable_nr_tables(f.pt), 3);
		assert_int_equal(tlbsim_pgtable_lookup(f.pt, GiB(2) - 1, &m), 0);
		assert_int_equal(m.pfn, 0x40000);
		assert_int_equal(m.size_shift, 30);
		assert_int_equal(m.level, 2);
		assert_int_equal(m.prot, R | X | G);
		assert_int_equal(m.table_pfn, 2);
		assert_int_equal(tlbsim_pgtable_lookup(f.pt, GiB(2), &m), -TLBSIM_ENOENT);
		unmake(&f);
	}
}

static void overlapping_maps_are_refused(void **state)
{
	struct fixture f = make(TLBSIM_ISA_X86_64, 4);
	uint64_t tables;

	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(2), 0x200, 21, U), 0);
	assert_int_equal(tlbsim_pgtable_map(f.pt, GiB(1), 0x40000, 30, U), 0);
	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(4), 0x1234, 12, U), 0);
	tables = tlbsim_pgtable_nr_tables(f.pt); /* root, PDPT, PD, PT = 4 */
	assert_int_equal(tables, 4);

	/* The same 4K page again. */
	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(4), 0x1, 12, U), -TLBSIM_EEXIST);
	/* A 4K page inside the 2M leaf, and inside the 1G leaf. */
	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(3), 0x1, 12, U), -TLBSIM_EEXIST);
	assert_int_equal(tlbsim_pgtable_map(f.pt, GiB(1) + MiB(6), 0x1, 12, U), -TLBSIM_EEXIST);
	/* A 2M page inside the 1G leaf, and over the 2M leaf. */
	assert_int_equal(tlbsim_pgtable_map(f.pt, GiB(1) + MiB(2), 0x200, 21, U), -TLBSIM_EEXIST);
	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(2), 0x400, 21, U), -TLBSIM_EEXIST);
	/* A 2M page where the PT of the 4K page is. */
	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(4), 0x400, 21, U), -TLBSIM_EEXIST);
	/* A 1G page over the PD holding all that. */
	assert_int_equal(tlbsim_pgtable_map(f.pt, 0, 0x80000, 30, U), -TLBSIM_EEXIST);
	/* Even an empty table is in the way of a large page. */
	assert_int_equal(tlbsim_pgtable_unmap(f.pt, MiB(4), NULL), 0);
	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(4), 0x400, 21, U), -TLBSIM_EEXIST);
	/* None of that allocated a table. */
	assert_int_equal(tlbsim_pgtable_nr_tables(f.pt), tables);
	unmake(&f);
}

static void bad_arguments_are_refused(void **state)
{
	struct fixture f = make(TLBSIM_ISA_X86_64, 4);
	struct fixture a = make(TLBSIM_ISA_ARM64, 4);

	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(4) + 0x800, 1, 12, U), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(4) + KiB(4), 0x200, 21, U),
			 -TLBSIM_EINVAL); /* VA not 2M-aligned */
	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(4), 0x201, 21, U),
			 -TLBSIM_EINVAL); /* frame not 2M-aligned (512 frames) */
	assert_int_equal(tlbsim_pgtable_map(f.pt, GiB(1), 0x200, 30, U),
			 -TLBSIM_EINVAL); /* frame not 1G-aligned (2^18 frames) */
	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(4), 1, 13, U), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(4), 1, 39, U), -TLBSIM_EINVAL);
	/* 4-level user range is below 2^47; the last page below is fine. */
	assert_int_equal(tlbsim_pgtable_map(f.pt, 1ull << 47, 1, 12, U), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_pgtable_map(f.pt, (1ull << 47) - KiB(4), 1, 12, U), 0);
	/* Frames the descriptor cannot hold: x86 >= 2^40, arm64 >= 2^36. */
	assert_int_equal(tlbsim_pgtable_map(f.pt, 0, 1ull << 40, 12, U), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_pgtable_map(a.pt, 0, 1ull << 36, 12, U), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_pgtable_map(a.pt, 0, (1ull << 36) - 1, 12, U), 0);
	/* Only the one valid map above created tables (root + 3). */
	assert_int_equal(tlbsim_pgtable_nr_tables(f.pt), 4);
	assert_int_equal(tlbsim_pgtable_free_tables(f.pt, 5, 5, NULL, NULL), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_pgtable_free_tables(f.pt, 6, 5, NULL, NULL), -TLBSIM_EINVAL);
	unmake(&f);
	unmake(&a);
}

static void unmap_returns_the_old_mapping(void **state)
{
	struct fixture f = make(TLBSIM_ISA_X86_64, 4);
	struct tlbsim_mapping old, m;

	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(2), 0x200, 21, W), 0);
	assert_int_equal(tlbsim_pgtable_unmap(f.pt, MiB(3) + 5, &old), 0);
	assert_int_equal(old.pfn, 0x200);
	assert_int_equal(old.size_shift, 21);
	assert_int_equal(old.prot, R | W);
	assert_int_equal(old.level, 1);
	assert_int_equal(old.table_pfn, 3); /* PD: frame 3 after PDPT 2 */
	assert_int_equal(tlbsim_pgtable_lookup(f.pt, MiB(2), &m), -TLBSIM_ENOENT);
	assert_int_equal(tlbsim_pgtable_unmap(f.pt, MiB(2), &old), -TLBSIM_ENOENT);
	assert_int_equal(tlbsim_pgtable_unmap(f.pt, 1ull << 50, NULL), -TLBSIM_ENOENT);
	/* Tables stay until free_tables: root, PDPT, PD. */
	assert_int_equal(tlbsim_pgtable_nr_tables(f.pt), 3);
	/* The slot is free again for a page of any size. */
	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(2), 0x1, 12, W), 0);
	unmake(&f);
}

static void every_write_gets_a_new_version(void **state)
{
	struct fixture f = make(TLBSIM_ISA_X86_64, 4);
	struct tlbsim_mapping m;
	uint64_t version;
	uint64_t raw;

	/*
	 * Writes of the first map: link PDPT (1), link PD (2), link PT (3),
	 * the leaf (4).  Creating the tree wrote nothing.
	 */
	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(4), 0x1234, 12, W | U), 0);
	assert_int_equal(tlbsim_physmem_read_desc(f.pm, 1, 0, &raw, &version), 0);
	assert_int_equal(version, 1);
	assert_int_equal(tlbsim_physmem_read_desc(f.pm, 3, 2, &raw, &version), 0);
	assert_int_equal(version, 3);
	assert_int_equal(tlbsim_pgtable_lookup(f.pt, MiB(4), &m), 0);
	assert_int_equal(m.version, 4);
	/* protect: 5; unmap: the old leaf had 5, the cleared slot gets 6. */
	assert_int_equal(tlbsim_pgtable_protect(f.pt, MiB(4), U), 0);
	assert_int_equal(tlbsim_pgtable_lookup(f.pt, MiB(4), &m), 0);
	assert_int_equal(m.version, 5);
	assert_int_equal(tlbsim_pgtable_unmap(f.pt, MiB(4), &m), 0);
	assert_int_equal(m.version, 5);
	assert_int_equal(tlbsim_physmem_read_desc(f.pm, 4, 0, &raw, &version), 0);
	assert_int_equal(raw, 0);
	assert_int_equal(version, 6);
	/* Remapping reuses the tables: one write, 7. */
	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(4), 0x1234, 12, W | U), 0);
	assert_int_equal(tlbsim_pgtable_lookup(f.pt, MiB(4), &m), 0);
	assert_int_equal(m.version, 7);
	unmake(&f);
}

static void protect_keeps_the_frame_and_changes_the_bits(void **state)
{
	struct fixture f = make(TLBSIM_ISA_X86_64, 4);
	struct fixture a = make(TLBSIM_ISA_ARM64, 4);
	struct tlbsim_mapping m;

	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(4), 0x1234, 12, W | U), 0);
	assert_int_equal(tlbsim_pgtable_protect(f.pt, MiB(4) + 16, X | U), 0);
	/* Read-only executable user page: P 0x1 + U/S 0x4 + A 0x20 = 0x25, NX clear. */
	assert_int_equal(desc(&f, 4, 0), 0x0000000001234025ull);
	assert_int_equal(tlbsim_pgtable_lookup(f.pt, MiB(4), &m), 0);
	assert_int_equal(m.pfn, 0x1234);
	assert_int_equal(m.prot, R | X | U);

	/* A 2M leaf stays a 2M leaf (PS kept): P + A + PS = 0xa1, NX set. */
	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(2), 0x200, 21, W), 0);
	assert_int_equal(tlbsim_pgtable_protect(f.pt, MiB(2), 0), 0);
	assert_int_equal(desc(&f, 3, 1), 0x80000000002000a1ull);
	assert_int_equal(tlbsim_pgtable_lookup(f.pt, MiB(3), &m), 0);
	assert_int_equal(m.size_shift, 21);
	assert_int_equal(m.prot, R);
	assert_int_equal(tlbsim_pgtable_protect(f.pt, MiB(8), W), -TLBSIM_ENOENT);

	/* arm64: user RW page made user read-only executable, as in test_pte.c. */
	assert_int_equal(tlbsim_pgtable_map(a.pt, MiB(4), 0x1234, 12, W | U), 0);
	assert_int_equal(tlbsim_pgtable_protect(a.pt, MiB(4), X | U), 0);
	assert_int_equal(desc(&a, 4, 0), 0x0020000001234fc3ull);
	assert_int_equal(tlbsim_pgtable_lookup(a.pt, MiB(4), &m), 0);
	assert_int_equal(m.pfn, 0x1234);
	assert_int_equal(m.prot, R | X | U);
	unmake(&f);
	unmake(&a);
}

static void free_tables_unlinks_empty_tables_deepest_first(void **state)
{
	enum tlbsim_isa isas[] = {TLBSIM_ISA_X86_64, TLBSIM_ISA_ARM64};

	for (unsigned i = 0; i < 2; i++) {
		struct fixture f = make(isas[i], 4);
		struct freed fr = {0};

		/* Frames: root 1, PDPT 2, PD 3, PT 4. */
		assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(4), 0x1234, 12, W | U), 0);
		assert_int_equal(tlbsim_pgtable_unmap(f.pt, MiB(4), NULL), 0);
		/*
		 * [0, 1 GiB): the PT spans [4, 6) MiB and the PD [0, 1) GiB,
		 * both inside; the PDPT spans [0, 512) GiB, not inside.
		 */
		assert_int_equal(tlbsim_pgtable_free_tables(f.pt, 0, GiB(1), record_free, &fr), 2);
		assert_int_equal(fr.n, 2);
		assert_int_equal(fr.pfn[0], 4);
		assert_int_equal(fr.level[0], 0);
		assert_int_equal(fr.va[0], MiB(4));
		assert_int_equal(fr.pfn[1], 3);
		assert_int_equal(fr.level[1], 1);
		assert_int_equal(fr.va[1], 0);
		assert_int_equal(tlbsim_pgtable_nr_tables(f.pt), 2);
		/* The receiver owns the frames: still allocated tables, unlinked. */
		assert_int_equal(tlbsim_physmem_kind(f.pm, 4), TLBSIM_FRAME_TABLE);
		assert_int_equal(tlbsim_physmem_nr_used(f.pm, TLBSIM_FRAME_TABLE), 4);
		assert_int_equal(desc(&f, 2, 0), 0);

		/* [0, 512 GiB) covers the PDPT now; never the root. */
		assert_int_equal(tlbsim_pgtable_free_tables(f.pt, 0, GiB(512), record_free, &fr),
				 1);
		assert_int_equal(fr.n, 3);
		assert_int_equal(fr.pfn[2], 2);
		assert_int_equal(fr.level[2], 2);
		assert_int_equal(fr.va[2], 0);
		assert_int_equal(tlbsim_pgtable_nr_tables(f.pt), 1);
		assert_int_equal(tlbsim_pgtable_free_tables(f.pt, 0, 1ull << 47, NULL, NULL), 0);
		for (unsigned k = 0; k < fr.n; k++)
			assert_int_equal(tlbsim_physmem_free(f.pm, fr.pfn[k]), 0);
		unmake(&f);
	}
}

static void free_tables_leaves_tables_partly_outside_the_range(void **state)
{
	struct fixture f = make(TLBSIM_ISA_X86_64, 4);

	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(4), 0x1234, 12, W | U), 0);
	assert_int_equal(tlbsim_pgtable_unmap(f.pt, MiB(4), NULL), 0);
	/* [0, 5 MiB) cuts the PT's span [4, 6) MiB: nothing is unlinked. */
	assert_int_equal(tlbsim_pgtable_free_tables(f.pt, 0, MiB(5), NULL, NULL), 0);
	/* [5 MiB, 1 GiB) too: it misses the PT's first half, and the PD's [0, 4) MiB. */
	assert_int_equal(tlbsim_pgtable_free_tables(f.pt, MiB(5), GiB(1), NULL, NULL), 0);
	assert_int_equal(tlbsim_pgtable_nr_tables(f.pt), 4);
	/* Exactly [4, 6) MiB: the PT only; the PD spans more. */
	assert_int_equal(tlbsim_pgtable_free_tables(f.pt, MiB(4), MiB(6), NULL, NULL), 1);
	assert_int_equal(tlbsim_pgtable_nr_tables(f.pt), 3);
	assert_int_equal(tlbsim_physmem_nr_used(f.pm, TLBSIM_FRAME_TABLE), 3);
	unmake(&f);
}

static void free_tables_keeps_tables_that_still_map_something(void **state)
{
	struct fixture f = make(TLBSIM_ISA_X86_64, 4);
	struct tlbsim_mapping m;

	/* Frames: PDPT 2, PD 3, PT for 4 MiB 4, PT for 6 MiB 5. */
	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(4), 0x10, 12, U), 0);
	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(6), 0x11, 12, U), 0);
	assert_int_equal(tlbsim_pgtable_map(f.pt, GiB(1), 0x40000, 30, U), 0);
	assert_int_equal(tlbsim_pgtable_unmap(f.pt, MiB(4), NULL), 0);
	/*
	 * Over the whole user range: the PT of 4 MiB is empty and goes; the
	 * PD still holds the PT of 6 MiB, the PDPT the PD and the 1G leaf.
	 */
	assert_int_equal(tlbsim_pgtable_free_tables(f.pt, 0, 1ull << 47, NULL, NULL), 1);
	assert_int_equal(tlbsim_pgtable_nr_tables(f.pt), 4);
	assert_int_equal(tlbsim_pgtable_lookup(f.pt, MiB(6), &m), 0);
	assert_int_equal(m.pfn, 0x11);
	assert_int_equal(tlbsim_pgtable_lookup(f.pt, GiB(1), &m), 0);
	/* A 2M leaf keeps its PD too. */
	assert_int_equal(tlbsim_pgtable_map(f.pt, GiB(600), 0x200, 21, U), 0);
	assert_int_equal(tlbsim_pgtable_free_tables(f.pt, GiB(512), GiB(1024), NULL, NULL), 0);
	unmake(&f);
}

static void freed_tables_are_reused_first(void **state)
{
	struct fixture f = make(TLBSIM_ISA_X86_64, 4);

	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(4), 0x1234, 12, W | U), 0);
	assert_int_equal(tlbsim_pgtable_unmap(f.pt, MiB(4), NULL), 0);
	/*
	 * With no receiver the PT (frame 4) is freed, then the PD (3), then
	 * the PDPT (2): the free stack's top is 2, then 3, then 4.
	 */
	assert_int_equal(tlbsim_pgtable_free_tables(f.pt, 0, GiB(512), NULL, NULL), 3);
	assert_int_equal(tlbsim_physmem_nr_used(f.pm, TLBSIM_FRAME_TABLE), 1);
	/* Mapping again allocates PDPT, PD, PT in that order: frames 2, 3, 4. */
	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(4), 0x1234, 12, W | U), 0);
	assert_int_equal(desc(&f, 1, 0), 0x2027);
	assert_int_equal(desc(&f, 2, 0), 0x3027);
	assert_int_equal(desc(&f, 3, 2), 0x4027);
	for (uint64_t pfn = 2; pfn <= 4; pfn++)
		assert_int_equal(tlbsim_physmem_generation(f.pm, pfn), 2);
	assert_int_equal(tlbsim_physmem_generation(f.pm, 1), 1); /* the root stayed */
	unmake(&f);
}

static void free_tables_in_5_level_tree_reaches_the_pml4(void **state)
{
	struct fixture f = make(TLBSIM_ISA_X86_64, 5);
	struct freed fr = {0};

	/* Frames: PML5 1, PML4 2, PDPT 3, PD 4, PT 5. */
	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(4), 0x1234, 12, W | U), 0);
	assert_int_equal(tlbsim_pgtable_unmap(f.pt, MiB(4), NULL), 0);
	/* A PML4 spans 2^48 bytes (256 TiB): all four go, deepest first. */
	assert_int_equal(tlbsim_pgtable_free_tables(f.pt, 0, 1ull << 48, record_free, &fr), 4);
	for (unsigned k = 0; k < 4; k++) {
		assert_int_equal(fr.level[k], k);
		assert_int_equal(fr.pfn[k], 5 - k);
		assert_int_equal(fr.va[k], k == 0 ? MiB(4) : 0);
		assert_int_equal(tlbsim_physmem_free(f.pm, fr.pfn[k]), 0);
	}
	assert_int_equal(tlbsim_pgtable_nr_tables(f.pt), 1);
	unmake(&f);
}

static void destroy_frees_table_frames_only(void **state)
{
	tlbsim_physmem *pm = tlbsim_physmem_create(64);
	tlbsim_pgtable *pt = tlbsim_pgtable_create(pm, TLBSIM_ISA_ARM64, 4);
	uint64_t data;

	assert_int_equal(tlbsim_physmem_alloc(pm, TLBSIM_FRAME_DATA, &data), 0);
	assert_int_equal(tlbsim_pgtable_map(pt, MiB(4), data, 12, W | U), 0);
	assert_int_equal(tlbsim_pgtable_map(pt, GiB(512), data, 12, W | U), 0);
	/* 1 root + 3 + 3 tables. */
	assert_int_equal(tlbsim_physmem_nr_used(pm, TLBSIM_FRAME_TABLE), 7);
	tlbsim_pgtable_destroy(pt);
	assert_int_equal(tlbsim_physmem_nr_used(pm, TLBSIM_FRAME_TABLE), 0);
	assert_int_equal(tlbsim_physmem_nr_used(pm, TLBSIM_FRAME_DATA), 1);
	assert_int_equal(tlbsim_physmem_kind(pm, data), TLBSIM_FRAME_DATA);
	tlbsim_physmem_destroy(pm);
}

static void map_out_of_frames_leaves_empty_tables_to_free(void **state)
{
	tlbsim_physmem *pm = tlbsim_physmem_create(3);
	tlbsim_pgtable *pt = tlbsim_pgtable_create(pm, TLBSIM_ISA_X86_64, 4);
	struct tlbsim_mapping m;

	/* 3 frames: root 1, PDPT 2, PD 3; the PT finds none left. */
	assert_int_equal(tlbsim_pgtable_map(pt, MiB(4), 0x1234, 12, U), -TLBSIM_ENOMEM);
	assert_int_equal(tlbsim_pgtable_lookup(pt, MiB(4), &m), -TLBSIM_ENOENT);
	assert_int_equal(tlbsim_pgtable_nr_tables(pt), 3);
	/* A 1G page needs only the PDPT that is there. */
	assert_int_equal(tlbsim_pgtable_map(pt, GiB(1), 0x40000, 30, U), 0);
	/* The empty PD ([0, 1 GiB)) can be unlinked; the PDPT holds the 1G page. */
	assert_int_equal(tlbsim_pgtable_free_tables(pt, 0, 1ull << 47, NULL, NULL), 1);
	/* That gave frame 3 back: a 2M page gets its PD there (LIFO reuse)... */
	assert_int_equal(tlbsim_pgtable_map(pt, MiB(2), 0x200, 21, U), 0);
	assert_int_equal(tlbsim_pgtable_lookup(pt, MiB(2), &m), 0);
	assert_int_equal(m.table_pfn, 3);
	/* ... and a 4K page next to it, needing a PT, finds no frame again. */
	assert_int_equal(tlbsim_pgtable_map(pt, MiB(4), 0x1234, 12, U), -TLBSIM_ENOMEM);
	assert_int_equal(tlbsim_pgtable_nr_tables(pt), 3);
	tlbsim_pgtable_destroy(pt);
	assert_int_equal(tlbsim_physmem_nr_used(pm, TLBSIM_FRAME_TABLE), 0);
	tlbsim_physmem_destroy(pm);
}

static void lookup_sees_descriptors_written_raw(void **state)
{
	struct fixture f = make(TLBSIM_ISA_ARM64, 4);
	struct tlbsim_mapping m;

	assert_int_equal(tlbsim_pgtable_map(f.pt, MiB(4), 0x1234, 12, W | U), 0);
	/* A trace rewrites the PTE with AF clear (0xf43 -> 0xb43): it faults. */
	assert_int_equal(tlbsim_physmem_write_desc(f.pm, 4, 0, 0x0060000001234b43ull), 0);
	assert_int_equal(tlbsim_pgtable_lookup(f.pt, MiB(4), &m), -TLBSIM_ENOENT);
	/* ... and back with AF set, to another frame 0x5678. */
	assert_int_equal(tlbsim_physmem_write_desc(f.pm, 4, 0, 0x0060000005678f43ull), 0);
	assert_int_equal(tlbsim_pgtable_lookup(f.pt, MiB(4), &m), 0);
	assert_int_equal(m.pfn, 0x5678);
	/* A table descriptor pointing at a frame that is no table reads as unmapped. */
	assert_int_equal(tlbsim_physmem_write_desc(f.pm, 3, 2, 0x00000000abcde003ull), 0);
	assert_int_equal(tlbsim_pgtable_lookup(f.pt, MiB(4), &m), -TLBSIM_ENOENT);
	/* Put the PT back so destroy finds it. */
	assert_int_equal(tlbsim_physmem_write_desc(f.pm, 3, 2, 0x4003), 0);
	unmake(&f);
}

/*
 * hw_pgtable_map() names the table its leaf went into, as a lookup names
 * it.  4-level, fresh memory: root 1, then PDPT 2, PD 3 and PT 4 for the
 * page at 4 MiB; the 2 MiB page at 2 MiB is a PD entry: table 3.
 */
static void map_names_the_table_of_its_leaf(void **state)
{
	struct fixture f = make(TLBSIM_ISA_X86_64, 4);
	struct tlbsim_mapping m;
	uint64_t table = 0;

	(void)state;
	assert_int_equal(hw_pgtable_map(f.pt, MiB(4), 0x1234, 12, W, NULL, &table), 0);
	assert_int_equal(table, 4);
	assert_int_equal(hw_pgtable_map(f.pt, MiB(2), 0x200, 21, W, NULL, &table), 0);
	assert_int_equal(table, 3);
	assert_int_equal(tlbsim_pgtable_lookup(f.pt, MiB(2) + 5, &m), 0);
	assert_int_equal(m.table_pfn, 3);
	assert_int_equal(tlbsim_pgtable_lookup(f.pt, MiB(4), &m), 0);
	assert_int_equal(m.table_pfn, 4);
	unmake(&f);
}

/* splitmix64 (Steele, Lea, Flood, OOPSLA 2014). */
static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* @a and @b are the same mapping, field by field (not their padding). */
static void assert_same_mapping(const struct tlbsim_mapping *a, const struct tlbsim_mapping *b)
{
	assert_int_equal(a->pfn, b->pfn);
	assert_int_equal(a->size_shift, b->size_shift);
	assert_int_equal(a->prot, b->prot);
	assert_int_equal(a->version, b->version);
	assert_int_equal(a->level, b->level);
	assert_int_equal(a->table_pfn, b->table_pfn);
}

/*
 * hw_pgtable_range_next() with hw_pgtable_range_clear() or _protect()
 * against what they stand for: hw_pgtable_next_leaf(), then
 * tlbsim_pgtable_unmap() or _protect() of the leaf found, on a twin tree
 * built the same way in its own memory (so the same frames and versions).
 * Pages of 4 KiB (dense runs, some across a PT's end, and scattered) and
 * 2 MiB in 16 MiB across the 1 GiB boundary (two PDs); in some trees a
 * PTE written raw that is not present but not 0 (walked from the page
 * before it on), and a PD entry naming a frame that holds no table;
 * walked over random ranges, each leaf cleared (zap), rewritten read-only
 * or writable (mprotect, fork), or left: the same leaves, mappings and
 * page starts, then the same descriptors and versions everywhere.
 */
static void a_range_walk_changes_what_next_leaf_and_unmap_or_protect_change(void **state)
{
	const struct {
		enum tlbsim_isa isa;
		unsigned levels;
		uint64_t absent; /* a leaf that is not present: x86 P clear, arm64 AF clear */
	} trees[] = {{TLBSIM_ISA_X86_64, 4, 0x1234006},
		     {TLBSIM_ISA_X86_64, 5, 0x1234006},
		     {TLBSIM_ISA_ARM64, 4, 0x0060000001234b43ull}};
	const uint64_t lo = GiB(1) - MiB(8);
	uint64_t seed = 29;

	(void)state;
	for (unsigned k = 0; k < 3 * 40; k++) {
		struct fixture a = make(trees[k % 3].isa, trees[k % 3].levels);
		struct fixture b = make(trees[k % 3].isa, trees[k % 3].levels);
		struct hw_pgtable_range z;
		struct tlbsim_mapping ma, mb, pd;
		uint64_t start, end, va, pa, saved = 0;
		unsigned hide = 0;

		/* A 2 MiB page first: its table is the PD of 1 GiB + 2 MiB on. */
		assert_int_equal(tlbsim_pgtable_map(a.pt, GiB(1) + MiB(2), 0x400000, 21, W), 0);
		assert_int_equal(tlbsim_pgtable_map(b.pt, GiB(1) + MiB(2), 0x400000, 21, W), 0);
		assert_int_equal(tlbsim_pgtable_lookup(a.pt, GiB(1) + MiB(2), &pd), 0);
		/* And lo's page. */
		assert_int_equal(tlbsim_pgtable_map(a.pt, lo, 0x800, 12, W), 0);
		assert_int_equal(tlbsim_pgtable_map(b.pt, lo, 0x800, 12, W), 0);
		for (unsigned i = 0; i < 600; i++) {
			uint64_t r = splitmix64(&seed);
			unsigned shift = r % 16 ? 12 : 21;
			uint64_t at =
			    (r >> 8) % 4 ? lo + (r >> 16) % MiB(16) : lo + (uint64_t)i * KiB(4);

			at &= ~((1ull << shift) - 1);
			assert_int_equal(
			    tlbsim_pgtable_map(a.pt, at, 0x1000 + i * 512, shift, W | U),
			    tlbsim_pgtable_map(b.pt, at, 0x1000 + i * 512, shift, W | U));
		}
		if (k % 4 == 1) {
			/* The PTE of lo + 8 KiB, in the PT of lo's page. */
			assert_int_equal(tlbsim_pgtable_lookup(a.pt, lo, &ma), 0);
			assert_int_equal(
			    tlbsim_physmem_write_desc(a.pm, ma.table_pfn, 2, trees[k % 3].absent),
			    0);
			assert_int_equal(
			    tlbsim_physmem_write_desc(b.pm, ma.table_pfn, 2, trees[k % 3].absent),
			    0);
		}
		if (k % 4 == 2) {
			/* The PD entry of 1 GiB + 8 MiB names frame 0xabcde. */
			hide = (unsigned)((GiB(1) + MiB(8)) >> 21) % 512;
			assert_int_equal(
			    tlbsim_physmem_read_desc(a.pm, pd.table_pfn, hide, &saved, NULL), 0);
			assert_int_equal(
			    tlbsim_physmem_write_desc(a.pm, pd.table_pfn, hide, 0xabcde003), 0);
			assert_int_equal(
			    tlbsim_physmem_write_desc(b.pm, pd.table_pfn, hide, 0xabcde003), 0);
		}
		start = k % 4 == 1 ? lo : lo + splitmix64(&seed) % MiB(16);
		end = start + splitmix64(&seed) % MiB(17);
		z = (struct hw_pgtable_range){.va = start, .end = end};
		va = start;
		while (hw_pgtable_range_next(a.pt, &z, &ma, &pa)) {
			uint64_t what = splitmix64(&seed) % (k % 2 ? 4 : 1);

			assert_true(hw_pgtable_next_leaf(b.pt, &va, end, &mb));
			assert_int_equal(pa, va & ~((1ull << mb.size_shift) - 1));
			assert_same_mapping(&ma, &mb);
			if (what == 0) {
				hw_pgtable_range_clear(a.pt, &z);
				assert_int_equal(tlbsim_pgtable_unmap(b.pt, va, NULL), 0);
			} else if (what < 3) {
				/* READ as the OS model passes it: the internal
				 * call takes @prot as given (no READ, WRITE or
				 * EXEC: PROT_NONE), the public one implies READ. */
				unsigned prot = what == 1 ? R | U : W | U;

				hw_pgtable_range_protect(a.pt, &z, prot);
				assert_int_equal(tlbsim_pgtable_protect(b.pt, va, prot), 0);
			}
			va = pa + (1ull << mb.size_shift);
		}
		assert_false(hw_pgtable_next_leaf(b.pt, &va, end, &mb));
		if (hide) {
			assert_int_equal(tlbsim_physmem_write_desc(a.pm, pd.table_pfn, hide, saved),
					 0);
			assert_int_equal(tlbsim_physmem_write_desc(b.pm, pd.table_pfn, hide, saved),
					 0);
		}
		for (uint64_t f = 1; f < 64; f++) {
			for (unsigned i = 0; i < TLBSIM_PTRS_PER_TABLE; i++) {
				uint64_t ra = 0, rb = 0, vera = 0, verb = 0;
				int e = tlbsim_physmem_read_desc(a.pm, f, i, &ra, &vera);

				assert_int_equal(e,
						 tlbsim_physmem_read_desc(b.pm, f, i, &rb, &verb));
				assert_int_equal(ra, rb);
				assert_int_equal(vera, verb);
			}
		}
		unmake(&a);
		unmake(&b);
	}
}

/*
 * A fault's lookup, then its map from where the lookup stopped
 * (hw_pgtable_lookup_hint(), hw_pgtable_map() with the hint), against
 * tlbsim_pgtable_lookup() and a map from the root, on twin trees: pages of
 * 4 KiB and 2 MiB at random in 16 MiB across the 1 GiB boundary (the
 * lookups stop at every level: no PDPT, no PD, no PT, an empty PTE), a
 * 2 MiB map where a PT is in the way (the hint is below the leaf's level),
 * a map after an intervening one that linked tables below the hint, and
 * lookups after a munmap freed tables their walks went through before;
 * then copy-on-write's clear of a leaf found (hw_pgtable_clear_found())
 * against tlbsim_pgtable_unmap(), half of them mapped again from where
 * the clear leaves the walk.  The same results, tables and versions.
 */
static void a_map_from_the_lookups_stop_is_a_map_from_the_root(void **state)
{
	const struct {
		enum tlbsim_isa isa;
		unsigned levels;
	} trees[] = {{TLBSIM_ISA_X86_64, 4}, {TLBSIM_ISA_X86_64, 5}, {TLBSIM_ISA_ARM64, 4}};
	const uint64_t lo = GiB(1) - MiB(8);
	uint64_t seed = 30;

	(void)state;
	for (unsigned k = 0; k < 3 * 10; k++) {
		struct fixture a = make(trees[k % 3].isa, trees[k % 3].levels);
		struct fixture b = make(trees[k % 3].isa, trees[k % 3].levels);
		struct hw_pgtable_memo memo[3] = {{0}};

		for (unsigned i = 0; i < 400; i++) {
			uint64_t r = splitmix64(&seed), va = lo + (r >> 8) % MiB(16);
			unsigned shift = r % 8 ? 12 : 21;
			uint64_t page = va & ~((1ull << shift) - 1), ta = 0, tb = 0;
			struct tlbsim_mapping ma, mb;
			struct hw_pgtable_hint hint;
			int ra;

			if (i % 50 == 49) {
				/* munmap of 4 MiB: its pages, then its tables
				 * go (freed at once, and reused by the maps
				 * that follow): the lookups must not go
				 * through a table they remember there. */
				uint64_t s0 = lo + (r >> 8) % MiB(12), e0 = s0 + MiB(4), at = s0;

				while (hw_pgtable_next_leaf(b.pt, &at, e0, &mb)) {
					assert_int_equal(tlbsim_pgtable_unmap(a.pt, at, NULL), 0);
					assert_int_equal(tlbsim_pgtable_unmap(b.pt, at, NULL), 0);
					at = (at | ((1ull << mb.size_shift) - 1)) + 1;
				}
				assert_int_equal(
				    tlbsim_pgtable_free_tables(a.pt, s0, e0, NULL, NULL),
				    tlbsim_pgtable_free_tables(b.pt, s0, e0, NULL, NULL));
			}
			ra = hw_pgtable_lookup_hint(a.pt, va, &ma, &hint, &memo[r % 3]);

			assert_int_equal(ra, tlbsim_pgtable_lookup(b.pt, va, &mb));
			if (!ra) {
				assert_same_mapping(&ma, &mb);
				if (r % 3 == 0) {
					/* Cleared, then (copy-on-write) mapped
					 * again from where the clear leaves
					 * the walk. */
					uint64_t at = va & ~((1ull << ma.size_shift) - 1);

					hw_pgtable_clear_found(a.pt, at, &ma, &hint);
					assert_int_equal(tlbsim_pgtable_unmap(b.pt, va, NULL), 0);
					if (r % 2)
						continue;
					assert_int_equal(
					    hw_pgtable_map(a.pt, at, 0x7000 + i * 512,
							   ma.size_shift, W | U, &hint, &ta),
					    hw_pgtable_map(b.pt, at, 0x7000 + i * 512,
							   ma.size_shift, W | U, NULL, &tb));
					assert_int_equal(ta, tb);
				}
				continue;
			}
			if (r % 5 == 0) {
				/* Another map first, linking tables below the hint. */
				uint64_t other =
				    (va & ~(MiB(2) - 1)) + ((va + KiB(4)) & (MiB(2) - 1));

				other &= ~(KiB(4) - 1);
				assert_int_equal(
				    tlbsim_pgtable_map(a.pt, other, 0x9000 + i, 12, W),
				    tlbsim_pgtable_map(b.pt, other, 0x9000 + i, 12, W));
			}
			assert_int_equal(
			    hw_pgtable_map(a.pt, page, 0x1000 + i * 512, shift, W | U, &hint, &ta),
			    hw_pgtable_map(b.pt, page, 0x1000 + i * 512, shift, W | U, NULL, &tb));
			assert_int_equal(ta, tb);
		}
		for (uint64_t f = 1; f < 64; f++) {
			for (unsigned i = 0; i < TLBSIM_PTRS_PER_TABLE; i++) {
				uint64_t ra = 0, rb = 0, vera = 0, verb = 0;
				int e = tlbsim_physmem_read_desc(a.pm, f, i, &ra, &vera);

				assert_int_equal(e,
						 tlbsim_physmem_read_desc(b.pm, f, i, &rb, &verb));
				assert_int_equal(ra, rb);
				assert_int_equal(vera, verb);
			}
		}
		assert_int_equal(tlbsim_pgtable_nr_tables(a.pt), tlbsim_pgtable_nr_tables(b.pt));
		unmake(&a);
		unmake(&b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(bad_isa_and_level_combinations_are_refused),
	    cmocka_unit_test(one_4k_page_in_4_level_tree_needs_four_tables),
	    cmocka_unit_test(one_4k_page_in_5_level_tree_needs_five_tables),
	    cmocka_unit_test(one_4k_page_in_arm64_tree_needs_four_tables),
	    cmocka_unit_test(pages_2m_apart_share_pdpt_and_pd),
	    cmocka_unit_test(large_pages_map_and_look_up),
	    cmocka_unit_test(overlapping_maps_are_refused),
	    cmocka_unit_test(bad_arguments_are_refused),
	    cmocka_unit_test(unmap_returns_the_old_mapping),
	    cmocka_unit_test(every_write_gets_a_new_version),
	    cmocka_unit_test(protect_keeps_the_frame_and_changes_the_bits),
	    cmocka_unit_test(free_tables_unlinks_empty_tables_deepest_first),
	    cmocka_unit_test(free_tables_leaves_tables_partly_outside_the_range),
	    cmocka_unit_test(free_tables_keeps_tables_that_still_map_something),
	    cmocka_unit_test(freed_tables_are_reused_first),
	    cmocka_unit_test(free_tables_in_5_level_tree_reaches_the_pml4),
	    cmocka_unit_test(destroy_frees_table_frames_only),
	    cmocka_unit_test(map_out_of_frames_leaves_empty_tables_to_free),
	    cmocka_unit_test(lookup_sees_descriptors_written_raw),
	    cmocka_unit_test(map_names_the_table_of_its_leaf),
	    cmocka_unit_test(a_range_walk_changes_what_next_leaf_and_unmap_or_protect_change),
	    cmocka_unit_test(a_map_from_the_lookups_stop_is_a_map_from_the_root),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
