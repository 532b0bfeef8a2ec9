/* SPDX-License-Identifier: MIT */
/*
 * OS-model options as text (src/os/options.c): tlbsim_os_options_parse()
 * reads what `tlbsim run --os` and a scenario's "#@ os" line give, and
 * tlbsim_os_options_format() writes every option back in that syntax.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tlbsim/error.h"
#include "tlbsim/sim.h"

static void every_option_is_read(void **state)
{
	unsigned f = 0;

	(void)state;
	assert_int_equal(
	    tlbsim_os_options_parse("fault_lock=mm,lru_add_drain=1", &f, NULL, 0, NULL), 0);
	assert_int_equal(f, TLBSIM_OS_FAULT_LOCK_MM | TLBSIM_OS_LRU_ADD_DRAIN);
	assert_int_equal(
	    tlbsim_os_options_parse("fault_lock=lockless per_vma_lock=1", &f, NULL, 0, NULL), 0);
	assert_int_equal(f, TLBSIM_OS_FAULT_LOCKLESS | TLBSIM_OS_PER_VMA_LOCK);
	/* A bare 0/1 key means 1 (the scenarios' old "#@ os no_nested_flush"). */
	assert_int_equal(tlbsim_os_options_parse("no_nested_flush", &f, NULL, 0, NULL), 0);
	assert_int_equal(f, TLBSIM_OS_NO_NESTED_FLUSH);
	/* Later items win; split is the default, clearing the mode. */
	assert_int_equal(tlbsim_os_options_parse("fault_lock=mm,fault_lock=split,lru_add_drain=1,"
						 "lru_add_drain=0",
						 &f, NULL, 0, NULL),
			 0);
	assert_int_equal(f, 0);
	assert_int_equal(tlbsim_os_options_parse("", &f, NULL, 0, NULL), 0);
	assert_int_equal(f, 0);
}

static void a_bad_item_is_named_at_its_offset(void **state)
{
	char why[256];
	unsigned f = 7;
	size_t at = 0;

	(void)state;
	assert_int_equal(
	    tlbsim_os_options_parse("lru_add_drain=1,fault_lock=pte", &f, why, sizeof(why), &at),
	    -TLBSIM_EINVAL);
	assert_int_equal(at, 16);
	assert_string_equal(why, "fault_lock is mm, split or lockless, found 'fault_lock=pte'");
	assert_int_equal(f, 7); /* untouched on failure */
	assert_int_equal(tlbsim_os_options_parse("lru_add_drain=2", &f, why, sizeof(why), &at),
			 -TLBSIM_EINVAL);
	assert_string_equal(why, "expected KEY=0 or KEY=1, found 'lru_add_drain=2'");
	assert_int_equal(tlbsim_os_options_parse("nested", &f, why, sizeof(why), &at),
			 -TLBSIM_EINVAL);
	assert_non_null(strstr(why, "found 'nested'"));
	/* Empty items: two commas in a row, a leading or a trailing comma
	 * (offsets counted by hand from the strings). */
	assert_int_equal(tlbsim_os_options_parse("lru_add_drain=1,,per_vma_lock=1", &f, why,
						 sizeof(why), &at),
			 -TLBSIM_EINVAL);
	assert_int_equal(at, 16);
	assert_string_equal(why, "expected key=value, found an empty item");
	assert_int_equal(tlbsim_os_options_parse(",lru_add_drain=1", &f, why, sizeof(why), &at),
			 -TLBSIM_EINVAL);
	assert_int_equal(at, 0);
	assert_int_equal(tlbsim_os_options_parse("per_vma_lock=1, ", &f, why, sizeof(why), &at),
			 -TLBSIM_EINVAL);
	assert_int_equal(at, 16);
	assert_string_equal(why, "expected key=value after ',', found the end");
	assert_int_equal(f, 7);
	/* One comma with blanks around it is one separator. */
	assert_int_equal(tlbsim_os_options_parse(" lru_add_drain=1 , per_vma_lock=1", &f, NULL, 0,
						 NULL),
			 0);
	assert_int_equal(f, TLBSIM_OS_LRU_ADD_DRAIN | TLBSIM_OS_PER_VMA_LOCK);
}

static void format_writes_what_parse_reads(void **state)
{
	const unsigned all[] = {0, TLBSIM_OS_FAULT_LOCK_MM | TLBSIM_OS_NO_NESTED_FLUSH,
				TLBSIM_OS_FAULT_LOCKLESS | TLBSIM_OS_LRU_ADD_DRAIN |
				    TLBSIM_OS_PER_VMA_LOCK,
				/* every mutation with every option: the longest */
				TLBSIM_OS_FAULT_LOCKLESS | TLBSIM_OS_LRU_ADD_DRAIN |
				    TLBSIM_OS_PER_VMA_LOCK | TLBSIM_OS_NO_NESTED_FLUSH |
				    TLBSIM_OS_NO_BATCHED_PENDING | TLBSIM_OS_RECLAIM_CPUMASK_ONLY |
				    TLBSIM_OS_MREMAP_LATE_FLUSH | TLBSIM_OS_NESTED_RESET_RANGE};
	char buf[256];
	unsigned f;
	int n;

	(void)state;
	n = tlbsim_os_options_format(0, buf, sizeof(buf));
	assert_int_equal(n, (int)strlen(buf));
	assert_string_equal(buf,
			    "fault_lock=split,lru_add_drain=0,per_vma_lock=0,no_nested_flush=0");
	/* A mutation is written only when set, after the four options. */
	(void)tlbsim_os_options_format(TLBSIM_OS_MREMAP_LATE_FLUSH, buf, sizeof(buf));
	assert_string_equal(buf, "fault_lock=split,lru_add_drain=0,per_vma_lock=0,"
				 "no_nested_flush=0,mremap_late_flush=1");
	for (unsigned i = 0; i < 4; i++) {
		n = tlbsim_os_options_format(all[i], buf, sizeof(buf));
		assert_true(n < (int)sizeof(buf));
		assert_int_equal(tlbsim_os_options_parse(buf, &f, NULL, 0, NULL), 0);
		assert_int_equal(f, all[i]);
	}
}

/* The two locking modes together are refused by tlbsim_sim_create(). */
static void both_fault_lock_modes_are_refused(void **state)
{
	struct tlbsim_machine *m = tlbsim_machine_create_default(TLBSIM_ISA_X86_64);
	struct tlbsim_sim_config cfg = {
	    .machine = m, .os_flags = TLBSIM_OS_FAULT_LOCK_MM | TLBSIM_OS_FAULT_LOCKLESS};
	struct tlbsim_error err;
	tlbsim_sim *sim = NULL;

	(void)state;
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_sim_create(&cfg, &sim, &err), -TLBSIM_EINVAL);
	assert_null(sim);
	assert_non_null(strstr(err.text, "one page-fault locking mode expected"));
	tlbsim_machine_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_option_is_read),
	    cmocka_unit_test(a_bad_item_is_named_at_its_offset),
	    cmocka_unit_test(format_writes_what_parse_reads),
	    cmocka_unit_test(both_fault_lock_modes_are_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
