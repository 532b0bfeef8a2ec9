/* SPDX-License-Identifier: MIT */
/*
 * tlbsim record: merging the parts tlbsim's valgrind tool wrote
 * (tools/valgrind/tl_main.c) into one trace.
 *
 * DIR/order lists the chunks of every part in the order the processes
 * wrote them; each part DIR/PID.SEQ is a native trace of one process image.
 * Chunks are copied in that order, except where it would break the trace's
 * lifecycle rules (traces/FORMAT.md, "Threads and processes"), which the
 * order of whole buffers cannot always keep:
 *
 *   - a forked child's chunks wait until the parent's `fork PID` is out
 *     (the child may write before the parent, whose fork event ends a
 *     chunk of its own);
 *   - the parts of one pid (an image, then the images it execs, then a
 *     new process that reuses the pid) go in SEQ order;
 *   - an exec: the new image's `proc_create PID PID` is preceded by an
 *     `exit` of every thread of the old image still alive (Linux ends
 *     them in execve(), de_thread(); the model then tears down the old mm);
 *   - a `wake T` of a thread not alive in the trace (the recording's
 *     parent, a process that already exited) is dropped, and so is a
 *     `sleep` that no earlier `wake` allows (the tool's cross-process
 *     edge after wait4() when the child could not send one): replayed, it
 *     would wait for ever.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

#define ORDER_RECORD 16

struct rm_chunk {
	uint32_t events;
};

struct rm_part {
	uint32_t pid, seq;
	uint32_t chunks;      /* in DIR/order */
	uint32_t chunks_done; /* copied */
	uint32_t *pending;    /* event counts of chunks waiting, in order */
	uint32_t nr_pending, head, cap_pending;
	tlbsim_trace_reader *r;
	struct tlbsim_event ahead; /* the first event, read to see how the image starts */
	bool has_ahead;
	bool started; /* its chunks may be copied */
	bool eof;     /* the part had no event at all */
	bool queued;  /* in rm.waiting */
};

/* A thread alive in the merged trace so far. */
struct rm_thread {
	uint32_t tid, pid;
	uint32_t tokens; /* wakes not yet taken by a sleep */
};

struct rm {
	const char *dir;
	tlbsim_trace_writer *w;
	struct rec_merge_stats *st;
	struct tlbsim_error *err;
	struct rm_part *parts;
	size_t nr_parts;
	struct rm_thread *th;
	size_t nr_th, cap_th;
	uint32_t *forks; /* pids of fork events whose child part has not started */
	size_t nr_forks, cap_forks;
	struct rm_part **waiting; /* parts with chunks read from the order file, not copied */
	size_t nr_waiting;
	struct tlbsim_event *batch; /* RM_BATCH events */
};

