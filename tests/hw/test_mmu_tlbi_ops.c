/* SPDX-License-Identifier: MIT */
/*
 * The TLBI operations decoded from real arm64 traces that the first model
 * did not name (ALLE1, VMALLS12E1, IPAS2E1, IPAS2LE1, the EL2 and EL3
 * forms) and the FEAT_TLBIRANGE operations, on one arm64 core with one
 * EL1&0 regime and no stage 2.  Which entries go is worked out by hand from
 * the Arm ARM C5.5 descriptions as docs/hazard-rules.md rules 2, 3 and 11 read
 * them.
 *
 * The rig: A = 4 MiB, B = A + 4 KiB (same last-level table), C = A + 2 MiB
 * (another last-level table under the same level-2 table), all ASID 1.
 * Loading A, B, C (as tests/hw/test_mmu.c works out) fills the L1 dTLB with
 * 3 leaves and the walk caches with 4 entries: A's walk fills levels 3, 2
 * and 1; B hits A's level-1 entry and reads only its leaf; C hits level 2
 * and fills one more level-1 entry.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tlbsim/mmu.h"
#include "tlbsim/pgtable.h"

#define A (UINT64_C(4) << 20)
#define B (A + 0x1000)
#define C (A + (UINT64_C(2) << 20))

struct rig {
	struct tlbsim_machine m;
	tlbsim_physmem *pm;
	tlbsim_pgtable *pt;
	tlbsim_mmu *mmu;
};

static struct tlbsim_cache_geom geom(unsigned entries, unsigned sizes, unsigned latency)
{
	return (struct tlbsim_cache_geom){.entries = entries,
					  .ways = entries,
					  .page_sizes = sizes,
					  .repl = TLBSIM_REPL_LRU,
					  .latency_cycles = latency};
}

static void rig_init(struct rig *r, enum tlbsim_isa isa)
{
	const uint64_t vas[] = {A, B, C};
	uint64_t pfn;

	memset(r, 0, sizeof(*r));
	strcpy(r->m.name, "test");
	r->m.isa = isa;
	r->m.nr_cpus = 1;
	r->m.freq_ghz = 1.0;
	r->m.pt_levels = 4;
	r->m.asid_bits = isa == TLBSIM_ISA_X86_64 ? 12 : 16;
	r->m.l1i = geom(16, TLBSIM_PS_4K, 1);
	r->m.l1d = geom(16, TLBSIM_PS_4K | TLBSIM_PS_2M | TLBSIM_PS_1G, 1);
	for (unsigned k = 1; k < 4; k++)
		r->m.pwc[k] = geom(8, 0, 2);
	for (unsigned k = 0; k < 4; k++)
		r->m.pte_latency_cycles[k] = 10;
	r->m.topology = (struct tlbsim_topology){.sockets = 1,
						 .nodes_per_socket = 1,
						 .clusters_per_node = 1,
						 .cores_per_cluster = 1,
						 .lat_cluster = 1,
						 .lat_node = 1,
						 .lat_socket = 1,
						 .lat_remote = 1};
	r->pm = tlbsim_physmem_create(1u << 16);
	assert_non_null(r->pm);
	r->pt = tlbsim_pgtable_create(r->pm, isa, 4);
	assert_non_null(r->pt);
	r->mmu = tlbsim_mmu_create(&r->m, r->pm);
	assert_non_null(r->mmu);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(tlbsim_physmem_alloc(r->pm, TLBSIM_FRAME_DATA, &pfn), 0);
		assert_int_equal(
		    tlbsim_pgtable_map(r->pt, vas[i], pfn, 12, TLBSIM_PROT_READ | TLBSIM_PROT_USER),
		    0);
	}
	if (isa == TLBSIM_ISA_ARM64)
		assert_int_equal(tlbsim_mmu_write_ttbr0(r->mmu, tlbsim_pgtable_root(r->pt), 1), 0);
	else
		assert_int_equal(tlbsim_mmu_write_cr3(r->mmu, tlbsim_pgtable_root(r->pt), 1, true),
				 0);
	for (size_t i = 0; i < 3; i++) {
		struct tlbsim_xlate x;

		assert_int_equal(tlbsim_mmu_translate(r->mmu, vas[i], TLBSIM_ACCESS_LOAD, &x), 0);
	}
}

static void rig_fini(struct rig *r)
{
	tlbsim_mmu_destroy(r->mmu);
	tlbsim_pgtable_destroy(r->pt);
	tlbsim_physmem_destroy(r->pm);
}

static enum tlbsim_xlate_src src_of(struct rig *r, uint64_t va)
{
	struct tlbsim_xlate x;

	assert_int_equal(tlbsim_mmu_translate(r->mmu, va, TLBSIM_ACCESS_LOAD, &x), 0);
	return x.src;
}

/* One row: an operation, what it removes (TLB leaves, walk-cache entries), its counter. */
struct tlbi_case {
	enum tlbsim_tlbi_op op;
	unsigned tlb, pwc;
	enum tlbsim_inval_kind kind;
};

