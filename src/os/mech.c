/* SPDX-License-Identifier: MIT */
/*
 * The mechanisms a flush policy may use (struct tlbsim_policy_ops), built on
 * the hardware's instructions (src/hw/smp.c), and the OS's flush entry point
 * (Linux flush_tlb_mm_range()'s common part: bump tlb_gen, hand the request
 * to the policy).
 */
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "os/os.h"
#include "tlbsim/error.h"

/* Linux arm64 MAX_TLBI_OPS = PTRS_PER_PTE: a range of that many strides
 * or more is one ASID-wide TLBI ("(end - start) >= MAX_TLBI_OPS * stride",
 * __flush_tlb_range(); CALIBRATION.md 3.10). */
#define ARM64_MAX_TLBI_OPS 512

static struct os *os_of(struct tlbsim_pctx *ctx)
{
	return ctx->os;
}

static struct hw_cpu *hw_of(struct tlbsim_pctx *ctx)
{
	return os_hw(ctx->os, ctx->cpu->id);
}

static void mark(struct tlbsim_pctx *ctx, unsigned kind)
{
	os_cpu_of(hw_of(ctx))->flush_kind |= kind;
}

void os_pctx(struct os *os, struct hw_cpu *cpu, const struct os_hook *h, struct tlbsim_pctx *ctx)
{
	ctx->ops = &os->ops;
	ctx->os = os;
	ctx->cpu = &os_cpu_of(cpu)->pub;
	ctx->machine = os->m;
	ctx->slot = h->slot;
	ctx->state = os->pol.state[h->slot];
}

static uint64_t nr_pages(const struct tlbsim_flush_info *info)
{
	if (info->end == TLBSIM_FLUSH_ALL)
		return UINT64_MAX;
	return (info->end - info->start) >> info->stride_shift;
}

static void m_local_flush(struct tlbsim_pctx *ctx, const struct tlbsim_flush_info *info)
{
	struct os *os = os_of(ctx);
	struct hw_cpu *cpu = hw_of(ctx);
	struct tlbsim_mm *mm = ctx->cpu->loaded_mm;
	uint64_t n = nr_pages(info), va;

	if (os->m->isa == TLBSIM_ISA_X86_64 && mm != info->mm)
		return;
	mm = info->mm;
	mark(ctx, OS_FK_LOCAL);
	if (os->m->isa == TLBSIM_ISA_X86_64) {
		if (n == UINT64_MAX) {
			/* flush_tlb_local(): reload CR3 without the no-flush
			 * bit (a global ASID: INVPCID single context). */
			uint16_t pcid = mm->global_asid ? mm->global_asid
					: os->m->asid_bits ? (uint16_t)(ctx->cpu->loaded_asid + 1) : 0;

			if (mm->global_asid)
				hw_invpcid(&os->smp, cpu, 1, pcid, 0);
			else
				hw_write_cr3(&os->smp, cpu, tlbsim_pgtable_root(os_mm_of(mm)->pgt), pcid,
					     false);
			return;
		}
		for (va = info->start; va < info->end; va += 1ull << info->stride_shift)
			hw_invlpg(&os->smp, cpu, va);
		return;
	}
	if (n >= ARM64_MAX_TLBI_OPS) {
		hw_tlbi_local(&os->smp, cpu, TLBSIM_TLBI_ASIDE1, 0, mm->asid);
	} else {
		enum tlbsim_tlbi_op op = info->freed_tables ? TLBSIM_TLBI_VAE1 : TLBSIM_TLBI_VALE1;

		for (va = info->start; va < info->end; va += 1ull << info->stride_shift)
			hw_tlbi_local(&os->smp, cpu, op, va, mm->asid);
	}
	/* DSB NSH completes a local TLBI; nothing is outstanding. */
	hw_dsb_local(&os->smp, cpu);
}

