/* SPDX-License-Identifier: MIT */
/*
 * tlbsim sweep: many independent runs from one spec (docs/sweep.md).  The
 * spec expands into a manifest of numbered runs (sweep_spec.c), each the
 * arguments of one `tlbsim run`; the runs then go to Slurm as a job array
 * (--slurm: a batch script whose task I runs its runs through
 * `tlbsim sweep --task I`) or run on this machine, N at a time (--local).
 * Both start a run the same way (run_start(), run_finish()): in the sweep
 * directory, its statistics to runs/ID.json (`tlbsim run --json` writes a
 * temporary file and renames it), its standard error kept in runs/ID.err
 * when it fails.  A run whose runs/ID.json exists is done and never run
 * again, so a sweep resumes where it stopped.  tlbsim grows no scheduler:
 * Slurm decides where and when tasks run; --local only keeps N children.
 */
#define _GNU_SOURCE /* sched_getaffinity(), CPU_COUNT() */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/sweep.h"
#include "config/json_read.h"

struct sweep_opts {
	const char *spec;
	const char *dir;
	bool local, slurm, no_submit;
	int jobs;	    /* --local: runs at a time; 0: the cpus */
	long long task;	    /* --task I; -1: none */
	long long per_task; /* --runs-per-task; 0: from the spec, or the default */
	const char *time, *mem, *partition, *account;
	long long max_parallel;
};

static const char sweep_help[] =
    "usage: tlbsim sweep SPEC.json -o DIR [--local [-j N] | --slurm [--no-submit]\n"
    "                    [--time T] [--mem M] [--max-parallel N] [--partition P]\n"
    "                    [--account A] [--runs-per-task K]]\n"
    "       tlbsim sweep --task I -o DIR [--runs-per-task K]\n\n"
    "Expands the axes of SPEC (machines, machine overrides such as cores, policies,\n"
    "workloads with parameter lists, seeds; docs/sweep.md) into numbered runs,\n"
    "written to DIR/manifest.json with the exact 'tlbsim run' arguments of each,\n"
    "then runs them: --local on this machine, N at a time (default: the cpus\n"
    "this process may use), with a progress line; --slurm as a Slurm job array:\n"
    "writes DIR/sweep.sbatch (time, memory, parallel tasks, partition, account\n"
    "from the spec's \"slurm\" or these flags) and submits it with sbatch unless\n"
    "--no-submit, printing the job id.  Without either, only the manifest is\n"
    "written.  Run ID's statistics go to DIR/runs/ID.json; a failed run leaves its\n"
    "standard error in DIR/runs/ID.err.  Runs whose JSON exists are skipped, so\n"
    "the same command resumes an interrupted or partly failed sweep; a DIR\n"
    "holding another sweep is refused.  'tlbsim merge DIR' gathers the results.\n"
    "--task I runs the runs of Slurm array task I (what DIR/sweep.sbatch runs).\n"
    "exit status: 0 every run done (or submitted), 1 some runs failed, 2 usage or\n"
    "input error, 130 interrupted.\n\n"
    "example: tlbsim sweep policies.json -o out/policies --local -j 2\n"
    "         tlbsim merge out/policies\n";

enum {
	OPT_NO_SUBMIT = 256,
	OPT_TIME,
	OPT_MEM,
	OPT_MAX_PARALLEL,
	OPT_PARTITION,
	OPT_ACCOUNT,
	OPT_PER_TASK,
	OPT_TASK
};

static int parse_count(const char *opt, const char *arg, long long min, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(arg, &end, 10);
	if (errno || *end || !*arg || *out < min || *out > INT_MAX)
		return cli_fail("sweep: %s expects a whole number >= %lld, found '%s'", opt, min,
				arg);
	return 0;
}

