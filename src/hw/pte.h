/* SPDX-License-Identifier: MIT */
/*
 * Descriptor formats: encode and decode x86-64 and arm64 page-table entries.
 *
 * x86-64 (Intel SDM vol. 3 4.5, tables 4-15 to 4-20): bit 0 P, 1 R/W, 2 U/S,
 * 5 A, 6 D, 7 PS (leaf at PDPT/PD level), 8 G (leaves only), 12..51 address,
 * 63 XD/NX.  A present non-leaf entry at level >= 1 points to a table.
 *
 * arm64 VMSAv8-64, 4 KiB granule (Arm ARM D8.3): bit 0 valid, bit 1 table
 * (levels 1..3 of the Arm numbering = our levels 2..0; at our level 0 bit 1
 * must be 1 for a page descriptor), 6..7 AP[2:1] (AP[1] = EL0 access, AP[2]
 * = read-only), 10 AF, 11 nG, 12..47 output address, 54 UXN/XN, 53 PXN.
 * A block (leaf) at our level 1 or 2 has bit 1 clear.  Level 3 of our
 * numbering (Arm level 0) holds tables only.
 *
 * A PROT_NONE leaf (hw_pte_encode_leaf()) decodes as present with neither
 * READ, WRITE nor EXEC: the walk that reads it faults without caching it.
 * Other descriptors that make the walk fault decode as not present, since a
 * faulting descriptor is never cached (docs/hazard-rules.md rules 1 and 13): x86 PS set
 * in a PML4E/PML5E (reserved bit); arm64 bit 1 clear at our levels 0 and 3
 * (reserved / no 512 GiB blocks), and arm64 leaves with AF clear (Access
 * flag fault; hardware AF update is not modelled).  Encoded leaves always
 * have x86 A (and D when writable) or arm64 AF set.
 *
 * Internal to src/hw; the walker and the page-table code share it.
 */
#ifndef TLBSIM_HW_PTE_H
#define TLBSIM_HW_PTE_H

#include <stdbool.h>
#include <stdint.h>

#include "tlbsim/machine.h"
#include "tlbsim/pgtable.h"

/**
 * struct hw_pte - a decoded descriptor
 * @present: valid (x86 P, arm64 bit 0); nothing else is meaningful if false
 * @leaf: maps a page or block (else points to a next-level table)
 * @pfn: frame of the page, or of the next-level table
 * @prot: TLBSIM_PROT_* bits (leaves only)
 */
struct hw_pte {
	bool present;
	bool leaf;
	uint64_t pfn;
	unsigned prot;
};

/* Decode @raw read from a table at @level (0 = last level). */
void hw_pte_decode(enum tlbsim_isa isa, unsigned level, uint64_t raw, struct hw_pte *out);

/*
 * What hw_pte_decode() answers for the descriptor most walks read, a table
 * descriptor: true, and *@pfn the next table's frame, when @raw at @level
 * is present and points to a table; false for anything else (not present,
 * a leaf, a descriptor that faults), which hw_pte_decode() tells apart.
 * Inline for the walks' intermediate levels, a mask and a compare:
 * x86-64 P set and PS clear at levels 1..4 (SDM vol. 3A tables 4-14 to
 * 4-19; PS in a PML4E/PML5E faults, in a PDPTE/PDE maps a page); arm64
 * bits 0 (valid) and 1 (table) set at our levels 1..3 (Arm ARM D8.3).
 */
static inline bool hw_pte_table(enum tlbsim_isa isa, unsigned level, uint64_t raw, uint64_t *pfn)
{
	if (isa == TLBSIM_ISA_X86_64) {
		/* P set, PS clear; address bits 12..51 (MAXPHYADDR 52). */
		if ((raw & 0x81u) != 0x1u || level - 1u >= TLBSIM_MAX_PT_LEVELS - 1u)
			return false;
		*pfn = (raw & 0x000ffffffffff000ull) >> TLBSIM_PAGE_SHIFT;
		return true;
	}
	if (isa == TLBSIM_ISA_ARM64) {
		/* Valid and table set; output address bits 12..47. */
		if ((raw & 0x3u) != 0x3u || level - 1u >= 3u)
			return false;
		*pfn = (raw & 0x0000fffffffff000ull) >> TLBSIM_PAGE_SHIFT;
		return true;
	}
	return false;
}

