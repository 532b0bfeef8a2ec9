/* SPDX-License-Identifier: MIT */
/*
 * Internal view of simulated physical memory for src/hw: direct access to
 * table frames for the walker (no bounds re-checks on the hot path).
 */
#ifndef TLBSIM_HW_PHYSMEM_H
#define TLBSIM_HW_PHYSMEM_H

#include <stdint.h>

#include "tlbsim/pgtable.h"

/**
 * struct hw_table_page - contents of one table frame
 * @raw: the 512 descriptors, in the ISA's format
 * @version: per descriptor, the global write counter when it was written
 */
struct hw_table_page {
	uint64_t raw[TLBSIM_PTRS_PER_TABLE];
	uint64_t version[TLBSIM_PTRS_PER_TABLE];
};

/*
 * The contents of table frame @pfn, or NULL if @pfn is not currently a table
 * frame (free, data, or never allocated).  The pointer stays valid until the
 * frame is freed.
 */
struct hw_table_page *hw_physmem_table(const tlbsim_physmem *pm, uint64_t pfn);

/* Write descriptor @index of table @pfn, bumping the global write counter. */
void hw_physmem_write(tlbsim_physmem *pm, struct hw_table_page *t, unsigned index, uint64_t raw);

#endif /* TLBSIM_HW_PHYSMEM_H */