static void m_leave_mm(struct tlbsim_pctx *ctx)
{
	struct os *os = os_of(ctx);

	if (os->m->isa != TLBSIM_ISA_X86_64 || !ctx->cpu->loaded_mm)
		return;
	/* init_mm's tables hold no user mapping: the old PCID's entries
	 * become unreachable; tlb_gen brings them up to date on return. */
	hw_write_cr3(&os->smp, hw_of(ctx), tlbsim_pgtable_root(os->init_pgt), 0, true);
	ctx->cpu->loaded_mm = NULL;
	ctx->cpu->is_lazy = false;
}

/* A request for the whole of the mm @cpu has loaded (flush_tlb_func()
 * with f->mm == NULL): false when nothing is loaded. */
static bool loaded_mm_info(struct hw_cpu *cpu, unsigned initiator, struct tlbsim_flush_info *fi)
{
	struct tlbsim_mm *mm = os_cpu_of(cpu)->pub.loaded_mm;

	if (!mm)
		return false;
	*fi = (struct tlbsim_flush_info){.mm = mm,
					 .start = 0,
					 .end = TLBSIM_FLUSH_ALL,
					 .stride_shift = 12,
					 .new_tlb_gen = mm->tlb_gen,
					 .initiator = initiator};
	return true;
}

static void run_ipi_handler(struct os *os, struct hw_cpu *cpu, const struct tlbsim_flush_info *fi)
{
	struct tlbsim_pctx ctx;

	os_pctx(os, cpu, &os->pol.ipi_handler, &ctx);
	if (os->pol.ipi_handler.p)
		os->pol.ipi_handler.p->ipi_handler(&ctx, fi);
	else
		m_local_flush(&ctx, fi);
}

/* Runs on each IPI target: the policy's handler, as that cpu. */
static void ipi_trampoline(void *info, struct hw_smp *smp, struct hw_cpu *cpu)
{
	run_ipi_handler(container_of_smp(smp), cpu, info);
}

/* Runs on each target of os_flush_loaded_mms(); @info holds the
 * initiator's id. */
static void loaded_mm_trampoline(void *info, struct hw_smp *smp, struct hw_cpu *cpu)
{
	struct os *os = container_of_smp(smp);
	struct tlbsim_flush_info fi;

	if (loaded_mm_info(cpu, *(const unsigned *)info, &fi))
		run_ipi_handler(os, cpu, &fi);
}

void os_flush_loaded_mms(struct os *os, struct hw_cpu *cpu, const struct tlbsim_cpumask *targets)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	struct tlbsim_cpumask t;

	if (!tlbsim_cpumask_any_but(targets, cpu->id, os->m->nr_cpus))
		return;
	t = *targets;
	tlbsim_cpumask_clear(&t, cpu->id);
	oc->ipi_info = (struct tlbsim_flush_info){.initiator = cpu->id};
	oc->flush_kind |= OS_FK_IPI;
	hw_smp_ipi_many(&os->smp, cpu, &t, loaded_mm_trampoline, &oc->ipi_info.initiator);
}

void os_flush_loaded_mm_local(struct os *os, struct hw_cpu *cpu)
{
	struct tlbsim_flush_info fi;

	if (loaded_mm_info(cpu, cpu->id, &fi))
		run_ipi_handler(os, cpu, &fi);
}

static void m_send_ipi(struct tlbsim_pctx *ctx, const struct tlbsim_cpumask *targets,
		       const struct tlbsim_flush_info *info)
{
	struct os *os = os_of(ctx);
	struct hw_cpu *cpu = hw_of(ctx);
	struct os_cpu *oc = os_cpu_of(cpu);
	struct tlbsim_cpumask t;

	if (!tlbsim_cpumask_any_but(targets, cpu->id, os->m->nr_cpus))
		return;
	t = *targets;
	tlbsim_cpumask_clear(&t, cpu->id);
	/* The targets read the request while the initiator waits. */
	oc->ipi_info = *info;
	mark(ctx, OS_FK_IPI);
	hw_smp_ipi_many(&os->smp, cpu, &t, ipi_trampoline, &oc->ipi_info);
}

