/* SPDX-License-Identifier: MIT */
/*
 * Loading an address space on a cpu: the architecture half of switch_mm,
 * with ASID/PCID allocation.
 *
 * x86 (arch/x86/mm/tlb.c): six dynamic PCID slots per cpu
 * (TLB_NR_DYN_ASIDS); a slot remembers which mm it holds and the tlb_gen
 * the cpu has flushed it to; choose_new_asid() reuses the mm's slot (a
 * flush only if its tlb_gen is behind) or recycles the next slot
 * round-robin with a flush; an mm with a global ASID uses it everywhere
 * and is kept fresh by broadcasts.  The PCID written to CR3 is the slot + 1
 * (kern_pcid()).  Without PCIDs every CR3 write flushes.
 *
 * arm64 (arch/arm64/mm/context.c): 16-bit ASIDs allocated per generation;
 * an mm whose ASID is from an older generation gets a new one; when the
 * space is exhausted the generation rolls over, ASIDs in use on cpus are
 * kept (reserved), and every cpu flushes its whole TLB at its next switch.
 */
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "os/os.h"

/* ---- arm64 ASIDs ----------------------------------------------------------- */

static unsigned asid_count(const struct os *os)
{
	return os->m->asid_bits ? 1u << os->m->asid_bits : 1;
}

static bool asid_used(const struct os *os, unsigned a)
{
	return (os->asid_map[a / 64] >> (a % 64)) & 1;
}

static void asid_take(struct os *os, unsigned a)
{
	os->asid_map[a / 64] |= 1ull << (a % 64);
}

/* flush_context(): a new generation; ASIDs live on cpus stay reserved. */
static void asid_rollover(struct os *os)
{
	unsigned i, words = (asid_count(os) + 63) / 64;

	os->asid_gen++;
	os->st.asid_rollovers++;
	memset(os->asid_map, 0, words * sizeof(uint64_t));
	asid_take(os, 0); /* ASID 0 is reserved for the kernel */
	for (i = 0; i < os->m->nr_cpus; i++) {
		struct os_cpu *oc = &os->cpu[i];
		struct tlbsim_mm *mm = oc->pub.loaded_mm;

		if (mm) {
			asid_take(os, mm->asid);
			mm->asid_gen = os->asid_gen;
		}
		oc->arm64_flush_pending = true;
	}
	os->asid_next = 1;
}

static void arm64_new_context(struct os *os, struct hw_cpu *cpu, struct tlbsim_mm *mm)
{
	unsigned n = asid_count(os), tries;

	/* check_and_switch_context()'s slow path: new_context() under the
	 * system-wide cpu_asid_lock (arch/arm64/mm/context.c). */
	os_line(os, cpu, TLBSIM_LINE_ASID_LOCK, &os->asid_line, FAB_RMW, 0);
	/* Keep the old number if it is still free in this generation. */
	if (mm->asid && !asid_used(os, mm->asid)) {
		asid_take(os, mm->asid);
		mm->asid_gen = os->asid_gen;
		return;
	}
	for (tries = 0; tries < 2; tries++) {
		unsigned a;

		for (a = os->asid_next; a < n; a++)
			if (!asid_used(os, a)) {
				asid_take(os, a);
				os->asid_next = a + 1;
				mm->asid = (uint16_t)a;
				mm->asid_gen = os->asid_gen;
				return;
			}
		asid_rollover(os);
	}
	BUG_ON(1, "a fresh generation has a free ASID");
}

static void arm64_load(struct os *os, struct hw_cpu *cpu, struct tlbsim_mm *next)
{
	struct os_cpu *oc = os_cpu_of(cpu);

	if (next->asid_gen != os->asid_gen || !next->asid)
		arm64_new_context(os, cpu, next);
	if (oc->arm64_flush_pending) {
		hw_tlbi_local(&os->smp, cpu, TLBSIM_TLBI_VMALLE1, 0, 0);
		hw_charge(cpu, os->m->costs.dsb);
		oc->arm64_flush_pending = false;
	}
	hw_write_ttbr0(&os->smp, cpu, tlbsim_pgtable_root(os_mm_of(next)->pgt), next->asid);
	oc->pub.loaded_asid = next->asid;
}

