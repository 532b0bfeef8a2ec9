/* SPDX-License-Identifier: MIT */
/*
 * x86-stock: Linux's x86 TLB flushing (arch/x86/mm/tlb.c, v6.x without
 * INVLPGB).
 *   switch_mm     the cpu leaves prev's mm_cpumask and joins next's (two
 *                 atomics on contended lines), reads next's tlb_gen, then
 *                 loads next (PCID slot, tlb_gen check, CR3); leaving lazy
 *                 mode on the same mm it tests its bit and reads tlb_gen
 *   flush         tlb_gen incremented (an atomic), mm_cpumask read;
 *                 above the 33-page ceiling a full flush; IPIs to the other
 *                 cpus of mm_cpumask, skipping lazy ones unless page tables
 *                 are freed (native_flush_tlb_multi()); local flush
 *                 meanwhile; wait for the acknowledgements
 *   IPI handler   flush_tlb_func(): reads the mm's tlb_gen, flushes by it,
 *                 partial or full; a lazy cpu switches to init_mm, leaving
 *                 mm_cpumask (an atomic)
 * Tuned for: IPI shootdown cost on Intel and AMD servers (CALIBRATION.md 1).
 * Parameter: ceiling=N pages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/policies.h"
#include "policies/x86.h"
#include "tlbsim/error.h"

int x86_params_parse(const char *params, struct x86_params *p,
		     int (*extra)(const char *s, void *arg), void *arg)
{
	static const char *const flags[] = {"lazy_skip_tables", "no_freed_tables", "ack_early",
					    "no_tlbsync", "skip_switching"};
	unsigned *flag_of[] = {&p->lazy_skip_tables, &p->no_freed_tables, &p->ack_early,
			       &p->no_tlbsync, &p->skip_switching};
	const char *s = params;

	p->ceiling = X86_FLUSH_CEILING;
	while (*s) {
		unsigned v, i;
		int n = extra ? extra(s, arg) : 0;

		if (!n && sscanf(s, "ceiling=%u%n", &v, &n) == 1)
			p->ceiling = v;
		for (i = 0; !n && i < sizeof(flags) / sizeof(flags[0]); i++) {
			size_t len = strlen(flags[i]);

			if (!strncmp(s, flags[i], len) && s[len] == '=' && (s[len + 1] == '0' || s[len + 1] == '1')) {
				*flag_of[i] = (unsigned)(s[len + 1] - '0');
				n = (int)len + 2;
			}
		}
		if (!n || (s[n] && s[n] != ','))
			return -TLBSIM_EINVAL;
		s += n + (s[n] == ',');
	}
	return 0;
}

int x86_params_init(const char *params, void **state)
{
	struct x86_params *p = calloc(1, sizeof(*p));

	if (!p)
		return -TLBSIM_ENOMEM;
	if (x86_params_parse(params, p, NULL, NULL)) {
		free(p);
		return -TLBSIM_EINVAL;
	}
	*state = p;
	return 0;
}

void x86_mutate_request(struct tlbsim_pctx *ctx, struct tlbsim_flush_info *info)
{
	const struct x86_params *p = ctx->state;

	if (p && p->no_freed_tables)
		info->freed_tables = false;
}

void x86_apply_ceiling(struct tlbsim_pctx *ctx, const struct tlbsim_flush_info *info,
		       struct tlbsim_flush_info *out)
{
	const struct x86_params *p = ctx->state;
	unsigned ceiling = p ? p->ceiling : X86_FLUSH_CEILING;

	*out = *info;
	if (out->end != TLBSIM_FLUSH_ALL && ((out->end - out->start) >> out->stride_shift) > ceiling) {
		out->start = 0;
		out->end = TLBSIM_FLUSH_ALL;
	}
}

void x86_flush_tlb_func(struct tlbsim_pctx *ctx, const struct tlbsim_flush_info *info,
			bool clear_stale_bit)
{
	struct tlbsim_cpu *c = ctx->cpu;
	struct tlbsim_mm *mm = c->loaded_mm;
	uint64_t local_gen, mm_gen;

	if (mm != info->mm) {
		/* Switched away since the initiator read mm_cpumask. */
		if (clear_stale_bit) {
			ctx->ops->touch_line(ctx, info->mm, TLBSIM_LINE_MM_CPUMASK, c->id,
					     TLBSIM_LINE_RMW);
			tlbsim_cpumask_clear_atomic(&info->mm->cpumask, c->id);
		}
		return;
	}
	if (c->is_lazy) {
		/* Only a flush that frees tables reaches a lazy cpu: stop
		 * using the mm's tables at all, so no speculative walk can
		 * reach the freed ones (switch_mm_irqs_off(NULL, &init_mm)
		 * clears the bit). */
		ctx->ops->touch_line(ctx, mm, TLBSIM_LINE_MM_CPUMASK, c->id, TLBSIM_LINE_RMW);
		tlbsim_cpumask_clear_atomic(&mm->cpumask, c->id);
		ctx->ops->leave_mm(ctx);
		return;
	}
	if (mm->global_asid) {
		/*
		 * INVLPGB keeps the global ASID up to date.  A cpu still on its
		 * dynamic PCID (the IPI of finish_asid_transition()) moves to
		 * the global one, as Linux's "reload the ASID if transitioning
		 * into or out of a global ASID": the stale entries stay behind
		 * under a PCID this cpu no longer uses for the mm.  Flushing
		 * the global PCID instead would leave them in use.
		 */
		if (c->loaded_asid != mm->global_asid)
			ctx->ops->load_mm(ctx, mm);
		return;
	}
	local_gen = c->ctxs[c->loaded_asid].tlb_gen;
	/* atomic64_read(&mm->context.tlb_gen): the initiator's line. */
	ctx->ops->touch_line(ctx, mm, TLBSIM_LINE_TLB_GEN, 0, TLBSIM_LINE_READ);
	mm_gen = mm->tlb_gen;
	if (local_gen == mm_gen)
		return; /* a later flush already covered this one */
	/*
	 * Partial only when this request is the single generation this cpu
	 * missed: e.g. local 4, request 5, mm 5.  With local 3 and requests
	 * 4 and 5 both pending, the range of 5 alone is not enough: full.
	 */
	if (info->end != TLBSIM_FLUSH_ALL && info->new_tlb_gen == local_gen + 1 &&
	    info->new_tlb_gen == mm_gen) {
		ctx->ops->local_flush(ctx, info);
	} else {
		struct tlbsim_flush_info all = *info;

		all.start = 0;
		all.end = TLBSIM_FLUSH_ALL;
		ctx->ops->local_flush(ctx, &all);
	}
	c->ctxs[c->loaded_asid].tlb_gen = mm_gen;
}

