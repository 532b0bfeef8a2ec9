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
#include <pthread.h>
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

/* Heap operations move a hole, not the 72-byte messages in swaps: each
 * level copies one message. */
static void heap_push(struct eng_heap *h, const struct eng_msg *m)
{
	uint32_t i;

	vec_push(h, m); /* room, and the message at the end */
	for (i = h->n - 1; i > 0;) {
		uint32_t p = (i - 1) / 2;

		if (!msg_before(m, &h->m[p]))
			break;
		h->m[i] = h->m[p];
		i = p;
	}
	h->m[i] = *m;
}

static void heap_pop(struct eng_heap *h, struct eng_msg *out)
{
	const struct eng_msg *last;
	uint32_t i = 0;

	*out = h->m[0];
	last = &h->m[--h->n];
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, min = l;

		if (l >= h->n)
			break;
		if (r < h->n && msg_before(&h->m[r], &h->m[l]))
			min = r;
		if (!msg_before(&h->m[min], last))
			break;
		h->m[i] = h->m[min];
		i = min;
	}
	if (i != h->n)
		h->m[i] = *last;
}

static uint64_t inbox_head_time(const struct eng_core *c)
{
	return c->inbox.n ? c->inbox.m[0].time : ENG_NEVER;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* ---- the cores' classes ---------------------------------------------- */

/*
 * Each plan of a window (plan_window()) puts every core in one of three
 * classes, and a window looks only at the first two:
 *  - hot: RUNNING (it runs in every window) or PARKED (it waits for the
 *    serial phase); a bit in e->hot;
 *  - waiting: BLOCKED or IDLE with something ahead of it, a message in its
 *    inbox or a block's deadline; an entry in the heap e->wait keyed by
 *    wait_key(), and the window runs it only once that time has come;
 *  - quiescent: IDLE, DONE, or BLOCKED without a deadline, with empty
 *    mailboxes: nothing happens to it until a message reaches it or a
 *    serial hook wakes it.
 * A core's class changes only when it runs (its own window), when a
 * serial hook serves or wakes it (eng_wake()) or when a message is routed
 * to it; each of these puts it on e->dirty, and the next plan classifies
 * the dirty and the hot cores again, and no other.  So a machine of many
 * cores that wait (for acknowledgements, for IPIs due windows later) or
 * idle costs what its busy ones do (bench/perf/README.md).
 */
static bool is_quiescent(const struct eng_core *c)
{
	if (c->inbox.n || c->outbox.n)
		return false;
	return c->state == ENG_IDLE || c->state == ENG_DONE ||
	       (c->state == ENG_BLOCKED && c->wake_time == ENG_NEVER);
}

/*
 * A waiting core's next act, the key of its entry in e->wait: 0 when a
 * message has arrived by its clock (take_due() takes it at once, even in
 * a window that ends before that clock), else the earliest of the next
 * message's arrival and the block's deadline.  A window that ends at or
 * before the key passes the core by without a change: take_due() finds
 * nothing due and wait_until_event() nothing before the end.
 */
static uint64_t wait_key(const struct eng_core *c)
{
	uint64_t head = inbox_head_time(c);

	if (head <= c->now)
		return 0;
	return c->state == ENG_BLOCKED ? min_u64(head, c->wake_time) : head;
}

/* The earliest event of a waiting core: where a window may start. */
static uint64_t wait_time(const struct eng_core *c)
{
	uint64_t head = inbox_head_time(c);

	return c->state == ENG_BLOCKED ? min_u64(head, c->wake_time) : head;
}

static uint32_t words(const struct eng *e)
{
	return (e->nr_cores + 63) / 64;
}

/* Every core whose bit is set in the bitmap @bits, in id order: @i names
 * it in the body. */
#define for_each_bit(e, bits, i)                                                                   \
	for (uint32_t w_ = 0, n_ = words(e); w_ < n_; w_++)                                        \
		for (uint64_t b_ = (bits)[w_];                                                     \
		     b_ && ((i) = w_ * 64 + (uint32_t)__builtin_ctzll(b_), 1); b_ &= b_ - 1)

static bool wait_before(const struct eng_wait_entry *a, const struct eng_wait_entry *b)
{
	return a->key < b->key;
}

static void wait_push(struct eng *e, struct eng_wait_entry x)
{
	struct eng_wait *w = &e->wait;
	uint32_t i;

	if (w->n == w->cap) {
		uint32_t cap = w->cap ? 2 * w->cap : 64;
		struct eng_wait_entry *nh = realloc(w->h, cap * sizeof(*nh));

		/* As vec_push(): no way to report it from a plan. */
		BUG_ON(!nh, "memory for the waiting cores");
		w->h = nh;
		w->cap = cap;
	}
	for (i = w->n++; i > 0;) {
		uint32_t p = (i - 1) / 2;

		if (!wait_before(&x, &w->h[p]))
			break;
		w->h[i] = w->h[p];
		i = p;
	}
	w->h[i] = x;
}

static void wait_pop(struct eng *e)
{
	struct eng_wait *w = &e->wait;
	struct eng_wait_entry x = w->h[--w->n];
	uint32_t i = 0;

	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, min = i;
		const struct eng_wait_entry *m = &x;

		if (l < w->n && wait_before(&w->h[l], m)) {
			min = l;
			m = &w->h[l];
		}
		if (r < w->n && wait_before(&w->h[r], m))
			min = r;
		if (min == i)
			break;
		w->h[i] = w->h[min];
		i = min;
	}
	if (w->n)
		w->h[i] = x;
}

