/* SPDX-License-Identifier: MIT */
/*
 * The SYSCALL lines of a valgrind --trace-syscalls=yes log (valgrind 3.19,
 * coregrind/m_syswrap/syswrap-main.c), for the lackey reader:
 *
 *   SYSCALL[pid,n](nr) name ( args )[sync] --> Success(0x..)
 *   SYSCALL[pid,n](nr) name ( args ) --> [pre-success] Success(0x..)
 *   SYSCALL[pid,n](nr) name ( args ) --> [async] ...       then, later,
 *   SYSCALL[pid,n](nr) ... [async] --> Failure(0x..)
 *   SYSCALL[pid,n](nr) name ( args )                       then, next,
 *    --> [pre-success] Success(0x..)
 *
 * The last form is a line cut in two: exit_group, clone(fork) and
 * "unimplemented syscall" messages print their result on a line of its
 * own.  A scheduler message may be glued to the end of either line
 * ("... Success(0x42a8) --17063--   SCHED[1]: releasing lock ..."): it is
 * read as a line of its own.  A call's events are made when its result is
 * read (lackey_sysevents.c).
 */
#include <stdlib.h>
#include <string.h>

#include "lackey.h"

/* The syscalls that make events, by valgrind's name and x86-64 number. */
static const struct lk_sysdef {
	const char *name;
	uint32_t nr; /* arch/x86/entry/syscalls/syscall_64.tbl */
	uint8_t sys; /* enum lk_sys */
	uint8_t min_args, max_args;
	uint8_t bare_hex; /* bit i: argument i printed "%lx", without 0x */
} sysdefs[] = {
    {"sys_mmap", 9, LK_MMAP, 6, 6, 0},		{"sys_mprotect", 10, LK_MPROTECT, 3, 3, 0},
    {"sys_munmap", 11, LK_MUNMAP, 2, 2, 0},	{"sys_brk", 12, LK_BRK, 1, 1, 0},
    {"sys_mremap", 25, LK_MREMAP, 4, 5, 0},	{"sys_madvise", 28, LK_MADVISE, 3, 3, 0},
    {"sys_clone", 56, LK_CLONE, 5, 5, 1u << 0}, {"sys_fork", 57, LK_FORK, 0, 0, 0},
    {"sys_vfork", 58, LK_FORK, 0, 0, 0},
};

static const struct lk_sysdef *find_sys(const char *name, size_t n)
{
	for (size_t i = 0; i < sizeof(sysdefs) / sizeof(sysdefs[0]); i++)
		if (strlen(sysdefs[i].name) == n && memcmp(sysdefs[i].name, name, n) == 0)
			return &sysdefs[i];
	return NULL;
}

static const char *sys_name(uint8_t sys)
{
	for (size_t i = 0; i < sizeof(sysdefs) / sizeof(sysdefs[0]); i++)
		if (sysdefs[i].sys == sys)
			return sysdefs[i].name;
	return "a syscall";
}

/* The first @s in [@p, @end), or NULL. */
static const char *find(const char *p, const char *end, const char *s)
{
	size_t n = strlen(s);

	for (; (size_t)(end - p) >= n; p++)
		if (*p == *s && memcmp(p, s, n) == 0)
			return p;
	return NULL;
}

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && *p == ' ')
		p++;
	return p;
}

/* "( a, b, ... )" after a syscall's name: "0x" hex, decimal, or bare hex per @def. */
static int parse_args(struct tlbsim_trace_reader *r, struct tlbsim_error *err,
		      const struct lk_sysdef *def, const char *p, const char *end,
		      struct lk_call *c)
{
	unsigned n = 0;

