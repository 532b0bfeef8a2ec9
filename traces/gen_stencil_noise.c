/* SPDX-License-Identifier: MIT */
/*
 * stencil-noise: RIKEN's Himeno benchmark beside an mprotect noise process
 * (WORKLOADS.md 3, Fujitsu on ThunderX2; the effect is CALIBRATION.md 4.7
 * and 4.8: a single-threaded program ran 25% slower with an mprotect loop
 * on a sibling core, because every core services each broadcast TLBI).
 *
 * Himeno: one process with one thread, the Jacobi iteration of the
 * 19-point stencil in single precision over a grid of @ni x @nj x @nk
 * interior points (Himeno's size M is 254 x 126 x 126: MIMAX 257, MJMAX
 * and MKMAX 129, arrays of (n + 3) points a side).  Its matrices are
 * Himeno's: p, bnd, wrk1, wrk2 of one component, a of 4, b and c of 3,
 * each one malloc (an mmap, they are large), written whole by initmt().
 * A timed iteration (jacobi()) visits each interior plane i one page of
 * the plane at a time: loads from that page of a0..a3, b0..b2, c0..c2,
 * bnd and wrk1 and of p in planes i - 1, i and i + 1 (the j +- 1 and
 * k +- 1 neighbours fall in the same pages), a store to wrk2, and COMPUTE
 * of the page's interior points x @point_cycles; then the copy of wrk2
 * into p, page by page (a load, a store, points x @copy_cycles).  34
 * floating-point operations a point (Himeno's count): MFLOPS = 34 x ni x
 * nj x nk x iters / the timed seconds.  Page-granular accesses stand for
 * the points' (the other loads of a page hit the same translation).
 *
 * The timed loop runs on cpu @cpu: Himeno's thread initialises its arrays
 * on cpu @init_cpu (AFFINITY just after its creation), then confines
 * itself to @cpu (AFFINITY) for its iterations, so that @cpu's time while
 * running (busy, waiting, stolen while not idle) is the timed loop's and
 * nothing else's, as Himeno's own timer around jacobi() measures it
 * (reproduction metric cpu_rate).  Himeno itself is not pinned in the
 * published runs; these two moves are the measurement, not the workload.
 *
 * The noise (@noise = 1): `mprotect-attacker-threaded` started first, one
 * process whose main thread confines itself to cpus [@noise_cpu,
 * @noise_cpu + @noise_cpus) (taskset: the scheduler places it and its
 * second thread among them), mmaps @noise_size bytes, writes every page
 * (memset), creates a second thread that sleeps for ever (pause()), then
 * toggles the whole mapping read-only and back with mprotect, two calls a
 * toggle.  With one cpu both threads share it and the mm is active there
 * only; with several the sleeper ran on a second one, which keeps the mm
 * loaded while idle (lazy TLB).  It toggles while Himeno runs: in the
 * stream until Himeno's last iteration, each toggle paced as the cost of
 * its 1024-PTE calls, then @noise_tail percent more (the broadcasts slow
 * Himeno down, so its simulated end comes later than the stream's), then
 * it wakes the sleeper and both exit.  Himeno's initialising stores are
 * paced as the first-touch faults they are, so that the noise's stream
 * keeps up with Himeno's simulated time.
 *
 * Parameters: ni, nj, nk (interior points), iters, point_cycles,
 * copy_cycles, cpu, init_cpu, noise (0/1), noise_cpu, noise_cpus, noise_size,
 * noise_compute (cycles after each mprotect), noise_tail (%).
 *
 * Events (Himeno pid/tid 1; noise pid 2, toggler tid 2, sleeper tid 3;
 * matrix m of c components at A_m, each component L bytes = (ni + 3)(nj +
 * 3)(nk + 3) x 4 rounded up to 4 KiB, the matrices side by side from
 * TRACE_VA_BASE, 2 MiB apart; N = TRACE_VA_BASE in pid 2):
 *   noise:   PROC_CREATE, AFFINITY noise_cpu noise_cpus, MMAP N, STORE
 *            each page, THREAD_CREATE 3, toggles { MPROTECT N r, [COMPUTE],
 *            MPROTECT N rw, [COMPUTE] }, WAKE 3, EXIT; sleeper: SLEEP, EXIT
 *   himeno:  PROC_CREATE, AFFINITY init_cpu 1, MMAP x 7, STORE each page
 *            of each, AFFINITY cpu 1, iters x { per plane i in 1..ni, per page of a plane: LOAD x
 *            15, STORE, COMPUTE; then per plane and page: LOAD wrk2,
 *            STORE p, [COMPUTE] }, EXIT
 */
