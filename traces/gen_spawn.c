/* SPDX-License-Identifier: MIT */
/*
 * spawn: a recorded process (a process template, include/tlbsim/
 * template.h) started many times, in sequence and in parallel, by shells,
 * as the shell script of WORKLOADS.md 5a does with GNU sort:
 *
 *   for x in $(seq SHELLS); do
 *     (for i in $(seq RUNS); do /usr/bin/sort </usr/bin/sort >/dev/null; done) &
 *   done; wait
 *
 * The script (a bash process) forks @shells subshells at once and waits
 * for them; each subshell runs @runs copies one after another: fork, the
 * child execs the template, runs its recorded events with its own pid,
 * tids and address space, and exits; the subshell waits for it (wait4()),
 * then starts the next.  Every process is placed by the OS model's
 * scheduler (no SWITCH).
 *
 * What bash does around the fork is not recorded; chosen, as a kernel
 * engineer would picture it (docs/templates.md): the script has written
 * @shell_pages pages of private memory (its heap, stack and data: about
 * 1 MiB for a bash process by default), which every fork shares
 * copy-on-write; after each fork the (sub)shell writes @shell_writes of
 * those pages (its job table, variables, stack: copy-on-write faults while
 * the child still shares them) and spends @compute cycles of its own
 * work; the child writes @child_writes pages before its exec (setting up
 * the redirections).  The fork's own kernel work is the OS model's (the
 * PTE copies and the flush of the parent, os_fork_mm()), as is the exec's
 * (the copy torn down) and everything the recording then does (mmaps of
 * the loader and libc, page faults, its syscalls, its exit).
 *
 * Parameters: shells, runs, shell_pages, shell_writes (<= shell_pages),
 * child_writes (<= shell_pages), compute.
 *
 * Events (the script is pid/tid 1, subshell s pid/tid 2 + s, copy n = s *
 * runs + i of subshell s has pid P = 2 + shells + n * T and tids P .. P +
 * T - 1, T the template's threads; S = TRACE_VA_BASE, pages shell_pages):
 *   script:   PROC_CREATE, MMAP S rw, STORE each page of S,
 *             FORK x shells, SLEEP x shells, EXIT
 *   subshell: runs x { FORK copy, [COMPUTE], STORE S + k*4K for k <
 *             shell_writes, SLEEP }, WAKE script, EXIT
 *   copy:     STORE S + k*4K for k < child_writes, EXEC, the template's
 *             events renamed (its proc_create dropped), a WAKE of the
 *             subshell by the thread that exits last, just before that exit
 */
#include <stdio.h>
#include <stdlib.h>

#include "traces/generators.h"
#include "traces/template.h"
#include "traces/workload.h"

enum { P_SHELLS, P_RUNS, P_SHELL_PAGES, P_SHELL_WRITES, P_CHILD_WRITES, P_COMPUTE, NR_P };

static const struct tlbsim_gen_param params[NR_P] = {
    [P_SHELLS] = {"shells", "subshells running copies at once", 256, 1, 65536, "shells"},
    [P_RUNS] = {"runs", "copies each subshell runs in sequence", 32, 1, 1u << 20, "copies"},
    [P_SHELL_PAGES] = {"shell_pages", "pages of private memory the shell has written", 256, 1,
		       1u << 20, "pages"},
    [P_SHELL_WRITES] = {"shell_writes", "pages a shell writes after each fork", 16, 0, 1u << 20,
			"pages"},
    [P_CHILD_WRITES] = {"child_writes", "pages a child writes before its exec", 16, 0, 1u << 20,
			"pages"},
    [P_COMPUTE] = {"compute", "cycles of the shell's own work per copy", 10000, 0, 1ull << 32,
		   "cycles"},
};

struct sw {
	struct trace_sched s;
	unsigned shells;
	uint64_t runs, shell_pages, shell_writes, child_writes, compute;
	const tlbsim_template *t;
	unsigned threads;	 /* the template's, tids per copy */
	struct trace_copy *copy; /* per subshell, its running copy */
};