	p = skip_blanks(p, end);
	if (p == end || *p != '(')
		return lk_bad(r, err, -TLBSIM_EPARSE, p, "%s: '(' and its arguments expected",
			      def->name);
	p = skip_blanks(p + 1, end);
	while (p < end && *p != ')') {
		const char *a = p;
		int neg = *p == '-', rc;
		uint64_t v;

		p += neg;
		if (lk_starts(p, end, "0x") || (def->bare_hex >> n & 1)) {
			p += lk_starts(p, end, "0x") ? 2 : 0;
			rc = lk_parse_hex(&p, end, &v);
		} else {
			rc = lk_parse_dec(&p, end, &v);
		}
		if (rc < 0 || n == def->max_args)
			return lk_bad(r, err, rc == -2 ? -TLBSIM_ERANGE : -TLBSIM_EPARSE, a,
				      "%s: %s expected, found '%.*s'", def->name,
				      n == def->max_args ? "')' after the last argument"
				      : rc == -2	 ? "a number below 2^64"
							 : "a number",
				      (int)(end - a > 20 ? 20 : end - a), a);
		c->arg[n++] = neg ? -v : v;
		p = skip_blanks(p, end);
		if (p < end && *p == ',')
			p = skip_blanks(p + 1, end);
		else if (p == end || *p != ')')
			return lk_bad(r, err, -TLBSIM_EPARSE, p, "%s: ',' or ')' expected",
				      def->name);
	}
	if (p == end || n < def->min_args)
		return lk_bad(r, err, -TLBSIM_EPARSE, p, "%s: %u arguments expected, found %u%s",
			      def->name, def->min_args, n, p == end ? " and no ')'" : "");
	return 0;
}

/*
 * "[pre-success] Success(0xV)" or "Failure(0xV)" up to @end; *@at is where
 * the result starts.  Returns 1 for success, 0 for failure, or an error.
 */
static int parse_result(struct tlbsim_trace_reader *r, struct tlbsim_error *err, const char *p,
			const char *end, uint64_t *val, const char **at)
{
	const char *q;
	uint64_t hi;
	int ok;

	p = skip_blanks(p, end);
	if (p < end && *p == '[' && (q = memchr(p, ']', (size_t)(end - p))))
		p = skip_blanks(q + 1, end); /* [pre-success], [pre-fail] */
	*at = p;
	if (!lk_starts(p, end, "Success(0x") && !lk_starts(p, end, "Failure(0x"))
		return lk_bad(
		    r, err, -TLBSIM_EPARSE, p,
		    "a result Success(0x<hex>) or Failure(0x<hex>) expected, found '%.*s'",
		    (int)(end - p > 20 ? 20 : end - p), p);
	ok = *p == 'S';
	p += 10;
	if (lk_parse_hex(&p, end, val) < 0 ||
	    (lk_starts(p, end, ":0x") && (p += 3, lk_parse_hex(&p, end, &hi) < 0)) ||
	    !lk_starts(p, end, ")"))
		return lk_bad(r, err, -TLBSIM_EPARSE, *at, "a result (0x<hex>) expected");
	p = skip_blanks(p + 1, end);
	if (p != end)
		return lk_bad(r, err, -TLBSIM_EPARSE, p,
			      "the end of the line or a valgrind message expected, found '%.*s'",
			      (int)(end - p > 20 ? 20 : end - p), p);
	return ok;
}

/* The result of thread @vtid's pending call is in [@p, @end). */
static int complete(struct tlbsim_trace_reader *r, struct tlbsim_error *err, uint32_t vtid,
		    const char *p, const char *end)
{
	struct lackey *lk = r->priv;
	struct lk_call c = lk->th[vtid].call;
	const char *at;
	uint64_t val;
	int ok = parse_result(r, err, p, end, &val, &at);

	if (ok < 0)
		return ok;
	memset(&lk->th[vtid].call, 0, sizeof(c));
	if (lk->cont == vtid)
		lk->cont = 0;
	return ok && c.sys != LK_OTHER ? lk_succeeded(r, err, &c, lk->th[vtid].tid, val, at) : 0;
}

/* Thread @vtid starts another syscall: one still waiting for its result is given up. */
static int give_up(struct tlbsim_trace_reader *r, struct tlbsim_error *err, uint32_t vtid,
		   const char *at)
{
	struct lackey *lk = r->priv;
	struct lk_call *c = &lk->th[vtid].call;

	/* A blocking call interrupted by a signal may never print its result;
	 * losing a memory syscall's would lose its effect, so that is an error. */
	if (c->state != LK_IDLE && c->sys != LK_OTHER)
		return lk_bad(r, err, -TLBSIM_EPARSE, at,
			      "the result of %s of valgrind thread %u (line %llu) expected before "
			      "another syscall",
			      sys_name(c->sys), vtid, (unsigned long long)c->line_no);
	memset(c, 0, sizeof(*c));
	if (lk->cont == vtid)
		lk->cont = 0;
	return 0;
}

