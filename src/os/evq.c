/* SPDX-License-Identifier: MIT */
/*
 * A thread's queue of events read from the trace and not yet run, with a
 * spill file so that a trace whose threads drift far apart runs in bounded
 * memory.
 *
 * The one event stream is read ahead for whichever thread runs dry, and
 * every other thread's events read on the way wait in their queues: in a
 * recorded log where one thread's next event lies near the end (a main
 * thread's exit after its workers), that is nearly the whole trace.  Once
 * the queues of all threads hold os_spill.budget events, a queue that has
 * OS_EVQ_KEEP events in memory puts the newer ones into a write buffer, which
 * goes to the spill file, EVQ_CHUNK events at a time.  A queue pops from
 * memory, and reads its oldest spilled chunk back (or takes its write
 * buffer) when fewer than OS_EVQ_KEEP are left: so the first OS_EVQ_KEEP events
 * are always in memory, which is all the simulation looks at ahead
 * (os_horizon() in sim.c), and spilling changes no result.
 *
 * The file is created on the first spill in $TMPDIR (else /tmp) and
 * unlinked at once, so it disappears with the process.  Where it cannot
 * be created, or once a write to it fails (a full disk), queues keep
 * their events in memory, as without spilling; only a failed read back
 * ends the run.  Reads back happen
 * in the parallel phase (a cpu popping its thread's events), writes only in
 * the serial phase (reading the trace): pread()/pwrite() at offsets owned
 * by one queue each need no lock.
 */
#define _GNU_SOURCE /* fallocate() with FALLOC_FL_PUNCH_HOLE (Linux) */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/os.h"

/* Events a spill write and a read back move at once (about 224 KiB). */
#define EVQ_CHUNK 4096u

/* Grow the ring to hold @need events, oldest first at index 0. */
static bool ring_reserve(struct os_evq *q, uint32_t need)
{
	uint32_t cap = q->cap ? q->cap : 256, i;
	struct tlbsim_event *n;
	uint64_t *x;

	if (need <= q->cap)
		return true;
	while (cap < need)
		cap *= 2;
	n = malloc((size_t)cap * sizeof(*n));
	x = malloc((size_t)cap * sizeof(*x));
	if (!n || !x) {
		free(n);
		free(x);
		return false;
	}
	for (i = 0; i < q->n; i++) {
		n[i] = q->ev[(q->head + i) & (q->cap - 1)];
		x[i] = q->idx[(q->head + i) & (q->cap - 1)];
	}
	free(q->ev);
	free(q->idx);
	q->ev = n;
	q->idx = x;
	q->cap = cap;
	q->head = 0;
	return true;
}

/* A read back failed: the first failure wins (cpus read back in
 * parallel); sim.c reports it in the serial phase. */
static void spill_fail(struct os_spill *sp, const char *what, int e)
{
	int none = 0;

	if (atomic_compare_exchange_strong(&sp->error, &none, e))
		snprintf(sp->why, sizeof(sp->why), "%s: %s", what, strerror(e));
}

/* The spill file, created on first use.  A failure to create it or to
 * write it is kept: events then stay in memory, as without spilling. */
static bool spill_open(struct os_spill *sp)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];

	if (sp->full)
		return false;
	if (sp->fd >= 0)
		return true;
	if (sp->tried)
		return false;
	sp->tried = true;
	if (!dir || !*dir)
		dir = "/tmp";
	snprintf(sp->dir, sizeof(sp->dir), "%s", dir);
	snprintf(path, sizeof(path), "%s/tlbsim-events-XXXXXX", dir);
	sp->fd = mkstemp(path);
	if (sp->fd < 0)
		return false;
	unlink(path);
	return true;
}

