/* SPDX-License-Identifier: MIT */
/*
 * Readers of instruction traces (traces/FORMAT.md, "Instruction traces"):
 *
 *   execlog: the output of QEMU's TCG plugin contrib/plugins/execlog.c,
 *     one line per instruction: "CPU, 0xPC, 0xOPCODE, \"DISAS\"", then
 *     ", load|store, 0xADDR" per access (system mode adds ", DEVICE" and
 *     the address is physical), then ", REG -> 0xVALUE" for each register
 *     the plugin's reg= option tracks that the instruction changed;
 *   insn: tlbsim's plain form, "cpuN PC HEXBYTES [r|w ADDR[=VALUE]]...
 *     [REG=VALUE]...", and text-format event lines between them.
 *
 * Capstone decodes the bytes (insn_decode.c); the disassembly text of an
 * execlog line is never used.  Events come from insn_events.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "execlog.h"

#define XL_LINE_MAX 4096
#define XL_TOKENS_MAX 64

struct xl_reader {
	int plain; /* the insn form */
	struct insn_decoder *dec;
	struct xl_sink sink;
	struct xl_regs *cpus; /* execlog: each cpu's registers, as the trace last showed them */
	size_t nr_cpus;
	uint64_t line_no, line_offset;
	int cut; /* the current line is the last and has no newline */
	char line[XL_LINE_MAX + 1];
	size_t len;
	struct xl_line l;
};

