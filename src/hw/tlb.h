/* SPDX-License-Identifier: MIT */
/*
 * A set-associative translation structure, used for every TLB level and for
 * every page-walk cache (a PWC at level k is a structure holding one "page
 * size", 2^(12+9k) bytes, whose payload is the next-level table's frame).
 *
 * Entries are tagged with an ASID/PCID and a global bit.  A structure may
 * serve several page sizes (e.g. an L1 dTLB with 4K, 2M and 1G entries): a
 * lookup probes the set indexed by the VA's page number for each size served,
 * smallest first.  Replacement: true LRU, tree pseudo-LRU, or random from a
 * seeded splitmix64 stream (Steele, Lea, Flood, OOPSLA 2014), so every run is
 * reproducible.
 *
 * Internal to src/hw.
 */
#ifndef TLBSIM_HW_TLB_H
#define TLBSIM_HW_TLB_H

#include <stdbool.h>
#include <stdint.h>

#include "tlbsim/machine.h"

enum hw_tlb_flags {
	HW_TLBE_VALID = 1u << 0,
	HW_TLBE_GLOBAL = 1u << 1,
	/* Set by the hazard oracle only (src/check): the translation is older
	 * than a committed change or a freed frame; its next use is reported.
	 * Nothing in the hardware model reads it. */
	HW_TLBE_POISON = 1u << 2,
};

/**
 * struct hw_tlb_entry - one cached translation or walk-cache entry
 * @vpn: virtual page number in units of the entry's size (va >> @size_shift)
 * @pfn: TLB: first 4 KiB frame of the page; PWC: frame of the next table
 * @version: TLB: version of the leaf descriptor it was filled from;
 *           PWC: allocation generation of the frame in @pfn at fill time
 * @asid: ASID/PCID tag (ignored for matching when HW_TLBE_GLOBAL)
 * @size_shift: log2 of the bytes covered: 12, 21, 30 (TLB), 21..48 (PWC)
 * @leaf_shift: TLB: log2 of the page the entry was filled from, when it
 *              is a splinter of a larger page (> @size_shift); else 0
 * @flags: HW_TLBE_*
 * @prot: TLBSIM_PROT_* of the leaf (TLB only)
 */
struct hw_tlb_entry {
	uint64_t vpn;
	uint64_t pfn;
	uint64_t version;
	uint16_t asid;
	uint8_t size_shift;
	uint8_t leaf_shift;
	uint8_t flags;
	uint8_t prot;
};

/*
 * Which entries an invalidation removes, as the manuals define them:
 *   HW_ASID_ANY           every ASID, global entries included
 *   HW_ASID_NONGLOBAL     every ASID, global entries kept
 *   HW_ASID_EQ            entries of @asid, global entries kept
 *   HW_ASID_EQ_OR_GLOBAL  entries of @asid and global entries
 */
enum hw_asid_match {
	HW_ASID_ANY,
	HW_ASID_NONGLOBAL,
	HW_ASID_EQ,
	HW_ASID_EQ_OR_GLOBAL,
};

/**
 * struct hw_tlb_sel - selector of an invalidation
 * @by_va: only entries whose page covers @va, and the splinters of every
 *         larger page that covers it (Intel SDM vol. 3 4.10.2.3 and
 *         4.10.4.1: INVLPG of any address in a page cached as several
 *         smaller entries invalidates all of them; arm64 the same, which
 *         Linux relies on: flush_pmd_tlb_range() issues one TLBI per
 *         block, stride PMD_SIZE)
 * @va: virtual address, bytes (with @by_va)
 * @asid_match: see enum hw_asid_match
 * @asid: ASID/PCID (with HW_ASID_EQ*)
 */
struct hw_tlb_sel {
	bool by_va;
	uint64_t va;
	enum hw_asid_match asid_match;
	uint16_t asid;
};

/**
 * struct hw_ghosts - translations that invalidations removed from an MMU's
 * TLBs, so that the walk bringing one back can be told from a capacity or
 * cold miss: the refill cost of a flush ("walks after flushes"; a TLB
 * coherence miss, as cache coherence misses are told apart)
 * @page: per slot, (leaf page number << 6 | leaf size shift) + 1; 0 empty
 * @asid: per slot, the entry's ASID/PCID
 * @mask: slots - 1 (a power of two)
 *
 * Direct-mapped: a removal overwrites what its slot held, so the count is
 * a lower bound (exact while fewer removed translations wait for a refill
 * than there are slots).
 */
struct hw_ghosts {
	uint64_t *page;
	uint16_t *asid;
	unsigned mask;
};

