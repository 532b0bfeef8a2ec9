/* SPDX-License-Identifier: MIT */
/*
 * munmap-churn: will-it-scale's malloc1_threads (tests/malloc1.c: malloc()
 * and free() of 128 MiB in a loop) and Vitaly's reproducer of the RCU
 * table-free slowdown (WORKLOADS.md 7: 16 threads, unpinned, each 10,000
 * times p = malloc(128 MiB); free(p)), optionally with the memory used in
 * between.
 * glibc serves a request this large (above M_MMAP_THRESHOLD) with its own
 * mmap() and free() returns it with munmap() (malloc/malloc.c sysmalloc(),
 * munmap_chunk()): the mapping is @size plus the chunk header, rounded up to
 * a page, i.e. @size + 4 KiB for a page-multiple @size, and malloc writes
 * the header (prev_size, size) at its start, so even an unused block has
 * one page populated.  The user pointer is 16 bytes in.
 *
 * Both programs touch nothing else (touch=0, the default): each round
 * faults in the header's page and the page-table pages that reach it, and
 * each munmap frees that one data page and those tables (a flush with
 * freed_tables).  touch=1 also writes every page of the block once (a
 * memset() of it: one store per page, the memset's other stores hit the
 * same page), touch=k every k-th page.  Threads are created pinned and
 * joined as will-it-scale's main.c does (traces/workload.h harness;
 * @cpus: thread i on cpu i mod cpus, 0: cpu i), or with pin=0 unpinned,
 * placed by the scheduler (Vitaly's reproducer).  Each thread's block has
 * its own fixed place, side by side.  No COMPUTE: the loop does nothing
 * else.
 *
 * Parameters: threads, size (bytes per malloc, rounded up to 4 KiB),
 * touch (page stride of the writes; 0: none), loops (malloc/free pairs per
 * thread), cpus, pin (1: pinned, 0: placed by the scheduler).
 *
 * Events (len = size + 4 KiB, n = size / 4 KiB, touches = ceil(n / touch)
 * or 0; worker w is tid w + 2, B_w = TRACE_VA_BASE + w * len):
 *   main:    PROC_CREATE, THREAD_CREATE x threads, SLEEP x threads, EXIT
 *   worker:  [SWITCH cpu if pin], loops x { MMAP B_w len rw, STORE B_w (header),
 *              STORE B_w + 16 + k*touch*4K for k < touches,
 *              MUNMAP B_w len }, WAKE main, EXIT
 * Totals: 1 PROC_CREATE, threads x (THREAD_CREATE, SLEEP, WAKE, and SWITCH
 * if pin), threads + 1 EXIT, threads * loops x (MMAP, MUNMAP, 1 + touches
 * STORE).
 */
#include "traces/generators.h"
#include "traces/workload.h"

enum { P_THREADS, P_SIZE, P_TOUCH, P_LOOPS, P_CPUS, P_PIN, NR_P };

static const struct tlbsim_gen_param params[NR_P] = {
    [P_THREADS] = {"threads", "worker threads of the one process", 4, 1, 1024, "threads"},
    [P_SIZE] = {"size", "bytes per malloc", 128ull << 20, 1, 1ull << 32, "bytes"},
    [P_TOUCH] = {"touch", "write every touch-th page of a block (0: only the header)", 0, 0,
		 1u << 20, "pages"},
    [P_LOOPS] = {"loops", "malloc/free pairs per thread", 10, 1, 1ull << 40, "pairs"},
    [P_CPUS] = {"cpus", "pin thread i to cpu i mod cpus (0: cpu i)", 0, 0, 4096, "cpus"},
    [P_PIN] = {"pin", "1: threads pinned (will-it-scale), 0: placed by the scheduler", 1, 0, 1,
	       "0/1"},
};

/* glibc's mmapped chunk: a 16-byte header (prev_size, size) before the
 * user data, the whole rounded up to a page (malloc/malloc.c). */
#define CHUNK_HEADER 16

struct mc {
	struct trace_sched s;
	unsigned threads, cpus;
	bool pin;
	uint64_t len, touches, touch, loops;
};

enum { W_PIN, W_MMAP, W_HEADER, W_TOUCH, W_MUNMAP, W_WAKE, W_EXIT };

static void worker(void *g, struct trace_actor *a, struct tlbsim_event *ev)
{
	struct mc *m = g;
	unsigned w = (unsigned)(a - m->s.a) - 1;
	uint64_t b = TRACE_VA_BASE + w * m->len;

	switch (a->phase) {
	case W_PIN:
		a->phase = W_MMAP;
		if (m->pin)
			trace_ev_pin(ev, a, m->cpus ? w % m->cpus : w);
		else
			worker(g, a, ev); /* unpinned: the first event is the mmap */
		break;
	case W_MMAP:
		trace_ev_mmap(ev, a, b, m->len, TRACE_RW, TRACE_ANON);
		a->phase = W_HEADER;
		break;
	case W_HEADER:
		trace_ev_access(ev, a, TLBSIM_EV_STORE, b, 16);
		a->j = 0;
		a->phase = m->touches ? W_TOUCH : W_MUNMAP;
		break;
	case W_TOUCH:
		trace_ev_access(ev, a, TLBSIM_EV_STORE,
				b + CHUNK_HEADER + a->j * m->touch * TRACE_PAGE, 8);
		if (++a->j == m->touches)
			a->phase = W_MUNMAP;
		break;
	case W_MUNMAP:
		trace_ev_munmap(ev, a, b, m->len);
		a->phase = ++a->i == m->loops ? W_WAKE : W_MMAP;
		break;
	default: /* W_WAKE, W_EXIT */
		trace_harness_worker_end(&m->s, a, ev, W_EXIT);
		break;
	}
}

static int init(void *state, const uint64_t *v, uint64_t seed, enum tlbsim_isa isa)
{
	struct mc *m = state;
	uint64_t size = trace_align_up(v[P_SIZE], TRACE_PAGE), n = size / TRACE_PAGE;

	(void)seed;
	(void)isa;
	m->threads = (unsigned)v[P_THREADS];
	m->cpus = (unsigned)v[P_CPUS];
	m->len = trace_align_up(size + CHUNK_HEADER, TRACE_PAGE);
	m->touch = v[P_TOUCH];
	m->touches = m->touch ? (n + m->touch - 1) / m->touch : 0;
	m->loops = v[P_LOOPS];
	m->pin = v[P_PIN] != 0;
	return trace_harness_init(&m->s, m->threads, worker, m);
}

const struct tlbsim_generator trace_gen_munmap_churn = {
    .name = "munmap-churn",
    .summary = "threads mallocing, writing and freeing large blocks (mmap/munmap)",
    .models = "will-it-scale malloc1_threads; Vitaly's malloc/free reproducer (WORKLOADS.md 7)",
    .params = params,
    .nr_params = NR_P,
    .state_size = sizeof(struct mc),
    .init = init,
    .next = trace_gen_next,
    .fini = trace_gen_fini,
};
