/* SPDX-License-Identifier: MIT */
/*
 * Differential test of src/hw/pgtable.c against a naive model: random map,
 * unmap, protect, lookup and free_tables of 4 KiB pages, replayed on the
 * radix tree and on a flat array of pages plus a list of linked tables
 * (SQLite's bitvec test style).  Deterministic: splitmix64 (Steele, Lea,
 * Flood, OOPSLA 2014) from a fixed seed.
 *
 * The 256 page slots are spread so that tables fill and empty often: 8
 * slots in each of 32 PTs, 4 PTs in each of 8 PDs, 4 PDs on each side of
 * the 512 GiB boundary (two PML4 or Arm level-0 entries, two PDPTs).
 *
 * The model's table rule comes straight from the API contract: a map links
 * every missing table on its path; free_tables unlinks a linked table iff
 * its span lies inside the range and no page in that span is mapped (its
 * descendants are then inside the range and empty too, so they go first).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tlbsim/error.h"
#include "tlbsim/pgtable.h"

#define WINDOW_PAGES 256u /* page slots */
#define NR_OPS 20000u
#define CHECK_EVERY 500u
#define MAX_TABLES 64u /* more than the slots can need: 32 PTs + 8 PDs + 2 PDPTs + 1 PML4 */

struct page_model {
	int mapped;
	uint64_t pfn;
	unsigned prot;
};

/* A linked non-root table: covers [base, base + 2^span_shift). */
struct table_model {
	unsigned span_shift;
	uint64_t base;
};

struct model {
	struct page_model page[WINDOW_PAGES];
	struct table_model table[MAX_TABLES];
	unsigned nr_tables; /* linked, root excluded */
	unsigned levels;
	uint64_t max_version;
};

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * Slot @i: bits 0-2 pick the page in its PT (37 pages apart, within the
 * 2 MiB), bits 3-4 the PT (97 x 2 MiB apart, within the 1 GiB), bits 5-6
 * the PD, bit 7 the side of 2^39: [2^39 - 4 GiB, 2^39) or [2^39, 2^39 + 4 GiB).
 */
static uint64_t page_va(unsigned i)
{
	uint64_t side = (i >> 7) & 1 ? 1ull << 39 : (1ull << 39) - (4ull << 30);

	return side + (uint64_t)((i >> 5) & 3) * (1ull << 30) +
	       (uint64_t)((i >> 3) & 3) * 97 * (1ull << 21) + (uint64_t)(i & 7) * 37 * 4096;
}

/* Tables below the root: level l spans 2^(21 + 9l) bytes, l = 0..levels-2. */
static void model_link_path(struct model *m, uint64_t va)
{
	for (unsigned l = 0; l + 1 < m->levels; l++) {
		unsigned shift = 21 + 9 * l;
		uint64_t base = va >> shift << shift;
		unsigned k;

		for (k = 0; k < m->nr_tables; k++)
			if (m->table[k].span_shift == shift && m->table[k].base == base)
				break;
		if (k == m->nr_tables) {
			assert_true(m->nr_tables < MAX_TABLES);
			m->table[m->nr_tables++] = (struct table_model){shift, base};
		}
	}
}

static int model_span_has_pages(const struct model *m, uint64_t base, uint64_t end)
{
	for (unsigned i = 0; i < WINDOW_PAGES; i++)
		if (m->page[i].mapped && page_va(i) >= base && page_va(i) < end)
			return 1;
	return 0;
}

static int model_free_tables(struct model *m, uint64_t start, uint64_t end)
{
	int freed = 0;

	for (unsigned k = 0; k < m->nr_tables;) {
		uint64_t base = m->table[k].base;
		uint64_t span_end = base + (1ull << m->table[k].span_shift);

		if (base >= start && span_end <= end && !model_span_has_pages(m, base, span_end)) {
			m->table[k] = m->table[--m->nr_tables];
			freed++;
		} else {
			k++;
		}
	}
	return freed;
}

static void check_lookup(const struct model *m, tlbsim_pgtable *pt, unsigned i)
{
	struct tlbsim_mapping got;
	int err = tlbsim_pgtable_lookup(pt, page_va(i) + (i % 4096), &got);

	if (!m->page[i].mapped) {
		assert_int_equal(err, -TLBSIM_ENOENT);
		return;
	}
	assert_int_equal(err, 0);
	assert_int_equal(got.pfn, m->page[i].pfn);
	assert_int_equal(got.prot, m->page[i].prot);
	assert_int_equal(got.size_shift, 12);
	assert_int_equal(got.level, 0);
}

/* After map or protect: the leaf carries a version newer than any seen. */
static void check_new_version(struct model *m, tlbsim_pgtable *pt, unsigned i)
{
	struct tlbsim_mapping got;

	assert_int_equal(tlbsim_pgtable_lookup(pt, page_va(i), &got), 0);
	assert_true(got.version > m->max_version);
	m->max_version = got.version;
}

static void check_all(const struct model *m, tlbsim_physmem *pm, tlbsim_pgtable *pt)
{
	for (unsigned i = 0; i < WINDOW_PAGES; i++)
		check_lookup(m, pt, i);
	assert_int_equal(tlbsim_pgtable_nr_tables(pt), 1 + m->nr_tables);
	assert_int_equal(tlbsim_physmem_nr_used(pm, TLBSIM_FRAME_TABLE), 1 + m->nr_tables);
}