/* Is @x the live entry of its core?  A core's entry goes stale when it
 * is classified again with another key, or taken out to run. */
static bool wait_live(const struct eng *e, const struct eng_wait_entry *x)
{
	return (e->mark[x->id] & ENG_MARK_WAIT) && e->wait.gen[x->id] == x->gen;
}

/* Drop the stale entries from the top of e->wait (inline: a plan calls it
 * thrice, and mostly finds the heap empty or its top live). */
static inline void wait_clean_top(struct eng *e)
{
	while (e->wait.n && !wait_live(e, &e->wait.h[0]))
		wait_pop(e);
}

/*
 * Stale entries deeper in the heap leave it when they reach the top; when
 * they come to outnumber the cores, rebuild it from the live ones, so its
 * size stays bounded by the machine's.
 */
static void wait_compact(struct eng *e)
{
	struct eng_wait *w = &e->wait;
	uint32_t n = 0;

	if (w->n < 2 * e->nr_cores + 64)
		return;
	for (uint32_t k = 0; k < w->n; k++)
		if (wait_live(e, &w->h[k]))
			w->h[n++] = w->h[k];
	w->n = 0;
	for (uint32_t k = 0; k < n; k++)
		wait_push(e, w->h[k]);
}

/* Count @c in e->nr_mail as its inbox now is. */
static void note_mail(struct eng *e, const struct eng_core *c)
{
	bool mail = c->inbox.n != 0, was = e->mark[c->id] & ENG_MARK_MAIL;

	if (mail == was)
		return;
	e->mark[c->id] ^= ENG_MARK_MAIL;
	if (mail)
		e->nr_mail++;
	else
		e->nr_mail--;
}

/*
 * Put @c in its class as it is now (see above): hot, waiting with its
 * entry in e->wait (a new one if its key changed), or quiescent.
 */
