/* SPDX-License-Identifier: MIT */
/*
 * rcu-table-free: a table-free strategy, composed with a flush policy
 * ("x86-stock+rcu-table-free").  Page-table pages unlinked by an
 * mmu_gather are not freed right after the flush but handed to call_rcu()
 * as one batch, and freed after a grace period (Linux
 * MMU_GATHER_RCU_TABLE_FREE, mm/mmu_gather.c tlb_remove_table(),
 * tlb_table_flush()).  This makes lock-less page-table walkers (GUP-fast,
 * paravirtual flushes without IPIs) safe; its cost is a call_rcu per batch,
 * often of one page on munmap-heavy code.
 */
#include "policies/policies.h"

static void rcu_free_tables(struct tlbsim_pctx *ctx, struct tlbsim_mm *mm, const uint64_t *pfns,
			    unsigned n)
{
	ctx->ops->call_rcu_free_tables(ctx, mm, pfns, n);
}

const struct tlbsim_policy tlbsim_policy_rcu_table_free = {
	.name = "rcu-table-free",
	.summary = "table pages freed after an RCU grace period (compose: POLICY+rcu-table-free)",
	.source = "Linux mm/mmu_gather.c (MMU_GATHER_RCU_TABLE_FREE)",
	.abi = TLBSIM_POLICY_ABI,
	.isa_mask = TLBSIM_ISA_BIT(TLBSIM_ISA_X86_64) | TLBSIM_ISA_BIT(TLBSIM_ISA_ARM64),
	.free_tables = rcu_free_tables,
};
