/* SPDX-License-Identifier: MIT */
/*
 * The time engine (see engine.h for the model).  Parallel discrete-event
 * simulation with a fixed window ("quantum") no longer than the smallest
 * cross-core latency, the conservative scheme of Graphite's and gem5's
 * quantum-based synchronisation; message order at a boundary is a total
 * order on (time, sender, sequence), so the outcome does not depend on the
 * number of OpenMP threads or on their scheduling.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "engine/engine.h"
#include "tlbsim/error.h"

/* ---- message heaps and vectors -------------------------------------- */

static bool msg_before(const struct eng_msg *a, const struct eng_msg *b)
{
	if (a->time != b->time)
		return a->time < b->time;
	if (a->src != b->src)
		return a->src < b->src;
	return a->seq < b->seq;
}

static int msg_cmp(const void *pa, const void *pb)
{
	const struct eng_msg *a = pa, *b = pb;

	if (msg_before(a, b))
		return -1;
	return msg_before(b, a);
}

static void vec_push(struct eng_heap *h, const struct eng_msg *m)
{
	if (h->n == h->cap) {
		uint32_t cap = h->cap ? 2 * h->cap : 16;
		struct eng_msg *nm = realloc(h->m, cap * sizeof(*nm));

		/* Running out of memory for a message cannot be reported up
		 * from inside a window; it is fatal. */
		BUG_ON(!nm, "memory for an in-flight message");
		h->m = nm;
		h->cap = cap;
	}
	h->m[h->n++] = *m;
}

static void heap_push(struct eng_heap *h, const struct eng_msg *m)
{
	uint32_t i;

	vec_push(h, m);
	for (i = h->n - 1; i > 0;) {
		uint32_t p = (i - 1) / 2;
		struct eng_msg t;

		if (!msg_before(&h->m[i], &h->m[p]))
			break;
		t = h->m[i];
		h->m[i] = h->m[p];
		h->m[p] = t;
		i = p;
	}
}

static void heap_pop(struct eng_heap *h, struct eng_msg *out)
{
	uint32_t i = 0;

	*out = h->m[0];
	h->m[0] = h->m[--h->n];
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, min = i;
		struct eng_msg t;

		if (l < h->n && msg_before(&h->m[l], &h->m[min]))
			min = l;
		if (r < h->n && msg_before(&h->m[r], &h->m[min]))
			min = r;
		if (min == i)
			break;
		t = h->m[i];
		h->m[i] = h->m[min];
		h->m[min] = t;
		i = min;
	}
}

