/* SPDX-License-Identifier: MIT */
/*
 * Policies from outside the library, through the public headers only
 * (tlbsim/tlbsim.h): tlbsim_policy_register() (sqlite3_vfs_register()
 * style), finding it by name, composing it with rcu-table-free in a
 * simulation; and a built-in policy's hooks called directly with a mocked
 * ops table (STYLE.md: "mock the ops table to check who got an IPI"), to
 * see which cpus x86-stock's flush_range interrupts (Linux
 * native_flush_tlb_multi(): the other cpus of mm_cpumask, lazy ones only
 * when page tables are freed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "support/events.h"
#include "support/machines.h"
#include "tlbsim/tlbsim.h"

#define A 0x10000000ull /* a 2 MiB-aligned region */
#define PAGE 4096ull
#define NR_CPUS 8

/* ---- an external policy: IPIs to every cpu, counting its hook calls ---- */

static unsigned switch_calls, flush_calls;

static void everyone_switch_mm(struct tlbsim_pctx *ctx, struct tlbsim_mm *prev,
			       struct tlbsim_mm *next)
{
	(void)prev;
	switch_calls++;
	ctx->ops->load_mm(ctx, next);
}

static void everyone_flush_range(struct tlbsim_pctx *ctx, const struct tlbsim_flush_info *info)
{
	struct tlbsim_cpumask all;

	flush_calls++;
	tlbsim_cpumask_fill(&all, ctx->ops->nr_cpus(ctx));
	ctx->ops->send_ipi(ctx, &all, info);
	ctx->ops->local_flush(ctx, info);
}

static const struct tlbsim_policy ipi_everyone = {
	.name = "test-ipi-everyone",
	.summary = "test: IPIs every cpu for every flush",
	.source = "tests/os/test_policy_table.c",
	.abi = TLBSIM_POLICY_ABI,
	.isa_mask = TLBSIM_ISA_BIT(TLBSIM_ISA_X86_64) | TLBSIM_ISA_BIT(TLBSIM_ISA_ARM64),
	.switch_mm = everyone_switch_mm,
	.flush_range = everyone_flush_range,
};

static int register_once(void **state)
{
	(void)state;
	return tlbsim_policy_register(&ipi_everyone);
}

static void registered_policy_is_found_by_name_and_listed(void **state)
{
	const struct tlbsim_policy *p;
	bool listed = false;

	(void)state;
	assert_ptr_equal(tlbsim_policy_find("test-ipi-everyone", TLBSIM_ISA_X86_64), &ipi_everyone);
	for (unsigned i = 0; (p = tlbsim_policy_at(i)); i++)
		listed |= p == &ipi_everyone;
	assert_true(listed);
	/* Built-ins are still there, and the default is still stock. */
	assert_string_equal(tlbsim_policy_find(NULL, TLBSIM_ISA_X86_64)->name, "x86-stock");
	assert_non_null(tlbsim_policy_find("rcu-table-free", TLBSIM_ISA_ARM64));
}

static void registration_rejects_duplicates_and_malformed_policies(void **state)
{
	struct tlbsim_policy bad = ipi_everyone;

	(void)state;
	assert_int_equal(tlbsim_policy_register(&ipi_everyone), -TLBSIM_EEXIST);
	bad.name = "x86-stock";
	assert_int_equal(tlbsim_policy_register(&bad), -TLBSIM_EEXIST);
	bad.name = "test-wrong-abi";
	bad.abi = TLBSIM_POLICY_ABI + 1;
	assert_int_equal(tlbsim_policy_register(&bad), -TLBSIM_EINVAL);
	bad.abi = TLBSIM_POLICY_ABI;
	bad.name = "test+composed";
	assert_int_equal(tlbsim_policy_register(&bad), -TLBSIM_EINVAL);
	bad.name = "test-no-hooks";
	bad.switch_mm = NULL;
	bad.flush_range = NULL;
	assert_int_equal(tlbsim_policy_register(&bad), -TLBSIM_EINVAL);
	assert_null(tlbsim_policy_find("test-no-hooks", TLBSIM_ISA_X86_64));
	assert_int_equal(tlbsim_policy_register(NULL), -TLBSIM_EINVAL);
}

static uint64_t json_u64(json_t *root, const char *section, const char *key)
{
	json_t *v = json_object_get(json_object_get(root, section), key);

	assert_true(json_is_integer(v));
	return (uint64_t)json_integer_value(v);
}

