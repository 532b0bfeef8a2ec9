/* SPDX-License-Identifier: MIT */
/*
 * One core's MMU: TLB hierarchy, page-walk caches, the walker, and the local
 * TLB-maintenance instructions of x86-64 and arm64.
 *
 * Models:
 *  - lookup L1 (iTLB or dTLB) -> L2 -> walk; the walk starts below the
 *    deepest page-walk-cache hit and reads one descriptor per remaining
 *    level from simulated physical memory (Intel SDM vol. 3 4.10.3.2; Arm ARM
 *    D8.13 "intermediate caching of translation table walks");
 *  - not-present descriptors are never cached (SDM 4.10.2.3, 4.10.3.1;
 *    docs/hazard-rules.md rule 1);
 *  - a page larger than a TLB serves is splintered into the largest size it
 *    serves (as real L1 TLBs without 1G entries do);
 *  - a permission failure drops the entries for the page in the current
 *    context, as a page-fault does (SDM 4.10.4.1, last bullet);
 *  - a walk through a walk-cache entry whose table frame was freed since
 *    reads whatever the frame holds now: another table's descriptors, or,
 *    for a data or free frame, nothing we can decode (treated as
 *    not-present); both are counted as stale_table_reads, the hazard the
 *    oracle reports.
 *
 * Invalidation semantics per instruction are in the table-driven helpers at
 * the end of the file; each cites its source.
 */
#include <stdlib.h>
#include <string.h>

#include "hw/mmu_internal.h"
#include "hw/observe.h"
#include "hw/physmem.h"
#include "hw/pte.h"
#include "hw/tlb.h"
#include "tlbsim/error.h"
#include "tlbsim/event.h"
#include "tlbsim/mmu.h"

struct tlbsim_mmu {
	const struct tlbsim_machine *m;
	tlbsim_physmem *pm;
	enum tlbsim_isa isa;
	unsigned levels;
	struct hw_tlb l1i, l1d, l2;
	/* By enum tlbsim_access: the L1 TLB it looks up and the count of its
	 * hits, so the hit path chooses them without a branch (loads and
	 * stores mix unpredictably in most traces). */
	struct hw_tlb *l1_of[3];
	uint64_t *l1_hits_of[3], *l1_misses_of[3];
	/* pwc[k] caches level-k table entries; [0] is never used. */
	struct hw_tlb pwc[TLBSIM_MAX_PT_LEVELS];
	/* Highest latency among the walk caches: the cost of a lookup that
	 * misses in all of them (they are probed in parallel). */
	unsigned pwc_miss_latency;
	/* The machine's pte_latency_cycles, here for the walk's loop. */
	unsigned pte_latency[TLBSIM_MAX_PT_LEVELS];
	bool has_ctx;
	uint64_t root_pfn;
	uint16_t asid;
	unsigned cpu_id;
	struct hw_ghosts ghosts; /* what invalidations removed from l1i, l1d, l2 */
	/* hw_mmu_prefetch()'s start, a hint: the last level-1 table a walk
	 * read, the root it walked from and the region of 2^hw_level_shift(2)
	 * bytes the table maps (va >> that shift). */
	const struct hw_table_page *pf_table;
	uint64_t pf_root;
	uint64_t pf_region;
	/* A fault's VA, whose entries it dropped (@missed: until the next
	 * translate()): no TLB or walk cache holds one for @missed_va and
	 * @missed_asid, and only a translate() fills them, so the retry of
	 * the access misses in every one (missed_walk()). */
	bool missed;
	uint16_t missed_asid;
	uint64_t missed_va;
	struct tlbsim_mmu_stats st;
};

/* An entry an observer (the hazard oracle) poisoned is used: tell it (rare,
 * never inlined into the hit path). */
static __attribute__((noinline)) void poisoned_use(tlbsim_mmu *mmu, const struct hw_tlb_entry *e,
						   uint64_t va, bool walk_cache)
{
	HW_OBSERVE(hw_physmem_observer(mmu->pm), poisoned_use_local, mmu->cpu_id, e, va,
		   walk_cache);
}

_Static_assert(TLBSIM_PROT_READ == 1u << TLBSIM_ACCESS_LOAD &&
		       TLBSIM_PROT_WRITE == 1u << TLBSIM_ACCESS_STORE &&
		       TLBSIM_PROT_EXEC == 1u << TLBSIM_ACCESS_FETCH,
	       "prot_needed() shifts by the access");

_Static_assert(TLBSIM_EV_STORE - TLBSIM_EV_LOAD == TLBSIM_ACCESS_STORE &&
		       TLBSIM_EV_FETCH - TLBSIM_EV_LOAD == TLBSIM_ACCESS_FETCH,
	       "tlbsim_event_access() subtracts TLBSIM_EV_LOAD");

/* The permission an access needs: read, write or execute, without a branch. */
static unsigned prot_needed(enum tlbsim_access access)
{
	return 1u << access;
}

static bool is_permitted(unsigned prot, enum tlbsim_access access)
{
	unsigned need = prot_needed(access);

	return (prot & need) == need;
}

/* tlb_fill() of a leaf larger than @t's smallest size, or a splinter. */
static __attribute__((noinline)) void tlb_fill_large(struct hw_tlb *t,
						      const struct hw_tlb_entry *leaf, uint64_t va)
{
	struct hw_tlb_entry e = *leaf;
	/* The page the descriptor maps: an L2 splinter remembers it. */
	unsigned page_shift = leaf->leaf_shift > leaf->size_shift ? leaf->leaf_shift
								   : leaf->size_shift;

	for (int i = (int)t->nr_shifts - 1; i >= 0; i--) {
		unsigned s = t->shifts[i];

		if (s > leaf->size_shift)
			continue;
		e.size_shift = (uint8_t)s;
		e.leaf_shift = (uint8_t)(s < page_shift ? page_shift : 0);
		e.vpn = va >> s;
		/* First 4 KiB frame of the splinter inside the page. */
		e.pfn = leaf->pfn +
			(((va & ((1ull << leaf->size_shift) - 1)) >> s) << (s - TLBSIM_PAGE_SHIFT));
		hw_tlb_insert_missed(t, &e, NULL);
		return;
	}
}

