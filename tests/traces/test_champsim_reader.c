/* SPDX-License-Identifier: MIT */
/*
 * The ChampSim trace reader (traces/read_champsim.c): records built byte
 * by byte from ChampSim's struct input_instr (inc/trace_instruction.h)
 * decoded to events worked out by hand, xz compression undone, and the
 * malformed inputs of tests/data/traces/champsim/invalid/ (trace_test.h).
 */
#include <jansson.h>
#include <lzma.h>

#include "support/machines.h"
#include "trace_test.h"
#include "tlbsim/sim.h"

/* A tlbsim_event_source_fn over a trace reader. */
static int trace_source(void *arg, struct tlbsim_event *ev, struct tlbsim_error *err)
{
	return tlbsim_trace_next(arg, ev, err);
}

/* The statistics of @sim, parsed. */
static json_t *stats_of(const tlbsim_sim *sim)
{
	char *text = tlbsim_sim_stats_json(sim);
	json_t *st = json_loads(text, 0, NULL);

	free(text);
	assert_non_null(st);
	return st;
}

#define INVALID_DIR "tests/data/traces/champsim/invalid"

/* Two records of 64 bytes: the field offsets are those of FORMAT.md's table. */
static const uint8_t two_records[128] = {
    /* record 0: ip 0x401000 (little-endian), not a branch */
    [0] = 0x00,
    [1] = 0x10,
    [2] = 0x40,
    /* registers, ignored: destination 1, sources 2 and 3 */
    [10] = 1,
    [12] = 2,
    [13] = 3,
    /* destination_memory[1] (offset 16 + 8) = 0x7ffd1008 */
    [24] = 0x08,
    [25] = 0x10,
    [26] = 0xfd,
    [27] = 0x7f,
    /* source_memory[0] (offset 32) = 0x7ffd1000 */
    [32] = 0x00,
    [33] = 0x10,
    [34] = 0xfd,
    [35] = 0x7f,
    /* source_memory[2] (offset 32 + 16) = 0x601008; [1] and [3] are 0: none */
    [48] = 0x08,
    [49] = 0x10,
    [50] = 0x60,
    /* record 1: ip 0x401004, a taken branch, no memory */
    [64] = 0x04,
    [65] = 0x10,
    [66] = 0x40,
    [72] = 1,
    [73] = 1,
};

/*
 * The process first; then per record the fetch, the loads, the stores,
 * each after the MMAP of its 1 GiB region the first time: 0x401000 and
 * 0x601008 are in [0, 0x40000000), mapped from page 1 on (an mmap at 0
 * lets the kernel pick, FORMAT.md), 0x7ffd1000 (2147291136, just below
 * 2^31) in [0x40000000, 0x80000000).  Accesses are 1 byte.
 */
static const char *const two_records_events[] = {
    "proc_create 1 1",	     "T1 mmap 0x1000 0x3ffff000 rwx private,anon",
    "T1 fetch 0x401000 1",   "T1 mmap 0x40000000 0x40000000 rwx private,anon",
    "T1 load 0x7ffd1000 1",  "T1 load 0x601008 1",
    "T1 store 0x7ffd1008 1", "T1 fetch 0x401004 1",
};

static void expect_events(const void *buf, size_t size, enum tlbsim_trace_compression comp)
{
	size_t n = sizeof(two_records_events) / sizeof(two_records_events[0]), i = 0;
	char line[TLBSIM_EVENT_LINE_MAX];
	struct tlbsim_trace_stats st;
	tlbsim_trace_reader *r;
	struct tlbsim_event ev;
	struct tlbsim_error err;
	int rc;

	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_trace_open_mem(buf, size, "<cs>", TLBSIM_TRACE_CHAMPSIM, &r, &err),
			 0);
	assert_int_equal(tlbsim_trace_info(r)->format, TLBSIM_TRACE_CHAMPSIM);
	assert_int_equal(tlbsim_trace_info(r)->compression, comp);
	assert_int_equal(tlbsim_trace_info(r)->isa, TLBSIM_ISA_X86_64);
	assert_int_equal(tlbsim_trace_info(r)->nr_threads, 1);
	while ((rc = tlbsim_trace_next(r, &ev, &err)) == 1) {
		assert_true(i < n);
		tlbsim_event_format(&ev, line, sizeof(line));
		assert_string_equal(line, two_records_events[i]);
		i++;
	}
	if (rc < 0)
		fail_msg("%s @%lld: %s", err.source, err.offset, err.text);
	assert_int_equal(i, n);
	tlbsim_trace_stats(r, &st);
	assert_int_equal(st.implied_mmaps, 2);
	assert_int_equal(st.unknown_lines, 0);
	tlbsim_trace_close(r);
}

