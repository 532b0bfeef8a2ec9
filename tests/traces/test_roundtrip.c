/* SPDX-License-Identifier: MIT */
/*
 * Round trips through both formats and all three compressions: the events
 * of tests/data/traces/all_kinds.txt (every kind, every field, written in
 * the canonical spelling) must come back as the same lines, in the same
 * number, whichever way they travel.  The expected lines and their count
 * are taken from the file by plain line filtering here, not by the reader
 * under test.
 */
#include "trace_test.h"

#define ALL_KINDS "tests/data/traces/all_kinds.txt"

/* The event lines of a canonical text trace: not the header, comments, blanks. */
static char **event_lines(const char *path, size_t *n)
{
	char *text = read_all(path, NULL), *save, *line;
	char **lines = NULL;
	int first = 1;

	*n = 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (first || line[0] == '#' || line[0] == '\0') {
			first = 0;
			continue;
		}
		lines = realloc(lines, (*n + 1) * sizeof(*lines));
		lines[(*n)++] = strdup(line);
	}
	free(text);
	return lines;
}

/* Copy every event of @src into a new trace @dst of @format and @comp. */
static void convert(const char *src, const char *dst, enum tlbsim_trace_format format,
		    enum tlbsim_trace_compression comp, uint64_t *count)
{
	tlbsim_trace_reader *r;
	tlbsim_trace_writer *w;
	struct tlbsim_event ev;
	struct tlbsim_error err;
	int rc;

	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_trace_open(src, TLBSIM_TRACE_AUTO, &r, &err), 0);
	assert_int_equal(
	    tlbsim_trace_writer_open(dst, format, comp, tlbsim_trace_info(r), &w, &err), 0);
	*count = 0;
	while ((rc = tlbsim_trace_next(r, &ev, &err)) == 1) {
		assert_int_equal(tlbsim_trace_writer_write(w, &ev, &err), 0);
		(*count)++;
	}
	if (rc < 0)
		fail_msg("%s:%d:%d: %s", err.source, err.line, err.column, err.text);
	assert_int_equal(tlbsim_trace_nr_events(r), *count);
	tlbsim_trace_close(r);
	assert_int_equal(tlbsim_trace_writer_close(w, &err), 0);
}

/* Read @path back and compare its lines, header info and kinds covered. */
static void expect_lines(const char *path, enum tlbsim_trace_format format,
			 enum tlbsim_trace_compression comp)
{
	size_t n;
	char **want = event_lines(ALL_KINDS, &n);
	char line[TLBSIM_EVENT_LINE_MAX];
	const struct tlbsim_trace_info *info;
	tlbsim_trace_reader *r;
	struct tlbsim_event ev;
	struct tlbsim_error err;
	uint64_t kinds_seen = 0;
	size_t i = 0;
	int rc;

	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_trace_open(path, TLBSIM_TRACE_AUTO, &r, &err), 0);
	info = tlbsim_trace_info(r);
	/* the header line of all_kinds.txt */
	assert_int_equal(info->format, format);
	assert_int_equal(info->compression, comp);
	assert_int_equal(info->version, 1);
	assert_int_equal(info->isa, TLBSIM_ISA_X86_64);
	assert_int_equal(info->page_shift, 12);
	assert_int_equal(info->nr_threads, 3);
	assert_string_equal(info->source, "hand-written: every event kind, every field");
	while ((rc = tlbsim_trace_next(r, &ev, &err)) == 1) {
		assert_true(i < n);
		tlbsim_event_format(&ev, line, sizeof(line));
		assert_string_equal(line, want[i]);
		kinds_seen |= UINT64_C(1) << ev.kind;
		i++;
	}
	if (rc < 0)
		fail_msg("%s: %s", err.source, err.text);
	assert_int_equal(i, n);
	assert_int_equal(tlbsim_trace_nr_events(r), n);
	/* every kind that has a name (values reserved for other kinds have
	 * none yet): 1 .. 46, 48 and 49, by event.h's list */
	{
		uint64_t want_kinds = 0;

		for (unsigned k = 1; k < TLBSIM_EV_NR_KINDS; k++)
			if (strcmp(tlbsim_event_kind_name(k), "unknown"))
				want_kinds |= UINT64_C(1) << k;
		assert_int_equal(want_kinds, ((UINT64_C(1) << 47) - 2) | UINT64_C(3) << 48);
		assert_int_equal(kinds_seen, want_kinds);
	}
	tlbsim_trace_close(r);
	for (i = 0; i < n; i++)
		free(want[i]);
	free(want);
}

