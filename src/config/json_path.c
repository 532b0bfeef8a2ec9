/* SPDX-License-Identifier: MIT */
/*
 * JSON paths and the positions of the values they name (see json_path.h).
 *
 * The scanner below is not a parser: jansson has already accepted the text
 * (RFC 8259 JSON), so it only needs to skip strings, scalars and nested
 * containers, and to compare member names.  Names with escapes are decoded
 * by jansson itself, so "\u0063ores" matches "cores" exactly as the loader
 * saw it.
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "config/json_path.h"

void jpath_push_key(struct jpath *p, const char *key)
{
	assert(p->depth < JPATH_MAX_DEPTH && "jpath deeper than JPATH_MAX_DEPTH");
	p->seg[p->depth].key = key;
	p->seg[p->depth].index = 0;
	p->depth++;
}

void jpath_push_index(struct jpath *p, size_t index)
{
	assert(p->depth < JPATH_MAX_DEPTH && "jpath deeper than JPATH_MAX_DEPTH");
	p->seg[p->depth].key = NULL;
	p->seg[p->depth].index = index;
	p->depth++;
}

void jpath_pop(struct jpath *p)
{
	assert(p->depth > 0 && "jpath_pop() without a push");
	p->depth--;
}

static bool is_plain_key(const char *key)
{
	if (!*key)
		return false;
	for (; *key; key++) {
		char ch = *key;

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '-'))
			return false;
	}
	return true;
}

void jpath_format(const struct jpath *p, char *buf, size_t size)
{
	size_t used = 0;

	if (size == 0)
		return;
	buf[0] = '\0';
	for (int i = 0; i < p->depth && used < size; i++) {
		const struct jpath_seg *s = &p->seg[i];
		int n;

		if (!s->key)
			n = snprintf(buf + used, size - used, "[%zu]", s->index);
		else if (is_plain_key(s->key))
			n = snprintf(buf + used, size - used, "%s%s", i ? "." : "", s->key);
		else
			n = snprintf(buf + used, size - used, "[\"%s\"]", s->key);
		if (n < 0)
			return;
		used += (size_t)n;
	}
}

struct jpath_pos jpath_pos_at(const char *text, size_t len, size_t offset)
{
	struct jpath_pos pos = {1, 0, 0};

	if (offset > len)
		offset = len;
	pos.offset = (long long)offset;
	for (size_t i = 0; i <= offset && i < len; i++) {
		unsigned char ch = (unsigned char)text[i];

		if (ch == '\n' && i < offset) {
			pos.line++;
			pos.column = 0;
		} else if ((ch & 0xC0) != 0x80) {
			/* UTF-8 continuation bytes do not start a character. */
			pos.column++;
		}
	}
	if (offset >= len)
		pos.column++; /* end of input: the column just past the last character */
	return pos;
}

struct scan {
	const char *s;
	size_t n;
	size_t i;
};

static bool is_ws(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

static void skip_ws(struct scan *sc)
{
	while (sc->i < sc->n && is_ws(sc->s[sc->i]))
		sc->i++;
}

/* At an opening quote: move past the closing one. */
static void skip_string(struct scan *sc)
{
	sc->i++;
	while (sc->i < sc->n && sc->s[sc->i] != '"')
		sc->i += sc->s[sc->i] == '\\' ? 2 : 1;
	if (sc->i < sc->n)
		sc->i++;
}

static void skip_value(struct scan *sc)
{
	int depth = 0;

	if (sc->i >= sc->n)
		return;
	if (sc->s[sc->i] == '"') {
		skip_string(sc);
		return;
	}
	if (sc->s[sc->i] != '{' && sc->s[sc->i] != '[') {
		/* number, true, false, null: ends at a delimiter */
		while (sc->i < sc->n && !is_ws(sc->s[sc->i]) && !strchr(",]}", sc->s[sc->i]))
			sc->i++;
		return;
	}
	do {
		char ch = sc->s[sc->i];

		if (ch == '"') {
			skip_string(sc);
			continue;
		}
		if (ch == '{' || ch == '[')
			depth++;
		else if (ch == '}' || ch == ']')
			depth--;
		sc->i++;
	} while (depth > 0 && sc->i < sc->n);
}

/* Does the string token s[start, end) decode to @key? */
static bool key_equals(const char *s, size_t start, size_t end, const char *key)
{
	size_t raw_len = end - start - 2; /* without the quotes */
	json_t *decoded;
	bool eq;

	if (!memchr(s + start + 1, '\\', raw_len))
		return strlen(key) == raw_len && memcmp(s + start + 1, key, raw_len) == 0;
	decoded = json_loadb(s + start, end - start, JSON_DECODE_ANY, NULL);
	eq = decoded && json_is_string(decoded) && strcmp(json_string_value(decoded), key) == 0;
	json_decref(decoded);
	return eq;
}

/* At '{': move to the value of member @key (or to its key); false if absent. */
static bool find_member(struct scan *sc, const char *key, bool at_key)
{
	sc->i++;
	for (;;) {
		size_t key_start;
		bool match;

		skip_ws(sc);
		if (sc->i >= sc->n || sc->s[sc->i] != '"')
			return false;
		key_start = sc->i;
		skip_string(sc);
		match = key_equals(sc->s, key_start, sc->i, key);
		skip_ws(sc);
		sc->i++; /* ':' */
		skip_ws(sc);
		if (match) {
			if (at_key)
				sc->i = key_start;
			return true;
		}
		skip_value(sc);
		skip_ws(sc);
		if (sc->i >= sc->n || sc->s[sc->i] != ',')
			return false;
		sc->i++;
	}
}

/* At '[': move to element @index; false if the array is shorter. */
static bool find_element(struct scan *sc, size_t index)
{
	sc->i++;
	for (size_t k = 0;; k++) {
		skip_ws(sc);
		if (sc->i >= sc->n || sc->s[sc->i] == ']')
			return false;
		if (k == index)
			return true;
		skip_value(sc);
		skip_ws(sc);
		if (sc->i >= sc->n || sc->s[sc->i] != ',')
			return false;
		sc->i++;
	}
}

struct jpath_pos jpath_locate(const char *text, size_t len, const struct jpath *p, bool at_key)
{
	struct scan sc = {text, len, 0};
	size_t found;

	skip_ws(&sc);
	found = sc.i;
	for (int d = 0; d < p->depth && sc.i < len; d++) {
		const struct jpath_seg *s = &p->seg[d];
		bool ok;

		if (s->key)
			ok = text[sc.i] == '{' &&
			     find_member(&sc, s->key, at_key && d == p->depth - 1);
		else
			ok = text[sc.i] == '[' && find_element(&sc, s->index);
		if (!ok)
			break;
		found = sc.i;
	}
	return jpath_pos_at(text, len, found);
}
