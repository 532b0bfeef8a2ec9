/* SPDX-License-Identifier: MIT */
/*
 * bench/perf/perf_report.c, the last step of bench/perf/run, on
 * hand-written measurement lines shaped like perf_sim's: a figure that was
 * not measured is printed "n/a" and written as JSON null, never as a 0.00
 * that reads like a measurement (bench/perf/run --quick printed an empty
 * peak-memory table and 0.00 speed-ups), nor as nan.  Runs the
 * perf_report of this build ($TLBSIM_BINARY_DIR/bench/perf_report);
 * skipped when the benchmarks are not built (TLBSIM_BUILD_BENCH=OFF).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

/* One perf_sim line: @label, @mode, host @threads, median wall and cpu
 * seconds; rates 10 M accesses/s (10.00 in the table), 20 M accesses. */
static void line_rss(FILE *f, const char *label, const char *mode, int threads, double secs,
		     double cpu_secs, bool rss)
{
	fprintf(f,
		"{\"label\": \"%s\", \"mode\": \"%s\", \"machine\": \"generic-x86-64\", "
		"\"policy\": \"default\", \"threads\": %d, \"runs\": 1, \"events\": 20000000, "
		"\"accesses\": 20000000, "
		"\"seconds\": {\"median\": %g, \"min\": %g, \"max\": %g}, "
		"\"accesses_per_s\": {\"median\": 1e7, \"min\": 1e7, \"max\": 1e7}, "
		"\"cpu_seconds\": {\"median\": %g, \"min\": %g, \"max\": %g}, "
		"\"accesses_per_cpu_s\": {\"median\": 1e7, \"min\": 1e7, \"max\": 1e7}%s}\n",
		label, mode, threads, secs, secs, secs, cpu_secs, cpu_secs, cpu_secs,
		rss ? ", \"peak_rss_kib\": 5000" : "");
}

static void line(FILE *f, const char *label, const char *mode, int threads, double secs,
		 double cpu_secs)
{
	line_rss(f, label, mode, threads, secs, cpu_secs, true);
}

/* Whether @v is @want, to rounding (2.0 / 1.6 need not give 1.25 exactly). */
static int near(json_t *v, double want)
{
	return json_is_real(v) && fabs(json_real_value(v) - want) < 1e-9;
}

/* The whole of @path, NUL-terminated (the caller frees it). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 16);
	size_t n;

	assert_non_null(f);
	assert_non_null(buf);
	n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* A perf_report run in a scratch directory: its table and its JSON. */
struct report {
	char dir[40], lines[256], out[256], stdout_path[256];
	char *text;
	json_t *doc;
};

/* Runs this build's perf_report on the lines @write writes; skips the
 * test when it is not built. */
static void run_report(struct report *r, void (*write)(FILE *f))
{
	const char *bdir = getenv("TLBSIM_BINARY_DIR");
	char bin[1024], cmd[2048];
	json_error_t jerr;
	FILE *f;

	snprintf(bin, sizeof(bin), "%s/bench/perf_report", bdir ? bdir : "build");
	if (access(bin, X_OK))
		skip();
	snprintf(r->dir, sizeof(r->dir), "/tmp/tlbsim-perf-report.XXXXXX");
	assert_non_null(mkdtemp(r->dir));
	snprintf(r->lines, sizeof(r->lines), "%s/lines.json", r->dir);
	snprintf(r->out, sizeof(r->out), "%s/perf.json", r->dir);
	snprintf(r->stdout_path, sizeof(r->stdout_path), "%s/stdout", r->dir);
	f = fopen(r->lines, "w");
	assert_non_null(f);
	write(f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s' host=test >'%s'", bin, r->lines, r->out,
		 r->stdout_path);
	assert_int_equal(system(cmd), 0);
	r->text = slurp(r->stdout_path);
	r->doc = json_load_file(r->out, 0, &jerr);
	if (!r->doc)
		fail_msg("%s: %s", r->out, jerr.text);
}

static void report_free(struct report *r)
{
	free(r->text);
	json_decref(r->doc);
	remove(r->lines);
	remove(r->out);
	remove(r->stdout_path);
	rmdir(r->dir);
}

/* A --quick run: no memory.* runs, scaling on one host thread for 16 and
 * 64 cores and on two for 64. */
