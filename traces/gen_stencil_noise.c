/* SPDX-License-Identifier: MIT */
/*
 * stencil-noise: an HPC code suffering OS noise from another process's TLB
 * flushes (ThunderX2 experiment 3 of the validation issue; the effect is
 * Fujitsu's, CALIBRATION.md 4.7 and 4.8: a single-threaded program ran
 * 25% slower with an mprotect loop on a sibling core, because every core
 * services each broadcast TLBI).
 *
 * The victim: one process whose @workers threads, pinned one per cpu,
 * run @sweeps sweeps of a 5-point Jacobi stencil over a @grid x @grid grid
 * of doubles (two arrays, read one, write the other, swap), split in
 * blocks of rows, with a barrier after each sweep (the main thread
 * gathers: each worker WAKEs it and SLEEPs; main SLEEPs once per worker,
 * then WAKEs them all).  Each worker first touches its own rows of both
 * arrays (parallel first-touch initialisation).  A row is visited one
 * 4 KiB segment (512 points) at a time: a load from the row above, the
 * row itself and the row below in the source array (page-granular: the
 * other loads of the segment hit the same pages; the first and last rows
 * take themselves as their missing neighbour, an edge-replicating
 * boundary), a store to the destination, then COMPUTE of points x
 * @point_cycles.  A worker with no rows (workers > grid) takes part in
 * the barriers only.  The default, 2
 * cycles per point, is an estimate for 5 loads, 4 adds, 1 multiply and a
 * store per point on a 2-wide SIMD core from L1/L2.
 *
 * The noise: a second process of @noise_threads threads, pinned over
 * @noise_cpus cpus from @noise_cpu (one cpu: both threads share it, the
 * mm is active on one cpu only), each toggling its own populated
 * @noise_size-byte region read-only and back with mprotect (two calls per
 * toggle, as in mprotect-toggle), @noise_loops times or, with 0, until the
 * stencil's workers have all finished (in stream order, which the turns
 * keep close to simulated time).  The noise cpus are kept free of workers
 * even with noise_threads=0, the baseline run.
 *
 * Parameters: cpus (the machine's), workers (0: cpus - noise_cpus), grid
 * (points per side), sweeps, point_cycles, noise_cpu, noise_cpus,
 * noise_threads, noise_size (bytes per thread, rounded up to 4 KiB),
 * noise_loops, noise_compute (cycles after each noise mprotect).
 *
 * Events (pid 1: main tid 1, worker w tid w + 2; pid 2: noise thread t
 * tid workers + 2 + t; A = TRACE_VA_BASE, B = A + array rounded up to
 * 2 MiB; N = TRACE_VA_BASE in pid 2; worker w has rows
 * [w*grid/workers, (w+1)*grid/workers)):
 *   main:   PROC_CREATE, MMAP A, MMAP B, THREAD_CREATE x workers,
 *           sweeps x { SLEEP x workers, then (but the last time)
 *           WAKE x workers }, EXIT
 *   worker: SWITCH cpu, STORE each page of its rows of A, then of B,
 *           sweeps x { for each row, segment: LOAD up, LOAD row,
 *           LOAD down, STORE dst, COMPUTE; WAKE main,
 *           SLEEP but after the last sweep }, EXIT
 * Per sweep and worker with n rows: 3 * n * segments LOAD, n * segments
 * STORE and COMPUTE, with segments = ceil(grid / 512).
 *   noise 0: PROC_CREATE, SWITCH, MMAP N threads*size, STORE each page,
 *           THREAD_CREATE x (threads - 1), toggles
 *   noise t: SWITCH, toggles; a toggle is MPROTECT r, [COMPUTE],
 *           MPROTECT rw, [COMPUTE] (if noise_compute) of its own region;
 *           then EXIT
 */
#include <stdio.h>

#include "traces/generators.h"
#include "traces/workload.h"

enum {
	P_CPUS,
	P_WORKERS,
	P_GRID,
	P_SWEEPS,
	P_POINT_CYCLES,
	P_NOISE_CPU,
	P_NOISE_CPUS,
	P_NOISE_THREADS,
	P_NOISE_SIZE,
	P_NOISE_LOOPS,
	P_NOISE_COMPUTE,
	NR_P
};

