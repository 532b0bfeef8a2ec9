/* SPDX-License-Identifier: MIT */
/*
 * tlbsim record: run a program under valgrind and write what it did as a
 * trace.
 *
 * By default with tlbsim's own valgrind tool (tools/valgrind/tl_main.c):
 * every process of the run (--trace-children=yes) writes its part of the
 * trace in the native binary format into a directory beside the output,
 * and the parts are merged afterwards in the order valgrind ran them
 * (record_merge.c).  With --via lackey, valgrind's lackey tool with its
 * text log in a pipe (--log-fd), turned into a trace on the fly by the
 * lackey reader (traces/read_lackey.c); one process only.
 *
 * Stopping: SIGINT or SIGTERM to tlbsim is passed on to valgrind (which
 * passes it to the program; with the tool, to every traced process still
 * in tlbsim's process group) and recording goes on until the run ends, so
 * the trace keeps everything the program did.  A program that survives it
 * gets SIGTERM GRACE_SECONDS later, then SIGKILL (valgrind ignores SIGTERM
 * while its program blocks or handles it).  With lackey a log cut inside a
 * line by SIGKILL loses that line only; with the tool, a process killed so
 * loses the events still in its buffer (at most a chunk, 256 KiB).  The
 * trace is then closed and renamed into place as usual: it is valid, and
 * simply ends where the program was stopped.
 */
#define _XOPEN_SOURCE 700 /* realpath(), mkdtemp(), getpgid() */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"

/* Seconds between the stopping signals: SIGINT, SIGTERM, SIGKILL, give up reading. */
#define GRACE_SECONDS 2
/* Room for valgrind's own arguments before the program's. */
#define VG_ARGS 10
/* The tool's file name in VALGRIND_LIB (valgrind's TOOL-PLATFORM). */
#define TOOL_FILE "tlbsim-amd64-linux"

static const char record_help[] =
    "usage: tlbsim record -o FILE [--via tlbsim|lackey] [--fetches yes|no] [--switches]\n"
    "                     [--format binary|text] [--compress zstd|xz|none]\n"
    "                     [--valgrind PATH] [--keep-parts] -- PROGRAM [ARGS...]\n"
    "       tlbsim record -o FILE --merge DIR [--format ...] [--compress ...]\n\n"
    "Runs PROGRAM under valgrind and writes its memory accesses, threads, processes\n"
    "and memory syscalls (mmap, munmap, mprotect, madvise, mremap, brk, clone, fork,\n"
    "exec, exit) as a trace: binary and zstd-compressed unless FILE's name (a\n"
    "trailing .xz, .zst; .txt for text) or --format and --compress say otherwise (a\n"
    "warning if they contradict the name); FILE is written to FILE.tmp.XXXXXX and\n"
    "renamed when complete.\n"
    "--via tlbsim (default): tlbsim's valgrind tool writes the native format itself\n"
    "(millions of events a second) and follows every process (fork, and exec with\n"
    "--trace-children=yes): one trace holds them all, in the order valgrind ran\n"
    "them.  The processes write their parts into FILE.parts.XXXXXX (about 4 bytes\n"
    "an event, uncompressed), merged into FILE when the run ends, then removed;\n"
    "--keep-parts keeps them and --merge DIR merges kept parts again.\n"
    "--fetches no leaves out instruction fetches (instructions then count as\n"
    "'compute N insns'); --switches records a 'switch' to the host cpu whenever\n"
    "valgrind switches threads (it pins them on replay; off by default).  The tool\n"
    "is found in $TLBSIM_VALGRIND_LIB, else beside this tlbsim (valgrind-lib/ in\n"
    "the build, libexec/tlbsim/valgrind/ installed).\n"
    "--via lackey: valgrind's lackey tool with its log in a pipe (a few hundred\n"
    "thousand events a second; programs that fork are not supported).\n"
    "Ctrl-C stops the program (SIGINT, then SIGTERM and SIGKILL 2 s apart) and\n"
    "keeps a valid trace of what was recorded.\n\n"
    "exit status: 0 recorded, 2 usage error or unreadable log, 130 interrupted\n\n"
    "example: tlbsim record -o build.tlbt.xz -- make -j2\n";

