/* SPDX-License-Identifier: MIT */
/*
 * Internal view of simulated physical memory for src/hw: direct access to
 * table frames for the walker (no bounds re-checks on the hot path).
 */
#ifndef TLBSIM_HW_PHYSMEM_H
#define TLBSIM_HW_PHYSMEM_H

#include <stdbool.h>
#include <stdint.h>

#include "tlbsim/pgtable.h"

/* ASIDs/PCIDs remembered per root table before it counts as "any". */
#define HW_ROOT_ASIDS 6

/**
 * struct hw_table_page - contents of one table frame
 * @raw: the 512 descriptors, in the ISA's format
 * @version: per descriptor, the global write counter when it was written
 *
 * What an observer (hw/observe.h: the hazard oracle) learns of the table; the hardware
 * model never reads these:
 * @pfn: the frame
 * @base_va: first virtual address it translates (valid with @placed)
 * @root_pfn: root of the tree it hangs in (valid with @placed)
 * @level: its level, 0 = last (valid with @level_known)
 * @placed/@level_known: what is known
 * @nr_asids/@asids: roots only: ASIDs/PCIDs it was loaded with;
 *        @nr_asids > HW_ROOT_ASIDS means "too many to tell"
 * @unlinked_at: 1 + the time (cycles) its parent's pointer to it was
 *        removed; 0 while linked
 */
struct hw_table_page {
	uint64_t raw[TLBSIM_PTRS_PER_TABLE];
	uint64_t version[TLBSIM_PTRS_PER_TABLE];
	uint64_t pfn;
	uint64_t base_va;
	uint64_t root_pfn;
	uint8_t level;
	uint8_t placed;
	uint8_t level_known;
	uint8_t nr_asids;
	uint16_t asids[HW_ROOT_ASIDS];
	uint64_t unlinked_at;
};

/*
 * The contents of table frame @pfn, or NULL if @pfn is not currently a table
 * frame (free, data, or never allocated).  The pointer stays valid until the
 * frame is freed; the page it points to stays allocated until
 * tlbsim_physmem_destroy(), recycled for the next table frame (so that a
 * hint, hw_mmu_prefetch()'s, may read it later: it may find another
 * table's descriptors).
 */
struct hw_table_page *hw_physmem_table(const tlbsim_physmem *pm, uint64_t pfn);

/*
 * Is @pfn a table frame, allocated @generation times (the walker's test of
 * a walk-cache entry's frame: the table it was filled from, not freed
 * since)?  tlbsim_physmem_kind() and tlbsim_physmem_generation() at once.
 */
bool hw_physmem_is_table(const tlbsim_physmem *pm, uint64_t pfn, uint32_t generation);

/* Write descriptor @index of table @pfn, bumping the global write counter. */
void hw_physmem_write(tlbsim_physmem *pm, struct hw_table_page *t, unsigned index, uint64_t raw);

#endif /* TLBSIM_HW_PHYSMEM_H */