static void records_become_fetch_loads_stores_after_region_mmaps(void **state)
{
	expect_events(two_records, sizeof(two_records), TLBSIM_COMPRESS_NONE);
}

static void xz_compressed_records_read_the_same(void **state)
{
	uint8_t out[1024];
	size_t out_pos = 0;

	/* as ChampSim's traces are distributed: .xz (liblzma's one-call encoder) */
	assert_int_equal(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, two_records,
						 sizeof(two_records), out, &out_pos, sizeof(out)),
			 LZMA_OK);
	expect_events(out, out_pos, TLBSIM_COMPRESS_XZ);
}

static void champsim_is_read_only_when_named(void **state)
{
	tlbsim_trace_reader *r = NULL;
	enum tlbsim_trace_format f;
	struct tlbsim_error err;

	/* no magic: auto-detection must not guess it */
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_trace_open_mem(two_records, sizeof(two_records), NULL,
					       TLBSIM_TRACE_AUTO, &r, &err),
			 -TLBSIM_EPARSE);
	assert_null(r);
	assert_non_null(strstr(err.text, "champsim only when named"));
	assert_int_equal(tlbsim_trace_format_find("champsim", &f), 0);
	assert_int_equal(f, TLBSIM_TRACE_CHAMPSIM);
	assert_string_equal(tlbsim_trace_format_name(TLBSIM_TRACE_CHAMPSIM), "champsim");
}

/*
 * Issue 30: a non-PIE binary's code (0x400000 on, where SPEC traces' IPs
 * are) is mapped where it is.  1000 records, each a fetch of ip 0x400000 +
 * 4 i: 4000 bytes, all in the page at 0x400000.  Worked out by hand: the
 * first fetch misses both TLB levels and walks to a fault, the page is
 * demand-allocated (1 fault) and the fetch retried; the other 999 hit the
 * L1 ITLB; no access is lost (0 segv).  The implied mapping at 0 was taken
 * as "the kernel picks", somewhere below the mmap base, and every fetch
 * was a segv.
 */
static void issue_30_code_below_1_gib_is_mapped_where_it_is(void **state)
{
	static uint8_t recs[1000 * 64];
	struct tlbsim_sim_config cfg = {0};
	struct tlbsim_machine *m = test_machine(TLBSIM_ISA_X86_64, 1);
	struct tlbsim_error err;
	tlbsim_trace_reader *r;
	tlbsim_sim *sim;
	json_t *st, *tot;

	for (unsigned i = 0; i < 1000; i++) {
		uint64_t ip = 0x400000 + 4 * i;

		for (unsigned b = 0; b < 8; b++)
			recs[64 * i + b] = (uint8_t)(ip >> 8 * b);
	}
	tlbsim_error_clear(&err);
	assert_int_equal(
	    tlbsim_trace_open_mem(recs, sizeof(recs), "<cs>", TLBSIM_TRACE_CHAMPSIM, &r, &err), 0);
	cfg.machine = m;
	cfg.threads = 1;
	assert_int_equal(tlbsim_sim_create(&cfg, &sim, &err), 0);
	assert_int_equal(tlbsim_sim_run(sim, trace_source, r, &err), 0);
	st = stats_of(sim);
	tot = json_object_get(st, "totals");
	assert_int_equal(json_integer_value(json_object_get(tot, "segv")), 0);
	assert_int_equal(json_integer_value(json_object_get(tot, "faults")), 1);
	assert_int_equal(json_integer_value(json_object_get(tot, "tlb_l1i_hits")), 999);
	json_decref(st);
	tlbsim_sim_destroy(sim);
	tlbsim_trace_close(r);
	tlbsim_machine_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(records_become_fetch_loads_stores_after_region_mmaps),
	    cmocka_unit_test(xz_compressed_records_read_the_same),
	    cmocka_unit_test(champsim_is_read_only_when_named),
	    cmocka_unit_test(issue_30_code_below_1_gib_is_mapped_where_it_is),
	};
	/* at least 10 malformed inputs, as the issue asks */
	if (count_cases(INVALID_DIR) < 10)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL) |
	       run_invalid_cases("champsim_invalid", INVALID_DIR, TLBSIM_TRACE_CHAMPSIM);
}
