/* SPDX-License-Identifier: MIT */
/*
 * x86-invlpgb: AMD broadcast invalidation with global ASIDs (merged in
 * Linux 6.15, arch/x86/mm/tlb.c: consider_global_asid(),
 * use_global_asid(), broadcast_tlb_flush(); CALIBRATION.md 5.8-5.11).
 *   An mm active on at least min_cpus cpus when it is flushed gets a
 *   global ASID (consider_global_asid() from flush_tlb_mm_range()), the
 *   same PCID on every cpu; its flushes are INVLPGB (final-translation-only
 *   unless page tables were freed, in chunks of invlpgb_max_pages) and one
 *   TLBSYNC on the same cpu.  Cpus still running it on a per-cpu PCID
 *   (the transition) also get IPIs.  Other mms are flushed as x86-stock.
 *   The threshold rises by one each time the pool of free global ASIDs
 *   halves, as the series' cover letter proposed (the merged code uses a
 *   fixed "more than 3"; min_cpus=4 with grow=0 gives that).
 * Parameters: min_cpus=N (default 3), grow=0|1 (default 1), ceiling=N;
 * mutations (policies/x86.h) and migrate_before_tlbsync=1: the task is
 * migrated to the next cpu between its INVLPGBs and its TLBSYNC, which
 * then waits for none of them (forbidden in Linux by cant_migrate() in
 * __tlbsync(), arch/x86/include/asm/tlb.h, v6.15).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/policies.h"
#include "policies/x86.h"
#include "tlbsim/error.h"

struct invlpgb_params {
	struct x86_params x86; /* first: x86_apply_ceiling() reads it */
	unsigned min_cpus;
	unsigned grow;
	unsigned migrate_before_tlbsync; /* mutation, see invlpgb_flush_range() */
	unsigned pool; /* free global ASIDs at the first allocation */
};

/* min_cpus=N, grow=0|1: the keys x86_params_parse() leaves to us. */
static int invlpgb_key(const char *s, void *arg)
{
	struct invlpgb_params *p = arg;
	unsigned v;
	int n = 0;

	if (sscanf(s, "min_cpus=%u%n", &v, &n) == 1 && v >= 1)
		p->min_cpus = v;
	else if (sscanf(s, "grow=%u%n", &v, &n) == 1 && v <= 1)
		p->grow = v;
	else if (sscanf(s, "migrate_before_tlbsync=%u%n", &v, &n) == 1 && v <= 1)
		p->migrate_before_tlbsync = v;
	else
		n = 0;
	return n;
}

static int invlpgb_init(const char *params, void **state)
{
	struct invlpgb_params *p = calloc(1, sizeof(*p));

	if (!p)
		return -TLBSIM_ENOMEM;
	p->min_cpus = 3;
	p->grow = 1;
	if (x86_params_parse(params, &p->x86, invlpgb_key, p)) {
		free(p);
		return -TLBSIM_EINVAL;
	}
	*state = p;
	return 0;
}

/* The threshold now: min_cpus, plus one per halving of the pool. */
static unsigned threshold(struct tlbsim_pctx *ctx)
{
	struct invlpgb_params *p = ctx->state;
	unsigned free = ctx->ops->global_asids_free(ctx), t = p->min_cpus, left;

	if (!p->pool)
		p->pool = free;
	if (!p->grow)
		return t;
	for (left = p->pool / 2; left && free < left; left /= 2)
		t++;
	return t;
}

/* mm_active_cpus_exceeds(): cpus of mm_cpumask that have it loaded. */
static unsigned active_cpus(struct tlbsim_pctx *ctx, struct tlbsim_mm *mm)
{
	unsigned cpu, n = 0, nr_cpus = ctx->ops->nr_cpus(ctx);

	tlbsim_for_each_cpu_below(cpu, &mm->cpumask, nr_cpus)
		if (ctx->ops->cpu(ctx, cpu)->loaded_mm == mm)
			n++;
	return n;
}

static void consider_global_asid(struct tlbsim_pctx *ctx, struct tlbsim_mm *mm)
{
	uint16_t asid;

	if (mm->global_asid || !ctx->machine->costs.invlpgb_max_pages)
		return;
	if (active_cpus(ctx, mm) >= threshold(ctx) && !ctx->ops->global_asid_alloc(ctx, &asid)) {
		/* mm_assign_global_asid(): mm->context.global_asid and
		 * asid_transition, beside tlb_gen. */
		ctx->ops->touch_line(ctx, mm, TLBSIM_LINE_TLB_GEN, 0, TLBSIM_LINE_WRITE);
		mm->global_asid = asid;
	}
}

