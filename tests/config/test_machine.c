/* SPDX-License-Identifier: MIT */
/*
 * Tests of the machine-description loader (src/config/machine.c) against the
 * format and defaults documented in models/README.md.
 *
 * The expected values were read by hand from models/machines/ *.json and
 * from the default tables of models/README.md, or worked out from
 * CALIBRATION.md in the comments (nanoseconds times the file's clock); none
 * was copied from the loader's output.  The invalid cases are data: one folder per case under
 * tests/data/machines/invalid/ (see invalid_cases_report_the_expected_error).
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tlbsim/machine.h"

#define PS_4K TLBSIM_PS_4K
#define PS_2M TLBSIM_PS_2M
#define PS_1G TLBSIM_PS_1G
#define LRU TLBSIM_REPL_LRU

static void expect_geom(const struct tlbsim_cache_geom *g, unsigned entries, unsigned ways,
			unsigned page_sizes, enum tlbsim_repl repl, uint64_t seed, unsigned latency)
{
	assert_int_equal(g->entries, entries);
	assert_int_equal(g->ways, ways);
	assert_int_equal(g->page_sizes, page_sizes);
	assert_int_equal(g->repl, repl);
	assert_int_equal(g->seed, seed);
	assert_int_equal(g->latency_cycles, latency);
}

/* pte_latency_cycles[level] for levels 0..4 (index = level, 0 = leaf). */
static void expect_pte_latency(const struct tlbsim_machine *m, unsigned l0, unsigned l1,
			       unsigned l2, unsigned l3, unsigned l4)
{
	assert_int_equal(m->pte_latency_cycles[0], l0);
	assert_int_equal(m->pte_latency_cycles[1], l1);
	assert_int_equal(m->pte_latency_cycles[2], l2);
	assert_int_equal(m->pte_latency_cycles[3], l3);
	assert_int_equal(m->pte_latency_cycles[4], l4);
}

static struct tlbsim_machine *load_string_ok(const char *json)
{
	struct tlbsim_machine *m = NULL;
	struct tlbsim_error err;
	char msg[1024];
	int rc;

	tlbsim_error_clear(&err);
	rc = tlbsim_machine_load_string(json, "<test>", &m, &err);
	if (rc) {
		tlbsim_error_format(&err, msg, sizeof(msg));
		fail_msg("unexpected load error: %s", msg);
	}
	assert_non_null(m);
	return m;
}

/* The x86-64 defaults of models/README.md, "Defaults", apart from the name. */
static void expect_x86_defaults(const struct tlbsim_machine *m)
{
	assert_int_equal(m->isa, TLBSIM_ISA_X86_64);
	assert_int_equal(m->nr_cpus, 1);
	assert_true(m->freq_ghz == 3.0);
	assert_int_equal(m->pt_levels, 4);
	assert_int_equal(m->asid_bits, 12);
	expect_geom(&m->l1i, 64, 8, PS_4K | PS_2M, LRU, 0, 1);
	expect_geom(&m->l1d, 64, 4, PS_4K | PS_2M | PS_1G, LRU, 0, 1);
	expect_geom(&m->l2, 1536, 12, PS_4K | PS_2M, LRU, 0, 8);
	assert_int_equal(m->pwc[0].entries, 0);
	expect_geom(&m->pwc[1], 32, 4, 0, LRU, 0, 2); /* pde */
	expect_geom(&m->pwc[2], 4, 4, 0, LRU, 0, 2);  /* pdpte */
	expect_geom(&m->pwc[3], 2, 2, 0, LRU, 0, 2);  /* pml4e */
	assert_int_equal(m->pwc[4].entries, 0);	      /* no pml5e with 4 levels */
	expect_pte_latency(m, 20, 20, 20, 20, 0);
}

/* The arm64 defaults of models/README.md, apart from the name. */
static void expect_arm64_defaults(const struct tlbsim_machine *m)
{
	assert_int_equal(m->isa, TLBSIM_ISA_ARM64);
	assert_int_equal(m->nr_cpus, 1);
	assert_true(m->freq_ghz == 3.0);
	assert_int_equal(m->pt_levels, 4);
	assert_int_equal(m->asid_bits, 16);
	expect_geom(&m->l1i, 48, 48, PS_4K | PS_2M, LRU, 0, 1);
	expect_geom(&m->l1d, 48, 48, PS_4K | PS_2M | PS_1G, LRU, 0, 1);
	expect_geom(&m->l2, 1280, 5, PS_4K | PS_2M | PS_1G, LRU, 0, 6);
	assert_int_equal(m->pwc[0].entries, 0);
	expect_geom(&m->pwc[1], 32, 4, 0, LRU, 0, 2); /* Arm level 2 */
	expect_geom(&m->pwc[2], 8, 8, 0, LRU, 0, 2);  /* Arm level 1 */
	expect_geom(&m->pwc[3], 4, 4, 0, LRU, 0, 2);  /* Arm level 0 */
	assert_int_equal(m->pwc[4].entries, 0);
	expect_pte_latency(m, 20, 20, 20, 20, 0);
}

