/* SPDX-License-Identifier: MIT */
/*
 * Tests of src/hw/tlb.c, the set-associative structure behind every TLB and
 * page-walk cache.  Expected values are worked by hand in the comments:
 * replacement order per policy on one 4-way set, hit/miss counts of strided
 * patterns, multi-size and ASID matching (Intel SDM vol. 3 4.10.2), the
 * invalidation scopes of enum hw_asid_match (SDM 4.10.4.1 INVLPG/INVPCID,
 * Arm ARM TLBI VAE1/ASIDE1/VMALLE1), and a differential test against a naive
 * fully scanned LRU model.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "hw/tlb.h"
#include "tlbsim/error.h"

/* Page sizes as shifts: 4 KiB, 2 MiB, 1 GiB. */
#define S4K 12
#define S2M 21
#define S1G 30

static struct tlbsim_cache_geom geom(unsigned entries, unsigned ways, unsigned sizes,
				     enum tlbsim_repl repl, uint64_t seed)
{
	struct tlbsim_cache_geom g = {.entries = entries,
				      .ways = ways,
				      .page_sizes = sizes,
				      .repl = repl,
				      .seed = seed,
				      .latency_cycles = 1};
	return g;
}

static void init_ok(struct hw_tlb *t, unsigned entries, unsigned ways, unsigned sizes,
		    enum tlbsim_repl repl, uint64_t seed)
{
	struct tlbsim_cache_geom g = geom(entries, ways, sizes, repl, seed);

	assert_int_equal(hw_tlb_init(t, &g, 0), 0);
}

/* An entry of size 2^@shift for the page at @va; the pfn is a recognisable tag. */
static struct hw_tlb_entry ent(uint64_t va, unsigned shift, uint16_t asid, bool global,
			       uint64_t pfn)
{
	struct hw_tlb_entry e = {.vpn = va >> shift,
				 .pfn = pfn,
				 .version = 1,
				 .asid = asid,
				 .size_shift = (uint8_t)shift,
				 .flags = (uint8_t)(HW_TLBE_VALID | (global ? HW_TLBE_GLOBAL : 0)),
				 .prot = 0};
	return e;
}

/* Insert the 4K page number @vpn for ASID 1, tagged pfn = 0x1000 + vpn. */
static bool ins4k(struct hw_tlb *t, uint64_t vpn, struct hw_tlb_entry *victim)
{
	struct hw_tlb_entry e = ent(vpn << S4K, S4K, 1, false, 0x1000 + vpn);

	return hw_tlb_insert(t, &e, victim);
}

static bool hits4k(struct hw_tlb *t, uint64_t vpn)
{
	return hw_tlb_lookup(t, vpn << S4K, 1) != NULL;
}

/* Pages A..J of the replacement tests, all in the only set of the structure. */
enum { A = 0xa, B, C, D, E, F, G, H, I, J };

/* ---- LRU ---------------------------------------------------------------- */

static void lru_evicts_least_recently_used_way(void **state)
{
	struct hw_tlb t;
	struct hw_tlb_entry v;

	init_ok(&t, 4, 4, TLBSIM_PS_4K, TLBSIM_REPL_LRU, 0);
	/* Ticks: A=1, B=2, C=3, D=4 (ways 0..3); lookup A -> A=5. */
	assert_false(ins4k(&t, A, &v));
	assert_false(ins4k(&t, B, &v));
	assert_false(ins4k(&t, C, &v));
	assert_false(ins4k(&t, D, &v));
	assert_true(hits4k(&t, A));
	/* Smallest stamp is B (2): E replaces B in way 1, E=6. */
	assert_true(ins4k(&t, E, &v));
	assert_int_equal(v.vpn, B);
	assert_int_equal(t.e[1].vpn, E);
	/* Stamps A=5, E=6, C=3, D=4: F replaces C (way 2). */
	assert_true(ins4k(&t, F, &v));
	assert_int_equal(v.vpn, C);
	assert_int_equal(t.e[2].vpn, F);
	/* A, E, F, D are in; B and C are gone. */
	assert_true(hits4k(&t, A) && hits4k(&t, D) && hits4k(&t, E) && hits4k(&t, F));
	assert_false(hits4k(&t, B) || hits4k(&t, C));
	hw_tlb_fini(&t);
}

static void lru_refill_in_place_counts_as_use(void **state)
{
	struct hw_tlb t;
	struct hw_tlb_entry v, a2 = ent((uint64_t)A << S4K, S4K, 1, false, 0xbeef);

	init_ok(&t, 4, 4, TLBSIM_PS_4K, TLBSIM_REPL_LRU, 0);
	ins4k(&t, A, NULL);
	ins4k(&t, B, NULL);
	ins4k(&t, C, NULL);
	ins4k(&t, D, NULL);
	/* Same vpn/size/asid: overwritten in way 0, nothing evicted, A=5. */
	assert_false(hw_tlb_insert(&t, &a2, &v));
	assert_int_equal(hw_tlb_nr_valid(&t), 4);
	assert_int_equal(t.e[0].pfn, 0xbeef);
	/* Stamps A=5, B=2, C=3, D=4: E evicts B, not A. */
	assert_true(ins4k(&t, E, &v));
	assert_int_equal(v.vpn, B);
	assert_int_equal(hw_tlb_lookup(&t, (uint64_t)A << S4K, 1)->pfn, 0xbeef);
	hw_tlb_fini(&t);
}

/* ---- tree PLRU ---------------------------------------------------------- */

/*
 * Convention (tlb.c): heap-numbered nodes, node 1 the root, children 2n and
 * 2n+1; bit 0 sends the victim search left.  A use sets every node on the
 * way's path to point away from it.  4 ways: node 1 splits {0,1}|{2,3},
 * node 2 splits 0|1, node 3 splits 2|3.
 */