/* Room for @entries translations (twice as many slots); -TLBSIM_ENOMEM or 0. */
int hw_ghosts_init(struct hw_ghosts *g, unsigned entries);
void hw_ghosts_fini(struct hw_ghosts *g);

/* The slot of a leaf page key and ASID: Fibonacci hashing (Knuth TAOCP vol. 3, 6.4). */
static inline unsigned hw_ghost_slot(const struct hw_ghosts *g, uint64_t key, uint16_t asid)
{
	return (unsigned)(((key ^ (uint64_t)asid << 48) * UINT64_C(0x9e3779b97f4a7c15)) >> 32) &
	       g->mask;
}

/*
 * Was the translation of the page of 2^@shift bytes at @va for @asid removed
 * since its last fill?  Forgets it either way.  Inline: every walk asks.
 */
static inline bool hw_ghosts_take(struct hw_ghosts *g, uint64_t va, unsigned shift, uint16_t asid)
{
	uint64_t key = ((va >> shift) << 6 | shift) + 1;
	unsigned i = hw_ghost_slot(g, key, asid);

	if (g->page[i] != key || g->asid[i] != asid)
		return false;
	g->page[i] = 0;
	return true;
}

/**
 * struct hw_tlb - a set-associative structure
 * @nr_sets: sets (power of two)
 * @ways: entries per set
 * @set_mask: @nr_sets - 1
 * @page_sizes: TLBSIM_PS_* served (TLB), or 0 for a PWC of @pwc_shift
 * @shifts: the size shifts probed, smallest first; @nr_shifts of them
 * @repl: replacement policy
 * @latency_cycles: hit latency
 * @e: @nr_sets * @ways entries, set-major
 * @fp: per set, @fp_words words of one-byte fingerprints, a byte a way
 *      (way w in bits 8 * (w % 8) of word w / 8; bytes past @ways are 0):
 *      hw_tlb_fp() of the entry's @vpn while valid, 0 while not: what a
 *      lookup compares first (tlb.c fp_match())
 * @fp_words: words of @fp per set, @ways / 8 rounded up
 * @fp_shift: log2(@nr_sets): the fingerprint is the 7 page-number bits
 *      above the set index
 * @order: LRU of up to 16 ways: per set, its ways in order of use, a
 *         nibble each, the last used in bits 0-3 (nibbles past the ways
 *         0); else NULL
 * @stamp: LRU of more than 16 ways: per entry, the tick of its last use;
 *         else NULL
 * @plru: PLRU: per set, the tree bits (ways - 1 bits used); then, for each
 *        way, the mask of its path's nodes and the value pointing them away
 *        from it (2 * @ways words), so a hit updates the tree without a loop
 * @tick: LRU clock (with @stamp)
 * @rng: splitmix64 state for RANDOM
 * @asid_seen: a bit per ASID that may have non-global entries here
 * @asid_last: an ASID whose @asid_seen bit is set, or HW_ASID_NONE: the
 *             last one a fill set (any clearing forgets it)
 */
struct hw_tlb {
	unsigned nr_sets;
	unsigned ways;
	unsigned set_mask;
	unsigned page_sizes;
	uint8_t shifts[3];
	unsigned nr_shifts;
	enum tlbsim_repl repl;
	unsigned latency_cycles;
	struct hw_tlb_entry *e;
	uint64_t *fp;
	unsigned fp_words;
	unsigned fp_shift;
	uint64_t *order;
	uint64_t *stamp;
	uint64_t *plru;
	uint64_t tick;
	uint64_t rng;
	uint64_t *asid_seen;
	uint32_t asid_last;
	/* Valid entries that are splinters of a larger page (leaf_shift set):
	 * while there are none, a by-VA invalidation looks only in the sets
	 * the address indexes. */
	unsigned nr_splinters;
	/* Valid entries of each size, by index into @shifts, and in all: a
	 * lookup or invalidation skips a size none of whose entries is
	 * held (a 4 KiB-only workload probes one set of an L1 serving
	 * three sizes, not three). */
	unsigned nr_valid[3];
	unsigned nr_valid_all;
	/* Bit i set while nr_valid[i] is not 0: the sizes a lookup probes. */
	unsigned held;
	/* Valid entries of each set: hw_tlb_insert_missed() takes a full
	 * set's victim without looking for an invalid way. */
	uint32_t *set_valid;
	/* The last lookup's hit, and that lookup's smallest-size page
	 * (va >> shifts[0]) and ASID; NULL once an insert or an
	 * invalidation may have changed what a lookup finds.  See
	 * hw_tlb_lookup(). */
	struct hw_tlb_entry *last_hit;
	uint64_t last_vpn;
	uint16_t last_asid;
	/* Index (set * ways + way) of the entry the last insert filled:
	 * see hw_tlb_invalidate_last_fill(). */
	unsigned last_fill;
	/* Where invalidations note the translations they remove (the MMU's,
	 * for its TLBs), or NULL (walk caches). */
	struct hw_ghosts *ghosts;
};

