/* SPDX-License-Identifier: MIT */
/*
 * One core's MMU: L1 iTLB, L1 dTLB, L2 TLB, page-walk caches per level, the
 * hardware walker, the current translation context (CR3+PCID or TTBR0+ASID)
 * and the local TLB-maintenance instructions with the invalidation semantics
 * the manuals define (summarised with sources in docs/hazard-rules.md):
 *
 *   x86: INVLPG, INVPCID types 0-3, MOV to CR3 with and without the PCID
 *        no-flush bit (bit 63), global pages, the full flush of a CR4.PGE
 *        toggle (Intel SDM vol. 3 4.10.4.1);
 *   arm64: TLBI VAE1, VALE1, VAAE1, VAALE1, ASIDE1, VMALLE1 and their IS
 *        forms, applied to this core only here (broadcast is the fabric's
 *        job), and the context switch by TTBR0_EL1 write (Arm ARM D8.13,
 *        D8.16; system-register descriptions of TLBI).
 *
 * Costs charged are cycles of this core.  Statistics are per MMU.
 */
#ifndef TLBSIM_MMU_H
#define TLBSIM_MMU_H

#include <stdbool.h>
#include <stdint.h>

#include "tlbsim/export.h"
#include "tlbsim/machine.h"
#include "tlbsim/pgtable.h"

