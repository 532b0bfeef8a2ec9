/* SPDX-License-Identifier: MIT */
/*
 * Tests of src/hw/pte.c: x86-64 and arm64 descriptor encode/decode.
 *
 * Every raw value below is assembled by hand from the bit positions in the
 * manuals, not taken from the code's output:
 *   x86-64, Intel SDM vol. 3A 4.5, tables 4-15..4-20: P 0, R/W 1, U/S 2,
 *     A 5, D 6, PS 7 (PAT in a PTE), G 8, address 12..51, XD/NX 63.
 *   arm64, Arm ARM D8.3 (4 KiB granule, stage 1): valid 0, table/page 1,
 *     AP[1] 6, AP[2] 7, SH 8..9 (0b11 Inner Shareable), AF 10, nG 11,
 *     output address 12..47, PXN 53, UXN 54.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "hw/pte.h"
#include "tlbsim/pgtable.h"

#define R TLBSIM_PROT_READ
#define W TLBSIM_PROT_WRITE
#define X TLBSIM_PROT_EXEC
#define U TLBSIM_PROT_USER
#define G TLBSIM_PROT_GLOBAL

static void expect_leaf(enum tlbsim_isa isa, unsigned level, uint64_t raw, uint64_t pfn,
			unsigned prot)
{
	struct hw_pte pte;

	hw_pte_decode(isa, level, raw, &pte);
	assert_true(pte.present);
	assert_true(pte.leaf);
	assert_int_equal(pte.pfn, pfn);
	assert_int_equal(pte.prot, prot);
}

static void expect_table(enum tlbsim_isa isa, unsigned level, uint64_t raw, uint64_t pfn)
{
	struct hw_pte pte;

	hw_pte_decode(isa, level, raw, &pte);
	assert_true(pte.present);
	assert_false(pte.leaf);
	assert_int_equal(pte.pfn, pfn);
}

static void expect_not_present(enum tlbsim_isa isa, unsigned level, uint64_t raw)
{
	struct hw_pte pte;

	hw_pte_decode(isa, level, raw, &pte);
	assert_false(pte.present);
}

static void x86_4k_user_rw_nx_leaf_has_a_and_d_set(void **state)
{
	/*
	 * P 0x1 + R/W 0x2 + U/S 0x4 + A 0x20 + D 0x40 = 0x67; address
	 * 0x1234 << 12 = 0x1234000; XD bit 63 = 0x8000000000000000.
	 */
	uint64_t raw = hw_pte_encode_leaf(TLBSIM_ISA_X86_64, 0, 0x1234, R | W | U);

	assert_int_equal(raw, 0x8000000001234067ull);
	expect_leaf(TLBSIM_ISA_X86_64, 0, raw, 0x1234, R | W | U);
}

static void x86_2m_global_exec_leaf_sets_ps_and_g(void **state)
{
	/*
	 * Read-only, executable, global kernel text: P 0x1 + A 0x20 + PS 0x80
	 * + G 0x100 = 0x1a1 (no D: not writable); address 0x200 << 12 =
	 * 0x200000; XD clear.
	 */
	uint64_t raw = hw_pte_encode_leaf(TLBSIM_ISA_X86_64, 1, 0x200, R | X | G);

	assert_int_equal(raw, 0x00000000002001a1ull);
	expect_leaf(TLBSIM_ISA_X86_64, 1, raw, 0x200, R | X | G);
}

static void x86_1g_kernel_rw_leaf_is_nx(void **state)
{
	/*
	 * P 0x1 + R/W 0x2 + A 0x20 + D 0x40 + PS 0x80 = 0xe3; address
	 * 0x40000 << 12 = 0x40000000; XD set: 0x80000000400000e3.
	 */
	uint64_t raw = hw_pte_encode_leaf(TLBSIM_ISA_X86_64, 2, 0x40000, R | W);

	assert_int_equal(raw, 0x80000000400000e3ull);
	expect_leaf(TLBSIM_ISA_X86_64, 2, raw, 0x40000, R | W);
}