static int part_cmp(const void *a, const void *b)
{
	const struct rm_part *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static struct rm_part *part_find(struct rm *m, uint32_t pid, uint32_t seq)
{
	struct rm_part key = {.pid = pid, .seq = seq};

	return bsearch(&key, m->parts, m->nr_parts, sizeof(key), part_cmp);
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return p;
	while (n < need)
		n *= 2;
	q = realloc(p, n * size);
	if (q)
		*cap = n;
	return q;
}

/* ---- threads of the merged trace ---------------------------------------------- */

static struct rm_thread *thread_of(struct rm *m, uint32_t tid)
{
	for (size_t i = 0; i < m->nr_th; i++)
		if (m->th[i].tid == tid)
			return &m->th[i];
	return NULL;
}

static int thread_add(struct rm *m, uint32_t tid, uint32_t pid)
{
	struct rm_thread *t = thread_of(m, tid), *n;

	if (t) { /* a tid the trace never saw exit: reused */
		t->pid = pid;
		t->tokens = 0;
		return 0;
	}
	n = grow(m->th, &m->cap_th, m->nr_th + 1, sizeof(*n));
	if (!n)
		return -TLBSIM_ENOMEM;
	m->th = n;
	m->th[m->nr_th++] = (struct rm_thread){.tid = tid, .pid = pid};
	return 0;
}

static void thread_del(struct rm *m, uint32_t tid)
{
	struct rm_thread *t = thread_of(m, tid);

	if (t)
		*t = m->th[--m->nr_th];
}

/* ---- writing -------------------------------------------------------------------- */

static int put(struct rm *m, const struct tlbsim_event *ev)
{
	int rc = tlbsim_trace_writer_write(m->w, ev, m->err);

	if (rc < 0)
		m->st->write_failed = true;
	else {
		m->st->events++;
		m->st->by_kind[ev->kind]++;
		if (ev->kind == TLBSIM_EV_FETCH)
			m->st->insns++;
		else if (ev->kind == TLBSIM_EV_COMPUTE && ev->compute.unit == TLBSIM_COMPUTE_INSNS)
			m->st->insns += ev->compute.count;
	}
	return rc;
}

/* An exec: the old image's threads end before the new one starts. */
static int end_image(struct rm *m, uint32_t pid)
{
	struct tlbsim_event ex = {.kind = TLBSIM_EV_EXIT, .cpu = TLBSIM_CPU_ANY};
	int rc;

	for (size_t i = 0; i < m->nr_th;) {
		if (m->th[i].pid != pid) {
			i++;
			continue;
		}
		ex.tid = m->th[i].tid;
		if ((rc = put(m, &ex)) < 0)
			return rc;
		m->st->exec_exits++;
		thread_del(m, ex.tid);
	}
	return 0;
}

/* Copy @ev, keeping the lifecycle rules; a fork makes its child's part startable. */
static int copy_event(struct rm *m, const struct tlbsim_event *ev)
{
	struct rm_thread *t;
	uint32_t *f;
	int rc;

	switch (ev->kind) {
	case TLBSIM_EV_PROC_CREATE:
		if ((rc = end_image(m, ev->proc_create.pid)) < 0)
			return rc;
		if ((rc = thread_add(m, ev->proc_create.tid, ev->proc_create.pid)) < 0)
			return rc;
		m->st->images++;
		break;
	case TLBSIM_EV_FORK:
		if ((rc = thread_add(m, ev->fork.tid, ev->fork.pid)) < 0)
			return rc;
		f = grow(m->forks, &m->cap_forks, m->nr_forks + 1, sizeof(*f));
		if (!f)
			return -TLBSIM_ENOMEM;
		m->forks = f;
		m->forks[m->nr_forks++] = ev->fork.pid;
		m->st->forks++;
		break;
	case TLBSIM_EV_THREAD_CREATE:
		t = thread_of(m, ev->tid);
		if ((rc = thread_add(m, ev->thread_create.tid, t ? t->pid : ev->tid)) < 0)
			return rc;
		m->st->threads++;
		break;
	case TLBSIM_EV_EXIT:
		thread_del(m, ev->tid);
		break;
	case TLBSIM_EV_WAKE:
		t = thread_of(m, ev->wake.tid);
		if (!t || !thread_of(m, ev->tid)) {
			/* the recorded program's own wake of its parent, tlbsim, is no news */
			if (ev->wake.tid != (uint32_t)getpid())
				m->st->dropped_wakes++;
			return 0;
		}
		t->tokens++;
		break;
	case TLBSIM_EV_SLEEP:
		t = thread_of(m, ev->tid);
		if (!t || !t->tokens) {
			m->st->dropped_sleeps++;
			return 0;
		}
		t->tokens--;
		break;
	default:
		break;
	}
	return put(m, ev);
}

/* ---- parts --------------------------------------------------------------------- */

static int part_open(struct rm *m, struct rm_part *p)
{
	char path[4096];
	int rc;

	snprintf(path, sizeof(path), "%s/%u.%u", m->dir, (unsigned)p->pid, (unsigned)p->seq);
	if ((rc = tlbsim_trace_open(path, TLBSIM_TRACE_BINARY, &p->r, m->err)) < 0)
		return rc;
	rc = tlbsim_trace_next(p->r, &p->ahead, m->err);
	if (rc < 0)
		return rc;
	p->has_ahead = rc > 0;
	p->eof = rc == 0;
	return 0;
}

/* May @p's chunks be copied now?  Opens it to look at its first event. */
static int part_ready(struct rm *m, struct rm_part *p)
{
	struct rm_part *prev = p->seq ? part_find(m, p->pid, p->seq - 1) : NULL;
	int rc;

	if (p->started)
		return 1;
	if (prev && prev->chunks_done < prev->chunks)
		return 0; /* an earlier image of this pid first */
	if (!p->r && (rc = part_open(m, p)) < 0)
		return rc;
	if (p->eof || (p->has_ahead && p->ahead.kind == TLBSIM_EV_PROC_CREATE)) {
		p->started = true;
		return 1;
	}
	/* A forked child: its parent's fork must be out. */
	for (size_t i = 0; i < m->nr_forks; i++)
		if (m->forks[i] == p->pid) {
			m->forks[i] = m->forks[--m->nr_forks];
			p->started = true;
			return 1;
		}
	return 0;
}

/* Events read at a time from a part (tlbsim_trace_next_batch()). */
#define RM_BATCH 4096

static int copy_chunk(struct rm *m, struct rm_part *p, uint32_t events)
{
	struct tlbsim_event *ev = m->batch;
	uint32_t done = 0;
	int rc;

	if (events && p->has_ahead) {
		p->has_ahead = false;
		if ((rc = copy_event(m, &p->ahead)) < 0)
			return rc;
		done++;
	}
	while (done < events) {
		size_t want = events - done < RM_BATCH ? events - done : RM_BATCH;

		int n = tlbsim_trace_next_batch(p->r, ev, want, m->err);

		if (n <= 0) {
			rc = n;
			if (rc == 0) {
				rc = m->err->code = -TLBSIM_ETRUNC;
				snprintf(m->err->source, sizeof(m->err->source), "%s/%u.%u", m->dir,
					 (unsigned)p->pid, (unsigned)p->seq);
				snprintf(m->err->text, sizeof(m->err->text),
					 "the order file counts %u more events than the part holds",
					 (unsigned)(events - done));
			}
			return rc;
		}
		for (int i = 0; i < n; i++)
			if ((rc = copy_event(m, &ev[i])) < 0)
				return rc;
		done += (uint32_t)n;
	}
	m->st->chunks++;
	if (++p->chunks_done == p->chunks) {
		tlbsim_trace_close(p->r);
		p->r = NULL;
	}
	return 0;
}

/*
 * Copy the waiting chunks of every part that may go on, until none can:
 * a chunk copied may let another part start (a fork, an image done).
 */
static int drain(struct rm *m)
{
	bool progress = true;
	int rc;

	while (progress) {
		progress = false;
		for (size_t i = 0; i < m->nr_waiting;) {
			struct rm_part *p = m->waiting[i];

			while (p->head < p->nr_pending) {
				if ((rc = part_ready(m, p)) < 0)
					return rc;
				if (!rc)
					break;
				if ((rc = copy_chunk(m, p, p->pending[p->head++])) < 0)
					return rc;
				progress = true;
			}
			if (p->head == p->nr_pending) {
				p->queued = false;
				m->waiting[i] = m->waiting[--m->nr_waiting];
			} else {
				i++;
			}
		}
	}
	return 0;
}

/* DIR/order: whole records only (a process killed while appending leaves none half-read). */
static int read_order(struct rm *m, unsigned char **buf, size_t *nr)
{
	char path[4096];
	FILE *f;
	size_t len = 0, cap = 0;
	unsigned char *b = NULL, *nb;
	size_t n;

	snprintf(path, sizeof(path), "%s/order", m->dir);
	f = fopen(path, "rb");
	if (!f)
		return cli_fail("record: %s: %s (did valgrind run the tool?)", path,
				strerror(errno));
	do {
		nb = grow(b, &cap, len + 65536, 1);
		if (!nb) {
			free(b);
			fclose(f);
			return cli_fail("out of memory");
		}
		b = nb;
		n = fread(b + len, 1, cap - len, f);
		len += n;
	} while (n);
	fclose(f);
	*buf = b;
	*nr = len / ORDER_RECORD;
	return 0;
}

int rec_merge(const char *dir, tlbsim_trace_writer *w, struct rec_merge_stats *st,
	      struct tlbsim_error *err)
{
	struct rm m = {.dir = dir, .w = w, .st = st, .err = err};
	unsigned char *ord = NULL;
	size_t nr = 0, i, j;
	int rc;

	memset(st, 0, sizeof(*st));
	if ((rc = read_order(&m, &ord, &nr)))
		return rc;
	/* The parts, and how many chunks each has. */
	m.parts = calloc(nr ? nr : 1, sizeof(*m.parts));
	if (!m.parts) {
		free(ord);
		return cli_fail("out of memory");
	}
	for (i = 0; i < nr; i++) {
		m.parts[i].pid = le32(ord + i * ORDER_RECORD);
		m.parts[i].seq = le32(ord + i * ORDER_RECORD + 4);
	}
	qsort(m.parts, nr, sizeof(*m.parts), part_cmp);
	for (i = j = 0; i < nr; i++)
		if (!j || part_cmp(&m.parts[j - 1], &m.parts[i]))
			m.parts[j++] = m.parts[i];
	m.nr_parts = j;
	st->parts = j;
	m.waiting = calloc(j ? j : 1, sizeof(*m.waiting));
	m.batch = malloc(RM_BATCH * sizeof(*m.batch));
	rc = m.waiting && m.batch ? 0 : -TLBSIM_ENOMEM;
	for (i = 0; i < nr && rc == 0; i++)
		part_find(&m, le32(ord + i * ORDER_RECORD), le32(ord + i * ORDER_RECORD + 4))
		    ->chunks++;
	/* Copy in order, each chunk as soon as its part may go on. */
	for (i = 0; i < nr && rc == 0; i++) {
		const unsigned char *r = ord + i * ORDER_RECORD;
		struct rm_part *p = part_find(&m, le32(r), le32(r + 4));

		if (p->nr_pending == p->cap_pending) {
			uint32_t cap = p->cap_pending ? 2 * p->cap_pending : 8;
			uint32_t *q = realloc(p->pending, cap * sizeof(*q));

			if (!q) {
				rc = -TLBSIM_ENOMEM;
				break;
			}
			p->pending = q;
			p->cap_pending = cap;
		}
		p->pending[p->nr_pending++] = le32(r + 8);
		if (!p->queued) {
			p->queued = true;
			m.waiting[m.nr_waiting++] = p;
		}
		rc = drain(&m);
	}
	/* What never could start: a child whose parent's fork was not recorded. */
	while (rc == 0 && m.nr_waiting) {
		st->orphan_parts++;
		m.waiting[0]->started = true;
		rc = drain(&m);
	}
	for (i = 0; i < m.nr_parts; i++) {
		tlbsim_trace_close(m.parts[i].r);
		free(m.parts[i].pending);
	}
	free(m.parts);
	free(m.th);
	free(m.forks);
	free(m.waiting);
	free(m.batch);
	free(ord);
	if (rc == -TLBSIM_ENOMEM && !err->code)
		return cli_fail("out of memory");
	return rc < 0 ? cli_fail_err(err) : rc;
}