static void classify(struct eng *e, struct eng_core *c)
{
	uint8_t *mark = &e->mark[c->id];

	*mark &= (uint8_t)~ENG_MARK_DIRTY;
	BUG_ON(c->outbox.n, "a core is classified with messages to route");
	if (c->state == ENG_RUNNING || c->state == ENG_PARKED) {
		e->hot[c->id / 64] |= 1ull << (c->id % 64);
		*mark &= (uint8_t)~ENG_MARK_WAIT;
		note_mail(e, c);
		return;
	}
	e->hot[c->id / 64] &= ~(1ull << (c->id % 64));
	if (is_quiescent(c)) {
		*mark &= (uint8_t)~ENG_MARK_WAIT;
		note_mail(e, c);
		return;
	}
	note_mail(e, c);
	/* A new entry (an older one of this core goes stale). */
	*mark |= ENG_MARK_WAIT;
	wait_push(e, (struct eng_wait_entry){.key = wait_key(c),
					     .time = wait_time(c),
					     .id = c->id,
					     .gen = ++e->wait.gen[c->id]});
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

/*
 * Sort the @n messages @a points to into (time, src, seq) order: a
 * bottom-up merge sort of the pointers (@tmp has room for @n), so that
 * no message is copied.  Returns @a or @tmp, whichever holds the result.
 * The order is total ((src, seq) is unique), so any sort gives it.
 */
static const struct eng_msg **sort_msgs(const struct eng_msg **a, const struct eng_msg **tmp,
					uint32_t n)
{
	for (uint32_t width = 1; width < n; width *= 2) {
		for (uint32_t i = 0; i < n; i += 2 * width) {
			uint32_t mid = i + width < n ? i + width : n;
			uint32_t end = i + 2 * width < n ? i + 2 * width : n;
			uint32_t l = i, r = mid, o = i;

			while (l < mid && r < end)
				tmp[o++] = msg_before(a[r], a[l]) ? a[r++] : a[l++];
			while (l < mid)
				tmp[o++] = a[l++];
			while (r < end)
				tmp[o++] = a[r++];
		}
		const struct eng_msg **t = a;

		a = tmp;
		tmp = t;
	}
	return a;
}

/* Fabric messages in (time, src, seq) order: the fabric's hook may keep
 * state (a FIFO server) that depends on the order it sees them in. */
static void route_fabric(struct eng *e)
{
	struct eng_heap *b = &e->merge;
	const struct eng_msg **order;
	uint32_t i;

	if (!b->n)
		return;
	if (b->n > e->fabric_cap) {
		uint32_t cap = b->cap;
		const struct eng_msg **no = realloc(e->fabric_order, 2 * (size_t)cap * sizeof(*no));

		BUG_ON(!no, "memory to sort the fabric's messages");
		e->fabric_order = no;
		e->fabric_cap = cap;
	}
	for (i = 0; i < b->n; i++)
		e->fabric_order[i] = &b->m[i];
	order = sort_msgs(e->fabric_order, e->fabric_order + e->fabric_cap, b->n);
	for (i = 0; i < b->n; i++)
		if (e->ops->fabric)
			e->ops->fabric(e->ctx, e, order[i]);
	b->n = 0;
}

/* Messages the fabric sends while being handed messages: kept apart, so
 * that they are routed after the batch that caused them. */
static struct eng_heap *fabric_out(struct eng *e)
{
	return &e->cores[e->nr_cores].outbox;
}

/*
 * Empty an outbox: messages for cores go straight into their inboxes
 * (and make their receivers dirty: their next act may come sooner), those
 * for the fabric into e->merge.  The order of insertion into an inbox
 * does not matter: the heap pops in (time, src, seq) order, a total
 * order, since (src, seq) is unique; so only the fabric's messages need
 * sorting.
 */
static void collect_outbox(struct eng *e, struct eng_heap *o)
{
	for (uint32_t k = 0; k < o->n; k++) {
		uint32_t d = o->m[k].dst;

		if (d == ENG_FABRIC) {
			vec_push(&e->merge, &o->m[k]);
		} else {
			heap_push(&e->cores[d].inbox, &o->m[k]);
			eng_wake(e, &e->cores[d]);
		}
	}
	o->n = 0;
}

/* collect_outboxes() of @n senders, or of the fabric's outbox (@any). */
static __attribute__((noinline)) bool collect_sent(struct eng *e, uint32_t n, bool any)
{
	for (uint32_t k = 0; k < n; k++) {
		struct eng_core *c = &e->cores[e->senders[k]];

		e->mark[c->id] &= (uint8_t)~ENG_MARK_SENDER;
		any |= c->outbox.n != 0;
		collect_outbox(e, &c->outbox);
		eng_wake(e, c); /* what it sent may have been its last act */
	}
	atomic_store_explicit(&e->nr_senders, 0, memory_order_relaxed);
	collect_outbox(e, fabric_out(e));
	return any;
}

/*
 * Empty the outboxes of the cores that sent (e->senders, in any order:
 * the result does not depend on it, see collect_outbox()) and the
 * fabric's.  Returns true if any message was routed.  Inline for most
 * boundaries, where nothing was sent.
 */
static inline bool collect_outboxes(struct eng *e)
{
	uint32_t n = atomic_load_explicit(&e->nr_senders, memory_order_relaxed);
	bool any = fabric_out(e)->n != 0;

	return (n || any) && collect_sent(e, n, any);
}

/* The end of the run of cores from @i on whose clocks do not go down. */
static uint32_t run_end(struct eng_core *const *a, uint32_t i, uint32_t n)
{
	while (++i < n && a[i - 1]->now <= a[i]->now)
		;
	return i;
}

/*
 * Sort @n parked cores, which come in id order, into (clock, id) order:
 * a stable sort by clock, merging the runs they already form (most
 * often one: cores that wait for a lock retry at each window's end, at
 * the same clock), taking the left one's core on equal clocks; @tmp
 * has room for @n.  Returns @a or @tmp, whichever holds the result.
 */
static struct eng_core **sort_parked(struct eng_core **a, struct eng_core **tmp, uint32_t n)
{
	for (;;) {
		uint32_t i = 0, runs = 0;

		while (i < n) {
			uint32_t mid = run_end(a, i, n), end = mid < n ? run_end(a, mid, n) : n;
			uint32_t l = i, r = mid, o = i;

			while (l < mid && r < end)
				tmp[o++] = a[r]->now < a[l]->now ? a[r++] : a[l++];
			while (l < mid)
				tmp[o++] = a[l++];
			while (r < end)
				tmp[o++] = a[r++];
			runs++;
			i = end;
		}
		struct eng_core **t = a;

		a = tmp;
		tmp = t;
		if (runs <= 1)
			return a;
	}
}

static void boundary(struct eng *e, struct eng_core **parked)
{
	struct eng_core **order = parked;
	uint32_t n = 0;
	bool sorted = true;

	while (collect_outboxes(e))
		route_fabric(e);
	/* A core parks only in its own window, or was parked at the plan:
	 * the window's cores hold every parked one. */
	for (uint32_t k = 0; k < e->nr_run; k++) {
		struct eng_core *c = &e->cores[e->run[k]];

		if (c->state != ENG_PARKED)
			continue;
		parked[n++] = c;
		/* In id order already: sorted unless a clock went down. */
		sorted &= n == 1 || parked[n - 2]->now <= parked[n - 1]->now;
	}
	if (!sorted)
		order = sort_parked(parked, e->sorted, n);
	for (uint32_t i = 0; i < n && e->ops->serve; i++)
		e->ops->serve(e->ctx, e, order[i]);
	while (collect_outboxes(e))
		route_fabric(e);
}

/*
 * Classify the cores that may have changed since the last plan: the hot
 * ones (every one ran in the last window, or was served), and the dirty
 * ones (served, woken, sent to, or taken out of e->wait to run).  The
 * others keep their class and their entries in e->wait.  Then find the
 * earliest clock of a hot core (*@next) and the lookahead (*@quiet, below).
 *
 * Lookahead: with no message in flight, a core can affect another only
 * after it parks (or a timed block ends), at the earliest at its horizon;
 * what it then sends arrives a window later.  So the window may end at the
 * smallest horizon plus the window length instead of the earliest activity
 * plus it: long computations need no boundary every L cycles.  *@quiet is
 * the smallest horizon (the RUNNING cores' and, with no mail anywhere, the
 * deadlines of the BLOCKED ones, which are their keys in e->wait), or 0
 * when no lookahead applies (a message in an inbox, a parked core, no
 * horizon hook).
 */
static void plan_classes(struct eng *e, uint64_t *next, uint64_t *quiet)
{
	uint64_t t = ENG_NEVER, h = ENG_NEVER;
	bool parked = false, lookahead;
	uint32_t i, first = UINT32_MAX; /* the first hot core at t */
	uint32_t nr_hot = 0;

	for (uint32_t k = 0; k < e->nr_dirty; k++) {
		struct eng_core *c = &e->cores[e->dirty[k]];

		e->mark[c->id] &= (uint8_t)~ENG_MARK_DIRTY;
		if (!(e->hot[c->id / 64] >> (c->id % 64) & 1))
			classify(e, c);
	}
	e->nr_dirty = 0;
	for_each_bit(e, e->hot, i)
	{
		struct eng_core *c = &e->cores[i];

		if (c->state != ENG_RUNNING && c->state != ENG_PARKED) {
			classify(e, c); /* no longer hot */
			continue;
		}
		BUG_ON(c->outbox.n, "a core is classified with messages to route");
		note_mail(e, c);
		if (c->now < t) {
			t = c->now;
			first = i;
		}
		parked |= c->state == ENG_PARKED;
		e->run[nr_hot++] = i;
	}
	e->nr_run = nr_hot; /* the window's cores, unless list_run() adds some */
	wait_compact(e);
	wait_clean_top(e);
	lookahead = e->ops->horizon != NULL && !e->nr_mail && !parked;
	if (lookahead) {
		/*
		 * A horizon of t + L or less ends the search: the window then
		 * starts at t or earlier (a deadline before t, also a bound
		 * of the horizon) and no lookahead stretches it (plan_window()
		 * needs h > w + L), whatever the other cores' horizons.  The
		 * core at t is asked first: the one most likely to park soon
		 * (a cpu whose next event is an access has its clock for
		 * horizon), so most searches end at it.
		 */
		if (first != UINT32_MAX) {
			h = e->ops->horizon(e->ctx, e, &e->cores[first]);
			if (h <= t + e->window)
				goto found;
		}
		for_each_bit(e, e->hot, i)
		{
			if (i == first)
				continue;
			h = min_u64(h, e->ops->horizon(e->ctx, e, &e->cores[i]));
			if (h <= t + e->window)
				goto found;
		}
	found:
		if (e->wait.n)
			h = min_u64(h, e->wait.h[0].key);
	}
	*next = t;
	*quiet = lookahead && h != ENG_NEVER ? h : 0;
}

/* Take the live top entry of e->wait out, its core to run in the window
 * being planned (dirty: the next plan classifies it again). */
static void take_top(struct eng *e)
{
	uint32_t i = e->wait.h[0].id;

	wait_pop(e);
	e->mark[i] &= (uint8_t)~ENG_MARK_WAIT;
	e->runbits[i / 64] |= 1ull << (i % 64);
	eng_wake(e, &e->cores[i]);
}

/*
 * Start the list of the window's cores (e->runbits) with the hot ones and
 * the waiting ones whose next act is at once (key 0: a message arrived
 * by their clock), which any window runs; lower *@next to the earliest
 * event among those (their messages' arrival, or a block's deadline) and
 * among the others (their keys).
 */
static void take_at_once(struct eng *e, uint64_t *next)
{
	for (uint32_t w = 0; w < words(e); w++)
		e->runbits[w] = e->hot[w]; /* a word or a few: no call */
	for (;;) {
		wait_clean_top(e);
		if (!e->wait.n)
			return;
		if (e->wait.h[0].key) {
			*next = min_u64(*next, e->wait.h[0].key);
			return;
		}
		*next = min_u64(*next, e->wait.h[0].time);
		take_top(e);
	}
}

/*
 * The window's cores (e->run, in id order): those take_at_once() chose,
 * and every waiting core whose next act comes before @end, taken out of
 * e->wait.  The window passes the others by (wait_key()).  When no
 * waiting core was taken, they are the hot ones, which plan_classes()
 * listed already.
 */
static void list_run(struct eng *e, uint64_t end)
{
	uint32_t i, n = 0;

	for (;;) {
		wait_clean_top(e);
		if (!e->wait.n || e->wait.h[0].key >= end)
			break;
		take_top(e);
	}
	for (uint32_t w = 0; w < words(e); w++)
		n += (uint32_t)__builtin_popcountll(e->runbits[w]);
	if (n == e->nr_run)
		return;
	e->nr_run = 0;
	for_each_bit(e, e->runbits, i) e->run[e->nr_run++] = i;
}

#ifndef NDEBUG
/* Debug builds check the classes: a core neither hot nor dirty is as the
 * last plan classified it (eng_wake()'s contract). */
static void check_classes(const struct eng *e)
{
	for (uint32_t i = 0; i < e->nr_cores; i++) {
		const struct eng_core *c = &e->cores[i];
		bool waiting = e->mark[i] & ENG_MARK_WAIT;

		if ((e->hot[i / 64] >> (i % 64) & 1) || (e->mark[i] & ENG_MARK_DIRTY))
			continue;
		BUG_ON(c->state == ENG_RUNNING || c->state == ENG_PARKED,
		       "a core that runs or is parked is hot (eng_wake())");
		BUG_ON(waiting == is_quiescent(c), "a waiting core is not quiescent (eng_wake())");
		BUG_ON(!!(e->mark[i] & ENG_MARK_MAIL) != (c->inbox.n != 0),
		       "a core's mail is counted (eng_wake())");
		if (waiting) {
			bool found = false;

			for (uint32_t k = 0; k < e->wait.n; k++)
				if (e->wait.h[k].id == i && e->wait.gen[i] == e->wait.h[k].gen)
					found = e->wait.h[k].key == wait_key(c) &&
						e->wait.h[k].time == wait_time(c);
			BUG_ON(!found, "a waiting core's entry has its next act (eng_wake())");
		}
	}
}
#endif

/* The end of a window that starts at @w, with lookahead @h (0: none). */
static uint64_t window_end(const struct eng *e, uint64_t w, uint64_t h, uint64_t max_time)
{
	uint64_t end = w + e->window;

	if (h > w && h - w > e->window && h + e->window > end)
		end = h + e->window;
	if (max_time != ENG_NEVER && end > max_time && max_time > w)
		end = max_time;
	return end;
}

/* Is core @id the only hot one? */
static bool only_hot(const struct eng *e, uint32_t id)
{
	for (uint32_t w = 0; w < words(e); w++)
		if (e->hot[w] != (w == id / 64 ? 1ull << (id % 64) : 0))
			return false;
	return true;
}

/*
 * Serial: choose the next window, or decide that the run is over (*@done,
 * with eng_run()'s result in *@result).
 */
static void plan_window(struct eng *e, uint64_t max_time, uint64_t *end, bool *done, int *result)
{
	uint64_t w, h;

#ifndef NDEBUG
	check_classes(e);
#endif
	plan_classes(e, &w, &h);
	take_at_once(e, &w);

	if (atomic_load_explicit(&e->stop_requested, memory_order_relaxed) ||
	    (max_time != ENG_NEVER && w != ENG_NEVER && w >= max_time)) {
		*result = 1;
		*done = true;
	} else if (w == ENG_NEVER) {
		*done = true;
	} else {
		/* A lagging core can start a window behind the previous one's
		 * end; the window starts at the earliest activity. */
		e->now = w;
		*end = window_end(e, w, h, max_time);
		list_run(e, *end);
		e->lone = e->nr_run == 1 && !e->wait.n &&
			  e->cores[e->run[0]].state == ENG_RUNNING && only_hot(e, e->run[0]);
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
 * Sharing a window's cores among the threads costs a meeting of the
 * threads at its end (the gate below): about a microsecond while both
 * spin on cpus of their own, tens of microseconds on the development VM
 * when one has to be woken from a sleep, while a window of a flush-heavy
 * run (an IPI handled here and there) takes a few microseconds on one
 * thread; sharing every window (with two OpenMP barriers each) made 2
 * threads 4 to 12 times slower than 1 (bench/perf/README.md).  And the
 * serial phase that follows a shared window reads what the other thread's
 * cores wrote, from the other host cpu's cache: on the 256-cpu
 * `madvise-threads` run, whose serial phase is as long as its cores'
 * windows, shared windows that gained by their own measure left the run
 * 1.7 times slower than one thread.  So the engine shares only windows
 * that gain by it, measured on the host as it goes:
 *  - alone, it times each window's cores and its serial phase on the
 *    calling thread; once the cores' moving average (weight 1/4) reaches
 *    SHARE_MIN_S and SHARE_PARALLEL times the serial phase's, and @wait
 *    windows have passed since sharing last failed, the next window is
 *    shared;
 *  - shared, each thread times its part of the window, and the window's
 *    wall time (the meeting and the serial phase included) is set against
 *    the sum of the parts and the serial phase, what one thread would have
 *    taken: while it stays under SHARE_GAIN of that, windows stay shared
 *    (the first of a stretch is not judged: it pays for waking the others);
 *  - when a window of the stretch does not gain, or one core is left to
 *    run, the stretch is judged as a whole, its first window left out:
 *    if it gained, the next window may be shared again as soon as the
 *    averages say so; else @wait doubles (from SHARE_WAIT_MIN windows to
 *    SHARE_WAIT_MAX at most).
 * Which thread runs a core's window does not change what it computes (the
 * model above): the results do not depend on these choices, only the
 * speed does.
 */
#define SHARE_MIN_S 20e-6
#define SHARE_PARALLEL 4
#define SHARE_GAIN 0.9
#define SHARE_WAIT_MIN 16
#define SHARE_WAIT_MAX 4096

struct share {
	double avg;	   /* alone: moving average of a window's cores, s */
	double serial_avg; /* alone: the same of its serial phase, s */
	uint64_t wait;	   /* windows to run alone after a failed share */
	uint64_t since;	   /* windows run alone since the last share */
	double t0;	   /* shared: when the window opened */
	double work;	   /* shared: the threads' parts, then + serial phase, s */
	bool first;	   /* shared: the first window of a stretch */
	double wall_sum;   /* shared: the stretch's wall time, first left out, s */
	double work_sum;   /* shared: the same of @work, s */
};

static void run_cores(struct eng *e, uint64_t end)
{
	for (uint32_t i = 0; i < e->nr_run; i++) {
		struct eng_core *c = &e->cores[e->run[i]];

		/* A running core already at the window's end with no message
		 * to take: core_window() would return at once.  Most cores of
		 * a fault-heavy window, whose serve took them past it. */
		if (c->state == ENG_RUNNING && c->now >= end && !c->inbox.n)
			continue;
		core_window(e, c, end);
	}
}

static bool worth_sharing(const struct eng *e, const struct share *sh)
{
	return e->threads > 1 && (e->share_all || (e->nr_run > 1 && sh->avg >= SHARE_MIN_S &&
						   sh->avg >= SHARE_PARALLEL * sh->serial_avg &&
						   sh->since >= sh->wait));
}

/*
 * The windows of a lone core (e->lone): the only one that runs, none
 * waiting for a message or a deadline, nothing in flight but its own
 * mail.  Until it parks, blocks, idles or sends, each of its windows ends
 * in a boundary with nothing to route or serve and a plan that finds it
 * alone again: those are made here, back to back, as plan_window() makes
 * them (the same start, end, lookahead and count of windows), without the
 * walk over the classes; a single-threaded trace spends most of its
 * windows so.  Returns at the first window after which the boundary or
 * the plan has something to do, or the run may stop.
 */
static void run_lone(struct eng *e, uint64_t max_time, uint64_t *end)
{
	struct eng_core *c = &e->cores[e->run[0]];

	for (;;) {
		uint64_t w, h = 0;

		core_window(e, c, *end);
		if (c->state != ENG_RUNNING || c->outbox.n || fabric_out(e)->n)
			return;
		w = c->now;
		if (atomic_load_explicit(&e->stop_requested, memory_order_relaxed) ||
		    (max_time != ENG_NEVER && w >= max_time))
			return;
		e->windows++;
		note_mail(e, c);
		if (e->ops->horizon && !e->nr_mail) {
			h = e->ops->horizon(e->ctx, e, c);
			if (h == ENG_NEVER)
				h = 0;
		}
		e->now = w;
		*end = window_end(e, w, h, max_time);
	}
}

/*
 * Windows on the calling thread (timed when @e has other threads to share
 * with), until the run is over or the next window is worth sharing.
 */
static void run_alone(struct eng *e, struct eng_core **parked, uint64_t max_time, uint64_t *end,
		      bool *finished, int *result, struct share *sh)
{
	while (!*finished && !worth_sharing(e, sh)) {
		double t0, t1, t2;
		bool several;

		if (e->lone) {
			t0 = e->time_phases ? omp_get_wtime() : 0;
			run_lone(e, max_time, end);
			serial_part(e, parked, max_time, end, finished, result);
			if (e->time_phases)
				e->serial_s += omp_get_wtime() - t0;
			continue;
		}
		if (e->threads == 1 && !e->time_phases) {
			run_cores(e, *end);
			serial_part(e, parked, max_time, end, finished, result);
			continue;
		}
		several = e->nr_run > 1; /* the plan of the next window changes it */
		t0 = omp_get_wtime();
		run_cores(e, *end);
		t1 = omp_get_wtime();
		sh->avg += (t1 - t0 - sh->avg) / 4;
		sh->since++;
		serial_part(e, parked, max_time, end, finished, result);
		t2 = omp_get_wtime();
		sh->serial_avg += (t2 - t1 - sh->serial_avg) / 4;
		if (several)
			e->shareable_s += t1 - t0;
		else
			e->serial_s += t1 - t0;
		e->serial_s += t2 - t1;
	}
	sh->first = true;
}

/* After a shared window: does the stretch go on?  If not, was it worth
 * it?  (See "Sharing a window's cores" above.) */
static void after_shared(struct eng *e, struct eng_core **parked, uint64_t max_time, uint64_t *end,
			 bool *finished, int *result, struct share *sh)
{
	double t1 = omp_get_wtime(), wall;
	bool first = sh->first;

	sh->first = false;
	e->shared_windows++;
	serial_part(e, parked, max_time, end, finished, result);
	wall = omp_get_wtime() - sh->t0;
	sh->work += omp_get_wtime() - t1;
	if (!first) {
		sh->wall_sum += wall;
		sh->work_sum += sh->work;
	}
	if (e->share_all || *finished)
		return;
	if (e->nr_run > 1 && (first || wall < SHARE_GAIN * sh->work))
		return;
	if (sh->wall_sum < SHARE_GAIN * sh->work_sum) {
		sh->wait = SHARE_WAIT_MIN;
		sh->since = sh->wait;
	} else {
		if (sh->wait < SHARE_WAIT_MIN)
			sh->wait = SHARE_WAIT_MIN;
		else if (sh->wait < SHARE_WAIT_MAX)
			sh->wait *= 2;
		sh->avg = 0;
		sh->since = 0;
	}
	sh->wall_sum = sh->work_sum = 0;
	run_alone(e, parked, max_time, end, finished, result, sh);
}

/* ---- the shared windows' gate --------------------------------------- */

/*
 * How the threads of shared windows meet.  Thread t of T owns the cores
 * whose ids lie in [t N / T, (t + 1) N / T): it runs the window's cores of
 * that range, one at a time, and then helps with the others' ranges that
 * are not done yet (a cursor per range, each on a cache line of its own).
 * A core thus runs on the same host cpu window after window while the
 * work is even, and its TLBs, queues and the OS model's state stay in that
 * cpu's caches: with the cores dealt out four at a time to whichever
 * thread asked first, each thread's part of a busy window took 1.6 times
 * as long as it did alone (bench_engine_scaling, 64 cores, measured
 * before this engine's cores got cheaper: 0.47 s of parts against 0.28 s
 * on one thread; 0.27 s with the ranges).  Thread 0, the one that
 * called eng_run(), waits for the others to finish their parts, runs the
 * serial phase (and the windows that follow it alone, while sharing does
 * not pay) and opens the next window, which the others wait for: the
 * serial phase's state (the fabric, the plan, the parked cores) and the
 * cores of windows run alone stay in one host cpu's caches, where the
 * last thread to finish its part ran them before, on either cpu from one
 * window to the next.  One wait per window and thread, where the
 * `omp for` and `omp single` of an OpenMP loop made two; and a wait spins
 * for up to GATE_SPIN_S before it sleeps: a thread woken from a futex
 * sleep took tens of microseconds on the development VM, as long as a
 * busy window's share of work, while the threads of a shared window
 * finish their parts within microseconds of each other.  The bound keeps
 * a waiting thread from holding a cpu that another process (or the
 * thread running windows alone) needs for longer than that.
 */
#define GATE_SPIN_S 20e-6

/* A thread's range of cores: how many of its window's cores were taken. */
struct range {
	_Alignas(64) atomic_uint taken;
};

struct gate {
	atomic_uint gen;	   /* bumped when a window opens, or the run ends */
	atomic_uint done;	   /* threads done with the window's cores */
	struct range *ranges;	   /* per thread (see above) */
	atomic_int sleepers;	   /* threads asleep on @cv */
	atomic_bool closer_asleep; /* thread 0 asleep on @cv, waiting for @done */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool finished; /* written before @gen is bumped */
	double *part;  /* per thread: its part of the window, s */
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/*
 * Spins for up to GATE_SPIN_S until @word is @v (@equal) or is no longer
 * @v (!@equal): true, with the value in @now (an acquire load), if it
 * came; false when the time is up and the caller should sleep.
 */
static bool gate_spin(atomic_uint *word, unsigned v, bool equal, unsigned *now)
{
	double t0 = 0;

	for (unsigned i = 1;; i++) {
		*now = atomic_load_explicit(word, memory_order_acquire);
		if ((*now == v) == equal)
			return true;
		if (!(i % 64)) {
			double t = omp_get_wtime();

			if (!t0)
				t0 = t;
			else if (t - t0 > GATE_SPIN_S)
				return false;
		}
		cpu_relax();
	}
}

/* Wait until the gate's generation is no longer @seen; returns it. */
static unsigned gate_wait(struct gate *g, unsigned seen)
{
	unsigned now;

	if (gate_spin(&g->gen, seen, false, &now))
		return now;
	/* Asleep: the opener sees @sleepers or this thread sees the new
	 * generation (both sequentially consistent), so no wake-up is lost. */
	pthread_mutex_lock(&g->mu);
	atomic_fetch_add(&g->sleepers, 1);
	while ((now = atomic_load(&g->gen)) == seen)
		pthread_cond_wait(&g->cv, &g->mu);
	atomic_fetch_sub(&g->sleepers, 1);
	pthread_mutex_unlock(&g->mu);
	return now;
}

static void gate_open(struct gate *g)
{
	atomic_fetch_add(&g->gen, 1);
	if (atomic_load(&g->sleepers)) {
		pthread_mutex_lock(&g->mu);
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
	}
}

/* A thread other than 0 is done with its part of the window; the last
 * of them wakes thread 0 if it sleeps (see gate_wait_done()). */
static void gate_done(struct gate *g, unsigned others)
{
	if (atomic_fetch_add(&g->done, 1) == others - 1 && atomic_load(&g->closer_asleep)) {
		pthread_mutex_lock(&g->mu);
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
	}
}

/* Thread 0, done with its part: waits for the @others threads to be done
 * with theirs, spinning for up to GATE_SPIN_S before it sleeps, as
 * gate_wait() does. */
static void gate_wait_done(struct gate *g, unsigned others)
{
	unsigned now;

	if (gate_spin(&g->done, others, true, &now))
		return;
	/* Asleep: the last of the others sees @closer_asleep or this thread
	 * sees its count (both sequentially consistent). */
	pthread_mutex_lock(&g->mu);
	atomic_store(&g->closer_asleep, true);
	while (atomic_load(&g->done) != others)
		pthread_cond_wait(&g->cv, &g->mu);
	atomic_store(&g->closer_asleep, false);
	pthread_mutex_unlock(&g->mu);
}

/* The first index of e->run whose core's id is at least @id (the run
 * is in id order). */
static uint32_t run_lower_bound(const struct eng *e, uint32_t id)
{
	uint32_t lo = 0, hi = e->nr_run;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (e->run[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* This thread's part of a shared window: its range of cores (thread @me
 * of @nthreads), then what is left of the others'. */
static double run_part(struct eng *e, struct gate *g, uint64_t end, unsigned me, unsigned nthreads)
{
	double t0 = omp_get_wtime();

	for (unsigned k = 0; k < nthreads; k++) {
		unsigned t = (me + k) % nthreads;
		uint32_t lo = run_lower_bound(e, (uint32_t)((uint64_t)t * e->nr_cores / nthreads));
		uint32_t n =
		    run_lower_bound(e, (uint32_t)((uint64_t)(t + 1) * e->nr_cores / nthreads)) - lo;
		uint32_t j;

		while ((j = atomic_fetch_add_explicit(&g->ranges[t].taken, 1,
						      memory_order_relaxed)) < n)
			core_window(e, &e->cores[e->run[lo + j]], end);
	}
	return omp_get_wtime() - t0;
}

int eng_run(struct eng *e, uint64_t max_time)
{
	struct eng_core **parked = malloc(e->nr_cores * sizeof(*parked));
	struct share sh = {0};
	struct gate g = {0};
	int result = 0;
	uint64_t end = 0;
	bool finished = false;

	if (!parked)
		return -TLBSIM_ENOMEM;
	/* The owner set the cores up as it liked (or a stopped run left
	 * them): every one is classified afresh, and parked ones from set-up
	 * are served before the first window. */
	memset(e->hot, 0, words(e) * sizeof(*e->hot));
	e->wait.n = 0;
	e->nr_mail = 0;
	e->nr_dirty = 0;
	e->nr_run = 0;
	for (uint32_t i = 0; i < e->nr_cores; i++) {
		e->mark[i] &= ENG_MARK_SENDER;
		eng_wake(e, &e->cores[i]);
		e->run[e->nr_run++] = i;
	}
	boundary(e, parked);
	plan_window(e, max_time, &end, &finished, &result);
	/* With one thread, no parallel region ever. */
	run_alone(e, parked, max_time, &end, &finished, &result, &sh);
	if (finished) {
		free(parked);
		return result;
	}
	g.part = calloc((size_t)e->threads, sizeof(*g.part));
	g.ranges = aligned_alloc(_Alignof(struct range), (size_t)e->threads * sizeof(*g.ranges));
	if (!g.part || !g.ranges) {
		free(g.part);
		free(g.ranges);
		free(parked);
		return -TLBSIM_ENOMEM;
	}
	for (int t = 0; t < e->threads; t++)
		atomic_init(&g.ranges[t].taken, 0);
	atomic_init(&g.gen, 0);
	atomic_init(&g.done, 0);
	atomic_init(&g.sleepers, 0);
	atomic_init(&g.closer_asleep, false);
	pthread_mutex_init(&g.mu, NULL);
	pthread_cond_init(&g.cv, NULL);
	/*
	 * Shared windows (the gate above).  What the last thread of a window
	 * does (the serial phase, the plan of the next window in @end) is
	 * seen by the others once they see the gate open: the acquire and
	 * release of @done and @gen order it.
	 */
	sh.t0 = omp_get_wtime();
#pragma omp parallel num_threads(e->threads) default(shared)
	{
		const unsigned nthreads = (unsigned)omp_get_num_threads();
		const int me = omp_get_thread_num();
		unsigned seen = 0;

		for (;;) {
			g.part[me] = run_part(e, &g, end, (unsigned)me, nthreads);
			if (me == 0) {
				gate_wait_done(&g, nthreads - 1);
				sh.work = 0;
				for (unsigned t = 0; t < nthreads; t++)
					sh.work += g.part[t];
				after_shared(e, parked, max_time, &end, &finished, &result, &sh);
				atomic_store_explicit(&g.done, 0, memory_order_relaxed);
				for (unsigned t = 0; t < nthreads; t++)
					atomic_store_explicit(&g.ranges[t].taken, 0,
							      memory_order_relaxed);
				g.finished = finished;
				sh.t0 = omp_get_wtime();
				gate_open(&g);
				seen++;
			} else {
				gate_done(&g, nthreads - 1);
				seen = gate_wait(&g, seen);
			}
			if (g.finished)
				break;
		}
	}
	pthread_cond_destroy(&g.cv);
	pthread_mutex_destroy(&g.mu);
	free(g.part);
	free(g.ranges);
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
		/* Its first message since the last collection: a sender.  In a
		 * shared window only the core's own thread touches its mark. */
		if (!(e->mark[from->id] & ENG_MARK_SENDER)) {
			e->mark[from->id] |= ENG_MARK_SENDER;
			e->senders[atomic_fetch_add_explicit(&e->nr_senders, 1,
							     memory_order_relaxed)] = from->id;
		}
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
	e->hot = calloc((nr_cores + 63) / 64, sizeof(*e->hot));
	e->runbits = calloc((nr_cores + 63) / 64, sizeof(*e->runbits));
	e->wait.gen = calloc(nr_cores, sizeof(*e->wait.gen));
	e->mark = calloc(nr_cores, sizeof(*e->mark));
	e->dirty = malloc(nr_cores * sizeof(*e->dirty));
	e->senders = malloc(nr_cores * sizeof(*e->senders));
	e->run = malloc(nr_cores * sizeof(*e->run));
	e->sorted = malloc(nr_cores * sizeof(*e->sorted));
	if (!e->cores || !e->hot || !e->runbits || !e->wait.gen || !e->mark || !e->dirty ||
	    !e->senders || !e->run || !e->sorted) {
		e->nr_cores = nr_cores;
		eng_fini(e);
		return -TLBSIM_ENOMEM;
	}
	atomic_init(&e->nr_senders, 0);
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

	if (e->cores)
		for (i = 0; i <= e->nr_cores; i++) {
			free(e->cores[i].inbox.m);
			free(e->cores[i].outbox.m);
		}
	free(e->cores);
	free(e->merge.m);
	free(e->hot);
	free(e->runbits);
	free(e->wait.h);
	free(e->wait.gen);
	free(e->mark);
	free(e->dirty);
	free(e->senders);
	free(e->run);
	free(e->sorted);
	free(e->fabric_order);
	memset(e, 0, sizeof(*e));
}