static void plru_4way_evicts_the_way_the_tree_points_to(void **state)
{
	struct hw_tlb t;
	struct hw_tlb_entry v;

	init_ok(&t, 4, 4, TLBSIM_PS_4K, TLBSIM_REPL_PLRU, 0);
	/*
	 * Fill A..D into ways 0..3 (b1,b2,b3):
	 *   A (way 0): b1=1 b2=1       -> (1,1,0)
	 *   B (way 1): b1=1 b2=0       -> (1,0,0)
	 *   C (way 2): b1=0 b3=1       -> (0,0,1)
	 *   D (way 3): b1=0 b3=0       -> (0,0,0)
	 * Use B: b1=1 b2=0 -> (1,0,0); use A: b1=1 b2=1 -> (1,1,0);
	 * use C: b1=0 b3=1 -> (0,1,1).
	 * Victim: b1=0 -> node 2, b2=1 -> right -> way 1 = B.
	 * (True LRU would evict D, never used since its fill.)
	 */
	ins4k(&t, A, NULL);
	ins4k(&t, B, NULL);
	ins4k(&t, C, NULL);
	ins4k(&t, D, NULL);
	assert_true(hits4k(&t, B));
	assert_true(hits4k(&t, A));
	assert_true(hits4k(&t, C));
	assert_true(ins4k(&t, E, &v));
	assert_int_equal(v.vpn, B);
	assert_int_equal(t.e[1].vpn, E);
	/*
	 * E in way 1: b1=1 b2=0 -> (1,0,1).  Victim: b1=1 -> node 3, b3=1 ->
	 * right -> way 3 = D.
	 */
	assert_true(ins4k(&t, F, &v));
	assert_int_equal(v.vpn, D);
	assert_int_equal(t.e[3].vpn, F);
	/* F in way 3: b1=0 b3=0 -> (0,0,0).  Victim: way 0 = A. */
	assert_true(ins4k(&t, G, &v));
	assert_int_equal(v.vpn, A);
	hw_tlb_fini(&t);
}

static void plru_8way_follows_three_level_tree(void **state)
{
	struct hw_tlb t;
	struct hw_tlb_entry v;

	init_ok(&t, 8, 8, TLBSIM_PS_4K, TLBSIM_REPL_PLRU, 0);
	/*
	 * 8 ways: node 1 splits {0-3}|{4-7}; node 2 {0,1}|{2,3}; node 3
	 * {4,5}|{6,7}; nodes 4..7 split the pairs (0|1, 2|3, 4|5, 6|7).
	 * Filling ways 0..7 in order leaves every bit 0: the last fill, way 7,
	 * clears b1, b3, b7, and the earlier fills of way 1 (b4=0), way 3
	 * (b2=0, b5=0) and way 5 (b6=0) cleared the rest.
	 * Use way 0 (A): b1=1 b2=1 b4=1.  Use way 5 (F): b1=0 b3=1 b6=0.
	 * Bits b1..b7 = 0,1,1,1,0,0,0.  Victim: b1=0 -> node 2; b2=1 -> node
	 * 5; b5=0 -> leaf 10 = way 2 = C.  (True LRU would evict B.)
	 */
	for (unsigned p = A; p <= H; p++)
		ins4k(&t, p, NULL);
	assert_true(hits4k(&t, A));
	assert_true(hits4k(&t, F));
	assert_true(ins4k(&t, I, &v));
	assert_int_equal(v.vpn, C);
	assert_int_equal(t.e[2].vpn, I);
	/*
	 * I in way 2: b1=1 b2=0 b5=1 -> 1,0,1,1,1,0,0.  Victim: b1=1 -> node
	 * 3; b3=1 -> node 7; b7=0 -> leaf 14 = way 6 = G.
	 */
	assert_true(ins4k(&t, J, &v));
	assert_int_equal(v.vpn, G);
	assert_int_equal(t.e[6].vpn, J);
	hw_tlb_fini(&t);
}

/* ---- RANDOM ------------------------------------------------------------- */

static void random_victims_follow_splitmix64_seed_0(void **state)
{
	struct hw_tlb t;
	struct hw_tlb_entry v;
	uint64_t s = 0;

	/*
	 * Published reference outputs of splitmix64 from state 0 (Vigna's
	 * splitmix64.c; Steele, Lea, Flood 2014).  Their low two bits, i.e.
	 * the value mod 4: 0xaf -> 3, 0xf4 -> 0, 0x4f -> 3, 0xec -> 0.
	 */
	assert_true(hw_splitmix64(&s) == 0xe220a8397b1dcdafull);
	assert_true(hw_splitmix64(&s) == 0x6e789e6aa1b965f4ull);
	assert_true(hw_splitmix64(&s) == 0x06c45d188009454full);
	assert_true(hw_splitmix64(&s) == 0xf88bb8a8724c81ecull);

	init_ok(&t, 4, 4, TLBSIM_PS_4K, TLBSIM_REPL_RANDOM, 0);
	/* Fills of invalid ways draw nothing: A..D in ways 0..3. */
	ins4k(&t, A, NULL);
	ins4k(&t, B, NULL);
	ins4k(&t, C, NULL);
	ins4k(&t, D, NULL);
	/* Lookups draw nothing either. */
	assert_true(hits4k(&t, A));
	/* Draw 1 -> way 3 (D); draw 2 -> way 0 (A); 3 -> way 3 (E); 4 -> way 0 (F). */
	assert_true(ins4k(&t, E, &v));
	assert_int_equal(v.vpn, D);
	assert_true(ins4k(&t, F, &v));
	assert_int_equal(v.vpn, A);
	assert_true(ins4k(&t, G, &v));
	assert_int_equal(v.vpn, E);
	assert_true(ins4k(&t, H, &v));
	assert_int_equal(v.vpn, F);
	/* Ways: H, B, C, G. */
	assert_int_equal(t.e[0].vpn, H);
	assert_int_equal(t.e[1].vpn, B);
	assert_int_equal(t.e[2].vpn, C);
	assert_int_equal(t.e[3].vpn, G);
	hw_tlb_fini(&t);
}

/* ---- invalid ways first ------------------------------------------------- */

static void invalid_way_is_taken_before_the_policy_victim(void **state)
{
	static const enum tlbsim_repl repls[] = {TLBSIM_REPL_LRU, TLBSIM_REPL_PLRU,
						 TLBSIM_REPL_RANDOM};

	for (unsigned r = 0; r < 3; r++) {
		struct hw_tlb t;
		struct hw_tlb_entry v;
		struct hw_tlb_sel sel = {
		    .by_va = true, .va = (uint64_t)C << S4K, .asid_match = HW_ASID_ANY};

		init_ok(&t, 4, 4, TLBSIM_PS_4K, repls[r], 0);
		ins4k(&t, A, NULL);
		ins4k(&t, B, NULL);
		ins4k(&t, C, NULL);
		ins4k(&t, D, NULL);
		/*
		 * LRU would pick A, PLRU (all bits 0 after filling 0..3) way 0
		 * = A, RANDOM's first draw way 3 = D; the hole at way 2 wins.
		 */
		assert_int_equal(hw_tlb_invalidate(&t, &sel), 1);
		assert_false(ins4k(&t, E, &v));
		assert_int_equal(t.e[2].vpn, E);
		assert_int_equal(hw_tlb_nr_valid(&t), 4);
		if (repls[r] == TLBSIM_REPL_RANDOM) {
			/* The stream was not consumed: the next victim is draw 1, way 3. */
			assert_true(ins4k(&t, F, &v));
			assert_int_equal(v.vpn, D);
		}
		hw_tlb_fini(&t);
	}
}

