/* SPDX-License-Identifier: MIT */
/*
 * Radix page tables written into simulated physical memory, in the ISA's
 * own descriptor format (src/hw/pte.c): what the OS model edits and the
 * hardware walker reads.
 *
 * The editing rules follow Linux mm/memory.c and mm/pgtable-generic.c:
 * intermediate tables are allocated zeroed and linked before the leaf is
 * written below them (__pte_alloc: a new table is complete, all entries
 * not-present, when its parent descriptor publishes it; docs/hazard-rules.md test
 * 5); emptied tables stay linked until free_pgd_range() unlinks them, deepest
 * first, and hands them to the flush policy, which frees them only after
 * the invalidations it needs (docs/hazard-rules.md rules 1, 12, 13).
 *
 * Only the user half of the address space is modelled: x86-64 VAs below
 * 2^47 (4-level) or 2^56 (5-level), SDM vol. 3A 4.5; arm64 TTBR0_EL1 VAs
 * below 2^48 (T0SZ = 16), Arm ARM D8.1.
 */
#include <assert.h>
#include <stdlib.h>

#include "hw/observe.h"
#include "hw/physmem.h"
#include "hw/pgtable_internal.h"
#include "hw/pte.h"
#include "tlbsim/error.h"

/* Leaves exist at levels 0..2: 4 KiB, 2 MiB, 1 GiB. */
#define MAX_LEAF_LEVEL 2

/**
 * struct tlbsim_pgtable - one address space's tables
 * @pm: physical memory holding the tables (borrowed)
 * @isa: descriptor format
 * @levels: depth; the root is a level @levels - 1 table
 * @root: frame of the root table
 * @va_limit: first VA above the user range, bytes
 * @nr_tables: table frames linked by map and not yet unlinked, root included
 * @unlinks: tables free_tables unlinked so far: a table a walk found
 *        stays on that path while it is unchanged (maps link tables into
 *        empty entries only; the other edits write leaves), which is what
 *        a struct hw_pgtable_memo relies on
 */
struct tlbsim_pgtable {
	tlbsim_physmem *pm;
	enum tlbsim_isa isa;
	unsigned levels;
	uint64_t root;
	uint64_t va_limit;
	uint64_t nr_tables;
	uint64_t unlinks;
};

/*
 * A leaf found by walk(): @t/@table_pfn hold it at @index, @level is its
 * level, @pte its decoded value.
 */
struct walk_result {
	struct hw_table_page *t;
	uint64_t table_pfn;
	unsigned index;
	unsigned level;
	struct hw_pte pte;
};

/* Frames the ISA can name: x86 address bits 12..51, arm64 12..47. */
static uint64_t pfn_limit(enum tlbsim_isa isa)
{
	return isa == TLBSIM_ISA_X86_64 ? 1ull << 40 : 1ull << 36;
}

/*
 * The leaf mapping @va, by a cache-less walk from the root.  A table
 * descriptor naming a frame that holds no table (possible only after raw
 * descriptor writes) ends the walk as "not mapped": the simulator does not
 * model the contents of data frames.
 */
static int walk(const tlbsim_pgtable *pt, uint64_t va, struct walk_result *w)
{
	uint64_t table_pfn = pt->root;

	if (va >= pt->va_limit)
		return -TLBSIM_ENOENT;
	for (unsigned level = pt->levels; level-- > 0;) {
		struct hw_table_page *t = hw_physmem_table(pt->pm, table_pfn);
		unsigned index = hw_pte_index(va, level);

		if (!t)
			return -TLBSIM_ENOENT;
		if (hw_pte_table(pt->isa, level, t->raw[index], &table_pfn))
			continue;
		hw_pte_decode(pt->isa, level, t->raw[index], &w->pte);
		if (!w->pte.present)
			return -TLBSIM_ENOENT;
		if (w->pte.leaf) {
			w->t = t;
			w->table_pfn = table_pfn;
			w->index = index;
			w->level = level;
			return 0;
		}
		table_pfn = w->pte.pfn;
	}
	return -TLBSIM_ENOENT; /* not reached: level-0 descriptors are leaves */
}

static void fill_mapping(const struct walk_result *w, struct tlbsim_mapping *out)
{
	out->pfn = w->pte.pfn;
	out->size_shift = hw_level_shift(w->level);
	out->prot = w->pte.prot;
	out->version = w->t->version[w->index];
	out->level = w->level;
	out->table_pfn = w->table_pfn;
}