static int parse(int argc, char **argv, struct sweep_opts *o)
{
	static const struct option longopts[] = {
	    {"local", no_argument, NULL, 'l'},
	    {"slurm", no_argument, NULL, 's'},
	    {"jobs", required_argument, NULL, 'j'},
	    {"no-submit", no_argument, NULL, OPT_NO_SUBMIT},
	    {"time", required_argument, NULL, OPT_TIME},
	    {"mem", required_argument, NULL, OPT_MEM},
	    {"max-parallel", required_argument, NULL, OPT_MAX_PARALLEL},
	    {"partition", required_argument, NULL, OPT_PARTITION},
	    {"account", required_argument, NULL, OPT_ACCOUNT},
	    {"runs-per-task", required_argument, NULL, OPT_PER_TASK},
	    {"task", required_argument, NULL, OPT_TASK},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	long long n;
	int c;

	memset(o, 0, sizeof(*o));
	o->task = -1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:j:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->dir = optarg;
			break;
		case 'l':
			o->local = true;
			break;
		case 's':
			o->slurm = true;
			break;
		case 'j':
			if (parse_count("-j", optarg, 1, &n))
				return CLI_USAGE;
			o->jobs = (int)n;
			break;
		case OPT_NO_SUBMIT:
			o->no_submit = true;
			break;
		case OPT_TIME:
			o->time = optarg;
			break;
		case OPT_MEM:
			o->mem = optarg;
			break;
		case OPT_PARTITION:
			o->partition = optarg;
			break;
		case OPT_ACCOUNT:
			o->account = optarg;
			break;
		case OPT_MAX_PARALLEL:
			if (parse_count("--max-parallel", optarg, 1, &o->max_parallel))
				return CLI_USAGE;
			break;
		case OPT_PER_TASK:
			if (parse_count("--runs-per-task", optarg, 1, &o->per_task))
				return CLI_USAGE;
			break;
		case OPT_TASK:
			if (parse_count("--task", optarg, 0, &o->task))
				return CLI_USAGE;
			break;
		case 'h':
			fputs(sweep_help, stdout);
			exit(CLI_OK);
		default:
			return cli_fail("sweep: unknown or incomplete option '%s' (see --help)",
					argv[optind - 1]);
		}
	}
	if (optind < argc)
		o->spec = argv[optind++];
	if (optind < argc)
		return cli_fail("sweep: one spec at a time, found also '%s'", argv[optind]);
	if (!o->dir)
		return cli_fail("sweep: -o DIR is required (the sweep directory)");
	if (o->task >= 0) {
		if (o->spec || o->local || o->slurm)
			return cli_fail("sweep: --task runs part of DIR's manifest: no SPEC, "
					"--local or --slurm with it");
		return 0;
	}
	if (!o->spec)
		return cli_fail("sweep: give the SPEC.json to expand (see --help)");
	if (o->local && o->slurm)
		return cli_fail("sweep: --local or --slurm, not both");
	if (o->jobs && !o->local)
		return cli_fail("sweep: -j goes with --local");
	if (!o->slurm && (o->no_submit || o->time || o->mem || o->partition || o->account ||
			  o->max_parallel || o->per_task))
		return cli_fail("sweep: --no-submit, --time, --mem, --max-parallel, --partition, "
				"--account and --runs-per-task go with --slurm");
	return 0;
}

/* ---- one run ------------------------------------------------------------------- */

static bool is_done(const char *dir, long long id)
{
	char p[4096];
	struct stat st;

	sweep_result_path(dir, id, "json", p, sizeof(p));
	return !stat(p, &st) && S_ISREG(st.st_mode) && st.st_size > 0;
}

static bool has_arg(json_t *args, const char *a)
{
	size_t i;
	json_t *v;

	json_array_foreach(args, i, v) if (!strcmp(json_string_value(v), a)) return true;
	return false;
}

/* "DIR/runs/ID.err.PID": where a running run's standard error goes. */
static void err_tmp_path(const char *dir, long long id, pid_t pid, char *buf, size_t len)
{
	snprintf(buf, len, "%s/runs/%lld.err.%d", dir, id, (int)pid);
}

/* Start @run of the manifest: `@exe ARGS...` in @dir, stdout to
 * /dev/null, stderr to a temporary file.  The child's pid, or -1. */
