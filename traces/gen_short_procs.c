/* SPDX-License-Identifier: MIT */
/*
 * short-procs: shell loops running short processes one after another, as
 * in a build (make running many small compiler and tool processes) or a
 * shell script: @loops shells at once, each running @procs processes in
 * sequence (fork, exec, wait).  Process creation and exit is what this
 * exercises: fork's copy-on-write of the shell (dup_mmap() write-protects
 * the shell's pages and flushes its TLB), exit_mmap() of each child, ASID
 * and PCID turnover, and mm switches.  Nothing is pinned.
 *
 * There is no exec event: exec is modelled by the child unmapping the
 * shell's memory it inherited (the old image exec drops) and setting up
 * its own heap with brk.  The child then makes @accesses accesses at
 * random 8-byte-aligned places of its @heap-byte heap (seeded splitmix64),
 * loads and stores alternating, with @compute cycles of work after each,
 * wakes its shell (the shell's wait() returning) and exits.  The shell
 * has a 64 KiB working set (SHELL_BYTES) it populates once.
 *
 * Parameters: loops (concurrent shells), procs (processes per shell),
 * accesses (per process), heap (bytes, rounded up to 4 KiB), compute
 * (cycles after each access).
 *
 * Events of shell l (pid = tid = l + 1; its k-th child has pid = tid =
 * loops + 1 + l*procs + k; S = TRACE_VA_BASE, H = HEAP_START):
 *   shell: PROC_CREATE, MMAP S 64K rw, STORE each of its 16 pages,
 *          procs x { FORK child, SLEEP }, EXIT
 *   child: MUNMAP S 64K, BRK H, BRK H + heap,
 *          accesses x { LOAD (even j) or STORE (odd j) in the heap,
 *          [COMPUTE] }, WAKE shell, EXIT
 * Per shell: 1 PROC_CREATE, 1 MMAP, 16 + procs*floor(accesses/2) STORE,
 * procs*ceil(accesses/2) LOAD, procs x (FORK, SLEEP, MUNMAP, WAKE),
 * 2*procs BRK, procs*accesses COMPUTE if compute, procs + 1 EXIT.
 */
#include "hw/tlb.h"
#include "traces/generators.h"
#include "traces/workload.h"

enum { P_LOOPS, P_PROCS, P_ACCESSES, P_HEAP, P_COMPUTE, NR_P };

static const struct tlbsim_gen_param params[NR_P] = {
    [P_LOOPS] = {"loops", "shells running processes at once", 8, 1, 1024, "shells"},
    [P_PROCS] = {"procs", "processes each shell runs in sequence", 32, 1, 1u << 20, "processes"},
    [P_ACCESSES] = {"accesses", "memory accesses per process", 4000, 1, 1ull << 32, "accesses"},
    [P_HEAP] = {"heap", "bytes of each process's heap", 64u << 10, 1, 1ull << 30, "bytes"},
    [P_COMPUTE] = {"compute", "cycles of work after each access", 20, 0, 1u << 20, "cycles"},
};

/* The shell's own memory: its heap and stack working set, 16 pages (an
 * estimate for a small shell such as dash). */
#define SHELL_BYTES (64u << 10)
/* Where brk heaps start: above a PIE executable at the usual x86-64
 * load address 0x555555554000, as the kernel's randomised brk would be. */
#define HEAP_START 0x555556000000ull

struct sp {
	struct trace_sched s;
	unsigned loops;
	uint64_t procs, accesses, heap, compute;
	uint64_t rng;
};

enum { S_CREATE, S_MMAP, S_TOUCH, S_FORK, S_WAIT, S_EXIT };
enum { C_UNMAP, C_BRK0, C_BRK1, C_ACCESS, C_COMPUTE, C_WAKE, C_EXIT };

