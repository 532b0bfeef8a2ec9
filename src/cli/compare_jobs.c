/* SPDX-License-Identifier: MIT */
/*
 * tlbsim compare's runs, several at once on host threads (POSIX threads):
 * each policy's simulation is independent (its own reader of the trace,
 * its own simulator), so running them concurrently gives exactly the
 * statistics of running them one after the other; only the wall time
 * changes.  A terminal gets a progress line per policy, redrawn in place
 * (ECMA-48 cursor-up and erase-line); anything else gets a "running P..."
 * line as each run starts.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

enum { JOB_WAITING, JOB_RUNNING, JOB_DONE, JOB_SKIPPED };

struct job {
	const char *policy;
	struct cli_progress prog;
	_Atomic int state;
	double started, seconds;
	int rc;
};

struct pool {
	struct job *jobs;
	unsigned n, next;
	bool lines; /* progress lines, else "running" lines (unless quiet) */
	bool quiet;
	_Atomic bool failed; /* a run failed: the others would too (the same input); none starts */
	pthread_mutex_t lock;
	cli_policy_run_fn fn;
	void *arg;
	void **stats;
};

/* The next run to start, or -1: none left, or interrupted (then none starts). */
static int take(struct pool *p)
{
	int i = -1;

	pthread_mutex_lock(&p->lock);
	if (p->next < p->n && !cli_interrupted() && !p->failed) {
		i = (int)p->next++;
		p->jobs[i].started = cli_now();
		atomic_store(&p->jobs[i].state, JOB_RUNNING);
		if (!p->lines && !p->quiet)
			fprintf(stderr, "running %s...\n", p->jobs[i].policy);
	}
	pthread_mutex_unlock(&p->lock);
	return i;
}

static void *worker(void *arg)
{
	struct pool *p = arg;
	int i;

	while ((i = take(p)) >= 0) {
		struct job *j = &p->jobs[i];

		j->rc = p->fn(p->arg, j->policy, &j->prog, &p->stats[i]);
		j->seconds = cli_now() - j->started;
		if (j->rc) {
			pthread_mutex_lock(&p->lock);
			p->failed = true;
			pthread_mutex_unlock(&p->lock);
		}
		atomic_store(&j->state, JOB_DONE);
	}
	return NULL;
}

static void draw(const struct pool *p, uint64_t size, bool again)
{
	if (again)
		fprintf(stderr, "\033[%uA", p->n);
	for (unsigned i = 0; i < p->n; i++) {
		const struct job *j = &p->jobs[i];
		uint64_t ev = atomic_load_explicit(&j->prog.events, memory_order_relaxed);
		uint64_t by = atomic_load_explicit(&j->prog.bytes, memory_order_relaxed);

		fprintf(stderr, "\r\033[K  %-24s ", j->policy);
		switch (atomic_load(&j->state)) {
		case JOB_WAITING:
			fprintf(stderr, "waiting\n");
			break;
		case JOB_RUNNING: {
			struct rep_progress_state st = {
			    .events = ev,
			    .fraction = size && by ? (double)by / (double)size : -1,
			    .sim_seconds = (double)atomic_load_explicit(&j->prog.sim_ns,
									memory_order_relaxed) /
					   1e9,
			    .elapsed = cli_now() - j->started};
			char text[256];

			rep_progress_format(text, sizeof(text), &st);
			fprintf(stderr, "%s\n", text);
			break;
		}
		case JOB_DONE:
			fprintf(stderr, "%s in %.1f s\n", j->rc ? "failed" : "done", j->seconds);
			break;
		default:
			fprintf(stderr, "not run (interrupted)\n");
			break;
		}
	}
}

int cli_run_policies(char *const *names, unsigned n, unsigned jobs, bool quiet, uint64_t size,
		     cli_policy_run_fn fn, void *arg, void **stats)
{
	struct pool p = {.n = n, .fn = fn, .arg = arg, .stats = stats};
	pthread_t th[64];
	unsigned nr_th = jobs < n ? jobs : n, started = 0, i;
	bool drawn = false;
	int rc = 0;

	if (nr_th > 64)
		nr_th = 64;
	if (!nr_th)
		nr_th = 1;
	p.jobs = calloc(n ? n : 1, sizeof(*p.jobs));
	if (!p.jobs)
		return cli_fail("out of memory");
	for (i = 0; i < n; i++) {
		p.jobs[i].policy = names[i];
		stats[i] = NULL;
	}
	p.lines = !quiet && isatty(2);
	p.quiet = quiet;
	pthread_mutex_init(&p.lock, NULL);
	for (i = 0; i < nr_th; i++)
		if (pthread_create(&th[started], NULL, worker, &p) == 0)
			started++;
	if (!started) /* no thread: run them here */
		worker(&p);
	if (p.lines) {
		for (;;) {
			bool all = true;

			for (i = 0; i < n; i++) {
				int s = atomic_load(&p.jobs[i].state);

				all &= s == JOB_DONE ||
				       (s == JOB_WAITING && (cli_interrupted() || p.failed));
			}
			draw(&p, size, drawn);
			drawn = true;
			if (all)
				break;
			nanosleep(&(struct timespec){0, 250 * 1000 * 1000}, NULL);
		}
	}
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (p.lines) {
		bool skipped = false;

		for (i = 0; i < n; i++)
			if (atomic_load(&p.jobs[i].state) == JOB_WAITING) {
				atomic_store(&p.jobs[i].state, JOB_SKIPPED);
				skipped = true;
			}
		if (skipped)
			draw(&p, size, true);
	}
	for (i = 0; i < n && !rc; i++)
		rc = p.jobs[i].rc;
	pthread_mutex_destroy(&p.lock);
	free(p.jobs);
	return rc;
}
