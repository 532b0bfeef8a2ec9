/* SPDX-License-Identifier: MIT */
/*
 * Set-associative translation structure: every TLB level and every page-walk
 * cache (see tlb.h).  A TLB entry is tagged (vpn, size, ASID or global) as in
 * Intel SDM vol. 3 4.10.2 and the Arm ARM's TLB matching rules; a PWC is the
 * same structure serving one "page size" per level (SDM 4.10.3).
 *
 * Tuned for the hit path of an L1 TLB (a few dozen entries, 4-48 ways),
 * which runs once per simulated memory access, and for the misses of a
 * miss-heavy trace (an L1, the L2 and the walk caches looked up, two or
 * three of them filled, per access): a lookup computes the set index for
 * each served size held, compares the set's one-byte fingerprints eight
 * ways a word, looks at the entries whose fingerprint matches and, on a
 * hit, updates one LRU stamp or the set's PLRU word (an and-not and an or,
 * from a per-way table).  Counts of valid entries (per size, per set, in
 * all) let lookups skip sizes and inserts skip the search for a free way.
 *
 * Replacement conventions (tested in tests/hw/test_tlb.c):
 *   - an invalid way is always taken first, the lowest index, for every
 *     policy; the policy is consulted only for a full set;
 *   - LRU: the victim is the way used least recently.  A set of up to 16
 *     ways keeps its ways in order of use, a nibble each, the last used in
 *     bits 0-3: a use moves the way's nibble to the front, the victim is
 *     the last nibble.  A larger set keeps a stamp per way: each use
 *     stores ++tick in it, and the victim has the smallest;
 *   - tree PLRU: the set's ways - 1 tree bits sit in one uint64_t, heap
 *     numbered (node 1 is the root, node n has children 2n and 2n + 1, the
 *     leaf of way w is node ways + w; bit n of the word is node n).  A bit of
 *     0 sends the victim search left (towards lower ways), 1 right.  A use
 *     of way w sets every node on w's path to point away from w;
 *   - RANDOM: the victim is hw_splitmix64(&rng) % ways, the stream seeded
 *     with geom->seed; lookups and refills in place draw nothing.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "hw/tlb.h"
#include "tlbsim/error.h"

/* Log2 of the bytes of the pages a TLB may serve (4 KiB, 2 MiB, 1 GiB). */
#define SHIFT_4K 12
#define SHIFT_2M 21
#define SHIFT_1G 30
/* A PWC at level 1..4 holds "pages" of 2^(12 + 9 * level) bytes. */
#define PWC_SHIFT_MIN 21
#define PWC_SHIFT_MAX 48
/* The PLRU tree of a set lives in one uint64_t: ways - 1 <= 63 nodes. */
#define PLRU_MAX_WAYS 64
/* An LRU set of up to 16 ways keeps their order of use in one uint64_t, a
 * nibble a way; larger ones a stamp per way. */
#define ORDER_MAX_WAYS 16
/* Entries (32 bytes) are aligned to a cache line: a 4-way set spans exactly two. */
#define ENTRY_ALIGN_BYTES 64

static bool is_pow2(unsigned x)
{
	return x && !(x & (x - 1));
}

/*
 * The tree nodes on way @way's path, and the value that points each of them
 * away from @way.  The node k levels above the way's leaf is
 * (ways + way) >> k, and bit k - 1 of @way says whether the way lies right
 * (1) of it; the node gets the opposite.  Example, 4 ways, way 2 (leaf node
 * 6): node 3 gets bit 0 of 2 = 0 (way is left) so node 3 := 1; node 1 gets
 * bit 1 of 2 = 1 (way is right) so node 1 := 0.
 */
static void plru_path(unsigned ways, unsigned way, uint64_t *mask, uint64_t *value)
{
	unsigned leaf = ways + way;

	*mask = *value = 0;
	for (unsigned k = 1; (leaf >> k) != 0; k++) {
		unsigned node = leaf >> k;

		*mask |= 1ull << node;
		*value |= (uint64_t)(((way >> (k - 1)) & 1u) ^ 1u) << node;
	}
}

static unsigned plru_victim(uint64_t bits, unsigned ways)
{
	unsigned node = 1;
	while (node < ways)
		node = 2 * node + (unsigned)((bits >> node) & 1u);
	return node - ways;
}

/* ---- LRU of at most 16 ways: a recency order (struct hw_tlb @order) ---- */

/* One in every nibble, and the low 3 bits of every nibble. */
#define NIB_ONES UINT64_C(0x1111111111111111)
#define NIB_LOW3 UINT64_C(0x7777777777777777)

/* The identity order: way k in nibble k (the order before any use). */
static uint64_t order_init(unsigned ways)
{
	uint64_t o = 0;

	for (unsigned k = 0; k < ways; k++)
		o |= (uint64_t)k << (4 * k);
	return o;
}

/*
 * Move way @way to the front (nibble 0) of recency order @o, the ways that
 * were before it one nibble back.  Its nibble is found as the lowest zero
 * nibble of @o XOR @way in every nibble, exactly (Hacker's Delight 6-1, as
 * fp_zero_bytes() for bytes): @way is in one of the set's nibbles, and the
 * nibbles past the ways hold 0, above any way's own.
 */
static inline uint64_t order_touch(uint64_t o, unsigned way)
{
	const uint64_t x = o ^ (way * NIB_ONES);
	const uint64_t z = ~(((x & NIB_LOW3) + NIB_LOW3) | x | NIB_LOW3);
	const unsigned pos = (unsigned)__builtin_ctzll(z) & ~3u; /* 4 x its nibble */

	return (o & (~UINT64_C(0xf) << pos)) | (o & ((UINT64_C(1) << pos) - 1)) << 4 | way;
}

