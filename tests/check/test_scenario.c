/* SPDX-License-Identifier: MIT */
/*
 * Scenario files (src/check/scenario.c, docs/scenarios.md) as input: a bad
 * directive names its line, column and byte offset; a long comment line
 * read in pieces never turns into a directive; the bounds of struct
 * tlbsim_scenario_opts (max_events, max_cycles) hold; a scenario whose
 * order waits on a thread nothing creates is an error at once; a repeated
 * directive, an expected event past the last, an empty file, ets2 on x86,
 * an unknown machine or policy, a kernel-level instruction of the other
 * ISA are input errors at their line; so is, in a kernel-level replay, a
 * PCID or ASID wider than the machine's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "support/events.h"
#include "support/machines.h"
#include "tlbsim/check.h"

#define HEADER "tlbsim-trace 1 isa=x86-64 page_shift=12\n"

static char path[64];

/* Write @text to a temporary file, check it, remove it. */
static int check_text(const char *text, const struct tlbsim_scenario_opts *opts,
		      struct tlbsim_scenario_result *res, struct tlbsim_error *err)
{
	int fd, rc;

	snprintf(path, sizeof(path), "/tmp/tlbsim-test-scenario-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	tlbsim_error_clear(err);
	rc = tlbsim_scenario_check(path, opts, res, err);
	unlink(path);
	return rc;
}

/*
 * "#@ mode fast": line 3; the header is 40 bytes with its newline and
 * "#@ machine generic-x86-64\n" 26, so line 3 starts at byte 66; the value
 * "fast" is at column 9 ("#@ mode " is 8 bytes), byte 66 + 8 = 74.
 */
static void a_bad_directive_names_line_column_and_byte_offset(void **state)
{
	struct tlbsim_scenario_result res;
	struct tlbsim_error err;

	(void)state;
	assert_int_equal(check_text(HEADER "#@ machine generic-x86-64\n#@ mode fast\n"
					   "#@ expect safe\nproc_create 1 1\n",
				    NULL, &res, &err),
			 -TLBSIM_EPARSE);
	assert_string_equal(err.source, path);
	assert_int_equal(err.line, 3);
	assert_int_equal(err.column, 9);
	assert_int_equal(err.offset, 74);
	assert_non_null(strstr(err.text, "mode is 'os' or 'kernel', found 'fast'"));
	free(res.stats);
}

/* A comment of 1100 bytes: its piece after the first 1023 bytes starts
 * with "#@ bogus", which must not be read as a directive. */
static void a_long_comment_line_is_never_a_directive(void **state)
{
	struct tlbsim_scenario_result res;
	struct tlbsim_error err;
	char text[2048], comment[1200];

	(void)state;
	memset(comment, 'x', sizeof(comment));
	comment[0] = '#';
	memcpy(comment + 1023, "#@ bogus", 8);
	comment[1100] = '\0';
	snprintf(text, sizeof(text),
		 HEADER "#@ machine generic-x86-64\n%s\n#@ expect safe\nproc_create 1 1\n",
		 comment);
	assert_int_equal(check_text(text, NULL, &res, &err), 0);
	assert_true(res.passed);
	free(res.stats);
}

/*
 * Process 1 maps a page and writes it 3 times: with max_events 2 only
 * proc_create and mmap run, so "events_read" is 2 in the statistics.
 */
static void max_events_runs_only_the_first_events(void **state)
{
	struct tlbsim_scenario_opts opts = {.max_events = 2};
	struct tlbsim_scenario_result res;
	struct tlbsim_error err;

	(void)state;
	assert_int_equal(check_text(HEADER "#@ machine generic-x86-64\n#@ expect safe\n"
					   "proc_create 1 1\n"
					   "T1 mmap 0x10000000 0x1000 rw- private,anon\n"
					   "T1 store 0x10000000 8\nT1 store 0x10000000 8\n"
					   "T1 store 0x10000000 8\n",
				    &opts, &res, &err),
			 0);
	assert_non_null(strstr(res.stats, "\"events_read\": 2,"));
	free(res.stats);
}

/* 10^12 cycles of compute, stopped at 10^6: the run is partial and ends. */
static void max_cycles_stops_a_long_run(void **state)
{
	struct tlbsim_scenario_opts opts = {.max_cycles = 1000000};
	struct tlbsim_scenario_result res;
	struct tlbsim_error err;

	(void)state;
	assert_int_equal(check_text(HEADER "#@ machine generic-x86-64\n#@ expect safe\n"
					   "proc_create 1 1\nT1 compute 1000000000000 cycles\n",
				    &opts, &res, &err),
			 0);
	assert_non_null(strstr(res.stats, "\"partial\": true"));
	free(res.stats);
}

/* tests/fuzz/regressions/scenario/thread_never_created_stalls_ordered_replay,
 * cut down: event 1 is thread 3's, and nothing creates thread 3. */
static void an_order_waiting_on_a_thread_never_created_is_an_error(void **state)
{
	struct tlbsim_scenario_result res;
	struct tlbsim_error err;

	(void)state;
	assert_int_equal(check_text(HEADER
				    "#@ machine generic-x86-64\n#@ expect safe\n"
				    "proc_create 1 1\nT3 thread_create 2\nT1 load 0x1000 8\n",
				    NULL, &res, &err),
			 -TLBSIM_EINVAL);
	assert_string_equal(err.source, path);
	assert_non_null(strstr(err.text, "ordered replay is stuck: event 1 cannot start: its "
					 "thread 3 was not created by an earlier event"));
	free(res.stats);
}

/*
 * Exploring a sleep and its wake: after the set-up (events 0-3), T1's list
 * is [sleep, load] and T2's [wake]: 3 interleavings (the wake first,
 * between, last).  With the wake last, T1's load comes after its sleep and
 * before any wake: that order cannot run and is skipped, counted apart; the
 * other two run (a wake before the sleep is a token).  Before issue 25 the
 * impossible order was an error for the whole file.
 */
static void an_impossible_interleaving_is_skipped_and_counted(void **state)
{
	struct tlbsim_scenario_opts opts = {.explore = 1};
	struct tlbsim_scenario_result res;
	struct tlbsim_error err;

	(void)state;
	assert_int_equal(check_text(HEADER "#@ machine generic-x86-64\n#@ explore safe\n"
					   "#@ expect safe\nproc_create 1 1\nT1 thread_create 2\n"
					   "T1@cpu0 switch\nT2@cpu1 switch\nT1 sleep\nT2 wake 1\n"
					   "T1 load 0x1000 8\n",
				    &opts, &res, &err),
			 0);
	assert_int_equal(res.explored, 2);
	assert_int_equal(res.skipped, 1);
	assert_int_equal(res.hazardous, 0);
	assert_true(res.exhausted);
	assert_true(res.passed);
	free(res.stats);
}

/*
 * Line 3 "#@ policy x86-stock" starts at byte 66; line 4 "#@ policy
 * flush-all" at 66 + 20 = 86, its key at column 4 ("#@ " is 3 bytes),
 * byte 89.  Before the fix the second silently replaced the first.
 */
static void a_second_policy_directive_names_both_lines(void **state)
{
	struct tlbsim_scenario_result res;
	struct tlbsim_error err;

	(void)state;
	assert_int_equal(check_text(HEADER "#@ machine generic-x86-64\n#@ policy x86-stock\n"
					   "#@ policy flush-all\n#@ expect safe\nproc_create 1 1\n",
				    NULL, &res, &err),
			 -TLBSIM_EPARSE);
	assert_string_equal(err.source, path);
	assert_int_equal(err.line, 4);
	assert_int_equal(err.column, 4);
	assert_int_equal(err.offset, 89);
	assert_non_null(strstr(err.text, "a second '#@ policy' directive; the first is on line 3"));
}

/* Two ets2 lines add up: cpus 0 and 1 of generic-arm64 (4 cpus) run. */
static void two_ets2_lines_add_up(void **state)
{
	struct tlbsim_scenario_result res;
	struct tlbsim_error err;

	(void)state;
	assert_int_equal(check_text("tlbsim-trace 1 isa=arm64 page_shift=12\n"
				    "#@ machine generic-arm64\n#@ ets2 0\n#@ ets2 1\n"
				    "#@ expect safe\nproc_create 1 1\n",
				    NULL, &res, &err),
			 0);
	assert_true(res.passed);
	free(res.stats);
}

/*
 * One event (index 0), and "#@ expect stale_use@999" on line 3 (byte 66):
 * the item is at column 11 ("#@ expect " is 10 bytes), byte 76.  Before
 * the fix this ran and failed instead of naming the directive.
 */
static void an_expected_event_past_the_last_is_an_error_at_its_directive(void **state)
{
	struct tlbsim_scenario_result res;
	struct tlbsim_error err;

	(void)state;
	assert_int_equal(check_text(HEADER "#@ machine generic-x86-64\n"
					   "#@ expect stale_use@999\nproc_create 1 1\n",
				    NULL, &res, &err),
			 -TLBSIM_EPARSE);
	assert_int_equal(err.line, 3);
	assert_int_equal(err.column, 11);
	assert_int_equal(err.offset, 76);
	assert_non_null(strstr(err.text, "expect names event 999, but the scenario has 1 events"));
}

/* An empty file lacks its header first, not its machine directive. */
static void an_empty_scenario_says_it_is_empty(void **state)
{
	struct tlbsim_scenario_result res;
	struct tlbsim_error err;

	(void)state;
	assert_int_equal(check_text("", NULL, &res, &err), -TLBSIM_EPARSE);
	assert_int_equal(err.line, 1);
	assert_non_null(strstr(err.text, "the scenario is empty"));
	assert_null(strstr(err.text, "names its machine"));
}

/* "#@ ets2 0" on line 3 (byte 66), value at column 9, byte 74: FEAT_ETS2
 * is Arm's, and generic-x86-64 is an x86 machine. */
static void ets2_on_an_x86_machine_is_an_error_at_its_line(void **state)
{
	struct tlbsim_scenario_result res;
	struct tlbsim_error err;

	(void)state;
	assert_int_equal(check_text(HEADER "#@ machine generic-x86-64\n#@ ets2 0\n"
					   "#@ expect safe\nproc_create 1 1\n",
				    NULL, &res, &err),
			 -TLBSIM_EPARSE);
	assert_int_equal(err.line, 3);
	assert_int_equal(err.column, 9);
	assert_int_equal(err.offset, 74);
	assert_non_null(strstr(err.text, "ets2 is an Arm feature"));
}

/* "#@ machine nosuch" is line 2 (byte 40), its value at column 12
 * ("#@ machine " is 11 bytes), byte 51: the scenario, not "nosuch". */
static void an_unknown_machine_is_reported_at_its_directive(void **state)
{
	struct tlbsim_scenario_result res;
	struct tlbsim_error err;

	(void)state;
	assert_int_equal(check_text(HEADER "#@ machine nosuch\n#@ expect safe\nproc_create 1 1\n",
				    NULL, &res, &err),
			 -TLBSIM_ENOENT);
	assert_string_equal(err.source, path);
	assert_int_equal(err.line, 2);
	assert_int_equal(err.column, 12);
	assert_int_equal(err.offset, 51);
	assert_non_null(strstr(err.text, "no machine named 'nosuch'"));
}

/* "#@ policy nosuch" is line 3 (byte 66), its value at column 11, byte 76. */
static void an_unknown_policy_is_reported_at_its_directive(void **state)
{
	struct tlbsim_scenario_result res;
	struct tlbsim_error err;

	(void)state;
	assert_int_equal(check_text(HEADER "#@ machine generic-x86-64\n#@ policy nosuch\n"
					   "#@ expect safe\nproc_create 1 1\n",
				    NULL, &res, &err),
			 -TLBSIM_ENOENT);
	assert_string_equal(err.source, path);
	assert_int_equal(err.line, 3);
	assert_int_equal(err.column, 11);
	assert_int_equal(err.offset, 76);
	assert_non_null(strstr(err.text, "unknown policy 'nosuch'"));
}

/*
 * Kernel-level replay runs an instruction only on its own ISA: INVLPG,
 * INVPCID (Intel SDM vol. 2), INVLPGB, TLBSYNC (AMD APM vol. 3) and a CR3
 * load are x86's; TLBI, TLBI RVA* and a TTBR load (Arm ARM C5.5) arm64's.
 * The formats take any kind in any trace, so one on the other ISA's
 * machine is an input error at its event: the scenario's 6th line (header,
 * 3 directives, "cpu0 isb"), event 1.  (Each but cr3_write and ttbr_write
 * once aborted the replay in hw/smp.c: "local TLB maintenance on the wrong
 * ISA or operand".)
 */
static void an_instruction_of_the_other_isa_is_an_error_at_its_event(void **state)
{
	static const struct {
		const char *machine, *isa, *line, *kind, *want;
	} c[] = {
	    {"generic-arm64", "arm64", "cpu0 invlpg 0x1000", "invlpg", "x86-64"},
	    {"generic-arm64", "arm64", "cpu0 invpcid 2", "invpcid", "x86-64"},
	    {"generic-arm64", "arm64", "cpu0 invlpgb 0x0 1 12", "invlpgb", "x86-64"},
	    {"generic-arm64", "arm64", "cpu0 tlbsync", "tlbsync", "x86-64"},
	    {"generic-arm64", "arm64", "cpu0 cr3_write 0x1", "cr3_write", "x86-64"},
	    {"generic-x86-64", "x86-64", "cpu0 tlbi vae1is va=0x1000 asid=5", "tlbi", "arm64"},
	    {"generic-x86-64", "x86-64", "cpu0 tlbi vmalle1", "tlbi", "arm64"},
	    {"generic-x86-64", "x86-64", "cpu0 tlbi_range rvae1is 0x1000 2 asid=3", "tlbi_range",
	     "arm64"},
	    {"generic-x86-64", "x86-64", "cpu0 ttbr_write ttbr0 0x1", "ttbr_write", "arm64"},
	};
	struct tlbsim_scenario_result res;
	struct tlbsim_error err;
	char text[512], want[128];

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		snprintf(text, sizeof(text),
			 "tlbsim-trace 1 isa=%s page_shift=12\n#@ machine %s\n#@ mode kernel\n"
			 "#@ expect safe\ncpu0 isb\n%s\n",
			 c[i].isa, c[i].machine, c[i].line);
		assert_int_equal(check_text(text, NULL, &res, &err), -TLBSIM_EINVAL);
		assert_int_equal(err.line, 6);
		snprintf(want, sizeof(want), "event 1: %s is an %s instruction, but the machine is %s",
			 c[i].kind, c[i].want, c[i].isa);
		assert_non_null(strstr(err.text, want));
	}
}