/* ---- strided patterns --------------------------------------------------- */

/*
 * Visit @nr pages @stride pages apart, @repeats times, looking each up and
 * inserting it on a miss (as a TLB refill does).
 */
static void run_stride(struct hw_tlb *t, unsigned nr, unsigned stride, unsigned repeats,
		       unsigned *hits, unsigned *misses)
{
	*hits = *misses = 0;
	for (unsigned r = 0; r < repeats; r++) {
		for (unsigned i = 0; i < nr; i++) {
			uint64_t vpn = (uint64_t)i * stride;

			/* Any offset inside the page: 0x123 bytes. */
			if (hw_tlb_lookup(t, (vpn << S4K) + 0x123, 1)) {
				(*hits)++;
			} else {
				(*misses)++;
				ins4k(t, vpn, NULL);
			}
		}
	}
}

static void strided_patterns_hit_and_miss_as_computed(void **state)
{
	static const struct {
		unsigned nr, stride, repeats, hits, misses;
	} cases[] = {
	    /*
	     * 64 entries, 4 ways: 16 sets, page p in set p & 15.
	     * 64 consecutive pages: 4 per set, all fit; pass 1 misses 64,
	     * passes 2 and 3 hit 64 each.
	     */
	    {64, 1, 3, 128, 64},
	    /*
	     * 65 pages: set 0 holds 0,16,32,48,64, five pages cycled
	     * through 4 LRU ways: each miss evicts the page needed next,
	     * so they always miss.  Pass 1: 65 misses; passes 2, 3: 60
	     * hits + 5 misses.  Hits 120, misses 75.
	     */
	    {65, 1, 3, 120, 75},
	    /* Stride 16 pages: every page in set 0.  5 pages: all 20 miss. */
	    {5, 16, 4, 0, 20},
	    /* 4 pages fit the 4 ways: 4 cold misses, then 12 hits. */
	    {4, 16, 4, 12, 4},
	    /*
	     * Stride 2 (8 KiB): only even sets; 32 pages = 8 sets x 4,
	     * fit.  2 passes: 32 misses, 32 hits.
	     */
	    {32, 2, 2, 32, 32},
	    /*
	     * 33 pages stride 2: page 64 makes set 0 hold 0,16,32,48,64
	     * (5, thrash).  Pass 1: 33 misses; pass 2: 28 hits, 5 misses.
	     */
	    {33, 2, 2, 28, 38},
	};

	for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct hw_tlb t;
		unsigned hits, misses;

		init_ok(&t, 64, 4, TLBSIM_PS_4K, TLBSIM_REPL_LRU, 0);
		run_stride(&t, cases[c].nr, cases[c].stride, cases[c].repeats, &hits, &misses);
		assert_int_equal(hits, cases[c].hits);
		assert_int_equal(misses, cases[c].misses);
		hw_tlb_fini(&t);
	}
}

/* ---- page sizes --------------------------------------------------------- */

static void two_mib_entry_hits_for_any_va_inside_it(void **state)
{
	struct hw_tlb t;
	struct hw_tlb_entry e = ent(0x40000000, S2M, 1, false, 0x40000);
	struct hw_tlb_entry *hit;

	init_ok(&t, 64, 4, TLBSIM_PS_4K | TLBSIM_PS_2M, TLBSIM_REPL_LRU, 0);
	hw_tlb_insert(&t, &e, NULL);
	/* The page is [0x40000000, 0x40200000): first byte, middle, last byte. */
	hit = hw_tlb_lookup(&t, 0x40000000, 1);
	assert_non_null(hit);
	assert_int_equal(hit->size_shift, S2M);
	assert_int_equal(hit->pfn, 0x40000);
	assert_ptr_equal(hw_tlb_lookup(&t, 0x400abcde, 1), hit);
	assert_ptr_equal(hw_tlb_lookup(&t, 0x401fffff, 1), hit);
	/* One byte outside on either side. */
	assert_null(hw_tlb_lookup(&t, 0x40200000, 1));
	assert_null(hw_tlb_lookup(&t, 0x3fffffff, 1));
	hw_tlb_fini(&t);
}

static void four_k_and_two_mib_entries_coexist_smallest_first(void **state)
{
	struct hw_tlb t;
	struct hw_tlb_entry big = ent(0x40000000, S2M, 1, false, 0x40000);
	struct hw_tlb_entry small = ent(0x40001000, S4K, 1, false, 0x99999);
	struct hw_tlb_entry *hit;

	init_ok(&t, 64, 4, TLBSIM_PS_4K | TLBSIM_PS_2M, TLBSIM_REPL_LRU, 0);
	hw_tlb_insert(&t, &big, NULL);
	hw_tlb_insert(&t, &small, NULL);
	assert_int_equal(hw_tlb_nr_valid(&t), 2);
	/* 0x40001234 is covered by both; the 4K probe comes first. */
	hit = hw_tlb_lookup(&t, 0x40001234, 1);
	assert_non_null(hit);
	assert_int_equal(hit->size_shift, S4K);
	assert_int_equal(hit->pfn, 0x99999);
	/* 0x40002000 only by the 2M page. */
	hit = hw_tlb_lookup(&t, 0x40002000, 1);
	assert_non_null(hit);
	assert_int_equal(hit->size_shift, S2M);
	hw_tlb_fini(&t);
}

static void one_gib_entry_hits_in_a_three_size_tlb(void **state)
{
	struct hw_tlb t;
	struct hw_tlb_entry e = ent(0x80000000, S1G, 1, false, 0x80000);

	init_ok(&t, 64, 4, TLBSIM_PS_4K | TLBSIM_PS_2M | TLBSIM_PS_1G, TLBSIM_REPL_LRU, 0);
	assert_int_equal(t.nr_shifts, 3);
	hw_tlb_insert(&t, &e, NULL);
	/* [2 GiB, 3 GiB). */
	assert_non_null(hw_tlb_lookup(&t, 0x80000000, 1));
	assert_non_null(hw_tlb_lookup(&t, 0xbfffffff, 1));
	assert_null(hw_tlb_lookup(&t, 0xc0000000, 1));
	assert_null(hw_tlb_lookup(&t, 0x7fffffff, 1));
	hw_tlb_fini(&t);
}

