/* SPDX-License-Identifier: MIT */
/*
 * Arm VMSA litmus tests in herd7's AArch64 format (docs/litmus.md): the
 * parsed test (litmus_parse.c) and the exhaustive check of its candidate
 * executions against the VMSA memory model (litmus_model.c).
 *
 * A test has virtual addresses (variables x, y, ...), each with a
 * translation-table descriptor PTE(x) (herd's pte_x, one level) and a
 * physical location PA(x) (herd's phy_x).  Memory locations are numbered
 * 2v (PA of variable v) and 2v + 1 (PTE of variable v).
 *
 * Internal to the library (prefix chk_lit_, types lit_).
 */
#ifndef TLBSIM_CHECK_LITMUS_H
#define TLBSIM_CHECK_LITMUS_H

#include <stdbool.h>
#include <stdint.h>

#include "tlbsim/error.h"

#define LIT_MAX_THREADS 8
#define LIT_MAX_VARS 24
#define LIT_MAX_INSNS 96
#define LIT_MAX_LABELS 32
#define LIT_NAME_LEN 128
#define LIT_LOC_PA(v) (2 * (v))
#define LIT_LOC_PTE(v) (2 * (v) + 1)
#define LIT_REG_ZR 31

/* What a value is: herd's constants (lib/constant.ml) that the subset uses. */
enum lit_vkind {
	LV_INT,	 /* an integer */
	LV_VA,	 /* virtual address of variable @sym */
	LV_PTE,	 /* address of PTE(sym) (herd pte_x) */
	LV_PA,	 /* physical address of variable @sym (herd phy_x, PA(x)) */
	LV_PAGE, /* VA >> 12: a TLBI operand (herd TLB(x)) */
	LV_DESC, /* a descriptor: output address PA(@sym) and its fields */
};

/**
 * struct lit_val - a value held in a register or memory
 * @kind: enum lit_vkind
 * @valid, @af, @db, @dbm, @el0: descriptor fields (LV_DESC); herd's
 *        defaults valid:1, af:1, db:1, dbm:0, el0:1
 * @sym: the variable (LV_VA, LV_PTE, LV_PA, LV_PAGE, LV_DESC's oa)
 * @i: the integer (LV_INT)
 */
struct lit_val {
	uint8_t kind;
	uint8_t valid, af, db, dbm, el0;
	int16_t sym;
	int64_t i;
};

enum lit_op {
	LO_LDR,	 /* LDR, LDAR (acq 'A'), LDAPR (acq 'Q') */
	LO_STR,	 /* STR, STLR (rel) */
	LO_SWP,	 /* SWP{A}{L} */
	LO_CAS,	 /* CAS{A}{L} */
	LO_MOV,	 /* MOV Rd, #imm | Rm */
	LO_ALU,	 /* ADD, SUB, AND, ORR, EOR, BIC, LSR, LSL (@alu) */
	LO_CMP,	 /* CMP Rn, #imm | Rm */
	LO_CSEL, /* CSEL Rd, Rn, Rm, cond; CSET Rd, cond (@csinc) */
	LO_CBZ,	 /* CBZ / CBNZ (@cbnz) */
	LO_BCOND,
	LO_B,
	LO_DMB,
	LO_DSB,
	LO_ISB,
	LO_TLBI,
	LO_NOP,
};

enum lit_alu { LA_ADD, LA_SUB, LA_AND, LA_ORR, LA_EOR, LA_BIC, LA_LSR, LA_LSL };
enum lit_cc { LC_EQ, LC_NE, LC_GT, LC_GE, LC_LT, LC_LE };

/**
 * struct lit_insn - one instruction of a thread
 * @op: enum lit_op; @alu: enum lit_alu for LO_ALU
 * @rd: destination (LDR, ALU, MOV, CSEL), source (STR), Rs of SWP/CAS
 * @rt: SWP/CAS: Rt (loaded into for SWP, the new value for CAS)
 * @rn: base register of an access; first operand otherwise
 * @rm: index register of an access ([Xn,Xm]) or second operand; -1 none
 * @imm, @has_imm: immediate second operand
 * @acq: 0, 'A' (acquire) or 'Q' (acquire PC); @rel: release
 * @cond: enum lit_cc (B.cond, CSEL); @cbnz, @csinc: variants
 * @barrier: DMB/DSB option as the instruction's CRm (enum tlbsim_dsb_domain)
 * @tlbi_op: enum tlbsim_tlbi_op; @tlbi_is: the IS/OS form
 * @target: branch target (an instruction index, n = the end)
 * @line: where it is in the file
 */
