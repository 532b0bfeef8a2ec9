/* SPDX-License-Identifier: MIT */
/*
 * mprotect-toggle: Andrea Arcangeli's mprotect-threaded benchmark
 * ("[PATCH 3/3] arm64: tlb: skip tlbi broadcast", 2020-02-23; BACKGROUND.md
 * section 3, CALIBRATION.md 4.1, 4.2, 4.4): @procs copies at once of a
 * process with @threads threads, all but one asleep, the active one
 * toggling a populated @size-byte anonymous mapping between read-only and
 * read-write @loops times.  Calibration point 1 (eMAG, 32 x
 * "mprotect-threaded 10000": 2.17 s with broadcast TLBI, 0.139 s local);
 * threads=1 is the single-threaded variant of CALIBRATION.md 4.1.
 *
 * One toggle is two mprotect() calls, PROT_READ then PROT_READ|PROT_WRITE:
 * "toggling ... between read-only and read-write 10,000 times" returns to
 * read-write each time, and CALIBRATION.md 4.4 and 6.9 count 20,000
 * mprotects (flushes) per process for 10,000 toggles.  The mapping is
 * populated first (one store per page): mprotect() of never-touched pages
 * changes no PTE and flushes nothing in Linux, and 6.9 counts 1024 PTEs
 * per call.  The sleeping threads are not pinned (the benchmark is not);
 * at the end the active thread wakes them and each exits, standing for
 * exit_group() killing them.
 *
 * Parameters: procs (processes), threads (per process), size (bytes,
 * rounded up to 4 KiB pages), loops (toggles), compute (cycles of user
 * work after each mprotect call; 0: none, the benchmark's loop is bare).
 *
 * Events of process p (pid p + 1; tids p*threads + 1 ..; pages =
 * size / 4 KiB), A = TRACE_VA_BASE in every process:
 *   main:    PROC_CREATE, MMAP A size rw, STORE A + k*4K for each page,
 *            THREAD_CREATE x (threads - 1),
 *            loops x { MPROTECT A r, [COMPUTE], MPROTECT A rw, [COMPUTE] },
 *            WAKE x (threads - 1), EXIT
 *   others:  SLEEP, EXIT
 * Per process: 1 PROC_CREATE, 1 MMAP, pages STORE, threads-1 THREAD_CREATE,
 * 2*loops MPROTECT, 2*loops COMPUTE if compute > 0, threads-1 each of
 * SLEEP and WAKE, threads EXIT.
 */
#include <stdlib.h>

#include "traces/generators.h"
#include "traces/workload.h"

enum { P_PROCS, P_THREADS, P_SIZE, P_LOOPS, P_COMPUTE, NR_P };

static const struct tlbsim_gen_param params[NR_P] = {
    [P_PROCS] = {"procs", "processes running the benchmark at once", 32, 1, 4096, "processes"},
    [P_THREADS] = {"threads", "threads per process, all but one asleep", 2, 1, 64, "threads"},
    [P_SIZE] = {"size", "bytes of the anonymous mapping toggled", 4ull << 20, 1, 1ull << 34,
		"bytes"},
    [P_LOOPS] = {"loops", "toggles (2 mprotect calls each)", 10000, 1, 1ull << 40, "toggles"},
    [P_COMPUTE] = {"compute", "cycles of work after each mprotect call", 0, 0, 1ull << 32,
		   "cycles"},
};

struct mpt {
	struct trace_sched s;
	unsigned threads;
	uint64_t size, pages, loops, compute;
};

enum { M_CREATE, M_MMAP, M_TOUCH, M_SPAWN, M_TOGGLE, M_WAKE, M_EXIT };

static void step(void *g, struct trace_actor *a, struct tlbsim_event *ev)
{
	struct mpt *m = g;
	unsigned t = (unsigned)(a - m->s.a) % m->threads;

	if (t) {
		if (a->phase++ == 0)
			trace_ev_sleep(ev, a);
		else
			trace_ev_exit(&m->s, ev, a);
		return;
	}
	switch (a->phase) {
	case M_CREATE:
		trace_ev_proc_create(ev, a);
		a->phase = M_MMAP;
		break;
	case M_MMAP:
		trace_ev_mmap(ev, a, TRACE_VA_BASE, m->size, TRACE_RW, TRACE_ANON);
		a->phase = M_TOUCH;
		break;
	case M_TOUCH:
		trace_ev_access(ev, a, TLBSIM_EV_STORE, TRACE_VA_BASE + a->i * TRACE_PAGE, 8);
		if (++a->i == m->pages) {
			a->i = 0;
			a->phase = m->threads > 1 ? M_SPAWN : M_TOGGLE;
		}
		break;
	case M_SPAWN:
		trace_ev_spawn(&m->s, ev, a, a + 1 + a->i, false);
		if (++a->i == m->threads - 1) {
			a->i = 0;
			a->phase = M_TOGGLE;
		}
		break;
	case M_TOGGLE:
		if (trace_toggle_step(ev, a, TRACE_VA_BASE, m->size, m->compute) &&
		    ++a->i == m->loops) {
			a->i = 0;
			a->phase = m->threads > 1 ? M_WAKE : M_EXIT;
		}
		break;
	case M_WAKE:
		trace_ev_wake(ev, a, a + 1 + a->i);
		if (++a->i == m->threads - 1)
			a->phase = M_EXIT;
		break;
	default:
		trace_ev_exit(&m->s, ev, a);
		break;
	}
}

static int init(void *state, const uint64_t *v, uint64_t seed, enum tlbsim_isa isa)
{
	struct mpt *m = state;
	unsigned procs = (unsigned)v[P_PROCS], p, t;
	int rc;

	(void)seed;
	(void)isa;
	m->threads = (unsigned)v[P_THREADS];
	m->size = trace_align_up(v[P_SIZE], TRACE_PAGE);
	m->pages = m->size / TRACE_PAGE;
	m->loops = v[P_LOOPS];
	m->compute = v[P_COMPUTE];
	rc = trace_sched_init(&m->s, procs * m->threads, step, m);
	if (rc)
		return rc;
	for (p = 0; p < procs; p++) {
		for (t = 0; t < m->threads; t++) {
			m->s.a[p * m->threads + t].tid = p * m->threads + t + 1;
			m->s.a[p * m->threads + t].pid = p + 1;
		}
		/* Every process starts at once, from no thread. */
		m->s.a[p * m->threads].state = TRACE_READY;
	}
	return 0;
}

const struct tlbsim_generator trace_gen_mprotect_toggle = {
    .name = "mprotect-toggle",
    .summary = "processes toggling a populated mapping read-only/read-write with mprotect",
    .models = "Arcangeli's mprotect-threaded (32 copies on eMAG, 2020)",
    .params = params,
    .nr_params = NR_P,
    .state_size = sizeof(struct mpt),
    .init = init,
    .next = trace_gen_next,
    .fini = trace_gen_fini,
};
