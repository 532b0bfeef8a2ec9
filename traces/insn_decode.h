/* SPDX-License-Identifier: MIT */
/*
 * Instruction classes for the instruction-trace readers (read_execlog.c):
 * Capstone decodes each distinct encoding once (AArch64 and x86-64, from
 * the bytes, never from a trace's disassembly text); the result is a
 * template that says what the instruction means for the TLB model and
 * where its operands are, cached by the encoding's bytes.  What Capstone
 * 4.0 does not know is decoded here from the encoding, each with its
 * source: AMD INVLPGB and TLBSYNC, Intel SERIALIZE, and the fields of
 * the AArch64 SYS space (TLBI and DC operations of ARMv8.4+, which
 * Capstone 4 reports only as a generic SYS).
 *
 * Internal to traces/.
 */
#ifndef TLBSIM_TRACES_INSN_DECODE_H
#define TLBSIM_TRACES_INSN_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "tlbsim/machine.h"
#include "tlbsim/trace.h"

/* What an instruction is, for the events it makes (insn_events.c). */
enum insn_cls {
	IC_PLAIN,      /* nothing for the TLB model: counted as compute */
	IC_MEM,	       /* plain, but the trace's accesses are its loads/stores */
	IC_TLBI,       /* @op enum tlbsim_tlbi_op, @flags enum tlbsim_tlbi_flags */
	IC_TLBI_RANGE, /* @op enum tlbsim_tlbi_range_op, @flags */
	IC_DSB,	       /* @op the domain (CRm) */
	IC_ISB,
	IC_ERET,
	IC_TTBR,    /* MSR TTBR@op_EL1, value in @reg */
	IC_SYSREG,  /* @op enum tlbsim_sysreg, value in @reg */
	IC_DC,	    /* @op enum tlbsim_dc_op, VA in @reg */
	IC_INVLPG,  /* address: the effective address @ea */
	IC_INVPCID, /* type in @reg, descriptor loaded from memory */
	IC_INVLPGB, /* rAX, ECX, EDX */
	IC_TLBSYNC,
	IC_CR3,		/* MOV to CR3, value in @reg */
	IC_SERIALIZE,	/* an x86 serializing instruction with no other event */
	IC_UNKNOWN,	/* a system instruction the model does not know: @mnemonic */
	IC_UNDECODABLE, /* Capstone could not decode the bytes */
};

/* Register numbers of struct insn_regs: x0..x30, xzr, sp (arm64); rax.. r15 (x86-64). */
#define INSN_REG_NONE (-1)
#define INSN_REG_XZR 31
#define INSN_REG_SP 32
#define INSN_NR_REGS 33

/* Bytes of the longest x86 instruction (Intel SDM vol. 2, 2.3.11: 15). */
#define INSN_MAX_BYTES 15

/**
 * struct insn_tmpl - one decoded encoding
 * @key, @key_len: the bytes the trace gave (the cache key)
 * @cls: enum insn_cls
 * @op, @flags: by class (see enum insn_cls)
 * @reg: the register operand, INSN_REG_NONE when none; its value is read
 *       from the trace (a 32-bit W/E register: @reg32 = 1, low half)
 * @st_reg: the registers a store writes to memory, in access order
 *          (STP: two), INSN_REG_NONE when unknown or an immediate
 * @st_imm: with @has_st_imm, the immediate a store writes (x86 MOV m, imm)
 * @mem_size: bytes of one memory access, 0 when unknown
 * @ea_*: x86 memory operand: base and index registers, scale,
 *        displacement, RIP-relative (@ea_rip), and its length (@len)
 * @mnemonic: for IC_UNKNOWN and IC_UNDECODABLE, what the counts show
 */
struct insn_tmpl {
	uint8_t key[INSN_MAX_BYTES];
	uint8_t key_len;
	uint8_t len;
	uint8_t cls;
	uint8_t op;
	uint8_t flags;
	int8_t reg;
	uint8_t reg32;
	int8_t st_reg[2];
	uint8_t has_st_imm;
	uint8_t mem_size;
	int8_t ea_base, ea_index;
	uint8_t ea_scale, ea_rip, has_ea;
	int64_t ea_disp;
	uint64_t st_imm;
	char mnemonic[TLBSIM_TRACE_MNEMONIC_LEN];
};

struct insn_decoder;

/* A decoder for @isa with an empty cache, or NULL when out of memory or Capstone fails. */
struct insn_decoder *trace_insn_decoder_new(enum tlbsim_isa isa);
void trace_insn_decoder_free(struct insn_decoder *d);

/*
 * The template of the instruction at the start of @bytes[0, @n) (n <= 15),
 * decoded on first sight and cached; never NULL but when out of memory.
 * The pointer is valid until the next call.
 */
const struct insn_tmpl *trace_insn_decode(struct insn_decoder *d, const uint8_t *bytes, size_t n);

/* The register number of a name the traces use ("x3", "sp", "rax", "r9"), or -1. */
int trace_insn_reg_find(enum tlbsim_isa isa, const char *name, size_t len);

#endif
