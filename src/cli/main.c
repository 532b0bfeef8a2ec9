/* SPDX-License-Identifier: MIT */
/*
 * The tlbsim command: dispatch to subcommands, and what they share (error
 * printing, atomic output files, the event source, SIGINT).
 */
#define _XOPEN_SOURCE 700 /* realpath() */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

int cli_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("tlbsim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CLI_USAGE;
}

int cli_fail_err(const struct tlbsim_error *err)
{
	char msg[1024];

	tlbsim_error_format(err, msg, sizeof(msg));
	fprintf(stderr, "tlbsim: %s\n", msg);
	return CLI_USAGE;
}

int cli_fail_run_err(struct tlbsim_error *err, const char *path,
		     const struct tlbsim_trace_opts *opts)
{
	int rc = path && strcmp(path, "-") ? tlbsim_trace_locate(path, opts, err) : -TLBSIM_EINVAL;

	/* Not located (no event named, a generator, standard input, a trace
	 * changed since): the message has the event index alone. */
	(void)rc;
	return cli_fail_err(err);
}

size_t cli_appendf(char *buf, size_t len, size_t used, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(used < len ? buf + used : NULL, used < len ? len - used : 0, fmt, ap);
	va_end(ap);
	return used + (n > 0 ? (size_t)n : 0);
}

double cli_now(void)
{
	return rep_now();
}

/* Write all of @data to @fd; 0 or an errno value. */
static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

int cli_write_file(const char *path, const char *data, size_t len)
{
	char tmp[4096], target[4096];
	struct stat st;
	mode_t mask;
	int fd, e;

	if (!strcmp(path, "-"))
		return fwrite(data, 1, len, stdout) == len ? 0 : cli_fail("-: cannot write");
	/* Write through a symbolic link, to what it names. */
	if (!lstat(path, &st) && S_ISLNK(st.st_mode) && realpath(path, target))
		path = target;
	/* A device, FIFO or socket is written in place, never replaced. */
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		fd = open(path, O_WRONLY);
		if (fd < 0)
			return cli_fail("%s: cannot open: %s", path, strerror(errno));
		e = write_all(fd, data, len);
		close(fd);
		return e ? cli_fail("%s: cannot write: %s", path, strerror(e)) : 0;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >= (int)sizeof(tmp))
		return cli_fail("%s: path too long", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return cli_fail("%s: cannot create a temporary file: %s", path, strerror(errno));
	/* mkstemp() makes 0600; give the file what open(0666) would. */
	mask = umask(0);
	umask(mask);
	e = fchmod(fd, 0666 & ~mask) ? errno : 0;
	if (!e)
		e = write_all(fd, data, len);
	if (!e && fsync(fd))
		e = errno;
	if (close(fd) && !e)
		e = errno;
	if (!e && rename(tmp, path))
		e = errno;
	if (e) {
		unlink(tmp);
		return cli_fail("%s: cannot write: %s", path, strerror(e));
	}
	return 0;
}

/* Can @path be written (its directory exists)?  Checked before a long run. */
int cli_check_output(const char *path)
{
	char dir[4096];
	const char *slash;

	if (!path || !strcmp(path, "-"))
		return 0;
	slash = strrchr(path, '/');
	if (!slash)
		return access(".", W_OK) ? cli_fail("%s: the current directory is not writable", path) : 0;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path + (slash == path)), path);
	if (access(dir, W_OK))
		return cli_fail("%s: cannot write into %s: %s", path, dir, strerror(errno));
	return 0;
}

/* ---- SIGINT, SIGTERM ------------------------------------------------------------ */

/*
 * Both signals stop a run at its next engine window (tlbsim_sim_stop() only
 * stores to a lock-free atomic: async-signal-safe); the command then
 * writes the statistics so far, marked partial, through a temporary file
 * and a rename, and exits 130 (CLI_INTERRUPTED).  SIGTERM is what a batch
 * system or timeout(1) sends: it deserves the same partial results.
 */