/* Record a use of way @way of set @set for the replacement policy. */
static inline void touch(struct hw_tlb *t, unsigned set, unsigned way)
{
	switch (t->repl) {
	case TLBSIM_REPL_LRU:
		if (t->order)
			t->order[set] = order_touch(t->order[set], way);
		else
			t->stamp[set * t->ways + way] = ++t->tick;
		break;
	case TLBSIM_REPL_PLRU: {
		/* Per-way path tables follow the per-set words (see hw_tlb_init). */
		const uint64_t *path = &t->plru[t->nr_sets + 2 * way];

		t->plru[set] = (t->plru[set] & ~path[0]) | path[1];
		break;
	}
	case TLBSIM_REPL_RANDOM:
		break;
	}
}

/* The way of full set @set that the policy evicts. */
static inline unsigned pick_victim(struct hw_tlb *t, unsigned set)
{
	/* LRU of up to 16 ways: the last of the order, the way whose stamp
	 * would be the smallest (a full set's ways were each filled, so each
	 * has a use, and no two uses share a stamp); fill() moves it to the
	 * front. */
	if (t->order)
		return (unsigned)(t->order[set] >> (4 * (t->ways - 1))) & 0xfu;
	switch (t->repl) {
	case TLBSIM_REPL_LRU: {
		const uint64_t *stamp = t->stamp + (size_t)set * t->ways;
		uint64_t min = stamp[0];
		unsigned best = 0;

		/* The smallest in a register: the first of equal ones, were
		 * there any. */
		for (unsigned w = 1; w < t->ways; w++) {
			if (stamp[w] < min) {
				min = stamp[w];
				best = w;
			}
		}
		return best;
	}
	case TLBSIM_REPL_PLRU:
		return plru_victim(t->plru[set], t->ways);
	case TLBSIM_REPL_RANDOM:
		return (unsigned)(hw_splitmix64(&t->rng) % t->ways);
	}
	return 0;
}

static bool serves_shift(const struct hw_tlb *t, unsigned shift)
{
	for (unsigned i = 0; i < t->nr_shifts; i++)
		if (t->shifts[i] == shift)
			return true;
	return false;
}

/*
 * Same translation slot: the same page, and either both global or both
 * non-global with the same ASID.  A global and a non-global entry for one
 * page are different translations (one is stale once the page's G/nG bit
 * changed) and may coexist; a lookup then returns the lower way.
 */
static bool same_key(const struct hw_tlb_entry *x, const struct hw_tlb_entry *e)
{
	bool xg = x->flags & HW_TLBE_GLOBAL, eg = e->flags & HW_TLBE_GLOBAL;

	if (x->vpn != e->vpn || x->size_shift != e->size_shift || xg != eg)
		return false;
	return xg || x->asid == e->asid;
}

/* ---- fingerprints (struct hw_tlb @fp) ---------------------------------- */

/* The low 7 bits of every byte. */
#define FP_LOW7 UINT64_C(0x7f7f7f7f7f7f7f7f)
/* One in every byte: a byte times this is the byte in all eight. */
#define FP_BYTES UINT64_C(0x0101010101010101)

/* Store fingerprint byte @v (0: invalid) for way @way of set @set. */
static inline void fp_store(struct hw_tlb *t, unsigned set, unsigned way, unsigned v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* Bits 8 * (way % 8) of word way / 8 are the set's byte @way. */
	((unsigned char *)(t->fp + (size_t)set * t->fp_words))[way] = (unsigned char)v;
#else
	uint64_t *w = &t->fp[(size_t)set * t->fp_words + way / 8];
	const unsigned sh = 8 * (way % 8);

	*w = (*w & ~(UINT64_C(0xff) << sh)) | (uint64_t)v << sh;
#endif
}

/*
 * Bit 7 of each byte of @x that is 0, exactly (no false positive from a
 * borrow: Hacker's Delight 6-1, "find first 0-byte"): the ways of a word
 * of fingerprints XORed with a fingerprint in every byte that hold it.
 */
static inline uint64_t fp_zero_bytes(uint64_t x)
{
	return ~(((x & FP_LOW7) + FP_LOW7) | x | FP_LOW7);
}

/* An entry filled from a page larger than itself (see tlb_fill()). */
static inline bool is_splinter(const struct hw_tlb_entry *x)
{
	return x->leaf_shift > x->size_shift;
}

/* The index into @t->shifts of size @shift, which @t serves. */
static inline unsigned shift_slot(const struct hw_tlb *t, unsigned shift)
{
	if (shift == t->shifts[0])
		return 0;
	return shift == t->shifts[1] || t->nr_shifts < 3 ? 1 : 2;
}

/* @held again from the counts of valid entries by size. */
static void held_update(struct hw_tlb *t)
{
	t->held = 0;
	for (unsigned i = 0; i < t->nr_shifts; i++)
		t->held |= (unsigned)(t->nr_valid[i] != 0) << i;
}

static void ghost_add(struct hw_ghosts *g, const struct hw_tlb_entry *x);

/* Remove the valid entry in way @way of set @set by an invalidation (its
 * translation is remembered among the ghosts, if the structure keeps
 * them); the counts follow. */
static inline void drop_at(struct hw_tlb *t, unsigned set, unsigned way)
{
	struct hw_tlb_entry *x = &t->e[set * t->ways + way];
	const unsigned slot = shift_slot(t, x->size_shift);

	if (t->ghosts)
		ghost_add(t->ghosts, x);
	if (!--t->nr_valid[slot])
		t->held &= ~(1u << slot);
	t->nr_valid_all--;
	t->set_valid[set]--;
	if (x->leaf_shift)
		t->nr_splinters -= is_splinter(x);
	fp_store(t, set, way, 0);
	x->flags = 0;
}

/* drop_at() of valid entry @x. */
static void drop(struct hw_tlb *t, struct hw_tlb_entry *x)
{
	const unsigned i = (unsigned)(x - t->e);

	drop_at(t, i / t->ways, i % t->ways);
}

static inline bool sel_matches_asid(const struct hw_tlb_sel *sel, const struct hw_tlb_entry *x)
{
	bool global = x->flags & HW_TLBE_GLOBAL;

	switch (sel->asid_match) {
	case HW_ASID_ANY:
		return true;
	case HW_ASID_NONGLOBAL:
		return !global;
	case HW_ASID_EQ:
		return !global && x->asid == sel->asid;
	case HW_ASID_EQ_OR_GLOBAL:
		return global || x->asid == sel->asid;
	}
	return false;
}

