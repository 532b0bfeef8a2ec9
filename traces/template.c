/* SPDX-License-Identifier: MIT */
/*
 * Process templates (include/tlbsim/template.h): a recorded process read
 * whole, checked once, kept decompressed in memory, and copies of it
 * (traces/template.h) that read it again with their own tids.
 *
 * The rules a template must keep are those of a process started by
 * someone else: one process, user-level events, placement left to the
 * scheduler, every thread ending.  Checking them at load time lets a copy
 * rename events without looking back: a copy's thread k is first_tid + k,
 * k being the thread's rank in order of creation (the first thread's 0).
 */
#include <stdlib.h>
#include <string.h>

#include "error_internal.h"
#include "traces/template.h"
#include "traces/trace_io.h"

/* Threads a template may have: generators give each copy a block of tids. */
#define TEMPLATE_MAX_THREADS 4096

/* A recorded tid and its rank. */
struct tid_rank {
	uint32_t tid, rank;
};

struct tlbsim_template {
	char *name;
	uint8_t *bytes; /* the native trace, decompressed */
	size_t size;
	struct tlbsim_template_info info;
	struct tid_rank *by_tid; /* sorted by tid, info.threads of them */
	uint32_t last_tid;	 /* the thread whose exit ends the template */
};

/* ---- reading the bytes ------------------------------------------------------ */

/* Every decompressed byte of @path into *@buf (*@size of them). */
static int slurp(const char *path, uint8_t **buf, size_t *size, struct tlbsim_error *err)
{
	struct trace_in in;
	size_t cap = 0, n = 0;
	uint8_t *b = NULL;
	int rc;

	rc = trace_in_open(&in, path, NULL, NULL, 0, path, err);
	if (rc)
		return rc;
	for (;;) {
		size_t avail = trace_in_avail(&in);

		if (n + avail > cap) {
			size_t ncap = cap ? 2 * cap : 1u << 20;
			uint8_t *nb;

			while (ncap < n + avail)
				ncap *= 2;
			nb = realloc(b, ncap);
			if (!nb) {
				rc = -TLBSIM_ENOMEM;
				break;
			}
			b = nb;
			cap = ncap;
		}
		memcpy(b + n, in.buf + in.pos, avail);
		n += avail;
		in.pos = in.len;
		if (in.eof)
			break;
		rc = trace_in_fill(&in, err);
		if (rc)
			break;
	}
	trace_in_close(&in);
	if (rc) {
		free(b);
		return rc;
	}
	*buf = b;
	*size = n;
	return 0;
}

/* ---- the check ------------------------------------------------------------------ */

/* Kinds a template may hold (besides its first proc_create). */
static bool template_kind(unsigned kind)
{
	switch (kind) {
	case TLBSIM_EV_LOAD:
	case TLBSIM_EV_STORE:
	case TLBSIM_EV_FETCH:
	case TLBSIM_EV_COMPUTE:
	case TLBSIM_EV_THREAD_CREATE:
	case TLBSIM_EV_EXIT:
	case TLBSIM_EV_SLEEP:
	case TLBSIM_EV_WAKE:
	case TLBSIM_EV_YIELD:
	case TLBSIM_EV_AFFINITY:
	case TLBSIM_EV_MMAP:
	case TLBSIM_EV_MUNMAP:
	case TLBSIM_EV_MPROTECT:
	case TLBSIM_EV_MADVISE:
	case TLBSIM_EV_MREMAP:
	case TLBSIM_EV_BRK:
		return true;
	default:
		return false;
	}
}

static int cmp_tid(const void *a, const void *b)
{
	uint32_t x = ((const struct tid_rank *)a)->tid, y = ((const struct tid_rank *)b)->tid;

	return x < y ? -1 : x > y;
}

/* The rank of recorded thread @tid, or -1. */
static int64_t rank_of(const struct tlbsim_template *t, uint32_t tid)
{
	const struct tid_rank key = {.tid = tid}, *hit;

	if (t->info.threads == 1)
		return t->by_tid[0].tid == tid ? 0 : -1;
	hit = bsearch(&key, t->by_tid, t->info.threads, sizeof(key), cmp_tid);
	return hit ? (int64_t)hit->rank : -1;
}

/* What the check keeps per thread while it reads, in creation order. */
struct scan_thread {
	uint32_t tid;
	bool exited;
};

struct scan {
	struct tlbsim_template *t;
	tlbsim_trace_reader *r;
	struct tlbsim_error *err;
	struct scan_thread *th;
	unsigned nr, cap, live;
	uint64_t idx; /* the event being checked, 0-based in the trace */
};