/*
 * A range for free_tables: half the time starting near a slot, and a third
 * of the time up to 8 MiB long in 4K steps, so that it often cuts a table's
 * span at either end (a PT or PD partly inside must stay); otherwise ends
 * are aligned to 4K..512G.
 */
static void random_range(uint64_t *seed, uint64_t *start, uint64_t *end)
{
	static const uint64_t length[] = {1ull << 12, 1ull << 21, 1ull << 22, 1ull << 30,
					  1ull << 31, 1ull << 39, 1ull << 40};
	unsigned a = 12 + 9 * (unsigned)(splitmix64(seed) % 4);
	uint64_t s;

	if (splitmix64(seed) % 2)
		s = page_va((unsigned)(splitmix64(seed) % WINDOW_PAGES)) -
		    (splitmix64(seed) % 1024) * 4096;
	else
		s = (1ull << 39) - (5ull << 30) + splitmix64(seed) % (10ull << 30);
	*start = s >> a << a;
	if (splitmix64(seed) % 3 == 0)
		*end = *start + (1 + splitmix64(seed) % 2048) * 4096;
	else
		*end = *start + length[splitmix64(seed) % 7] * (1 + splitmix64(seed) % 3);
}

static void run(enum tlbsim_isa isa, unsigned levels, uint64_t seed)
{
	tlbsim_physmem *pm = tlbsim_physmem_create(1u << 16);
	tlbsim_pgtable *pt = tlbsim_pgtable_create(pm, isa, levels);
	static struct model m;

	assert_non_null(pt);
	m = (struct model){.levels = levels};
	for (unsigned op = 0; op < NR_OPS; op++) {
		/* Alternate map-heavy and unmap-heavy phases so tables fill and empty. */
		unsigned map_pct = (op / 2000) % 2 ? 20 : 60;
		unsigned r = (unsigned)(splitmix64(&seed) % 100);
		unsigned i = (unsigned)(splitmix64(&seed) % WINDOW_PAGES);
		struct page_model *p = &m.page[i];

		if (r < map_pct) {
			uint64_t pfn = 1 + splitmix64(&seed) % (1u << 20);
			unsigned prot = (unsigned)(splitmix64(&seed) % 32);
			int err = tlbsim_pgtable_map(pt, page_va(i), pfn, 12, prot);

			if (p->mapped) {
				assert_int_equal(err, -TLBSIM_EEXIST);
			} else {
				assert_int_equal(err, 0);
				*p = (struct page_model){1, pfn, prot | TLBSIM_PROT_READ};
				model_link_path(&m, page_va(i));
				check_new_version(&m, pt, i);
			}
		} else if (r < 85) {
			struct tlbsim_mapping old;
			int err = tlbsim_pgtable_unmap(pt, page_va(i) + 123, &old);

			if (!p->mapped) {
				assert_int_equal(err, -TLBSIM_ENOENT);
			} else {
				assert_int_equal(err, 0);
				assert_int_equal(old.pfn, p->pfn);
				assert_int_equal(old.prot, p->prot);
				p->mapped = 0;
			}
		} else if (r < 92) {
			unsigned prot = (unsigned)(splitmix64(&seed) % 32);
			int err = tlbsim_pgtable_protect(pt, page_va(i), prot);

			if (!p->mapped) {
				assert_int_equal(err, -TLBSIM_ENOENT);
			} else {
				assert_int_equal(err, 0);
				p->prot = prot | TLBSIM_PROT_READ;
				check_new_version(&m, pt, i);
			}
		} else if (r < 97) {
			check_lookup(&m, pt, i);
		} else {
			uint64_t start, end;

			random_range(&seed, &start, &end);
			assert_int_equal(tlbsim_pgtable_free_tables(pt, start, end, NULL, NULL),
					 model_free_tables(&m, start, end));
		}
		check_lookup(&m, pt, i);
		if (op % CHECK_EVERY == CHECK_EVERY - 1)
			check_all(&m, pm, pt);
	}
	/* Everything unmapped and freed: only the root is left. */
	for (unsigned i = 0; i < WINDOW_PAGES; i++)
		if (m.page[i].mapped)
			assert_int_equal(tlbsim_pgtable_unmap(pt, page_va(i), NULL), 0);
	assert_int_equal(tlbsim_pgtable_free_tables(pt, 0, 1ull << 56, NULL, NULL), m.nr_tables);
	assert_int_equal(tlbsim_pgtable_nr_tables(pt), 1);
	tlbsim_pgtable_destroy(pt);
	assert_int_equal(tlbsim_physmem_nr_used(pm, TLBSIM_FRAME_TABLE), 0);
	tlbsim_physmem_destroy(pm);
}

static void x86_4_level_tree_matches_flat_model(void **state)
{
	run(TLBSIM_ISA_X86_64, 4, 0x7106);
}

static void x86_5_level_tree_matches_flat_model(void **state)
{
	run(TLBSIM_ISA_X86_64, 5, 0x7105);
}

static void arm64_tree_matches_flat_model(void **state)
{
	run(TLBSIM_ISA_ARM64, 4, 0xa64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(x86_4_level_tree_matches_flat_model),
	    cmocka_unit_test(x86_5_level_tree_matches_flat_model),
	    cmocka_unit_test(arm64_tree_matches_flat_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
