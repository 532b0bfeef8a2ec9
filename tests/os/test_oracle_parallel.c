/* SPDX-License-Identifier: MIT */
/*
 * The hazard oracle inside the OS model: its verdict on a policy that
 * acknowledges shootdown IPIs before flushing (x86-stock:ack_early=1), and
 * the same verdict, byte for byte, on 1 and 4 host threads (reports found
 * in the parallel phase are merged in a fixed order).  Named os_* so the
 * ThreadSanitizer job of .ci/run covers the oracle's parallel-phase hooks.
 */
#include <stdlib.h>
#include <string.h>

#include "support/sim.h"
#include "tlbsim/sim.h"

#define A 0x10000000ull

/*
 * Threads 1..4 on cpus 0..3 each read page A; thread 1 then unmaps it while
 * the others compute, and they read A again.  Under x86-stock every IPI
 * target flushes A before acknowledging, so nothing stale is used.  With
 * ack_early the three targets keep their entries; munmap's return commits
 * the change (poisoning them), and each of their second reads is one
 * stale use: 3 stale uses, by cpus 1, 2 and 3.  A is the only mapping, so
 * munmap also frees the three tables below the root (levels 2, 1, 0;
 * free_pgtables()); each target's walk caches still hold one entry into
 * each (its first read walked root -> L2 -> L1 -> L0): 3 walk_freed_table
 * per target, 9 in all.  12 diagnostics.
 */
static void build(struct evlist *l)
{
	ev_proc(l, 1, 1);
	ev_mmap(l, 1, A, PAGE, RW, 0);
	ev_access(l, 1, TLBSIM_EV_STORE, A);
	for (uint32_t t = 2; t <= 4; t++)
		ev_thread(l, 1, t);
	for (uint32_t t = 1; t <= 4; t++)
		ev_pin(l, t, t - 1);
	for (uint32_t t = 2; t <= 4; t++) {
		ev_access(l, t, TLBSIM_EV_LOAD, A);
		ev_compute(l, t, 200000);
		ev_access(l, t, TLBSIM_EV_LOAD, A);
	}
	ev_compute(l, 1, 50000);
	ev_munmap(l, 1, A, PAGE);
}

static char *hazards_json(const char *policy, int threads, uint64_t *total)
{
	struct tlbsim_sim_config cfg = {0};
	struct tlbsim_machine *m = test_machine(TLBSIM_ISA_X86_64, 4);
	struct evlist l = {0};
	tlbsim_sim *sim = NULL;
	char *text, *h;

	build(&l);
	cfg.machine = m;
	cfg.policy = policy;
	cfg.threads = threads;
	cfg.share_all = threads > 1;
	cfg.check = 1;
	assert_int_equal(tlbsim_sim_create(&cfg, &sim, NULL), 0);
	assert_int_equal(tlbsim_sim_run(sim, evlist_next, &l, NULL), 0);
	text = tlbsim_sim_stats_json(sim);
	assert_non_null(text);
	h = strstr(text, "\"hazards\"");
	assert_non_null(h);
	*total = strtoull(strstr(h, "\"total\": ") + 9, NULL, 10);
	h = strdup(h);
	free(text);
	tlbsim_sim_destroy(sim);
	tlbsim_machine_free(m);
	evlist_free(&l);
	return h;
}

static void stock_shootdown_is_hazard_free(void **state)
{
	uint64_t total;
	char *h = hazards_json("x86-stock", 1, &total);

	(void)state;
	assert_int_equal(total, 0);
	free(h);
}

static void early_ack_gives_one_stale_use_per_target_on_any_thread_count(void **state)
{
	uint64_t t1, t4;
	char *h1 = hazards_json("x86-stock:ack_early=1", 1, &t1);
	char *h4 = hazards_json("x86-stock:ack_early=1", 4, &t4);

	(void)state;
	assert_int_equal(t1, 12);
	assert_non_null(strstr(h1, "\"stale_use\": 3"));
	assert_non_null(strstr(h1, "\"walk_freed_table\": 9"));
	assert_string_equal(h1, h4);
	free(h1);
	free(h4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stock_shootdown_is_hazard_free),
		cmocka_unit_test(early_ack_gives_one_stale_use_per_target_on_any_thread_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