static void each_new_tlbi_op_removes_what_the_regime_model_says(void **state)
{
	/*
	 * ALLE1 (every VMID) and VMALLS12E1 (stages 1+2 of the VMID) leave
	 * nothing of the single EL1&0 regime: 3 leaves, 4 walk entries.
	 * IPAS2E1/IPAS2LE1 remove stage-2-only entries; the model keeps only
	 * stage-1 ones, which survive (docs/hazard-rules.md rule 11, test 17).  EL2
	 * and EL3 operations name other regimes (Arm ARM D8.13): nothing.
	 */
	static const struct tlbi_case cases[] = {
	    {TLBSIM_TLBI_ALLE1, 3, 4, TLBSIM_INVAL_TLBI_ALLE1},
	    {TLBSIM_TLBI_VMALLS12E1, 3, 4, TLBSIM_INVAL_TLBI_VMALLS12E1},
	    {TLBSIM_TLBI_IPAS2E1, 0, 0, TLBSIM_INVAL_TLBI_IPAS2E1},
	    {TLBSIM_TLBI_IPAS2LE1, 0, 0, TLBSIM_INVAL_TLBI_IPAS2LE1},
	    {TLBSIM_TLBI_ALLE2, 0, 0, TLBSIM_INVAL_TLBI_EL2},
	    {TLBSIM_TLBI_VAE2, 0, 0, TLBSIM_INVAL_TLBI_EL2},
	    {TLBSIM_TLBI_VALE2, 0, 0, TLBSIM_INVAL_TLBI_EL2},
	    {TLBSIM_TLBI_ALLE3, 0, 0, TLBSIM_INVAL_TLBI_EL3},
	    {TLBSIM_TLBI_VAE3, 0, 0, TLBSIM_INVAL_TLBI_EL3},
	    {TLBSIM_TLBI_VALE3, 0, 0, TLBSIM_INVAL_TLBI_EL3},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rig r;
		const struct tlbsim_mmu_stats *st;

		rig_init(&r, TLBSIM_ISA_ARM64);
		st = tlbsim_mmu_stats(r.mmu);
		assert_int_equal(tlbsim_mmu_tlbi(r.mmu, cases[i].op, A, 1), 0);
		assert_int_equal(st->tlb_entries_invalidated, cases[i].tlb);
		assert_int_equal(st->pwc_entries_invalidated, cases[i].pwc);
		assert_int_equal(st->inval[cases[i].kind], 1);
		/* nothing removed: A still hits in L1; all removed: A walks */
		assert_int_equal(src_of(&r, A), cases[i].tlb ? TLBSIM_XLATE_WALK : TLBSIM_XLATE_L1);
		rig_fini(&r);
	}
}

