/* SPDX-License-Identifier: MIT */
/*
 * The workload generators' scheduler, event builders and will-it-scale
 * harness (traces/workload.h).  The lifecycle rules mirrored here are the
 * OS model's, src/os/sched.c os_sched_event().
 */
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "tlbsim/error.h"
#include "traces/workload.h"

/* Estimated cycles of a memory syscall with its flush: about a local
 * madvise(MADV_DONTNEED) of one page (CALIBRATION.md 3.9, ~2100 cycles). */
#define EST_SYSCALL_CYCLES 2000
/* ...of a lifecycle or scheduling event (a context switch: about 1-2 us,
 * CALIBRATION.md 6.5; the low end at 3 GHz). */
#define EST_SCHED_CYCLES 3000
/* ...of an access: an L1 hit and a TLB hit, plus the loop around it. */
#define EST_ACCESS_CYCLES 4

int trace_sched_init(struct trace_sched *s, unsigned n, trace_step_fn step, void *g)
{
	memset(s, 0, sizeof(*s));
	s->a = calloc(n, sizeof(*s->a));
	if (!s->a)
		return -TLBSIM_ENOMEM;
	s->n = n;
	s->step = step;
	s->g = g;
	s->live = n;
	s->a[0].state = TRACE_READY;
	return 0;
}

void trace_sched_fini(struct trace_sched *s)
{
	free(s->a);
	s->a = NULL;
}

/* What an event costs, roughly: only the pacing of turns depends on it. */
static uint64_t est_cycles(const struct tlbsim_event *ev)
{
	switch (ev->kind) {
	case TLBSIM_EV_COMPUTE:
		return ev->compute.count;
	case TLBSIM_EV_LOAD:
	case TLBSIM_EV_STORE:
	case TLBSIM_EV_FETCH:
		return EST_ACCESS_CYCLES;
	case TLBSIM_EV_MMAP:
	case TLBSIM_EV_MUNMAP:
	case TLBSIM_EV_MPROTECT:
	case TLBSIM_EV_MADVISE:
	case TLBSIM_EV_MREMAP:
	case TLBSIM_EV_BRK:
		return EST_SYSCALL_CYCLES;
	default:
		return EST_SCHED_CYCLES;
	}
}

int trace_sched_next(struct trace_sched *s, struct tlbsim_event *ev)
{
	unsigned passed = 0, declined = 0;

	/* One full pass over the actors finds one that is ready, unless all
	 * are done. */
	while (s->live && passed <= s->n) {
		struct trace_actor *a = &s->a[s->cur];

		if (a->state == TRACE_READY && s->turn_events < TRACE_TURN_EVENTS &&
		    s->turn_cycles < TRACE_TURN_CYCLES) {
			s->step(s->g, a, ev);
			if (ev->kind != TLBSIM_EV_NONE) {
				s->turn_events++;
				s->turn_cycles += est_cycles(ev);
				return 1;
			}
			/* The actor waits for another one: its turn ends. */
			BUG_ON(++declined > s->n,
			       "a generated program's actors wait for each other");
		} else {
			passed++;
		}
		s->cur = s->cur + 1 == s->n ? 0 : s->cur + 1;
		s->turn_events = 0;
		s->turn_cycles = 0;
	}
	/* Threads left asleep with nobody to wake them would be a
	 * generator bug: the stream would end with threads that never exit. */
	BUG_ON(s->live, "a generated program ends with every thread exited");
	return 0;
}

/* ---- event builders --------------------------------------------------------- */

static void base(struct tlbsim_event *ev, unsigned kind, uint32_t tid)
{
	ev->kind = (uint8_t)kind;
	ev->tid = tid;
	ev->cpu = TLBSIM_CPU_ANY;
}

void trace_ev_access(struct tlbsim_event *ev, const struct trace_actor *a, unsigned kind,
		     uint64_t va, uint32_t size)
{
	base(ev, kind, a->tid);
	ev->access.va = va;
	ev->access.size = size;
}

void trace_ev_compute(struct tlbsim_event *ev, const struct trace_actor *a, uint64_t cycles)
{
	base(ev, TLBSIM_EV_COMPUTE, a->tid);
	ev->compute.count = cycles;
	ev->compute.unit = TLBSIM_COMPUTE_CYCLES;
}

