/* SPDX-License-Identifier: MIT */
/*
 * page-faults: will-it-scale's page_fault1_threads (tests/page_fault1.c):
 * each thread loops on: mmap @size bytes of private anonymous memory (128
 * MiB in the benchmark), write one byte at the start of every page (each a
 * first-touch fault: do_anonymous_page()), munmap it.  The munmap zaps
 * every PTE and frees the page tables, so each round ends with a flush of
 * the whole range.  Threads are created pinned and joined as
 * will-it-scale's main.c does (traces/workload.h harness; @cpus: thread i
 * on cpu i mod cpus, 0: cpu i); each thread's mapping has its own fixed
 * place, side by side.  No COMPUTE: the loop does nothing else.
 *
 * shared=1 is Christoph Lameter's pft (WORKLOADS.md 9) instead: the main
 * thread maps one region of @size bytes, the workers fault in a share each
 * (worker w the pages [w*n/threads, (w+1)*n/threads): contiguous shares,
 * sizes differing by at most one page), the main thread waits for all of
 * them, unmaps the region, and maps a fresh one for the next repetition.
 * Every fault is in the one VMA of the one region, so the mm-wide locks a
 * fault takes are the same for all threads.
 *
 * Parameters: threads, size (bytes per mapping, rounded up to 4 KiB; with
 * shared=1 the whole region), loops (mmap..munmap rounds: per thread, or
 * with shared=1 repetitions of the region), cpus, shared (0 or 1).
 *
 * Events (n = size / 4 KiB; worker w is tid w + 2,
 * R_w = TRACE_VA_BASE + w * size):
 *   main:    PROC_CREATE, THREAD_CREATE x threads, SLEEP x threads, EXIT
 *   worker:  SWITCH cpu, loops x { MMAP R_w size rw,
 *              STORE R_w + k*4K for k < n, MUNMAP R_w size },
 *            WAKE main, EXIT
 * Totals: 1 PROC_CREATE, threads x (THREAD_CREATE, SWITCH, SLEEP, WAKE),
 * threads + 1 EXIT, threads * loops x (MMAP, MUNMAP, n STORE).
 *
 * shared=1 (R = TRACE_VA_BASE, s_w = R + (w*n/threads)*4K, e_w its end):
 *   main:    PROC_CREATE, THREAD_CREATE x threads,
 *            loops x { MMAP R size rw, WAKE worker x threads,
 *                      SLEEP x threads, MUNMAP R size }, EXIT
 *   worker:  SWITCH cpu, loops x { SLEEP, STORE s_w + k*4K for s_w + k*4K
 *              < e_w, WAKE main }, EXIT
 * Totals: 1 PROC_CREATE, threads THREAD_CREATE and SWITCH, threads + 1
 * EXIT, loops x (MMAP, MUNMAP, n STORE, 2 x threads SLEEP and WAKE).
 */
#include "traces/generators.h"
#include "traces/workload.h"

enum { P_THREADS, P_SIZE, P_LOOPS, P_CPUS, P_SHARED, NR_P };

static const struct tlbsim_gen_param params[NR_P] = {
    [P_THREADS] = {"threads", "worker threads of the one process", 4, 1, 1024, "threads"},
    [P_SIZE] = {"size", "bytes each thread maps and faults in per round (shared=1: the region)",
		128ull << 20, 1, 1ull << 32, "bytes"},
    [P_LOOPS] = {"loops", "mmap..munmap rounds per thread (shared=1: of the region)", 4, 1,
		 1ull << 40, "rounds"},
    [P_CPUS] = {"cpus", "pin thread i to cpu i mod cpus (0: cpu i)", 0, 0, 4096, "cpus"},
    [P_SHARED] = {"shared", "1: pft, the main thread maps one region, each thread faults a share",
		  0, 0, 1, "flag"},
};

struct pf {
	struct trace_sched s;
	unsigned threads, cpus;
	uint64_t size, npages, loops;
};

enum { W_PIN, W_MMAP, W_TOUCH, W_MUNMAP, W_WAKE, W_EXIT };

static void worker(void *g, struct trace_actor *a, struct tlbsim_event *ev)
{
	struct pf *m = g;
	unsigned w = (unsigned)(a - m->s.a) - 1;
	uint64_t r = TRACE_VA_BASE + w * m->size;

	switch (a->phase) {
	case W_PIN:
		trace_ev_pin(ev, a, m->cpus ? w % m->cpus : w);
		a->phase = W_MMAP;
		break;
	case W_MMAP:
		trace_ev_mmap(ev, a, r, m->size, TRACE_RW, TRACE_ANON);
		a->j = 0;
		a->phase = W_TOUCH;
		break;
	case W_TOUCH:
		trace_ev_access(ev, a, TLBSIM_EV_STORE, r + a->j * TRACE_PAGE, 1);
		if (++a->j == m->npages)
			a->phase = W_MUNMAP;
		break;
	case W_MUNMAP:
		trace_ev_munmap(ev, a, r, m->size);
		a->phase = ++a->i == m->loops ? W_WAKE : W_MMAP;
		break;
	default: /* W_WAKE, W_EXIT */
		trace_harness_worker_end(&m->s, a, ev, W_EXIT);
		break;
	}
}

