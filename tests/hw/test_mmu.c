/* SPDX-License-Identifier: MIT */
/*
 * The single-core MMU: walk latency with a page-walk-cache hit at each level
 * (both ISAs), and a table-driven test of every invalidation instruction,
 * checking which TLB and walk-cache entries survive.  Expected values are
 * worked out by hand in the comments, from the manuals' rules as
 * docs/hazard-rules.md summarises them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check/oracle.h"
#include "hw/mmu_internal.h"
#include "hw/smp.h"
#include "tlbsim/mmu.h"
#include "tlbsim/pgtable.h"

#define KiB(x) ((uint64_t)(x) << 10)
#define MiB(x) ((uint64_t)(x) << 20)
#define GiB(x) ((uint64_t)(x) << 30)

static struct tlbsim_cache_geom geom(unsigned entries, unsigned ways, unsigned sizes,
				     unsigned latency)
{
	return (struct tlbsim_cache_geom){.entries = entries,
					  .ways = ways,
					  .page_sizes = sizes,
					  .repl = TLBSIM_REPL_LRU,
					  .latency_cycles = latency};
}

/*
 * A machine with distinct latencies everywhere, so each term of a sum can
 * be recognised: L1 hit 1; no L2 unless @with_l2; PWC level k latency k+1
 * (2, 3, 4); descriptor read at level k costs 10 * (k + 1) (10, 20, 30, 40).
 */
static void make_machine(struct tlbsim_machine *m, enum tlbsim_isa isa, bool with_l2)
{
	unsigned k;

	memset(m, 0, sizeof(*m));
	strcpy(m->name, "test");
	m->isa = isa;
	m->nr_cpus = 1;
	m->freq_ghz = 1.0;
	m->pt_levels = 4;
	m->asid_bits = isa == TLBSIM_ISA_X86_64 ? 12 : 16;
	m->l1i = geom(16, 16, TLBSIM_PS_4K | TLBSIM_PS_2M, 1);
	m->l1d = geom(16, 16, TLBSIM_PS_4K | TLBSIM_PS_2M | TLBSIM_PS_1G, 1);
	if (with_l2)
		m->l2 = geom(32, 32, TLBSIM_PS_4K | TLBSIM_PS_2M | TLBSIM_PS_1G, 7);
	for (k = 1; k < 4; k++)
		m->pwc[k] = geom(8, 8, 0, k + 1);
	for (k = 0; k < 4; k++)
		m->pte_latency_cycles[k] = 10 * (k + 1);
	/* One core: one group of each kind; latencies unused but valid. */
	m->topology = (struct tlbsim_topology){.sockets = 1, .nodes_per_socket = 1,
					       .clusters_per_node = 1, .cores_per_cluster = 1,
					       .lat_cluster = 1, .lat_node = 1,
					       .lat_socket = 1, .lat_remote = 1};
}

struct rig {
	struct tlbsim_machine m;
	tlbsim_physmem *pm;
	tlbsim_pgtable *pt1, *pt2;
	tlbsim_mmu *mmu;
};

static uint64_t new_frame(struct rig *r)
{
	uint64_t pfn;

	assert_int_equal(tlbsim_physmem_alloc(r->pm, TLBSIM_FRAME_DATA, &pfn), 0);
	return pfn;
}

static void map4k(struct rig *r, tlbsim_pgtable *pt, uint64_t va, unsigned prot)
{
	assert_int_equal(tlbsim_pgtable_map(pt, va, new_frame(r), 12, prot), 0);
}

static void rig_init(struct rig *r, enum tlbsim_isa isa, bool with_l2)
{
	memset(r, 0, sizeof(*r));
	make_machine(&r->m, isa, with_l2);
	r->pm = tlbsim_physmem_create(1u << 20);
	assert_non_null(r->pm);
	r->pt1 = tlbsim_pgtable_create(r->pm, isa, 4);
	r->pt2 = tlbsim_pgtable_create(r->pm, isa, 4);
	assert_non_null(r->pt1);
	assert_non_null(r->pt2);
	r->mmu = tlbsim_mmu_create(&r->m, r->pm);
	assert_non_null(r->mmu);
}

static void rig_fini(struct rig *r)
{
	tlbsim_mmu_destroy(r->mmu);
	tlbsim_pgtable_destroy(r->pt1);
	tlbsim_pgtable_destroy(r->pt2);
	tlbsim_physmem_destroy(r->pm);
}

static void load_ctx(struct rig *r, tlbsim_pgtable *pt, uint16_t asid)
{
	if (r->m.isa == TLBSIM_ISA_X86_64)
		assert_int_equal(tlbsim_mmu_write_cr3(r->mmu, tlbsim_pgtable_root(pt), asid, true), 0);
	else
		assert_int_equal(tlbsim_mmu_write_ttbr0(r->mmu, tlbsim_pgtable_root(pt), asid), 0);
}

static struct tlbsim_xlate load(struct rig *r, uint64_t va)
{
	struct tlbsim_xlate x;

	memset(&x, 0, sizeof(x));
	assert_int_equal(tlbsim_mmu_translate(r->mmu, va, TLBSIM_ACCESS_LOAD, &x), 0);
	return x;
}

/*
 * Four accesses, each starting its walk one level higher:
 *   A = 4 MiB            cold: L1 miss (1) + all PWCs miss, charged the
 *                        slowest lookup (4) + reads at levels 3,2,1,0
 *                        (40+30+20+10) = 105 cycles, 4 reads, no PWC level
 *   B = A + 4 KiB        same last-level table: level-1 PWC hit (2) + read
 *                        level 0 (10) + L1 (1) = 13, 1 read, pwc_level 1
 *   C = A + 2 MiB        same PD, new PT: level-2 PWC hit (3) + reads at
 *                        levels 1,0 (20+10) + 1 = 34, 2 reads, pwc_level 2
 *   D = A + 1 GiB        same PML4 entry, new PDPT entry: level-3 hit (4)
 *                        + reads at 2,1,0 (30+20+10) + 1 = 65, 3 reads
 * PWC lookups probe the deepest level first and stop at the first hit:
 * misses per level: A: 1,2,3; C: 1; D: 1,2 -> level 1: 3, level 2: 2,
 * level 3: 1.  Hits: one at each level.
 */
static void walk_latency_with_pwc_hit_at_each_level(enum tlbsim_isa isa)
{
	struct rig r;
	const uint64_t A = MiB(4);
	const struct {
		uint64_t va;
		unsigned cycles, reads, pwc_level;
	} want[] = {
		{A, 105, 4, 0},
		{A + KiB(4), 13, 1, 1},
		{A + MiB(2), 34, 2, 2},
		{A + GiB(1), 65, 3, 3},
	};
	const struct tlbsim_mmu_stats *st;
	size_t i;

	rig_init(&r, isa, false);
	for (i = 0; i < 4; i++)
		map4k(&r, r.pt1, want[i].va, TLBSIM_PROT_READ | TLBSIM_PROT_USER);
	load_ctx(&r, r.pt1, 1);
	for (i = 0; i < 4; i++) {
		struct tlbsim_xlate x = load(&r, want[i].va);

		assert_int_equal(x.src, TLBSIM_XLATE_WALK);
		assert_int_equal(x.cycles, want[i].cycles);
		assert_int_equal(x.pte_reads, want[i].reads);
		assert_int_equal(x.pwc_level, want[i].pwc_level);
	}
	/* A second access to A hits in L1: 1 cycle. */
	assert_int_equal(load(&r, A).cycles, 1);
	assert_int_equal(load(&r, A).src, TLBSIM_XLATE_L1);
	st = tlbsim_mmu_stats(r.mmu);
	assert_int_equal(st->walks, 4);
	assert_int_equal(st->walk_cycles, 104 + 12 + 33 + 64);
	assert_int_equal(st->pte_reads, 4 + 1 + 2 + 3);
	assert_int_equal(st->pwc_hits[1], 1);
	assert_int_equal(st->pwc_hits[2], 1);
	assert_int_equal(st->pwc_hits[3], 1);
	assert_int_equal(st->pwc_misses[1], 3);
	assert_int_equal(st->pwc_misses[2], 2);
	assert_int_equal(st->pwc_misses[3], 1);
	assert_int_equal(st->l1d_hits, 2);
	assert_int_equal(st->l1d_misses, 4);
	rig_fini(&r);
}

