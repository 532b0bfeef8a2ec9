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

/**
 * struct hw_mmu_hot - what the hit path needs to take, without a call, the
 * accesses that hw_mmu_access() would answer from an L1 TLB's last hit
 * (hw_tlb_last_hit()) with no state change but the hit count
 * @vpn: the last hit's smallest-size page (va >> @shift); meaningless
 *       when @ok is 0
 * @shift: the L1's smallest page-size shift (at least 12)
 * @ok: a bit (1 << enum tlbsim_access) for each access the entry permits;
 *      0 when there is no such hit (no last hit, no context, another ASID
 *      loaded since, or an entry the hazard oracle poisoned)
 * @latency: the L1's hit latency, cycles
 * @walked: set by hw_mmu_access() only: the access walked the page tables
 *      (so its neighbours may: hw_mmu_prefetch())
 *
 * An access @a of the L1's kind (data for loads and stores, instructions
 * for fetches) to virtual address @va is then an L1 hit of @latency cycles
 * when (@ok >> @a & 1) and @va >> @shift == @vpn; it must be counted with
 * hw_mmu_hot_hits().  The state is valid until the next call into the MMU.
 */
struct hw_mmu_hot {
	uint64_t vpn;
	unsigned shift;
	unsigned ok;
	unsigned latency;
	bool walked;
};

/* Fill @h for the L1 iTLB (@fetch) or dTLB of @mmu. */
void hw_mmu_hot(const tlbsim_mmu *mmu, bool fetch, struct hw_mmu_hot *h);

/*
 * tlbsim_mmu_translate() for the OS model's step, of an access its hot
 * state (@h, hw_mmu_hot() of the L1 that @access uses) did not take: the
 * same lookups, fills, counts, oracle reports and faults, and the same
 * return value; @cycles receives what struct tlbsim_xlate.cycles would (0
 * without a loaded context).  @h is then that L1's hot state again: only
 * its last hit can have changed, since an access fills no other L1.
 */
int hw_mmu_access(tlbsim_mmu *mmu, uint64_t va, enum tlbsim_access access, unsigned *cycles,
		  struct hw_mmu_hot *h);

/*
 * A hint, which changes nothing simulated: have the host bring the cache
 * lines of the descriptors a walk of @va would read into its caches, by a
 * walk of the loaded context's tables that reads (without a stall) all but
 * the last level's, which it prefetches; it starts at the level-1 table the
 * last walk read when @va is in the region that table maps.  The walker's
 * read of a random page's descriptor is a host cache miss (a third of a
 * miss-heavy trace's time, bench/perf/README.md); the OS model's step calls
 * this for an access a few ahead of one that walked.  Reads physical memory
 * and @mmu only: a parallel phase may call it for its cpu's MMU.
 */
void hw_mmu_prefetch(const tlbsim_mmu *mmu, uint64_t va);

/* Count L1 hits taken through hw_mmu_hot()'s state, as hw_mmu_access()
 * counts its hits: @data of the dTLB (loads, stores), @fetch of the iTLB. */
void hw_mmu_hot_hits(tlbsim_mmu *mmu, uint64_t data, uint64_t fetch);

/* The loaded context: root frame and ASID/PCID; false if none is loaded. */
bool hw_mmu_context(const tlbsim_mmu *mmu, uint64_t *root_pfn, uint16_t *asid);

#endif
