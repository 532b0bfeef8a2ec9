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

void cli_compare_answer(FILE *f, json_t *runs, char *const *names, unsigned n)
{
	unsigned best = n, i, j, k;
	bool said[16] = {false};
	uint64_t lo = 0;
	char a[32];

	for (i = 0; i < n; i++)
		if (coherence(runs, i) && (best == n || get(coherence(runs, i), "cycles") < lo)) {
			best = i;
			lo = get(coherence(runs, i), "cycles");
		}
	if (best == n) {
		fprintf(f, "(no TLB coherence figures: kernel-level replays)\n\n");
		return;
	}
	/* The answer, then the others from the nearest, those that tie together. */
	fprintf(f, "Fewest cycles on TLB coherence: %s", names[best]);
	said[best] = true;
	for (i = 0; i < n && i < 16; i++)
		if (!said[i] && coherence(runs, i) && get(coherence(runs, i), "cycles") == lo) {
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
			if (!said[i] && coherence(runs, i) &&
			    (next == n || get(coherence(runs, i), "cycles") <
					      get(coherence(runs, next), "cycles")))
				next = i;
		if (next == n)
			break;
		fprintf(f, "%s %s", first ? ";" : ",", names[next]);
		said[next] = true;
		for (j = 0; j < n && j < 16; j++)
			if (!said[j] && coherence(runs, j) &&
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
	fprintf(f, ".\nWhere each spends them:\n");
	for (i = 0; i < n; i++) {
		json_t *c = coherence(runs, i);
		uint64_t v;

		if (!c)
			continue;
		v = get(c, "cycles");
		fprintf(f, "  %-24s %9s", names[i], mega(a, sizeof(a), v));
		if (v != lo && lo)
			fprintf(f, " %6.1fx  ", (double)v / (double)lo);
		else
			fprintf(f, "%10s", "");
		where(f, c);
		fprintf(f, "\n");
	}
	/* The run's length: what the coherence cycles did to it. */
	fprintf(f, "Simulated run time:");
	for (i = 0; i < n; i++) {
		double s = json_real_value(json_object_get(json_array_get(runs, i), "seconds"));
		double s0 = json_real_value(json_object_get(json_array_get(runs, best), "seconds"));

		fprintf(f, "%s %s %.3f ms", i ? "," : "", names[i], s * 1e3);
		if (i != best && s0 > 0)
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

/* "@s@suffix", @s reduced to characters that mean nothing to gnuplot inside "..." (@suffix is
 * ours). */
static void label(FILE *f, const char *s, const char *suffix)
{
	fputc('"', f);
	for (; *s; s++)
		fputc((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
			      (*s >= '0' && *s <= '9') || strchr("+:=,._-", *s)
			  ? *s
			  : '_',
		      f);
	fprintf(f, "%s\"", suffix);
}

static void script(FILE *gp, json_t *runs, char *const *names, unsigned n, const char *machine,
		   bool png)
{
	uint64_t lo = UINT64_MAX, hi = 0, second = 0, top;
	double tmax = 0, tbest = 0;
	unsigned i, k, best = 0;

	for (i = 0; i < n; i++) {
		json_t *c = coherence(runs, i);
		double t = json_real_value(json_object_get(json_array_get(runs, i), "seconds"));
		uint64_t v = c ? get(c, "cycles") : 0;

		if (c && v < lo) {
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
	/* noenhanced: an '_' or '^' in a label is a character, not a sub/superscript */
	fprintf(gp,
		"set terminal %s size 1200,540 font ',11' noenhanced\n"
		"set style textbox opaque noborder\n",
		png ? "pngcairo" : "svg");
	fprintf(gp, "$coherence << EOD\npolicy");
	for (k = 0; k < NR_KINDS; k++)
		fprintf(gp, " \"%s\"", kinds[k].label); /* ours: no quote in them */
	fputc('\n', gp);
	for (i = 0; i < n; i++) {
		json_t *c = coherence(runs, i);

		label(gp, names[i], "");
		for (k = 0; k < NR_KINDS; k++)
			fprintf(gp, " %.6f", c ? (double)get(c, kinds[k].key) / 1e6 : 0.0);
		fputc('\n', gp);
	}
	/* the totals above the bars, with the multiple of the fewest */
	fprintf(gp, "EOD\n$total << EOD\n");
	for (i = 0; i < n; i++) {
		json_t *c = coherence(runs, i);
		uint64_t v = c ? get(c, "cycles") : 0;

		fprintf(gp, "%u %.6f ", i, (double)(v > top ? top - top / 12 : v) / 1e6);
		if (!c)
			fprintf(gp, "\"-\"\n");
		else if (v == lo || !lo)
			fprintf(gp, "\"%.2f M, fewest\"\n", (double)v / 1e6);
		else
			fprintf(gp, "\"%s%.2f M, %.1fx\"\n", v > top ? "off scale: " : "",
				(double)v / 1e6, (double)v / (double)lo);
	}
	/* run times: the bar's value above it, the change from the fewest-coherence run under it */
	fprintf(gp, "EOD\n$time << EOD\n");
	for (i = 0; i < n; i++) {
		double t = json_real_value(json_object_get(json_array_get(runs, i), "seconds"));
		char pct[32] = "";

		if (i != best && tbest > 0)
			snprintf(pct, sizeof(pct), " %+.1f%%", 100.0 * (t - tbest) / tbest);
		label(gp, names[i], pct);
		fprintf(gp, " %.6f \"%.3f\"\n", t * 1e3, t * 1e3);
	}
	fprintf(gp, "EOD\nset multiplot\nset size 0.66,1\nset origin 0,0\nset title ");
	label(gp, machine, "");
	fprintf(gp,
		". ': cycles spent on TLB coherence (all cpus), by kind'\n"
		"set style data histograms\nset style histogram rowstacked\n"
		"set style fill solid 0.85 border -1\nset boxwidth 0.6\nset grid ytics\n"
		"set xtics rotate by -20\nset key outside bottom center horizontal maxrows 3\n"
		"set ylabel 'million cycles'\nset xrange [-0.6:%u.4]\nset yrange [0:%.6f]\n"
		"plot $coherence using 2:xtic(1) title columnheader",
		n - 1, top ? (double)top / 1e6 : 1.0);
	for (k = 1; k < NR_KINDS; k++)
		fprintf(gp, ", '' using %u title columnheader", k + 2);
	fprintf(gp,
		", $total using 1:2:3 with labels boxed offset 0,0.8 notitle\n"
		"set size 0.34,1\nset origin 0.66,0\nunset key\n"
		"set title 'run time (simulated)'\nset ylabel 'ms'\nset yrange [0:%.6f]\n"
		"plot $time using 0:2:xtic(1) with boxes linecolor rgb '#4a6fa5', "
		"'' using 0:2:3 with labels boxed offset 0,0.8\n"
		"unset multiplot\n",
		tmax > 0 ? tmax * 1e3 * 1.15 : 1.0);
}

int cli_compare_plot(const char *path, json_t *runs, char *const *names, unsigned n,
		     const char *machine)
{
	char tmp[4096];
	const char *ext = strrchr(path, '.');
	int fd, pipefd[2], status = 0;
	pid_t pid;
	FILE *gp;

	mode_t mask = umask(0);

	umask(mask);
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >= (int)sizeof(tmp) ||
	    (fd = mkstemp(tmp)) < 0)
		return cli_fail("--plot: cannot create a temporary file beside %s: %s", path,
				strerror(errno));
	fchmod(fd, 0666 & ~mask); /* what open(0666) would give, not mkstemp()'s 0600 */
	if (pipe(pipefd) < 0) {
		close(fd);
		unlink(tmp);
		return cli_fail("--plot: %s", strerror(errno));
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(pipefd[0], 0);
		dup2(fd, 1);
		if (null >= 0)
			dup2(null, 2);
		close(pipefd[1]);
		execlp("gnuplot", "gnuplot", (char *)NULL);
		_exit(127);
	}
	close(pipefd[0]);
	close(fd);
	gp = pid > 0 ? fdopen(pipefd[1], "w") : NULL;
	if (!gp) {
		close(pipefd[1]);
		if (pid > 0)
			waitpid(pid, &status, 0);
		unlink(tmp);
		return cli_fail("--plot: cannot run gnuplot: %s", strerror(errno));
	}
	script(gp, runs, names, n, machine, ext && !strcmp(ext, ".png"));
	fclose(gp);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		unlink(tmp);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			return cli_fail(
			    "--plot: cannot run gnuplot (scripts/install-deps installs it)");
		return cli_fail("--plot: gnuplot could not draw %s", path);
	}
	if (rename(tmp, path)) {
		unlink(tmp);
		return cli_fail("--plot: cannot write %s: %s", path, strerror(errno));
	}
	return 0;
}
