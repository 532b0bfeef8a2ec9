/* SPDX-License-Identifier: MIT */
/*
 * The valgrind lackey log reader (traces/read_lackey.c, lackey_syscall.c):
 * a real log excerpt against events worked out by hand
 * (lackey_excerpt.h), the small rules one at a time, and the malformed
 * logs of tests/data/traces/lackey/invalid/ (see trace_test.h).
 */
#include "lackey_excerpt.h"
#include "trace_test.h"

#define INVALID_DIR "tests/data/traces/lackey/invalid"

/* The banner and thread 1 holding the lock: 76 bytes, two lines. */
#define START "==7== Lackey, an example Valgrind tool\n--7--   SCHED[1]:  acquired lock (x)\n"

/* Read all of @r, expecting the lines @want in order, then the clean end. */
static void expect_reader(tlbsim_trace_reader *r, const char *const *want, size_t n)
{
	struct tlbsim_event ev;
	struct tlbsim_error err;
	char line[TLBSIM_EVENT_LINE_MAX];
	size_t i = 0;
	int rc;

	tlbsim_error_clear(&err);
	while ((rc = tlbsim_trace_next(r, &ev, &err)) == 1) {
		tlbsim_event_format(&ev, line, sizeof(line));
		if (i >= n)
			fail_msg("event %zu '%s': only %zu expected", i, line, n);
		assert_string_equal(line, want[i]);
		i++;
	}
	if (rc < 0)
		fail_msg("%s:%d:%d: %s", err.source, err.line, err.column, err.text);
	assert_int_equal(i, n);
}

static tlbsim_trace_reader *open_text(const char *text)
{
	tlbsim_trace_reader *r = NULL;
	struct tlbsim_error err;

	tlbsim_error_clear(&err);
	if (tlbsim_trace_open_mem(text, strlen(text), "<log>", TLBSIM_TRACE_AUTO, &r, &err))
		fail_msg("%s:%d:%d: %s", err.source, err.line, err.column, err.text);
	return r;
}

static void excerpt_gives_the_hand_worked_events(void **state)
{
	size_t n = sizeof(lackey_excerpt_events) / sizeof(lackey_excerpt_events[0]);
	struct tlbsim_trace_stats st;
	const struct tlbsim_trace_info *info;
	tlbsim_trace_reader *r;
	struct tlbsim_error err;

	tlbsim_error_clear(&err);
	/* recognised by its first line, "==6944== Lackey, ..." */
	assert_int_equal(tlbsim_trace_open(LACKEY_EXCERPT, TLBSIM_TRACE_AUTO, &r, &err), 0);
	info = tlbsim_trace_info(r);
	assert_int_equal(info->format, TLBSIM_TRACE_LACKEY);
	assert_int_equal(info->isa, TLBSIM_ISA_X86_64);
	assert_int_equal(info->page_shift, 12);
	/* lines 3 and 4: "Using Valgrind-3.19.0 ..." and "Command: ./excerpt" */
	assert_string_equal(info->source, "valgrind-3.19.0 lackey: ./excerpt");
	expect_reader(r, lackey_excerpt_events, n);
	tlbsim_trace_stats(r, &st);
	assert_int_equal(st.events, n);
	assert_int_equal(st.unknown_lines, 0);
	assert_int_equal(st.first_unknown_line, 0);
	assert_int_equal(st.implied_mmaps, LACKEY_EXCERPT_IMPLIED);
	tlbsim_trace_close(r);
}

static void unknown_lines_are_counted_and_the_first_kept(void **state)
{
	/* lines 3 and 5 are of no known shape; "==7== ..." commentary and
	 * blank lines are known and skipped without counting */
	static const char text[] = START "--7-- WARNING: unhandled syscall\n"
					 "==7== Process terminating\n"
					 "hello from the program\n"
					 "\n"
					 "I  1000,4\n";
	static const char *const want[] = {
	    "proc_create 7 7",
	    "T7 mmap 0x1000 0x1000 rwx private",
	    "T7 fetch 0x1000 4",
	};
	tlbsim_trace_reader *r = open_text(text);
	struct tlbsim_trace_stats st;

	expect_reader(r, want, 3);
	tlbsim_trace_stats(r, &st);
	assert_int_equal(st.unknown_lines, 2);
	assert_int_equal(st.first_unknown_line, 3);
	assert_string_equal(st.first_unknown, "--7-- WARNING: unhandled syscall");
	assert_int_equal(st.implied_mmaps, 1);
	tlbsim_trace_close(r);
}

