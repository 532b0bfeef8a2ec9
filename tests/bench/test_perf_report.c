/* SPDX-License-Identifier: MIT */
/*
 * bench/perf/perf_report.c, the last step of bench/perf/run, on
 * hand-written measurement lines shaped like perf_sim's: a figure that was
 * not measured is printed "n/a" and written as JSON null, never as a 0.00
 * that reads like a measurement (bench/perf/run --quick printed an empty
 * peak-memory table and 0.00 speed-ups).  The lines stand for a --quick
 * run: no memory.* runs, scaling on one host thread for 16 and 64 cores
 * and on two for 64.  Runs the perf_report of this build
 * ($TLBSIM_BINARY_DIR/bench/perf_report); skipped when the benchmarks are
 * not built (TLBSIM_BUILD_BENCH=OFF).
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

static void unmeasured_figures_are_na_and_null(void **state)
{
	char dir[] = "/tmp/tlbsim-perf-report.XXXXXX", bin[1024], lines[256], out[256],
	     stdout_path[256], cmd[2048];
	const char *bdir = getenv("TLBSIM_BINARY_DIR");
	json_t *doc, *scaling, *row;
	json_error_t jerr;
	char *text;
	FILE *f;

	(void)state;
	snprintf(bin, sizeof(bin), "%s/bench/perf_report", bdir ? bdir : "build");
	if (access(bin, X_OK))
		skip();
	assert_non_null(mkdtemp(dir));
	snprintf(lines, sizeof(lines), "%s/lines.json", dir);
	snprintf(out, sizeof(out), "%s/perf.json", dir);
	snprintf(stdout_path, sizeof(stdout_path), "%s/stdout", dir);
	f = fopen(lines, "w");
	assert_non_null(f);
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
	fclose(f);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s' host=test >'%s'", bin, lines, out, stdout_path);
	assert_int_equal(system(cmd), 0);

	/* The table: columns "%-30s %3d %9.3f %9.3f %10s %10s" (perf_report.c). */
	text = slurp(stdout_path);
	if (!strstr(text, "madvise-threads.16cores          1     0.500     0.500       1.00"
			  "        n/a\n") ||
	    !strstr(text, "madvise-threads.64cores          1     2.000     2.000       4.00"
			  "        n/a\n") ||
	    !strstr(text, "madvise-threads.64cores          2     1.600     3.200        n/a"
			  "       1.25\n"))
		fail_msg("scaling rows not as expected:\n%s", text);
	/* No memory runs: one line saying so instead of an empty table. */
	assert_non_null(strstr(text, "peak memory"));
	assert_non_null(strstr(text, "n/a: not measured"));
	/* Every figure printed was measured: no lone 0.00. */
	if (strstr(text, " 0.00"))
		fail_msg("a 0.00 in:\n%s", text);
	free(text);

	doc = json_load_file(out, 0, &jerr);
	if (!doc)
		fail_msg("%s: %s", out, jerr.text);
	assert_true(json_is_null(json_object_get(doc, "memory")));
	assert_int_equal(json_array_size(json_object_get(doc, "ratios")), 1);
	assert_true(near(json_object_get(json_array_get(json_object_get(doc, "ratios"), 0),
					 "simulate_over_decode"),
			 4.0));
	scaling = json_object_get(doc, "scaling");
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
	json_decref(doc);

	remove(lines);
	remove(out);
	remove(stdout_path);
	rmdir(dir);
}

/* Figures perf_sim always writes, missing or zero in the lines: a decode
 * time of 0 (no ratio can be formed) and a memory run without its peak
 * RSS print n/a and are null in the JSON, never nan or 0. */
static void missing_or_zero_inputs_are_na_and_null(void **state)
{
	char dir[] = "/tmp/tlbsim-perf-report.XXXXXX", bin[1024], lines[256], out[256],
	     stdout_path[256], cmd[2048];
	const char *bdir = getenv("TLBSIM_BINARY_DIR");
	json_t *doc, *r, *mem;
	json_error_t jerr;
	char *text;
	FILE *f;

	(void)state;
	snprintf(bin, sizeof(bin), "%s/bench/perf_report", bdir ? bdir : "build");
	if (access(bin, X_OK))
		skip();
	assert_non_null(mkdtemp(dir));
	snprintf(lines, sizeof(lines), "%s/lines.json", dir);
	snprintf(out, sizeof(out), "%s/perf.json", dir);
	snprintf(stdout_path, sizeof(stdout_path), "%s/stdout", dir);
	f = fopen(lines, "w");
	assert_non_null(f);
	line(f, "miss.binary", "simulate", 1, 2.0, 2.0);
	line(f, "miss.binary", "decode", 1, 0.0, 0.0);
	line_rss(f, "memory.100MiB", "simulate", 1, 1.0, 1.0, false);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s' host=test >'%s'", bin, lines, out, stdout_path);
	assert_int_equal(system(cmd), 0);

	text = slurp(stdout_path);
	if (strstr(text, "nan") || !strstr(text, "miss.binary                         2.000      "
						 "0.000      n/a      n/a\n") ||
	    !strstr(text, "memory.100MiB                      0     20000000       n/a       n/a"
			  "       n/a\n"))
		fail_msg("not as expected:\n%s", text);
	free(text);

	doc = json_load_file(out, 0, &jerr);
	if (!doc)
		fail_msg("%s: %s", out, jerr.text);
	r = json_array_get(json_object_get(doc, "ratios"), 0);
	assert_non_null(r);
	assert_true(json_is_null(json_object_get(r, "simulate_over_decode")));
	assert_true(json_is_null(json_object_get(r, "cpu_simulate_over_decode")));
	mem = json_array_get(json_object_get(doc, "memory"), 0);
	assert_non_null(mem);
	assert_true(json_is_null(json_object_get(mem, "peak_rss_kib")));
	json_decref(doc);

	remove(lines);
	remove(out);
	remove(stdout_path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(unmeasured_figures_are_na_and_null),
	    cmocka_unit_test(missing_or_zero_inputs_are_na_and_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