/*
 * The fingerprint of page number @vpn in @t: bit 7 set (an invalid way's
 * byte is 0, which no fingerprint equals) and the 7 bits of @vpn above
 * the set index, which tell apart the pages one set holds but for one in
 * 128 (a false match costs a look at the entry, no more).
 */
static inline unsigned hw_tlb_fp(const struct hw_tlb *t, uint64_t vpn)
{
	return 0x80u | (unsigned)((vpn >> t->fp_shift) & 0x7fu);
}

/* The fingerprint byte held for entry @idx (= set * ways + way) of @t. */
static inline unsigned hw_tlb_fp_of(const struct hw_tlb *t, unsigned idx)
{
	unsigned set = idx / t->ways, way = idx % t->ways;

	return (unsigned)(t->fp[(size_t)set * t->fp_words + way / 8] >> (8 * (way % 8))) & 0xffu;
}

/* Words of the @asid_seen bitmap: 2^16 ASIDs. */
#define HW_ASID_WORDS (65536 / 64)
/* No ASID (@asid_last): above every 16-bit one. */
#define HW_ASID_NONE UINT32_MAX

/*
 * Set up @t from @geom.  @pwc_shift is 0 for a TLB (sizes from
 * @geom->page_sizes), or the single size shift of a page-walk cache.
 * Returns 0, -TLBSIM_EINVAL for a bad geometry, or -TLBSIM_ENOMEM.
 * A geometry with 0 entries gives an empty structure whose lookups miss.
 */
int hw_tlb_init(struct hw_tlb *t, const struct tlbsim_cache_geom *geom, unsigned pwc_shift);
/* Bytes hw_tlb_init() allocates for @geom: what a machine's size costs. */
uint64_t hw_tlb_bytes(const struct tlbsim_cache_geom *geom);
void hw_tlb_fini(struct hw_tlb *t);

/*
 * hw_tlb_lookup() without its test of the last hit first: the scan of the
 * sets, which finds the last hit too when it answers, and leaves the same
 * replacement state (see tlb.c).  For a caller that knows the last hit
 * does not answer, as the MMU's L1 lookup after its hit path's tests.
 */
struct hw_tlb_entry *hw_tlb_lookup_scan(struct hw_tlb *t, uint64_t va, uint16_t asid);

/*
 * hw_tlb_lookup()'s answer when it is its last hit again: the last lookup
 * hit, was for the same smallest-size page (va >> shifts[0]) and @asid,
 * and nothing was inserted or invalidated since.  Then hw_tlb_lookup()
 * would return the same entry and change no replacement state (see there),
 * so a caller may use it instead, as the MMU's hit path does; else NULL
 * (not a miss: call hw_tlb_lookup()).  The entry may carry HW_TLBE_POISON,
 * which the oracle sets in place.
 */
static inline struct hw_tlb_entry *hw_tlb_last_hit(const struct hw_tlb *t, uint64_t va,
						   uint16_t asid)
{
	if (t->last_hit && va >> t->shifts[0] == t->last_vpn && asid == t->last_asid)
		return t->last_hit;
	return NULL;
}

/*
 * Find a valid entry covering @va that matches @asid (or is global).  On a
 * hit, updates the replacement state and returns the entry; else NULL.
 * Inline: the last hit's test here, the scan (hw_tlb_lookup_scan()) out of
 * line, so that a walk cache's repeated hit (the page-directory-pointer
 * cache's in most walks) costs no call.
 */
static inline struct hw_tlb_entry *hw_tlb_lookup(struct hw_tlb *t, uint64_t va, uint16_t asid)
{
	struct hw_tlb_entry *last = hw_tlb_last_hit(t, va, asid);

	return last ? last : hw_tlb_lookup_scan(t, va, asid);
}

/*
 * Insert @e (its @vpn and @size_shift must be consistent; the size must be
 * served).  An existing entry for the same vpn/size/asid is overwritten;
 * else the replacement policy picks the victim among the set's ways (an
 * invalid way first, lowest index).  If @victim is not NULL it receives the
 * evicted valid entry and the function returns true; returns false when no
 * valid entry was evicted.
 */
bool hw_tlb_insert(struct hw_tlb *t, const struct hw_tlb_entry *e, struct hw_tlb_entry *victim);

