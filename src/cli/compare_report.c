/* SPDX-License-Identifier: MIT */
/*
 * What tlbsim compare shows first: which policy spends the fewest cycles on
 * TLB coherence, by how much, and where each spends them (the statistics'
 * "coherence" object, docs/stats-schema.md), and the chart of the same:
 * coherence cycles by kind per policy, and the run's simulated time, drawn
 * by gnuplot.
 *
 * The chart's script holds no path and nothing a user typed: gnuplot reads
 * it on its standard input with the figures inline (datablocks), writes
 * the image on its standard output into a temporary file tlbsim opened, and
 * tlbsim renames that onto the chosen path.  Labels (policy and machine
 * names) are reduced to [A-Za-z0-9+:=,._-].
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"

/* The kinds, in the order of the table and the chart's stack. */
static const struct kind {
	const char *key;   /* in "coherence" */
	const char *label; /* table, text and chart legend: no quote character */
} kinds[] = {
    {"ipi_send_cycles", "IPIs sent"},
    {"ipi_handler_cycles", "IPI handlers"},
    {"broadcast_receive_cycles", "broadcasts received"},
    {"flush_wait_cycles", "waiting: acks, DSB, TLBSYNC"},
    {"other_flush_cycles", "local flushes, TLBI/INVLPGB issue"},
    {"walk_cycles_after_flush", "walks after flushes"},
    {"lock_wait_cycles", "mmap_lock waits on a flush"},
    {"switch_line_cycles", "switch_mm shared lines"},
};
#define NR_KINDS (sizeof(kinds) / sizeof(kinds[0]))

static uint64_t get(json_t *o, const char *key)
{
	return (uint64_t)json_integer_value(json_object_get(o, key));
}

static json_t *coherence(json_t *runs, unsigned i)
{
	return json_object_get(json_array_get(runs, i), "coherence");
}

/* Cycles as "12.34 M". */
static const char *mega(char *buf, size_t size, uint64_t v)
{
	snprintf(buf, size, "%.2f M", (double)v / 1e6);
	return buf;
}

/* The cpus' cycles that were not idle: what the percentages are of. */
static uint64_t active(json_t *st)
{
	json_t *t = json_object_get(st, "totals");

	return get(t, "busy_cycles") + get(t, "waiting_cycles") + get(t, "stolen_cycles");
}

/* "IPI handlers 39%, waiting for acks, DSB, TLBSYNC 33%, walks after flushes 14%": the three
 * largest. */
static void where(FILE *f, json_t *c)
{
	uint64_t total = get(c, "cycles");
	bool used[NR_KINDS] = {false};

	for (unsigned shown = 0; shown < 3; shown++) {
		unsigned best = NR_KINDS;

		for (unsigned k = 0; k < NR_KINDS; k++)
			if (!used[k] && get(c, kinds[k].key) &&
			    (best == NR_KINDS || get(c, kinds[k].key) > get(c, kinds[best].key)))
				best = k;
		if (best == NR_KINDS || !total)
			break;
		used[best] = true;
		fprintf(f, "%s%s %.0f%%", shown ? ", " : "", kinds[best].label,
			100.0 * (double)get(c, kinds[best].key) / (double)total);
	}
}

/* Whether run @i takes part in the ranking: it has coherence figures and
 * the caller ranks it. */
static bool rankable(json_t *runs, const bool *ranked, unsigned i)
{
	return coherence(runs, i) && ranked[i];
}

