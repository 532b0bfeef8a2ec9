/* SPDX-License-Identifier: MIT */
/*
 * A reader of herd7's AArch64 litmus format (herdtools7 litmus tests,
 * catalogue/aarch64-VMSA) for the VMSA subset of docs/litmus.md: the
 * header and its Variant/EL0 lines, the initial state (variables, their
 * page-table entries pte_x / PTE(x), physical addresses phy_x / PA(x),
 * descriptors "(oa:..,valid:..,af:..,db:..,dbm:..,el0:..)" and registers),
 * the code columns, and the final condition (exists, ~exists, forall over
 * registers, memory and fault(P:L,x,type)).  Anything outside the subset is
 * an error naming its line: a test is never judged on a construct read
 * wrongly.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check/litmus.h"
#include "error_internal.h"
#include "tlbsim/event.h"
#include "tlbsim/mmu.h"
#include "traces/event_layout.h"

/* Files larger than this are not litmus tests. */
#define MAX_TEXT (1 << 20)

struct parser {
	struct lit_test *t;
	const char *path;
	char *text; /* comments blanked, newlines kept */
	size_t len;
	struct tlbsim_error *err;
};

static int perr(struct parser *p, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int perr(struct parser *p, int line, const char *fmt, ...)
{
	char msg[TLBSIM_ERROR_TEXT_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set(p->err, -TLBSIM_EPARSE, p->path, line > 0 ? line : -1, -1, -1, NULL, "%s",
		       msg);
}

/* ---- values ----------------------------------------------------------------- */

struct lit_val chk_lit_desc(int sym)
{
	return (struct lit_val){
	    .kind = LV_DESC, .valid = 1, .af = 1, .db = 1, .el0 = 1, .sym = (int16_t)sym};
}

bool chk_lit_val_eq(const struct lit_val *a, const struct lit_val *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case LV_INT:
		return a->i == b->i;
	case LV_DESC:
		return a->sym == b->sym && a->valid == b->valid && a->af == b->af &&
		       a->db == b->db && a->dbm == b->dbm && a->el0 == b->el0;
	default:
		return a->sym == b->sym;
	}
}

static void trim(char **s)
{
	char *e;

	while (isspace((unsigned char)**s))
		(*s)++;
	e = *s + strlen(*s);
	while (e > *s && isspace((unsigned char)e[-1]))
		*--e = 0;
}

static bool is_ident(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* The variable named @name, declared on first use; -1 when too many. */
static int var_of(struct parser *p, const char *name, int line)
{
	struct lit_test *t = p->t;
	int v;

	for (v = 0; v < t->nr_vars; v++)
		if (!strcmp(t->var[v], name))
			return v;
	if (t->nr_vars == LIT_MAX_VARS || strlen(name) >= sizeof(t->var[0])) {
		perr(p, line, "too many variables (at most %d) or a name too long: '%s'",
		     LIT_MAX_VARS, name);
		return -1;
	}
	snprintf(t->var[v], sizeof(t->var[v]), "%s", name);
	t->init[LIT_LOC_PA(v)] = (struct lit_val){.kind = LV_INT};
	t->init[LIT_LOC_PTE(v)] = chk_lit_desc(v);
	t->nr_vars++;
	return v;
}

/* "NAME(x)" -> x in @out; false when @s is not of that form. */
static bool wrapped(const char *s, const char *fn, char *out, size_t size)
{
	size_t n = strlen(fn), len = strlen(s);

	if (strncmp(s, fn, n) || s[n] != '(' || len < n + 3 || s[len - 1] != ')' ||
	    len - n - 2 >= size)
		return false;
	memcpy(out, s + n + 1, len - n - 2);
	out[len - n - 2] = 0;
	trim(&out);
	return true;
}

/*
 * A location: "x" (PA of x), "pte_x"/"PTE(x)" (its descriptor),
 * "phy_x"/"PA(x)", any of them in brackets.  The location number, or -1
 * after an error.
 */
static int parse_loc(struct parser *p, char *s, int line)
{
	char inner[64], *q = inner;
	size_t len;
	int v;

	trim(&s);
	len = strlen(s);
	if (len >= 2 && s[0] == '[' && s[len - 1] == ']') {
		s[len - 1] = 0;
		s++;
		trim(&s);
	}
	/* herd writes the descriptor of x PTE(x), pte_x or TTD(x). */
	if (wrapped(s, "PTE", inner, sizeof(inner)) || wrapped(s, "TTD", inner, sizeof(inner)) ||
	    (!strncmp(s, "pte_", 4) && is_ident(s + 4))) {
		if (q == inner && !strncmp(s, "pte_", 4))
			snprintf(inner, sizeof(inner), "%s", s + 4);
		if (!is_ident(inner) || !strncmp(inner, "PTE", 3))
			return perr(p, line,
				    "unsupported location '%s' (PTE(x) of a variable x; "
				    "PTE(PTE(x)) and stage 2 are not modelled)",
				    s),
			       -1;
		v = var_of(p, inner, line);
		return v < 0 ? -1 : LIT_LOC_PTE(v);
	}
	if (wrapped(s, "PA", inner, sizeof(inner)) || (!strncmp(s, "phy_", 4) && is_ident(s + 4))) {
		if (!strncmp(s, "phy_", 4))
			snprintf(inner, sizeof(inner), "%s", s + 4);
		if (!is_ident(inner))
			return perr(p, line, "unsupported location '%s'", s), -1;
		v = var_of(p, inner, line);
		return v < 0 ? -1 : LIT_LOC_PA(v);
	}
	if (!is_ident(s))
		return perr(p, line,
			    "expected a location (x, pte_x, PTE(x), phy_x, PA(x)), found '%s'", s),
		       -1;
	v = var_of(p, s, line);
	return v < 0 ? -1 : LIT_LOC_PA(v);
}

static int parse_int(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (*s == '#')
		s++;
	errno = 0;
	v = strtoll(s, &end, 0);
	if (end == s || *end || errno)
		return -1;
	*out = v;
	return 0;
}

/* "(oa:phy_y, valid:0, ...)": fields over @d (herd AArch64PteVal). */
static int parse_desc(struct parser *p, char *s, int line, struct lit_val *d, bool *has_oa)
{
	char *tok, *save = NULL;

	*has_oa = false;
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':'), *key = tok, *val;
		int64_t n;

		if (!colon)
			return perr(p, line,
				    "a descriptor field is 'name:value', found '%s' (memory "
				    "attributes are not modelled)",
				    tok);
		*colon = 0;
		val = colon + 1;
		trim(&key);
		trim(&val);
		if (!strcmp(key, "oa")) {
			int loc = parse_loc(p, val, line);

			if (loc < 0)
				return -TLBSIM_EPARSE;
			if (loc & 1)
				return perr(p, line,
					    "an output address naming a page-table entry "
					    "('%s') is not modelled (one level of translation)",
					    val);
			d->sym = (int16_t)(loc / 2);
			*has_oa = true;
			continue;
		}
		if (strcmp(key, "valid") && strcmp(key, "af") && strcmp(key, "db") &&
		    strcmp(key, "dbm") && strcmp(key, "el0"))
			return perr(p, line,
				    "descriptor field '%s' is not modelled (oa, valid, af, db, "
				    "dbm, el0)",
				    key);
		if (parse_int(val, &n) || n < 0 || n > 1)
			return perr(p, line, "descriptor field %s takes 0 or 1, found '%s'", key,
				    val);
		if (!strcmp(key, "valid"))
			d->valid = (uint8_t)n;
		else if (!strcmp(key, "af"))
			d->af = (uint8_t)n;
		else if (!strcmp(key, "db"))
			d->db = (uint8_t)n;
		else if (!strcmp(key, "dbm"))
			d->dbm = (uint8_t)n;
		else
			d->el0 = (uint8_t)n;
	}
	return 0;
}