/* shared=1: worker @w's share of the region, pages [*first, *end). */
static void share(const struct pf *m, unsigned w, uint64_t *first, uint64_t *end)
{
	*first = w * m->npages / m->threads;
	*end = (w + 1) * m->npages / m->threads;
}

enum { S_PIN, S_WAIT, S_TOUCH, S_DONE, S_EXIT };

static void shared_worker(struct pf *m, struct trace_actor *a, struct tlbsim_event *ev)
{
	unsigned w = (unsigned)(a - m->s.a) - 1;
	uint64_t first, end;

	share(m, w, &first, &end);
	switch (a->phase) {
	case S_PIN:
		trace_ev_pin(ev, a, m->cpus ? w % m->cpus : w);
		a->phase = S_WAIT;
		break;
	case S_WAIT: /* until the main thread has mapped the region */
		trace_ev_sleep(ev, a);
		a->j = first;
		a->phase = first < end ? S_TOUCH : S_DONE;
		break;
	case S_TOUCH:
		trace_ev_access(ev, a, TLBSIM_EV_STORE, TRACE_VA_BASE + a->j * TRACE_PAGE, 1);
		if (++a->j == end)
			a->phase = S_DONE;
		break;
	case S_DONE:
		trace_ev_wake(ev, a, &m->s.a[0]);
		a->phase = ++a->i == m->loops ? S_EXIT : S_WAIT;
		break;
	default:
		trace_ev_exit(&m->s, ev, a);
		break;
	}
}

enum { M_START, M_SPAWN, M_MMAP, M_GO, M_JOIN, M_MUNMAP, M_EXIT };

static void shared_step(void *g, struct trace_actor *a, struct tlbsim_event *ev)
{
	struct pf *m = g;

	if (a != m->s.a) {
		shared_worker(m, a, ev);
		return;
	}
	switch (a->phase) {
	case M_START:
		trace_ev_proc_create(ev, a);
		a->phase = M_SPAWN;
		break;
	case M_SPAWN:
		trace_ev_spawn(&m->s, ev, a, &m->s.a[1 + a->j], false);
		if (++a->j == m->threads)
			a->phase = M_MMAP;
		break;
	case M_MMAP:
		trace_ev_mmap(ev, a, TRACE_VA_BASE, m->size, TRACE_RW, TRACE_ANON);
		a->j = 0;
		a->phase = M_GO;
		break;
	case M_GO:
		trace_ev_wake(ev, a, &m->s.a[1 + a->j]);
		if (++a->j == m->threads) {
			a->j = 0;
			a->phase = M_JOIN;
		}
		break;
	case M_JOIN:
		trace_ev_sleep(ev, a);
		if (++a->j == m->threads)
			a->phase = M_MUNMAP;
		break;
	case M_MUNMAP:
		trace_ev_munmap(ev, a, TRACE_VA_BASE, m->size);
		a->phase = ++a->i == m->loops ? M_EXIT : M_MMAP;
		break;
	default:
		trace_ev_exit(&m->s, ev, a);
		break;
	}
}

static int init(void *state, const uint64_t *v, uint64_t seed, enum tlbsim_isa isa)
{
	struct pf *m = state;

	(void)seed;
	(void)isa;
	m->threads = (unsigned)v[P_THREADS];
	m->cpus = (unsigned)v[P_CPUS];
	m->size = trace_align_up(v[P_SIZE], TRACE_PAGE);
	m->npages = m->size / TRACE_PAGE;
	m->loops = v[P_LOOPS];
	if (v[P_SHARED]) {
		int rc = trace_sched_init(&m->s, m->threads + 1, shared_step, m);

		if (!rc)
			trace_harness_ids(&m->s);
		return rc;
	}
	return trace_harness_init(&m->s, m->threads, worker, m);
}

const struct tlbsim_generator trace_gen_page_faults = {
    .name = "page-faults",
    .summary = "threads faulting in fresh anonymous memory, then unmapping it",
    .models = "will-it-scale page_fault1_threads; shared=1: Lameter's pft",
    .params = params,
    .nr_params = NR_P,
    .state_size = sizeof(struct pf),
    .init = init,
    .next = trace_gen_next,
    .fini = trace_gen_fini,
};