static void shipped_x86_machine_has_the_values_of_its_file(void **state)
{
	struct tlbsim_machine *m = NULL;
	struct tlbsim_error err;

	(void)state;
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_machine_load_file("models/machines/generic-x86-64.json", &m, &err),
			 0);
	assert_string_equal(m->name, "generic-x86-64");
	assert_int_equal(m->isa, TLBSIM_ISA_X86_64);
	assert_int_equal(m->nr_cpus, 4);
	assert_true(m->freq_ghz == 3.0);
	assert_int_equal(m->pt_levels, 4);
	assert_int_equal(m->asid_bits, 12);
	expect_geom(&m->l1i, 64, 8, PS_4K | PS_2M, LRU, 0, 1);
	expect_geom(&m->l1d, 64, 4, PS_4K | PS_2M | PS_1G, LRU, 0, 1);
	/* The file's L2 latency, 12 cycles (CALIBRATION.md 7.9), not the default 8. */
	expect_geom(&m->l2, 1536, 12, PS_4K | PS_2M, LRU, 0, 12);
	expect_geom(&m->pwc[1], 32, 4, 0, LRU, 0, 2);
	expect_geom(&m->pwc[2], 4, 4, 0, LRU, 0, 2);
	expect_geom(&m->pwc[3], 2, 2, 0, LRU, 0, 2);
	assert_int_equal(m->pwc[4].entries, 0);
	/* "pte_latency": 20 applies to each of the 4 levels. */
	expect_pte_latency(m, 20, 20, 20, 20, 0);
	assert_int_equal(tlbsim_machine_validate(m, NULL), 0);
	tlbsim_machine_free(m);
}

static void shipped_arm64_machine_has_the_values_of_its_file(void **state)
{
	struct tlbsim_machine *m = NULL;
	struct tlbsim_error err;

	(void)state;
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_machine_load_file("models/machines/generic-arm64.json", &m, &err),
			 0);
	assert_string_equal(m->name, "generic-arm64");
	assert_int_equal(m->isa, TLBSIM_ISA_ARM64);
	assert_int_equal(m->nr_cpus, 4);
	assert_true(m->freq_ghz == 3.0);
	assert_int_equal(m->pt_levels, 4);
	assert_int_equal(m->asid_bits, 16);
	expect_geom(&m->l1i, 48, 48, PS_4K | PS_2M, LRU, 0, 1);
	expect_geom(&m->l1d, 48, 48, PS_4K | PS_2M | PS_1G, LRU, 0, 1);
	expect_geom(&m->l2, 1280, 5, PS_4K | PS_2M | PS_1G, LRU, 0, 6);
	/* "l2" is Arm level 2 = our level 1, "l1" level 2, "l0" level 3. */
	expect_geom(&m->pwc[1], 32, 4, 0, LRU, 0, 2);
	expect_geom(&m->pwc[2], 8, 8, 0, LRU, 0, 2);
	expect_geom(&m->pwc[3], 4, 4, 0, LRU, 0, 2);
	assert_int_equal(m->pwc[4].entries, 0);
	/* [13, 13, 13, 20] is root first: level 3, 2, 1 = 13, the leaf level 0 = 20. */
	expect_pte_latency(m, 20, 13, 13, 13, 0);
	assert_int_equal(tlbsim_machine_validate(m, NULL), 0);
	tlbsim_machine_free(m);
}

static void omitted_keys_take_the_x86_defaults(void **state)
{
	struct tlbsim_machine *m = load_string_ok("{\"isa\": \"x86-64\"}");

	(void)state;
	/* No "name" key: the source's base name. */
	assert_string_equal(m->name, "<test>");
	expect_x86_defaults(m);
	tlbsim_machine_free(m);
}

static void omitted_keys_take_the_arm64_defaults(void **state)
{
	struct tlbsim_machine *m = load_string_ok("{\"isa\": \"arm64\", \"sources\": {}}");

	(void)state;
	expect_arm64_defaults(m);
	tlbsim_machine_free(m);
}

/* "errata": Arm erratum 1286807 on an arm64 machine; none by default; the
 * same name on x86, or an unknown name, is an error at the key. */
static void errata_name_the_modelled_errata(void **state)
{
	struct tlbsim_machine *m =
	    load_string_ok("{\"isa\": \"arm64\", \"errata\": [\"arm-1286807\"], \"sources\": {}}");
	struct tlbsim_error err;

	(void)state;
	assert_int_equal(m->errata, TLBSIM_ERRATUM_ARM64_1286807);
	tlbsim_machine_free(m);
	m = load_string_ok("{\"isa\": \"arm64\", \"sources\": {}}");
	assert_int_equal(m->errata, 0);
	tlbsim_machine_free(m);
	tlbsim_error_clear(&err);
	assert_int_equal(
	    tlbsim_machine_load_string(
		"{\"isa\": \"x86-64\", \"errata\": [\"arm-1286807\"], \"sources\": {}}", "<test>",
		&m, &err),
	    -TLBSIM_ERANGE);
	/* On x86 the message must not offer an arm64 erratum as the fix. */
	assert_non_null(strstr(err.text, "item 0: no erratum of this ISA is modelled"));
	assert_null(strstr(err.text, "expected (\"arm-1286807\""));
	assert_string_equal(err.path, "errata");
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_machine_load_string(
			     "{\"isa\": \"arm64\", \"errata\": [\"arm-1\"], \"sources\": {}}",
			     "<test>", &m, &err),
			 -TLBSIM_ERANGE);
	assert_non_null(strstr(err.text, "item 0: a known arm64 erratum expected (\"arm-1286807\""));
	assert_non_null(strstr(err.text, "found \"arm-1\""));
}

static void a_partial_geometry_keeps_the_other_defaults(void **state)
{
	/* 2048 / 16 = 128 sets, a power of two. */
	struct tlbsim_machine *m = load_string_ok(
	    "{\"isa\": \"x86-64\", \"tlb\": {\"l2\": {\"entries\": 2048, \"ways\": 16}},"
	    " \"pwc\": {\"pde\": {\"latency\": 5}}}");

	(void)state;
	/* page_sizes (4K+2M), policy and latency 8 stay the x86 L2 defaults. */
	expect_geom(&m->l2, 2048, 16, PS_4K | PS_2M, LRU, 0, 8);
	/* The PDE cache keeps 32 entries, 4 ways. */
	expect_geom(&m->pwc[1], 32, 4, 0, LRU, 0, 5);
	expect_geom(&m->l1d, 64, 4, PS_4K | PS_2M | PS_1G, LRU, 0, 1);
	tlbsim_machine_free(m);
}