void trace_ev_mmap(struct tlbsim_event *ev, const struct trace_actor *a, uint64_t addr,
		   uint64_t len, unsigned prot, unsigned flags)
{
	base(ev, TLBSIM_EV_MMAP, a->tid);
	ev->mmap.addr = addr;
	ev->mmap.len = len;
	ev->mmap.prot = (uint8_t)prot;
	ev->mmap.flags = (uint8_t)flags;
}

void trace_ev_munmap(struct tlbsim_event *ev, const struct trace_actor *a, uint64_t addr,
		     uint64_t len)
{
	base(ev, TLBSIM_EV_MUNMAP, a->tid);
	ev->munmap.addr = addr;
	ev->munmap.len = len;
}

void trace_ev_mprotect(struct tlbsim_event *ev, const struct trace_actor *a, uint64_t addr,
		       uint64_t len, unsigned prot)
{
	base(ev, TLBSIM_EV_MPROTECT, a->tid);
	ev->mprotect.addr = addr;
	ev->mprotect.len = len;
	ev->mprotect.prot = (uint8_t)prot;
}

void trace_ev_madvise(struct tlbsim_event *ev, const struct trace_actor *a, uint64_t addr,
		      uint64_t len, unsigned advice)
{
	base(ev, TLBSIM_EV_MADVISE, a->tid);
	ev->madvise.addr = addr;
	ev->madvise.len = len;
	ev->madvise.advice = (uint8_t)advice;
}

void trace_ev_brk(struct tlbsim_event *ev, const struct trace_actor *a, uint64_t end)
{
	base(ev, TLBSIM_EV_BRK, a->tid);
	ev->brk.end = end;
}

void trace_ev_yield(struct tlbsim_event *ev, const struct trace_actor *a)
{
	base(ev, TLBSIM_EV_YIELD, a->tid);
}

void trace_ev_affinity(struct tlbsim_event *ev, const struct trace_actor *a, unsigned first,
		       unsigned count)
{
	base(ev, TLBSIM_EV_AFFINITY, a->tid);
	ev->affinity.first = (uint16_t)first;
	ev->affinity.count = (uint16_t)count;
}

void trace_ev_pin(struct tlbsim_event *ev, const struct trace_actor *a, unsigned cpu)
{
	base(ev, TLBSIM_EV_SWITCH, a->tid);
	ev->cpu = (uint16_t)cpu;
}

void trace_ev_proc_create(struct tlbsim_event *ev, const struct trace_actor *a)
{
	base(ev, TLBSIM_EV_PROC_CREATE, TLBSIM_TID_NONE);
	ev->proc_create.pid = a->pid;
	ev->proc_create.tid = a->tid;
}

void trace_ev_spawn(struct trace_sched *s, struct tlbsim_event *ev, const struct trace_actor *a,
		    struct trace_actor *child, bool fork)
{
	if (child->state == TRACE_DONE)
		s->live++;
	if (fork) {
		base(ev, TLBSIM_EV_FORK, a->tid);
		ev->fork.pid = child->pid;
		ev->fork.tid = child->tid;
	} else {
		base(ev, TLBSIM_EV_THREAD_CREATE, a->tid);
		ev->thread_create.tid = child->tid;
	}
	/* A fresh thread (an actor slot may be reused for a later one). */
	child->state = TRACE_READY;
	child->tokens = 0;
	child->phase = 0;
	child->i = child->j = 0;
}

void trace_ev_kthread_spawn(struct trace_sched *s, struct tlbsim_event *ev,
			    const struct trace_actor *a, struct trace_actor *child)
{
	if (child->state == TRACE_DONE)
		s->live++;
	base(ev, TLBSIM_EV_KTHREAD_CREATE, a ? a->tid : TLBSIM_TID_NONE);
	ev->kthread_create.tid = child->tid;
	child->state = TRACE_READY;
	child->tokens = 0;
	child->phase = 0;
	child->i = child->j = 0;
}

void trace_ev_use_mm(struct tlbsim_event *ev, const struct trace_actor *a, uint32_t pid, bool mmget)
{
	base(ev, TLBSIM_EV_KTHREAD_USE_MM, a->tid);
	ev->kthread_use_mm.pid = pid;
	ev->kthread_use_mm.mmget = mmget;
}

