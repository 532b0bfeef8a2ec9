/* SPDX-License-Identifier: MIT */
/*
 * Decoding of instruction encodings for the instruction-trace readers:
 * Capstone 4 (cs_disasm() with CS_OPT_DETAIL) decodes every encoding;
 * this file only sorts its result into the classes of insn_decode.h and
 * caches it by the bytes (a trace repeats a few thousand encodings
 * millions of times, and cs_disasm() costs about a microsecond).
 *
 * Decoded here from the encoding, because Capstone 4.0 does not know them:
 *   - AMD INVLPGB (0F 01 FE) and TLBSYNC (0F 01 FF): AMD APM vol. 3,
 *     "INVLPGB", "TLBSYNC" opcode rows; Linux arch/x86/include/asm/tlb.h
 *     emits them as these bytes;
 *   - Intel SERIALIZE (0F 01 E8): Intel SDM vol. 2B, "SERIALIZE";
 *   - which TLBI or DC operation an AArch64 SYS instruction is: Capstone
 *     names the ARMv8.0 ones but reports the OS, range and nXS forms
 *     (ARMv8.4 FEAT_TLBIOS/FEAT_TLBIRANGE, ARMv8.7 FEAT_XS) and DC
 *     CVAP/CVADP as "sys #op1, cN, cM, #op2", so the op1:CRn:CRm:op2
 *     fields are read from the word for all of them (Arm ARM C5.3 "SYS",
 *     C5.5 "TLBI" and "DC" encodings tables).
 */
#include <capstone/capstone.h>
#include <stdlib.h>
#include <string.h>

#include "insn_decode.h"
#include "tlbsim/event.h"

/* Cache slots at first; doubled at half full (a kernel boot has ~50k distinct encodings). */
#define CACHE_MIN_SLOTS 4096

struct insn_decoder {
	enum tlbsim_isa isa;
	csh cs;
	cs_insn *insn; /* cs_malloc()'d, reused by cs_disasm_iter() */
	struct insn_tmpl *t;
	size_t nr, cap;
	uint32_t *slot; /* index + 1 into @t, 0 = empty */
	size_t nr_slots;
};

