/* SPDX-License-Identifier: MIT */
/*
 * Descriptor formats of the two modelled ISAs, as the hardware walker reads
 * them:
 *
 *   x86-64: Intel SDM vol. 3A 4.5 (4-level and 5-level paging), tables 4-15
 *   to 4-20.  Leaves get A set, and D too when writable, so that the
 *   simulated hardware never has to set them (Linux does the same for
 *   present user PTEs it installs eagerly: _PAGE_ACCESSED/_PAGE_DIRTY).
 *
 *   arm64: Arm ARM D8.3 (VMSAv8-64 translation table descriptor formats),
 *   stage 1, 4 KiB granule, 48-bit VA and OA, no FEAT_LPA2.  Memory
 *   attributes follow Linux's PROT_DEFAULT for normal memory: AttrIndx 0
 *   (MT_NORMAL), SH = Inner Shareable.
 *
 * Levels are numbered from the leaf up (include/tlbsim/machine.h): our level
 * k is x86 PT/PD/PDPT/PML4/PML5 for k = 0..4 and Arm level 3 - k.
 *
 * Tuned for the walker's hot path: decode is a handful of shifts and masks.
 */
#include <assert.h>

#include "hw/pte.h"
#include "tlbsim/pgtable.h"

/* x86-64 bits (SDM vol. 3A tables 4-15..4-20). */
#define X86_P (1ull << 0)
#define X86_RW (1ull << 1)
#define X86_US (1ull << 2)
#define X86_A (1ull << 5)
#define X86_D (1ull << 6)
#define X86_PS (1ull << 7) /* page size at PD/PDPT; PAT in a PTE; reserved above */
#define X86_G (1ull << 8)
/* With P clear, bit 8 marks a PROT_NONE leaf: not present to the walker,
 * a page the OS keeps (Linux _PAGE_PROTNONE, the bit of _PAGE_GLOBAL). */
#define X86_PROTNONE X86_G
#define X86_NX (1ull << 63)
/* Physical address bits 12..51: MAXPHYADDR is at most 52. */
#define X86_ADDR_MASK 0x000ffffffffff000ull

/* arm64 bits (Arm ARM D8.3, 4 KiB granule). */
#define ARM_VALID (1ull << 0)
#define ARM_TABLE (1ull << 1) /* table at Arm L0..L2; page at Arm L3; 0 = block */
#define ARM_AP1 (1ull << 6)   /* AP[1]: EL0 may access */
#define ARM_AP2 (1ull << 7)   /* AP[2]: read-only */
#define ARM_SH_IS (3ull << 8) /* SH[1:0] = 0b11, Inner Shareable */
#define ARM_AF (1ull << 10)
#define ARM_NG (1ull << 11)
#define ARM_PXN (1ull << 53)
#define ARM_UXN (1ull << 54)
/* With valid clear, a software bit marks a PROT_NONE leaf (Linux
 * PTE_PROT_NONE, bit 58 of the bits D8.3 leaves to software). */
#define ARM_PROT_NONE (1ull << 58)
/* Output address bits 12..47: 48-bit OA without FEAT_LPA/FEAT_LPA2. */
#define ARM_ADDR_MASK 0x0000fffffffff000ull

/* Deepest level with a leaf: 1 GiB pages/blocks at our level 2. */
#define MAX_LEAF_LEVEL 2

/*
 * The frame of a leaf at @level: address bits below the page size are PAT
 * (x86 bit 12 of a large page) or RES0, never part of the address.
 */
static uint64_t leaf_pfn(uint64_t raw, uint64_t addr_mask, unsigned level)
{
	uint64_t page_mask = (1ull << hw_level_shift(level)) - 1;

	return (raw & addr_mask & ~page_mask) >> TLBSIM_PAGE_SHIFT;
}

/* The permissions a PROT_NONE leaf keeps: neither read, write nor
 * execute; no hardware walk can use it. */
#define PROT_NONE_LEAF(user) ((user) ? TLBSIM_PROT_USER : 0u)

