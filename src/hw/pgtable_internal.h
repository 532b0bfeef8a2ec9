/* SPDX-License-Identifier: MIT */
/* Page-table helpers for the OS model (internal): its range walks (zap,
 * mprotect, fork), and a fault's lookup, map and clear, which go on from
 * where an earlier walk stopped instead of walking from the root again. */
#ifndef TLBSIM_HW_PGTABLE_INTERNAL_H
#define TLBSIM_HW_PGTABLE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "tlbsim/pgtable.h"

struct hw_table_page;

/*
 * The first leaf at or after *@va and below @end: true with its mapping in
 * *@out (as tlbsim_pgtable_lookup() gives it) and *@va the address the
 * search reached, inside the leaf's page; false with *@va >= @end
 * (UINT64_MAX beyond the user range).  The search skips the span of each
 * not-present descriptor it stops at (a whole empty table's at once), so a
 * zap of a sparse range costs per present page, not per 4 KiB; each step
 * is one walk from the root, the leaf's included (no second walk to read
 * it).
 */
bool hw_pgtable_next_leaf(const tlbsim_pgtable *pt, uint64_t *va, uint64_t end,
			  struct tlbsim_mapping *out);

/**
 * struct hw_pgtable_range - a walk over the present leaves of a range
 * (hw_pgtable_range_next()), which may clear or rewrite each leaf it finds
 * @va: where the search goes on: the range's start at first
 * @end: the range's end
 * @t/@table_pfn/@level/@index: the last leaf found: its table, the
 *        table's frame, its level and index there (@t NULL: none yet)
 * @pfn/@base: its frame and first address
 */
struct hw_pgtable_range {
	uint64_t va, end;
	struct hw_table_page *t;
	uint64_t table_pfn, pfn, base;
	unsigned level, index;
};

/*
 * The next present leaf of @r's range, as hw_pgtable_next_leaf() finds it
 * from @r->va: true with its mapping in *@out and the page's first
 * address in *@pstart (@r->va then goes on past the page); false when
 * none is left.  The search goes on in the table of the last leaf while
 * it can, instead of walking from the root for each leaf: between two
 * calls nothing may change in @pt but leaves (Linux zap_pte_range() and
 * change_pte_range() also hold the PTE table's lock across its run).
 */
bool hw_pgtable_range_next(const tlbsim_pgtable *pt, struct hw_pgtable_range *r,
			   struct tlbsim_mapping *out, uint64_t *pstart);

/* tlbsim_pgtable_unmap() and tlbsim_pgtable_protect() of the leaf @r
 * found last, without their walk: the same descriptor writes, but @prot as
 * given: without READ, WRITE and EXEC a PROT_NONE leaf (hw_pte_encode_leaf()),
 * where the public call implies READ. */
void hw_pgtable_range_clear(tlbsim_pgtable *pt, const struct hw_pgtable_range *r);
void hw_pgtable_range_protect(tlbsim_pgtable *pt, const struct hw_pgtable_range *r, unsigned prot);

/**
 * struct hw_pgtable_hint - where a lookup of @va stopped short of a leaf
 * (hw_pgtable_lookup_hint()): the last table it read, its frame and level
 * (@t NULL: nowhere to go on from)
 */
struct hw_pgtable_hint {
	struct hw_table_page *t;
	uint64_t table_pfn, va;
	unsigned level;
};

/**
 * struct hw_pgtable_memo - the last-level table a lookup went through
 * (hw_pgtable_lookup_hint()), for the next lookup in its 2 MiB; a caller's
 * (a cpu's: its faults follow one another there), all zero at first and
 * again before @pt is destroyed
 * @pt: the tables it belongs to (NULL: none)
 * @tag: the 2 MiB it maps, VA >> 21
 * @unlinks: @pt's count of unlinked tables then: the table is still on
 *        the path while the count has not changed
 * @table_pfn/@t: its frame and contents
 */
struct hw_pgtable_memo {
	const tlbsim_pgtable *pt;
	uint64_t tag, unlinks, table_pfn;
	struct hw_table_page *t;
};

/*
 * tlbsim_pgtable_lookup(); when @va is not mapped, *@hint says where the
 * walk stopped, so that a map of @va that follows, with no table unlinked
 * in between (a fault mapping the page it looked up), goes on from there.
 * The walk starts at the table @memo remembers when it is @va's (and else
 * @memo remembers the last-level table this walk reaches): only the OS
 * model's edits may have changed @pt since (a table descriptor written by
 * tlbsim_physmem_write_desc() is not seen).
 */
int hw_pgtable_lookup_hint(const tlbsim_pgtable *pt, uint64_t va, struct tlbsim_mapping *out,
			   struct hw_pgtable_hint *hint, struct hw_pgtable_memo *memo);

/*
 * tlbsim_pgtable_map() with @prot as given (a PROT_NONE leaf without READ,
 * WRITE and EXEC: hw_pte_encode_leaf()), starting at @hint's table when it is on @va's
 * path and at or above the leaf's level (@hint NULL: from the root; the
 * walk would come there, the entries above it being tables still), and
 * which gives the frame of the table the leaf went into in *@table_pfn
 * (NULL: not wanted): the table_pfn a lookup of @va would give next,
 * without its walk (a fault takes that table's PTE lock right after).
 */
int hw_pgtable_map(tlbsim_pgtable *pt, uint64_t va, uint64_t pfn, unsigned size_shift,
		   unsigned prot, const struct hw_pgtable_hint *hint, uint64_t *table_pfn);

/*
 * tlbsim_pgtable_unmap() of the leaf @found, which a lookup of @va gave
 * and which is still there (the same descriptor write, without the walk):
 * a copy-on-write fault clears the PTE it just looked at.  *@hint is then
 * where a lookup of @va would stop, for the map of the copy.
 */
void hw_pgtable_clear_found(tlbsim_pgtable *pt, uint64_t va, const struct tlbsim_mapping *found,
			    struct hw_pgtable_hint *hint);

#endif