static void a_modify_is_a_load_then_a_store(void **state)
{
	/* lackey's "M": a read-modify-write of one location (lk_main.c) */
	static const char text[] = START " M 2008,8\n";
	static const char *const want[] = {
	    "proc_create 7 7",
	    "T7 mmap 0x2000 0x1000 rwx private",
	    "T7 load 0x2008 8",
	    "T7 store 0x2008 8",
	};
	tlbsim_trace_reader *r = open_text(text);

	expect_reader(r, want, 4);
	tlbsim_trace_close(r);
}

static void an_access_across_pages_implies_both(void **state)
{
	/* 0x2ffc + 8 bytes ends at 0x3003: pages 0x2000 and 0x3000; after the
	 * first mmap only 0x3000 is missing for the second access */
	static const char text[] = START " L 2ffc,8\n L 3ffc,8\n";
	static const char *const want[] = {
	    "proc_create 7 7",	"T7 mmap 0x2000 0x2000 rwx private",
	    "T7 load 0x2ffc 8", "T7 mmap 0x4000 0x1000 rwx private",
	    "T7 load 0x3ffc 8",
	};
	tlbsim_trace_reader *r = open_text(text);

	expect_reader(r, want, 5);
	tlbsim_trace_close(r);
}

static void munmap_and_brk_shrink_forget_the_pages(void **state)
{
	/* After munmap of [0x10000, 0x12000) and brk from 0x22800 down to
	 * 0x21000 (pages from 0x21000 up go: mm/mmap.c unmaps
	 * [PAGE_ALIGN(new), PAGE_ALIGN(old)) = [0x21000, 0x23000)), touching
	 * them again implies them again; 0x20000 stays heap. */
	static const char text[] =
	    START "SYSCALL[7,1](9) sys_mmap ( 0x0, 8192, 3, 34, 4294967295, 0 ) --> "
		  "[pre-success] Success(0x10000) \n"
		  "SYSCALL[7,1](11) sys_munmap ( 0x10000, 8192 )[sync] --> Success(0x0) \n"
		  " L 11000,4\n"
		  "SYSCALL[7,1](12) sys_brk ( 0x0 ) --> [pre-success] Success(0x20000) \n"
		  "SYSCALL[7,1](12) sys_brk ( 0x22800 ) --> [pre-success] Success(0x22800) \n"
		  "SYSCALL[7,1](12) sys_brk ( 0x21000 ) --> [pre-success] Success(0x21000) \n"
		  " S 20ff8,8\n"
		  " S 21000,8\n";
	static const char *const want[] = {
	    "proc_create 7 7",		"T7 mmap 0x10000 0x2000 rw- private,anon",
	    "T7 munmap 0x10000 0x2000", "T7 mmap 0x11000 0x1000 rwx private",
	    "T7 load 0x11000 4",	"T7 brk 0x20000",
	    "T7 brk 0x22800",		"T7 brk 0x21000",
	    "T7 store 0x20ff8 8",	"T7 mmap 0x21000 0x1000 rwx private",
	    "T7 store 0x21000 8",
	};
	tlbsim_trace_reader *r = open_text(text);

	expect_reader(r, want, 11);
	tlbsim_trace_close(r);
}