static void invlpgb_switch_mm(struct tlbsim_pctx *ctx, struct tlbsim_mm *prev,
			      struct tlbsim_mm *next)
{
	x86_switch_lines(ctx, prev, next, false);
	if (prev != next) {
		if (prev)
			tlbsim_cpumask_clear(&prev->cpumask, ctx->cpu->id);
		tlbsim_cpumask_set(&next->cpumask, ctx->cpu->id);
	}
	/* No consider_global_asid() here: as in Linux, only a flush
	 * allocates, since reclaiming the pool (INVLPGB + TLBSYNC) waits,
	 * and switch_mm must not. */
	ctx->ops->load_mm(ctx, next);
}

static void invlpgb_flush_range(struct tlbsim_pctx *ctx, const struct tlbsim_flush_info *req)
{
	struct tlbsim_flush_info info;
	struct tlbsim_cpumask transition;
	unsigned cpu, nr_cpus = ctx->ops->nr_cpus(ctx);

	consider_global_asid(ctx, req->mm);
	if (!req->mm->global_asid) {
		x86_flush_tlb_mm_range(ctx, req);
		return;
	}
	x86_flush_lines(ctx, req->mm);
	x86_apply_ceiling(ctx, req, &info);
	x86_mutate_request(ctx, &info);
	/* broadcast_tlb_flush(): every cpu, whatever it runs. */
	ctx->ops->invlpgb(ctx, &info, info.mm->global_asid);
	/* finish_asid_transition(): cpus still on a per-cpu PCID. */
	tlbsim_cpumask_zero(&transition);
	tlbsim_for_each_cpu_below(cpu, &info.mm->cpumask, nr_cpus) {
		struct tlbsim_cpu *c = ctx->ops->cpu(ctx, cpu);

		if (cpu != ctx->cpu->id && c->loaded_mm == info.mm &&
		    c->loaded_asid != info.mm->global_asid)
			tlbsim_cpumask_set(&transition, cpu);
	}
	ctx->ops->send_ipi(ctx, &transition, &info);
	if (ctx->cpu->loaded_mm == info.mm && ctx->cpu->loaded_asid != info.mm->global_asid)
		x86_flush_tlb_func(ctx, &info, false);
	if (((const struct invlpgb_params *)ctx->state)->x86.no_tlbsync)
		return;
	if (((const struct invlpgb_params *)ctx->state)->migrate_before_tlbsync) {
		/* Mutation: the flush runs preemptible, the task is migrated
		 * to the next cpu after its INVLPGBs, and its TLBSYNC runs
		 * there, waiting for none of them (Linux's __tlbsync() has
		 * cant_migrate() against exactly this). */
		ctx->ops->tlbsync_migrated(ctx, (ctx->cpu->id + 1) % ctx->ops->nr_cpus(ctx));
		return;
	}
	ctx->ops->tlbsync(ctx);
}

static void invlpgb_ipi_handler(struct tlbsim_pctx *ctx, const struct tlbsim_flush_info *info)
{
	x86_flush_tlb_func(ctx, info, false);
}

static void invlpgb_exit_mm(struct tlbsim_pctx *ctx, struct tlbsim_mm *mm)
{
	/* destroy_context_free_global_asid() */
	if (mm->global_asid) {
		ctx->ops->global_asid_free(ctx, mm->global_asid);
		mm->global_asid = 0;
	}
}

const struct tlbsim_policy tlbsim_policy_x86_invlpgb = {
	.name = "x86-invlpgb",
	.summary = "mms on >= 3 cpus get a global ASID and INVLPGB+TLBSYNC, others IPIs",
	.source = "Linux arch/x86/mm/tlb.c (v6.15 AMD broadcast TLB invalidation)",
	.abi = TLBSIM_POLICY_ABI,
	.isa_mask = TLBSIM_ISA_BIT(TLBSIM_ISA_X86_64),
	.init = invlpgb_init,
	.switch_mm = invlpgb_switch_mm,
	.flush_range = invlpgb_flush_range,
	.ipi_handler = invlpgb_ipi_handler,
	.exit_mm = invlpgb_exit_mm,
};