static pid_t run_start(const char *exe, const char *dir, json_t *run)
{
	json_t *args = json_object_get(run, "args");
	size_t n = json_array_size(args), i;
	char **argv = calloc(n + 2, sizeof(*argv));
	pid_t pid;

	if (!argv)
		return -1;
	argv[0] = (char *)"tlbsim";
	for (i = 0; i < n; i++)
		argv[i + 1] = (char *)json_string_value(json_array_get(args, i));
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		char err[4096];
		int null = open("/dev/null", O_RDWR), fd;

		/* An ignored signal stays ignored across exec: give the run
		 * its own handling of SIGINT and SIGTERM back. */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		err_tmp_path(dir, json_integer_value(json_object_get(run, "id")), getpid(), err,
			     sizeof(err));
		fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		if (chdir(dir) || fd < 0 || null < 0) {
			dprintf(fd >= 0 ? fd : 2, "tlbsim sweep: cannot start run in %s: %s\n", dir,
				strerror(errno));
			_exit(CLI_USAGE);
		}
		dup2(null, 0);
		dup2(null, 1);
		dup2(fd, 2);
		execv(exe, argv);
		dprintf(2, "tlbsim sweep: cannot run %s: %s\n", exe, strerror(errno));
		_exit(CLI_USAGE);
	}
	free(argv);
	return pid;
}

/*
 * Run @run (child @pid) ended with @status: done when it exited 0 (1 with
 * --check: hazards found is a result) and wrote its JSON.  Otherwise its
 * JSON, if any, is removed (an interrupted run writes partial statistics)
 * and its standard error, with a last line saying how it ended, becomes
 * runs/ID.err.  Returns whether it is done.
 */
static bool run_finish(const char *dir, json_t *run, pid_t pid, int status)
{
	long long id = json_integer_value(json_object_get(run, "id"));
	bool check = has_arg(json_object_get(run, "args"), "--check");
	char tmp[4096], json[4096], err[4096];
	bool ok;

	err_tmp_path(dir, id, pid, tmp, sizeof(tmp));
	sweep_result_path(dir, id, "json", json, sizeof(json));
	sweep_result_path(dir, id, "err", err, sizeof(err));
	ok = WIFEXITED(status) &&
	     (WEXITSTATUS(status) == CLI_OK || (check && WEXITSTATUS(status) == CLI_HAZARDS)) &&
	     is_done(dir, id);
	if (ok) {
		unlink(tmp);
		unlink(err);
		return true;
	}
	unlink(json);
	{
		FILE *f = fopen(tmp, "a");

		if (f) {
			if (WIFSIGNALED(status))
				fprintf(f, "tlbsim sweep: run %lld was killed by signal %d\n", id,
					WTERMSIG(status));
			else if (WEXITSTATUS(status) == CLI_INTERRUPTED)
				fprintf(f,
					"tlbsim sweep: run %lld was interrupted (exit status "
					"130); its partial statistics were removed\n",
					id);
			else
				fprintf(f, "tlbsim sweep: run %lld exited with status %d%s\n", id,
					WEXITSTATUS(status),
					WEXITSTATUS(status) ? "" : " without writing its JSON");
			fclose(f);
		}
	}
	if (rename(tmp, err))
		fprintf(stderr,
			"tlbsim: sweep: run %lld failed; cannot keep its stderr in %s: %s\n", id,
			err, strerror(errno));
	return false;
}

/* The first line of @path, for messages. */
static void first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (f) {
		if (fgets(buf, (int)len, f))
			buf[strcspn(buf, "\n")] = 0;
		fclose(f);
	}
}

/* The path of this executable, which the runs and the batch script use. */
static int self_exe(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	if (n <= 0 || (size_t)n >= len - 1)
		return cli_fail("sweep: cannot find the tlbsim executable (/proc/self/exe): %s",
				strerror(errno));
	buf[n] = 0;
	return 0;
}

/* ---- SIGINT, SIGTERM ------------------------------------------------------------ */

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

/* Signals stop the sweep: no new run starts, running ones finish as they
 * are told (they got the signal too, or are sent SIGTERM), and are
 * cleaned up. */