#include <stdio.h>

#include "traces/generators.h"
#include "traces/workload.h"

enum {
	P_NI,
	P_NJ,
	P_NK,
	P_ITERS,
	P_POINT_CYCLES,
	P_COPY_CYCLES,
	P_CPU,
	P_INIT_CPU,
	P_NOISE,
	P_NOISE_CPU,
	P_NOISE_CPUS,
	P_NOISE_SIZE,
	P_NOISE_COMPUTE,
	P_NOISE_TAIL,
	NR_P
};

static const struct tlbsim_gen_param params[NR_P] = {
    [P_NI] = {"ni", "interior grid points along i (Himeno M: 254)", 254, 1, 1u << 14, "points"},
    [P_NJ] = {"nj", "interior grid points along j (Himeno M: 126)", 126, 1, 1u << 14, "points"},
    [P_NK] = {"nk", "interior grid points along k (Himeno M: 126)", 126, 1, 1u << 14, "points"},
    [P_ITERS] = {"iters", "timed Jacobi iterations", 20, 1, 1u << 24, "iterations"},
    [P_POINT_CYCLES] = {"point_cycles", "cycles of the Jacobi loop per point", 16, 1, 1000,
			"cycles"},
    [P_COPY_CYCLES] = {"copy_cycles", "cycles of the wrk2 -> p copy per point", 3, 0, 1000,
		       "cycles"},
    [P_CPU] = {"cpu", "the cpu Himeno's timed loop runs on", 1, 0, 4095, "cpu"},
    [P_INIT_CPU] = {"init_cpu", "the cpu Himeno initialises its arrays on", 0, 0, 4095, "cpu"},
    [P_NOISE] = {"noise", "1: the mprotect noise process runs beside Himeno", 1, 0, 1, "0/1"},
    [P_NOISE_CPU] = {"noise_cpu", "first cpu the noise process may run on", 2, 0, 4095, "cpu"},
    [P_NOISE_CPUS] = {"noise_cpus", "cpus the noise process may run on (taskset)", 1, 1, 4096,
		      "cpus"},
    [P_NOISE_SIZE] = {"noise_size", "bytes the noise toggles", 4ull << 20, 4096, 1ull << 30,
		      "bytes"},
    [P_NOISE_COMPUTE] = {"noise_compute", "cycles after each noise mprotect", 0, 0, 1ull << 32,
			 "cycles"},
    [P_NOISE_TAIL] = {"noise_tail", "noise toggles after Himeno's stream ends, % of those before",
		      100, 0, 10000, "%"},
};

/* Himeno's matrices and their components (himenoBMT's newMat() calls). */
enum { MAT_P, MAT_BND, MAT_WRK1, MAT_WRK2, MAT_A, MAT_B, MAT_C, NR_MAT };
static const unsigned mat_components[NR_MAT] = {1, 1, 1, 1, 4, 3, 3};

/* Loads of a Jacobi page: p in 3 planes, a0-3, b0-2, c0-2, bnd, wrk1. */
#define JACOBI_LOADS 15
/* A toggle's estimated cost beyond a syscall's: its PTE updates. */
#define EST_PTE_CYCLES 20
/* A first-touch store's beyond an access's: the fault, zeroing the page
 * and its PTE (about page_fault + page_copy of the machine files). */
#define EST_FAULT_CYCLES 2500

struct sn {
	struct trace_sched s;
	uint64_t ni, nj, nk, iters, point_cycles, copy_cycles;
	unsigned cpu, init_cpu, noise, noise_cpu, noise_cpus;
	uint64_t noise_size, noise_compute, noise_tail;
	uint64_t comp_len;	 /* bytes of one component, page-rounded */
	uint64_t plane;		 /* bytes of one plane */
	uint64_t plane_pages;	 /* pages a plane's slab spans */
	uint64_t pts_per_page;	 /* interior points of a plane / plane_pages */
	uint64_t mat[NR_MAT];	 /* where each matrix starts */
	bool himeno_done;	 /* its timed loop is out (stream order) */
	uint64_t toggles_before; /* the noise's toggles by then */
};

