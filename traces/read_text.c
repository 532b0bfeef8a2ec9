/* SPDX-License-Identifier: MIT */
/*
 * Reader of the text trace format (traces/FORMAT.md, "Text format"):
 * a "tlbsim-trace 1 isa=... page_shift=..." header line, then one event a
 * line, "[T<tid>][@cpu<n>] <kind> <positional fields> [name=value]...",
 * '#' comments and blank lines.  Strict: every token must be used, every
 * value fit its field, every event pass trace_event_check(); errors give
 * the line, the column of the offending token and its byte offset.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "trace_format.h"

/* Longest line accepted, in bytes without the newline. */
#define TEXT_LINE_MAX 4096
/* Tokens a line may have: who, kind, up to 6 fields, and slack to report extras. */
#define TEXT_TOKENS_MAX 16

struct text_reader {
	uint64_t line_no;
	uint64_t line_offset; /* offset of the current line's first byte */
	char line[TEXT_LINE_MAX + 1];
	size_t len;
	char *tok[TEXT_TOKENS_MAX];
	int col[TEXT_TOKENS_MAX];
	int nr_tok;
};

static int bad(struct tlbsim_trace_reader *r, struct tlbsim_error *err, int code, int col,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int bad(struct tlbsim_trace_reader *r, struct tlbsim_error *err, int code, int col,
	       const char *fmt, ...)
{
	struct text_reader *tr = r->priv;
	char text[TLBSIM_ERROR_TEXT_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return err_set(err, code, r->in.name, (int)tr->line_no, col,
		       (long long)(tr->line_offset + (uint64_t)col - 1), NULL, "%s", text);
}

/*
 * Copy the next line into @tr->line, without its "\n" or "\r\n".
 * Returns 1, 0 at the end of the input, or a negative code.
 */
static int get_line(struct tlbsim_trace_reader *r, struct tlbsim_error *err)
{
	struct text_reader *tr = r->priv;
	const char *line;
	size_t n;
	int rc, terminated;

	tr->line_offset = trace_in_offset(&r->in);
	if ((rc = trace_in_line(&r->in, TEXT_LINE_MAX, &line, &n, &terminated, err)) <= 0)
		return rc;
	tr->line_no++;
	if (n > TEXT_LINE_MAX)
		return bad(r, err, -TLBSIM_EPARSE, TEXT_LINE_MAX + 1,
			   "a line of at most %d bytes expected, found a longer one",
			   TEXT_LINE_MAX);
	memcpy(tr->line, line, n);
	if (n && tr->line[n - 1] == '\r')
		n--;
	tr->line[n] = '\0';
	tr->len = n;
	if (strlen(tr->line) != n)
		return bad(r, err, -TLBSIM_EPARSE, (int)strlen(tr->line) + 1,
			   "text expected, found a NUL byte");
	return 1;
}

int trace_text_split(char *line, char **tok, int *col, int max)
{
	char *p = line;
	int n = 0;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			*p++ = '\0';
		if (!*p || *p == '#' || n == max)
			return n;
		col[n] = (int)(p - line) + 1;
		tok[n++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '#')
			p++;
		if (*p == '#')
			*p = '\0'; /* a comment right after a token ends it */
		else if (*p)
			*p++ = '\0';
	}
}

/* Split @tr->line at blanks, up to a '#' comment, recording the columns. */
static void split(struct text_reader *tr)
{
	tr->nr_tok = trace_text_split(tr->line, tr->tok, tr->col, TEXT_TOKENS_MAX);
}

/* The optional field of @k that token @tok ("name=value" or a word) sets. */
static int find_optional(const struct trace_kind *k, const char *tok, const char **value)
{
	const char *eq = strchr(tok, '=');
	size_t n = eq ? (size_t)(eq - tok) : strlen(tok);

	for (int i = 0; i < k->nr_fields; i++) {
		const struct trace_field *f = &k->fields[i];

		if (!f->optional || (f->type == TF_WORD) != !eq)
			continue;
		if (strlen(f->name) == n && strncmp(f->name, tok, n) == 0) {
			*value = eq ? eq + 1 : tok;
			return i;
		}
	}
	return -1;
}

/* A failure of trace_text_event(): the column and the text. */
static int tok_fail(int *err_col, int col, char *why, size_t size, int code, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

static int tok_fail(int *err_col, int col, char *why, size_t size, int code, const char *fmt, ...)
{
	va_list ap;

	*err_col = col;
	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return code;
}

int trace_text_event(char *const *tok, const int *tcol, int nr_tok, int eol_col,
		     struct tlbsim_event *ev, int *err_col, char *why, size_t size)
{
	const struct trace_kind *k;
	int t = 0, i, field, rc, col[TRACE_MAX_FIELDS] = {0}, kind_col;
	const char *value;
	char msg[200];

	ev->cpu = TLBSIM_CPU_ANY;
	if (trace_is_who(tok[0])) {
		if (trace_who_parse(tok[0], ev) < 0)
			return tok_fail(err_col, tcol[0], why, size, -TLBSIM_EPARSE,
					"T<tid>, T<tid>@cpu<n> or cpu<n> expected (tid 1..2^32-1, "
					"cpu 0..65534), found '%s'",
					tok[0]);
		if (++t == nr_tok)
			return tok_fail(err_col, eol_col, why, size, -TLBSIM_EPARSE,
					"an event kind expected after '%s'", tok[0]);
	}
	kind_col = tcol[t];
	ev->kind = (uint8_t)tlbsim_event_kind_find(tok[t]);
	k = trace_kind(ev->kind);
	if (!k)
		return tok_fail(err_col, kind_col, why, size, -TLBSIM_EPARSE,
				"an event kind (load, store, fetch, compute, mmap, tlbi, ... see "
				"traces/FORMAT.md) expected, found '%s'",
				tok[t]);
	t++;
	for (i = 0; i < k->nr_fields; i++) {
		if (k->fields[i].optional || k->fields[i].hidden)
			continue;
		if (t == nr_tok)
			return tok_fail(err_col, eol_col, why, size, -TLBSIM_EPARSE,
					"%s: field %s expected, found the end of the line", k->name,
					k->fields[i].name);
		col[i] = tcol[t];
		if ((rc = trace_field_parse(ev, k, i, tok[t], msg, sizeof(msg))) < 0)
			return tok_fail(err_col, tcol[t], why, size, rc, "%s %s", k->name, msg);
		t++;
	}
	for (; t < nr_tok; t++) {
		i = find_optional(k, tok[t], &value);
		if (i < 0)
			return tok_fail(
			    err_col, tcol[t], why, size, -TLBSIM_EPARSE,
			    "the end of the line or an optional field of %s expected, found '%s'",
			    k->name, tok[t]);
		if (col[i])
			return tok_fail(err_col, tcol[t], why, size, -TLBSIM_EPARSE,
					"%s: %s given twice", k->name, k->fields[i].name);
		col[i] = tcol[t];
		if (k->fields[i].type == TF_WORD)
			trace_field_set(ev, &k->fields[i], 1);
		else if ((rc = trace_field_parse(ev, k, i, value, msg, sizeof(msg))) < 0)
			return tok_fail(err_col, tcol[t], why, size, rc, "%s %s", k->name, msg);
	}
	if (trace_event_check(ev, &field, msg, sizeof(msg)) < 0)
		return tok_fail(err_col, field >= 0 && col[field] ? col[field] : kind_col, why,
				size, -TLBSIM_EINVAL, "%s", msg);
	return 1;
}

static int parse_event(struct tlbsim_trace_reader *r, struct tlbsim_event *ev,
		       struct tlbsim_error *err)
{
	struct text_reader *tr = r->priv;
	char why[TLBSIM_ERROR_TEXT_LEN];
	int col, rc;

	rc = trace_text_event(tr->tok, tr->col, tr->nr_tok, (int)tr->len + 1, ev, &col, why,
			      sizeof(why));
	if (rc < 0)
		return bad(r, err, rc, col, "%s", why);
	return rc;
}

static int text_next(struct tlbsim_trace_reader *r, struct tlbsim_event *ev,
		     struct tlbsim_error *err)
{
	struct text_reader *tr = r->priv;
	int rc;

	for (;;) {
		if ((rc = get_line(r, err)) <= 0)
			return rc;
		split(tr);
		if (tr->nr_tok)
			return parse_event(r, ev, err);
	}
}

/* "isa=", "page_shift=", "threads=" tokens, then "source=" up to the end of the line. */
static int parse_header_keys(struct tlbsim_trace_reader *r, struct tlbsim_error *err, char *p)
{
	struct text_reader *tr = r->priv;
	int have_isa = 0, have_shift = 0, have_threads = 0, col;
	uint64_t v;
	char *tok, *eq, *src;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		col = (int)(p - tr->line) + 1;
		if (strncmp(p, "source=", 7) == 0) {
			src = p + 7;
			if (strlen(src) >= sizeof(r->info.source))
				return bad(r, err, -TLBSIM_EPARSE, col + 7,
					   "source: at most %zu bytes expected",
					   sizeof(r->info.source) - 1);
			if (trace_source_bad_char(src, strlen(src)) >= 0)
				return bad(r, err, -TLBSIM_EPARSE,
					   col + 7 + trace_source_bad_char(src, strlen(src)),
					   "source: printable characters expected");
			strcpy(r->info.source, src);
			break;
		}
		tok = p;
		p += strcspn(p, " \t");
		if (*p)
			*p++ = '\0';
		eq = strchr(tok, '=');
		if (eq)
			*eq++ = '\0';
		if (eq && strcmp(tok, "isa") == 0 && !have_isa++) {
			for (const struct trace_name *n = trace_isa_names; n->name; n++)
				if (strcmp(n->name, eq) == 0)
					r->info.isa = (enum tlbsim_isa)n->value;
			if (!r->info.isa)
				return bad(r, err, -TLBSIM_EPARSE, col + 4,
					   "isa: x86-64 or arm64 expected, found '%s'", eq);
		} else if (eq && strcmp(tok, "page_shift") == 0 && !have_shift++) {
			if (trace_parse_u64(eq, &v) < 0 || !trace_page_shift_ok((unsigned)v))
				return bad(r, err, -TLBSIM_EPARSE, col + 11,
					   "page_shift: 12, 14 or 16 expected, found '%s'", eq);
			r->info.page_shift = (unsigned)v;
		} else if (eq && strcmp(tok, "threads") == 0 && !have_threads++) {
			if (trace_parse_u64(eq, &v) < 0 || v > UINT32_MAX)
				return bad(r, err, -TLBSIM_EPARSE, col + 8,
					   "threads: a count below 2^32 expected, found '%s'", eq);
			r->info.nr_threads = (uint32_t)v;
		} else {
			return bad(
			    r, err, -TLBSIM_EPARSE, col,
			    "a header key isa=, page_shift=, threads= or source= (each once) "
			    "expected, found '%s%s%s'",
			    tok, eq ? "=" : "", eq ? eq : "");
		}
	}
	if (!have_isa || !have_shift)
		return bad(r, err, -TLBSIM_EPARSE, (int)tr->len + 1, "header: %s expected",
			   have_isa ? "page_shift=" : "isa=");
	return 0;
}

static int text_open(struct tlbsim_trace_reader *r, struct tlbsim_error *err)
{
	struct text_reader *tr = calloc(1, sizeof(*tr));
	uint64_t version;
	char *p, *ver;
	int rc;

	if (!tr)
		return err_set(err, -TLBSIM_ENOMEM, r->in.name, -1, -1, -1, NULL, "out of memory");
	r->priv = tr;
	rc = get_line(r, err);
	if (rc < 0)
		return rc;
	if (rc == 0 || strncmp(tr->line, "tlbsim-trace ", 13) != 0) {
		tr->line_no = 1;
		return bad(
		    r, err, -TLBSIM_EPARSE, 1,
		    "header 'tlbsim-trace 1 isa=<isa> page_shift=<n>' expected, found '%.40s'",
		    rc ? tr->line : "");
	}
	ver = tr->line + 13;
	p = ver + strcspn(ver, " \t");
	if (*p)
		*p++ = '\0';
	if (trace_parse_u64(ver, &version) < 0)
		return bad(r, err, -TLBSIM_EPARSE, 14, "a version number expected, found '%s'",
			   ver);
	if (version != TLBSIM_TRACE_VERSION)
		return bad(r, err, -TLBSIM_ENOTSUP, 14, "version %d expected, found %" PRIu64,
			   TLBSIM_TRACE_VERSION, version);
	r->info.version = (unsigned)version;
	return parse_header_keys(r, err, p);
}

static void text_position(const struct tlbsim_trace_reader *r, uint64_t *line, uint64_t *offset)
{
	const struct text_reader *tr = r->priv;

	*line = tr->line_no;
	*offset = tr->line_offset;
}

static void text_close(struct tlbsim_trace_reader *r)
{
	free(r->priv);
	r->priv = NULL;
}

const struct trace_reader_ops trace_read_text = {
    .name = "text",
    .format = TLBSIM_TRACE_TEXT,
    .summary = "text trace (traces/FORMAT.md), one event a line",
    .magic = "tlbsim-trace ",
    .magic_len = 13,
    .open = text_open,
    .next = text_next,
    .position = text_position,
    .close = text_close,
};
