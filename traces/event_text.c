/* SPDX-License-Identifier: MIT */
/*
 * The text form of one event (traces/FORMAT.md, "Text format"): rendering
 * a whole line, and parsing one field's token.  Both are driven by the
 * layout table of event_layout.c, so the writer and the reader agree by
 * construction; the line structure (prefix, kind, tokens) is read_text.c's.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "event_layout.h"

/* An snprintf that appends, and counts what the whole line needs. */
struct line {
	char *buf;
	size_t size;
	size_t len;
};

static void put(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct line *l, const char *fmt, ...)
{
	va_list ap;
	size_t room = l->len < l->size ? l->size - l->len : 0;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? l->buf + l->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len += (size_t)n;
}

/* "private,anon"; bits no name covers (only in invalid events) as hex. */
static void put_flags(struct line *l, const struct trace_name *names, uint64_t v)
{
	const char *sep = "";

	if (!v) {
		put(l, "-");
		return;
	}
	for (; names->name; names++) {
		if (v & names->value) {
			put(l, "%s%s", sep, names->name);
			v &= ~(uint64_t)names->value;
			sep = ",";
		}
	}
	if (v)
		put(l, "%s0x%" PRIx64, sep, v);
}

static void put_value(struct line *l, const struct tlbsim_event *ev, const struct trace_kind *k,
		      int i)
{
	const struct trace_field *f = &k->fields[i];
	uint64_t v = trace_field_get(ev, f);
	const char *name;
	uint64_t fl;

	switch (f->type) {
	case TF_VA:
	case TF_HEX:
		put(l, "0x%" PRIx64, v);
		return;
	case TF_PROT:
		put(l, "%c%c%c", v & TLBSIM_PROT_READ ? 'r' : '-',
		    v & TLBSIM_PROT_WRITE ? 'w' : '-', v & TLBSIM_PROT_EXEC ? 'x' : '-');
		if (v & ~(uint64_t)(TLBSIM_PROT_READ | TLBSIM_PROT_WRITE | TLBSIM_PROT_EXEC))
			put(l, "+0x%" PRIx64, v);
		return;
	case TF_FLAGS:
		put_flags(l, f->names, v);
		return;
	case TF_ENUM:
		name = trace_name_of(f->names, (unsigned)v);
		if (name)
			put(l, "%s", name);
		else
			put(l, "%" PRIu64, v);
		return;
	case TF_WORD:
		put(l, "%s", f->name);
		return;
	case TF_TLBI_OP:
		/* the mnemonic carries the next field, the flags: VAE1 + IS + nXS */
		name = trace_name_of(f->names, (unsigned)v);
		fl = trace_field_get(ev, &k->fields[i + 1]);
		put(l, "%s%s%s", name ? name : "?",
		    fl & TLBSIM_TLBI_IS	  ? "is"
		    : fl & TLBSIM_TLBI_OS ? "os"
					  : "",
		    fl & TLBSIM_TLBI_NXS ? "nxs" : "");
		return;
	default:
		put(l, "%" PRIu64, v);
		return;
	}
}

int tlbsim_event_format(const struct tlbsim_event *ev, char *buf, size_t size)
{
	struct line l = {buf, size, 0};
	const struct trace_kind *k = trace_kind(ev->kind);
	const char *sep = "";

	if (size)
		buf[0] = '\0';
	if (ev->tid != TLBSIM_TID_NONE)
		put(&l, "T%" PRIu32, ev->tid), sep = " ";
	if (ev->cpu != TLBSIM_CPU_ANY)
		put(&l, "%scpu%u", *sep ? "@" : "", (unsigned)ev->cpu), sep = " ";
	if (!k) {
		put(&l, "%skind%u", sep, (unsigned)ev->kind);
		return (int)l.len;
	}
	put(&l, "%s%s", sep, k->name);
	for (int i = 0; i < k->nr_fields; i++) {
		if (k->fields[i].optional || k->fields[i].hidden)
			continue;
		put(&l, " ");
		put_value(&l, ev, k, i);
	}
	for (int i = 0; i < k->nr_fields; i++) {
		if (!k->fields[i].optional || trace_field_get(ev, &k->fields[i]) == 0)
			continue;
		if (k->fields[i].type == TF_WORD) {
			put(&l, " %s", k->fields[i].name);
			continue;
		}
		put(&l, " %s=", k->fields[i].name);
		put_value(&l, ev, k, i);
	}
	return (int)l.len;
}