static void x86_walk_latency_with_pwc_hit_at_each_level(void **state)
{
	(void)state;
	walk_latency_with_pwc_hit_at_each_level(TLBSIM_ISA_X86_64);
}

static void arm64_walk_latency_with_pwc_hit_at_each_level(void **state)
{
	(void)state;
	walk_latency_with_pwc_hit_at_each_level(TLBSIM_ISA_ARM64);
}

/*
 * An L2 hit costs L1 (1) + L2 (7) = 8 cycles and refills L1: with an L1 of
 * 16 fully-associative LRU entries, touching 17 pages evicts the first from
 * L1 but not from the 32-entry L2.
 */
static void l2_hit_costs_both_lookups_and_refills_l1(void **state)
{
	struct rig r;
	uint64_t i;
	struct tlbsim_xlate x;

	(void)state;
	rig_init(&r, TLBSIM_ISA_X86_64, true);
	for (i = 0; i < 17; i++)
		map4k(&r, r.pt1, MiB(4) + i * KiB(4), TLBSIM_PROT_READ);
	load_ctx(&r, r.pt1, 1);
	for (i = 0; i < 17; i++)
		load(&r, MiB(4) + i * KiB(4));
	x = load(&r, MiB(4));
	assert_int_equal(x.src, TLBSIM_XLATE_L2);
	assert_int_equal(x.cycles, 8);
	x = load(&r, MiB(4));
	assert_int_equal(x.src, TLBSIM_XLATE_L1);
	rig_fini(&r);
}

/* A store to a read-only page faults and, as a page fault does (SDM
 * 4.10.4.1), leaves no TLB entry for the page; a load still works. */
static void store_to_read_only_page_faults_and_drops_the_entry(void **state)
{
	struct rig r;
	struct tlbsim_xlate x;

	(void)state;
	rig_init(&r, TLBSIM_ISA_X86_64, true);
	map4k(&r, r.pt1, MiB(4), TLBSIM_PROT_READ);
	load_ctx(&r, r.pt1, 1);
	load(&r, MiB(4));
	assert_true(hw_mmu_holds(r.mmu, HW_L1D, MiB(4), 1));
	assert_int_equal(tlbsim_mmu_translate(r.mmu, MiB(4), TLBSIM_ACCESS_STORE, &x),
			 -TLBSIM_EFAULT);
	assert_false(hw_mmu_holds(r.mmu, HW_L1D, MiB(4), 1));
	assert_false(hw_mmu_holds(r.mmu, HW_L2, MiB(4), 1));
	assert_int_equal(tlbsim_mmu_stats(r.mmu)->faults, 1);
	assert_int_equal(tlbsim_mmu_translate(r.mmu, MiB(4), TLBSIM_ACCESS_FETCH, &x),
			 -TLBSIM_EFAULT);
	rig_fini(&r);
}

/* An unmapped address faults after a full walk and caches nothing for the
 * missing level (not-present entries are never cached, SDM 4.10.3.1). */
static void unmapped_address_faults_and_caches_no_leaf(void **state)
{
	struct rig r;
	struct tlbsim_xlate x;

	(void)state;
	rig_init(&r, TLBSIM_ISA_ARM64, true);
	map4k(&r, r.pt1, MiB(4), TLBSIM_PROT_READ);
	load_ctx(&r, r.pt1, 3);
	memset(&x, 0, sizeof(x));
	/* MiB(4) + 4K: path exists down to the last-level table, whose entry
	 * is invalid: 4 reads, then a fault. */
	assert_int_equal(tlbsim_mmu_translate(r.mmu, MiB(4) + KiB(4), TLBSIM_ACCESS_LOAD, &x),
			 -TLBSIM_EFAULT);
	assert_int_equal(x.pte_reads, 4);
	assert_false(hw_mmu_holds(r.mmu, HW_L1D, MiB(4) + KiB(4), 3));
	rig_fini(&r);
}

/* A 1 GiB page through an L1 iTLB serving only 4K and 2M is splintered into
 * a 2M entry; the L2 keeps the whole 1G page. */
static void huge_page_is_splintered_into_largest_l1_size(void **state)
{
	struct rig r;
	uint64_t pfn;
	struct tlbsim_xlate x;

	(void)state;
	rig_init(&r, TLBSIM_ISA_X86_64, true);
	/* Reserve frames so that a 1 GiB-aligned pfn exists: pfn 262144. */
	pfn = GiB(1) >> 12;
	assert_int_equal(tlbsim_pgtable_map(r.pt1, GiB(2), pfn, 30,
					    TLBSIM_PROT_READ | TLBSIM_PROT_EXEC),
			 0);
	load_ctx(&r, r.pt1, 1);
	assert_int_equal(tlbsim_mmu_translate(r.mmu, GiB(2) + MiB(5) + 0x123, TLBSIM_ACCESS_FETCH, &x),
			 0);
	assert_int_equal(x.pa, GiB(1) + MiB(5) + 0x123);
	assert_int_equal(x.size_shift, 30);
	/* The 2M splinter covers [2G+4M, 2G+6M). */
	assert_true(hw_mmu_holds(r.mmu, HW_L1I, GiB(2) + MiB(4), 1));
	assert_false(hw_mmu_holds(r.mmu, HW_L1I, GiB(2) + MiB(6), 1));
	assert_true(hw_mmu_holds(r.mmu, HW_L2, GiB(2) + MiB(700), 1));
	assert_int_equal(tlbsim_mmu_translate(r.mmu, GiB(2) + MiB(4), TLBSIM_ACCESS_FETCH, &x), 0);
	assert_int_equal(x.src, TLBSIM_XLATE_L1);
	assert_int_equal(x.pa, GiB(1) + MiB(4));
	rig_fini(&r);
}

/*
 * One invalidation by VA anywhere in a large page drops every smaller entry
 * cached for it (SDM vol. 3 4.10.2.3 and 4.10.4.1; docs/hazard-rules.md rule 14:
 * "one INVLPG is enough for a page larger than 4 KB"; arm64 Linux relies
 * on the same, one TLBI per block).  Here the L1 dTLB serves 4K only and
 * the L2 4K and 2M, so two 1 GiB pages at 2G and 3G are splintered:
 *   load 2G+5M      walk: L2 2M [2G+4M, 2G+6M), L1D 4K at 2G+5M
 *   load 2G+5M+4K   L1D miss, L2 hit: L1D 4K at 2G+5M+4K (from a splinter)
 *   load 3G+7M      walk: L2 2M at 3G+6M, L1D 4K at 3G+7M
 * An invalidation of 2G+1023M (no entry of its own) removes the three
 * entries of the page at 2G and nothing of the page at 3G.
 */