static int check_geom(const struct tlbsim_cache_geom *geom, unsigned pwc_shift)
{
	if (geom->ways == 0 || geom->entries % geom->ways != 0)
		return -TLBSIM_EINVAL;
	if (!is_pow2(geom->entries / geom->ways))
		return -TLBSIM_EINVAL;
	switch (geom->repl) {
	case TLBSIM_REPL_LRU:
	case TLBSIM_REPL_RANDOM:
		break;
	case TLBSIM_REPL_PLRU:
		if (!is_pow2(geom->ways) || geom->ways > PLRU_MAX_WAYS)
			return -TLBSIM_EINVAL;
		break;
	default:
		return -TLBSIM_EINVAL;
	}
	if (pwc_shift)
		return pwc_shift >= PWC_SHIFT_MIN && pwc_shift <= PWC_SHIFT_MAX ? 0
										: -TLBSIM_EINVAL;
	if (geom->page_sizes == 0 ||
	    (geom->page_sizes & ~(unsigned)(TLBSIM_PS_4K | TLBSIM_PS_2M | TLBSIM_PS_1G)))
		return -TLBSIM_EINVAL;
	return 0;
}

uint64_t hw_tlb_bytes(const struct tlbsim_cache_geom *geom)
{
	uint64_t n = geom->entries, bytes;

	if (n == 0)
		return 0;
	bytes = (n * sizeof(struct hw_tlb_entry) + ENTRY_ALIGN_BYTES - 1) / ENTRY_ALIGN_BYTES *
		ENTRY_ALIGN_BYTES;
	if (geom->repl == TLBSIM_REPL_LRU)
		bytes += (geom->ways <= ORDER_MAX_WAYS ? n / geom->ways : n) * sizeof(uint64_t);
	else if (geom->repl == TLBSIM_REPL_PLRU && geom->ways)
		bytes += (n / geom->ways + 2 * (uint64_t)geom->ways) * sizeof(uint64_t);
	if (geom->ways)
		bytes += (n / geom->ways * ((geom->ways + 7) / 8) * sizeof(uint64_t) +
			  ENTRY_ALIGN_BYTES - 1) /
			 ENTRY_ALIGN_BYTES * ENTRY_ALIGN_BYTES; /* fp */
	if (geom->ways)
		bytes += n / geom->ways * sizeof(uint32_t); /* set_valid */
	return bytes + HW_ASID_WORDS * sizeof(uint64_t);
}

int hw_tlb_init(struct hw_tlb *t, const struct tlbsim_cache_geom *geom, unsigned pwc_shift)
{
	unsigned n = geom->entries;
	int rc;

	memset(t, 0, sizeof(*t));
	t->repl = geom->repl;
	t->latency_cycles = geom->latency_cycles;
	t->rng = geom->seed;
	/* Absent structure: nr_shifts = 0 makes every lookup miss at no cost. */
	if (n == 0)
		return 0;
	rc = check_geom(geom, pwc_shift);
	if (rc)
		return rc;

	t->ways = geom->ways;
	t->nr_sets = n / geom->ways;
	t->set_mask = t->nr_sets - 1;
	if (pwc_shift) {
		t->shifts[t->nr_shifts++] = (uint8_t)pwc_shift;
	} else {
		t->page_sizes = geom->page_sizes;
		if (geom->page_sizes & TLBSIM_PS_4K)
			t->shifts[t->nr_shifts++] = SHIFT_4K;
		if (geom->page_sizes & TLBSIM_PS_2M)
			t->shifts[t->nr_shifts++] = SHIFT_2M;
		if (geom->page_sizes & TLBSIM_PS_1G)
			t->shifts[t->nr_shifts++] = SHIFT_1G;
	}

	size_t bytes = (size_t)n * sizeof(*t->e);
	bytes = (bytes + ENTRY_ALIGN_BYTES - 1) / ENTRY_ALIGN_BYTES * ENTRY_ALIGN_BYTES;
	t->e = aligned_alloc(ENTRY_ALIGN_BYTES, bytes);
	if (!t->e)
		goto nomem;
	memset(t->e, 0, bytes);
	t->fp_words = (t->ways + 7) / 8;
	while ((1u << t->fp_shift) < t->nr_sets)
		t->fp_shift++;
	bytes = (size_t)t->nr_sets * t->fp_words * sizeof(*t->fp);
	bytes = (bytes + ENTRY_ALIGN_BYTES - 1) / ENTRY_ALIGN_BYTES * ENTRY_ALIGN_BYTES;
	t->fp = aligned_alloc(ENTRY_ALIGN_BYTES, bytes);
	if (!t->fp)
		goto nomem;
	memset(t->fp, 0, bytes); /* every way invalid */
	if (t->repl == TLBSIM_REPL_LRU && t->ways <= ORDER_MAX_WAYS) {
		/*
		 * A 12-way set's victim is the last of its order, not the
		 * smallest of 12 stamps looked at one by one (the miss-heavy
		 * trace fills the 12-way L2 at every access).  A use moves a
		 * nibble, a dozen operations where a stamp takes three, but
		 * hits on an entry other than the last hit are rare.
		 */
		t->order = malloc((size_t)t->nr_sets * sizeof(*t->order));
		if (!t->order)
			goto nomem;
		for (unsigned set = 0; set < t->nr_sets; set++)
			t->order[set] = order_init(t->ways);
	} else if (t->repl == TLBSIM_REPL_LRU) {
		t->stamp = calloc(n, sizeof(*t->stamp));
		if (!t->stamp)
			goto nomem;
	} else if (t->repl == TLBSIM_REPL_PLRU) {
		/*
		 * One tree word per set, then for each way the mask and value
		 * of plru_path(), so that a hit updates the tree in two ALU
		 * operations instead of a loop over the levels.
		 */
		t->plru = calloc((size_t)t->nr_sets + 2 * (size_t)t->ways, sizeof(*t->plru));
		if (!t->plru)
			goto nomem;
		for (unsigned w = 0; w < t->ways; w++)
			plru_path(t->ways, w, &t->plru[t->nr_sets + 2 * w],
				  &t->plru[t->nr_sets + 2 * w + 1]);
	}
	t->set_valid = calloc(t->nr_sets, sizeof(*t->set_valid));
	if (!t->set_valid)
		goto nomem;
	/* One bit per possible ASID (16 bits): see hw_tlb_invalidate(). */
	t->asid_seen = calloc(HW_ASID_WORDS, sizeof(*t->asid_seen));
	if (!t->asid_seen)
		goto nomem;
	t->asid_last = HW_ASID_NONE;
	return 0;

nomem:
	hw_tlb_fini(t);
	return -TLBSIM_ENOMEM;
}