static void x86_decode(unsigned level, uint64_t raw, struct hw_pte *out)
{
	if (!(raw & X86_P) && (raw & X86_PROTNONE) && level <= MAX_LEAF_LEVEL &&
	    (level == 0 || (raw & X86_PS))) {
		out->present = true;
		out->leaf = true;
		out->pfn = leaf_pfn(raw, X86_ADDR_MASK, level);
		out->prot = PROT_NONE_LEAF(raw & X86_US);
		return;
	}
	if (!(raw & X86_P) || level >= TLBSIM_MAX_PT_LEVELS)
		return;
	/*
	 * Bit 7 of a PML4E/PML5E is reserved (SDM table 4-15/4-14): the walk
	 * takes a reserved-bit page fault, so the entry acts as not present
	 * and is never cached.  In a PTE the same bit is PAT, not a size.
	 */
	if (level >= 3 && (raw & X86_PS))
		return;
	out->present = true;
	out->leaf = level == 0 || (raw & X86_PS);
	if (!out->leaf) {
		out->pfn = (raw & X86_ADDR_MASK) >> TLBSIM_PAGE_SHIFT;
		return;
	}
	out->pfn = leaf_pfn(raw, X86_ADDR_MASK, level);
	out->prot = TLBSIM_PROT_READ;
	if (raw & X86_RW)
		out->prot |= TLBSIM_PROT_WRITE;
	if (raw & X86_US)
		out->prot |= TLBSIM_PROT_USER;
	if (!(raw & X86_NX))
		out->prot |= TLBSIM_PROT_EXEC;
	if (raw & X86_G)
		out->prot |= TLBSIM_PROT_GLOBAL;
}

static void arm64_decode(unsigned level, uint64_t raw, struct hw_pte *out)
{
	bool table_bit = raw & ARM_TABLE;

	if (!(raw & ARM_VALID) && (raw & ARM_PROT_NONE) && level <= MAX_LEAF_LEVEL &&
	    table_bit == (level == 0)) {
		out->present = true;
		out->leaf = true;
		out->pfn = leaf_pfn(raw, ARM_ADDR_MASK, level);
		out->prot = PROT_NONE_LEAF(raw & ARM_AP1) | (raw & ARM_NG ? 0u : TLBSIM_PROT_GLOBAL);
		return;
	}
	/* 4 levels only (Arm levels 0..3); there is no Arm level -1 here. */
	if (!(raw & ARM_VALID) || level > 3)
		return;
	/*
	 * Bit 1 clear is a block only at Arm levels 1 and 2.  At Arm level 3
	 * it is reserved and at Arm level 0 (no 512 GiB blocks without
	 * FEAT_LPA2) it is invalid: both give a translation fault (D8.3.1).
	 */
	if (!table_bit && (level == 0 || level == 3))
		return;
	if (level >= 1 && table_bit) {
		out->present = true;
		out->pfn = (raw & ARM_ADDR_MASK) >> TLBSIM_PAGE_SHIFT;
		return;
	}
	/*
	 * A page or block with AF = 0 takes an Access flag fault (no
	 * hardware AF management modelled); faulting descriptors are never
	 * cached (docs/hazard-rules.md rules 1), so the walker must see it as absent.
	 */
	if (!(raw & ARM_AF))
		return;
	out->present = true;
	out->leaf = true;
	out->pfn = leaf_pfn(raw, ARM_ADDR_MASK, level);
	out->prot = TLBSIM_PROT_READ;
	if (!(raw & ARM_AP2))
		out->prot |= TLBSIM_PROT_WRITE;
	if (raw & ARM_AP1)
		out->prot |= TLBSIM_PROT_USER;
	if (!(raw & ARM_UXN))
		out->prot |= TLBSIM_PROT_EXEC;
	if (!(raw & ARM_NG))
		out->prot |= TLBSIM_PROT_GLOBAL;
}