static const struct tlbsim_gen_param params[NR_P] = {
    [P_CPUS] = {"cpus", "cpus of the machine (ThunderX2 2-socket: 64)", 64, 2, 4096, "cpus"},
    [P_WORKERS] = {"workers", "stencil threads (0: cpus - noise_cpus)", 0, 0, 4096, "threads"},
    [P_GRID] = {"grid", "grid points per side (8-byte doubles)", 4096, 2, 65536, "points"},
    [P_SWEEPS] = {"sweeps", "stencil sweeps, a barrier after each", 10, 1, 1u << 20, "sweeps"},
    [P_POINT_CYCLES] = {"point_cycles", "cycles of work per grid point", 2, 1, 1000, "cycles"},
    [P_NOISE_CPU] = {"noise_cpu", "first cpu of the noise", 0, 0, 4095, "cpu"},
    [P_NOISE_CPUS] = {"noise_cpus", "cpus the noise threads are spread over", 1, 1, 4095, "cpus"},
    [P_NOISE_THREADS] = {"noise_threads", "threads of the noise process (0: none)", 2, 0, 64,
			 "threads"},
    [P_NOISE_SIZE] = {"noise_size", "bytes each noise thread toggles", 4096, 1, 1ull << 30,
		      "bytes"},
    [P_NOISE_LOOPS] = {"noise_loops", "toggles per noise thread (0: until the stencil ends)", 0, 0,
		       1ull << 40, "toggles"},
    [P_NOISE_COMPUTE] = {"noise_compute", "cycles after each noise mprotect", 0, 0, 1ull << 32,
			 "cycles"},
};

/* Points per 4 KiB segment of a row. */
#define SEG_POINTS (TRACE_PAGE / 8)

struct sn {
	struct trace_sched s;
	unsigned cpus, workers, workers_left, noise_cpu, noise_cpus, noise_threads;
	uint64_t grid, nseg, sweeps, point_cycles, array_len, b;
	uint64_t noise_size, noise_loops, noise_compute;
};

/* ---- the stencil's main thread ------------------------------------------- */

enum { M_CREATE, M_MMAP_A, M_MMAP_B, M_SPAWN, M_GATHER, M_RELEASE, M_EXIT };

static void main_step(struct sn *m, struct trace_actor *a, struct tlbsim_event *ev)
{
	switch (a->phase) {
	case M_CREATE:
		trace_ev_proc_create(ev, a);
		a->phase = M_MMAP_A;
		break;
	case M_MMAP_A:
	case M_MMAP_B:
		trace_ev_mmap(ev, a, a->phase == M_MMAP_A ? TRACE_VA_BASE : m->b, m->array_len,
			      TRACE_RW, TRACE_ANON);
		a->phase++;
		break;
	case M_SPAWN:
		trace_ev_spawn(&m->s, ev, a, a + 1 + a->i, false);
		if (++a->i == m->workers) {
			a->i = 0;
			a->phase = M_GATHER;
		}
		break;
	case M_GATHER:
		/* a->j counts the sweeps gathered. */
		trace_ev_sleep(ev, a);
		if (++a->i < m->workers)
			break;
		a->i = 0;
		a->phase = ++a->j == m->sweeps ? M_EXIT : M_RELEASE;
		break;
	case M_RELEASE:
		trace_ev_wake(ev, a, a + 1 + a->i);
		if (++a->i == m->workers) {
			a->i = 0;
			a->phase = M_GATHER;
		}
		break;
	default:
		trace_ev_exit(&m->s, ev, a);
		break;
	}
}

/* ---- the workers --------------------------------------------------------- */

enum { W_PIN, W_INIT, W_SWEEP, W_ARRIVE, W_WAIT, W_EXIT };
/* The events of one segment; a->j = segment index * NR_OPS + op. */
enum { OP_UP, OP_ROW, OP_DOWN, OP_STORE, OP_COMPUTE, NR_OPS };

/* The w-th cpu that is not a noise cpu, round and round. */
static unsigned worker_cpu(const struct sn *m, unsigned w)
{
	unsigned idx = w % (m->cpus - m->noise_cpus), c;

	for (c = 0;; c++) {
		bool noise = (c + m->cpus - m->noise_cpu) % m->cpus < m->noise_cpus;

		if (!noise && idx-- == 0)
			return c;
	}
}

/* The worker's rows [*r0, *r1), and the pages [*p0, *p1) of an array
 * that hold them. */
static void block_of(const struct sn *m, unsigned w, uint64_t *r0, uint64_t *r1, uint64_t *p0,
		     uint64_t *p1)
{
	*r0 = w * m->grid / m->workers;
	*r1 = (w + 1) * m->grid / m->workers;
	*p0 = *r0 * m->grid * 8 / TRACE_PAGE;
	*p1 = *r0 == *r1 ? *p0 : trace_align_up(*r1 * m->grid * 8, TRACE_PAGE) / TRACE_PAGE;
}

/*
 * One event of a sweep.  The neighbours of the first and last rows are
 * clamped to the grid (an edge-replicating boundary), so every segment has
 * the same five events.
 */
