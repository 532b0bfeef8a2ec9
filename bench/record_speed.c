/* SPDX-License-Identifier: MIT */
/*
 * Recording speed (issue 28): the same programs recorded by `tlbsim record`
 * under tlbsim's valgrind tool (with and without fetches) and under
 * valgrind's lackey (`--via lackey`), in turns within one run.  For each
 * recording: wall-clock seconds from start to the trace in place (valgrind
 * and the merge or the log's conversion included), the cpu seconds of
 * tlbsim and everything it waited for (wait4() rusage), the guest
 * instructions (fetch events, or the counts of `compute N insns` without
 * fetches), the events, their rates, and the bytes an event of the trace
 * as `tlbsim record` writes it by default (zstd) and, for the tool, of the
 * uncompressed native parts it wrote (--keep-parts: the compact encoding
 * alone; lackey's log is text, some tens of bytes an event).
 * The last two columns are the tool's events per second, wall and cpu,
 * over lackey's on the same program.  Programs that fork are recorded by the tool only
 * (lackey cannot follow them).
 *
 * The programs: gzip -6 and zstd -T3 (three worker threads) compressing
 * 640 KB of the text of traces/samples/README.md's zstd recording, and a
 * shell running ls -l eight times (fork and exec).
 *
 * Usage: bench_record_speed [--runs N] [TLBSIM [SCRATCH_DIR]]
 *   TLBSIM defaults to build/tlbsim, SCRATCH_DIR to $TMPDIR or /tmp;
 *   each figure is the median of N runs (default 1: lackey is slow).
 */
#define _DEFAULT_SOURCE /* wait4(), mkdtemp() */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tlbsim/trace.h"

#include "bench.h"

#define MAX_RUNS 9

struct workload {
	const char *name;
	const char *argv[8]; /* "IN": the input file; stdout goes to /dev/null */
	int forks;	     /* lackey cannot record it */
};

static const struct workload workloads[] = {
    {"gzip -6 (640 KB)", {"gzip", "-6", "-c", "IN", NULL}, 0},
    {"zstd -T3 (640 KB)", {"zstd", "-q", "-T3", "-1", "-B512KiB", "-c", "IN", NULL}, 0},
    {"sh: 8 x ls -l",
     {"/bin/sh", "-c", "for i in 1 2 3 4 5 6 7 8; do ls -l /usr/include; done", NULL},
     1},
};

struct via {
	const char *name;
	const char *args[3]; /* after "record" */
};

static const struct via vias[] = {
    {"tlbsim", {"--via", "tlbsim", NULL}},
    {"tlbsim, no fetches", {"--fetches", "no", NULL}},
    {"lackey", {"--via", "lackey", NULL}},
};

struct result {
	double wall, cpu;
	uint64_t insns, events, bytes, native; /* native: the parts' bytes, 0 for lackey */
};

static int in_path(const char *prog)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

/* Bytes of the parts kept beside @out (OUT.parts.XXXXXX/PID.SEQ), which it removes. */
static uint64_t parts_bytes(const char *out)
{
	char cmd[3000];
	uint64_t total = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "cat %s.parts.*/[0-9]* 2>/dev/null | wc -c; rm -rf %s.parts.*",
		 out, out);
	p = popen(cmd, "r");
	if (p) {
		if (fscanf(p, "%llu", (unsigned long long *)&total) != 1)
			total = 0;
		pclose(p);
	}
	return total;
}

