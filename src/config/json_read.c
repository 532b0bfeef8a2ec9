/* SPDX-License-Identifier: MIT */
/*
 * Strict JSON reading with positioned errors (see json_read.h).  Messages
 * say what was expected and what was found, e.g. "expected an integer in
 * 1..4096, found 5000"; the path and position come from json_path.c.
 */
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_internal.h"
#include "config/json_read.h"

int jr_parse(struct jr_ctx *c, json_t **root)
{
	enum json_error_code code;
	struct jpath_pos pos;
	json_error_t je;
	size_t offset;

	*root = json_loadb(c->text, c->len, JSON_REJECT_DUPLICATES, &je);
	if (*root)
		return 0;
	code = json_error_code(&je);
	if (code == json_error_out_of_memory)
		return err_set(c->err, -TLBSIM_ENOMEM, c->source, -1, -1, -1, NULL,
			       "out of memory: %s", je.text);
	/*
	 * jansson's position counts the bytes read, up to and including the
	 * last character of the offending token; at a premature end nothing
	 * is left, and the error is at the end itself.  Line and column are
	 * recomputed from the offset so that they count as json_path.c does.
	 */
	offset = je.position > 0 ? (size_t)je.position - 1 : 0;
	if (code == json_error_premature_end_of_input)
		offset = (size_t)je.position;
	pos = jpath_pos_at(c->text, c->len, offset);
	return err_set(c->err, -TLBSIM_EPARSE, c->source, pos.line, pos.column, pos.offset, NULL,
		       "invalid JSON: %s", je.text);
}

int jr_read_file(const char *path, size_t max_bytes, char **text, size_t *len,
		 struct tlbsim_error *err)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 4096, n = 0;
	char *buf = NULL;
	int rc = 0;

	if (!f) {
		int e = errno;

		return err_set(err, e == ENOENT ? -TLBSIM_ENOENT : -TLBSIM_EIO, path, -1, -1, -1,
			       NULL, "cannot open: %s", strerror(e));
	}
	for (;;) {
		char *bigger;
		size_t got;

		if (n == cap || !buf) {
			if (buf && cap >= max_bytes) {
				rc = err_set(err, -TLBSIM_ERANGE, path, -1, -1, -1, NULL,
					     "file of %zu bytes or more; expected less", max_bytes);
				break;
			}
			if (buf)
				cap *= 2;
			bigger = realloc(buf, cap);
			if (!bigger) {
				rc = err_set(err, -TLBSIM_ENOMEM, path, -1, -1, -1, NULL,
					     "out of memory");
				break;
			}
			buf = bigger;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got > 0)
			continue;
		if (ferror(f))
			rc = err_set(err, -TLBSIM_EIO, path, -1, -1, -1, NULL, "read error: %s",
				     strerror(errno));
		break;
	}
	fclose(f);
	if (rc) {
		free(buf);
		return rc;
	}
	*text = buf;
	*len = n;
	return 0;
}

static int vfail(struct jr_ctx *c, int code, bool at_key, const char *fmt, va_list ap)
{
	char text[TLBSIM_ERROR_TEXT_LEN];
	char path[TLBSIM_ERROR_SOURCE_LEN];
	struct jpath_pos pos = {-1, -1, -1};

	vsnprintf(text, sizeof(text), fmt, ap);
	jpath_format(&c->path, path, sizeof(path));
	if (c->text)
		pos = jpath_locate(c->text, c->len, &c->path, at_key);
	return err_set(c->err, code, c->source, pos.line, pos.column, pos.offset, path, "%s", text);
}

int jr_fail(struct jr_ctx *c, int code, bool at_key, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail(c, code, at_key, fmt, ap);
	va_end(ap);
	return rc;
}

int jr_fail_at(struct jr_ctx *c, const char *key, int code, const char *fmt, ...)
{
	va_list ap;
	int rc;

	jpath_push_key(&c->path, key);
	va_start(ap, fmt);
	rc = vfail(c, code, false, fmt, ap);
	va_end(ap);
	jpath_pop(&c->path);
	return rc;
}

const char *jr_type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "object";
	case JSON_ARRAY:
		return "array";
	case JSON_STRING:
		return "string";
	case JSON_INTEGER:
		return "integer";
	case JSON_REAL:
		return "real";
	case JSON_TRUE:
		return "true";
	case JSON_FALSE:
		return "false";
	case JSON_NULL:
		return "null";
	}
	return "?";
}

void jr_list_keys(const struct jr_key *k, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (; k->key && used < size; k++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "", k->key);
}