static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t stage; /* stopping signals sent so far */
static volatile sig_atomic_t stopped;
static const int stop_sigs[] = {SIGINT, SIGTERM, SIGKILL};

static void on_alarm(int sig);

/*
 * The next stopping signal.  Once SIGKILL has gone, an alarm without
 * SA_RESTART interrupts the read of a pipe that some other process still
 * holds open, so recording ends in any case.
 */
static void escalate(void)
{
	struct sigaction sa;

	if (child_pid <= 0 || stage > 3)
		return;
	if (stage < 3)
		kill((pid_t)child_pid, stop_sigs[stage]);
	stage++;
	if (stage == 3) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_alarm;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGALRM, &sa, NULL);
	}
	alarm(GRACE_SECONDS);
}

static void on_alarm(int sig)
{
	(void)sig;
	escalate();
}

static void on_stop(int sig)
{
	(void)sig;
	stopped = 1;
	escalate();
}

/* @restart: reads of the lackey log go on; without it waitpid() sees each signal. */
static void catch_signals(bool restart)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = restart ? SA_RESTART : 0;
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
}

static void restore_signals(void)
{
	alarm(0);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGALRM, SIG_DFL);
	child_pid = 0;
}

/* Start valgrind with @vg (NULL-terminated); in the child, VALGRIND_LIB=@vglib if given. */
static pid_t spawn(const char *valgrind, char **vg, const char *vglib, int close_fd)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (close_fd >= 0)
			close(close_fd);
		if (vglib)
			setenv("VALGRIND_LIB", vglib, 1);
		execvp(valgrind, vg);
		fprintf(stderr, "tlbsim: record: cannot run %s: %s\n", valgrind, strerror(errno));
		_exit(127);
	}
	return pid;
}

/* Start valgrind's lackey on argv[0..] with its log on a pipe; returns the read end or NULL. */
static FILE *start_lackey(const char *valgrind, char **argv, int argc, pid_t *pid)
{
	char **vg = calloc((size_t)argc + VG_ARGS + 1, sizeof(*vg)), log_fd[32];
	int fds[2], n = 0, i;
	FILE *f;

	if (!vg || pipe(fds) < 0) {
		free(vg);
		return NULL;
	}
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	snprintf(log_fd, sizeof(log_fd), "--log-fd=%d", fds[1]);
	vg[n++] = (char *)valgrind;
	vg[n++] = "--tool=lackey";
	vg[n++] = "--trace-mem=yes";
	vg[n++] = "--trace-syscalls=yes";
	vg[n++] = "--trace-sched=yes";
	vg[n++] = log_fd;
	for (i = 0; i < argc; i++)
		vg[n++] = argv[i];
	*pid = spawn(valgrind, vg, NULL, -1);
	free(vg);
	close(fds[1]);
	if (*pid < 0 || !(f = fdopen(fds[0], "rb"))) {
		close(fds[0]);
		return NULL;
	}
	return f;
}