/*
 * A value: an integer, a variable's address x, pte_x/PTE(x), phy_x/PA(x),
 * or a descriptor; @desc_sym: the variable whose descriptor this is (its
 * oa when not given), or -1 when an oa must be given.
 */
static int parse_value(struct parser *p, char *s, int line, int desc_sym, struct lit_val *out)
{
	size_t len;

	trim(&s);
	len = strlen(s);
	*out = (struct lit_val){.kind = LV_INT};
	if (len >= 2 && s[0] == '(' && s[len - 1] == ')') {
		bool has_oa;

		s[len - 1] = 0;
		*out = chk_lit_desc(desc_sym < 0 ? 0 : desc_sym);
		if (parse_desc(p, s + 1, line, out, &has_oa))
			return -TLBSIM_EPARSE;
		if (!has_oa && desc_sym < 0)
			return perr(p, line, "this descriptor needs its output address (oa:phy_x)");
		return 0;
	}
	if (!parse_int(s, &out->i))
		return 0;
	{
		char copy[128];
		int loc;

		snprintf(copy, sizeof(copy), "%s", s);
		if (!strncmp(copy, "pte_", 4) || !strncmp(copy, "PTE(", 4) ||
		    !strncmp(copy, "TTD(", 4)) {
			loc = parse_loc(p, copy, line);
			if (loc < 0)
				return -TLBSIM_EPARSE;
			*out = (struct lit_val){.kind = LV_PTE, .sym = (int16_t)(loc / 2)};
			return 0;
		}
		if (!strncmp(copy, "phy_", 4) || !strncmp(copy, "PA(", 3)) {
			loc = parse_loc(p, copy, line);
			if (loc < 0)
				return -TLBSIM_EPARSE;
			*out = (struct lit_val){.kind = LV_PA, .sym = (int16_t)(loc / 2)};
			return 0;
		}
		if (!is_ident(copy))
			return perr(p, line, "unsupported value '%s'", s);
		loc = parse_loc(p, copy, line);
		if (loc < 0)
			return -TLBSIM_EPARSE;
		*out = (struct lit_val){.kind = LV_VA, .sym = (int16_t)(loc / 2)};
		return 0;
	}
}

/* "X3", "W3", "XZR", "WZR": the register number (31 for ZR), or -1. */
static int reg_num(const char *s, bool *wide)
{
	char *end;
	long n;

	if ((s[0] != 'X' && s[0] != 'W' && s[0] != 'x' && s[0] != 'w'))
		return -1;
	if (wide)
		*wide = s[0] == 'X' || s[0] == 'x';
	if (!strcasecmp(s + 1, "ZR"))
		return LIT_REG_ZR;
	n = strtol(s + 1, &end, 10);
	if (end == s + 1 || *end || n < 0 || n > 30)
		return -1;
	return (int)n;
}

/* "0:X1" or "P0:X1": thread and register; -1 when not of that form. */
static int thread_reg(const char *s, int *thread, int *reg)
{
	char *end;
	long th;

	if (*s == 'P')
		s++;
	th = strtol(s, &end, 10);
	if (end == s || *end != ':' || th < 0 || th >= LIT_MAX_THREADS)
		return -1;
	*thread = (int)th;
	*reg = reg_num(end + 1, NULL);
	return *reg < 0 || *reg == LIT_REG_ZR ? -1 : 0;
}

/* ---- text ------------------------------------------------------------------ */

/* Blank out (* comments *) (they nest, as in OCaml), keeping newlines. */
static int strip_comments(struct parser *p)
{
	size_t i;
	int depth = 0, line = 1, open_line = 0;

	for (i = 0; i < p->len; i++) {
		if (p->text[i] == '\n') {
			line++;
			continue;
		}
		if (p->text[i] == '(' && i + 1 < p->len && p->text[i + 1] == '*') {
			if (!depth++)
				open_line = line;
			p->text[i] = p->text[i + 1] = ' ';
			i++;
			continue;
		}
		if (depth && p->text[i] == '*' && i + 1 < p->len && p->text[i + 1] == ')') {
			depth--;
			p->text[i] = p->text[i + 1] = ' ';
			i++;
			continue;
		}
		if (depth || p->text[i] == '\r' || p->text[i] == '\t')
			p->text[i] = ' ';
		if (!p->text[i])
			return perr(p, line, "a NUL byte: not a litmus test");
	}
	if (depth)
		return perr(p, open_line, "a comment '(*' that is never closed");
	return 0;
}

/* Next line from *pos: its text (NUL-terminated in place) and number. */
static char *next_line(struct parser *p, size_t *pos, int *lineno)
{
	char *s, *nl;

	if (*pos >= p->len)
		return NULL;
	s = p->text + *pos;
	nl = memchr(s, '\n', p->len - *pos);
	if (nl) {
		*nl = 0;
		*pos = (size_t)(nl - p->text) + 1;
	} else {
		*pos = p->len;
	}
	(*lineno)++;
	return s;
}

/* ---- header and initial state ------------------------------------------------ */

static int parse_procs(struct parser *p, const char *list, int line, bool *set)
{
	char buf[256], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		char *end;
		long n = strtol(tok + (*tok == 'P'), &end, 10);

		if (*tok != 'P' || *end || n < 0 || n >= LIT_MAX_THREADS)
			return perr(p, line, "expected a list of threads P0,P1,..., found '%s'",
				    tok);
		set[n] = true;
	}
	return 0;
}

