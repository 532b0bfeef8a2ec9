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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(requests_arriving_together_queue),
	    cmocka_unit_test(an_earlier_request_handled_later_takes_a_gap),
	    cmocka_unit_test(no_gap_is_assumed_where_forgotten_uses_were),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
