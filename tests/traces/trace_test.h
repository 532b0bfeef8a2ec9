/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the trace tests: temporary directories, whole-file
 * reads, and the data-driven malformed-input runner (jansson's
 * test/suites/invalid): every folder <dir>/<case>/ holds "input" and
 * "error", whose first line is "line column offset CODE" (-1 when
 * unknown, CODE a tlbsim_err_name()) and whose second line is a substring
 * the error text must contain.  A new case is a new folder.
 */
#ifndef TLBSIM_TESTS_TRACE_TEST_H
#define TLBSIM_TESTS_TRACE_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tlbsim/trace.h"

/* A fresh directory under /tmp; the caller removes it with rm_tree(). */
static inline char *make_tmpdir(void)
{
	char tmpl[] = "/tmp/tlbsim-trace-test-XXXXXX";
	char *dir = mkdtemp(tmpl);

	assert_non_null(dir);
	return strdup(dir);
}

/* Remove what @dir holds, folders too (a recording's parts/), and @dir. */
static inline void rm_tree_at(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct stat sb;
	char path[1024];

	assert_non_null(d);
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= sizeof(path))
			fail_msg("rm_tree: path too long under %s", dir);
		if (lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
			rm_tree_at(path);
		else
			unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

/* rm_tree_at(@dir), then free @dir (make_tmpdir()'s). */
static inline void rm_tree(char *dir)
{
	rm_tree_at(dir);
	free(dir);
}

/* cmocka setup and teardown of a test in a fresh directory, *@state. */
static inline int tmpdir_setup(void **state)
{
	*state = make_tmpdir();
	return 0;
}

static inline int tmpdir_teardown(void **state)
{
	rm_tree(*state);
	return 0;
}

/* Write @text to @path (created or truncated). */
static inline void write_text_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	assert_int_equal(fclose(f), 0);
}