static uint64_t inbox_head_time(const struct eng_core *c)
{
	return c->inbox.n ? c->inbox.m[0].time : ENG_NEVER;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* ---- one core's window ---------------------------------------------- */

/* Take every message that has arrived by the core's clock. */
static void take_due(struct eng *e, struct eng_core *c)
{
	while (c->inbox.n && c->inbox.m[0].time <= c->now &&
	       (c->state == ENG_RUNNING || c->state == ENG_BLOCKED || c->state == ENG_IDLE)) {
		struct eng_msg m;

		heap_pop(&c->inbox, &m);
		c->st.msgs_received++;
		if (m.time < c->now)
			c->st.late_msgs++;
		e->ops->deliver(e->ctx, e, c, &m);
	}
}

/*
 * Advance a BLOCKED or IDLE core towards @end: jump to its next event (a
 * message's arrival or the block's deadline), accounting the gap.
 * Returns false if nothing happens before @end.
 */
static bool wait_until_event(struct eng_core *c, uint64_t end)
{
	uint64_t t = inbox_head_time(c);

	if (c->state == ENG_BLOCKED)
		t = min_u64(t, c->wake_time);
	if (t >= end)
		return false;
	if (t > c->now) {
		if (c->state == ENG_BLOCKED)
			c->st.waiting += t - c->now;
		else
			c->st.idle += t - c->now;
		c->now = t;
	}
	if (c->state == ENG_BLOCKED && c->wake_time <= c->now)
		eng_unblock(c);
	return true;
}

static void core_window(struct eng *e, struct eng_core *c, uint64_t end)
{
	for (;;) {
		take_due(e, c);
		switch (c->state) {
		case ENG_RUNNING: {
			uint64_t stop;

			if (c->now >= end)
				return;
			stop = min_u64(end, inbox_head_time(c));
			if (stop <= c->now)
				continue; /* a message is due: take it first */
			e->ops->step(e->ctx, e, c, stop);
			/* Invariant: a step either reaches @stop or leaves the
			 * RUNNING state; otherwise this loop would spin. */
			BUG_ON(c->state == ENG_RUNNING && c->now < stop,
			       "step() returned before its stop time while still running");
			break;
		}
		case ENG_BLOCKED:
		case ENG_IDLE:
			if (!wait_until_event(c, end))
				return;
			break;
		default: /* PARKED, DONE */
			return;
		}
	}
}

/* ---- boundary: routing and the serial phase ------------------------- */

/* Fabric messages in (time, src, seq) order: the fabric's hook may keep
 * state (a FIFO server) that depends on the order it sees them in. */
static void route_fabric(struct eng *e)
{
	uint32_t i;

	if (!e->merge.n)
		return; /* and merge.m may still be NULL, which qsort() must not get */
	qsort(e->merge.m, e->merge.n, sizeof(*e->merge.m), msg_cmp);
	for (i = 0; i < e->merge.n; i++)
		if (e->ops->fabric)
			e->ops->fabric(e->ctx, e, &e->merge.m[i]);
	e->merge.n = 0;
}

/* Messages the fabric sends while being handed messages: kept apart, so
 * that they are routed after the batch that caused them. */
static struct eng_heap *fabric_out(struct eng *e)
{
	return &e->cores[e->nr_cores].outbox;
}

/*
 * Empty every outbox: messages for cores go straight into their inboxes,
 * those for the fabric into e->merge.  Returns true if any message was
 * routed.  The order of insertion into an inbox does not matter: the heap
 * pops in (time, src, seq) order, a total order, since (src, seq) is
 * unique; so only the fabric's messages need sorting.
 */
static bool collect_outboxes(struct eng *e)
{
	bool any = false;
	uint32_t i;

	for (i = 0; i <= e->nr_cores; i++) {
		struct eng_heap *o = &e->cores[i].outbox;
		uint32_t k;

		for (k = 0; k < o->n; k++) {
			if (o->m[k].dst == ENG_FABRIC)
				vec_push(&e->merge, &o->m[k]);
			else
				heap_push(&e->cores[o->m[k].dst].inbox, &o->m[k]);
		}
		any |= o->n > 0;
		o->n = 0;
	}
	return any;
}

static int parked_cmp(const void *pa, const void *pb)
{
	const struct eng_core *a = *(struct eng_core *const *)pa;
	const struct eng_core *b = *(struct eng_core *const *)pb;

	if (a->now != b->now)
		return a->now < b->now ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

static void boundary(struct eng *e, struct eng_core **parked)
{
	uint32_t i, n = 0;
	bool sorted = true;

	while (collect_outboxes(e))
		route_fabric(e);
	for (i = 0; i < e->nr_cores; i++)
		if (e->cores[i].state == ENG_PARKED) {
			parked[n++] = &e->cores[i];
			/* In id order already: sorted unless a clock went
			 * down (most often they are equal: cores that wait
			 * for a lock retry at each window's end). */
			sorted &= n == 1 || parked[n - 2]->now <= parked[n - 1]->now;
		}
	if (!sorted)
		qsort(parked, n, sizeof(*parked), parked_cmp);
	for (i = 0; i < n && e->ops->serve; i++)
		e->ops->serve(e->ctx, e, parked[i]);
	while (collect_outboxes(e))
		route_fabric(e);
}

/* Earliest time at which anything happens, or ENG_NEVER. */
static uint64_t next_activity(const struct eng *e)
{
	uint64_t t = ENG_NEVER;
	uint32_t i;

	for (i = 0; i < e->nr_cores; i++) {
		const struct eng_core *c = &e->cores[i];

		switch (c->state) {
		case ENG_RUNNING:
		case ENG_PARKED:
			t = min_u64(t, c->now);
			break;
		case ENG_BLOCKED:
			t = min_u64(t, min_u64(c->wake_time, inbox_head_time(c)));
			break;
		case ENG_IDLE:
			t = min_u64(t, inbox_head_time(c));
			break;
		default:
			break;
		}
	}
	return t;
}

/*
 * Lookahead: with no message in flight, a core can affect another only
 * after it parks (or a timed block ends), at the earliest at its horizon;
 * what it then sends arrives a window later.  So the window may end at the
 * smallest horizon plus the window length instead of the earliest activity
 * plus it: long computations need no boundary every L cycles.  Returns the
 * smallest horizon, or 0 when no lookahead applies.
 */
static uint64_t quiet_horizon(const struct eng *e)
{
	uint64_t h = ENG_NEVER;
	uint32_t i;

	if (!e->ops->horizon)
		return 0;
	for (i = 0; i < e->nr_cores; i++) {
		const struct eng_core *c = &e->cores[i];

		if (c->inbox.n)
			return 0;
		switch (c->state) {
		case ENG_RUNNING:
			h = min_u64(h, e->ops->horizon(e->ctx, e, c));
			break;
		case ENG_BLOCKED:
			h = min_u64(h, c->wake_time);
			break;
		case ENG_PARKED:
			return 0;
		default:
			break;
		}
	}
	return h == ENG_NEVER ? 0 : h;
}

/*
 * Serial: choose the next window, or decide that the run is over (*@done,
 * with eng_run()'s result in *@result).
 */
static void plan_window(struct eng *e, uint64_t max_time, uint64_t *end, bool *done, int *result)
{
	uint64_t w = next_activity(e);

	if (atomic_load_explicit(&e->stop_requested, memory_order_relaxed) ||
	    (max_time != ENG_NEVER && w != ENG_NEVER && w >= max_time)) {
		*result = 1;
		*done = true;
	} else if (w == ENG_NEVER) {
		*done = true;
	} else {
		/* A lagging core can start a window behind the previous one's
		 * end; the window starts at the earliest activity. */
		uint64_t h = quiet_horizon(e);

		e->now = w;
		*end = w + e->window;
		if (h > w && h - w > e->window && h + e->window > *end)
			*end = h + e->window;
		if (max_time != ENG_NEVER && *end > max_time && max_time > w)
			*end = max_time;
	}
}

/* Between two windows: the boundary, and the next window's plan. */
static void serial_part(struct eng *e, struct eng_core **parked, uint64_t max_time, uint64_t *end,
			bool *finished, int *result)
{
	boundary(e, parked);
	e->windows++;
	plan_window(e, max_time, end, finished, result);
}

/*
 * Sharing a window's cores among the threads costs two barriers, each a
 * futex sleep and wake-up when a thread waits (libgomp, passive or after
 * its spin): tens of microseconds on the development VM, while a window of
 * a flush-heavy run (an IPI handled here and there) takes a few
 * microseconds on one thread; sharing every window made 2 threads 4 to 12
 * times slower than 1 (bench/perf/README.md).  So the engine shares only
 * windows that gain by it, measured on the host as it goes:
 *  - alone, it times each window's cores on the calling thread; once their
 *    moving average (weight 1/4) reaches SHARE_MIN_S and @wait windows
 *    have passed since sharing last failed, the next window is shared;
 *  - shared, each thread times its part of the window, and the window's
 *    wall time (barriers included) is set against the sum of the parts,
 *    what one thread would have taken: while the wall time stays under
 *    SHARE_GAIN of it, windows stay shared; else sharing failed, and
 *    @wait doubles (from SHARE_WAIT_MIN windows to SHARE_WAIT_MAX at
 *    most; back to SHARE_WAIT_MIN after a shared window that gained).
 * Which thread runs a core's window does not change what it computes (the
 * model above): the results do not depend on these choices, only the
 * speed does.
 */
#define SHARE_MIN_S 100e-6
#define SHARE_GAIN 0.9
#define SHARE_WAIT_MIN 16
#define SHARE_WAIT_MAX 4096

struct share {
	double avg;	/* alone: moving average of a window's cores, s */
	uint64_t wait;	/* windows to run alone after a failed share */
	uint64_t since; /* windows run alone since the last share */
	double t0;	/* shared: when the window's first barrier began */
	double work;	/* shared: the threads' parts of the window, s */
};

static void run_cores(struct eng *e, uint64_t end)
{
	for (uint32_t i = 0; i < e->nr_cores; i++)
		core_window(e, &e->cores[i], end);
}

static bool worth_sharing(const struct eng *e, const struct share *sh)
{
	return e->threads > 1 && (e->share_all || (sh->avg >= SHARE_MIN_S && sh->since >= sh->wait));
}

/*
 * Windows on the calling thread (timed when @e has other threads to share
 * with), until the run is over or the next window is worth sharing.
 */
static void run_alone(struct eng *e, struct eng_core **parked, uint64_t max_time, uint64_t *end,
		      bool *finished, int *result, struct share *sh)
{
	while (!*finished && !worth_sharing(e, sh)) {
		if (e->threads == 1) {
			run_cores(e, *end);
		} else {
			double t0 = omp_get_wtime();

			run_cores(e, *end);
			sh->avg += (omp_get_wtime() - t0 - sh->avg) / 4;
			sh->since++;
		}
		serial_part(e, parked, max_time, end, finished, result);
	}
}

/* After a shared window: did it gain?  If not, back to the calling
 * thread, for a while. */
static void after_shared(struct eng *e, struct eng_core **parked, uint64_t max_time, uint64_t *end,
			 bool *finished, int *result, struct share *sh)
{
	bool gained = omp_get_wtime() - sh->t0 < SHARE_GAIN * sh->work;

	e->shared_windows++;
	serial_part(e, parked, max_time, end, finished, result);
	if (e->share_all)
		return;
	if (gained) {
		sh->wait = SHARE_WAIT_MIN;
		return;
	}
	if (sh->wait < SHARE_WAIT_MIN)
		sh->wait = SHARE_WAIT_MIN;
	else if (sh->wait < SHARE_WAIT_MAX)
		sh->wait *= 2;
	sh->avg = 0;
	sh->since = 0;
	run_alone(e, parked, max_time, end, finished, result, sh);
}

int eng_run(struct eng *e, uint64_t max_time)
{
	struct eng_core **parked = malloc(e->nr_cores * sizeof(*parked));
	struct share sh = {0};
	int result = 0;
	uint64_t end = 0;
	bool finished = false;

	if (!parked)
		return -TLBSIM_ENOMEM;
	/* Parked cores from set-up are served before the first window. */
	boundary(e, parked);
	plan_window(e, max_time, &end, &finished, &result);
	/* With one thread, no parallel region ever. */
	run_alone(e, parked, max_time, &end, &finished, &result, &sh);
	if (finished) {
		free(parked);
		return result;
	}
	/*
	 * Shared windows.  Two barriers per window: the one after the
	 * parallel loop (every core has reached the window's end before the
	 * boundary routes its messages) and the one closing the single (the
	 * boundary and the next window's plan are visible before any core
	 * runs again).  Every thread reads @finished after the second, so
	 * all leave together.  The single also runs the windows that follow
	 * on its own thread while sharing does not pay.
	 */
	sh.t0 = omp_get_wtime();
#pragma omp parallel num_threads(e->threads) default(shared)
	while (!finished) {
		double part = omp_get_wtime();

#pragma omp for schedule(dynamic, 4) nowait
		for (uint32_t i = 0; i < e->nr_cores; i++)
			core_window(e, &e->cores[i], end);
		part = omp_get_wtime() - part;
#pragma omp atomic
		sh.work += part;
#pragma omp barrier
#pragma omp single
		{
			after_shared(e, parked, max_time, &end, &finished, &result, &sh);
			sh.work = 0;
			sh.t0 = omp_get_wtime();
		}
	}
	free(parked);
	return result;
}

void eng_send(struct eng *e, struct eng_core *from, struct eng_msg *m)
{
	if (from) {
		m->src = from->id;
		m->seq = from->seq++;
		from->st.msgs_sent++;
		vec_push(&from->outbox, m);
	} else {
		m->src = ENG_FABRIC;
		m->seq = e->fabric_seq++;
		vec_push(fabric_out(e), m);
	}
}

/* tlbsim_sim_stop() stores to stop_requested from a signal handler. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "stop_requested must be a lock-free atomic");

int eng_init(struct eng *e, uint32_t nr_cores, uint64_t window, int threads,
	     const struct eng_ops *ops, void *ctx)
{
	uint32_t i;

	memset(e, 0, sizeof(*e));
	atomic_init(&e->stop_requested, 0);
	if (!nr_cores || !window || !ops || !ops->step || !ops->deliver)
		return -TLBSIM_EINVAL;
	/* One extra core record holds the fabric's outbox. */
	e->cores = calloc(nr_cores + 1, sizeof(*e->cores));
	e->active = calloc((nr_cores + 63) / 64, sizeof(*e->active));
	e->run = malloc(nr_cores * sizeof(*e->run));
	e->sorted = malloc(nr_cores * sizeof(*e->sorted));
	if (!e->cores || !e->active || !e->run || !e->sorted) {
		free(e->cores);
		free(e->active);
		free(e->run);
		free(e->sorted);
		memset(e, 0, sizeof(*e));
		return -TLBSIM_ENOMEM;
	}
	e->nr_cores = nr_cores;
	e->window = window;
	e->threads = threads > 0 ? threads : 1;
	e->ops = ops;
	e->ctx = ctx;
	for (i = 0; i <= nr_cores; i++) {
		e->cores[i].id = i;
		e->cores[i].state = i < nr_cores ? ENG_IDLE : ENG_DONE;
		e->cores[i].wake_time = ENG_NEVER;
	}
	return 0;
}

void eng_fini(struct eng *e)
{
	uint32_t i;

	if (!e->cores)
		return;
	for (i = 0; i <= e->nr_cores; i++) {
		free(e->cores[i].inbox.m);
		free(e->cores[i].outbox.m);
	}
	free(e->cores);
	free(e->merge.m);
	free(e->active);
	free(e->run);
	free(e->sorted);
	memset(e, 0, sizeof(*e));
}
