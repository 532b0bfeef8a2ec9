/* SPDX-License-Identifier: MIT */
/*
 * Reader of valgrind logs of `valgrind --tool=lackey --trace-mem=yes
 * --trace-syscalls=yes --trace-sched=yes` (valgrind 3.19, amd64-linux):
 * lackey's "I  addr,size" and " L|S|M addr,size" lines (lackey/lk_main.c),
 * the scheduler's "--pid--   SCHED[n]: ..." lines (coregrind/m_scheduler)
 * and the "SYSCALL[pid,n](nr) ..." lines (coregrind/m_syswrap).  This file
 * reads lines and accesses; lackey_sched.c the scheduler's lines (which
 * thread an access is from), lackey_syscall.c and lackey_sysevents.c the
 * syscalls, lackey_events.c the events made (traces/FORMAT.md, "Valgrind
 * lackey logs").
 *
 * Memory the program uses without mapping it in the log -- the executable,
 * the dynamic loader and the stack, set up before the first traced
 * syscall -- gets an implied MMAP of the pages touched, just before the
 * first access.
 */
#include <stdlib.h>
#include <string.h>

#include "lackey.h"

/* Longest line read, in bytes: lackey's are ~20; valgrind's messages longer. */
#define LK_LINE_MAX (TRACE_IN_BUF_SIZE / 2)

/* ---- lines ------------------------------------------------------------------- */

/* "addr,size" of an access line, [@p, @end); @kind LOAD, STORE, FETCH or 0 for M. */
static int access_line(struct tlbsim_trace_reader *r, struct tlbsim_error *err, uint8_t kind,
		       const char *p, const char *end)
{
	struct lackey *lk = r->priv;
	const char *a = p, *s;
	uint64_t va, size, last;
	uint32_t tid;
	int rc;

	if ((rc = lk_parse_hex(&p, end, &va)) < 0)
		return rc == -2 ? lk_bad(r, err, -TLBSIM_ERANGE, a,
					 "address: at most 16 hex digits (below 2^64) expected")
				: lk_bad(r, err, -TLBSIM_EPARSE, a,
					 "a hex address expected, found '%.*s'",
					 (int)(end - a > 20 ? 20 : end - a), a);
	if (p == end || *p != ',')
		return lk_bad(r, err, -TLBSIM_EPARSE, p,
			      "',' and a size expected after the address");
	s = ++p;
	if (lk_parse_dec(&p, end, &size) < 0 || size == 0 || size > UINT32_MAX)
		return lk_bad(r, err, -TLBSIM_EPARSE, s, "a size of 1..2^32-1 bytes expected");
	if (p != end)
		return lk_bad(r, err, -TLBSIM_EPARSE, p,
			      "the end of the line expected, found '%.*s'",
			      (int)(end - p > 20 ? 20 : end - p), p);
	if (!lk->cur)
		return lk_bad(r, err, -TLBSIM_EPARSE, NULL,
			      "an access with no thread holding valgrind's lock: a "
			      "'SCHED[n]:  acquired lock' line expected before it");
	last = va + size - 1;
	if (last < va)
		return lk_bad(r, err, -TLBSIM_EINVAL, a, "an access past 2^64");
	tid = lk->th[lk->cur].tid;
	if (!trace_ranges_contains(&lk->mapped, va) || !trace_ranges_contains(&lk->mapped, last))
		if ((rc = lk_imply(r, err, tid, va, last, a)) < 0)
			return rc;
	for (int i = 0; i < (kind ? 1 : 2); i++) { /* M: a load, then a store */
		struct tlbsim_event *ev = lk_push(lk, kind ? kind : TLBSIM_EV_LOAD + i, tid);

		if (!ev)
			return lk_bad(r, err, -TLBSIM_ENOMEM, a, "out of memory");
		ev->access.va = va;
		ev->access.size = (uint32_t)size;
	}
	return 0;
}

/*
 * "--pid-- ..." or "==pid== ...", valgrind's messages: 1 and *@after past
 * the prefix, 0 when @p has no such prefix, or a negative code.
 */