_Static_assert(TLBSIM_PROT_READ == 0x1 && TLBSIM_PROT_WRITE == 0x2 && TLBSIM_PROT_EXEC == 0x4 &&
		       TLBSIM_PROT_USER == 0x8 && TLBSIM_PROT_GLOBAL == 0x10,
	       "hw_pte_page() shifts each descriptor bit to its TLBSIM_PROT_* place");

/*
 * What hw_pte_decode() answers for a descriptor at level 0, where most
 * walks end: true, *@pfn and *@prot, when @raw is a present 4 KiB page;
 * false for anything else (not present, a descriptor that faults, an
 * unknown ISA), which hw_pte_decode() tells apart.  Inline for the walk's
 * last level: a mask and a compare, the permissions without a branch.
 * x86-64 (SDM vol. 3A table 4-20): P set; R/W, U/S, NX and G give the
 * permissions.  arm64 (Arm ARM D8.3): valid, page (bit 1) and AF set;
 * AP[2], AP[1], UXN and nG give them.
 */
static inline bool hw_pte_page(enum tlbsim_isa isa, uint64_t raw, uint64_t *pfn, unsigned *prot)
{
	if (isa == TLBSIM_ISA_X86_64) {
		if (!(raw & 0x1u))
			return false;
		*pfn = (raw & 0x000ffffffffff000ull) >> TLBSIM_PAGE_SHIFT;
		*prot = (unsigned)(TLBSIM_PROT_READ | (raw & 0x2u) /* R/W, bit 1 */ |
				   (raw << 1 & 0x8u) /* U/S, bit 2 */ |
				   (~raw >> 61 & 0x4u) /* not NX, bit 63 */ |
				   (raw >> 4 & 0x10u) /* G, bit 8 */);
		return true;
	}
	if (isa == TLBSIM_ISA_ARM64) {
		if ((raw & 0x403u) != 0x403u) /* valid, page, AF */
			return false;
		*pfn = (raw & 0x0000fffffffff000ull) >> TLBSIM_PAGE_SHIFT;
		*prot = (unsigned)(TLBSIM_PROT_READ | (~raw >> 6 & 0x2u) /* not AP[2], bit 7 */ |
				   (raw >> 3 & 0x8u) /* AP[1], bit 6 */ |
				   (~raw >> 52 & 0x4u) /* not UXN, bit 54 */ |
				   (~raw >> 7 & 0x10u) /* not nG, bit 11 */);
		return true;
	}
	return false;
}

/* @prot grants no access: neither READ, WRITE nor EXEC (PROT_NONE). */
static inline bool hw_prot_none(unsigned prot)
{
	return !(prot & (TLBSIM_PROT_READ | TLBSIM_PROT_WRITE | TLBSIM_PROT_EXEC));
}

/*
 * Encode a leaf at @level (0: 4K page, 1: 2M, 2: 1G) mapping @pfn with @prot.
 * A @prot with none of READ, WRITE and EXEC is a PROT_NONE leaf (Linux's
 * protnone PTE of mprotect(PROT_NONE)): the present (x86 P) or valid
 * (arm64) bit clear, so every walk faults on it, and a software bit set
 * (x86 bit 8, _PAGE_PROTNONE; arm64 bit 58, PTE_PROT_NONE), so that
 * hw_pte_decode() still finds the page the OS keeps there: present, a
 * leaf, its frame, and no READ, WRITE or EXEC.  Any other @prot reads
 * (x86 and arm64 cannot map a page write- or execute-only).
 */
uint64_t hw_pte_encode_leaf(enum tlbsim_isa isa, unsigned level, uint64_t pfn, unsigned prot);

/* Encode a table descriptor at @level >= 1 pointing to the table in @pfn. */
uint64_t hw_pte_encode_table(enum tlbsim_isa isa, unsigned level, uint64_t pfn);

/* Index of @va's descriptor in a table at @level: bits [12+9*level, 20+9*level]. */
static inline unsigned hw_pte_index(uint64_t va, unsigned level)
{
	return (unsigned)(va >> (12 + 9 * level)) & 511u;
}

/* log2 of the bytes one descriptor at @level covers: 12, 21, 30, 39, 48. */
static inline unsigned hw_level_shift(unsigned level)
{
	return 12 + 9 * level;
}

#endif /* TLBSIM_HW_PTE_H */
