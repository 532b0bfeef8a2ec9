/* SPDX-License-Identifier: MIT */
/*
 * A cpu runs the accesses at the head of its thread's queue as one run
 * (run_accesses() in src/os/sim.c); under the hazard oracle a run is one
 * access, as every event was before runs existed, and the oracle only
 * observes.  So the statistics with and without the oracle must be the same,
 * byte for byte apart from the oracle's own "hazards" object, on a stream
 * that cuts runs every way: time slices ending inside them, first-touch
 * faults in their middle, computes between them, and shootdown IPIs
 * arriving while they run.
 */
#include <jansson.h>

#include "support/sim.h"
#include "tlbsim/sim.h"

#define BASE 0x10000000ull
#define PAGES 4

/*
 * Threads 1, 2 and 3 of process 1 on a 2-cpu machine (one always waits,
 * so time slices preempt).  Each maps 4 pages of its own and makes 600
 * loads and stores, cycling over them (at offset 8 x (i mod 500), at most
 * 3992), with a compute of 50 cycles after every 37th; in its queue they
 * are runs of 37, and the first touch of each page faults inside one.
 * The stream interleaves the threads one event each.  Thread 1 drops its
 * pages with
 * madvise(MADV_DONTNEED) halfway, a shootdown of the cpus running the
 * process, and its next accesses fault again.
 */
static void build(struct evlist *l)
{
	uint32_t t;
	int i;

	ev_proc(l, 1, 1);
	ev_thread(l, 1, 2);
	ev_thread(l, 1, 3);
	for (t = 1; t <= 3; t++)
		ev_mmap(l, t, BASE + (t - 1) * PAGES * PAGE, PAGES * PAGE, RW, 0);
	for (i = 0; i < 600; i++) {
		for (t = 1; t <= 3; t++) {
			uint64_t va = BASE + (t - 1) * PAGES * PAGE + (uint64_t)(i % PAGES) * PAGE +
				      8 * (uint64_t)(i % 500);

			ev_access(l, t, i % 3 ? TLBSIM_EV_LOAD : TLBSIM_EV_STORE, va);
			if (i % 37 == 36)
				ev_compute(l, t, 50);
			if (t == 1 && i == 300)
				ev_madvise(l, 1, BASE, PAGES * PAGE, TLBSIM_MADV_DONTNEED);
		}
	}
}

/* The statistics of @l with 1 host thread and time slices of 333 cycles,
 * with the oracle (@check) or without; the oracle's "hazards" removed. */
static json_t *stats(int check, uint64_t *hazards)
{
	struct tlbsim_sim_config cfg = {0};
	struct tlbsim_machine *m = test_machine(TLBSIM_ISA_X86_64, 2);
	struct evlist l = {0};
	tlbsim_sim *sim = NULL;
	json_error_t jerr;
	json_t *doc;
	char *text;

	build(&l);
	m->costs.sched_slice = 333;
	cfg.machine = m;
	cfg.threads = 1;
	cfg.check = check;
	assert_int_equal(tlbsim_sim_create(&cfg, &sim, NULL), 0);
	assert_int_equal(tlbsim_sim_run(sim, evlist_next, &l, NULL), 0);
	text = tlbsim_sim_stats_json(sim);
	assert_non_null(text);
	doc = json_loads(text, 0, &jerr);
	assert_non_null(doc);
	*hazards = json_integer_value(json_object_get(json_object_get(doc, "hazards"), "total"));
	json_object_del(doc, "hazards");
	free(text);
	tlbsim_sim_destroy(sim);
	tlbsim_machine_free(m);
	evlist_free(&l);
	return doc;
}

static void runs_give_the_statistics_of_one_access_at_a_time(void **state)
{
	uint64_t h_runs, h_one;
	json_t *runs = stats(0, &h_runs), *one = stats(1, &h_one);
	json_t *tot = json_object_get(runs, "totals");

	(void)state;
	/* The stream does cut runs: 3 threads on 2 cpus preempt each other,
	 * 3 x 4 first touches and 4 more after the madvise fault, and the
	 * madvise sends IPIs. */
	assert_true(json_integer_value(json_object_get(tot, "context_switches")) > 3);
	assert_true(json_integer_value(json_object_get(tot, "faults")) >= 16);
	assert_true(json_integer_value(json_object_get(tot, "ipis_sent")) >= 1);
	assert_int_equal(h_one, 0);
	if (!json_equal(runs, one)) {
		char *a = json_dumps(runs, JSON_INDENT(1)), *b = json_dumps(one, JSON_INDENT(1));

		fail_msg("runs:\n%s\none at a time:\n%s", a, b);
	}
	json_decref(runs);
	json_decref(one);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(runs_give_the_statistics_of_one_access_at_a_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