static void roundtrip(enum tlbsim_trace_compression comp)
{
	char *dir = make_tmpdir();
	char bin[600], text[600];
	uint64_t count, count2;
	size_t n;
	char **lines = event_lines(ALL_KINDS, &n);

	free_names(lines, n);
	/* by hand: all_kinds.txt has 98 lines, a header and 2 comment lines */
	assert_int_equal(n, 95);
	snprintf(bin, sizeof(bin), "%s/t.bin", dir);
	snprintf(text, sizeof(text), "%s/t.txt", dir);
	convert(ALL_KINDS, bin, TLBSIM_TRACE_BINARY, comp, &count);
	assert_int_equal(count, n);
	expect_lines(bin, TLBSIM_TRACE_BINARY, comp);
	/* and back to text, through the binary trace */
	convert(bin, text, TLBSIM_TRACE_TEXT, comp, &count2);
	assert_int_equal(count2, n);
	expect_lines(text, TLBSIM_TRACE_TEXT, comp);
	rm_tree(dir);
}

static void text_to_binary_to_text_gives_identical_lines(void **state)
{
	roundtrip(TLBSIM_COMPRESS_NONE);
}

static void zstd_binary_and_text_round_trip(void **state)
{
	roundtrip(TLBSIM_COMPRESS_ZSTD);
}

static void xz_binary_and_text_round_trip(void **state)
{
	roundtrip(TLBSIM_COMPRESS_XZ);
}

/* The text writer reproduces the canonical file byte for byte, comments aside. */
static void text_writer_reproduces_the_canonical_file(void **state)
{
	char *dir = make_tmpdir();
	char out[600], *want, *got, *dst;
	const char *p;
	uint64_t count;

	snprintf(out, sizeof(out), "%s/t.txt", dir);
	convert(ALL_KINDS, out, TLBSIM_TRACE_TEXT, TLBSIM_COMPRESS_NONE, &count);
	want = read_all(ALL_KINDS, NULL);
	/* drop the comment lines from the expected text */
	for (p = dst = want; *p;) {
		size_t len = strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n');

		if (*p != '#') {
			memmove(dst, p, len);
			dst += len;
		}
		p += len;
	}
	*dst = '\0';
	got = read_all(out, NULL);
	assert_string_equal(got, want);
	free(want);
	free(got);
	rm_tree(dir);
}

/* The 3 ways in (path, FILE *, memory) read the same compressed trace alike. */
static void file_stream_and_memory_inputs_agree(void **state)
{
	char *dir = make_tmpdir();
	char path[600], line[3][TLBSIM_EVENT_LINE_MAX];
	char *buf;
	size_t size;
	uint64_t count;
	tlbsim_trace_reader *r[3];
	struct tlbsim_event ev;
	FILE *f;
	int rc[3];

	snprintf(path, sizeof(path), "%s/t.bin.zst", dir);
	convert(ALL_KINDS, path, TLBSIM_TRACE_BINARY, TLBSIM_COMPRESS_ZSTD, &count);
	buf = read_all(path, &size);
	f = fopen(path, "rb");
	assert_int_equal(tlbsim_trace_open(path, TLBSIM_TRACE_AUTO, &r[0], NULL), 0);
	assert_int_equal(tlbsim_trace_open_file(f, "<f>", TLBSIM_TRACE_AUTO, &r[1], NULL), 0);
	assert_int_equal(tlbsim_trace_open_mem(buf, size, NULL, TLBSIM_TRACE_BINARY, &r[2], NULL),
			 0);
	do {
		for (int i = 0; i < 3; i++) {
			rc[i] = tlbsim_trace_next(r[i], &ev, NULL);
			tlbsim_event_format(&ev, line[i], sizeof(line[i]));
		}
		assert_int_equal(rc[0], rc[1]);
		assert_int_equal(rc[0], rc[2]);
		if (rc[0] == 1) {
			assert_string_equal(line[0], line[1]);
			assert_string_equal(line[0], line[2]);
		}
	} while (rc[0] == 1);
	assert_int_equal(rc[0], 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(tlbsim_trace_nr_events(r[i]), count);
		tlbsim_trace_close(r[i]);
	}
	fclose(f);
	free(buf);
	rm_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(text_to_binary_to_text_gives_identical_lines),
	    cmocka_unit_test(zstd_binary_and_text_round_trip),
	    cmocka_unit_test(xz_binary_and_text_round_trip),
	    cmocka_unit_test(text_writer_reproduces_the_canonical_file),
	    cmocka_unit_test(file_stream_and_memory_inputs_agree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