void x86_flush_lines(struct tlbsim_pctx *ctx, struct tlbsim_mm *mm)
{
	/* inc_mm_tlb_gen(): atomic64_inc_return(). */
	ctx->ops->touch_line(ctx, mm, TLBSIM_LINE_TLB_GEN, 0, TLBSIM_LINE_RMW);
	ctx->ops->touch_line(ctx, mm, TLBSIM_LINE_MM_CPUMASK, TLBSIM_LINE_ALL_CPUS,
			     TLBSIM_LINE_READ);
}

void x86_switch_lines(struct tlbsim_pctx *ctx, struct tlbsim_mm *prev, struct tlbsim_mm *next,
		      bool lazy_cpumask)
{
	unsigned me = ctx->cpu->id;

	if (prev == next) {
		/* Leaving lazy mode: the WARN's cpumask_test_cpu(), then
		 * tlb_gen to see whether a flush was missed. */
		ctx->ops->touch_line(ctx, next, TLBSIM_LINE_MM_CPUMASK, me, TLBSIM_LINE_READ);
	} else if (lazy_cpumask) {
		/* Set the bit only if a flush IPI cleared it. */
		ctx->ops->touch_line(ctx, next, TLBSIM_LINE_MM_CPUMASK, me, TLBSIM_LINE_READ);
		if (!tlbsim_cpumask_test(&next->cpumask, me))
			ctx->ops->touch_line(ctx, next, TLBSIM_LINE_MM_CPUMASK, me,
					     TLBSIM_LINE_RMW);
	} else {
		if (prev)
			ctx->ops->touch_line(ctx, prev, TLBSIM_LINE_MM_CPUMASK, me,
					     TLBSIM_LINE_RMW);
		ctx->ops->touch_line(ctx, next, TLBSIM_LINE_MM_CPUMASK, me, TLBSIM_LINE_RMW);
	}
	/* Read tlb_gen only after joining mm_cpumask, or a concurrent
	 * flush can be missed. */
	ctx->ops->touch_line(ctx, next, TLBSIM_LINE_TLB_GEN, 0, TLBSIM_LINE_READ);
}

