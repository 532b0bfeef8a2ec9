/* SPDX-License-Identifier: MIT */
/*
 * The x86 flush path shared by the x86 policies (Linux arch/x86/mm/tlb.c):
 * flush_tlb_func() on each cpu and flush_tlb_mm_range() on the initiator.
 * The policies differ in switch_mm's cpumask bookkeeping, in what a cpu
 * that no longer runs the mm does when the IPI reaches it, and in whether
 * an mm is flushed by INVLPGB.
 */
#ifndef TLBSIM_POLICIES_X86_H
#define TLBSIM_POLICIES_X86_H

#include <stdbool.h>

#include "tlbsim/policy.h"

/* tlb_single_page_flush_ceiling: ranges of more pages become a full flush
 * ("in units of pages"; 33 caps a flush at about 3 us, CALIBRATION.md 3.1). */
#define X86_FLUSH_CEILING 33

/*
 * Parameters.  Besides the ceiling, deliberate bugs ("mutations") for
 * checking that the hazard oracle catches them (tests/hazards/):
 *   lazy_skip_tables=1: lazy cpus are skipped even when tables are freed
 *       (Linux before "x86/mm: Don't skip lazy CPUs on page table free")
 *   no_freed_tables=1: flush requests claim no tables were freed
 *   ack_early=1: an IPI target acknowledges without flushing (its flush
 *       waits for the next switch_mm, which finds its tlb_gen behind)
 *   no_tlbsync=1 (x86-invlpgb): INVLPGB without the TLBSYNC after it
 */
struct x86_params {
	unsigned ceiling; /* pages */
	unsigned lazy_skip_tables, no_freed_tables, ack_early, no_tlbsync;
};

/* Parse "key=N,..." of the keys above into @p; -TLBSIM_EINVAL for an
 * unknown key or value.  @extra, if not NULL, is tried first on each key
 * (x86-invlpgb's own); it returns the characters it used, or 0. */
int x86_params_parse(const char *params, struct x86_params *p,
		     int (*extra)(const char *s, void *arg), void *arg);

/* policy init(): a struct x86_params from "key=N,...". */
int x86_params_init(const char *params, void **state);

/* The request @info as the mutations of @ctx's parameters change it. */
void x86_mutate_request(struct tlbsim_pctx *ctx, struct tlbsim_flush_info *info);

/*
 * flush_tlb_func(): bring this cpu's entries of @info->mm up to date, by
 * tlb_gen: nothing if already there, the range if exactly one generation
 * behind, else a full flush.  A cpu that no longer has the mm loaded does
 * nothing, unless @clear_stale_bit, when it also leaves mm_cpumask (the
 * lazy-cpumask proposal).  A lazy cpu reached by a flush that frees tables
 * switches to init_mm.
 */
void x86_flush_tlb_func(struct tlbsim_pctx *ctx, const struct tlbsim_flush_info *info,
			bool clear_stale_bit);

/*
 * flush_tlb_mm_range() for IPI-based flushing: apply the ceiling, IPI the
 * other cpus of mm_cpumask (lazy ones only when tables are freed), flush
 * locally meanwhile.
 */
void x86_flush_tlb_mm_range(struct tlbsim_pctx *ctx, const struct tlbsim_flush_info *info);

/*
 * The shared lines a flush touches before choosing how (Linux
 * flush_tlb_mm_range()): tlb_gen incremented atomically, mm_cpumask read.
 */
void x86_flush_lines(struct tlbsim_pctx *ctx, struct tlbsim_mm *mm);

/*
 * The shared lines switch_mm_irqs_off() touches on the way from @prev
 * (NULL: none) to @next, before the cpumask update it describes: from a
 * different mm, an atomic clear of this cpu's bit in prev's mm_cpumask and
 * an atomic set in next's (@lazy_cpumask: no clear, and a set only if the
 * bit is not already there, which a read tests); leaving lazy mode on the
 * same mm, a read of the bit; then, in all cases, a read of next's tlb_gen.
 */
void x86_switch_lines(struct tlbsim_pctx *ctx, struct tlbsim_mm *prev, struct tlbsim_mm *next,
		      bool lazy_cpumask);

/* The ceiling applied to @info, in @out. */
void x86_apply_ceiling(struct tlbsim_pctx *ctx, const struct tlbsim_flush_info *info,
		       struct tlbsim_flush_info *out);

#endif