/* Sub-folders of @dir, sorted, NULL-terminated; free with free_names(). */
static inline char **list_dir(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct stat st;
	char **names = NULL, path[1024];

	*n = 0;
	assert_non_null(d);
	while ((de = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (de->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		names = realloc(names, (*n + 2) * sizeof(*names));
		names[(*n)++] = strdup(de->d_name);
	}
	closedir(d);
	if (names) {
		names[*n] = NULL;
		for (size_t i = 1; i < *n; i++) /* insertion sort: a few dozen names */
			for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
				char *t = names[j];
				names[j] = names[j - 1];
				names[j - 1] = t;
			}
	}
	return names;
}

static inline void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static inline size_t count_cases(const char *dir)
{
	size_t n;
	char **names = list_dir(dir, &n);

	free_names(names, n);
	return n;
}

/* The whole of @path (NUL-terminated for text), its size in @size. */
static inline char *read_all(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, got;

	assert_non_null(f);
	do {
		if (cap - n < 4096)
			buf = realloc(buf, cap = cap * 2 + 8192);
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
	} while (got > 0);
	fclose(f);
	buf[n] = '\0';
	if (size)
		*size = n;
	return buf;
}

static inline int file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* One malformed-input case: the folder's path and the format to force. */
struct invalid_case {
	char dir[512];
	enum tlbsim_trace_format format;
};

/* Open and read the case's input to its first error, and compare it. */
static inline void run_invalid_case(void **state)
{
	const struct invalid_case *c = *state;
	struct tlbsim_error err;
	struct tlbsim_event ev;
	tlbsim_trace_reader *r = NULL;
	char path[600], code[32], *want, *msg, *nl;
	int line, col, rc;
	long long offset;

	snprintf(path, sizeof(path), "%s/error", c->dir);
	want = read_all(path, NULL);
	assert_int_equal(sscanf(want, "%d %d %lld %31s", &line, &col, &offset, code), 4);
	msg = strchr(want, '\n');
	assert_non_null(msg);
	msg++;
	if ((nl = strchr(msg, '\n')))
		*nl = '\0';

	tlbsim_error_clear(&err);
	snprintf(path, sizeof(path), "%s/input", c->dir);
	rc = tlbsim_trace_open(path, c->format, &r, &err);
	while (rc == 0) {
		rc = tlbsim_trace_next(r, &ev, &err);
		if (rc == 0)
			fail_msg("%s: the input was read to its end without an error", c->dir);
		if (rc == 1)
			rc = 0;
	}
	tlbsim_trace_close(r);
	print_message("%s: %s:%d:%d @%lld %s: %s\n", c->dir, err.source, err.line, err.column,
		      err.offset, tlbsim_err_name(rc), err.text);
	assert_string_equal(tlbsim_err_name(rc), code);
	assert_int_equal(err.code, rc);
	assert_string_equal(err.source, path);
	assert_int_equal(err.line, line);
	assert_int_equal(err.column, col);
	assert_int_equal(err.offset, offset);
	if (!strstr(err.text, msg))
		fail_msg("%s: error text '%s' lacks '%s'", c->dir, err.text, msg);
	free(want);
}

/* One cmocka test per folder of @dir, named after the folder. */
static inline int run_invalid_cases(const char *group, const char *dir,
				    enum tlbsim_trace_format format)
{
	size_t n;
	char **names = list_dir(dir, &n);
	struct CMUnitTest *tests = calloc(n, sizeof(*tests));
	struct invalid_case *cases = calloc(n, sizeof(*cases));
	int failed;

	for (size_t i = 0; i < n; i++) {
		snprintf(cases[i].dir, sizeof(cases[i].dir), "%s/%s", dir, names[i]);
		cases[i].format = format;
		tests[i].name = names[i];
		tests[i].test_func = run_invalid_case;
		tests[i].initial_state = &cases[i];
	}
	failed = _cmocka_run_group_tests(group, tests, n, NULL, NULL);
	free(tests);
	free(cases);
	free_names(names, n);
	return failed;
}

#endif

/*
 * A native binary trace worked out by hand from traces/FORMAT.md, with the
 * events it encodes.  Header: magic, version 1, isa 2 (arm64), page_shift
 * 12, 2 threads, source "abc".  Each address is the zigzag varint of its
 * distance from the same thread's previous address (0 at first).
 */
static const uint8_t documented_trace[] = {
    'T',
    'L',
    'B',
    'S',
    'I',
    'M',
    'T',
    'R',
    0x01,
    0x00,
    0x02,
    0x0c,
    0x02,
    0x00,
    0x00,
    0x00,
    0x03,
    0x00,
    'a',
    'b',
    'c',
    /* T1 load 0x1000 8: 0x80 tid flag | 0x40 access | load 0 << 3 | log2(8) = 0xc3,
     * tid 1, zigzag(0x1000) = 0x2000 = varint 80 40 */
    0xc3,
    0x01,
    0x80,
    0x40,
    /* T1 load 0x1008 8: delta 8, zigzag 16 */
    0x43,
    0x10,
    /* T1 store 0x1000 8: 0x40 | 1 << 3 | 3, delta -8, zigzag 15 */
    0x4b,
    0x0f,
    /* T2 load 0x2000 8: new thread, its first address: zigzag 0x4000 = 80 80 01 */
    0xc3,
    0x02,
    0x80,
    0x80,
    0x01,
    /* T1 load 0x1010 8: back to T1, whose last address was 0x1000: delta 0x10 */
    0xc3,
    0x01,
    0x20,
    /* T1 load 0xff8 4: 0x40 | log2(4), delta -0x18, zigzag 0x2f */
    0x42,
    0x2f,
    /* T1 load 0x1000 3: size 3 has no compact form: kind 1, va delta 8, size 3 */
    0x01,
    0x10,
    0x03,
    /* T1 compute 300 insns: kind 4, 300 = 0x12c = varint ac 02, unit 1 */
    0x04,
    0xac,
    0x02,
    0x01,
    /* cpu2 tlbi vae1is va=0x1000 asid=5: set cpu 2, then kind 23 with tid 0:
     * op 0 (vae1), flags 1 (is), va (thread 0's first) 80 40, asid 5, unknown 0 */
    0x7f,
    0x02,
    0x97,
    0x00,
    0x00,
    0x01,
    0x80,
    0x40,
    0x05,
    0x00,
    /* end record: 9 events */
    0x00,
    0x09,
};

static const char *const documented_events[] = {
    "T1 load 0x1000 8", "T1 load 0x1008 8",	"T1 store 0x1000 8",
    "T2 load 0x2000 8", "T1 load 0x1010 8",	"T1 load 0xff8 4",
    "T1 load 0x1000 3", "T1 compute 300 insns", "cpu2 tlbi vae1is va=0x1000 asid=5",
};
