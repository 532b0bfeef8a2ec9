/* SPDX-License-Identifier: MIT */
/*
 * tlbsim_trace_next_batch() (traces/reader.c, and the native reader's own
 * loop in traces/read_native.c) against tlbsim_trace_next(): the same
 * events, byte for byte, in batches of 1, 7 and 256, for every format --
 * the shipped samples, a synthetic native trace written here (several
 * 64 KiB windows, varints of 1 to 10 bytes, thread and cpu changes), the
 * text, lackey, execlog and insn test inputs, a ChampSim trace made here,
 * and every malformed input of tests/data/traces/<format>/invalid/ -- and
 * the same end: the same error code, line, column, byte offset and text,
 * the same event count and bytes read.  Then two native traces worked out
 * by hand whose error comes in the middle of a batch.
 */
#include <glob.h>

#include "trace_test.h"

#define SAMPLES "traces/samples/*.tlbt.*"
/* The recorded sample holds 17.9 M events: its first ones are enough here. */
#define RECORDED_SAMPLE "traces/samples/zstd-threads.tlbt.xz"
#define RECORDED_PREFIX 300000
#define SYNTH_EVENTS 100000

static const size_t batch_sizes[] = {1, 7, 256};

/* Where a reader reads from: a file or bytes, with its options. */
struct input {
	const char *path;
	const void *mem;
	size_t size;
	struct tlbsim_trace_opts opts;
};

/* Everything a reader returned, to be compared. */
struct run {
	struct tlbsim_event *ev;
	size_t n, cap;
	int rc;
	struct tlbsim_error err;
	uint64_t nr_events, bytes_read;
};

static void push(struct run *run, const struct tlbsim_event *ev, size_t n)
{
	if (run->n + n > run->cap) {
		run->cap = (run->n + n) * 2;
		run->ev = realloc(run->ev, run->cap * sizeof(*run->ev));
		assert_non_null(run->ev);
	}
	memcpy(run->ev + run->n, ev, n * sizeof(*ev));
	run->n += n;
}

/*
 * Read @in to its end or error, or until @limit events (0: no limit), one
 * by one (@batch 0) or in batches of @batch.  After an error, asks once
 * more: the error is sticky.
 */
static void read_input(const struct input *in, size_t batch, size_t limit, struct run *run)
{
	struct tlbsim_event buf[256];
	tlbsim_trace_reader *r;
	int rc;

	memset(run, 0, sizeof(*run));
	tlbsim_error_clear(&run->err);
	rc = in->path ? tlbsim_trace_open_opts(in->path, NULL, NULL, &in->opts, &r, &run->err)
		      : tlbsim_trace_open_mem_opts(in->mem, in->size, NULL, &in->opts, &r, &run->err);
	if (rc < 0)
		fail_msg("%s: open: %s", in->path ? in->path : "<memory>", run->err.text);
	for (;;) {
		if (limit && run->n >= limit) {
			rc = 1;
			break;
		}
		if (batch == 0) {
			rc = tlbsim_trace_next(r, buf, &run->err);
			if (rc == 1)
				push(run, buf, 1);
		} else {
			rc = tlbsim_trace_next_batch(r, buf, batch, &run->err);
			assert_true(rc <= (int)batch);
			if (rc > 0)
				push(run, buf, (size_t)rc);
		}
		assert_int_equal(tlbsim_trace_nr_events(r), run->n);
		if (rc <= 0)
			break;
	}
	run->rc = rc;
	if (rc < 0) {
		struct tlbsim_error again;

		tlbsim_error_clear(&again);
		assert_int_equal(batch ? tlbsim_trace_next_batch(r, buf, batch, &again)
				       : tlbsim_trace_next(r, buf, &again),
				 rc);
		assert_string_equal(again.text, run->err.text);
	}
	run->nr_events = tlbsim_trace_nr_events(r);
	run->bytes_read = tlbsim_trace_bytes_read(r);
	tlbsim_trace_close(r);
}

static void same_run(const char *what, size_t batch, const struct run *a, const struct run *b,
		     size_t limit)
{
	size_t n = limit && a->n > limit ? limit : a->n;

	if (!limit && a->n != b->n)
		fail_msg("%s, batches of %zu: %zu events one by one, %zu in batches", what, batch,
			 a->n, b->n);
	assert_true(b->n >= n);
	for (size_t i = 0; i < n; i++)
		if (memcmp(&a->ev[i], &b->ev[i], sizeof(a->ev[i])) != 0)
			fail_msg("%s, batches of %zu: event %zu differs", what, batch, i);
	if (limit)
		return;
	assert_int_equal(a->rc, b->rc);
	assert_int_equal(a->err.code, b->err.code);
	assert_int_equal(a->err.line, b->err.line);
	assert_int_equal(a->err.column, b->err.column);
	assert_int_equal(a->err.offset, b->err.offset);
	assert_string_equal(a->err.source, b->err.source);
	assert_string_equal(a->err.text, b->err.text);
	assert_int_equal(a->nr_events, b->nr_events);
	assert_int_equal(a->bytes_read, b->bytes_read);
}