/*
 * Insert the leaf translation @leaf (of its own page size) into @t,
 * splintered to the largest page size @t serves that is not larger; a TLB
 * that serves no such size keeps nothing.  A lookup of @va in the current
 * context has just missed in @t (hw_tlb_insert_missed()).
 */
static inline void tlb_fill(struct hw_tlb *t, const struct hw_tlb_entry *leaf, uint64_t va)
{
	if (!t->nr_sets)
		return;
	/* A leaf of @t's smallest size (a walk's leaf: no leaf_shift, vpn
	 * va >> size_shift) goes in as it is: tlb_fill_large() would find
	 * that size and make the same entry. */
	if (leaf->size_shift == t->shifts[0] && !leaf->leaf_shift)
		hw_tlb_insert_missed(t, leaf, NULL);
	else
		tlb_fill_large(t, leaf, va);
}

static void fill_result(struct tlbsim_xlate *out, const struct hw_tlb_entry *e, uint64_t va)
{
	out->pa = (e->pfn << TLBSIM_PAGE_SHIFT) + (va & ((1ull << e->size_shift) - 1));
	out->size_shift = e->size_shift;
	out->prot = e->prot;
	out->pte_version = e->version;
}

/* Drop what a page fault on @va drops: TLB and walk-cache entries used to
 * translate @va in the current context (SDM 4.10.4.1). */
static void fault_invalidate(tlbsim_mmu *mmu, uint64_t va)
{
	struct hw_tlb_sel sel = {.by_va = true, .va = va, .asid_match = HW_ASID_EQ_OR_GLOBAL,
				 .asid = mmu->asid};
	unsigned k;

	hw_tlb_invalidate(&mmu->l1i, &sel);
	hw_tlb_invalidate(&mmu->l1d, &sel);
	hw_tlb_invalidate(&mmu->l2, &sel);
	sel.asid_match = HW_ASID_EQ;
	for (k = 1; k < mmu->levels; k++)
		hw_tlb_invalidate(&mmu->pwc[k], &sel);
}

/* After a fault on @va: no structure holds an entry for it in this
 * context (see struct tlbsim_mmu). */
static void note_missed(tlbsim_mmu *mmu, uint64_t va)
{
	mmu->missed = true;
	mmu->missed_va = va;
	mmu->missed_asid = mmu->asid;
}

static int fault(tlbsim_mmu *mmu, uint64_t va)
{
	mmu->st.faults++;
	fault_invalidate(mmu, va);
	note_missed(mmu, va);
	return -TLBSIM_EFAULT;
}

/*
 * fault() of a walk that started at level @top and found no translation of
 * @va at level @lvl, or a leaf there that refuses @access (not cached yet):
 * the same entries go, but the invalidations that would remove none are
 * not made.  The L1 that @access looked up and the L2 missed @va in this
 * context, and so did the walk caches of levels 1 to @top (walk_start()
 * looked them up below its hit): none holds an entry for @va that a by-VA
 * invalidation would select, but for the splinters of a larger page
 * covering it, which no lookup of @va finds (looked for only while a
 * structure holds splinters), and for the entries the walk filled since,
 * at levels @lvl + 1 to @top, each the last fill of its cache.  The walk
 * cache of level @top + 1, if any, hit: the entry it found, its last hit,
 * is the only one for @va in this context (a walk fills one only after a
 * lookup of its page missed).  Above it, the entry for @va, if any, is
 * most often its cache's last fill, by the walk that mapped an earlier
 * page of the same table (hw_tlb_invalidate_one()).
 */
static inline __attribute__((always_inline)) int fault_after_walk(tlbsim_mmu *mmu, uint64_t va,
								  enum tlbsim_access access,
								  unsigned lvl, unsigned top)
{
	struct hw_tlb_sel sel = {
	    .by_va = true, .va = va, .asid_match = HW_ASID_EQ_OR_GLOBAL, .asid = mmu->asid};
	struct hw_tlb *l1 = mmu->l1_of[access];
	unsigned k;

	mmu->st.faults++;
	/* In fault_invalidate()'s order: the ghosts of what goes are kept
	 * in that order. */
	if (l1 != &mmu->l1i || l1->nr_splinters)
		hw_tlb_invalidate(&mmu->l1i, &sel);
	if (l1 != &mmu->l1d || l1->nr_splinters)
		hw_tlb_invalidate(&mmu->l1d, &sel);
	if (mmu->l2.nr_splinters)
		hw_tlb_invalidate(&mmu->l2, &sel);
	sel.asid_match = HW_ASID_EQ;
	for (k = lvl + 1; k < mmu->levels; k++) {
		if (k > top + 1)
			hw_tlb_invalidate_one(&mmu->pwc[k], &sel);
		else if (k == top + 1)
			hw_tlb_invalidate_last_hit(&mmu->pwc[k]);
		else if (mmu->pwc[k].nr_sets)
			hw_tlb_invalidate_last_fill(&mmu->pwc[k]);
	}
	/* The L1 looked up and the L2 missed, the other L1 and every walk
	 * cache dropped what they held for @va: none holds it now. */
	note_missed(mmu, va);
	return -TLBSIM_EFAULT;
}

/*
 * Find where the walk starts: the deepest walk-cache hit.  Returns the level
 * of the table to read first and sets *table_pfn; *pwc_level receives the
 * level that hit, 0 for none.
 */