/*
 * INVLPGB and TLBSYNC raise #UD on a machine without them (CPUID
 * Fn8000_0008 EBX[3] clear), and INVLPGB #GP when it names more pages than
 * Fn8000_0008 EDX[15:0] + 1 (AMD APM vol. 3): the machine's
 * invlpgb_max_pages, 0 on x86-16 (Intel-like) and 8 on milan-36
 * (CALIBRATION.md 5.7).  Replayed on such a machine, each is an input
 * error at its event, event 1; 8 pages on milan-36 run.  (The model once
 * served all three.)
 */
static void an_invlpgb_the_machine_cannot_run_is_an_error_at_its_event(void **state)
{
	static const struct {
		const char *machine, *line, *want;
	} c[] = {
	    {"x86-16", "cpu0 invlpgb 0x1000 1 12 flags=va",
	     "event 1: invlpgb, but the machine has no INVLPGB/TLBSYNC (invlpgb_max_pages 0)"},
	    {"x86-16", "cpu0 tlbsync",
	     "event 1: tlbsync, but the machine has no INVLPGB/TLBSYNC (invlpgb_max_pages 0)"},
	    {"milan-36", "cpu0 invlpgb 0x1000 9 12 flags=va",
	     "event 1: invlpgb of 9 pages, but the machine's INVLPGB names 8 at most"},
	    {"milan-36", "cpu0 invlpgb 0x1000 8 12 flags=va", NULL},
	};
	struct tlbsim_scenario_result res;
	struct tlbsim_error err;
	char text[512];

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		snprintf(text, sizeof(text),
			 "tlbsim-trace 1 isa=x86-64 page_shift=12\n#@ machine %s\n#@ mode kernel\n"
			 "#@ expect safe\ncpu0 isb\n%s\n",
			 c[i].machine, c[i].line);
		if (!c[i].want) {
			assert_int_equal(check_text(text, NULL, &res, &err), 0);
			assert_true(res.passed);
			free(res.stats);
			continue;
		}
		assert_int_equal(check_text(text, NULL, &res, &err), -TLBSIM_EINVAL);
		assert_int_equal(err.line, 6);
		assert_non_null(strstr(err.text, c[i].want));
	}
}