static void five_levels_add_the_pml5e_cache_and_a_fifth_latency(void **state)
{
	struct tlbsim_machine *m =
	    load_string_ok("{\"isa\": \"x86-64\", \"page_table\": {\"levels\": 5}}");

	(void)state;
	assert_int_equal(m->pt_levels, 5);
	/* README: pml5e default 2 entries, 2 ways, latency 2; pte_latency 20. */
	expect_geom(&m->pwc[4], 2, 2, 0, LRU, 0, 2);
	expect_pte_latency(m, 20, 20, 20, 20, 20);
	tlbsim_machine_free(m);
}

static void pte_latency_array_is_read_root_first(void **state)
{
	struct tlbsim_machine *m =
	    load_string_ok("{\"isa\": \"x86-64\", \"page_table\": {\"levels\": 5},"
			   " \"pwc\": {\"pml5e\": {\"entries\": 4, \"ways\": 4}},"
			   " \"walker\": {\"pte_latency\": [50, 40, 30, 20, 10]}}");

	(void)state;
	/* Element 0 is the root (level 4), element 4 the leaf table (level 0). */
	expect_pte_latency(m, 10, 20, 30, 40, 50);
	expect_geom(&m->pwc[4], 4, 4, 0, LRU, 0, 2);
	tlbsim_machine_free(m);

	m = load_string_ok("{\"isa\": \"arm64\", \"walker\": {\"pte_latency\": [4, 3, 2, 1]}}");
	expect_pte_latency(m, 1, 2, 3, 4, 0);
	tlbsim_machine_free(m);
}

static void random_replacement_and_its_seed_are_read(void **state)
{
	struct tlbsim_machine *m = load_string_ok(
	    "{\"isa\": \"arm64\", \"name\": \"rnd\", \"tlb\": {\"l2\": {\"replacement\": "
	    "\"random\", \"seed\": 12345678901}, \"l1d\": {\"entries\": 32, \"ways\": 8,"
	    " \"replacement\": \"plru\", \"page_sizes\": [\"1G\", \"4K\"]}}}");

	(void)state;
	assert_string_equal(m->name, "rnd");
	/* 12345678901 > 2^32: the seed is 64-bit. */
	expect_geom(&m->l2, 1280, 5, PS_4K | PS_2M | PS_1G, TLBSIM_REPL_RANDOM, 12345678901ull, 6);
	/* 8 ways is a power of two, so plru is allowed; the list order does not matter. */
	expect_geom(&m->l1d, 32, 8, PS_4K | PS_1G, TLBSIM_REPL_PLRU, 0, 1);
	tlbsim_machine_free(m);
}

static void an_absent_l2_tlb_is_allowed(void **state)
{
	struct tlbsim_machine *m = load_string_ok(
	    "{\"isa\": \"x86-64\", \"tlb\": {\"l2\": {\"entries\": 0, \"page_sizes\": []}}}");

	(void)state;
	assert_int_equal(m->l2.entries, 0);
	tlbsim_machine_free(m);
}

static void create_default_gives_the_documented_values(void **state)
{
	struct tlbsim_machine *x86 = tlbsim_machine_create_default(TLBSIM_ISA_X86_64);
	struct tlbsim_machine *arm = tlbsim_machine_create_default(TLBSIM_ISA_ARM64);

	(void)state;
	assert_non_null(x86);
	assert_non_null(arm);
	assert_string_equal(x86->name, "default-x86-64");
	assert_string_equal(arm->name, "default-arm64");
	expect_x86_defaults(x86);
	expect_arm64_defaults(arm);
	assert_int_equal(tlbsim_machine_validate(x86, NULL), 0);
	assert_int_equal(tlbsim_machine_validate(arm, NULL), 0);
	assert_null(tlbsim_machine_create_default((enum tlbsim_isa)0));
	tlbsim_machine_free(x86);
	tlbsim_machine_free(arm);
	tlbsim_machine_free(NULL);
}

static void the_name_defaults_to_the_file_base_name(void **state)
{
	char dir[] = "/tmp/tlbsim-machine-XXXXXX";
	char path[sizeof(dir) + 32];
	struct tlbsim_machine *m = NULL;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/my-box.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"isa\": \"arm64\"}\n", f);
	fclose(f);
	assert_int_equal(tlbsim_machine_load_file(path, &m, NULL), 0);
	assert_string_equal(m->name, "my-box");
	tlbsim_machine_free(m);
	unlink(path);
	rmdir(dir);
}

static void a_missing_file_is_enoent_naming_the_file(void **state)
{
	static struct tlbsim_machine sentinel;
	struct tlbsim_machine *m = &sentinel; /* the loader must reset it to NULL */
	struct tlbsim_error err;

	(void)state;
	tlbsim_error_clear(&err);
	assert_int_equal(
	    tlbsim_machine_load_file("tests/data/machines/no-such-file.json", &m, &err),
	    -TLBSIM_ENOENT);
	assert_null(m);
	assert_int_equal(err.code, -TLBSIM_ENOENT);
	assert_string_equal(err.source, "tests/data/machines/no-such-file.json");
	assert_int_equal(err.line, -1);
}

/*
 * tlbsim_machine_path() names the file tlbsim_machine_find() loads: a
 * shipped name is models/machines/NAME.json of the source tree (the build
 * is not installed; $TLBSIM_MODELS is unset in the tests), a path is kept
 * as given, unchecked, and an unknown name is ENOENT.
 */