/* "\"a\", \"b\"" */
static void list_names(const struct jr_name *n, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (; n->name && used < size; n++)
		used += (size_t)snprintf(buf + used, size - used, "%s\"%s\"", used ? ", " : "",
					 n->name);
}

const struct jr_key *jr_find_key(const struct jr_key *k, const char *key, size_t len)
{
	for (; k->key; k++)
		if (strlen(k->key) == len && memcmp(k->key, key, len) == 0)
			return k;
	return NULL;
}

const char *jr_first_unknown_key(const json_t *obj, const struct jr_key *known)
{
	/* jansson >= 2.8 iterates in insertion, i.e. document, order. */
	for (void *it = json_object_iter((json_t *)obj); it;
	     it = json_object_iter_next((json_t *)obj, it)) {
		const char *key = json_object_iter_key(it);

		if (!jr_find_key(known, key, strlen(key)))
			return key;
	}
	return NULL;
}

int jr_check_keys(struct jr_ctx *c, const json_t *obj, const struct jr_key *known)
{
	const char *key = jr_first_unknown_key(obj, known);
	char list[448]; /* the longest list, the 32 cost names, takes ~390 bytes */
	int rc;

	if (!key)
		return 0;
	jr_list_keys(known, list, sizeof(list));
	jpath_push_key(&c->path, key);
	rc = jr_fail(c, -TLBSIM_EPARSE, true, "unknown key \"%.40s\"; known keys: %s", key, list);
	jpath_pop(&c->path);
	return rc;
}

int jr_check_range(struct jr_ctx *c, long long v, const struct jr_limit *lim)
{
	if (v >= lim->min && v <= lim->max)
		return 0;
	if (lim->max == LLONG_MAX)
		return jr_fail(c, -TLBSIM_ERANGE, false, "expected an integer >= %lld, found %lld",
			       lim->min, v);
	return jr_fail(c, -TLBSIM_ERANGE, false, "expected an integer in %lld..%lld, found %lld",
		       lim->min, lim->max, v);
}

int jr_check_range_at(struct jr_ctx *c, const char *key, long long v, const struct jr_limit *lim)
{
	int rc;

	jpath_push_key(&c->path, key);
	rc = jr_check_range(c, v, lim);
	jpath_pop(&c->path);
	return rc;
}

int jr_read_int(struct jr_ctx *c, const json_t *v, const struct jr_limit *lim, long long *out)
{
	if (!json_is_integer(v))
		return jr_fail(c, -TLBSIM_EPARSE, false, "expected an integer, found %s",
			       jr_type_name(v));
	*out = json_integer_value(v);
	return jr_check_range(c, *out, lim);
}

int jr_read_name(struct jr_ctx *c, const json_t *v, const struct jr_name *names, unsigned *out)
{
	char known[128];

	list_names(names, known, sizeof(known));
	if (!json_is_string(v))
		return jr_fail(c, -TLBSIM_EPARSE, false, "expected a string (%s), found %s", known,
			       jr_type_name(v));
	for (; names->name; names++) {
		if (strcmp(names->name, json_string_value(v)) == 0) {
			*out = names->val;
			return 0;
		}
	}
	return jr_fail(c, -TLBSIM_ERANGE, false, "expected one of %s, found \"%.40s\"", known,
		       json_string_value(v));
}

int jr_opt_uint(struct jr_ctx *c, const json_t *obj, const char *key, const struct jr_limit *lim,
		unsigned *out)
{
	const json_t *v = json_object_get(obj, key);
	long long x = 0;
	int rc;

	if (!v)
		return 0;
	assert(lim->min >= 0 && lim->max <= UINT_MAX && "jr_opt_uint() limits fit an unsigned");
	jpath_push_key(&c->path, key);
	rc = jr_read_int(c, v, lim, &x);
	jpath_pop(&c->path);
	if (!rc)
		*out = (unsigned)x;
	return rc;
}

int jr_opt_name(struct jr_ctx *c, const json_t *obj, const char *key, const struct jr_name *names,
		unsigned *out)
{
	const json_t *v = json_object_get(obj, key);
	int rc;

	if (!v)
		return 0;
	jpath_push_key(&c->path, key);
	rc = jr_read_name(c, v, names, out);
	jpath_pop(&c->path);
	return rc;
}

int jr_opt_object(struct jr_ctx *c, const json_t *obj, const char *key, const json_t **out)
{
	const json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (!v)
		return 0;
	if (!json_is_object(v))
		return jr_fail_at(c, key, -TLBSIM_EPARSE, "expected an object, found %s",
				  jr_type_name(v));
	*out = v;
	return 0;
}