tlbsim_pgtable *tlbsim_pgtable_create(tlbsim_physmem *pm, enum tlbsim_isa isa, unsigned levels)
{
	tlbsim_pgtable *pt;

	if (!pm)
		return NULL;
	if (!(isa == TLBSIM_ISA_X86_64 && (levels == 4 || levels == 5)) &&
	    !(isa == TLBSIM_ISA_ARM64 && levels == 4))
		return NULL;
	pt = calloc(1, sizeof(*pt));
	if (!pt)
		return NULL;
	if (tlbsim_physmem_alloc(pm, TLBSIM_FRAME_TABLE, &pt->root)) {
		free(pt);
		return NULL;
	}
	pt->pm = pm;
	pt->isa = isa;
	pt->levels = levels;
	HW_OBSERVE(hw_physmem_observer(pm), table_new, hw_physmem_table(pm, pt->root), levels - 1,
		   true);
	/* x86: the lower half of a 48- or 57-bit canonical space; arm64: T0SZ = 16. */
	if (isa == TLBSIM_ISA_X86_64)
		pt->va_limit = levels == 5 ? 1ull << 56 : 1ull << 47;
	else
		pt->va_limit = 1ull << 48;
	pt->nr_tables = 1;
	return pt;
}

/* Free table frame @pfn: it is allocated, since it holds a table. */
static void release_table(tlbsim_pgtable *pt, uint64_t pfn)
{
	int err = tlbsim_physmem_free(pt->pm, pfn);

	assert(err == 0 && "a frame holding a table is allocated");
	(void)err;
}

/* Free table @pfn at @level and every table reachable below it. */
static void free_subtree(tlbsim_pgtable *pt, uint64_t pfn, unsigned level)
{
	struct hw_table_page *t = hw_physmem_table(pt->pm, pfn);

	if (!t)
		return;
	for (unsigned i = 0; level > 0 && i < TLBSIM_PTRS_PER_TABLE; i++) {
		struct hw_pte pte;

		hw_pte_decode(pt->isa, level, t->raw[i], &pte);
		if (pte.present && !pte.leaf)
			free_subtree(pt, pte.pfn, level - 1);
	}
	/*
	 * A frame reached twice (raw writes can link a table twice) is seen
	 * as a non-table above on the second visit, so this cannot fail.
	 */
	release_table(pt, pfn);
}

void tlbsim_pgtable_destroy(tlbsim_pgtable *pt)
{
	if (!pt)
		return;
	free_subtree(pt, pt->root, pt->levels - 1);
	free(pt);
}

uint64_t tlbsim_pgtable_root(const tlbsim_pgtable *pt)
{
	return pt->root;
}

int hw_pgtable_map(tlbsim_pgtable *pt, uint64_t va, uint64_t pfn, unsigned size_shift,
		   unsigned prot, const struct hw_pgtable_hint *hint, uint64_t *table_pfn_out)
{
	unsigned leaf_level = (size_shift - TLBSIM_PAGE_SHIFT) / 9, level = pt ? pt->levels - 1 : 0;
	uint64_t table_pfn;
	struct hw_table_page *t;
	struct hw_pte pte;

	if (!pt || (size_shift != 12 && size_shift != 21 && size_shift != 30))
		return -TLBSIM_EINVAL;
	if (va & ((1ull << size_shift) - 1) || va >= pt->va_limit)
		return -TLBSIM_EINVAL;
	if (pfn & ((1ull << (size_shift - TLBSIM_PAGE_SHIFT)) - 1) || pfn >= pfn_limit(pt->isa))
		return -TLBSIM_EINVAL;

	table_pfn = pt->root;
	if (hint && hint->t && hint->level >= leaf_level &&
	    (va ^ hint->va) >> (hw_level_shift(hint->level) + 9) == 0) {
		/* The walk from the root would come to the hint's table: the
		 * entries above it were present tables, and are. */
		table_pfn = hint->table_pfn;
		level = hint->level;
	}
	for (;; level--) {
		unsigned index = hw_pte_index(va, level);

		t = hw_physmem_table(pt->pm, table_pfn);
		if (!t)
			return -TLBSIM_EEXIST; /* raw writes linked a non-table here */
		hw_pte_decode(pt->isa, level, t->raw[index], &pte);
		if (level == leaf_level)
			break;
		if (pte.present && pte.leaf)
			return -TLBSIM_EEXIST; /* a larger page covers @va */
		if (!pte.present) {
			uint64_t child;
			int err = tlbsim_physmem_alloc(pt->pm, TLBSIM_FRAME_TABLE, &child);

			/* Tables linked so far stay, empty, as after a failed Linux fault. */
			if (err)
				return err;
			/*
			 * The child is all zeroes, i.e. complete, so it may be
			 * published now; the leaf goes in after (Linux
			 * pmd_populate() after __pte_alloc()).
			 */
			hw_physmem_write(pt->pm, t, index,
					 hw_pte_encode_table(pt->isa, level, child));
			pt->nr_tables++;
			pte.pfn = child;
		}
		table_pfn = pte.pfn;
	}
	/* A table here (even an empty one) is in the way of a large leaf too. */
	if (pte.present)
		return -TLBSIM_EEXIST;
	hw_physmem_write(pt->pm, t, hw_pte_index(va, leaf_level),
			 hw_pte_encode_leaf(pt->isa, leaf_level, pfn, prot));
	if (table_pfn_out)
		*table_pfn_out = table_pfn;
	return 0;
}