static void machine_path_names_the_file_find_loads(void **state)
{
	const char *src = getenv("TLBSIM_SOURCE_DIR");
	char path[4096], want[4096], small[8];
	struct tlbsim_error err;

	(void)state;
	assert_non_null(src);
	unsetenv("TLBSIM_MODELS");
	snprintf(want, sizeof(want), "%s/models/machines/emag-32.json", src);
	assert_int_equal(tlbsim_machine_path("emag-32", path, sizeof(path), NULL), 0);
	assert_string_equal(path, want);
	assert_int_equal(tlbsim_machine_path("no/such/dir.json", path, sizeof(path), NULL), 0);
	assert_string_equal(path, "no/such/dir.json");
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_machine_path("no-such-machine", path, sizeof(path), &err),
			 -TLBSIM_ENOENT);
	assert_non_null(strstr(err.text, "no machine named 'no-such-machine'"));
	assert_int_equal(tlbsim_machine_path("a/long/path.json", small, sizeof(small), NULL),
			 -TLBSIM_ERANGE);
	assert_int_equal(tlbsim_machine_path("emag-32", path, 0, NULL), -TLBSIM_EINVAL);
}

static void null_arguments_are_einval(void **state)
{
	struct tlbsim_machine *m = NULL;

	(void)state;
	assert_int_equal(tlbsim_machine_load_string(NULL, NULL, &m, NULL), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_machine_load_string("{}", NULL, NULL, NULL), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_machine_load_file(NULL, &m, NULL), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_machine_validate(NULL, NULL), -TLBSIM_EINVAL);
}

/* ---- topology and costs ---------------------------------------------- */

/* models/README.md "Topology": one socket, node and cluster of all cores. */
static void expect_default_topology(const struct tlbsim_machine *m, unsigned cores)
{
	const struct tlbsim_topology *t = &m->topology;

	assert_int_equal(t->sockets, 1);
	assert_int_equal(t->nodes_per_socket, 1);
	assert_int_equal(t->clusters_per_node, 1);
	assert_int_equal(t->cores_per_cluster, cores);
	assert_int_equal(t->lat_cluster, 100);
	assert_int_equal(t->lat_node, 150);
	assert_int_equal(t->lat_socket, 200);
	assert_int_equal(t->lat_remote, 600);
	assert_null(t->matrix);
}

/* models/README.md "Costs", x86-64 column (row F at 3 GHz). */
static void expect_x86_cost_defaults(const struct tlbsim_costs *k)
{
	/* 0.78 us x 3 GHz = 2340 = ipi_send + 210 + 2 x 100 + 400 + 500 + 216 */
	assert_int_equal(k->ipi_send, 2340 - 210 - 200 - 900 - 216);
	assert_int_equal(k->ipi_send_per_target, 210); /* 70 ns x 3 GHz */
	assert_int_equal(k->ipi_entry + k->ipi_handler + k->ipi_exit, 1200);
	assert_int_equal(k->invlpg, 216);
	assert_int_equal(k->invpcid, 230);
	assert_int_equal(k->cr3_write, 124);
	assert_int_equal(k->flush_all, 960);
	assert_int_equal(k->tlbi_local + k->dsb + k->isb + k->tlbi_issue, 0);
	assert_int_equal(k->dvm_service + k->tlbi_perform + k->tlbi_receive, 0);
	assert_int_equal(k->invlpgb_issue, 150); /* 50 ns */
	assert_int_equal(k->invlpgb_max_pages, 0);
	assert_int_equal(k->syscall, 1650);
	assert_int_equal(k->page_fault, 360);	     /* 0.12 us */
	assert_int_equal(k->page_copy, 1890);	     /* 0.75 us - 0.12 us */
	assert_int_equal(k->call_rcu, 105);	     /* 35 ns */
	assert_int_equal(k->rcu_grace_min, 3000000); /* 1 ms */
	assert_int_equal(k->sched_slice, 9000000);   /* 3 ms */
}

/* The arm64 column (row A at 3 GHz). */
static void expect_arm64_cost_defaults(const struct tlbsim_costs *k)
{
	assert_int_equal(k->ipi_send, 2340 - 210 - 200 - 900 - 200);
	assert_int_equal(k->invlpg + k->invpcid + k->cr3_write, 0);
	assert_int_equal(k->tlbi_local + k->dsb, 200);
	assert_int_equal(k->flush_all, 200);
	assert_int_equal(k->dvm_service, 10200); /* 3.4 us x 3 GHz */
	assert_int_equal(k->tlbi_receive, 6300); /* 2.1 us x 3 GHz */
	assert_int_equal(k->invlpgb_issue + k->invlpgb_service + k->invlpgb_perform, 0);
	assert_int_equal(k->invlpgb_max_pages + k->tlbsync, 0);
	/* 6.5 us x 3 GHz = 19500 = 1500 + 1024 x pte_update + 200: 17.4 */
	assert_int_equal(k->pte_update, 17);
	assert_int_equal(k->syscall, 1500);
}

static void omitted_topology_and_costs_take_the_defaults(void **state)
{
	struct tlbsim_machine *x86 = load_string_ok("{\"isa\": \"x86-64\", \"cores\": 8}");
	struct tlbsim_machine *arm = load_string_ok("{\"isa\": \"arm64\"}");
	struct tlbsim_machine *dx = tlbsim_machine_create_default(TLBSIM_ISA_X86_64);
	struct tlbsim_machine *da = tlbsim_machine_create_default(TLBSIM_ISA_ARM64);

	(void)state;
	expect_default_topology(x86, 8);
	expect_default_topology(arm, 1);
	expect_default_topology(dx, 1);
	expect_default_topology(da, 1);
	expect_x86_cost_defaults(&x86->costs);
	expect_x86_cost_defaults(&dx->costs);
	expect_arm64_cost_defaults(&arm->costs);
	expect_arm64_cost_defaults(&da->costs);
	/* One cluster: every pair of distinct cores is at the cluster latency. */
	assert_int_equal(tlbsim_machine_latency(x86, 0, 7), 100);
	assert_int_equal(tlbsim_machine_latency(x86, 3, 3), 0);
	tlbsim_machine_free(x86);
	tlbsim_machine_free(arm);
	tlbsim_machine_free(dx);
	tlbsim_machine_free(da);
}

