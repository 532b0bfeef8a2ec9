/* SPDX-License-Identifier: MIT */
/*
 * Simulated physical memory and radix page tables written into it.
 *
 * Physical memory is a set of 4 KiB frames handed out by a frame allocator.
 * Every allocation of a frame bumps that frame's allocation generation, so a
 * cached pointer to a frame (a page-walk-cache entry) can tell whether the
 * frame was freed and reused since.  Freed frames are reused last-in
 * first-out, as the kernel's per-cpu hot page lists do, so that a freed
 * page-table page is quickly reused: the speculative-walk hazards depend on it.
 *
 * Page tables are real radix trees of 512 eight-byte descriptors per table
 * frame, in the ISA's own descriptor format: x86-64 4- or 5-level paging
 * (Intel SDM vol. 3 4.5, P/RW/US/PS/G/NX bits), arm64 VMSAv8-64 stage 1 with
 * a 4 KiB granule, 4 levels (Arm ARM D8.3, valid/table bits, AP[2:1], nG,
 * AF, UXN).  Each descriptor carries a version: the value of a global write
 * counter at the time it was last written, which TLB entries keep so the
 * hazard oracle can tell stale entries from fresh ones.
 */
#ifndef TLBSIM_PGTABLE_H
#define TLBSIM_PGTABLE_H

#include <stdint.h>

#include "tlbsim/export.h"
#include "tlbsim/machine.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Frame size: 4 KiB, as log2 in bytes. */
#define TLBSIM_PAGE_SHIFT 12
/* Descriptors per table page (4 KiB / 8 bytes). */
#define TLBSIM_PTRS_PER_TABLE 512

/* Generic permissions of a leaf mapping, encoded into the ISA's bits. */
enum tlbsim_prot {
	TLBSIM_PROT_READ = 1u << 0,   /* x86: P; arm64: valid + AF (struct tlbsim_mapping) */
	TLBSIM_PROT_WRITE = 1u << 1,  /* x86: RW; arm64: AP[2] == 0 */
	TLBSIM_PROT_EXEC = 1u << 2,   /* x86: NX == 0; arm64: UXN == 0 */
	TLBSIM_PROT_USER = 1u << 3,   /* x86: US; arm64: AP[1] */
	TLBSIM_PROT_GLOBAL = 1u << 4, /* x86: G; arm64: nG == 0 */
};

enum tlbsim_frame_kind {
	TLBSIM_FRAME_FREE = 0,
	TLBSIM_FRAME_DATA = 1,
	TLBSIM_FRAME_TABLE = 2,
};

typedef struct tlbsim_physmem tlbsim_physmem;
typedef struct tlbsim_pgtable tlbsim_pgtable;

/**
 * tlbsim_physmem_create() - empty physical memory with a frame allocator
 * @max_frames: capacity in 4 KiB frames (1 .. 2^40); metadata grows with
 *              the frames actually allocated, not with @max_frames
 *
 * Returns: a new physmem owned by the caller, or NULL when out of memory or
 * @max_frames is 0.
 */
TLBSIM_API TLBSIM_MUST_CHECK tlbsim_physmem *tlbsim_physmem_create(uint64_t max_frames);

/**
 * tlbsim_physmem_destroy() - release physical memory and every table page
 * @pm: the physmem, or NULL (then nothing happens)
 *
 * Page tables created on @pm must be destroyed first.
 */
TLBSIM_API void tlbsim_physmem_destroy(tlbsim_physmem *pm);