/* @in read one by one and in every batch size gives the same; returns the
 * one-by-one run's event count (so callers can check the input was read). */
static size_t batches_read_as_one_by_one(const char *what, const struct input *in, size_t limit)
{
	struct run one, many;
	size_t n;

	read_input(in, 0, limit, &one);
	for (size_t i = 0; i < sizeof(batch_sizes) / sizeof(batch_sizes[0]); i++) {
		read_input(in, batch_sizes[i], limit, &many);
		same_run(what, batch_sizes[i], &one, &many, limit);
		free(many.ev);
	}
	n = one.n;
	free(one.ev);
	return n;
}

static void samples_read_the_same_in_batches(void **state)
{
	glob_t g;

	(void)state;
	assert_int_equal(glob(SAMPLES, 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= 10); /* traces/samples/README.md lists ten */
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct input in = {.path = g.gl_pathv[i]};
		size_t limit = strcmp(g.gl_pathv[i], RECORDED_SAMPLE) == 0 ? RECORDED_PREFIX : 0;

		assert_true(batches_read_as_one_by_one(g.gl_pathv[i], &in, limit) > 0);
	}
	globfree(&g);
}

/*
 * SYNTH_EVENTS events of three threads: mostly 8-byte accesses 8 bytes
 * apart (1-byte varints), every 5th a jump of up to 2^40 (6-byte varints),
 * every 1000th one across the address space (10-byte varints), every 97th
 * a compute, a cpu change every 500th; all eight sizes of a compact
 * access (1 to 128 bytes) and all three access kinds.  About 2.3 bytes an event: four 64 KiB windows.
 */
static void write_synthetic(const char *path, enum tlbsim_trace_compression comp)
{
	struct tlbsim_trace_info info = {.isa = TLBSIM_ISA_X86_64, .page_shift = 12};
	uint64_t va[3] = {0x10000, 0x7f0000000000, 0x400000}, rng = 12345;
	tlbsim_trace_writer *w;
	struct tlbsim_error err;

	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_trace_writer_open(path, TLBSIM_TRACE_BINARY, comp, &info, &w, &err),
			 0);
	for (uint32_t i = 0; i < SYNTH_EVENTS; i++) {
		struct tlbsim_event ev = {0};
		unsigned t = (i / 13) % 3;

		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		ev.tid = 100 + t;
		ev.cpu = (uint16_t)((i / 500) % 2 ? (i / 500) % 4 : TLBSIM_CPU_ANY);
		if (i % 97 == 0) {
			ev.kind = TLBSIM_EV_COMPUTE;
			ev.compute.count = 1 + i;
		} else {
			if (i % 1000 == 0)
				va[t] = i % 2000 ? 0xffffffffff000000ull : 0x1000;
			else if (i % 5 == 0)
				va[t] = (rng >> 24) & ((1ull << 40) - 1);
			else
				va[t] += 8;
			ev.kind = (uint8_t)(TLBSIM_EV_LOAD + (rng >> 60) % 3);
			ev.access.va = va[t];
			ev.access.size = 1u << ((rng >> 40) % 8);
		}
		assert_int_equal(tlbsim_trace_writer_write(w, &ev, &err), 0);
	}
	assert_int_equal(tlbsim_trace_writer_close(w, &err), 0);
}

static void synthetic_native_trace_reads_the_same_in_batches(void **state)
{
	char *dir = make_tmpdir(), path[1024];

	(void)state;
	snprintf(path, sizeof(path), "%s/synth.tlbt", dir);
	write_synthetic(path, TLBSIM_COMPRESS_NONE);
	assert_int_equal(batches_read_as_one_by_one(path, &(struct input){.path = path}, 0),
			 SYNTH_EVENTS);
	snprintf(path, sizeof(path), "%s/synth.tlbt.zst", dir);
	write_synthetic(path, TLBSIM_COMPRESS_ZSTD);
	assert_int_equal(batches_read_as_one_by_one(path, &(struct input){.path = path}, 0),
			 SYNTH_EVENTS);
	rm_tree(dir);
}