/*
 * One thread on cpu 0 of 4 maps, touches and unmaps one page of A: one
 * switch_mm (its first), one flush request, whose IPIs go to cpus 1-3
 * (the policy names everyone), and the 3 unlinked tables (PT, PD, PDPT)
 * go to rcu-table-free: one call_rcu batch, freed by the end.
 */
static void registered_policy_composes_with_rcu_table_free(void **state)
{
	struct tlbsim_machine *m = test_machine(TLBSIM_ISA_X86_64, 4);
	struct tlbsim_sim_config cfg = {.machine = m, .policy = "test-ipi-everyone+rcu-table-free",
					.threads = 1};
	struct evlist l = {0};
	struct tlbsim_error err;
	tlbsim_sim *sim;
	json_t *root;
	char *text;

	(void)state;
	switch_calls = flush_calls = 0;
	ev_proc(&l, 1, 1);
	ev_mmap(&l, 1, A, PAGE, TLBSIM_PROT_READ | TLBSIM_PROT_WRITE, 0);
	ev_access(&l, 1, TLBSIM_EV_STORE, A);
	ev_munmap(&l, 1, A, PAGE);
	ev_simple(&l, TLBSIM_EV_SLEEP, 1);
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_sim_create(&cfg, &sim, &err), 0);
	assert_int_equal(tlbsim_sim_run(sim, evlist_next, &l, &err), 0);
	assert_int_equal(switch_calls, 1);
	assert_int_equal(flush_calls, 1);
	text = tlbsim_sim_stats_json(sim);
	assert_non_null(text);
	root = json_loads(text, 0, NULL);
	assert_non_null(root);
	assert_string_equal(json_string_value(json_object_get(root, "policy")),
			    "test-ipi-everyone+rcu-table-free");
	assert_int_equal(json_u64(root, "totals", "ipis_sent"), 3);
	assert_int_equal(json_u64(root, "totals", "ipis_received"), 3);
	assert_int_equal(json_u64(root, "os", "rcu_batches"), 1);
	assert_int_equal(json_u64(root, "os", "rcu_tables_freed"), 3);
	json_decref(root);
	free(text);
	tlbsim_sim_destroy(sim);
	tlbsim_machine_free(m);
	evlist_free(&l);
}

/* ---- x86-stock's flush_range against a mocked ops table ---------------- */

static struct tlbsim_cpu cpus[NR_CPUS];

static void ipi_to(unsigned target)
{
	check_expected(target);
}

static void mock_send_ipi(struct tlbsim_pctx *ctx, const struct tlbsim_cpumask *targets,
			  const struct tlbsim_flush_info *info)
{
	unsigned c;

	(void)ctx;
	check_expected(info->end);
	tlbsim_for_each_cpu(c, targets)
		ipi_to(c);
}

static void mock_local_flush(struct tlbsim_pctx *ctx, const struct tlbsim_flush_info *info)
{
	unsigned cpu = ctx->cpu->id;
	uint64_t start = info->start, end = info->end;

	check_expected(cpu);
	check_expected(start);
	check_expected(end);
}

static unsigned mock_nr_cpus(struct tlbsim_pctx *ctx)
{
	(void)ctx;
	return NR_CPUS;
}

static struct tlbsim_cpu *mock_cpu(struct tlbsim_pctx *ctx, unsigned id)
{
	(void)ctx;
	return id < NR_CPUS ? &cpus[id] : NULL;
}

/* The shared lines the policy touched, in order. */
static struct {
	enum tlbsim_line_kind kind;
	unsigned cpu;
	enum tlbsim_line_access how;
} touched[16];
static unsigned nr_touched;

static void mock_touch_line(struct tlbsim_pctx *ctx, struct tlbsim_mm *mm,
			    enum tlbsim_line_kind kind, unsigned cpu, enum tlbsim_line_access how)
{
	(void)ctx;
	(void)mm;
	assert_true(nr_touched < 16);
	touched[nr_touched].kind = kind;
	touched[nr_touched].cpu = cpu;
	touched[nr_touched++].how = how;
}

/* Only the mechanisms x86-stock's flush_range may use; any other call
 * would be a NULL call and crash the test. */
static const struct tlbsim_policy_ops mock_ops = {
    .local_flush = mock_local_flush,
    .send_ipi = mock_send_ipi,
    .nr_cpus = mock_nr_cpus,
    .cpu = mock_cpu,
    .touch_line = mock_touch_line,
};