/**
 * tlbsim_physmem_alloc() - allocate one 4 KiB frame
 * @pm: the physmem
 * @kind: TLBSIM_FRAME_DATA or TLBSIM_FRAME_TABLE (a table frame starts with
 *        512 zero, i.e. not-present, descriptors)
 * @pfn: receives the physical frame number (physical address >> 12)
 *
 * The most recently freed frame is reused first; its generation is bumped.
 *
 * Returns: 0, -TLBSIM_EINVAL for a bad @kind, -TLBSIM_ENOMEM when all
 * @max_frames frames are in use or the host is out of memory.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_physmem_alloc(tlbsim_physmem *pm,
						      enum tlbsim_frame_kind kind, uint64_t *pfn);

/**
 * tlbsim_physmem_alloc_block() - allocate 2^@order contiguous data frames
 * @pm: the physmem
 * @order: log2 of the number of frames: 9 for a 2 MiB page, 18 for 1 GiB
 * @pfn: receives the first frame, aligned to 2^@order frames
 *
 * For huge pages.  Taken from never-used frames (the allocator keeps no
 * free blocks); frames skipped for alignment become free single frames.
 * Each frame of the block is freed on its own with tlbsim_physmem_free().
 *
 * Returns: 0, -TLBSIM_EINVAL for @order > 18, -TLBSIM_ENOMEM.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_physmem_alloc_block(tlbsim_physmem *pm, unsigned order,
							    uint64_t *pfn);

/**
 * tlbsim_physmem_free() - return a frame to the allocator
 * @pm: the physmem
 * @pfn: an allocated frame
 *
 * Returns: 0, or -TLBSIM_EINVAL if @pfn is not allocated (double free).
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_physmem_free(tlbsim_physmem *pm, uint64_t pfn);

/**
 * tlbsim_physmem_kind() - what a frame currently holds
 * @pm: the physmem (borrowed)
 * @pfn: any frame number
 *
 * Returns: the frame's kind; TLBSIM_FRAME_FREE for never-allocated frames.
 */
TLBSIM_API enum tlbsim_frame_kind tlbsim_physmem_kind(const tlbsim_physmem *pm, uint64_t pfn);

/**
 * tlbsim_physmem_generation() - how many times a frame was allocated
 * @pm: the physmem (borrowed)
 * @pfn: any frame number
 *
 * Returns: 0 for a never-allocated frame, otherwise the number of
 * allocations of @pfn so far (the first allocation gives 1).
 */
TLBSIM_API uint32_t tlbsim_physmem_generation(const tlbsim_physmem *pm, uint64_t pfn);

/**
 * tlbsim_physmem_nr_used() - number of frames of a kind in use
 * @pm: the physmem (borrowed)
 * @kind: TLBSIM_FRAME_DATA or TLBSIM_FRAME_TABLE
 *
 * Returns: the count in frames.
 */
TLBSIM_API uint64_t tlbsim_physmem_nr_used(const tlbsim_physmem *pm, enum tlbsim_frame_kind kind);

/**
 * tlbsim_physmem_nr_peak() - the most frames ever in use at once
 * @pm: the physmem (borrowed)
 * @kind: TLBSIM_FRAME_DATA or TLBSIM_FRAME_TABLE, or TLBSIM_FRAME_FREE for
 *        frames of either kind (the peak of their sum, not the sum of the
 *        peaks)
 *
 * A run that ends with every address space torn down uses no frame at the
 * end; the peak says how much memory it needed.
 *
 * Returns: the count in frames (4 KiB each); 0 for a NULL @pm or another @kind.
 */
TLBSIM_API uint64_t tlbsim_physmem_nr_peak(const tlbsim_physmem *pm, enum tlbsim_frame_kind kind);

/**
 * tlbsim_physmem_nr_frames() - the capacity
 * @pm: the physmem (borrowed)
 *
 * Returns: the max_frames given to tlbsim_physmem_create() (4 KiB frames),
 * or 0 for NULL.
 */
TLBSIM_API uint64_t tlbsim_physmem_nr_frames(const tlbsim_physmem *pm);