static void topology_levels_are_read_and_cores_per_cluster_derived(void **state)
{
	/* 64 / (2 sockets * 1 node * 4 clusters) = 8 cores per cluster. */
	struct tlbsim_machine *m = load_string_ok(
	    "{\"isa\": \"x86-64\", \"cores\": 64, \"topology\": {\"sockets\": 2,"
	    " \"clusters_per_node\": 4, \"latency\": {\"cluster\": 70, \"node\": 300,"
	    " \"socket\": 300, \"remote\": 585}}}");

	(void)state;
	assert_int_equal(m->topology.sockets, 2);
	assert_int_equal(m->topology.nodes_per_socket, 1);
	assert_int_equal(m->topology.clusters_per_node, 4);
	assert_int_equal(m->topology.cores_per_cluster, 8);
	/* Cores 0-7 cluster 0, 8-15 cluster 1 (same node), 32-63 socket 1. */
	assert_int_equal(tlbsim_machine_latency(m, 0, 7), 70);
	assert_int_equal(tlbsim_machine_latency(m, 7, 8), 300);
	assert_int_equal(tlbsim_machine_latency(m, 31, 32), 585);
	assert_int_equal(tlbsim_machine_latency(m, 63, 0), 585);
	tlbsim_machine_free(m);
}

static void a_symmetric_matrix_is_read_row_by_sender(void **state)
{
	/* The levels may decrease when a matrix replaces them. */
	struct tlbsim_machine *m =
	    load_string_ok("{\"isa\": \"arm64\", \"cores\": 3, \"topology\": {"
			   " \"latency\": {\"cluster\": 500, \"node\": 100},"
			   " \"matrix\": [[0, 10, 20], [10, 0, 30], [20, 30, 0]]}}");

	(void)state;
	assert_non_null(m->topology.matrix);
	assert_int_equal(m->topology.lat_cluster, 500);
	assert_int_equal(tlbsim_machine_latency(m, 0, 1), 10);
	assert_int_equal(tlbsim_machine_latency(m, 2, 1), 30);
	assert_int_equal(tlbsim_machine_latency(m, 0, 2), 20);
	assert_int_equal(tlbsim_machine_latency(m, 1, 1), 0);
	assert_int_equal(tlbsim_machine_validate(m, NULL), 0);
	tlbsim_machine_free(m);
}

static void an_asymmetric_matrix_keeps_both_directions_and_dup_copies_it(void **state)
{
	struct tlbsim_machine *m =
	    load_string_ok("{\"isa\": \"x86-64\", \"cores\": 2, \"topology\": {"
			   " \"matrix\": [[0, 10], [15, 0]], \"asymmetric\": true}}");
	struct tlbsim_machine *copy = tlbsim_machine_dup(m);

	(void)state;
	assert_int_equal(tlbsim_machine_latency(m, 0, 1), 10);
	assert_int_equal(tlbsim_machine_latency(m, 1, 0), 15);
	assert_non_null(copy);
	assert_ptr_not_equal(copy->topology.matrix, m->topology.matrix);
	/* Freed first: a shared matrix would now be read after free (ASan). */
	tlbsim_machine_free(m);
	assert_int_equal(tlbsim_machine_latency(copy, 1, 0), 15);
	assert_int_equal(tlbsim_machine_latency(copy, 0, 1), 10);
	tlbsim_machine_free(copy);
	assert_null(tlbsim_machine_dup(NULL));
}

static void costs_are_read_and_the_others_keep_the_isa_defaults(void **state)
{
	/* 999999999999 > 2^32: sched_slice is 64-bit. */
	struct tlbsim_machine *m = load_string_ok(
	    "{\"isa\": \"x86-64\", \"costs\": {\"ipi_entry\": 123, \"invlpgb_max_pages\": 8,"
	    " \"sched_slice\": 999999999999, \"dsb\": 0},"
	    " \"sources\": {\"costs.ipi_entry\": \"test\", \"topology.latency.remote\": "
	    "\"test\"}}");

	(void)state;
	assert_int_equal(m->costs.ipi_entry, 123);
	assert_int_equal(m->costs.invlpgb_max_pages, 8);
	assert_int_equal(m->costs.sched_slice, 999999999999ull);
	assert_int_equal(m->costs.ipi_handler, 500); /* default */
	assert_int_equal(m->costs.invlpg, 216);	     /* default */
	tlbsim_machine_free(m);
}

#define MACHINES_DIR "models/machines"

static int is_json_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 5 && strcmp(d->d_name + n - 5, ".json") == 0;
}