void x86_flush_tlb_mm_range(struct tlbsim_pctx *ctx, const struct tlbsim_flush_info *req)
{
	struct tlbsim_flush_info info;
	struct tlbsim_cpumask targets;
	unsigned cpu, nr_cpus = ctx->ops->nr_cpus(ctx);

	const struct x86_params *p = ctx->state;

	x86_flush_lines(ctx, req->mm);
	x86_apply_ceiling(ctx, req, &info);
	x86_mutate_request(ctx, &info);
	tlbsim_cpumask_zero(&targets);
	tlbsim_for_each_cpu_below(cpu, &info.mm->cpumask, nr_cpus) {
		if (cpu == ctx->cpu->id)
			continue;
		/* should_flush_tlb(): lazy cpus are skipped unless tables go. */
		if ((!info.freed_tables || (p && p->lazy_skip_tables)) &&
		    ctx->ops->cpu(ctx, cpu)->is_lazy)
			continue;
		/* A cpu switching to the mm (LOADED_MM_SWITCHING) may hold its
		 * entries under a CR3 loaded without a flush: it is flushed
		 * (fea4e317f9e7); the mutation skips it. */
		if (p && p->skip_switching && ctx->ops->cpu(ctx, cpu)->switching)
			continue;
		tlbsim_cpumask_set(&targets, cpu);
	}
	/* Remote and local flushes run concurrently (Linux >= 5.x). */
	ctx->ops->send_ipi(ctx, &targets, &info);
	if (ctx->cpu->loaded_mm == info.mm)
		x86_flush_tlb_func(ctx, &info, false);
}

static void stock_switch_mm(struct tlbsim_pctx *ctx, struct tlbsim_mm *prev, struct tlbsim_mm *next)
{
	x86_switch_lines(ctx, prev, next, false);
	if (prev != next) {
		if (prev)
			tlbsim_cpumask_clear(&prev->cpumask, ctx->cpu->id);
		tlbsim_cpumask_set(&next->cpumask, ctx->cpu->id);
	}
	ctx->ops->load_mm(ctx, next);
}

static void stock_ipi_handler(struct tlbsim_pctx *ctx, const struct tlbsim_flush_info *info)
{
	const struct x86_params *p = ctx->state;

	if (p && p->ack_early)
		return; /* mutation: acknowledged, not flushed (tlb_gen stays behind) */
	x86_flush_tlb_func(ctx, info, false);
}

const struct tlbsim_policy tlbsim_policy_x86_stock = {
	.name = "x86-stock",
	.summary = "IPI shootdown to mm_cpumask, lazy cpus skipped unless tables are freed",
	.source = "Linux arch/x86/mm/tlb.c (v6.x, flush_tlb_mm_range, flush_tlb_func)",
	.abi = TLBSIM_POLICY_ABI,
	.isa_mask = TLBSIM_ISA_BIT(TLBSIM_ISA_X86_64),
	.init = x86_params_init,
	.switch_mm = stock_switch_mm,
	.flush_range = x86_flush_tlb_mm_range,
	.ipi_handler = stock_ipi_handler,
};