/**
 * tlbsim_physmem_read_desc() - read one descriptor of a table frame
 * @pm: the physmem (borrowed)
 * @pfn: a table frame
 * @index: descriptor index, 0..511
 * @raw: receives the raw 64-bit descriptor
 * @version: receives its version (the write counter when it was written,
 *           0 if never written), or NULL
 *
 * Returns: 0, or -TLBSIM_EINVAL if @pfn is not a table frame or @index is
 * out of range.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_physmem_read_desc(const tlbsim_physmem *pm, uint64_t pfn,
							  unsigned index, uint64_t *raw,
							  uint64_t *version);

/**
 * tlbsim_physmem_write_desc() - write one descriptor of a table frame
 * @pm: the physmem
 * @pfn: a table frame
 * @index: descriptor index, 0..511
 * @raw: the new raw descriptor, in the ISA's format
 *
 * Bumps the global write counter and stores it as the descriptor's version.
 * This is how kernel-level traces write PTEs directly.
 *
 * Returns: 0, or -TLBSIM_EINVAL as tlbsim_physmem_read_desc().
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_physmem_write_desc(tlbsim_physmem *pm, uint64_t pfn,
							   unsigned index, uint64_t raw);

/**
 * struct tlbsim_mapping - what a software walk of a page table found
 * @pfn: frame of the page mapped (for 2M/1G leaves, the first 4 KiB frame)
 * @size_shift: log2 of the page size in bytes: 12, 21 or 30
 * @prot: TLBSIM_PROT_* bits of the leaf; none of READ, WRITE and EXEC for a
 *        PROT_NONE leaf, which the OS model writes for mprotect(PROT_NONE)
 *        of a present page (Linux's protnone PTE: x86 P clear and bit 8,
 *        _PAGE_PROTNONE; arm64 valid clear and bit 58, PTE_PROT_NONE): the
 *        page is kept, and every hardware walk faults on it
 * @version: version of the leaf descriptor
 * @level: level of the leaf (0 for 4K, 1 for 2M, 2 for 1G)
 * @table_pfn: frame of the table holding the leaf
 */
struct tlbsim_mapping {
	uint64_t pfn;
	unsigned size_shift;
	unsigned prot;
	uint64_t version;
	unsigned level;
	uint64_t table_pfn;
};

/**
 * tlbsim_pgtable_create() - a new, empty address space's page tables
 * @pm: physical memory the tables live in (borrowed; must outlive the table)
 * @isa: descriptor format
 * @levels: 4 or 5 for x86-64, 4 for arm64
 *
 * Allocates the root table frame.
 *
 * Returns: a new page table owned by the caller, or NULL on a bad
 * @isa/@levels combination or when out of memory.
 */
TLBSIM_API TLBSIM_MUST_CHECK tlbsim_pgtable *tlbsim_pgtable_create(tlbsim_physmem *pm,
								   enum tlbsim_isa isa,
								   unsigned levels);

/**
 * tlbsim_pgtable_destroy() - free every table frame of a page table
 * @pt: the page table, or NULL (then nothing happens)
 *
 * Data frames that leaves point to are not freed: they belong to the OS model.
 */
TLBSIM_API void tlbsim_pgtable_destroy(tlbsim_pgtable *pt);

/**
 * tlbsim_pgtable_root() - frame of the root table (CR3 / TTBR0 base)
 * @pt: the page table (borrowed)
 *
 * Returns: a physical frame number.
 */
TLBSIM_API uint64_t tlbsim_pgtable_root(const tlbsim_pgtable *pt);

