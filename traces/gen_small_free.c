/* SPDX-License-Identifier: MIT */
/*
 * small-free: a multi-threaded program on an allocator that returns freed
 * memory to the kernel page by page with madvise(MADV_DONTNEED), as
 * jemalloc and tcmalloc purge dirty pages of freed extents: every free of
 * a page-sized or larger object becomes a small zap of present PTEs, and so
 * a TLB flush of the process on every cpu it runs on.
 *
 * Each of @threads threads (not pinned; created and joined by a main
 * thread, traces/workload.h harness) maps its own arena once, then
 * allocates @ops objects of a random whole number of 4 KiB pages between
 * @min and @max bytes (seeded splitmix64), writes each page of the object
 * (the first write after a purge faults a fresh page in), works on it for
 * @compute cycles per page, and keeps the last @live objects: allocating
 * one more frees the oldest (FIFO), which purges its pages with
 * madvise(DONTNEED).  Objects are placed one after another in the arena,
 * wrapping to its start when the next does not fit; the arena,
 * (live + 2) * max bytes, is large enough that live objects never overlap
 * (all arenas must fit in TRACE_VA_SPAN).
 * At the end the thread unmaps its arena.
 *
 * Parameters: threads, ops (objects per thread), min, max (bytes per
 * object, rounded up to 4 KiB), live (objects kept per thread), compute
 * (cycles per page of an object).
 *
 * Events (worker w is tid w + 2; its arena R_w = TRACE_VA_BASE + w *
 * arena; pages(o) is object o's size in pages):
 *   main:   PROC_CREATE, THREAD_CREATE x threads, SLEEP x threads, EXIT
 *   worker: MMAP R_w arena rw, ops x { STORE each page of the object,
 *           [COMPUTE pages*compute], [MADVISE oldest dontneed if more than
 *           live objects] }, MUNMAP R_w arena, WAKE main, EXIT
 * Per worker: 1 MMAP, sum pages(o) STORE, ops COMPUTE if compute,
 * max(0, ops - live) MADVISE, 1 MUNMAP, 1 WAKE, 1 EXIT.
 */
#include <stdio.h>
#include <stdlib.h>

#include "hw/tlb.h"
#include "tlbsim/error.h"
#include "traces/generators.h"
#include "traces/workload.h"

enum { P_THREADS, P_OPS, P_MIN, P_MAX, P_LIVE, P_COMPUTE, NR_P };

static const struct tlbsim_gen_param params[NR_P] = {
    [P_THREADS] = {"threads", "threads allocating and freeing", 8, 1, 1024, "threads"},
    [P_OPS] = {"ops", "objects each thread allocates", 1000, 1, 1ull << 40, "objects"},
    [P_MIN] = {"min", "smallest object, bytes", 4096, 1, 1ull << 30, "bytes"},
    [P_MAX] = {"max", "largest object, bytes", 64u << 10, 1, 1ull << 30, "bytes"},
    [P_LIVE] = {"live", "objects each thread keeps before freeing the oldest", 16, 1, 4096,
		"objects"},
    [P_COMPUTE] = {"compute", "cycles of work per page of an object", 1000, 0, 1u << 30, "cycles"},
};

/* One live object: its offset in the arena and its size. */
struct obj {
	uint64_t off, pages;
};

/* A worker's allocator: the FIFO of live objects, a ring of live + 1. */
struct arena {
	struct obj *ring;
	unsigned head, n;
	uint64_t pos;
};

struct sf {
	struct trace_sched s;
	unsigned threads, live;
	uint64_t ops, min_pages, max_pages, compute, arena_len;
	uint64_t rng;
	struct arena *ar;
};

enum { W_MMAP, W_ALLOC, W_WRITE, W_COMPUTE, W_FREE, W_MUNMAP, W_WAKE, W_EXIT };

/* The newest object. */
static struct obj *newest(struct sf *m, struct arena *ar)
{
	return &ar->ring[(ar->head + ar->n - 1) % (m->live + 1)];
}

/* After an object's writes and compute: free the oldest if over @live. */
static unsigned after_use(struct sf *m, struct trace_actor *a, struct arena *ar)
{
	if (ar->n > m->live)
		return W_FREE;
	return ++a->i == m->ops ? W_MUNMAP : W_ALLOC;
}