static int prefix_pid(struct tlbsim_trace_reader *r, struct tlbsim_error *err, const char *p,
		      const char *end, char c, const char **after)
{
	const char *q = p + 2;
	uint64_t pid;
	int rc;

	if (end - p < 2 || p[1] != c || lk_parse_dec(&q, end, &pid) < 0 || end - q < 2 ||
	    q[0] != c || q[1] != c)
		return 0;
	*after = q + 2;
	rc = lk_set_pid(r, err, pid, p + 2);
	return rc < 0 ? rc : 1;
}

int lk_dispatch(struct tlbsim_trace_reader *r, struct tlbsim_error *err, const char *p,
		const char *end)
{
	struct lackey *lk = r->priv;
	const char *q;
	int rc;

	if (p == end)
		return 0;
	switch (*p) {
	case 'I':
		if (lk_starts(p, end, "I  "))
			return access_line(r, err, TLBSIM_EV_FETCH, p + 3, end);
		break;
	case ' ':
		if (end - p >= 3 && p[2] == ' ' && (p[1] == 'L' || p[1] == 'S' || p[1] == 'M'))
			return access_line(r, err,
					   p[1] == 'L'	 ? TLBSIM_EV_LOAD
					   : p[1] == 'S' ? TLBSIM_EV_STORE
							 : 0,
					   p + 3, end);
		if (lk_starts(p, end, " --> "))
			return lk_continuation(r, err, p, end);
		break;
	case 'S':
		if (lk_starts(p, end, "SYSCALL["))
			return lk_syscall_line(r, err, p, end);
		if (lk_starts(p, end, "SCHEDSETJMP(")) /* the scheduler's longjmp note */
			return 0;
		break;
	case '-':
		if ((rc = prefix_pid(r, err, p, end, '-', &q)) < 0)
			return rc;
		if (rc) {
			while (q < end && *q == ' ')
				q++;
			if (lk_starts(q, end, "SCHED["))
				return lk_sched_line(r, err, q, end, p);
		}
		break;
	case '=':
		if ((rc = prefix_pid(r, err, p, end, '=', &q)) < 0)
			return rc;
		if (rc) /* valgrind's commentary: banner, summary, signal reports */
			return 0;
		break;
	}
	trace_note_unknown(r, lk->line_no, p, (size_t)(end - p));
	return 0;
}

/* ---- the reader --------------------------------------------------------------- */

static int lackey_next(struct tlbsim_trace_reader *r, struct tlbsim_event *ev,
		       struct tlbsim_error *err)
{
	struct lackey *lk = r->priv;
	int rc, terminated;

	for (;;) {
		if (lk->q_head < lk->q_len) {
			*ev = lk->q[lk->q_head++];
			return 1;
		}
		lk->q_head = lk->q_len = 0;
		lk->line_offset = trace_in_offset(&r->in);
		rc = trace_in_line(&r->in, LK_LINE_MAX, &lk->line, &lk->len, &terminated, err);
		if (rc <= 0)
			return rc;
		lk->line_no++;
		if (lk->len > LK_LINE_MAX)
			return lk_bad(r, err, -TLBSIM_EPARSE, NULL,
				      "a line of at most %d bytes expected", LK_LINE_MAX);
		if (!terminated)
			return lk_bad(r, err, -TLBSIM_ETRUNC, NULL,
				      "a complete line expected, found the end of the log inside "
				      "one (valgrind stopped while writing it)");
		if (memchr(lk->line, '\0', lk->len))
			return lk_bad(r, err, -TLBSIM_EPARSE, memchr(lk->line, '\0', lk->len),
				      "text expected, found a NUL byte");
		if ((rc = lk_dispatch(r, err, lk->line, lk->line + lk->len)) < 0)
			return rc;
	}
}

