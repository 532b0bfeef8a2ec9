/* SPDX-License-Identifier: MIT */
/*
 * arm64-stock: every user flush of a live mm is a broadcast TLBI ...IS
 * followed by DSB ISH (Linux arch/arm64/include/asm/tlbflush.h:
 * __flush_tlb_range(): DSB ISHST; TLBI VALE1IS per page, or VAE1IS when
 * page tables were freed; ASIDE1IS above MAX_TLBI_OPS pages; DSB ISH).
 * arm64 keeps no mm_cpumask: the broadcast reaches every cpu of the
 * inner-shareable domain whether or not it ever ran the mm.
 * Tuned for: the eMAG mprotect figures of CALIBRATION.md 4.1-4.4.
 */
#include "policies/policies.h"

static void arm64_flush_range(struct tlbsim_pctx *ctx, const struct tlbsim_flush_info *info)
{
	ctx->ops->tlbi_broadcast(ctx, info);
}

const struct tlbsim_policy tlbsim_policy_arm64_stock = {
	.name = "arm64-stock",
	.summary = "broadcast TLBI ...IS + DSB ISH for every flush",
	.source = "Linux arch/arm64/include/asm/tlbflush.h (__flush_tlb_range, flush_tlb_mm)",
	.abi = TLBSIM_POLICY_ABI,
	.isa_mask = TLBSIM_ISA_BIT(TLBSIM_ISA_ARM64),
	.flush_range = arm64_flush_range,
};
