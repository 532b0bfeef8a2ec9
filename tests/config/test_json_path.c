/* SPDX-License-Identifier: MIT */
/*
 * Tests of src/config/json_path.c: path rendering and the positions of values in
 * JSON text, the way the machine loader reports them.
 *
 * Every expected position below was counted by hand on DOC, line by line
 * (the line start offsets are in the comment above DOC), and re-counted by
 * a separate throwaway script.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "config/json_path.h"

/*
 * line 1, offset   0: {
 * line 2, offset   2:   "a": "x}\"]",                   a string holding } \" ]
 * line 3, offset  18:   "b": [1, {"c": [true, null]}, "]"],
 * line 4, offset  56:   "d": {"e": {}},
 * line 5, offset  74:   "f\u002eg": 2, "é": 3, "h": 4    key "f.g"; é is 2 bytes
 * line 6, offset 107: }
 * 109 bytes in all.
 */
static const char DOC[] = "{\n"
			  "  \"a\": \"x}\\\"]\",\n"
			  "  \"b\": [1, {\"c\": [true, null]}, \"]\"],\n"
			  "  \"d\": {\"e\": {}},\n"
			  "  \"f\\u002eg\": 2, \"\xc3\xa9\": 3, \"h\": 4\n"
			  "}\n";

static void expect_pos(struct jpath_pos pos, int line, int column, long long offset)
{
	assert_int_equal(pos.line, line);
	assert_int_equal(pos.column, column);
	assert_int_equal(pos.offset, offset);
}

static struct jpath_pos locate(const struct jpath *p, bool at_key)
{
	return jpath_locate(DOC, sizeof(DOC) - 1, p, at_key);
}

static void values_are_found_through_objects_and_arrays(void **state)
{
	struct jpath p = {.depth = 0};

	(void)state;
	/* Root: the '{' at 1:1. */
	expect_pos(locate(&p, false), 1, 1, 0);
	/* b[1].c[1] is null: line 3, column 25, offset 18 + 24. */
	jpath_push_key(&p, "b");
	jpath_push_index(&p, 1);
	jpath_push_key(&p, "c");
	jpath_push_index(&p, 1);
	expect_pos(locate(&p, false), 3, 25, 42);
	/* b[2] is the string "]": column 33, offset 18 + 32. */
	p.depth = 1;
	jpath_push_index(&p, 2);
	expect_pos(locate(&p, false), 3, 33, 50);
}

static void a_string_holding_brackets_and_quotes_is_skipped(void **state)
{
	struct jpath p = {.depth = 0};

	(void)state;
	/* "a" holds } \" ] which must not end or open anything. */
	jpath_push_key(&p, "a");
	expect_pos(locate(&p, false), 2, 8, 9);
	expect_pos(locate(&p, true), 2, 3, 4); /* the key "a" itself */
	p.depth = 0;
	jpath_push_key(&p, "d");
	jpath_push_key(&p, "e");
	expect_pos(locate(&p, false), 4, 14, 69);
}

static void a_missing_path_gives_the_deepest_existing_value(void **state)
{
	struct jpath p = {.depth = 0};

	(void)state;
	/* d.e.x does not exist: d.e's '{' at 4:14. */
	jpath_push_key(&p, "d");
	jpath_push_key(&p, "e");
	jpath_push_key(&p, "x");
	expect_pos(locate(&p, false), 4, 14, 69);
	/* b[5] does not exist (3 elements): b's '[' at 3:8, offset 18 + 7. */
	p.depth = 0;
	jpath_push_key(&p, "b");
	jpath_push_index(&p, 5);
	expect_pos(locate(&p, false), 3, 8, 25);
	/* An index into an object is no match either. */
	p.depth = 0;
	jpath_push_key(&p, "d");
	jpath_push_index(&p, 0);
	expect_pos(locate(&p, false), 4, 8, 63);
}

static void escaped_keys_match_and_columns_count_characters(void **state)
{
	struct jpath p = {.depth = 0};

	(void)state;
	/* "f\u002eg" is the key "f.g"; its value 2 is at 5:15, offset 74 + 14. */
	jpath_push_key(&p, "f.g");
	expect_pos(locate(&p, false), 5, 15, 88);
	/* After "é" (1 column, 2 bytes): key "h" at 5:26, offset 74 + 25 + 1. */
	p.depth = 0;
	jpath_push_key(&p, "h");
	expect_pos(locate(&p, true), 5, 26, 100);
	expect_pos(locate(&p, false), 5, 31, 105);
}

static void the_end_of_input_is_past_the_last_character(void **state)
{
	(void)state;
	/* DOC ends with "}\n": the end is line 7, column 1. */
	expect_pos(jpath_pos_at(DOC, sizeof(DOC) - 1, sizeof(DOC) - 1), 7, 1, 109);
	expect_pos(jpath_pos_at("", 0, 0), 1, 1, 0);
	expect_pos(jpath_pos_at("ab", 2, 1), 1, 2, 1);
}

static void paths_render_with_dots_indexes_and_quoted_keys(void **state)
{
	struct jpath p = {.depth = 0};
	char buf[64];

	(void)state;
	jpath_format(&p, buf, sizeof(buf));
	assert_string_equal(buf, "");
	jpath_push_key(&p, "tlb");
	jpath_push_key(&p, "l2");
	jpath_push_key(&p, "page_sizes");
	jpath_push_index(&p, 1);
	jpath_format(&p, buf, sizeof(buf));
	assert_string_equal(buf, "tlb.l2.page_sizes[1]");
	p.depth = 0;
	jpath_push_key(&p, "sources");
	jpath_push_key(&p, "tlb.l1d.entries");
	jpath_format(&p, buf, sizeof(buf));
	assert_string_equal(buf, "sources[\"tlb.l1d.entries\"]");
	/* Truncated, still NUL-terminated: "sources[" is 8 bytes + NUL. */
	jpath_format(&p, buf, 9);
	assert_string_equal(buf, "sources[");
	jpath_pop(&p);
	jpath_pop(&p);
	assert_int_equal(p.depth, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(values_are_found_through_objects_and_arrays),
	    cmocka_unit_test(a_string_holding_brackets_and_quotes_is_skipped),
	    cmocka_unit_test(a_missing_path_gives_the_deepest_existing_value),
	    cmocka_unit_test(escaped_keys_match_and_columns_count_characters),
	    cmocka_unit_test(the_end_of_input_is_past_the_last_character),
	    cmocka_unit_test(paths_render_with_dots_indexes_and_quoted_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