static void x86_table_descriptor_allows_everything(void **state)
{
	/* P 0x1 + R/W 0x2 + U/S 0x4 + A 0x20 = 0x27; address 0xabcde000. */
	uint64_t raw = hw_pte_encode_table(TLBSIM_ISA_X86_64, 3, 0xabcde);

	assert_int_equal(raw, 0x00000000abcde027ull);
	for (unsigned level = 1; level <= 4; level++)
		expect_table(TLBSIM_ISA_X86_64, level, raw, 0xabcde);
}

static void x86_pat_bits_are_not_size_or_address(void **state)
{
	/*
	 * In a PTE bit 7 is PAT: 0x85 = P | U/S | PAT is still a 4K leaf,
	 * executable (XD clear), frame 0x1234.
	 */
	expect_leaf(TLBSIM_ISA_X86_64, 0, 0x0000000001234085ull, 0x1234, R | U | X);
	/*
	 * In a 2M PDE bit 12 is PAT, not address: 0x2011a1 is the 2M leaf
	 * above with PAT set, still frame 0x200, not 0x201.
	 */
	expect_leaf(TLBSIM_ISA_X86_64, 1, 0x00000000002011a1ull, 0x200, R | X | G);
}

static void x86_invalid_descriptors_decode_as_not_present(void **state)
{
	/* All zero; and the 4K leaf above with P cleared (0x67 -> 0x66). */
	expect_not_present(TLBSIM_ISA_X86_64, 0, 0);
	expect_not_present(TLBSIM_ISA_X86_64, 0, 0x8000000001234066ull);
	/* PS in a PML4E/PML5E is reserved (SDM tables 4-14, 4-15): 0x27 | 0x80 = 0xa7. */
	expect_not_present(TLBSIM_ISA_X86_64, 3, 0x00000000abcde0a7ull);
	expect_not_present(TLBSIM_ISA_X86_64, 4, 0x00000000abcde0a7ull);
	/* The same with PS clear is a table at both levels. */
	expect_table(TLBSIM_ISA_X86_64, 3, 0x00000000abcde027ull, 0xabcde);
}

static void arm64_4k_user_rw_page(void **state)
{
	/*
	 * valid 0x1 + page 0x2 + AP[1] (EL0) 0x40 + SH 0x300 + AF 0x400 +
	 * nG 0x800 = 0xf43; AP[2] clear (writable); address 0x1234000;
	 * PXN (user page) 1<<53 + UXN (no exec) 1<<54 = 0x0060000000000000.
	 */
	uint64_t raw = hw_pte_encode_leaf(TLBSIM_ISA_ARM64, 0, 0x1234, R | W | U);

	assert_int_equal(raw, 0x0060000001234f43ull);
	expect_leaf(TLBSIM_ISA_ARM64, 0, raw, 0x1234, R | W | U);
}

static void arm64_4k_user_text_page_is_read_only_and_pxn(void **state)
{
	/*
	 * valid 0x1 + page 0x2 + AP[1] 0x40 + AP[2] (read-only) 0x80 + SH
	 * 0x300 + AF 0x400 + nG 0x800 = 0xfc3; PXN 1<<53, UXN clear.
	 */
	uint64_t raw = hw_pte_encode_leaf(TLBSIM_ISA_ARM64, 0, 0x1234, R | X | U);

	assert_int_equal(raw, 0x0020000001234fc3ull);
	expect_leaf(TLBSIM_ISA_ARM64, 0, raw, 0x1234, R | X | U);
}

static void arm64_2m_global_exec_block(void **state)
{
	/*
	 * Block: bit 1 clear.  valid 0x1 + AP[2] 0x80 + SH 0x300 + AF 0x400 =
	 * 0x781; nG clear (global); kernel executable: PXN and UXN clear;
	 * address 0x200000.
	 */
	uint64_t raw = hw_pte_encode_leaf(TLBSIM_ISA_ARM64, 1, 0x200, R | X | G);

	assert_int_equal(raw, 0x0000000000200781ull);
	expect_leaf(TLBSIM_ISA_ARM64, 1, raw, 0x200, R | X | G);
}