static const char execlog_log[] =
    "0, 0x400000, 0xf9400020, \"ldr x0, [x1]\", load, 0x7f0000001000\n"
    "1, 0x400100, 0xf9400020, \"ldr x0, [x1]\", load, 0x7f0000002000, x0 -> "
    "0x0002000000000005\n"
    "0, 0x400004, 0xd5088320, \"tlbi vae1is, x0\"\n"
    "1, 0x400104, 0xd5088320, \"tlbi vae1is, x0\"\n"
    "1, 0x400108, 0xf9000022, \"str x2, [x1]\", store, 0x40001000, RAM\n"
    "0, 0x400008, 0xd5";

static const struct input execlog_input = {
    .mem = execlog_log,
    .size = sizeof(execlog_log) - 1,
    .opts = {.format = TLBSIM_TRACE_EXECLOG, .isa = TLBSIM_ISA_ARM64},
};

static void text_lackey_and_instruction_traces_read_the_same_in_batches(void **state)
{
	static const struct {
		const char *path;
		enum tlbsim_trace_format format;
		enum tlbsim_isa isa;
	} inputs[] = {
	    {"tests/data/traces/all_kinds.txt", TLBSIM_TRACE_TEXT, 0},
	    {"tests/data/traces/lackey/excerpt.log", TLBSIM_TRACE_LACKEY, 0},
	    {"tests/data/traces/execlog/unmap-x86-safe", TLBSIM_TRACE_INSN, 0},
	    {"tests/data/traces/execlog/unmap-arm64-safe", TLBSIM_TRACE_INSN, 0},
	    {"tests/data/traces/execlog/oracle-x86-safe.insn", TLBSIM_TRACE_INSN, 0},
	    {"tests/data/traces/execlog/oracle-arm64-nodsb.insn", TLBSIM_TRACE_INSN, 0},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		struct input in = {.path = inputs[i].path,
				   .opts = {.format = inputs[i].format, .isa = inputs[i].isa}};

		assert_true(batches_read_as_one_by_one(inputs[i].path, &in, 0) > 0);
	}
	/* QEMU execlog lines (test_execlog_reader.c's): 10 events, the last line cut */
	assert_int_equal(batches_read_as_one_by_one("execlog", &execlog_input, 0), 10);
}

/*
 * 300 ChampSim records (FORMAT.md's 64-byte layout, as in
 * test_champsim_reader.c): ip 0x401000 + 4 i, a load from 0x601000 + 8 i
 * every 2nd record and a store to 0x7ffd0000 + 16 i every 3rd.
 */
static void champsim_trace_reads_the_same_in_batches(void **state)
{
	static uint8_t rec[300][64];

	(void)state;
	for (unsigned i = 0; i < 300; i++) {
		uint64_t ip = 0x401000 + 4 * i, ld = 0x601000 + 8 * i, st = 0x7ffd0000 + 16 * i;

		memset(rec[i], 0, sizeof(rec[i]));
		memcpy(rec[i], &ip, 8); /* little-endian host, as FORMAT.md's files */
		if (i % 2 == 0)
			memcpy(rec[i] + 32, &ld, 8);
		if (i % 3 == 0)
			memcpy(rec[i] + 16, &st, 8);
	}
	assert_true(batches_read_as_one_by_one(
			"champsim",
			&(struct input){.mem = rec,
					.size = sizeof(rec),
					.opts = {.format = TLBSIM_TRACE_CHAMPSIM}},
			0) > 300);
}

/* Every malformed input of every format ends the same way in batches. */
static void malformed_inputs_fail_the_same_in_batches(void **state)
{
	static const struct {
		const char *dir;
		enum tlbsim_trace_format format;
	} dirs[] = {
	    {"tests/data/traces/native/invalid", TLBSIM_TRACE_BINARY},
	    {"tests/data/traces/text/invalid", TLBSIM_TRACE_TEXT},
	    {"tests/data/traces/lackey/invalid", TLBSIM_TRACE_LACKEY},
	    {"tests/data/traces/champsim/invalid", TLBSIM_TRACE_CHAMPSIM},
	};
	size_t cases = 0;

	(void)state;
	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		size_t n;
		char **names = list_dir(dirs[d].dir, &n), path[1024];
		tlbsim_trace_reader *r;

		for (size_t i = 0; i < n; i++) {
			struct input in = {.path = path, .opts = {.format = dirs[d].format}};

			snprintf(path, sizeof(path), "%s/%s/input", dirs[d].dir, names[i]);
			/* some cases fail at open: nothing to batch */
			if (tlbsim_trace_open(path, dirs[d].format, &r, NULL) < 0)
				continue;
			tlbsim_trace_close(r);
			batches_read_as_one_by_one(path, &in, 0);
			cases++;
		}
		free_names(names, n);
	}
	assert_true(cases >= 20);
}

