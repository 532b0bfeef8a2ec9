/* SPDX-License-Identifier: MIT */
/*
 * Simulated physical memory in the OS model (issue 30): running out stops
 * the run with an error naming the event, never drops accesses; the
 * statistics report the capacity and the peaks.
 */
#include <jansson.h>

#include "support/sim.h"

#define A 0x7f0000000000ull /* 512 GiB-aligned: one PML4 entry, one PDPT entry */

/* One process storing once to each of @pages pages of a mapping at A. */
static void build_stores(struct evlist *l, unsigned pages)
{
	ev_proc(l, 1, 1);
	ev_mmap(l, 1, A, (uint64_t)pages * PAGE, RW, 0);
	for (unsigned p = 0; p < pages; p++)
		ev_access(l, 1, TLBSIM_EV_STORE, A + p * PAGE);
	ev_simple(l, TLBSIM_EV_EXIT, 1);
}

/*
 * 1000 frames, 5000 pages stored to.  Worked out by hand (x86-64, 4
 * levels): before the first store, 2 frames are tables (the kernel's
 * init_mm root, the process's PML4); the first store adds the PDPT, the
 * PD and the first PT (3) and its data page; every 512 pages another PT.
 * After n stores: n data + 5 + floor((n - 1) / 512) tables; 994 stores
 * use 994 + 5 + 1 = 1000 frames, so the 995th store (event 2 + 994 = 996:
 * proc_create is 0, mmap 1) finds none.  Before the fix the run returned
 * 0 and the last 4006 stores were silently never mapped.
 */
static void issue_30_running_out_of_memory_is_an_error_at_the_event(void **state)
{
	struct tlbsim_sim_config cfg = {0};
	struct tlbsim_machine *m = test_machine(TLBSIM_ISA_X86_64, 1);
	struct evlist l = {0};
	struct tlbsim_error err;
	tlbsim_sim *sim;
	struct os *os;

	(void)state;
	build_stores(&l, 5000);
	cfg.machine = m;
	cfg.threads = 1;
	cfg.memory_frames = 1000;
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_sim_create(&cfg, &sim, &err), 0);
	assert_int_equal(tlbsim_sim_run(sim, evlist_next, &l, &err), -TLBSIM_ENOMEM);
	assert_int_equal(err.event, 996);
	assert_non_null(strstr(err.text, "event 996: out of simulated memory: a page fault at va "
					 "0x7f00003e2000 needs a frame, and all 1000 (3.9 MiB) are in "
					 "use (994 data, 6 page tables): more memory expected"));
	os = os_of_sim(sim);
	assert_int_equal(tlbsim_physmem_nr_peak(os->pm, TLBSIM_FRAME_FREE), 1000);
	tlbsim_sim_destroy(sim);
	tlbsim_machine_free(m);
	evlist_free(&l);
}

/*
 * A run that ends with its process gone uses no frame at the end; the
 * JSON says how many it used at most: 100 stores, 100 data frames and
 * 2 + 3 = 5 tables at the peak (as above), 0 of either at the end.
 */
static void the_statistics_report_the_peak_not_only_the_end(void **state)
{
	struct evlist l = {0};
	struct run r;
	json_t *st, *mem;
	char *text;

	(void)state;
	build_stores(&l, 100);
	run_events(&r, TLBSIM_ISA_X86_64, 1, "x86-stock", &l);
	text = tlbsim_sim_stats_json(r.sim);
	st = json_loads(text, 0, NULL);
	mem = json_object_get(st, "memory");
	assert_int_equal(json_integer_value(json_object_get(mem, "frames")), 1 << 24);
	assert_int_equal(json_integer_value(json_object_get(mem, "data_frames_used")), 0);
	assert_int_equal(json_integer_value(json_object_get(mem, "data_frames_peak")), 100);
	assert_int_equal(json_integer_value(json_object_get(mem, "table_frames_peak")), 5);
	assert_int_equal(json_integer_value(json_object_get(mem, "frames_peak")), 105);
	json_decref(st);
	free(text);
	run_free(&r);
	evlist_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(issue_30_running_out_of_memory_is_an_error_at_the_event),
	    cmocka_unit_test(the_statistics_report_the_peak_not_only_the_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