void hw_tlb_fini(struct hw_tlb *t)
{
	free(t->e);
	free(t->fp);
	free(t->stamp);
	free(t->order);
	free(t->plru);
	free(t->asid_seen);
	free(t->set_valid);
	memset(t, 0, sizeof(*t));
}

/* Does valid or invalid entry @x translate @vpn at 2^@shift bytes for @asid? */
static inline bool matches(const struct hw_tlb_entry *x, uint64_t vpn, unsigned shift,
			   uint16_t asid)
{
	return x->vpn == vpn && x->size_shift == shift && (x->flags & HW_TLBE_VALID) &&
	       (x->asid == asid || (x->flags & HW_TLBE_GLOBAL));
}

/*
 * The first of the ways of set @set that translates @vpn at page size
 * 1 << @shift for @asid (or globally), or @t->ways if none, given that
 * the ways before word @b of its fingerprints hold none and that @m is
 * what fp_zero_bytes() gives for word @b (maybe no match).  The ways'
 * fingerprints are compared first, eight a word, without a branch: which
 * way holds a page is as good as random, so a branch per way would be
 * mispredicted about once a lookup (perf annotate, the hit trace: two
 * thirds of hw_tlb_lookup()'s samples were on the way loop's branches);
 * and a set's fingerprints are one cache line (16 bytes for 12 ways), its
 * entries six (the miss-heavy trace's L2 lookups miss, and would wait for
 * them).  The ways whose fingerprint matches, lowest first, are then
 * checked in full, as a loop over the ways would; an invalid way's
 * fingerprint is 0 and matches none.
 */
static inline unsigned fp_match_from(const struct hw_tlb *t, unsigned set, unsigned b, uint64_t m,
				     uint64_t vpn, unsigned shift, uint16_t asid)
{
	const struct hw_tlb_entry *s = t->e + (size_t)set * t->ways;
	const uint64_t *fp = t->fp + (size_t)set * t->fp_words;
	const uint64_t pat = hw_tlb_fp(t, vpn) * FP_BYTES;

	for (;;) {
		for (; m; m &= m - 1) {
			const unsigned w = 8 * b + (unsigned)__builtin_ctzll(m) / 8;
			if (matches(&s[w], vpn, shift, asid))
				return w;
		}
		if (++b >= t->fp_words)
			return t->ways;
		m = fp_zero_bytes(fp[b] ^ pat);
	}
}

/* A lookup of @va for @asid hits way @w of set @set: the replacement
 * state follows, and the entry is the last hit. */
static inline struct hw_tlb_entry *hit_at(struct hw_tlb *t, uint64_t va, uint16_t asid,
					  unsigned set, unsigned w)
{
	struct hw_tlb_entry *x = &t->e[set * t->ways + w];

	touch(t, set, w);
	t->last_hit = x;
	t->last_vpn = va >> t->shifts[0];
	t->last_asid = asid;
	return x;
}

/* hw_tlb_lookup() of the sizes in @held (a bit per index into @t->shifts),
 * smallest first, each in full. */
static __attribute__((noinline)) struct hw_tlb_entry *lookup_sizes(struct hw_tlb *t, uint64_t va,
								   uint16_t asid, unsigned held)
{
	for (; held; held &= held - 1) {
		const unsigned shift = t->shifts[__builtin_ctz(held)];
		const uint64_t vpn = va >> shift;
		const unsigned set = (unsigned)(vpn & t->set_mask);
		const uint64_t m = fp_zero_bytes(t->fp[(size_t)set * t->fp_words] ^
						 hw_tlb_fp(t, vpn) * FP_BYTES);
		const unsigned w = fp_match_from(t, set, 0, m, vpn, shift, asid);

		if (w < t->ways)
			return hit_at(t, va, asid, set, w);
	}
	return NULL;
}

/* hw_tlb_lookup() from the fingerprint matches @m of word @b of the first
 * size in @held on (any of them may be none, as fp_match_from() takes them). */
static __attribute__((noinline)) struct hw_tlb_entry *lookup_rest(struct hw_tlb *t, uint64_t va,
								  uint16_t asid, unsigned held,
								  unsigned b, uint64_t m)
{
	const unsigned shift = t->shifts[__builtin_ctz(held)];
	const uint64_t vpn = va >> shift;
	const unsigned set = (unsigned)(vpn & t->set_mask);
	const unsigned w = fp_match_from(t, set, b, m, vpn, shift, asid);

	if (w < t->ways)
		return hit_at(t, va, asid, set, w);
	held &= held - 1;
	return held ? lookup_sizes(t, va, asid, held) : NULL;
}

/*
 * hw_tlb_lookup() from its first fingerprint match on: @m (not 0), of
 * word @b of the fingerprints of the first size in @held.  Out of line,
 * so that hw_tlb_lookup() keeps its few values in registers without a
 * frame; and the first match alone here, where it is the hit but for 1
 * in 128 ways (a false match) or a page of another ASID, which
 * lookup_rest() takes on.
 */