static void quick_lines(FILE *f)
{
	/* simulate / decode: 2.0 s / 0.5 s = 4.00, measured both ways. */
	line(f, "hit.binary", "simulate", 1, 2.0, 2.0);
	line(f, "hit.binary", "decode", 1, 0.5, 0.5);
	/* Scaling: against the first 1-thread row (0.5 s): 16 cores 1.00,
	 * 64 cores 2.0 / 0.5 = 4.00; 64 cores on 2 threads: speed-up
	 * 2.0 / 1.6 = 1.25 over its 1-thread run, and no "x 1st" (that is
	 * for 1-thread rows); 1-thread rows have no speed-up. */
	line(f, "madvise-threads.16cores", "simulate", 1, 0.5, 0.5);
	line(f, "madvise-threads.64cores", "simulate", 1, 2.0, 2.0);
	line(f, "madvise-threads.64cores", "simulate", 2, 1.6, 3.2);
}

static void unmeasured_figures_are_na_and_null(void **state)
{
	struct report r;
	json_t *scaling, *row;

	(void)state;
	run_report(&r, quick_lines);
	/* The table: columns "%-30s %3d %9.3f %9.3f %10s %10s" (perf_report.c). */
	if (!strstr(r.text, "madvise-threads.16cores          1     0.500     0.500       1.00"
			    "        n/a\n") ||
	    !strstr(r.text, "madvise-threads.64cores          1     2.000     2.000       4.00"
			    "        n/a\n") ||
	    !strstr(r.text, "madvise-threads.64cores          2     1.600     3.200        n/a"
			    "       1.25\n"))
		fail_msg("scaling rows not as expected:\n%s", r.text);
	/* No memory runs: one line saying so instead of an empty table. */
	assert_non_null(strstr(r.text, "peak memory"));
	assert_non_null(strstr(r.text, "n/a: not measured"));
	/* Every figure printed was measured: no lone 0.00. */
	if (strstr(r.text, " 0.00"))
		fail_msg("a 0.00 in:\n%s", r.text);

	assert_true(json_is_null(json_object_get(r.doc, "memory")));
	assert_int_equal(json_array_size(json_object_get(r.doc, "ratios")), 1);
	assert_true(near(json_object_get(json_array_get(json_object_get(r.doc, "ratios"), 0),
					 "simulate_over_decode"),
			 4.0));
	scaling = json_object_get(r.doc, "scaling");
	assert_int_equal(json_array_size(scaling), 3);
	row = json_array_get(scaling, 0);
	assert_true(near(json_object_get(row, "times_smallest_1_thread"), 1.0));
	assert_true(json_is_null(json_object_get(row, "speedup_over_1_thread")));
	row = json_array_get(scaling, 1);
	assert_true(near(json_object_get(row, "times_smallest_1_thread"), 4.0));
	assert_true(json_is_null(json_object_get(row, "speedup_over_1_thread")));
	row = json_array_get(scaling, 2);
	assert_true(json_is_null(json_object_get(row, "times_smallest_1_thread")));
	assert_true(near(json_object_get(row, "speedup_over_1_thread"), 1.25));
	report_free(&r);
}

/* A decode time of 0 (no ratio can be formed) and a memory run without
 * its peak RSS: figures perf_sim always writes. */
static void missing_or_zero_lines(FILE *f)
{
	line(f, "miss.binary", "simulate", 1, 2.0, 2.0);
	line(f, "miss.binary", "decode", 1, 0.0, 0.0);
	line_rss(f, "memory.100MiB", "simulate", 1, 1.0, 1.0, false);
}

/* Such figures print n/a and are null in the JSON, never nan or 0. */
static void missing_or_zero_inputs_are_na_and_null(void **state)
{
	struct report r;
	json_t *ratio, *mem;

	(void)state;
	run_report(&r, missing_or_zero_lines);
	if (strstr(r.text, "nan") || !strstr(r.text, "miss.binary                         2.000      "
						   "0.000      n/a      n/a\n") ||
	    !strstr(r.text, "memory.100MiB                      0     20000000       n/a       n/a"
			    "       n/a\n"))
		fail_msg("not as expected:\n%s", r.text);

	ratio = json_array_get(json_object_get(r.doc, "ratios"), 0);
	assert_non_null(ratio);
	assert_true(json_is_null(json_object_get(ratio, "simulate_over_decode")));
	assert_true(json_is_null(json_object_get(ratio, "cpu_simulate_over_decode")));
	mem = json_array_get(json_object_get(r.doc, "memory"), 0);
	assert_non_null(mem);
	assert_true(json_is_null(json_object_get(mem, "peak_rss_kib")));
	report_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(unmeasured_figures_are_na_and_null),
	    cmocka_unit_test(missing_or_zero_inputs_are_na_and_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
