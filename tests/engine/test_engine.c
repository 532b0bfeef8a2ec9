/* SPDX-License-Identifier: MIT */
/*
 * The time engine: a hand-worked request/acknowledge exchange,
 * byte-identical results for 1, 2 and 4 OpenMP threads on a 16-core machine
 * with heavy cross-core traffic, blocking and serial-phase work, and which
 * cores a window looks at.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/engine.h"
#include "hw/tlb.h" /* hw_splitmix64 */

enum { MSG_REQ = 1, MSG_ACK = 2 };

/* ---- a hand-worked exchange ------------------------------------------ */

/*
 * Window L = 100.  Core 0 works 50 cycles, sends a request to core 1
 * arriving 100 later (t = 150) and blocks for the acknowledgement.  Core 1
 * is idle; at 150 it takes the request (30 cycles stolen, to 180) and
 * acknowledges, arriving at 280.  Core 0 waited 280 - 50 = 230 cycles, then
 * works 20 more and is done at 300.
 *   core 0: busy 70, waiting 230, now 300
 *   core 1: idle 150 (0 -> 150), stolen 30, now 180
 * Windows: [0,100), [150,250), [280,380): 3.
 */
struct pp_core {
	int phase;
};

static void pp_step(void *ctx, struct eng *e, struct eng_core *c, uint64_t stop)
{
	struct pp_core *p = c->priv;
	struct eng_msg m = {0};

	(void)ctx;
	(void)stop;
	if (p->phase == 0) {
		eng_charge(c, 50);
		m.time = c->now + 100;
		m.dst = 1;
		m.kind = MSG_REQ;
		eng_send(e, c, &m);
		eng_block(c, ENG_NEVER);
		p->phase = 1;
	} else {
		eng_charge(c, 20);
		c->state = ENG_DONE;
	}
}

static void pp_deliver(void *ctx, struct eng *e, struct eng_core *c, const struct eng_msg *in)
{
	struct eng_msg m = {0};

	(void)ctx;
	if (in->kind == MSG_REQ) {
		eng_steal(c, 30);
		m.time = c->now + 100;
		m.dst = in->src;
		m.kind = MSG_ACK;
		eng_send(e, c, &m);
	} else {
		eng_unblock(c);
	}
}

static void request_and_ack_are_timed_as_worked_out(void **state)
{
	const struct eng_ops ops = {.step = pp_step, .deliver = pp_deliver};
	struct pp_core priv[2] = {{0}, {0}};
	struct eng e;

	(void)state;
	assert_int_equal(eng_init(&e, 2, 100, 1, &ops, NULL), 0);
	e.cores[0].priv = &priv[0];
	e.cores[1].priv = &priv[1];
	e.cores[0].state = ENG_RUNNING;
	assert_int_equal(eng_run(&e, ENG_NEVER), 0);
	assert_int_equal(e.cores[0].now, 300);
	assert_int_equal(e.cores[0].st.busy, 70);
	assert_int_equal(e.cores[0].st.waiting, 230);
	assert_int_equal(e.cores[1].now, 180);
	assert_int_equal(e.cores[1].st.idle, 150);
	assert_int_equal(e.cores[1].st.stolen, 30);
	assert_int_equal(e.cores[1].st.msgs_received, 1);
	assert_int_equal(e.cores[0].st.msgs_received, 1);
	assert_int_equal(e.windows, 3);
	eng_fini(&e);
}

/* ---- determinism under heavy traffic --------------------------------- */

#define NR 16
#define L 64

struct rnd_core {
	uint64_t rng;
	unsigned remaining;
	unsigned pending;
	uint64_t hash; /* of every message taken, in order */
};

struct rnd_world {
	struct rnd_core core[NR];
	uint64_t serial_hash; /* of the serial phase's order */
	uint64_t shared;      /* shared state, changed only in serve() */
	unsigned burn;        /* host work a step does first, hash rounds */
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	uint64_t s = h ^ v;

	return hw_splitmix64(&s);
}

