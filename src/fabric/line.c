/* SPDX-License-Identifier: MIT */
/*
 * The cache lines the kernel shares between cpus (struct fab_line in
 * fabric.h): who holds a line, what it costs to get it, and the FIFO
 * (struct fab_server, server.c) that serialises the atomics on it.  A
 * write-invalidate protocol as every MESI/MOESI machine runs it: a read of
 * a line modified elsewhere fetches it and leaves it shared; a write or
 * atomic needs every other copy gone, so it pays the transfer from the
 * farthest holder; an atomic keeps the line locked in its cache until it
 * completes (Intel SDM vol. 3 9.1.4, "cache locking"; Arm ARM B2.9,
 * exclusives), so concurrent atomics on one line queue, as do the holders
 * of a spinlock (a ticket or queued lock serves them in order).  The
 * transfer costs are the core-to-core CAS latencies of the machine file
 * (topology.line, CALIBRATION.md section 2).
 */
#include <stdlib.h>
#include <string.h>

#include "fabric/fabric.h"

void fab_line_init(struct fab_line *l)
{
	memset(l, 0, sizeof(*l));
	fab_server_init(&l->srv, 0);
	l->owner = FAB_NO_CPU;
}

void fab_line_fini(struct fab_line *l)
{
	free(l->sharers);
	l->sharers = NULL;
	l->sharer_words = 0;
}

static bool holds(const struct fab_line *l, unsigned cpu)
{
	return l->owner == cpu || (l->sharers && tlbsim_cpumask_test(l->sharers, cpu));
}

/* The transfer to @cpu from @from (the last writer), 0 for itself or for
 * a line still in memory. */
static uint64_t from_writer(const struct tlbsim_machine *m, uint32_t from, unsigned cpu)
{
	return from == FAB_NO_CPU || from == cpu ? 0 : fab_line_latency(m, from, cpu);
}

/* farthest() of a line with readers: the longest of @worst and their
 * transfers. */
static __attribute__((noinline)) uint64_t farthest_reader(const struct tlbsim_machine *m,
							  const struct fab_line *l, unsigned cpu,
							  uint64_t worst)
{
	uint64_t t;

	for (unsigned i = 0; i < l->sharer_words; i++)
		for (uint64_t w = l->sharers->w[i]; w; w &= w - 1) {
			unsigned h = i * 64 + (unsigned)__builtin_ctzll(w);

			if (h != cpu && (t = fab_line_latency(m, h, cpu)) > worst)
				worst = t;
		}
	return worst;
}

/* The longest transfer to @cpu from any other holder of @l now: inline,
 * for the common case of a line no cpu read since its last write (a lock
 * or an atomic counter), whose transfer is the last writer's. */
static inline uint64_t farthest(const struct tlbsim_machine *m, const struct fab_line *l,
				unsigned cpu)
{
	uint64_t worst = from_writer(m, l->owner, cpu);

	return l->sharer_words ? farthest_reader(m, l, cpu, worst) : worst;
}

/* An exclusive access as a server use: its transfer, then @busy. */
struct use {
	const struct tlbsim_machine *m;
	const struct fab_line *l;
	unsigned cpu;
	uint64_t busy;
};

static uint64_t use_len(const void *arg, uint32_t prev, bool last)
{
	const struct use *u = arg;

	return (last ? farthest(u->m, u->l, u->cpu) : from_writer(u->m, prev, u->cpu)) + u->busy;
}