static inline __attribute__((always_inline)) unsigned
walk_start(tlbsim_mmu *mmu, uint64_t va, uint64_t *table_pfn, unsigned *pwc_level, unsigned *cycles)
{
	unsigned k;

	for (k = 1; k < mmu->levels; k++) {
		struct hw_tlb_entry *e;

		if (!mmu->pwc[k].nr_sets)
			continue;
		e = hw_tlb_lookup(&mmu->pwc[k], va, mmu->asid);
		if (!e) {
			mmu->st.pwc_misses[k]++;
			continue;
		}
		mmu->st.pwc_hits[k]++;
		if (__builtin_expect(e->flags & HW_TLBE_POISON, 0))
			poisoned_use(mmu, e, va, true);
		*cycles += mmu->pwc[k].latency_cycles;
		*pwc_level = k;
		*table_pfn = e->pfn;
		/* The frame was freed (and maybe reused) since the entry was
		 * filled: the walk goes on through whatever it holds now. */
		if (!hw_physmem_is_table(mmu->pm, e->pfn, (uint32_t)e->version))
			mmu->st.stale_table_reads++;
		return k - 1;
	}
	*cycles += mmu->pwc_miss_latency;
	*pwc_level = 0;
	*table_pfn = mmu->root_pfn;
	return mmu->levels - 1;
}

/* walk_start() of a VA no walk cache holds (struct tlbsim_mmu @missed):
 * each lookup's miss counted, none made. */
static unsigned walk_start_missed(tlbsim_mmu *mmu, uint64_t *table_pfn, unsigned *pwc_level,
				  unsigned *cycles)
{
	for (unsigned k = 1; k < mmu->levels; k++)
		mmu->st.pwc_misses[k] += mmu->pwc[k].nr_sets != 0;
	*cycles += mmu->pwc_miss_latency;
	*pwc_level = 0;
	*table_pfn = mmu->root_pfn;
	return mmu->levels - 1;
}

/*
 * The end of a walk of @va at a leaf of frame @pfn and permissions @prot,
 * read at @lvl from descriptor version @version after @cycles: count it,
 * fill @out, and fill the TLBs; false, and nothing filled, when the leaf
 * refuses @access (the caller faults).
 */
static inline __attribute__((always_inline)) bool
walk_leaf(tlbsim_mmu *mmu, uint64_t va, enum tlbsim_access access, struct tlbsim_xlate *out,
	  unsigned lvl, uint64_t pfn, unsigned prot, uint64_t version, unsigned cycles)
{
	struct hw_tlb_entry e = {
	    .vpn = va >> hw_level_shift(lvl),
	    .pfn = pfn,
	    .version = version,
	    .asid = mmu->asid,
	    .size_shift = (uint8_t)hw_level_shift(lvl),
	    .flags = HW_TLBE_VALID,
	    .prot = (uint8_t)prot,
	};

	if (prot & TLBSIM_PROT_GLOBAL)
		e.flags |= HW_TLBE_GLOBAL;
	if (hw_ghosts_take(&mmu->ghosts, va, e.size_shift, e.asid)) {
		mmu->st.walks_after_flush++;
		mmu->st.walk_cycles_after_flush += cycles;
	}
	mmu->st.walk_cycles += cycles;
	mmu->st.pte_reads += out->pte_reads;
	out->cycles += cycles;
	fill_result(out, &e, va);
	if (!is_permitted(prot, access))
		return false;
	tlb_fill(&mmu->l2, &e, va);
	tlb_fill(mmu->l1_of[access], &e, va);
	return true;
}

/* A walk of @va; @missed: no walk cache holds it (walk_start_missed()). */
static inline __attribute__((always_inline)) int
walk(tlbsim_mmu *mmu, uint64_t va, enum tlbsim_access access, struct tlbsim_xlate *out, bool missed)
{
	unsigned cycles = 0, lvl, top;
	uint64_t table_pfn;

	mmu->st.walks++;
	out->src = TLBSIM_XLATE_WALK;
	lvl = top = missed ? walk_start_missed(mmu, &table_pfn, &out->pwc_level, &cycles)
			   : walk_start(mmu, va, &table_pfn, &out->pwc_level, &cycles);
	for (;;) {
		struct hw_table_page *t = hw_physmem_table(mmu->pm, table_pfn);
		unsigned idx = hw_pte_index(va, lvl);
		uint64_t next_pfn;

		cycles += mmu->pte_latency[lvl];
		if (!t)
			break; /* not a table frame (any more): nothing decodable */
		if (lvl == 1) {
			mmu->pf_table = t;
			mmu->pf_root = mmu->root_pfn;
			mmu->pf_region = va >> hw_level_shift(2);
		}
		if (!hw_pte_table(mmu->isa, lvl, t->raw[idx], &next_pfn)) {
			/* A leaf, or nothing (not present, or a descriptor
			 * that faults): a 4 KiB page without a call, and
			 * without a struct hw_pte to clear first. */
			uint64_t pfn;
			unsigned prot;

			if (lvl != 0 || !hw_pte_page(mmu->isa, t->raw[idx], &pfn, &prot)) {
				struct hw_pte d;

				hw_pte_decode(mmu->isa, lvl, t->raw[idx], &d);
				if (!d.present)
					break;
				pfn = d.pfn;
				prot = d.prot;
			}
			out->pte_reads = top + 1 - lvl; /* one a level, this one's too */
			if (walk_leaf(mmu, va, access, out, lvl, pfn, prot, t->version[idx],
				      cycles))
				return 0;
			goto fault; /* walk_leaf() counted the walk */
		}
		/* A table descriptor at lvl >= 1: cache it, descend (walk_start()
		 * looked it up in that cache and missed). */
		if (mmu->pwc[lvl].nr_sets) {
			struct hw_tlb_entry p = {
				.vpn = va >> hw_level_shift(lvl),
				.pfn = next_pfn,
				.version = tlbsim_physmem_generation(mmu->pm, next_pfn),
				.asid = mmu->asid,
				.size_shift = (uint8_t)hw_level_shift(lvl),
				.flags = HW_TLBE_VALID,
			};
			hw_tlb_insert_missed(&mmu->pwc[lvl], &p, NULL);
		}
		table_pfn = next_pfn;
		lvl--;
	}
	out->pte_reads = top + 1 - lvl;
	mmu->st.walk_cycles += cycles;
	mmu->st.pte_reads += out->pte_reads;
	out->cycles += cycles;
fault:
	return fault_after_walk(mmu, va, access, lvl, top);
}