/* ---- Himeno ------------------------------------------------------------- */

enum { H_CREATE, H_HOME, H_MMAP, H_INIT, H_MOVE, H_JACOBI, H_COPY, H_EXIT };

/* Address of page @pg of plane @i of component @c of matrix @m. */
static uint64_t at(const struct sn *m, unsigned mat, unsigned c, uint64_t i, uint64_t pg)
{
	return m->mat[mat] + c * m->comp_len + i * m->plane + pg * TRACE_PAGE;
}

/* COMPUTE of page @pg's share of a plane's interior points. */
static uint64_t page_points(const struct sn *m, uint64_t pg)
{
	uint64_t all = m->nj * m->nk;

	return pg + 1 < m->plane_pages ? m->pts_per_page
				       : all - m->pts_per_page * (m->plane_pages - 1);
}

/* One event of the Jacobi sweep: a->j / (JACOBI_LOADS + 2) is the cell
 * ((plane - 1) x plane_pages + page), a->j % that the event in it: the 15
 * loads (0-14), the store (15), the compute (16). */
static void jacobi_step(struct sn *m, struct trace_actor *a, struct tlbsim_event *ev)
{
	const uint64_t per = JACOBI_LOADS + 2;
	uint64_t cell = a->j / per, op = a->j % per;
	uint64_t i = 1 + cell / m->plane_pages, pg = cell % m->plane_pages;

	if (op < 3)
		trace_ev_access(ev, a, TLBSIM_EV_LOAD, at(m, MAT_P, 0, i - 1 + op, pg), 4);
	else if (op < 7)
		trace_ev_access(ev, a, TLBSIM_EV_LOAD, at(m, MAT_A, (unsigned)(op - 3), i, pg), 4);
	else if (op < 10)
		trace_ev_access(ev, a, TLBSIM_EV_LOAD, at(m, MAT_B, (unsigned)(op - 7), i, pg), 4);
	else if (op < 13)
		trace_ev_access(ev, a, TLBSIM_EV_LOAD, at(m, MAT_C, (unsigned)(op - 10), i, pg), 4);
	else if (op == 13)
		trace_ev_access(ev, a, TLBSIM_EV_LOAD, at(m, MAT_BND, 0, i, pg), 4);
	else if (op == 14)
		trace_ev_access(ev, a, TLBSIM_EV_LOAD, at(m, MAT_WRK1, 0, i, pg), 4);
	else if (op == 15)
		trace_ev_access(ev, a, TLBSIM_EV_STORE, at(m, MAT_WRK2, 0, i, pg), 4);
	else
		trace_ev_compute(ev, a, page_points(m, pg) * m->point_cycles);
	if (++a->j == m->ni * m->plane_pages * per) {
		a->j = 0;
		a->phase = H_COPY;
	}
}

static void copy_step(struct sn *m, struct trace_actor *a, struct tlbsim_event *ev)
{
	uint64_t cell = a->j / 3, op = a->j % 3;
	uint64_t i = 1 + cell / m->plane_pages, pg = cell % m->plane_pages;

	if (op == 0)
		trace_ev_access(ev, a, TLBSIM_EV_LOAD, at(m, MAT_WRK2, 0, i, pg), 4);
	else if (op == 1)
		trace_ev_access(ev, a, TLBSIM_EV_STORE, at(m, MAT_P, 0, i, pg), 4);
	else
		trace_ev_compute(ev, a, page_points(m, pg) * m->copy_cycles);
	/* Without copy cycles the compute (op 2) is left out. */
	a->j += op == 1 && !m->copy_cycles ? 2 : 1;
	if (a->j == m->ni * m->plane_pages * 3) {
		a->j = 0;
		if (++a->i == m->iters) {
			a->phase = H_EXIT;
			m->himeno_done = true;
		} else {
			a->phase = H_JACOBI;
		}
	}
}

