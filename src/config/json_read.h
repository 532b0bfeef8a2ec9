/* SPDX-License-Identifier: MIT */
/*
 * Strict reading of JSON documents with jansson, for loaders whose every
 * error must name the source, the JSON path and the line/column of the
 * offending value (the struct tlbsim_error contract, error_internal.h).
 *
 * A loader describes each object by a NULL-terminated jr_key table, reads
 * members with the jr_opt_* helpers (absent members keep the caller's
 * default), and keeps the current path in jr_ctx.path so that any error
 * can be placed by json_path.c.  First used by the machine loader
 * (src/config/machine.c).
 */
#ifndef TLBSIM_JSON_READ_H
#define TLBSIM_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "config/json_path.h"
#include "tlbsim/error.h"

/*
 * One document being read: its text (NULL when checking values that came
 * from no text, e.g. a struct built in code: positions are then -1), the
 * source name for errors, the caller's error report (or NULL) and the path
 * of the value being read.
 */
struct jr_ctx {
	const char *text;
	size_t len;
	const char *source;
	struct tlbsim_error *err;
	struct jpath path;
};

/* An inclusive integer range. */
struct jr_limit {
	long long min;
	long long max;
};

/* A key of an object and, when its value is an object, that object's keys. */
struct jr_key {
	const char *key;
	const struct jr_key *sub;
};

/* A string value allowed for a key, and what it stands for. */
struct jr_name {
	const char *name;
	unsigned val;
};

/*
 * Parse @c->text (@c->len bytes) with jansson, rejecting duplicate keys so
 * that a path names one value.  On a syntax error, reports jansson's
 * message at jansson's position (the last character of the offending token,
 * or just past the end for a premature end).  Returns 0 and a new reference
 * in *@root; -TLBSIM_EPARSE or -TLBSIM_ENOMEM.
 */
int jr_parse(struct jr_ctx *c, json_t **root);

/*
 * Read the whole file @path (at most @max_bytes - 1 bytes) into a new
 * buffer *@text (free() it) of *@len bytes.  Returns 0, -TLBSIM_ENOENT,
 * -TLBSIM_EIO, -TLBSIM_ERANGE (too big) or -TLBSIM_ENOMEM, reported in @err.
 */
int jr_read_file(const char *path, size_t max_bytes, char **text, size_t *len,
		 struct tlbsim_error *err);

/* Report an error about the value at the current path, or its key. */
int jr_fail(struct jr_ctx *c, int code, bool at_key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Report an error about member @key of the value at the current path. */
int jr_fail_at(struct jr_ctx *c, const char *key, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* "object", "array", "string", "integer", "real", "true", "false", "null". */
const char *jr_type_name(const json_t *v);
/* The keys of @k as "a, b, c", truncated to @size. */
void jr_list_keys(const struct jr_key *k, char *buf, size_t size);
/* The entry of @k for the @len bytes at @key, or NULL. */
const struct jr_key *jr_find_key(const struct jr_key *k, const char *key, size_t len);
/* The first key of @obj (in document order) missing from @known, or NULL. */
const char *jr_first_unknown_key(const json_t *obj, const struct jr_key *known);
/* -TLBSIM_EPARSE at the first unknown key of @obj, listing @known; or 0. */
int jr_check_keys(struct jr_ctx *c, const json_t *obj, const struct jr_key *known);

/* -TLBSIM_ERANGE at the current path (or member @key) unless @v is in @lim. */
int jr_check_range(struct jr_ctx *c, long long v, const struct jr_limit *lim);
int jr_check_range_at(struct jr_ctx *c, const char *key, long long v, const struct jr_limit *lim);

/* @v must be an integer (else -TLBSIM_EPARSE) within @lim. */
int jr_read_int(struct jr_ctx *c, const json_t *v, const struct jr_limit *lim, long long *out);
/* @v must be a string (else -TLBSIM_EPARSE) among @names (else -TLBSIM_ERANGE). */
int jr_read_name(struct jr_ctx *c, const json_t *v, const struct jr_name *names, unsigned *out);

/*
 * Read member @key of @obj when present, leaving *@out (a default) alone
 * when absent.  jr_opt_object gives NULL for an absent member.
 */
int jr_opt_uint(struct jr_ctx *c, const json_t *obj, const char *key, const struct jr_limit *lim,
		unsigned *out);
int jr_opt_name(struct jr_ctx *c, const json_t *obj, const char *key, const struct jr_name *names,
		unsigned *out);
int jr_opt_object(struct jr_ctx *c, const json_t *obj, const char *key, const json_t **out);

#endif