/**
 * tlbsim_pgtable_map() - map one page
 * @pt: the page table
 * @va: virtual address, bytes, aligned to the page size
 * @pfn: first physical frame of the page, aligned to the page size in frames
 * @size_shift: 12 (4 KiB), 21 (2 MiB) or 30 (1 GiB)
 * @prot: TLBSIM_PROT_* bits; TLBSIM_PROT_READ is implied
 *
 * Allocates intermediate tables as needed; a table descriptor is written
 * only after the table below it is complete (Arm ARM D8.2, break-free
 * publication of a new table; docs/hazard-rules.md test 5).
 *
 * Returns: 0; -TLBSIM_EINVAL for a misaligned @va/@pfn, a bad @size_shift or
 * a @va outside the canonical user range; -TLBSIM_EEXIST if any part of the
 * page is already mapped or a larger leaf covers it; -TLBSIM_ENOMEM.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_pgtable_map(tlbsim_pgtable *pt, uint64_t va, uint64_t pfn,
						    unsigned size_shift, unsigned prot);

/**
 * tlbsim_pgtable_unmap() - clear the leaf that maps a virtual address
 * @pt: the page table
 * @va: any virtual address inside the page, bytes
 * @old: receives the mapping that was removed, or NULL
 *
 * Tables left empty are not freed here: see tlbsim_pgtable_free_tables().
 *
 * Returns: 0, or -TLBSIM_ENOENT if nothing maps @va.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_pgtable_unmap(tlbsim_pgtable *pt, uint64_t va,
						      struct tlbsim_mapping *old);

/**
 * tlbsim_pgtable_protect() - change the permissions of the leaf mapping @va
 * @pt: the page table
 * @va: any virtual address inside the page, bytes
 * @prot: new TLBSIM_PROT_* bits
 *
 * Rewrites the leaf descriptor in place (a new version), keeping its frame.
 *
 * Returns: 0, or -TLBSIM_ENOENT if nothing maps @va.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_pgtable_protect(tlbsim_pgtable *pt, uint64_t va,
							unsigned prot);

/**
 * tlbsim_pgtable_lookup() - software walk, with no caches and no cost
 * @pt: the page table (borrowed)
 * @va: virtual address, bytes
 * @out: receives the leaf found
 *
 * Returns: 0, or -TLBSIM_ENOENT if @va is not mapped.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_pgtable_lookup(const tlbsim_pgtable *pt, uint64_t va,
						       struct tlbsim_mapping *out);

/**
 * typedef tlbsim_table_free_fn - receives a table page unlinked from the tree
 * @arg: the caller's argument
 * @pfn: frame of the unlinked table page (still allocated)
 * @level: level of the unlinked table (0 = last-level table)
 * @va: first virtual address the table covered, bytes
 *
 * The callee owns the frame and must eventually tlbsim_physmem_free() it,
 * after whatever TLB and walk-cache invalidation its policy requires.
 */
typedef void (*tlbsim_table_free_fn)(void *arg, uint64_t pfn, unsigned level, uint64_t va);

/**
 * tlbsim_pgtable_free_tables() - unlink empty tables inside a range
 * @pt: the page table
 * @start: first virtual address, bytes (inclusive)
 * @end: last virtual address + 1, bytes (exclusive); @end > @start
 * @fn: receives each unlinked table frame, or NULL to free them at once
 * @arg: passed to @fn
 *
 * Every table page (other than the root) whose whole span lies inside
 * [@start, @end) and which holds no valid descriptor is unlinked from its
 * parent, deepest first, so that a parent emptied by the unlinking is
 * unlinked too (Linux free_pgd_range()).
 *
 * Returns: the number of table pages unlinked (>= 0), or -TLBSIM_EINVAL.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_pgtable_free_tables(tlbsim_pgtable *pt, uint64_t start,
							    uint64_t end, tlbsim_table_free_fn fn,
							    void *arg);

/**
 * tlbsim_pgtable_nr_tables() - table pages currently linked, root included
 * @pt: the page table (borrowed)
 *
 * Counts the tables linked by tlbsim_pgtable_map() and not yet unlinked by
 * tlbsim_pgtable_free_tables(); tables linked or unlinked by raw
 * tlbsim_physmem_write_desc() calls are not seen.
 *
 * Returns: a count of frames.
 */
TLBSIM_API uint64_t tlbsim_pgtable_nr_tables(const tlbsim_pgtable *pt);

#ifdef __cplusplus
}
#endif

#endif /* TLBSIM_PGTABLE_H */
