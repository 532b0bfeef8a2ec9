/* SPDX-License-Identifier: MIT */
/*
 * The progress line's text (report/progress.h): each part where known,
 * the figures worked out by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "report/progress.h"

static void every_part(void **state)
{
	/* 12345678 events in 6 s: 2.0576 M/s; 27% done, so 6 * 0.73 / 0.27 =
	 * 16.2 s left. */
	struct rep_progress_state s = {12345678, 0, 0.27, 0.0123, 6.0};
	char buf[256];

	(void)state;
	rep_progress_format(buf, sizeof(buf), &s);
	assert_string_equal(buf, "12.3 M events, 27%, 2.06 M events/s, simulated 0.0123 s, 6 s, "
				 "about 16 s left");
}

static void a_total_gives_the_fraction(void **state)
{
	/* 500 of 1000 in 2 s: half, as long again left; no simulated time. */
	struct rep_progress_state s = {500, 1000, -1, -1, 2.0};
	char buf[256];

	(void)state;
	rep_progress_format(buf, sizeof(buf), &s);
	assert_string_equal(buf, "500 events of 1000, 50%, 0.00 M events/s, 2 s, about 2 s left");
}

static void unknown_parts_are_left_out(void **state)
{
	/* A copy of a pipe: no fraction, no simulated time; 3 M in 2 s. */
	struct rep_progress_state s = {3000000, 0, -1, -1, 2.0};
	char buf[256];

	(void)state;
	rep_progress_format(buf, sizeof(buf), &s);
	assert_string_equal(buf, "3.0 M events, 1.50 M events/s, 2 s");
}

static void a_short_buffer_is_cut(void **state)
{
	struct rep_progress_state s = {12345678, 0, 0.27, 0.0123, 6.0};
	char buf[10];

	(void)state;
	memset(buf, 'x', sizeof(buf));
	rep_progress_format(buf, sizeof(buf), &s);
	assert_string_equal(buf, "12.3 M ev");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_part),
	    cmocka_unit_test(a_total_gives_the_fraction),
	    cmocka_unit_test(unknown_parts_are_left_out),
	    cmocka_unit_test(a_short_buffer_is_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
