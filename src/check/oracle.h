/* SPDX-License-Identifier: MIT */
/*
 * The hazard oracle: it watches the hardware model (fills, uses and
 * invalidations of TLB and walk-cache entries, descriptor writes, frame
 * frees and reuses, TLBI/DSB/ISB, INVLPGB/TLBSYNC, TTBR/CR3 writes) and the
 * OS model (syscall and fault returns), and reports what the architecture
 * and Linux's contract forbid (docs/hazard-rules.md).  It never changes what the simulation does: the only state it
 * writes outside its own is the HW_TLBE_POISON bit of TLB entries, which
 * nothing but the oracle reads.
 *
 * Threading: hooks named *_local run on one cpu in the engine's parallel
 * phase and touch only that cpu's oracle state and TLBs; every other hook
 * runs in the serial phase.  Reports found in the parallel phase go to
 * per-cpu buffers, merged in (time, cpu, event) order, so the verdict is the
 * same for any number of OpenMP threads.
 *
 * Internal to the library (prefix chk_).
 */
#ifndef TLBSIM_CHECK_ORACLE_H
#define TLBSIM_CHECK_ORACLE_H

#include <stdbool.h>
#include <stdint.h>

#include "tlbsim/machine.h"
#include "tlbsim/mmu.h"

struct hw_smp;
struct hw_table_page;
struct chk_oracle;

/* The kinds of diagnostics, in the order the JSON and the scenarios use. */
#define CHK_KINDS(X)                                                                               \
	X(STALE_USE, "stale_use")                                                                  \
	X(WALK_FREED_TABLE, "walk_freed_table")                                                    \
	X(WALK_REUSED_TABLE, "walk_reused_table")                                                  \
	X(INCOMPLETE_MAINT, "incomplete_maintenance")                                              \
	X(BBM, "bbm")                                                                              \
	X(UNORDERED_PUBLISH, "unordered_publish")

enum chk_kind {
#define CHK_ENUM(name, text) CHK_##name,
	CHK_KINDS(CHK_ENUM)
#undef CHK_ENUM
	    CHK_NR_KINDS
};

/* "stale_use" ... ; NULL for a bad value. */
const char *chk_kind_name(unsigned kind);
/* The kind named @name, or -1. */
int chk_kind_find(const char *name);

/**
 * struct chk_report - one diagnostic
 * @kind: enum chk_kind
 * @cpu: the cpu whose state is at fault (the one holding the stale entry,
 *       the one whose maintenance is incomplete)
 * @event: index of the event the detecting cpu was executing (0-based, in
 *       trace order), UINT64_MAX when not known
 * @time: simulated time, cycles
 * @root: page-table root (frame) of the address space, 0 when unknown
 * @mm: the OS model's mm id, 0 when unknown
 * @asid: ASID/PCID of the entry
 * @va: virtual address, bytes
 * @pfn: the frame: the stale translation's, the freed table's
 * @why: static text: which rule, what was missing
 */
struct chk_report {
	unsigned kind;
	unsigned cpu;
	uint64_t event;
	uint64_t time;
	uint64_t root;
	uint32_t mm;
	uint16_t asid;
	uint64_t va;
	uint64_t pfn;
	const char *why;
};

/* Create the oracle for @smp's machine; NULL when out of memory.  It
 * registers itself with @smp's physical memory. */
struct chk_oracle *chk_create(struct hw_smp *smp);
void chk_destroy(struct chk_oracle *o);

/* Arm FEAT_ETS2 on @cpu (docs/hazard-rules.md rule 7): a DSB after a TLBI also
 * orders this cpu's later walks, no ISB needed. */
void chk_set_ets2(struct chk_oracle *o, unsigned cpu, bool on);

/* ---- what the owners tell it ------------------------------------------ */

