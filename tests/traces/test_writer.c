/* SPDX-License-Identifier: MIT */
/*
 * Trace writers (traces/writer.c, trace_out.c, write_native.c): the
 * temp-file protocol (nothing half-written under the final name, no temp
 * file left behind), refusal of invalid events and headers, the exact
 * bytes of the binary format against the trace worked out by hand in
 * trace_test.h, and truncation of big compressed traces being an error.
 */
#include "trace_test.h"

static const struct tlbsim_trace_info x86_info = {
    .isa = TLBSIM_ISA_X86_64,
    .page_shift = 12,
    .nr_threads = 1,
    .source = "test_writer",
};

static struct tlbsim_event load(uint32_t tid, uint64_t va)
{
	struct tlbsim_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = TLBSIM_EV_LOAD;
	ev.tid = tid;
	ev.cpu = TLBSIM_CPU_ANY;
	ev.access.va = va;
	ev.access.size = 8;
	return ev;
}

/* The only entry of @dir, or NULL if it has none; fails if it has more. */
static char *only_file(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *name = NULL;

	assert_non_null(d);
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		assert_null(name);
		name = strdup(de->d_name);
	}
	closedir(d);
	return name;
}

static tlbsim_trace_writer *open_with_one_event(const char *path)
{
	tlbsim_trace_writer *w;
	struct tlbsim_event ev = load(1, 0x1000);

	assert_int_equal(tlbsim_trace_writer_open(path, TLBSIM_TRACE_BINARY, TLBSIM_COMPRESS_ZSTD,
						  &x86_info, &w, NULL),
			 0);
	assert_int_equal(tlbsim_trace_writer_write(w, &ev, NULL), 0);
	return w;
}

static void while_writing_only_a_temp_file_exists_and_abort_removes_it(void **state)
{
	char *dir = make_tmpdir(), path[600], *name;
	tlbsim_trace_writer *w;

	snprintf(path, sizeof(path), "%s/t.bin", dir);
	w = open_with_one_event(path);
	name = only_file(dir);
	/* "t.bin.tmp." and 6 more characters, as mkstemp's XXXXXX */
	assert_non_null(name);
	assert_int_equal(strlen(name), strlen("t.bin.tmp.XXXXXX"));
	assert_memory_equal(name, "t.bin.tmp.", 10);
	free(name);
	tlbsim_trace_writer_abort(w);
	assert_null(only_file(dir));
	rm_tree(dir);
}

static void close_publishes_the_trace_and_leaves_no_temp_file(void **state)
{
	char *dir = make_tmpdir(), path[600], *name;
	tlbsim_trace_reader *r;
	struct tlbsim_event ev;

	snprintf(path, sizeof(path), "%s/t.bin", dir);
	assert_int_equal(tlbsim_trace_writer_close(open_with_one_event(path), NULL), 0);
	name = only_file(dir);
	assert_string_equal(name, "t.bin");
	free(name);
	assert_int_equal(tlbsim_trace_open(path, TLBSIM_TRACE_AUTO, &r, NULL), 0);
	assert_int_equal(tlbsim_trace_info(r)->compression, TLBSIM_COMPRESS_ZSTD);
	assert_string_equal(tlbsim_trace_info(r)->source, "test_writer");
	assert_int_equal(tlbsim_trace_next(r, &ev, NULL), 1);
	assert_int_equal(tlbsim_trace_next(r, &ev, NULL), 0);
	tlbsim_trace_close(r);
	rm_tree(dir);
}

static void abort_keeps_the_previous_file_and_close_replaces_it(void **state)
{
	char *dir = make_tmpdir(), path[600], *text;
	FILE *f;

	snprintf(path, sizeof(path), "%s/t.bin", dir);
	f = fopen(path, "w");
	fputs("old", f);
	fclose(f);
	tlbsim_trace_writer_abort(open_with_one_event(path));
	text = read_all(path, NULL);
	assert_string_equal(text, "old");
	free(text);
	assert_int_equal(tlbsim_trace_writer_close(open_with_one_event(path), NULL), 0);
	text = read_all(path, NULL);
	/* zstd frame magic, RFC 8878 3.1.1 */
	assert_memory_equal(text, "\x28\xb5\x2f\xfd", 4);
	free(text);
	rm_tree(dir);
}