static void invalidate_by_va_drops_a_large_pages_splinters(enum tlbsim_isa isa)
{
	struct rig r;

	rig_init(&r, isa, true);
	tlbsim_mmu_destroy(r.mmu);
	r.m.l1d = geom(16, 16, TLBSIM_PS_4K, 1);
	r.m.l2 = geom(32, 32, TLBSIM_PS_4K | TLBSIM_PS_2M, 7);
	r.mmu = tlbsim_mmu_create(&r.m, r.pm);
	assert_non_null(r.mmu);
	assert_int_equal(tlbsim_pgtable_map(r.pt1, GiB(2), GiB(1) >> 12, 30, TLBSIM_PROT_READ), 0);
	assert_int_equal(tlbsim_pgtable_map(r.pt1, GiB(3), GiB(2) >> 12, 30, TLBSIM_PROT_READ), 0);
	load_ctx(&r, r.pt1, 1);
	assert_int_equal(load(&r, GiB(2) + MiB(5)).src, TLBSIM_XLATE_WALK);
	assert_int_equal(load(&r, GiB(2) + MiB(5) + KiB(4)).src, TLBSIM_XLATE_L2);
	assert_int_equal(load(&r, GiB(3) + MiB(7)).src, TLBSIM_XLATE_WALK);
	assert_true(hw_mmu_holds(r.mmu, HW_L2, GiB(2) + MiB(4), 1));
	assert_true(hw_mmu_holds(r.mmu, HW_L1D, GiB(2) + MiB(5) + KiB(4), 1));

	if (isa == TLBSIM_ISA_X86_64)
		assert_int_equal(tlbsim_mmu_invlpg(r.mmu, GiB(2) + MiB(1023)), 0);
	else
		assert_int_equal(tlbsim_mmu_tlbi(r.mmu, TLBSIM_TLBI_VALE1, GiB(2) + MiB(1023), 1), 0);
	assert_int_equal(tlbsim_mmu_stats(r.mmu)->tlb_entries_invalidated, 3);
	assert_false(hw_mmu_holds(r.mmu, HW_L2, GiB(2) + MiB(4), 1));
	assert_false(hw_mmu_holds(r.mmu, HW_L1D, GiB(2) + MiB(5), 1));
	assert_false(hw_mmu_holds(r.mmu, HW_L1D, GiB(2) + MiB(5) + KiB(4), 1));
	assert_true(hw_mmu_holds(r.mmu, HW_L2, GiB(3) + MiB(6), 1));
	assert_true(hw_mmu_holds(r.mmu, HW_L1D, GiB(3) + MiB(7), 1));
	assert_int_equal(load(&r, GiB(2) + MiB(5) + KiB(4)).src, TLBSIM_XLATE_WALK);
	assert_int_equal(load(&r, GiB(3) + MiB(7)).src, TLBSIM_XLATE_L1);
	rig_fini(&r);
}

/*
 * A walk that finds no translation faults, and the fault drops what it
 * drops after any walk (SDM vol. 3 4.10.4.1): the other L1's entries for
 * the address and the splinters of a larger page covering it, though the
 * lookups that preceded the walk found none of them.  L1 dTLB 4K|2M|1G,
 * L1 iTLB 4K|2M, L2 4K|2M; the 1 GiB page at 2G is executable:
 *   load 2G+5M     walk: L1D 1G at 2G, L2 2M at 2G+4M
 *   fetch 2G+9M    walk: L1I and L2 2M at 2G+8M
 * then the page is unmapped (no flush) and fetch 2G+13M walks (the iTLB
 * and the L2 miss it) to a not-present PDPT entry: the fault drops the
 * L1D's 1 GiB entry, the L1I's splinter and both L2 splinters.
 */
static void a_walks_fault_drops_the_other_l1s_entry_and_splinters(void **state)
{
	struct rig r;
	struct tlbsim_xlate x;

	(void)state;
	rig_init(&r, TLBSIM_ISA_X86_64, true);
	tlbsim_mmu_destroy(r.mmu);
	r.m.l1i = geom(16, 16, TLBSIM_PS_4K | TLBSIM_PS_2M, 1);
	r.m.l2 = geom(32, 32, TLBSIM_PS_4K | TLBSIM_PS_2M, 7);
	r.mmu = tlbsim_mmu_create(&r.m, r.pm);
	assert_non_null(r.mmu);
	assert_int_equal(tlbsim_pgtable_map(r.pt1, GiB(2), GiB(1) >> 12, 30,
					    TLBSIM_PROT_READ | TLBSIM_PROT_EXEC),
			 0);
	load_ctx(&r, r.pt1, 1);
	assert_int_equal(load(&r, GiB(2) + MiB(5)).src, TLBSIM_XLATE_WALK);
	assert_int_equal(tlbsim_mmu_translate(r.mmu, GiB(2) + MiB(9), TLBSIM_ACCESS_FETCH, &x), 0);
	assert_int_equal(x.src, TLBSIM_XLATE_WALK);
	assert_true(hw_mmu_holds(r.mmu, HW_L1D, GiB(2), 1));
	assert_true(hw_mmu_holds(r.mmu, HW_L1I, GiB(2) + MiB(8), 1));
	assert_true(hw_mmu_holds(r.mmu, HW_L2, GiB(2) + MiB(4), 1));
	assert_true(hw_mmu_holds(r.mmu, HW_L2, GiB(2) + MiB(8), 1));

	assert_int_equal(tlbsim_pgtable_unmap(r.pt1, GiB(2), NULL), 0);
	assert_int_equal(tlbsim_mmu_translate(r.mmu, GiB(2) + MiB(13), TLBSIM_ACCESS_FETCH, &x),
			 -TLBSIM_EFAULT);
	assert_int_equal(x.src, TLBSIM_XLATE_WALK);
	assert_false(hw_mmu_holds(r.mmu, HW_L1D, GiB(2), 1));
	assert_false(hw_mmu_holds(r.mmu, HW_L1I, GiB(2) + MiB(8), 1));
	assert_false(hw_mmu_holds(r.mmu, HW_L2, GiB(2) + MiB(4), 1));
	assert_false(hw_mmu_holds(r.mmu, HW_L2, GiB(2) + MiB(8), 1));
	rig_fini(&r);
}

/*
 * A walk whose leaf refuses the access faults too, and drops the same (the
 * leaf is not cached before the permission check).  As above, a 1 GiB
 * page at 2G, read-only here (not executable), L1 iTLB 4K|2M, L2 4K|2M:
 *   load 2G+5M     walk: L1D 1G at 2G, L2 2M at 2G+4M, PWC3 [0, 512G)
 *   INVLPG 0       drops every walk-cache entry (SDM 4.10.4.1), no TLB's
 *   fetch 2G+13M   the iTLB and the L2 miss; walk from the root: PWC3
 *                  again, then the PDPT's leaf refuses the fetch
 * The fault drops the L1D's 1 GiB entry, the L2 splinter and the PWC3
 * entry that walk filled.
 */
