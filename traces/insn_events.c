/* SPDX-License-Identifier: MIT */
/*
 * From a decoded instruction and the operand values its trace line gave
 * to events (traces/FORMAT.md, "Instruction traces"): the meaning of
 * each operand register follows the manuals cited at each case.  An
 * operand the trace does not give makes an event with its unknown flag
 * when the kind has one, and otherwise no event and a count by mnemonic
 * with the reason ("mov cr3 (value unknown)"): never a guessed value.
 */
#include <stdlib.h>
#include <string.h>

#include "execlog.h"

/* The pseudo-thread of a cpu's user-level events: documented in FORMAT.md. */
#define CPU_TID(cpu) ((uint32_t)(cpu) + 1)

static struct tlbsim_event *push(struct xl_sink *s, uint8_t kind, uint16_t cpu)
{
	struct tlbsim_event *ev = &s->q[(s->q_head + s->q_len++) % XL_QUEUE];

	memset(ev, 0, sizeof(*ev));
	ev->kind = kind;
	ev->cpu = cpu;
	return ev;
}

void xl_flush_compute(struct xl_sink *s)
{
	struct tlbsim_event *ev;

	if (!s->pend_insns)
		return;
	ev = push(s, TLBSIM_EV_COMPUTE, s->pend_cpu);
	ev->tid = CPU_TID(s->pend_cpu);
	ev->compute.count = s->pend_insns;
	ev->compute.unit = TLBSIM_COMPUTE_INSNS;
	s->pend_insns = 0;
}

void xl_count_unknown(struct xl_sink *s, const char *name)
{
	int i;

	s->stats->unknown_insns++;
	for (i = 0; i < s->nr_mn; i++)
		if (strcmp(s->mn[i].name, name) == 0)
			break;
	if (i == s->nr_mn) {
		/* The last slot counts every mnemonic that finds the others
		 * full, so that the counts still add up to unknown_insns. */
		if (s->nr_mn >= XL_MAX_MNEMONICS - 1) {
			i = XL_MAX_MNEMONICS - 1;
			name = "(other)";
		}
		if (i == s->nr_mn) {
			s->nr_mn++;
			snprintf(s->mn[i].name, sizeof(s->mn[i].name), "%s", name);
			s->mn[i].count = 0;
		}
	}
	s->mn[i].count++;
}

