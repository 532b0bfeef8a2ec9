/* SPDX-License-Identifier: MIT */
/*
 * ctx-switch: two tasks on one cpu handing a token back and forth, as
 * will-it-scale's context_switch1 (tests/context_switch1.c: a one-byte
 * write to a pipe, then a blocking read of the other pipe) or lmbench's
 * lat_ctx with two processes.  Every hand-off is a context switch; with
 * procs=1 the tasks are two processes (the parent forks the other), so
 * every switch is also an mm switch (switch_mm: PCID/ASID or a TLB flush).
 * @pages > 0 has each side read that many pages of its own buffer after
 * being woken, as lat_ctx -s does, so that the TLB refill after a switch
 * shows.  Both are pinned to @cpu (SWITCH), as lat_ctx and the benchmark
 * runs do to force the switches.
 *
 * A hand-off is WAKE of the other task then SLEEP: the wake-up stands for
 * the pipe write, the sleep for the blocking read.  The pipe syscalls' own
 * work is @compute cycles per hand-off (0: only the switches cost).  With
 * @yield, the two tasks instead yield the cpu to each other in turn
 * (sched_yield(): both stay runnable, each turn ends with a YIELD that
 * switches to the other), as the eMAG "tlb-test" of WORKLOADS.md 4 does.
 *
 * Parameters: loops (round trips, or with @yield turns of each task),
 * procs (0: two threads of one process, 1: two processes), cpu, pages
 * (pages each side reads per turn), compute (cycles per hand-off), yield
 * (0: a pipe-like hand-off, 1: yields).
 *
 * Events (A is tid 1 of pid 1; B is tid 2 of pid 1, or of pid 2 if procs;
 * buffers A: TRACE_VA_BASE, B: TRACE_VA_BASE + pages * 4 KiB):
 *   A: PROC_CREATE, SWITCH cpu, THREAD_CREATE B (or FORK B),
 *      [MMAP A pages*4K rw], loops x { LOAD each page, [COMPUTE],
 *      WAKE B, SLEEP }, EXIT
 *   B: SWITCH cpu, [MMAP B pages*4K rw], loops x { SLEEP, LOAD each page,
 *      [COMPUTE], WAKE A }, EXIT
 * Totals: 1 PROC_CREATE, 2 SWITCH, 1 THREAD_CREATE or FORK, 2 MMAP if
 * pages, 2*loops*pages LOAD, 2*loops COMPUTE if compute, 2*loops each of
 * WAKE and SLEEP, 2 EXIT.
 * With yield=1, A's SWITCH is an AFFINITY of @cpu alone (B inherits it and
 * has no SWITCH of its own) and each task's turn is { LOAD each page,
 * [COMPUTE], YIELD } (no SLEEP, no WAKE): 1 AFFINITY, 2*loops YIELD, the
 * rest as above.
 */
#include "traces/generators.h"
#include "traces/workload.h"

enum { P_LOOPS, P_PROCS, P_CPU, P_PAGES, P_COMPUTE, P_YIELD, NR_P };

static const struct tlbsim_gen_param params[NR_P] = {
    [P_LOOPS] = {"loops", "round trips of the token", 100000, 1, 1ull << 40, "round trips"},
    [P_PROCS] = {"procs", "0: two threads of one process, 1: two processes", 0, 0, 1, "0/1"},
    [P_CPU] = {"cpu", "the cpu both tasks are pinned to", 0, 0, 4095, "cpu"},
    [P_PAGES] = {"pages", "pages of its own buffer each task reads per turn", 0, 0, 1u << 20,
		 "pages"},
    [P_COMPUTE] = {"compute", "cycles of pipe syscall work per hand-off", 0, 0, 1ull << 32,
		   "cycles"},
    [P_YIELD] = {"yield", "0: hand-off by wake and sleep (a pipe), 1: sched_yield() in turn", 0,
		 0, 1, "0/1"},
};

struct cs {
	struct trace_sched s;
	bool procs, yield;
	unsigned cpu;
	uint64_t loops, pages, compute;
};

enum {
	T_CREATE,
	T_PIN,
	T_SPAWN,
	T_MMAP,
	T_SLEEP_B,
	T_TOUCH,
	T_COMPUTE,
	T_WAKE,
	T_SLEEP_A,
	T_YIELD,
	T_EXIT
};

/* After the reads: the compute, if any, then the wake-up (or the yield). */
static unsigned after_touch(const struct cs *m)
{
	return m->compute ? T_COMPUTE : m->yield ? T_YIELD : T_WAKE;
}

