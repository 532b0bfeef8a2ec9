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
 * Parameters: threads, size (bytes per mapping, rounded up to 4 KiB),
 * loops (mmap..munmap rounds per thread), cpus.
 *
 * Events (n = size / 4 KiB; worker w is tid w + 2,
 * R_w = TRACE_VA_BASE + w * size):
 *   main:    PROC_CREATE, THREAD_CREATE x threads, SLEEP x threads, EXIT
 *   worker:  SWITCH cpu, loops x { MMAP R_w size rw,
 *              STORE R_w + k*4K for k < n, MUNMAP R_w size },
 *            WAKE main, EXIT
 * Totals: 1 PROC_CREATE, threads x (THREAD_CREATE, SWITCH, SLEEP, WAKE),
 * threads + 1 EXIT, threads * loops x (MMAP, MUNMAP, n STORE).
 */
#include "traces/generators.h"
#include "traces/workload.h"

enum { P_THREADS, P_SIZE, P_LOOPS, P_CPUS, NR_P };

static const struct tlbsim_gen_param params[NR_P] = {
    [P_THREADS] = {"threads", "worker threads of the one process", 4, 1, 1024, "threads"},
    [P_SIZE] = {"size", "bytes each thread maps and faults in per round", 128ull << 20, 1,
		1ull << 32, "bytes"},
    [P_LOOPS] = {"loops", "mmap..munmap rounds per thread", 4, 1, 1ull << 40, "rounds"},
    [P_CPUS] = {"cpus", "pin thread i to cpu i mod cpus (0: cpu i)", 0, 0, 4096, "cpus"},
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
	return trace_harness_init(&m->s, m->threads, worker, m);
}

const struct tlbsim_generator trace_gen_page_faults = {
    .name = "page-faults",
    .summary = "threads faulting in fresh anonymous memory, then unmapping it",
    .models = "will-it-scale page_fault1_threads",
    .params = params,
    .nr_params = NR_P,
    .state_size = sizeof(struct pf),
    .init = init,
    .next = trace_gen_next,
    .fini = trace_gen_fini,
};
