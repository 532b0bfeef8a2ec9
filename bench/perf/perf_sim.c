/* SPDX-License-Identifier: MIT */
/*
 * The timing loop of bench/perf/run: simulates a trace (or a generator's
 * events) RUNS times in this one process, or with --decode only reads and
 * decodes it (the reader loop of tlbsim_sim_run_batch()'s source, in
 * batches of 256 as the simulation asks, nothing simulated), or with --both
 * does the two in turns (simulate, decode, decode, simulate, ...: on a host
 * whose speed drifts, both medians then see the same host, so their ratio
 * is the code's and not the hour's).  For each it reports the median,
 * minimum and maximum of the simulated memory accesses (load, store, fetch
 * events) per second and of the wall time, and the process's peak resident
 * set size (with --both, the simulation's for both).  The accesses are
 * counted once, in an untimed decoding pass before the timed runs, which
 * then only check that they read as many events.  Timing in-process
 * leaves out process start-up and the machine's loading; each run opens
 * the trace afresh and builds a new simulation, as `tlbsim run` does.
 *
 * The pipeline timed is the one of `tlbsim run` without its table and JSON
 * output: tlbsim_trace_open() -> tlbsim_sim_create() ->
 * tlbsim_sim_run_batch() with tlbsim_trace_next_batch() (reader -> per-thread
 * event queues -> OS model -> MMU translate -> TLB).
 *
 * Output: one line for people on stdout; with --json-append FILE, one JSON
 * object a line appended to FILE (bench/perf/run gathers them).
 *
 * --phases (simulate, one thread): the time engine also times its windows
 * (struct eng's @time_phases): the part two host threads could share (the
 * cores of windows where two or more ran) and the serial rest (boundaries,
 * serves, plans, one-core windows).  A second line gives their medians and
 * Amdahl's bound on what 2 threads can gain, (s + p) / (s + p / 2); the
 * JSON object gets "phases".  The bound leaves out what sharing costs (the
 * threads' meeting, lines moving between host cpus), so it is an upper one.
 *
 * Usage: perf_sim [--decode | --both] [--phases] [--runs N] [--machine PATH]
 *                 [--policy P] [--threads N] [--label TEXT] [--json-append FILE]
 *                 TRACE | --gen NAME [--param K=V,...]
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <jansson.h>

#include "tlbsim/tlbsim.h"
#include "tlbsim/trace.h"

#include "engine/engine.h"
#include "os/os.h"

#include "../bench.h"

#define MAX_RUNS 100

enum mode { SIMULATE, DECODE, BOTH };

struct opts {
	enum mode mode;
	bool phases;
	int runs;
	int threads;
	const char *machine;
	const char *policy;
	const char *label;
	const char *json_append;
	const char *trace;
	const char *gen;
	const char *params;
};

/* An event source counting the events it hands over and, with @count,
 * the accesses among them (a scan of every event: done once, untimed, by
 * count_accesses()). */
struct source {
	tlbsim_trace_reader *trace;
	tlbsim_gen *gen;
	bool count;
	uint64_t events;
	uint64_t accesses;
};

static void die(const char *what, const struct tlbsim_error *err)
{
	char msg[700];

	tlbsim_error_format(err, msg, sizeof(msg));
	fprintf(stderr, "perf_sim: %s: %s\n", what, msg);
	exit(2);
}

/* A generator's events, up to @max of them, as `tlbsim run` batches them
 * (src/cli/main.c gen_batch()): the count, or a negative error code. */
static int gen_batch(tlbsim_gen *gen, struct tlbsim_event *ev, size_t max, struct tlbsim_error *err)
{
	size_t n = 0;
	int rc = 0;

	while (n < max && (rc = tlbsim_gen_next(gen, &ev[n], err)) > 0)
		n++;
	return rc < 0 ? rc : (int)n;
}

/* A tlbsim_event_batch_fn. */
static int source_next(void *arg, struct tlbsim_event *ev, size_t max, struct tlbsim_error *err)
{
	struct source *s = arg;
	int rc = s->trace ? tlbsim_trace_next_batch(s->trace, ev, max, err)
			  : gen_batch(s->gen, ev, max, err);

	for (int i = 0; s->count && i < rc; i++)
		s->accesses += tlbsim_event_is_access(ev[i].kind);
	if (rc > 0)
		s->events += (uint64_t)rc;
	return rc;
}

static void source_open(struct source *s, const struct opts *o, enum tlbsim_isa isa)
{
	struct tlbsim_error err;

	memset(s, 0, sizeof(*s));
	tlbsim_error_clear(&err);
	if (o->trace ? tlbsim_trace_open(o->trace, TLBSIM_TRACE_AUTO, &s->trace, &err)
		     : tlbsim_gen_create(o->gen, o->params, isa, &s->gen, &err))
		die(o->trace ? o->trace : o->gen, &err);
}