int tlbsim_pgtable_map(tlbsim_pgtable *pt, uint64_t va, uint64_t pfn, unsigned size_shift,
		       unsigned prot)
{
	return hw_pgtable_map(pt, va, pfn, size_shift, prot | TLBSIM_PROT_READ, NULL, NULL);
}

int tlbsim_pgtable_unmap(tlbsim_pgtable *pt, uint64_t va, struct tlbsim_mapping *old)
{
	struct walk_result w;
	int err;

	if (!pt)
		return -TLBSIM_EINVAL;
	err = walk(pt, va, &w);
	if (err)
		return err;
	if (old)
		fill_mapping(&w, old);
	hw_physmem_write(pt->pm, w.t, w.index, 0);
	return 0;
}

int tlbsim_pgtable_protect(tlbsim_pgtable *pt, uint64_t va, unsigned prot)
{
	struct walk_result w;
	int err;

	if (!pt)
		return -TLBSIM_EINVAL;
	err = walk(pt, va, &w);
	if (err)
		return err;
	hw_physmem_write(pt->pm, w.t, w.index,
			 hw_pte_encode_leaf(pt->isa, w.level, w.pte.pfn, prot | TLBSIM_PROT_READ));
	return 0;
}

/*
 * hw_pgtable_lookup_hint()'s step at @level in table @t (frame
 * @table_pfn): 1 when @va's entry is a table (its frame in *@next), else
 * the lookup's result, with *@out or *@hint filled.
 */
static inline int lookup_step(const tlbsim_pgtable *pt, uint64_t va, unsigned level,
			      struct hw_table_page *t, uint64_t table_pfn, uint64_t *next,
			      struct tlbsim_mapping *out, struct hw_pgtable_hint *hint)
{
	struct walk_result w;
	unsigned index = hw_pte_index(va, level);

	hw_pte_decode(pt->isa, level, t->raw[index], &w.pte);
	if (!w.pte.present) {
		*hint = (struct hw_pgtable_hint){
		    .t = t, .table_pfn = table_pfn, .level = level, .va = va};
		return -TLBSIM_ENOENT;
	}
	if (!w.pte.leaf) {
		*next = w.pte.pfn;
		return 1;
	}
	w.t = t;
	w.table_pfn = table_pfn;
	w.index = index;
	w.level = level;
	fill_mapping(&w, out);
	return 0;
}

int hw_pgtable_lookup_hint(const tlbsim_pgtable *pt, uint64_t va, struct tlbsim_mapping *out,
			   struct hw_pgtable_hint *hint, struct hw_pgtable_memo *memo)
{
	uint64_t table_pfn = pt->root;
	struct hw_table_page *t;
	int rc;

	/* walk(), noting where it stops. */
	hint->t = NULL;
	if (va >= pt->va_limit)
		return -TLBSIM_ENOENT;
	if (memo->pt == pt && memo->tag == va >> 21 && memo->unlinks == pt->unlinks) {
		t = memo->t;
		table_pfn = memo->table_pfn;
	} else {
		for (unsigned level = pt->levels - 1; level > 0; level--) {
			if (!(t = hw_physmem_table(pt->pm, table_pfn)))
				return -TLBSIM_ENOENT;
			rc = lookup_step(pt, va, level, t, table_pfn, &table_pfn, out, hint);
			if (rc <= 0)
				return rc;
		}
		if (!(t = hw_physmem_table(pt->pm, table_pfn)))
			return -TLBSIM_ENOENT;
		*memo = (struct hw_pgtable_memo){.pt = pt,
						 .tag = va >> 21,
						 .unlinks = pt->unlinks,
						 .table_pfn = table_pfn,
						 .t = t};
	}
	rc = lookup_step(pt, va, 0, t, table_pfn, &table_pfn, out, hint);
	return rc > 0 ? -TLBSIM_ENOENT : rc; /* a level-0 descriptor is a leaf */
}