static __attribute__((noinline)) struct hw_tlb_entry *lookup_from(struct hw_tlb *t, uint64_t va,
								  uint16_t asid, unsigned held,
								  unsigned b, uint64_t m)
{
	const unsigned shift = t->shifts[__builtin_ctz(held)];
	const uint64_t vpn = va >> shift;
	const unsigned set = (unsigned)(vpn & t->set_mask);
	const unsigned w = 8 * b + (unsigned)__builtin_ctzll(m) / 8;

	if (matches(&t->e[set * t->ways + w], vpn, shift, asid))
		return hit_at(t, va, asid, set, w);
	return lookup_rest(t, va, asid, held, b, m & (m - 1));
}

/*
 * hw_tlb_lookup() (tlb.h) first tests the last hit.  Consecutive accesses
 * mostly touch one page.  Two lookups of the same smallest-size page and
 * ASID compute the same vpn at every size, so with no insert or
 * invalidation in between (both clear last_hit) the scan below finds the
 * same entry.  Its touch() is skipped: the entry is already the last one
 * touched (only lookups and inserts touch), and touching it again changes
 * no set's order (LRU: still the newest, its stamp still the set's
 * largest; PLRU: the same bits; RANDOM: none).  So the scan alone, after
 * a last hit that answers, leaves what the test would.
 */
struct hw_tlb_entry *hw_tlb_lookup_scan(struct hw_tlb *t, uint64_t va, uint16_t asid)
{
	const unsigned held = t->held;

	if (!held)
		return NULL;
	/*
	 * Only the sizes some entry has (@held: a 4 KiB-only workload probes
	 * one set of an L1 serving three sizes, not three).  The first one's
	 * set's fingerprints are looked at here, up to the first match,
	 * which lookup_from() takes from there: most lookups of a
	 * miss-heavy trace end at no fingerprint matching, here, without a
	 * call.  Further sizes are lookup_sizes()'s.
	 */
	const uint64_t vpn = va >> t->shifts[__builtin_ctz(held)];
	const uint64_t *const fp = t->fp + (size_t)(vpn & t->set_mask) * t->fp_words;
	const uint64_t *const end = fp + t->fp_words;
	const uint64_t pat = hw_tlb_fp(t, vpn) * FP_BYTES;
	const uint64_t *w = fp;

	/* By pointer, up to @end: fewer values live in the loop than with
	 * an index and a count of words. */
	do {
		const uint64_t m = fp_zero_bytes(*w ^ pat);

		if (m)
			return lookup_from(t, va, asid, t->held, (unsigned)(w - fp), m);
	} while (++w < end);
	return t->held & (t->held - 1) ? lookup_sizes(t, va, asid, t->held & (t->held - 1)) : NULL;
}

/* How the caller of fill() chose the way it fills. */
enum fill_way {
	FILL_FREE,   /* an invalid way */
	FILL_VICTIM, /* pick_victim()'s way of a full set */
	FILL_HELD,   /* the valid way holding the translation of @e */
};

/*
 * Put @e into way @way of set @set, replacing what it held.  Inlined in
 * each caller with @how a constant: the walker's fills (a way of one of
 * the first two kinds, about three an access in a miss-heavy trace) make
 * no test that the kind answers.
 */
static inline __attribute__((always_inline)) void fill(struct hw_tlb *t, unsigned set,
							unsigned way,
							const struct hw_tlb_entry *e,
							enum fill_way how)
{
	const unsigned idx = set * t->ways + way;
	struct hw_tlb_entry *x = &t->e[idx];
	/* What is needed of @e, read before the stores below (which the
	 * compiler must otherwise fear to change it). */
	const uint64_t vpn = e->vpn;
	const unsigned shift = e->size_shift, flags = e->flags | HW_TLBE_VALID;
	const uint16_t asid = e->asid;
	const bool splinter = is_splinter(e);

	/* count_valid() of the entry replaced, if valid, then of @e; but
	 * a valid entry replaced leaves the set's and the total count as
	 * they are, and its size's too if it is @e's (an eviction). */
	if (how != FILL_FREE) {
		if (x->size_shift != shift) {
			t->nr_valid[shift_slot(t, x->size_shift)]--;
			t->nr_valid[shift_slot(t, shift)]++;
			held_update(t);
		}
		if (x->leaf_shift)
			t->nr_splinters -= is_splinter(x);
	} else {
		const unsigned slot = shift_slot(t, shift);

		t->nr_valid[slot]++;
		t->held |= 1u << slot;
		t->nr_valid_all++;
		t->set_valid[set]++;
	}
	if (splinter)
		t->nr_splinters++;
	*x = *e;
	x->flags = (uint8_t)flags;
	fp_store(t, set, way, hw_tlb_fp(t, vpn));
	/* Fills are mostly of one ASID: its bit is set once. */
	if (!(flags & HW_TLBE_GLOBAL) && asid != t->asid_last) {
		t->asid_seen[asid / 64] |= 1ull << (asid % 64);
		t->asid_last = asid;
	}
	if (how == FILL_VICTIM && t->order) {
		/* order_touch() of the last way: the order moves back a
		 * nibble, and the victim, taken out of the last, comes first. */
		const unsigned last = 4 * (t->ways - 1);

		t->order[set] = (t->order[set] ^ (uint64_t)way << last) << 4 | way;
	} else {
		touch(t, set, way);
	}
	t->last_fill = idx;
}

bool hw_tlb_insert(struct hw_tlb *t, const struct hw_tlb_entry *e, struct hw_tlb_entry *victim)
{
	t->last_hit = NULL;
	if (t->nr_sets == 0)
		return false;
	assert(serves_shift(t, e->size_shift) && "hw_tlb_insert: entry size not served");
	if (!serves_shift(t, e->size_shift))
		return false;

	const unsigned set = (unsigned)(e->vpn & t->set_mask);
	const unsigned base = set * t->ways;
	unsigned way = t->ways; /* first invalid way, if any */

	for (unsigned w = 0; w < t->ways; w++) {
		struct hw_tlb_entry *x = &t->e[base + w];

		if (!(x->flags & HW_TLBE_VALID)) {
			if (way == t->ways)
				way = w;
		} else if (same_key(x, e)) {
			fill(t, set, w, e, FILL_HELD);
			return false;
		}
	}
	if (way < t->ways) {
		fill(t, set, way, e, FILL_FREE);
		return false;
	}
	way = pick_victim(t, set);
	if (victim)
		*victim = t->e[base + way];
	fill(t, set, way, e, FILL_VICTIM);
	return true;
}