static void catch_stop(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* ---- --local ---------------------------------------------------------------------- */

struct slot {
	pid_t pid;
	json_t *run;
};

struct progress {
	size_t total, done_before, done, failed, running;
	double started;
	double last;
	bool tty;
	size_t last_decile;
};

static void print_progress(struct progress *p, bool final)
{
	double el = cli_now() - p->started;
	size_t finished = p->done - p->done_before + p->failed;
	size_t left = p->total - p->done - p->failed;
	size_t decile = p->total ? (p->done + p->failed) * 10 / p->total : 10;

	/* Not a terminal (a log): a line at each tenth, and the last. */
	if (!p->tty && !final && (decile == p->last_decile || decile == 10))
		return;
	if (p->tty && !final && el - p->last < 0.2)
		return;
	p->last = el;
	p->last_decile = decile;
	fprintf(stderr, "%ssweep: %zu/%zu done, %zu running, %zu failed, %.1f s",
		p->tty ? "\r" : "", p->done, p->total, p->running, p->failed, el);
	if (finished && left && !final)
		fprintf(stderr, ", about %.0f s left", el / (double)finished * (double)left);
	fprintf(stderr, "%s", p->tty && !final ? "   " : "\n");
}

static int cpus(void)
{
	cpu_set_t set;

	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	return (int)sysconf(_SC_NPROCESSORS_ONLN) > 0 ? (int)sysconf(_SC_NPROCESSORS_ONLN) : 1;
}

/* The most host threads a run asks for (--threads). */
static long long max_threads(json_t *runs)
{
	long long t = 1;
	size_t i, k;
	json_t *r, *a;

	json_array_foreach(runs, i, r)
	{
		json_t *args = json_object_get(r, "args");

		json_array_foreach(args, k, a) if (!strcmp(json_string_value(a), "--threads"))
		{
			long long n = atoll(json_string_value(json_array_get(args, k + 1)));

			if (n > t)
				t = n;
		}
	}
	return t;
}

/* Wait for one of @slots; returns its index, or -1 (interrupted, none left). */
static int wait_slot(struct slot *slots, int n, int *status)
{
	for (;;) {
		pid_t pid = waitpid(-1, status, 0);

		if (pid < 0 && errno == EINTR) {
			if (stop_signal)
				for (int i = 0; i < n; i++)
					if (slots[i].pid > 0)
						kill(slots[i].pid, SIGTERM);
			continue;
		}
		if (pid < 0)
			return -1;
		for (int i = 0; i < n; i++)
			if (slots[i].pid == pid)
				return i;
	}
}

/* Report failed run @id on stderr (its .err's first line). */
static void report_failure(const char *dir, long long id, bool tty)
{
	char err[4096], line[512];

	sweep_result_path(dir, id, "err", err, sizeof(err));
	first_line(err, line, sizeof(line));
	fprintf(stderr, "%stlbsim: sweep: run %lld failed: %s (%s)\n", tty ? "\r" : "", id, line,
		err);
}

static int run_local(const struct sweep_opts *o, const char *exe, json_t *manifest)
{
	json_t *runs = json_object_get(manifest, "runs");
	struct progress p = {.total = json_array_size(runs),
			     .started = cli_now(),
			     .tty = isatty(2),
			     .last_decile = (size_t)-1};
	int n = o->jobs, status;
	struct slot *slots;
	size_t next = 0, i;

	if (!n) {
		/* Each run takes --threads cpus. */
		n = (int)(cpus() / max_threads(runs));
		n = n < 1 ? 1 : n;
	}
	for (i = 0; i < p.total; i++)
		p.done += is_done(o->dir, (long long)i);
	p.done_before = p.done;
	slots = calloc((size_t)n, sizeof(*slots));
	if (!slots)
		return cli_fail("out of memory");
	catch_stop();
	for (;;) {
		int k;

		/* Fill the free slots with the next runs not done. */
		for (k = 0; k < n && !stop_signal; k++) {
			if (slots[k].pid > 0)
				continue;
			while (next < p.total && is_done(o->dir, (long long)next))
				next++;
			if (next == p.total)
				break;
			slots[k].run = json_array_get(runs, next++);
			slots[k].pid = run_start(exe, o->dir, slots[k].run);
			if (slots[k].pid < 0) {
				free(slots);
				return cli_fail("sweep: cannot start a run: %s", strerror(errno));
			}
			p.running++;
		}
		if (!p.running)
			break;
		print_progress(&p, false);
		k = wait_slot(slots, n, &status);
		if (k < 0)
			break;
		p.running--;
		if (run_finish(o->dir, slots[k].run, slots[k].pid, status)) {
			p.done++;
		} else {
			p.failed++;
			if (!stop_signal)
				report_failure(
				    o->dir, json_integer_value(json_object_get(slots[k].run, "id")),
				    p.tty);
		}
		slots[k].pid = 0;
	}
	free(slots);
	print_progress(&p, true);
	if (stop_signal)
		return CLI_INTERRUPTED;
	if (p.failed)
		fprintf(stderr,
			"tlbsim: sweep: %zu of %zu runs failed (their stderr: %s/runs/ID.err); "
			"the same command runs them again\n",
			p.failed, p.total, o->dir);
	return p.failed ? CLI_HAZARDS : CLI_OK;
}

/* ---- --task ----------------------------------------------------------------------- */

/* Runs the runs of Slurm array task @o->task, one after the other. */
static int run_task(const struct sweep_opts *o, const char *exe)
{
	json_t *manifest, *runs;
	long long k = o->per_task ? o->per_task : 1, first = o->task * k, id, n;
	int failed = 0, rc;

	if ((rc = sweep_manifest_load(o->dir, &manifest)))
		return rc;
	runs = json_object_get(manifest, "runs");
	n = (long long)json_array_size(runs);
	if (first >= n) {
		json_decref(manifest);
		return cli_fail("sweep: --task %lld: the manifest has %lld runs (%lld a task)",
				o->task, n, k);
	}
	/* Slurm sends SIGTERM at the time limit and at scancel: the run
	 * writes its partial statistics and ends, and is cleaned up here. */
	catch_stop();
	for (id = first; id < first + k && id < n && !stop_signal; id++) {
		json_t *run = json_array_get(runs, (size_t)id);
		pid_t pid;
		int status;

		if (is_done(o->dir, id))
			continue;
		pid = run_start(exe, o->dir, run);
		if (pid < 0) {
			json_decref(manifest);
			return cli_fail("sweep: cannot start run %lld: %s", id, strerror(errno));
		}
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR) {
				status = W_EXITCODE(CLI_USAGE, 0);
				break;
			}
		if (!run_finish(o->dir, run, pid, status)) {
			failed++;
			report_failure(o->dir, id, false);
		}
	}
	json_decref(manifest);
	if (stop_signal)
		return CLI_INTERRUPTED;
	return failed ? CLI_HAZARDS : CLI_OK;
}