static void rnd_step(void *ctx, struct eng *e, struct eng_core *c, uint64_t stop)
{
	struct rnd_world *w = ctx;
	struct rnd_core *p = &w->core[c->id];

	for (unsigned i = 0; i < w->burn; i++)
		p->hash = mix(p->hash, i);
	while (c->now < stop) {
		uint64_t r;

		if (!p->remaining) {
			c->state = ENG_IDLE;
			return;
		}
		p->remaining--;
		r = hw_splitmix64(&p->rng);
		/* Reading shared state is allowed in the parallel phase. */
		r ^= w->shared & 1;
		if (r % 11 == 0) {
			c->state = ENG_PARKED;
			return;
		}
		if (r % 7 == 0) {
			unsigned k, n = 1 + (unsigned)(r >> 8) % 3;

			for (k = 0; k < n; k++) {
				struct eng_msg m = {0};

				m.dst = (uint32_t)((c->id + 1 + (r >> (16 + 4 * k)) % (NR - 1)) % NR);
				m.time = c->now + L + (r >> 40) % 50;
				m.kind = MSG_REQ;
				m.arg[0] = r;
				eng_send(e, c, &m);
			}
			p->pending += n;
			eng_block(c, ENG_NEVER);
			return;
		}
		eng_charge(c, 1 + r % 97);
	}
}

static void rnd_deliver(void *ctx, struct eng *e, struct eng_core *c, const struct eng_msg *in)
{
	struct rnd_world *w = ctx;
	struct rnd_core *p = &w->core[c->id];

	p->hash = mix(p->hash, in->time ^ ((uint64_t)in->src << 48) ^ c->now);
	if (in->kind == MSG_REQ) {
		struct eng_msg m = {0};

		eng_steal(c, 5 + in->arg[0] % 40);
		m.dst = in->src;
		m.time = c->now + L;
		m.kind = MSG_ACK;
		eng_send(e, c, &m);
	} else if (--p->pending == 0 && c->state == ENG_BLOCKED) {
		eng_unblock(c);
	}
}

static void rnd_serve(void *ctx, struct eng *e, struct eng_core *c)
{
	struct rnd_world *w = ctx;

	(void)e;
	w->shared = mix(w->shared, c->id ^ (c->now << 8));
	w->serial_hash = mix(w->serial_hash, c->id);
	eng_charge(c, 10);
	c->state = ENG_RUNNING;
}

struct world_run {
	int threads;
	bool share_all;
	bool time_phases;
	unsigned remaining; /* steps of each core */
	unsigned burn;
	/* results */
	struct eng_core_stats st[NR];
	uint64_t now[NR], hash[NR], serial_hash, windows, shared_windows;
	double serial_s, shareable_s;
};

static void run_world(struct world_run *r)
{
	const struct eng_ops ops = {.step = rnd_step, .deliver = rnd_deliver, .serve = rnd_serve};
	struct rnd_world w;
	struct eng e;
	unsigned i;

	memset(&w, 0, sizeof(w));
	w.burn = r->burn;
	assert_int_equal(eng_init(&e, NR, L, r->threads, &ops, &w), 0);
	e.share_all = r->share_all;
	e.time_phases = r->time_phases;
	for (i = 0; i < NR; i++) {
		w.core[i].rng = 1000 + i;
		w.core[i].remaining = r->remaining;
		e.cores[i].state = ENG_RUNNING;
	}
	assert_int_equal(eng_run(&e, ENG_NEVER), 0);
	for (i = 0; i < NR; i++) {
		r->st[i] = e.cores[i].st;
		r->now[i] = e.cores[i].now;
		r->hash[i] = w.core[i].hash;
		assert_int_equal(w.core[i].pending, 0);
	}
	r->serial_hash = w.serial_hash;
	r->windows = e.windows;
	r->shared_windows = e.shared_windows;
	r->serial_s = e.serial_s;
	r->shareable_s = e.shareable_s;
	eng_fini(&e);
}

static void assert_same_world(const struct world_run *a, const struct world_run *b)
{
	assert_memory_equal(a->st, b->st, sizeof(a->st));
	assert_memory_equal(a->now, b->now, sizeof(a->now));
	assert_memory_equal(a->hash, b->hash, sizeof(a->hash));
	assert_int_equal(a->serial_hash, b->serial_hash);
	assert_int_equal(a->windows, b->windows);
}

/*
 * 1 thread; 2 and 4 threads sharing every window (share_all); 2 threads
 * sharing the windows the host's timing picks, whichever they are: the
 * same results.
 */
