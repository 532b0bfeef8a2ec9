/* SPDX-License-Identifier: MIT */
/*
 * What the workload generators (traces/gen_*.c) share; internal, prefix
 * trace_.
 *
 * A generated program is a set of threads ("actors"), each a small state
 * machine that emits its next event when asked.  The scheduler here
 * interleaves them in the one global stream in turns of a few events
 * (round-robin), because the OS model fills every thread's queue from that
 * one stream (src/os/sim.c refill()): a thread whose events came in one
 * long run would have them buffered far ahead of the others.  A turn ends
 * after TRACE_TURN_EVENTS events or TRACE_TURN_CYCLES estimated cycles,
 * whichever comes first, so that a thread of cheap events (accesses) and
 * one of costly events (syscalls) move through the stream at about the same
 * simulated pace.
 *
 * The scheduler also mirrors the OS model's lifecycle rules
 * (src/os/sched.c) so that a thread's events enter the stream only once the
 * thread could have reached them: a thread emits nothing before its
 * THREAD_CREATE or FORK; after a SLEEP it emits nothing until a WAKE; a
 * WAKE that comes before the SLEEP it ends is kept as a token, which the
 * SLEEP then consumes without blocking; after EXIT it is done.
 *
 * Virtual addresses: every generator places its mappings from
 * TRACE_VA_BASE up, at fixed addresses (an MMAP event names where the
 * mapping went).
 */
#ifndef TLBSIM_TRACES_WORKLOAD_H
#define TLBSIM_TRACES_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "tlbsim/event.h"
#include "tlbsim/pgtable.h"

#define TRACE_PAGE (1ull << TLBSIM_PAGE_SHIFT)
/* 16 TiB: far below the 128 TiB of x86-64 4-level user space and the
 * 256 TiB of arm64 48-bit VAs, above any program's brk heap, and 1 GiB
 * aligned so that mappings laid out from it start on a fresh PUD. */
#define TRACE_VA_BASE 0x100000000000ull
/* Bytes a generator may lay out from TRACE_VA_BASE: up to 80 TiB, below
 * the brk heaps at 0x5555... (85 TiB) and the 128 TiB x86-64 limit. */
#define TRACE_VA_SPAN (64ull << 40)
#define TRACE_RW (TLBSIM_PROT_READ | TLBSIM_PROT_WRITE)
#define TRACE_ANON (TLBSIM_MAP_PRIVATE | TLBSIM_MAP_ANON)

/* A turn: at most this many events of one thread in a row... */
#define TRACE_TURN_EVENTS 256
/* ...or about this many cycles of its simulated time (7 us at 3 GHz). */
#define TRACE_TURN_CYCLES 20000

enum trace_actor_state {
	TRACE_UNBORN = 0, /* not created yet */
	TRACE_READY,	  /* has its next event to emit */
	TRACE_ASLEEP,	  /* emitted a SLEEP no WAKE has ended yet */
	TRACE_DONE,	  /* emitted its EXIT */
};

/**
 * struct trace_actor - one thread of a generated program
 * @tid, @pid: its ids in the stream
 * @state: enum trace_actor_state
 * @tokens: WAKEs received while not asleep (src/os/sched.c wake_tokens)
 * @phase: where its program is; the generator's own numbering, 0 at start
 * @i, @j: the generator's loop counters, 0 at start and at each spawn
 */
struct trace_actor {
	uint32_t tid, pid;
	uint8_t state;
	uint32_t tokens;
	unsigned phase;
	uint64_t i, j;
};

/* Emit @a's next event into @ev (zeroed): one event per call, or none
 * (@ev left TLBSIM_EV_NONE) when the actor must wait for another one (a
 * child slot to be free): its turn then ends. */
typedef void (*trace_step_fn)(void *g, struct trace_actor *a, struct tlbsim_event *ev);

/**
 * struct trace_sched - the round-robin interleaving of a program's threads
 * @a: the actors, @n of them (allocated by trace_sched_init)
 * @step: the generator's step function, called with @g
 * @cur: whose turn it is; @turn_events, @turn_cycles: spent in the turn
 * @live: actors not done (those not born yet count)
 */
struct trace_sched {
	struct trace_actor *a;
	unsigned n;
	trace_step_fn step;
	void *g;
	unsigned cur, turn_events;
	uint64_t turn_cycles;
	unsigned live;
	trace_step_fn worker; /* harness programs: the workers' step */
};

/*
 * Allocate @n actors, all UNBORN with tid/pid 0, but actor 0, which is
 * READY (it starts the program, usually with a PROC_CREATE).  Returns 0 or
 * -TLBSIM_ENOMEM.
 */
int trace_sched_init(struct trace_sched *s, unsigned n, trace_step_fn step, void *g);
void trace_sched_fini(struct trace_sched *s);
/* The next event of the program: 1, or 0 once every actor is done. */
int trace_sched_next(struct trace_sched *s, struct tlbsim_event *ev);

/*
 * The event a step just emitted costs about @cycles more than its kind's
 * estimate (a syscall over a large populated range): the turn paces by
 * it, so that a thread of costly events does not run ahead of the others
 * in the stream.
 */
static inline void trace_turn_charge(struct trace_sched *s, uint64_t cycles)
{
	s->turn_cycles += cycles;
}

/*
 * The .next and .fini of a generator whose state begins with its struct
 * trace_sched (every generator's does).
 */
int trace_gen_next(void *state, struct tlbsim_event *ev);
void trace_gen_fini(void *state);

/* ---- event builders: @a performs the event ----------------------------- */