/*
 * translate() of the VA of the fault just taken, in its context (struct
 * tlbsim_mmu @missed), as the access's retry after the fault is served:
 * the L1 and L2 lookups and the walk caches' would miss and change
 * nothing, so their misses are counted and the walk starts at the root.
 */
static __attribute__((noinline)) int
missed_walk(tlbsim_mmu *mmu, uint64_t va, enum tlbsim_access access, struct tlbsim_xlate *out)
{
	(*mmu->l1_misses_of[access])++;
	if (mmu->l2.nr_sets) {
		out->cycles += mmu->l2.latency_cycles;
		mmu->st.l2_misses++;
	}
	return walk(mmu, va, access, out, true);
}

/*
 * tlbsim_mmu_translate() but for its fast path: the lookup of @l1 on.
 * Inlined in translate() and translate_cycles(), with the walk.
 */
static inline __attribute__((always_inline)) int translate_in(tlbsim_mmu *mmu, struct hw_tlb *l1,
							      uint64_t va,
							      enum tlbsim_access access,
							      struct tlbsim_xlate *out)
{
	struct hw_tlb_entry *e;

	if (!mmu->has_ctx)
		return -TLBSIM_EINVAL;
	out->cycles = l1->latency_cycles;
	out->pwc_level = 0;
	out->pte_reads = 0;
	out->src = TLBSIM_XLATE_L1;
	if (__builtin_expect(mmu->missed, 0)) {
		/* Any translate() may fill: the mark holds until this one. */
		mmu->missed = false;
		if (va == mmu->missed_va && mmu->asid == mmu->missed_asid)
			return missed_walk(mmu, va, access, out);
	}
	/* The hit path tested the L1's last hit (last_hit(), hot_of()): it
	 * mostly does not answer, and the scan finds it when it does. */
	e = hw_tlb_lookup_scan(l1, va, mmu->asid);
	*mmu->l1_hits_of[access] += e != NULL;
	*mmu->l1_misses_of[access] += e == NULL;
	if (e) {
		if (__builtin_expect(e->flags & HW_TLBE_POISON, 0))
			poisoned_use(mmu, e, va, false);
		fill_result(out, e, va);
		return is_permitted(e->prot, access) ? 0 : fault(mmu, va);
	}
	if (mmu->l2.nr_sets) {
		out->cycles += mmu->l2.latency_cycles;
		e = hw_tlb_lookup(&mmu->l2, va, mmu->asid);
		if (e) {
			struct hw_tlb_entry hit = *e;

			mmu->st.l2_hits++;
			if (__builtin_expect(hit.flags & HW_TLBE_POISON, 0))
				poisoned_use(mmu, e, va, false);
			out->src = TLBSIM_XLATE_L2;
			fill_result(out, &hit, va);
			if (!is_permitted(hit.prot, access))
				return fault(mmu, va);
			tlb_fill(l1, &hit, va);
			return 0;
		}
		mmu->st.l2_misses++;
	}
	return walk(mmu, va, access, out, false);
}

/* translate_in() for tlbsim_mmu_translate(), which returns all of @out. */
static __attribute__((noinline)) int translate(tlbsim_mmu *mmu, struct hw_tlb *l1, uint64_t va,
					       enum tlbsim_access access, struct tlbsim_xlate *out)
{
	return translate_in(mmu, l1, va, access, out);
}

/*
 * translate_in() for hw_mmu_access(), which keeps of the result record
 * only its cycles and whether the access walked: the record is a local
 * that the compiler sees whole, so the stores of what no one reads (the
 * physical address, page size, permissions, version, walk-cache level)
 * go, about a dozen instructions an access that misses.
 */
static __attribute__((noinline)) int translate_cycles(tlbsim_mmu *mmu, struct hw_tlb *l1,
						      uint64_t va, enum tlbsim_access access,
						      unsigned *cycles, bool *walked)
{
	struct tlbsim_xlate x;
	int rc;

	x.cycles = 0;
	x.src = TLBSIM_XLATE_L1;
	rc = translate_in(mmu, l1, va, access, &x);
	*cycles = x.cycles;
	*walked = x.src == TLBSIM_XLATE_WALK;
	return rc;
}

/*
 * The hit path of nearly every access: the L1 TLB's last hit again
 * (hw_tlb_last_hit()), neither poisoned by the hazard oracle nor refusing
 * the access, is counted and returned as translate() would count and
 * return it, without its lookup, its scan or its out-of-line call.  NULL
 * for everything else, a poisoned entry included: translate() then finds
 * the same entry and tells the oracle (poisoned_use()) or faults.
 */
static inline const struct hw_tlb_entry *last_hit(tlbsim_mmu *mmu, struct hw_tlb *l1, uint64_t va,
						  enum tlbsim_access access)
{
	const struct hw_tlb_entry *e = hw_tlb_last_hit(l1, va, mmu->asid);

	if (__builtin_expect(!e || !mmu->has_ctx || (e->flags & HW_TLBE_POISON) ||
				 !is_permitted(e->prot, access),
			     0))
		return NULL;
	(*mmu->l1_hits_of[access])++;
	return e;
}

int tlbsim_mmu_translate(tlbsim_mmu *mmu, uint64_t va, enum tlbsim_access access,
			 struct tlbsim_xlate *out)
{
	struct hw_tlb *l1;
	const struct hw_tlb_entry *e;

	if ((unsigned)access > TLBSIM_ACCESS_FETCH)
		return -TLBSIM_EINVAL;
	l1 = mmu->l1_of[access];
	e = last_hit(mmu, l1, va, access);

	if (!e)
		return translate(mmu, l1, va, access, out);
	out->cycles = l1->latency_cycles;
	out->pwc_level = 0;
	out->pte_reads = 0;
	out->src = TLBSIM_XLATE_L1;
	fill_result(out, e, va);
	return 0;
}