static void m_tlbi_broadcast(struct tlbsim_pctx *ctx, const struct tlbsim_flush_info *info)
{
	struct os *os = os_of(ctx);
	struct hw_cpu *cpu = hw_of(ctx);
	uint16_t asid = info->mm->asid;
	uint64_t n = nr_pages(info), va;

	BUG_ON(os->m->isa != TLBSIM_ISA_ARM64, "TLBI broadcast is arm64's");
	mark(ctx, OS_FK_BROADCAST);
	/* DSB ISHST: the PTE stores reach the walkers first. */
	hw_charge(cpu, os->m->costs.dsb);
	if (n >= ARM64_MAX_TLBI_OPS) {
		hw_tlbi_is(&os->smp, cpu, TLBSIM_TLBI_ASIDE1, 0, asid);
	} else {
		enum tlbsim_tlbi_op op = info->freed_tables ? TLBSIM_TLBI_VAE1 : TLBSIM_TLBI_VALE1;

		for (va = info->start; va < info->end; va += 1ull << info->stride_shift)
			hw_tlbi_is(&os->smp, cpu, op, va, asid);
	}
	hw_dsb(&os->smp, cpu);
}

static void m_invlpgb(struct tlbsim_pctx *ctx, const struct tlbsim_flush_info *info, uint16_t pcid)
{
	struct os *os = os_of(ctx);
	struct hw_cpu *cpu = hw_of(ctx);
	unsigned max = os->m->costs.invlpgb_max_pages;
	unsigned flags = TLBSIM_INVLPGB_PCID;
	bool wide = info->stride_shift > 21; /* 1 GiB pages */
	uint64_t va;

	BUG_ON(os->m->isa != TLBSIM_ISA_X86_64 || !max, "INVLPGB needs an AMD machine with it");
	mark(ctx, OS_FK_INVLPGB);
	if (!info->freed_tables)
		flags |= TLBSIM_INVLPGB_FINAL_ONLY;
	if (info->end == TLBSIM_FLUSH_ALL) {
		hw_invlpgb(&os->smp, cpu, 0, 1, 12, pcid, flags);
		return;
	}
	flags |= TLBSIM_INVLPGB_VA;
	/* INVLPGB strides by 4 KiB or 2 MiB only (ECX[31], AMD APM vol. 3
	 * INVLPGB). A wider stride (1 GiB pages) is one single-page INVLPGB
	 * per page: an address invalidates the entry of any size that maps
	 * it. Linux broadcast_tlb_flush() does the same (nr = 1, 4K stride,
	 * when stride_shift > PMD_SHIFT). */
	for (va = info->start; va < info->end;) {
		uint64_t left = (info->end - va) >> info->stride_shift;
		unsigned n = wide ? 1 : left > max ? max : (unsigned)left;

		hw_invlpgb(&os->smp, cpu, va, n, wide ? 12 : info->stride_shift, pcid, flags);
		va += (uint64_t)n << info->stride_shift;
	}
}

static void m_tlbsync(struct tlbsim_pctx *ctx)
{
	hw_tlbsync(&os_of(ctx)->smp, hw_of(ctx));
}

static void m_tlbsync_migrated(struct tlbsim_pctx *ctx, unsigned cpu)
{
	struct os *os = os_of(ctx);

	BUG_ON(cpu >= os->m->nr_cpus, "a task migrates to an existing cpu");
	hw_tlbsync_migrated(&os->smp, hw_of(ctx), os_hw(os, cpu));
}

static void m_dsb(struct tlbsim_pctx *ctx)
{
	hw_dsb(&os_of(ctx)->smp, hw_of(ctx));
}

static void m_free_tables(struct tlbsim_pctx *ctx, struct tlbsim_mm *mm, const uint64_t *pfns,
			  unsigned n)
{
	(void)mm;
	os_free_frames(os_of(ctx), pfns, n);
}

static void m_call_rcu_free_tables(struct tlbsim_pctx *ctx, struct tlbsim_mm *mm,
				   const uint64_t *pfns, unsigned n)
{
	(void)mm;
	os_rcu_call(os_of(ctx), hw_of(ctx), pfns, n);
}

/* ---- x86 global ASIDs (Linux arch/x86/mm/tlb.c, allocate_global_asid()) --- */

static unsigned gasid_limit(const struct os *os)
{
	/* PCIDs 1..6 are the dynamic slots; the pool is [7, 2^bits - 1). */
	return os->m->asid_bits ? (1u << os->m->asid_bits) - 1 : 0;
}

