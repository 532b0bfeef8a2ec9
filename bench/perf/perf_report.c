/* SPDX-License-Identifier: MIT */
/*
 * The last step of bench/perf/run: reads the JSON lines perf_sim appended
 * (one measurement each), prints them as a table with, for every label
 * measured both ways, the ratio simulate/decode of the median wall times
 * (1 would mean the simulation costs nothing beyond reading the trace),
 * and writes everything as one JSON document to OUT through a temporary
 * file renamed into place, so a failed run leaves no half-written OUT.
 *
 * A figure that was not measured (--quick writes no memory trace; a
 * scaling row on 1 host thread has no speed-up, one on 2 no cost against
 * the smallest 1-thread run) is printed "n/a" and written as null, never
 * as a 0 that reads like a measurement.
 *
 * Usage: perf_report LINES OUT [KEY=VALUE...]   (the pairs describe the
 *        host: machine, load average, date; they go into OUT's "host")
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

/* @m's figure @key.@stat, or NAN when it has none. */
static double num(json_t *m, const char *key, const char *stat)
{
	json_t *v = json_object_get(json_object_get(m, key), stat);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* @a / @b, or NAN when either is not measured or @b is not positive. */
static double ratio(double a, double b)
{
	return isnan(a) || isnan(b) || b <= 0 ? NAN : a / b;
}

static const char *str(json_t *m, const char *key)
{
	const char *s = json_string_value(json_object_get(m, key));

	return s ? s : "";
}

/* The measurement of @label in @mode, or NULL. */
static json_t *find(json_t *all, const char *label, const char *mode)
{
	size_t i;
	json_t *m;

	json_array_foreach(all, i, m)
	{
		if (!strcmp(str(m, "label"), label) && !strcmp(str(m, "mode"), mode))
			return m;
	}
	return NULL;
}

/* The simulate measurement of @label on @threads host threads, or NULL. */
static json_t *find_threads(json_t *all, const char *label, int threads)
{
	size_t i;
	json_t *m;

	json_array_foreach(all, i, m)
	{
		if (!strcmp(str(m, "label"), label) && !strcmp(str(m, "mode"), "simulate") &&
		    json_integer_value(json_object_get(m, "threads")) == threads)
			return m;
	}
	return NULL;
}

/* Whether a measurement of @label comes before index @i. */
static int find_before(json_t *all, size_t i, const char *label)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(str(json_array_get(all, j), "label"), label))
			return 1;
	return 0;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/*
 * The peak RSS of every process that measured @label (ru_maxrss is a
 * process's high-water mark, so each memory run is a process of its own):
 * median, min and max, printed and returned as JSON.
 */
static json_t *rss_summary(json_t *all, const char *label)
{
	long rss[256];
	size_t i, n = 0;
	json_t *m, *first = NULL;
	double med;

	json_array_foreach(all, i, m)
	{
		if (strcmp(str(m, "label"), label) || n == sizeof(rss) / sizeof(rss[0]))
			continue;
		first = first ? first : m;
		if (json_is_integer(json_object_get(m, "peak_rss_kib")))
			rss[n++] = (long)json_integer_value(json_object_get(m, "peak_rss_kib"));
	}
	if (!n) {
		printf("%-30s %5s %12lld %9s %9s %9s\n", label, "0",
		       (long long)json_integer_value(json_object_get(first, "accesses")), "n/a", "n/a",
		       "n/a");
		return json_pack("{s:s, s:i, s:I, s:n}", "label", label, "runs", 0, "accesses",
				 json_integer_value(json_object_get(first, "accesses")), "peak_rss_kib");
	}
	qsort(rss, n, sizeof(rss[0]), cmp_long);
	med = n % 2 ? (double)rss[n / 2] : (rss[n / 2 - 1] + rss[n / 2]) / 2.0;
	printf("%-30s %5zu %12lld %9.0f %9ld %9ld\n", label, n,
	       (long long)json_integer_value(json_object_get(first, "accesses")), med, rss[0],
	       rss[n - 1]);
	return json_pack("{s:s, s:i, s:I, s:{s:f, s:I, s:I}}", "label", label, "runs", (int)n,
			 "accesses", json_integer_value(json_object_get(first, "accesses")),
			 "peak_rss_kib", "median", med, "min", (json_int_t)rss[0], "max",
			 (json_int_t)rss[n - 1]);
}

/* @v (NAN: not measured) in a column of @width with @prec decimals, or "n/a". */
static void print_figure(int width, int prec, double v)
{
	if (isnan(v))
		printf(" %*s", width, "n/a");
	else
		printf(" %*.*f", width, prec, v);
}

