/* SPDX-License-Identifier: MIT */
/*
 * Error codes (generated from TLBSIM_ERRNO_MAP) and the loaders' error
 * report, after libuv's uv_err_name()/uv_strerror() and jansson's
 * json_error_t.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error_internal.h"

const char *tlbsim_err_name(int code)
{
	switch (code) {
	case 0:
		return "TLBSIM_OK";
#define ERR_NAME_CASE(name, val, text)                                                             \
	case -(val):                                                                               \
		return "TLBSIM_" #name;
		TLBSIM_ERRNO_MAP(ERR_NAME_CASE)
#undef ERR_NAME_CASE
	}
	return "TLBSIM_E?";
}

const char *tlbsim_strerror(int code)
{
	switch (code) {
	case 0:
		return "success";
#define ERR_TEXT_CASE(name, val, text)                                                             \
	case -(val):                                                                               \
		return text;
		TLBSIM_ERRNO_MAP(ERR_TEXT_CASE)
#undef ERR_TEXT_CASE
	}
	return "unknown error";
}

void tlbsim_error_clear(struct tlbsim_error *err)
{
	if (!err)
		return;
	memset(err, 0, sizeof(*err));
	err->line = -1;
	err->column = -1;
	err->offset = -1;
	err->event = -1;
}

/* err_set() and err_set_event(): record the first error only. */
static void err_vset(struct tlbsim_error *err, int code, const char *source, int line, int column,
		     long long offset, const char *path, long long event, const char *fmt,
		     va_list ap)
{
	if (!err || err->code != 0)
		return;
	tlbsim_error_clear(err);
	err->code = code;
	err->line = line;
	err->column = column;
	err->offset = offset;
	err->event = event;
	snprintf(err->source, sizeof(err->source), "%s", source ? source : "");
	snprintf(err->path, sizeof(err->path), "%s", path ? path : "");
	vsnprintf(err->text, sizeof(err->text), fmt, ap);
}

int err_set(struct tlbsim_error *err, int code, const char *source, int line, int column,
	    long long offset, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(err, code, source, line, column, offset, path, -1, fmt, ap);
	va_end(ap);
	return code;
}

int err_set_event(struct tlbsim_error *err, int code, const char *source, long long event,
		  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(err, code, source, -1, -1, -1, NULL, event, fmt, ap);
	va_end(ap);
	return code;
}

int tlbsim_error_format(const struct tlbsim_error *err, char *buf, size_t size)
{
	char where[64] = "";
	char at[TLBSIM_ERROR_SOURCE_LEN + 8] = "";

	if (err->line > 0 && err->column > 0)
		snprintf(where, sizeof(where), ":%d:%d", err->line, err->column);
	else if (err->line > 0)
		snprintf(where, sizeof(where), ":%d", err->line);
	else if (err->offset >= 0)
		snprintf(where, sizeof(where), ":@%lld", err->offset);
	if (err->path[0])
		snprintf(at, sizeof(at), " (at %s)", err->path);
	return snprintf(buf, size, "%s%s: %s%s", err->source[0] ? err->source : "<input>", where,
			err->text, at);
}