/* Where an exclusive access goes (fab_server_place()); fills @c. */
static unsigned place(const struct tlbsim_machine *m, const struct fab_line *l, unsigned cpu,
		      uint64_t now, uint64_t busy, struct fab_cost *c)
{
	const struct fab_server *s = &l->srv;
	struct use u = {.m = m, .l = l, .cpu = cpu, .busy = busy};
	uint64_t len;
	unsigned p;

	if (!s->nr_hold || fab_server_use(s, s->nr_hold - 1)->start < now) {
		/* fab_server_place()'s common case, without the calls: no
		 * use kept starts at or after @now, so none has a gap before
		 * it for this one, which goes after the latest. */
		c->start = now > s->busy_until ? now : s->busy_until;
		c->transfer = farthest(m, l, cpu);
		c->done = c->start + c->transfer + busy;
		return s->nr_hold;
	}
	p = fab_server_place(s, now, use_len, &u, &c->start, &len);
	c->transfer = len - busy;
	c->done = c->start + len;
	return p;
}

/*
 * A read at @now waits while the line is in another cpu's exclusive use;
 * the last use before its start wrote it.  Fills @c; returns whether the
 * read comes after the latest use (the reader then keeps a copy).
 */
static bool place_read(const struct tlbsim_machine *m, const struct fab_line *l, unsigned cpu,
		       uint64_t now, struct fab_cost *c)
{
	const struct fab_server *s = &l->srv;
	uint64_t at = now;
	unsigned p;

	if (!s->nr_hold || fab_server_use(s, s->nr_hold - 1)->start <= now) {
		/* The common case, the loop below in one step: every use
		 * kept starts at or before @now, and all but the latest end
		 * before it starts (they do not overlap). */
		p = s->nr_hold;
		if (p && fab_server_use(s, p - 1)->end > at)
			at = fab_server_use(s, p - 1)->end;
	} else {
		for (p = 0; p < s->nr_hold && fab_server_use(s, p)->start <= at; p++)
			if (fab_server_use(s, p)->end > at)
				at = fab_server_use(s, p)->end;
	}
	c->start = at;
	if (p == s->nr_hold)
		c->transfer = holds(l, cpu) || l->owner == FAB_NO_CPU
				  ? 0
				  : fab_line_latency(m, l->owner, cpu);
	else
		c->transfer = from_writer(m, p ? fab_server_use(s, p - 1)->cpu : s->before, cpu);
	c->done = at + c->transfer;
	return p == s->nr_hold;
}

void fab_line_cost(const struct tlbsim_machine *m, const struct fab_line *l, unsigned cpu,
		   uint64_t now, enum fab_op op, uint64_t busy, struct fab_cost *c)
{
	if (op == FAB_READ)
		(void)place_read(m, l, cpu, now, c);
	else
		(void)place(m, l, cpu, now, busy, c);
}

void fab_line_access(const struct tlbsim_machine *m, struct fab_line *l, unsigned cpu, uint64_t now,
		     enum fab_op op, uint64_t busy, struct fab_cost *c)
{
	struct fab_server *s = &l->srv;
	unsigned p;

	if (op == FAB_READ) {
		if (!place_read(m, l, cpu, now, c) || holds(l, cpu) || l->owner == FAB_NO_CPU)
			return;
		if (!l->sharers) {
			l->sharers = calloc(1, sizeof(*l->sharers));
			if (!l->sharers)
				return;
		}
		tlbsim_cpumask_set(l->sharers, cpu);
		if (cpu / 64 >= l->sharer_words)
			l->sharer_words = cpu / 64 + 1;
		return;
	}
	if (!s->nr_hold || fab_server_use(s, s->nr_hold - 1)->start < now) {
		/* place() and fab_server_commit() of their common case in
		 * one go: after the latest use. */
		c->start = now > s->busy_until ? now : s->busy_until;
		c->transfer = farthest(m, l, cpu);
		c->done = c->start + c->transfer + busy;
		fab_server_append(s, now, c->start, c->done, cpu);
	} else {
		p = place(m, l, cpu, now, busy, c);
		if (!fab_server_commit(s, p, now, c->start, c->done, cpu))
			return; /* in a gap before later uses: the line's state is theirs */
	}
	l->owner = cpu;
	if (l->sharer_words) {
		memset(l->sharers->w, 0, l->sharer_words * sizeof(l->sharers->w[0]));
		l->sharer_words = 0;
	}
}
