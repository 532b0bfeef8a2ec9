/* SPDX-License-Identifier: MIT */
/*
 * x86-lazy-cpumask: the 2024 proposal to stop clearing the previous mm's
 * mm_cpumask bit in switch_mm (an atomic on a contended cache line); a cpu
 * leaves the mask when the first flush IPI for that mm reaches it after it
 * switched away.  Cheaper context switches, one extra IPI per cpu that
 * left.  switch_mm sets the cpu's bit in the next mm's mask only when it is
 * not already set, so a switch back to an mm whose bit is still set
 * writes no shared line.  Everything else is x86-stock
 * (policies/x86_stock.c).
 * Source: R. van Riel, "x86,mm: only clear the mm_cpumask bit in flush IPIs"
 * (linux-mm, 2024), on Linux arch/x86/mm/tlb.c.
 * Parameter: ceiling=N pages.
 */
#include "policies/policies.h"
#include "policies/x86.h"

static void lazy_switch_mm(struct tlbsim_pctx *ctx, struct tlbsim_mm *prev, struct tlbsim_mm *next)
{
	/* @prev keeps this cpu's bit until a flush IPI finds it gone; the
	 * bit in @next is set only if it is not (a read, no atomic). */
	x86_switch_lines(ctx, prev, next, true);
	tlbsim_cpumask_set(&next->cpumask, ctx->cpu->id);
	ctx->ops->load_mm(ctx, next);
}

static void lazy_ipi_handler(struct tlbsim_pctx *ctx, const struct tlbsim_flush_info *info)
{
	x86_flush_tlb_func(ctx, info, true);
}

const struct tlbsim_policy tlbsim_policy_x86_lazy_cpumask = {
	.name = "x86-lazy-cpumask",
	.summary = "x86-stock, but a cpu leaves mm_cpumask at the first flush IPI after it left",
	.source = "Linux arch/x86/mm/tlb.c with the 2024 lazy mm_cpumask proposal",
	.abi = TLBSIM_POLICY_ABI,
	.isa_mask = TLBSIM_ISA_BIT(TLBSIM_ISA_X86_64),
	.init = x86_params_init,
	.switch_mm = lazy_switch_mm,
	.flush_range = x86_flush_tlb_mm_range,
	.ipi_handler = lazy_ipi_handler,
};