/* reset_global_asid_space(): freed ASIDs become reusable after every cpu
 * has dropped their entries: one INVLPGB of all non-global entries. */
static void gasid_reset(struct os *os, struct hw_cpu *cpu)
{
	unsigned a;

	os->st.global_asid_resets++;
	hw_invlpgb(&os->smp, cpu, 0, 1, 12, 0, 0);
	hw_tlbsync(&os->smp, cpu);
	for (a = TLBSIM_X86_DYN_ASIDS + 1; a < gasid_limit(os); a++)
		if (os->gasid_used[a] == 2) {
			os->gasid_used[a] = 0;
			os->gasid_avail++;
		}
	os->gasid_next = TLBSIM_X86_DYN_ASIDS + 1;
}

static int m_global_asid_alloc(struct tlbsim_pctx *ctx, uint16_t *asid)
{
	struct os *os = os_of(ctx);
	unsigned a, pass;

	if (!os->gasid_used)
		return -TLBSIM_EBUSY;
	/* use_global_asid(): under global_asid_lock, with its bitmap. */
	os_line(os, hw_of(ctx), TLBSIM_LINE_ASID_LOCK, &os->asid_line, FAB_RMW, 0);
	for (pass = 0; pass < 2; pass++) {
		for (a = os->gasid_next; a < gasid_limit(os); a++)
			if (!os->gasid_used[a]) {
				os->gasid_used[a] = 1;
				os->gasid_avail--;
				os->gasid_next = a + 1;
				*asid = (uint16_t)a;
				return 0;
			}
		gasid_reset(os, hw_of(ctx));
	}
	return -TLBSIM_EBUSY;
}

static void m_global_asid_free(struct tlbsim_pctx *ctx, uint16_t asid)
{
	struct os *os = os_of(ctx);

	if (os->gasid_used && asid < gasid_limit(os) && os->gasid_used[asid] == 1) {
		/* destroy_context_free_global_asid(): under global_asid_lock. */
		os_line(os, hw_of(ctx), TLBSIM_LINE_ASID_LOCK, &os->asid_line, FAB_RMW, 0);
		os->gasid_used[asid] = 2;
	}
}

static unsigned m_global_asids_free(struct tlbsim_pctx *ctx)
{
	return os_of(ctx)->gasid_avail;
}

static unsigned m_nr_cpus(struct tlbsim_pctx *ctx)
{
	return os_of(ctx)->m->nr_cpus;
}

static struct tlbsim_cpu *m_cpu(struct tlbsim_pctx *ctx, unsigned id)
{
	struct os *os = os_of(ctx);

	return id < os->m->nr_cpus ? &os->cpu[id].pub : NULL;
}

static void m_touch_line(struct tlbsim_pctx *ctx, struct tlbsim_mm *mm, enum tlbsim_line_kind kind,
			 unsigned cpu, enum tlbsim_line_access how)
{
	struct os *os = os_of(ctx);
	static const enum fab_op op[] = {FAB_READ, FAB_WRITE, FAB_RMW};
	unsigned first = cpu, last = cpu, i;

	BUG_ON((unsigned)how > TLBSIM_LINE_RMW, "a line is read, written or updated atomically");
	if (kind == TLBSIM_LINE_ASID_LOCK) {
		os_line(os, hw_of(ctx), kind, &os->asid_line, op[how], 0);
		return;
	}
	if (!mm || !os_mm_line(os_mm_of(mm), kind, 0))
		return;
	if (kind != TLBSIM_LINE_MM_CPUMASK) {
		os_line(os, hw_of(ctx), kind, os_mm_line(os_mm_of(mm), kind, 0), op[how], 0);
		return;
	}
	if (cpu == TLBSIM_LINE_ALL_CPUS) {
		first = 0;
		last = os->m->nr_cpus - 1;
	}
	BUG_ON(last >= os->m->nr_cpus, "an mm_cpumask line of an existing cpu");
	for (i = first / OS_CPUMASK_LINE_BITS; i <= last / OS_CPUMASK_LINE_BITS; i++)
		os_line(os, hw_of(ctx), kind, &os_mm_of(mm)->cpumask_line[i], op[how], 0);
}