int trace_parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = 10, d;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return -TLBSIM_EPARSE;
	for (; *s; s++) {
		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return -TLBSIM_EPARSE;
		if (v > (UINT64_MAX - d) / base)
			return -TLBSIM_ERANGE;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

/* "T<tid>", "T<tid>@cpu<n>" or "cpu<n>"; tid 0 and cpu 65535 mean "none". */
int trace_who_parse(const char *s, struct tlbsim_event *ev)
{
	char buf[32];
	char *at;
	uint64_t v;

	if (strlen(s) >= sizeof(buf))
		return -TLBSIM_EPARSE;
	strcpy(buf, s);
	at = strchr(buf, '@');
	if (buf[0] == 'T') {
		if (at)
			*at = '\0';
		if (trace_parse_u64(buf + 1, &v) < 0 || v == TLBSIM_TID_NONE || v > UINT32_MAX)
			return -TLBSIM_EPARSE;
		ev->tid = (uint32_t)v;
		if (!at)
			return 0;
		at++;
	} else {
		at = buf;
	}
	if (strncmp(at, "cpu", 3) != 0 || trace_parse_u64(at + 3, &v) < 0 || v >= TLBSIM_CPU_ANY)
		return -TLBSIM_EPARSE;
	ev->cpu = (uint16_t)v;
	return 0;
}

int trace_is_who(const char *s)
{
	return (s[0] == 'T' && s[1] >= '0' && s[1] <= '9') ||
	       (strncmp(s, "cpu", 3) == 0 && s[3] >= '0' && s[3] <= '9');
}

static int parse_prot(const char *s, uint64_t *out)
{
	if (strlen(s) != 3 || (s[0] != 'r' && s[0] != '-') || (s[1] != 'w' && s[1] != '-') ||
	    (s[2] != 'x' && s[2] != '-'))
		return -TLBSIM_EPARSE;
	*out = (s[0] == 'r' ? TLBSIM_PROT_READ : 0) | (s[1] == 'w' ? TLBSIM_PROT_WRITE : 0) |
	       (s[2] == 'x' ? TLBSIM_PROT_EXEC : 0);
	return 0;
}

/*
 * A comma list of names, each at most once, or "-" for none.  On failure
 * @bad/@bad_len is the offending name and the return value says why:
 * -TLBSIM_ENOENT unknown, -TLBSIM_EEXIST repeated.
 */
static int parse_flags(const struct trace_name *names, const char *s, uint64_t *out,
		       const char **bad, size_t *bad_len)
{
	const struct trace_name *n;
	uint64_t v = 0;
	size_t len;

	if (strcmp(s, "-") == 0) {
		*out = 0;
		return 0;
	}
	for (;;) {
		len = strcspn(s, ",");
		for (n = names; n->name; n++)
			if (strlen(n->name) == len && memcmp(n->name, s, len) == 0)
				break;
		if (!n->name || (v & n->value)) {
			*bad = s;
			*bad_len = len;
			return n->name ? -TLBSIM_EEXIST : -TLBSIM_ENOENT;
		}
		v |= n->value;
		if (!s[len])
			break;
		s += len + 1;
	}
	*out = v;
	return 0;
}

/* "vae1" + optional "is" or "os" + optional "nxs" (Arm ARM C5.5 mnemonics). */
static int parse_tlbi_op(const struct trace_name *names, const char *s, uint64_t *op,
			 uint64_t *flags)
{
	static const struct trace_name suffixes[] = {
	    {0, ""},
	    {TLBSIM_TLBI_IS, "is"},
	    {TLBSIM_TLBI_OS, "os"},
	    {TLBSIM_TLBI_NXS, "nxs"},
	    {TLBSIM_TLBI_IS | TLBSIM_TLBI_NXS, "isnxs"},
	    {TLBSIM_TLBI_OS | TLBSIM_TLBI_NXS, "osnxs"},
	    {0, NULL},
	};
	size_t len;

	/* An op name may prefix another's ("vae1", "vae1..."): the suffix must match whole. */
	for (const struct trace_name *n = names; n->name; n++) {
		len = strlen(n->name);
		if (strncmp(s, n->name, len) != 0)
			continue;
		for (const struct trace_name *x = suffixes; x->name; x++) {
			if (strcmp(s + len, x->name) == 0) {
				*op = n->value;
				*flags = x->value;
				return 0;
			}
		}
	}
	return -TLBSIM_EPARSE;
}

/* The value named @name in @names. */
static int value_of(const struct trace_name *names, const char *name, uint64_t *v)
{
	for (; names->name; names++) {
		if (strcmp(names->name, name) == 0) {
			*v = names->value;
			return 0;
		}
	}
	return -TLBSIM_ENOENT;
}

/* The names of @names as "a, b, c", to say what was expected. */
static void list_names(char *buf, size_t size, const struct trace_name *names)
{
	struct line l = {buf, size, 0};

	buf[0] = '\0';
	for (const struct trace_name *n = names; n->name; n++)
		put(&l, "%s%s", n == names ? "" : ", ", n->name);
}

int trace_field_parse(struct tlbsim_event *ev, const struct trace_kind *k, int i, const char *tok,
		      char *why, size_t size)
{
	const struct trace_field *f = &k->fields[i];
	const char *name, *bad;
	size_t bad_len;
	char known[160];
	uint64_t v = 0, fl = 0;
	int rc;

	switch (f->type) {
	case TF_PROT:
		if (parse_prot(tok, &v) < 0) {
			snprintf(why, size, "%s: protection like 'rw-' expected, found '%s'",
				 f->name, tok);
			return -TLBSIM_EPARSE;
		}
		break;
	case TF_FLAGS:
		rc = parse_flags(f->names, tok, &v, &bad, &bad_len);
		if (rc == -TLBSIM_EEXIST) {
			snprintf(why, size, "%s: each flag once expected, found '%.*s' twice",
				 f->name, (int)bad_len, bad);
			return -TLBSIM_EPARSE;
		}
		if (rc < 0) {
			list_names(known, sizeof(known), f->names);
			snprintf(why, size, "%s: flags among %s, or '-', expected, found '%.*s'",
				 f->name, known, (int)bad_len, bad);
			return -TLBSIM_EPARSE;
		}
		break;
	case TF_ENUM:
		if (value_of(f->names, tok, &v) < 0) {
			list_names(known, sizeof(known), f->names);
			snprintf(why, size, "%s: one of %s expected, found '%s'", f->name, known,
				 tok);
			return -TLBSIM_EPARSE;
		}
		break;
	case TF_TLBI_OP:
		if (parse_tlbi_op(f->names, tok, &v, &fl) < 0) {
			list_names(known, sizeof(known), f->names);
			snprintf(why, size,
				 "%s: one of %s, with is/os and nxs suffixes, expected, found '%s'",
				 f->name, known, tok);
			return -TLBSIM_EPARSE;
		}
		trace_field_set(ev, &k->fields[i + 1], fl);
		break;
	default:
		rc = trace_parse_u64(tok, &v);
		name = f->type == TF_DEC ? "decimal or hex number" : "hex or decimal number";
		if (rc == -TLBSIM_EPARSE) {
			snprintf(why, size, "%s: %s expected, found '%s'", f->name, name, tok);
			return rc;
		}
		if (rc < 0 || v > trace_field_width_max(f)) {
			snprintf(why, size, "%s: at most %" PRIu64 " expected, found '%s'", f->name,
				 trace_field_width_max(f), tok);
			return -TLBSIM_ERANGE;
		}
		break;
	}
	trace_field_set(ev, f, v);
	return 0;
}