/* Record @wl (its input @in) into @out via @v; false if tlbsim failed. */
static int record(const char *tlbsim, const struct via *v, const struct workload *wl,
		  const char *in, const char *out, struct result *res)
{
	char *argv[24];
	struct rusage ru;
	struct stat sb;
	double t0 = bench_now();
	int n = 0, status;
	pid_t pid;

	argv[n++] = (char *)tlbsim;
	argv[n++] = "record";
	for (int i = 0; v->args[i]; i++)
		argv[n++] = (char *)v->args[i];
	if (!strcmp(v->args[1], "tlbsim") || !strcmp(v->args[0], "--fetches"))
		argv[n++] = "--keep-parts";
	argv[n++] = "-o";
	argv[n++] = (char *)out;
	argv[n++] = "--";
	for (int i = 0; wl->argv[i]; i++)
		argv[n++] = (char *)(strcmp(wl->argv[i], "IN") ? wl->argv[i] : in);
	argv[n] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		freopen("/dev/null", "w", stdout);
		freopen("/dev/null", "w", stderr);
		execv(tlbsim, argv);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return 0;
	res->wall = bench_now() - t0;
	res->cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		   (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
	res->bytes = stat(out, &sb) ? 0 : (uint64_t)sb.st_size;
	res->native = parts_bytes(out);
	return 1;
}

/* Events and guest instructions of the trace at @path. */
static int count(const char *path, struct result *res)
{
	tlbsim_trace_reader *r;
	struct tlbsim_event ev;
	int rc;

	res->events = res->insns = 0;
	if (tlbsim_trace_open(path, TLBSIM_TRACE_AUTO, &r, NULL))
		return 0;
	while ((rc = tlbsim_trace_next(r, &ev, NULL)) == 1) {
		res->events++;
		if (ev.kind == TLBSIM_EV_FETCH)
			res->insns++;
		else if (ev.kind == TLBSIM_EV_COMPUTE && ev.compute.unit == TLBSIM_COMPUTE_INSNS)
			res->insns += ev.compute.count;
	}
	tlbsim_trace_close(r);
	return rc == 0;
}

static int by_wall(const void *a, const void *b)
{
	const struct result *x = a, *y = b;

	return (x->wall > y->wall) - (x->wall < y->wall);
}

int main(int argc, char **argv)
{
	const char *tlbsim = "build/tlbsim", *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char dir[1024], in[1100], out[1100];
	struct result med[3][3] = {{{0}}};
	int runs = 1, a = 1;
	FILE *f;

	if (argc > 2 && !strcmp(argv[1], "--runs")) {
		runs = atoi(argv[2]);
		a = 3;
		if (runs < 1 || runs > MAX_RUNS) {
			fprintf(stderr, "bench_record_speed: --runs 1..%d\n", MAX_RUNS);
			return 2;
		}
	}
	if (argc > a)
		tlbsim = argv[a];
	if (argc > a + 1)
		tmp = argv[a + 1];
	snprintf(dir, sizeof(dir), "%s/tlbsim-record-speed-XXXXXX", tmp);
	if (!mkdtemp(dir)) {
		fprintf(stderr, "bench_record_speed: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	/* The input of traces/samples/README.md's zstd recording, 8,000 of its lines. */
	snprintf(in, sizeof(in), "%s/input.txt", dir);
	f = fopen(in, "w");
	for (int i = 1; f && i <= 8000; i++)
		fprintf(f,
			"tlb shootdown %06d: flush page table walk cache ipi asid pcid lazy mm "
			"cpumask\n",
			i);
	if (!f || fclose(f)) {
		fprintf(stderr, "bench_record_speed: cannot write %s\n", in);
		return 1;
	}
	snprintf(out, sizeof(out), "%s/t.tlbt", dir);
	printf("%-20s %-20s %8s %8s %12s %12s %9s %9s %7s %7s %6s %6s\n", "program", "recorder",
	       "wall s", "cpu s", "guest insns", "events", "M insn/s", "M ev/s", "B/ev", "B/ev",
	       "xwall", "xcpu");
	printf("%-20s %-20s %8s %8s %12s %12s %9s %9s %7s %7s %6s %6s\n", "", "", "", "", "", "",
	       "", "", "zstd", "native", "", "");
	for (size_t w = 0; w < sizeof(workloads) / sizeof(workloads[0]); w++) {
		const struct workload *wl = &workloads[w];
		struct result r[3][MAX_RUNS];
		int ok[3] = {1, 1, 1};

		if (!in_path(wl->argv[0])) {
			printf("%-20s (skipped: no %s)\n", wl->name, wl->argv[0]);
			continue;
		}
		/* in turns: the host's speed drifts, the ratio should not */
		for (int k = 0; k < runs; k++)
			for (int v = 0; v < 3; v++) {
				if (v == 2 && wl->forks) {
					ok[v] = 0;
					continue;
				}
				if (!ok[v])
					continue;
				ok[v] = record(tlbsim, &vias[v], wl, in, out, &r[v][k]) &&
					count(out, &r[v][k]);
				unlink(out);
			}
		for (int v = 0; v < 3; v++)
			if (ok[v]) {
				qsort(r[v], (size_t)runs, sizeof(r[v][0]), by_wall);
				med[w][v] = r[v][runs / 2];
			}
		for (int v = 0; v < 3; v++) {
			struct result *m = &med[w][v];

			if (!ok[v]) {
				printf("%-20s %-20s %s\n", wl->name, vias[v].name,
				       wl->forks && v == 2 ? "(cannot: the program forks)"
							   : "(failed)");
				continue;
			}
			printf("%-20s %-20s %8.2f %8.2f %12llu %12llu %9.2f %9.2f %7.3f", wl->name,
			       vias[v].name, m->wall, m->cpu, (unsigned long long)m->insns,
			       (unsigned long long)m->events, m->insns / m->wall / 1e6,
			       m->events / m->wall / 1e6,
			       m->events ? (double)m->bytes / (double)m->events : 0.0);
			if (m->native)
				printf(" %7.3f", (double)m->native / (double)m->events);
			else
				printf(" %7s", "-");
			/* events a second, wall and cpu, over lackey's on this program */
			if (v < 2 && ok[2])
				printf(" %6.1f %6.1f",
				       (m->events / m->wall) / (med[w][2].events / med[w][2].wall),
				       (m->events / m->cpu) / (med[w][2].events / med[w][2].cpu));
			printf("\n");
		}
	}
	unlink(in);
	rmdir(dir);
	return 0;
}