/* An error at the event just read. */
static int bad(struct scan *s, const struct tlbsim_event *ev, const char *why, uint32_t a)
{
	uint64_t off = 0;
	char text[128];

	snprintf(text, sizeof(text), why, a);
	if (tlbsim_trace_position(s->r, NULL, &off))
		off = 0;
	return err_set(s->err, -TLBSIM_EINVAL, s->t->name, -1, -1, (long long)off, NULL,
		       "event %llu (%s): a process template %s", (unsigned long long)s->idx,
		       tlbsim_event_kind_name(ev->kind), text);
}

static struct scan_thread *find(struct scan *s, uint32_t tid)
{
	for (unsigned i = 0; i < s->nr; i++)
		if (s->th[i].tid == tid)
			return &s->th[i];
	return NULL;
}

static int add_thread(struct scan *s, uint32_t tid)
{
	if (s->nr == s->cap) {
		unsigned cap = s->cap ? 2 * s->cap : 8;
		struct scan_thread *n = realloc(s->th, cap * sizeof(*n));

		if (!n)
			return -TLBSIM_ENOMEM;
		s->th = n;
		s->cap = cap;
	}
	s->th[s->nr++] = (struct scan_thread){.tid = tid};
	s->live++;
	return 0;
}

/* Check event @ev (not the first proc_create). */
static int check_event(struct scan *s, const struct tlbsim_event *ev)
{
	struct tlbsim_template_info *info = &s->t->info;
	struct scan_thread *self;

	if (!template_kind(ev->kind))
		return bad(s, ev,
			   "holds user-level events of one process, placed by the scheduler: no "
			   "fork, exec, proc_create, switch or kernel-level event%.0u",
			   0);
	if (!s->live)
		return bad(s, ev, "ends with its last thread's exit: no event after it%.0u", 0);
	if (!s->nr && add_thread(s, ev->tid))
		return -TLBSIM_ENOMEM;
	self = find(s, ev->tid);
	if (!self)
		return bad(s, ev,
			   "has no thread %u: every thread is its first one or created by "
			   "a thread_create",
			   ev->tid);
	if (self->exited)
		return bad(s, ev, "has thread %u exited before this event", ev->tid);
	if (tlbsim_event_is_access(ev->kind))
		info->accesses++;
	switch (ev->kind) {
	case TLBSIM_EV_THREAD_CREATE:
		if (find(s, ev->thread_create.tid))
			return bad(s, ev,
				   "creates thread %u twice (tids are not reused in a template)",
				   ev->thread_create.tid);
		if (s->nr == TEMPLATE_MAX_THREADS)
			return bad(s, ev, "has at most %u threads", TEMPLATE_MAX_THREADS);
		if (add_thread(s, ev->thread_create.tid))
			return -TLBSIM_ENOMEM;
		break;
	case TLBSIM_EV_WAKE:
		if (!find(s, ev->wake.tid))
			return bad(s, ev, "wakes only its own threads, not %u", ev->wake.tid);
		break;
	case TLBSIM_EV_EXIT:
		self->exited = true;
		s->live--;
		s->t->last_tid = ev->tid;
		break;
	case TLBSIM_EV_MMAP:
	case TLBSIM_EV_MUNMAP:
	case TLBSIM_EV_MPROTECT:
	case TLBSIM_EV_MADVISE:
	case TLBSIM_EV_MREMAP:
	case TLBSIM_EV_BRK:
		info->syscalls++;
		break;
	default:
		break;
	}
	info->events++;
	return 0;
}

/* Read the whole template once: the rules, the counts and the threads. */
static int check_all(struct tlbsim_template *t, struct tlbsim_error *err)
{
	struct scan s = {.t = t, .err = err};
	const struct tlbsim_trace_info *ti;
	struct tlbsim_event ev;
	int rc;

	rc = tlbsim_trace_open_mem(t->bytes, t->size, t->name, TLBSIM_TRACE_AUTO, &s.r, err);
	if (rc)
		return rc;
	ti = tlbsim_trace_info(s.r);
	if (ti->format != TLBSIM_TRACE_BINARY) {
		rc = err_set(err, -TLBSIM_EINVAL, t->name, -1, -1, -1, NULL,
			     "a process template is a tlbsim binary trace (what tlbsim record "
			     "writes), found a %s one: tlbsim convert --to binary makes one",
			     tlbsim_trace_format_name(ti->format));
		goto out;
	}
	if (ti->page_shift != 12) {
		rc = err_set(err, -TLBSIM_EINVAL, t->name, -1, -1, -1, NULL,
			     "a process template has 4 KiB pages (page_shift=12), found "
			     "page_shift=%u",
			     ti->page_shift);
		goto out;
	}
	t->info.isa = ti->isa;
	while ((rc = tlbsim_trace_next(s.r, &ev, err)) == 1) {
		if (s.idx == 0 && ev.kind == TLBSIM_EV_PROC_CREATE) {
			t->info.pid = ev.proc_create.pid;
			rc = add_thread(&s, ev.proc_create.tid);
		} else {
			if (s.idx == 0)
				t->info.pid = ev.tid;
			rc = check_event(&s, &ev);
		}
		if (rc)
			goto out;
		s.idx++;
	}
	if (rc < 0)
		goto out;
	if (!s.nr || s.live) {
		rc = err_set(err, -TLBSIM_EINVAL, t->name, -1, -1, -1, NULL,
			     "a process template ends with its last thread's exit: %s",
			     s.nr ? "a thread never exits" : "no event at all");
		goto out;
	}
	t->info.threads = s.nr;
	t->info.tid = s.th[0].tid;
	t->by_tid = malloc(s.nr * sizeof(*t->by_tid));
	if (!t->by_tid) {
		rc = -TLBSIM_ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < s.nr; i++)
		t->by_tid[i] = (struct tid_rank){.tid = s.th[i].tid, .rank = i};
	qsort(t->by_tid, s.nr, sizeof(*t->by_tid), cmp_tid);
	rc = 0;
out:
	free(s.th);
	tlbsim_trace_close(s.r);
	return rc;
}

