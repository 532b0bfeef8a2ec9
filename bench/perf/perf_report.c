/* SPDX-License-Identifier: MIT */
/*
 * The last step of bench/perf/run: reads the JSON lines perf_sim appended
 * (one measurement each), prints them as a table with, for every label
 * measured both ways, the ratio simulate/decode of the median wall times
 * (1 would mean the simulation costs nothing beyond reading the trace),
 * and writes everything as one JSON document to OUT through a temporary
 * file renamed into place, so a failed run leaves no half-written OUT.
 *
 * Usage: perf_report LINES OUT [KEY=VALUE...]   (the pairs describe the
 *        host: machine, load average, date; they go into OUT's "host")
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

static double num(json_t *m, const char *key, const char *stat)
{
	return json_number_value(json_object_get(json_object_get(m, key), stat));
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

	json_array_foreach(all, i, m) {
		if (!strcmp(str(m, "label"), label) && !strcmp(str(m, "mode"), mode))
			return m;
	}
	return NULL;
}

static void print_row(json_t *m)
{
	printf("%-30s %-8s %3d %10lld %8.2f %8.2f %8.2f %9.2f %9.3f %9.3f %9lld\n", str(m, "label"),
	       str(m, "mode"), (int)json_integer_value(json_object_get(m, "threads")),
	       (long long)json_integer_value(json_object_get(m, "accesses")),
	       num(m, "accesses_per_s", "median") / 1e6, num(m, "accesses_per_s", "min") / 1e6,
	       num(m, "accesses_per_s", "max") / 1e6, num(m, "accesses_per_cpu_s", "median") / 1e6,
	       num(m, "seconds", "median"), num(m, "cpu_seconds", "median"),
	       (long long)json_integer_value(json_object_get(m, "peak_rss_kib")));
}

int main(int argc, char **argv)
{
	json_t *all = json_array(), *ratios = json_array(), *host = json_object(), *doc, *m;
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
	json_array_foreach(all, i, m)
		print_row(m);

	printf("\n%-30s %10s %10s %8s %8s\n", "simulate / decode (medians)", "sim s", "decode s",
	       "ratio", "cpu ratio");
	json_array_foreach(all, i, m) {
		json_t *d = find(all, str(m, "label"), "decode");
		double s_sim = num(m, "seconds", "median"), s_dec, cpu_ratio;

		if (strcmp(str(m, "mode"), "simulate") || !d)
			continue;
		s_dec = num(d, "seconds", "median");
		cpu_ratio = num(m, "cpu_seconds", "median") / num(d, "cpu_seconds", "median");
		printf("%-30s %10.3f %10.3f %8.2f %8.2f\n", str(m, "label"), s_sim, s_dec,
		       s_sim / s_dec, cpu_ratio);
		json_array_append_new(ratios, json_pack("{s:s, s:f, s:f}", "label", str(m, "label"),
							"simulate_over_decode", s_sim / s_dec,
							"cpu_simulate_over_decode", cpu_ratio));
	}

	doc = json_pack("{s:o, s:o, s:o}", "host", host, "measurements", all, "ratios", ratios);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", argv[2], (int)getpid());
	if (json_dump_file(doc, tmp, JSON_INDENT(2) | JSON_PRESERVE_ORDER) || rename(tmp, argv[2])) {
		perror(argv[2]);
		remove(tmp);
		return 2;
	}
	json_decref(doc);
	printf("\nwritten %s\n", argv[2]);
	return 0;
}