/* hw_mmu_hot() of L1 @t, which serves fetches if @fetch. */
static inline void hot_of(const tlbsim_mmu *mmu, const struct hw_tlb *t, bool fetch,
			  struct hw_mmu_hot *h)
{
	const struct hw_tlb_entry *e = t->last_hit;

	h->vpn = t->last_vpn;
	h->shift = t->shifts[0];
	h->latency = t->latency_cycles;
	h->walked = false;
	/* last_hit()'s tests, but the page's, which the caller makes. */
	h->ok = 0;
	if (!e || !mmu->has_ctx || t->last_asid != mmu->asid || (e->flags & HW_TLBE_POISON))
		return;
	/* prot_needed(): the permission bits are the access bits. */
	h->ok = e->prot & (fetch ? TLBSIM_PROT_EXEC : TLBSIM_PROT_READ | TLBSIM_PROT_WRITE);
}

void hw_mmu_hot(const tlbsim_mmu *mmu, bool fetch, struct hw_mmu_hot *h)
{
	hot_of(mmu, mmu->l1_of[fetch ? TLBSIM_ACCESS_FETCH : TLBSIM_ACCESS_LOAD], fetch, h);
}

/*
 * No last_hit() first: the caller's hot state made its tests, and an access
 * it did not take is one last_hit() would not take either (another page,
 * a permission the entry lacks, no last hit, a poisoned entry).
 */
int hw_mmu_access(tlbsim_mmu *mmu, uint64_t va, enum tlbsim_access access, unsigned *cycles,
		  struct hw_mmu_hot *h)
{
	struct hw_tlb *l1 = mmu->l1_of[access];
	bool walked;
	int rc;

	rc = translate_cycles(mmu, l1, va, access, cycles, &walked);
	hot_of(mmu, l1, access == TLBSIM_ACCESS_FETCH, h);
	h->walked = walked;
	return rc;
}

void hw_mmu_prefetch(const tlbsim_mmu *mmu, uint64_t va)
{
	uint64_t pfn = mmu->root_pfn;
	unsigned lvl = mmu->levels - 1;
	const struct hw_table_page *t;

	if (!mmu->has_ctx)
		return;
	/*
	 * An access near one that walked maps, mostly, through the same
	 * level-1 table (a PD: 1 GiB of VAs) as the last walk: start there,
	 * not at the root, three descriptors and their frames' look-ups
	 * above it (most of the prefetch's instructions).  The table may
	 * have been freed since, its page now another table's
	 * (hw_physmem_table(): the page stays allocated): a useless
	 * prefetch, no more.
	 */
	if (mmu->pf_table && mmu->pf_root == pfn && mmu->pf_region == va >> hw_level_shift(2)) {
		lvl = 1;
		t = mmu->pf_table;
	} else {
		t = hw_physmem_table(mmu->pm, pfn);
	}
	for (;; lvl--) {
		const unsigned idx = hw_pte_index(va, lvl);

		if (!t)
			return;
		if (lvl == 0) {
			__builtin_prefetch(&t->raw[idx]);
			__builtin_prefetch(&t->version[idx]);
			return;
		}
		if (!hw_pte_table(mmu->isa, lvl, t->raw[idx], &pfn))
			return; /* not present, or a leaf */
		t = hw_physmem_table(mmu->pm, pfn);
	}
}

void hw_mmu_hot_hits(tlbsim_mmu *mmu, uint64_t data, uint64_t fetch)
{
	*mmu->l1_hits_of[TLBSIM_ACCESS_LOAD] += data;
	*mmu->l1_hits_of[TLBSIM_ACCESS_FETCH] += fetch;
}

/* ---- invalidation ---------------------------------------------------- */

/*
 * Apply @tlb_sel to every TLB level and @pwc_sel (NULL: keep the walk
 * caches) to every walk cache, and count kind @kind.
 */
static void invalidate(tlbsim_mmu *mmu, enum tlbsim_inval_kind kind, const struct hw_tlb_sel *tlb_sel,
		       const struct hw_tlb_sel *pwc_sel)
{
	unsigned k;

	mmu->st.inval[kind]++;
	if (tlb_sel) {
		mmu->st.tlb_entries_invalidated += hw_tlb_invalidate(&mmu->l1i, tlb_sel);
		mmu->st.tlb_entries_invalidated += hw_tlb_invalidate(&mmu->l1d, tlb_sel);
		mmu->st.tlb_entries_invalidated += hw_tlb_invalidate(&mmu->l2, tlb_sel);
	}
	if (pwc_sel)
		for (k = 1; k < mmu->levels; k++)
			mmu->st.pwc_entries_invalidated += hw_tlb_invalidate(&mmu->pwc[k], pwc_sel);
}

#define SEL_VA(v, match, a) ((struct hw_tlb_sel){.by_va = true, .va = (v), .asid_match = (match), .asid = (a)})
#define SEL_ALL(match, a) ((struct hw_tlb_sel){.by_va = false, .asid_match = (match), .asid = (a)})

int tlbsim_mmu_write_cr3(tlbsim_mmu *mmu, uint64_t root_pfn, uint16_t pcid, bool noflush)
{
	if (mmu->isa != TLBSIM_ISA_X86_64)
		return -TLBSIM_ENOTSUP;
	if (mmu->m->asid_bits < 16 && (pcid >> mmu->m->asid_bits) != 0)
		return -TLBSIM_ERANGE;
	mmu->root_pfn = root_pfn;
	mmu->asid = pcid;
	mmu->has_ctx = true;
	if (noflush) {
		/* SDM 4.10.4.1: with bit 63 set, nothing is required to be
		 * invalidated. */
		mmu->st.inval[TLBSIM_INVAL_CR3_NOFLUSH]++;
		return 0;
	}
	/* SDM 4.10.4.1: non-global TLB entries and all paging-structure-cache
	 * entries of the new PCID; other PCIDs and globals are kept. */
	invalidate(mmu, TLBSIM_INVAL_CR3_FLUSH, &SEL_ALL(HW_ASID_EQ, pcid), &SEL_ALL(HW_ASID_EQ, pcid));
	return 0;
}