static void a_walks_permission_fault_drops_what_a_fault_drops(void **state)
{
	struct rig r;
	struct tlbsim_xlate x;

	(void)state;
	rig_init(&r, TLBSIM_ISA_X86_64, true);
	tlbsim_mmu_destroy(r.mmu);
	r.m.l2 = geom(32, 32, TLBSIM_PS_4K | TLBSIM_PS_2M, 7);
	r.mmu = tlbsim_mmu_create(&r.m, r.pm);
	assert_non_null(r.mmu);
	assert_int_equal(tlbsim_pgtable_map(r.pt1, GiB(2), GiB(1) >> 12, 30, TLBSIM_PROT_READ), 0);
	load_ctx(&r, r.pt1, 1);
	assert_int_equal(load(&r, GiB(2) + MiB(5)).src, TLBSIM_XLATE_WALK);
	assert_true(hw_mmu_holds(r.mmu, HW_L1D, GiB(2), 1));
	assert_true(hw_mmu_holds(r.mmu, HW_L2, GiB(2) + MiB(4), 1));
	assert_int_equal(tlbsim_mmu_invlpg(r.mmu, 0), 0);
	assert_false(hw_mmu_holds(r.mmu, HW_PWC3, GiB(2), 1));
	assert_true(hw_mmu_holds(r.mmu, HW_L1D, GiB(2), 1));

	memset(&x, 0, sizeof(x));
	assert_int_equal(tlbsim_mmu_translate(r.mmu, GiB(2) + MiB(13), TLBSIM_ACCESS_FETCH, &x),
			 -TLBSIM_EFAULT);
	assert_int_equal(x.src, TLBSIM_XLATE_WALK);
	assert_int_equal(x.pte_reads, 2);
	assert_int_equal(tlbsim_mmu_stats(r.mmu)->faults, 1);
	assert_false(hw_mmu_holds(r.mmu, HW_L1D, GiB(2), 1));
	assert_false(hw_mmu_holds(r.mmu, HW_L2, GiB(2) + MiB(4), 1));
	assert_false(hw_mmu_holds(r.mmu, HW_PWC3, GiB(2), 1));
	/* A load still walks to the page and is allowed. */
	assert_int_equal(load(&r, GiB(2) + MiB(13)).src, TLBSIM_XLATE_WALK);
	rig_fini(&r);
}

static void invlpg_drops_a_large_pages_splinters(void **state)
{
	(void)state;
	invalidate_by_va_drops_a_large_pages_splinters(TLBSIM_ISA_X86_64);
}

static void tlbi_by_va_drops_a_large_pages_splinters(void **state)
{
	(void)state;
	invalidate_by_va_drops_a_large_pages_splinters(TLBSIM_ISA_ARM64);
}

/*
 * The planted state of the invalidation table.  Context 1 (pt1, ASID/PCID
 * 1) maps A = 4 MiB, B = 1 GiB + 4 MiB (same top-level entry as A, other
 * PDPT/level-1 entry) and the global page G = 8 MiB; L = 64 MiB is a 2 MiB
 * page.  Context 2 (pt2, tag 2) maps A too.  After touching A, B, G, L in
 * context 1 and A in context 2, and loading context 1 again without a
 * flush, the structures hold:
 *   TLB: A/1, B/1, G/global, L/1 (2M), A/2
 *   PWC: level 3 [0, 512G)/1 (shared by A, B, G, L) and /2;
 *        level 2 [0,1G)/1, [1G,2G)/1, [0,1G)/2;
 *        level 1 [4M,6M)/1 (A), [1G+4M,..)/1 (B), [8M,10M)/1 (G),
 *                [4M,6M)/2.  (L is a level-1 leaf, so no level-1 PWC.)
 */
enum planted {
	T_A1, /* TLB: A in context 1 */
	T_B1,
	T_G, /* global */
	T_L1, /* 2M page */
	T_A2,
	P3_1, /* PWC level 3, tag 1, covering A, B, G */
	P2_A1,
	P2_B1,
	P1_A1,
	P1_B1,
	P3_2,
	P2_A2,
	P1_A2,
	NR_PLANTED
};

#define A_VA MiB(4)
#define B_VA (GiB(1) + MiB(4))
#define G_VA MiB(8)
#define L_VA MiB(64)

static bool planted_present(struct rig *r, enum planted p)
{
	switch (p) {
	case T_A1:
		return hw_mmu_holds(r->mmu, HW_L1D, A_VA, 1) || hw_mmu_holds(r->mmu, HW_L2, A_VA, 1);
	case T_B1:
		return hw_mmu_holds(r->mmu, HW_L1D, B_VA, 1) || hw_mmu_holds(r->mmu, HW_L2, B_VA, 1);
	case T_G:
		/* Global: visible from any tag; probe with tag 3, which owns
		 * nothing. */
		return hw_mmu_holds(r->mmu, HW_L1D, G_VA, 3) || hw_mmu_holds(r->mmu, HW_L2, G_VA, 3);
	case T_L1:
		return hw_mmu_holds(r->mmu, HW_L1D, L_VA + KiB(4), 1) ||
		       hw_mmu_holds(r->mmu, HW_L2, L_VA + KiB(4), 1);
	case T_A2:
		return hw_mmu_holds(r->mmu, HW_L1D, A_VA, 2) || hw_mmu_holds(r->mmu, HW_L2, A_VA, 2);
	case P3_1:
		return hw_mmu_holds(r->mmu, HW_PWC3, A_VA, 1);
	case P2_A1:
		return hw_mmu_holds(r->mmu, HW_PWC2, A_VA, 1);
	case P2_B1:
		return hw_mmu_holds(r->mmu, HW_PWC2, B_VA, 1);
	case P1_A1:
		return hw_mmu_holds(r->mmu, HW_PWC1, A_VA, 1);
	case P1_B1:
		return hw_mmu_holds(r->mmu, HW_PWC1, B_VA, 1);
	case P3_2:
		return hw_mmu_holds(r->mmu, HW_PWC3, A_VA, 2);
	case P2_A2:
		return hw_mmu_holds(r->mmu, HW_PWC2, A_VA, 2);
	case P1_A2:
		return hw_mmu_holds(r->mmu, HW_PWC1, A_VA, 2);
	default:
		return false;
	}
}

static void plant(struct rig *r, enum tlbsim_isa isa)
{
	uint64_t pfn;
	enum planted p;

	rig_init(r, isa, true);
	map4k(r, r->pt1, A_VA, TLBSIM_PROT_READ);
	map4k(r, r->pt1, B_VA, TLBSIM_PROT_READ);
	map4k(r, r->pt1, G_VA, TLBSIM_PROT_READ | TLBSIM_PROT_GLOBAL);
	pfn = MiB(512) >> 12; /* 2 MiB-aligned frame number, outside the allocator's range used */
	assert_int_equal(tlbsim_pgtable_map(r->pt1, L_VA, pfn, 21, TLBSIM_PROT_READ), 0);
	map4k(r, r->pt2, A_VA, TLBSIM_PROT_READ);
	load_ctx(r, r->pt1, 1);
	load(r, A_VA);
	load(r, B_VA);
	load(r, G_VA);
	load(r, L_VA);
	load_ctx(r, r->pt2, 2);
	load(r, A_VA);
	load_ctx(r, r->pt1, 1);
	/* The planted state itself: everything present; the level-1 PWC holds
	 * no entry for L (a 2M leaf at level 1). */
	for (p = 0; p < NR_PLANTED; p++)
		assert_true(planted_present(r, p));
	assert_false(hw_mmu_holds(r->mmu, HW_PWC1, L_VA, 1));
}

