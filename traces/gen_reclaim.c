/* SPDX-License-Identifier: MIT */
/*
 * reclaim: page reclaim by kswapd against a running multi-threaded
 * process, the workload of the reclaim/mprotect race (Linux mm/rmap.c
 * try_to_unmap_one() with the batched flush, commit 3ea277194daa; Nadav
 * Amit's report): each of @threads threads keeps writing its own @pages
 * pages and write-protecting them and back (a copy-on-write snapshotter,
 * a JIT flipping code pages), while a kernel thread (kswapd) reclaims the
 * whole buffer every @interval cycles, @rounds times.  The writers fault
 * the reclaimed pages back in; their mprotect calls find PTEs that
 * reclaim cleared with the flush still batched (flush_tlb_batched_pending()).
 *
 * Parameters: threads, pages (per thread), loops (rounds of a writer),
 * rounds (of kswapd), interval (cycles kswapd sleeps between them).
 *
 * Events (A = TRACE_VA_BASE, size = pages * 4 KiB, tids 1..threads + 1
 * for the process, threads + 2 for kswapd):
 *   main:    PROC_CREATE, MMAP A threads*size rw, KTHREAD_CREATE kswapd,
 *            THREAD_CREATE x threads, SLEEP x threads, EXIT
 *   writer k: loops x { STORE each of its pages, MPROTECT r, MPROTECT rw },
 *            WAKE main, EXIT
 *   kswapd:  rounds x { COMPUTE interval, RECLAIM pid 1 [A, A + threads*size),
 *            RECLAIM_FLUSH }, EXIT
 * Totals: 1 PROC_CREATE, 1 MMAP, 1 KTHREAD_CREATE, threads THREAD_CREATE,
 * threads SLEEP, threads WAKE, threads + 2 EXIT, threads*loops*pages STORE,
 * 2*threads*loops MPROTECT, rounds each of COMPUTE, RECLAIM, RECLAIM_FLUSH.
 */
#include "traces/generators.h"
#include "traces/workload.h"

enum { P_THREADS, P_PAGES, P_LOOPS, P_ROUNDS, P_INTERVAL, NR_P };

static const struct tlbsim_gen_param params[NR_P] = {
    [P_THREADS] = {"threads", "writer threads of the process", 4, 1, 1024, "threads"},
    [P_PAGES] = {"pages", "4 KiB pages each writer owns", 16, 1, 1u << 20, "pages"},
    [P_LOOPS] = {"loops", "rounds of a writer: write its pages, mprotect r, rw", 100, 1, 1ull << 40,
		 "rounds"},
    [P_ROUNDS] = {"rounds", "reclaims of the whole buffer by kswapd", 20, 1, 1ull << 40, "rounds"},
    [P_INTERVAL] = {"interval", "cycles kswapd waits before each reclaim", 100000, 0, 1ull << 32,
		    "cycles"},
};

struct rc {
	struct trace_sched s;
	unsigned threads;
	uint64_t pages, loops, rounds, interval;
};

enum { M_PROC, M_MMAP, M_KSWAPD, M_SPAWN, M_SLEEP, M_EXIT };
enum { W_STORE, W_RO, W_RW, W_WAKE, W_EXIT };
enum { K_COMPUTE, K_RECLAIM, K_FLUSH, K_EXIT };

static uint64_t buffer_len(const struct rc *r)
{
	return r->threads * r->pages * TRACE_PAGE;
}

static void main_step(struct rc *r, struct trace_actor *a, struct tlbsim_event *ev)
{
	switch (a->phase) {
	case M_PROC:
		trace_ev_proc_create(ev, a);
		a->phase = M_MMAP;
		break;
	case M_MMAP:
		trace_ev_mmap(ev, a, TRACE_VA_BASE, buffer_len(r), TRACE_RW, TRACE_ANON);
		a->phase = M_KSWAPD;
		break;
	case M_KSWAPD:
		trace_ev_kthread_spawn(&r->s, ev, a, &r->s.a[r->threads + 1]);
		a->phase = M_SPAWN;
		break;
	case M_SPAWN:
		trace_ev_spawn(&r->s, ev, a, &r->s.a[1 + a->i], false);
		if (++a->i == r->threads) {
			a->i = 0;
			a->phase = M_SLEEP;
		}
		break;
	case M_SLEEP:
		trace_ev_sleep(ev, a);
		if (++a->i == r->threads)
			a->phase = M_EXIT;
		break;
	default:
		trace_ev_exit(&r->s, ev, a);
		break;
	}
}

