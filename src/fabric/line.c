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

/* The longest transfer to @cpu from any other holder of @l. */
static uint64_t farthest(const struct tlbsim_machine *m, const struct fab_line *l, unsigned cpu)
{
	uint64_t worst = 0, t;
	unsigned h;

	if (l->owner != FAB_NO_CPU && l->owner != cpu)
		worst = fab_line_latency(m, l->owner, cpu);
	if (!l->sharers)
		return worst;
	tlbsim_for_each_cpu(h, l->sharers)
		if (h != cpu && (t = fab_line_latency(m, h, cpu)) > worst)
			worst = t;
	return worst;
}

void fab_line_cost(const struct tlbsim_machine *m, const struct fab_line *l, unsigned cpu,
		   uint64_t now, enum fab_op op, uint64_t busy, struct fab_cost *c)
{
	c->start = now > l->srv.busy_until ? now : l->srv.busy_until;
	if (op == FAB_READ) {
		/* The last writer forwards it; a line never written is in
		 * memory, which the caller's own cost already covers. */
		c->transfer = holds(l, cpu) || l->owner == FAB_NO_CPU
				      ? 0
				      : fab_line_latency(m, l->owner, cpu);
		c->done = c->start + c->transfer;
		return;
	}
	c->transfer = farthest(m, l, cpu);
	c->done = c->start + c->transfer + busy;
}

void fab_line_access(const struct tlbsim_machine *m, struct fab_line *l, unsigned cpu,
		     uint64_t now, enum fab_op op, uint64_t busy, struct fab_cost *c)
{
	fab_line_cost(m, l, cpu, now, op, busy, c);
	if (op == FAB_READ) {
		if (holds(l, cpu) || l->owner == FAB_NO_CPU)
			return;
		if (!l->sharers) {
			l->sharers = calloc(1, sizeof(*l->sharers));
			if (!l->sharers)
				return;
		}
		tlbsim_cpumask_set(l->sharers, cpu);
		return;
	}
	/* The same start as fab_line_cost()'s: both take the FIFO's end. */
	(void)fab_server_hold(&l->srv, now, c->transfer + busy);
	l->owner = cpu;
	if (l->sharers)
		tlbsim_cpumask_zero(l->sharers);
}