static void every_shipped_machine_loads_and_validates(void **state)
{
	struct dirent **names = NULL;
	int n, failed = 0;

	(void)state;
	n = scandir(MACHINES_DIR, &names, is_json_file, alphasort);
	/* generic-x86-64, generic-arm64 and the six calibrated machines. */
	assert_true(n >= 8);
	for (int i = 0; i < n; i++) {
		char path[512], msg[1024], base[256];
		struct tlbsim_machine *m = NULL, *copy;
		struct tlbsim_error err;
		const struct tlbsim_topology *t;

		snprintf(path, sizeof(path), "%s/%s", MACHINES_DIR, names[i]->d_name);
		snprintf(base, sizeof(base), "%.*s", (int)strlen(names[i]->d_name) - 5,
			 names[i]->d_name);
		free(names[i]);
		tlbsim_error_clear(&err);
		if (tlbsim_machine_load_file(path, &m, &err)) {
			tlbsim_error_format(&err, msg, sizeof(msg));
			print_error("%s\n", msg);
			failed++;
			continue;
		}
		t = &m->topology;
		/* Each file names itself after its file. */
		if (strcmp(m->name, base)) {
			print_error("%s: name \"%s\"\n", path, m->name);
			failed++;
		}
		if (t->sockets * t->nodes_per_socket * t->clusters_per_node *
			t->cores_per_cluster !=
		    m->nr_cpus) {
			print_error("%s: topology does not cover the cores\n", path);
			failed++;
		}
		copy = tlbsim_machine_dup(m);
		if (!copy || tlbsim_machine_validate(copy, NULL)) {
			print_error("%s: copy does not validate\n", path);
			failed++;
		}
		tlbsim_machine_free(copy);
		tlbsim_machine_free(m);
	}
	free(names);
	assert_int_equal(failed, 0);
}

static struct tlbsim_machine *load_shipped(const char *name)
{
	char path[256];
	struct tlbsim_machine *m = NULL;

	snprintf(path, sizeof(path), MACHINES_DIR "/%s.json", name);
	assert_int_equal(tlbsim_machine_load_file(path, &m, NULL), 0);
	return m;
}

static void shipped_emag_converts_nanoseconds_at_3_3_ghz(void **state)
{
	struct tlbsim_machine *m = load_shipped("emag-32");

	(void)state;
	assert_int_equal(m->isa, TLBSIM_ISA_ARM64);
	assert_int_equal(m->nr_cpus, 32);
	assert_true(m->freq_ghz == 3.3);
	/* CALIBRATION.md 2.4: 70 ns x 3.3 GHz = 231 cycles between any two cores. */
	assert_int_equal(m->topology.cores_per_cluster, 32);
	assert_int_equal(tlbsim_machine_latency(m, 0, 31), 231);
	/* 4.4: 3.4 us x 3.3 GHz = 11220; 4.7: 2.1 us x 3.3 GHz = 6930. */
	assert_int_equal(m->costs.dvm_service, 11220);
	assert_int_equal(m->costs.tlbi_receive, 6930);
	/* Calibrated on issue 9's experiment 1 (CALIBRATION.md 4.2, 0.13941 s):
	 * (0.13941 s x 3.3 GHz - 5.1M cycles of population) / 20000 calls =
	 * 22750 per mprotect; (22750 - 1650 - 200) / 1024 = 20.4. */
	assert_int_equal(m->costs.pte_update, 20);
	assert_int_equal(m->costs.invlpgb_max_pages, 0);
	/* 7.7: L1 48, L2 1024; [5, 5, 13, 13] root first. */
	assert_int_equal(m->l1d.entries, 48);
	assert_int_equal(m->l2.entries, 1024);
	expect_pte_latency(m, 13, 13, 5, 5, 0);
	tlbsim_machine_free(m);
}

static void shipped_thunderx2_has_two_sockets_of_32(void **state)
{
	struct tlbsim_machine *m = load_shipped("thunderx2-2s");

	(void)state;
	assert_int_equal(m->nr_cpus, 64);
	assert_true(m->freq_ghz == 2.5);
	/* 70 ns x 2.5 = 175 in a socket; 195 ns x 2.5 = 487.5, rounded 488 across. */
	assert_int_equal(tlbsim_machine_latency(m, 0, 31), 175);
	assert_int_equal(tlbsim_machine_latency(m, 31, 32), 488);
	/* Row B: 3 us x 2.5 GHz = 7500 = 30 + dvm_service + 488 + 100 + 488. */
	assert_int_equal(m->costs.dvm_service, 7500 - 30 - 488 - 100 - 488);
	assert_int_equal(m->l2.entries, 2048); /* 7.8 */
	tlbsim_machine_free(m);
}

static void shipped_amd_machines_group_cores_by_ccx(void **state)
{
	struct tlbsim_machine *milan = load_shipped("milan-36");
	struct tlbsim_machine *genoa = load_shipped("genoa-2s");
	struct tlbsim_machine *turin = load_shipped("turin-2s");
	struct tlbsim_machine *x86 = load_shipped("x86-16");

	(void)state;
	/* Milan: 6 CCXs of 6 cores; 25 ns x 3 = 75 in a CCX, 220 ns x 3 = 660 across. */
	assert_int_equal(milan->nr_cpus, 36);
	assert_int_equal(milan->topology.clusters_per_node, 6);
	assert_int_equal(milan->topology.cores_per_cluster, 6);
	assert_int_equal(tlbsim_machine_latency(milan, 0, 5), 75);
	assert_int_equal(tlbsim_machine_latency(milan, 5, 6), 660);
	assert_int_equal(milan->costs.invlpgb_max_pages, 8); /* 5.7 */
	/* Genoa (2.2): 23 ns -> 69, 100 ns -> 300, 195 ns -> 585 at 3 GHz. */
	assert_int_equal(tlbsim_machine_latency(genoa, 0, 7), 69);
	assert_int_equal(tlbsim_machine_latency(genoa, 0, 8), 300);
	assert_int_equal(tlbsim_machine_latency(genoa, 0, 32), 585);
	assert_int_equal(genoa->l1d.entries, 72);
	assert_int_equal(genoa->l2.entries, 3072);
	assert_int_equal(genoa->costs.invlpgb_max_pages, 8);
	/* Turin: 21 ns -> 63, 95 ns -> 285 (2.3); TLBs of 7.1. */
	assert_int_equal(tlbsim_machine_latency(turin, 8, 15), 63);
	assert_int_equal(tlbsim_machine_latency(turin, 8, 16), 285);
	assert_int_equal(turin->l1d.entries, 96);
	assert_int_equal(turin->l2.entries, 4096);
	/* The generic Intel-like machine is row F: no INVLPGB, its costs the defaults. */
	assert_int_equal(x86->nr_cpus, 16);
	expect_x86_cost_defaults(&x86->costs);
	tlbsim_machine_free(milan);
	tlbsim_machine_free(genoa);
	tlbsim_machine_free(turin);
	tlbsim_machine_free(x86);
}