/* One row: the instruction, and a string of 13 flags, '1' = survives, in
 * enum planted order: A1 B1 G L1 A2 | P3_1 P2_A1 P2_B1 P1_A1 P1_B1 | P3_2
 * P2_A2 P1_A2. */
struct inval_row {
	const char *what;
	int (*run)(struct rig *r);
	const char *survive;
};

/* ---- x86 rows (Intel SDM vol. 3 4.10.4.1; docs/hazard-rules.md rules 14-16) ---- */

/* INVLPG A: TLB entries for A in PCID 1 (and globals for A: none); all
 * PWC entries of PCID 1 whatever their address; PCID 2 untouched. */
static int x_invlpg_a(struct rig *r)
{
	return tlbsim_mmu_invlpg(r->mmu, A_VA);
}
/* INVLPG G: the global entry for G goes although it is tagged with no PCID. */
static int x_invlpg_g(struct rig *r)
{
	return tlbsim_mmu_invlpg(r->mmu, G_VA);
}
/* INVLPG inside the 2M page L: one INVLPG removes the large page. */
static int x_invlpg_l(struct rig *r)
{
	return tlbsim_mmu_invlpg(r->mmu, L_VA + MiB(1) + KiB(8));
}
/* INVPCID 0 (1, A): non-global TLB entries of PCID 1 for A, and the PWC
 * entries of PCID 1 that would translate A: P3_1 (covers A), P2_A1, P1_A1;
 * B's own entries stay. */
static int x_invpcid0(struct rig *r)
{
	return tlbsim_mmu_invpcid(r->mmu, 0, 1, A_VA);
}
/* INVPCID 0 for a global page's address keeps the global entry. */
static int x_invpcid0_g(struct rig *r)
{
	return tlbsim_mmu_invpcid(r->mmu, 0, 1, G_VA);
}
static int x_invpcid1(struct rig *r)
{
	return tlbsim_mmu_invpcid(r->mmu, 1, 1, 0);
}
static int x_invpcid2(struct rig *r)
{
	return tlbsim_mmu_invpcid(r->mmu, 2, 0, 0);
}
static int x_invpcid3(struct rig *r)
{
	return tlbsim_mmu_invpcid(r->mmu, 3, 0, 0);
}
/* MOV CR3 (PCID 1, bit 63 clear): non-global entries and PWC of PCID 1. */
static int x_cr3_flush(struct rig *r)
{
	return tlbsim_mmu_write_cr3(r->mmu, tlbsim_pgtable_root(r->pt1), 1, false);
}
/* MOV CR3 (PCID 2, bit 63 clear): only PCID 2's entries go. */
static int x_cr3_flush_other(struct rig *r)
{
	return tlbsim_mmu_write_cr3(r->mmu, tlbsim_pgtable_root(r->pt2), 2, false);
}
/* MOV CR3 with bit 63 set: nothing is required to be invalidated. */
static int x_cr3_noflush(struct rig *r)
{
	return tlbsim_mmu_write_cr3(r->mmu, tlbsim_pgtable_root(r->pt2), 2, true);
}
static int flush_all(struct rig *r)
{
	tlbsim_mmu_flush_all(r->mmu);
	return 0;
}

static const struct inval_row x86_rows[] = {
	/*                              A1B1G L1A2 P3 2A 2B 1A 1B  P3_2 2A2 1A2 */
	{"invlpg A", x_invlpg_a, "0111100000111"},
	{"invlpg G", x_invlpg_g, "1101100000111"},
	{"invlpg inside 2M page", x_invlpg_l, "1110100000111"},
	{"invpcid 0 A", x_invpcid0, "0111100101111"},
	{"invpcid 0 G keeps global", x_invpcid0_g, "1111100111111"},
	{"invpcid 1", x_invpcid1, "0010100000111"},
	{"invpcid 2", x_invpcid2, "0000000000000"},
	{"invpcid 3", x_invpcid3, "0010000000000"},
	{"cr3 write, flush", x_cr3_flush, "0010100000111"},
	{"cr3 write other pcid, flush", x_cr3_flush_other, "1111011111000"},
	{"cr3 write, noflush", x_cr3_noflush, "1111111111111"},
	{"flush all (CR4.PGE)", flush_all, "0000000000000"},
};

/* ---- arm64 rows (TLBI descriptions; docs/hazard-rules.md rules 2-4, 9) ---- */

/* VAE1 (A, 1): entries for A at every level of the walk, tag 1 and global:
 * T_A1, P3_1, P2_A1, P1_A1. */
static int a_vae1(struct rig *r)
{
	return tlbsim_mmu_tlbi(r->mmu, TLBSIM_TLBI_VAE1, A_VA, 1);
}
/* VALE1 (A, 1): last level only: T_A1; every walk-cache entry survives. */
static int a_vale1(struct rig *r)
{
	return tlbsim_mmu_tlbi(r->mmu, TLBSIM_TLBI_VALE1, A_VA, 1);
}
/* VAAE1 (A): every ASID, every level: T_A1, T_A2, P3_1, P2_A1, P1_A1, P3_2,
 * P2_A2, P1_A2. */
static int a_vaae1(struct rig *r)
{
	return tlbsim_mmu_tlbi(r->mmu, TLBSIM_TLBI_VAAE1, A_VA, 0);
}
/* VAALE1 (A): every ASID, last level: T_A1, T_A2. */
static int a_vaale1(struct rig *r)
{
	return tlbsim_mmu_tlbi(r->mmu, TLBSIM_TLBI_VAALE1, A_VA, 0);
}
/* VAE1 (G, 2): the global entry matches any ASID; ASID 2 has no walk
 * entries covering G other than P3_2 and P2_A2 ([0,1G) covers G too). */
static int a_vae1_g(struct rig *r)
{
	return tlbsim_mmu_tlbi(r->mmu, TLBSIM_TLBI_VAE1, G_VA, 2);
}
/* ASIDE1 (1): every non-global entry of ASID 1, all levels. */
static int a_aside1(struct rig *r)
{
	return tlbsim_mmu_tlbi(r->mmu, TLBSIM_TLBI_ASIDE1, 0, 1);
}
static int a_vmalle1(struct rig *r)
{
	return tlbsim_mmu_tlbi(r->mmu, TLBSIM_TLBI_VMALLE1, 0, 0);
}
/* MSR TTBR0_EL1 to context 2: invalidates nothing (rule 9). */
static int a_ttbr0(struct rig *r)
{
	return tlbsim_mmu_write_ttbr0(r->mmu, tlbsim_pgtable_root(r->pt2), 2);
}

static const struct inval_row arm64_rows[] = {
	/*                            A1B1G L1A2 P3 2A 2B 1A 1B  P3_2 2A2 1A2 */
	{"tlbi vae1 A", a_vae1, "0111100101111"},
	{"tlbi vale1 A", a_vale1, "0111111111111"},
	{"tlbi vaae1 A", a_vaae1, "0111000101000"},
	{"tlbi vaale1 A", a_vaale1, "0111011111111"},
	{"tlbi vae1 G asid 2", a_vae1_g, "1101111111001"},
	{"tlbi aside1 1", a_aside1, "0010100000111"},
	{"tlbi vmalle1", a_vmalle1, "0000000000000"},
	{"ttbr0 write", a_ttbr0, "1111111111111"},
	{"flush all", flush_all, "0000000000000"},
};

