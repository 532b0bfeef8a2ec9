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

unsigned fab_server_place(const struct fab_server *s, uint64_t arrive, fab_len_fn len,
			  const void *arg, uint64_t *start, uint64_t *length)
{
	unsigned p = 0;

	/* A use that starts before @arrive leaves no gap before it that
	 * fits: the search starts at the first that does not (the uses
	 * kept are in order and do not overlap). */
	if (s->nr_hold && s->hold[s->nr_hold - 1].start < arrive)
		p = s->nr_hold; /* the common case: after all of them */
	while (p < s->nr_hold && s->hold[p].start < arrive)
		p++;
	for (; p < s->nr_hold; p++) {
		/* The gap before the first use kept starts where the forgotten
		 * ones ended: what lay there is not known any more. */
		uint64_t from = p ? s->hold[p - 1].end : s->before_end;
		uint64_t at = from > arrive ? from : arrive;
		uint64_t d = len(arg, p ? s->hold[p - 1].cpu : s->before, false);

		if (at + d <= s->hold[p].start) {
			*start = at;
			*length = d;
			return p;
		}
	}
	*start = arrive > s->busy_until ? arrive : s->busy_until;
	*length = len(arg, s->nr_hold ? s->hold[s->nr_hold - 1].cpu : s->before, true);
	return s->nr_hold;
}

bool fab_server_commit(struct fab_server *s, unsigned p, uint64_t arrive, uint64_t start,
		       uint64_t end, uint32_t cpu)
{
	s->served++;
	s->queued_cycles += start - arrive;
	if (s->nr_hold == FAB_HOLDS) {
		if (p == 0) {
			/* Before all kept: forgotten at once, its end a bound. */
			s->before = cpu;
			s->before_end = end;
			return false;
		}
		s->before = s->hold[0].cpu;
		s->before_end = s->hold[0].end;
		memmove(&s->hold[0], &s->hold[1], (FAB_HOLDS - 1) * sizeof(s->hold[0]));
		s->nr_hold--;
		p--;
	}
	memmove(&s->hold[p + 1], &s->hold[p], (s->nr_hold - p) * sizeof(s->hold[0]));
	s->hold[p] = (struct fab_hold){.start = start, .end = end, .cpu = cpu};
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
