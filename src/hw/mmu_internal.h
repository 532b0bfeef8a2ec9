/* SPDX-License-Identifier: MIT */
/*
 * Side-effect-free inspection of an MMU's TLBs and walk caches, for the
 * hazard oracle (which must see every entry a core may still use) and for
 * tests; and the OS model's translation without a result record
 * (hw_mmu_access()).  Internal to the library.
 */
#ifndef TLBSIM_HW_MMU_INTERNAL_H
#define TLBSIM_HW_MMU_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "hw/tlb.h"
#include "tlbsim/mmu.h"

/* The structures of an MMU; HW_PWC1 + k - 1 is the walk cache of level k. */
enum hw_struct {
	HW_L1I = 0,
	HW_L1D = 1,
	HW_L2 = 2,
	HW_PWC1 = 3, /* level 1: x86 PDE cache, arm64 level-2 walk cache */
	HW_PWC2 = 4,
	HW_PWC3 = 5,
	HW_PWC4 = 6,
	HW_NR_STRUCTS
};

/*
 * Does structure @s hold a valid entry that would translate @va under
 * @asid (or a global one)?  Changes no replacement state.
 */
bool hw_mmu_holds(const tlbsim_mmu *mmu, enum hw_struct s, uint64_t va, uint16_t asid);

/* Call @fn on every valid entry of every structure, with its structure. */
void hw_mmu_for_each(const tlbsim_mmu *mmu,
		     void (*fn)(void *arg, enum hw_struct s, const struct hw_tlb_entry *e), void *arg);

/* Tell @mmu which cpu it belongs to (the hazard oracle's reports name it). */
void hw_mmu_set_cpu(tlbsim_mmu *mmu, unsigned id);

/* The structure @s of @mmu (NULL if the MMU lacks it), for the oracle's
 * scans and marks: callers must not change anything but HW_TLBE_POISON. */
struct hw_tlb *hw_mmu_struct(tlbsim_mmu *mmu, enum hw_struct s);

/*
 * tlbsim_mmu_translate() for the OS model's step, which needs only the
 * cycles: the same lookups, fills, counts, oracle reports and faults, and
 * the same return value; @cycles receives what struct tlbsim_xlate.cycles
 * would (0 without a loaded context).
 */
int hw_mmu_access(tlbsim_mmu *mmu, uint64_t va, enum tlbsim_access access, unsigned *cycles);

/* The loaded context: root frame and ASID/PCID; false if none is loaded. */
bool hw_mmu_context(const tlbsim_mmu *mmu, uint64_t *root_pfn, uint16_t *asid);

#endif
