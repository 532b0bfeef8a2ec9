/* SPDX-License-Identifier: MIT */
/*
 * arm64-nr-active-mm: skip the TLBI broadcast for an mm active on at most
 * the current cpu (A. Arcangeli, "arm64: tlb: skip tlbi broadcast", 2020;
 * BACKGROUND.md 2).  Each mm counts the cpus on which it is the active mm
 * and which are not idle (nr_active_mm).  A flush with the count 1 and the
 * current cpu counted flushes locally and marks every other cpu stale in
 * a per-mm cpumask; with the count 0 it only marks; otherwise it
 * broadcasts.  A cpu switching to an mm in which it is stale flushes that
 * ASID locally first.
 * switch_mm moves the cpu's count to the next mm; a cpu that goes idle
 * leaves the count (the patch's enter_lazy_tlb() for the idle task, with
 * cpu_not_lazy_tlb) and rejoins at its next switch_mm.  So a thread that
 * sleeps does not keep its mm's flushes broadcast: the very case of the
 * calibration (CALIBRATION.md 4.2).  The patch also points TTBR0 at the
 * reserved zero page there; that write is not modelled (the idle cpu's
 * walk-cache entries of the ASID stay, as they would).
 * Known unsafe points (the review of the series): other cpus may keep
 * walk-cache entries of the ASID after a local-only flush, so a freed and
 * reused table can be walked speculatively; and MSR TTBR0; ISB does not
 * complete walks in flight for the old mm: a DSB is needed before the cpu
 * leaves nr_active_mm.  Parameter dsb_after_ttbr=1 adds that DSB.
 * Break-before-make: a cpu that ran the mm and then left nr_active_mm
 * (went idle with the mm loaded, or switched to another mm) gets no TLBI
 * from a local-only flush; it flushes the ASID only at its next switch_mm
 * to the mm, after its TTBR0 write.  Until then it still caches the old
 * translations, so a page or a table replaced meanwhile (valid, invalid,
 * valid with another output address) has not had its break completed on
 * that cpu (docs/hazard-rules.md rules 4 and 10).  `--check` reports these
 * as bbm (emag-32: hackbench, madvise-threads with threads=32): a real
 * hazard of the scheme, not an artefact of the oracle, which accepts a
 * local TLBI + DSB on every cpu that loaded the mm (flush-all: none).
 * Shared lines (the line model): switch_mm moves the counts with atomics
 * on both mms' nr_active_mm lines and reads the stale cpumask (the mm's
 * mm_cpumask, which the patch reuses for it); a flush reads nr_active_mm
 * and the stale mask, stores the whole mask (a plain store) when some
 * other bit is clear, and clears its own bit (an atomic).
 * A kernel thread borrowing an mm (kthread_use_mm()) goes through
 * switch_mm and is counted like any task.  Mutation kthread_uncounted=1:
 * it is not counted (a kthread_use_mm() the skip does not see, the bug
 * class the first patch of the series fixed for use_mm() callers that
 * took no mm_users reference): a flush from the process's own cpu is then
 * local while the kernel thread's cpu still caches the mm
 * (tests/hazards/55-nr-active-mm-kthread-uncounted.tlbt).
 */
#include <stdio.h>
#include <stdlib.h>

#include "policies/policies.h"
#include "tlbsim/error.h"

struct nr_active_mm_priv {
	struct tlbsim_cpumask stale;
};

/* Per cpu: the mm whose nr_active this cpu is counted in, NULL while idle
 * (the patch's per-cpu cpu_not_lazy_tlb, and the mm it applies to). */
struct nr_active_cpu_priv {
	struct tlbsim_mm *counted;
};

struct nr_active_params {
	unsigned dsb_after_ttbr;
	unsigned kthread_uncounted;
};

/* "key=0|1,...": dsb_after_ttbr, kthread_uncounted. */
static int nr_active_init(const char *params, void **state)
{
	struct nr_active_params *p = calloc(1, sizeof(*p));
	const char *s = params;

	if (!p)
		return -TLBSIM_ENOMEM;
	while (*s) {
		unsigned v = 2;
		int n = 0;

		if (sscanf(s, "dsb_after_ttbr=%u%n", &v, &n) == 1 && v <= 1)
			p->dsb_after_ttbr = v;
		else if ((n = 0, sscanf(s, "kthread_uncounted=%u%n", &v, &n) == 1) && v <= 1)
			p->kthread_uncounted = v;
		else
			n = 0;
		if (!n || (s[n] && s[n] != ',')) {
			free(p);
			return -TLBSIM_EINVAL;
		}
		s += n + (s[n] == ',');
	}
	*state = p;
	return 0;
}

static struct nr_active_mm_priv *priv(struct tlbsim_pctx *ctx, struct tlbsim_mm *mm)
{
	return mm->priv[ctx->slot];
}

static struct nr_active_cpu_priv *cpu_priv(struct tlbsim_pctx *ctx)
{
	return ctx->cpu->priv[ctx->slot];
}

static void nr_active_switch_mm(struct tlbsim_pctx *ctx, struct tlbsim_mm *prev,
				struct tlbsim_mm *next)
{
	const struct nr_active_params *p = ctx->state;
	struct nr_active_cpu_priv *me = cpu_priv(ctx);
	unsigned cpu = ctx->cpu->id;