int tlbsim_template_load(const char *path, tlbsim_template **out, struct tlbsim_error *err)
{
	struct tlbsim_template *t;
	int rc;

	if (!path || !out)
		return -TLBSIM_EINVAL;
	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t || !(t->name = strdup(path))) {
		free(t);
		return -TLBSIM_ENOMEM;
	}
	rc = slurp(path, &t->bytes, &t->size, err);
	if (!rc)
		rc = check_all(t, err);
	if (rc) {
		tlbsim_template_destroy(t);
		return rc;
	}
	*out = t;
	return 0;
}

const struct tlbsim_template_info *tlbsim_template_info(const tlbsim_template *t)
{
	return &t->info;
}

const char *tlbsim_template_name(const tlbsim_template *t)
{
	return t->name;
}

void tlbsim_template_destroy(tlbsim_template *t)
{
	if (!t)
		return;
	free(t->by_tid);
	free(t->bytes);
	free(t->name);
	free(t);
}

/* ---- copies ------------------------------------------------------------------------ */

int trace_copy_start(struct trace_copy *c, const tlbsim_template *t, uint32_t first_tid,
		     uint32_t waiter)
{
	struct tlbsim_event ev;
	int rc;

	memset(c, 0, sizeof(*c));
	c->t = t;
	c->first_tid = first_tid;
	c->waiter = waiter;
	rc = tlbsim_trace_open_mem(t->bytes, t->size, t->name, TLBSIM_TRACE_BINARY, &c->r, NULL);
	if (rc)
		return rc;
	/* The recorded proc_create is skipped: the copy's process is made
	 * by its starter. */
	rc = tlbsim_trace_next(c->r, &ev, NULL);
	if (rc == 1 && ev.kind != TLBSIM_EV_PROC_CREATE) {
		/* No proc_create: start again from the first event. */
		tlbsim_trace_close(c->r);
		c->r = NULL;
		rc = tlbsim_trace_open_mem(t->bytes, t->size, t->name, TLBSIM_TRACE_BINARY, &c->r,
					   NULL);
		if (rc)
			return rc;
	}
	return 0;
}

/* The copy's name of recorded thread @tid, which the check found. */
static uint32_t rename_tid(const struct trace_copy *c, uint32_t tid)
{
	return c->first_tid + (uint32_t)rank_of(c->t, tid);
}

int trace_copy_next(struct trace_copy *c, struct tlbsim_event *ev, bool *last)
{
	*last = false;
	if (!c->r)
		return 0;
	if (c->read + 1 == c->t->info.events && c->waiter && !c->woke) {
		/* The last event is the last thread's exit: wait4() in the
		 * parent returns, so that thread wakes the parent first. */
		c->woke = true;
		memset(ev, 0, sizeof(*ev));
		ev->kind = TLBSIM_EV_WAKE;
		ev->cpu = TLBSIM_CPU_ANY;
		ev->tid = rename_tid(c, c->t->last_tid);
		ev->wake.tid = c->waiter;
		return 1;
	}
	if (tlbsim_trace_next(c->r, ev, NULL) != 1) {
		trace_copy_stop(c);
		return 0;
	}
	c->read++;
	ev->cpu = TLBSIM_CPU_ANY;
	ev->tid = rename_tid(c, ev->tid);
	if (ev->kind == TLBSIM_EV_THREAD_CREATE)
		ev->thread_create.tid = rename_tid(c, ev->thread_create.tid);
	else if (ev->kind == TLBSIM_EV_WAKE)
		ev->wake.tid = rename_tid(c, ev->wake.tid);
	if (c->read == c->t->info.events) {
		*last = true;
		trace_copy_stop(c);
	}
	return 1;
}

void trace_copy_stop(struct trace_copy *c)
{
	tlbsim_trace_close(c->r);
	c->r = NULL;
}
