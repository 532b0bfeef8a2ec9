/* SPDX-License-Identifier: MIT */
/*
 * kthread-mm: a kernel thread that works on a process's memory while the
 * process sleeps, as a vhost or I/O worker does (Linux kthread_use_mm(),
 * drivers/vhost/vhost.c vhost_worker(); use_mm() before 5.8).  Each round
 * the process drops its buffer (madvise(MADV_DONTNEED): the pages go, with
 * a flush that must reach every cpu caching the mm), writes it again, wakes
 * the worker and sleeps; the worker borrows the process's mm, reads the
 * buffer (a copy_from_user() of the request), lets the mm go and wakes the
 * process.  The worker runs on another cpu, so each of its rounds is a
 * switch_mm to the process's mm there and each of the process's flushes
 * has to consider that cpu: under arm64-nr-active-mm the worker is counted
 * while it holds the mm and goes stale when it lets it go; x86 keeps the
 * worker's cpu in mm_cpumask.
 *
 * Parameters: pages (4 KiB pages of the buffer), loops (rounds), mmget
 * (1: the worker takes an mm_users reference around each use, as
 * vhost_worker's callers do; 0: none), cpu (the worker's cpu; the process
 * runs on cpu 0), compute (cycles the worker spends per page read).
 *
 * Events (B = TRACE_VA_BASE, n = pages; the process is pid 1, tid 1; the
 * worker is tid 2):
 *   process: PROC_CREATE, SWITCH cpu 0, MMAP B n*4K rw, KTHREAD_CREATE 2,
 *            loops x { MADVISE B n*4K dontneed, STORE each page, WAKE 2,
 *            SLEEP }, EXIT
 *   worker:  SWITCH cpu, loops x { SLEEP, KTHREAD_USE_MM 1 [mmget], LOAD
 *            each page [COMPUTE after each], KTHREAD_UNUSE_MM, WAKE 1 },
 *            EXIT
 * Totals: 1 PROC_CREATE, 1 KTHREAD_CREATE, 2 SWITCH, 1 MMAP, loops x
 * (MADVISE, n STORE, n LOAD, 2 WAKE, 2 SLEEP, KTHREAD_USE_MM,
 * KTHREAD_UNUSE_MM), n * loops COMPUTE if compute, 2 EXIT.
 */
#include "traces/generators.h"
#include "traces/workload.h"

enum { P_PAGES, P_LOOPS, P_MMGET, P_CPU, P_COMPUTE, NR_P };

static const struct tlbsim_gen_param params[NR_P] = {
    [P_PAGES] = {"pages", "4 KiB pages of the buffer the worker reads", 16, 1, 1u << 20, "pages"},
    [P_LOOPS] = {"loops", "rounds: the process writes, the worker reads", 1000, 1, 1ull << 40, "rounds"},
    [P_MMGET] = {"mmget", "1: the worker takes an mm_users reference (mmget)", 1, 0, 1, "0/1"},
    [P_CPU] = {"cpu", "the worker's cpu (the process runs on cpu 0)", 1, 1, 4095, "cpu"},
    [P_COMPUTE] = {"compute", "cycles the worker spends per page read", 0, 0, 1ull << 30, "cycles"},
};

struct km {
	struct trace_sched s;
	uint64_t pages, loops, compute;
	unsigned cpu;
	bool mmget;
};

enum { M_PROC, M_PIN, M_MMAP, M_SPAWN, M_MADV, M_STORE, M_WAKE, M_SLEEP, M_EXIT };
enum { K_PIN, K_SLEEP, K_USE, K_LOAD, K_COMPUTE, K_UNUSE, K_WAKE, K_EXIT };