static void source_close(struct source *s)
{
	tlbsim_trace_close(s->trace);
	tlbsim_gen_destroy(s->gen);
}

/* A simulation's engine phases (--phases), host seconds. */
struct phases {
	double serial, shareable;
};

/* One run, decoding only if @decode; returns its wall time in seconds,
 * *cpu its cpu time, and fills *s's counts (the accesses with @count only,
 * which decodes only); a simulation with --phases fills *@ph. */
static double run_once(const struct opts *o, const struct tlbsim_machine *m, struct source *s,
		       bool decode, bool count, double *cpu, struct phases *ph)
{
	struct tlbsim_sim_config cfg = {.machine = m, .policy = o->policy, .threads = o->threads};
	struct tlbsim_error err;
	static struct tlbsim_event ev[256];
	tlbsim_sim *sim;
	double t0 = bench_now(), c0 = bench_cpu_now(), dt;
	int rc;

	source_open(s, o, m->isa);
	s->count = count;
	tlbsim_error_clear(&err);
	if (decode || count) {
		while ((rc = source_next(s, ev, 256, &err)) > 0)
			;
	} else {
		struct eng *e;

		if (tlbsim_sim_create(&cfg, &sim, &err))
			die("sim_create", &err);
		e = &os_of_sim(sim)->eng;
		e->time_phases = o->phases;
		rc = tlbsim_sim_run_batch(sim, source_next, s, &err);
		ph->serial = e->serial_s;
		ph->shareable = e->shareable_s;
		tlbsim_sim_destroy(sim);
	}
	if (rc < 0)
		die(o->trace ? o->trace : o->gen, &err);
	source_close(s);
	dt = bench_now() - t0;
	*cpu = bench_cpu_now() - c0;
	return dt;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of @n sorted values (the mean of the middle two for even @n). */
static double median(const double *v, int n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static json_t *summary(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return json_pack("{s:f, s:f, s:f}", "median", median(v, n), "min", v[0], "max", v[n - 1]);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perf_sim [--decode | --both] [--phases] [--runs 1..%d] [--machine PATH] "
		"[--policy P] [--threads N] [--label TEXT] [--json-append FILE] "
		"TRACE | --gen NAME [--param K=V,...]\n",
		MAX_RUNS);
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {{"decode", no_argument, NULL, 'd'},
						 {"both", no_argument, NULL, 'b'},
						 {"phases", no_argument, NULL, 'f'},
						 {"runs", required_argument, NULL, 'r'},
						 {"machine", required_argument, NULL, 'm'},
						 {"policy", required_argument, NULL, 'p'},
						 {"threads", required_argument, NULL, 't'},
						 {"label", required_argument, NULL, 'l'},
						 {"json-append", required_argument, NULL, 'j'},
						 {"gen", required_argument, NULL, 'g'},
						 {"param", required_argument, NULL, 'P'},
						 {"help", no_argument, NULL, 'h'},
						 {NULL, 0, NULL, 0}};
	int c;

	*o = (struct opts){
	    .runs = 5, .threads = 1, .machine = "models/machines/generic-x86-64.json"};
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
		case 'b':
			if (o->mode != SIMULATE) {
				fprintf(stderr, "perf_sim: --decode and --both exclude each other\n");
				exit(2);
			}
			o->mode = c == 'd' ? DECODE : BOTH;
			break;
		case 'f':
			o->phases = true;
			break;
		case 'r':
			o->runs = atoi(optarg);
			break;
		case 'm':
			o->machine = optarg;
			break;
		case 'p':
			o->policy = optarg;
			break;
		case 't':
			o->threads = atoi(optarg);
			break;
		case 'l':
			o->label = optarg;
			break;
		case 'j':
			o->json_append = optarg;
			break;
		case 'g':
			o->gen = optarg;
			break;
		case 'P':
			o->params = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind < argc)
		o->trace = argv[optind];
	if (!o->trace == !o->gen || o->runs < 1 || o->runs > MAX_RUNS || o->threads < 1) {
		usage(stderr);
		exit(2);
	}
	if (o->phases && (o->mode != SIMULATE || o->threads != 1)) {
		fprintf(stderr, "perf_sim: --phases times one thread's simulation: not with "
				"--decode, --both or --threads N > 1\n");
		exit(2);
	}
	if (!o->label)
		o->label = o->trace ? o->trace : o->gen;
}

/* The timed runs of one mode. */
struct timing {
	double secs[MAX_RUNS], rate[MAX_RUNS], cpu[MAX_RUNS], cpu_rate[MAX_RUNS];
	double serial[MAX_RUNS], shareable[MAX_RUNS], bound[MAX_RUNS]; /* --phases */
};

/* Print @t's line and append its JSON object to --json-append's file. */
static int report(const struct opts *o, const struct tlbsim_machine *m, bool decode,
		  struct timing *t, uint64_t events, uint64_t accesses)
{
	const char *mode = decode ? "decode" : "simulate";
	struct rusage ru;
	json_t *out;
	int rc = 0;

