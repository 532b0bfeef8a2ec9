/* SPDX-License-Identifier: MIT */
/*
 * FIFO resources (struct fab_server in fabric.h): the serial broadcast
 * engines (arm64 DVM, AMD INVLPGB; CALIBRATION.md 4.3: broadcast latency
 * grows about linearly with the cpus broadcasting at once) and, through
 * the line model (line.c), the atomics on a shared cache line and the
 * holders of a lock.  Requests are served in the order they arrive; one
 * that arrives before uses already reserved further ahead (served later
 * by the simulation, see fabric.h) takes the first gap that fits.
 */
#include <string.h>

#include "fabric/fabric.h"

void fab_server_init(struct fab_server *s, uint64_t service)
{
	memset(s, 0, sizeof(*s));
	s->service = service;
	s->before = FAB_NO_CPU;
}

bool fab_server_commit(struct fab_server *s, unsigned p, uint64_t arrive, uint64_t start,
		       uint64_t end, uint32_t cpu)
{
	unsigned i;

	if (p == s->nr_hold) {
		fab_server_append(s, arrive, start, end, cpu);
		return true;
	}
	s->served++;
	s->queued_cycles += start - arrive;
	if (s->nr_hold == FAB_HOLDS) {
		const struct fab_hold *oldest = fab_server_use(s, 0);

		if (p == 0) {
			/* Before all kept: forgotten at once, its end a bound. */
			s->before = cpu;
			s->before_end = end;
			return false;
		}
		s->before = oldest->cpu;
		s->before_end = oldest->end;
		s->head = (s->head + 1) % FAB_HOLDS;
		s->nr_hold--;
		p--;
	}
	/* The uses after @p move up one place (none for the latest). */
	for (i = s->nr_hold; i > p; i--)
		s->hold[(s->head + i) % FAB_HOLDS] = s->hold[(s->head + i - 1) % FAB_HOLDS];
	s->hold[(s->head + p) % FAB_HOLDS] =
	    (struct fab_hold){.start = start, .end = end, .cpu = cpu};
	if (++s->nr_hold != p + 1)
		return false;
	s->busy_until = end;
	return true;
}

/* fab_server_hold()'s fab_len_fn: the same service whoever came before. */
static uint64_t fixed(const void *arg, uint32_t prev, bool last)
{
	(void)prev;
	(void)last;
	return *(const uint64_t *)arg;
}

uint64_t fab_server_hold(struct fab_server *s, uint64_t arrive, uint64_t service)
{
	uint64_t start, len;
	unsigned p = fab_server_place(s, arrive, fixed, &service, &start, &len);

	(void)fab_server_commit(s, p, arrive, start, start + len, FAB_NO_CPU);
	return start + len;
}