static void sweep_step(struct sn *m, struct trace_actor *a, uint64_t r0, uint64_t r1,
		       struct tlbsim_event *ev)
{
	uint64_t src = a->i % 2 ? m->b : TRACE_VA_BASE, dst = a->i % 2 ? TRACE_VA_BASE : m->b;
	uint64_t cell = a->j / NR_OPS, row = r0 + cell / m->nseg, seg = cell % m->nseg;
	uint64_t rowbytes = m->grid * 8, points = m->grid - seg * SEG_POINTS;

	switch (a->j % NR_OPS) {
	case OP_UP:
		trace_ev_access(ev, a, TLBSIM_EV_LOAD,
				src + (row ? row - 1 : 0) * rowbytes + seg * TRACE_PAGE, 8);
		break;
	case OP_ROW:
		trace_ev_access(ev, a, TLBSIM_EV_LOAD, src + row * rowbytes + seg * TRACE_PAGE, 8);
		break;
	case OP_DOWN:
		trace_ev_access(
		    ev, a, TLBSIM_EV_LOAD,
		    src + (row + 1 < m->grid ? row + 1 : row) * rowbytes + seg * TRACE_PAGE, 8);
		break;
	case OP_STORE:
		trace_ev_access(ev, a, TLBSIM_EV_STORE, dst + row * rowbytes + seg * TRACE_PAGE, 8);
		break;
	default:
		trace_ev_compute(ev, a,
				 (points < SEG_POINTS ? points : SEG_POINTS) * m->point_cycles);
		break;
	}
	if (++a->j == (r1 - r0) * m->nseg * NR_OPS) {
		a->j = 0;
		a->phase = W_ARRIVE;
	}
}

static void worker_step(struct sn *m, struct trace_actor *a, struct tlbsim_event *ev)
{
	unsigned w = (unsigned)(a - m->s.a) - 1;
	uint64_t r0, r1, p0, p1;

	block_of(m, w, &r0, &r1, &p0, &p1);
	switch (a->phase) {
	case W_PIN:
		trace_ev_pin(ev, a, worker_cpu(m, w));
		/* A worker with no rows only takes part in the barriers. */
		a->phase = r1 > r0 ? W_INIT : W_ARRIVE;
		break;
	case W_INIT:
		/* a->j: its pages of A, then of B. */
		trace_ev_access(ev, a, TLBSIM_EV_STORE,
				(a->j < p1 - p0 ? TRACE_VA_BASE + (p0 + a->j) * TRACE_PAGE
						: m->b + (p0 + a->j - (p1 - p0)) * TRACE_PAGE),
				8);
		if (++a->j == 2 * (p1 - p0)) {
			a->j = 0;
			a->phase = W_SWEEP;
		}
		break;
	case W_SWEEP:
		sweep_step(m, a, r0, r1, ev);
		break;
	case W_ARRIVE:
		trace_ev_wake(ev, a, m->s.a);
		a->phase = ++a->i == m->sweeps ? W_EXIT : W_WAIT;
		break;
	case W_WAIT:
		trace_ev_sleep(ev, a);
		a->phase = r1 > r0 ? W_SWEEP : W_ARRIVE;
		break;
	default:
		m->workers_left--;
		trace_ev_exit(&m->s, ev, a);
		break;
	}
}

/* ---- the noise process --------------------------------------------------- */

enum { N_CREATE, N_PIN, N_MMAP, N_TOUCH, N_SPAWN, N_TOGGLE, N_EXIT };

static void noise_step(struct sn *m, struct trace_actor *a, struct tlbsim_event *ev)
{
	struct trace_actor *first = &m->s.a[m->workers + 1];
	unsigned t = (unsigned)(a - first);
	uint64_t region = TRACE_VA_BASE + t * m->noise_size;

	switch (a->phase) {
	case N_CREATE:
		trace_ev_proc_create(ev, a);
		a->phase = N_PIN;
		break;
	case N_PIN:
		trace_ev_pin(ev, a, (m->noise_cpu + t % m->noise_cpus) % m->cpus);
		a->phase = t ? N_TOGGLE : N_MMAP;
		break;
	case N_MMAP:
		trace_ev_mmap(ev, a, TRACE_VA_BASE, m->noise_threads * m->noise_size, TRACE_RW,
			      TRACE_ANON);
		a->phase = N_TOUCH;
		break;
	case N_TOUCH:
		trace_ev_access(ev, a, TLBSIM_EV_STORE, TRACE_VA_BASE + a->j * TRACE_PAGE, 8);
		if (++a->j == m->noise_threads * m->noise_size / TRACE_PAGE) {
			a->j = 0;
			a->phase = m->noise_threads > 1 ? N_SPAWN : N_TOGGLE;
		}
		break;
	case N_SPAWN:
		trace_ev_spawn(&m->s, ev, a, a + 1 + a->i, false);
		(a + 1 + a->i)->phase = N_PIN;
		if (++a->i == m->noise_threads - 1) {
			a->i = 0;
			a->phase = N_TOGGLE;
		}
		break;
	case N_TOGGLE:
		/* a->i: toggles done; the end is checked between toggles. */
		if (a->j == 0 && (m->noise_loops ? a->i == m->noise_loops : !m->workers_left))
			trace_ev_exit(&m->s, ev, a);
		else if (trace_toggle_step(ev, a, region, m->noise_size, m->noise_compute))
			a->i++;
		break;
	default:
		trace_ev_exit(&m->s, ev, a);
		break;
	}
}

