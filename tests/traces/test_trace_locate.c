/* SPDX-License-Identifier: MIT */
/*
 * Where an event starts in its trace (traces/reader.c's
 * tlbsim_trace_position(), each reader's position op) and errors that name
 * an event filed there (traces/trace_locate.c's tlbsim_trace_locate()):
 * text lines counted with the header, comments and blank lines; native
 * binary offsets worked out from traces/FORMAT.md's record layout, the
 * same in the decompressed stream of a zstd file; lackey lines from
 * tests/data/traces/lackey/excerpt.log.
 */
#include <sys/stat.h>

#include "trace_test.h"
#include "lackey_excerpt.h"

/*
 * Line  offset  (each line's bytes and its "\n")
 *  1      0    "tlbsim-trace 1 isa=x86-64 page_shift=12": 12 + 2 + 11 + 14 = 39, +1
 *  2     40    "# a comment": 11, +1
 *  3     52    "proc_create 1 1"                 event 0
 *  4           ""
 *  5           "   # indented"
 *  6           "T1 thread_create 2"              event 1
 *  7           "T1 load 0x1000 8 # trailing"     event 2
 */
static const char text_trace[] = "tlbsim-trace 1 isa=x86-64 page_shift=12\n"
				 "# a comment\n"
				 "proc_create 1 1\n"
				 "\n"
				 "   # indented\n"
				 "T1 thread_create 2\n"
				 "T1 load 0x1000 8 # trailing\n";

/*
 * Events 0..12 of the binary trace below, as text; written by the library's
 * writer with an empty source.  Its bytes (traces/FORMAT.md, "Binary
 * format"):
 *   0..17  header: 18 bytes, source length 0
 *  18..20  05 01 01      proc_create 1 1 (no thread: no tid byte; cpu stays 65535)    event 0
 *  21..22  7f 02         set_cpu 2, no event
 *  23..26  c3 01 80 40   0x80 | 0x40 | load << 3 | log2 8, tid 1, zigzag 0x1000 = 0x2000 event 1
 *  27..46  43 10 x 10    loads 0x1008..0x1050, delta 8 = zigzag 16: event k at 27 + 2(k - 2)
 *  47..49  02 00 03      store of 3 bytes (no compact form): va delta 0, size 3          event 12
 *  50..51  00 0d         end: 13 events
 */
#define BIN_EVENTS 13
static const long long bin_offset[BIN_EVENTS] = {18, 23, 27, 29, 31, 33, 35,
						 37, 39, 41, 43, 45, 47};

/* The binary trace above at @dir/@name, compressed as @c; its path in @path. */
static void write_binary(const char *dir, const char *name, enum tlbsim_trace_compression c,
			 char *path, size_t size)
{
	const struct tlbsim_trace_info info = {.isa = TLBSIM_ISA_X86_64, .page_shift = 12};
	tlbsim_trace_writer *w;
	struct tlbsim_event ev;
	struct tlbsim_error err;
	int i;

	snprintf(path, size, "%s/%s", dir, name);
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_trace_writer_open(path, TLBSIM_TRACE_BINARY, c, &info, &w, &err),
			 0);
	for (i = 0; i < BIN_EVENTS; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.cpu = i == 0 ? TLBSIM_CPU_ANY : 2;
		if (i == 0) {
			ev.kind = TLBSIM_EV_PROC_CREATE;
			ev.proc_create.pid = 1;
			ev.proc_create.tid = 1;
		} else {
			ev.kind = i == BIN_EVENTS - 1 ? TLBSIM_EV_STORE : TLBSIM_EV_LOAD;
			ev.tid = 1;
			ev.access.va =
			    i == BIN_EVENTS - 1 ? 0x1050 : 0x1000 + 8 * (uint64_t)(i - 1);
			ev.access.size = i == BIN_EVENTS - 1 ? 3 : 8;
		}
		assert_int_equal(tlbsim_trace_writer_write(w, &ev, &err), 0);
	}
	assert_int_equal(tlbsim_trace_writer_close(w, &err), 0);
}

/* Read @path one event at a time; the position of each into @line/@offset. */
static int positions(const char *path, uint64_t *line, long long *offset, int max)
{
	tlbsim_trace_reader *r;
	struct tlbsim_event ev;
	struct tlbsim_error err;
	uint64_t l, o;
	int n = 0, rc;

	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_trace_open(path, TLBSIM_TRACE_AUTO, &r, &err), 0);
	/* no event read yet: no position */
	assert_int_equal(tlbsim_trace_position(r, &l, &o), -TLBSIM_ENOENT);
	while ((rc = tlbsim_trace_next(r, &ev, &err)) > 0 && n < max) {
		assert_int_equal(tlbsim_trace_position(r, &l, &o), 0);
		line[n] = l;
		offset[n++] = (long long)o;
	}
	assert_true(rc >= 0);
	if (rc == 0) /* the end: no event, no position */
		assert_int_equal(tlbsim_trace_position(r, &l, &o), -TLBSIM_ENOENT);
	tlbsim_trace_close(r);
	return n;
}

