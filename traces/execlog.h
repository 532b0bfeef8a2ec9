/* SPDX-License-Identifier: MIT */
/*
 * The instruction-trace readers (traces/FORMAT.md, "Instruction traces"):
 * read_execlog.c parses QEMU execlog lines and tlbsim-insn lines into
 * struct xl_line; insn_events.c turns one decoded line into events, with
 * the operand values the trace gave.  Internal to traces/.
 */
#ifndef TLBSIM_TRACES_EXECLOG_H
#define TLBSIM_TRACES_EXECLOG_H

#include <stdint.h>

#include "insn_decode.h"
#include "trace_format.h"

/* Accesses and register values one line may carry (x86 string moves: two accesses). */
#define XL_MAX_ACCESSES 16
#define XL_MAX_REGS 40
/* Events one line can make: a compute, then one per access or one for the instruction. */
#define XL_QUEUE (XL_MAX_ACCESSES + 4)
/* Distinct unknown mnemonics kept; the rest count as "(other)". */
#define XL_MAX_MNEMONICS 512

/*
 * Stores to [linear_map, linear_map + 64 TiB) are stores to physical memory:
 * 64 TiB is the size of the x86-64 direct map with 4-level paging (Linux
 * Documentation/arch/x86/x86_64/mm.rst) and no more than arm64's with
 * 48-bit VAs (Documentation/arch/arm64/memory.rst), so no address of
 * another region is taken for one.
 */
#define XL_LINEAR_MAP_BYTES (UINT64_C(1) << 46)

struct xl_access {
	uint8_t store;
	uint8_t has_value;
	uint8_t phys; /* execlog system mode: @addr is physical (a device name followed) */
	uint64_t addr;
	uint64_t value;
};

/* One instruction line, parsed. */
struct xl_line {
	uint16_t cpu;
	uint64_t pc;
	uint8_t bytes[INSN_MAX_BYTES];
	uint8_t nr_bytes;
	struct xl_access acc[XL_MAX_ACCESSES];
	int nr_acc;
	int8_t reg[XL_MAX_REGS];
	uint64_t reg_value[XL_MAX_REGS];
	int nr_regs;
};

/* A cpu's registers as the trace last showed them; @known bit i: regs[i] is valid. */
struct xl_regs {
	uint64_t regs[INSN_NR_REGS];
	uint64_t known;
};

struct xl_mnemonic {
	char name[TLBSIM_TRACE_MNEMONIC_LEN];
	uint64_t count;
};

/* Where the events of a line go, and what they need to know. */
struct xl_sink {
	enum tlbsim_isa isa;
	unsigned page_shift;
	int has_linear_map;
	uint64_t linear_map;
	struct tlbsim_event q[XL_QUEUE];
	int q_head, q_len;
	uint16_t pend_cpu;
	uint64_t pend_insns; /* instructions of @pend_cpu not yet given as a compute */
	struct xl_mnemonic *mn;
	int nr_mn;
	struct tlbsim_trace_stats *stats;
};

/* Turn @l, decoded as @t, into events queued on @s; @regs: the values before it. */
void xl_line_events(struct xl_sink *s, const struct xl_line *l, const struct insn_tmpl *t,
		    const struct xl_regs *regs);
/* Queue the pending compute, if any (at a cpu change, an event line, the end). */
void xl_flush_compute(struct xl_sink *s);
/* Count one unknown instruction (or note) by @name. */
void xl_count_unknown(struct xl_sink *s, const char *name);
/* tlbsim_trace_insn_counts() over @s. */
size_t xl_insn_counts(const struct xl_sink *s, struct tlbsim_trace_insn_count *out, size_t max);

#endif
