/* SPDX-License-Identifier: MIT */
/*
 * Observers of the hardware model: a table of hooks the hardware calls at
 * every event a checker may want to see (frame allocation and free,
 * descriptor writes, new tables, uses of poisoned entries, TLB maintenance
 * issued and completed, context loads and synchronisation), without
 * knowing who listens.  The hazard oracle (src/check/oracle.c) is the one
 * listener today; a tracer or a coverage counter could be another.
 *
 * One observer per physical memory, set with hw_physmem_set_observer():
 * every MMU, page table and SMP mechanism built over that memory reports
 * to it.  A NULL hook is skipped.  Observers watch and never change what
 * the hardware does; the only hardware state one may write is the
 * HW_TLBE_POISON bit of TLB entries, which nothing but observers reads.
 *
 * Threading: hooks named *_local are called on one cpu in the engine's
 * parallel phase and may touch only that cpu's part of the observer's
 * state; the others are called in the serial phase.
 */
#ifndef TLBSIM_HW_OBSERVE_H
#define TLBSIM_HW_OBSERVE_H

#include <stdbool.h>
#include <stdint.h>

#include "tlbsim/mmu.h"
#include "tlbsim/pgtable.h"

struct hw_table_page;
struct hw_tlb_entry;

/**
 * struct hw_observer_ops - what the hardware reports (all optional)
 * @frame_alloc: frame @pfn was allocated as enum tlbsim_frame_kind @kind
 * @frame_free: frame @pfn of @kind is freed; @t is its table contents (NULL
 *        for a data frame), still readable
 * @desc_write: descriptor @index of table @t changed from @old_raw (written
 *        at version @old_version) to @new_raw (t->version[@index] is the new
 *        version)
 * @table_new: table frame @t of @level (0 = last) was made, @is_root: the
 *        root of a tree
 * @poisoned_use_local: the MMU of @cpu used entry @e (a walk-cache entry if
 *        @walk_cache) to translate @va, and an observer had marked it
 *        HW_TLBE_POISON
 * @tlbi_local: @cpu issued TLBI @op (@va, @asid), @broadcast: an IS form
 * @invlpgb_local: @cpu issued INVLPGB (AMD APM vol. 3): @nr_pages of
 *        1 << @stride_shift bytes from @va, PCID @pcid, TLBSIM_INVLPGB_* @flags
 * @dsb_done_local: a DSB of @cpu finished waiting: its TLBIs (@ish:
 *        broadcast ones too, else local ones only) are complete
 * @tlbsync_done_local: a TLBSYNC of @cpu finished: its INVLPGBs are complete
 * @context_load_local: @cpu loaded (@root, @asid) into CR3/TTBR0
 * @context_sync_local: a context-synchronising event on @cpu (ISB)
 * @sw_walk: a lockless software walker on @cpu (Linux GUP-fast, interrupts
 *        off) reads the tables of root @root for [@va_lo, @va_hi] from
 *        cycle @from to @until (serial phase)
 */
struct hw_observer_ops {
	void (*frame_alloc)(void *ctx, uint64_t pfn, unsigned kind);
	void (*frame_free)(void *ctx, uint64_t pfn, unsigned kind, struct hw_table_page *t);
	void (*desc_write)(void *ctx, struct hw_table_page *t, unsigned index, uint64_t old_raw,
			   uint64_t old_version, uint64_t new_raw);
	void (*table_new)(void *ctx, struct hw_table_page *t, unsigned level, bool is_root);
	void (*poisoned_use_local)(void *ctx, unsigned cpu, const struct hw_tlb_entry *e,
				   uint64_t va, bool walk_cache);
	void (*tlbi_local)(void *ctx, unsigned cpu, enum tlbsim_tlbi_op op, uint64_t va,
			   uint16_t asid, bool broadcast);
	void (*invlpgb_local)(void *ctx, unsigned cpu, uint64_t va, unsigned nr_pages,
			      unsigned stride_shift, uint16_t pcid, unsigned flags);
	void (*dsb_done_local)(void *ctx, unsigned cpu, bool ish);
	void (*tlbsync_done_local)(void *ctx, unsigned cpu);
	void (*context_load_local)(void *ctx, unsigned cpu, uint64_t root, uint16_t asid);
	void (*context_sync_local)(void *ctx, unsigned cpu);
	void (*sw_walk)(void *ctx, unsigned cpu, uint64_t root, uint64_t va_lo, uint64_t va_hi,
			uint64_t from, uint64_t until);
};

/* The observer of a physical memory: its hooks and their context. */
struct hw_observer {
	const struct hw_observer_ops *ops;
	void *ctx;
};

/* Make (@ops, @ctx) the observer of @pm; @ops NULL: none. */
void hw_physmem_set_observer(tlbsim_physmem *pm, const struct hw_observer_ops *ops, void *ctx);
/* The observer of @pm, or NULL when none is set. */
const struct hw_observer *hw_physmem_observer(const tlbsim_physmem *pm);

/* Call hook @hook of observer @obs (a const struct hw_observer *, may be
 * NULL) with the arguments that follow its context. */
#define HW_OBSERVE(obs, hook, ...)                                                                 \
	do {                                                                                       \
		const struct hw_observer *obs_ = (obs);                                            \
		if (obs_ && obs_->ops->hook)                                                       \
			obs_->ops->hook(obs_->ctx, __VA_ARGS__);                                   \
	} while (0)

#endif /* TLBSIM_HW_OBSERVE_H */