/* ---- --slurm ---------------------------------------------------------------------- */

/* @s can be written in an #SBATCH line and an output pattern as it is. */
static bool slurm_safe(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || strchr("'\"\\%$`", *s) || *s == 0x7f)
			return false;
	return true;
}

/* @s in single quotes for sh. */
static void sh_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}

/* A setting: the flag, else the spec's "slurm" member @key, else NULL. */
static const char *setting(const char *flag, json_t *manifest, const char *key)
{
	return flag ? flag
		    : json_string_value(json_object_get(json_object_get(manifest, "slurm"), key));
}

static long long setting_int(long long flag, json_t *manifest, const char *key)
{
	return flag ? flag
		    : json_integer_value(json_object_get(json_object_get(manifest, "slurm"), key));
}

/* The tasks (of @k runs each) with runs left, as an --array list
 * ("0-11", "3,7-9"); how many in *@ntasks. */
static char *array_list(const char *dir, size_t nruns, long long k, size_t *ntasks)
{
	size_t ntask = (nruns + (size_t)k - 1) / (size_t)k, t, len = 0, cap = 64;
	char *s = malloc(cap);
	long long start = -1;

	*ntasks = 0;
	if (!s)
		return NULL;
	s[0] = 0;
	for (t = 0; t <= ntask; t++) {
		bool left = false;

		for (size_t id = t * (size_t)k; t < ntask && id < (t + 1) * (size_t)k && id < nruns;
		     id++)
			left = left || !is_done(dir, (long long)id);
		if (left) {
			(*ntasks)++;
			if (start < 0)
				start = (long long)t;
			continue;
		}
		if (start < 0)
			continue;
		if (len + 48 > cap) {
			char *b = realloc(s, cap *= 2);

			if (!b) {
				free(s);
				return NULL;
			}
			s = b;
		}
		if (start == (long long)t - 1)
			len += (size_t)sprintf(s + len, "%s%lld", len ? "," : "", start);
		else
			len += (size_t)sprintf(s + len, "%s%lld-%zu", len ? "," : "", start, t - 1);
		start = -1;
	}
	return s;
}

