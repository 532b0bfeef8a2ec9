/* SPDX-License-Identifier: MIT */
/*
 * Tests of the machine-description loader (src/machine.c) against the
 * format and defaults documented in models/README.md.
 *
 * The expected values were read by hand from models/machines/ *.json and
 * from the default tables of models/README.md; none was copied from the
 * loader's output.  The invalid cases are data: one folder per case under
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

static void null_arguments_are_einval(void **state)
{
	struct tlbsim_machine *m = NULL;

	(void)state;
	assert_int_equal(tlbsim_machine_load_string(NULL, NULL, &m, NULL), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_machine_load_string("{}", NULL, NULL, NULL), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_machine_load_file(NULL, &m, NULL), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_machine_validate(NULL, NULL), -TLBSIM_EINVAL);
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
	assert_true(n >= 12);
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
	    cmocka_unit_test(a_partial_geometry_keeps_the_other_defaults),
	    cmocka_unit_test(five_levels_add_the_pml5e_cache_and_a_fifth_latency),
	    cmocka_unit_test(pte_latency_array_is_read_root_first),
	    cmocka_unit_test(random_replacement_and_its_seed_are_read),
	    cmocka_unit_test(an_absent_l2_tlb_is_allowed),
	    cmocka_unit_test(create_default_gives_the_documented_values),
	    cmocka_unit_test(the_name_defaults_to_the_file_base_name),
	    cmocka_unit_test(a_missing_file_is_enoent_naming_the_file),
	    cmocka_unit_test(null_arguments_are_einval),
	    cmocka_unit_test(validate_names_the_first_bad_field),
	    cmocka_unit_test(isa_names_are_the_json_names),
	    cmocka_unit_test(invalid_cases_report_the_expected_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