/* fill() of the victim @way of full set @set. */
static __attribute__((noinline)) void fill_victim(struct hw_tlb *t, unsigned set,
						  unsigned way, const struct hw_tlb_entry *e)
{
	fill(t, set, way, e, FILL_VICTIM);
}

/*
 * fill_victim() of full set @set of an LRU order: what most fills of a
 * miss-heavy trace do (the 12-way L2's, the L1's), with the few values it
 * needs.  An entry of the same size as the victim's, neither a splinter,
 * changes no count: only the order, the entry, its fingerprint and the
 * ASID's bit; anything else is fill_victim()'s.
 */
void hw_tlb_fill_last(struct hw_tlb *t, unsigned set, const struct hw_tlb_entry *e)
{
	uint64_t *const order = &t->order[set];
	const unsigned last = 4 * (t->ways - 1);
	const uint64_t o = *order;
	const unsigned way = (unsigned)(o >> last) & 0xfu;
	const unsigned idx = set * t->ways + way;
	struct hw_tlb_entry *const x = &t->e[idx];

	if (__builtin_expect(x->size_shift != e->size_shift || x->leaf_shift || e->leaf_shift,
			     0)) {
		fill_victim(t, set, way, e);
		return;
	}
	*order = (o ^ (uint64_t)way << last) << 4 | way;
	t->last_fill = idx;
	if (!(e->flags & HW_TLBE_GLOBAL) && e->asid != t->asid_last) {
		t->asid_seen[e->asid / 64] |= 1ull << (e->asid % 64);
		t->asid_last = e->asid;
	}
	fp_store(t, set, way, hw_tlb_fp(t, e->vpn));
	*x = *e;
	x->flags |= HW_TLBE_VALID;
}

/* fill() of invalid way @way of set @set. */
static __attribute__((noinline)) void fill_free_at(struct hw_tlb *t, unsigned set, unsigned way,
						   const struct hw_tlb_entry *e)
{
	fill(t, set, way, e, FILL_FREE);
}

/*
 * fill() of the first invalid way of set @set, which has one.  An entry of
 * the smallest size, not a splinter, into an LRU order (a walk cache's
 * refill after a flush: a miss-heavy trace's INVLPGs empty the PDE cache,
 * and most of its fills then find a free way) is filled here, without
 * fill()'s look-up of the size's slot, test for a splinter and choice of
 * the policy, in few enough registers that the function saves none;
 * anything else by fill_free_at().
 */
void hw_tlb_fill_free(struct hw_tlb *t, unsigned set, const struct hw_tlb_entry *e)
{
	const uint64_t *fp = &t->fp[(size_t)set * t->fp_words];
	unsigned way = 0, idx;
	struct hw_tlb_entry *x;
	uint64_t m;

	/* Bit 7 is clear in an invalid way's byte only (bytes past the ways
	 * are 0 too, but an invalid way comes first). */
	while (!(m = ~fp[way / 8] & ~FP_LOW7))
		way += 8;
	way += (unsigned)__builtin_ctzll(m) / 8;
	if (__builtin_expect(!t->order || e->size_shift != t->shifts[0] || e->leaf_shift, 0)) {
		fill_free_at(t, set, way, e);
		return;
	}
	idx = set * t->ways + way;
	x = &t->e[idx];
	*x = *e;
	x->flags |= HW_TLBE_VALID;
	t->nr_valid[0]++;
	t->held |= 1u;
	t->nr_valid_all++;
	t->set_valid[set]++;
	fp_store(t, set, way, hw_tlb_fp(t, x->vpn));
	if (!(x->flags & HW_TLBE_GLOBAL) && x->asid != t->asid_last) {
		t->asid_seen[x->asid / 64] |= 1ull << (x->asid % 64);
		t->asid_last = x->asid;
	}
	t->order[set] = order_touch(t->order[set], way);
	t->last_fill = idx;
}

bool hw_tlb_fill_picked(struct hw_tlb *t, unsigned set, const struct hw_tlb_entry *e,
			struct hw_tlb_entry *victim)
{
	const unsigned way = pick_victim(t, set);

	if (victim)
		*victim = t->e[(size_t)set * t->ways + way];
	fill_victim(t, set, way, e);
	return true;
}

#ifndef NDEBUG
void hw_tlb_check_missed(const struct hw_tlb *t, const struct hw_tlb_entry *e)
{
	const struct hw_tlb_entry *s = &t->e[(size_t)(e->vpn & t->set_mask) * t->ways];

	assert(serves_shift(t, e->size_shift) && "hw_tlb_insert_missed: entry size not served");
	for (unsigned w = 0; w < t->ways; w++)
		assert(!((s[w].flags & HW_TLBE_VALID) && same_key(&s[w], e)) &&
		       "hw_tlb_insert_missed: the translation is held");
}
#endif

/* ---- removed translations (struct hw_ghosts) ------------------------------ */

int hw_ghosts_init(struct hw_ghosts *g, unsigned entries)
{
	unsigned n = 64;

	while (n < 2 * entries)
		n *= 2;
	g->page = calloc(n, sizeof(*g->page));
	g->asid = calloc(n, sizeof(*g->asid));
	g->mask = n - 1;
	if (!g->page || !g->asid) {
		hw_ghosts_fini(g);
		return -TLBSIM_ENOMEM;
	}
	return 0;
}

void hw_ghosts_fini(struct hw_ghosts *g)
{
	free(g->page);
	free(g->asid);
	g->page = NULL;
	g->asid = NULL;
}