/* The simulations running (tlbsim compare runs several at once). */
#define MAX_RUNNING 64
static tlbsim_sim *_Atomic running_sims[MAX_RUNNING];
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
	for (unsigned i = 0; i < MAX_RUNNING; i++) {
		tlbsim_sim *s = atomic_load(&running_sims[i]);

		if (s)
			tlbsim_sim_stop(s);
	}
}

void cli_sigint_add(tlbsim_sim *sim)
{
	for (unsigned i = 0; i < MAX_RUNNING; i++) {
		tlbsim_sim *none = NULL;

		if (atomic_compare_exchange_strong(&running_sims[i], &none, sim))
			break;
	}
	/* stopped before it was registered: stop it now */
	if (interrupted)
		tlbsim_sim_stop(sim);
	cli_catch_sigint(NULL);
}

void cli_sigint_remove(tlbsim_sim *sim)
{
	for (unsigned i = 0; i < MAX_RUNNING; i++) {
		tlbsim_sim *me = sim;

		if (atomic_compare_exchange_strong(&running_sims[i], &me, NULL))
			break;
	}
}

void cli_catch_sigint(tlbsim_sim *sim)
{
	struct sigaction sa;

	if (sim)
		cli_sigint_add(sim);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

bool cli_interrupted(void)
{
	return interrupted;
}

/* ---- event sources ------------------------------------------------------------ */

int cli_trace_opt(const char *cmd, const char *opt, const char *arg,
		  struct tlbsim_trace_opts *o)
{
	char *end;

	if (!strcmp(opt, "format")) {
		if (tlbsim_trace_format_find(arg, &o->format))
			return cli_fail("%s: --format expects text, binary, lackey, champsim, "
					"execlog, insn or auto, found '%s'",
					cmd, arg);
		return 0;
	}
	if (!strcmp(opt, "isa")) {
		if (!strcmp(arg, "x86-64"))
			o->isa = TLBSIM_ISA_X86_64;
		else if (!strcmp(arg, "arm64"))
			o->isa = TLBSIM_ISA_ARM64;
		else
			return cli_fail("%s: --isa expects x86-64 or arm64, found '%s'", cmd, arg);
		return 0;
	}
	errno = 0;
	o->linear_map = strtoull(arg, &end, 0);
	if (errno || *end || !*arg || arg[0] == '-')
		return cli_fail("%s: --linear-map expects an address (kernel VA of PA 0), found '%s'",
				cmd, arg);
	o->has_linear_map = 1;
	return 0;
}

int cli_source_open_trace(struct cli_source *s, const char *path,
			  const struct tlbsim_trace_opts *opts)
{
	struct tlbsim_error err;

	memset(s, 0, sizeof(*s));
	tlbsim_error_clear(&err);
	if (!strcmp(path, "-") ? tlbsim_trace_open_opts(NULL, stdin, "<stdin>", opts, &s->trace, &err)
			       : tlbsim_trace_open_opts(path, NULL, NULL, opts, &s->trace, &err))
		return cli_fail_err(&err);
	s->what = path;
	{
		struct stat st;

		if (strcmp(path, "-") && !stat(path, &st) && S_ISREG(st.st_mode))
			s->size = (uint64_t)st.st_size;
	}
	return 0;
}

int cli_source_open_gen(struct cli_source *s, const char *name, const char *params,
			enum tlbsim_isa isa, const char *tpl)
{
	struct tlbsim_error err;

	memset(s, 0, sizeof(*s));
	tlbsim_error_clear(&err);
	if ((tpl && tlbsim_template_load(tpl, &s->tpl, &err)) ||
	    tlbsim_gen_create_with(name, params, isa, &s->tpl, s->tpl ? 1 : 0, &s->gen, &err)) {
		tlbsim_template_destroy(s->tpl);
		s->tpl = NULL;
		return cli_fail_err(&err);
	}
	s->what = name;
	return 0;
}

void cli_source_progress(struct cli_source *s, bool quiet, const tlbsim_sim *sim)
{
	rep_progress_start(&s->meter, s->what, quiet);
	s->sim = sim;
}

double cli_source_fraction(const struct cli_source *s)
{
	if (!s->trace || !s->size)
		return -1;
	return (double)tlbsim_trace_bytes_read(s->trace) / (double)s->size;
}

double cli_sim_seconds(const tlbsim_sim *sim)
{
	struct tlbsim_stats st;

	return sim && !tlbsim_sim_stats(sim, &st, sizeof(st)) ? st.seconds : -1;
}

int cli_source_next(void *arg, struct tlbsim_event *ev, struct tlbsim_error *err)
{
	return cli_source_next_batch(arg, ev, 1, err);
}

/* A generator's events, up to @max (generators cannot fail once made:
 * tlbsim_gen_next() returns 1 or 0, include/tlbsim/gen.h). */
static int gen_batch(struct cli_source *s, struct tlbsim_event *ev, size_t max)
{
	size_t n = 0;

	while (n < max && tlbsim_gen_next(s->gen, &ev[n], NULL) > 0)
		n++;
	return (int)n;
}

int cli_source_next_batch(void *arg, struct tlbsim_event *ev, size_t max, struct tlbsim_error *err)
{
	struct cli_source *s = arg;
	int rc;

	rc = s->trace ? tlbsim_trace_next_batch(s->trace, ev, max, err) : gen_batch(s, ev, max);
	if (rc > 0) {
		/* Progress each time the count passes a multiple of 65536. */
		if (((s->events + (uint64_t)rc) >> 16) != (s->events >> 16)) {
			uint64_t n = s->events + (uint64_t)rc;

			if (s->meter.on)
				rep_progress_update(&s->meter, n, 0, cli_source_fraction(s),
						    cli_sim_seconds(s->sim));
			if (s->report) {
				atomic_store_explicit(&s->report->events, n, memory_order_relaxed);
				if (s->trace)
					atomic_store_explicit(&s->report->bytes,
							      tlbsim_trace_bytes_read(s->trace),
							      memory_order_relaxed);
				if (s->sim)
					atomic_store_explicit(
					    &s->report->sim_ns,
					    (uint64_t)(cli_sim_seconds(s->sim) * 1e9),
					    memory_order_relaxed);
			}
		}
		s->events += (uint64_t)rc;
	}
	return rc;
}

void cli_source_close(struct cli_source *s)
{
	rep_progress_end(&s->meter);
	tlbsim_trace_close(s->trace);
	tlbsim_gen_destroy(s->gen);
	tlbsim_template_destroy(s->tpl);
	memset(s, 0, sizeof(*s));
}

/* ---- list, version, help ---------------------------------------------------------- */

static void print_machine(void *arg, const char *name, const char *path)
{
	struct tlbsim_machine *m = NULL;

	(void)arg;
	if (tlbsim_machine_load_file(path, &m, NULL)) {
		printf("  %-18s (invalid: %s)\n", name, path);
		return;
	}
	printf("  %-18s %-7s %4u cpus %5.2f GHz  %s\n", name, tlbsim_isa_name(m->isa), m->nr_cpus,
	       m->freq_ghz, path);
	tlbsim_machine_free(m);
}

/*
 * A generator parameter's value as it may be typed back: sizes in bytes
 * with the largest K, M or G suffix (x 2^10, 2^20, 2^30) that divides
 * them, other values from 1M on too (1 << 40 loops is 1024G).
 */
static void gen_value(uint64_t v, const char *unit, char *buf, size_t len)
{
	static const char suffix[] = "GMK";
	uint64_t from = !strcmp(unit, "bytes") ? 1024 : 1u << 20;

	for (int s = 0; s < 3; s++) {
		unsigned shift = 30 - 10 * (unsigned)s;

		if (v >= from && v >= (UINT64_C(1) << shift) &&
		    !(v & ((UINT64_C(1) << shift) - 1))) {
			snprintf(buf, len, "%llu%c", (unsigned long long)(v >> shift), suffix[s]);
			return;
		}
	}
	snprintf(buf, len, "%llu", (unsigned long long)v);
}

/* One parameter row; @w: the widths of the name, default, range and unit. */
static void gen_param_row(const struct tlbsim_gen_param *p, const int *w)
{
	char def[32], min[32], max[32], range[72];

	gen_value(p->def, p->unit, def, sizeof(def));
	gen_value(p->min, p->unit, min, sizeof(min));
	gen_value(p->max, p->unit, max, sizeof(max));
	snprintf(range, sizeof(range), "%s..%s", min, max);
	printf("      %-*s  %-*s  %-*s  %-*s  %s\n", w[0], p->name, w[1], def, w[2], range, w[3],
	       p->unit, p->help);
}

/*
 * Every generator, its parameters in aligned columns (name, default,
 * range, unit, meaning) and the seed every generator takes, with the
 * syntax of values.
 */
/* A generator's notes, "    notes: " then words filled to 79 columns,
 * later lines indented under the first word. */
static void print_notes(const char *text)
{
	const char *lead = "    notes: ";
	const int indent = (int)strlen(lead), width = 79;
	int col = indent;

	fputs(lead, stdout);
	while (*text) {
		int n = 0;

		while (*text == ' ')
			text++;
		while (text[n] && text[n] != ' ')
			n++;
		if (!n)
			break;
		if (col > indent && col + 1 + n > width) {
			printf("\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			putchar(' ');
			col++;
		}
		printf("%.*s", n, text);
		col += n;
		text += n;
	}
	putchar('\n');
}

static void print_generators(void)
{
	/* The header and the seed's row count for the widths too. */
	static const char *const head[4] = {"param", "default", "range", "unit"};
	static const char seed_range[] = "0..2^64-1";
	const struct tlbsim_generator *g;
	int w[4];
	unsigned i, k;

	for (k = 0; k < 4; k++)
		w[k] = (int)strlen(head[k]);
	w[2] = (int)sizeof(seed_range) - 1 > w[2] ? (int)sizeof(seed_range) - 1 : w[2];
	/* Widths over every generator, so that all the tables line up. */
	for (i = 0; (g = tlbsim_generator_at(i)); i++)
		for (k = 0; k < g->nr_params; k++) {
			const struct tlbsim_gen_param *p = &g->params[k];
			char v[3][32];
			int n[4];

			gen_value(p->def, p->unit, v[0], sizeof(v[0]));
			gen_value(p->min, p->unit, v[1], sizeof(v[1]));
			gen_value(p->max, p->unit, v[2], sizeof(v[2]));
			n[0] = (int)strlen(p->name);
			n[1] = (int)strlen(v[0]);
			n[2] = (int)(strlen(v[1]) + 2 + strlen(v[2]));
			n[3] = (int)strlen(p->unit);
			for (int c = 0; c < 4; c++)
				w[c] = n[c] > w[c] ? n[c] : w[c];
		}
	printf("Generators and their parameters, given as --param key=value,...: values in\n"
	       "decimal or 0x-hex, with an optional K, M or G suffix (x 2^10, 2^20, 2^30;\n"
	       "64K, 4M, 1G), within the range shown.  Every generator takes seed too.\n");
	for (i = 0; (g = tlbsim_generator_at(i)); i++) {
		printf("\n  %s: %s\n    (%s)\n", g->name, g->summary, g->models);
		if (g->notes)
			print_notes(g->notes);
		printf("      %-*s  %-*s  %-*s  %-*s  %s\n", w[0], head[0], w[1], head[1], w[2],
		       head[2], w[3], head[3], "meaning");
		for (k = 0; k < g->nr_params; k++)
			gen_param_row(&g->params[k], w);
		printf("      %-*s  %-*s  %-*s  %-*s  %s\n", w[0], "seed", w[1], "1", w[2],
		       seed_range, w[3], "",
		       g->uses_seed ? "of its random numbers: another seed, other events"
				    : "accepted; no random numbers drawn: the same events");
	}
}

static int cmd_list(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	unsigned i;

	if (!strcmp(what, "--help") || !strcmp(what, "-h") || argc != 2) {
		printf("usage: tlbsim list machines|policies|generators\n\n"
		       "Lists what can be named with --machine, --policy and --gen.\n\n"
		       "example: tlbsim list policies\n");
		return argc == 2 ? CLI_OK : CLI_USAGE;
	}
	if (!strcmp(what, "machines")) {
		if (!tlbsim_machine_list(print_machine, NULL))
			return cli_fail("list machines: no machine description found (looked in "
					"$TLBSIM_MODELS, the install's share/tlbsim/models and the "
					"source tree's models/): set TLBSIM_MODELS to a models "
					"directory, or name a machine's JSON file");
	} else if (!strcmp(what, "policies")) {
		const struct tlbsim_policy *p;

		for (i = 0; (p = tlbsim_policy_at(i)); i++)
			printf("  %-20s %-12s %s\n", p->name,
			       p->isa_mask == (TLBSIM_ISA_BIT(TLBSIM_ISA_X86_64) |
					       TLBSIM_ISA_BIT(TLBSIM_ISA_ARM64))
				       ? "x86-64,arm64"
			       : p->isa_mask & TLBSIM_ISA_BIT(TLBSIM_ISA_X86_64) ? "x86-64"
										 : "arm64",
			       p->summary);
	} else if (!strcmp(what, "generators")) {
		print_generators();
	} else {
		return cli_fail("list: unknown list '%s' (machines, policies, generators)", what);
	}
	return CLI_OK;
}

static void usage(FILE *f)
{
	unsigned i;

	fprintf(f, "usage: tlbsim [--version] [--help] COMMAND [ARGS]\n\n"
		   "Simulates the MMUs and TLBs of a multi-core machine with an OS flush policy.\n\n"
		   "commands:\n");
	for (i = 0; cli_cmds[i].name; i++)
		fprintf(f, "  %-10s %s\n", cli_cmds[i].name, cli_cmds[i].summary);
	fprintf(f, "\n'tlbsim COMMAND --help' describes each, with an example.\n"
		   "exit status: 0 success, 2 usage or input error, 130 interrupted\n");
}

int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_litmus(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_merge(int argc, char **argv);

const struct cli_cmd cli_cmds[] = {
    {"run", "simulate a trace or a generator under one policy", cmd_run},
    {"compare", "the same workload under several policies, side by side", cmd_compare},
    {"gen", "write a generator's events to a trace file", cmd_gen},
    {"record", "record a program's memory accesses and syscalls under valgrind", cmd_record},
    {"convert", "convert a trace (text, binary, lackey, champsim) to text or binary", cmd_convert},
    {"check", "run hazard scenarios and judge them against their expected verdicts", cmd_check},
    {"litmus", "judge Arm VMSA litmus tests (herd7 format): Allowed or Forbidden", cmd_litmus},
    {"sweep", "expand a spec into many runs, on Slurm (job array) or on this machine", cmd_sweep},
    {"merge", "gather a sweep's results into one table (CSV, JSON) and charts", cmd_merge},
    {"list", "list machines, policies or generators", cmd_list},
    {NULL, NULL, NULL},
};

/*
 * What a command printed (tables, summaries, a trace on "-") reached
 * standard output, or the command fails: a full disk or /dev/full makes
 * exit status 2, as a failed -o FILE does, never 0 with the output cut.
 * A command that failed has said why (a trace writer on "-" that could
 * not write among others): it is not said twice.
 */
static int stdout_flushed(int rc)
{
	errno = 0;
	if ((fflush(stdout) != EOF && !ferror(stdout)) || rc == CLI_USAGE)
		return rc;
	cli_fail("standard output: cannot write: %s", errno ? strerror(errno) : "a write failed");
	return rc == CLI_INTERRUPTED ? rc : CLI_USAGE;
}

int main(int argc, char **argv)
{
	unsigned i;

	if (argc < 2) {
		usage(stderr);
		return CLI_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("tlbsim %s\n", tlbsim_version());
		return stdout_flushed(CLI_OK);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return stdout_flushed(CLI_OK);
	}
	for (i = 0; cli_cmds[i].name; i++)
		if (!strcmp(argv[1], cli_cmds[i].name))
			return stdout_flushed(cli_cmds[i].main(argc - 1, argv + 1));
	usage(stderr);
	return cli_fail("unknown command '%s'", argv[1]);
}
