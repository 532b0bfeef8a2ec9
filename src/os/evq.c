/* SPDX-License-Identifier: MIT */
/*
 * A thread's queue of events read from the trace and not yet run, and
 * where queues spill so that a trace whose threads drift far apart runs in
 * bounded memory.
 *
 * The one event stream is read ahead for whichever thread runs dry, and
 * every other thread's events read on the way wait in their queues: in a
 * recorded log where one thread's next event lies near the end (a main
 * thread's exit after its workers), that is nearly the whole trace.  Once
 * the queues of all threads hold os_spill.budget events, a queue that has
 * OS_EVQ_KEEP events in memory encodes the newer ones as compact records
 * (a few bytes each instead of 56), in chunks of EVQ_CHUNK events.  A
 * complete chunk stays in memory while the chunks there hold fewer than
 * os_spill.mem_cap bytes, and goes to the spill file beyond.  A queue pops
 * from its ring, and decodes its oldest chunk (or its open one) back into
 * it when fewer than OS_EVQ_KEEP are left: so the first OS_EVQ_KEEP events
 * are always in the ring, which is all the simulation looks at ahead
 * (os_horizon() in sim.c), and spilling changes no result.
 *
 * The file is created on first use in $TMPDIR (else /tmp) and unlinked at
 * once, so it disappears with the process.  Where it cannot be created,
 * or once a write to it fails (a full disk), chunks stay in memory; only a
 * failed read back ends the run.  Reads back happen in the parallel phase
 * (a cpu popping its thread's events), writes only in the serial phase
 * (reading the trace): pread()/pwrite() at offsets owned by one queue each
 * need no lock, and the count of bytes in memory is atomic.
 */
#define _GNU_SOURCE /* fallocate() with FALLOC_FL_PUNCH_HOLE (Linux) */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "os/os.h"
#include "traces/native.h"

/* Events of a chunk: a spill write and a read back move one (about 10 KiB
 * of records in the recorded sample). */
#define EVQ_CHUNK 4096u

/*
 * Grow the ring to hold @need events.  realloc() keeps the events where
 * they are (a large block is remapped, not copied: its pages are not
 * touched again); only the part that wrapped around the old end moves,
 * to just past it, so the events stay in order from @head on.
 */
