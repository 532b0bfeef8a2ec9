/* SPDX-License-Identifier: MIT */
/*
 * Helpers for tests that run the tlbsim command ($TLBSIM_BINARY_DIR/tlbsim,
 * set by tests/CMakeLists.txt): start it, wait for it, and read the traces
 * it wrote back with the library.
 */
#ifndef TLBSIM_TESTS_CLI_TEST_H
#define TLBSIM_TESTS_CLI_TEST_H

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

#include "traces/trace_test.h"

/* The tlbsim binary of this build. */
static inline const char *tlbsim_bin(void)
{
	static char path[1024];
	const char *dir = getenv("TLBSIM_BINARY_DIR");

	snprintf(path, sizeof(path), "%s/tlbsim", dir ? dir : "build");
	return path;
}

/* Start @argv (argv[0] is a path) with stdout and stderr to /dev/null when @quiet. */
static inline pid_t spawn(char *const argv[], int quiet)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		if (quiet) {
			int fd = open("/dev/null", O_WRONLY);

			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* Wait for @pid: its exit status, or 128 + the signal that ended it. */
static inline int wait_status(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static inline int run(char *const argv[])
{
	return wait_status(spawn(argv, 0));
}

/* Is @prog an executable in $PATH? */
static inline int in_path(const char *prog)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

/* Does @dir hold a file whose name starts with @prefix? */
static inline int has_file_starting(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int found = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strncmp(de->d_name, prefix, strlen(prefix)) == 0)
			found = 1;
	closedir(d);
	return found;
}

/* Every event of the trace at @path, as text lines; fails on any read error. */
static inline char **trace_lines(const char *path, size_t *n)
{
	char line[TLBSIM_EVENT_LINE_MAX], **lines = NULL;
	tlbsim_trace_reader *r;
	struct tlbsim_event ev;
	struct tlbsim_error err;
	int rc;

	*n = 0;
	tlbsim_error_clear(&err);
	if (tlbsim_trace_open(path, TLBSIM_TRACE_AUTO, &r, &err))
		fail_msg("%s: %s", path, err.text);
	while ((rc = tlbsim_trace_next(r, &ev, &err)) == 1) {
		tlbsim_event_format(&ev, line, sizeof(line));
		lines = realloc(lines, (*n + 1) * sizeof(*lines));
		lines[(*n)++] = strdup(line);
	}
	if (rc < 0)
		fail_msg("%s:%d:%d @%lld: %s", err.source, err.line, err.column, err.offset,
			 err.text);
	tlbsim_trace_close(r);
	return lines;
}

/*
 * Stream the trace at @path, counting its events by kind into @by_kind and
 * keeping the first and the last; fails on any read error.  Returns the count.
 */
static inline uint64_t trace_kinds(const char *path, uint64_t by_kind[TLBSIM_EV_NR_KINDS],
				   struct tlbsim_event *first, struct tlbsim_event *last)
{
	tlbsim_trace_reader *r;
	struct tlbsim_event ev;
	struct tlbsim_error err;
	uint64_t n = 0;
	int rc;

	memset(by_kind, 0, TLBSIM_EV_NR_KINDS * sizeof(*by_kind));
	tlbsim_error_clear(&err);
	if (tlbsim_trace_open(path, TLBSIM_TRACE_AUTO, &r, &err))
		fail_msg("%s: %s", path, err.text);
	while ((rc = tlbsim_trace_next(r, &ev, &err)) == 1) {
		if (n++ == 0)
			*first = ev;
		*last = ev;
		by_kind[ev.kind]++;
	}
	if (rc < 0)
		fail_msg("%s:%d:%d @%lld: %s", err.source, err.line, err.column, err.offset,
			 err.text);
	tlbsim_trace_close(r);
	return n;
}

static inline void free_lines(char **lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

#endif
