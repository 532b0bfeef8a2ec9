/* SPDX-License-Identifier: MIT */
/*
 * tlbsim error codes and the caller-owned error report filled by loaders.
 *
 * Every API call returns 0 or a negative TLBSIM_E* code (the libuv
 * convention).  Loaders additionally fill a struct tlbsim_error (modelled on
 * jansson's json_error_t): the first error wins, -1 means "unknown".
 */
#ifndef TLBSIM_ERROR_H
#define TLBSIM_ERROR_H

#include <stddef.h>

#include "tlbsim/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The single list of error codes: X(NAME, value, text).  It generates the
 * enum, tlbsim_err_name() and tlbsim_strerror(); add a code here only.
 */
#define TLBSIM_ERRNO_MAP(X)                                                                        \
	X(EINVAL, 1, "invalid argument")                                                           \
	X(ENOMEM, 2, "out of memory")                                                              \
	X(EIO, 3, "input/output error")                                                            \
	X(EPARSE, 4, "malformed input")                                                            \
	X(ERANGE, 5, "value out of range")                                                         \
	X(ENOENT, 6, "no such file or name")                                                       \
	X(EFAULT, 7, "translation fault")                                                          \
	X(ENOTSUP, 8, "not supported by this ISA or machine")                                      \
	X(EEXIST, 9, "already exists")                                                             \
	X(ETRUNC, 10, "truncated input")                                                           \
	X(EBUSY, 11, "resource busy or exhausted")                                                 \
	X(EINTR, 12, "interrupted")

enum tlbsim_errno {
	TLBSIM_OK = 0,
#define TLBSIM_ERRNO_ENUM(name, val, text) TLBSIM_##name = (val),
	TLBSIM_ERRNO_MAP(TLBSIM_ERRNO_ENUM)
#undef TLBSIM_ERRNO_ENUM
};

/*
 * Sizes of the text fields of struct tlbsim_error, in bytes incl. the NUL.
 * The text fits an unknown-key message listing the 31 keys of a machine's
 * "costs" (~450 bytes).
 */
#define TLBSIM_ERROR_SOURCE_LEN 256
#define TLBSIM_ERROR_TEXT_LEN 512

/**
 * struct tlbsim_error - where and why a load failed
 * @source: a file path, or a pseudo-source such as "<string>" or
 *          "<gen:mprotect-toggle>"; empty when no error was recorded
 * @line: 1-based line, or -1 when unknown (binary inputs)
 * @column: 1-based column, or -1 when unknown
 * @offset: byte offset from the start of the input, or -1 when unknown
 * @code: the negative TLBSIM_E* code, or 0 when no error was recorded
 * @path: for structured inputs (JSON), the path of the offending value,
 *        e.g. "tlb.l2.ways"; empty when it does not apply
 * @text: what was expected and what was found
 * @event: for an error found in a well-formed trace's events (the OS model,
 *         the kernel-level replayer): the 0-based index of the event at
 *         fault, counted as tlbsim_trace_nr_events() counts (the text
 *         says "event N" too); -1 when the error names no event.  Such an
 *         error comes without a line or offset: tlbsim_trace_locate() adds
 *         them from the trace file.
 *
 * Caller-owned; pass NULL to any loader that takes one to mean "don't report".
 */
struct tlbsim_error {
	char source[TLBSIM_ERROR_SOURCE_LEN];
	int line;
	int column;
	long long offset;
	int code;
	char path[TLBSIM_ERROR_SOURCE_LEN];
	char text[TLBSIM_ERROR_TEXT_LEN];
	long long event;
};

/**
 * tlbsim_err_name() - the symbolic name of an error code
 * @code: 0 or a negative TLBSIM_E* code
 *
 * Returns: a static string such as "TLBSIM_EINVAL", "TLBSIM_OK" for 0, or
 * "TLBSIM_E?" for an unknown code.  Never NULL.
 */
TLBSIM_API const char *tlbsim_err_name(int code);

/**
 * tlbsim_strerror() - a short English description of an error code
 * @code: 0 or a negative TLBSIM_E* code
 *
 * Returns: a static string, never NULL ("unknown error" for unknown codes).
 */
TLBSIM_API const char *tlbsim_strerror(int code);

/**
 * tlbsim_error_clear() - reset an error report to "no error"
 * @err: the report to reset, or NULL (then nothing happens)
 *
 * Sets @code to 0, the text fields to "" and line/column/offset/event to -1.
 */
TLBSIM_API void tlbsim_error_clear(struct tlbsim_error *err);

/**
 * tlbsim_error_format() - render an error as "source:line:col: text"
 * @err: a filled report (borrowed)
 * @buf: destination, always NUL-terminated when @size > 0
 * @size: size of @buf in bytes
 *
 * Unknown line/column are left out ("source: text", or "source:@offset: text"
 * for binary inputs); a non-empty @path is added as "(at path)".
 *
 * Returns: the number of characters that the full message needs, excluding
 * the NUL (as snprintf).
 */
TLBSIM_API int tlbsim_error_format(const struct tlbsim_error *err, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* TLBSIM_ERROR_H */