void trace_ev_access(struct tlbsim_event *ev, const struct trace_actor *a, unsigned kind,
		     uint64_t va, uint32_t size);
void trace_ev_compute(struct tlbsim_event *ev, const struct trace_actor *a, uint64_t cycles);
void trace_ev_mmap(struct tlbsim_event *ev, const struct trace_actor *a, uint64_t addr,
		   uint64_t len, unsigned prot, unsigned flags);
void trace_ev_munmap(struct tlbsim_event *ev, const struct trace_actor *a, uint64_t addr,
		     uint64_t len);
void trace_ev_mprotect(struct tlbsim_event *ev, const struct trace_actor *a, uint64_t addr,
		       uint64_t len, unsigned prot);
void trace_ev_madvise(struct tlbsim_event *ev, const struct trace_actor *a, uint64_t addr,
		      uint64_t len, unsigned advice);
void trace_ev_brk(struct tlbsim_event *ev, const struct trace_actor *a, uint64_t end);
/* YIELD: @a gives its cpu to the next runnable thread (sched_yield()). */
void trace_ev_yield(struct tlbsim_event *ev, const struct trace_actor *a);
/* AFFINITY: @a may run on cpus [@first, @first + @count) (taskset). */
void trace_ev_affinity(struct tlbsim_event *ev, const struct trace_actor *a, unsigned first,
		       unsigned count);
/* SWITCH: @a runs on @cpu from now on (pinned). */
void trace_ev_pin(struct tlbsim_event *ev, const struct trace_actor *a, unsigned cpu);
/* PROC_CREATE of @a's process, performed by no thread. */
void trace_ev_proc_create(struct tlbsim_event *ev, const struct trace_actor *a);

/* The lifecycle events also move the actors' states, as the OS model will. */

/* THREAD_CREATE (@fork false) or FORK of @child (its tid/pid set) by @a;
 * @child may be a slot reused after its previous thread exited. */
void trace_ev_spawn(struct trace_sched *s, struct tlbsim_event *ev, const struct trace_actor *a,
		    struct trace_actor *child, bool fork);
/* KTHREAD_CREATE of kernel thread @child (its tid set) by @a (NULL: by no
 * thread); then @child's KTHREAD_USE_MM of process @pid and its
 * KTHREAD_UNUSE_MM. */
void trace_ev_kthread_spawn(struct trace_sched *s, struct tlbsim_event *ev,
			    const struct trace_actor *a, struct trace_actor *child);
void trace_ev_use_mm(struct tlbsim_event *ev, const struct trace_actor *a, uint32_t pid,
		     bool mmget);
void trace_ev_unuse_mm(struct tlbsim_event *ev, const struct trace_actor *a);
/* RECLAIM of [@addr, @addr + @len) of process @pid by @a, and its flush. */
void trace_ev_reclaim(struct tlbsim_event *ev, const struct trace_actor *a, uint32_t pid,
		      uint64_t addr, uint64_t len);
void trace_ev_reclaim_flush(struct tlbsim_event *ev, const struct trace_actor *a);
void trace_ev_sleep(struct tlbsim_event *ev, struct trace_actor *a);
void trace_ev_wake(struct tlbsim_event *ev, const struct trace_actor *a,
		   struct trace_actor *target);
void trace_ev_exit(struct trace_sched *s, struct tlbsim_event *ev, struct trace_actor *a);

/*
 * One event of a toggle of [@addr, @addr + @len) read-only and back, as
 * mprotect-toggle's benchmark does: a->j runs 0 MPROTECT r, 1 COMPUTE,
 * 2 MPROTECT rw, 3 COMPUTE, the computes only if @compute (cycles).
 * Returns true when the toggle is complete (a->j is 0 again).
 */
bool trace_toggle_step(struct tlbsim_event *ev, struct trace_actor *a, uint64_t addr, uint64_t len,
		       uint64_t compute);

/* ---- the will-it-scale harness ------------------------------------------- */

/*
 * Actor 0 of a program run by a harness in the style of will-it-scale's
 * main.c (threads mode): PROC_CREATE of process 1, a THREAD_CREATE for
 * each of the workers (actors 1..@nr_workers), then one SLEEP per worker
 * (pthread_join(): each worker WAKEs actor 0 just before its EXIT), EXIT.
 * Events: 1 + @nr_workers + @nr_workers + 1.
 */
void trace_harness_main_step(struct trace_sched *s, struct trace_actor *a, unsigned nr_workers,
			     struct tlbsim_event *ev);
/* Number the harness's threads: actor k is tid k + 1 of pid 1. */
void trace_harness_ids(struct trace_sched *s);

/*
 * Set up a harness program: actor 0 runs trace_harness_main_step(), actors
 * 1..@nr_workers run @worker(@g, ...), tids numbered by
 * trace_harness_ids().  @g is the generator's state, which must begin
 * with @s.  Returns 0 or -TLBSIM_ENOMEM.
 */
int trace_harness_init(struct trace_sched *s, unsigned nr_workers, trace_step_fn worker, void *g);

/*
 * A harness worker's last two events: WAKE actor 0 (its pthread_join()),
 * then EXIT; @exit_phase is the phase value the worker uses for the EXIT.
 */
void trace_harness_worker_end(struct trace_sched *s, struct trace_actor *a,
			      struct tlbsim_event *ev, unsigned exit_phase);

/* Round @v up to a multiple of @align (a power of two). */
static inline uint64_t trace_align_up(uint64_t v, uint64_t align)
{
	return (v + align - 1) & ~(align - 1);
}

#endif
