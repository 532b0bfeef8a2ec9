/* SPDX-License-Identifier: MIT */
/*
 * The time engine: per-core cycle clocks advanced in windows, cross-core
 * messages delivered in a fixed order, blocking, and OpenMP parallelism
 * with results independent of the number of threads.
 *
 * Model (README.md, "How a run works"):
 *  - Time is a global cycle count; each core has its own clock `now`.
 *  - The engine advances all cores in windows [W, W + L), L no longer than
 *    the smallest cross-core latency, so nothing a core sends can take
 *    effect on another core inside the window it was sent in.
 *  - Parallel phase: each active core runs alone (its owner's step hook)
 *    until its clock reaches the window end, it blocks, or it parks for the
 *    serial phase.  It touches only its own state and its outbox, and
 *    reads shared state that no one writes during the phase.
 *  - Boundary: messages for cores go to their receivers' inboxes, which
 *    hand them out in (time, sender, sequence) order; messages for the
 *    fabric are sorted in that order and handled so (they may emit more);
 *    then every parked core is
 *    served, one at a time, in (clock, id) order: the only place shared
 *    state (page tables, cpumasks, allocators) changes.
 *  - A core takes a message when its clock reaches the arrival time (a
 *    blocked or idle core jumps to it), between two steps of its owner, so
 *    an interrupt never splits a step; a message that arrives while the
 *    receiver is already past it is taken at once ("late").
 *
 * Internal to the library (layer prefix eng_).  The engine knows nothing
 * of TLBs, IPIs or policies: message kinds and payloads are its owner's.
 */
#ifndef TLBSIM_ENGINE_H
#define TLBSIM_ENGINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Receiver id of messages for the interconnect itself (handled serially). */
#define ENG_FABRIC UINT32_MAX
/* "No time": a block with no deadline, an empty inbox. */
#define ENG_NEVER UINT64_MAX

/**
 * struct eng_msg - a message between cores, or to the fabric
 * @time: arrival time, cycles (global time)
 * @src: sender core id, or ENG_FABRIC
 * @dst: receiver core id, or ENG_FABRIC
 * @seq: sender's sequence number, set by eng_send()
 * @kind: owner-defined
 * @arg: owner-defined payload
 * @ptr: owner-defined pointer payload (must stay valid until delivered)
 */
struct eng_msg {
	uint64_t time;
	uint32_t src, dst;
	uint64_t seq;
	uint32_t kind;
	uint64_t arg[4];
	void *ptr;
};

/*
 * States of a core:
 *   RUNNING  the owner's step hook is called while now < window end
 *   BLOCKED  waits until @wake_time or until a message's handler unblocks
 *            it; the cycles pass as "waiting"
 *   IDLE     nothing to run; the cycles pass as "idle"; a message (an IPI,
 *            a wake-up) is taken when it arrives
 *   PARKED   waits for the serial phase at this window's end (a syscall, a
 *            fault); its clock does not move meanwhile
 *   DONE     finished for good
 */
enum eng_state {
	ENG_RUNNING = 0,
	ENG_BLOCKED,
	ENG_IDLE,
	ENG_PARKED,
	ENG_DONE,
};

/**
 * struct eng_core_stats - time accounting of one core, cycles
 * @busy: cycles charged by its own steps
 * @waiting: cycles spent BLOCKED (acknowledgements, DSB, TLBSYNC)
 * @idle: cycles spent IDLE
 * @stolen: cycles charged by message handlers (interrupts taken)
 * @stolen_idle: of @stolen, those taken while IDLE (nothing to run: a
 *             broadcast serviced by a cpu with no thread)
 * @msgs_sent: messages sent
 * @msgs_received: messages taken
 * @late_msgs: messages taken after their arrival time because the core
 *             was inside a step that ran past it
 */
struct eng_core_stats {
	uint64_t busy, waiting, idle, stolen, stolen_idle;
	uint64_t msgs_sent, msgs_received, late_msgs;
};

struct eng_heap {
	struct eng_msg *m;
	uint32_t n, cap;
};

/**
 * struct eng_core - one simulated core's clock, state and mailboxes
 * @id: core id, 0..nr_cores-1
 * @now: the core's clock, cycles
 * @state: see enum eng_state
 * @wake_time: BLOCKED: when the block ends by itself (ENG_NEVER: only a
 *             message handler ends it)
 * @seq: next sequence number of its messages
 * @inbox: messages delivered to it, a min-heap by (time, src, seq)
 * @outbox: messages sent during the current window
 * @st: time accounting
 * @priv: the owner's per-core state
 */