int tlbsim_mmu_write_ttbr0(tlbsim_mmu *mmu, uint64_t root_pfn, uint16_t asid)
{
	if (mmu->isa != TLBSIM_ISA_ARM64)
		return -TLBSIM_ENOTSUP;
	if (mmu->m->asid_bits < 16 && (asid >> mmu->m->asid_bits) != 0)
		return -TLBSIM_ERANGE;
	/* Arm ARM D8.13 / docs/hazard-rules.md rule 9: a TTBR write invalidates
	 * nothing; old-ASID entries merely stop matching. */
	mmu->root_pfn = root_pfn;
	mmu->asid = asid;
	mmu->has_ctx = true;
	mmu->st.inval[TLBSIM_INVAL_TTBR0_WRITE]++;
	return 0;
}

int tlbsim_mmu_invlpg(tlbsim_mmu *mmu, uint64_t va)
{
	if (mmu->isa != TLBSIM_ISA_X86_64)
		return -TLBSIM_ENOTSUP;
	/* SDM 4.10.4.1 "INVLPG": TLB entries for the page in the current PCID
	 * and global ones for it in any PCID; and ALL paging-structure-cache
	 * entries of the current PCID, whatever their address. */
	invalidate(mmu, TLBSIM_INVAL_INVLPG, &SEL_VA(va, HW_ASID_EQ_OR_GLOBAL, mmu->asid),
		   &SEL_ALL(HW_ASID_EQ, mmu->asid));
	return 0;
}

int tlbsim_mmu_invpcid(tlbsim_mmu *mmu, unsigned type, uint16_t pcid, uint64_t va)
{
	if (mmu->isa != TLBSIM_ISA_X86_64)
		return -TLBSIM_ENOTSUP;
	/* SDM 4.10.4.1 "INVPCID" (docs/hazard-rules.md rule 16). */
	switch (type) {
	case 0: /* mappings of @pcid that would translate @va, globals kept */
		invalidate(mmu, TLBSIM_INVAL_INVPCID0, &SEL_VA(va, HW_ASID_EQ, pcid),
			   &SEL_VA(va, HW_ASID_EQ, pcid));
		return 0;
	case 1: /* every mapping of @pcid, globals kept */
		invalidate(mmu, TLBSIM_INVAL_INVPCID1, &SEL_ALL(HW_ASID_EQ, pcid),
			   &SEL_ALL(HW_ASID_EQ, pcid));
		return 0;
	case 2: /* everything, globals included */
		invalidate(mmu, TLBSIM_INVAL_INVPCID2, &SEL_ALL(HW_ASID_ANY, 0),
			   &SEL_ALL(HW_ASID_ANY, 0));
		return 0;
	case 3: /* everything but global translations */
		invalidate(mmu, TLBSIM_INVAL_INVPCID3, &SEL_ALL(HW_ASID_NONGLOBAL, 0),
			   &SEL_ALL(HW_ASID_ANY, 0));
		return 0;
	}
	return -TLBSIM_EINVAL;
}

void tlbsim_mmu_flush_all(tlbsim_mmu *mmu)
{
	/* x86 CR4.PGE toggle (SDM 4.10.4.1), arm64 TLBI VMALLE1. */
	invalidate(mmu, TLBSIM_INVAL_FLUSH_ALL, &SEL_ALL(HW_ASID_ANY, 0), &SEL_ALL(HW_ASID_ANY, 0));
}

int tlbsim_mmu_tlbi(tlbsim_mmu *mmu, enum tlbsim_tlbi_op op, uint64_t va, uint16_t asid)
{
	if (mmu->isa != TLBSIM_ISA_ARM64)
		return -TLBSIM_ENOTSUP;
	/*
	 * Arm system-register descriptions of TLBI (docs/hazard-rules.md rules 2-3):
	 * non-last-level forms remove entries from every level of the walk
	 * for that VA; the *ALE1 forms only final-level entries.  By-VA forms
	 * also hit global entries for the VA.
	 */
	switch (op) {
	case TLBSIM_TLBI_VAE1:
		invalidate(mmu, TLBSIM_INVAL_TLBI_VAE1, &SEL_VA(va, HW_ASID_EQ_OR_GLOBAL, asid),
			   &SEL_VA(va, HW_ASID_EQ_OR_GLOBAL, asid));
		return 0;
	case TLBSIM_TLBI_VALE1:
		invalidate(mmu, TLBSIM_INVAL_TLBI_VALE1, &SEL_VA(va, HW_ASID_EQ_OR_GLOBAL, asid), NULL);
		return 0;
	case TLBSIM_TLBI_VAAE1:
		invalidate(mmu, TLBSIM_INVAL_TLBI_VAAE1, &SEL_VA(va, HW_ASID_ANY, 0),
			   &SEL_VA(va, HW_ASID_ANY, 0));
		return 0;
	case TLBSIM_TLBI_VAALE1:
		invalidate(mmu, TLBSIM_INVAL_TLBI_VAALE1, &SEL_VA(va, HW_ASID_ANY, 0), NULL);
		return 0;
	case TLBSIM_TLBI_ASIDE1:
		invalidate(mmu, TLBSIM_INVAL_TLBI_ASIDE1, &SEL_ALL(HW_ASID_EQ, asid),
			   &SEL_ALL(HW_ASID_EQ, asid));
		return 0;
	case TLBSIM_TLBI_VMALLE1:
		invalidate(mmu, TLBSIM_INVAL_TLBI_VMALLE1, &SEL_ALL(HW_ASID_ANY, 0),
			   &SEL_ALL(HW_ASID_ANY, 0));
		return 0;
	/*
	 * One EL1&0 regime, no stage 2, one VMID: ALLE1 (every VMID) and
	 * VMALLS12E1 (stages 1 and 2 of the current VMID) leave nothing of it.
	 */
	case TLBSIM_TLBI_ALLE1:
		invalidate(mmu, TLBSIM_INVAL_TLBI_ALLE1, &SEL_ALL(HW_ASID_ANY, 0),
			   &SEL_ALL(HW_ASID_ANY, 0));
		return 0;
	case TLBSIM_TLBI_VMALLS12E1:
		invalidate(mmu, TLBSIM_INVAL_TLBI_VMALLS12E1, &SEL_ALL(HW_ASID_ANY, 0),
			   &SEL_ALL(HW_ASID_ANY, 0));
		return 0;
	/*
	 * docs/hazard-rules.md rule 11 (isla test 17): IPAS2E1IS removes stage-2-only
	 * entries; combined stage-1+2 entries, all this model keeps, survive.
	 */
	case TLBSIM_TLBI_IPAS2E1:
		invalidate(mmu, TLBSIM_INVAL_TLBI_IPAS2E1, NULL, NULL);
		return 0;
	case TLBSIM_TLBI_IPAS2LE1:
		invalidate(mmu, TLBSIM_INVAL_TLBI_IPAS2LE1, NULL, NULL);
		return 0;
	/* Arm ARM D8.13: EL2 and EL3 operations name other regimes than EL1&0. */
	case TLBSIM_TLBI_ALLE2:
	case TLBSIM_TLBI_VAE2:
	case TLBSIM_TLBI_VALE2:
		invalidate(mmu, TLBSIM_INVAL_TLBI_EL2, NULL, NULL);
		return 0;
	case TLBSIM_TLBI_ALLE3:
	case TLBSIM_TLBI_VAE3:
	case TLBSIM_TLBI_VALE3:
		invalidate(mmu, TLBSIM_INVAL_TLBI_EL3, NULL, NULL);
		return 0;
	default:
		return -TLBSIM_EINVAL;
	}
}