int os_gasid_init(struct os *os)
{
	unsigned limit = gasid_limit(os);

	if (os->m->isa != TLBSIM_ISA_X86_64 || limit <= TLBSIM_X86_DYN_ASIDS + 1)
		return 0;
	os->gasid_used = calloc(limit, 1);
	if (!os->gasid_used)
		return -TLBSIM_ENOMEM;
	os->gasid_next = TLBSIM_X86_DYN_ASIDS + 1;
	os->gasid_avail = limit - (TLBSIM_X86_DYN_ASIDS + 1);
	return 0;
}

void os_ops_init(struct tlbsim_policy_ops *ops)
{
	memset(ops, 0, sizeof(*ops));
	ops->load_mm = os_load_mm;
	ops->leave_mm = m_leave_mm;
	ops->local_flush = m_local_flush;
	ops->send_ipi = m_send_ipi;
	ops->tlbi_broadcast = m_tlbi_broadcast;
	ops->invlpgb = m_invlpgb;
	ops->tlbsync = m_tlbsync;
	ops->dsb = m_dsb;
	ops->free_tables = m_free_tables;
	ops->call_rcu_free_tables = m_call_rcu_free_tables;
	ops->global_asid_alloc = m_global_asid_alloc;
	ops->global_asid_free = m_global_asid_free;
	ops->global_asids_free = m_global_asids_free;
	ops->nr_cpus = m_nr_cpus;
	ops->cpu = m_cpu;
	ops->touch_line = m_touch_line;
	ops->tlbsync_migrated = m_tlbsync_migrated;
}

/* ---- the flush entry point ----------------------------------------------------- */

void os_flush_range(struct os *os, struct hw_cpu *cpu, struct os_mm *mm, uint64_t start,
		    uint64_t end, unsigned stride_shift, bool freed_tables)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	struct tlbsim_flush_info info;
	struct tlbsim_pctx ctx;
	uint64_t busy0 = cpu->core->st.busy;

	/* inc_mm_tlb_gen(): the request's generation. */
	mm->pub.tlb_gen++;
	mm->st.flushes++;
	info = (struct tlbsim_flush_info){.mm = &mm->pub, .start = start, .end = end,
					  .stride_shift = stride_shift,
					  .freed_tables = freed_tables,
					  .new_tlb_gen = mm->pub.tlb_gen, .initiator = cpu->id};
	oc->flush_kind = 0;
	if (os->switching_shown || os->switch_window_end > cpu->core->now) {
		/* The cpus inside a switch_mm window at this flush's time
		 * (LOADED_MM_SWITCHING, os_load_mm()). */
		unsigned i;

		os->switching_shown = false;
		for (i = 0; i < os->m->nr_cpus; i++) {
			struct os_cpu *o = &os->cpu[i];

			o->pub.switching = i != cpu->id && o->switch_from <= cpu->core->now &&
					   cpu->core->now < o->switch_until;
			os->switching_shown |= o->pub.switching;
		}
	}
	os_pctx(os, cpu, &os->pol.flush_range, &ctx);
	os->pol.flush_range.p->flush_range(&ctx, &info);
	/* Only what was charged here: a wait for acknowledgements or a DSB
	 * passes later, as BLOCKED time (hw_cpu_stats.blocked_cycles). */
	oc->st.flush_cycles += cpu->core->st.busy - busy0;
	if (oc->flush_kind & OS_FK_IPI)
		oc->st.flushes_ipi++;
	else if (oc->flush_kind & OS_FK_BROADCAST)
		oc->st.flushes_broadcast++;
	else if (oc->flush_kind & OS_FK_INVLPGB)
		oc->st.flushes_invlpgb++;
	else if (oc->flush_kind & OS_FK_LOCAL)
		oc->st.flushes_local++;
	else
		oc->st.flushes_skipped++;
	if (end == TLBSIM_FLUSH_ALL) {
		oc->st.full_flushes++;
		mm->st.full_flushes++;
	}
}
