/* SPDX-License-Identifier: MIT */
/*
 * FIFO resources (src/fabric/server.c): a broadcast engine busy 100
 * cycles per request.  Requests are served in arrival order; one that
 * arrives before a use already reserved later (the simulation serves it
 * afterwards) takes the first gap that fits.  Values by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fabric/fabric.h"

/* k requests at once finish 1, 2, ..., k services later (CALIBRATION.md
 * 4.3): 3 at 0 end at 100, 200, 300; they waited 0 + 100 + 200. */
static void requests_arriving_together_queue(void **state)
{
	struct fab_server s;

	(void)state;
	fab_server_init(&s, 100);
	assert_int_equal(fab_server_accept(&s, 0), 100);
	assert_int_equal(fab_server_accept(&s, 0), 200);
	assert_int_equal(fab_server_accept(&s, 0), 300);
	assert_int_equal(s.served, 3);
	assert_int_equal(s.queued_cycles, 300);
	assert_int_equal(s.busy_until, 300);
}

/*
 * One request reserved at 1000 (ends 1100).  One arriving at 0, handled
 * after it, fits before it: ends at 100, no wait.  One at 950 does not
 * fit before 1000 (950 + 100 > 1000): after the latest, at 1100, waiting
 * 150.  One at 400 fits between 100 and 1000: ends 500.  The latest use
 * is still the one ending at 1200.
 */
static void an_earlier_request_handled_later_takes_a_gap(void **state)
{
	struct fab_server s;

	(void)state;
	fab_server_init(&s, 100);
	assert_int_equal(fab_server_accept(&s, 1000), 1100);
	assert_int_equal(fab_server_accept(&s, 0), 100);
	assert_int_equal(fab_server_accept(&s, 950), 1200);
	assert_int_equal(fab_server_accept(&s, 400), 500);
	assert_int_equal(s.queued_cycles, 150);
	assert_int_equal(s.busy_until, 1200);
	assert_int_equal(s.nr_hold, 4);
}

/*
 * Only the latest FAB_HOLDS uses are remembered, and no gap is assumed
 * where forgotten ones lay.  Service 10, FAB_HOLDS + 1 uses at 1000,
 * 1100, ...: the first is forgotten, ending at 1010.  A request at 0
 * cannot be placed before it: it goes to the first gap after 1010, at
 * 1010 itself (1010 + 10 <= 1100), waiting 1010.  Then it is the oldest
 * of the full record, forgotten at once: a request at 0 now waits until
 * 1020 (its end), and fits before 1100.
 */
static void no_gap_is_assumed_where_forgotten_uses_were(void **state)
{
	struct fab_server s;

	(void)state;
	fab_server_init(&s, 10);
	for (unsigned i = 0; i <= FAB_HOLDS; i++)
		(void)fab_server_accept(&s, 1000 + 100 * i);
	assert_int_equal(s.nr_hold, FAB_HOLDS);
	assert_int_equal(s.before_end, 1010);
	assert_int_equal(fab_server_accept(&s, 0), 1020);
	assert_int_equal(s.before_end, 1020);
	assert_int_equal(fab_server_accept(&s, 0), 1030);
	assert_int_equal(s.nr_hold, FAB_HOLDS);
	assert_int_equal(s.busy_until, 1000 + 100 * FAB_HOLDS + 10);
}

/*
 * The reference the server is checked against: the record as a plain
 * array, oldest first, searched one use at a time and shifted on every
 * insertion (server.c before its record became a ring).
 */
struct naive {
	uint64_t busy_until, served, queued_cycles;
	struct fab_hold hold[FAB_HOLDS];
	unsigned nr_hold;
	uint32_t before;
	uint64_t before_end;
};

/* A use's length: 10 after its own cpu, 10 + 7 * the previous cpu's
 * number otherwise (a line's transfer depends on who had it), + 3 after
 * the latest: something for every argument to change. */