int tlbsim_mmu_tlbi_range(tlbsim_mmu *mmu, enum tlbsim_tlbi_range_op op, uint64_t va,
			  unsigned nr_pages, unsigned page_shift, uint16_t asid)
{
	static const enum tlbsim_inval_kind kinds[TLBSIM_TLBI_RANGE_NR_OPS] = {
	    TLBSIM_INVAL_TLBI_RVAE1, TLBSIM_INVAL_TLBI_RVALE1, TLBSIM_INVAL_TLBI_RVAAE1,
	    TLBSIM_INVAL_TLBI_RVAALE1};
	/* Arm ARM C5.5: the ...LE1 forms are last-level only; the ...AE1 ones every ASID. */
	bool last_level = op == TLBSIM_TLBI_RVALE1 || op == TLBSIM_TLBI_RVAALE1;
	bool all_asids = op == TLBSIM_TLBI_RVAAE1 || op == TLBSIM_TLBI_RVAALE1;
	enum hw_asid_match match = all_asids ? HW_ASID_ANY : HW_ASID_EQ_OR_GLOBAL;
	uint64_t len, off;

	if (mmu->isa != TLBSIM_ISA_ARM64)
		return -TLBSIM_ENOTSUP;
	if ((unsigned)op >= TLBSIM_TLBI_RANGE_NR_OPS || nr_pages == 0 ||
	    nr_pages > TLBSIM_TLBI_RANGE_MAX_PAGES ||
	    (page_shift != 12 && page_shift != 14 && page_shift != 16))
		return -TLBSIM_EINVAL;
	if (all_asids)
		asid = 0;
	/*
	 * Step by 4 KiB, the smallest page any TLB here holds, so that every
	 * entry overlapping the range is met whatever the granule; an entry
	 * of a larger page (or a walk-cache entry) is removed at the first
	 * address of the range it covers.
	 */
	len = (uint64_t)nr_pages << page_shift;
	for (off = 0; off < len; off += 1u << 12)
		invalidate(mmu, kinds[op], &SEL_VA(va + off, match, asid),
			   last_level ? NULL : &SEL_VA(va + off, match, asid));
	mmu->st.inval[kinds[op]] -= (len >> 12) - 1;
	return 0;
}

int tlbsim_mmu_invlpgb(tlbsim_mmu *mmu, uint64_t va, unsigned nr_pages, unsigned stride_shift,
		       uint16_t pcid, unsigned flags)
{
	bool by_pcid = flags & TLBSIM_INVLPGB_PCID, global = flags & TLBSIM_INVLPGB_INCLUDE_GLOBAL;
	enum hw_asid_match tlb_match = by_pcid ? (global ? HW_ASID_EQ_OR_GLOBAL : HW_ASID_EQ)
					       : (global ? HW_ASID_ANY : HW_ASID_NONGLOBAL);
	enum hw_asid_match pwc_match = by_pcid ? HW_ASID_EQ : HW_ASID_ANY;
	bool final_only = flags & TLBSIM_INVLPGB_FINAL_ONLY;
	unsigned i;

	if (mmu->isa != TLBSIM_ISA_X86_64)
		return -TLBSIM_ENOTSUP;
	if (!(flags & TLBSIM_INVLPGB_VA)) {
		invalidate(mmu, TLBSIM_INVAL_INVLPGB, &SEL_ALL(tlb_match, pcid),
			   final_only ? NULL : &SEL_ALL(pwc_match, pcid));
		return 0;
	}
	if (!nr_pages || (stride_shift != 12 && stride_shift != 21))
		return -TLBSIM_EINVAL;
	/* One INVLPGB is one instruction, however many pages it names. */
	for (i = 0; i < nr_pages; i++) {
		uint64_t a = va + ((uint64_t)i << stride_shift);

		invalidate(mmu, TLBSIM_INVAL_INVLPGB, &SEL_VA(a, tlb_match, pcid),
			   final_only ? NULL : &SEL_VA(a, pwc_match, pcid));
	}
	mmu->st.inval[TLBSIM_INVAL_INVLPGB] -= nr_pages - 1;
	return 0;
}

/* ---- life cycle ------------------------------------------------------ */