static void invalid_events_are_refused_and_the_writer_stays_usable(void **state)
{
	char *dir = make_tmpdir(), path[600];
	tlbsim_trace_writer *w;
	tlbsim_trace_reader *r;
	struct tlbsim_event ev = load(TLBSIM_TID_NONE, 0x1000), good = load(1, 0x2000);
	struct tlbsim_error err;

	snprintf(path, sizeof(path), "%s/t.txt", dir);
	assert_int_equal(tlbsim_trace_writer_open(path, TLBSIM_TRACE_TEXT, TLBSIM_COMPRESS_NONE,
						  &x86_info, &w, NULL),
			 0);
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_trace_writer_write(w, &ev, &err), -TLBSIM_EINVAL);
	assert_string_equal(err.text, "event 0: load: a thread (T<tid>) expected");
	assert_string_equal(err.source, path);
	assert_int_equal(tlbsim_trace_writer_write(w, &good, NULL), 0);
	assert_int_equal(tlbsim_trace_writer_close(w, NULL), 0);
	assert_int_equal(tlbsim_trace_open(path, TLBSIM_TRACE_TEXT, &r, NULL), 0);
	assert_int_equal(tlbsim_trace_next(r, &ev, NULL), 1);
	assert_memory_equal(&ev, &good, sizeof(ev));
	assert_int_equal(tlbsim_trace_next(r, &ev, NULL), 0);
	tlbsim_trace_close(r);
	rm_tree(dir);
}

static void bad_headers_are_refused_before_any_file_is_made(void **state)
{
	char *dir = make_tmpdir(), path[600];
	struct tlbsim_trace_info info = x86_info;
	tlbsim_trace_writer *w;
	struct tlbsim_error err;

	snprintf(path, sizeof(path), "%s/t.bin", dir);
	info.page_shift = 13;
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_trace_writer_open(path, TLBSIM_TRACE_BINARY, TLBSIM_COMPRESS_NONE,
						  &info, &w, &err),
			 -TLBSIM_EINVAL);
	assert_null(w);
	assert_non_null(strstr(err.text, "page_shift: 12, 14 or 16 expected, found 13"));
	info = x86_info;
	strcpy(info.source, "two\nlines");
	assert_int_equal(tlbsim_trace_writer_open(path, TLBSIM_TRACE_TEXT, TLBSIM_COMPRESS_NONE,
						  &info, &w, NULL),
			 -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_trace_writer_open(path, TLBSIM_TRACE_AUTO, TLBSIM_COMPRESS_NONE,
						  &x86_info, &w, NULL),
			 -TLBSIM_EINVAL);
	assert_null(only_file(dir));
	rm_tree(dir);
}

static void an_unwritable_directory_is_an_io_error_naming_the_path(void **state)
{
	tlbsim_trace_writer *w;
	struct tlbsim_error err;

	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_trace_writer_open("/nonexistent-dir/t.bin", TLBSIM_TRACE_BINARY,
						  TLBSIM_COMPRESS_NONE, &x86_info, &w, &err),
			 -TLBSIM_EIO);
	assert_string_equal(err.source, "/nonexistent-dir/t.bin");
	assert_non_null(strstr(err.text, "No such file or directory"));
}

/* The binary writer produces the hand-encoded bytes of trace_test.h. */
static void binary_writer_emits_the_documented_bytes(void **state)
{
	char *dir = make_tmpdir(), path[600], text[2048] = "", *bytes;
	tlbsim_trace_reader *r;
	tlbsim_trace_writer *w;
	struct tlbsim_event ev;
	size_t size;

	/* the documented events, as a text trace with the documented header */
	strcat(text, "tlbsim-trace 1 isa=arm64 page_shift=12 threads=2 source=abc\n");
	for (size_t i = 0; i < sizeof(documented_events) / sizeof(documented_events[0]); i++) {
		strcat(text, documented_events[i]);
		strcat(text, "\n");
	}
	snprintf(path, sizeof(path), "%s/t.bin", dir);
	assert_int_equal(
	    tlbsim_trace_open_mem(text, strlen(text), NULL, TLBSIM_TRACE_TEXT, &r, NULL), 0);
	assert_int_equal(tlbsim_trace_writer_open(path, TLBSIM_TRACE_BINARY, TLBSIM_COMPRESS_NONE,
						  tlbsim_trace_info(r), &w, NULL),
			 0);
	while (tlbsim_trace_next(r, &ev, NULL) == 1)
		assert_int_equal(tlbsim_trace_writer_write(w, &ev, NULL), 0);
	tlbsim_trace_close(r);
	assert_int_equal(tlbsim_trace_writer_close(w, NULL), 0);
	bytes = read_all(path, &size);
	assert_int_equal(size, sizeof(documented_trace));
	assert_memory_equal(bytes, documented_trace, size);
	free(bytes);
	rm_tree(dir);
}