void hw_pgtable_clear_found(tlbsim_pgtable *pt, uint64_t va, const struct tlbsim_mapping *found,
			    struct hw_pgtable_hint *hint)
{
	struct hw_table_page *t = hw_physmem_table(pt->pm, found->table_pfn);

	hw_physmem_write(pt->pm, t, hw_pte_index(va, found->level), 0);
	*hint = (struct hw_pgtable_hint){
	    .t = t, .table_pfn = found->table_pfn, .level = found->level, .va = va};
}

int tlbsim_pgtable_lookup(const tlbsim_pgtable *pt, uint64_t va, struct tlbsim_mapping *out)
{
	struct walk_result w;
	int err;

	if (!pt || !out)
		return -TLBSIM_EINVAL;
	err = walk(pt, va, &w);
	if (err)
		return err;
	fill_mapping(&w, out);
	return 0;
}

/**
 * struct free_ctx - one tlbsim_pgtable_free_tables() call
 * @start, @end: the range, bytes, [start, end)
 * @fn, @arg: the caller's receiver, or NULL to free at once
 * @nr_unlinked: tables unlinked so far
 */
struct free_ctx {
	uint64_t start;
	uint64_t end;
	tlbsim_table_free_fn fn;
	void *arg;
	uint64_t nr_unlinked;
};

static bool table_is_empty(const tlbsim_pgtable *pt, const struct hw_table_page *t, unsigned level)
{
	for (unsigned i = 0; i < TLBSIM_PTRS_PER_TABLE; i++) {
		struct hw_pte pte;

		hw_pte_decode(pt->isa, level, t->raw[i], &pte);
		if (pte.present)
			return false;
	}
	return true;
}

/*
 * Unlink the empty tables below table @t (at @level >= 1, first VA @base)
 * whose span lies inside the range, children before parents.
 *
 * Example, 4-level, one 4K page at 0x400000 unmapped, range [0, 1 GiB): in
 * the PD (level 1, span [0, 1 GiB)) the PT at index 2 spans [4 MiB, 6 MiB),
 * inside the range and empty: unlinked.  Back in the PDPT, the PD's span
 * [0, 1 GiB) is inside too and the PD is now empty: unlinked.  The PDPT
 * spans [0, 512 GiB), which is not inside, so it stays though empty.
 */
static void free_below(tlbsim_pgtable *pt, struct hw_table_page *t, unsigned level, uint64_t base,
		       struct free_ctx *c)
{
	unsigned shift = hw_level_shift(level);

	for (unsigned i = 0; i < TLBSIM_PTRS_PER_TABLE; i++) {
		uint64_t va = base + ((uint64_t)i << shift);
		uint64_t va_end = va + (1ull << shift);
		struct hw_table_page *child;
		struct hw_pte pte;

		if (va_end <= c->start || va >= c->end)
			continue;
		hw_pte_decode(pt->isa, level, t->raw[i], &pte);
		if (!pte.present || pte.leaf)
			continue;
		child = hw_physmem_table(pt->pm, pte.pfn);
		if (!child)
			continue; /* not a table we can read (raw writes) */
		if (level > 1)
			free_below(pt, child, level - 1, va, c);
		if (va < c->start || va_end > c->end || !table_is_empty(pt, child, level - 1))
			continue;
		/* Unlink first: the receiver may free the frame at once. */
		hw_physmem_write(pt->pm, t, i, 0);
		pt->nr_tables--;
		pt->unlinks++;
		c->nr_unlinked++;
		if (c->fn)
			c->fn(c->arg, pte.pfn, level - 1, va);
		else
			release_table(pt, pte.pfn);
	}
}

int tlbsim_pgtable_free_tables(tlbsim_pgtable *pt, uint64_t start, uint64_t end,
			       tlbsim_table_free_fn fn, void *arg)
{
	struct free_ctx c = {.start = start, .end = end, .fn = fn, .arg = arg};
	struct hw_table_page *root;

	if (!pt || end <= start)
		return -TLBSIM_EINVAL;
	root = hw_physmem_table(pt->pm, pt->root);
	if (root)
		free_below(pt, root, pt->levels - 1, 0, &c);
	return c.nr_unlinked > INT32_MAX ? INT32_MAX : (int)c.nr_unlinked;
}

uint64_t tlbsim_pgtable_nr_tables(const tlbsim_pgtable *pt)
{
	return pt->nr_tables;
}