/* Validate a default machine after @mutate, expecting an error at @path. */
static void expect_invalid(enum tlbsim_isa isa, void (*mutate)(struct tlbsim_machine *),
			   const char *path)
{
	struct tlbsim_machine *m = tlbsim_machine_create_default(isa);
	struct tlbsim_error err;

	assert_non_null(m);
	mutate(m);
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_machine_validate(m, &err), -TLBSIM_ERANGE);
	assert_int_equal(err.code, -TLBSIM_ERANGE);
	assert_string_equal(err.path, path);
	/* No text: position unknown. */
	assert_int_equal(err.line, -1);
	assert_int_equal(err.column, -1);
	tlbsim_machine_free(m);
}

static void arm_pwc_l2_three_ways(struct tlbsim_machine *m)
{
	m->pwc[1].ways = 3; /* 32 % 3 != 0 */
}

static void arm_five_levels(struct tlbsim_machine *m)
{
	m->pt_levels = 5;
}

static void x86_pml5e_with_four_levels(struct tlbsim_machine *m)
{
	m->pwc[4].entries = 2;
	m->pwc[4].ways = 2;
}

static void arm_l1d_plru_48_ways(struct tlbsim_machine *m)
{
	m->l1d.repl = TLBSIM_REPL_PLRU; /* 48 ways is no power of two */
}

static void x86_l1i_no_page_sizes(struct tlbsim_machine *m)
{
	m->l1i.page_sizes = 0;
}

static void x86_leaf_latency_too_big(struct tlbsim_machine *m)
{
	m->pte_latency_cycles[0] = 100001; /* level 0 is the last of 4 in JSON order */
}

static void x86_zero_cores(struct tlbsim_machine *m)
{
	m->nr_cpus = 0;
}

static void x86_topology_covers_two_cores(struct tlbsim_machine *m)
{
	m->topology.cores_per_cluster = 2; /* 1 * 1 * 1 * 2 != 1 core */
}

static void arm_zero_clusters(struct tlbsim_machine *m)
{
	m->topology.clusters_per_node = 0;
}

static void x86_remote_below_socket(struct tlbsim_machine *m)
{
	m->topology.lat_remote = 199; /* socket is 200 */
}

static void arm_matrix_with_a_diagonal(struct tlbsim_machine *m)
{
	static const uint32_t lat[4] = {0, 50, 50, 7};

	m->nr_cpus = 2;
	m->topology.cores_per_cluster = 2;
	m->topology.matrix = malloc(sizeof(lat)); /* freed with the machine */
	assert_non_null(m->topology.matrix);
	memcpy(m->topology.matrix, lat, sizeof(lat));
}

static void arm_invlpgb(struct tlbsim_machine *m)
{
	m->costs.invlpgb_max_pages = 1;
}

static void x86_huge_ipi_cost(struct tlbsim_machine *m)
{
	m->costs.ipi_exit = 1000000001;
}

static void validate_names_the_first_bad_field(void **state)
{
	(void)state;
	expect_invalid(TLBSIM_ISA_ARM64, arm_pwc_l2_three_ways, "pwc.l2.entries");
	expect_invalid(TLBSIM_ISA_ARM64, arm_five_levels, "page_table.levels");
	expect_invalid(TLBSIM_ISA_X86_64, x86_pml5e_with_four_levels, "pwc.pml5e");
	expect_invalid(TLBSIM_ISA_ARM64, arm_l1d_plru_48_ways, "tlb.l1d.replacement");
	expect_invalid(TLBSIM_ISA_X86_64, x86_l1i_no_page_sizes, "tlb.l1i.page_sizes");
	expect_invalid(TLBSIM_ISA_X86_64, x86_leaf_latency_too_big, "walker.pte_latency[3]");
	expect_invalid(TLBSIM_ISA_X86_64, x86_zero_cores, "cores");
	expect_invalid(TLBSIM_ISA_X86_64, x86_topology_covers_two_cores, "topology");
	expect_invalid(TLBSIM_ISA_ARM64, arm_zero_clusters, "topology.clusters_per_node");
	expect_invalid(TLBSIM_ISA_X86_64, x86_remote_below_socket, "topology.latency.remote");
	expect_invalid(TLBSIM_ISA_ARM64, arm_matrix_with_a_diagonal, "topology.matrix[1][1]");
	expect_invalid(TLBSIM_ISA_ARM64, arm_invlpgb, "costs.invlpgb_max_pages");
	expect_invalid(TLBSIM_ISA_X86_64, x86_huge_ipi_cost, "costs.ipi_exit");
}

static void isa_names_are_the_json_names(void **state)
{
	(void)state;
	assert_string_equal(tlbsim_isa_name(TLBSIM_ISA_X86_64), "x86-64");
	assert_string_equal(tlbsim_isa_name(TLBSIM_ISA_ARM64), "arm64");
	assert_string_equal(tlbsim_isa_name((enum tlbsim_isa)7), "unknown");
}

#define INVALID_DIR "tests/data/machines/invalid"