static void results_are_identical_for_1_2_and_4_threads(void **state)
{
	static struct world_run r[4] = {
	    {.threads = 1}, {.threads = 2, .share_all = true}, {.threads = 4, .share_all = true}, {.threads = 2}};
	uint64_t msgs = 0;
	int t;

	(void)state;
	for (t = 0; t < 4; t++) {
		r[t].remaining = 4000;
		run_world(&r[t]);
	}
	for (t = 1; t < 4; t++)
		assert_same_world(&r[0], &r[t]);
	/* One thread never shares; share_all shares every window. */
	assert_int_equal(r[0].shared_windows, 0);
	assert_int_equal(r[1].shared_windows, r[1].windows);
	assert_int_equal(r[2].shared_windows, r[2].windows);
	/* The traffic really was heavy: every core exchanged messages. */
	for (t = 0; t < NR; t++) {
		assert_true(r[0].st[t].msgs_received > 100);
		msgs += r[0].st[t].msgs_sent;
	}
	assert_true(msgs > 5000);
}

/*
 * Windows whose cores take long on the host are shared without
 * share_all: each step first does 20,000 rounds of hashing (tens of
 * microseconds; a window, 16 cores' steps, far above the 100 us the engine
 * waits for), and the results stay those of one thread.
 */
static void long_windows_are_shared(void **state)
{
	static struct world_run one = {.threads = 1, .remaining = 100, .burn = 20000},
				two = {.threads = 2, .remaining = 100, .burn = 20000};

	(void)state;
	run_world(&one);
	run_world(&two);
	assert_same_world(&one, &two);
	assert_true(two.shared_windows > 0);
	assert_true(two.windows > 10);
}

/*
 * Timing the phases (struct eng's @time_phases, bench/perf's --phases)
 * changes no result, and times both: the 16 cores run together (the
 * shareable part) and are served at boundaries (the serial part).  Left
 * off, nothing is timed.  A lone core's windows are all serial (the
 * hand-worked exchange: one core runs at a time).
 */
static void timing_the_phases_changes_no_result(void **state)
{
	static struct world_run plain = {.threads = 1, .remaining = 1000},
				timed = {.threads = 1, .remaining = 1000, .time_phases = true};
	struct pp_core priv[2] = {{0}, {0}};
	struct eng e;

	(void)state;
	run_world(&plain);
	run_world(&timed);
	assert_same_world(&plain, &timed);
	assert_true(plain.serial_s == 0 && plain.shareable_s == 0);
	assert_true(timed.serial_s > 0);
	assert_true(timed.shareable_s > 0);

	const struct eng_ops ops = {.step = pp_step, .deliver = pp_deliver};
	assert_int_equal(eng_init(&e, 2, 100, 1, &ops, NULL), 0);
	e.time_phases = true;
	e.cores[0].priv = &priv[0];
	e.cores[1].priv = &priv[1];
	e.cores[0].state = ENG_RUNNING;
	e.cores[1].state = ENG_IDLE;
	assert_int_equal(eng_run(&e, ENG_NEVER), 0);
	assert_int_equal(e.cores[0].now, 300); /* as worked out above */
	assert_true(e.serial_s > 0);
	assert_true(e.shareable_s == 0);
	eng_fini(&e);
}

/* A timed block ends by itself, and the gap counts as waiting. */
static void timed_block_ends_at_its_deadline(void **state)
{
	struct pp_core priv = {0};
	struct eng e;

	(void)state;
	const struct eng_ops ops = {.step = pp_step, .deliver = pp_deliver};
	assert_int_equal(eng_init(&e, 1, 10, 1, &ops, NULL), 0);
	e.cores[0].priv = &priv;
	priv.phase = 1; /* next step: 20 cycles, then done */
	e.cores[0].state = ENG_BLOCKED;
	e.cores[0].wake_time = 1000;
	assert_int_equal(eng_run(&e, ENG_NEVER), 0);
	assert_int_equal(e.cores[0].st.waiting, 1000);
	assert_int_equal(e.cores[0].now, 1020);
	eng_fini(&e);
}

/* ---- which cores a window looks at ------------------------------------- */

/*
 * Window L = 100, 64 cores.  Core 0 runs 1000 cycles (its step charges to
 * the stop it is given); cores 1..63 are BLOCKED until 950, then work 20
 * cycles and are done.  A window looks only at the cores that run and at
 * those whose next event has come, so the windows [0, 100) .. [800, 900)
 * run core 0 alone, and [900, 1000), which holds 950, runs all 64.  The
 * blocked cores wait 950 cycles and end at 970; core 0 ends at 1000.
 */
struct lone {
	uint32_t max_run_before_900, run_at_900;
};