static void ghost_add(struct hw_ghosts *g, const struct hw_tlb_entry *x)
{
	unsigned shift = x->leaf_shift ? x->leaf_shift : x->size_shift;
	uint64_t key = (((x->vpn << x->size_shift) >> shift) << 6 | shift) + 1;
	unsigned i = hw_ghost_slot(g, key, x->asid);

	g->page[i] = key;
	g->asid[i] = x->asid;
}

/*
 * Remove the entries of set @set whose ASID/global bit @sel selects, whose
 * page is of size 2^@shift and covers sel->va: the ways' fingerprints
 * compared first (as fp_match_from()), then the matching ones in full.
 */
static unsigned invalidate_in_set(struct hw_tlb *t, unsigned set, const struct hw_tlb_sel *sel,
				  unsigned shift)
{
	const uint64_t vpn = sel->va >> shift, pat = hw_tlb_fp(t, vpn) * FP_BYTES;
	const uint64_t *fp = t->fp + (size_t)set * t->fp_words;
	struct hw_tlb_entry *x = t->e + (size_t)set * t->ways;
	const unsigned words = t->fp_words;
	unsigned removed = 0;

	for (unsigned b = 0; b < words; b++) {
		for (uint64_t m = fp_zero_bytes(fp[b] ^ pat); m; m &= m - 1) {
			const unsigned w = 8 * b + (unsigned)__builtin_ctzll(m) / 8;
			const struct hw_tlb_entry *y = &x[w];

			if ((y->flags & HW_TLBE_VALID) && y->vpn == vpn && y->size_shift == shift &&
			    sel_matches_asid(sel, y)) {
				drop_at(t, set, w);
				removed++;
			}
		}
	}
	return removed;
}

/*
 * Remove every entry whose ASID/global bit @sel selects (not by VA).  Only
 * the valid ways are looked at, found by their fingerprints' bit 7, sets
 * with none skipped, and the set's and total counts updated once a set.
 * Entries go in index order (set by set, lowest way first), as a scan of
 * every entry would remove them: the ghosts are noted in that order.
 * @plain: @t keeps no ghosts and holds one size and no splinter (a walk
 * cache): nothing to note or count an entry at a time.  A constant, for
 * a loop without those tests (an INVLPG's scan of every walk cache).
 */
static inline __attribute__((always_inline)) unsigned
invalidate_all_as(struct hw_tlb *t, const struct hw_tlb_sel *sel, bool plain)
{
	/* sel_matches_asid() as two answers: for a global entry, and for
	 * a non-global one of another ASID than sel->asid. */
	const bool global_ok = sel->asid_match == HW_ASID_ANY ||
			       sel->asid_match == HW_ASID_EQ_OR_GLOBAL;
	const bool any_asid = sel->asid_match == HW_ASID_ANY ||
			      sel->asid_match == HW_ASID_NONGLOBAL;
	const uint16_t asid = sel->asid;
	const unsigned words = t->fp_words;
	struct hw_ghosts *const ghosts = plain ? NULL : t->ghosts;
	const bool one_size = plain || t->nr_shifts == 1;
	const bool splintered = !plain && t->nr_splinters != 0;
	unsigned removed = 0, splinters = 0, by_size[3] = {0, 0, 0};

	for (unsigned set = 0; set < t->nr_sets; set++) {
		struct hw_tlb_entry *s = t->e + (size_t)set * t->ways;
		uint64_t *fp = t->fp + (size_t)set * words;
		unsigned gone = 0;

		if (!t->set_valid[set])
			continue;
		for (unsigned b = 0; b < words; b++) {
			const uint64_t word = fp[b];
			uint64_t lanes = 0; /* bit 7 of each way removed */

			for (uint64_t m = word & ~FP_LOW7; m; m &= m - 1) {
				struct hw_tlb_entry *x = &s[8 * b + (unsigned)__builtin_ctzll(m) / 8];

				if (x->flags & HW_TLBE_GLOBAL ? !global_ok
							       : !any_asid && x->asid != asid)
					continue;
				if (ghosts)
					ghost_add(ghosts, x);
				if (!one_size)
					by_size[shift_slot(t, x->size_shift)]++;
				if (splintered)
					splinters += is_splinter(x);
				x->flags = 0;
				lanes |= m & -m;
				gone++;
			}
			if (lanes)
				fp[b] = word & ~((lanes >> 7) * 0xff);
		}
		t->set_valid[set] -= gone;
		removed += gone;
	}
	if (one_size)
		by_size[0] = removed;
	for (unsigned i = 0; i < 3; i++)
		t->nr_valid[i] -= by_size[i];
	held_update(t);
	t->nr_splinters -= splinters;
	t->nr_valid_all -= removed;
	return removed;
}

static unsigned invalidate_all(struct hw_tlb *t, const struct hw_tlb_sel *sel)
{
	if (!t->ghosts && t->nr_shifts == 1 && !t->nr_splinters)
		return invalidate_all_as(t, sel, true);
	return invalidate_all_as(t, sel, false);
}

/* hw_tlb_invalidate() not by VA: the ASID rule alone. */
static __attribute__((noinline)) unsigned invalidate_by_asid(struct hw_tlb *t,
							     const struct hw_tlb_sel *sel)
{
	/*
	 * A by-ASID invalidation (TLBI ASIDE1 on every cpu, for each
	 * broadcast) need not scan a structure that never held that ASID
	 * since its last full scan: @asid_seen keeps a bit per ASID, set by
	 * inserts, cleared by the scans that remove all of an ASID's
	 * non-global entries.  Exact, and it turns most remote ASID flushes
	 * into one bit test.
	 */
	const uint64_t bit = 1ull << (sel->asid % 64);
	unsigned removed;

	if (sel->asid_match == HW_ASID_EQ && !(t->asid_seen[sel->asid / 64] & bit))
		return 0;
	removed = invalidate_all(t, sel);
	if (sel->asid_match == HW_ASID_EQ) {
		t->asid_seen[sel->asid / 64] &= ~bit;
		t->asid_last = HW_ASID_NONE;
	} else if (sel->asid_match == HW_ASID_ANY || sel->asid_match == HW_ASID_NONGLOBAL) {
		memset(t->asid_seen, 0, HW_ASID_WORDS * sizeof(*t->asid_seen));
		t->asid_last = HW_ASID_NONE;
	}
	return removed;
}