void trace_ev_unuse_mm(struct tlbsim_event *ev, const struct trace_actor *a)
{
	base(ev, TLBSIM_EV_KTHREAD_UNUSE_MM, a->tid);
}

void trace_ev_reclaim(struct tlbsim_event *ev, const struct trace_actor *a, uint32_t pid,
		      uint64_t addr, uint64_t len)
{
	base(ev, TLBSIM_EV_RECLAIM, a->tid);
	ev->reclaim.pid = pid;
	ev->reclaim.addr = addr;
	ev->reclaim.len = len;
}

void trace_ev_reclaim_flush(struct tlbsim_event *ev, const struct trace_actor *a)
{
	base(ev, TLBSIM_EV_RECLAIM_FLUSH, a->tid);
}

void trace_ev_sleep(struct tlbsim_event *ev, struct trace_actor *a)
{
	base(ev, TLBSIM_EV_SLEEP, a->tid);
	if (a->tokens)
		a->tokens--;
	else
		a->state = TRACE_ASLEEP;
}

void trace_ev_wake(struct tlbsim_event *ev, const struct trace_actor *a, struct trace_actor *target)
{
	base(ev, TLBSIM_EV_WAKE, a->tid);
	ev->wake.tid = target->tid;
	if (target->state == TRACE_ASLEEP)
		target->state = TRACE_READY;
	else if (target->state != TRACE_DONE)
		target->tokens++;
}

void trace_ev_exit(struct trace_sched *s, struct tlbsim_event *ev, struct trace_actor *a)
{
	base(ev, TLBSIM_EV_EXIT, a->tid);
	a->state = TRACE_DONE;
	s->live--;
}

bool trace_toggle_step(struct tlbsim_event *ev, struct trace_actor *a, uint64_t addr, uint64_t len,
		       uint64_t compute)
{
	if (a->j % 2)
		trace_ev_compute(ev, a, compute);
	else
		trace_ev_mprotect(ev, a, addr, len, a->j ? TRACE_RW : TLBSIM_PROT_READ);
	a->j += compute ? 1 : 2;
	if (a->j < 4)
		return false;
	a->j = 0;
	return true;
}

/* ---- the will-it-scale harness ------------------------------------------------ */

void trace_harness_ids(struct trace_sched *s)
{
	unsigned k;

	for (k = 0; k < s->n; k++) {
		s->a[k].tid = k + 1;
		s->a[k].pid = 1;
	}
}

void trace_harness_main_step(struct trace_sched *s, struct trace_actor *a, unsigned nr_workers,
			     struct tlbsim_event *ev)
{
	switch (a->phase) {
	case 0:
		trace_ev_proc_create(ev, a);
		a->phase = nr_workers ? 1 : 3;
		return;
	case 1:
		trace_ev_spawn(s, ev, a, &s->a[1 + a->i], false);
		if (++a->i == nr_workers) {
			a->i = 0;
			a->phase = 2;
		}
		return;
	case 2:
		trace_ev_sleep(ev, a);
		if (++a->i == nr_workers)
			a->phase = 3;
		return;
	default:
		trace_ev_exit(s, ev, a);
		return;
	}
}

int trace_gen_next(void *state, struct tlbsim_event *ev)
{
	return trace_sched_next((struct trace_sched *)state, ev);
}

void trace_gen_fini(void *state)
{
	trace_sched_fini((struct trace_sched *)state);
}

static void harness_step(void *g, struct trace_actor *a, struct tlbsim_event *ev)
{
	struct trace_sched *s = g;

	if (a == s->a)
		trace_harness_main_step(s, a, s->n - 1, ev);
	else
		s->worker(g, a, ev);
}

int trace_harness_init(struct trace_sched *s, unsigned nr_workers, trace_step_fn worker, void *g)
{
	int rc = trace_sched_init(s, nr_workers + 1, harness_step, g);

	if (rc)
		return rc;
	s->worker = worker;
	trace_harness_ids(s);
	return 0;
}

void trace_harness_worker_end(struct trace_sched *s, struct trace_actor *a,
			      struct tlbsim_event *ev, unsigned exit_phase)
{
	if (a->phase != exit_phase) {
		trace_ev_wake(ev, a, &s->a[0]);
		a->phase = exit_phase;
	} else {
		trace_ev_exit(s, ev, a);
	}
}