void cli_compare_answer(FILE *f, json_t *runs, char *const *names, unsigned n,
			const bool *ranked)
{
	unsigned best = n, i, j, k;
	bool said[16] = {false};
	uint64_t lo = 0;
	char a[32];

	for (i = 0; i < n; i++)
		if (rankable(runs, ranked, i) &&
		    (best == n || get(coherence(runs, i), "cycles") < lo)) {
			best = i;
			lo = get(coherence(runs, i), "cycles");
		}
	if (best == n) {
		for (i = 0; i < n && !coherence(runs, i); i++)
			;
		if (i == n)
			fprintf(f, "(no TLB coherence figures: kernel-level replays)\n\n");
		else
			fprintf(f, "No ranking: no run covers the whole workload (the figures below "
				   "are of partial runs, stopped at different points)\n\n");
		/* the tables still follow, when there are figures */
		if (i == n)
			return;
	}
	if (best < n) {
		/* The answer, then the others from the nearest, those that tie together. */
		fprintf(f, "Fewest cycles on TLB coherence: %s", names[best]);
		said[best] = true;
		for (i = 0; i < n && i < 16; i++)
			if (!said[i] && rankable(runs, ranked, i) && get(coherence(runs, i), "cycles") == lo) {
				fprintf(f, " and %s (the same)", names[i]);
				said[i] = true;
			}
		fprintf(f, ", %s cycles (%.2f%% of the cpus' non-idle cycles)", mega(a, sizeof(a), lo),
			active(json_array_get(runs, best))
			    ? 100.0 * (double)lo / (double)active(json_array_get(runs, best))
			    : 0.0);
		for (bool first = true;; first = false) {
			unsigned next = n;

			for (i = 0; i < n && i < 16; i++)
				if (!said[i] && rankable(runs, ranked, i) &&
				    (next == n || get(coherence(runs, i), "cycles") <
						      get(coherence(runs, next), "cycles")))
					next = i;
			if (next == n)
				break;
			fprintf(f, "%s %s", first ? ";" : ",", names[next]);
			said[next] = true;
			for (j = 0; j < n && j < 16; j++)
				if (!said[j] && rankable(runs, ranked, j) &&
				    get(coherence(runs, j), "cycles") ==
					get(coherence(runs, next), "cycles")) {
					fprintf(f, " and %s", names[j]);
					said[j] = true;
				}
			if (lo)
				fprintf(f, " %.1fx as many",
					(double)get(coherence(runs, next), "cycles") / (double)lo);
			else
				fprintf(f, " %s more",
					mega(a, sizeof(a), get(coherence(runs, next), "cycles")));
		}
		fprintf(f, ".\n");
	}
	fprintf(f, "Where each spends them:\n");
	for (i = 0; i < n; i++) {
		json_t *c = coherence(runs, i);
		uint64_t v;

		if (!c)
			continue;
		v = get(c, "cycles");
		fprintf(f, "  %-24s %9s", names[i], mega(a, sizeof(a), v));
		if (!ranked[i])
			fprintf(f, " [partial] ");
		else if (v != lo && lo)
			fprintf(f, " %6.1fx   ", (double)v / (double)lo);
		else
			fprintf(f, "%11s", "");
		where(f, c);
		fprintf(f, "\n");
	}
	/* The run's length: what the coherence cycles did to it. */
	fprintf(f, "Simulated run time:");
	for (i = 0; i < n; i++) {
		double s = json_real_value(json_object_get(json_array_get(runs, i), "seconds"));
		double s0 = best < n ? json_real_value(json_object_get(json_array_get(runs, best),
								       "seconds"))
				     : 0;

		fprintf(f, "%s %s %.3f ms", i ? "," : "", names[i], s * 1e3);
		if (!ranked[i])
			fprintf(f, " [partial]");
		else if (i != best && s0 > 0)
			fprintf(f, " (%+.1f%%)", 100.0 * (s - s0) / s0);
	}
	fprintf(f, "\n\n%-36s", "TLB coherence cycles (all cpus)");
	for (i = 0; i < n; i++)
		fprintf(f, " %18s", names[i]);
	fprintf(f, "\n");
	for (k = 0; k <= NR_KINDS; k++) {
		fprintf(f, "  %-34s", k < NR_KINDS ? kinds[k].label : "total");
		for (i = 0; i < n; i++) {
			json_t *c = coherence(runs, i);

			if (c)
				fprintf(f, " %18llu",
					(unsigned long long)get(c, k < NR_KINDS ? kinds[k].key
										: "cycles"));
			else
				fprintf(f, " %18s", "-");
		}
		fprintf(f, "\n");
	}
	fprintf(f, "\n");
}

/* ---- the chart ------------------------------------------------------------------ */

/*
 * gnuplot draws it through cli_gnuplot() (plot.c): this script is a
 * constant, and the figures come in one tab-separated data file, ARG2, of
 * four blocks (gnuplot's `index`): 0 coherence cycles by kind, 1 the
 * totals' labels, 2 the run times, 3 the two axes' tops; ARG3 is the
 * machine's name, a string.
 */
static const char chart[] =
    "eval sprintf(\"set terminal %s size 1200,540 font ',11' noenhanced\", GPVAL_TERM)\n"
    "set datafile separator '\\t'\n"
    "set style textbox opaque noborder\n"
    "stats ARG2 index 3 using 1:2 nooutput\n"
    "top = STATS_max_x\n"
    "tmax = STATS_max_y\n"
    "stats ARG2 index 2 using 2 nooutput\n"
    "n = STATS_records\n"
    "set multiplot\n"
    "set size 0.66,1\n"
    "set origin 0,0\n"
    "set title sprintf('%s: cycles spent on TLB coherence (all cpus), by kind', ARG3)\n"
    "set style data histograms\n"
    "set style histogram rowstacked\n"
    "set style fill solid 0.85 border -1\n"
    "set boxwidth 0.6\n"
    "set grid ytics\n"
    "set xtics rotate by -20\n"
    "set key outside bottom center horizontal maxrows 3\n"
    "set ylabel 'million cycles'\n"
    "set xrange [-0.6:n - 0.4]\n"
    "set yrange [0:top]\n"
    "plot for [k=2:9] ARG2 index 0 using k:xtic(1) title columnheader(k), \\\n"
    "     ARG2 index 1 using 1:2:3 with labels boxed offset 0,0.8 notitle\n"
    "set size 0.34,1\n"
    "set origin 0.66,0\n"
    "unset key\n"
    "set title 'run time (simulated)'\n"
    "set ylabel 'ms'\n"
    "set yrange [0:tmax * 1.15]\n"
    "plot ARG2 index 2 using 0:2:xtic(1) with boxes linecolor rgb '#4a6fa5', \\\n"
    "     ARG2 index 2 using 0:2:3 with labels boxed offset 0,0.8\n"
    "unset multiplot\n";