/* Reads the next line of @f into @buf, without its newline. */
static void read_line(FILE *f, char *buf, size_t size)
{
	if (!fgets(buf, (int)size, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

static int is_case_dir(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Checks one case; returns the number of mismatches, printing each. */
static int check_case(const char *name)
{
	char input[512], expect_file[512];
	char code[64], path[TLBSIM_ERROR_SOURCE_LEN], text[TLBSIM_ERROR_TEXT_LEN + 2];
	int line = 0, column = 0, bad = 0;
	long long offset = 0;
	struct tlbsim_machine *m = NULL;
	struct tlbsim_error err;
	FILE *f;
	int rc;

	snprintf(input, sizeof(input), "%s/%s/input.json", INVALID_DIR, name);
	snprintf(expect_file, sizeof(expect_file), "%s/%s/error", INVALID_DIR, name);
	f = fopen(expect_file, "r");
	if (!f) {
		print_error("%s: cannot open %s\n", name, expect_file);
		return 1;
	}
	if (fscanf(f, "%d %d %lld\n", &line, &column, &offset) != 3) {
		print_error("%s: first line of %s is not \"line column offset\"\n", name,
			    expect_file);
		fclose(f);
		return 1;
	}
	read_line(f, code, sizeof(code));
	read_line(f, path, sizeof(path));
	read_line(f, text, sizeof(text));
	fclose(f);

	tlbsim_error_clear(&err);
	rc = tlbsim_machine_load_file(input, &m, &err);
	if (rc == 0) {
		print_error("%s: loaded without error\n", name);
		tlbsim_machine_free(m);
		return 1;
	}
#define MISMATCH(cond, fmt, ...)                                                                   \
	do {                                                                                       \
		if (cond) {                                                                        \
			print_error("%s: " fmt "\n", name, __VA_ARGS__);                           \
			bad++;                                                                     \
		}                                                                                  \
	} while (0)
	MISMATCH(strcmp(tlbsim_err_name(rc), code), "code %s, expected %s", tlbsim_err_name(rc),
		 code);
	MISMATCH(err.code != rc, "err.code %d, returned %d", err.code, rc);
	MISMATCH(strcmp(err.source, input), "source \"%s\", expected \"%s\"", err.source, input);
	MISMATCH(err.line != line || err.column != column || err.offset != offset,
		 "at %d:%d (offset %lld), expected %d:%d (offset %lld)", err.line, err.column,
		 err.offset, line, column, offset);
	MISMATCH(strcmp(err.path, path), "path \"%s\", expected \"%s\"", err.path, path);
	MISMATCH(strcmp(err.text, text), "text\n    \"%s\", expected\n    \"%s\"", err.text, text);
#undef MISMATCH
	return bad;
}

/*
 * Each folder tests/data/machines/invalid/<case>/ holds input.json and
 * error.  error has four lines: "line column offset" (1-based line and
 * column in characters, 0-based byte offset, of the offending value or
 * key), the TLBSIM_E* name, the JSON path (empty line when none), and the
 * message.  The rule: every field must match exactly, the message included
 * (syntax messages are jansson 2.14's, prefixed "invalid JSON: ").  A new
 * case is a new folder.
 */
static void invalid_cases_report_the_expected_error(void **state)
{
	struct dirent **names = NULL;
	int n, failed = 0;

	(void)state;
	n = scandir(INVALID_DIR, &names, is_case_dir, alphasort);
	assert_true(n >= 50);
	for (int i = 0; i < n; i++) {
		failed += check_case(names[i]->d_name) ? 1 : 0;
		free(names[i]);
	}
	free(names);
	assert_int_equal(failed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(shipped_x86_machine_has_the_values_of_its_file),
	    cmocka_unit_test(shipped_arm64_machine_has_the_values_of_its_file),
	    cmocka_unit_test(omitted_keys_take_the_x86_defaults),
	    cmocka_unit_test(omitted_keys_take_the_arm64_defaults),
	    cmocka_unit_test(errata_name_the_modelled_errata),
	    cmocka_unit_test(a_partial_geometry_keeps_the_other_defaults),
	    cmocka_unit_test(five_levels_add_the_pml5e_cache_and_a_fifth_latency),
	    cmocka_unit_test(pte_latency_array_is_read_root_first),
	    cmocka_unit_test(random_replacement_and_its_seed_are_read),
	    cmocka_unit_test(an_absent_l2_tlb_is_allowed),
	    cmocka_unit_test(create_default_gives_the_documented_values),
	    cmocka_unit_test(the_name_defaults_to_the_file_base_name),
	    cmocka_unit_test(a_missing_file_is_enoent_naming_the_file),
	    cmocka_unit_test(machine_path_names_the_file_find_loads),
	    cmocka_unit_test(null_arguments_are_einval),
	    cmocka_unit_test(omitted_topology_and_costs_take_the_defaults),
	    cmocka_unit_test(topology_levels_are_read_and_cores_per_cluster_derived),
	    cmocka_unit_test(a_symmetric_matrix_is_read_row_by_sender),
	    cmocka_unit_test(an_asymmetric_matrix_keeps_both_directions_and_dup_copies_it),
	    cmocka_unit_test(costs_are_read_and_the_others_keep_the_isa_defaults),
	    cmocka_unit_test(every_shipped_machine_loads_and_validates),
	    cmocka_unit_test(shipped_emag_converts_nanoseconds_at_3_3_ghz),
	    cmocka_unit_test(shipped_thunderx2_has_two_sockets_of_32),
	    cmocka_unit_test(shipped_amd_machines_group_cores_by_ccx),
	    cmocka_unit_test(validate_names_the_first_bad_field),
	    cmocka_unit_test(isa_names_are_the_json_names),
	    cmocka_unit_test(invalid_cases_report_the_expected_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