/* @v as JSON: a number, or null when not measured (NAN). */
static json_t *figure(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static void print_row(json_t *m)
{
	json_t *rss = json_object_get(m, "peak_rss_kib");

	printf("%-30s %-8s %3d %10lld", str(m, "label"), str(m, "mode"),
	       (int)json_integer_value(json_object_get(m, "threads")),
	       (long long)json_integer_value(json_object_get(m, "accesses")));
	print_figure(8, 2, num(m, "accesses_per_s", "median") / 1e6);
	print_figure(8, 2, num(m, "accesses_per_s", "min") / 1e6);
	print_figure(8, 2, num(m, "accesses_per_s", "max") / 1e6);
	print_figure(9, 2, num(m, "accesses_per_cpu_s", "median") / 1e6);
	print_figure(9, 3, num(m, "seconds", "median"));
	print_figure(9, 3, num(m, "cpu_seconds", "median"));
	if (json_is_integer(rss))
		printf(" %9lld\n", (long long)json_integer_value(rss));
	else
		printf(" %9s\n", "n/a");
}

int main(int argc, char **argv)
{
	json_t *all = json_array(), *ratios = json_array(), *memory = json_array();
	json_t *scaling = json_array();
	json_t *host = json_object(), *doc, *m;
	json_error_t jerr;
	char line[8192], tmp[4096];
	FILE *in;
	size_t i;

	if (argc < 3) {
		fprintf(stderr, "usage: perf_report LINES OUT [KEY=VALUE...]\n");
		return 2;
	}
	in = fopen(argv[1], "r");
	if (!in) {
		perror(argv[1]);
		return 2;
	}
	while (fgets(line, sizeof(line), in)) {
		json_t *one = json_loads(line, 0, &jerr);

		if (!one) {
			fprintf(stderr, "%s: %s\n", argv[1], jerr.text);
			return 2;
		}
		json_array_append_new(all, one);
	}
	fclose(in);
	for (int a = 3; a < argc; a++) {
		char *eq = strchr(argv[a], '=');

		if (eq) {
			*eq = '\0';
			json_object_set_new(host, argv[a], json_string(eq + 1));
		}
	}

	printf("\n%-30s %-8s %3s %10s %8s %8s %8s %9s %9s %9s %9s\n", "trace / workload", "mode",
	       "thr", "accesses", "M acc/s", "min", "max", "M/cpu-s", "wall s", "cpu s", "rss KiB");
	json_array_foreach(all, i, m) print_row(m);

	printf("\n%-30s %10s %10s %8s %8s\n", "simulate / decode (medians)", "sim s", "decode s",
	       "ratio", "cpu ratio");
	json_array_foreach(all, i, m)
	{
		json_t *d = find(all, str(m, "label"), "decode");
		double s_sim = num(m, "seconds", "median"), s_dec, cpu_ratio;

		if (strcmp(str(m, "mode"), "simulate") || !d)
			continue;
		s_dec = num(d, "seconds", "median");
		cpu_ratio = ratio(num(m, "cpu_seconds", "median"), num(d, "cpu_seconds", "median"));
		printf("%-30s", str(m, "label"));
		print_figure(10, 3, s_sim);
		print_figure(10, 3, s_dec);
		print_figure(8, 2, ratio(s_sim, s_dec));
		print_figure(8, 2, cpu_ratio);
		printf("\n");
		json_array_append_new(ratios, json_pack("{s:s, s:o, s:o}", "label", str(m, "label"),
							"simulate_over_decode",
							figure(ratio(s_sim, s_dec)),
							"cpu_simulate_over_decode", figure(cpu_ratio)));
	}

	printf("\n%-30s %5s %12s %9s %9s %9s\n", "peak memory (one run a process)", "runs",
	       "accesses", "rss KiB", "min", "max");
	json_array_foreach(all, i, m)
	{
		if (!strncmp(str(m, "label"), "memory.", 7) &&
		    !find_before(all, i, str(m, "label")))
			json_array_append_new(memory, rss_summary(all, str(m, "label")));
	}
	if (!json_array_size(memory)) {
		printf("n/a: not measured (no memory.* runs: bench/perf/run --quick skips them)\n");
		json_decref(memory);
		memory = json_null();
	}

	/* Scaling: cost against the first (smallest) machine on 1 thread, and
	 * the speed-up of 2 threads on the same machine. */
	printf("\n%-30s %3s %9s %9s %10s %10s\n", "scaling (madvise-threads)", "thr", "wall s",
	       "cpu s", "x 1st", "speed-up");
	json_t *base = NULL;
	json_array_foreach(all, i, m)
	{
		json_t *one;
		double wall = num(m, "seconds", "median"), x1 = NAN, speedup = NAN;

		if (strncmp(str(m, "label"), "madvise-threads.", 16))
			continue;
		if (json_integer_value(json_object_get(m, "threads")) == 1) {
			base = base ? base : m;
			x1 = ratio(wall, num(base, "seconds", "median"));
		} else if ((one = find_threads(all, str(m, "label"), 1))) {
			speedup = ratio(num(one, "seconds", "median"), wall);
		}
		printf("%-30s %3d", str(m, "label"),
		       (int)json_integer_value(json_object_get(m, "threads")));
		print_figure(9, 3, wall);
		print_figure(9, 3, num(m, "cpu_seconds", "median"));
		print_figure(10, 2, x1);
		print_figure(10, 2, speedup);
		printf("\n");
		json_array_append_new(
		    scaling, json_pack("{s:s, s:I, s:o, s:o, s:o}", "label", str(m, "label"),
				       "threads", json_integer_value(json_object_get(m, "threads")),
				       "seconds_median", figure(wall), "times_smallest_1_thread",
				       figure(x1), "speedup_over_1_thread", figure(speedup)));
	}

	/* Issue #29's targets, from what this run measured (bench/perf/run
	 * --targets measures them all). */
	json_t *targets = json_array(), *mp = find(all, "miss.binary", "simulate");
	json_t *md = find(all, "miss.binary", "decode"), *pf = find(all, "page-faults", "simulate");
	json_t *c16 = find_threads(all, "madvise-threads.16cores", 1);
	json_t *c256 = find_threads(all, "madvise-threads.256cores", 1);
	json_t *c256x2 = find_threads(all, "madvise-threads.256cores", 2);
	json_t *e1 = find_threads(all, "engine-scaling.64cores", 1);
	json_t *e2 = find_threads(all, "engine-scaling.64cores", 2);
	const struct {
		const char *name;
		double value, limit;
		bool at_most;
	} t[] = {
	    {"miss.binary simulate/decode, cpu time", ratio(num(mp, "cpu_seconds", "median"),
							    num(md, "cpu_seconds", "median")),
	     8, true},
	    {"miss.binary simulate/decode, wall time",
	     ratio(num(mp, "seconds", "median"), num(md, "seconds", "median")), 8, true},
	    {"page-faults M accesses/cpu-s", num(pf, "accesses_per_cpu_s", "median") / 1e6, 10,
	     false},
	    {"page-faults M accesses/s (wall)", num(pf, "accesses_per_s", "median") / 1e6, 10, false},
	    {"madvise-threads 256 / 16 cores, wall", ratio(num(c256, "seconds", "median"),
							   num(c16, "seconds", "median")),
	     1.3 * 256, true},
	    {"madvise-threads 256 cores, 2 threads' gain", ratio(num(c256, "seconds", "median"),
								 num(c256x2, "seconds", "median")),
	     1.5, false},
	    {"bench_engine_scaling 64 cores, 2 threads' gain",
	     ratio(num(e1, "seconds", "median"), num(e2, "seconds", "median")), 1.5, false},
	};

	printf("\n%-48s %9s %9s %8s\n", "targets of issue #29", "value", "target", "met");
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		bool met = t[i].at_most ? t[i].value <= t[i].limit : t[i].value >= t[i].limit;

		printf("%-48s", t[i].name);
		print_figure(9, 2, t[i].value);
		printf(" %2s %6.1f %8s\n", t[i].at_most ? "<=" : ">=", t[i].limit,
		       isnan(t[i].value) ? "n/a" : met ? "yes" : "no");
		json_array_append_new(
		    targets, json_pack("{s:s, s:o, s:s, s:f, s:o}", "target", t[i].name, "value",
				       figure(t[i].value), "is", t[i].at_most ? "at_most" : "at_least",
				       "limit", t[i].limit,
				       "met", isnan(t[i].value) ? json_null() : json_boolean(met)));
	}

	doc = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "host", host, "measurements", all,
			"ratios", ratios, "memory", memory, "scaling", scaling, "targets", targets);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", argv[2], (int)getpid());
	if (json_dump_file(doc, tmp, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ||
	    rename(tmp, argv[2])) {
		perror(argv[2]);
		remove(tmp);
		return 2;
	}
	json_decref(doc);
	printf("\nwritten %s\n", argv[2]);
	return 0;
}
