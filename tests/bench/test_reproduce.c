/* SPDX-License-Identifier: MIT */
/*
 * The reproduction suite's metrics (bench/reproduce/metrics.c) on
 * hand-made statistics, and its experiment files (experiment.c): scaling
 * of loop counts, rejection of a bad file, and the checks run before any
 * experiment (machine, generator, policies).  Every expected value is
 * worked out by hand in the comment above it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench/reproduce/experiment.h"
#include "bench/reproduce/metrics.h"

/* 4 cpus, 1000 cycles at 1 GHz (1 us), 500 context switches; of the 4000
 * cpu cycles 1500 busy, 500 waiting (200 of them for flushes), 700 stolen
 * (300 by IPIs, 400 by broadcasts), 1300 idle. */
static json_t *stats(void)
{
	return json_pack("{s:i, s:i, s:f, s:{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}}", "cpus",
			 4, "cycles", 1000, "seconds", 1e-6, "totals", "busy_cycles", 1500,
			 "waiting_cycles", 500, "stolen_cycles", 700, "idle_cycles", 1300,
			 "flush_cycles", 100, "flush_wait_cycles", 200, "ipi_stolen_cycles", 300,
			 "broadcast_stolen_cycles", 400, "context_switches", 500);
}

static void flush_share_is_flush_wait_and_stolen_time_over_non_idle_time(void **state)
{
	json_t *st = stats();
	double v;

	(void)state;
	/* (100 + 200 + 300 + 400) / (1500 + 500 + 700) = 1000 / 2700 = 37.04 % */
	assert_int_equal(repro_metric_value(REPRO_FLUSH_SHARE, st, 0, 0, &v), 0);
	assert_float_equal(v, 100.0 * 1000 / 2700, 1e-9);
	/* over all the time: 1000 / (4 cpus x 1000 cycles) = 25 % */
	assert_int_equal(repro_metric_value(REPRO_FLUSH_SHARE_ALL, st, 0, 0, &v), 0);
	assert_float_equal(v, 25.0, 1e-12);
	json_decref(st);
}

static void flush_share_fails_without_the_flush_cycles_counter(void **state)
{
	json_t *st = stats();
	double v;

	(void)state;
	/* An older schema without flush_cycles must not read as 0 %. */
	json_object_del(json_object_get(st, "totals"), "flush_cycles");
	assert_int_equal(repro_metric_value(REPRO_FLUSH_SHARE, st, 0, 0, &v), -1);
	json_decref(st);
}

static void rate_seconds_and_switch_time_from_the_run(void **state)
{
	json_t *st = stats();
	double v;

	(void)state;
	assert_int_equal(repro_metric_value(REPRO_SECONDS, st, 0, 0, &v), 0);
	assert_float_equal(v, 1e-6, 1e-18);
	/* 2 operations in 1 us: 2e6 per second */
	assert_int_equal(repro_metric_value(REPRO_RATE, st, 2, 0, &v), 0);
	assert_float_equal(v, 2e6, 1e-6);
	/* 1000 ns / 500 switches = 2 ns each */
	assert_int_equal(repro_metric_value(REPRO_NS_PER_SWITCH, st, 0, 0, &v), 0);
	assert_float_equal(v, 2.0, 1e-12);
	json_object_set_new(json_object_get(st, "totals"), "context_switches", json_integer(0));
	assert_int_equal(repro_metric_value(REPRO_NS_PER_SWITCH, st, 0, 0, &v), -1);
	json_decref(st);
}

/* cpu_rate: cpu 1 of 2 at 2 GHz ran 3000 busy + 1000 waiting + 1000 stolen
 * cycles, 400 of the stolen ones while idle: it ran 4600 cycles = 2.3 us;
 * 46 operations in 2.3 us are 2e7 a second, whatever cpu 0 or the whole
 * run's time did. */
static void cpu_rate_is_over_one_cpus_running_time(void **state)
{
	json_t *st = json_pack("{s:f, s:f, s:[{s:i, s:i, s:i, s:i}, {s:i, s:i, s:i, s:i}]}",
			       "freq_ghz", 2.0, "seconds", 1.0, "per_cpu", "busy_cycles", 7,
			       "waiting_cycles", 0, "stolen_cycles", 0, "idle_stolen_cycles", 0,
			       "busy_cycles", 3000, "waiting_cycles", 1000, "stolen_cycles", 1000,
			       "idle_stolen_cycles", 400);
	double v;

	(void)state;
	assert_int_equal(repro_metric_value(REPRO_CPU_RATE, st, 46, 1, &v), 0);
	assert_float_equal(v, 2e7, 1e-3);
	assert_false(repro_metric_lower_is_better(REPRO_CPU_RATE));
	/* no cpu 2; a cpu that never ran */
	assert_int_equal(repro_metric_value(REPRO_CPU_RATE, st, 46, 2, &v), -1);
	json_object_set_new(json_array_get(json_object_get(st, "per_cpu"), 0), "busy_cycles",
			    json_integer(0));
	assert_int_equal(repro_metric_value(REPRO_CPU_RATE, st, 46, 0, &v), -1);
	json_decref(st);
}