/* @cpu starts event @index (trace order).  _local: parallel-safe. */
void chk_event_local(struct chk_oracle *o, unsigned cpu, uint64_t index);
/* The serial phase now works on behalf of @cpu (frees, allocations and
 * writes are attributed to it). */
void chk_serve(struct chk_oracle *o, unsigned cpu);
/* Root table @root belongs to the OS model's mm @mm_id (reports name it). */
void chk_root_owner(struct chk_oracle *o, uint64_t root, uint32_t mm_id);
/* A syscall of the mm whose root is @root, on @cpu, returns: every change
 * to the translations of [start, end) made so far is committed (Linux's
 * contract: no stale translation of the range may be used any more).  The
 * return to user space is a context-synchronising event on @cpu. */
void chk_syscall_return(struct chk_oracle *o, unsigned cpu, uint64_t root, uint64_t start,
			uint64_t end);
/* The kernel-level COMMIT event of @cpu: every change to the translations
 * of [start, end) of the address space whose root is @root made so far is
 * committed, as at a syscall's return, but with no context synchronisation
 * (a claim about the page tables, not a return to user space). */
void chk_commit(struct chk_oracle *o, unsigned cpu, uint64_t root, uint64_t start, uint64_t end);
/* Context synchronisation on @cpu: ISB, ERET, exception entry. _local. */
void chk_context_sync_local(struct chk_oracle *o, unsigned cpu);
/* The kernel-level replayer drives the oracle: it reports every store
 * barrier (chk_store_barrier()), so the publish-order check of
 * docs/hazard-rules.md rule 8 is on (Arm only: x86 stores are seen in
 * order).  The OS model does not: Linux orders a new table's contents
 * before linking it (smp_wmb() in mm/memory.c __pte_alloc()). */
void chk_set_kernel_mode(struct chk_oracle *o);
/* @cpu executed a barrier that orders its earlier stores before its later
 * ones for the other cpus: DMB or DSB of type ST or full, inner/outer
 * shareable or full system (Arm ARM B2.3.12).  Serial. */
void chk_store_barrier(struct chk_oracle *o, unsigned cpu);
/* @cpu executed a DSB that orders its earlier stores (type ST or full):
 * unlike a DMB it also orders them before its later TLBIs
 * (docs/hazard-rules.md rule 6; Arm ARM D8.13.4).  Kernel mode; serial. */
void chk_store_dsb(struct chk_oracle *o, unsigned cpu);
/* An access by @cpu to @va (kernel-level replay only: the rule-7 check of
 * accesses after a TLBI + DSB without a context synchronisation). */
void chk_access(struct chk_oracle *o, unsigned cpu, uint64_t va);
/* Process what happened in the parallel phase (completions of maintenance)
 * in a fixed order.  Serial; the owners call it before serial work. */
void chk_sync(struct chk_oracle *o);

/* ---- what the hardware tells it ---------------------------------------- */

/* chk_create() makes the oracle the observer of the machine's physical
 * memory (hw/observe.h): the hardware reports frame allocations and frees,
 * descriptor writes, poisoned entries used, TLBI/INVLPGB issued, DSB and
 * TLBSYNC completions and CR3/TTBR loads through that table, without
 * knowing who listens.  The kernel-level replayer also tells it directly: */

/* A table frame of @level, freshly allocated (@is_root: a tree's root). */
void chk_table_new(struct chk_oracle *o, struct hw_table_page *t, unsigned level, bool is_root);

/* ---- results ------------------------------------------------------------ */

/* Counts per kind (all of them, also beyond the stored reports). */
const uint64_t *chk_counts(struct chk_oracle *o);
/* The stored reports (the first CHK_MAX_REPORTS), sorted; *n receives
 * their number.  Merges the per-cpu buffers first. */
const struct chk_report *chk_reports(struct chk_oracle *o, unsigned *n);
/* Reports stored at most; the counts go on. */
#define CHK_MAX_REPORTS 1000

#endif /* TLBSIM_CHECK_ORACLE_H */
