/* SPDX-License-Identifier: MIT */
/*
 * The cache lines the kernel shares between cpus (struct fab_line in
 * fabric.h): who holds a line, what it costs to get it, and the FIFO that
 * serialises the atomics on it.  A write-invalidate protocol as every
 * MESI/MOESI machine runs it: a read of a line modified elsewhere fetches
 * it and leaves it shared; a write or atomic needs every other copy gone,
 * so it pays the transfer from the farthest holder; an atomic keeps the
 * line locked in its cache until it completes (Intel SDM vol. 3 9.1.4,
 * "cache locking"; Arm ARM B2.9, exclusives), so concurrent atomics on one
 * line queue, as do the holders of a spinlock (a ticket or queued lock
 * serves them in order).  The transfer costs are the core-to-core CAS
 * latencies of the machine file (topology.line, CALIBRATION.md section 2).
 */
#include <stdlib.h>
#include <string.h>

#include "fabric/fabric.h"

void fab_line_init(struct fab_line *l)
{
	memset(l, 0, sizeof(*l));
	l->owner = FAB_NO_CPU;
	l->before = FAB_NO_CPU;
}

void fab_line_fini(struct fab_line *l)
{
	free(l->sharers);
	l->sharers = NULL;
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

/* The longest transfer to @cpu from any other holder of @l now. */
static uint64_t farthest(const struct tlbsim_machine *m, const struct fab_line *l, unsigned cpu)
{
	uint64_t worst = from_writer(m, l->owner, cpu), t;
	unsigned h;

	if (!l->sharers)
		return worst;
	tlbsim_for_each_cpu(h, l->sharers)
		if (h != cpu && (t = fab_line_latency(m, h, cpu)) > worst)
			worst = t;
	return worst;
}

/* The writer of @l's exclusive use at index @p - 1, or before all. */
static uint32_t writer_before(const struct fab_line *l, unsigned p)
{
	return p ? l->hold[p - 1].cpu : l->before;
}

/*
 * Where an exclusive access of @cpu arriving at @now goes: the first gap
 * between remembered uses, at or after @now, that its transfer (from the
 * use before the gap) and @busy fit in; after the latest use, the
 * transfer from every current holder.  Fills @c; returns the index the
 * access takes in l->hold.
 */
static unsigned place(const struct tlbsim_machine *m, const struct fab_line *l, unsigned cpu,
		      uint64_t now, uint64_t busy, struct fab_cost *c)
{
	unsigned p;

	for (p = 0; p < l->nr_hold; p++) {
		uint64_t s = p && l->hold[p - 1].end > now ? l->hold[p - 1].end : now;
		uint64_t t = from_writer(m, writer_before(l, p), cpu);

		if (s + t + busy <= l->hold[p].start) {
			*c = (struct fab_cost){.start = s, .transfer = t, .done = s + t + busy};
			return p;
		}
	}
	c->start = now > l->srv.busy_until ? now : l->srv.busy_until;
	c->transfer = farthest(m, l, cpu);
	c->done = c->start + c->transfer + busy;
	return l->nr_hold;
}

/*
 * A read at @now waits while the line is in another cpu's exclusive use;
 * the last use before its start wrote it.  Fills @c; returns whether the
 * read comes after the latest use (the reader then keeps a copy).
 */
static bool place_read(const struct tlbsim_machine *m, const struct fab_line *l, unsigned cpu,
		       uint64_t now, struct fab_cost *c)
{
	uint64_t s = now;
	unsigned p;

	for (p = 0; p < l->nr_hold && l->hold[p].start <= s; p++)
		if (l->hold[p].end > s)
			s = l->hold[p].end;
	c->start = s;
	if (p == l->nr_hold)
		c->transfer = holds(l, cpu) || l->owner == FAB_NO_CPU
				      ? 0
				      : fab_line_latency(m, l->owner, cpu);
	else
		c->transfer = from_writer(m, writer_before(l, p), cpu);
	c->done = s + c->transfer;
	return p == l->nr_hold;
}

void fab_line_cost(const struct tlbsim_machine *m, const struct fab_line *l, unsigned cpu,
		   uint64_t now, enum fab_op op, uint64_t busy, struct fab_cost *c)
{
	if (op == FAB_READ)
		(void)place_read(m, l, cpu, now, c);
	else
		(void)place(m, l, cpu, now, busy, c);
}

/* Remember the use [start, end) of @cpu at index @p (the oldest goes when
 * the record is full); whether it is the latest use. */
static bool remember(struct fab_line *l, unsigned p, uint64_t start, uint64_t end, unsigned cpu)
{
	if (l->nr_hold == FAB_LINE_HOLDS) {
		if (p == 0)
			return false; /* older than all kept: nothing depends on it */
		l->before = l->hold[0].cpu;
		memmove(&l->hold[0], &l->hold[1], (FAB_LINE_HOLDS - 1) * sizeof(l->hold[0]));
		l->nr_hold--;
		p--;
	}
	memmove(&l->hold[p + 1], &l->hold[p], (l->nr_hold - p) * sizeof(l->hold[0]));
	l->hold[p] = (struct fab_hold){.start = start, .end = end, .cpu = cpu};
	return ++l->nr_hold == p + 1;
}

void fab_line_access(const struct tlbsim_machine *m, struct fab_line *l, unsigned cpu,
		     uint64_t now, enum fab_op op, uint64_t busy, struct fab_cost *c)
{
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
		return;
	}
	p = place(m, l, cpu, now, busy, c);
	l->srv.served++;
	l->srv.queued_cycles += c->start - now;
	if (!remember(l, p, c->start, c->done, cpu))
		return; /* in a gap before later uses: the line's state is theirs */
	l->srv.busy_until = c->done;
	l->owner = cpu;
	if (l->sharers)
		tlbsim_cpumask_zero(l->sharers);
}