/*
 * 100000 loads at random addresses (a 64-bit LCG, Knuth's MMIX constants)
 * into @path, compressed with @comp.
 */
static void write_random_loads(const char *path, enum tlbsim_trace_compression comp)
{
	tlbsim_trace_writer *w;
	struct tlbsim_event ev;
	uint64_t x = 1;

	assert_int_equal(
	    tlbsim_trace_writer_open(path, TLBSIM_TRACE_BINARY, comp, &x86_info, &w, NULL), 0);
	for (int i = 0; i < 100000; i++) {
		x = x * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
		ev = load(1, (x >> 20) & ~UINT64_C(7));
		assert_int_equal(tlbsim_trace_writer_write(w, &ev, NULL), 0);
	}
	assert_int_equal(tlbsim_trace_writer_close(w, NULL), 0);
}

/*
 * A trace bigger than the reader's windows, cut in half: whatever the
 * compression, the reader returns events and then an error, never a clean
 * end.  Random addresses, so that the compressed stream is long too.
 */
static void cut_traces_end_in_an_error_not_a_short_run(void **state)
{
	static const enum tlbsim_trace_compression comps[] = {
	    TLBSIM_COMPRESS_NONE, TLBSIM_COMPRESS_ZSTD, TLBSIM_COMPRESS_XZ};
	char *dir = make_tmpdir(), path[600], *bytes;
	uint64_t n;
	size_t size;

	for (int c = 0; c < 3; c++) {
		tlbsim_trace_reader *r;
		struct tlbsim_event ev;
		int rc;

		snprintf(path, sizeof(path), "%s/t%d", dir, c);
		write_random_loads(path, comps[c]);
		bytes = read_all(path, &size);
		/* 100000 random 44-bit addresses cost more than 2 bytes each */
		assert_true(size > 200000);
		assert_int_equal(
		    tlbsim_trace_open_mem(bytes, size / 2, NULL, TLBSIM_TRACE_AUTO, &r, NULL), 0);
		n = 0;
		while ((rc = tlbsim_trace_next(r, &ev, NULL)) == 1)
			n++;
		assert_int_equal(rc, -TLBSIM_ETRUNC);
		assert_true(n > 0 && n < 100000);
		tlbsim_trace_close(r);
		free(bytes);
	}
	rm_tree(dir);
}

/* The error ending a read of @bytes[0, @size). */
static struct tlbsim_error read_error(const char *bytes, size_t size)
{
	tlbsim_trace_reader *r;
	struct tlbsim_event ev;
	struct tlbsim_error err;
	int rc;

	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_trace_open_mem(bytes, size, "t.zst", TLBSIM_TRACE_AUTO, &r, &err), 0);
	while ((rc = tlbsim_trace_next(r, &ev, &err)) == 1)
		;
	assert_int_equal(rc, -TLBSIM_EPARSE);
	tlbsim_trace_close(r);
	return err;
}

/*
 * Issue 30: a corrupt zstd stream is reported where it is found, not at
 * @0.  The frame is walked by hand (RFC 8878 3.1.1): 4 magic bytes, the
 * Frame_Header_Descriptor (bits 7-6 Frame_Content_Size_flag, bit 5
 * Single_Segment_flag, bits 1-0 Dictionary_ID_flag), a Window_Descriptor
 * byte unless single-segment, the dictionary id and content size fields,
 * then blocks, each a 3-byte little-endian header (bit 0 Last_Block, bits
 * 2-1 Block_Type, bits 23-3 Block_Size; an RLE block's content is 1 byte)
 * and its content, then the 4-byte checksum.  Block 2's type made 3
 * (Reserved) is corruption found on reading its header: the reader gives
 * zstd what it asked for, block 1's content and the next header, so the
 * error is at the end of that header, H2 + 3, in the bytes from block 1's
 * content (H1 + 3) on.  A flipped checksum byte is found at the frame's
 * end, the file's size, and the message names the whole frame.  Before,
 * both were reported at @0: the compressed bytes consumed before the
 * failing call, which had been given the file's first 64 KiB at once.
 */