/* ---- ASIDs -------------------------------------------------------------- */

static void asid_tagged_entry_misses_for_another_asid(void **state)
{
	struct hw_tlb t;
	struct hw_tlb_entry a1 = ent(0x30000, S4K, 1, false, 0x111);
	struct hw_tlb_entry a2 = ent(0x30000, S4K, 2, false, 0x222);

	init_ok(&t, 64, 4, TLBSIM_PS_4K, TLBSIM_REPL_LRU, 0);
	hw_tlb_insert(&t, &a1, NULL);
	assert_non_null(hw_tlb_lookup(&t, 0x30000, 1));
	assert_null(hw_tlb_lookup(&t, 0x30000, 2));
	/* The same page for ASID 2 is another entry; each ASID sees its own. */
	assert_false(hw_tlb_insert(&t, &a2, NULL));
	assert_int_equal(hw_tlb_nr_valid(&t), 2);
	assert_int_equal(hw_tlb_lookup(&t, 0x30000, 1)->pfn, 0x111);
	assert_int_equal(hw_tlb_lookup(&t, 0x30000, 2)->pfn, 0x222);
	assert_null(hw_tlb_lookup(&t, 0x30000, 3));
	hw_tlb_fini(&t);
}

static void global_entry_hits_for_any_asid(void **state)
{
	struct hw_tlb t;
	struct hw_tlb_entry g = ent(0x20000, S4K, 1, true, 0x333);

	init_ok(&t, 64, 4, TLBSIM_PS_4K, TLBSIM_REPL_LRU, 0);
	hw_tlb_insert(&t, &g, NULL);
	assert_non_null(hw_tlb_lookup(&t, 0x20000, 1));
	assert_non_null(hw_tlb_lookup(&t, 0x20abc, 2));
	assert_non_null(hw_tlb_lookup(&t, 0x20fff, 0x7ff));
	hw_tlb_fini(&t);
}

static void insert_of_the_same_translation_overwrites_in_place(void **state)
{
	struct hw_tlb t;
	struct hw_tlb_entry v;
	struct hw_tlb_entry n1 = ent(0x40000, S4K, 1, false, 100);
	struct hw_tlb_entry n2 = ent(0x40000, S4K, 1, false, 200);
	struct hw_tlb_entry g3 = ent(0x50000, S4K, 3, true, 1);
	struct hw_tlb_entry g4 = ent(0x50000, S4K, 4, true, 2);
	struct hw_tlb_entry n3 = ent(0x50000, S4K, 3, false, 3);

	init_ok(&t, 64, 4, TLBSIM_PS_4K, TLBSIM_REPL_LRU, 0);
	hw_tlb_insert(&t, &n1, NULL);
	assert_false(hw_tlb_insert(&t, &n2, &v));
	assert_int_equal(hw_tlb_nr_valid(&t), 1);
	assert_int_equal(hw_tlb_lookup(&t, 0x40000, 1)->pfn, 200);
	/* Both global: the ASID field does not matter, one entry. */
	hw_tlb_insert(&t, &g3, NULL);
	assert_false(hw_tlb_insert(&t, &g4, &v));
	assert_int_equal(hw_tlb_nr_valid(&t), 2);
	assert_int_equal(hw_tlb_lookup(&t, 0x50000, 9)->pfn, 2);
	/* A non-global entry for the same page is a different translation. */
	assert_false(hw_tlb_insert(&t, &n3, &v));
	assert_int_equal(hw_tlb_nr_valid(&t), 3);
	hw_tlb_fini(&t);
}

/* ---- invalidation ------------------------------------------------------- */

/*
 * 64-entry 4-way 4K|2M TLB holding:
 *   a 4K 0x100000 asid 1        b 4K 0x101000 asid 2
 *   c 4K 0x102000 asid 1 global d 4K 0x103000 asid 3
 *   e 2M 0x200000 asid 1        f 4K 0x201000 asid 1 (inside e)
 * Their pfns are one bit each, so the OR of what is left names the set left.
 */
enum { TA = 1, TB = 2, TC = 4, TD = 8, TE = 16, TF = 32 };
static void setup_six(struct hw_tlb *t)
{
	struct hw_tlb_entry es[] = {
	    ent(0x100000, S4K, 1, false, TA), ent(0x101000, S4K, 2, false, TB),
	    ent(0x102000, S4K, 1, true, TC),  ent(0x103000, S4K, 3, false, TD),
	    ent(0x200000, S2M, 1, false, TE), ent(0x201000, S4K, 1, false, TF),
	};

	init_ok(t, 64, 4, TLBSIM_PS_4K | TLBSIM_PS_2M, TLBSIM_REPL_LRU, 0);
	for (unsigned i = 0; i < 6; i++)
		assert_false(hw_tlb_insert(t, &es[i], NULL));
	assert_int_equal(hw_tlb_nr_valid(t), 6);
}

/* OR of the tags (pfn) of the valid entries: which ones are left. */
static void sum_pfn(void *arg, const struct hw_tlb_entry *e)
{
	*(uint64_t *)arg |= e->pfn;
}

static uint64_t left(const struct hw_tlb *t)
{
	uint64_t s = 0;

	hw_tlb_for_each(t, sum_pfn, &s);
	return s;
}

static void invalidate_each_asid_mode_removes_the_selected_entries(void **state)
{
	static const struct {
		enum hw_asid_match m;
		uint16_t asid;
		unsigned removed;
		uint64_t left;
	} cases[] = {
	    /* Everything (VMALLE1 / CR4.PGE toggle). */
	    {HW_ASID_ANY, 0, 6, 0},
	    /* All but the global c (CR3 write without PCID, INVPCID type 3). */
	    {HW_ASID_NONGLOBAL, 0, 5, TC},
	    /* ASID 1, globals kept (ASIDE1, INVPCID type 1): a, e, f. */
	    {HW_ASID_EQ, 1, 3, TB | TC | TD},
	    /* ASID 1 and globals: a, c, e, f. */
	    {HW_ASID_EQ_OR_GLOBAL, 1, 4, TB | TD},
	    /* Nobody has ASID 9. */
	    {HW_ASID_EQ, 9, 0, TA | TB | TC | TD | TE | TF},
	    /* ASID 9 and globals: only c. */
	    {HW_ASID_EQ_OR_GLOBAL, 9, 1, TA | TB | TD | TE | TF},
	};

	for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct hw_tlb t;
		struct hw_tlb_sel sel = {
		    .by_va = false, .asid_match = cases[c].m, .asid = cases[c].asid};

		setup_six(&t);
		assert_int_equal(hw_tlb_invalidate(&t, &sel), cases[c].removed);
		assert_int_equal(left(&t), cases[c].left);
		/* A second identical invalidation finds nothing left to remove. */
		assert_int_equal(hw_tlb_invalidate(&t, &sel), 0);
		hw_tlb_fini(&t);
	}
}