/* DIR/sweep.sbatch for the tasks in @array; the text in *@out (free()). */
static char *batch_script(const struct sweep_opts *o, const char *exe, const char *absdir,
			  json_t *manifest, const char *array, long long k, size_t nruns)
{
	const char *name = json_string_value(json_object_get(manifest, "name"));
	json_t *extra = json_object_get(json_object_get(manifest, "slurm"), "sbatch"), *x;
	char safe[128];
	long long maxp = setting_int(o->max_parallel, manifest, "max_parallel");
	const char *v;
	char *text = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	/* The name goes into a comment and the job name: no line end, no
	 * quote, nothing the shell or sbatch would read. */
	for (i = 0; name[i] && i + 1 < sizeof(safe); i++)
		safe[i] =
		    strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-",
			   name[i])
			? name[i]
			: '_';
	safe[i] = 0;
	fprintf(f,
		"#!/bin/sh\n"
		"# tlbsim sweep '%s': %zu runs of the manifest beside this script as a\n"
		"# Slurm job array, written by 'tlbsim sweep --slurm' (docs/sweep.md).\n"
		"# Task I runs runs K*I .. K*I+K-1, K = %lld, each as 'tlbsim run' with\n"
		"# the manifest's arguments in this directory, skipping those whose\n"
		"# runs/ID.json exists; a failed run leaves runs/ID.err.  The array\n"
		"# lists the tasks that had runs left when it was written.\n",
		safe, nruns, k);
	fprintf(f, "#SBATCH --job-name=tlbsim-%s\n#SBATCH --array=%s", safe, array);
	if (maxp)
		fprintf(f, "%%%lld", maxp);
	fprintf(f, "\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=%lld\n",
		max_threads(json_object_get(manifest, "runs")));
	if ((v = setting(o->time, manifest, "time")))
		fprintf(f, "#SBATCH --time=%s\n", v);
	if ((v = setting(o->mem, manifest, "mem")))
		fprintf(f, "#SBATCH --mem=%s\n", v);
	if ((v = setting(o->partition, manifest, "partition")))
		fprintf(f, "#SBATCH --partition=%s\n", v);
	if ((v = setting(o->account, manifest, "account")))
		fprintf(f, "#SBATCH --account=%s\n", v);
	fprintf(f, "#SBATCH --output=%s/slurm/%%A_%%a.out\n", absdir);
	json_array_foreach(extra, i, x) fprintf(f, "#SBATCH %s\n", json_string_value(x));
	fputs("# Threads that wait sleep: a cluster node is shared.\n"
	      "OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}\nexport OMP_WAIT_POLICY\nexec ",
	      f);
	sh_quote(f, exe);
	fprintf(f, " sweep --task \"$SLURM_ARRAY_TASK_ID\" --runs-per-task %lld -o ", k);
	sh_quote(f, absdir);
	fputc('\n', f);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