static void arm64_1g_kernel_rw_block_is_xn(void **state)
{
	/*
	 * valid 0x1 + SH 0x300 + AF 0x400 + nG 0x800 = 0xf01; address
	 * 0x40000000; not executable: UXN 1<<54 and PXN 1<<53.
	 */
	uint64_t raw = hw_pte_encode_leaf(TLBSIM_ISA_ARM64, 2, 0x40000, R | W);

	assert_int_equal(raw, 0x0060000040000f01ull);
	expect_leaf(TLBSIM_ISA_ARM64, 2, raw, 0x40000, R | W);
}

static void arm64_table_descriptor(void **state)
{
	/* valid 0x1 + table 0x2, address 0xabcde000. */
	uint64_t raw = hw_pte_encode_table(TLBSIM_ISA_ARM64, 3, 0xabcde);

	assert_int_equal(raw, 0x00000000abcde003ull);
	for (unsigned level = 1; level <= 3; level++)
		expect_table(TLBSIM_ISA_ARM64, level, raw, 0xabcde);
}

static void arm64_invalid_descriptors_decode_as_not_present(void **state)
{
	expect_not_present(TLBSIM_ISA_ARM64, 0, 0);
	/* The user page above with valid cleared: 0xf43 -> 0xf42. */
	expect_not_present(TLBSIM_ISA_ARM64, 0, 0x0060000001234f42ull);
	/* Bit 1 clear at Arm level 3 is reserved: 0xf43 -> 0xf41. */
	expect_not_present(TLBSIM_ISA_ARM64, 0, 0x0060000001234f41ull);
	/* No 512 GiB blocks at Arm level 0: valid + SH + AF = 0x701. */
	expect_not_present(TLBSIM_ISA_ARM64, 3, 0x0000008000000701ull);
	/* AF clear gives an Access flag fault: 0xf43 - 0x400 = 0xb43. */
	expect_not_present(TLBSIM_ISA_ARM64, 0, 0x0060000001234b43ull);
	/* ... also on a block: 0x781 - 0x400 = 0x381. */
	expect_not_present(TLBSIM_ISA_ARM64, 1, 0x0000000000200381ull);
	/* There is no level 4 with 4 levels. */
	expect_not_present(TLBSIM_ISA_ARM64, 4, 0x00000000abcde003ull);
}

static void every_leaf_round_trips_through_decode(void **state)
{
	static const enum tlbsim_isa isas[] = {TLBSIM_ISA_X86_64, TLBSIM_ISA_ARM64};
	/*
	 * Highest frames each ISA can name, aligned to every page size:
	 * x86 2^40 - 2^18 (address bits up to 51), arm64 2^36 - 2^18 (47).
	 */
	static const uint64_t top_pfn[] = {(1ull << 40) - (1ull << 18),
					   (1ull << 36) - (1ull << 18)};

	for (unsigned i = 0; i < 2; i++)
		for (unsigned level = 0; level <= 2; level++)
			for (unsigned prot = 0; prot < 32; prot++) {
				/* READ is implied: every leaf decodes with it, but
				 * a PROT_NONE one (none of READ, WRITE, EXEC),
				 * which keeps USER (and arm64's nG: GLOBAL). */
				uint64_t raw = hw_pte_encode_leaf(isas[i], level, top_pfn[i], prot);
				unsigned none = prot & (isas[i] == TLBSIM_ISA_ARM64 ? U | G : U);

				expect_leaf(isas[i], level, raw, top_pfn[i],
					    prot & (R | W | X) ? prot | R : none);
			}
}

/*
 * hw_pte_table() is hw_pte_decode()'s "present, not a leaf" with its pfn,
 * for every level 0..5 of both ISAs (and an unknown ISA, 0): random
 * descriptors (splitmix64, Steele et al. 2014), with the low bits each
 * rule looks at (P, PS; valid, table) in all their combinations.
 */