_Static_assert(NR_KINDS == 8, "the chart's script plots columns 2..9");

int cli_compare_plot(const char *path, json_t *runs, char *const *names, unsigned n,
		     const bool *ranked, const char *machine)
{
	char file[4096], lab[256];
	const char *args[2];
	uint64_t lo = UINT64_MAX, hi = 0, second = 0, top;
	double tbest = 0, tmax = 0;
	unsigned i, k, best = 0;
	FILE *f;
	int rc;

	for (i = 0; i < n; i++) {
		json_t *c = coherence(runs, i);
		double t = json_real_value(json_object_get(json_array_get(runs, i), "seconds"));
		uint64_t v = c ? get(c, "cycles") : 0;

		if (c && ranked[i] && v < lo) {
			lo = v;
			best = i;
			tbest = t;
		}
		if (v > hi) {
			second = hi;
			hi = v;
		} else if (v > second) {
			second = v;
		}
		if (t > tmax)
			tmax = t;
	}
	/* One policy far above the rest (flush-all, the reference) would flatten
	 * them: its bar goes off the scale, and its label says so. */
	top = hi > 4 * second && second ? second + second / 2 : hi + hi / 7;
	if (!(f = cli_plot_data(file, sizeof(file))))
		return CLI_USAGE;
	/* block 0: coherence cycles by kind, M cycles */
	fprintf(f, "policy");
	for (k = 0; k < NR_KINDS; k++)
		fprintf(f, "\t%s", kinds[k].label);
	fprintf(f, "\n");
	for (i = 0; i < n; i++) {
		json_t *c = coherence(runs, i);

		cli_plot_label(names[i], lab, sizeof(lab));
		fprintf(f, "%s", lab);
		for (k = 0; k < NR_KINDS; k++)
			fprintf(f, "\t%.6f", c ? (double)get(c, kinds[k].key) / 1e6 : 0.0);
		fprintf(f, "\n");
	}
	/* block 1: each total above its bar, with the multiple of the fewest */
	fprintf(f, "\n\n");
	for (i = 0; i < n; i++) {
		json_t *c = coherence(runs, i);
		uint64_t v = c ? get(c, "cycles") : 0;

		fprintf(f, "%u\t%.6f\t", i, (double)(v > top ? top - top / 12 : v) / 1e6);
		if (!c)
			fprintf(f, "-\n");
		else if (!ranked[i])
			fprintf(f, "%.2f M, partial: not ranked\n", (double)v / 1e6);
		else if (v == lo || !lo)
			fprintf(f, "%.2f M, fewest\n", (double)v / 1e6);
		else
			fprintf(f, "%s%.2f M, %.1fx\n", v > top ? "off scale: " : "",
				(double)v / 1e6, (double)v / (double)lo);
	}
	/* block 2: run times, their change from the fewest-coherence run under each bar */
	fprintf(f, "\n\n");
	for (i = 0; i < n; i++) {
		double t = json_real_value(json_object_get(json_array_get(runs, i), "seconds"));

		cli_plot_label(names[i], lab, sizeof(lab));
		fprintf(f, "%s", lab);
		if (!ranked[i])
			fprintf(f, " partial");
		else if (i != best && tbest > 0)
			fprintf(f, " %+.1f%%", 100.0 * (t - tbest) / tbest);
		fprintf(f, "\t%.6f\t%.3f\n", t * 1e3, t * 1e3);
	}
	/* block 3: the axes' tops */
	fprintf(f, "\n\n%.6f\t%.6f\n", top ? (double)top / 1e6 : 1.0, tmax > 0 ? tmax * 1e3 : 1.0);
	rc = fclose(f) ? cli_fail("--plot: cannot write the data file %s", file) : 0;
	args[0] = file;
	args[1] = machine;
	if (!rc)
		rc = cli_gnuplot(chart, path, args, 2);
	unlink(file);
	return rc;
}
