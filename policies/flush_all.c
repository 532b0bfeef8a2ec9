/* SPDX-License-Identifier: MIT */
/*
 * flush-all: the plain reference policy.  Every flush request becomes a
 * full flush of the mm's ASID on every cpu, by IPI, whatever the range and
 * whoever ran the mm: always correct, never cheap.  Copy it to start a new
 * policy; tests compare other policies' outcomes against it.
 */
#include "policies/policies.h"

static void flush_all_flush_range(struct tlbsim_pctx *ctx, const struct tlbsim_flush_info *info)
{
	struct tlbsim_flush_info all = *info;
	struct tlbsim_cpumask everyone;

	all.start = 0;
	all.end = TLBSIM_FLUSH_ALL;
	all.freed_tables = true;
	tlbsim_cpumask_fill(&everyone, ctx->ops->nr_cpus(ctx));
	ctx->ops->send_ipi(ctx, &everyone, &all);
	ctx->ops->local_flush(ctx, &all);
}

const struct tlbsim_policy tlbsim_policy_flush_all = {
	.name = "flush-all",
	.summary = "reference: a full flush of the mm on every cpu, by IPI, for every request",
	.source = "none (reference module)",
	.abi = TLBSIM_POLICY_ABI,
	.isa_mask = TLBSIM_ISA_BIT(TLBSIM_ISA_X86_64) | TLBSIM_ISA_BIT(TLBSIM_ISA_ARM64),
	.flush_range = flush_all_flush_range,
};