/*
 * mm_cpumask {0, 1, 2, 3, 5}, the mm loaded on each, cpus 3 and 5 lazy;
 * cpu 0 initiates at tlb_gen 1 (its slot at 0: exactly one behind).
 */
static void setup_cpus(struct tlbsim_mm *mm, struct tlbsim_pctx *ctx)
{
	static const unsigned in_mask[] = {0, 1, 2, 3, 5};

	memset(cpus, 0, sizeof(cpus));
	memset(mm, 0, sizeof(*mm));
	mm->id = 1;
	mm->tlb_gen = 1;
	for (unsigned i = 0; i < NR_CPUS; i++)
		cpus[i].id = i;
	for (unsigned i = 0; i < sizeof(in_mask) / sizeof(in_mask[0]); i++) {
		struct tlbsim_cpu *c = &cpus[in_mask[i]];

		tlbsim_cpumask_set(&mm->cpumask, c->id);
		c->loaded_mm = mm;
		c->ctxs[0].ctx_id = mm->id;
	}
	cpus[3].is_lazy = true;
	cpus[5].is_lazy = true;
	nr_touched = 0;
	*ctx = (struct tlbsim_pctx){.ops = &mock_ops, .cpu = &cpus[0], .slot = 0};
}

static struct tlbsim_flush_info request(struct tlbsim_mm *mm, unsigned pages, bool freed_tables)
{
	return (struct tlbsim_flush_info){.mm = mm, .start = A, .end = A + pages * PAGE,
					  .stride_shift = 12, .freed_tables = freed_tables,
					  .new_tlb_gen = 1, .initiator = 0};
}

/*
 * A 2-page flush without freed tables: IPIs to 1 and 2 (3 and 5 are lazy,
 * 0 is the initiator, 4, 6, 7 are not in the mask); cpu 0 flushes the
 * range itself (generation 0 -> 1, the single missing one).
 */
static void x86_stock_ipis_the_other_non_lazy_cpus_of_the_mask(void **state)
{
	const struct tlbsim_policy *stock = tlbsim_policy_find("x86-stock", TLBSIM_ISA_X86_64);
	struct tlbsim_flush_info info;
	struct tlbsim_pctx ctx;
	struct tlbsim_mm mm;

	(void)state;
	setup_cpus(&mm, &ctx);
	info = request(&mm, 2, false);
	expect_value(mock_send_ipi, info->end, A + 2 * PAGE);
	expect_value(ipi_to, target, 1);
	expect_value(ipi_to, target, 2);
	expect_value(mock_local_flush, cpu, 0);
	expect_value(mock_local_flush, start, A);
	expect_value(mock_local_flush, end, A + 2 * PAGE);
	stock->flush_range(&ctx, &info);
	assert_int_equal(cpus[0].ctxs[0].tlb_gen, 1);
	/* flush_tlb_mm_range(): inc_mm_tlb_gen() (an atomic), the mask read
	 * to pick targets, then the initiator's own flush_tlb_func() reads
	 * tlb_gen (arch/x86/mm/tlb.c). */
	assert_int_equal(nr_touched, 3);
	assert_int_equal(touched[0].kind, TLBSIM_LINE_TLB_GEN);
	assert_int_equal(touched[0].how, TLBSIM_LINE_RMW);
	assert_int_equal(touched[1].kind, TLBSIM_LINE_MM_CPUMASK);
	assert_int_equal(touched[1].cpu, TLBSIM_LINE_ALL_CPUS);
	assert_int_equal(touched[1].how, TLBSIM_LINE_READ);
	assert_int_equal(touched[2].kind, TLBSIM_LINE_TLB_GEN);
	assert_int_equal(touched[2].how, TLBSIM_LINE_READ);
}

/* The same flush freeing page tables also interrupts the lazy cpus 3 and
 * 5 (docs/hazard-rules.md rule 19: speculative walks through freed tables). */