int lk_continuation(struct tlbsim_trace_reader *r, struct tlbsim_error *err, const char *p,
		    const char *end)
{
	struct lackey *lk = r->priv;
	const char *glue = lk->pid ? find(p, end, lk->marker) : NULL;
	int rc;

	if (!lk->cont)
		return lk_bad(r, err, -TLBSIM_EPARSE, p + 1,
			      "a ' --> result' line, but no syscall line awaits its result");
	if ((rc = complete(r, err, lk->cont, p + 4, glue ? glue : end)) < 0)
		return rc;
	return glue ? lk_dispatch(r, err, glue, end) : 0;
}

int lk_syscall_line(struct tlbsim_trace_reader *r, struct tlbsim_error *err, const char *p,
		    const char *end)
{
	struct lackey *lk = r->priv;
	const char *h = p + 8, *q = h, *name, *glue, *arrow;
	const struct lk_sysdef *def;
	uint64_t pid, vtid, nr;
	struct lk_thread *th;
	struct lk_call *c;
	int rc;

	if (lk_parse_dec(&q, end, &pid) < 0 || !lk_starts(q, end, ",") ||
	    (++q, lk_parse_dec(&q, end, &vtid)) < 0 || !lk_starts(q, end, "](") ||
	    (q += 2, lk_parse_dec(&q, end, &nr)) < 0 || !lk_starts(q, end, ") ") || vtid == 0 ||
	    nr > UINT32_MAX)
		return lk_bad(r, err, -TLBSIM_EPARSE, h,
			      "SYSCALL[<pid>,<thread>](<number>) expected");
	if ((rc = lk_set_pid(r, err, pid, h)) < 0)
		return rc;
	if (vtid >= LK_MAX_VTID || !(th = lk_slot(lk, (uint32_t)vtid)) || !th->tid)
		return lk_bad(r, err, -TLBSIM_EPARSE, h,
			      "a syscall of valgrind thread %llu, which has not run",
			      (unsigned long long)vtid);
	q += 2;
	c = &th->call;
	glue = find(q, end, lk->marker);
	if (!glue)
		glue = end;
	if (lk_starts(q, end, "... [async] --> ")) {
		if (c->state != LK_ASYNC || c->nr != nr)
			return lk_bad(r, err, -TLBSIM_EPARSE, q,
				      "the result of an [async] syscall %llu, but valgrind thread "
				      "%llu awaits none",
				      (unsigned long long)nr, (unsigned long long)vtid);
		rc = complete(r, err, (uint32_t)vtid, q + 16, glue);
	} else {
		if ((rc = give_up(r, err, (uint32_t)vtid, h)) < 0)
			return rc;
		if (lk->cont && (rc = give_up(r, err, lk->cont, h)) < 0)
			return rc;
		name = q;
		while (q < glue && *q != ' ' && *q != '(' && *q != '[')
			q++;
		def = find_sys(name, (size_t)(q - name));
		if (def && def->nr != nr)
			return lk_bad(
			    r, err, -TLBSIM_ENOTSUP, h,
			    "%s is syscall %u on x86-64, found %llu: only logs of valgrind's "
			    "amd64-linux port are read",
			    def->name, def->nr, (unsigned long long)nr);
		memset(c, 0, sizeof(*c));
		c->sys = def ? def->sys : LK_OTHER;
		c->nr = (uint32_t)nr;
		c->line_no = lk->line_no;
		if (def && (rc = parse_args(r, err, def, q, glue, c)) < 0)
			return rc;
		arrow = find(q, glue, "-->");
		if (!arrow) {
			c->state = LK_CONT;
			lk->cont = (uint32_t)vtid;
			rc = 0;
		} else if (lk_starts(skip_blanks(arrow + 3, glue), glue, "[async] ...")) {
			c->state = LK_ASYNC;
			rc = 0;
		} else {
			rc = complete(r, err, (uint32_t)vtid, arrow + 3, glue);
		}
	}
	if (rc < 0)
		return rc;
	return glue < end ? lk_dispatch(r, err, glue, end) : 0;
}