static void invalidate_by_va_removes_pages_covering_it(void **state)
{
	static const struct {
		uint64_t va;
		enum hw_asid_match m;
		uint16_t asid;
		unsigned removed;
		uint64_t left;
	} cases[] = {
	    /* Inside e's 2M page, outside f's 4K page: e only. */
	    {0x2abcde, HW_ASID_ANY, 0, 1, TA | TB | TC | TD | TF},
	    /* Covered by e and f, both ASID 1. */
	    {0x201800, HW_ASID_EQ, 1, 2, TA | TB | TC | TD},
	    /* Same va, wrong ASID: nothing. */
	    {0x201800, HW_ASID_EQ, 2, 0, TA | TB | TC | TD | TE | TF},
	    /*
	     * INVLPG in PCID 7 (SDM 4.10.4.1): the current PCID's entries
	     * and global entries for the page: the global c.
	     */
	    {0x102000, HW_ASID_EQ_OR_GLOBAL, 7, 1, TA | TB | TD | TE | TF},
	    /* Non-global only: c survives. */
	    {0x102fff, HW_ASID_NONGLOBAL, 0, 0, TA | TB | TC | TD | TE | TF},
	    /* a, by its last byte. */
	    {0x100fff, HW_ASID_EQ, 1, 1, TB | TC | TD | TE | TF},
	    /* Unmapped va. */
	    {0x7000000, HW_ASID_ANY, 0, 0, TA | TB | TC | TD | TE | TF},
	};

	for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct hw_tlb t;
		struct hw_tlb_sel sel = {.by_va = true,
					 .va = cases[c].va,
					 .asid_match = cases[c].m,
					 .asid = cases[c].asid};

		setup_six(&t);
		assert_int_equal(hw_tlb_invalidate(&t, &sel), cases[c].removed);
		assert_int_equal(left(&t), cases[c].left);
		assert_int_equal(hw_tlb_invalidate(&t, &sel), 0);
		hw_tlb_fini(&t);
	}
}

/* ---- page-walk cache, empty structure, geometry ------------------------- */

static void pwc_holds_one_size_and_hits_inside_its_prefix(void **state)
{
	struct hw_tlb t;
	struct tlbsim_cache_geom g = geom(16, 4, 0, TLBSIM_REPL_LRU, 0);
	/* Level-2 PWC (PDPTE cache): entries cover 2^30 bytes of VA. */
	struct hw_tlb_entry e = ent(0x40000000, S1G, 1, false, 0x777);

	assert_int_equal(hw_tlb_init(&t, &g, S1G), 0);
	assert_int_equal(t.nr_shifts, 1);
	hw_tlb_insert(&t, &e, NULL);
	assert_int_equal(hw_tlb_lookup(&t, 0x7fffffff, 1)->pfn, 0x777);
	assert_null(hw_tlb_lookup(&t, 0x80000000, 1));
	hw_tlb_fini(&t);
}

static void count_calls(void *arg, const struct hw_tlb_entry *e)
{
	(*(unsigned *)arg)++;
}

static void zero_entries_give_an_empty_structure(void **state)
{
	struct hw_tlb t;
	struct tlbsim_cache_geom g = geom(0, 0, 0, TLBSIM_REPL_LRU, 0);
	struct hw_tlb_entry e = ent(0x1000, S4K, 1, false, 1);
	struct hw_tlb_sel sel = {.asid_match = HW_ASID_ANY};
	unsigned calls = 0;

	assert_int_equal(hw_tlb_init(&t, &g, 0), 0);
	assert_false(hw_tlb_insert(&t, &e, NULL));
	assert_null(hw_tlb_lookup(&t, 0x1000, 1));
	assert_int_equal(hw_tlb_nr_valid(&t), 0);
	assert_int_equal(hw_tlb_invalidate(&t, &sel), 0);
	hw_tlb_for_each(&t, count_calls, &calls);
	assert_int_equal(calls, 0);
	hw_tlb_fini(&t);
}

static void bad_geometry_is_rejected(void **state)
{
	static const struct {
		unsigned entries, ways, sizes;
		enum tlbsim_repl repl;
		unsigned pwc_shift;
		int rc;
	} cases[] = {
	    {8, 0, TLBSIM_PS_4K, TLBSIM_REPL_LRU, 0, -TLBSIM_EINVAL},	/* no ways */
	    {6, 4, TLBSIM_PS_4K, TLBSIM_REPL_LRU, 0, -TLBSIM_EINVAL},	/* 6 % 4 != 0 */
	    {12, 4, TLBSIM_PS_4K, TLBSIM_REPL_LRU, 0, -TLBSIM_EINVAL},	/* 3 sets */
	    {12, 3, TLBSIM_PS_4K, TLBSIM_REPL_LRU, 0, 0},		/* 4 sets of 3 */
	    {12, 3, TLBSIM_PS_4K, TLBSIM_REPL_PLRU, 0, -TLBSIM_EINVAL}, /* tree needs 2^k */
	    {48, 48, TLBSIM_PS_4K, TLBSIM_REPL_LRU, 0, 0},		/* A76 L1: 48 FA */
	    {64, 64, TLBSIM_PS_4K, TLBSIM_REPL_PLRU, 0, 0},		/* 63 tree bits */
	    {128, 128, TLBSIM_PS_4K, TLBSIM_REPL_PLRU, 0, -TLBSIM_EINVAL},
	    {1280, 5, TLBSIM_PS_4K, TLBSIM_REPL_RANDOM, 0, 0},	  /* A76 L2 */
	    {64, 4, 0, TLBSIM_REPL_LRU, 0, -TLBSIM_EINVAL},	  /* TLB without sizes */
	    {64, 4, 1u << 3, TLBSIM_REPL_LRU, 0, -TLBSIM_EINVAL}, /* unknown size */
	    {64, 4, TLBSIM_PS_4K, (enum tlbsim_repl)7, 0, -TLBSIM_EINVAL},
	    {16, 4, 0, TLBSIM_REPL_LRU, 21, 0},		     /* PDE cache */
	    {16, 4, 0, TLBSIM_REPL_LRU, 48, 0},		     /* PML5E cache */
	    {16, 4, 0, TLBSIM_REPL_LRU, 12, -TLBSIM_EINVAL}, /* leaves: not a PWC */
	    {16, 4, 0, TLBSIM_REPL_LRU, 49, -TLBSIM_EINVAL},
	};

	for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct hw_tlb t;
		struct tlbsim_cache_geom g =
		    geom(cases[c].entries, cases[c].ways, cases[c].sizes, cases[c].repl, 0);
		int rc = hw_tlb_init(&t, &g, cases[c].pwc_shift);

		if (rc != cases[c].rc)
			fail_msg("case %u: rc %d, expected %d", c, rc, cases[c].rc);
		hw_tlb_fini(&t);
	}
}

