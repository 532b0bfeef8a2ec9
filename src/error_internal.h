/* SPDX-License-Identifier: MIT */
/* Internal helpers to fill a struct tlbsim_error; shared by every loader. */
#ifndef TLBSIM_ERROR_INTERNAL_H
#define TLBSIM_ERROR_INTERNAL_H

#include "tlbsim/error.h"

/*
 * Record an error in @err unless it already holds one (the first error
 * wins) or @err is NULL.  @code is negative; @line, @column, @offset may be
 * -1 (unknown); @path may be NULL.  Returns @code, so a loader can write
 * "return err_set(err, -TLBSIM_EPARSE, ...);".
 */
int err_set(struct tlbsim_error *err, int code, const char *source, int line, int column,
	    long long offset, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 8, 9)));

/*
 * err_set() for an error of event @event (0-based, trace order; -1: none)
 * of a well-formed trace, found by the OS model or a replayer: no line,
 * column or offset (the caller may locate the event: tlbsim_trace_locate()).
 */
int err_set_event(struct tlbsim_error *err, int code, const char *source, long long event,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
