/* SPDX-License-Identifier: MIT */
/*
 * The field layout of every event kind: one table drives the text writer
 * (tlbsim_event_format), the text reader, the binary reader and writer and
 * the validator, so a new kind is one table row (traces/event_layout.c)
 * plus its rules in trace_event_check().  traces/FORMAT.md is this table
 * in prose.
 *
 * Internal to traces/.
 */
#ifndef TLBSIM_TRACES_EVENT_LAYOUT_H
#define TLBSIM_TRACES_EVENT_LAYOUT_H

#include <stdint.h>
#include <string.h>

#include "tlbsim/event.h"

/* Most fields any kind has (INVLPGB, TLBI). */
#define TRACE_MAX_FIELDS 6

/*
 * How a field is written.  Binary: every field is one unsigned varint,
 * except TF_VA, a zigzag varint of the delta to the thread's previous
 * address.  Text:
 */
enum trace_ftype {
	TF_VA,	    /* address: hex "0x7f00"; hex or decimal accepted */
	TF_HEX,	    /* length, frame, raw value: hex; hex or decimal accepted */
	TF_DEC,	    /* count or id: decimal; hex or decimal accepted */
	TF_PROT,    /* enum tlbsim_prot R/W/X: "rw-" */
	TF_FLAGS,   /* bits named by @names: "private,anon"; "-" is none */
	TF_ENUM,    /* one value named by @names: "ish" */
	TF_WORD,    /* 0/1: the bare word @name when 1, nothing when 0 */
	TF_TLBI_OP, /* TLBI op, with the next field (flags): "vae1isnxs" */
};

/* Who must perform an event of a kind (include/tlbsim/event.h). */
enum trace_who {
	WHO_THREAD = 1, /* tid != TLBSIM_TID_NONE */
	WHO_CPU = 2,	/* cpu != TLBSIM_CPU_ANY */
	WHO_BOTH = 3,	/* both */
	WHO_ANY = 0,	/* neither required */
};

struct trace_name {
	unsigned value;
	const char *name;
};

/**
 * struct trace_field - one field of an event kind
 * @name: text key (optional fields) and the name FORMAT.md uses
 * @type: enum trace_ftype
 * @size: bytes of the struct member: 1, 2, 4 or 8
 * @optional: text: written as "name=value" (TF_WORD: "name") after the
 *            positional fields, and only when not 0; else positional
 * @hidden: text: not written; the previous field's codec covers it
 * @offset: offsetof(struct tlbsim_event, member)
 * @min, @max: valid range; a @max of 0 means the member's full width
 * @names: value names of TF_FLAGS and TF_ENUM fields, NULL-name terminated
 */
struct trace_field {
	const char *name;
	uint8_t type;
	uint8_t size;
	uint8_t optional;
	uint8_t hidden;
	uint16_t offset;
	uint32_t min;
	uint64_t max;
	const struct trace_name *names;
};

struct trace_kind {
	const char *name;
	uint8_t who;
	uint8_t nr_fields;
	struct trace_field fields[TRACE_MAX_FIELDS];
};

/* Indexed by enum tlbsim_event_kind; a NULL @name marks an unused value. */
extern const struct trace_kind trace_kinds[TLBSIM_EV_NR_KINDS];

/* Names used by the tables, and by the readers' error messages. */
extern const struct trace_name trace_tlbi_op_names[];
extern const struct trace_name trace_tlbi_range_op_names[];

/* Can @n pages be the range of one TLBI RVA* (Arm ARM C5.5)? */
int trace_tlbi_range_pages_ok(uint64_t n);

/* The layout of @kind, or NULL for an unknown kind. */
static inline const struct trace_kind *trace_kind(unsigned kind)
{
	if (kind >= TLBSIM_EV_NR_KINDS || !trace_kinds[kind].name)
		return NULL;
	return &trace_kinds[kind];
}

static inline uint64_t trace_field_get(const struct tlbsim_event *ev, const struct trace_field *f)
{
	const unsigned char *p = (const unsigned char *)ev + f->offset;
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (f->size) {
	case 1:
		memcpy(&v8, p, 1);
		return v8;
	case 2:
		memcpy(&v16, p, 2);
		return v16;
	case 4:
		memcpy(&v32, p, 4);
		return v32;
	default:
		memcpy(&v64, p, 8);
		return v64;
	}
}

/* The largest value the member of @f can hold. */
static inline uint64_t trace_field_width_max(const struct trace_field *f)
{
	return f->size >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * f->size)) - 1;
}

/* Store @v, which must fit the member (checked by the callers). */
static inline void trace_field_set(struct tlbsim_event *ev, const struct trace_field *f, uint64_t v)
{
	unsigned char *p = (unsigned char *)ev + f->offset;
	uint8_t v8 = (uint8_t)v;
	uint16_t v16 = (uint16_t)v;
	uint32_t v32 = (uint32_t)v;

	switch (f->size) {
	case 1:
		memcpy(p, &v8, 1);
		break;
	case 2:
		memcpy(p, &v16, 2);
		break;
	case 4:
		memcpy(p, &v32, 4);
		break;
	default:
		memcpy(p, &v, 8);
		break;
	}
}

/* The entry of @names with @value, or NULL. */
const char *trace_name_of(const struct trace_name *names, unsigned value);

/*
 * Check @ev against its kind's rules (tlbsim_event_validate()).  On failure
 * returns -TLBSIM_EINVAL, writes the reason to @why and sets *@field to the
 * index of the offending field in the kind's layout, or -1 when the
 * problem is the kind, the thread or the cpu.
 */
int trace_event_check(const struct tlbsim_event *ev, int *field, char *why, size_t size);

/* "0x" and hex digits, or decimal digits, nothing else, at most 2^64 - 1. */
int trace_parse_u64(const char *s, uint64_t *out);

/* Is @tok a "who" prefix: "T<digit>..." or "cpu<digit>..."? */
int trace_is_who(const char *tok);

/*
 * Parse "T<tid>", "T<tid>@cpu<n>" or "cpu<n>" (numbers as trace_parse_u64();
 * tid 1..2^32-1, cpu 0..65534) into @ev's tid and cpu.  Returns 0 or
 * -TLBSIM_EPARSE.
 */
int trace_who_parse(const char *tok, struct tlbsim_event *ev);

/*
 * Parse the token @tok as field @i of kind @k into @ev (a TF_TLBI_OP token
 * sets field @i + 1 too).  Returns 0, or -TLBSIM_EPARSE / -TLBSIM_ERANGE
 * with what was expected and found in @why.
 */
int trace_field_parse(struct tlbsim_event *ev, const struct trace_kind *k, int i, const char *tok,
		      char *why, size_t size);

/*
 * The text format's line structure (read_text.c), shared with the insn
 * reader's event lines: split @line in place at blanks up to a '#'
 * comment (at most @max tokens, their 1-based columns in @col; returns the
 * count); then parse tokens "[who] kind fields..." into @ev.  Returns 1,
 * or a negative code with the offending column in *@err_col (@eol_col for
 * "the end of the line") and what was expected and found in @why.
 */
int trace_text_split(char *line, char **tok, int *col, int max);
int trace_text_event(char *const *tok, const int *col, int nr_tok, int eol_col,
		     struct tlbsim_event *ev, int *err_col, char *why, size_t size);

#endif
