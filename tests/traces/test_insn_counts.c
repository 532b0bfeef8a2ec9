/* SPDX-License-Identifier: MIT */
/*
 * The count of unknown instructions by mnemonic (traces/insn_events.c,
 * tlbsim_trace_insn_counts()): never dropped silently, so the counts add
 * up to the total even past the XL_MAX_MNEMONICS (512) names kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "traces/execlog.h"

/*
 * 600 distinct names, then the first name again: 511 names keep a slot
 * each (name 0 twice), and the 89 names from 511 to 599 share the last
 * slot, "(other)".  Total 601 = 2 + 510 + 89.
 */
static void counts_add_up_when_names_overflow(void **state)
{
	struct tlbsim_trace_stats st = {0};
	struct xl_sink s = {.stats = &st};
	struct tlbsim_trace_insn_count out[XL_MAX_MNEMONICS];
	uint64_t sum = 0;
	char name[32];
	size_t n;

	(void)state;
	s.mn = calloc(XL_MAX_MNEMONICS, sizeof(*s.mn));
	assert_non_null(s.mn);
	for (int i = 0; i < 600; i++) {
		snprintf(name, sizeof(name), "insn%d", i);
		xl_count_unknown(&s, name);
	}
	xl_count_unknown(&s, "insn0");
	assert_int_equal(st.unknown_insns, 601);
	n = xl_insn_counts(&s, out, XL_MAX_MNEMONICS);
	assert_int_equal(n, XL_MAX_MNEMONICS);
	for (size_t i = 0; i < n; i++)
		sum += out[i].count;
	assert_int_equal(sum, 601);
	/* most frequent first */
	assert_string_equal(out[0].mnemonic, "(other)");
	assert_int_equal(out[0].count, 89);
	assert_string_equal(out[1].mnemonic, "insn0");
	assert_int_equal(out[1].count, 2);
	free(s.mn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(counts_add_up_when_names_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