/* Reap valgrind (SIGKILL first when @kill_it); its wait status. */
static int reap(pid_t pid, bool kill_it)
{
	int status = 0;

	if (kill_it)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

static void print_status(int status)
{
	if (WIFEXITED(status))
		fprintf(stderr, "  valgrind and the program exited with status %d\n",
			WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		fprintf(stderr, "  valgrind was ended by signal %d (%s)\n", WTERMSIG(status),
			strsignal(WTERMSIG(status)));
}

struct record_opts {
	const char *out, *valgrind;
	enum tlbsim_trace_format to;
	enum tlbsim_trace_compression compression;
	bool fetches, switches, keep_parts;
	char **argv; /* the program and its arguments */
	int argc;
};

/* ---- --via lackey ------------------------------------------------------------ */

static int record_lackey(const struct record_opts *o)
{
	struct tlbsim_trace_info info;
	struct tlbsim_error err;
	struct cli_copy copy;
	tlbsim_trace_reader *r = NULL;
	tlbsim_trace_writer *w = NULL;
	bool cut, failed;
	int rc, status;
	pid_t pid;
	FILE *f;

	stage = stopped = 0;
	f = start_lackey(o->valgrind, o->argv, o->argc, &pid);
	if (!f)
		return cli_fail("record: cannot start %s: %s", o->valgrind, strerror(errno));
	child_pid = pid;
	catch_signals(true);
	tlbsim_error_clear(&err);
	if (tlbsim_trace_open_file(f, "<valgrind log>", TLBSIM_TRACE_LACKEY, &r, &err)) {
		status = reap(pid, true);
		restore_signals();
		fclose(f);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			return cli_fail("record: %s could not run %s (status 127; see above)",
					o->valgrind, o->argv[0]);
		return cli_fail_err(&err);
	}
	info = *tlbsim_trace_info(r);
	if (tlbsim_trace_writer_open(o->out, o->to, o->compression, &info, &w, &err)) {
		tlbsim_trace_close(r);
		reap(pid, true);
		restore_signals();
		fclose(f);
		return cli_fail_err(&err);
	}
	memset(&copy, 0, sizeof(copy));
	copy.what = "recording";
	rc = cli_copy_events(r, w, &copy);
	/* Stopped by us, the log may end inside a line or in a read we cut short. */
	cut = stopped && (rc == -TLBSIM_ETRUNC || (rc == -TLBSIM_EIO && stage > 3));
	failed = rc < 0 && !cut;
	status = reap(pid, failed);
	restore_signals();
	if (copy.write_failed) {
		tlbsim_trace_writer_abort(w);
		tlbsim_trace_close(r);
		fclose(f);
		return cli_fail_err(&copy.err);
	}
	/* What was read before an error is a valid trace: keep it. */
	if (tlbsim_trace_writer_close(w, &err)) {
		tlbsim_trace_close(r);
		fclose(f);
		return cli_fail_err(&err);
	}
	/* stderr: the program's output goes to stdout */
	cli_print_summary(stderr, &copy, r, o->out);
	print_status(status);
	tlbsim_trace_close(r);
	fclose(f);
	if (cut)
		fprintf(
		    stderr,
		    "  the log's last line was cut off when valgrind was killed; it was dropped\n");
	if (failed) {
		cli_fail_err(&copy.err);
		return cli_fail("record: %s keeps the %llu events before that error", o->out,
				(unsigned long long)copy.events);
	}
	if (stopped) {
		fprintf(stderr, "tlbsim: record: interrupted; %s holds what was recorded\n",
			o->out);
		return CLI_INTERRUPTED;
	}
	return CLI_OK;
}

/* ---- --via tlbsim ------------------------------------------------------------- */

/* Does @dir hold the tool?  Copies it to @out. */
static bool vglib_at(const char *dir, char *out, size_t size)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", dir, TOOL_FILE) >= (int)sizeof(path) ||
	    access(path, X_OK))
		return false;
	snprintf(out, size, "%s", dir);
	return true;
}

/*
 * The VALGRIND_LIB directory holding the tool beside valgrind's own files:
 * $TLBSIM_VALGRIND_LIB, else valgrind-lib/ beside this executable (the
 * build tree), else TLBSIM_VGLIB_REL from its directory (installed).
 */