/* Replay two events on cpu 0 of @m: table_alloc of name 0x10 at the top
 * level, then a load of it as the root with context tag @tag. */
static int replay_root_load(struct tlbsim_machine *m, uint16_t tag, struct tlbsim_error *err)
{
	struct tlbsim_replay_config cfg = {.machine = m, .ordered = 1, .check = 1};
	struct evlist l = {0};
	struct tlbsim_event *e;
	char *stats = NULL;
	int rc;

	e = ev_add(&l, TLBSIM_EV_TABLE_ALLOC, 0);
	e->cpu = 0;
	e->table_alloc.pfn = 0x10;
	e->table_alloc.level = (uint8_t)(m->pt_levels - 1);
	if (m->isa == TLBSIM_ISA_X86_64) {
		e = ev_add(&l, TLBSIM_EV_CR3_WRITE, 0);
		e->cr3_write.root_pfn = 0x10;
		e->cr3_write.pcid = tag;
	} else {
		e = ev_add(&l, TLBSIM_EV_TTBR_WRITE, 0);
		e->ttbr_write.which = 0;
		e->ttbr_write.root_pfn = 0x10;
		e->ttbr_write.asid = tag;
	}
	e->cpu = 0;
	tlbsim_error_clear(err);
	rc = tlbsim_replay_run(&cfg, evlist_next, &l, &stats, err);
	free(stats);
	evlist_free(&l);
	return rc;
}