static int bad(struct tlbsim_trace_reader *r, struct tlbsim_error *err, int code, int col,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int bad(struct tlbsim_trace_reader *r, struct tlbsim_error *err, int code, int col,
	       const char *fmt, ...)
{
	struct xl_reader *x = r->priv;
	char text[TLBSIM_ERROR_TEXT_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	/* a last line without its newline that does not parse was cut off */
	if (x->cut && code == -TLBSIM_EPARSE) {
		code = -TLBSIM_ETRUNC;
		strncat(text, " (the input ends inside this line: truncated)",
			sizeof(text) - strlen(text) - 1);
	}
	return err_set(err, code, r->in.name, (int)x->line_no, col,
		       (long long)(x->line_offset + (uint64_t)col - 1), NULL, "%s", text);
}

/* Hex digit values + 1, 0 for other bytes: one lookup a digit (the reader's hottest loop). */
static const unsigned char hex_value1[256] = {
    ['0'] = 1,	['1'] = 2,  ['2'] = 3,	['3'] = 4,  ['4'] = 5,	['5'] = 6,  ['6'] = 7,	['7'] = 8,
    ['8'] = 9,	['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* "0x" and 1..16 hex digits at *@p; advances *@p.  0 or -1. */
static int hex_at(const char **p, uint64_t *v)
{
	const unsigned char *s = (const unsigned char *)*p;
	uint64_t x = 0;
	int n = 0, d;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return -1;
	s += 2;
	for (; (d = hex_value1[s[n]]) != 0 && n < 17; n++)
		x = x << 4 | (uint64_t)(d - 1);
	if (n == 0 || n > 16)
		return -1;
	*v = x;
	*p = (const char *)s + n;
	return 0;
}

static int col_of(const struct xl_reader *x, const char *p)
{
	return (int)(p - x->line) + 1;
}

static int add_reg(struct tlbsim_trace_reader *r, struct tlbsim_error *err, const char *name,
		   size_t n, uint64_t v)
{
	struct xl_reader *x = r->priv;
	int reg = trace_insn_reg_find(r->info.isa, name, n);

	if (reg < 0 || x->l.nr_regs == XL_MAX_REGS)
		return bad(r, err, -TLBSIM_EPARSE, col_of(x, name),
			   reg < 0
			       ? "a register name (x0..x30, sp; rax..r15) expected, found '%.*s'"
			       : "at most 40 register values a line expected, found '%.*s'",
			   (int)n, name);
	x->l.reg[x->l.nr_regs] = (int8_t)reg;
	x->l.reg_value[x->l.nr_regs++] = v;
	return 0;
}

static int add_access(struct tlbsim_trace_reader *r, struct tlbsim_error *err, const char *at)
{
	struct xl_reader *x = r->priv;

	if (x->l.nr_acc == XL_MAX_ACCESSES)
		return bad(r, err, -TLBSIM_EPARSE, col_of(x, at),
			   "at most %d accesses a line expected", XL_MAX_ACCESSES);
	memset(&x->l.acc[x->l.nr_acc], 0, sizeof(x->l.acc[0]));
	return 0;
}

/* Is the item at @p (up to the next ',') a device name: not an access nor a register? */
static int is_device(const char *p)
{
	size_t n = strcspn(p, ",");
	const char *arrow = strstr(p, " -> ");

	return n && strncmp(p, "load", 4) && strncmp(p, "store", 5) &&
	       (!arrow || (size_t)(arrow - p) > n);
}

/* "0, 0xffff800010001000, 0xd5088320, \"tlbi vae1is, x0\", store, 0x1234, RAM, x0 -> 0x5" */
static int parse_execlog(struct tlbsim_trace_reader *r, struct tlbsim_error *err)
{
	struct xl_reader *x = r->priv;
	const char *p = x->line, *q;
	uint64_t cpu = 0, op;

	memset(&x->l, 0, offsetof(struct xl_line, acc));
	x->l.nr_acc = x->l.nr_regs = 0;
	if (*p < '0' || *p > '9')
		return bad(r, err, -TLBSIM_EPARSE, 1, "a vCPU index expected, found '%.20s'", p);
	for (; *p >= '0' && *p <= '9'; p++)
		if ((cpu = cpu * 10 + (uint64_t)(*p - '0')) >= TLBSIM_CPU_ANY)
			return bad(r, err, -TLBSIM_ERANGE, 1, "a vCPU index below 65535 expected");
	x->l.cpu = (uint16_t)cpu;
	if (strncmp(p, ", ", 2) || (p += 2, hex_at(&p, &x->l.pc)))
		return bad(r, err, -TLBSIM_EPARSE, col_of(x, p), "', 0x<pc>' expected");
	if (strncmp(p, ", ", 2) || (p += 2, hex_at(&p, &op)) || op > UINT32_MAX)
		return bad(r, err, -TLBSIM_EPARSE, col_of(x, p),
			   "', 0x<opcode>' (32 bits of hex) expected");
	/* the plugin prints the first 32 bits of the instruction read as a host (LE) word */
	for (int i = 0; i < 4; i++)
		x->l.bytes[i] = (uint8_t)(op >> (8 * i));
	x->l.nr_bytes = 4;
	if (strncmp(p, ", \"", 3) || !(q = strchr(p + 3, '"')))
		return bad(r, err, -TLBSIM_EPARSE, col_of(x, p),
			   "', \"<disassembly>\"' expected, found the end of the line");
	p = q + 1;
	while (*p) {
		if (strncmp(p, ", ", 2))
			return bad(r, err, -TLBSIM_EPARSE, col_of(x, p),
				   "', ' expected, found '%.20s'", p);
		p += 2;
		if (!strncmp(p, "load, ", 6) || !strncmp(p, "store, ", 7)) {
			struct xl_access *a = &x->l.acc[x->l.nr_acc];
			int rc = add_access(r, err, p);

			if (rc)
				return rc;
			a->store = *p == 's';
			p += a->store ? 7 : 6;
			if (hex_at(&p, &a->addr))
				return bad(r, err, -TLBSIM_EPARSE, col_of(x, p),
					   "an access address '0x<hex>' expected, found '%.20s'",
					   p);
			x->l.nr_acc++;
			/* system mode: ", DEVICE" follows and the address is physical */
			if (!strncmp(p, ", ", 2) && is_device(p + 2)) {
				a->phys = 1;
				p += 2 + strcspn(p + 2, ",");
			}
			continue;
		}
		q = strstr(p, " -> ");
		if (!q || q == p || memchr(p, ',', (size_t)(q - p)))
			return bad(r, err, -TLBSIM_EPARSE, col_of(x, p),
				   "'load, ', 'store, ' or '<reg> -> 0x<value>' expected, found "
				   "'%.20s'",
				   p);
		{
			const char *name = p;
			size_t n = (size_t)(q - p);
			uint64_t v;
			int rc;

			p = q + 4;
			if (hex_at(&p, &v))
				return bad(r, err, -TLBSIM_EPARSE, col_of(x, p),
					   "a register value '0x<hex>' expected, found '%.20s'", p);
			if ((rc = add_reg(r, err, name, n, v)))
				return rc;
		}
	}
	return 0;
}

/* "cpu1 0xffff800010001000 d5088320 w 0xffff000012340ff8=0 x0=0x5000000000123" */
static int parse_insn(struct tlbsim_trace_reader *r, char **tok, int *col, int n,
		      struct tlbsim_error *err)
{
	struct xl_reader *x = r->priv;
	uint64_t v;
	const char *h = tok[2];
	size_t hl = strlen(h);

	memset(&x->l, 0, offsetof(struct xl_line, acc));
	x->l.nr_acc = x->l.nr_regs = 0;
	if (trace_parse_u64(tok[0] + 3, &v) || v >= TLBSIM_CPU_ANY)
		return bad(r, err, -TLBSIM_EPARSE, col[0],
			   "cpu<n> (n 0..65534) expected, found '%s'", tok[0]);
	x->l.cpu = (uint16_t)v;
	if (trace_parse_u64(tok[1], &x->l.pc))
		return bad(r, err, -TLBSIM_EPARSE, col[1], "a pc expected, found '%s'", tok[1]);
	if (r->info.isa == TLBSIM_ISA_ARM64 && hl == 10 && h[0] == '0' && h[1] == 'x') {
		/* an A64 word as the Arm ARM and objdump write it: bytes are little-endian */
		if (trace_parse_u64(h, &v))
			return bad(r, err, -TLBSIM_EPARSE, col[2],
				   "an instruction word expected, found '%s'", h);
		for (int i = 0; i < 4; i++)
			x->l.bytes[i] = (uint8_t)(v >> (8 * i));
		x->l.nr_bytes = 4;
	} else {
		if (hl % 2 || hl == 0 || hl > 2 * INSN_MAX_BYTES)
			return bad(r, err, -TLBSIM_EPARSE, col[2],
				   "instruction bytes (2 to 30 hex digits, memory order) expected, "
				   "found '%s'",
				   h);
		for (size_t i = 0; i < hl; i += 2) {
			char b[5] = {'0', 'x', h[i], h[i + 1], 0};

			if (!((h[i] >= '0' && h[i] <= '9') || (h[i] | 32) >= 'a') ||
			    trace_parse_u64(b, &v))
				return bad(r, err, -TLBSIM_EPARSE, col[2] + (int)i,
					   "a hex digit expected, found '%c%c'", h[i], h[i + 1]);
			x->l.bytes[i / 2] = (uint8_t)v;
		}
		x->l.nr_bytes = (uint8_t)(hl / 2);
	}
	for (int t = 3; t < n; t++) {
		char *eq = strchr(tok[t], '=');
		int rc;

		if ((!strcmp(tok[t], "r") || !strcmp(tok[t], "w"))) {
			struct xl_access *a = &x->l.acc[x->l.nr_acc];

			if ((rc = add_access(r, err, tok[t])))
				return rc;
			a->store = tok[t][0] == 'w';
			if (++t == n)
				return bad(
				    r, err, -TLBSIM_EPARSE, col[t - 1] + 1,
				    "an address after '%s' expected, found the end of the line",
				    tok[t - 1]);
			eq = strchr(tok[t], '=');
			if (eq)
				*eq = '\0';
			if (trace_parse_u64(tok[t], &a->addr) ||
			    (eq && trace_parse_u64(eq + 1, &a->value)))
				return bad(r, err, -TLBSIM_EPARSE, col[t],
					   "ADDR or ADDR=VALUE (numbers) expected, found '%s%s%s'",
					   tok[t], eq ? "=" : "", eq ? eq + 1 : "");
			a->has_value = eq != NULL;
			x->l.nr_acc++;
			continue;
		}
		if (!eq || trace_parse_u64(eq + 1, &v))
			return bad(r, err, -TLBSIM_EPARSE, col[t],
				   "'r ADDR', 'w ADDR' or REG=VALUE expected, found '%s'", tok[t]);
		if ((rc = add_reg(r, err, tok[t], (size_t)(eq - tok[t]), v)))
			return rc;
	}
	return 0;
}

static struct xl_regs *cpu_regs(struct xl_reader *x, uint16_t cpu)
{
	if (cpu >= x->nr_cpus) {
		size_t n = (size_t)cpu + 1 > 2 * x->nr_cpus ? (size_t)cpu + 1 : 2 * x->nr_cpus;
		struct xl_regs *c = realloc(x->cpus, n * sizeof(*c));

		if (!c)
			return NULL;
		memset(c + x->nr_cpus, 0, (n - x->nr_cpus) * sizeof(*c));
		x->cpus = c;
		x->nr_cpus = n;
	}
	return &x->cpus[cpu];
}

static void apply_regs(struct xl_regs *regs, const struct xl_line *l)
{
	for (int i = 0; i < l->nr_regs; i++) {
		regs->regs[l->reg[i]] = l->reg_value[i];
		regs->known |= UINT64_C(1) << l->reg[i];
	}
}

static int instruction(struct tlbsim_trace_reader *r, struct tlbsim_error *err)
{
	struct xl_reader *x = r->priv;
	const struct insn_tmpl *t = trace_insn_decode(x->dec, x->l.bytes, x->l.nr_bytes);
	struct xl_regs line_regs, *regs = &line_regs;

	if (!t || (!x->plain && !(regs = cpu_regs(x, x->l.cpu))))
		return bad(r, err, -TLBSIM_ENOMEM, 1, "out of memory");
	/* insn: values are those the instruction reads; execlog: those it left */
	if (x->plain) {
		line_regs.known = 0;
		apply_regs(regs, &x->l);
	}
	xl_line_events(&x->sink, &x->l, t, regs);
	if (!x->plain)
		apply_regs(regs, &x->l);
	return 0;
}

/* Copy the next line (without its newline) into @x->line: 1, 0 at the end, or an error. */
static int get_line(struct tlbsim_trace_reader *r, struct tlbsim_error *err)
{
	struct xl_reader *x = r->priv;
	const char *line;
	size_t n;
	int rc, terminated;

	x->line_offset = trace_in_offset(&r->in);
	if ((rc = trace_in_line(&r->in, XL_LINE_MAX, &line, &n, &terminated, err)) <= 0)
		return rc;
	x->line_no++;
	x->cut = !terminated;
	if (n > XL_LINE_MAX)
		return bad(r, err, -TLBSIM_EPARSE, XL_LINE_MAX + 1,
			   "a line of at most %d bytes expected", XL_LINE_MAX);
	if (memchr(line, '\0', n))
		return bad(r, err, -TLBSIM_EPARSE,
			   (int)((const char *)memchr(line, '\0', n) - line) + 1,
			   "text expected, found a NUL byte");
	memcpy(x->line, line, n);
	if (n && x->line[n - 1] == '\r')
		n--;
	x->line[n] = '\0';
	x->len = n;
	return 1;
}

static int one_line(struct tlbsim_trace_reader *r, struct tlbsim_event *ev,
		    struct tlbsim_error *err)
{
	struct xl_reader *x = r->priv;
	char *tok[XL_TOKENS_MAX], why[TLBSIM_ERROR_TEXT_LEN];
	int col[XL_TOKENS_MAX], n, ecol, rc;

	if (!x->plain) {
		if (!x->len)
			return 0;
		rc = parse_execlog(r, err);
		return rc ? rc : instruction(r, err);
	}
	n = trace_text_split(x->line, tok, col, XL_TOKENS_MAX);
	if (n == 0)
		return 0;
	if (n >= 3 && !strncmp(tok[0], "cpu", 3) && tok[1][0] >= '0' && tok[1][0] <= '9') {
		rc = parse_insn(r, tok, col, n, err);
		return rc ? rc : instruction(r, err);
	}
	/* an event line: what the OS did between the instructions, in the text format */
	memset(ev, 0, sizeof(*ev));
	rc = trace_text_event(tok, col, n, (int)x->len + 1, ev, &ecol, why, sizeof(why));
	if (rc < 0)
		return bad(r, err, rc, ecol, "%s", why);
	xl_flush_compute(&x->sink);
	x->sink.q[(x->sink.q_head + x->sink.q_len++) % XL_QUEUE] = *ev;
	return 0;
}

static int xl_next(struct tlbsim_trace_reader *r, struct tlbsim_event *ev, struct tlbsim_error *err)
{
	struct xl_reader *x = r->priv;
	struct xl_sink *s = &x->sink;
	int rc;

	while (!s->q_len) {
		rc = get_line(r, err);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			xl_flush_compute(s);
			if (!s->q_len)
				return 0;
			break;
		}
		if ((rc = one_line(r, ev, err)) < 0)
			return rc;
	}
	*ev = s->q[s->q_head];
	s->q_head = (s->q_head + 1) % XL_QUEUE;
	s->q_len--;
	return 1;
}

/* "tlbsim-insn 1 isa=arm64 page_shift=12 linear_map=0xffff000000000000 source=..." */
static int insn_header(struct tlbsim_trace_reader *r, struct tlbsim_error *err)
{
	struct xl_reader *x = r->priv;
	char *p, *tok, *eq;
	uint64_t v;
	int col;

	if (strncmp(x->line, "tlbsim-insn 1", 13) || (x->line[13] && x->line[13] != ' '))
		return bad(
		    r, err, strncmp(x->line, "tlbsim-insn ", 12) ? -TLBSIM_EPARSE : -TLBSIM_ENOTSUP,
		    1, "header 'tlbsim-insn 1 isa=<isa> ...' expected, found '%.40s'", x->line);
	r->info.version = 1;
	for (p = x->line + 13; *p;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		col = col_of(x, p);
		if (!strncmp(p, "source=", 7)) {
			snprintf(r->info.source, sizeof(r->info.source), "%s", p + 7);
			if (trace_source_bad_char(r->info.source, strlen(r->info.source)) >= 0)
				return bad(r, err, -TLBSIM_EPARSE, col + 7,
					   "source: printable characters expected");
			break;
		}
		tok = p;
		p += strcspn(p, " ");
		if (*p)
			*p++ = '\0';
		eq = strchr(tok, '=');
		if (eq)
			*eq++ = '\0';
		if (eq && !strcmp(tok, "isa")) {
			r->info.isa = 0;
			for (const struct trace_name *n = trace_isa_names; n->name; n++)
				if (!strcmp(n->name, eq))
					r->info.isa = (enum tlbsim_isa)n->value;
			if (!r->info.isa)
				return bad(r, err, -TLBSIM_EPARSE, col + 4,
					   "isa: x86-64 or arm64 expected, found '%s'", eq);
		} else if (eq && !strcmp(tok, "page_shift")) {
			if (trace_parse_u64(eq, &v) || !trace_page_shift_ok((unsigned)v))
				return bad(r, err, -TLBSIM_EPARSE, col + 11,
					   "page_shift: 12, 14 or 16 expected, found '%s'", eq);
			r->info.page_shift = (unsigned)v;
		} else if (eq && !strcmp(tok, "linear_map")) {
			if (trace_parse_u64(eq, &v))
				return bad(r, err, -TLBSIM_EPARSE, col + 11,
					   "linear_map: an address expected, found '%s'", eq);
			if (!r->opts.has_linear_map)
				x->sink.has_linear_map = 1, x->sink.linear_map = v;
		} else {
			return bad(
			    r, err, -TLBSIM_EPARSE, col,
			    "a header key isa=, page_shift=, linear_map= or source= expected, "
			    "found '%s'",
			    tok);
		}
	}
	if (!r->info.isa)
		return bad(r, err, -TLBSIM_EPARSE, (int)x->len + 1, "header: isa= expected");
	if (r->opts.isa && r->opts.isa != r->info.isa)
		return bad(r, err, -TLBSIM_EINVAL, 1, "isa: the header says %s, the options %s",
			   tlbsim_isa_name(r->info.isa), tlbsim_isa_name(r->opts.isa));
	return 0;
}

static int xl_open(struct tlbsim_trace_reader *r, struct tlbsim_error *err, int plain)
{
	struct xl_reader *x = calloc(1, sizeof(*x));
	int rc;

	if (!x)
		return err_set(err, -TLBSIM_ENOMEM, r->in.name, -1, -1, -1, NULL, "out of memory");
	r->priv = x;
	x->plain = plain;
	x->sink.stats = &r->stats;
	x->sink.mn = calloc(XL_MAX_MNEMONICS, sizeof(*x->sink.mn));
	x->sink.has_linear_map = r->opts.has_linear_map;
	x->sink.linear_map = r->opts.linear_map;
	r->info.page_shift = 12;
	if (!x->sink.mn)
		return err_set(err, -TLBSIM_ENOMEM, r->in.name, -1, -1, -1, NULL, "out of memory");
	if (plain) {
		if ((rc = get_line(r, err)) < 0)
			return rc;
		if ((rc = insn_header(r, err)) < 0)
			return rc;
	} else {
		if (!r->opts.isa)
			return err_set(err, -TLBSIM_EINVAL, r->in.name, -1, -1, -1, NULL,
				       "an execlog trace does not name its ISA: give it (--isa "
				       "arm64 or x86-64)");
		r->info.isa = r->opts.isa;
		r->info.version = 1;
		snprintf(r->info.source, sizeof(r->info.source), "qemu execlog plugin");
	}
	x->sink.isa = r->info.isa;
	x->sink.page_shift = r->info.page_shift;
	x->dec = trace_insn_decoder_new(r->info.isa);
	if (!x->dec)
		return err_set(err, -TLBSIM_ENOMEM, r->in.name, -1, -1, -1, NULL,
			       "cannot start the Capstone decoder");
	return 0;
}

static int execlog_open(struct tlbsim_trace_reader *r, struct tlbsim_error *err)
{
	return xl_open(r, err, 0);
}

static int insn_open(struct tlbsim_trace_reader *r, struct tlbsim_error *err)
{
	return xl_open(r, err, 1);
}

static void xl_close(struct tlbsim_trace_reader *r)
{
	struct xl_reader *x = r->priv;

	if (!x)
		return;
	trace_insn_decoder_free(x->dec);
	free(x->sink.mn);
	free(x->cpus);
	free(x);
	r->priv = NULL;
}

static size_t xl_counts(const struct tlbsim_trace_reader *r, struct tlbsim_trace_insn_count *out,
			size_t max)
{
	const struct xl_reader *x = r->priv;

	return x ? xl_insn_counts(&x->sink, out, max) : 0;
}

/* "N, 0xHEX, 0xHEX, \"": nothing else starts so (lackey lines start with a blank, 'I', '=', '-',
 * 'S'). */
static int execlog_probe(const uint8_t *p, size_t n)
{
	size_t i = 0;

	while (i < n && p[i] >= '0' && p[i] <= '9')
		i++;
	if (i == 0 || i + 4 > n || memcmp(p + i, ", 0x", 4))
		return 0;
	for (i += 4; i < n && ((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')); i++)
		;
	if (i + 4 > n || memcmp(p + i, ", 0x", 4))
		return 0;
	for (i += 4; i < n && ((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')); i++)
		;
	return i + 3 <= n && !memcmp(p + i, ", \"", 3);
}

/*
 * The line read when an event was made: an instruction's events, that
 * instruction's line; a compute event gathered over several instructions,
 * the line that ended the gathering.
 */
static void xl_position(const struct tlbsim_trace_reader *r, uint64_t *line, uint64_t *offset)
{
	const struct xl_reader *x = r->priv;

	*line = x->line_no;
	*offset = x->line_offset;
}

const struct trace_reader_ops trace_read_execlog = {
    .name = "execlog",
    .format = TLBSIM_TRACE_EXECLOG,
    .summary = "QEMU TCG execlog plugin output, decoded with Capstone (needs --isa)",
    .probe = execlog_probe,
    .open = execlog_open,
    .next = xl_next,
    .position = xl_position,
    .close = xl_close,
    .insn_counts = xl_counts,
};

const struct trace_reader_ops trace_read_insn = {
    .name = "insn",
    .format = TLBSIM_TRACE_INSN,
    .summary = "tlbsim-insn instruction lines and event lines, decoded with Capstone",
    .magic = "tlbsim-insn ",
    .magic_len = 12,
    .open = insn_open,
    .next = xl_next,
    .position = xl_position,
    .close = xl_close,
    .insn_counts = xl_counts,
};