/* sbatch --parsable SCRIPT: the job id printed, or CLI_USAGE. */
static int submit(const char *script, char *jobid, size_t len)
{
	int pipefd[2], status = -1;
	ssize_t n;
	size_t got = 0;
	pid_t pid;

	if (pipe(pipefd))
		return cli_fail("sweep: pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 1);
		close(pipefd[0]);
		close(pipefd[1]);
		execlp("sbatch", "sbatch", "--parsable", script, (char *)NULL);
		dprintf(2,
			"tlbsim: sweep: cannot run sbatch: %s (Slurm's client commands: Debian "
			"package slurm-client)\n",
			strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	while (pid > 0 && got + 1 < len &&
	       ((n = read(pipefd[0], jobid + got, len - 1 - got)) > 0 || (n < 0 && errno == EINTR)))
		got += n > 0 ? (size_t)n : 0;
	close(pipefd[0]);
	jobid[got] = 0;
	jobid[strcspn(jobid, ";\n")] = 0; /* "ID;CLUSTER" on a federation */
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) || !jobid[0])
		return cli_fail("sweep: sbatch %s failed (exit status %d)", script,
				WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}

static int run_slurm(const struct sweep_opts *o, const char *exe, json_t *manifest)
{
	size_t nruns = json_array_size(json_object_get(manifest, "runs")), ntasks;
	/* Slurm's default MaxArraySize is 1001 (indices 0..1000): at most
	 * 1000 tasks unless the spec or --runs-per-task says otherwise. */
	long long k = setting_int(o->per_task, manifest, "runs_per_task");
	char absdir[4096], script[4200], jobid[128];
	char *array, *text;
	int rc;

	if (!k)
		k = (long long)((nruns + 999) / 1000);
	static const char *const keys[] = {"time", "mem", "partition", "account"};
	const char *flags[] = {o->time, o->mem, o->partition, o->account};

	for (unsigned i = 0; i < 4; i++) {
		const char *v = setting(flags[i], manifest, keys[i]);

		if (v && (!*v || !slurm_safe(v)))
			return cli_fail("sweep: --%s '%s': expected a Slurm value without blanks, "
					"quotes, '\\', '%%', '$' or '`'",
					keys[i], v);
	}
	if (!realpath(o->dir, absdir))
		return cli_fail("%s: %s", o->dir, strerror(errno));
	if (!slurm_safe(absdir))
		return cli_fail("sweep: --slurm: the path %s has a character an #SBATCH line or "
				"Slurm's output pattern would misread (a blank, a quote, '\\', "
				"'%%', '$' or '`'); use another directory",
				absdir);
	array = array_list(o->dir, nruns, k, &ntasks);
	if (!array)
		return cli_fail("out of memory");
	if (!ntasks) {
		free(array);
		printf("sweep: all %zu runs are done; nothing to submit ('tlbsim merge %s')\n",
		       nruns, o->dir);
		return CLI_OK;
	}
	text = batch_script(o, exe, absdir, manifest, array, k, nruns);
	free(array);
	if (!text)
		return cli_fail("out of memory");
	snprintf(script, sizeof(script), "%s/sweep.sbatch", absdir);
	rc = cli_write_file(script, text, strlen(text));
	free(text);
	if (rc)
		return rc;
	if (o->no_submit) {
		printf("sweep: wrote %s (%zu tasks); submit it with: sbatch %s\n", script, ntasks,
		       script);
		return CLI_OK;
	}
	if ((rc = submit(script, jobid, sizeof(jobid))))
		return rc;
	printf("%s\n", jobid);
	fprintf(stderr,
		"sweep: submitted Slurm job %s: %zu array tasks of %lld runs at most "
		"(%s); 'tlbsim merge %s' when it is done\n",
		jobid, ntasks, k, script, o->dir);
	return CLI_OK;
}

/* ---- the directory ---------------------------------------------------------------- */

/* @path and the directories above it that are missing (mkdir -p: the
 * README's "-o out/study" on a fresh tree). */
static int make_dir(const char *path)
{
	char buf[4096];
	size_t n = strlen(path);

	if (n >= sizeof(buf))
		return cli_fail("%s: the directory's name is too long", path);
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0777) && errno != EEXIST)
			return cli_fail("%s: cannot create the directory: %s", buf, strerror(errno));
		*p = '/';
	}
	if (!mkdir(path, 0777) || errno == EEXIST)
		return 0;
	return cli_fail("%s: cannot create the directory: %s", path, strerror(errno));
}

/* Is @dir absent or an empty directory (a new sweep may go there)? */
static bool is_empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool empty = true;

	if (!d)
		return errno == ENOENT;
	while (empty && (de = readdir(d)))
		empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
	closedir(d);
	return empty;
}

/* Does the file @path hold exactly @text? */
static bool same_file(const char *path, const char *text)
{
	char *cur = NULL;
	size_t len;
	bool same;

	if (jr_read_file(path, 64 << 20, &cur, &len, NULL))
		return false;
	same = len == strlen(text) && !memcmp(cur, text, len);
	free(cur);
	return same;
}

/*
 * Write the manifest and machine files into @o->dir, or check that the
 * sweep already there is this one (then its results are kept: resuming).
 */