void hw_pte_decode(enum tlbsim_isa isa, unsigned level, uint64_t raw, struct hw_pte *out)
{
	*out = (struct hw_pte){0};
	if (isa == TLBSIM_ISA_X86_64)
		x86_decode(level, raw, out);
	else if (isa == TLBSIM_ISA_ARM64)
		arm64_decode(level, raw, out);
}

static uint64_t x86_encode_leaf(unsigned level, uint64_t pfn, unsigned prot)
{
	uint64_t raw = X86_P | X86_A | ((pfn << TLBSIM_PAGE_SHIFT) & X86_ADDR_MASK);

	if (level > 0)
		raw |= X86_PS;
	if (prot & TLBSIM_PROT_WRITE)
		raw |= X86_RW | X86_D;
	if (prot & TLBSIM_PROT_USER)
		raw |= X86_US;
	if (!(prot & TLBSIM_PROT_EXEC))
		raw |= X86_NX;
	if (prot & TLBSIM_PROT_GLOBAL)
		raw |= X86_G;
	if (hw_prot_none(prot))
		raw = (raw & ~(X86_P | X86_G)) | X86_PROTNONE;
	return raw;
}

static uint64_t arm64_encode_leaf(unsigned level, uint64_t pfn, unsigned prot)
{
	uint64_t raw =
	    ARM_VALID | ARM_SH_IS | ARM_AF | ((pfn << TLBSIM_PAGE_SHIFT) & ARM_ADDR_MASK);

	if (level == 0)
		raw |= ARM_TABLE; /* "page" descriptor at Arm level 3 */
	if (!(prot & TLBSIM_PROT_WRITE))
		raw |= ARM_AP2;
	if (!(prot & TLBSIM_PROT_EXEC))
		raw |= ARM_UXN;
	/*
	 * User pages are never executable at EL1, nor are non-executable
	 * kernel pages (Linux PAGE_SHARED/PAGE_KERNEL both carry PTE_PXN).
	 */
	if (prot & TLBSIM_PROT_USER)
		raw |= ARM_AP1 | ARM_PXN;
	else if (!(prot & TLBSIM_PROT_EXEC))
		raw |= ARM_PXN;
	if (!(prot & TLBSIM_PROT_GLOBAL))
		raw |= ARM_NG;
	if (hw_prot_none(prot))
		raw = (raw & ~ARM_VALID) | ARM_PROT_NONE;
	return raw;
}

uint64_t hw_pte_encode_leaf(enum tlbsim_isa isa, unsigned level, uint64_t pfn, unsigned prot)
{
	assert(level <= MAX_LEAF_LEVEL && "leaves exist at levels 0..2 only");
	if (level > MAX_LEAF_LEVEL)
		return 0;
	if (isa == TLBSIM_ISA_X86_64)
		return x86_encode_leaf(level, pfn, prot);
	if (isa == TLBSIM_ISA_ARM64)
		return arm64_encode_leaf(level, pfn, prot);
	return 0;
}

uint64_t hw_pte_encode_table(enum tlbsim_isa isa, unsigned level, uint64_t pfn)
{
	assert(level >= 1 && level < TLBSIM_MAX_PT_LEVELS && "tables are linked from level >= 1");
	if (level < 1 || level >= TLBSIM_MAX_PT_LEVELS)
		return 0;
	/*
	 * x86: R/W and U/S of every level are ANDed into the leaf's rights
	 * (SDM 4.6), so tables allow everything and leaves decide; A is set
	 * so the walker never writes it.  D is ignored in non-leaf entries.
	 * This is Linux's _PAGE_TABLE without _PAGE_DIRTY.
	 */
	if (isa == TLBSIM_ISA_X86_64)
		return X86_P | X86_RW | X86_US | X86_A |
		       ((pfn << TLBSIM_PAGE_SHIFT) & X86_ADDR_MASK);
	/* arm64: APTable/XNTable/PXNTable left 0, i.e. no extra limits. */
	if (isa == TLBSIM_ISA_ARM64)
		return ARM_VALID | ARM_TABLE | ((pfn << TLBSIM_PAGE_SHIFT) & ARM_ADDR_MASK);
	return 0;
}