static void issue_30_zstd_corruption_is_reported_where_it_is_found(void **state)
{
	static const unsigned fcs_size[4] = {0, 2, 4, 8}, did_size[4] = {0, 1, 2, 4};
	char *dir = make_tmpdir(), path[600], want[160], *bytes, saved;
	size_t size, h1, h2;
	struct tlbsim_error err;
	uint8_t fhd;

	snprintf(path, sizeof(path), "%s/t.zst", dir);
	write_random_loads(path, TLBSIM_COMPRESS_ZSTD);
	bytes = read_all(path, &size);
	fhd = (uint8_t)bytes[4];
	h1 = 5 + !(fhd & 0x20) + did_size[fhd & 3] +
	     (fcs_size[fhd >> 6] ? fcs_size[fhd >> 6] : (fhd & 0x20) != 0);
	{
		const uint8_t *b = (const uint8_t *)bytes + h1;
		uint32_t hdr = b[0] | b[1] << 8 | (uint32_t)b[2] << 16;

		/* 100000 random loads are more than one 128 KiB block */
		assert_false(hdr & 1);
		h2 = h1 + 3 + (((hdr >> 1) & 3) == 1 ? 1 : hdr >> 3);
	}
	assert_true(h2 + 3 < size);
	saved = bytes[h2];
	bytes[h2] |= 6;
	err = read_error(bytes, size);
	assert_int_equal(err.offset, (long long)h2 + 3);
	snprintf(want, sizeof(want), "in compressed bytes %zu..%zu", h1 + 3, h2 + 2);
	assert_non_null(strstr(err.text, want));
	bytes[h2] = saved;
	bytes[size - 2] ^= 0xff;
	err = read_error(bytes, size);
	assert_int_equal(err.offset, (long long)size);
	snprintf(want, sizeof(want),
		 "the checksum of the frame at compressed bytes 0..%zu does not match its content "
		 "(the trace from byte 0 on)",
		 size - 1);
	assert_non_null(strstr(err.text, want));
	free(bytes);
	rm_tree(dir);
}

/*
 * A trace onto an open stream (tlbsim convert IN -, gen -o -): written in
 * place, the stream flushed and left open; onto /dev/full, whose writes
 * fail with ENOSPC (Linux null(4)), -TLBSIM_EIO saying so.
 */
static void a_stream_writer_writes_in_place_and_reports_a_full_device(void **state)
{
	struct tlbsim_event ev = load(1, 0x1000);
	tlbsim_trace_writer *w;
	struct tlbsim_error err;
	char line[256];
	FILE *f = tmpfile();
	int rc;

	assert_non_null(f);
	assert_int_equal(tlbsim_trace_writer_open_stream(f, "the stream", TLBSIM_TRACE_TEXT,
							 TLBSIM_COMPRESS_NONE, &x86_info, &w, NULL),
			 0);
	assert_int_equal(tlbsim_trace_writer_write(w, &ev, NULL), 0);
	assert_int_equal(tlbsim_trace_writer_close(w, NULL), 0);
	/* still open: the caller's */
	rewind(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_memory_equal(line, "tlbsim-trace 1 isa=x86-64", 25);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "T1 load 0x1000 8\n");
	fclose(f);

	f = fopen("/dev/full", "w");
	assert_non_null(f);
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_trace_writer_open_stream(f, "the stream", TLBSIM_TRACE_BINARY,
							 TLBSIM_COMPRESS_ZSTD, &x86_info, &w, &err),
			 0);
	rc = 0;
	for (int i = 0; i < 100000 && !rc; i++)
		rc = tlbsim_trace_writer_write(w, &ev, &err);
	if (!rc)
		rc = tlbsim_trace_writer_close(w, &err);
	else
		tlbsim_trace_writer_abort(w);
	assert_int_equal(rc, -TLBSIM_EIO);
	assert_string_equal(err.source, "the stream");
	assert_string_equal(err.text, "cannot write: No space left on device");
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(while_writing_only_a_temp_file_exists_and_abort_removes_it),
	    cmocka_unit_test(close_publishes_the_trace_and_leaves_no_temp_file),
	    cmocka_unit_test(abort_keeps_the_previous_file_and_close_replaces_it),
	    cmocka_unit_test(invalid_events_are_refused_and_the_writer_stays_usable),
	    cmocka_unit_test(bad_headers_are_refused_before_any_file_is_made),
	    cmocka_unit_test(an_unwritable_directory_is_an_io_error_naming_the_path),
	    cmocka_unit_test(binary_writer_emits_the_documented_bytes),
	    cmocka_unit_test(cut_traces_end_in_an_error_not_a_short_run),
	    cmocka_unit_test(issue_30_zstd_corruption_is_reported_where_it_is_found),
	    cmocka_unit_test(a_stream_writer_writes_in_place_and_reports_a_full_device),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