/* Actors: 0 the script, 1 + s subshell s, 1 + shells + s its copy's slot. */
enum { SC_CREATE, SC_MMAP, SC_TOUCH, SC_FORK, SC_WAIT, SC_EXIT };
enum { SH_FORK, SH_COMPUTE, SH_WRITE, SH_WAIT, SH_WAKE, SH_EXIT };
enum { CP_WRITE, CP_RUN };

static void script(struct sw *m, struct trace_actor *a, struct tlbsim_event *ev)
{
	switch (a->phase) {
	case SC_CREATE:
		trace_ev_proc_create(ev, a);
		a->phase = SC_MMAP;
		break;
	case SC_MMAP:
		trace_ev_mmap(ev, a, TRACE_VA_BASE, m->shell_pages * TRACE_PAGE, TRACE_RW,
			      TRACE_ANON);
		a->phase = SC_TOUCH;
		break;
	case SC_TOUCH:
		trace_ev_access(ev, a, TLBSIM_EV_STORE, TRACE_VA_BASE + a->j * TRACE_PAGE, 8);
		if (++a->j == m->shell_pages)
			a->phase = SC_FORK;
		break;
	case SC_FORK:
		trace_ev_spawn(&m->s, ev, a, a + 1 + a->i, true);
		if (++a->i == m->shells) {
			a->i = 0;
			a->phase = SC_WAIT;
		}
		break;
	case SC_WAIT:
		trace_ev_sleep(ev, a);
		if (++a->i == m->shells)
			a->phase = SC_EXIT;
		break;
	default:
		trace_ev_exit(&m->s, ev, a);
		break;
	}
}

static void subshell(struct sw *m, struct trace_actor *a, struct tlbsim_event *ev)
{
	unsigned sh = (unsigned)(a - m->s.a) - 1;
	struct trace_actor *child = a + m->shells;

	switch (a->phase) {
	case SH_FORK:
		/* The previous copy, which woke this shell, has its exit to
		 * emit yet: the slot is free once it is out. */
		if (child->state != TRACE_UNBORN && child->state != TRACE_DONE)
			return;
		child->pid = child->tid =
		    2 + m->shells + (uint32_t)((sh * m->runs + a->i) * m->threads);
		trace_ev_spawn(&m->s, ev, a, child, true);
		a->phase = m->compute ? SH_COMPUTE : m->shell_writes ? SH_WRITE : SH_WAIT;
		break;
	case SH_COMPUTE:
		trace_ev_compute(ev, a, m->compute);
		a->phase = m->shell_writes ? SH_WRITE : SH_WAIT;
		break;
	case SH_WRITE:
		trace_ev_access(ev, a, TLBSIM_EV_STORE, TRACE_VA_BASE + a->j * TRACE_PAGE, 8);
		if (++a->j == m->shell_writes) {
			a->j = 0;
			a->phase = SH_WAIT;
		}
		break;
	case SH_WAIT:
		trace_ev_sleep(ev, a);
		a->phase = ++a->i == m->runs ? SH_WAKE : SH_FORK;
		break;
	case SH_WAKE:
		trace_ev_wake(ev, a, m->s.a);
		a->phase = SH_EXIT;
		break;
	default:
		trace_ev_exit(&m->s, ev, a);
		break;
	}
}

/* EXEC of copy @a: its template starts (out of memory: it makes no events
 * after the exec but its wake of the parent and its exit). */
static void exec_copy(struct sw *m, struct trace_actor *a, struct trace_copy *c,
		      const struct trace_actor *parent, struct tlbsim_event *ev)
{
	ev->kind = TLBSIM_EV_EXEC;
	ev->tid = a->tid;
	ev->cpu = TLBSIM_CPU_ANY;
	if (trace_copy_start(c, m->t, a->tid, parent->tid))
		c->r = NULL;
	a->phase = CP_RUN;
}