static void run_rows(enum tlbsim_isa isa, const struct inval_row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct rig r;
		enum planted p;

		plant(&r, isa);
		assert_int_equal(rows[i].run(&r), 0);
		for (p = 0; p < NR_PLANTED; p++) {
			bool want = rows[i].survive[p] == '1';

			if (planted_present(&r, p) != want)
				fail_msg("%s: planted entry %d %s", rows[i].what, (int)p,
					 want ? "was removed but must survive"
					      : "survived but must be removed");
		}
		rig_fini(&r);
	}
}

static void x86_invalidation_instructions_remove_what_the_sdm_says(void **state)
{
	(void)state;
	run_rows(TLBSIM_ISA_X86_64, x86_rows, sizeof(x86_rows) / sizeof(x86_rows[0]));
}

static void arm64_tlbi_operations_remove_what_the_arm_arm_says(void **state)
{
	(void)state;
	run_rows(TLBSIM_ISA_ARM64, arm64_rows, sizeof(arm64_rows) / sizeof(arm64_rows[0]));
}

/* Wrong-ISA instructions are refused, and counters name each kind. */
static void instructions_of_the_other_isa_are_refused(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, TLBSIM_ISA_X86_64, false);
	assert_int_equal(tlbsim_mmu_tlbi(r.mmu, TLBSIM_TLBI_VAE1, 0, 0), -TLBSIM_ENOTSUP);
	assert_int_equal(tlbsim_mmu_write_ttbr0(r.mmu, 1, 0), -TLBSIM_ENOTSUP);
	assert_int_equal(tlbsim_mmu_invpcid(r.mmu, 4, 0, 0), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_mmu_write_cr3(r.mmu, 1, 4096, false), -TLBSIM_ERANGE);
	rig_fini(&r);
	rig_init(&r, TLBSIM_ISA_ARM64, false);
	assert_int_equal(tlbsim_mmu_invlpg(r.mmu, 0), -TLBSIM_ENOTSUP);
	assert_int_equal(tlbsim_mmu_write_cr3(r.mmu, 1, 0, false), -TLBSIM_ENOTSUP);
	assert_int_equal(tlbsim_mmu_tlbi(r.mmu, TLBSIM_TLBI_NR_OPS, 0, 0), -TLBSIM_EINVAL);
	rig_fini(&r);
	assert_string_equal(tlbsim_inval_kind_name(TLBSIM_INVAL_INVLPG), "invlpg");
	assert_string_equal(tlbsim_inval_kind_name(TLBSIM_INVAL_TLBI_VALE1), "tlbi_vale1");
}

/*
 * A walk-cache entry that outlives its table: unmap A, free the emptied
 * last-level table without invalidating, and reuse the frame as another
 * table.  The next walk for A's neighbour goes through the stale level-1
 * PWC entry into the new table: counted as a stale table read.
 */
static void walk_through_freed_table_is_counted(void **state)
{
	struct rig r;
	struct tlbsim_xlate x;
	uint64_t pfn;

	(void)state;
	rig_init(&r, TLBSIM_ISA_ARM64, false);
	map4k(&r, r.pt1, A_VA, TLBSIM_PROT_READ);
	load_ctx(&r, r.pt1, 1);
	load(&r, A_VA);
	assert_int_equal(tlbsim_pgtable_unmap(r.pt1, A_VA, NULL), 0);
	assert_int_equal(tlbsim_pgtable_free_tables(r.pt1, MiB(4), MiB(6), NULL, NULL), 1);
	assert_int_equal(tlbsim_physmem_alloc(r.pm, TLBSIM_FRAME_TABLE, &pfn), 0);
	assert_int_equal(tlbsim_mmu_translate(r.mmu, A_VA + KiB(4), TLBSIM_ACCESS_LOAD, &x),
			 -TLBSIM_EFAULT);
	assert_int_equal(x.pwc_level, 1);
	assert_int_equal(tlbsim_mmu_stats(r.mmu)->stale_table_reads, 1);
	rig_fini(&r);
}

/* The JSON text lists the counters under their documented keys. */
static void stats_json_has_documented_keys(void **state)
{
	struct tlbsim_mmu_stats st;
	char *text;

	(void)state;
	memset(&st, 0, sizeof(st));
	st.l1d_hits = 7;
	st.pwc_hits[2] = 3;
	st.inval[TLBSIM_INVAL_INVLPG] = 5;
	text = tlbsim_mmu_stats_json(&st);
	assert_non_null(text);
	assert_non_null(strstr(text, "\"l1d\": {\n    \"hits\": 7"));
	assert_non_null(strstr(text, "\"level\": 2"));
	assert_non_null(strstr(text, "\"invlpg\": 5"));
	assert_non_null(strstr(text, "\"stale_table_reads\": 0"));
	free(text);
}

/*
 * The hit path's shortcut (the L1's last hit again, mmu.c) must not serve
 * an entry the hazard oracle poisoned in place, nor one invalidated, nor
 * an access its permissions refuse.  One read-only 4 KiB page at 4 MiB,
 * PCID 1, an oracle watching cpu 0 (a machine of one core, no engine: the
 * report only reads the core's clock):
 *   load 4M        walk: l1d miss 1
 *   load 4M + 8    L1 scan hit, becomes the last hit: hits 1
 *   load 4M + 16   last hit again: hits 2, no report
 *   poison the L1 entry (as the oracle does when a change commits): 1 entry
 *   load 4M + 24   still an L1 hit (hits 3) with the same PA, but the
 *                  oracle must hear of it: 1 stale_use report, va 4M + 24,
 *                  and it unmarks the entry (one report per translation)
 *   load 4M + 32   hits 4, still 1 report
 *   store 4M + 40  read-only: the lookup hits (5) but the permission check
 *                  refuses, a fault (1); the fault drops the entry, so
 *   load 4M + 48   walks again: misses 2
 *   load 4M + 56   L1 hit (6); invlpg 4M; load 4M + 64 walks: misses 3.
 */
