/* SPDX-License-Identifier: MIT */
/*
 * JSON paths ("tlb.l2.ways", "walker.pte_latency[2]") and where the value
 * a path names sits in the source text.
 *
 * jansson keeps no source positions for the values it decodes (only
 * json_error_t for syntax errors), so a loader that wants to report
 * "file:line:col" for a value that is well-formed but wrong re-walks the
 * text it gave jansson, following the path.  The walk assumes the text was
 * accepted by jansson (it is only used after json_loadb() succeeded); on any
 * other text it stays within bounds but may report a coarser position.
 */
#ifndef TLBSIM_JSON_PATH_H
#define TLBSIM_JSON_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* Deepest path a loader builds; machine files need 4 (tlb.l1d.page_sizes[i]). */
#define JPATH_MAX_DEPTH 8

/* One step: an object member (@key != NULL) or an array element (@index). */
struct jpath_seg {
	const char *key;
	size_t index;
};

/* A path from the document root; @key strings are borrowed. */
struct jpath {
	struct jpath_seg seg[JPATH_MAX_DEPTH];
	int depth;
};

/* Where a value starts: 1-based line and column (in characters, as jansson
 * counts them), 0-based byte offset; -1 each when unknown. */
struct jpath_pos {
	int line;
	int column;
	long long offset;
};

void jpath_push_key(struct jpath *p, const char *key);
void jpath_push_index(struct jpath *p, size_t index);
void jpath_pop(struct jpath *p);

/*
 * Render @p as "a.b[2].c"; a key that is not a plain identifier (letters,
 * digits, '_', '-') is written as ["key"] so that paths stay unambiguous,
 * e.g. sources["tlb.l1d.entries"].  The root is "".  Always NUL-terminates
 * when @size > 0.
 */
void jpath_format(const struct jpath *p, char *buf, size_t size);

/*
 * Find in @text (@len bytes) the first character of the value @p names or,
 * with @at_key, of the key string of its last (member) step.  When the path
 * does not exist in the text (a default was used, or a member is missing),
 * gives the position of the deepest value along it that does exist: the
 * enclosing object.
 */
struct jpath_pos jpath_locate(const char *text, size_t len, const struct jpath *p, bool at_key);

/* Line and column of byte @offset in @text, counted as jansson counts them:
 * lines split at '\n', columns count UTF-8 characters. */
struct jpath_pos jpath_pos_at(const char *text, size_t len, size_t offset);

#endif