static void ratio_is_how_many_times_better_than_the_baseline(void **state)
{
	(void)state;
	/* CALIBRATION.md 4.2: 2.1696 s / 0.13941 s = 15.563 (the "15.6x") */
	assert_float_equal(repro_ratio(REPRO_SECONDS, 2.1696, 0.13941), 15.563, 1e-3);
	/* 40 % / 4 % = 10 */
	assert_float_equal(repro_ratio(REPRO_FLUSH_SHARE, 40, 4), 10, 1e-12);
	/* a rate: higher is better, 250 / 100 = 2.5 */
	assert_float_equal(repro_ratio(REPRO_RATE, 100, 250), 2.5, 1e-12);
	assert_float_equal(repro_ratio(REPRO_RATE, 0, 250), 0, 0);
	assert_int_equal(repro_metric_kind("flush_share"), REPRO_FLUSH_SHARE);
	assert_int_equal(repro_metric_kind("speed"), -1);
}

static void scale_divides_only_the_listed_parameters_rounding_to_at_least_one(void **state)
{
	struct repro_experiment e;
	char msg[512], p[256];

	(void)state;
	assert_int_equal(
	    repro_experiment_load("tests/data/reproduce/tiny.json", &e, msg, sizeof(msg)), 0);
	assert_int_equal(e.nr_variants, 1);
	assert_int_equal(e.nr_policies, 2);
	assert_string_equal(e.policies[0], "arm64-stock");
	/* loops 40 / 4 = 10; the others unchanged */
	assert_int_equal(repro_variant_params(&e, &e.variants[0], 4, p, sizeof(p)), 0);
	assert_string_equal(p, "procs=2,threads=2,size=65536,loops=10");
	/* 40 / 3 = 13.3, rounded to 13 */
	assert_float_equal(repro_variant_param(&e, &e.variants[0], "loops", 3), 13, 0);
	/* 40 / 1000 rounds to 0: at least 1 */
	assert_float_equal(repro_variant_param(&e, &e.variants[0], "loops", 1000), 1, 0);
	assert_float_equal(repro_variant_param(&e, &e.variants[0], "procs", 1000), 2, 0);
	/* the rate's operations: procs x loops x 2, published 2.0 / 1.0 s */
	assert_int_equal(e.metrics[1].nr_ops_params, 2);
	assert_float_equal(e.metrics[1].ops_per, 2, 0);
	assert_float_equal(e.metrics[0].published[1], 1.0, 0);
	assert_int_equal(repro_variant_params(&e, &e.variants[0], 1, p, 8), -1);
	repro_experiment_free(&e);
}

static void an_unknown_metric_is_an_error_naming_file_and_metric(void **state)
{
	struct repro_experiment e;
	char msg[512];

	(void)state;
	assert_int_equal(
	    repro_experiment_load("tests/data/reproduce/bad_metric.json", &e, msg, sizeof(msg)),
	    -1);
	assert_non_null(strstr(msg, "bad_metric.json: metrics[0]: unknown metric 'speed'"));
	repro_experiment_free(&e);
}

/* Loads @json (an experiment) from a temporary file; @msg receives the
 * error with the file name replaced by "F". */
static int load_text(const char *json, struct repro_experiment *e, bool check, char *msg,
		     size_t len)
{
	char path[] = "/tmp/test_reproduce_XXXXXX";
	char raw[1024];
	int fd = mkstemp(path), rc;
	FILE *f = fdopen(fd, "w");

	assert_non_null(f);
	fputs(json, f);
	fclose(f);
	rc = repro_experiment_load(path, e, raw, sizeof(raw));
	if (!rc && check)
		rc = repro_experiment_check(e, 1, raw, sizeof(raw));
	unlink(path);
	if (rc) {
		assert_memory_equal(raw, path, strlen(path));
		snprintf(msg, len, "F%s", raw + strlen(path));
	}
	return rc;
}

#define EXP(policies, extra)                                                                       \
	"{\"id\": \"x\", \"title\": \"t\", \"kind\": \"prediction\", \"machine\": "                \
	"\"generic-arm64\", \"generator\": \"mprotect-toggle\", \"params\": {\"loops\": 4}, "      \
	"\"policies\": " policies ", \"metrics\": [{\"metric\": \"seconds\"}]" extra "}"
#define TWO "[\"arm64-stock\", \"arm64-nr-active-mm\"]"