static void copy(struct sw *m, struct trace_actor *a, struct tlbsim_event *ev)
{
	unsigned sh = (unsigned)(a - m->s.a) - 1 - m->shells;
	struct trace_actor *parent = a - m->shells;
	struct trace_copy *c = &m->copy[sh];
	uint32_t tid;
	bool last;

	if (a->phase == CP_WRITE) {
		if (a->j < m->child_writes)
			trace_ev_access(ev, a, TLBSIM_EV_STORE, TRACE_VA_BASE + a->j++ * TRACE_PAGE,
					8);
		else
			exec_copy(m, a, c, parent, ev);
		return;
	}
	if (!trace_copy_next(c, ev, &last)) {
		/* A copy that could not start: a->j marks its wake as out. */
		if (a->j != UINT64_MAX) {
			a->j = UINT64_MAX;
			trace_ev_wake(ev, a, parent);
		} else {
			trace_ev_exit(&m->s, ev, a);
		}
		return;
	}
	tid = ev->tid;
	if (ev->kind == TLBSIM_EV_WAKE && ev->wake.tid == parent->tid)
		trace_ev_wake(ev, a, parent);
	else if (last)
		trace_ev_exit(&m->s, ev, a);
	ev->tid = tid;
}

static void step(void *g, struct trace_actor *a, struct tlbsim_event *ev)
{
	struct sw *m = g;
	unsigned k = (unsigned)(a - m->s.a);

	if (k == 0)
		script(m, a, ev);
	else if (k <= m->shells)
		subshell(m, a, ev);
	else
		copy(m, a, ev);
}

static int check(const uint64_t *v, char *msg, size_t size)
{
	if (v[P_SHELL_WRITES] > v[P_SHELL_PAGES] || v[P_CHILD_WRITES] > v[P_SHELL_PAGES]) {
		snprintf(msg, size,
			 "shell_writes (%llu) and child_writes (%llu) must not exceed shell_pages "
			 "(%llu): they write pages of the shell's memory",
			 (unsigned long long)v[P_SHELL_WRITES],
			 (unsigned long long)v[P_CHILD_WRITES],
			 (unsigned long long)v[P_SHELL_PAGES]);
		return -TLBSIM_ERANGE;
	}
	return 0;
}

static int init(void *state, const uint64_t *v, uint64_t seed, enum tlbsim_isa isa)
{
	struct sw *m = state;
	unsigned s;
	int rc;

	(void)seed;
	(void)isa;
	m->shells = (unsigned)v[P_SHELLS];
	m->runs = v[P_RUNS];
	m->shell_pages = v[P_SHELL_PAGES];
	m->shell_writes = v[P_SHELL_WRITES];
	m->child_writes = v[P_CHILD_WRITES];
	m->compute = v[P_COMPUTE];
	m->copy = calloc(m->shells, sizeof(*m->copy));
	if (!m->copy)
		return -TLBSIM_ENOMEM;
	rc = trace_sched_init(&m->s, 1 + 2 * m->shells, step, m);
	if (rc)
		return rc;
	m->s.a[0].tid = m->s.a[0].pid = 1;
	for (s = 0; s < m->shells; s++)
		m->s.a[1 + s].tid = m->s.a[1 + s].pid = 2 + s;
	return 0;
}

static int init_templates(void *state, tlbsim_template *const *t, unsigned n)
{
	struct sw *m = state;
	uint64_t last;

	(void)n;
	m->t = t[0];
	m->threads = tlbsim_template_info(m->t)->threads;
	/* The copies' tids, from 2 + shells on, must stay within 32 bits. */
	last = 2 + m->shells + (uint64_t)m->shells * m->runs * m->threads;
	return last > UINT32_MAX ? -TLBSIM_ERANGE : 0;
}

static void fini(void *state)
{
	struct sw *m = state;

	for (unsigned s = 0; m->copy && s < m->shells; s++)
		trace_copy_stop(&m->copy[s]);
	free(m->copy);
	trace_gen_fini(state);
}

const struct tlbsim_generator trace_gen_spawn = {
    .name = "spawn",
    .summary = "shells forking and exec'ing a recorded process, in sequence and in parallel",
    .models = "a shell script running a real program many times (WORKLOADS.md 5a: sort)",
    .params = params,
    .nr_params = NR_P,
    .state_size = sizeof(struct sw),
    .init = init,
    .next = trace_gen_next,
    .fini = fini,
    .check = check,
    .nr_templates = 1,
    .init_templates = init_templates,
};