struct eng_core {
	uint32_t id;
	uint64_t now;
	enum eng_state state;
	uint64_t wake_time;
	uint64_t seq;
	struct eng_heap inbox;
	struct eng_heap outbox;
	struct eng_core_stats st;
	void *priv;
};

struct eng;

/**
 * struct eng_ops - what the engine's owner (the OS model, a test, the
 * kernel-trace replayer) provides
 * @step: parallel phase; run @c from c->now, charging cycles with
 *        eng_charge(), and return once c->now >= @stop, or the core blocked,
 *        idled or parked.  @stop is the window end or the next message's
 *        arrival, whichever is earlier.  May send messages.  May touch only
 *        @c's state and read shared state.
 * @deliver: a message taken by @c at c->now (>= its arrival time); may
 *        charge stolen cycles (eng_steal()), unblock, send; same rules as
 *        @step.
 * @fabric: serial; a message sent to ENG_FABRIC, in (time, src, seq) order.
 * @serve: serial; core @c is PARKED: do its shared-state work (and change
 *        its state).  Called in (c->now, c->id) order.
 * @more: serial; true while the simulation has work not visible in the
 *        cores' states (events still to read), so an all-idle machine does
 *        not stop the run.  NULL means "never".
 * @horizon: serial; a lower bound on the time at which RUNNING core @c
 *        could next park or send a message (its clock if unknown).  Lets
 *        a window stretch over long computations when nothing is in
 *        flight.  NULL: no lookahead.
 */
struct eng_ops {
	void (*step)(void *ctx, struct eng *e, struct eng_core *c, uint64_t stop);
	void (*deliver)(void *ctx, struct eng *e, struct eng_core *c, const struct eng_msg *m);
	void (*fabric)(void *ctx, struct eng *e, const struct eng_msg *m);
	void (*serve)(void *ctx, struct eng *e, struct eng_core *c);
	bool (*more)(void *ctx, struct eng *e);
	uint64_t (*horizon)(void *ctx, const struct eng *e, const struct eng_core *c);
};

/**
 * struct eng - the engine
 * @cores: @nr_cores cores
 * @window: window length L, cycles (>= 1)
 * @threads: OpenMP threads for the parallel phase (>= 1)
 * @ops, @ctx: the owner
 * @windows: windows run so far
 * @now: start of the current window
 * @stop_requested: set (e.g. by a signal handler) to stop at the next window;
 *        a lock-free atomic, because the handler runs on any thread and the
 *        flag is read inside the parallel region (by the thread that
 *        plans windows): C11 7.14.1.1 lets a handler store to a lock-free
 *        atomic, while a plain volatile int would be a data race
 * @fabric_seq: sequence of messages the fabric sends
 * @merge: scratch: the fabric's messages of one batch
 * @share_all: with @threads > 1, run every window's cores on all the
 *        threads (tests and ThreadSanitizer); false: only windows whose
 *        cores are worth the threads meeting (eng_run())
 * @shared_windows: windows whose cores ran on all the threads (host-time
 *        dependent: not part of the results)
 * @time_phases: set by the owner before eng_run() to have the windows run
 *        on the calling thread timed (host seconds, added up over runs,
 *        not part of the results): @shareable_s, their cores' part when
 *        two or more cores ran, the part other threads could take (the
 *        cores of a shared window); @serial_s, all the rest, which only
 *        the calling thread can run (boundaries, serves, plans, windows of
 *        one core).  With one thread every window is so timed, and the two
 *        give Amdahl's bound on what T threads can gain: (s + p) / (s +
 *        p / T).  Shared windows are not timed.
 * @hot: a bit per core that is RUNNING or PARKED as of the last plan
 *        (the cores every window looks at)
 * @wait: the cores BLOCKED or IDLE with something ahead of them (a message
 *        in the inbox, a block's deadline), each with the time of its next
 *        act, a min-heap (plan_window() in engine.c); a core neither hot nor
 *        waiting is quiescent: nothing happens to it until a message reaches
 *        it or a serial hook wakes it (eng_wake())
 * @mark: per core, the engine's flags (ENG_MARK_*)
 * @dirty: cores whose state may have changed since the last plan (woken,
 *        sent a message, taken out of @wait to run), @nr_dirty of them
 * @nr_mail: cores hot or waiting with a message in their inbox
 * @senders: cores whose outbox holds messages, @nr_senders of them (an
 *        atomic: cores of a shared window add themselves)
 * @run: the cores of the current window, @nr_run of them, in id order:
 *        the hot ones and those whose next act comes before its end
 * @lone: the window's one core runs alone: no other core is hot or waiting
 *        (run_lone() in engine.c)
 * @runbits: scratch of the plan, a bit per core of @run
 * @sorted: scratch of the serial phase (the parked cores' merge)
 * @fabric_order: scratch of the serial phase: the fabric's batch sorted,
 *        room for 2 x @fabric_cap pointers
 */