static void text_position_counts_header_comment_and_blank_lines(void **state)
{
	uint64_t line[8];
	long long offset[8];
	char path[TLBSIM_ERROR_SOURCE_LEN];

	snprintf(path, sizeof(path), "%s/t.txt", (char *)*state);
	write_text_file(path, text_trace);
	assert_int_equal(positions(path, line, offset, 8), 3);
	assert_int_equal(line[0], 3);
	assert_int_equal(offset[0], 52);
	assert_int_equal(line[1], 6);
	/* 52 + "proc_create 1 1\n" 16 + "\n" 1 + "   # indented\n" 14 */
	assert_int_equal(offset[1], 83);
	assert_int_equal(line[2], 7);
	/* 83 + "T1 thread_create 2\n" 19 */
	assert_int_equal(offset[2], 102);
}

static void check_binary_offsets(const char *path)
{
	uint64_t line[BIN_EVENTS];
	long long offset[BIN_EVENTS];

	assert_int_equal(positions(path, line, offset, BIN_EVENTS), BIN_EVENTS);
	for (int i = 0; i < BIN_EVENTS; i++) {
		assert_int_equal(line[i], 0); /* binary: no lines */
		assert_int_equal(offset[i], bin_offset[i]);
	}
}

static void binary_position_is_the_event_record_not_the_set_cpu_before_it(void **state)
{
	char path[TLBSIM_ERROR_SOURCE_LEN];

	write_binary(*state, "b.tlbt", TLBSIM_COMPRESS_NONE, path, sizeof(path));
	check_binary_offsets(path);
}

static void zstd_binary_position_is_in_the_decompressed_stream(void **state)
{
	char path[TLBSIM_ERROR_SOURCE_LEN];

	write_binary(*state, "b.tlbt.zst", TLBSIM_COMPRESS_ZSTD, path, sizeof(path));
	check_binary_offsets(path);
}

static void a_batch_leaves_no_position_until_the_next_single_event(void **state)
{
	struct tlbsim_event ev[4];
	struct tlbsim_error err;
	tlbsim_trace_reader *r;
	char path[TLBSIM_ERROR_SOURCE_LEN];
	uint64_t l, o;

	write_binary(*state, "b.tlbt", TLBSIM_COMPRESS_NONE, path, sizeof(path));
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_trace_open(path, TLBSIM_TRACE_AUTO, &r, &err), 0);
	assert_int_equal(tlbsim_trace_next(r, ev, &err), 1);
	assert_int_equal(tlbsim_trace_position(r, &l, &o), 0);
	assert_int_equal(tlbsim_trace_next_batch(r, ev, 4, &err), 4); /* events 1..4 */
	assert_int_equal(tlbsim_trace_position(r, &l, &o), -TLBSIM_ENOENT);
	assert_int_equal(tlbsim_trace_next(r, ev, &err), 1); /* event 5 */
	assert_int_equal(tlbsim_trace_position(r, NULL, &o), 0);
	assert_int_equal(o, bin_offset[5]);
	tlbsim_trace_close(r);
}

/*
 * excerpt.log (lackey_excerpt.h): event 0 comes of line 1's banner, the
 * implied mmap 1 and fetch 2 of line 9, fetch 3 of line 10, mmap 4 and
 * store 5 of line 11, brk 6 of line 12; mmap 7 and brk 8 and 9 of lines
 * 13-15, then thread_create 10 of clone()'s line 18.
 */
static void lackey_position_is_the_line_an_event_was_made_of(void **state)
{
	static const uint64_t want[] = {1, 9, 9, 10, 11, 11, 12};
	uint64_t line[12];
	long long offset[12];
	size_t size;
	char *log = read_all(LACKEY_EXCERPT, &size), *at;

	(void)state;
	assert_int_equal(positions(LACKEY_EXCERPT, line, offset, 12), 12);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(line[i], want[i]);
	assert_int_equal(line[10], 18);
	/* the offset is that of the line's first byte */
	at = strstr(log, "\n S 1fff000708,8\n");
	assert_non_null(at);
	assert_int_equal(offset[5], at + 1 - log);
	free(log);
}