/*
 * hw_pgtable_next_leaf()'s step: @va itself if a leaf maps it (the walk in
 * *@w, as walk() leaves it), else the next address to try.
 */
static uint64_t next_candidate(const tlbsim_pgtable *pt, uint64_t va, struct walk_result *w)
{
	uint64_t table_pfn = pt->root;

	if (va >= pt->va_limit)
		return UINT64_MAX;
	for (unsigned level = pt->levels; level-- > 0;) {
		struct hw_table_page *t = hw_physmem_table(pt->pm, table_pfn);
		unsigned shift = hw_level_shift(level);
		unsigned index = hw_pte_index(va, level);

		if (!t)
			break;
		if (hw_pte_table(pt->isa, level, t->raw[index], &table_pfn))
			continue;
		hw_pte_decode(pt->isa, level, t->raw[index], &w->pte);
		/* Nothing below this descriptor: skip its whole span. */
		if (!w->pte.present)
			return ((va >> shift) + 1) << shift;
		if (w->pte.leaf) {
			w->t = t;
			w->table_pfn = table_pfn;
			w->index = index;
			w->level = level;
			return va;
		}
		table_pfn = w->pte.pfn;
	}
	return va + (1ull << TLBSIM_PAGE_SHIFT);
}

bool hw_pgtable_next_leaf(const tlbsim_pgtable *pt, uint64_t *va, uint64_t end,
			  struct tlbsim_mapping *out)
{
	struct walk_result w;

	while (*va < end) {
		uint64_t next = next_candidate(pt, *va, &w);

		if (next == *va) {
			fill_mapping(&w, out);
			return true;
		}
		*va = next;
	}
	return false;
}

/*
 * hw_pgtable_range_next()'s search in the table of the last leaf, from
 * @r->va on: true with the next leaf in *@w; false when the walk is to go
 * from the root (a table below an entry, or the table's end: @r->va is
 * there) or the range is done (@r->va >= @r->end).  The table's path from
 * the root is as it was, so the walk from the root would come here again;
 * a descriptor of 0 is not present in either format (x86 P, arm64 valid).
 */
static bool range_scan(const tlbsim_pgtable *pt, struct hw_pgtable_range *r, struct walk_result *w)
{
	unsigned shift = hw_level_shift(r->level);
	struct hw_table_page *t = r->t;

	if (!t || r->va >> (shift + 9) != r->base >> (shift + 9))
		return false;
	for (unsigned i = hw_pte_index(r->va, r->level); i < TLBSIM_PTRS_PER_TABLE; i++) {
		if (t->raw[i]) {
			hw_pte_decode(pt->isa, r->level, t->raw[i], &w->pte);
			if (w->pte.present) {
				if (!w->pte.leaf)
					return false;
				w->t = t;
				w->table_pfn = r->table_pfn;
				w->index = i;
				w->level = r->level;
				return true;
			}
		}
		/* Not present: its span is skipped, as next_candidate() does. */
		r->va = ((r->va >> shift) + 1) << shift;
		if (r->va >= r->end)
			return false;
	}
	return false;
}

bool hw_pgtable_range_next(const tlbsim_pgtable *pt, struct hw_pgtable_range *r,
			   struct tlbsim_mapping *out, uint64_t *pstart)
{
	struct walk_result w;

	while (r->va < r->end) {
		if (!range_scan(pt, r, &w)) {
			uint64_t next;

			if (r->va >= r->end)
				return false;
			next = next_candidate(pt, r->va, &w);
			if (next != r->va) {
				r->va = next;
				r->t = NULL;
				continue;
			}
		}
		fill_mapping(&w, out);
		*pstart = r->va & ~((1ull << out->size_shift) - 1);
		r->t = w.t;
		r->table_pfn = w.table_pfn;
		r->level = w.level;
		r->index = w.index;
		r->pfn = w.pte.pfn;
		r->base = *pstart;
		r->va = *pstart + (1ull << out->size_shift);
		return true;
	}
	return false;
}

void hw_pgtable_range_clear(tlbsim_pgtable *pt, const struct hw_pgtable_range *r)
{
	/* As tlbsim_pgtable_unmap() clears it (ptep_get_and_clear()). */
	hw_physmem_write(pt->pm, r->t, r->index, 0);
}

void hw_pgtable_range_protect(tlbsim_pgtable *pt, const struct hw_pgtable_range *r, unsigned prot)
{
	/* As tlbsim_pgtable_protect() rewrites it. */
	hw_physmem_write(pt->pm, r->t, r->index,
			 hw_pte_encode_leaf(pt->isa, r->level, r->pfn, prot));
}