static void table_test_agrees_with_decode(void **state)
{
	static const enum tlbsim_isa isas[] = {TLBSIM_ISA_X86_64, TLBSIM_ISA_ARM64,
					       (enum tlbsim_isa)0};
	uint64_t x = 29;

	for (unsigned n = 0; n < 20000; n++) {
		uint64_t z = (x += 0x9e3779b97f4a7c15ull);
		uint64_t raw, pfn = 0;

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		raw = z ^ (z >> 31);
		/* Bits 0, 1 and 7 from the counter: every combination. */
		raw = (raw & ~0x83ull) | (n & 3) | ((n >> 2 & 1) << 7);
		for (unsigned i = 0; i < 3; i++) {
			for (unsigned level = 0; level <= 5; level++) {
				struct hw_pte pte;
				bool table = hw_pte_table(isas[i], level, raw, &pfn);

				hw_pte_decode(isas[i], level, raw, &pte);
				assert_int_equal(table, pte.present && !pte.leaf);
				if (table)
					assert_int_equal(pfn, pte.pfn);
			}
		}
	}
}

/*
 * hw_pte_page() is hw_pte_decode()'s "present leaf" at level 0 with its pfn
 * and permissions, for both ISAs (and an unknown one): random descriptors,
 * with the bits each rule looks at (P, R/W, U/S, G, NX; valid, page,
 * AP[2:1], AF, nG, UXN) in all their combinations.
 */
static void page_test_agrees_with_decode(void **state)
{
	static const enum tlbsim_isa isas[] = {TLBSIM_ISA_X86_64, TLBSIM_ISA_ARM64,
					       (enum tlbsim_isa)0};
	static const unsigned bits[] = {0, 1, 2, 6, 7, 8, 10, 11, 54, 63};
	uint64_t x = 29;

	for (unsigned n = 0; n < 20000; n++) {
		uint64_t z = (x += 0x9e3779b97f4a7c15ull);
		uint64_t raw, pfn = 0;
		unsigned prot = 0;

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		raw = z ^ (z >> 31);
		/* The rules' bits from the counter: every combination. */
		for (unsigned b = 0; b < sizeof(bits) / sizeof(bits[0]); b++)
			raw = (raw & ~(1ull << bits[b])) | (uint64_t)(n >> b & 1) << bits[b];
		for (unsigned i = 0; i < 3; i++) {
			struct hw_pte pte;
			bool page = hw_pte_page(isas[i], raw, &pfn, &prot);

			hw_pte_decode(isas[i], 0, raw, &pte);
			/* A PROT_NONE leaf (no READ) is the walk's fault. */
			assert_int_equal(page, pte.present && pte.leaf && (pte.prot & R));
			if (page) {
				assert_int_equal(pfn, pte.pfn);
				assert_int_equal(prot, pte.prot);
			}
		}
	}
}

/*
 * A PROT_NONE leaf (mprotect(PROT_NONE) of a present page): not present to
 * the walker, still the OS's page.  x86 (Linux _PAGE_PROTNONE): the leaf
 * without P, with bit 8; arm64 (Linux PTE_PROT_NONE): without valid, with
 * bit 58.  Decoded: present, a leaf, its frame, USER only.
 */