static void for_each_visits_every_valid_entry(void **state)
{
	struct hw_tlb t;
	struct hw_tlb_sel sel = {.by_va = true, .va = 0x103000, .asid_match = HW_ASID_ANY};
	unsigned calls = 0;

	setup_six(&t);
	hw_tlb_for_each(&t, count_calls, &calls);
	assert_int_equal(calls, 6);
	assert_int_equal(left(&t), TA | TB | TC | TD | TE | TF);
	assert_int_equal(hw_tlb_invalidate(&t, &sel), 1);
	calls = 0;
	hw_tlb_for_each(&t, count_calls, &calls);
	assert_int_equal(calls, 5);
	assert_int_equal(hw_tlb_nr_valid(&t), 5);
	hw_tlb_fini(&t);
}

/*
 * Pages of one set whose fingerprints are equal (tlb.h hw_tlb_fp(): the 7
 * page-number bits above the set index; 4 sets, so pages 1, 1 + 4 * 128
 * and 1 + 2 * 4 * 128 share set 1 and fingerprint 0x80) are told apart by
 * the entries: each hits only itself, and removing one by VA keeps the
 * others.
 */
static void pages_of_one_fingerprint_are_told_apart(void **state)
{
	struct hw_tlb t;
	const uint64_t a = 1, b = 1 + 4 * 128, c = 1 + 2 * 4 * 128;
	struct hw_tlb_sel sel = {.by_va = true, .va = b << S4K, .asid_match = HW_ASID_ANY};

	init_ok(&t, 16, 4, TLBSIM_PS_4K, TLBSIM_REPL_LRU, 0);
	assert_int_equal(hw_tlb_fp(&t, a), hw_tlb_fp(&t, b));
	assert_int_equal(hw_tlb_fp(&t, a), hw_tlb_fp(&t, c));
	ins4k(&t, a, NULL);
	ins4k(&t, b, NULL);
	assert_true(hits4k(&t, a));
	assert_true(hits4k(&t, b));
	assert_false(hits4k(&t, c));
	assert_int_equal(hw_tlb_lookup(&t, b << S4K, 1)->pfn, 0x1000 + b);
	assert_int_equal(hw_tlb_invalidate(&t, &sel), 1);
	assert_false(hits4k(&t, b));
	assert_true(hits4k(&t, a));
	hw_tlb_fini(&t);
}

/*
 * hw_tlb_invalidate_last_fill() after a walk-cache fill is the by-VA
 * invalidation of that entry (SDM 4.10.4.1, the fault's): two twin 4-way
 * PWCs of 2 MiB entries, filled alike with the even pages 0 to 14 (all in
 * set 0 of 2: pages 10 and 14 evict), after pages 2 and 10 one drops its
 * last fill and the other invalidates the page by VA and ASID; they hold
 * the same entries and choose the same victims after.
 */
static void invalidate_last_fill_is_the_by_va_invalidation(void **state)
{
	struct tlbsim_cache_geom g = geom(8, 4, 0, TLBSIM_REPL_LRU, 0);
	struct hw_tlb a, b;

	assert_int_equal(hw_tlb_init(&a, &g, S2M), 0);
	assert_int_equal(hw_tlb_init(&b, &g, S2M), 0);
	for (uint64_t page = 0; page < 16; page += 2) {
		struct hw_tlb_entry e = ent(page << S2M, S2M, 7, false, 0x100 + page), va, vb;
		struct hw_tlb_sel sel = {
		    .by_va = true, .va = page << S2M, .asid_match = HW_ASID_EQ, .asid = 7};
		bool eva = hw_tlb_insert_missed(&a, &e, &va), evb = hw_tlb_insert_missed(&b, &e, &vb);

		assert_int_equal(eva, evb);
		assert_int_equal(eva, page == 10 || page == 14);
		if (eva)
			assert_int_equal(va.vpn, vb.vpn);
		if (page % 8 == 2) {
			assert_int_equal(hw_tlb_invalidate_last_fill(&a), 1);
			assert_int_equal(hw_tlb_invalidate(&b, &sel), 1);
		}
		assert_int_equal(hw_tlb_nr_valid(&a), hw_tlb_nr_valid(&b));
		assert_int_equal(a.nr_valid_all, b.nr_valid_all);
		assert_int_equal(a.nr_valid[0], b.nr_valid[0]);
		for (unsigned i = 0; i < 8; i++) {
			assert_int_equal(a.e[i].flags, b.e[i].flags);
			assert_int_equal(hw_tlb_fp_of(&a, i), hw_tlb_fp_of(&b, i));
		}
	}
	hw_tlb_fini(&a);
	hw_tlb_fini(&b);
}

/*
 * hw_tlb_invalidate_last_hit() removes what a by-VA invalidation of the
 * last hit's page and ASID removes, on a twin structure: the same entries
 * and counts, whichever way and set the hit is in.
 */
