/* SPDX-License-Identifier: MIT */
/* Page-table helpers for the OS model's range walks (internal). */
#ifndef TLBSIM_HW_PGTABLE_INTERNAL_H
#define TLBSIM_HW_PGTABLE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "tlbsim/pgtable.h"

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

/*
 * tlbsim_pgtable_map(), which also gives the frame of the table the leaf
 * went into in *@table_pfn (NULL: not wanted): the table_pfn a lookup of
 * @va would give next, without its walk (a fault takes that table's PTE
 * lock right after mapping its page).
 */
int hw_pgtable_map(tlbsim_pgtable *pt, uint64_t va, uint64_t pfn, unsigned size_shift,
		   unsigned prot, uint64_t *table_pfn);

#endif