static void one_policy_scale_or_ops_naming_no_parameter_fail_at_load(void **state)
{
	struct repro_experiment e;
	char msg[1024];

	(void)state;
	assert_int_equal(load_text(EXP("[\"arm64-stock\"]", ""), &e, false, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "F: 'policies' must list 2 to 8 policy names (at least two"));
	repro_experiment_free(&e);
	assert_int_equal(
	    load_text(EXP(TWO, ", \"scale\": [\"nosuch\"]"), &e, false, msg, sizeof(msg)), -1);
	assert_string_equal(
	    msg, "F: scale[0]: 'nosuch' is not a whole-number parameter of top level (not given)");
	repro_experiment_free(&e);
	/* loops is given; procs is the generator's default, not a parameter
	 * of the file: a rate over it could not be counted. */
	assert_int_equal(
	    load_text("{\"id\": \"x\", \"title\": \"t\", \"kind\": \"prediction\", \"machine\": "
		      "\"generic-arm64\", \"generator\": \"mprotect-toggle\", \"params\": "
		      "{\"loops\": 4}, \"policies\": " TWO ", \"metrics\": [{\"metric\": "
		      "\"rate\", \"ops\": [\"loops\", \"procs\"]}]}",
		      &e, false, msg, sizeof(msg)),
	    -1);
	assert_string_equal(
	    msg,
	    "F: metrics[0].ops: 'procs' is not a whole-number parameter of top level (not given)");
	repro_experiment_free(&e);
}

static void a_missing_file_reports_the_os_error_not_a_position(void **state)
{
	struct repro_experiment e;
	char msg[512];

	(void)state;
	assert_int_equal(
	    repro_experiment_load("tests/data/reproduce/nosuch.json", &e, msg, sizeof(msg)), -1);
	assert_string_equal(
	    msg, "tests/data/reproduce/nosuch.json: cannot open: No such file or directory");
	repro_experiment_free(&e);
}

static void check_finds_unknown_generator_policy_isa_and_machine_before_running(void **state)
{
	struct repro_experiment e;
	char msg[1024];

	(void)state;
	assert_int_equal(load_text(EXP(TWO, ""), &e, true, msg, sizeof(msg)), 0);
	repro_experiment_free(&e);
	assert_int_equal(
	    load_text(EXP("[\"arm64-stock\", \"nosuch\"]", ""), &e, true, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "F: policies[1]: 'nosuch' on generic-arm64 (top level): "));
	repro_experiment_free(&e);
	/* x86-stock exists, but not for the arm64 machine */
	assert_int_equal(
	    load_text(EXP("[\"arm64-stock\", \"x86-stock\"]", ""), &e, true, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "F: policies[1]: 'x86-stock' on generic-arm64 (top level): "));
	repro_experiment_free(&e);
	assert_int_equal(load_text(EXP(TWO, ", \"variants\": [{\"label\": \"v\", \"generator\": "
					    "\"nosuch\"}]"),
				   &e, true, msg, sizeof(msg)),
			 -1);
	assert_non_null(strstr(msg, "F: variants[0]: generator 'nosuch' (loops=4): unknown "
				    "generator 'nosuch'"));
	repro_experiment_free(&e);
	assert_int_equal(load_text(EXP(TWO, ", \"variants\": [{\"label\": \"v\", \"params\": "
					    "{\"nosuch\": 1}}]"),
				   &e, true, msg, sizeof(msg)),
			 -1);
	assert_non_null(
	    strstr(msg, "F: variants[0]: generator 'mprotect-toggle' (loops=4,nosuch=1): "));
	repro_experiment_free(&e);
	assert_int_equal(load_text(EXP(TWO, ", \"variants\": [{\"label\": \"v\", \"machine\": "
					    "\"nosuch\"}]"),
				   &e, true, msg, sizeof(msg)),
			 -1);
	assert_non_null(strstr(msg, "F: variants[0]: machine 'nosuch': "));
	repro_experiment_free(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(flush_share_is_flush_wait_and_stolen_time_over_non_idle_time),
	    cmocka_unit_test(flush_share_fails_without_the_flush_cycles_counter),
	    cmocka_unit_test(rate_seconds_and_switch_time_from_the_run),
	    cmocka_unit_test(cpu_rate_is_over_one_cpus_running_time),
	    cmocka_unit_test(ratio_is_how_many_times_better_than_the_baseline),
	    cmocka_unit_test(scale_divides_only_the_listed_parameters_rounding_to_at_least_one),
	    cmocka_unit_test(an_unknown_metric_is_an_error_naming_file_and_metric),
	    cmocka_unit_test(one_policy_scale_or_ops_naming_no_parameter_fail_at_load),
	    cmocka_unit_test(a_missing_file_reports_the_os_error_not_a_position),
	    cmocka_unit_test(check_finds_unknown_generator_policy_isa_and_machine_before_running),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
