/* SPDX-License-Identifier: MIT */
/*
 * Charts drawn by gnuplot, for every command that draws one (compare
 * --plot, merge).  The one rule: no text from the user (an output path, a
 * data path, a policy or trace name) is ever parsed as gnuplot script.
 * The script is a constant of the caller; paths and titles reach it as
 * the strings ARG1..ARG9 of `gnuplot -c SCRIPT ARGS...` (gnuplot 5 "call":
 * arguments are string variables, not commands), gnuplot is started with
 * execvp(), no shell, and labels inside data files are cleaned of the
 * characters gnuplot's data reader gives a meaning to (quotes, the tab
 * separator, line ends).
 */
#define _DEFAULT_SOURCE /* mkstemps() */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"

/* A file in $TMPDIR (or /tmp) named tlbsim-plot-XXXXXX@suffix. */
static int temp_file(char *path, size_t len, const char *suffix)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	if ((size_t)snprintf(path, len, "%s/tlbsim-plot-XXXXXX%s", dir, suffix) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkstemps(path, (int)strlen(suffix));
	return fd;
}

FILE *cli_plot_data(char *path, size_t len)
{
	int fd = temp_file(path, len, ".dat");
	FILE *f;

	if (fd < 0) {
		cli_fail("cannot create a data file for gnuplot: %s", strerror(errno));
		return NULL;
	}
	if (!(f = fdopen(fd, "w"))) {
		cli_fail("cannot create a data file for gnuplot: %s", strerror(errno));
		close(fd);
		unlink(path);
	}
	return f;
}

void cli_plot_label(const char *in, char *out, size_t len)
{
	size_t i;

	for (i = 0; in[i] && i + 1 < len; i++)
		out[i] =
		    (unsigned char)in[i] < 0x20 || in[i] == '"' || in[i] == '\'' || in[i] == 0x7f
			? '_'
			: in[i];
	if (len)
		out[i] = '\0';
}

bool cli_plot_ext_ok(const char *path)
{
	const char *ext = strrchr(path, '.');

	return ext && (!strcmp(ext, ".svg") || !strcmp(ext, ".png"));
}

/* The first lines gnuplot wrote (its error) to @f. */
static void print_log(FILE *f)
{
	char line[512];
	int n = 0;

	rewind(f);
	while (n++ < 8 && fgets(line, sizeof(line), f))
		fprintf(stderr, "  gnuplot: %s%s", line, strchr(line, '\n') ? "" : "\n");
}

/*
 * Is the chart gnuplot wrote at @path whole, and on the disk?  gnuplot
 * ignores write errors, so its end is checked: an SVG's closing tag, a
 * PNG's IEND chunk (PNG specification 5.6: the last chunk, length 0, CRC
 * AE 42 60 82); then fsync(), which reports what the disk could not take.
 * 0, an errno value, or -1 for an incomplete chart.
 */
static bool has_svg_end(const char *tail, size_t n)
{
	for (size_t i = 0; i + 6 <= n; i++)
		if (!memcmp(tail + i, "</svg>", 6))
			return true;
	return false;
}

static int chart_complete(const char *path, bool png)
{
	static const char iend[12] = "\0\0\0\0IEND\xae\x42\x60\x82";
	char tail[64];
	ssize_t n;
	off_t size;
	int fd = open(path, O_RDWR), e = 0;

	if (fd < 0)
		return errno;
	size = lseek(fd, 0, SEEK_END);
	n = size < (off_t)sizeof(tail) ? size : (off_t)sizeof(tail);
	if (size < 0 || pread(fd, tail, (size_t)n, size - n) != n)
		e = errno ? errno : EIO;
	else if (png ? n < 12 || memcmp(tail + n - 12, iend, 12) : !has_svg_end(tail, (size_t)n))
		e = -1;
	else if (fsync(fd))
		e = errno;
	close(fd);
	return e;
}

int cli_gnuplot(const char *script, const char *out, const char *const *args, unsigned nargs)
{
	char gp[4096], tmp[4096];
	const char *argv[16];
	const char *ext = strrchr(out, '.');
	bool png = ext && !strcmp(ext, ".png");
	int fd, status = -1, rc = 0;
	FILE *log;
	unsigned i;
	pid_t pid;

	if (nargs > 8 || !cli_plot_ext_ok(out))
		return cli_fail("%s: a chart is written as .svg or .png", out);
	fd = temp_file(gp, sizeof(gp), ".gp");
	if (fd < 0)
		return cli_fail("%s: cannot create a gnuplot script: %s", out, strerror(errno));
	/* The terminal from the extension; noenhanced: an '_' or '^' in a
	 * name is printed, not taken for a subscript or superscript. */
	if (dprintf(fd, "set terminal %s size 900,500 noenhanced\nset output ARG1\n%s",
		    png ? "pngcairo" : "svg", script) < 0 ||
	    close(fd)) {
		unlink(gp);
		return cli_fail("%s: cannot write a gnuplot script", out);
	}
	/* Drawn beside @out, renamed over it once complete. */
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d%s", out, (int)getpid(), png ? ".png" : ".svg");
	argv[0] = "gnuplot";
	argv[1] = "-c";
	argv[2] = gp;
	argv[3] = tmp;
	for (i = 0; i < nargs; i++)
		argv[4 + i] = args[i];
	argv[4 + nargs] = NULL;
	log = tmpfile();
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		dup2(log ? fileno(log) : null, 2);
		execvp("gnuplot", (char *const *)argv);
		dprintf(2, "cannot run gnuplot: %s (scripts/install-deps installs it)\n",
			strerror(errno));
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	unlink(gp);
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) || access(tmp, R_OK)) {
		unlink(tmp);
		rc = cli_fail("%s: gnuplot could not draw the chart", out);
		if (log)
			print_log(log);
	} else if ((rc = chart_complete(tmp, png)) || rename(tmp, out)) {
		/* gnuplot exits 0 after failed writes: a full disk leaves a
		 * truncated chart, which is never renamed into place. */
		unlink(tmp);
		rc = cli_fail("%s: cannot write the chart: %s", out,
			      rc > 0 ? strerror(rc) : rc < 0 ? "gnuplot's output is incomplete"
							 : strerror(errno));
	}
	if (log)
		fclose(log);
	return rc;
}