static void himeno_step(struct sn *m, struct trace_actor *a, struct tlbsim_event *ev)
{
	switch (a->phase) {
	case H_CREATE:
		trace_ev_proc_create(ev, a);
		a->phase = H_HOME;
		break;
	case H_HOME:
		trace_ev_affinity(ev, a, m->init_cpu, 1);
		a->phase = H_MMAP;
		break;
	case H_MMAP:
		/* a->i: the matrix */
		trace_ev_mmap(ev, a, m->mat[a->i], mat_components[a->i] * m->comp_len, TRACE_RW,
			      TRACE_ANON);
		if (++a->i == NR_MAT) {
			a->i = 0;
			a->phase = H_INIT;
		}
		break;
	case H_INIT:
		/* initmt(): every element written; a->i the matrix, a->j its page */
		trace_ev_access(ev, a, TLBSIM_EV_STORE, m->mat[a->i] + a->j * TRACE_PAGE, 4);
		trace_turn_charge(&m->s, EST_FAULT_CYCLES);
		if (++a->j == mat_components[a->i] * m->comp_len / TRACE_PAGE) {
			a->j = 0;
			if (++a->i == NR_MAT) {
				a->i = 0;
				a->phase = H_MOVE;
			}
		}
		break;
	case H_MOVE:
		trace_ev_affinity(ev, a, m->cpu, 1);
		a->phase = H_JACOBI;
		break;
	case H_JACOBI:
		jacobi_step(m, a, ev);
		break;
	case H_COPY:
		copy_step(m, a, ev);
		break;
	default:
		trace_ev_exit(&m->s, ev, a);
		break;
	}
}

/* ---- the noise ------------------------------------------------------------- */

enum { N_CREATE, N_AFFINITY, N_MMAP, N_TOUCH, N_SPAWN, N_TOGGLE, N_WAKE, N_EXIT };

static void noise_step(struct sn *m, struct trace_actor *a, struct tlbsim_event *ev)
{
	struct trace_actor *sleeper = a + 1;
	uint64_t pages = m->noise_size / TRACE_PAGE;

	switch (a->phase) {
	case N_CREATE:
		trace_ev_proc_create(ev, a);
		a->phase = N_AFFINITY;
		break;
	case N_AFFINITY:
		trace_ev_affinity(ev, a, m->noise_cpu, m->noise_cpus);
		a->phase = N_MMAP;
		break;
	case N_MMAP:
		trace_ev_mmap(ev, a, TRACE_VA_BASE, m->noise_size, TRACE_RW, TRACE_ANON);
		a->phase = N_TOUCH;
		break;
	case N_TOUCH:
		trace_ev_access(ev, a, TLBSIM_EV_STORE, TRACE_VA_BASE + a->j * TRACE_PAGE, 8);
		if (++a->j == pages) {
			a->j = 0;
			a->phase = N_SPAWN;
		}
		break;
	case N_SPAWN:
		trace_ev_spawn(&m->s, ev, a, sleeper, false);
		a->phase = N_TOGGLE;
		break;
	case N_TOGGLE:
		/* a->i: toggles done; the end is checked between toggles. */
		if (a->j == 0 && m->himeno_done && !m->toggles_before)
			m->toggles_before = a->i ? a->i : 1;
		if (a->j == 0 && m->toggles_before &&
		    a->i >= m->toggles_before + m->toggles_before * m->noise_tail / 100) {
			trace_ev_wake(ev, a, sleeper);
			a->phase = N_EXIT;
			break;
		}
		if (trace_toggle_step(ev, a, TRACE_VA_BASE, m->noise_size, m->noise_compute))
			a->i++;
		if (ev->kind == TLBSIM_EV_MPROTECT)
			trace_turn_charge(&m->s, pages * EST_PTE_CYCLES);
		break;
	default:
		trace_ev_exit(&m->s, ev, a);
		break;
	}
}

/* The sleeper: pause() until the toggler's WAKE stands for exit_group(). */
static void sleeper_step(struct sn *m, struct trace_actor *a, struct tlbsim_event *ev)
{
	if (a->phase++ == 0)
		trace_ev_sleep(ev, a);
	else
		trace_ev_exit(&m->s, ev, a);
}

static void step(void *g, struct trace_actor *a, struct tlbsim_event *ev)
{
	struct sn *m = g;
	unsigned k = (unsigned)(a - m->s.a);

	if (k == 0 && m->noise)
		noise_step(m, a, ev);
	else if (k == 1 && m->noise)
		sleeper_step(m, a, ev);
	else
		himeno_step(m, a, ev);
}