static void failed_syscalls_and_other_advice_make_no_event(void **state)
{
	/* munmap of 0 bytes fails (EINVAL = 0x16); MADV_HUGEPAGE (14) changes
	 * no page table; MADV_FREE (8) does; mprotect's prot 7 = rwx */
	static const char text[] =
	    START "SYSCALL[7,1](11) sys_munmap ( 0x4a2c000, 0 )[sync] --> Failure(0x16) \n"
		  "SYSCALL[7,1](9) sys_mmap ( 0x0, 4096, 3, 34, 4294967295, 0 ) --> "
		  "[pre-success] Success(0x4a2c000) \n"
		  "SYSCALL[7,1](28) sys_madvise ( 0x4a2c000, 4096, 14 ) --> [async] ... \n"
		  "SYSCALL[7,1](28) ... [async] --> Success(0x0) \n"
		  "SYSCALL[7,1](28) sys_madvise ( 0x4a2c000, 4096, 8 ) --> [async] ... \n"
		  "SYSCALL[7,1](28) ... [async] --> Success(0x0) \n"
		  "SYSCALL[7,1](10) sys_mprotect ( 0x4a2c000, 4096, 7 )[sync] --> Success(0x0) \n";
	static const char *const want[] = {
	    "proc_create 7 7",
	    "T7 mmap 0x4a2c000 0x1000 rw- private,anon",
	    "T7 madvise 0x4a2c000 0x1000 free",
	    "T7 mprotect 0x4a2c000 0x1000 rwx",
	};
	tlbsim_trace_reader *r = open_text(text);

	expect_reader(r, want, 4);
	tlbsim_trace_close(r);
}

static void mmap_flags_follow_linux(void **state)
{
	/* flags 1 = MAP_SHARED; 0x40022 = MAP_HUGETLB|MAP_ANONYMOUS|MAP_PRIVATE
	 * (2 MiB default size); 0x78040022 adds MAP_HUGE_1GB = 30 << 26 */
	static const char text[] =
	    START "SYSCALL[7,1](9) sys_mmap ( 0x0, 4096, 1, 1, 3, 0 ) --> [pre-success] "
		  "Success(0x10000) \n"
		  "SYSCALL[7,1](9) sys_mmap ( 0x0, 2097152, 3, 262178, 4294967295, 0 ) --> "
		  "[pre-success] Success(0x200000) \n"
		  "SYSCALL[7,1](9) sys_mmap ( 0x0, 1073741824, 3, 2013528098, 4294967295, 0 ) --> "
		  "[pre-success] Success(0x40000000) \n";
	static const char *const want[] = {
	    "proc_create 7 7",
	    "T7 mmap 0x10000 0x1000 r-- shared",
	    "T7 mmap 0x200000 0x200000 rw- private,anon,hugetlb",
	    "T7 mmap 0x40000000 0x40000000 rw- private,anon,hugetlb1g",
	};
	tlbsim_trace_reader *r = open_text(text);

	expect_reader(r, want, 4);
	tlbsim_trace_close(r);
}

static void other_valgrind_logs_are_not_taken_for_lackey(void **state)
{
	static const char text[] = "==7== Memcheck, a memory error detector\n";
	tlbsim_trace_reader *r = NULL;
	struct tlbsim_error err;

	tlbsim_error_clear(&err);
	assert_int_equal(
	    tlbsim_trace_open_mem(text, strlen(text), NULL, TLBSIM_TRACE_AUTO, &r, &err),
	    -TLBSIM_EPARSE);
	assert_null(r);
	assert_non_null(strstr(err.text, "(binary, text, insn, lackey, execlog; champsim only when named)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(excerpt_gives_the_hand_worked_events),
	    cmocka_unit_test(unknown_lines_are_counted_and_the_first_kept),
	    cmocka_unit_test(a_modify_is_a_load_then_a_store),
	    cmocka_unit_test(an_access_across_pages_implies_both),
	    cmocka_unit_test(munmap_and_brk_shrink_forget_the_pages),
	    cmocka_unit_test(failed_syscalls_and_other_advice_make_no_event),
	    cmocka_unit_test(mmap_flags_follow_linux),
	    cmocka_unit_test(other_valgrind_logs_are_not_taken_for_lackey),
	};
	/* at least 10 malformed inputs, as the issue asks */
	if (count_cases(INVALID_DIR) < 10)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL) |
	       run_invalid_cases("lackey_invalid", INVALID_DIR, TLBSIM_TRACE_LACKEY);
}