static bool ring_reserve(struct os_evq *q, uint32_t need)
{
	uint32_t cap = q->cap ? q->cap : 256, wrapped;
	struct tlbsim_event *n;
	uint64_t *x;

	if (need <= q->cap)
		return true;
	while (cap < need)
		cap *= 2;
	n = realloc(q->ev, (size_t)cap * sizeof(*n));
	if (!n)
		return false;
	q->ev = n;
	x = realloc(q->idx, (size_t)cap * sizeof(*x));
	if (!x)
		return false; /* q->ev is larger than q->cap says: harmless */
	q->idx = x;
	wrapped = q->head + q->n > q->cap ? q->head + q->n - q->cap : 0;
	memcpy(&n[q->cap], n, (size_t)wrapped * sizeof(*n));
	memcpy(&x[q->cap], x, (size_t)wrapped * sizeof(*x));
	q->cap = cap;
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
 * Spilled events are kept as records of a few bytes, in chunks of up to
 * EVQ_CHUNK events of one queue.  A record starts with a byte:
 *
 *   bits 0-1  0 load, 1 store, 2 fetch, 3 compute or a whole event
 *   bit 2     the trace index is the previous one's plus 1; else the gap
 *             follows as a varint
 *   bit 3     (kind 3) the event and its index follow as they are
 *   bits 4-6  (access) log2(size) + 1 for sizes 1 to 64; 0: the size
 *             follows as a varint
 *   bit 7     (load, store) the address is from the second base, not the
 *             first
 *
 * then for an access the zigzag varint of its address's distance from a
 * base, and for a compute its count as a varint and its unit as a byte.
 * Varints and zigzag are the native trace format's (traces/native.h).
 *
 * A fetch is written from the previous fetch: code runs on in its own
 * region.  A load or store is written from one of two bases, the last
 * addresses of the two data regions the thread accessed last (a program
 * copying from one buffer to another, or alternating between its stack
 * and its heap).  A chunk starts with all three at 0.  An address within
 * REC_NEAR of the first base (as a zigzag distance) is written from it
 * and replaces it; else one within REC_NEAR of the second is written from
 * that (bit 7), and the two swap, the address taking the first place;
 * else it is written from the first, and starts a new region: the first
 * base moves to second place.  The decoder follows the same rules from
 * the kinds and distances it reads.  In the recorded sample, where two
 * thirds of the accesses are fetches between loads and stores, most
 * distances from the last address of any kind took 4 bytes.
 *
 * An access or compute of another tid or cpu than the chunk's first
 * event, and any other event, is written whole (48 bytes and its index).
 */
#define REC_KIND 0x03u
#define REC_OTHER 0x03u
#define REC_GAP1 0x04u
#define REC_WHOLE 0x08u
#define REC_SIZE_SHIFT 4
#define REC_SIZE_MASK 0x70u
#define REC_BASE2 0x80u
/* Distances (zigzag) below it continue a region: varints of 1 or 2 bytes. */
#define REC_NEAR (1u << 14)
/* The largest record: a whole event and its index after the header. */
#define REC_MAX (1 + sizeof(struct tlbsim_event) + sizeof(uint64_t))
/* Zero bytes kept after a chunk's records, so that a compact record (at
 * most 1 + 3 varints, 31 bytes) started inside them is read without a
 * bounds check per byte; a damaged one then fails the final length test. */
#define REC_PAD 32

/* Make *@buf hold @need bytes, at least doubling it. */
static bool buf_reserve(unsigned char **buf, size_t *cap, size_t need)
{
	size_t c = *cap ? 2 * *cap : 16384;
	unsigned char *n;

	if (need <= *cap)
		return true;
	if (c < need)
		c = need;
	n = realloc(*buf, c);
	if (!n)
		return false;
	*buf = n;
	*cap = c;
	return true;
}

/* The header's size code of an access of @size bytes: log2(size) + 1 for
 * a power of two up to 64, else 0 (the size follows as a varint). */
static inline unsigned size_code(uint32_t size)
{
	static const uint8_t code[65] = {[1] = 1, [2] = 2, [4] = 3, [8] = 4,
					 [16] = 5, [32] = 6, [64] = 7};

	return size <= 64 ? code[size] : 0;
}

/*
 * Appends @m events @ev, with trace indices @idx, @idx + 1, ..., to @q's
 * open chunk, which has room for @m * REC_MAX + REC_PAD bytes more and
 * for @m events.  Runs of the refill are long: the chunk's state is kept
 * in locals for the whole loop (the byte stores could alias it).
 */
static void spill_put(struct os_evq *q, const struct tlbsim_event *ev, uint64_t idx, uint32_t m)
{
	struct os_evq_chunk *w = &q->w;
	unsigned char *p = w->buf + w->bytes;
	uint64_t last = q->w_idx, b0 = q->w_va[0], b1 = q->w_va[1], bf = q->w_va[2];
	uint32_t tid, i;
	uint16_t cpu;

	if (!w->n) {
		w->idx0 = idx;
		w->tid = ev->tid;
		w->cpu = ev->cpu;
		last = idx - 1;
		b0 = b1 = bf = 0;
	}
	tid = w->tid;
	cpu = w->cpu;
	for (i = 0; i < m; i++, idx++) {
		const struct tlbsim_event *e = &ev[i];
		const unsigned kind = e->kind;
		const bool own = e->tid == tid && e->cpu == cpu;
		uint64_t gap = idx - last;
		unsigned h = gap == 1 ? REC_GAP1 : 0;

		last = idx;
		if (own && tlbsim_event_is_access(kind)) {
			const uint32_t size = e->access.size;
			const unsigned sc = size_code(size);
			uint64_t a = e->access.va, z, z1;

			h |= (kind - TLBSIM_EV_LOAD) | sc << REC_SIZE_SHIFT;
			if (kind == TLBSIM_EV_FETCH) {
				z = native_zigzag(a - bf);
				bf = a;
			} else if ((z = native_zigzag(a - b0)) < REC_NEAR) {
				b0 = a;
			} else if ((z1 = native_zigzag(a - b1)) < REC_NEAR) {
				h |= REC_BASE2;
				z = z1;
				b1 = b0;
				b0 = a;
			} else {
				b1 = b0;
				b0 = a;
			}
			*p++ = (unsigned char)h;
			if (gap != 1)
				p = native_put_varint(p, gap);
			if (!sc)
				p = native_put_varint(p, size);
			p = native_put_varint(p, z);
		} else if (own && kind == TLBSIM_EV_COMPUTE) {
			*p++ = (unsigned char)(h | REC_OTHER);
			if (gap != 1)
				p = native_put_varint(p, gap);
			p = native_put_varint(p, e->compute.count);
			*p++ = e->compute.unit;
		} else {
			*p++ = (unsigned char)(REC_OTHER | REC_WHOLE);
			memcpy(p, e, sizeof(*e));
			memcpy(p + sizeof(*e), &idx, sizeof(idx));
			p += sizeof(*e) + sizeof(idx);
		}
	}
	q->w_idx = last;
	q->w_va[0] = b0;
	q->w_va[1] = b1;
	q->w_va[2] = bf;
	w->bytes = (uint32_t)(p - w->buf);
	w->n += m;
	q->spilled += m;
}

/* Where the decoding of a chunk's records stands. */
struct spill_cursor {
	const unsigned char *p, *end;
	uint64_t idx, b0, b1, bf;
	uint32_t tid;
	uint16_t cpu;
};

/* Decodes the next @n records at @cur into @ev[0, n) and @idx[0, n);
 * false if they are not @n whole records. */
static bool spill_decode_run(struct spill_cursor *cur, struct tlbsim_event *ev, uint64_t *idxs,
			     uint32_t n)
{
	const unsigned char *p = cur->p, *const end = cur->end;
	uint64_t idx = cur->idx, b0 = cur->b0, b1 = cur->b1, bf = cur->bf, v;
	const uint32_t tid = cur->tid;
	const uint16_t cpu = cur->cpu;
	uint32_t i;
	bool ok = false;

	for (i = 0; i < n; i++, ev++) {
		unsigned h;

		if (p >= end)
			goto out;
		h = *p++;
		if (h == (REC_OTHER | REC_WHOLE)) {
			if ((size_t)(end - p) < sizeof(*ev) + sizeof(idx))
				goto out;
			memcpy(ev, p, sizeof(*ev));
			memcpy(&idx, p + sizeof(*ev), sizeof(idx));
			p += sizeof(*ev) + sizeof(idx);
			idxs[i] = idx;
			continue;
		}
		if (h & REC_GAP1) {
			idx++;
		} else {
			if (!(p = native_varint_in_window(p, &v)))
				goto out;
			idx += v;
		}
		idxs[i] = idx;
		memset(ev, 0, sizeof(*ev));
		ev->cpu = cpu;
		ev->tid = tid;
		if ((h & REC_KIND) == REC_OTHER) {
			if (h & ~(REC_KIND | REC_GAP1) || !(p = native_varint_in_window(p, &v)))
				goto out;
			ev->kind = TLBSIM_EV_COMPUTE;
			ev->compute.count = v;
			ev->compute.unit = *p++;
			continue;
		}
		ev->kind = (uint8_t)(TLBSIM_EV_LOAD + (h & REC_KIND));
		if (h & REC_SIZE_MASK) {
			ev->access.size = 1u << (((h & REC_SIZE_MASK) >> REC_SIZE_SHIFT) - 1);
		} else {
			if (!(p = native_varint_in_window(p, &v)) || v > UINT32_MAX)
				goto out;
			ev->access.size = (uint32_t)v;
		}
		if (!(p = native_varint_in_window(p, &v)))
			goto out;
		if ((h & REC_KIND) == TLBSIM_EV_FETCH - TLBSIM_EV_LOAD) {
			if (h & REC_BASE2)
				goto out;
			bf = ev->access.va = bf + native_unzigzag(v);
			continue;
		}
		if (h & REC_BASE2) {
			if (v >= REC_NEAR)
				goto out;
			ev->access.va = b1 + native_unzigzag(v);
			b1 = b0;
		} else {
			ev->access.va = b0 + native_unzigzag(v);
			if (v >= REC_NEAR)
				b1 = b0;
		}
		b0 = ev->access.va;
	}
	ok = true;
out:
	cur->p = p;
	cur->idx = idx;
	cur->b0 = b0;
	cur->b1 = b1;
	cur->bf = bf;
	return ok;
}

/* Decodes the records of chunk @c at @in (followed by REC_PAD zero
 * bytes) into @q's ring from slot @at on, in two runs where it wraps
 * around the ring's end; false if they do not hold @c's events. */
static bool spill_decode(struct os_evq *q, const struct os_evq_chunk *c, const unsigned char *in,
			 uint32_t at)
{
	struct spill_cursor cur = {in, in + c->bytes, c->idx0 - 1, 0, 0, 0, c->tid, c->cpu};
	uint32_t first = c->n < q->cap - at ? c->n : q->cap - at;

	return spill_decode_run(&cur, &q->ev[at], &q->idx[at], first) &&
	       spill_decode_run(&cur, q->ev, q->idx, c->n - first) && cur.p == cur.end;
}

/*
 * The chunks a queue keeps in memory live in one ring of bytes per queue,
 * in the order they are read back (oldest first): a chunk is put at the
 * tail, or at the start when it does not fit before the end, and the
 * oldest one is freed by moving the head past it.  A queue that spills
 * far keeps tens of MiB there (the recorded sample: 35 MiB at its peak);
 * one malloc() per chunk touched each page of that afresh, a fault of a
 * few microseconds each on a virtual machine, a fifth of the run.  A ring
 * of 2 MiB or more asks for transparent huge pages (madvise(2)
 * MADV_HUGEPAGE, a hint: where refused it has 4 KiB pages), one fault per
 * 2 MiB.  It grows by doubling: the chunks are copied, in order, to the
 * start of the new ring.  Only the queue's own cpu touches it.
 */
#define STORE_MIN (64u << 10)
#define STORE_HUGE (2u << 20)

static unsigned char *store_new(size_t cap)
{
	unsigned char *p;

	if (cap < STORE_HUGE)
		return malloc(cap);
	if (!(p = aligned_alloc(STORE_HUGE, cap)))
		return NULL;
#ifdef MADV_HUGEPAGE
	(void)madvise(p, cap, MADV_HUGEPAGE);
#endif
	return p;
}

/* Moves @q's chunks in memory to a new ring of at least @need bytes more. */
static bool store_grow(struct os_evq *q, size_t need)
{
	size_t cap = q->store_cap ? 2 * q->store_cap : STORE_MIN, at = 0;
	unsigned char *n;
	uint32_t i;

	while (cap < 2 * need + q->store_cap)
		cap *= 2;
	if (!(n = store_new(cap)))
		return false;
	for (i = 0; i < q->nr_chunks; i++) {
		struct os_evq_chunk *c = &q->chunks[(q->chunk_head + i) % q->cap_chunks];

		if (!c->buf)
			continue;
		memcpy(n + at, c->buf, c->bytes + REC_PAD);
		c->buf = n + at;
		at += c->bytes + REC_PAD;
	}
	free(q->store);
	q->store = n;
	q->store_cap = cap;
	q->store_head = 0;
	q->store_tail = at;
	return true;
}

/* Room for @len bytes at @q's ring's tail: NULL if out of memory. */
static unsigned char *store_alloc(struct os_evq *q, size_t len)
{
	size_t at;

	if (!q->store_live)
		q->store_head = q->store_tail = 0;
	if (q->store_tail >= q->store_head && q->store_cap - q->store_tail >= len)
		at = q->store_tail; /* after the newest, before the end */
	else if (q->store_tail >= q->store_head && len < q->store_head)
		at = 0; /* wraps: the gap before the end stays unused */
	else if (q->store_tail < q->store_head && q->store_head - q->store_tail > len)
		at = q->store_tail; /* wrapped: between the newest and the oldest */
	else if (store_grow(q, len))
		at = q->store_tail;
	else
		return NULL;
	q->store_tail = at + len;
	q->store_live++;
	return q->store + at;
}

/* Frees @c, @q's oldest chunk in memory. */
static void store_free_oldest(struct os_evq *q, const struct os_evq_chunk *c)
{
	q->store_head = (size_t)(c->buf - q->store) + c->bytes + REC_PAD;
	q->store_live--;
}

/* The open chunk of @q is complete: it goes to the end of the file, or
 * stays in memory while the chunks there hold under @sp->mem_cap bytes,
 * where there is no file, or once a write to it failed (a full disk). */
static int spill_flush(struct os_spill *sp, struct os_evq *q)
{
	struct os_evq_chunk *c;
	uint64_t held = atomic_load_explicit(&sp->mem_bytes, memory_order_relaxed);
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
	c = &q->chunks[(q->chunk_head + q->nr_chunks) % q->cap_chunks];
	*c = q->w;
	c->buf = NULL;
	if (held + c->bytes > sp->mem_cap && spill_open(sp)) {
		if (!(e = write_all(sp->fd, q->w.buf, c->bytes, sp->end))) {
			c->off = sp->end;
			sp->end += c->bytes;
			sp->written += c->n;
			goto done;
		}
		sp->full = e;
		snprintf(sp->full_why, sizeof(sp->full_why), "write: %s", strerror(e));
	}
	if (!(c->buf = store_alloc(q, c->bytes + REC_PAD)))
		return -TLBSIM_ENOMEM;
	memcpy(c->buf, q->w.buf, c->bytes);
	memset(c->buf + c->bytes, 0, REC_PAD);
	atomic_fetch_add_explicit(&sp->mem_bytes, c->bytes, memory_order_relaxed);
	sp->kept += c->n;
done:
	q->nr_chunks++;
	q->w.n = 0;
	q->w.bytes = 0;
	return 0;
}

/* Make room in @q's open chunk for up to @m more events, completing it
 * first when it holds EVQ_CHUNK: returns how many it has room for (at
 * least 1), or -TLBSIM_ENOMEM. */
static int64_t spill_room(struct os_spill *sp, struct os_evq *q, uint32_t m)
{
	int rc;

	if (q->w.n == EVQ_CHUNK && (rc = spill_flush(sp, q)))
		return rc;
	if (m > EVQ_CHUNK - q->w.n)
		m = EVQ_CHUNK - q->w.n;
	if (!buf_reserve(&q->w.buf, &q->w_cap, q->w.bytes + (size_t)m * REC_MAX + REC_PAD))
		return -TLBSIM_ENOMEM;
	return m;
}

int os_evq_push(struct os_spill *sp, struct os_evq *q, const struct tlbsim_event *ev, uint64_t idx)
{
	int64_t m;

	if (os_evq_push_fast(sp, q, ev, idx))
		return 0;
	if (!q->spilled && (q->n < OS_EVQ_KEEP || (sp->mem < sp->budget && q->cap < sp->budget))) {
		/* Stays in memory: the ring is full.  It grows to hold the
		 * budget at most: a larger one would mostly stay empty once
		 * the budget is shared, and its pages cost a fault each. */
		if (!ring_reserve(q, q->n + 1))
			return -TLBSIM_ENOMEM;
		os_evq_ring_put(sp, q, ev, idx);
		return 0;
	}
	q->sp = sp;
	if ((m = spill_room(sp, q, 1)) < 0)
		return (int)m;
	spill_put(q, ev, idx, 1);
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
			/* In the same two pieces, which the compiler vectorises
			 * (an index wrapped by a mask it does not). */
			for (j = 0; j < first; j++)
				q->idx[at + j] = idx + i + j;
			for (j = first; j < m; j++)
				q->idx[j - first] = idx + i + j;
			q->n += m;
			sp->mem += m;
			sp->pushed += m;
			i += m;
			if (m)
				continue;
		} else if (q->spilled) {
			/* os_evq_push() appends to the open chunk. */
			int64_t r = spill_room(sp, q, k - i);

			if (r < 0) {
				*done = i;
				return (int)r;
			}
			spill_put(q, &ev[i], idx + i, (uint32_t)r);
			i += (uint32_t)r;
			continue;
		}
		rc = os_evq_push(sp, q, &ev[i], idx + i);
		if (rc) {
			*done = i;
			return rc;
		}
		i++;
	}
	*done = k;
	return 0;
}

