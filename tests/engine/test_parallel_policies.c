/* SPDX-License-Identifier: MIT */
/*
 * Every built-in flush policy, run on 4 host threads, gives the same
 * statistics as on 1 (include/tlbsim/sim.h: "results are identical for any
 * number of threads").  The workloads make cpus flush each other's TLBs,
 * so IPI handlers and broadcast receivers run in the parallel phase at
 * once: built with -DTLBSIM_TSAN=ON this is the test that shows they touch
 * shared state only through atomics (.ci/run).
 */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tlbsim/gen.h"
#include "tlbsim/policy.h"
#include "tlbsim/sim.h"

struct workload {
	const char *gen, *params;
	bool remote; /* every policy flushes another cpu's TLB in it */
};

/* Small (each runs in well under a second even under TSan) but with
 * cross-cpu flushes: several threads of one mm on different cpus. */
static const struct workload workloads[] = {
    {"mprotect-toggle", "procs=3,threads=4,size=65536,loops=20", true},
    {"munmap-churn", "threads=6,size=262144,loops=3", true},
    /* A kernel thread switching in and out of the process's mm: under
     * arm64-nr-active-mm its cpu is stale, not flushed, between rounds. */
    {"kthread-mm", "pages=8,loops=20", false},
};

/* OS options of the runs (every_policy()). */
static unsigned os_flags;

static char *run(const struct tlbsim_machine *m, const char *policy, const struct workload *w,
		 int threads)
{
	struct tlbsim_sim_config cfg = {
	    .machine = m, .policy = policy, .threads = threads, .share_all = threads > 1};
	struct tlbsim_error err;
	tlbsim_sim *sim = NULL;
	tlbsim_gen *g = NULL;
	char *json;

	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_gen_create(w->gen, w->params, m->isa, &g, &err), 0);
	cfg.os_flags = os_flags;
	assert_int_equal(tlbsim_sim_create(&cfg, &sim, &err), 0);
	assert_int_equal(tlbsim_sim_run(sim, tlbsim_gen_next, g, &err), 0);
	json = tlbsim_sim_stats_json(sim);
	assert_non_null(json);
	tlbsim_sim_destroy(sim);
	tlbsim_gen_destroy(g);
	return json;
}

/* Flushes that reached another cpu, from the "totals" of a stats document. */
static json_int_t remote_flushes(const char *stats)
{
	json_t *st = json_loads(stats, 0, NULL), *t;
	json_int_t n;

	assert_non_null(st);
	t = json_object_get(st, "totals");
	n = json_integer_value(json_object_get(t, "ipis_sent")) +
	    json_integer_value(json_object_get(t, "tlbi_broadcasts_received")) +
	    json_integer_value(json_object_get(t, "invlpgb_received"));
	json_decref(st);
	return n;
}

static void every_policy(const char *machine)
{
	struct tlbsim_machine *m = NULL;
	struct tlbsim_error err;
	const struct tlbsim_policy *p;
	unsigned runs = 0;

	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_machine_find(machine, &m, &err), 0);
	for (unsigned i = 0; (p = tlbsim_policy_at(i)); i++) {
		char name[128];

		if (!(p->isa_mask & TLBSIM_ISA_BIT(m->isa)))
			continue;
		/* A table-free strategy runs composed with the ISA's default. */
		snprintf(name, sizeof(name), "%s%s%s",
			 p->flush_range ? "" : tlbsim_policy_find(NULL, m->isa)->name,
			 p->flush_range ? "" : "+", p->name);
		for (size_t k = 0; k < sizeof(workloads) / sizeof(workloads[0]); k++) {
			char *one = run(m, name, &workloads[k], 1);
			char *four = run(m, name, &workloads[k], 4);

			if (workloads[k].remote)
				assert_true(remote_flushes(one) > 0);
			assert_string_equal(one, four);
			free(one);
			free(four);
			runs++;
		}
	}
	assert_true(runs >= 3 * 2);
	tlbsim_machine_free(m);
}

/* Milan has INVLPGB: x86-invlpgb is refused on a machine without it. */
static void x86_policies_agree_on_1_and_4_host_threads(void **state)
{
	(void)state;
	every_policy("milan-36");
}

static void arm64_policies_agree_on_1_and_4_host_threads(void **state)
{
	(void)state;
	every_policy("emag-32");
}

/* Milan models the shared lines (topology.line): IPI handlers touch them
 * in the parallel phase (tlb_gen reads, the lazy-cpumask clear), their
 * accesses applied by the fabric at the window's end (the test above);
 * here with the OS options that add line traffic in the serial phase. */
static void x86_policies_with_os_options_agree_on_1_and_4_host_threads(void **state)
{
	(void)state;
	os_flags = TLBSIM_OS_LRU_ADD_DRAIN | TLBSIM_OS_PER_VMA_LOCK | TLBSIM_OS_FAULT_LOCK_MM;
	every_policy("milan-36");
	os_flags = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(x86_policies_agree_on_1_and_4_host_threads),
	    cmocka_unit_test(arm64_policies_agree_on_1_and_4_host_threads),
	    cmocka_unit_test(x86_policies_with_os_options_agree_on_1_and_4_host_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