/*
 * The cases of hw_tlb_insert_missed() in set @set of @t (tlb.c), each out
 * of line with the values it needs: the first invalid way of a set that
 * has one; the last way of a full set's LRU order (@t->order); the way the
 * policy picks in a full set, its entry copied to @victim if not NULL
 * (returns true).  hw_tlb_check_missed() is the debug builds' check of the
 * precondition.
 */
void hw_tlb_fill_free(struct hw_tlb *t, unsigned set, const struct hw_tlb_entry *e);
void hw_tlb_fill_last(struct hw_tlb *t, unsigned set, const struct hw_tlb_entry *e);
bool hw_tlb_fill_picked(struct hw_tlb *t, unsigned set, const struct hw_tlb_entry *e,
			struct hw_tlb_entry *victim);
void hw_tlb_check_missed(const struct hw_tlb *t, const struct hw_tlb_entry *e);

/*
 * hw_tlb_insert() of an entry no valid entry of @t holds the translation
 * of (the same page, size and ASID, or both global), as when a lookup of
 * its page with its ASID has just missed and nothing was inserted since
 * (the walker's fills): the same way, victim and result, without looking
 * for a way that holds it.  Debug builds check the precondition.
 * Inline, so that the walker's fills (two or three an access in a
 * miss-heavy trace) go to their case without a call of their own.
 */
static inline bool hw_tlb_insert_missed(struct hw_tlb *t, const struct hw_tlb_entry *e,
					struct hw_tlb_entry *victim)
{
	unsigned set;

	t->last_hit = NULL;
	if (t->nr_sets == 0)
		return false;
#ifndef NDEBUG
	hw_tlb_check_missed(t, e);
#endif
	/* As hw_tlb_insert() without a way holding the translation: the
	 * first invalid way, unless the set is full. */
	set = (unsigned)(e->vpn & t->set_mask);
	if (t->set_valid[set] < t->ways) {
		hw_tlb_fill_free(t, set, e);
		return false;
	}
	if (t->order && !victim) {
		hw_tlb_fill_last(t, set, e);
		return true;
	}
	return hw_tlb_fill_picked(t, set, e, victim);
}

/* Invalidate every entry @sel selects; returns how many were valid and removed. */
unsigned hw_tlb_invalidate(struct hw_tlb *t, const struct hw_tlb_sel *sel);

/*
 * hw_tlb_invalidate() of @sel, which when it is by VA with HW_ASID_EQ, in
 * a structure of one page size without splinters (a walk cache), selects
 * one entry at most: no two valid entries have the same page, size and
 * ASID (hw_tlb_insert() overwrites the entry of its translation, and
 * hw_tlb_insert_missed() fills after a lookup of it missed).  When that
 * entry is the last fill, as when a walk filled it for an earlier page
 * of the same table and the next page faults, it goes without a scan of
 * its set: the same result.  Returns how many entries were removed.
 */
unsigned hw_tlb_invalidate_one(struct hw_tlb *t, const struct hw_tlb_sel *sel);

/*
 * hw_tlb_invalidate() of a selector that selects the entry the last insert
 * filled and no other, which is still valid, as when a walk fills a walk
 * cache after a lookup of the same page and ASID missed there, and then
 * faults (the entry goes, SDM 4.10.4.1): the same result, without looking
 * for it.  Returns 1.
 */
unsigned hw_tlb_invalidate_last_fill(struct hw_tlb *t);

/*
 * hw_tlb_invalidate() of a selector that selects the last lookup's hit
 * (still @last_hit: nothing inserted or invalidated since) and no other, as
 * when a walk that started below its walk-cache hit faults (the entry
 * goes, SDM 4.10.4.1; a walk cache holds one entry a page and ASID): the
 * same result, without looking for it.  Returns 1.
 */
unsigned hw_tlb_invalidate_last_hit(struct hw_tlb *t);

/* Call @fn on every valid entry (for the hazard oracle and for tests). */
void hw_tlb_for_each(const struct hw_tlb *t, void (*fn)(void *arg, const struct hw_tlb_entry *e),
		     void *arg);

/*
 * Set (@poison) or clear the HW_TLBE_POISON bit of every valid entry that
 * was filled from the descriptor write @version and covers some part of
 * the page [@va, @va + 2^@leaf_shift) (splinters of a large page
 * included); ASIDs are not compared, the version identifies the write.
 * Returns how many entries changed.  For the hazard oracle.
 */
unsigned hw_tlb_mark_version(struct hw_tlb *t, uint64_t va, unsigned leaf_shift, uint64_t version,
			     bool poison);

/* Number of valid entries. */
unsigned hw_tlb_nr_valid(const struct hw_tlb *t);

/* splitmix64: advance *state and return the next output (Steele et al. 2014). */
static inline uint64_t hw_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#endif /* TLBSIM_HW_TLB_H */
