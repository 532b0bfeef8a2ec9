/* SPDX-License-Identifier: MIT */
/*
 * Decode throughput of a trace read one event at a time
 * (tlbsim_trace_next(), the loop of perf_sim --decode) against batches
 * (tlbsim_trace_next_batch(), include/tlbsim/trace.h), in the same run:
 * each pass opens the trace afresh and reads it to its end, counting the
 * accesses (load, store, fetch events); the passes alternate so both see
 * the same host load.  Reports the median of the runs in M events/s of
 * wall and of cpu time.
 *
 * Usage: bench_trace_batch [--runs N] [--batch N] TRACE
 *        (defaults: 5 runs, batches of 256 events)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlbsim/trace.h"

#include "bench.h"

#define RUNS_MAX 99
/* 256 events of 48 bytes: 12 KiB, in the L1 data cache of any host. */
#define BATCH_DEFAULT 256
#define BATCH_MAX 65536

struct pass {
	double wall, cpu;
	uint64_t events, accesses;
};

/* Read @path to its end, @batch events at a time (0: one by one). */
static int read_pass(const char *path, size_t batch, struct tlbsim_event *buf, struct pass *p)
{
	struct tlbsim_error err;
	tlbsim_trace_reader *r;
	double w0, c0;
	int rc;

	tlbsim_error_clear(&err);
	memset(p, 0, sizeof(*p));
	if (tlbsim_trace_open(path, TLBSIM_TRACE_AUTO, &r, &err) < 0) {
		fprintf(stderr, "bench_trace_batch: %s: %s\n", path, err.text);
		return -1;
	}
	w0 = bench_now();
	c0 = bench_cpu_now();
	if (batch == 0) {
		while ((rc = tlbsim_trace_next(r, buf, &err)) > 0)
			p->accesses += (uint64_t)tlbsim_event_is_access(buf->kind);
	} else {
		while ((rc = tlbsim_trace_next_batch(r, buf, batch, &err)) > 0)
			for (int i = 0; i < rc; i++)
				p->accesses += (uint64_t)tlbsim_event_is_access(buf[i].kind);
	}
	p->wall = bench_now() - w0;
	p->cpu = bench_cpu_now() - c0;
	p->events = tlbsim_trace_nr_events(r);
	tlbsim_trace_close(r);
	if (rc < 0) {
		fprintf(stderr, "bench_trace_batch: %s: byte %lld: %s\n", path, err.offset,
			err.text);
		return -1;
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

int main(int argc, char **argv)
{
	int runs = 5, i;
	size_t batch = BATCH_DEFAULT;
	const char *path = NULL;
	double wall[2][RUNS_MAX], cpu[2][RUNS_MAX];
	struct tlbsim_event *buf;
	struct pass p[2];

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (strcmp(argv[i], "--batch") == 0 && i + 1 < argc)
			batch = (size_t)atol(argv[++i]);
		else
			path = argv[i];
	}
	if (!path || runs < 1 || runs > RUNS_MAX || batch < 1 || batch > BATCH_MAX) {
		fprintf(stderr, "usage: bench_trace_batch [--runs 1..%d] [--batch 1..%d] TRACE\n",
			RUNS_MAX, BATCH_MAX);
		return 2;
	}
	buf = calloc(batch, sizeof(*buf));
	if (!buf)
		return 1;
	for (i = 0; i < runs; i++) {
		for (int b = 0; b < 2; b++) {
			if (read_pass(path, b ? batch : 0, buf, &p[b]) < 0)
				return 1;
			wall[b][i] = p[b].wall;
			cpu[b][i] = p[b].cpu;
		}
		if (p[0].events != p[1].events || p[0].accesses != p[1].accesses) {
			fprintf(stderr, "bench_trace_batch: one by one and batches differ\n");
			return 1;
		}
	}
	for (int b = 0; b < 2; b++) {
		double w = median(wall[b], runs), c = median(cpu[b], runs);

		printf("%-30s %-12s %10llu events  %7.2f M ev/s wall  %7.2f M ev/cpu-s  %.3f s\n",
		       path, b ? "batch" : "one-by-one", (unsigned long long)p[b].events,
		       (double)p[b].events / w * 1e-6, (double)p[b].events / c * 1e-6, w);
	}
	free(buf);
	return 0;
}