	getrusage(RUSAGE_SELF, &ru);
	out = json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:I, s:I, s:o, s:o, s:o, s:o, s:I}",
			"label", o->label, "mode", mode, "machine", m->name, "policy",
			o->policy ? o->policy : "default", "threads", o->threads, "runs", o->runs,
			"events", (json_int_t)events, "accesses", (json_int_t)accesses, "seconds",
			summary(t->secs, o->runs), "accesses_per_s", summary(t->rate, o->runs),
			"cpu_seconds", summary(t->cpu, o->runs), "accesses_per_cpu_s",
			summary(t->cpu_rate, o->runs), "peak_rss_kib", (json_int_t)ru.ru_maxrss);
	printf("%-30s %-8s %10llu acc %7.2f M acc/s (min %.2f, max %.2f) %7.2f M acc/cpu-s "
	       "%8.3f s rss %ld KiB\n",
	       o->label, mode, (unsigned long long)accesses, median(t->rate, o->runs) / 1e6,
	       t->rate[0] / 1e6, t->rate[o->runs - 1] / 1e6, median(t->cpu_rate, o->runs) / 1e6,
	       median(t->secs, o->runs), ru.ru_maxrss);
	if (o->phases && !decode) {
		double sm, pm;

		/* summary() sorts each: the medians, then the bound of the
		 * medians (what the line shows), and the runs' own bounds */
		json_object_set_new(out, "phases",
				    json_pack("{s:o, s:o, s:o}", "serial_s",
					      summary(t->serial, o->runs), "shareable_s",
					      summary(t->shareable, o->runs), "bound_2_threads_of_runs",
					      summary(t->bound, o->runs)));
		sm = median(t->serial, o->runs);
		pm = median(t->shareable, o->runs);
		json_object_set_new(json_object_get(out, "phases"), "bound_2_threads",
				    json_real(sm + pm > 0 ? (sm + pm) / (sm + pm / 2) : 1));
		printf("%-30s phases   serial %.3f s, shareable %.3f s (medians): 2 threads "
		       "gain at most %.2fx (the runs' own bounds %.2f to %.2f)\n",
		       o->label, sm, pm, sm + pm > 0 ? (sm + pm) / (sm + pm / 2) : 1, t->bound[0],
		       t->bound[o->runs - 1]);
	}
	if (o->json_append) {
		FILE *f = fopen(o->json_append, "a");

		if (!f || json_dumpf(out, f, JSON_COMPACT | JSON_PRESERVE_ORDER) ||
		    fputc('\n', f) == EOF || fclose(f)) {
			perror(o->json_append);
			rc = 2;
		}
	}
	json_decref(out);
	return rc;
}

int main(int argc, char **argv)
{
	/* [0] simulate, [1] decode */
	static struct timing t[2];
	struct tlbsim_machine *m;
	struct tlbsim_error err;
	uint64_t accesses, events;
	struct source s;
	struct opts o;
	double cpu0;
	int rc = 0;

	parse(argc, argv, &o);
	tlbsim_error_clear(&err);
	if (tlbsim_machine_load_file(o.machine, &m, &err))
		die(o.machine, &err);
	/* The accesses are counted in a pass of their own, untimed, so
	 * neither timed loop pays for a scan that tlbsim does not make. */
	run_once(&o, m, &s, true, true, &cpu0, NULL);
	accesses = s.accesses;
	events = s.events;
	for (int i = 0; i < o.runs; i++) {
		for (int k = 0; k < 2; k++) {
			/* --both: simulate first in even runs, decode first in
			 * odd ones, so a steady drift favours neither */
			const bool decode = o.mode == BOTH ? (k ^ (i & 1)) : o.mode == DECODE;
			struct timing *x = &t[decode];

			if (k == 1 && o.mode != BOTH)
				break;
			struct phases ph = {0};
			double all;

			x->secs[i] = run_once(&o, m, &s, decode, false, &x->cpu[i], &ph);
			x->serial[i] = ph.serial;
			x->shareable[i] = ph.shareable;
			/* Amdahl: the serial part, and the shareable one halved */
			all = ph.serial + ph.shareable;
			x->bound[i] = all > 0 ? all / (ph.serial + ph.shareable / 2) : 1;
			if (s.events != events) {
				fprintf(stderr, "perf_sim: run %d read %llu events, the count %llu\n",
					i + 1, (unsigned long long)s.events,
					(unsigned long long)events);
				return 2;
			}
			x->rate[i] = (double)accesses / x->secs[i];
			x->cpu_rate[i] = (double)accesses / x->cpu[i];
		}
	}
	for (int d = 0; d < 2; d++)
		if (o.mode == BOTH || (o.mode == DECODE) == d)
			rc |= report(&o, m, d, &t[d], events, accesses);
	tlbsim_machine_free(m);
	return rc;
}