struct range_case {
	enum tlbsim_tlbi_range_op op;
	uint64_t va;
	unsigned nr_pages;
	uint16_t asid;
	unsigned tlb, pwc;
	enum tlbsim_xlate_src c_after;
};

static void range_tlbi_removes_the_range_and_walk_entries_only_when_not_last_level(void **state)
{
	/*
	 * [A, A + 8 KiB) holds the leaves of A and B (2) and is covered by
	 * the level-3, level-2 and A's level-1 walk entries (3); C's level-1
	 * entry lies outside.  1024 pages (NUM 31, SCALE 1: 32 * 2^6) from A
	 * cover 4 MiB: A, B, C and all 4 walk entries.  RVAE1 with ASID 7
	 * matches none of the ASID-1 entries; RVAAE1 ignores the ASID.
	 */
	static const struct range_case cases[] = {
	    {TLBSIM_TLBI_RVAE1, A, 2, 1, 2, 3, TLBSIM_XLATE_L1},
	    {TLBSIM_TLBI_RVALE1, A, 2, 1, 2, 0, TLBSIM_XLATE_L1},
	    {TLBSIM_TLBI_RVAE1, A, 2, 7, 0, 0, TLBSIM_XLATE_L1},
	    {TLBSIM_TLBI_RVAAE1, A, 2, 7, 2, 3, TLBSIM_XLATE_L1},
	    {TLBSIM_TLBI_RVAALE1, A, 2, 7, 2, 0, TLBSIM_XLATE_L1},
	    {TLBSIM_TLBI_RVAE1, A, 1024, 1, 3, 4, TLBSIM_XLATE_WALK},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rig r;
		const struct tlbsim_mmu_stats *st;

		rig_init(&r, TLBSIM_ISA_ARM64);
		st = tlbsim_mmu_stats(r.mmu);
		assert_int_equal(tlbsim_mmu_tlbi_range(r.mmu, cases[i].op, cases[i].va,
						       cases[i].nr_pages, 12, cases[i].asid),
				 0);
		assert_int_equal(st->tlb_entries_invalidated, cases[i].tlb);
		assert_int_equal(st->pwc_entries_invalidated, cases[i].pwc);
		/* one instruction, one count, however many pages */
		assert_int_equal(st->inval[TLBSIM_INVAL_TLBI_RVAE1 + cases[i].op], 1);
		assert_int_equal(src_of(&r, C), cases[i].c_after);
		rig_fini(&r);
	}
}

static void range_tlbi_rejects_bad_operands_and_x86(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, TLBSIM_ISA_ARM64);
	assert_int_equal(tlbsim_mmu_tlbi_range(r.mmu, TLBSIM_TLBI_RVAE1, A, 0, 12, 1),
			 -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_mmu_tlbi_range(r.mmu, TLBSIM_TLBI_RVAE1, A, 2, 13, 1),
			 -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_mmu_tlbi_range(r.mmu, TLBSIM_TLBI_RANGE_NR_OPS, A, 2, 12, 1),
			 -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_mmu_tlbi_range(r.mmu, TLBSIM_TLBI_RVAE1, A,
					       TLBSIM_TLBI_RANGE_MAX_PAGES + 1, 12, 1),
			 -TLBSIM_EINVAL);
	rig_fini(&r);
	rig_init(&r, TLBSIM_ISA_X86_64);
	assert_int_equal(tlbsim_mmu_tlbi_range(r.mmu, TLBSIM_TLBI_RVAE1, A, 2, 12, 1),
			 -TLBSIM_ENOTSUP);
	assert_int_equal(tlbsim_mmu_tlbi(r.mmu, TLBSIM_TLBI_ALLE1, 0, 0), -TLBSIM_ENOTSUP);
	rig_fini(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(each_new_tlbi_op_removes_what_the_regime_model_says),
	    cmocka_unit_test(
		range_tlbi_removes_the_range_and_walk_entries_only_when_not_last_level),
	    cmocka_unit_test(range_tlbi_rejects_bad_operands_and_x86),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
