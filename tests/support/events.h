/* SPDX-License-Identifier: MIT */
/*
 * Test support: build event streams by hand and feed them to a simulation
 * from memory.  Header-only, so any test program can include it.
 */
#ifndef TLBSIM_TESTS_EVENTS_H
#define TLBSIM_TESTS_EVENTS_H

#include <stdlib.h>
#include <string.h>

#include "tlbsim/event.h"
#include "tlbsim/sim.h"

struct evlist {
	struct tlbsim_event *ev;
	size_t n, cap, next;
};

static inline struct tlbsim_event *ev_add(struct evlist *l, unsigned kind, uint32_t tid)
{
	struct tlbsim_event *e;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->ev = realloc(l->ev, l->cap * sizeof(*l->ev));
	}
	e = &l->ev[l->n++];
	memset(e, 0, sizeof(*e));
	e->kind = (uint8_t)kind;
	e->tid = tid;
	e->cpu = TLBSIM_CPU_ANY;
	return e;
}

static inline void ev_proc(struct evlist *l, uint32_t pid, uint32_t tid)
{
	struct tlbsim_event *e = ev_add(l, TLBSIM_EV_PROC_CREATE, TLBSIM_TID_NONE);

	e->proc_create.pid = pid;
	e->proc_create.tid = tid;
}

static inline void ev_thread(struct evlist *l, uint32_t tid, uint32_t new_tid)
{
	ev_add(l, TLBSIM_EV_THREAD_CREATE, tid)->thread_create.tid = new_tid;
}

static inline void ev_fork(struct evlist *l, uint32_t tid, uint32_t pid, uint32_t child_tid)
{
	struct tlbsim_event *e = ev_add(l, TLBSIM_EV_FORK, tid);

	e->fork.pid = pid;
	e->fork.tid = child_tid;
}

static inline void ev_pin(struct evlist *l, uint32_t tid, unsigned cpu)
{
	ev_add(l, TLBSIM_EV_SWITCH, tid)->cpu = (uint16_t)cpu;
}

/* AFFINITY: @tid may run on cpus [@first, @first + @count). */
static inline void ev_affinity(struct evlist *l, uint32_t tid, unsigned first, unsigned count)
{
	struct tlbsim_event *e = ev_add(l, TLBSIM_EV_AFFINITY, tid);

	e->affinity.first = (uint16_t)first;
	e->affinity.count = (uint16_t)count;
}

static inline void ev_access(struct evlist *l, uint32_t tid, unsigned kind, uint64_t va)
{
	struct tlbsim_event *e = ev_add(l, kind, tid);

	e->access.va = va;
	e->access.size = 8;
}

static inline void ev_compute(struct evlist *l, uint32_t tid, uint64_t cycles)
{
	ev_add(l, TLBSIM_EV_COMPUTE, tid)->compute.count = cycles;
}

static inline void ev_mmap(struct evlist *l, uint32_t tid, uint64_t addr, uint64_t len, unsigned prot,
			   unsigned flags)
{
	struct tlbsim_event *e = ev_add(l, TLBSIM_EV_MMAP, tid);

	e->mmap.addr = addr;
	e->mmap.len = len;
	e->mmap.prot = (uint8_t)prot;
	e->mmap.flags = (uint8_t)(flags ? flags : TLBSIM_MAP_PRIVATE | TLBSIM_MAP_ANON);
}

static inline void ev_munmap(struct evlist *l, uint32_t tid, uint64_t addr, uint64_t len)
{
	struct tlbsim_event *e = ev_add(l, TLBSIM_EV_MUNMAP, tid);

	e->munmap.addr = addr;
	e->munmap.len = len;
}

static inline void ev_mprotect(struct evlist *l, uint32_t tid, uint64_t addr, uint64_t len,
			       unsigned prot)
{
	struct tlbsim_event *e = ev_add(l, TLBSIM_EV_MPROTECT, tid);

	e->mprotect.addr = addr;
	e->mprotect.len = len;
	e->mprotect.prot = (uint8_t)prot;
}

static inline void ev_madvise(struct evlist *l, uint32_t tid, uint64_t addr, uint64_t len,
			      unsigned advice)
{
	struct tlbsim_event *e = ev_add(l, TLBSIM_EV_MADVISE, tid);

	e->madvise.addr = addr;
	e->madvise.len = len;
	e->madvise.advice = (uint8_t)advice;
}

static inline void ev_simple(struct evlist *l, unsigned kind, uint32_t tid)
{
	ev_add(l, kind, tid);
}

static inline void ev_wake(struct evlist *l, uint32_t tid, uint32_t target)
{
	ev_add(l, TLBSIM_EV_WAKE, tid)->wake.tid = target;
}

/* A tlbsim_event_source_fn over an evlist. */
static inline int evlist_next(void *arg, struct tlbsim_event *ev, struct tlbsim_error *err)
{
	struct evlist *l = arg;

	(void)err;
	if (l->next == l->n)
		return 0;
	*ev = l->ev[l->next++];
	return 1;
}

static inline void evlist_free(struct evlist *l)
{
	free(l->ev);
	memset(l, 0, sizeof(*l));
}

#endif