/* Does the first non-blank line of [@p, +@n) look like a lackey log? */
static int lackey_probe(const uint8_t *p8, size_t n)
{
	const char *p = (const char *)p8, *end = p + n, *nl, *q;
	uint64_t v;

	while (p < end && *p == '\n')
		p++;
	if ((nl = memchr(p, '\n', (size_t)(end - p))))
		end = nl;
	if (lk_starts(p, end, "==") || lk_starts(p, end, "--")) {
		q = p + 2;
		if (lk_parse_dec(&q, end, &v) < 0 || !lk_starts(q, end, p[0] == '=' ? "==" : "--"))
			return 0;
		for (q += 2; q < end && *q == ' '; q++)
			;
		return lk_starts(q, end, p[0] == '=' ? "Lackey" : "SCHED[");
	}
	if (lk_starts(p, end, "SYSCALL["))
		return 1;
	if (lk_starts(p, end, "I  ") ||
	    (end - p >= 3 && p[0] == ' ' && (p[1] == 'L' || p[1] == 'S' || p[1] == 'M') &&
	     p[2] == ' ')) {
		q = p + 3;
		return lk_parse_hex(&q, end, &v) == 0 && q < end && *q == ',' &&
		       (++q, lk_parse_dec(&q, end, &v) == 0) && q == end;
	}
	return 0;
}

/* "valgrind-3.19.0 lackey: ./prog args" from the banner in the first window. */
static void describe(struct tlbsim_trace_reader *r)
{
	const char *p = (const char *)r->in.buf + r->in.pos, *end = p + trace_in_avail(&r->in);
	char version[32] = "valgrind", command[200] = "";
	const char *nl, *q;
	size_t i, n;

	for (; p < end && lk_starts(p, end, "=="); p = nl + 1) {
		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			break;
		if ((q = memchr(p + 2, '=', (size_t)(nl - p - 2))) && q + 3 < nl) {
			q += 3; /* past "== " */
			if (lk_starts(q, nl, "Using Valgrind-"))
				snprintf(version, sizeof(version), "valgrind-%.*s",
					 (int)strcspn(q + 15, " \n"), q + 15);
			else if (lk_starts(q, nl, "Command: "))
				snprintf(command, sizeof(command), ": %.*s", (int)(nl - q - 9),
					 q + 9);
		}
	}
	n = (size_t)snprintf(r->info.source, sizeof(r->info.source), "%s lackey%s", version,
			     command);
	for (i = 0; i < n && i < sizeof(r->info.source); i++)
		if ((unsigned char)r->info.source[i] < 0x20 || r->info.source[i] == 0x7f)
			r->info.source[i] = '?';
}

static int lackey_open(struct tlbsim_trace_reader *r, struct tlbsim_error *err)
{
	struct lackey *lk = calloc(1, sizeof(*lk));

	if (!lk)
		return err_set(err, -TLBSIM_ENOMEM, r->in.name, -1, -1, -1, NULL, "out of memory");
	r->priv = lk;
	/* Valgrind's amd64-linux port: x86-64, 4 KiB pages (lackey_syscall.c
	 * checks the syscall numbers against it). */
	r->info.isa = TLBSIM_ISA_X86_64;
	r->info.page_shift = 12;
	lk->page_size = 1ull << r->info.page_shift;
	describe(r);
	if (trace_in_avail(&r->in) == 0)
		return err_set(err, -TLBSIM_ETRUNC, r->in.name, 1, 1, 0, NULL,
			       "a valgrind lackey log expected, found an empty input");
	return 0;
}

/* The line an event was made of: an implied mmap, that of the access needing it. */
static void lackey_position(const struct tlbsim_trace_reader *r, uint64_t *line, uint64_t *offset)
{
	const struct lackey *lk = r->priv;

	*line = lk->line_no;
	*offset = lk->line_offset;
}

static void lackey_close(struct tlbsim_trace_reader *r)
{
	struct lackey *lk = r->priv;

	if (!lk)
		return;
	trace_ranges_free(&lk->mapped);
	free(lk->th);
	free(lk->clones);
	free(lk->q);
	free(lk);
	r->priv = NULL;
}

const struct trace_reader_ops trace_read_lackey = {
    .name = "lackey",
    .format = TLBSIM_TRACE_LACKEY,
    .summary = "valgrind --tool=lackey --trace-mem=yes --trace-syscalls=yes --trace-sched=yes log",
    .probe = lackey_probe,
    .open = lackey_open,
    .next = lackey_next,
    .position = lackey_position,
    .close = lackey_close,
};