static int find_vglib(char *out, size_t size)
{
	const char *env = getenv("TLBSIM_VALGRIND_LIB");
	char exe[PATH_MAX], dir[PATH_MAX + 64];
	ssize_t n;

	if (env)
		return vglib_at(env, out, size)
			   ? 0
			   : cli_fail("record: TLBSIM_VALGRIND_LIB=%s holds no %s", env, TOOL_FILE);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		*strrchr(exe, '/') = 0;
		snprintf(dir, sizeof(dir), "%s/valgrind-lib", exe);
		if (vglib_at(dir, out, size))
			return 0;
		snprintf(dir, sizeof(dir), "%s/%s", exe, TLBSIM_VGLIB_REL);
		if (vglib_at(dir, out, size))
			return 0;
	}
	return cli_fail("record: tlbsim's valgrind tool (%s) is not beside %s (valgrind-lib/ or "
			"%s/) and TLBSIM_VALGRIND_LIB is not set: build tlbsim with valgrind "
			"installed (scripts/install-deps), or record with --via lackey",
			TOOL_FILE, n > 0 ? exe : "tlbsim", TLBSIM_VGLIB_REL);
}

/*
 * Send @sig to the traced processes other than valgrind's first (already
 * signalled): those with a part in @dir still in this process group.
 */
static void signal_parts(const char *dir, int sig)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (end == e->d_name || *end != '.' || pid <= 0 || pid == child_pid ||
		    pid == getpid() || getpgid((pid_t)pid) != getpgrp())
			continue;
		kill((pid_t)pid, sig);
	}
	closedir(d);
}

static void remove_parts(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX + 256];

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	closedir(d);
	rmdir(dir);
}

/* "tlbsim record (valgrind tool): PROGRAM ARGS...", printable, cut to fit the trace header. */
static void source_of(const struct record_opts *o, char *src, size_t size)
{
	size_t len = (size_t)snprintf(src, size, "tlbsim record (valgrind tool):");

	for (int i = 0; i < o->argc && len + 2 < size; i++) {
		src[len++] = ' ';
		for (const char *c = o->argv[i]; *c && len + 1 < size; c++)
			if (*c >= 0x20 && *c < 0x7f)
				src[len++] = *c;
	}
	src[len] = 0;
}

/* @rec_secs: wall time under valgrind (0 for --merge), @merge_secs: of the
 * merge; the rate is of the two together, the command's wall time. */
static void print_merge_summary(const struct rec_merge_stats *st, const char *out,
				double rec_secs, double merge_secs)
{
	double secs = rec_secs + merge_secs;
	struct stat sb;

	fprintf(stderr,
		"%s: %llu events (%llu guest instructions) of %llu process images, "
		"%llu forks, %llu threads created, ",
		out, (unsigned long long)st->events, (unsigned long long)st->insns,
		(unsigned long long)st->images, (unsigned long long)st->forks,
		(unsigned long long)st->threads);
	if (rec_secs > 0)
		fprintf(stderr, "recorded in %.1f s and merged in %.1f s of wall time", rec_secs,
			merge_secs);
	else
		fprintf(stderr, "merged in %.1f s of wall time", merge_secs);
	fprintf(stderr, ": %.2f M events/s", secs > 0 ? st->events / secs / 1e6 : 0.0);
	if (stat(out, &sb) == 0)
		fprintf(stderr, "; %lld bytes (%.3f bytes/event)", (long long)sb.st_size,
			st->events ? (double)sb.st_size / (double)st->events : 0.0);
	fprintf(stderr, "\n  by kind:");
	for (unsigned k = 1; k < TLBSIM_EV_NR_KINDS; k++)
		if (st->by_kind[k])
			fprintf(stderr, " %s %llu", tlbsim_event_kind_name(k),
				(unsigned long long)st->by_kind[k]);
	fprintf(stderr, "\n  merged %llu chunks of %llu parts", (unsigned long long)st->chunks,
		(unsigned long long)st->parts);
	if (st->exec_exits)
		fprintf(stderr, "; %llu threads ended by exec", (unsigned long long)st->exec_exits);
	if (st->dropped_wakes || st->dropped_sleeps)
		fprintf(stderr,
			"; dropped %llu wakes of threads not in the trace and %llu sleeps "
			"no wake allows",
			(unsigned long long)st->dropped_wakes,
			(unsigned long long)st->dropped_sleeps);
	if (st->orphan_parts)
		fprintf(stderr, "; %llu processes whose fork was not recorded",
			(unsigned long long)st->orphan_parts);
	fputc('\n', stderr);
}