struct eng {
	struct eng_core *cores;
	uint32_t nr_cores;
	uint64_t window;
	int threads;
	const struct eng_ops *ops;
	void *ctx;
	uint64_t windows;
	uint64_t now;
	atomic_int stop_requested;
	uint64_t fabric_seq;
	struct eng_heap merge;
	bool share_all;
	uint64_t shared_windows;
	bool time_phases;
	double shareable_s, serial_s;
	uint64_t *hot;
	struct eng_wait {
		struct eng_wait_entry {
			uint64_t key;  /* when the core acts next (0: at once) */
			uint64_t time; /* its earliest event (see plan_window()) */
			uint32_t id, gen;
		} *h;
		uint32_t n, cap;
		uint32_t *gen; /* per core: its entry's generation */
	} wait;
	uint8_t *mark;
	uint32_t *dirty;
	uint32_t nr_dirty;
	uint32_t nr_mail;
	uint32_t *senders;
	atomic_uint nr_senders;
	uint32_t *run;
	uint32_t nr_run;
	bool lone;
	uint64_t *runbits;
	struct eng_core **sorted;
	const struct eng_msg **fabric_order;
	uint32_t fabric_cap;
};

/*
 * Set up @e with @nr_cores cores at time 0, all IDLE.  Returns 0 or
 * -TLBSIM_ENOMEM / -TLBSIM_EINVAL (no cores, window 0).
 */
int eng_init(struct eng *e, uint32_t nr_cores, uint64_t window, int threads,
	     const struct eng_ops *ops, void *ctx);
void eng_fini(struct eng *e);

/*
 * Run windows until no core is RUNNING, BLOCKED with a deadline, or PARKED,
 * no message is in flight and ops->more() is false; or until @max_time
 * (cycles; ENG_NEVER for none) is passed; or stop_requested.
 * Returns 0 when the work ran out, 1 when stopped early.
 */
int eng_run(struct eng *e, uint64_t max_time);

/*
 * Send @m from core @from (NULL: from the fabric, only in serial hooks).
 * @m->time is the arrival time; src and seq are filled in.  From a core
 * the message must arrive no earlier than the core's clock.
 */
void eng_send(struct eng *e, struct eng_core *from, struct eng_msg *m);

/*
 * A serial hook (serve, fabric) that changes the state, clock or block
 * deadline of a core other than the one it was called for (an idle cpu
 * given a thread, a lock handed to a waiter) tells the engine so: the
 * windows look only at the cores that are RUNNING or PARKED and at those
 * whose next act (a message's arrival, a block's deadline) has come, and
 * the engine learns of a change to any other core from a message it
 * routes to it or from this call.  Setting up cores before eng_run()
 * needs no call.
 */
/* ENG_MARK_*: the engine's flags of a core, in eng->mark. */
enum {
	ENG_MARK_DIRTY = 1u << 0,  /* on eng->dirty */
	ENG_MARK_SENDER = 1u << 1, /* on eng->senders */
	ENG_MARK_WAIT = 1u << 2,   /* has a live entry in eng->wait */
	ENG_MARK_MAIL = 1u << 3,   /* counted in eng->nr_mail */
};

static inline void eng_wake(struct eng *e, const struct eng_core *c)
{
	if (!(e->mark[c->id] & ENG_MARK_DIRTY)) {
		e->mark[c->id] |= ENG_MARK_DIRTY;
		e->dirty[e->nr_dirty++] = c->id;
	}
}

/* Charge @cycles of the core's own work. */
static inline void eng_charge(struct eng_core *c, uint64_t cycles)
{
	c->now += cycles;
	c->st.busy += cycles;
}

/* Charge @cycles taken from the core by a message handler (an interrupt). */
static inline void eng_steal(struct eng_core *c, uint64_t cycles)
{
	c->now += cycles;
	c->st.stolen += cycles;
	if (c->state == ENG_IDLE)
		c->st.stolen_idle += cycles;
}

/* Block @c until @until (ENG_NEVER: until a handler calls eng_unblock). */
static inline void eng_block(struct eng_core *c, uint64_t until)
{
	c->state = ENG_BLOCKED;
	c->wake_time = until;
}

/* End a block, at the core's current clock. */
static inline void eng_unblock(struct eng_core *c)
{
	c->state = ENG_RUNNING;
	c->wake_time = ENG_NEVER;
}

#endif /* TLBSIM_ENGINE_H */