static void process(struct km *m, struct trace_actor *a, struct tlbsim_event *ev)
{
	uint64_t len = m->pages * TRACE_PAGE;

	switch (a->phase) {
	case M_PROC:
		trace_ev_proc_create(ev, a);
		a->phase = M_PIN;
		break;
	case M_PIN:
		trace_ev_pin(ev, a, 0);
		a->phase = M_MMAP;
		break;
	case M_MMAP:
		trace_ev_mmap(ev, a, TRACE_VA_BASE, len, TRACE_RW, TRACE_ANON);
		a->phase = M_SPAWN;
		break;
	case M_SPAWN:
		trace_ev_kthread_spawn(&m->s, ev, a, &m->s.a[1]);
		a->phase = M_MADV;
		break;
	case M_MADV:
		trace_ev_madvise(ev, a, TRACE_VA_BASE, len, TLBSIM_MADV_DONTNEED);
		a->j = 0;
		a->phase = M_STORE;
		break;
	case M_STORE:
		trace_ev_access(ev, a, TLBSIM_EV_STORE, TRACE_VA_BASE + a->j * TRACE_PAGE, 8);
		if (++a->j == m->pages)
			a->phase = M_WAKE;
		break;
	case M_WAKE:
		trace_ev_wake(ev, a, &m->s.a[1]);
		a->phase = M_SLEEP;
		break;
	case M_SLEEP:
		trace_ev_sleep(ev, a);
		a->phase = ++a->i == m->loops ? M_EXIT : M_MADV;
		break;
	default:
		trace_ev_exit(&m->s, ev, a);
		break;
	}
}

static void worker(struct km *m, struct trace_actor *a, struct tlbsim_event *ev)
{
	switch (a->phase) {
	case K_PIN:
		trace_ev_pin(ev, a, m->cpu);
		a->phase = K_SLEEP;
		break;
	case K_SLEEP:
		trace_ev_sleep(ev, a);
		a->phase = K_USE;
		break;
	case K_USE:
		trace_ev_use_mm(ev, a, m->s.a[0].pid, m->mmget);
		a->j = 0;
		a->phase = K_LOAD;
		break;
	case K_LOAD:
		trace_ev_access(ev, a, TLBSIM_EV_LOAD, TRACE_VA_BASE + a->j * TRACE_PAGE, 8);
		a->phase = m->compute ? K_COMPUTE : ++a->j == m->pages ? K_UNUSE : K_LOAD;
		break;
	case K_COMPUTE:
		trace_ev_compute(ev, a, m->compute);
		a->phase = ++a->j == m->pages ? K_UNUSE : K_LOAD;
		break;
	case K_UNUSE:
		trace_ev_unuse_mm(ev, a);
		a->phase = K_WAKE;
		break;
	case K_WAKE:
		trace_ev_wake(ev, a, &m->s.a[0]);
		a->phase = ++a->i == m->loops ? K_EXIT : K_SLEEP;
		break;
	default:
		trace_ev_exit(&m->s, ev, a);
		break;
	}
}

static void step(void *g, struct trace_actor *a, struct tlbsim_event *ev)
{
	struct km *m = g;

	if (a == &m->s.a[0])
		process(m, a, ev);
	else
		worker(m, a, ev);
}

static int init(void *state, const uint64_t *v, uint64_t seed, enum tlbsim_isa isa)
{
	struct km *m = state;
	int rc;

	(void)seed;
	(void)isa;
	m->pages = v[P_PAGES];
	m->loops = v[P_LOOPS];
	m->mmget = v[P_MMGET] != 0;
	m->cpu = (unsigned)v[P_CPU];
	m->compute = v[P_COMPUTE];
	rc = trace_sched_init(&m->s, 2, step, m);
	if (rc)
		return rc;
	m->s.a[0].pid = 1;
	m->s.a[0].tid = 1;
	m->s.a[1].tid = 2;
	return 0;
}

const struct tlbsim_generator trace_gen_kthread_mm = {
    .name = "kthread-mm",
    .summary = "a kernel thread borrowing a process's mm (kthread_use_mm) while it sleeps",
    .models = "a vhost / I/O worker: Linux kthread_use_mm(), drivers/vhost/vhost.c",
    .params = params,
    .nr_params = NR_P,
    .state_size = sizeof(struct km),
    .init = init,
    .next = trace_gen_next,
    .fini = trace_gen_fini,
    .notes = "The process and the worker hand off strictly (the worker reads only while the "
	     "process sleeps; the process flushes only after the worker let the mm go), so no "
	     "flush races the worker's use of the mm: the mutation "
	     "arm64-nr-active-mm:kthread_uncounted=1 reports nothing here (tests/hazards/55 "
	     "makes that race). No vhost ring, eventfd or interrupt: the wakes stand for them,"
	     " and the worker's copy_from_user() is plain loads. Under arm64-nr-active-mm, "
	     "--check reports walk_freed_table at the process's exit (3 with the defaults on "
	     "emag-32): the worker's cpu keeps walk-cache entries of the ASID after the "
	     "local-only flushes, with or without +rcu-table-free (the policy's known unsafe "
	     "point, tests/hazards/01). Other policies: no report.",
};