/* Merge the parts in @dir into o->out (@secs: the recording's wall time
 * under valgrind, 0 for --merge). */
static int merge_parts(const struct record_opts *o, const char *dir, double secs)
{
	struct tlbsim_trace_info info = {.version = 1, .isa = TLBSIM_ISA_X86_64, .page_shift = 12};
	struct rec_merge_stats st;
	struct tlbsim_error err;
	tlbsim_trace_writer *w = NULL;
	double started = cli_now();
	int rc;

	source_of(o, info.source, sizeof(info.source));
	tlbsim_error_clear(&err);
	if (tlbsim_trace_writer_open(o->out, o->to, o->compression, &info, &w, &err))
		return cli_fail_err(&err);
	rc = rec_merge(dir, w, &st, &err);
	if (st.write_failed) {
		tlbsim_trace_writer_abort(w);
		return rc;
	}
	/* What was merged before an error is a valid trace: keep it. */
	if (tlbsim_trace_writer_close(w, &err))
		return cli_fail_err(&err);
	print_merge_summary(&st, o->out, secs, cli_now() - started);
	if (rc)
		cli_fail("record: %s keeps the %llu events merged before that error", o->out,
			 (unsigned long long)st.events);
	return rc;
}

static int record_tool(const struct record_opts *o)
{
	char vglib[PATH_MAX], parts[PATH_MAX], abs_parts[PATH_MAX], dir_opt[PATH_MAX + 16];
	char **vg = calloc((size_t)o->argc + VG_ARGS + 1, sizeof(*vg));
	int rc, status = 0, n = 0, last_stage = 0;
	double started;
	pid_t pid;

	if (!vg)
		return cli_fail("out of memory");
	if ((rc = find_vglib(vglib, sizeof(vglib)))) {
		free(vg);
		return rc;
	}
	if (snprintf(parts, sizeof(parts), "%s.parts.XXXXXX", o->out) >= (int)sizeof(parts) ||
	    !mkdtemp(parts) || !realpath(parts, abs_parts)) {
		free(vg);
		return cli_fail("record: cannot make a directory %s for the parts: %s", parts,
				strerror(errno));
	}
	snprintf(dir_opt, sizeof(dir_opt), "--tlbsim-dir=%s", abs_parts);
	vg[n++] = (char *)o->valgrind;
	vg[n++] = "--tool=tlbsim";
	vg[n++] = "-q";
	vg[n++] = "--trace-children=yes";
	vg[n++] = dir_opt;
	vg[n++] = o->fetches ? "--fetches=yes" : "--fetches=no";
	vg[n++] = o->switches ? "--switches=yes" : "--switches=no";
	for (int i = 0; i < o->argc; i++)
		vg[n++] = o->argv[i];
	stage = stopped = 0;
	started = cli_now();
	pid = spawn(o->valgrind, vg, vglib, -1);
	free(vg);
	if (pid < 0) {
		remove_parts(abs_parts);
		return cli_fail("record: cannot start %s: %s", o->valgrind, strerror(errno));
	}
	child_pid = pid;
	catch_signals(false);
	for (;;) {
		if (waitpid(pid, &status, 0) == pid)
			break;
		if (errno != EINTR)
			break;
		/* the handler signalled valgrind's first process; the others too */
		if (stage > last_stage && stage <= 3)
			signal_parts(abs_parts, stop_sigs[stage - 1]);
		last_stage = stage;
	}
	if (stage >= 3)
		signal_parts(abs_parts, SIGKILL); /* none may write during the merge */
	restore_signals();
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		remove_parts(abs_parts);
		return cli_fail("record: %s could not run %s (status 127; see above)", o->valgrind,
				o->argv[0]);
	}
	rc = merge_parts(o, abs_parts, cli_now() - started);
	if (rc == 0)
		print_status(status);
	if (o->keep_parts)
		fprintf(stderr, "  the parts are kept in %s\n", abs_parts);
	else
		remove_parts(abs_parts);
	if (rc)
		return rc;
	if (stopped) {
		fprintf(stderr, "tlbsim: record: interrupted; %s holds what was recorded\n",
			o->out);
		return CLI_INTERRUPTED;
	}
	return CLI_OK;
}