tlbsim_mmu *tlbsim_mmu_create(const struct tlbsim_machine *m, tlbsim_physmem *pm)
{
	tlbsim_mmu *mmu;
	unsigned k;

	if (!m || !pm || tlbsim_machine_validate(m, NULL))
		return NULL;
	mmu = calloc(1, sizeof(*mmu));
	if (!mmu)
		return NULL;
	mmu->m = m;
	mmu->pm = pm;
	mmu->isa = m->isa;
	mmu->levels = m->pt_levels;
	mmu->l1_of[TLBSIM_ACCESS_LOAD] = mmu->l1_of[TLBSIM_ACCESS_STORE] = &mmu->l1d;
	mmu->l1_of[TLBSIM_ACCESS_FETCH] = &mmu->l1i;
	mmu->l1_hits_of[TLBSIM_ACCESS_LOAD] = mmu->l1_hits_of[TLBSIM_ACCESS_STORE] = &mmu->st.l1d_hits;
	mmu->l1_hits_of[TLBSIM_ACCESS_FETCH] = &mmu->st.l1i_hits;
	mmu->l1_misses_of[TLBSIM_ACCESS_LOAD] = mmu->l1_misses_of[TLBSIM_ACCESS_STORE] =
	    &mmu->st.l1d_misses;
	mmu->l1_misses_of[TLBSIM_ACCESS_FETCH] = &mmu->st.l1i_misses;
	if (hw_tlb_init(&mmu->l1i, &m->l1i, 0) || hw_tlb_init(&mmu->l1d, &m->l1d, 0) ||
	    hw_tlb_init(&mmu->l2, &m->l2, 0) ||
	    hw_ghosts_init(&mmu->ghosts, m->l1i.entries + m->l1d.entries + m->l2.entries))
		goto fail;
	mmu->l1i.ghosts = mmu->l1d.ghosts = mmu->l2.ghosts = &mmu->ghosts;
	for (k = 1; k < mmu->levels; k++) {
		if (hw_tlb_init(&mmu->pwc[k], &m->pwc[k], hw_level_shift(k)))
			goto fail;
		if (m->pwc[k].entries && m->pwc[k].latency_cycles > mmu->pwc_miss_latency)
			mmu->pwc_miss_latency = m->pwc[k].latency_cycles;
	}
	for (k = 0; k < mmu->levels; k++)
		mmu->pte_latency[k] = m->pte_latency_cycles[k];
	return mmu;
fail:
	tlbsim_mmu_destroy(mmu);
	return NULL;
}

void tlbsim_mmu_destroy(tlbsim_mmu *mmu)
{
	unsigned k;

	if (!mmu)
		return;
	hw_tlb_fini(&mmu->l1i);
	hw_tlb_fini(&mmu->l1d);
	hw_tlb_fini(&mmu->l2);
	for (k = 0; k < TLBSIM_MAX_PT_LEVELS; k++)
		hw_tlb_fini(&mmu->pwc[k]);
	hw_ghosts_fini(&mmu->ghosts);
	free(mmu);
}

const struct tlbsim_mmu_stats *tlbsim_mmu_stats(const tlbsim_mmu *mmu)
{
	return &mmu->st;
}

/* ---- inspection (mmu_internal.h) ------------------------------------- */

void hw_mmu_set_cpu(tlbsim_mmu *mmu, unsigned id)
{
	mmu->cpu_id = id;
}

struct hw_tlb *hw_mmu_struct(tlbsim_mmu *mmu, enum hw_struct s)
{
	switch (s) {
	case HW_L1I:
		return &mmu->l1i;
	case HW_L1D:
		return &mmu->l1d;
	case HW_L2:
		return &mmu->l2;
	default:
		if (s >= HW_PWC1 && s < HW_NR_STRUCTS && (unsigned)(s - HW_PWC1 + 1) < mmu->levels)
			return &mmu->pwc[s - HW_PWC1 + 1];
		return NULL;
	}
}

static const struct hw_tlb *mmu_struct(const tlbsim_mmu *mmu, enum hw_struct s)
{
	return hw_mmu_struct((tlbsim_mmu *)mmu, s);
}

struct holds_arg {
	uint64_t va;
	uint16_t asid;
	bool found;
};

static void holds_cb(void *arg, const struct hw_tlb_entry *e)
{
	struct holds_arg *h = arg;

	if (e->vpn == h->va >> e->size_shift && ((e->flags & HW_TLBE_GLOBAL) || e->asid == h->asid))
		h->found = true;
}

bool hw_mmu_holds(const tlbsim_mmu *mmu, enum hw_struct s, uint64_t va, uint16_t asid)
{
	const struct hw_tlb *t = mmu_struct(mmu, s);
	struct holds_arg h = {.va = va, .asid = asid};

	if (!t)
		return false;
	hw_tlb_for_each(t, holds_cb, &h);
	return h.found;
}

struct for_each_arg {
	enum hw_struct s;
	void (*fn)(void *arg, enum hw_struct s, const struct hw_tlb_entry *e);
	void *arg;
};

static void for_each_cb(void *arg, const struct hw_tlb_entry *e)
{
	struct for_each_arg *a = arg;

	a->fn(a->arg, a->s, e);
}

void hw_mmu_for_each(const tlbsim_mmu *mmu,
		     void (*fn)(void *arg, enum hw_struct s, const struct hw_tlb_entry *e), void *arg)
{
	struct for_each_arg a = {.fn = fn, .arg = arg};

	for (a.s = HW_L1I; a.s < HW_NR_STRUCTS; a.s++) {
		const struct hw_tlb *t = mmu_struct(mmu, a.s);

		if (t)
			hw_tlb_for_each(t, for_each_cb, &a);
	}
}

bool hw_mmu_context(const tlbsim_mmu *mmu, uint64_t *root_pfn, uint16_t *asid)
{
	*root_pfn = mmu->root_pfn;
	*asid = mmu->asid;
	return mmu->has_ctx;
}