#ifdef __cplusplus
extern "C" {
#endif

enum tlbsim_access {
	TLBSIM_ACCESS_LOAD = 0,
	TLBSIM_ACCESS_STORE = 1,
	TLBSIM_ACCESS_FETCH = 2,
};

/* Where a translation was found. */
enum tlbsim_xlate_src {
	TLBSIM_XLATE_L1 = 0,   /* L1 iTLB (fetch) or L1 dTLB (load, store) */
	TLBSIM_XLATE_L2 = 1,   /* second-level TLB */
	TLBSIM_XLATE_WALK = 2, /* page walk */
};

/**
 * struct tlbsim_xlate - the result of one translation
 * @pa: physical address, bytes
 * @size_shift: log2 of the page size: 12, 21 or 30
 * @prot: TLBSIM_PROT_* of the translation used
 * @pte_version: version of the leaf descriptor the translation came from
 * @cycles: core cycles charged: TLB hit latencies, PWC lookup latency and
 *          one descriptor read per level walked
 * @src: where it was found
 * @pwc_level: on a walk, the level of the deepest PWC hit (1..levels-1), or
 *             0 if no PWC hit (the walk started at the root)
 * @pte_reads: descriptors read from memory by the walk
 */
struct tlbsim_xlate {
	uint64_t pa;
	unsigned size_shift;
	unsigned prot;
	uint64_t pte_version;
	unsigned cycles;
	enum tlbsim_xlate_src src;
	unsigned pwc_level;
	unsigned pte_reads;
};

/* Invalidation kinds counted in struct tlbsim_mmu_stats.inval[]. */
#define TLBSIM_INVAL_KINDS(X)                                                                      \
	X(INVLPG, "invlpg")                                                                        \
	X(INVPCID0, "invpcid_addr")                                                                \
	X(INVPCID1, "invpcid_single")                                                              \
	X(INVPCID2, "invpcid_all_global")                                                          \
	X(INVPCID3, "invpcid_all")                                                                 \
	X(CR3_FLUSH, "cr3_flush")                                                                  \
	X(CR3_NOFLUSH, "cr3_noflush")                                                              \
	X(FLUSH_ALL, "flush_all")                                                                  \
	X(TLBI_VAE1, "tlbi_vae1")                                                                  \
	X(TLBI_VALE1, "tlbi_vale1")                                                                \
	X(TLBI_VAAE1, "tlbi_vaae1")                                                                \
	X(TLBI_VAALE1, "tlbi_vaale1")                                                              \
	X(TLBI_ASIDE1, "tlbi_aside1")                                                              \
	X(TLBI_VMALLE1, "tlbi_vmalle1")                                                            \
	X(TTBR0_WRITE, "ttbr0_write")                                                              \
	X(INVLPGB, "invlpgb")                                                                      \
	X(TLBI_ALLE1, "tlbi_alle1")                                                                \
	X(TLBI_VMALLS12E1, "tlbi_vmalls12e1")                                                      \
	X(TLBI_IPAS2E1, "tlbi_ipas2e1")                                                            \
	X(TLBI_IPAS2LE1, "tlbi_ipas2le1")                                                          \
	X(TLBI_EL2, "tlbi_el2")                                                                    \
	X(TLBI_EL3, "tlbi_el3")                                                                    \
	X(TLBI_RVAE1, "tlbi_rvae1")                                                                \
	X(TLBI_RVALE1, "tlbi_rvale1")                                                              \
	X(TLBI_RVAAE1, "tlbi_rvaae1")                                                              \
	X(TLBI_RVAALE1, "tlbi_rvaale1")

enum tlbsim_inval_kind {
#define TLBSIM_INVAL_ENUM(name, str) TLBSIM_INVAL_##name,
	TLBSIM_INVAL_KINDS(TLBSIM_INVAL_ENUM)
#undef TLBSIM_INVAL_ENUM
	TLBSIM_INVAL_NR
};

/**
 * struct tlbsim_mmu_stats - counters of one MMU, all monotonically growing
 * @l1i_hits/@l1i_misses: L1 iTLB lookups (fetches)
 * @l1d_hits/@l1d_misses: L1 dTLB lookups (loads and stores)
 * @l2_hits/@l2_misses: L2 TLB lookups (after an L1 miss)
 * @walks: page walks started
 * @walk_cycles: cycles spent in walks (PWC lookups + descriptor reads)
 * @pte_reads: descriptors read by walks
 * @pwc_hits/@pwc_misses: per level (index = level, 1..4), lookups of the
 *        walk caches; a walk probes the deepest level first and stops at
 *        its first hit
 * @faults: translations that faulted (not present or permission)
 * @stale_table_reads: walks that went through a PWC entry whose table frame
 *        was freed (and maybe reused) since the entry was filled
 * @inval: invalidation instructions executed, by enum tlbsim_inval_kind
 * @tlb_entries_invalidated: TLB entries (all levels) removed by them
 * @pwc_entries_invalidated: walk-cache entries removed by them
 * @walks_after_flush/@walk_cycles_after_flush: of @walks and @walk_cycles,
 *        the walks that filled again a translation an invalidation had
 *        removed from this MMU's TLBs since it was last filled (the refill
 *        cost of a flush: a TLB coherence miss, told apart from cold and
 *        capacity misses as cache coherence misses are, Hennessy &
 *        Patterson 5.3).  Counted through a direct-mapped table of
 *        2^k >= 2 * (L1i + L1d + L2 entries) removed translations, so a
 *        lower bound when more removed translations wait than it holds
 */
struct tlbsim_mmu_stats {
	uint64_t l1i_hits, l1i_misses;
	uint64_t l1d_hits, l1d_misses;
	uint64_t l2_hits, l2_misses;
	uint64_t walks;
	uint64_t walk_cycles;
	uint64_t pte_reads;
	uint64_t pwc_hits[TLBSIM_MAX_PT_LEVELS];
	uint64_t pwc_misses[TLBSIM_MAX_PT_LEVELS];
	uint64_t faults;
	uint64_t stale_table_reads;
	uint64_t inval[TLBSIM_INVAL_NR];
	uint64_t tlb_entries_invalidated;
	uint64_t pwc_entries_invalidated;
	uint64_t walks_after_flush;
	uint64_t walk_cycles_after_flush;
};

typedef struct tlbsim_mmu tlbsim_mmu;

/**
 * tlbsim_mmu_create() - one core's MMU, with empty TLBs and walk caches
 * @m: machine description (borrowed; must outlive the MMU)
 * @pm: physical memory holding the page tables (borrowed; must outlive it)
 *
 * The MMU starts with no translation context: load one with
 * tlbsim_mmu_write_cr3() or tlbsim_mmu_write_ttbr0() before translating.
 *
 * Returns: a new MMU owned by the caller, or NULL when out of memory or the
 * machine's geometry is invalid.
 */
TLBSIM_API TLBSIM_MUST_CHECK tlbsim_mmu *tlbsim_mmu_create(const struct tlbsim_machine *m,
							   tlbsim_physmem *pm);

/**
 * tlbsim_mmu_destroy() - release an MMU
 * @mmu: the MMU, or NULL (then nothing happens)
 */
TLBSIM_API void tlbsim_mmu_destroy(tlbsim_mmu *mmu);

/**
 * tlbsim_mmu_translate() - translate one access, filling TLBs on the way
 * @mmu: the MMU
 * @va: virtual address, bytes
 * @access: load, store or instruction fetch
 * @out: receives the translation and its cost; on a fault only @cycles,
 *       @src and @pte_reads are meaningful
 *
 * Lookup order: L1 (iTLB for fetches, dTLB otherwise), then L2, then a walk
 * from the deepest page-walk-cache hit, reading one descriptor per level at
 * that level's latency.  A walk fills the PWCs of every non-leaf level it
 * read, then L2 and L1 with the leaf.  Not-present descriptors are never
 * cached (Intel SDM vol. 3 4.10.2.3, 4.10.3.1; Arm ARM D8.13).  A permission
 * failure on a TLB hit drops the entries for that page in the current
 * context, as a page fault does (SDM 4.10.4.1), and faults.
 *
 * Returns: 0; -TLBSIM_EFAULT when the page is not mapped or @access is not
 * permitted; -TLBSIM_EINVAL when no context is loaded or @access is none of
 * the three.
 */
TLBSIM_API int tlbsim_mmu_translate(tlbsim_mmu *mmu, uint64_t va, enum tlbsim_access access,
				    struct tlbsim_xlate *out);

/**
 * tlbsim_mmu_write_cr3() - x86 MOV to CR3 with CR4.PCIDE=1
 * @mmu: an x86-64 MMU
 * @root_pfn: frame of the root table (PML4 or PML5)
 * @pcid: PCID, bits 11:0 (< 2^asid_bits; 0 when the machine has no PCIDs)
 * @noflush: bit 63 of the source operand
 *
 * Without @noflush, invalidates every non-global TLB entry and every walk
 * cache entry of @pcid; with @noflush, invalidates nothing (Intel SDM vol. 3
 * 4.10.4.1, "MOV to CR3").  Global entries always survive.
 *
 * Returns: 0, -TLBSIM_ENOTSUP on an arm64 MMU, -TLBSIM_ERANGE for a @pcid
 * beyond the machine's width.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_mmu_write_cr3(tlbsim_mmu *mmu, uint64_t root_pfn,
						      uint16_t pcid, bool noflush);

/**
 * tlbsim_mmu_write_ttbr0() - arm64 MSR TTBR0_EL1 (base and ASID) + ISB
 * @mmu: an arm64 MMU
 * @root_pfn: frame of the level-0 table
 * @asid: ASID (< 2^asid_bits)
 *
 * Invalidates nothing: entries of the old ASID stay, and become unreachable
 * until that ASID is loaded again (Arm ARM D8.13; docs/hazard-rules.md rule 9).
 * The context takes effect for the next translation (the ISB is implied).
 *
 * Returns: 0, -TLBSIM_ENOTSUP on an x86 MMU, -TLBSIM_ERANGE for a bad @asid.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_mmu_write_ttbr0(tlbsim_mmu *mmu, uint64_t root_pfn,
							uint16_t asid);

/**
 * tlbsim_mmu_invlpg() - x86 INVLPG m
 * @mmu: an x86-64 MMU
 * @va: virtual address, bytes
 *
 * Removes the TLB entries (any page size) that translate @va in the current
 * PCID, and global entries for @va in any PCID, and every walk-cache entry
 * of the current PCID whatever its address (Intel SDM vol. 3 4.10.4.1).
 *
 * Returns: 0, or -TLBSIM_ENOTSUP on an arm64 MMU.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_mmu_invlpg(tlbsim_mmu *mmu, uint64_t va);

/**
 * tlbsim_mmu_invpcid() - x86 INVPCID
 * @mmu: an x86-64 MMU
 * @type: 0 individual address, 1 single context, 2 all contexts including
 *        globals, 3 all contexts except globals
 * @pcid: PCID (types 0 and 1)
 * @va: virtual address, bytes (type 0)
 *
 * Type 0 removes the non-global TLB entries and the walk-cache entries of
 * @pcid that translate @va; type 1 every non-global entry of @pcid; type 2
 * everything; type 3 everything but global TLB entries (Intel SDM vol. 3
 * 4.10.4.1, "INVPCID"; vol. 2 INVPCID).
 *
 * Returns: 0, -TLBSIM_EINVAL for a type > 3, -TLBSIM_ENOTSUP on arm64.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_mmu_invpcid(tlbsim_mmu *mmu, unsigned type, uint16_t pcid,
						    uint64_t va);

/**
 * tlbsim_mmu_flush_all() - invalidate every TLB and walk-cache entry
 * @mmu: the MMU
 *
 * x86: a CR4.PGE toggle (Intel SDM vol. 3 4.10.4.1); arm64: TLBI VMALLE1.
 */
TLBSIM_API void tlbsim_mmu_flush_all(tlbsim_mmu *mmu);

/* arm64 TLBI operations (Arm ARM C5.5, TLBI instructions, EL1&0 regime). */
enum tlbsim_tlbi_op {
	TLBSIM_TLBI_VAE1 = 0,	/* by VA and ASID, all levels, globals for VA too */
	TLBSIM_TLBI_VALE1 = 1,	/* as VAE1, last level only: walk caches survive */
	TLBSIM_TLBI_VAAE1 = 2,	/* by VA, all ASIDs, all levels */
	TLBSIM_TLBI_VAALE1 = 3, /* by VA, all ASIDs, last level only */
	TLBSIM_TLBI_ASIDE1 = 4, /* by ASID, non-global entries, all levels */
	TLBSIM_TLBI_VMALLE1 = 5, /* everything of the EL1&0 regime */
	/*
	 * Decoded from real traces (Arm ARM C5.5 lists them); this model has
	 * one EL1&0 regime and no stage 2, so their effect on it is below.
	 */
	TLBSIM_TLBI_ALLE1 = 6,	    /* all of EL1&0, every VMID: as VMALLE1 here */
	TLBSIM_TLBI_VMALLS12E1 = 7, /* stage 1 and 2 of the current VMID: as VMALLE1 */
	TLBSIM_TLBI_IPAS2E1 = 8,    /* stage-2 entries of an IPA, all levels: nothing here */
	TLBSIM_TLBI_IPAS2LE1 = 9,   /* as IPAS2E1, last level: nothing here */
	TLBSIM_TLBI_ALLE2 = 10,	    /* the EL2 regime: nothing of EL1&0 */
	TLBSIM_TLBI_VAE2 = 11,	    /* EL2 by VA: nothing of EL1&0 */
	TLBSIM_TLBI_VALE2 = 12,	    /* EL2 by VA, last level: nothing of EL1&0 */
	TLBSIM_TLBI_ALLE3 = 13,	    /* the EL3 regime: nothing of EL1&0 */
	TLBSIM_TLBI_VAE3 = 14,	    /* EL3 by VA: nothing of EL1&0 */
	TLBSIM_TLBI_VALE3 = 15,	    /* EL3 by VA, last level: nothing of EL1&0 */
	TLBSIM_TLBI_NR_OPS
};

/* TLBI_RANGE: the FEAT_TLBIRANGE operations of the EL1&0 regime (Arm ARM C5.5). */
enum tlbsim_tlbi_range_op {
	TLBSIM_TLBI_RVAE1 = 0,	 /* range by VA and ASID, all levels */
	TLBSIM_TLBI_RVALE1 = 1,	 /* as RVAE1, last level only: walk caches survive */
	TLBSIM_TLBI_RVAAE1 = 2,	 /* range by VA, all ASIDs, all levels */
	TLBSIM_TLBI_RVAALE1 = 3, /* range by VA, all ASIDs, last level only */
	TLBSIM_TLBI_RANGE_NR_OPS
};

/*
 * Largest TLBI_RANGE page count: (NUM + 1) * 2^(5 * SCALE + 1) with NUM
 * 31 and SCALE 3 (Arm ARM C5.5, "TLBI RVAE1": NUM bits[43:39], SCALE
 * bits[45:44] of the register operand).
 */
#define TLBSIM_TLBI_RANGE_MAX_PAGES (32u << 16)


/**
 * tlbsim_mmu_tlbi() - arm64 TLBI, performed on this core
 * @mmu: an arm64 MMU
 * @op: the operation
 * @va: virtual address, bytes (VA forms)
 * @asid: ASID (VAE1, VALE1, ASIDE1)
 *
 * VAE1 removes entries of @asid and global entries that translate @va, at
 * every level of the walk; VALE1 only final-level (leaf) entries, so
 * walk-cache entries survive (docs/hazard-rules.md rule 2); VAAE1/VAALE1 likewise
 * for every ASID; ASIDE1 every non-global entry of @asid; VMALLE1 all.
 * The IS forms are the same operation on each receiving core: the fabric
 * calls this on every core of the shareability domain.
 *
 * The model has one EL1&0 translation regime and no stage 2, so: ALLE1
 * and VMALLS12E1 remove everything, as VMALLE1; IPAS2E1 and IPAS2LE1
 * remove nothing, since every entry here is a stage-1 (or combined
 * stage-1+2) entry and those survive a stage-2-only TLBI (docs/hazard-rules.md
 * rule 11, test 17); the EL2 and EL3 operations remove nothing of EL1&0
 * (they name other regimes, Arm ARM D8.13 "TLB maintenance").  Each is
 * counted in its own TLBSIM_INVAL_TLBI_* kind.
 *
 * Returns: 0, -TLBSIM_EINVAL for a bad @op, -TLBSIM_ENOTSUP on x86.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_mmu_tlbi(tlbsim_mmu *mmu, enum tlbsim_tlbi_op op,
						 uint64_t va, uint16_t asid);

/**
 * tlbsim_mmu_tlbi_range() - arm64 FEAT_TLBIRANGE TLBI, performed on this core
 * @mmu: an arm64 MMU
 * @op: the operation
 * @va: first virtual address of the range, bytes
 * @nr_pages: pages of @page_shift in the range, 1..TLBSIM_TLBI_RANGE_MAX_PAGES
 * @page_shift: log2 of the translation granule, bytes: 12, 14 or 16 (the
 *              TG field of the operand)
 * @asid: ASID (RVAE1, RVALE1)
 *
 * Removes, for every address of [@va, @va + @nr_pages << @page_shift),
 * what the by-VA TLBI of the same kind removes for one VA: RVAE1 as VAE1
 * (entries of @asid and global ones, every level: walk-cache entries in
 * the range go too), RVALE1 as VALE1 (last level: walk caches survive),
 * RVAAE1/RVAALE1 likewise for every ASID (Arm ARM C5.5, "TLBI RVAE1,
 * ..."; docs/hazard-rules.md rules 2-3).  A TLB entry of a larger page goes when
 * it overlaps the range.  One instruction counts once.
 *
 * Returns: 0, -TLBSIM_EINVAL for a bad @op, @nr_pages or @page_shift,
 * -TLBSIM_ENOTSUP on x86.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_mmu_tlbi_range(tlbsim_mmu *mmu,
						       enum tlbsim_tlbi_range_op op, uint64_t va,
						       unsigned nr_pages, unsigned page_shift,
						       uint16_t asid);

/* AMD INVLPGB selectors (rAX bits), as Linux arch/x86/include/asm/invlpgb.h. */
enum tlbsim_invlpgb_flags {
	TLBSIM_INVLPGB_VA = 1u << 0,		 /* rAX holds a valid VA */
	TLBSIM_INVLPGB_PCID = 1u << 1,		 /* only this PCID */
	TLBSIM_INVLPGB_ASID = 1u << 2,		 /* only this ASID (guests; unused here) */
	TLBSIM_INVLPGB_INCLUDE_GLOBAL = 1u << 3, /* global entries too */
	TLBSIM_INVLPGB_FINAL_ONLY = 1u << 4,	 /* leaves only: walk caches survive */
	TLBSIM_INVLPGB_INCLUDE_NESTED = 1u << 5, /* nested translations (unused here) */
};

/**
 * tlbsim_mmu_invlpgb() - perform one AMD INVLPGB on this core
 * @mmu: an x86-64 MMU
 * @va: first virtual address, bytes (with TLBSIM_INVLPGB_VA)
 * @nr_pages: pages to invalidate from @va, 1.. (with TLBSIM_INVLPGB_VA)
 * @stride_shift: log2 of the distance between the pages: 12 or 21
 * @pcid: PCID (with TLBSIM_INVLPGB_PCID)
 * @flags: TLBSIM_INVLPGB_* selectors
 *
 * Removes, for each page (or for all addresses without the VA flag), the
 * TLB entries of @pcid (or of every PCID without the PCID flag), global
 * ones only with INCLUDE_GLOBAL, and, unless FINAL_ONLY, the walk-cache
 * entries on the way (AMD APM vol. 3 INVLPGB, as used by Linux
 * arch/x86/include/asm/invlpgb.h; docs/hazard-rules.md rule 20).  The broadcast to
 * every core and TLBSYNC are the interconnect's: this is one core's part.
 *
 * Returns: 0, -TLBSIM_EINVAL for nr_pages == 0 with the VA flag,
 * -TLBSIM_ENOTSUP on arm64.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_mmu_invlpgb(tlbsim_mmu *mmu, uint64_t va, unsigned nr_pages,
						    unsigned stride_shift, uint16_t pcid,
						    unsigned flags);

/**
 * tlbsim_mmu_stats() - the MMU's counters
 * @mmu: the MMU (borrowed)
 *
 * Returns: a pointer into @mmu, valid until it is destroyed.
 */
TLBSIM_API const struct tlbsim_mmu_stats *tlbsim_mmu_stats(const tlbsim_mmu *mmu);

/**
 * tlbsim_mmu_stats_json() - the counters as a JSON object text
 * @stats: counters (borrowed)
 *
 * Keys: "l1i", "l1d", "l2" ({"hits","misses"}), "walks", "walk_cycles",
 * "pte_reads", "pwc" (per level: {"level","hits","misses"}), "faults",
 * "stale_table_reads", "invalidations" (by the names in
 * TLBSIM_INVAL_KINDS), "tlb_entries_invalidated", "pwc_entries_invalidated".
 * Written with jansson, keys in a fixed order.
 *
 * Returns: a NUL-terminated string the caller frees with free(), or NULL
 * when out of memory.
 */
TLBSIM_API TLBSIM_MUST_CHECK char *tlbsim_mmu_stats_json(const struct tlbsim_mmu_stats *stats);

/**
 * tlbsim_inval_kind_name() - the name of an invalidation kind
 * @kind: a value of enum tlbsim_inval_kind
 *
 * Returns: a static string such as "invlpg", or "unknown".
 */
TLBSIM_API const char *tlbsim_inval_kind_name(enum tlbsim_inval_kind kind);

#ifdef __cplusplus
}
#endif

#endif /* TLBSIM_MMU_H */