static void invalidate_last_hit_is_the_by_va_invalidation(void **state)
{
	struct tlbsim_cache_geom g = geom(8, 4, 0, TLBSIM_REPL_LRU, 0);
	struct hw_tlb a, b;

	assert_int_equal(hw_tlb_init(&a, &g, S2M), 0);
	assert_int_equal(hw_tlb_init(&b, &g, S2M), 0);
	for (uint64_t page = 0; page < 8; page++) {
		struct hw_tlb_entry e = ent(page << S2M, S2M, 7, false, 0x100 + page);

		hw_tlb_insert_missed(&a, &e, NULL);
		hw_tlb_insert_missed(&b, &e, NULL);
	}
	for (uint64_t page = 1; page < 8; page += 3) {
		struct hw_tlb_sel sel = {
		    .by_va = true, .va = page << S2M, .asid_match = HW_ASID_EQ, .asid = 7};

		assert_non_null(hw_tlb_lookup(&a, (page << S2M) + 0x1234, 7));
		assert_non_null(hw_tlb_lookup(&b, (page << S2M) + 0x1234, 7));
		assert_int_equal(hw_tlb_invalidate_last_hit(&a), 1);
		assert_int_equal(hw_tlb_invalidate(&b, &sel), 1);
		assert_null(hw_tlb_lookup(&a, page << S2M, 7));
		assert_int_equal(a.nr_valid_all, b.nr_valid_all);
		assert_int_equal(a.nr_valid[0], b.nr_valid[0]);
		assert_int_equal(a.held, b.held);
		for (unsigned i = 0; i < 8; i++) {
			assert_int_equal(a.e[i].flags, b.e[i].flags);
			assert_int_equal(hw_tlb_fp_of(&a, i), hw_tlb_fp_of(&b, i));
		}
		for (unsigned set = 0; set < 2; set++)
			assert_int_equal(a.set_valid[set], b.set_valid[set]);
	}
	hw_tlb_fini(&a);
	hw_tlb_fini(&b);
}

/* ---- differential test against a naive model ---------------------------- */

/*
 * The model keeps a flat, unordered list of entries and scans all of it for
 * every operation; set-associativity is only "at most @ways valid entries
 * whose vpn & set_mask is the same set", and LRU is a stamp per entry.  It
 * knows nothing of ways, set arrays or by-va shortcuts.
 */
#define MODEL_MAX 128

struct model_entry {
	bool valid;
	bool global;
	uint64_t vpn;
	unsigned shift;
	uint16_t asid;
	uint64_t pfn;
	uint64_t stamp;
};

struct model {
	struct model_entry e[MODEL_MAX];
	unsigned cap, ways, set_mask;
	uint64_t tick;
	bool evict_mru; /* the planted bug */
};

static const unsigned model_shifts[] = {S4K, S2M};

static struct model_entry *model_lookup(struct model *m, uint64_t va, uint16_t asid)
{
	for (unsigned s = 0; s < 2; s++) {
		for (unsigned i = 0; i < m->cap; i++) {
			struct model_entry *x = &m->e[i];

			if (x->valid && x->shift == model_shifts[s] &&
			    x->vpn == va >> model_shifts[s] && (x->global || x->asid == asid)) {
				x->stamp = ++m->tick;
				return x;
			}
		}
	}
	return NULL;
}

/* Returns true and fills *victim when a valid entry is evicted. */
static bool model_insert(struct model *m, const struct model_entry *n, struct model_entry *victim)
{
	struct model_entry *slot = NULL, *old = NULL;
	unsigned in_set = 0;

	for (unsigned i = 0; i < m->cap; i++) {
		struct model_entry *x = &m->e[i];

		if (!x->valid) {
			slot = slot ? slot : x;
			continue;
		}
		if (x->vpn == n->vpn && x->shift == n->shift && x->global == n->global &&
		    (x->global || x->asid == n->asid)) {
			*x = *n;
			x->stamp = ++m->tick;
			return false;
		}
		if ((x->vpn & m->set_mask) != (n->vpn & m->set_mask))
			continue;
		in_set++;
		if (!old || (m->evict_mru ? x->stamp > old->stamp : x->stamp < old->stamp))
			old = x;
	}
	if (in_set < m->ways) {
		*slot = *n;
		slot->stamp = ++m->tick;
		return false;
	}
	*victim = *old;
	*old = *n;
	old->stamp = ++m->tick;
	return true;
}

static unsigned model_invalidate(struct model *m, const struct hw_tlb_sel *sel)
{
	unsigned n = 0;

	for (unsigned i = 0; i < m->cap; i++) {
		struct model_entry *x = &m->e[i];
		bool asid_ok = false;

		if (!x->valid)
			continue;
		switch (sel->asid_match) {
		case HW_ASID_ANY:
			asid_ok = true;
			break;
		case HW_ASID_NONGLOBAL:
			asid_ok = !x->global;
			break;
		case HW_ASID_EQ:
			asid_ok = !x->global && x->asid == sel->asid;
			break;
		case HW_ASID_EQ_OR_GLOBAL:
			asid_ok = x->global || x->asid == sel->asid;
			break;
		}
		if (asid_ok && (!sel->by_va || x->vpn == sel->va >> x->shift)) {
			x->valid = false;
			n++;
		}
	}
	return n;
}

/*
 * Whether a page is global depends only on the page, so the same page never
 * exists as both a global and a non-global entry.  Then at most one entry per
 * size matches a lookup, and the model need not know which way the real
 * structure would have found first.
 */
static bool page_is_global(uint64_t vpn, unsigned shift)
{
	return (vpn ^ shift) % 5 == 0;
}

struct diff_stats {
	unsigned mismatches, hits, evictions, removed;
};

/*
 * Replay @nr_ops random operations on a 4K|2M LRU structure of @entries /
 * @ways and on the model.  VAs: 4K pages in [0, 1 MiB) and 2M pages in
 * [0, 8 MiB), so that pages of both sizes overlap and sets fill up.
 */