/*
 * Header (18 bytes: x86-64, 4 KiB pages, 0 threads, no source), then:
 *   18: c3 01 80 40  load (0x40 | 0 << 3 | log2 8) with tid 1 (+0x80):
 *                    zigzag 0x80 0x40 = 0x2000 -> +0x1000: load 0x1000 8
 *   22: 43 10        zigzag 16 -> +8: load 0x1008 8
 *   24: 4b 10        store (0x40 | 1 << 3 | 3), +8: store 0x1010 8
 *   26: 43 0f        zigzag 15 -> -8: load 0x1008 8
 *   28: 60           not an opcode (accesses end at 0x57)
 */
static const uint8_t bad_record_trace[] = {'T',	 'L',  'B',  'S',  'I',	 'M',  'T',  'R',
					   1,	 0,    1,    12,   0,	 0,    0,    0,
					   0,	 0,    0xc3, 0x01, 0x80, 0x40, 0x43, 0x10,
					   0x4b, 0x10, 0x43, 0x0f, 0x60};

static const char *const four_events[] = {"T1 load 0x1000 8", "T1 load 0x1008 8",
					  "T1 store 0x1010 8", "T1 load 0x1008 8"};

/*
 * @size bytes of bad_record_trace read in batches of 7: the four events
 * first, then @code at byte 28 with @text, again on the next call.
 */
static void four_events_then(size_t size, int code, const char *text)
{
	struct tlbsim_event ev[7];
	struct tlbsim_error err;
	tlbsim_trace_reader *r;
	char line[TLBSIM_EVENT_LINE_MAX];

	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_trace_open_mem(bad_record_trace, size, NULL, TLBSIM_TRACE_BINARY,
					       &r, &err),
			 0);
	/* no room is a caller's error, not the reader's: nothing consumed */
	assert_int_equal(tlbsim_trace_next_batch(r, ev, 0, NULL), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_trace_next_batch(r, ev, 7, &err), 4);
	assert_int_equal(err.code, 0);
	for (int i = 0; i < 4; i++) {
		tlbsim_event_format(&ev[i], line, sizeof(line));
		assert_string_equal(line, four_events[i]);
	}
	assert_int_equal(tlbsim_trace_nr_events(r), 4);
	for (int again = 0; again < 2; again++) {
		tlbsim_error_clear(&err);
		assert_int_equal(tlbsim_trace_next_batch(r, ev, 7, &err), code);
		assert_int_equal(err.code, code);
		assert_int_equal(err.offset, 28);
		assert_string_equal(err.text, text);
	}
	tlbsim_trace_close(r);
}

static void bad_record_in_a_batch_comes_after_the_events_before_it(void **state)
{
	(void)state;
	/* TLBSIM_EV_NR_KINDS - 1 = 40 = 0x28, the largest kind */
	four_events_then(sizeof(bad_record_trace), -TLBSIM_EPARSE,
			 "a record opcode expected (events 0x01-0x28, accesses 0x40-0x57, cpu "
			 "0x7f, end 0x00; +0x80 with a tid), found 0x60");
	batches_read_as_one_by_one(
	    "bad record",
	    &(struct input){.mem = bad_record_trace, .size = sizeof(bad_record_trace)}, 0);
}

static void truncated_trace_in_a_batch_ends_after_the_events_before_it(void **state)
{
	(void)state;
	/* cut before byte 28: no end record after the 4 events */
	four_events_then(28, -TLBSIM_ETRUNC,
			 "an end record expected, found the end of the trace after 4 events");
	batches_read_as_one_by_one("truncated",
				   &(struct input){.mem = bad_record_trace, .size = 28}, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(samples_read_the_same_in_batches),
	    cmocka_unit_test(synthetic_native_trace_reads_the_same_in_batches),
	    cmocka_unit_test(text_lackey_and_instruction_traces_read_the_same_in_batches),
	    cmocka_unit_test(champsim_trace_reads_the_same_in_batches),
	    cmocka_unit_test(malformed_inputs_fail_the_same_in_batches),
	    cmocka_unit_test(bad_record_in_a_batch_comes_after_the_events_before_it),
	    cmocka_unit_test(truncated_trace_in_a_batch_ends_after_the_events_before_it),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