static void x86_stock_ipis_lazy_cpus_when_tables_are_freed(void **state)
{
	const struct tlbsim_policy *stock = tlbsim_policy_find("x86-stock", TLBSIM_ISA_X86_64);
	struct tlbsim_flush_info info;
	struct tlbsim_pctx ctx;
	struct tlbsim_mm mm;

	(void)state;
	setup_cpus(&mm, &ctx);
	info = request(&mm, 2, true);
	expect_value(mock_send_ipi, info->end, A + 2 * PAGE);
	expect_value(ipi_to, target, 1);
	expect_value(ipi_to, target, 2);
	expect_value(ipi_to, target, 3);
	expect_value(ipi_to, target, 5);
	expect_value(mock_local_flush, cpu, 0);
	expect_value(mock_local_flush, start, A);
	expect_value(mock_local_flush, end, A + 2 * PAGE);
	stock->flush_range(&ctx, &info);
}

/* 34 pages exceed the 33-page ceiling: the IPIs carry a full flush
 * (TLBSIM_FLUSH_ALL), and cpu 0 flushes its whole PCID; an initiator that
 * does not have the mm loaded sends the same IPIs and flushes nothing. */
static void x86_stock_widens_past_the_ceiling_and_skips_an_unloaded_initiator(void **state)
{
	const struct tlbsim_policy *stock = tlbsim_policy_find("x86-stock", TLBSIM_ISA_X86_64);
	struct tlbsim_flush_info info;
	struct tlbsim_pctx ctx;
	struct tlbsim_mm mm;

	(void)state;
	setup_cpus(&mm, &ctx);
	info = request(&mm, 34, false);
	expect_value(mock_send_ipi, info->end, TLBSIM_FLUSH_ALL);
	expect_value(ipi_to, target, 1);
	expect_value(ipi_to, target, 2);
	expect_value(mock_local_flush, cpu, 0);
	expect_value(mock_local_flush, start, 0);
	expect_value(mock_local_flush, end, TLBSIM_FLUSH_ALL);
	stock->flush_range(&ctx, &info);

	setup_cpus(&mm, &ctx);
	ctx.cpu = &cpus[6]; /* not in the mask, mm not loaded */
	info = request(&mm, 1, false);
	info.initiator = 6;
	expect_value(mock_send_ipi, info->end, A + PAGE);
	expect_value(ipi_to, target, 0);
	expect_value(ipi_to, target, 1);
	expect_value(ipi_to, target, 2);
	stock->flush_range(&ctx, &info);
}

/*
 * tlbsim_for_each_cpu_below(), the walk policies use over a machine's
 * cpus, visits what tlbsim_for_each_cpu() visits when no bit is set at or
 * above nr_cpus: masks of random bits below 1, 63, 64, 65, 200 and 4096
 * cpus (xorshift64, Marsaglia 2003; a third of them empty words), and the
 * empty mask.
 */
static void a_walk_below_nr_cpus_visits_what_the_full_walk_visits(void **state)
{
	const unsigned nrs[] = {1, 63, 64, 65, 200, TLBSIM_NR_CPUS};
	uint64_t rng = 29;

	(void)state;
	for (unsigned k = 0; k < 6 * 50; k++) {
		unsigned nr = nrs[k % 6], a, b, n = 0;
		struct tlbsim_cpumask m;

		tlbsim_cpumask_zero(&m);
		for (unsigned i = 0; k >= 6 && i < (nr + 63) / 64; i++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			m.w[i] = rng % 3 ? rng & rng >> 17 : 0;
		}
		if (nr % 64)
			m.w[nr / 64] &= (1ull << (nr % 64)) - 1;
		b = tlbsim_cpumask_next_below(&m, 0, nr);
		tlbsim_for_each_cpu(a, &m) {
			assert_int_equal(b, a);
			b = tlbsim_cpumask_next_below(&m, a + 1, nr);
			n++;
		}
		assert_int_equal(b, nr);
		tlbsim_for_each_cpu_below(a, &m, nr)
			n--;
		assert_int_equal(n, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(registered_policy_is_found_by_name_and_listed),
		cmocka_unit_test(registration_rejects_duplicates_and_malformed_policies),
		cmocka_unit_test(registered_policy_composes_with_rcu_table_free),
		cmocka_unit_test(x86_stock_ipis_the_other_non_lazy_cpus_of_the_mask),
		cmocka_unit_test(x86_stock_ipis_lazy_cpus_when_tables_are_freed),
		cmocka_unit_test(x86_stock_widens_past_the_ceiling_and_skips_an_unloaded_initiator),
		cmocka_unit_test(a_walk_below_nr_cpus_visits_what_the_full_walk_visits),
	};

	return cmocka_run_group_tests(tests, register_once, NULL);
}