static void worker(void *g, struct trace_actor *a, struct tlbsim_event *ev)
{
	struct sf *m = g;
	unsigned w = (unsigned)(a - m->s.a) - 1;
	struct arena *ar = &m->ar[w];
	uint64_t r = TRACE_VA_BASE + w * m->arena_len, pages;
	struct obj *o;

	switch (a->phase) {
	case W_MMAP:
		trace_ev_mmap(ev, a, r, m->arena_len, TRACE_RW, TRACE_ANON);
		a->phase = W_ALLOC;
		break;
	case W_ALLOC:
		/* Place the object, then write its first page. */
		pages = m->min_pages + hw_splitmix64(&m->rng) % (m->max_pages - m->min_pages + 1);
		if (ar->pos + pages * TRACE_PAGE > m->arena_len)
			ar->pos = 0;
		ar->n++;
		o = newest(m, ar);
		o->off = ar->pos;
		o->pages = pages;
		ar->pos += pages * TRACE_PAGE;
		a->j = 0;
		/* fall through */
	case W_WRITE:
		o = newest(m, ar);
		trace_ev_access(ev, a, TLBSIM_EV_STORE, r + o->off + a->j * TRACE_PAGE, 8);
		if (++a->j < o->pages)
			a->phase = W_WRITE;
		else
			a->phase = m->compute ? W_COMPUTE : after_use(m, a, ar);
		break;
	case W_COMPUTE:
		trace_ev_compute(ev, a, newest(m, ar)->pages * m->compute);
		a->phase = after_use(m, a, ar);
		break;
	case W_FREE:
		o = &ar->ring[ar->head];
		trace_ev_madvise(ev, a, r + o->off, o->pages * TRACE_PAGE, TLBSIM_MADV_DONTNEED);
		ar->head = (ar->head + 1) % (m->live + 1);
		ar->n--;
		a->phase = ++a->i == m->ops ? W_MUNMAP : W_ALLOC;
		break;
	case W_MUNMAP:
		trace_ev_munmap(ev, a, r, m->arena_len);
		a->phase = W_WAKE;
		break;
	default: /* W_WAKE, W_EXIT */
		trace_harness_worker_end(&m->s, a, ev, W_EXIT);
		break;
	}
}

static void fini(void *state)
{
	struct sf *m = state;
	unsigned w;

	if (m->ar)
		for (w = 0; w < m->threads; w++)
			free(m->ar[w].ring);
	free(m->ar);
	trace_sched_fini(&m->s);
}

/* Pages of an object of @bytes: sizes are drawn in whole pages. */
static uint64_t pages_of(uint64_t bytes)
{
	return trace_align_up(bytes, TRACE_PAGE) / TRACE_PAGE;
}

/* Bytes of one worker's arena: live objects never overlap (see above). */
static uint64_t arena_len(uint64_t live, uint64_t max_pages)
{
	return (live + 2) * max_pages * TRACE_PAGE;
}

/*
 * Sizes are drawn in whole pages, so min and max are compared once rounded
 * up: min=6000,max=5000 is accepted (2 pages each), min=8192,max=4096 is
 * not.  Every thread's arena must fit in TRACE_VA_SPAN:
 * threads=64,live=4096,max=1G would need 64 x 4098 GiB, about 256 TiB, of
 * the 64 TiB laid out.
 */
static int check(const uint64_t *v, char *msg, size_t size)
{
	uint64_t min_pages = pages_of(v[P_MIN]), max_pages = pages_of(v[P_MAX]);
	uint64_t len = arena_len(v[P_LIVE], max_pages);

	if (max_pages < min_pages) {
		snprintf(msg, size,
			 "min (%llu) must not exceed max (%llu): object sizes in bytes, rounded "
			 "up to 4 KiB pages (%llu pages > %llu)",
			 (unsigned long long)v[P_MIN], (unsigned long long)v[P_MAX],
			 (unsigned long long)min_pages, (unsigned long long)max_pages);
		return -TLBSIM_EINVAL;
	}
	if (len > TRACE_VA_SPAN / v[P_THREADS]) {
		snprintf(msg, size,
			 "threads (%llu) x (live (%llu) + 2) x max (%llu bytes) of arenas is "
			 "%.1f TiB of address space; at most %llu TiB expected (fewer threads or "
			 "live objects, or a smaller max)",
			 (unsigned long long)v[P_THREADS], (unsigned long long)v[P_LIVE],
			 (unsigned long long)v[P_MAX], (double)len * (double)v[P_THREADS] / 0x1p40,
			 (unsigned long long)(TRACE_VA_SPAN >> 40));
		return -TLBSIM_ERANGE;
	}
	return 0;
}

/* check() has passed. */
static int init(void *state, const uint64_t *v, uint64_t seed, enum tlbsim_isa isa)
{
	struct sf *m = state;
	unsigned w;

	(void)isa;
	m->threads = (unsigned)v[P_THREADS];
	m->ops = v[P_OPS];
	m->min_pages = pages_of(v[P_MIN]);
	m->max_pages = pages_of(v[P_MAX]);
	m->live = (unsigned)v[P_LIVE];
	m->compute = v[P_COMPUTE];
	m->arena_len = arena_len(m->live, m->max_pages);
	m->rng = seed;
	m->ar = calloc(m->threads, sizeof(*m->ar));
	if (!m->ar)
		return -TLBSIM_ENOMEM;
	for (w = 0; w < m->threads; w++) {
		m->ar[w].ring = calloc(m->live + 1, sizeof(*m->ar[w].ring));
		if (!m->ar[w].ring)
			return -TLBSIM_ENOMEM;
	}
	return trace_harness_init(&m->s, m->threads, worker, m);
}

const struct tlbsim_generator trace_gen_small_free = {
    .name = "small-free",
    .summary = "threads allocating page-sized objects and purging freed ones with madvise",
    .models = "a jemalloc/tcmalloc-style allocator purging freed pages (MADV_DONTNEED)",
    .params = params,
    .nr_params = NR_P,
    .state_size = sizeof(struct sf),
    .init = init,
    .next = trace_gen_next,
    .fini = fini,
    .check = check,
    .uses_seed = true,
};