/* The start of a turn: A reads at once, B waits for the token first. */
static unsigned turn_start(const struct cs *m, bool is_a)
{
	if (!is_a && !m->yield)
		return T_SLEEP_B;
	return m->pages ? T_TOUCH : after_touch(m);
}

static void step(void *g, struct trace_actor *a, struct tlbsim_event *ev)
{
	struct cs *m = g;
	bool is_a = a == m->s.a;
	struct trace_actor *other = is_a ? &m->s.a[1] : &m->s.a[0];
	uint64_t buf = TRACE_VA_BASE + (is_a ? 0 : m->pages * TRACE_PAGE);

	switch (a->phase) {
	case T_CREATE:
		trace_ev_proc_create(ev, a);
		a->phase = T_PIN;
		break;
	case T_PIN:
		/* With yields, A confines itself to the cpu (taskset) before it
		 * creates B, which inherits it: both are runnable there from
		 * B's start, so every yield switches. */
		if (m->yield)
			trace_ev_affinity(ev, a, m->cpu, 1);
		else
			trace_ev_pin(ev, a, m->cpu);
		/* A forks B before mapping its buffer, so that B's mm
		 * does not inherit it. */
		a->phase = is_a ? T_SPAWN : m->pages ? T_MMAP : turn_start(m, false);
		break;
	case T_SPAWN:
		trace_ev_spawn(&m->s, ev, a, other, m->procs);
		/* B starts at its SWITCH; with yields it has A's cpu already. */
		other->phase = !m->yield ? T_PIN : m->pages ? T_MMAP : turn_start(m, false);
		a->phase = m->pages ? T_MMAP : turn_start(m, true);
		break;
	case T_MMAP:
		trace_ev_mmap(ev, a, buf, m->pages * TRACE_PAGE, TRACE_RW, TRACE_ANON);
		a->phase = turn_start(m, is_a);
		break;
	case T_SLEEP_B:
		trace_ev_sleep(ev, a);
		a->j = 0;
		a->phase = m->pages ? T_TOUCH : after_touch(m);
		break;
	case T_TOUCH:
		trace_ev_access(ev, a, TLBSIM_EV_LOAD, buf + a->j * TRACE_PAGE, 8);
		if (++a->j == m->pages) {
			a->j = 0;
			a->phase = after_touch(m);
		}
		break;
	case T_COMPUTE:
		trace_ev_compute(ev, a, m->compute);
		a->phase = m->yield ? T_YIELD : T_WAKE;
		break;
	case T_YIELD:
		trace_ev_yield(ev, a);
		a->phase = ++a->i == m->loops ? T_EXIT : turn_start(m, is_a);
		break;
	case T_WAKE:
		trace_ev_wake(ev, a, other);
		if (is_a)
			a->phase = T_SLEEP_A;
		else
			a->phase = ++a->i == m->loops ? T_EXIT : turn_start(m, false);
		break;
	case T_SLEEP_A:
		trace_ev_sleep(ev, a);
		a->phase = ++a->i == m->loops ? T_EXIT : turn_start(m, true);
		break;
	default:
		trace_ev_exit(&m->s, ev, a);
		break;
	}
}

static int init(void *state, const uint64_t *v, uint64_t seed, enum tlbsim_isa isa)
{
	struct cs *m = state;
	int rc;

	(void)seed;
	(void)isa;
	m->loops = v[P_LOOPS];
	m->procs = v[P_PROCS] != 0;
	m->cpu = (unsigned)v[P_CPU];
	m->pages = v[P_PAGES];
	m->compute = v[P_COMPUTE];
	m->yield = v[P_YIELD] != 0;
	rc = trace_sched_init(&m->s, 2, step, m);
	if (rc)
		return rc;
	m->s.a[0].tid = 1;
	m->s.a[0].pid = 1;
	m->s.a[1].tid = 2;
	m->s.a[1].pid = m->procs ? 2 : 1;
	return 0;
}

const struct tlbsim_generator trace_gen_ctx_switch = {
    .name = "ctx-switch",
    .summary = "two tasks pinned to one cpu passing a token back and forth, or yielding in turn",
    .models = "will-it-scale context_switch1 / lmbench lat_ctx",
    .params = params,
    .nr_params = NR_P,
    .state_size = sizeof(struct cs),
    .init = init,
    .next = trace_gen_next,
    .fini = trace_gen_fini,
};