static void step(void *g, struct trace_actor *a, struct tlbsim_event *ev)
{
	struct sn *m = g;
	unsigned k = (unsigned)(a - m->s.a);

	if (k == 0)
		main_step(m, a, ev);
	else if (k <= m->workers)
		worker_step(m, a, ev);
	else
		noise_step(m, a, ev);
}

/* The noise cpus must lie in the machine and leave a cpu for the stencil. */
static int check(const uint64_t *v, char *msg, size_t size)
{
	if (v[P_NOISE_CPU] >= v[P_CPUS]) {
		snprintf(msg, size, "noise_cpu (%llu) must be below cpus (%llu)",
			 (unsigned long long)v[P_NOISE_CPU], (unsigned long long)v[P_CPUS]);
		return -TLBSIM_ERANGE;
	}
	if (v[P_NOISE_CPUS] >= v[P_CPUS]) {
		snprintf(msg, size,
			 "noise_cpus (%llu) must be below cpus (%llu): the stencil needs a cpu "
			 "the noise does not run on",
			 (unsigned long long)v[P_NOISE_CPUS], (unsigned long long)v[P_CPUS]);
		return -TLBSIM_ERANGE;
	}
	return 0;
}

/* check() has passed. */
static int init(void *state, const uint64_t *v, uint64_t seed, enum tlbsim_isa isa)
{
	struct sn *m = state;
	unsigned k;
	int rc;

	(void)seed;
	(void)isa;
	m->cpus = (unsigned)v[P_CPUS];
	m->noise_cpu = (unsigned)v[P_NOISE_CPU];
	m->noise_cpus = (unsigned)v[P_NOISE_CPUS];
	m->workers = v[P_WORKERS] ? (unsigned)v[P_WORKERS] : m->cpus - m->noise_cpus;
	m->workers_left = m->workers;
	m->grid = v[P_GRID];
	m->nseg = (m->grid + SEG_POINTS - 1) / SEG_POINTS;
	m->sweeps = v[P_SWEEPS];
	m->point_cycles = v[P_POINT_CYCLES];
	m->array_len = trace_align_up(m->grid * m->grid * 8, TRACE_PAGE);
	m->b = TRACE_VA_BASE + trace_align_up(m->array_len, 2ull << 20);
	m->noise_threads = (unsigned)v[P_NOISE_THREADS];
	m->noise_size = trace_align_up(v[P_NOISE_SIZE], TRACE_PAGE);
	m->noise_loops = v[P_NOISE_LOOPS];
	m->noise_compute = v[P_NOISE_COMPUTE];
	rc = trace_sched_init(&m->s, 1 + m->workers + m->noise_threads, step, m);
	if (rc)
		return rc;
	for (k = 0; k <= m->workers; k++) {
		m->s.a[k].tid = k + 1;
		m->s.a[k].pid = 1;
	}
	for (k = 0; k < m->noise_threads; k++) {
		m->s.a[1 + m->workers + k].tid = m->workers + 2 + k;
		m->s.a[1 + m->workers + k].pid = 2;
	}
	/* The noise process starts with the stencil, from no thread. */
	if (m->noise_threads)
		m->s.a[1 + m->workers].state = TRACE_READY;
	return 0;
}

const struct tlbsim_generator trace_gen_stencil_noise = {
    .name = "stencil-noise",
    .summary = "pinned stencil threads with barriers, and a process toggling mprotect nearby",
    .models = "an HPC stencil code under TLBI-broadcast noise (Fujitsu, ThunderX2)",
    .params = params,
    .nr_params = NR_P,
    .state_size = sizeof(struct sn),
    .init = init,
    .next = trace_gen_next,
    .fini = trace_gen_fini,
    .check = check,
};