	(void)prev; /* me->counted says which mm this cpu leaves, if any */
	ctx->ops->load_mm(ctx, next);
	if (p && p->dsb_after_ttbr)
		ctx->ops->dsb(ctx);
	/* Coming back from idle (counted NULL) joins @next only; a switch
	 * between two mms moves the count.  The mutation leaves a kernel
	 * thread's borrowed mm uncounted (it still leaves the old one). */
	if (me->counted != next) {
		bool count = !(p && p->kthread_uncounted && ctx->cpu->kthread);

		if (me->counted) {
			ctx->ops->touch_line(ctx, me->counted, TLBSIM_LINE_NR_ACTIVE_MM, 0,
					     TLBSIM_LINE_RMW);
			me->counted->nr_active--;
		}
		me->counted = NULL;
		if (count) {
			ctx->ops->touch_line(ctx, next, TLBSIM_LINE_NR_ACTIVE_MM, 0,
					     TLBSIM_LINE_RMW);
			next->nr_active++;
			me->counted = next;
		}
	}
	ctx->ops->touch_line(ctx, next, TLBSIM_LINE_MM_CPUMASK, cpu, TLBSIM_LINE_READ);
	if (tlbsim_cpumask_test(&priv(ctx, next)->stale, cpu)) {
		struct tlbsim_flush_info all = {.mm = next, .start = 0, .end = TLBSIM_FLUSH_ALL,
						.stride_shift = 12, .freed_tables = true,
						.new_tlb_gen = next->tlb_gen, .initiator = cpu};

		ctx->ops->touch_line(ctx, next, TLBSIM_LINE_MM_CPUMASK, cpu, TLBSIM_LINE_RMW);
		tlbsim_cpumask_clear(&priv(ctx, next)->stale, cpu);
		ctx->ops->local_flush(ctx, &all);
	}
}

/* enter_lazy_tlb() for the idle task: this cpu no longer runs @mm. */
static void nr_active_enter_lazy(struct tlbsim_pctx *ctx, struct tlbsim_mm *mm)
{
	const struct nr_active_params *p = ctx->state;
	struct nr_active_cpu_priv *me = cpu_priv(ctx);

	(void)mm;
	if (!me->counted)
		return;
	/* Leaving nr_active_mm: complete the walks in flight first. */
	if (p && p->dsb_after_ttbr)
		ctx->ops->dsb(ctx);
	ctx->ops->touch_line(ctx, me->counted, TLBSIM_LINE_NR_ACTIVE_MM, 0, TLBSIM_LINE_RMW);
	me->counted->nr_active--;
	me->counted = NULL;
}

static void nr_active_flush_range(struct tlbsim_pctx *ctx, const struct tlbsim_flush_info *info)
{
	struct tlbsim_mm *mm = info->mm;
	/* tlb_flush_check(): "local" is current->active_mm == mm on a cpu
	 * that is not lazy, i.e. this cpu is the one counted. */
	bool is_local = cpu_priv(ctx)->counted == mm;
	struct tlbsim_cpumask *stale = &priv(ctx, mm)->stale;
	unsigned cpu, n = ctx->ops->nr_cpus(ctx);
	bool all_set = true;

	ctx->ops->touch_line(ctx, mm, TLBSIM_LINE_NR_ACTIVE_MM, 0, TLBSIM_LINE_READ);
	if (mm->nr_active > 1 || (mm->nr_active == 1 && !is_local)) {
		ctx->ops->tlbi_broadcast(ctx, info);
		return;
	}
	/* Every other cpu must flush the ASID before it runs the mm again;
	 * with nobody running it (TLB_FLUSH_NO) this cpu too.  The patch
	 * stores the whole mask only when some other bit is clear. */
	ctx->ops->touch_line(ctx, mm, TLBSIM_LINE_MM_CPUMASK, TLBSIM_LINE_ALL_CPUS,
			     TLBSIM_LINE_READ);
	for (cpu = 0; cpu < n && all_set; cpu++)
		all_set = cpu == ctx->cpu->id || tlbsim_cpumask_test(stale, cpu);
	if (!all_set)
		ctx->ops->touch_line(ctx, mm, TLBSIM_LINE_MM_CPUMASK, TLBSIM_LINE_ALL_CPUS,
				     TLBSIM_LINE_WRITE);
	tlbsim_cpumask_fill(stale, n);
	if (!is_local)
		return;
	ctx->ops->touch_line(ctx, mm, TLBSIM_LINE_MM_CPUMASK, ctx->cpu->id, TLBSIM_LINE_RMW);
	tlbsim_cpumask_clear(stale, ctx->cpu->id);
	ctx->ops->local_flush(ctx, info);
}

const struct tlbsim_policy tlbsim_policy_arm64_nr_active_mm = {
	.name = "arm64-nr-active-mm",
	.summary = "local TLBI when the mm is active only here, else broadcast",
	.source = "A. Arcangeli, arm64 tlbi broadcast skip (linux-arm-kernel, 2020)",
	.abi = TLBSIM_POLICY_ABI,
	.isa_mask = TLBSIM_ISA_BIT(TLBSIM_ISA_ARM64),
	.mm_priv_size = sizeof(struct nr_active_mm_priv),
	.cpu_priv_size = sizeof(struct nr_active_cpu_priv),
	.init = nr_active_init,
	.switch_mm = nr_active_switch_mm,
	.flush_range = nr_active_flush_range,
	.enter_lazy = nr_active_enter_lazy,
};