/* The cpus must be apart: the timed loop's is neither the noise's nor the
 * one Himeno initialises on. */
static int check(const uint64_t *v, char *msg, size_t size)
{
	if (v[P_CPU] == v[P_INIT_CPU]) {
		snprintf(msg, size,
			 "cpu and init_cpu (%llu) must differ: the timed loop's cpu runs nothing "
			 "else",
			 (unsigned long long)v[P_CPU]);
		return -TLBSIM_ERANGE;
	}
	if (v[P_NOISE] && v[P_CPU] >= v[P_NOISE_CPU] &&
	    v[P_CPU] < v[P_NOISE_CPU] + v[P_NOISE_CPUS]) {
		snprintf(msg, size,
			 "cpu (%llu) is one of the noise's cpus (noise_cpu %llu, noise_cpus %llu): "
			 "Himeno's cpu is not the noise's",
			 (unsigned long long)v[P_CPU], (unsigned long long)v[P_NOISE_CPU],
			 (unsigned long long)v[P_NOISE_CPUS]);
		return -TLBSIM_ERANGE;
	}
	if (v[P_NOISE_CPU] + v[P_NOISE_CPUS] > 4096) {
		snprintf(msg, size, "noise_cpu + noise_cpus (%llu) must not exceed 4096",
			 (unsigned long long)(v[P_NOISE_CPU] + v[P_NOISE_CPUS]));
		return -TLBSIM_ERANGE;
	}
	return 0;
}

static int init(void *state, const uint64_t *v, uint64_t seed, enum tlbsim_isa isa)
{
	struct sn *m = state;
	uint64_t side_j, side_k, next = TRACE_VA_BASE;
	unsigned k, nr;
	int rc;

	(void)seed;
	(void)isa;
	m->ni = v[P_NI];
	m->nj = v[P_NJ];
	m->nk = v[P_NK];
	m->iters = v[P_ITERS];
	m->point_cycles = v[P_POINT_CYCLES];
	m->copy_cycles = v[P_COPY_CYCLES];
	m->cpu = (unsigned)v[P_CPU];
	m->init_cpu = (unsigned)v[P_INIT_CPU];
	m->noise = (unsigned)v[P_NOISE];
	m->noise_cpu = (unsigned)v[P_NOISE_CPU];
	m->noise_cpus = (unsigned)v[P_NOISE_CPUS];
	m->noise_size = trace_align_up(v[P_NOISE_SIZE], TRACE_PAGE);
	m->noise_compute = v[P_NOISE_COMPUTE];
	m->noise_tail = v[P_NOISE_TAIL];
	side_j = m->nj + 3;
	side_k = m->nk + 3;
	m->plane = side_j * side_k * 4;
	m->comp_len = trace_align_up((m->ni + 3) * m->plane, TRACE_PAGE);
	m->plane_pages = (m->plane + TRACE_PAGE - 1) / TRACE_PAGE;
	m->pts_per_page = m->nj * m->nk / m->plane_pages;
	for (k = 0; k < NR_MAT; k++) {
		m->mat[k] = next;
		next = trace_align_up(next + mat_components[k] * m->comp_len, 2ull << 20);
	}
	/* Actors: the noise's two threads first (started first), Himeno. */
	nr = m->noise ? 3 : 1;
	rc = trace_sched_init(&m->s, nr, step, m);
	if (rc)
		return rc;
	if (m->noise) {
		m->s.a[0].tid = m->s.a[0].pid = 2;
		m->s.a[1].tid = 3;
		m->s.a[1].pid = 2;
	}
	m->s.a[nr - 1].tid = m->s.a[nr - 1].pid = 1;
	/* Himeno starts at once too, from no thread. */
	m->s.a[nr - 1].state = TRACE_READY;
	return 0;
}

const struct tlbsim_generator trace_gen_stencil_noise = {
    .name = "stencil-noise",
    .summary = "the Himeno benchmark beside a process toggling mprotect on other cpus",
    .models = "Himeno under TLBI-broadcast noise (Fujitsu, ThunderX2; WORKLOADS.md 3)",
    .params = params,
    .nr_params = NR_P,
    .state_size = sizeof(struct sn),
    .init = init,
    .next = trace_gen_next,
    .fini = trace_gen_fini,
    .check = check,
};