static void poisoned_invalidated_or_refused_last_hit_is_not_served_by_the_shortcut(void **state)
{
	struct rig r;
	struct hw_smp smp;
	struct hw_cpu cpu0;
	struct eng_core core;
	struct chk_oracle *o;
	struct tlbsim_xlate x, first;
	const struct tlbsim_mmu_stats *st;
	const struct chk_report *rep;
	unsigned n;

	(void)state;
	rig_init(&r, TLBSIM_ISA_X86_64, false);
	memset(&core, 0, sizeof(core));
	memset(&cpu0, 0, sizeof(cpu0));
	cpu0.mmu = r.mmu;
	cpu0.core = &core;
	memset(&smp, 0, sizeof(smp));
	smp.m = &r.m;
	smp.pm = r.pm;
	smp.cpu = &cpu0;
	o = chk_create(&smp);
	assert_non_null(o);
	st = tlbsim_mmu_stats(r.mmu);
	map4k(&r, r.pt1, MiB(4), TLBSIM_PROT_READ);
	load_ctx(&r, r.pt1, 1);

	first = load(&r, MiB(4));
	assert_int_equal(first.src, TLBSIM_XLATE_WALK);
	load(&r, MiB(4) + 8);
	x = load(&r, MiB(4) + 16);
	assert_int_equal(x.src, TLBSIM_XLATE_L1);
	assert_int_equal(x.pa, first.pa + 16);
	assert_int_equal(st->l1d_hits, 2);
	assert_int_equal(st->l1d_misses, 1);
	chk_reports(o, &n);
	assert_int_equal(n, 0);

	assert_int_equal(hw_tlb_mark_version(hw_mmu_struct(r.mmu, HW_L1D), MiB(4), 12,
					     first.pte_version, true),
			 1);
	x = load(&r, MiB(4) + 24);
	assert_int_equal(x.src, TLBSIM_XLATE_L1);
	assert_int_equal(x.pa, first.pa + 24);
	assert_int_equal(st->l1d_hits, 3);
	rep = chk_reports(o, &n);
	assert_int_equal(n, 1);
	assert_int_equal(rep[0].kind, CHK_STALE_USE);
	assert_int_equal(rep[0].cpu, 0);
	assert_int_equal(rep[0].va, MiB(4) + 24);
	load(&r, MiB(4) + 32);
	assert_int_equal(st->l1d_hits, 4);
	chk_reports(o, &n);
	assert_int_equal(n, 1);

	assert_int_equal(tlbsim_mmu_translate(r.mmu, MiB(4) + 40, TLBSIM_ACCESS_STORE, &x),
			 -TLBSIM_EFAULT);
	assert_int_equal(st->faults, 1);
	assert_int_equal(st->l1d_hits, 5); /* the lookup hit; the permission check refused */
	x = load(&r, MiB(4) + 48);
	assert_int_equal(x.src, TLBSIM_XLATE_WALK);
	assert_int_equal(st->l1d_misses, 2);

	load(&r, MiB(4) + 56);
	assert_int_equal(st->l1d_hits, 6);
	assert_int_equal(tlbsim_mmu_invlpg(r.mmu, MiB(4)), 0);
	x = load(&r, MiB(4) + 64);
	assert_int_equal(x.src, TLBSIM_XLATE_WALK);
	assert_int_equal(st->l1d_misses, 3);
	chk_destroy(o);
	rig_fini(&r);
}

/*
 * hw_mmu_access() hands back the hot state of the L1 it used, which the
 * step then takes hits with; a stale one would serve a page whose entry
 * has gone.  Worked out from the lookup rules:
 *   load 4M (walk), load 4M + 8 (hit)   dTLB hot: vpn 1024, ok READ
 *   store 8M (walk, fills the L1)       ok 0: the insert cleared the last hit
 *   load 8M + 8 (L1 hit, 1 cycle)       vpn 8M >> 12 = 2048, ok READ | WRITE
 */
static void an_access_hands_back_its_l1s_hot_state(void **state)
{
	struct rig r;
	struct hw_mmu_hot h;
	unsigned cycles;

	(void)state;
	rig_init(&r, TLBSIM_ISA_X86_64, false);
	map4k(&r, r.pt1, MiB(4), TLBSIM_PROT_READ);
	map4k(&r, r.pt1, MiB(8), TLBSIM_PROT_READ | TLBSIM_PROT_WRITE);
	load_ctx(&r, r.pt1, 1);
	load(&r, MiB(4));
	load(&r, MiB(4) + 8);
	hw_mmu_hot(r.mmu, false, &h);
	assert_int_equal(h.vpn, 1024);
	assert_int_equal(h.ok, 1u << TLBSIM_ACCESS_LOAD);

	assert_int_equal(hw_mmu_access(r.mmu, MiB(8), TLBSIM_ACCESS_STORE, &cycles, &h), 0);
	assert_int_equal(h.ok, 0);
	assert_true(h.walked);
	assert_int_equal(hw_mmu_access(r.mmu, MiB(8) + 8, TLBSIM_ACCESS_LOAD, &cycles, &h), 0);
	assert_int_equal(cycles, 1);
	assert_false(h.walked);
	assert_int_equal(h.vpn, 2048);
	assert_int_equal(h.shift, 12);
	assert_int_equal(h.ok, TLBSIM_PROT_READ | TLBSIM_PROT_WRITE);
	rig_fini(&r);
}

static void sum_entry(void *arg, enum hw_struct s, const struct hw_tlb_entry *e)
{
	uint64_t *h = arg;

	*h = (*h ^ ((uint64_t)s << 56 ^ e->vpn ^ e->pfn << 20 ^ e->version << 40 ^ e->asid)) *
	     0x100000001b3ull;
}

/*
 * hw_mmu_prefetch() is a hint to the host: it changes no statistic and no
 * entry of any structure, for a mapped page, an unmapped one, and without
 * a context; the walk that follows costs what it would have.  8 MiB's walk
 * cached the tables down to the PD that 4 MiB shares (PD entries 4 and 2):
 * 4 MiB's walk hits the level-2 walk cache (3 cycles), reads levels 1 and
 * 0 (20 + 10) and pays the L1's 1: 34 cycles.
 */
static void a_prefetch_changes_nothing_simulated(void **state)
{
	struct rig r;
	struct tlbsim_mmu_stats before;
	uint64_t h0 = 0xcbf29ce484222325ull, h1 = h0;
	struct tlbsim_xlate x;

	(void)state;
	rig_init(&r, TLBSIM_ISA_X86_64, false);
	hw_mmu_prefetch(r.mmu, MiB(4));
	map4k(&r, r.pt1, MiB(4), TLBSIM_PROT_READ);
	map4k(&r, r.pt1, MiB(8), TLBSIM_PROT_READ);
	load_ctx(&r, r.pt1, 1);
	load(&r, MiB(8));
	before = *tlbsim_mmu_stats(r.mmu);
	hw_mmu_for_each(r.mmu, sum_entry, &h0);
	hw_mmu_prefetch(r.mmu, MiB(4));
	hw_mmu_prefetch(r.mmu, GiB(3));
	hw_mmu_for_each(r.mmu, sum_entry, &h1);
	assert_memory_equal(&before, tlbsim_mmu_stats(r.mmu), sizeof(before));
	assert_true(h0 == h1);
	assert_int_equal(tlbsim_mmu_translate(r.mmu, MiB(4), TLBSIM_ACCESS_LOAD, &x), 0);
	assert_int_equal(x.cycles, 34);

	/* The prefetch starts at the PD the last walk read, for addresses
	 * in the GiB it maps: freed (with the two PTs), or reused for
	 * another table, it is still memory the prefetch may read (the
	 * sanitizer build checks). */
	assert_int_equal(tlbsim_pgtable_unmap(r.pt1, MiB(4), NULL), 0);
	assert_int_equal(tlbsim_pgtable_unmap(r.pt1, MiB(8), NULL), 0);
	assert_int_equal(tlbsim_pgtable_free_tables(r.pt1, 0, GiB(1), NULL, NULL), 3);
	before = *tlbsim_mmu_stats(r.mmu);
	hw_mmu_prefetch(r.mmu, MiB(4));
	map4k(&r, r.pt2, GiB(7), TLBSIM_PROT_READ);
	hw_mmu_prefetch(r.mmu, MiB(6));
	assert_memory_equal(&before, tlbsim_mmu_stats(r.mmu), sizeof(before));
	rig_fini(&r);
}

/*
 * hw_mmu_hot(): the state with which the OS model's step takes L1 hits
 * without calling the MMU must describe exactly the hits last_hit() would
 * serve.  Worked out from the rules (hw_tlb_lookup(): a walk's insert
 * clears the last hit, a lookup hit sets it):
 *   nothing translated yet           ok 0 for both L1s
 *   load 4M (walk), no lookup hit    ok 0: the insert cleared it
 *   load 4M + 8 (L1 hit)             dTLB: vpn 4M >> 12 = 1024, shift 12,
 *                                    latency 1, ok = READ only (1 << LOAD):
 *                                    a store to this read-only page must
 *                                    not be served; iTLB still ok 0
 *   5 data and 3 fetch hits counted  l1d_hits 1 + 5 = 6, l1i_hits 0 + 3
 *   entry poisoned by the oracle     ok 0 (the slow path tells the oracle)
 *   load 8M twice (read-write page)  ok = READ | WRITE (3), vpn 2048
 *   another ASID loaded              ok 0 (the last hit was another ASID's)
 * And tlbsim_mmu_translate() refuses an access that is none of the three,
 * counting nothing.
 */
