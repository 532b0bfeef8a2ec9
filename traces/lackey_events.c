/* SPDX-License-Identifier: MIT */
/*
 * The lackey reader's events and numbers: errors at a column of the line,
 * the queue of events one line makes, implied mappings (traces/FORMAT.md,
 * "Implied mappings"), and the decimal and hex numbers of valgrind's
 * lines.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lackey.h"

int lk_bad(struct tlbsim_trace_reader *r, struct tlbsim_error *err, int code, const char *at,
	   const char *fmt, ...)
{
	struct lackey *lk = r->priv;
	char text[TLBSIM_ERROR_TEXT_LEN];
	int col = at ? (int)(at - lk->line) + 1 : 1;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return err_set(err, code, r->in.name, (int)lk->line_no, col,
		       (long long)(lk->line_offset + (uint64_t)col - 1), NULL, "%s", text);
}

int lk_parse_dec(const char **pp, const char *end, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;

	if (p == end || *p < '0' || *p > '9')
		return -1;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -2;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*pp = p;
	*out = v;
	return 0;
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

int lk_parse_hex(const char **pp, const char *end, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;
	int d;

	if (p == end || hex_digit(*p) < 0)
		return -1;
	for (; p < end && (d = hex_digit(*p)) >= 0; p++) {
		if (v >> 60)
			return -2;
		v = v << 4 | (uint64_t)d;
	}
	*pp = p;
	*out = v;
	return 0;
}

int lk_starts(const char *p, const char *end, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(end - p) >= n && memcmp(p, s, n) == 0;
}

/* ---- events ------------------------------------------------------------------ */

struct tlbsim_event *lk_push(struct lackey *lk, uint8_t kind, uint32_t tid)
{
	struct tlbsim_event *ev;

	if (lk->q_len == lk->q_cap) {
		size_t cap = lk->q_cap ? 2 * lk->q_cap : 16;
		struct tlbsim_event *q = realloc(lk->q, cap * sizeof(*q));

		if (!q)
			return NULL;
		lk->q = q;
		lk->q_cap = cap;
	}
	ev = &lk->q[lk->q_len++];
	memset(ev, 0, sizeof(*ev));
	ev->kind = kind;
	ev->tid = tid;
	ev->cpu = TLBSIM_CPU_ANY;
	return ev;
}

int lk_check_last(struct tlbsim_trace_reader *r, struct tlbsim_error *err, const char *at)
{
	struct lackey *lk = r->priv;
	char why[200];
	int field;

	if (trace_event_check(&lk->q[lk->q_len - 1], &field, why, sizeof(why)) == 0)
		return 0;
	lk->q_len--;
	return lk_bad(r, err, -TLBSIM_EINVAL, at, "%s", why);
}

int lk_imply(struct tlbsim_trace_reader *r, struct tlbsim_error *err, uint32_t tid, uint64_t first,
	     uint64_t last, const char *at)
{
	struct lackey *lk = r->priv;
	uint64_t gf, gl;

	first &= ~(lk->page_size - 1);
	last |= lk->page_size - 1;
	/* Page 0 is never implied: an MMAP at address 0 means "the kernel
	 * picks" (traces/FORMAT.md), and a program's access there faulted. */
	if (first == 0)
		first = lk->page_size;
	if (last < first)
		return 0;
	while (trace_ranges_first_gap(&lk->mapped, first, last, &gf, &gl)) {
		struct tlbsim_event *ev = lk_push(lk, TLBSIM_EV_MMAP, tid);

		/* Unknown protection and backing: everything allowed, private. */
		if (!ev || trace_ranges_add(&lk->mapped, gf, gl) < 0)
			return lk_bad(r, err, -TLBSIM_ENOMEM, at, "out of memory");
		ev->mmap.addr = gf;
		ev->mmap.len = gl - gf + 1;
		ev->mmap.prot = TLBSIM_PROT_READ | TLBSIM_PROT_WRITE | TLBSIM_PROT_EXEC;
		ev->mmap.flags = TLBSIM_MAP_PRIVATE;
		r->stats.implied_mmaps++;
	}
	return 0;
}