static void lone_step(void *ctx, struct eng *e, struct eng_core *c, uint64_t stop)
{
	struct lone *l = ctx;

	if (c->id) {
		eng_charge(c, 20);
		c->state = ENG_DONE;
		return;
	}
	if (e->now < 900 && e->nr_run > l->max_run_before_900)
		l->max_run_before_900 = e->nr_run;
	if (e->now == 900)
		l->run_at_900 = e->nr_run;
	eng_charge(c, stop - c->now);
	if (c->now >= 1000)
		c->state = ENG_DONE;
}

static void lone_deliver(void *ctx, struct eng *e, struct eng_core *c, const struct eng_msg *m)
{
	(void)ctx;
	(void)e;
	(void)c;
	(void)m;
	fail_msg("no message is sent");
}

static void waiting_cores_stay_out_of_windows_until_due(void **state)
{
	const struct eng_ops ops = {.step = lone_step, .deliver = lone_deliver};
	struct lone l = {0};
	struct eng e;

	(void)state;
	assert_int_equal(eng_init(&e, 64, 100, 1, &ops, &l), 0);
	e.cores[0].state = ENG_RUNNING;
	for (uint32_t i = 1; i < 64; i++) {
		e.cores[i].state = ENG_BLOCKED;
		e.cores[i].wake_time = 950;
	}
	assert_int_equal(eng_run(&e, ENG_NEVER), 0);
	assert_int_equal(l.max_run_before_900, 1);
	assert_int_equal(l.run_at_900, 64);
	assert_int_equal(e.cores[0].now, 1000);
	for (uint32_t i = 1; i < 64; i++) {
		assert_int_equal(e.cores[i].st.waiting, 950);
		assert_int_equal(e.cores[i].now, 970);
	}
	assert_int_equal(e.windows, 10);
	eng_fini(&e);
}

/*
 * A message that arrives at a core whose clock is already past it is
 * taken in the next window, even when that window ends before the arrival
 * time.  L = 100.  Core 0 runs to 300, and at 10 sends core 1 a message
 * arriving at 250.  Core 1's first step overshoots to 500 and blocks
 * without a deadline.  At the boundary of [0, 100) the message reaches an
 * inbox whose core is at 500 > 250: window [100, 200) runs core 1, which
 * takes it late at 500 (the window started at 100), unblocks, and is done
 * 20 cycles later.
 */
struct late {
	uint64_t window_of_delivery;
};

static void late_step(void *ctx, struct eng *e, struct eng_core *c, uint64_t stop)
{
	struct eng_msg m = {0};

	(void)ctx;
	if (c->id == 1) {
		if (c->now == 0) {
			eng_charge(c, 500);
			eng_block(c, ENG_NEVER);
		} else {
			eng_charge(c, 20);
			c->state = ENG_DONE;
		}
		return;
	}
	if (c->now == 0) {
		eng_charge(c, 10);
		m.time = 250;
		m.dst = 1;
		eng_send(e, c, &m);
	}
	eng_charge(c, stop - c->now);
	if (c->now >= 300)
		c->state = ENG_DONE;
}

static void late_deliver(void *ctx, struct eng *e, struct eng_core *c, const struct eng_msg *m)
{
	struct late *l = ctx;

	(void)m;
	l->window_of_delivery = e->now;
	eng_unblock(c);
}

static void late_message_is_taken_in_the_next_window(void **state)
{
	const struct eng_ops ops = {.step = late_step, .deliver = late_deliver};
	struct late l = {0};
	struct eng e;

	(void)state;
	assert_int_equal(eng_init(&e, 2, 100, 1, &ops, &l), 0);
	e.cores[0].state = ENG_RUNNING;
	e.cores[1].state = ENG_RUNNING;
	assert_int_equal(eng_run(&e, ENG_NEVER), 0);
	assert_int_equal(l.window_of_delivery, 100);
	assert_int_equal(e.cores[1].st.late_msgs, 1);
	assert_int_equal(e.cores[1].st.waiting, 0);
	assert_int_equal(e.cores[1].now, 520);
	assert_int_equal(e.cores[0].now, 300);
	eng_fini(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(request_and_ack_are_timed_as_worked_out),
		cmocka_unit_test(results_are_identical_for_1_2_and_4_threads),
		cmocka_unit_test(long_windows_are_shared),
		cmocka_unit_test(timed_block_ends_at_its_deadline),
		cmocka_unit_test(timing_the_phases_changes_no_result),
		cmocka_unit_test(waiting_cores_stay_out_of_windows_until_due),
		cmocka_unit_test(late_message_is_taken_in_the_next_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