static void writer(struct rc *r, struct trace_actor *a, struct tlbsim_event *ev)
{
	uint64_t base = TRACE_VA_BASE + (uint64_t)(a - r->s.a - 1) * r->pages * TRACE_PAGE;
	uint64_t len = r->pages * TRACE_PAGE;

	switch (a->phase) {
	case W_STORE:
		trace_ev_access(ev, a, TLBSIM_EV_STORE, base + a->j * TRACE_PAGE, 8);
		if (++a->j == r->pages) {
			a->j = 0;
			a->phase = W_RO;
		}
		break;
	case W_RO:
		trace_ev_mprotect(ev, a, base, len, TLBSIM_PROT_READ);
		a->phase = W_RW;
		break;
	case W_RW:
		trace_ev_mprotect(ev, a, base, len, TRACE_RW);
		a->phase = ++a->i == r->loops ? W_WAKE : W_STORE;
		break;
	default:
		trace_harness_worker_end(&r->s, a, ev, W_EXIT);
		break;
	}
}

static void kswapd(struct rc *r, struct trace_actor *a, struct tlbsim_event *ev)
{
	switch (a->phase) {
	case K_COMPUTE:
		trace_ev_compute(ev, a, r->interval);
		a->phase = K_RECLAIM;
		break;
	case K_RECLAIM:
		trace_ev_reclaim(ev, a, r->s.a[0].pid, TRACE_VA_BASE, buffer_len(r));
		a->phase = K_FLUSH;
		break;
	case K_FLUSH:
		trace_ev_reclaim_flush(ev, a);
		a->phase = ++a->i == r->rounds ? K_EXIT : K_COMPUTE;
		break;
	default:
		trace_ev_exit(&r->s, ev, a);
		break;
	}
}

static void step(void *g, struct trace_actor *a, struct tlbsim_event *ev)
{
	struct rc *r = g;
	unsigned k = (unsigned)(a - r->s.a);

	if (k == 0)
		main_step(r, a, ev);
	else if (k <= r->threads)
		writer(r, a, ev);
	else
		kswapd(r, a, ev);
}

static int init(void *state, const uint64_t *v, uint64_t seed, enum tlbsim_isa isa)
{
	struct rc *r = state;
	int rc;

	(void)seed;
	(void)isa;
	r->threads = (unsigned)v[P_THREADS];
	r->pages = v[P_PAGES];
	r->loops = v[P_LOOPS];
	r->rounds = v[P_ROUNDS];
	r->interval = v[P_INTERVAL];
	/* At most 1024 * 2^20 pages: 4 TiB, inside TRACE_VA_BASE's 80. */
	rc = trace_sched_init(&r->s, r->threads + 2, step, r);
	if (rc)
		return rc;
	for (unsigned k = 0; k <= r->threads; k++) {
		r->s.a[k].pid = 1;
		r->s.a[k].tid = k + 1;
	}
	r->s.a[r->threads + 1].tid = r->threads + 2;
	return 0;
}

const struct tlbsim_generator trace_gen_reclaim = {
    .name = "reclaim",
    .summary = "kswapd reclaiming the pages of threads that write and mprotect them",
    .models = "page reclaim's batched flush against mprotect (Linux mm/rmap.c, 3ea277194daa)",
    .params = params,
    .nr_params = NR_P,
    .state_size = sizeof(struct rc),
    .init = init,
    .next = trace_gen_next,
    .fini = trace_gen_fini,
};