/* ---- x86 PCIDs --------------------------------------------------------------- */

static void x86_load(struct os *os, struct hw_cpu *cpu, struct tlbsim_mm *next)
{
	struct tlbsim_cpu *c = &os_cpu_of(cpu)->pub;
	uint64_t root = tlbsim_pgtable_root(os_mm_of(next)->pgt);
	bool need_flush = true;
	unsigned slot;

	if (!os->m->asid_bits) {
		/* No PCIDs: one context, every CR3 write flushes it. */
		if (c->loaded_mm == next && c->ctxs[0].ctx_id == next->id &&
		    c->ctxs[0].tlb_gen == next->tlb_gen)
			return;
		c->ctxs[0].ctx_id = next->id;
		c->ctxs[0].tlb_gen = next->tlb_gen;
		hw_write_cr3(&os->smp, cpu, root, 0, false);
		c->loaded_asid = 0;
		return;
	}
	if (next->global_asid) {
		/* Broadcast invalidation keeps a global ASID fresh
		 * everywhere: no flush at switch. */
		if (c->loaded_mm != next || c->loaded_asid != next->global_asid)
			hw_write_cr3(&os->smp, cpu, root, next->global_asid, true);
		c->loaded_asid = next->global_asid;
		return;
	}
	for (slot = 0; slot < TLBSIM_X86_DYN_ASIDS; slot++)
		if (c->ctxs[slot].ctx_id == next->id) {
			need_flush = c->ctxs[slot].tlb_gen < next->tlb_gen;
			break;
		}
	if (slot == TLBSIM_X86_DYN_ASIDS) {
		slot = c->next_asid;
		c->next_asid = (c->next_asid + 1) % TLBSIM_X86_DYN_ASIDS;
	}
	/* Same mm, same slot, up to date (leaving lazy mode): no CR3 write. */
	if (c->loaded_mm == next && c->loaded_asid == slot && !need_flush)
		return;
	if (need_flush) {
		c->ctxs[slot].ctx_id = next->id;
		c->ctxs[slot].tlb_gen = next->tlb_gen;
	}
	hw_write_cr3(&os->smp, cpu, root, (uint16_t)(slot + 1), !need_flush);
	c->loaded_asid = (uint16_t)slot;
}

/* ---- entry points ---------------------------------------------------------------- */

void os_load_mm(struct tlbsim_pctx *ctx, struct tlbsim_mm *next)
{
	struct os *os = ctx->os;
	struct hw_cpu *cpu = os_hw(os, ctx->cpu->id);

	hw_charge(cpu, os->m->costs.switch_mm);
	if (os->m->isa == TLBSIM_ISA_X86_64)
		x86_load(os, cpu, next);
	else
		arm64_load(os, cpu, next);
	ctx->cpu->loaded_mm = next;
	ctx->cpu->is_lazy = false;
}

void os_switch_mm(struct os *os, struct hw_cpu *cpu, struct os_mm *next)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	struct tlbsim_pctx ctx;

	os_pctx(os, cpu, &os->pol.switch_mm, &ctx);
	oc->in_switch = true;
	if (os->pol.switch_mm.p)
		os->pol.switch_mm.p->switch_mm(&ctx, oc->pub.loaded_mm, &next->pub);
	else
		os_load_mm(&ctx, &next->pub);
	oc->in_switch = false;
	BUG_ON(cpu->core->state == ENG_BLOCKED, "switch_mm does not wait");
	BUG_ON(oc->pub.loaded_mm != &next->pub, "switch_mm loads the next mm");
}

void os_enter_lazy(struct os *os, struct hw_cpu *cpu, bool to_idle)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	struct tlbsim_pctx ctx;

	if (!oc->pub.loaded_mm)
		return;
	oc->pub.is_lazy = true;
	if (to_idle && os->pol.enter_lazy.p) {
		os_pctx(os, cpu, &os->pol.enter_lazy, &ctx);
		oc->in_switch = true;
		os->pol.enter_lazy.p->enter_lazy(&ctx, oc->pub.loaded_mm);
		oc->in_switch = false;
	}
}