static int meta_line(struct parser *p, char *s, int line, bool *el0)
{
	char *eq = strchr(s, '='), *key = s, *val;

	if (*s == '"')
		return 0; /* a doc string */
	if (!eq)
		return perr(p, line, "expected 'Key=value' or the initial state '{', found '%s'",
			    s);
	*eq = 0;
	val = eq + 1;
	trim(&key);
	trim(&val);
	if (!strcasecmp(key, "Variant")) {
		char *tok, *save = NULL;

		for (tok = strtok_r(val, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
			if (!strcasecmp(tok, "vmsa") || !strcasecmp(tok, "kvm"))
				continue;
			if (!strcasecmp(tok, "fatal") || !strcasecmp(tok, "precise"))
				p->t->fault_mode = LF_FATAL;
			else if (!strcasecmp(tok, "handled") || !strcasecmp(tok, "imprecise"))
				p->t->fault_mode = LF_HANDLED;
			else if (!strcasecmp(tok, "skip"))
				p->t->fault_mode = LF_SKIP;
			else
				return perr(p, line,
					    "variant '%s' is not modelled (vmsa, fatal/precise, "
					    "handled/imprecise, skip)",
					    tok);
		}
		return 0;
	}
	if (!strcasecmp(key, "EL0"))
		return parse_procs(p, val, line, el0);
	if (!strcasecmp(key, "TTHM"))
		return perr(p, line,
			    "TTHM=%s: hardware updates of the access flag and dirty bit "
			    "(FEAT_HAFDBS) are not modelled",
			    val);
	/* Bookkeeping of the generators (diy7) and of litmus7: no meaning here. */
	if (!strcasecmp(key, "Hash") || !strcasecmp(key, "Orig") || !strcasecmp(key, "Com") ||
	    !strcasecmp(key, "Generator") || !strcasecmp(key, "Prefetch") ||
	    !strcasecmp(key, "Cycle") || !strcasecmp(key, "Relax") || !strcasecmp(key, "Safe") ||
	    !strcasecmp(key, "Fences") || !strcasecmp(key, "Mapping"))
		return 0;
	return perr(p, line, "header line '%s=...' is not understood", key);
}

/* One item of the initial state: "[type] lhs [= value]". */
static int init_item(struct parser *p, char *s, int line)
{
	struct lit_test *t = p->t;
	char *eq = strchr(s, '='), *lhs = s, *rhs = NULL, *sp;
	int th, reg, loc;

	if (eq) {
		*eq = 0;
		rhs = eq + 1;
	}
	trim(&lhs);
	/* A leading C type ("int", "uint64_t", "pteval_t"): ignored. */
	sp = strchr(lhs, ' ');
	if (sp && (!strncmp(lhs, "int ", 4) || !strncmp(sp - 2, "_t", 2))) {
		lhs = sp + 1;
		trim(&lhs);
	}
	if (!*lhs)
		return perr(p, line, "an empty left-hand side in the initial state");
	if (!thread_reg(lhs, &th, &reg)) {
		if (th >= t->nr_threads && t->nr_threads)
			return perr(p, line, "register of thread %d, but the test has %d", th,
				    t->nr_threads);
		if (!rhs)
			return 0; /* "pteval_t 0:X1": a declaration, 0 */
		return parse_value(p, rhs, line, -1, &t->th[th].reg[reg]);
	}
	if (strchr(lhs, ':'))
		return perr(p, line, "unsupported register or location '%s'", lhs);
	loc = parse_loc(p, lhs, line);
	if (loc < 0)
		return -TLBSIM_EPARSE;
	if (!rhs)
		return 0;
	if (loc & 1) {
		struct lit_val d;

		if (parse_value(p, rhs, line, loc / 2, &d))
			return -TLBSIM_EPARSE;
		if (d.kind != LV_DESC)
			return perr(p, line,
				    "a page-table entry holds a descriptor '(oa:..., ...)'");
		t->init[loc] = d;
		return 0;
	}
	return parse_value(p, rhs, line, -1, &t->init[loc]);
}

/* ---- code ------------------------------------------------------------------ */

static const struct {
	const char *name;
	enum lit_cc c;
} cond_names[] = {{"EQ", LC_EQ}, {"NE", LC_NE}, {"GT", LC_GT},
		  {"GE", LC_GE}, {"LT", LC_LT}, {"LE", LC_LE}};

static int cond_of(const char *s)
{
	unsigned i;

	for (i = 0; i < sizeof(cond_names) / sizeof(cond_names[0]); i++)
		if (!strcasecmp(s, cond_names[i].name))
			return (int)cond_names[i].c;
	return -1;
}

/*
 * DMB/DSB option as the instruction's CRm (Arm ARM C6.2 DMB, DSB): bits
 * [3:2] the domain (OSH 00, NSH 01, ISH 10, full system 11), bits [1:0] the
 * accesses (LD 01, ST 10, all 11).  "SY", "ISH", "ISHST", "LD", ...
 */
static int barrier_option(const char *s)
{
	static const char *const domain[] = {"OSH", "NSH", "ISH", ""};
	static const char *const type[] = {NULL, "LD", "ST", ""};
	unsigned d, k;

	if (!strcasecmp(s, "SY"))
		return 15;
	for (d = 0; d < 4; d++) {
		size_t n = strlen(domain[d]);

		if (strncasecmp(s, domain[d], n))
			continue;
		for (k = 1; k < 4; k++)
			if (!strcasecmp(s + n, type[k]) && (n || k != 3))
				return (int)(d << 2 | k);
	}
	return -1;
}

/* Split "a, [b, c], d" at top-level commas into @ops (trimmed). */
static int split_operands(char *s, char **ops, int max)
{
	int n = 0, depth = 0;
	char *start = s;

	if (!*s)
		return 0;
	for (;; s++) {
		if (*s == '[')
			depth++;
		else if (*s == ']')
			depth--;
		if ((*s == ',' && !depth) || !*s) {
			bool end = !*s;

			*s = 0;
			if (n == max)
				return -1;
			ops[n] = start;
			trim(&ops[n]);
			n++;
			if (end)
				break;
			start = s + 1;
		}
	}
	return n;
}

/* "[Xn]", "[Xn,Xm]", "[Xn,Wm,SXTW]": base and index registers. */
static int parse_addr(char *s, struct lit_insn *in)
{
	char *ops[4];
	size_t len = strlen(s);
	int n;

	if (len < 3 || s[0] != '[' || s[len - 1] != ']')
		return -1;
	s[len - 1] = 0;
	n = split_operands(s + 1, ops, 4);
	if (n < 1 || n > 3)
		return -1;
	in->rn = (int8_t)reg_num(ops[0], NULL);
	in->rm = -1;
	if (in->rn < 0 || in->rn == LIT_REG_ZR)
		return -1;
	if (n >= 2) {
		in->rm = (int8_t)reg_num(ops[1], NULL);
		if (in->rm < 0)
			return -1;
	}
	if (n == 3 && strcasecmp(ops[2], "SXTW") && strcasecmp(ops[2], "UXTW"))
		return -1;
	return 0;
}

/* The register of operand @s, or a parse error. */
#define REG(dst, s)                                                                                \
	do {                                                                                       \
		int r_ = reg_num((s), NULL);                                                       \
		if (r_ < 0)                                                                        \
			return perr(p, line, "expected a register, found '%s' in '%s'", (s),       \
				    text);                                                         \
		(dst) = (int8_t)r_;                                                                \
	} while (0)

static int imm_or_reg(struct parser *p, int line, const char *text, char *s, struct lit_insn *in)
{
	if (!parse_int(s, &in->imm)) {
		in->has_imm = 1;
		in->rm = -1;
		return 0;
	}
	REG(in->rm, s);
	return 0;
}

/* Labels of branches, resolved when the thread is complete. */
struct pending {
	char name[32];
	int insn, line;
};

static int parse_insn(struct parser *p, struct lit_thread *th, char *cell, int line,
		      struct pending *pend, int *nr_pend)
{
	char *text = cell, *ops[6], *sp, mnem[16], buf[256];
	struct lit_insn in = {.rd = -1, .rt = -1, .rn = -1, .rm = -1, .target = -1, .line = line};
	int n, k;
	size_t i;

	/* Labels "L0:" before the instruction (or alone in the cell). */
	for (;;) {
		char *q;

		trim(&cell);
		for (q = cell; isalnum((unsigned char)*q) || *q == '_'; q++)
			;
		if (q == cell || *q != ':')
			break;
		*q = 0;
		if (th->nr_labels == LIT_MAX_LABELS)
			return perr(p, line, "too many labels");
		snprintf(th->label[th->nr_labels].name, sizeof(th->label[0].name), "%s", cell);
		th->label[th->nr_labels++].insn = th->n;
		cell = q + 1;
	}
	trim(&cell);
	if (!*cell)
		return 0;
	text = cell;
	sp = cell;
	while (*sp && !isspace((unsigned char)*sp))
		sp++;
	if ((size_t)(sp - cell) >= sizeof(mnem))
		return perr(p, line, "unknown instruction '%s'", text);
	memcpy(mnem, cell, (size_t)(sp - cell));
	mnem[sp - cell] = 0;
	for (i = 0; mnem[i]; i++)
		mnem[i] = (char)toupper((unsigned char)mnem[i]);
	snprintf(buf, sizeof(buf), "%s", sp);
	n = split_operands(buf, ops, 6);
	if (n < 0)
		return perr(p, line, "too many operands in '%s'", text);
	if (th->n == LIT_MAX_INSNS)
		return perr(p, line, "a thread has at most %d instructions", LIT_MAX_INSNS);

	if (!strcmp(mnem, "LDR") || !strcmp(mnem, "LDAR") || !strcmp(mnem, "LDAPR") ||
	    !strcmp(mnem, "STR") || !strcmp(mnem, "STLR")) {
		bool wide;

		in.op = mnem[0] == 'L' ? LO_LDR : LO_STR;
		in.acq = !strcmp(mnem, "LDAR") ? 'A' : !strcmp(mnem, "LDAPR") ? 'Q' : 0;
		in.rel = !strcmp(mnem, "STLR");
		if (n != 2 || (k = reg_num(ops[0], &wide)) < 0 || parse_addr(ops[1], &in))
			return perr(p, line,
				    "expected '%s Rt,[Xn{,Rm}]', found '%s' (other "
				    "addressing modes are not modelled)",
				    mnem, text);
		if (in.op == LO_LDR && k == LIT_REG_ZR)
			return perr(p, line, "a load into the zero register is not modelled");
		if ((in.acq || in.rel) && in.rm >= 0)
			return perr(p, line, "%s takes [Xn] only", mnem);
		in.rd = (int8_t)k;
		in.wide = wide;
	} else if (!strncmp(mnem, "SWP", 3) || !strncmp(mnem, "CAS", 3)) {
		const char *sfx = mnem + 3;

		in.op = mnem[0] == 'S' ? LO_SWP : LO_CAS;
		if (!strcmp(sfx, "A") || !strcmp(sfx, "AL"))
			in.acq = 'A';
		if (!strcmp(sfx, "L") || !strcmp(sfx, "AL"))
			in.rel = 1;
		if ((*sfx && strcmp(sfx, "A") && strcmp(sfx, "L") && strcmp(sfx, "AL")) || n != 3 ||
		    parse_addr(ops[2], &in) || in.rm >= 0)
			return perr(p, line, "expected '%s Rs,Rt,[Xn]', found '%s'", mnem, text);
		REG(in.rd, ops[0]);
		REG(in.rt, ops[1]);
	} else if (!strcmp(mnem, "MOV")) {
		if (n != 2)
			return perr(p, line, "expected 'MOV Rd,#imm|Rm', found '%s'", text);
		in.op = LO_MOV;
		REG(in.rd, ops[0]);
		if (imm_or_reg(p, line, text, ops[1], &in))
			return -TLBSIM_EPARSE;
	} else if (!strcmp(mnem, "ADD") || !strcmp(mnem, "SUB") || !strcmp(mnem, "AND") ||
		   !strcmp(mnem, "ORR") || !strcmp(mnem, "EOR") || !strcmp(mnem, "BIC") ||
		   !strcmp(mnem, "LSR") || !strcmp(mnem, "LSL")) {
		static const char *const names[] = {"ADD", "SUB", "AND", "ORR",
						    "EOR", "BIC", "LSR", "LSL"};

		in.op = LO_ALU;
		for (k = 0; strcmp(names[k], mnem); k++)
			;
		in.alu = (uint8_t)k;
		if (n == 4 && (!strcasecmp(ops[3], "SXTW") || !strcasecmp(ops[3], "UXTW")))
			n = 3;
		if (n != 3)
			return perr(p, line,
				    "expected '%s Rd,Rn,#imm|Rm', found '%s' (shifted "
				    "operands are not modelled)",
				    mnem, text);
		REG(in.rd, ops[0]);
		REG(in.rn, ops[1]);
		if (imm_or_reg(p, line, text, ops[2], &in))
			return -TLBSIM_EPARSE;
	} else if (!strcmp(mnem, "CMP")) {
		if (n != 2)
			return perr(p, line, "expected 'CMP Rn,#imm|Rm', found '%s'", text);
		in.op = LO_CMP;
		REG(in.rn, ops[0]);
		if (imm_or_reg(p, line, text, ops[1], &in))
			return -TLBSIM_EPARSE;
	} else if (!strcmp(mnem, "CSEL") || !strcmp(mnem, "CSET")) {
		in.op = LO_CSEL;
		in.csinc = mnem[2] == 'E' && mnem[3] == 'T';
		if ((in.csinc && n != 2) || (!in.csinc && n != 4) || cond_of(ops[n - 1]) < 0)
			return perr(p, line,
				    "expected 'CSEL Rd,Rn,Rm,cond' or 'CSET Rd,cond', found "
				    "'%s'",
				    text);
		REG(in.rd, ops[0]);
		in.cond = (uint8_t)cond_of(ops[n - 1]);
		if (!in.csinc) {
			REG(in.rn, ops[1]);
			REG(in.rm, ops[2]);
		}
	} else if (!strcmp(mnem, "CBZ") || !strcmp(mnem, "CBNZ")) {
		in.op = LO_CBZ;
		in.cbnz = mnem[2] == 'N';
		if (n != 2 || !is_ident(ops[1]))
			return perr(p, line, "expected '%s Rn,label', found '%s'", mnem, text);
		REG(in.rn, ops[0]);
		snprintf(pend[*nr_pend].name, sizeof(pend[0].name), "%s", ops[1]);
	} else if (!strncmp(mnem, "B.", 2) || !strcmp(mnem, "B")) {
		in.op = mnem[1] ? LO_BCOND : LO_B;
		if (mnem[1] && cond_of(mnem + 2) < 0)
			return perr(p, line, "unknown condition in '%s'", text);
		if (mnem[1])
			in.cond = (uint8_t)cond_of(mnem + 2);
		if (n != 1 || !is_ident(ops[0]))
			return perr(p, line, "expected '%s label', found '%s'", mnem, text);
		snprintf(pend[*nr_pend].name, sizeof(pend[0].name), "%s", ops[0]);
	} else if (!strcmp(mnem, "DMB") || !strcmp(mnem, "DSB")) {
		int o = n == 1 ? barrier_option(ops[0]) : -1;

		/* "DMB.SY" is not AArch64 assembly; herd writes "DMB SY". */
		if (o < 0)
			return perr(p, line,
				    "expected '%s SY|ST|LD|ISH|ISHST|ISHLD|NSH...|OSH...', "
				    "found '%s'",
				    mnem, text);
		in.op = mnem[1] == 'M' ? LO_DMB : LO_DSB;
		in.barrier = (uint8_t)o;
	} else if (!strcmp(mnem, "ISB")) {
		if (n)
			return perr(p, line, "ISB takes no operand here, found '%s'", text);
		in.op = LO_ISB;
	} else if (!strcmp(mnem, "NOP")) {
		in.op = LO_NOP;
	} else if (!strcmp(mnem, "TLBI")) {
		char low[24];
		size_t j;
		bool found = false;

		if (n < 1 || n > 2 || strlen(ops[0]) >= sizeof(low))
			return perr(p, line, "expected 'TLBI op{,Xt}', found '%s'", text);
		for (j = 0; ops[0][j]; j++)
			low[j] = (char)tolower((unsigned char)ops[0][j]);
		low[j] = 0;
		for (const struct trace_name *nm = trace_tlbi_op_names; nm->name && !found; nm++) {
			size_t l = strlen(nm->name);

			if (strncmp(low, nm->name, l) ||
			    (low[l] && strcmp(low + l, "is") && strcmp(low + l, "os")))
				continue;
			found = true;
			in.tlbi_op = (uint8_t)nm->value;
			in.tlbi_is = low[l] != 0;
		}
		if (!found ||
		    (in.tlbi_op != TLBSIM_TLBI_VAE1 && in.tlbi_op != TLBSIM_TLBI_VAAE1 &&
		     in.tlbi_op != TLBSIM_TLBI_VALE1 && in.tlbi_op != TLBSIM_TLBI_VAALE1 &&
		     in.tlbi_op != TLBSIM_TLBI_VMALLE1))
			return perr(p, line,
				    "TLBI %s is not modelled (VAE1, VALE1, VAAE1, VAALE1, "
				    "VMALLE1 and their IS/OS forms; no ASIDs, no stage 2)",
				    ops[0]);
		in.op = LO_TLBI;
		if ((in.tlbi_op == TLBSIM_TLBI_VMALLE1) != (n == 1))
			return perr(p, line, "TLBI %s %s", ops[0],
				    n == 1 ? "needs its operand register" : "takes no operand");
		if (n == 2)
			REG(in.rn, ops[1]);
	} else {
		return perr(p, line,
			    "instruction '%s' is not modelled (docs/litmus.md lists the "
			    "subset)",
			    mnem);
	}
	if (in.op == LO_CBZ || in.op == LO_BCOND || in.op == LO_B) {
		pend[*nr_pend].insn = th->n;
		pend[*nr_pend].line = line;
		(*nr_pend)++;
	}
	th->insn[th->n++] = in;
	return 0;
}

static int resolve_labels(struct parser *p, struct lit_thread *th, struct pending *pend, int n)
{
	int i, l;

	for (i = 0; i < n; i++) {
		for (l = 0; l < th->nr_labels && strcmp(th->label[l].name, pend[i].name); l++)
			;
		if (l == th->nr_labels)
			return perr(p, pend[i].line,
				    "branch to label '%s', which this thread does not "
				    "have",
				    pend[i].name);
		if (th->label[l].insn <= pend[i].insn)
			return perr(p, pend[i].line, "a backward branch (a loop) is not modelled");
		th->insn[pend[i].insn].target = (int16_t)th->label[l].insn;
	}
	return 0;
}

/* ---- final condition ----------------------------------------------------------- */

struct ctok {
	char s[128];
	int line;
};

struct cparse {
	struct parser *p;
	struct ctok *tok;
	int n, i;
};

static int cnode(struct cparse *c, struct lit_cond node)
{
	struct lit_test *t = c->p->t;

	if (t->nr_cond == LIT_MAX_COND)
		return perr(c->p, c->tok[c->i ? c->i - 1 : 0].line, "the condition is too long"),
		       -1;
	t->cond[t->nr_cond] = node;
	return t->nr_cond++;
}

static const char *peek(struct cparse *c)
{
	return c->i < c->n ? c->tok[c->i].s : "";
}

static int cline(struct cparse *c)
{
	return c->n ? c->tok[c->i < c->n ? c->i : c->n - 1].line : c->p->t->cond_line;
}

static int c_or(struct cparse *c);

/* "fault(P1:L0,x,MMU:Translation)": the tokens inside the parentheses. */
static int c_fault(struct cparse *c, char *args)
{
	struct lit_test *t = c->p->t;
	struct lit_cond node = {.kind = LCN_FAULT, .loc = -1, .label = -1};
	char *ops[4], *colon, *end;
	int n = split_operands(args, ops, 4), line = cline(c);
	long th;

	if (n < 1 || n > 3 || ops[0][0] != 'P')
		return perr(c->p, line, "expected fault(Pn[:label][,x[,type]]), found fault(%s)",
			    args),
		       -1;
	th = strtol(ops[0] + 1, &end, 10);
	if (end == ops[0] + 1 || (*end && *end != ':') || th < 0 || th >= t->nr_threads)
		return perr(c->p, line, "fault names thread '%s', which the test does not have",
			    ops[0]),
		       -1;
	node.thread = (int8_t)th;
	if (*end == ':') {
		const struct lit_thread *tt = &t->th[th];
		int l;

		for (l = 0; l < tt->nr_labels && strcmp(tt->label[l].name, end + 1); l++)
			;
		if (l == tt->nr_labels || tt->label[l].insn >= tt->n)
			return perr(c->p, line,
				    "fault names label '%s', which is on no instruction of "
				    "P%ld",
				    end + 1, th),
			       -1;
		node.label = (int16_t)tt->label[l].insn;
	}
	if (n >= 2) {
		int loc = parse_loc(c->p, ops[1], line);

		if (loc < 0)
			return -1;
		node.loc = (int16_t)(loc / 2);
	}
	if (n == 3) {
		colon = strchr(ops[2], ':');
		if (!colon || strncmp(ops[2], "MMU", 3))
			return perr(c->p, line,
				    "fault type '%s' is not modelled (MMU:Translation, "
				    "MMU:AccessFlag, MMU:Permission)",
				    ops[2]),
			       -1;
		colon++;
		if (!strcmp(colon, "Translation"))
			node.ftype = LFT_TRANSLATION;
		else if (!strcmp(colon, "AccessFlag"))
			node.ftype = LFT_ACCESSFLAG;
		else if (!strcmp(colon, "Permission"))
			node.ftype = LFT_PERMISSION;
		else
			return perr(c->p, line, "fault type '%s' is not modelled", ops[2]), -1;
	}
	return cnode(c, node);
}

/* An atom "lhs=value", "fault(...)", "true", "false", or "(" or "~". */
static int c_atom(struct cparse *c)
{
	struct lit_test *t = c->p->t;
	const char *s = peek(c);
	int line = cline(c);

	if (!*s)
		return perr(c->p, line, "the condition ends too early"), -1;
	if (!strcmp(s, "~")) {
		int a;

		c->i++;
		a = c_atom(c);
		return a < 0 ? -1 : cnode(c, (struct lit_cond){.kind = LCN_NOT, .a = (int16_t)a});
	}
	if (!strcmp(s, "(")) {
		int a;

		c->i++;
		a = c_or(c);
		if (a < 0)
			return -1;
		if (strcmp(peek(c), ")"))
			return perr(c->p, cline(c), "expected ')' in the condition, found '%s'",
				    peek(c)),
			       -1;
		c->i++;
		return a;
	}
	c->i++;
	if (!strcmp(s, "true") || !strcmp(s, "false"))
		return cnode(c, (struct lit_cond){.kind = s[0] == 't' ? LCN_TRUE : LCN_FALSE});
	if (!strncmp(s, "fault(", 6) || !strncmp(s, "Fault(", 6)) {
		char args[128];

		size_t n;

		snprintf(args, sizeof(args), "%s", s + 6);
		n = strlen(args);
		if (!n || args[n - 1] != ')')
			return perr(c->p, line, "expected 'fault(...)' with a closing ')', found '%s'",
				    s),
			       -1;
		args[n - 1] = 0;
		return c_fault(c, args);
	}
	{
		char buf[128], *eq, *lhs, *rhs;
		struct lit_cond node = {0};
		int th, reg;
		bool ne;

		snprintf(buf, sizeof(buf), "%s", s);
		eq = strchr(buf, '=');
		/* "x!=v", and herd's "x<>v". */
		if (!eq && (eq = strstr(buf, "<>"))) {
			eq[0] = '!';
			eq[1] = '=';
			eq++;
		}
		if (!eq)
			return perr(c->p, line,
				    "expected 'location=value' in the condition, found '%s'", s),
			       -1;
		ne = eq > buf && eq[-1] == '!';
		if (ne)
			eq[-1] = 0;
		*eq = 0;
		lhs = buf;
		rhs = eq + 1;
		trim(&lhs);
		if (!thread_reg(lhs, &th, &reg)) {
			if (th >= t->nr_threads)
				return perr(c->p, line,
					    "the condition names thread %d; the test has %d", th,
					    t->nr_threads),
				       -1;
			node.kind = LCN_REG;
			node.thread = (int8_t)th;
			node.reg = (int8_t)reg;
			if (parse_value(c->p, rhs, line, -1, &node.val))
				return -1;
		} else {
			int loc = strchr(lhs, ':') ? -1 : parse_loc(c->p, lhs, line);

			if (loc < 0)
				return perr(c->p, line,
					    "unsupported location '%s' in the condition", lhs),
				       -1;
			node.kind = LCN_MEM;
			node.loc = (int16_t)loc;
			if (parse_value(c->p, rhs, line, (loc & 1) ? loc / 2 : -1, &node.val))
				return -1;
		}
		{
			int a = cnode(c, node);

			if (a < 0 || !ne)
				return a;
			return cnode(c, (struct lit_cond){.kind = LCN_NOT, .a = (int16_t)a});
		}
	}
}

/* @sub (op @sub)*: a left-associative chain of @kind nodes. */
static int c_chain(struct cparse *c, int (*sub)(struct cparse *), const char *op, int kind)
{
	int a = sub(c);

	while (a >= 0 && !strcmp(peek(c), op)) {
		int b;

		c->i++;
		b = sub(c);
		if (b < 0)
			return -1;
		a = cnode(
		    c, (struct lit_cond){.kind = (uint8_t)kind, .a = (int16_t)a, .b = (int16_t)b});
	}
	return a;
}

static int c_and(struct cparse *c)
{
	return c_chain(c, c_atom, "/\\", LCN_AND);
}

static int c_or(struct cparse *c)
{
	return c_chain(c, c_and, "\\/", LCN_OR);
}

/*
 * Tokens of the condition text from @pos to the end: "(", ")", "~", "/\\",
 * "\\/" and atoms ("0:X1=2", "pte_x=(oa:phy_y,valid:0)", "fault(P1:L0,x)").
 * Blanks mean nothing in a condition, so they are dropped first; each
 * character keeps its line.
 */
static int tokenize_cond(struct parser *p, size_t pos, int line, struct ctok *tok, int max)
{
	size_t n = p->len - pos, k = 0, i;
	char *s = malloc(n + 1);
	int *ln = malloc((n + 1) * sizeof(int)), nt = 0;

	if (!s || !ln) {
		free(s);
		free(ln);
		return -1;
	}
	for (i = pos; i < p->len; i++) {
		char c = p->text[i];

		if (c == '\n' || c == 0)
			line++;
		if (isspace((unsigned char)c) || c == 0 || c == ';')
			continue;
		s[k] = c;
		ln[k++] = line;
	}
	s[k] = 0;
	for (i = 0; i < k;) {
		size_t start = i;
		bool op2 = i + 1 < k &&
			   ((s[i] == '/' && s[i + 1] == '\\') || (s[i] == '\\' && s[i + 1] == '/'));

		if (nt == max) {
			perr(p, ln[i], "the condition is too long");
			nt = -1;
			break;
		}
		if (op2) {
			i += 2;
		} else if (!strncmp(s + i, "not(", 4)) {
			/* herd's "not(...)": the negation. */
			tok[nt].s[0] = '~';
			tok[nt].s[1] = 0;
			tok[nt].line = ln[i];
			nt++;
			i += 3;
			continue;
		} else if (s[i] == '(' || s[i] == ')' || s[i] == '~') {
			i++;
		} else {
			while (i < k && s[i] != ')' &&
			       !(i + 1 < k && ((s[i] == '/' && s[i + 1] == '\\') ||
					       (s[i] == '\\' && s[i + 1] == '/')))) {
				if (s[i] == '(') {
					int depth = 0;

					do {
						depth += s[i] == '(';
						depth -= s[i] == ')';
						i++;
					} while (i < k && depth);
					continue;
				}
				i++;
			}
		}
		if (i - start >= sizeof(tok[0].s)) {
			perr(p, ln[start], "a condition atom is too long");
			nt = -1;
			break;
		}
		memcpy(tok[nt].s, s + start, i - start);
		tok[nt].s[i - start] = 0;
		tok[nt].line = ln[start];
		nt++;
	}
	free(s);
	free(ln);
	return nt;
}

static int parse_condition(struct parser *p, char *first, size_t pos_after, int line)
{
	struct lit_test *t = p->t;
	struct ctok *tok = calloc(512, sizeof(*tok));
	struct cparse c = {.p = p, .tok = tok};
	size_t off;
	int root;

	if (!tok)
		return -TLBSIM_ENOMEM;
	/* @first is the line, NUL-terminated in place: put its end back. */
	off = (size_t)(first - p->text);
	if (pos_after > off && pos_after <= p->len && p->text[pos_after - 1] == 0)
		p->text[pos_after - 1] = '\n';
	while (isspace((unsigned char)p->text[off]))
		off++;
	if (!strncmp(p->text + off, "~exists", 7)) {
		t->quant = LQ_NOT_EXISTS;
		off += 7;
	} else if (!strncmp(p->text + off, "exists", 6)) {
		t->quant = LQ_EXISTS;
		off += 6;
	} else if (!strncmp(p->text + off, "forall", 6)) {
		t->quant = LQ_FORALL;
		off += 6;
	} else {
		free(tok);
		return perr(p, line, "expected the final condition: exists, ~exists or forall");
	}
	t->cond_line = line;
	c.n = tokenize_cond(p, off, line, tok, 512);
	if (c.n < 0) {
		free(tok);
		return -TLBSIM_EPARSE;
	}
	root = c_or(&c);
	if (root >= 0 && c.i < c.n) {
		perr(p, tok[c.i].line, "unexpected '%s' after the condition", tok[c.i].s);
		root = -1;
	}
	free(tok);
	if (root < 0)
		return -TLBSIM_EPARSE;
	t->root = root;
	return 0;
}

/* ---- the whole test ------------------------------------------------------------- */

static bool starts_word(const char *s, const char *w)
{
	size_t n = strlen(w);

	return !strncmp(s, w, n) && !isalnum((unsigned char)s[n]) && s[n] != '_';
}

static int parse_code_header(struct parser *p, char *s, int line)
{
	char *cells[LIT_MAX_THREADS + 1];
	int n = 0, i;
	char *save = NULL, *tok;

	trim(&s);
	if (*s && s[strlen(s) - 1] == ';')
		s[strlen(s) - 1] = 0;
	for (tok = strtok_r(s, "|", &save); tok; tok = strtok_r(NULL, "|", &save)) {
		if (n == LIT_MAX_THREADS)
			return perr(p, line, "at most %d threads", LIT_MAX_THREADS);
		cells[n++] = tok;
	}
	for (i = 0; i < n; i++) {
		char *c = cells[i], *end;
		long k;

		trim(&c);
		k = strtol(c + (*c == 'P'), &end, 10);
		if (*c != 'P' || *end || k != i)
			return perr(p, line,
				    "expected the thread columns 'P0 | P1 | ...;', found '%s'%s", c,
				    *c == 'P' && *end ? " (fault handlers and other thread kinds "
							"are not modelled)"
						      : "");
	}
	if (!n)
		return perr(p, line, "no threads");
	if (p->t->nr_threads && p->t->nr_threads != n) {
		/* Registers of a thread past the last were given. */
		return perr(p, line,
			    "the initial state names registers of %d threads; the code "
			    "has %d",
			    p->t->nr_threads, n);
	}
	p->t->nr_threads = n;
	return 0;
}

static int parse_all(struct parser *p)
{
	struct lit_test *t = p->t;
	size_t pos = 0;
	int lineno = 0, rc, th;
	char *s;
	bool el0[LIT_MAX_THREADS] = {false};
	int max_reg_thread = -1;
	struct pending *pend = calloc((size_t)LIT_MAX_THREADS * LIT_MAX_INSNS, sizeof(*pend));
	int nr_pend[LIT_MAX_THREADS] = {0};

	if (!pend)
		return -TLBSIM_ENOMEM;
	t->fault_mode = LF_FATAL; /* herd's reference configuration: -variant vmsa,fatal */
	rc = strip_comments(p);
	if (rc)
		goto out;
	/* The header: "AArch64 NAME". */
	do {
		s = next_line(p, &pos, &lineno);
		if (s)
			trim(&s);
	} while (s && !*s);
	if (!s || strncmp(s, "AArch64", 7) || !isspace((unsigned char)s[7])) {
		rc = perr(p, lineno,
			  "a litmus test starts with 'AArch64 NAME' (other architectures "
			  "are not modelled)");
		goto out;
	}
	s += 7;
	trim(&s);
	snprintf(t->name, sizeof(t->name), "%s", s);
	/* Header lines up to the initial state. */
	for (;;) {
		s = next_line(p, &pos, &lineno);
		if (!s) {
			rc = perr(p, lineno, "the initial state '{ ... }' is missing");
			goto out;
		}
		trim(&s);
		if (!*s)
			continue;
		if (*s == '{')
			break;
		if ((rc = meta_line(p, s, lineno, el0)))
			goto out;
	}
	/* The initial state: items separated by ';' up to '}'. */
	{
		char *item = s + 1;
		int item_line = lineno;
		bool closed = false;

		for (;;) {
			char *semi, *brace;

			while (!closed && item) {
				semi = strchr(item, ';');
				brace = strchr(item, '}');
				if (brace && (!semi || brace < semi)) {
					*brace = 0;
					closed = true;
					trim(&item);
					if (*item && (rc = init_item(p, item, item_line)))
						goto out;
					item = brace + 1;
					trim(&item);
					if (*item) {
						rc = perr(p, lineno,
							  "text after the initial state's '}'");
						goto out;
					}
					break;
				}
				if (semi)
					*semi = 0;
				trim(&item);
				if (*item && (rc = init_item(p, item, item_line)))
					goto out;
				item = semi ? semi + 1 : NULL;
			}
			if (closed)
				break;
			item = next_line(p, &pos, &lineno);
			item_line = lineno;
			if (!item) {
				rc = perr(p, lineno, "the initial state is not closed by '}'");
				goto out;
			}
		}
	}
	for (th = 0; th < LIT_MAX_THREADS; th++) {
		int r;

		for (r = 0; r < 32; r++)
			if (t->th[th].reg[r].kind != LV_INT || t->th[th].reg[r].i)
				max_reg_thread = th;
	}
	/* The thread columns. */
	do {
		s = next_line(p, &pos, &lineno);
		if (s)
			trim(&s);
	} while (s && !*s);
	if (!s) {
		rc = perr(p, lineno, "the code 'P0 | P1 ...;' is missing");
		goto out;
	}
	if ((rc = parse_code_header(p, s, lineno)))
		goto out;
	if (max_reg_thread >= t->nr_threads) {
		rc = perr(p, lineno,
			  "the initial state gives registers of thread %d; the code has %d "
			  "threads",
			  max_reg_thread, t->nr_threads);
		goto out;
	}
	for (th = 0; th < t->nr_threads; th++)
		t->th[th].el0 = el0[th];
	for (th = t->nr_threads; th < LIT_MAX_THREADS; th++)
		if (el0[th]) {
			rc = perr(p, 0, "EL0 names thread P%d, which the test does not have", th);
			goto out;
		}
	/* Code rows up to the condition. */
	for (;;) {
		size_t line_start = pos;
		char *cells[LIT_MAX_THREADS + 1], *row;
		int n = 0, i;

		s = next_line(p, &pos, &lineno);
		if (!s) {
			rc = perr(p, lineno,
				  "the final condition (exists, ~exists, forall) is missing");
			goto out;
		}
		row = s;
		trim(&row);
		if (!*row)
			continue;
		if (starts_word(row, "locations")) {
			if (!strchr(row, ']')) {
				/* "locations [...]" may go on over lines. */
				do
					s = next_line(p, &pos, &lineno);
				while (s && !strchr(s, ']'));
			}
			continue;
		}
		if (starts_word(row, "filter")) {
			rc = perr(p, lineno, "'filter' is not modelled");
			goto out;
		}
		if (starts_word(row, "exists") || starts_word(row, "~exists") ||
		    starts_word(row, "forall") || !strncmp(row, "~ exists", 8)) {
			if (!strncmp(row, "~ exists", 8)) {
				rc = perr(p, lineno, "write '~exists' without a space");
				goto out;
			}
			rc = parse_condition(p, p->text + line_start, pos, lineno);
			goto resolve;
		}
		if (row[strlen(row) - 1] != ';') {
			rc = perr(p, lineno, "a code row ends with ';'");
			goto out;
		}
		row[strlen(row) - 1] = 0;
		/* Cells split at '|' (an instruction never holds one). */
		cells[n++] = row;
		for (char *q = row; *q; q++)
			if (*q == '|') {
				*q = 0;
				if (n == LIT_MAX_THREADS + 1)
					break;
				cells[n++] = q + 1;
			}
		if (n > t->nr_threads) {
			rc = perr(p, lineno, "%d columns, but the test has %d threads", n,
				  t->nr_threads);
			goto out;
		}
		for (i = 0; i < n; i++)
			if ((rc = parse_insn(p, &t->th[i], cells[i], lineno,
					     pend + (size_t)i * LIT_MAX_INSNS, &nr_pend[i])))
				goto out;
	}
resolve:
	for (th = 0; !rc && th < t->nr_threads; th++)
		rc = resolve_labels(p, &t->th[th], pend + (size_t)th * LIT_MAX_INSNS, nr_pend[th]);
out:
	free(pend);
	return rc;
}

int chk_lit_parse_text(const char *path, const char *text, size_t len, struct lit_test *t,
		       struct tlbsim_error *err)
{
	struct parser p = {.t = t, .path = path, .len = len, .err = err};
	int rc;

	memset(t, 0, sizeof(*t));
	t->path = path;
	p.text = malloc(len + 1);
	if (!p.text)
		return -TLBSIM_ENOMEM;
	memcpy(p.text, text, len);
	p.text[len] = 0;
	rc = parse_all(&p);
	free(p.text);
	return rc;
}

int chk_lit_parse(const char *path, struct lit_test *t, struct tlbsim_error *err)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;
	int rc;

	if (!f)
		return err_set(err, errno == ENOENT ? -TLBSIM_ENOENT : -TLBSIM_EIO, path, -1, -1,
			       -1, NULL, "cannot read the litmus test: %s", strerror(errno));
	buf = malloc(MAX_TEXT + 1);
	if (!buf) {
		fclose(f);
		return -TLBSIM_ENOMEM;
	}
	n = fread(buf, 1, MAX_TEXT + 1, f);
	fclose(f);
	if (n > MAX_TEXT) {
		free(buf);
		return err_set(err, -TLBSIM_EPARSE, path, -1, -1, -1, NULL,
			       "larger than %d bytes: not a litmus test", MAX_TEXT);
	}
	rc = chk_lit_parse_text(path, buf, n, t, err);
	free(buf);
	return rc;
}