int cmd_record(int argc, char **argv)
{
	enum { OPT_VIA = 256, OPT_FETCHES, OPT_SWITCHES, OPT_KEEP, OPT_MERGE };
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"format", required_argument, NULL, 'f'},
	    {"compress", required_argument, NULL, 'c'},
	    {"valgrind", required_argument, NULL, 'v'},
	    {"via", required_argument, NULL, OPT_VIA},
	    {"fetches", required_argument, NULL, OPT_FETCHES},
	    {"switches", no_argument, NULL, OPT_SWITCHES},
	    {"keep-parts", no_argument, NULL, OPT_KEEP},
	    {"merge", required_argument, NULL, OPT_MERGE},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct record_opts o = {.valgrind = "valgrind", .fetches = true};
	const char *to_name = NULL, *compress = NULL, *via = "tlbsim", *merge = NULL;
	int c, rc;

	optind = 1;
	opterr = 0;
	/* "+": the first non-option is the program; its options are its own. */
	while ((c = getopt_long(argc, argv, "+ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.out = optarg;
			break;
		case 'f':
			to_name = optarg;
			break;
		case 'c':
			compress = optarg;
			break;
		case 'v':
			o.valgrind = optarg;
			break;
		case OPT_VIA:
			via = optarg;
			break;
		case OPT_FETCHES:
			if (strcmp(optarg, "yes") && strcmp(optarg, "no"))
				return cli_fail("record: --fetches expects yes or no, found '%s'",
						optarg);
			o.fetches = !strcmp(optarg, "yes");
			break;
		case OPT_SWITCHES:
			o.switches = true;
			break;
		case OPT_KEEP:
			o.keep_parts = true;
			break;
		case OPT_MERGE:
			merge = optarg;
			break;
		case 'h':
			fputs(record_help, stdout);
			return CLI_OK;
		default:
			return cli_fail("record: unknown or incomplete option '%s' (see --help)",
					argv[optind - 1]);
		}
	}
	if (!o.out)
		return cli_fail("record: -o FILE is required (see --help)");
	if (!strcmp(o.out, "-"))
		return cli_fail("record: -o - is not possible: the program's own output goes to "
				"standard output");
	if (merge) {
		if (optind < argc)
			return cli_fail("record: --merge DIR runs no program, found '%s'",
					argv[optind]);
		if ((rc = cli_parse_output("--format", to_name, compress, o.out, &o.to, &o.compression)) ||
		    (rc = cli_check_output(o.out)))
			return rc;
		return merge_parts(&o, merge, 0);
	}
	if (optind == argc)
		return cli_fail("record: a PROGRAM to run expected after the options");
	if (to_name && strcmp(to_name, "binary") && strcmp(to_name, "text"))
		return cli_fail("record: --format expects binary or text, found '%s'", to_name);
	if (strcmp(via, "tlbsim") && strcmp(via, "lackey"))
		return cli_fail("record: --via expects tlbsim or lackey, found '%s'", via);
	if (!strcmp(via, "lackey") && (!o.fetches || o.switches || o.keep_parts))
		return cli_fail(
		    "record: --fetches, --switches and --keep-parts go with --via tlbsim");
	if ((rc = cli_parse_output("--format", to_name, compress, o.out, &o.to, &o.compression)) ||
	    (rc = cli_check_output(o.out)))
		return rc;
	o.argv = argv + optind;
	o.argc = argc - optind;
	return strcmp(via, "lackey") ? record_tool(&o) : record_lackey(&o);
}