/*
 * A context tag wider than the machine's (asid_bits) is an input error at
 * its event, event 1: an x86 machine without PCIDs uses PCID 0 only (Intel
 * SDM vol. 3 4.10.1), so PCID 5 is out and 0 in; an arm64 machine with
 * 8-bit ASIDs holds 0..255, so 256 is out and 255 in.  (Both once aborted
 * the replay in hw/smp.c: tlbsim_mmu_write_cr3()/_ttbr0() refuse them with
 * -TLBSIM_ERANGE.)
 */
static void a_context_tag_wider_than_the_machine_is_an_error_at_its_event(void **state)
{
	struct tlbsim_machine *x86 = test_machine(TLBSIM_ISA_X86_64, 2);
	struct tlbsim_machine *arm = test_machine(TLBSIM_ISA_ARM64, 2);
	struct tlbsim_error err;

	(void)state;
	x86->asid_bits = 0;
	assert_int_equal(replay_root_load(x86, 5, &err), -TLBSIM_EINVAL);
	assert_non_null(strstr(err.text, "event 1: PCID 5 does not fit the machine's 0-bit PCIDs"));
	assert_int_equal(replay_root_load(x86, 0, &err), 0);
	arm->asid_bits = 8;
	assert_int_equal(replay_root_load(arm, 256, &err), -TLBSIM_EINVAL);
	assert_non_null(strstr(err.text, "event 1: ASID 256 does not fit the machine's 8-bit ASIDs"));
	assert_int_equal(replay_root_load(arm, 255, &err), 0);
	tlbsim_machine_free(x86);
	tlbsim_machine_free(arm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(a_bad_directive_names_line_column_and_byte_offset),
	    cmocka_unit_test(a_long_comment_line_is_never_a_directive),
	    cmocka_unit_test(max_events_runs_only_the_first_events),
	    cmocka_unit_test(max_cycles_stops_a_long_run),
	    cmocka_unit_test(an_order_waiting_on_a_thread_never_created_is_an_error),
	    cmocka_unit_test(an_impossible_interleaving_is_skipped_and_counted),
	    cmocka_unit_test(a_second_policy_directive_names_both_lines),
	    cmocka_unit_test(two_ets2_lines_add_up),
	    cmocka_unit_test(an_expected_event_past_the_last_is_an_error_at_its_directive),
	    cmocka_unit_test(an_empty_scenario_says_it_is_empty),
	    cmocka_unit_test(ets2_on_an_x86_machine_is_an_error_at_its_line),
	    cmocka_unit_test(an_unknown_machine_is_reported_at_its_directive),
	    cmocka_unit_test(an_unknown_policy_is_reported_at_its_directive),
	    cmocka_unit_test(an_instruction_of_the_other_isa_is_an_error_at_its_event),
	    cmocka_unit_test(an_invlpgb_the_machine_cannot_run_is_an_error_at_its_event),
	    cmocka_unit_test(a_context_tag_wider_than_the_machine_is_an_error_at_its_event),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