static struct diff_stats run_diff(unsigned entries, unsigned ways, unsigned nr_ops, uint64_t seed,
				  bool evict_mru)
{
	struct hw_tlb t;
	struct model m = {
	    .cap = entries, .ways = ways, .set_mask = entries / ways - 1, .evict_mru = evict_mru};
	struct diff_stats st = {0};
	uint64_t rng = seed;

	assert_true(entries <= MODEL_MAX);
	init_ok(&t, entries, ways, TLBSIM_PS_4K | TLBSIM_PS_2M, TLBSIM_REPL_LRU, 0);
	for (unsigned op = 0; op < nr_ops; op++) {
		uint64_t r = hw_splitmix64(&rng);
		unsigned kind = (unsigned)(r % 100);
		uint16_t asid = (uint16_t)(1 + (r >> 8) % 3);
		uint64_t va = (r >> 16) & ((r >> 62) ? 0xfffff : 0x7fffff);

		if (kind < 55) {
			struct hw_tlb_entry *h = hw_tlb_lookup(&t, va, asid);
			struct model_entry *mh = model_lookup(&m, va, asid);

			if (!h != !mh || (h && h->pfn != mh->pfn))
				st.mismatches++;
			st.hits += h != NULL;
		} else if (kind < 92) {
			unsigned shift = (r >> 40) % 8 ? S4K : S2M;
			uint64_t vpn = va >> shift;
			bool global = page_is_global(vpn, shift);
			struct hw_tlb_entry e = ent(va, shift, asid, global, hw_splitmix64(&rng));
			struct model_entry me = {.valid = true,
						 .global = global,
						 .vpn = vpn,
						 .shift = shift,
						 .asid = asid,
						 .pfn = e.pfn};
			struct hw_tlb_entry v;
			struct model_entry mv;
			bool held = false, ev, mev;

			/* A translation the structure does not hold (its own
			 * entries say; the planted bug's model may not) goes in
			 * as the walker's fills do (hw_tlb_insert_missed()),
			 * half of the time. */
			for (unsigned i = 0; i < t.nr_sets * t.ways; i++)
				held |= (t.e[i].flags & HW_TLBE_VALID) && t.e[i].vpn == vpn &&
					t.e[i].size_shift == shift &&
					!!(t.e[i].flags & HW_TLBE_GLOBAL) == global &&
					(global || t.e[i].asid == asid);
			ev = !held && e.pfn >> 63 ? hw_tlb_insert_missed(&t, &e, &v)
						  : hw_tlb_insert(&t, &e, &v);
			mev = model_insert(&m, &me, &mv);

			if (ev != mev || (ev && (v.vpn != mv.vpn || v.size_shift != mv.shift ||
						 v.asid != mv.asid || v.pfn != mv.pfn)))
				st.mismatches++;
			st.evictions += ev;
		} else {
			struct hw_tlb_sel sel = {.by_va = kind < 98,
						 .va = va,
						 .asid_match = (enum hw_asid_match)((r >> 24) % 4),
						 .asid = asid};
			unsigned n = hw_tlb_invalidate(&t, &sel);

			if (n != model_invalidate(&m, &sel))
				st.mismatches++;
			st.removed += n;
		}
		if (op % 256 == 0) {
			unsigned mv = 0, by_size[2] = {0, 0};

			for (unsigned i = 0; i < m.cap; i++) {
				mv += m.e[i].valid;
				by_size[m.e[i].shift == S2M] += m.e[i].valid;
			}
			/* The structure's own counts by size (which let a
			 * lookup skip a size it holds none of) agree too. */
			if (mv != hw_tlb_nr_valid(&t) || mv != t.nr_valid_all ||
			    by_size[0] != t.nr_valid[0] || by_size[1] != t.nr_valid[1] ||
			    t.held != ((by_size[0] != 0) | (unsigned)(by_size[1] != 0) << 1))
				st.mismatches++;
			/* Each entry's fingerprint is its page number's while
			 * valid, 0 while not. */
			for (unsigned i = 0; i < t.nr_sets * t.ways; i++)
				st.mismatches +=
				    hw_tlb_fp_of(&t, i) !=
				    (t.e[i].flags & HW_TLBE_VALID ? hw_tlb_fp(&t, t.e[i].vpn) : 0);
		}
	}
	hw_tlb_fini(&t);
	return st;
}

static void differential_lru_matches_the_naive_model(void **state)
{
	/* 4-way 16 sets (an L1), fully associative, direct mapped, and
	 * fully associative with 128 ways (more than one 64-bit mask holds:
	 * hw_tlb_insert() and the lookup look at them 64 at a time); 12 ways
	 * (the x86 L2's), 16 and 17 ways on each side of the recency order's
	 * limit (a nibble a way up to 16, stamps above). */
	static const unsigned geoms[][2] = {{64, 4},  {16, 16}, {32, 1},
					    {128, 128}, {96, 12}, {34, 17}};

	for (unsigned g = 0; g < sizeof(geoms) / sizeof(geoms[0]); g++) {
		struct diff_stats st = run_diff(geoms[g][0], geoms[g][1], 200000, 2024, false);

		if (st.mismatches)
			fail_msg("%u/%u: %u mismatches", geoms[g][0], geoms[g][1], st.mismatches);
		/* The run must have exercised hits, evictions and invalidations
		 * (a 128-way set seldom fills between the by-ASID
		 * invalidations: 54 evictions in this run). */
		assert_true(st.hits > 1000);
		assert_true(st.evictions > (geoms[g][1] > 64 ? 20u : 1000u));
		assert_true(st.removed > 100);
	}
}

static void differential_test_catches_a_planted_mru_bug(void **state)
{
	/* A model evicting the most recently used way must disagree. */
	struct diff_stats st = run_diff(64, 4, 20000, 2024, true);

	assert_true(st.mismatches > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(lru_evicts_least_recently_used_way),
	    cmocka_unit_test(lru_refill_in_place_counts_as_use),
	    cmocka_unit_test(plru_4way_evicts_the_way_the_tree_points_to),
	    cmocka_unit_test(plru_8way_follows_three_level_tree),
	    cmocka_unit_test(random_victims_follow_splitmix64_seed_0),
	    cmocka_unit_test(invalid_way_is_taken_before_the_policy_victim),
	    cmocka_unit_test(strided_patterns_hit_and_miss_as_computed),
	    cmocka_unit_test(two_mib_entry_hits_for_any_va_inside_it),
	    cmocka_unit_test(four_k_and_two_mib_entries_coexist_smallest_first),
	    cmocka_unit_test(one_gib_entry_hits_in_a_three_size_tlb),
	    cmocka_unit_test(asid_tagged_entry_misses_for_another_asid),
	    cmocka_unit_test(global_entry_hits_for_any_asid),
	    cmocka_unit_test(insert_of_the_same_translation_overwrites_in_place),
	    cmocka_unit_test(invalidate_each_asid_mode_removes_the_selected_entries),
	    cmocka_unit_test(invalidate_by_va_removes_pages_covering_it),
	    cmocka_unit_test(pwc_holds_one_size_and_hits_inside_its_prefix),
	    cmocka_unit_test(zero_entries_give_an_empty_structure),
	    cmocka_unit_test(bad_geometry_is_rejected),
	    cmocka_unit_test(for_each_visits_every_valid_entry),
	    cmocka_unit_test(pages_of_one_fingerprint_are_told_apart),
	    cmocka_unit_test(invalidate_last_fill_is_the_by_va_invalidation),
	    cmocka_unit_test(invalidate_last_hit_is_the_by_va_invalidation),
	    cmocka_unit_test(differential_lru_matches_the_naive_model),
	    cmocka_unit_test(differential_test_catches_a_planted_mru_bug),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