static void hot_state_is_the_last_hit_the_shortcut_would_serve(void **state)
{
	struct rig r;
	struct hw_mmu_hot h;
	struct tlbsim_xlate x, first;
	const struct tlbsim_mmu_stats *st;

	(void)state;
	rig_init(&r, TLBSIM_ISA_X86_64, false);
	st = tlbsim_mmu_stats(r.mmu);
	map4k(&r, r.pt1, MiB(4), TLBSIM_PROT_READ);
	map4k(&r, r.pt1, MiB(8), TLBSIM_PROT_READ | TLBSIM_PROT_WRITE);
	load_ctx(&r, r.pt1, 1);
	hw_mmu_hot(r.mmu, false, &h);
	assert_int_equal(h.ok, 0);
	hw_mmu_hot(r.mmu, true, &h);
	assert_int_equal(h.ok, 0);

	first = load(&r, MiB(4));
	hw_mmu_hot(r.mmu, false, &h);
	assert_int_equal(h.ok, 0);
	load(&r, MiB(4) + 8);
	hw_mmu_hot(r.mmu, false, &h);
	assert_int_equal(h.ok, 1u << TLBSIM_ACCESS_LOAD);
	assert_int_equal(h.vpn, 1024);
	assert_int_equal(h.shift, 12);
	assert_int_equal(h.latency, 1);
	hw_mmu_hot(r.mmu, true, &h);
	assert_int_equal(h.ok, 0);

	assert_int_equal(st->l1d_hits, 1);
	hw_mmu_hot_hits(r.mmu, 5, 3);
	assert_int_equal(st->l1d_hits, 6);
	assert_int_equal(st->l1i_hits, 3);

	assert_int_equal(hw_tlb_mark_version(hw_mmu_struct(r.mmu, HW_L1D), MiB(4), 12,
					     first.pte_version, true),
			 1);
	hw_mmu_hot(r.mmu, false, &h);
	assert_int_equal(h.ok, 0);

	load(&r, MiB(8));
	load(&r, MiB(8) + 8);
	hw_mmu_hot(r.mmu, false, &h);
	assert_int_equal(h.ok, TLBSIM_PROT_READ | TLBSIM_PROT_WRITE);
	assert_int_equal(h.vpn, 2048);
	load_ctx(&r, r.pt1, 2);
	hw_mmu_hot(r.mmu, false, &h);
	assert_int_equal(h.ok, 0);

	assert_int_equal(tlbsim_mmu_translate(r.mmu, MiB(8), (enum tlbsim_access)3, &x),
			 -TLBSIM_EINVAL);
	/* l1d: 6 hits + the 8M + 8 hit, misses 4M and 8M; l1i: 3 hits */
	assert_int_equal(st->l1d_hits + st->l1d_misses + st->l1i_hits + st->l1i_misses,
			 7 + 2 + 3);
	rig_fini(&r);
}

/*
 * Walks after flushes: only a walk that fills again a translation an
 * invalidation removed counts, with that walk's cycles.  A (4 MiB) is
 * walked cold (not counted), INVLPG'd, walked again (counted: L1 1 + L2 7
 * are the lookups, the rest of x.cycles is the walk); then evicted by 48
 * other pages (16-entry L1, 32-entry L2: capacity, not counted); then
 * every entry goes with a full flush, and A and the last page walked
 * (cached at the flush) count again, a page evicted long before does not.
 */
static void only_refills_of_flushed_translations_count_as_walks_after_flush(void **state)
{
	const struct tlbsim_mmu_stats *st;
	struct tlbsim_xlate x;
	struct rig r;
	uint64_t i;

	(void)state;
	rig_init(&r, TLBSIM_ISA_X86_64, true);
	st = tlbsim_mmu_stats(r.mmu);
	for (i = 0; i < 49; i++)
		map4k(&r, r.pt1, MiB(4) + i * KiB(4), TLBSIM_PROT_READ);
	load_ctx(&r, r.pt1, 1);
	load(&r, MiB(4));
	assert_int_equal(st->walks, 1);
	assert_int_equal(st->walks_after_flush, 0);
	assert_int_equal(tlbsim_mmu_invlpg(r.mmu, MiB(4)), 0);
	x = load(&r, MiB(4));
	assert_int_equal(x.src, TLBSIM_XLATE_WALK);
	assert_int_equal(st->walks_after_flush, 1);
	assert_int_equal(st->walk_cycles_after_flush, x.cycles - 1 - 7);
	for (i = 1; i < 49; i++)
		load(&r, MiB(4) + i * KiB(4));
	x = load(&r, MiB(4));
	assert_int_equal(x.src, TLBSIM_XLATE_WALK); /* evicted from both TLBs */
	assert_int_equal(st->walks_after_flush, 1);
	tlbsim_mmu_flush_all(r.mmu);
	load(&r, MiB(4));
	load(&r, MiB(4) + 48 * KiB(4));
	/* L2 (32 LRU) held A and pages 18..48 at the flush; page 10 had gone: capacity */
	load(&r, MiB(4) + 10 * KiB(4));
	assert_int_equal(st->walks_after_flush, 3);
	assert_int_equal(st->walks, 1 + 1 + 48 + 1 + 3);
	rig_fini(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(x86_walk_latency_with_pwc_hit_at_each_level),
		cmocka_unit_test(arm64_walk_latency_with_pwc_hit_at_each_level),
		cmocka_unit_test(l2_hit_costs_both_lookups_and_refills_l1),
		cmocka_unit_test(store_to_read_only_page_faults_and_drops_the_entry),
		cmocka_unit_test(unmapped_address_faults_and_caches_no_leaf),
		cmocka_unit_test(huge_page_is_splintered_into_largest_l1_size),
		cmocka_unit_test(invlpg_drops_a_large_pages_splinters),
		cmocka_unit_test(a_walks_fault_drops_the_other_l1s_entry_and_splinters),
		cmocka_unit_test(a_walks_permission_fault_drops_what_a_fault_drops),
		cmocka_unit_test(tlbi_by_va_drops_a_large_pages_splinters),
		cmocka_unit_test(x86_invalidation_instructions_remove_what_the_sdm_says),
		cmocka_unit_test(arm64_tlbi_operations_remove_what_the_arm_arm_says),
		cmocka_unit_test(instructions_of_the_other_isa_are_refused),
		cmocka_unit_test(walk_through_freed_table_is_counted),
		cmocka_unit_test(stats_json_has_documented_keys),
		cmocka_unit_test(
		    poisoned_invalidated_or_refused_last_hit_is_not_served_by_the_shortcut),
		cmocka_unit_test(hot_state_is_the_last_hit_the_shortcut_would_serve),
		cmocka_unit_test(an_access_hands_back_its_l1s_hot_state),
		cmocka_unit_test(a_prefetch_changes_nothing_simulated),
		cmocka_unit_test(only_refills_of_flushed_translations_count_as_walks_after_flush),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