static int prepare_dir(const struct sweep_opts *o, json_t *manifest, json_t *machines)
{
	char path[4096];
	json_t *old = NULL, *v;
	const char *k;
	char *text;
	int rc;

	snprintf(path, sizeof(path), "%s/manifest.json", o->dir);
	if (!access(path, F_OK)) {
		if ((rc = sweep_manifest_load(o->dir, &old)))
			return rc;
		if (!json_equal(json_object_get(old, "runs"), json_object_get(manifest, "runs"))) {
			size_t i, n = json_array_size(json_object_get(old, "runs"));

			for (i = 0;
			     i < n &&
			     json_equal(json_array_get(json_object_get(old, "runs"), i),
					json_array_get(json_object_get(manifest, "runs"), i));
			     i++)
				;
			json_decref(old);
			return cli_fail(
			    "%s holds another sweep: its run %zu is not the spec's (a "
			    "changed spec, machine or trace path); give a new directory",
			    o->dir, i);
		}
		json_decref(old);
		json_object_foreach(machines, k, v)
		{
			snprintf(path, sizeof(path), "%s/%s", o->dir, k);
			if (!same_file(path, json_string_value(v)))
				return cli_fail(
				    "%s differs from the machine the spec makes now (its "
				    "model changed?): the results in %s would mix the "
				    "two; give a new directory",
				    path, o->dir);
		}
	} else if (!is_empty_dir(o->dir)) {
		return cli_fail(
		    "%s exists and is no sweep directory (no manifest.json): give a new "
		    "or empty directory",
		    o->dir);
	}
	if ((rc = make_dir(o->dir)))
		return rc;
	snprintf(path, sizeof(path), "%s/machines", o->dir);
	if ((rc = make_dir(path)))
		return rc;
	snprintf(path, sizeof(path), "%s/runs", o->dir);
	if ((rc = make_dir(path)))
		return rc;
	snprintf(path, sizeof(path), "%s/slurm", o->dir);
	if ((rc = make_dir(path)))
		return rc;
	json_object_foreach(machines, k, v)
	{
		snprintf(path, sizeof(path), "%s/%s", o->dir, k);
		if ((rc = cli_write_file(path, json_string_value(v), json_string_length(v))))
			return rc;
	}
	/* The manifest last: its presence says the directory is complete. */
	text = json_dumps(manifest, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	if (!text)
		return cli_fail("out of memory");
	snprintf(path, sizeof(path), "%s/manifest.json", o->dir);
	rc = cli_write_file(path, text, strlen(text));
	free(text);
	return rc;
}

int cmd_sweep(int argc, char **argv)
{
	json_t *manifest = NULL, *machines = NULL;
	struct sweep_opts o;
	char exe[4096];
	size_t nruns, done = 0, failed = 0, i;
	int rc = parse(argc, argv, &o);

	if (rc || (rc = self_exe(exe, sizeof(exe))))
		return rc;
	if (o.task >= 0)
		return run_task(&o, exe);
	if ((rc = sweep_spec_expand(o.spec, &manifest, &machines)))
		return rc;
	rc = prepare_dir(&o, manifest, machines);
	json_decref(machines);
	if (rc)
		goto out;
	nruns = json_array_size(json_object_get(manifest, "runs"));
	for (i = 0; i < nruns; i++) {
		char err[4096];

		sweep_result_path(o.dir, (long long)i, "err", err, sizeof(err));
		done += is_done(o.dir, (long long)i);
		failed += !access(err, F_OK);
	}
	fprintf(stderr, "sweep %s: %zu runs, %zu done, %zu failed before",
		json_string_value(json_object_get(manifest, "name")), nruns, done, failed);
	if (json_integer_value(json_object_get(manifest, "skipped_isa")))
		fprintf(stderr,
			"; %lld pairs of a machine and a policy or trace of another ISA left out",
			(long long)json_integer_value(json_object_get(manifest, "skipped_isa")));
	if (json_integer_value(json_object_get(manifest, "excluded")))
		fprintf(stderr, "; %lld runs excluded",
			(long long)json_integer_value(json_object_get(manifest, "excluded")));
	fprintf(stderr, " (%s/manifest.json)\n", o.dir);
	if (o.local)
		rc = run_local(&o, exe, manifest);
	else if (o.slurm)
		rc = run_slurm(&o, exe, manifest);
out:
	json_decref(manifest);
	return rc;
}