/* Bring spilled events back into memory: the oldest chunk, else the open
 * one.  Parallel phase: touches only @q, @sp's counter of bytes in memory
 * (atomically), and reads the file. */
void os_evq_unspill(struct os_evq *q)
{
	struct os_spill *sp = q->sp;
	struct os_evq_chunk *c = q->nr_chunks ? &q->chunks[q->chunk_head] : &q->w;
	const unsigned char *in = c->buf;
	uint32_t at;
	int e = 0;

	if (!ring_reserve(q, q->n + c->n)) {
		spill_fail(sp, "read back", ENOMEM);
		return;
	}
	at = (q->head + q->n) & (q->cap - 1);
	if (c == &q->w) {
		memset(q->w.buf + c->bytes, 0, REC_PAD);
	} else if (!in) {
		if (!buf_reserve(&q->rbuf, &q->rbuf_cap, (size_t)c->bytes + REC_PAD))
			e = ENOMEM;
		else if (!(e = read_all(sp->fd, q->rbuf, c->bytes, c->off)))
			memset(q->rbuf + c->bytes, 0, REC_PAD);
		in = q->rbuf;
	}
	if (!e && !spill_decode(q, c, in, at))
		e = EIO;
	if (e) {
		spill_fail(sp, in == q->rbuf ? "read back from the file" : "read back from memory", e);
		return;
	}
	q->n += c->n;
	q->spilled -= c->n;
	if (c == &q->w) {
		c->n = 0;
		c->bytes = 0;
		return;
	}
	if (c->buf) {
		atomic_fetch_sub_explicit(&sp->mem_bytes, c->bytes, memory_order_relaxed);
		store_free_oldest(q, c);
	} else {
#ifdef FALLOC_FL_PUNCH_HOLE
		/* Give the chunk's blocks back: the file holds only what is
		 * still spilled (best effort: a file system without holes
		 * keeps them until the end). */
		(void)fallocate(sp->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)c->off,
				(off_t)c->bytes);
#endif
	}
	q->chunk_head = (q->chunk_head + 1) % q->cap_chunks;
	q->nr_chunks--;
}

void os_evq_free(struct os_evq *q)
{
	uint32_t i;

	for (i = 0; i < q->nr_chunks; i++) {
		struct os_evq_chunk *c = &q->chunks[(q->chunk_head + i) % q->cap_chunks];

		if (c->buf)
			atomic_fetch_sub_explicit(&q->sp->mem_bytes, c->bytes, memory_order_relaxed);
	}
	free(q->store);
	free(q->ev);
	free(q->idx);
	free(q->w.buf);
	free(q->rbuf);
	free(q->chunks);
	memset(q, 0, sizeof(*q));
}

void os_spill_init(struct os_spill *sp)
{
	memset(sp, 0, sizeof(*sp));
	sp->fd = -1;
	sp->budget = OS_SPILL_BUDGET;
	sp->mem_cap = OS_SPILL_MEM;
}

void os_spill_fini(struct os_spill *sp)
{
	if (sp->fd >= 0)
		close(sp->fd);
	sp->fd = -1;
}
