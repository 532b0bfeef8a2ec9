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

/* Only the latest FAB_HOLDS uses are remembered: a request older than all
 * of them is served at its arrival (nothing later depends on it), and
 * the server stays as it was. */
static void a_request_older_than_the_record_changes_nothing(void **state)
{
	struct fab_server s;

	(void)state;
	fab_server_init(&s, 10);
	for (unsigned i = 0; i < FAB_HOLDS; i++)
		(void)fab_server_accept(&s, 1000 + 100 * i);
	assert_int_equal(s.nr_hold, FAB_HOLDS);
	assert_int_equal(fab_server_accept(&s, 0), 10);
	assert_int_equal(s.nr_hold, FAB_HOLDS);
	assert_int_equal(s.busy_until, 1000 + 100 * (FAB_HOLDS - 1) + 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(requests_arriving_together_queue),
	    cmocka_unit_test(an_earlier_request_handled_later_takes_a_gap),
	    cmocka_unit_test(a_request_older_than_the_record_changes_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