static void prot_none_leaves_are_the_os_pages_not_the_walkers(void **state)
{
	uint64_t raw, pfn;
	unsigned prot;

	(void)state;
	/* x86 4 KiB: U/S 0x4 + A 0x20 + bit 8 0x100 = 0x124, P and R/W clear;
	 * address 0x1234000; XD 1<<63. */
	raw = hw_pte_encode_leaf(TLBSIM_ISA_X86_64, 0, 0x1234, U);
	assert_int_equal(raw, 0x8000000001234124ull);
	expect_leaf(TLBSIM_ISA_X86_64, 0, raw, 0x1234, U);
	assert_false(hw_pte_page(TLBSIM_ISA_X86_64, raw, &pfn, &prot));
	/* x86 2 MiB: PS 0x80 too = 0x1a4; address 0x200 << 12. */
	raw = hw_pte_encode_leaf(TLBSIM_ISA_X86_64, 1, 0x200, U);
	assert_int_equal(raw, 0x80000000002001a4ull);
	expect_leaf(TLBSIM_ISA_X86_64, 1, raw, 0x200, U);
	assert_false(hw_pte_table(TLBSIM_ISA_X86_64, 1, raw, &pfn));
	/* ... but bit 8 without P at a level that holds no leaf, or in a
	 * PDE without PS, is nothing. */
	expect_not_present(TLBSIM_ISA_X86_64, 3, 0x0000000001234124ull);
	expect_not_present(TLBSIM_ISA_X86_64, 1, 0x0000000001234124ull);
	/* arm64 4 KiB: page 0x2 + AP[1] 0x40 + AP[2] 0x80 + SH 0x300 + AF
	 * 0x400 + nG 0x800 = 0xfc2, valid clear; PXN 1<<53 + UXN 1<<54 +
	 * bit 58 = 0x0460000000000000. */
	raw = hw_pte_encode_leaf(TLBSIM_ISA_ARM64, 0, 0x1234, U);
	assert_int_equal(raw, 0x0460000001234fc2ull);
	expect_leaf(TLBSIM_ISA_ARM64, 0, raw, 0x1234, U);
	assert_false(hw_pte_page(TLBSIM_ISA_ARM64, raw, &pfn, &prot));
	/* A write-only or execute-only prot still maps a page that reads:
	 * neither ISA encodes anything else. */
	expect_leaf(TLBSIM_ISA_X86_64, 0, hw_pte_encode_leaf(TLBSIM_ISA_X86_64, 0, 0x1234, X | U),
		    0x1234, R | X | U);
}

static void index_and_shift_follow_the_9_bit_radix(void **state)
{
	/* VA built from indices 3 (level 3), 5, 7, 9 (level 0) and offset 0xabc. */
	uint64_t va = (3ull << 39) | (5ull << 30) | (7ull << 21) | (9ull << 12) | 0xabc;

	assert_int_equal(hw_pte_index(va, 0), 9);
	assert_int_equal(hw_pte_index(va, 1), 7);
	assert_int_equal(hw_pte_index(va, 2), 5);
	assert_int_equal(hw_pte_index(va, 3), 3);
	assert_int_equal(hw_level_shift(1), 21);
	assert_int_equal(hw_level_shift(4), 48);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(x86_4k_user_rw_nx_leaf_has_a_and_d_set),
	    cmocka_unit_test(x86_2m_global_exec_leaf_sets_ps_and_g),
	    cmocka_unit_test(x86_1g_kernel_rw_leaf_is_nx),
	    cmocka_unit_test(x86_table_descriptor_allows_everything),
	    cmocka_unit_test(x86_pat_bits_are_not_size_or_address),
	    cmocka_unit_test(x86_invalid_descriptors_decode_as_not_present),
	    cmocka_unit_test(arm64_4k_user_rw_page),
	    cmocka_unit_test(arm64_4k_user_text_page_is_read_only_and_pxn),
	    cmocka_unit_test(arm64_2m_global_exec_block),
	    cmocka_unit_test(arm64_1g_kernel_rw_block_is_xn),
	    cmocka_unit_test(arm64_table_descriptor),
	    cmocka_unit_test(arm64_invalid_descriptors_decode_as_not_present),
	    cmocka_unit_test(every_leaf_round_trips_through_decode),
	    cmocka_unit_test(table_test_agrees_with_decode),
	    cmocka_unit_test(page_test_agrees_with_decode),
	    cmocka_unit_test(prot_none_leaves_are_the_os_pages_not_the_walkers),
	    cmocka_unit_test(index_and_shift_follow_the_9_bit_radix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