/*
 * Splinters of a larger page covering sel->va sit in any set: look at all
 * of them (while some are held: 1 GiB pages through a TLB that serves
 * 2 MiB at most, the x86 models' L2).
 */
static __attribute__((noinline)) unsigned invalidate_splinters(struct hw_tlb *t,
							       const struct hw_tlb_sel *sel)
{
	unsigned removed = 0;

	for (unsigned i = 0; t->nr_splinters && i < t->nr_sets * t->ways; i++) {
		struct hw_tlb_entry *x = &t->e[i];

		if (!(x->flags & HW_TLBE_VALID) || !is_splinter(x) || !sel_matches_asid(sel, x) ||
		    (x->vpn << x->size_shift) >> x->leaf_shift != sel->va >> x->leaf_shift)
			continue;
		drop(t, x);
		removed++;
	}
	return removed;
}

unsigned hw_tlb_invalidate(struct hw_tlb *t, const struct hw_tlb_sel *sel)
{
	unsigned removed = 0;

	t->last_hit = NULL;
	if (t->nr_valid_all == 0)
		return 0; /* also when there are no sets */
	if (!sel->by_va)
		return invalidate_by_asid(t, sel);
	/* An entry of size s covering va can only sit in the set va >> s
	 * indexes; the sizes held, smallest first (a removal changes no
	 * other size's count). */
	for (unsigned held = t->held; held; held &= held - 1) {
		const unsigned shift = t->shifts[__builtin_ctz(held)];

		removed += invalidate_in_set(t, (unsigned)((sel->va >> shift) & t->set_mask), sel,
					     shift);
	}
	if (t->nr_splinters)
		removed += invalidate_splinters(t, sel);
	return removed;
}

unsigned hw_tlb_invalidate_one(struct hw_tlb *t, const struct hw_tlb_sel *sel)
{
	struct hw_tlb_entry *x;

	/* The last fill is looked at only while an entry is valid: the
	 * structure then has sets, and @last_fill is one of its ways. */
	if (!t->nr_valid_all || !sel->by_va || sel->asid_match != HW_ASID_EQ || t->nr_shifts != 1 ||
	    t->nr_splinters)
		return hw_tlb_invalidate(t, sel);
	x = &t->e[t->last_fill];
	if ((x->flags & (HW_TLBE_VALID | HW_TLBE_GLOBAL)) != HW_TLBE_VALID ||
	    x->asid != sel->asid || x->vpn != sel->va >> t->shifts[0])
		return hw_tlb_invalidate(t, sel);
	t->last_hit = NULL;
	drop(t, x);
	return 1;
}

unsigned hw_tlb_invalidate_last_fill(struct hw_tlb *t)
{
	assert(t->last_fill < t->nr_sets * t->ways && (t->e[t->last_fill].flags & HW_TLBE_VALID) &&
	       "hw_tlb_invalidate_last_fill: the entry is held");
	t->last_hit = NULL;
	drop(t, &t->e[t->last_fill]);
	return 1;
}

unsigned hw_tlb_invalidate_last_hit(struct hw_tlb *t)
{
	struct hw_tlb_entry *x = t->last_hit;

	assert(x && (x->flags & HW_TLBE_VALID) && "hw_tlb_invalidate_last_hit: a hit is held");
	t->last_hit = NULL;
	drop(t, x);
	return 1;
}

static unsigned mark_entry(struct hw_tlb_entry *x, uint64_t version, bool poison)
{
	if (!(x->flags & HW_TLBE_VALID) || x->version != version ||
	    !!(x->flags & HW_TLBE_POISON) == poison)
		return 0;
	x->flags ^= HW_TLBE_POISON;
	return 1;
}

unsigned hw_tlb_mark_version(struct hw_tlb *t, uint64_t va, unsigned leaf_shift, uint64_t version,
			     bool poison)
{
	unsigned changed = 0;

	if (!t->nr_sets)
		return 0;
	va &= ~((1ull << leaf_shift) - 1);
	for (unsigned i = 0; i < t->nr_shifts; i++) {
		unsigned shift = t->shifts[i];
		uint64_t n, v;

		if (shift > leaf_shift || !t->nr_valid[i])
			continue;
		n = 1ull << (leaf_shift - shift);
		if (n > (uint64_t)t->nr_sets) {
			/* More splinters than sets: every set, once. */
			for (v = 0; v < (uint64_t)t->nr_sets * t->ways; v++)
				if (t->e[v].size_shift == shift &&
				    t->e[v].vpn >> (leaf_shift - shift) == va >> leaf_shift)
					changed += mark_entry(&t->e[v], version, poison);
			continue;
		}
		for (v = 0; v < n; v++) {
			uint64_t vpn = (va >> shift) + v;
			struct hw_tlb_entry *s = t->e + (size_t)(vpn & t->set_mask) * t->ways;

			for (unsigned w = 0; w < t->ways; w++)
				if (s[w].vpn == vpn && s[w].size_shift == shift)
					changed += mark_entry(&s[w], version, poison);
		}
	}
	return changed;
}

void hw_tlb_for_each(const struct hw_tlb *t, void (*fn)(void *arg, const struct hw_tlb_entry *e),
		     void *arg)
{
	for (unsigned i = 0; i < t->nr_sets * t->ways; i++)
		if (t->e[i].flags & HW_TLBE_VALID)
			fn(arg, &t->e[i]);
}

unsigned hw_tlb_nr_valid(const struct hw_tlb *t)
{
	unsigned n = 0;

	for (unsigned i = 0; i < t->nr_sets * t->ways; i++)
		n += (t->e[i].flags & HW_TLBE_VALID) != 0;
	return n;
}