static void shell(struct sp *m, struct trace_actor *a, struct tlbsim_event *ev)
{
	struct trace_actor *child = a + 1;
	unsigned l = (unsigned)(a - m->s.a) / 2;

	switch (a->phase) {
	case S_CREATE:
		trace_ev_proc_create(ev, a);
		a->phase = S_MMAP;
		break;
	case S_MMAP:
		trace_ev_mmap(ev, a, TRACE_VA_BASE, SHELL_BYTES, TRACE_RW, TRACE_ANON);
		a->phase = S_TOUCH;
		break;
	case S_TOUCH:
		trace_ev_access(ev, a, TLBSIM_EV_STORE, TRACE_VA_BASE + a->j * TRACE_PAGE, 8);
		if (++a->j == SHELL_BYTES / TRACE_PAGE)
			a->phase = S_FORK;
		break;
	case S_FORK:
		/* The previous child woke the shell and has its exit to emit
		 * yet: its slot is free once that is out. */
		if (child->state != TRACE_UNBORN && child->state != TRACE_DONE)
			return;
		child->tid = child->pid = (uint32_t)(m->loops + 1 + l * m->procs + a->i);
		trace_ev_spawn(&m->s, ev, a, child, true);
		a->phase = S_WAIT;
		break;
	case S_WAIT:
		trace_ev_sleep(ev, a);
		a->phase = ++a->i == m->procs ? S_EXIT : S_FORK;
		break;
	default:
		trace_ev_exit(&m->s, ev, a);
		break;
	}
}

static void child(struct sp *m, struct trace_actor *a, struct tlbsim_event *ev)
{
	uint64_t off;

	switch (a->phase) {
	case C_UNMAP:
		trace_ev_munmap(ev, a, TRACE_VA_BASE, SHELL_BYTES);
		a->phase = C_BRK0;
		break;
	case C_BRK0:
		trace_ev_brk(ev, a, HEAP_START);
		a->phase = C_BRK1;
		break;
	case C_BRK1:
		trace_ev_brk(ev, a, HEAP_START + m->heap);
		a->phase = C_ACCESS;
		break;
	case C_ACCESS:
		off = hw_splitmix64(&m->rng) % (m->heap / 8) * 8;
		trace_ev_access(ev, a, a->j % 2 ? TLBSIM_EV_STORE : TLBSIM_EV_LOAD,
				HEAP_START + off, 8);
		a->j++;
		if (m->compute)
			a->phase = C_COMPUTE;
		else if (a->j == m->accesses)
			a->phase = C_WAKE;
		break;
	case C_COMPUTE:
		trace_ev_compute(ev, a, m->compute);
		a->phase = a->j == m->accesses ? C_WAKE : C_ACCESS;
		break;
	case C_WAKE:
		trace_ev_wake(ev, a, a - 1);
		a->phase = C_EXIT;
		break;
	default:
		trace_ev_exit(&m->s, ev, a);
		break;
	}
}

static void step(void *g, struct trace_actor *a, struct tlbsim_event *ev)
{
	struct sp *m = g;

	if ((a - m->s.a) % 2 == 0)
		shell(m, a, ev);
	else
		child(m, a, ev);
}

static int init(void *state, const uint64_t *v, uint64_t seed, enum tlbsim_isa isa)
{
	struct sp *m = state;
	unsigned l;
	int rc;

	(void)isa;
	m->loops = (unsigned)v[P_LOOPS];
	m->procs = v[P_PROCS];
	m->accesses = v[P_ACCESSES];
	m->heap = trace_align_up(v[P_HEAP], TRACE_PAGE);
	m->compute = v[P_COMPUTE];
	m->rng = seed;
	/* Actor 2l is shell l, 2l + 1 the slot of its current child. */
	rc = trace_sched_init(&m->s, 2 * m->loops, step, m);
	if (rc)
		return rc;
	for (l = 0; l < m->loops; l++) {
		m->s.a[2 * l].tid = m->s.a[2 * l].pid = l + 1;
		m->s.a[2 * l].state = TRACE_READY;
	}
	return 0;
}

const struct tlbsim_generator trace_gen_short_procs = {
    .name = "short-procs",
    .summary = "shells running short processes in sequence: fork, small heap, exit, wait",
    .models = "a build or shell script running many short processes",
    .params = params,
    .nr_params = NR_P,
    .state_size = sizeof(struct sp),
    .init = init,
    .next = trace_gen_next,
    .fini = trace_gen_fini,
    .uses_seed = true,
};
