/* SPDX-License-Identifier: MIT */
/*
 * Test support: run a hand-built event stream (support/events.h) on a
 * machine with round costs (support/machines.h) and keep the simulation
 * and its OS model for inspection.  Header-only; for cmocka tests of the
 * OS model and the policies.
 */
#ifndef TLBSIM_TESTS_SIM_H
#define TLBSIM_TESTS_SIM_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "os/os.h"
#include "support/events.h"
#include "support/machines.h"

#define RW (TLBSIM_PROT_READ | TLBSIM_PROT_WRITE)
#define PAGE 4096ull

struct run {
	struct tlbsim_machine *m;
	tlbsim_sim *sim;
	struct os *os;
	int rc; /* tlbsim_sim_run()'s result */
};

/* Options of run_opts(); zero means the default. */
struct run_opts {
	int threads;		/* OpenMP threads (default 1) */
	uint64_t max_cycles;	/* stop at this time (default: no cap) */
	uint64_t sched_slice;	/* the machine's time slice, cycles (default 0: none) */
	unsigned asid_bits;	/* the machine's ASID/PCID width (default: the ISA's) */
	unsigned os_flags;	/* TLBSIM_OS_* */
	unsigned lru_page;	/* the machine's lru_page, cycles (default 0: no lock) */
	unsigned page_copy_scale; /* the machine's page_copy times this (default 1) */
	bool ordered;		/* ordered replay (struct tlbsim_sim_config) */
};

static inline void run_opts(struct run *r, enum tlbsim_isa isa, unsigned cpus, const char *policy,
			    struct evlist *l, const struct run_opts *o)
{
	struct tlbsim_sim_config cfg = {0};
	struct tlbsim_error err;

	r->m = test_machine(isa, cpus);
	r->m->costs.sched_slice = o->sched_slice;
	r->m->costs.lru_page = o->lru_page;
	if (o->page_copy_scale)
		r->m->costs.page_copy *= o->page_copy_scale;
	if (o->asid_bits)
		r->m->asid_bits = o->asid_bits;
	cfg.machine = r->m;
	cfg.policy = policy;
	cfg.threads = o->threads ? o->threads : 1;
	/* Every window shared, however short: the parallel phase runs. */
	cfg.share_all = cfg.threads > 1;
	cfg.max_cycles = o->max_cycles;
	cfg.os_flags = o->os_flags;
	cfg.ordered = o->ordered;
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_sim_create(&cfg, &r->sim, &err), 0);
	r->os = os_of_sim(r->sim);
	l->next = 0;
	r->rc = tlbsim_sim_run(r->sim, evlist_next, l, &err);
	assert_true(r->rc == 0 || (o->max_cycles && r->rc == 1));
}

/* Run @l to its end with one host thread and no time slices. */
static inline void run_events(struct run *r, enum tlbsim_isa isa, unsigned cpus, const char *policy,
			      struct evlist *l)
{
	struct run_opts o = {0};

	run_opts(r, isa, cpus, policy, l, &o);
}

static inline void run_free(struct run *r)
{
	tlbsim_sim_destroy(r->sim);
	tlbsim_machine_free(r->m);
}

/* Counter @kind (enum tlbsim_inval_kind) of cpu @cpu's MMU. */
static inline uint64_t inval(struct run *r, unsigned cpu, enum tlbsim_inval_kind kind)
{
	return tlbsim_mmu_stats(os_hw(r->os, cpu)->mmu)->inval[kind];
}

static inline uint64_t table_frames(struct run *r)
{
	return tlbsim_physmem_nr_used(r->os->pm, TLBSIM_FRAME_TABLE);
}

static inline uint64_t data_frames(struct run *r)
{
	return tlbsim_physmem_nr_used(r->os->pm, TLBSIM_FRAME_DATA);
}

/* PROC_CREATE performed by thread @tid (not at read time, as with
 * ev_proc()): the new process starts when @tid gets there. */
static inline void ev_proc_by(struct evlist *l, uint32_t tid, uint32_t pid, uint32_t new_tid)
{
	struct tlbsim_event *e = ev_add(l, TLBSIM_EV_PROC_CREATE, tid);

	e->proc_create.pid = pid;
	e->proc_create.tid = new_tid;
}

static inline void ev_mremap(struct evlist *l, uint32_t tid, uint64_t old_addr, uint64_t old_len,
			     uint64_t new_addr, uint64_t new_len, unsigned flags)
{
	struct tlbsim_event *e = ev_add(l, TLBSIM_EV_MREMAP, tid);

	e->mremap.old_addr = old_addr;
	e->mremap.old_len = old_len;
	e->mremap.new_addr = new_addr;
	e->mremap.new_len = new_len;
	e->mremap.flags = (uint8_t)flags;
}

static inline void ev_brk(struct evlist *l, uint32_t tid, uint64_t end)
{
	ev_add(l, TLBSIM_EV_BRK, tid)->brk.end = end;
}

#endif
