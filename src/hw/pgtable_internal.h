/* SPDX-License-Identifier: MIT */
/* Page-table helpers for the OS model's range walks (internal). */
#ifndef TLBSIM_HW_PGTABLE_INTERNAL_H
#define TLBSIM_HW_PGTABLE_INTERNAL_H

#include <stdint.h>

#include "tlbsim/pgtable.h"

/*
 * @va itself if a leaf maps it; else the first address after the span of
 * the not-present descriptor the walk stopped at (a whole empty table's
 * span is skipped at once); UINT64_MAX beyond the user range.  Lets a zap
 * of a sparse range cost per present page, not per 4 KiB.
 */
uint64_t hw_pgtable_next_candidate(const tlbsim_pgtable *pt, uint64_t va);

#endif