/* FNV-1a, 32 bits: short keys, good spread. */
static uint32_t hash_bytes(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* ---- AArch64 ------------------------------------------------------------------- */

/* Arm ARM C5.3 "SYS": op0 = 0b01, L = 0 -> bits [31:19] = 1101010100001. */
#define A64_SYS_MASK 0xfff80000u
#define A64_SYS_BITS 0xd5080000u

/* MSR/MRS system-register numbers as Capstone gives them: op0<<14 | op1<<11 | CRn<<7 | CRm<<3 |
 * op2. */
#define A64_SYSREG(op0, op1, crn, crm, op2)                                                        \
	(((op0) << 14) | ((op1) << 11) | ((crn) << 7) | ((crm) << 3) | (op2))

static int a64_reg(unsigned r, uint8_t *reg32)
{
	*reg32 = 0;
	if (r >= ARM64_REG_X0 && r <= ARM64_REG_X28)
		return (int)(r - ARM64_REG_X0);
	if (r == ARM64_REG_X29 || r == ARM64_REG_X30)
		return r == ARM64_REG_X29 ? 29 : 30;
	if (r >= ARM64_REG_W0 && r <= ARM64_REG_W30) {
		*reg32 = 1;
		return (int)(r - ARM64_REG_W0);
	}
	if (r == ARM64_REG_XZR || r == ARM64_REG_WZR) {
		*reg32 = r == ARM64_REG_WZR;
		return INSN_REG_XZR;
	}
	if (r == ARM64_REG_SP || r == ARM64_REG_WSP)
		return INSN_REG_SP;
	return INSN_REG_NONE;
}

/* Bytes a load/store register moves (Arm ARM C3.3: the register's width). */
static unsigned a64_reg_bytes(unsigned r)
{
	if ((r >= ARM64_REG_X0 && r <= ARM64_REG_X28) || r == ARM64_REG_X29 || r == ARM64_REG_X30 ||
	    r == ARM64_REG_XZR || (r >= ARM64_REG_D0 && r <= ARM64_REG_D31))
		return 8;
	if ((r >= ARM64_REG_W0 && r <= ARM64_REG_W30) || r == ARM64_REG_WZR ||
	    (r >= ARM64_REG_S0 && r <= ARM64_REG_S31))
		return 4;
	if (r >= ARM64_REG_H0 && r <= ARM64_REG_H31)
		return 2;
	if (r >= ARM64_REG_B0 && r <= ARM64_REG_B31)
		return 1;
	if (r >= ARM64_REG_Q0 && r <= ARM64_REG_Q31)
		return 16;
	return 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/*
 * TLBI <op>: SYS with CRn 8 (CRn 9: the nXS form, FEAT_XS).  Arm ARM C5.5
 * encodings, by op1 (0 EL1, 4 EL2, 6 EL3) and CRm: 1 OS, 3 IS, 7 local;
 * the range forms CRm 2 IS, 5 OS, 6 local; IPAS2 CRm 0 (IS) and 4 (local
 * with op2 1/5, OS with op2 0/4).  Returns 0, or -1 for another op.
 */
static int a64_tlbi(struct insn_tmpl *t, unsigned op1, unsigned crm, unsigned op2)
{
	static const int8_t el1[8] = {TLBSIM_TLBI_VMALLE1,
				      TLBSIM_TLBI_VAE1,
				      TLBSIM_TLBI_ASIDE1,
				      TLBSIM_TLBI_VAAE1,
				      -1,
				      TLBSIM_TLBI_VALE1,
				      -1,
				      TLBSIM_TLBI_VAALE1};
	static const int8_t el2[8] = {
	    TLBSIM_TLBI_ALLE2, TLBSIM_TLBI_VAE2,       -1, -1, TLBSIM_TLBI_ALLE1,
	    TLBSIM_TLBI_VALE2, TLBSIM_TLBI_VMALLS12E1, -1};
	static const int8_t el3[8] = {
	    TLBSIM_TLBI_ALLE3, TLBSIM_TLBI_VAE3, -1, -1, -1, TLBSIM_TLBI_VALE3, -1, -1};
	static const int8_t range[8] = {-1, TLBSIM_TLBI_RVAE1,	-1, TLBSIM_TLBI_RVAAE1,
					-1, TLBSIM_TLBI_RVALE1, -1, TLBSIM_TLBI_RVAALE1};
	const int8_t *row = op1 == 0 ? el1 : op1 == 4 ? el2 : op1 == 6 ? el3 : NULL;

	if (op1 == 4 && (crm == 0 || crm == 4)) {
		/* IPAS2E1IS 0/1, IPAS2LE1IS 0/5, IPAS2E1 4/1, IPAS2LE1 4/5, ...OS 4/0, 4/4 */
		if (crm == 0 && (op2 == 1 || op2 == 5))
			t->flags |= TLBSIM_TLBI_IS;
		else if (crm == 4 && (op2 == 0 || op2 == 4))
			t->flags |= TLBSIM_TLBI_OS;
		else if (crm != 4 || (op2 != 1 && op2 != 5))
			return -1;
		t->cls = IC_TLBI;
		t->op = (op2 & 4) ? TLBSIM_TLBI_IPAS2LE1 : TLBSIM_TLBI_IPAS2E1;
		return 0;
	}
	if (op1 == 0 && (crm == 2 || crm == 5 || crm == 6) && range[op2] >= 0) {
		t->cls = IC_TLBI_RANGE;
		t->op = (uint8_t)range[op2];
		t->flags |= crm == 2 ? TLBSIM_TLBI_IS : crm == 5 ? TLBSIM_TLBI_OS : 0;
		return 0;
	}
	if (!row || (crm != 1 && crm != 3 && crm != 7) || row[op2] < 0)
		return -1;
	t->cls = IC_TLBI;
	t->op = (uint8_t)row[op2];
	t->flags |= crm == 3 ? TLBSIM_TLBI_IS : crm == 1 ? TLBSIM_TLBI_OS : 0;
	return 0;
}

/* DC <op>: SYS with CRn 7 (Arm ARM C5.3, "DC" encodings).  0, or -1 for IC/AT/others. */
static int a64_dc(struct insn_tmpl *t, unsigned op1, unsigned crm, unsigned op2)
{
	static const struct {
		uint8_t op1, crm, op2, op;
	} dc[] = {
	    {0, 6, 1, TLBSIM_DC_IVAC},	 {0, 6, 2, TLBSIM_DC_ISW},    {0, 10, 2, TLBSIM_DC_CSW},
	    {0, 14, 2, TLBSIM_DC_CISW},	 {3, 4, 1, TLBSIM_DC_ZVA},    {3, 10, 1, TLBSIM_DC_CVAC},
	    {3, 11, 1, TLBSIM_DC_CVAU},	 {3, 14, 1, TLBSIM_DC_CIVAC}, {3, 12, 1, TLBSIM_DC_CVAP},
	    {3, 13, 1, TLBSIM_DC_CVADP},
	};

	for (size_t i = 0; i < sizeof(dc) / sizeof(dc[0]); i++) {
		if (dc[i].op1 == op1 && dc[i].crm == crm && dc[i].op2 == op2) {
			t->cls = IC_DC;
			t->op = dc[i].op;
			return 0;
		}
	}
	return -1;
}

static void name_unknown(struct insn_tmpl *t, const cs_insn *in)
{
	size_t n = strcspn(in->op_str, ",");

	t->cls = IC_UNKNOWN;
	snprintf(t->mnemonic, sizeof(t->mnemonic), "%s%s%.*s", in->mnemonic, n ? " " : "", (int)n,
		 in->op_str);
}

static void a64_mem(struct insn_tmpl *t, const cs_insn *in, const cs_arm64 *a)
{
	int first = 0, nregs = 0, is_store = strncmp(in->mnemonic, "st", 2) == 0;
	/* plain stores: the registers before the address are the data, in order */
	int plain_store =
	    is_store && strncmp(in->mnemonic, "stadd", 5) != 0 &&
	    strncmp(in->mnemonic, "stset", 5) != 0 && strncmp(in->mnemonic, "stclr", 5) != 0 &&
	    strncmp(in->mnemonic, "steor", 5) != 0 && strncmp(in->mnemonic, "stsm", 4) != 0 &&
	    strncmp(in->mnemonic, "stum", 4) != 0;
	unsigned data_reg = 0;
	uint8_t r32;

	t->cls = IC_MEM;
	/* STXR/STLXR/STXP/STLXP: the first register is the status result */
	if (strstr(in->mnemonic, "xr") || strstr(in->mnemonic, "xp"))
		first = is_store;
	for (int i = first; i < a->op_count && a->operands[i].type == ARM64_OP_REG; i++) {
		data_reg = a->operands[i].reg;
		if (plain_store && nregs < 2)
			t->st_reg[nregs] = (int8_t)a64_reg(data_reg, &r32);
		nregs++;
	}
	/* Arm ARM C3.3: B/H/SW suffixes fix the size; otherwise the register's width */
	if (ends_with(in->mnemonic, "sw"))
		t->mem_size = 4;
	else if (ends_with(in->mnemonic, "b"))
		t->mem_size = 1;
	else if (ends_with(in->mnemonic, "h"))
		t->mem_size = 2;
	else
		t->mem_size = (uint8_t)a64_reg_bytes(data_reg);
}

static void a64_classify(struct insn_tmpl *t, const cs_insn *in, uint32_t w)
{
	const cs_arm64 *a = &in->detail->arm64;
	unsigned op1 = (w >> 16) & 7, crn = (w >> 12) & 15, crm = (w >> 8) & 15, op2 = (w >> 5) & 7;
	unsigned rt = w & 31;
	uint8_t r32;

	switch (in->id) {
	case ARM64_INS_TLBI:
	case ARM64_INS_DC:
	case ARM64_INS_SYS:
	case ARM64_INS_IC:
	case ARM64_INS_AT:
		if ((w & A64_SYS_MASK) != A64_SYS_BITS) {
			name_unknown(t, in);
			return;
		}
		/* Rt = 31 means no register (Arm ARM C5.5: "TLBI VMALLE1IS" has none) */
		t->reg = rt == 31 ? INSN_REG_NONE : (int8_t)rt;
		if ((crn == 8 || crn == 9) && a64_tlbi(t, op1, crm, op2) == 0) {
			if (crn == 9)
				t->flags |= TLBSIM_TLBI_NXS;
			return;
		}
		if (crn == 7 && a64_dc(t, op1, crm, op2) == 0)
			return;
		name_unknown(t, in);
		return;
	case ARM64_INS_MSR:
		if (a->op_count != 2 || a->operands[0].type != ARM64_OP_REG_MSR) {
			t->cls = IC_PLAIN; /* MSR <pstatefield>, #imm: DAIF, PAN, ... */
			return;
		}
		t->reg = (int8_t)a64_reg(a->operands[1].reg, &r32);
		switch ((unsigned)a->operands[0].reg) {
		case A64_SYSREG(3, 0, 2, 0, 0): /* TTBR0_EL1 (Arm ARM D19.2) */
		case A64_SYSREG(3, 0, 2, 0, 1): /* TTBR1_EL1 */
			t->cls = IC_TTBR;
			t->op = (uint8_t)(a->operands[0].reg & 1);
			return;
		case A64_SYSREG(3, 0, 2, 0, 2): /* TCR_EL1 */
			t->cls = IC_SYSREG;
			t->op = TLBSIM_SYSREG_TCR_EL1;
			return;
		case A64_SYSREG(3, 0, 1, 0, 0): /* SCTLR_EL1 */
			t->cls = IC_SYSREG;
			t->op = TLBSIM_SYSREG_SCTLR_EL1;
			return;
		case A64_SYSREG(3, 0, 10, 2, 0): /* MAIR_EL1 */
			t->cls = IC_SYSREG;
			t->op = TLBSIM_SYSREG_MAIR_EL1;
			return;
		default:
			name_unknown(t, in);
			return;
		}
	case ARM64_INS_DSB:
		/* Arm ARM C6.2 "DSB": CRm is the option; 0 and 4 are SSBB/PSSBB */
		t->op = (uint8_t)crm;
		t->cls = (crm & 3) ? IC_DSB : IC_UNKNOWN;
		if (t->cls == IC_UNKNOWN)
			name_unknown(t, in);
		return;
	case ARM64_INS_ISB:
		t->cls = IC_ISB;
		return;
	case ARM64_INS_ERET:
		t->cls = IC_ERET;
		return;
	case ARM64_INS_HVC:
	case ARM64_INS_SMC:
		name_unknown(t, in);
		return;
	default:
		break;
	}
	for (int i = 0; i < a->op_count; i++)
		if (a->operands[i].type == ARM64_OP_MEM)
			a64_mem(t, in, a);
}

/* ---- x86-64 -------------------------------------------------------------------- */

static int x86_regno(unsigned r, uint8_t *reg32)
{
	static const unsigned r64[16] = {X86_REG_RAX, X86_REG_RCX, X86_REG_RDX, X86_REG_RBX,
					 X86_REG_RSP, X86_REG_RBP, X86_REG_RSI, X86_REG_RDI,
					 X86_REG_R8,  X86_REG_R9,  X86_REG_R10, X86_REG_R11,
					 X86_REG_R12, X86_REG_R13, X86_REG_R14, X86_REG_R15};
	static const unsigned r32[16] = {X86_REG_EAX,  X86_REG_ECX,  X86_REG_EDX,  X86_REG_EBX,
					 X86_REG_ESP,  X86_REG_EBP,  X86_REG_ESI,  X86_REG_EDI,
					 X86_REG_R8D,  X86_REG_R9D,  X86_REG_R10D, X86_REG_R11D,
					 X86_REG_R12D, X86_REG_R13D, X86_REG_R14D, X86_REG_R15D};

	for (int i = 0; i < 16; i++) {
		if (r64[i] == r || r32[i] == r) {
			*reg32 = r32[i] == r;
			return i;
		}
	}
	return INSN_REG_NONE;
}

static void x86_ea(struct insn_tmpl *t, const x86_op_mem *m)
{
	uint8_t r32;

	t->ea_rip = m->base == X86_REG_RIP;
	t->ea_base = m->base == X86_REG_INVALID || t->ea_rip ? INSN_REG_NONE
							     : (int8_t)x86_regno(m->base, &r32);
	t->ea_index =
	    m->index == X86_REG_INVALID ? INSN_REG_NONE : (int8_t)x86_regno(m->index, &r32);
	t->ea_scale = (uint8_t)m->scale;
	t->ea_disp = m->disp;
	/* an FS/GS base or a register we do not track leaves the address unknown */
	t->has_ea = m->segment != X86_REG_FS && m->segment != X86_REG_GS &&
		    (m->base == X86_REG_INVALID || t->ea_rip || t->ea_base != INSN_REG_NONE) &&
		    (m->index == X86_REG_INVALID || t->ea_index != INSN_REG_NONE);
}

static void x86_classify(struct insn_tmpl *t, const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;
	uint8_t r32;

	t->len = (uint8_t)in->size;
	switch (in->id) {
	case X86_INS_INVLPG:
		t->cls = IC_INVLPG;
		x86_ea(t, &x->operands[0].mem);
		return;
	case X86_INS_INVPCID: /* Intel SDM vol. 2A: INVPCID r64, m128 */
		t->cls = IC_INVPCID;
		t->reg = (int8_t)x86_regno(x->operands[0].reg, &t->reg32);
		return;
	case X86_INS_MOV:
		if (x->op_count == 2 && x->operands[0].type == X86_OP_REG) {
			unsigned dst = x->operands[0].reg;

			if (dst == X86_REG_CR3 || dst == X86_REG_CR0 || dst == X86_REG_CR4) {
				t->cls = dst == X86_REG_CR3 ? IC_CR3 : IC_SYSREG;
				t->op = dst == X86_REG_CR0 ? TLBSIM_SYSREG_CR0 : TLBSIM_SYSREG_CR4;
				t->reg = (int8_t)x86_regno(x->operands[1].reg, &t->reg32);
				return;
			}
			/* Intel SDM vol. 3A "Serializing Instructions": MOV to a debug register */
			if (dst >= X86_REG_DR0 && dst <= X86_REG_DR7) {
				t->cls = IC_SERIALIZE;
				return;
			}
		}
		break;
	/*
	 * Intel SDM vol. 3A, "Serializing Instructions" (section 8.3 in the
	 * editions that number it so): privileged INVD, INVEPT, INVVPID,
	 * LGDT, LIDT, LLDT, LTR, WBINVD, WRMSR; non-privileged CPUID, IRET,
	 * RSM (and SERIALIZE, decoded above).  LFENCE, SFENCE and MFENCE are
	 * memory-ordering instructions, not serializing: plain here.
	 */
	case X86_INS_CPUID:
	case X86_INS_IRET:
	case X86_INS_IRETD:
	case X86_INS_IRETQ:
	case X86_INS_RSM:
	case X86_INS_WRMSR:
	case X86_INS_LGDT:
	case X86_INS_LIDT:
	case X86_INS_LLDT:
	case X86_INS_LTR:
	case X86_INS_INVD:
	case X86_INS_WBINVD:
	case X86_INS_INVEPT:
	case X86_INS_INVVPID:
		t->cls = IC_SERIALIZE;
		return;
	case X86_INS_PUSH:
	case X86_INS_POP:
	case X86_INS_CALL:
	case X86_INS_RET:
		t->cls = IC_MEM;
		t->mem_size = 8; /* 64-bit mode stack accesses: 8 bytes (SDM vol. 1, 6.2.3) */
		return;
	default:
		break;
	}
	for (int i = 0; i < x->op_count; i++) {
		const cs_x86_op *o = &x->operands[i];

		if (o->type != X86_OP_MEM)
			continue;
		t->cls = IC_MEM;
		t->mem_size = o->size;
		if ((o->access & CS_AC_WRITE) && x->op_count == 2 && i == 0 &&
		    (in->id == X86_INS_MOV || in->id == X86_INS_XCHG)) {
			if (x->operands[1].type == X86_OP_REG)
				t->st_reg[0] = (int8_t)x86_regno(x->operands[1].reg, &r32);
			else if (x->operands[1].type == X86_OP_IMM) {
				t->has_st_imm = 1;
				t->st_imm = (uint64_t)x->operands[1].imm;
			}
		}
		return;
	}
}

/* ---- the cache ------------------------------------------------------------------ */

static void decode_new(struct insn_decoder *d, struct insn_tmpl *t)
{
	const uint8_t *code = t->key;
	size_t size = t->key_len;
	uint64_t addr = 0;

	t->reg = t->st_reg[0] = t->st_reg[1] = INSN_REG_NONE;
	t->ea_base = t->ea_index = INSN_REG_NONE;
	if (d->isa == TLBSIM_ISA_X86_64 && size >= 3 && code[0] == 0x0f && code[1] == 0x01 &&
	    (code[2] == 0xfe || code[2] == 0xff || code[2] == 0xe8)) {
		/* AMD APM vol. 3: INVLPGB 0F 01 FE, TLBSYNC 0F 01 FF; Intel SDM: SERIALIZE 0F 01 E8
		 */
		t->cls = code[2] == 0xfe ? IC_INVLPGB : code[2] == 0xff ? IC_TLBSYNC : IC_SERIALIZE;
		t->len = 3;
		return;
	}
	if (!cs_disasm_iter(d->cs, &code, &size, &addr, d->insn)) {
		t->cls = IC_UNDECODABLE;
		snprintf(t->mnemonic, sizeof(t->mnemonic), "(undecodable)");
		return;
	}
	t->cls = IC_PLAIN;
	if (d->isa == TLBSIM_ISA_ARM64) {
		uint32_t w = (uint32_t)t->key[0] | (uint32_t)t->key[1] << 8 |
			     (uint32_t)t->key[2] << 16 | (uint32_t)t->key[3] << 24;

		t->len = 4;
		a64_classify(t, d->insn, w);
	} else {
		x86_classify(t, d->insn);
	}
}

static int grow(struct insn_decoder *d)
{
	size_t n = d->nr_slots ? 2 * d->nr_slots : CACHE_MIN_SLOTS;
	uint32_t *slot = calloc(n, sizeof(*slot));

	if (!slot)
		return -1;
	for (size_t i = 0; i < d->nr; i++) {
		size_t h = hash_bytes(d->t[i].key, d->t[i].key_len) & (n - 1);

		while (slot[h])
			h = (h + 1) & (n - 1);
		slot[h] = (uint32_t)(i + 1);
	}
	free(d->slot);
	d->slot = slot;
	d->nr_slots = n;
	return 0;
}

const struct insn_tmpl *trace_insn_decode(struct insn_decoder *d, const uint8_t *bytes, size_t n)
{
	size_t h;
	struct insn_tmpl *t;

	if (n > INSN_MAX_BYTES)
		n = INSN_MAX_BYTES;
	h = hash_bytes(bytes, n) & (d->nr_slots - 1);
	for (; d->slot[h]; h = (h + 1) & (d->nr_slots - 1)) {
		t = &d->t[d->slot[h] - 1];
		if (t->key_len == n && memcmp(t->key, bytes, n) == 0)
			return t;
	}
	if (d->nr == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 1024;
		struct insn_tmpl *nt = realloc(d->t, cap * sizeof(*nt));

		if (!nt)
			return NULL;
		d->t = nt;
		d->cap = cap;
	}
	t = &d->t[d->nr];
	memset(t, 0, sizeof(*t));
	memcpy(t->key, bytes, n);
	t->key_len = (uint8_t)n;
	decode_new(d, t);
	d->slot[h] = (uint32_t)++d->nr;
	if (2 * d->nr > d->nr_slots && grow(d) < 0)
		return NULL;
	return &d->t[d->nr - 1];
}

struct insn_decoder *trace_insn_decoder_new(enum tlbsim_isa isa)
{
	struct insn_decoder *d = calloc(1, sizeof(*d));
	cs_err e;

	if (!d)
		return NULL;
	d->isa = isa;
	e = isa == TLBSIM_ISA_ARM64 ? cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &d->cs)
				    : cs_open(CS_ARCH_X86, CS_MODE_64, &d->cs);
	if (e != CS_ERR_OK) {
		free(d);
		return NULL;
	}
	cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	d->insn = cs_malloc(d->cs);
	if (!d->insn || grow(d) < 0) {
		trace_insn_decoder_free(d);
		return NULL;
	}
	return d;
}

void trace_insn_decoder_free(struct insn_decoder *d)
{
	if (!d)
		return;
	if (d->insn)
		cs_free(d->insn, 1);
	cs_close(&d->cs);
	free(d->t);
	free(d->slot);
	free(d);
}

int trace_insn_reg_find(enum tlbsim_isa isa, const char *name, size_t len)
{
	static const char *const x86[16] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
					    "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};
	char buf[8];
	unsigned v;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, name, len);
	buf[len] = '\0';
	if (isa == TLBSIM_ISA_X86_64) {
		for (int i = 0; i < 16; i++)
			if (strcmp(buf, x86[i]) == 0)
				return i;
		return -1;
	}
	if (strcmp(buf, "sp") == 0)
		return INSN_REG_SP;
	if (strcmp(buf, "xzr") == 0)
		return INSN_REG_XZR;
	/* x0..x30, as GDB's org.gnu.gdb.aarch64.core feature names them */
	if (buf[0] != 'x' || !buf[1] || (buf[1] == '0' && buf[2]))
		return -1;
	v = 0;
	for (size_t i = 1; buf[i]; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			return -1;
		v = v * 10 + (unsigned)(buf[i] - '0');
	}
	return v <= 30 ? (int)v : -1;
}