static int by_count(const void *a, const void *b)
{
	const struct xl_mnemonic *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

size_t xl_insn_counts(const struct xl_sink *s, struct tlbsim_trace_insn_count *out, size_t max)
{
	struct xl_mnemonic *sorted;

	if (!max || !s->nr_mn)
		return (size_t)s->nr_mn;
	sorted = malloc((size_t)s->nr_mn * sizeof(*sorted));
	if (!sorted)
		return (size_t)s->nr_mn;
	memcpy(sorted, s->mn, (size_t)s->nr_mn * sizeof(*sorted));
	qsort(sorted, (size_t)s->nr_mn, sizeof(*sorted), by_count);
	for (size_t i = 0; i < max && i < (size_t)s->nr_mn; i++) {
		snprintf(out[i].mnemonic, sizeof(out[i].mnemonic), "%s", sorted[i].name);
		out[i].count = sorted[i].count;
	}
	free(sorted);
	return (size_t)s->nr_mn;
}

/* The value of register @r before the instruction; 0 when unknown. */
static int reg_value(const struct xl_regs *regs, int r, int reg32, uint64_t *v)
{
	if (r == INSN_REG_XZR) {
		*v = 0;
		return 1;
	}
	if (r < 0 || !(regs->known & (UINT64_C(1) << r)))
		return 0;
	*v = reg32 ? (uint32_t)regs->regs[r] : regs->regs[r];
	return 1;
}

/* Sign-extend @v from bit @bit (a VA's top bit, copied upwards as in a canonical VA). */
static uint64_t sext(uint64_t v, unsigned bit)
{
	uint64_t m = UINT64_C(1) << bit;

	v &= (m << 1) - 1;
	return (v ^ m) - m;
}

static void accesses(struct xl_sink *s, const struct xl_line *l, const struct insn_tmpl *t,
		     const struct xl_regs *regs)
{
	unsigned size = t->mem_size ? t->mem_size : 1; /* unknown: one byte, as ChampSim's */
	int nth_store = 0;

	for (int i = 0; i < l->nr_acc; i++) {
		const struct xl_access *a = &l->acc[i];
		struct tlbsim_event *ev;
		uint64_t v = 0;
		int known = 0;

		if (a->store) {
			if (a->has_value)
				v = a->value, known = 1;
			else if (nth_store < 2 && t->st_reg[nth_store] != INSN_REG_NONE)
				known = reg_value(regs, t->st_reg[nth_store], 0, &v);
			else if (t->has_st_imm)
				v = t->st_imm, known = 1;
			nth_store++;
		}
		if (!a->store && a->phys) {
			/* system-mode execlog names the physical address only: no VA to load */
			xl_count_unknown(s, "(load by physical address)");
			continue;
		}
		if (a->store && (a->phys || (s->has_linear_map && a->addr >= s->linear_map &&
					     a->addr - s->linear_map < XL_LINEAR_MAP_BYTES))) {
			ev = push(s, TLBSIM_EV_PHYS_STORE, l->cpu);
			ev->phys_store.pa = a->phys ? a->addr : a->addr - s->linear_map;
			ev->phys_store.size = size;
			if (known && size < 8)
				v &= (UINT64_C(1) << (8 * size)) - 1;
			ev->phys_store.value = known ? v : 0;
			ev->phys_store.unknown = !known;
			continue;
		}
		ev = push(s, a->store ? TLBSIM_EV_STORE : TLBSIM_EV_LOAD, l->cpu);
		ev->tid = CPU_TID(l->cpu);
		ev->access.va = a->addr;
		ev->access.size = a->addr > UINT64_MAX - (size - 1) ? 1 : size;
	}
}

/* Arm ARM C5.5: TLBI VA operands hold VA[55:12] in bits [43:0], the ASID in [63:48]. */
static void tlbi(struct xl_sink *s, const struct xl_line *l, const struct insn_tmpl *t, uint64_t v,
		 int known)
{
	struct tlbsim_event *ev = push(s, TLBSIM_EV_TLBI, l->cpu);
	unsigned op = t->op;

	ev->tlbi.op = t->op;
	ev->tlbi.flags = t->flags;
	if (op == TLBSIM_TLBI_VMALLE1 || op == TLBSIM_TLBI_ALLE1 || op == TLBSIM_TLBI_VMALLS12E1 ||
	    op == TLBSIM_TLBI_ALLE2 || op == TLBSIM_TLBI_ALLE3)
		return;
	if (!known) {
		ev->tlbi.operand_unknown = 1;
		return;
	}
	if (op == TLBSIM_TLBI_IPAS2E1 || op == TLBSIM_TLBI_IPAS2LE1)
		ev->tlbi.va = (v & ((UINT64_C(1) << 36) - 1)) << 12; /* IPA[47:12] in [35:0] */
	else if (op != TLBSIM_TLBI_ASIDE1)
		ev->tlbi.va = sext((v & ((UINT64_C(1) << 44) - 1)) << 12, 55);
	if (op == TLBSIM_TLBI_VAE1 || op == TLBSIM_TLBI_VALE1 || op == TLBSIM_TLBI_ASIDE1)
		ev->tlbi.asid = (uint16_t)(v >> 48);
}

/*
 * Arm ARM C5.5 "TLBI RVAE1": ASID [63:48], TG [47:46] (1: 4 KiB, 2: 16 KiB,
 * 3: 64 KiB), SCALE [45:44], NUM [43:39], TTL [38:37], BaseADDR [36:0] in
 * granules; pages = (NUM + 1) * 2^(5 * SCALE + 1).
 */
static void tlbi_range(struct xl_sink *s, const struct xl_line *l, const struct insn_tmpl *t,
		       uint64_t v, int known)
{
	static const unsigned tg_shift[4] = {0, 12, 14, 16};
	unsigned shift = tg_shift[(v >> 46) & 3];
	struct tlbsim_event *ev;

	if (known && shift != s->page_shift) {
		xl_count_unknown(s, shift ? "tlbi range (granule not the page size)"
					  : "tlbi range (TG reserved)");
		return;
	}
	ev = push(s, TLBSIM_EV_TLBI_RANGE, l->cpu);
	ev->tlbi_range.op = t->op;
	ev->tlbi_range.flags = t->flags;
	if (!known) {
		ev->tlbi_range.operand_unknown = 1;
		return;
	}
	ev->tlbi_range.va = sext((v & ((UINT64_C(1) << 37) - 1)) << shift, 36 + shift);
	ev->tlbi_range.nr_pages = (uint32_t)((((v >> 39) & 31) + 1) << (5 * ((v >> 44) & 3) + 1));
	if (t->op == TLBSIM_TLBI_RVAE1 || t->op == TLBSIM_TLBI_RVALE1)
		ev->tlbi_range.asid = (uint16_t)(v >> 48);
}

/* Intel SDM vol. 2A INVPCID: the descriptor's PCID in bits 11:0, its address in bits 127:64. */
static void invpcid(struct xl_sink *s, const struct xl_line *l, uint64_t type, int known)
{
	struct tlbsim_event *ev;
	int have = 0;
	uint64_t desc[2] = {0, 0};

	for (int i = 0; i < l->nr_acc && have < 2; i++)
		if (!l->acc[i].store && l->acc[i].has_value)
			desc[have++] = l->acc[i].value;
	if (!known || type > 3) {
		xl_count_unknown(s, known ? "invpcid (type > 3)" : "invpcid (type unknown)");
		return;
	}
	if ((type == 0 && have < 2) || (type == 1 && have < 1)) {
		xl_count_unknown(s, "invpcid (no descriptor)");
		return;
	}
	ev = push(s, TLBSIM_EV_INVPCID, l->cpu);
	ev->invpcid.type = (uint8_t)type;
	ev->invpcid.pcid = type <= 1 ? (uint16_t)(desc[0] & 0xfff) : 0;
	ev->invpcid.va = type == 0 ? desc[1] : 0;
}

/*
 * AMD APM vol. 3 "INVLPGB" and Linux arch/x86/include/asm/tlb.h: rAX =
 * VA[63:12] | flags[5:0]; ECX[15:0] = extra pages, ECX[31] = 2 MiB
 * stride; EDX[15:0] = ASID, EDX[27:16] = PCID.
 */
static void invlpgb(struct xl_sink *s, const struct xl_line *l, const struct xl_regs *regs)
{
	uint64_t rax, rcx, rdx;
	unsigned fl;
	struct tlbsim_event *ev;

	if (!reg_value(regs, 0, 0, &rax) || !reg_value(regs, 1, 1, &rcx) ||
	    !reg_value(regs, 2, 1, &rdx)) {
		xl_count_unknown(s, "invlpgb (operands unknown)");
		return;
	}
	fl = (unsigned)rax & 0x3f;
	ev = push(s, TLBSIM_EV_INVLPGB, l->cpu);
	ev->invlpgb.flags = (uint8_t)fl;
	ev->invlpgb.nr_pages = 1;
	ev->invlpgb.stride_shift = 12;
	if (fl & TLBSIM_INVLPGB_VA) {
		ev->invlpgb.va = rax & ~UINT64_C(0xfff);
		ev->invlpgb.nr_pages = (uint32_t)(rcx & 0xffff) + 1;
		ev->invlpgb.stride_shift = (rcx >> 31) & 1 ? 21 : 12;
	}
	if (fl & TLBSIM_INVLPGB_PCID)
		ev->invlpgb.pcid = (uint16_t)((rdx >> 16) & 0xfff);
	if (fl & TLBSIM_INVLPGB_ASID)
		ev->invlpgb.asid = (uint16_t)rdx;
}

static int effective_address(const struct xl_line *l, const struct insn_tmpl *t,
			     const struct xl_regs *regs, uint64_t *ea)
{
	uint64_t b = 0, x = 0;

	if (!t->has_ea || (t->ea_base != INSN_REG_NONE && !reg_value(regs, t->ea_base, 0, &b)) ||
	    (t->ea_index != INSN_REG_NONE && !reg_value(regs, t->ea_index, 0, &x)))
		return 0;
	if (t->ea_rip)
		b = l->pc +
		    t->len; /* RIP-relative: from the next instruction (SDM vol. 2, 2.2.1.6) */
	*ea = b + x * t->ea_scale + (uint64_t)t->ea_disp;
	return 1;
}

void xl_line_events(struct xl_sink *s, const struct xl_line *l, const struct insn_tmpl *t,
		    const struct xl_regs *regs)
{
	struct tlbsim_event *ev;
	uint64_t v = 0;
	int known = t->reg != INSN_REG_NONE && reg_value(regs, t->reg, t->reg32, &v);

	if (s->pend_insns && s->pend_cpu != l->cpu)
		xl_flush_compute(s);
	s->pend_cpu = l->cpu;
	s->pend_insns++;
	s->stats->insns++;
	if (t->cls == IC_PLAIN && !l->nr_acc)
		return;
	xl_flush_compute(s);
	switch (t->cls) {
	case IC_TLBI:
		tlbi(s, l, t, v, known);
		return;
	case IC_TLBI_RANGE:
		tlbi_range(s, l, t, v, known);
		return;
	case IC_DSB:
		push(s, TLBSIM_EV_DSB, l->cpu)->dsb.domain = t->op;
		return;
	case IC_ISB:
		push(s, TLBSIM_EV_ISB, l->cpu);
		return;
	case IC_ERET:
		push(s, TLBSIM_EV_ERET, l->cpu);
		return;
	case IC_TLBSYNC:
		push(s, TLBSIM_EV_TLBSYNC, l->cpu);
		return;
	case IC_SERIALIZE:
		push(s, TLBSIM_EV_SERIALIZE, l->cpu);
		return;
	case IC_TTBR:
		/* Arm ARM D19.2 TTBR0_EL1: ASID [63:48], BADDR [47:1] (48-bit PAs), CnP [0] */
		if (!known) {
			xl_count_unknown(s, t->op ? "msr ttbr1_el1 (value unknown)"
						  : "msr ttbr0_el1 (value unknown)");
			return;
		}
		ev = push(s, TLBSIM_EV_TTBR_WRITE, l->cpu);
		ev->ttbr_write.which = t->op;
		ev->ttbr_write.root_pfn = (v & UINT64_C(0x0000fffffffffffe)) >> 12;
		ev->ttbr_write.asid = (uint16_t)(v >> 48);
		return;
	case IC_SYSREG:
		ev = push(s, TLBSIM_EV_SYSREG_WRITE, l->cpu);
		ev->sysreg_write.reg = t->op;
		ev->sysreg_write.value = known ? v : 0;
		ev->sysreg_write.unknown = !known;
		return;
	case IC_DC:
		ev = push(s, TLBSIM_EV_DC, l->cpu);
		ev->dc.op = t->op;
		if (t->op == TLBSIM_DC_ISW || t->op == TLBSIM_DC_CSW || t->op == TLBSIM_DC_CISW)
			return; /* set/way: the operand names no address */
		ev->dc.va = known ? v : 0;
		ev->dc.unknown = !known;
		return;
	case IC_CR3:
		/* Intel SDM vol. 3A 4.5: CR3 bits 51:12 the root, 11:0 the PCID; bit 63 no-flush */
		if (!known) {
			xl_count_unknown(s, "mov cr3 (value unknown)");
			return;
		}
		ev = push(s, TLBSIM_EV_CR3_WRITE, l->cpu);
		ev->cr3_write.root_pfn = (v & UINT64_C(0x000ffffffffff000)) >> 12;
		ev->cr3_write.pcid = (uint16_t)(v & 0xfff);
		ev->cr3_write.noflush = (uint8_t)(v >> 63);
		return;
	case IC_INVLPG:
		if (!effective_address(l, t, regs, &v)) {
			xl_count_unknown(s, "invlpg (address unknown)");
			return;
		}
		push(s, TLBSIM_EV_INVLPG, l->cpu)->invlpg.va = v;
		return;
	case IC_INVPCID:
		invpcid(s, l, v, known);
		return;
	case IC_INVLPGB:
		invlpgb(s, l, regs);
		return;
	case IC_UNKNOWN:
	case IC_UNDECODABLE:
		xl_count_unknown(s, t->mnemonic);
		break;
	default:
		break;
	}
	accesses(s, l, t, regs);
}