static int write_all(int fd, const void *buf, size_t len, uint64_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t w = pwrite(fd, p, len, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : ENOSPC;
		p += w;
		len -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

static int read_all(int fd, void *buf, size_t len, uint64_t off)
{
	char *p = buf;

	while (len) {
		ssize_t r = pread(fd, p, len, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? errno : EIO;
		p += r;
		len -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

/*
 * Spilled events are written in records of 16 bytes: an access's or a
 * compute's fields, the gap to the previous event's trace index, and a
 * flag; the chunk holds the thread and cpu they share (struct
 * os_evq_chunk).  Any other event, or one that does not fit (another tid
 * or cpu, a size beyond 16 bits, a gap beyond 32), follows such a record
 * whole (struct tlbsim_event and its index).  The recorded sample spills
 * nearly all its events, so the file and the copying through the kernel
 * are 16/56 of what whole events need.
 */
struct spill_rec {
	uint64_t va;	/* access: va; compute: count */
	uint32_t gap;	/* trace index minus the previous one's */
	uint16_t size;	/* access: size; compute: unit */
	uint8_t kind;
	uint8_t whole; /* 1: the event and its index follow as they are */
};

#define SPILL_REC_MAX (sizeof(struct spill_rec) + sizeof(struct tlbsim_event) + sizeof(uint64_t))

/* Make *@buf hold @need bytes. */
static bool buf_reserve(unsigned char **buf, size_t *cap, size_t need)
{
	unsigned char *n;

	if (need <= *cap)
		return true;
	n = realloc(*buf, need);
	if (!n)
		return false;
	*buf = n;
	*cap = need;
	return true;
}

/* Encodes @n events @ev with indices @idx into @out as chunk @c (its
 * @idx0, @tid and @cpu); returns the bytes. */
static size_t spill_encode(unsigned char *out, const struct tlbsim_event *ev, const uint64_t *idx,
			   uint32_t n, struct os_evq_chunk *c)
{
	unsigned char *p = out;
	uint32_t i;

	c->idx0 = idx[0];
	c->tid = ev[0].tid;
	c->cpu = ev[0].cpu;
	for (i = 0; i < n; i++) {
		struct spill_rec r;
		uint64_t gap = i ? idx[i] - idx[i - 1] : 0;
		bool fits = ev[i].tid == c->tid && ev[i].cpu == c->cpu && gap <= UINT32_MAX;

		memset(&r, 0, sizeof(r));
		r.kind = ev[i].kind;
		r.gap = (uint32_t)gap;
		if (fits && tlbsim_event_is_access(ev[i].kind) && ev[i].access.size <= UINT16_MAX) {
			r.va = ev[i].access.va;
			r.size = (uint16_t)ev[i].access.size;
		} else if (fits && ev[i].kind == TLBSIM_EV_COMPUTE) {
			r.va = ev[i].compute.count;
			r.size = ev[i].compute.unit;
		} else {
			r.whole = 1;
		}
		memcpy(p, &r, sizeof(r));
		p += sizeof(r);
		if (r.whole) {
			memcpy(p, &ev[i], sizeof(ev[i]));
			memcpy(p + sizeof(ev[i]), &idx[i], sizeof(idx[i]));
			p += sizeof(ev[i]) + sizeof(idx[i]);
		}
	}
	return (size_t)(p - out);
}

/* Decodes chunk @c's records @in into @q's ring from slot @at on, wrapping
 * around its end; false if they do not hold @c's events. */
static bool spill_decode(struct os_evq *q, const struct os_evq_chunk *c, const unsigned char *in,
			 uint32_t at)
{
	const unsigned char *p = in, *end = in + c->bytes;
	uint64_t idx = c->idx0;
	uint32_t i;

	for (i = 0; i < c->n; i++) {
		uint32_t slot = (at + i) & (q->cap - 1);
		struct tlbsim_event *ev = &q->ev[slot];
		struct spill_rec r;

		if ((size_t)(end - p) < sizeof(r))
			return false;
		memcpy(&r, p, sizeof(r));
		p += sizeof(r);
		if (r.whole) {
			if ((size_t)(end - p) < sizeof(*ev) + sizeof(idx))
				return false;
			memcpy(ev, p, sizeof(*ev));
			memcpy(&idx, p + sizeof(*ev), sizeof(idx));
			p += sizeof(*ev) + sizeof(idx);
		} else {
			memset(ev, 0, sizeof(*ev));
			ev->kind = r.kind;
			ev->cpu = c->cpu;
			ev->tid = c->tid;
			idx += r.gap;
			if (r.kind == TLBSIM_EV_COMPUTE) {
				ev->compute.count = r.va;
				ev->compute.unit = (uint8_t)r.size;
			} else {
				ev->access.va = r.va;
				ev->access.size = r.size;
			}
		}
		q->idx[slot] = idx;
	}
	return p == end;
}

/* The write buffer of @q goes to the end of the file as its newest chunk;
 * if the write fails (a full disk), spilling stops and the buffer stays. */
static int spill_flush(struct os_spill *sp, struct os_evq *q)
{
	struct os_evq_chunk *c;
	size_t bytes;
	int e;

	if (q->nr_chunks == q->cap_chunks) {
		uint32_t cap = q->cap_chunks ? 2 * q->cap_chunks : 16, i;
		struct os_evq_chunk *n = malloc(cap * sizeof(*n));

		if (!n)
			return -TLBSIM_ENOMEM;
		for (i = 0; i < q->nr_chunks; i++)
			n[i] = q->chunks[(q->chunk_head + i) % q->cap_chunks];
		free(q->chunks);
		q->chunks = n;
		q->cap_chunks = cap;
		q->chunk_head = 0;
	}
	if (!buf_reserve(&sp->wbuf, &sp->wbuf_cap, (size_t)q->wn * SPILL_REC_MAX))
		return -TLBSIM_ENOMEM;
	c = &q->chunks[(q->chunk_head + q->nr_chunks) % q->cap_chunks];
	bytes = spill_encode(sp->wbuf, q->wev, q->widx, q->wn, c);
	if ((e = write_all(sp->fd, sp->wbuf, bytes, sp->end))) {
		sp->full = e;
		snprintf(sp->full_why, sizeof(sp->full_why), "write: %s", strerror(e));
		return 0;
	}
	c->off = sp->end;
	c->n = q->wn;
	c->bytes = (uint32_t)bytes;
	q->nr_chunks++;
	sp->end += bytes;
	sp->written += q->wn;
	q->wn = 0;
	return 0;
}

int os_evq_push(struct os_spill *sp, struct os_evq *q, const struct tlbsim_event *ev, uint64_t idx)
{
	if (os_evq_push_fast(sp, q, ev, idx))
		return 0;
	if (!q->spilled && (q->n < OS_EVQ_KEEP || sp->mem < sp->budget || !spill_open(sp))) {
		/* Stays in memory: the ring is full, or no spill file. */
		if (!ring_reserve(q, q->n + 1))
			return -TLBSIM_ENOMEM;
		os_evq_ring_put(sp, q, ev, idx);
		return 0;
	}
	q->sp = sp;
	if (q->wn && q->wn == q->wcap && !sp->full) {
		int rc = spill_flush(sp, q);

		if (rc)
			return rc;
	}
	if (q->wn == q->wcap) {
		/* The first buffer, or a full disk: the buffer grows. */
		uint32_t cap = q->wcap ? 2 * q->wcap : EVQ_CHUNK;
		struct tlbsim_event *n = realloc(q->wev, (size_t)cap * sizeof(*n));
		uint64_t *x;

		if (!n)
			return -TLBSIM_ENOMEM;
		q->wev = n;
		x = realloc(q->widx, (size_t)cap * sizeof(*x));
		if (!x)
			return -TLBSIM_ENOMEM;
		q->widx = x;
		q->wcap = cap;
	}
	q->wev[q->wn] = *ev;
	q->widx[q->wn] = idx;
	q->wn++;
	q->spilled++;
	return 0;
}

int os_evq_push_run(struct os_spill *sp, struct os_evq *q, const struct tlbsim_event *ev,
		    uint64_t idx, uint32_t k, uint32_t *done)
{
	uint32_t i = 0, m, j, at, first;
	int rc;

	while (i < k) {
		if (!q->spilled && q->n < q->cap) {
			/* os_evq_push_fast() takes event j of these while
			 * q->n + j < OS_EVQ_KEEP or sp->mem + j < sp->budget. */
			int64_t keep = (int64_t)OS_EVQ_KEEP - q->n;
			int64_t left = (int64_t)sp->budget - (int64_t)sp->mem;
			int64_t room = keep > left ? keep : left;

			m = q->cap - q->n;
			if (room < (int64_t)m)
				m = room > 0 ? (uint32_t)room : 0;
			if (m > k - i)
				m = k - i;
			at = (q->head + q->n) & (q->cap - 1);
			first = m < q->cap - at ? m : q->cap - at;
			memcpy(&q->ev[at], &ev[i], (size_t)first * sizeof(*ev));
			memcpy(&q->ev[0], &ev[i + first], (size_t)(m - first) * sizeof(*ev));
			for (j = 0; j < m; j++)
				q->idx[(at + j) & (q->cap - 1)] = idx + i + j;
			q->n += m;
			sp->mem += m;
			sp->pushed += m;
			i += m;
		} else if (q->spilled && q->wn < q->wcap) {
			/* os_evq_push() appends to the write buffer. */
			m = q->wcap - q->wn;
			if (m > k - i)
				m = k - i;
			memcpy(&q->wev[q->wn], &ev[i], (size_t)m * sizeof(*ev));
			for (j = 0; j < m; j++)
				q->widx[q->wn + j] = idx + i + j;
			q->wn += m;
			q->spilled += m;
			i += m;
		} else {
			m = 0;
		}
		if (i < k && !m) {
			rc = os_evq_push(sp, q, &ev[i], idx + i);
			if (rc) {
				*done = i;
				return rc;
			}
			i++;
		}
	}
	*done = k;
	return 0;
}

/* The events of chunk @c from the spill file into the ring from slot @at
 * on: 0 or an errno. */
static int read_chunk(int fd, struct os_evq *q, const struct os_evq_chunk *c, uint32_t at)
{
	int e;

	if (!buf_reserve(&q->rbuf, &q->rbuf_cap, c->bytes))
		return ENOMEM;
	if ((e = read_all(fd, q->rbuf, c->bytes, c->off)))
		return e;
	return spill_decode(q, c, q->rbuf, at) ? 0 : EIO;
}

/* Bring spilled events back into memory: the oldest chunk, else the write
 * buffer.  Parallel phase: touches only @q, and reads the file. */
void os_evq_unspill(struct os_evq *q)
{
	struct os_spill *sp = q->sp;
	uint32_t i, n = q->nr_chunks ? q->chunks[q->chunk_head].n : q->wn, at;
	int e;

	if (!ring_reserve(q, q->n + n)) {
		spill_fail(sp, "read back", ENOMEM);
		return;
	}
	at = (q->head + q->n) & (q->cap - 1);
	if (q->nr_chunks) {
		if ((e = read_chunk(sp->fd, q, &q->chunks[q->chunk_head], at))) {
			spill_fail(sp, "read back", e);
			return;
		}
#ifdef FALLOC_FL_PUNCH_HOLE
		/* Give the chunk's blocks back: the file holds only what is
		 * still spilled (best effort: a file system without holes
		 * keeps them until the end). */
		(void)fallocate(sp->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				(off_t)q->chunks[q->chunk_head].off,
				(off_t)q->chunks[q->chunk_head].bytes);
#endif
		q->chunk_head = (q->chunk_head + 1) % q->cap_chunks;
		q->nr_chunks--;
	} else {
		for (i = 0; i < n; i++) {
			q->ev[(at + i) & (q->cap - 1)] = q->wev[i];
			q->idx[(at + i) & (q->cap - 1)] = q->widx[i];
		}
		q->wn = 0;
	}
	q->n += n;
	q->spilled -= n;
}

void os_evq_free(struct os_evq *q)
{
	free(q->ev);
	free(q->idx);
	free(q->wev);
	free(q->widx);
	free(q->rbuf);
	free(q->chunks);
	memset(q, 0, sizeof(*q));
}

void os_spill_init(struct os_spill *sp)
{
	memset(sp, 0, sizeof(*sp));
	sp->fd = -1;
	sp->budget = OS_SPILL_BUDGET;
}

void os_spill_fini(struct os_spill *sp)
{
	if (sp->fd >= 0)
		close(sp->fd);
	sp->fd = -1;
	free(sp->wbuf);
	sp->wbuf = NULL;
	sp->wbuf_cap = 0;
}