static uint64_t len_by_prev(const void *arg, uint32_t prev, bool last)
{
	uint32_t cpu = *(const uint32_t *)arg;

	return 10 + (prev == cpu || prev == FAB_NO_CPU ? 0 : 7 * (uint64_t)prev) + (last ? 3 : 0);
}

static unsigned naive_place(const struct naive *s, uint64_t arrive, const uint32_t *cpu,
			    uint64_t *start, uint64_t *length)
{
	unsigned p = 0;

	while (p < s->nr_hold && s->hold[p].start < arrive)
		p++;
	for (; p < s->nr_hold; p++) {
		uint64_t from = p ? s->hold[p - 1].end : s->before_end;
		uint64_t at = from > arrive ? from : arrive;
		uint64_t d = len_by_prev(cpu, p ? s->hold[p - 1].cpu : s->before, false);

		if (at + d <= s->hold[p].start) {
			*start = at;
			*length = d;
			return p;
		}
	}
	*start = arrive > s->busy_until ? arrive : s->busy_until;
	*length = len_by_prev(cpu, s->nr_hold ? s->hold[s->nr_hold - 1].cpu : s->before, true);
	return s->nr_hold;
}

static bool naive_commit(struct naive *s, unsigned p, uint64_t arrive, uint64_t start, uint64_t end,
			 uint32_t cpu)
{
	s->served++;
	s->queued_cycles += start - arrive;
	if (s->nr_hold == FAB_HOLDS) {
		if (p == 0) {
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

/*
 * Differential: random uses of 4 cpus, arriving behind a clock that moves
 * on about 64 cycles a use (up to 511 cycles behind, a quarter of them up
 * to 4095: before every use kept), as the serial phase serves them, on
 * the server and on the naive record: the same place, start and length
 * each time, and the same record after.  Of the 20000, about 11000 take a
 * gap, 1900 are forgotten at once, the rest go after the latest: many
 * times around the ring.
 */
static void the_record_places_uses_as_a_plain_array_does(void **state)
{
	struct fab_server s;
	struct naive ref = {.before = FAB_NO_CPU};
	uint64_t clock = 0, rng = 42;

	(void)state;
	fab_server_init(&s, 0);
	for (unsigned k = 0; k < 20000; k++) {
		uint64_t arrive, start, len, rstart, rlen;
		uint32_t cpu;
		unsigned p, rp;

		/* xorshift64 (Marsaglia 2003) */
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		cpu = (uint32_t)(rng % 4);
		clock += rng >> 8 & 127;
		arrive = clock - (rng >> 16 & 3 ? rng >> 24 & 511 : rng >> 24 & 4095);
		arrive = arrive > clock ? 0 : arrive;
		p = fab_server_place(&s, arrive, len_by_prev, &cpu, &start, &len);
		rp = naive_place(&ref, arrive, &cpu, &rstart, &rlen);
		assert_int_equal(p, rp);
		assert_int_equal(start, rstart);
		assert_int_equal(len, rlen);
		assert_int_equal(fab_server_commit(&s, p, arrive, start, start + len, cpu),
				 naive_commit(&ref, rp, arrive, rstart, rstart + rlen, cpu));
		assert_int_equal(s.nr_hold, ref.nr_hold);
		for (unsigned i = 0; i < s.nr_hold; i++) {
			assert_int_equal(fab_server_use(&s, i)->start, ref.hold[i].start);
			assert_int_equal(fab_server_use(&s, i)->end, ref.hold[i].end);
			assert_int_equal(fab_server_use(&s, i)->cpu, ref.hold[i].cpu);
		}
		assert_int_equal(s.busy_until, ref.busy_until);
		assert_int_equal(s.served, ref.served);
		assert_int_equal(s.queued_cycles, ref.queued_cycles);
		assert_int_equal(s.before, ref.before);
		assert_int_equal(s.before_end, ref.before_end);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(requests_arriving_together_queue),
	    cmocka_unit_test(an_earlier_request_handled_later_takes_a_gap),
	    cmocka_unit_test(no_gap_is_assumed_where_forgotten_uses_were),
	    cmocka_unit_test(the_record_places_uses_as_a_plain_array_does),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
