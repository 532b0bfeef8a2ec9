/* SPDX-License-Identifier: MIT */
/*
 * tlbsim record: run a program under valgrind's lackey tool with its log
 * in a pipe (--log-fd), and turn the log into a native trace on the fly
 * with the lackey reader (traces/read_lackey.c): the text, some tens of
 * bytes an access, never touches the disk.
 *
 * Stopping: SIGINT or SIGTERM to tlbsim is passed on to valgrind (which
 * passes it to the program) and recording goes on until the log ends, so
 * the trace keeps everything the program did.  A program that survives
 * it gets SIGTERM GRACE_SECONDS later, then SIGKILL (valgrind ignores
 * SIGTERM while its program blocks or handles it); a log cut inside a line
 * by SIGKILL loses that line only.  The trace is then closed and renamed
 * into place as usual: it is valid, and simply ends where the program was
 * stopped.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"

/* Seconds between the stopping signals: SIGINT, SIGTERM, SIGKILL, give up reading. */
#define GRACE_SECONDS 2
/* Room for valgrind's own arguments before the program's. */
#define VG_ARGS 8

static const char record_help[] =
    "usage: tlbsim record -o FILE [--format binary|text] [--compress zstd|xz|none]\n"
    "                     [--valgrind PATH] -- PROGRAM [ARGS...]\n\n"
    "Runs PROGRAM under valgrind --tool=lackey --trace-mem=yes --trace-syscalls=yes\n"
    "--trace-sched=yes and writes its memory accesses, threads and memory syscalls\n"
    "(mmap, munmap, mprotect, madvise, mremap, brk, clone, exit) as a trace: binary\n"
    "and zstd-compressed unless FILE's name (a trailing .xz, .zst; .txt for text)\n"
    "or --format and --compress say otherwise (a warning if they contradict the\n"
    "name).  The log goes through a pipe and never touches\n"
    "the disk; FILE is written to FILE.tmp.XXXXXX and renamed when complete.\n"
    "Every fetch, load and store is an event, and recording runs at a few hundred\n"
    "thousand events a second: keep runs short (zstd -T3 compressing 1.3 MB: 18 M\n"
    "events, one minute; traces/samples/README.md).  Programs that fork are not\n"
    "supported.\n"
    "Ctrl-C stops the program (SIGINT, then SIGTERM and SIGKILL 2 s apart) and\n"
    "keeps a valid trace of what was recorded.\n\n"
    "exit status: 0 recorded, 2 usage error or unreadable log, 130 interrupted\n\n"
    "example: tlbsim record -o zstd.tlbt.xz -- zstd -T3 -1 -c in.txt\n";

static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t stage; /* stopping signals sent so far */
static volatile sig_atomic_t stopped;

static void on_alarm(int sig);

/*
 * The next stopping signal.  Once SIGKILL has gone, an alarm without
 * SA_RESTART interrupts the read of a pipe that some other process still
 * holds open, so recording ends in any case.
 */
static void escalate(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGKILL};
	struct sigaction sa;

	if (child_pid <= 0 || stage > 3)
		return;
	if (stage < 3)
		kill((pid_t)child_pid, sigs[stage]);
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

static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART; /* reading the log goes on */
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

/* Start valgrind on argv[0..] with its log on a pipe; returns the read end or NULL. */
static FILE *start(const char *valgrind, char **argv, int argc, pid_t *pid)
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
	*pid = fork();
	if (*pid == 0) {
		execvp(valgrind, vg);
		fprintf(stderr, "tlbsim: record: cannot run %s: %s\n", valgrind, strerror(errno));
		_exit(127);
	}
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

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},	{"format", required_argument, NULL, 'f'},
	    {"compress", required_argument, NULL, 'c'}, {"valgrind", required_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},		{NULL, 0, NULL, 0},
	};
	const char *out = NULL, *to_name = NULL, *compress = NULL, *valgrind = "valgrind";
	enum tlbsim_trace_compression compression;
	enum tlbsim_trace_format to;
	struct tlbsim_trace_info info;
	struct tlbsim_error err;
	struct cli_copy copy;
	tlbsim_trace_reader *r = NULL;
	tlbsim_trace_writer *w = NULL;
	bool cut, failed;
	int c, rc, status;
	pid_t pid;
	FILE *f;

	optind = 1;
	opterr = 0;
	/* "+": the first non-option is the program; its options are its own. */
	while ((c = getopt_long(argc, argv, "+ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'f':
			to_name = optarg;
			break;
		case 'c':
			compress = optarg;
			break;
		case 'v':
			valgrind = optarg;
			break;
		case 'h':
			fputs(record_help, stdout);
			return CLI_OK;
		default:
			return cli_fail("record: unknown or incomplete option '%s' (see --help)",
					argv[optind - 1]);
		}
	}
	if (!out)
		return cli_fail("record: -o FILE is required (see --help)");
	if (optind == argc)
		return cli_fail("record: a PROGRAM to run expected after the options");
	if (to_name && strcmp(to_name, "binary") && strcmp(to_name, "text"))
		return cli_fail("record: --format expects binary or text, found '%s'", to_name);
	if (!strcmp(out, "-"))
		return cli_fail("record: -o - is not possible: the program's own output goes to "
				"standard output");
	if ((rc = cli_parse_output("--format", to_name, compress, out, &to, &compression)))
		return rc;

	stage = stopped = 0;
	f = start(valgrind, argv + optind, argc - optind, &pid);
	if (!f)
		return cli_fail("record: cannot start %s: %s", valgrind, strerror(errno));
	child_pid = pid;
	catch_signals();
	tlbsim_error_clear(&err);
	if (tlbsim_trace_open_file(f, "<valgrind log>", TLBSIM_TRACE_LACKEY, &r, &err)) {
		status = reap(pid, true);
		restore_signals();
		fclose(f);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			return cli_fail("record: %s could not run %s (status 127; see above)",
					valgrind, argv[optind]);
		return cli_fail_err(&err);
	}
	info = *tlbsim_trace_info(r);
	if (tlbsim_trace_writer_open(out, to, compression, &info, &w, &err)) {
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
	cli_print_summary(stderr, &copy, r, out);
	print_status(status);
	tlbsim_trace_close(r);
	fclose(f);
	if (cut)
		fprintf(
		    stderr,
		    "  the log's last line was cut off when valgrind was killed; it was dropped\n");
	if (failed) {
		cli_fail_err(&copy.err);
		return cli_fail("record: %s keeps the %llu events before that error", out,
				(unsigned long long)copy.events);
	}
	if (stopped) {
		fprintf(stderr, "tlbsim: record: interrupted; %s holds what was recorded\n", out);
		return CLI_INTERRUPTED;
	}
	return CLI_OK;
}