/* A report as the OS model makes it: event @event, no position. */
static void event_error(struct tlbsim_error *err, const char *path, long long event)
{
	tlbsim_error_clear(err);
	err->code = -TLBSIM_EINVAL;
	err->event = event;
	snprintf(err->source, sizeof(err->source), "%s", path);
	snprintf(err->text, sizeof(err->text), "event %lld (load): a test", event);
}

static void locate_files_a_text_error_at_its_line(void **state)
{
	struct tlbsim_error err;
	char path[TLBSIM_ERROR_SOURCE_LEN], msg[1024], want[1024];

	snprintf(path, sizeof(path), "%s/t.txt", (char *)*state);
	write_text_file(path, text_trace);
	event_error(&err, path, 2);
	assert_int_equal(tlbsim_trace_locate(path, NULL, &err), 0);
	assert_int_equal(err.line, 7);
	assert_int_equal(err.offset, 102);
	assert_int_equal(err.event, 2);
	assert_int_equal(err.code, -TLBSIM_EINVAL);
	tlbsim_error_format(&err, msg, sizeof(msg));
	snprintf(want, sizeof(want), "%s:7: event 2 (load): a test", path);
	assert_string_equal(msg, want);
}

static void locate_files_a_binary_error_at_its_record_offset(void **state)
{
	struct tlbsim_error err;
	char path[TLBSIM_ERROR_SOURCE_LEN], msg[1024], want[1024];

	write_binary(*state, "b.tlbt.zst", TLBSIM_COMPRESS_ZSTD, path, sizeof(path));
	event_error(&err, path, 12);
	assert_int_equal(tlbsim_trace_locate(path, NULL, &err), 0);
	assert_int_equal(err.line, -1);
	assert_int_equal(err.offset, 47);
	tlbsim_error_format(&err, msg, sizeof(msg));
	snprintf(want, sizeof(want), "%s:@47: event 12 (load): a test", path);
	assert_string_equal(msg, want);
}

static void locate_leaves_the_error_alone_when_it_cannot_say(void **state)
{
	struct tlbsim_error err, before;
	char path[TLBSIM_ERROR_SOURCE_LEN];

	write_binary(*state, "b.tlbt", TLBSIM_COMPRESS_NONE, path, sizeof(path));
	/* an event past the end: the trace changed since */
	event_error(&err, path, BIN_EVENTS);
	before = err;
	assert_int_equal(tlbsim_trace_locate(path, NULL, &err), -TLBSIM_ENOENT);
	assert_memory_equal(&err, &before, sizeof(err));
	/* no event named */
	event_error(&err, path, -1);
	before = err;
	assert_int_equal(tlbsim_trace_locate(path, NULL, &err), -TLBSIM_EINVAL);
	assert_memory_equal(&err, &before, sizeof(err));
	/* a position already (a reader's own error) */
	event_error(&err, path, 1);
	err.offset = 5;
	before = err;
	assert_int_equal(tlbsim_trace_locate(path, NULL, &err), -TLBSIM_EINVAL);
	assert_memory_equal(&err, &before, sizeof(err));
	/* a file that is gone */
	event_error(&err, "/nonexistent/t.tlbt", 0);
	before = err;
	assert_int_equal(tlbsim_trace_locate("/nonexistent/t.tlbt", NULL, &err), -TLBSIM_ENOENT);
	assert_memory_equal(&err, &before, sizeof(err));
	/* a FIFO: opening it would wait for a writer (none here), so it is
	 * refused before any open */
	snprintf(path, sizeof(path), "%s/fifo", (const char *)*state);
	assert_int_equal(mkfifo(path, 0600), 0);
	event_error(&err, path, 0);
	before = err;
	assert_int_equal(tlbsim_trace_locate(path, NULL, &err), -TLBSIM_ENOTSUP);
	assert_memory_equal(&err, &before, sizeof(err));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(text_position_counts_header_comment_and_blank_lines,
					    tmpdir_setup, tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(
		binary_position_is_the_event_record_not_the_set_cpu_before_it, tmpdir_setup,
		tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(zstd_binary_position_is_in_the_decompressed_stream,
					    tmpdir_setup, tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(a_batch_leaves_no_position_until_the_next_single_event,
					    tmpdir_setup, tmpdir_teardown),
	    cmocka_unit_test(lackey_position_is_the_line_an_event_was_made_of),
	    cmocka_unit_test_setup_teardown(locate_files_a_text_error_at_its_line, tmpdir_setup,
					    tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(locate_files_a_binary_error_at_its_record_offset,
					    tmpdir_setup, tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(locate_leaves_the_error_alone_when_it_cannot_say,
					    tmpdir_setup, tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