struct lit_insn {
	uint8_t op, alu, acq, rel, cond, cbnz, csinc, has_imm, barrier, tlbi_op, tlbi_is, wide;
	int8_t rd, rt, rn, rm;
	int16_t target;
	int64_t imm;
	int line;
};

struct lit_label {
	char name[32];
	int insn; /* index; the thread's length for a label at its end */
};

struct lit_thread {
	struct lit_insn insn[LIT_MAX_INSNS];
	int n;
	struct lit_label label[LIT_MAX_LABELS];
	int nr_labels;
	struct lit_val reg[32]; /* initial values */
	bool el0;		/* runs at EL0 (herd EL0=P0,...) */
};

/* Fault handling after an MMU fault (herd lib/fault.ml). */
enum lit_fault_mode { LF_FATAL, LF_HANDLED, LF_SKIP };
/* MMU fault types (herd FaultType.AArch64): none for "any". */
enum lit_ftype { LFT_ANY, LFT_TRANSLATION, LFT_ACCESSFLAG, LFT_PERMISSION };

/* The final condition: a propositional formula (herd ConstrGen). */
enum lit_cnode { LCN_TRUE, LCN_FALSE, LCN_NOT, LCN_AND, LCN_OR, LCN_REG, LCN_MEM, LCN_FAULT };

struct lit_cond {
	uint8_t kind;
	int16_t a, b; /* children (LCN_NOT: a; AND/OR: a, b) */
	int8_t thread, reg, ftype;
	int16_t loc;   /* LCN_MEM: location; LCN_FAULT: variable or -1 */
	int16_t label; /* LCN_FAULT: instruction index or -1 */
	struct lit_val val;
};

enum lit_quant { LQ_EXISTS, LQ_NOT_EXISTS, LQ_FORALL };

#define LIT_MAX_COND 128

/**
 * struct lit_test - a parsed litmus test
 * @name: the test's name (its first line)
 * @var: the variables' names; @nr_vars of them
 * @init: initial value of every location (2 * @nr_vars)
 * @cond: the formula's nodes, @root its root
 */
struct lit_test {
	char name[LIT_NAME_LEN];
	const char *path;
	char var[LIT_MAX_VARS][32];
	int nr_vars;
	struct lit_val init[2 * LIT_MAX_VARS];
	struct lit_thread th[LIT_MAX_THREADS];
	int nr_threads;
	enum lit_fault_mode fault_mode;
	enum lit_quant quant;
	struct lit_cond cond[LIT_MAX_COND];
	int nr_cond, root;
	int cond_line;
};

/* A descriptor with herd's defaults, output address PA(@sym). */
struct lit_val chk_lit_desc(int sym);
/* Do @a and @b hold the same value? */
bool chk_lit_val_eq(const struct lit_val *a, const struct lit_val *b);

/* Parse the test at @path into @t (whose @path it borrows).  Returns 0,
 * -TLBSIM_EPARSE (file and line: a syntax error or a construct outside the
 * supported subset), -TLBSIM_ENOENT/-TLBSIM_EIO/-TLBSIM_ENOMEM. */
int chk_lit_parse(const char *path, struct lit_test *t, struct tlbsim_error *err);
/* Parse @len bytes of text (@path names it in errors). */
int chk_lit_parse_text(const char *path, const char *text, size_t len, struct lit_test *t,
		       struct tlbsim_error *err);

struct tlbsim_litmus_opts;
struct tlbsim_litmus_result;
/* Judge parsed test @t (tlbsim_litmus_check() without the file). */
int chk_lit_check(const struct lit_test *t, const struct tlbsim_litmus_opts *opts,
		  struct tlbsim_litmus_result *res, struct tlbsim_error *err);

#endif /* TLBSIM_CHECK_LITMUS_H */
