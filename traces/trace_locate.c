/* SPDX-License-Identifier: MIT */
/*
 * tlbsim_trace_locate(): an error the OS model or the kernel-level
 * replayer finds in a well-formed trace names an event by its index only
 * (struct tlbsim_error's @event): the simulator reads events in batches,
 * which keep no position (the native reader's runs of accesses are the
 * 100 M events/s path).  On the error path, read the trace again one event
 * at a time up to that index and take the reader's own position of it.
 */
#include <stdint.h>
#include <sys/stat.h>

#include "error_internal.h"
#include "tlbsim/trace.h"

int tlbsim_trace_locate(const char *path, const struct tlbsim_trace_opts *opts,
			struct tlbsim_error *err)
{
	tlbsim_trace_reader *r = NULL;
	struct tlbsim_event ev;
	uint64_t line, offset, i;
	struct stat st;
	int rc;

	if (!path || !err || !err->code || err->event < 0 || err->line > 0 || err->offset >= 0)
		return -TLBSIM_EINVAL;
	/* Only a regular file reads the same again: opening a FIFO whose
	 * writer is gone would wait for the next writer, and read its data. */
	if (!stat(path, &st) && !S_ISREG(st.st_mode))
		return -TLBSIM_ENOTSUP;
	if ((rc = tlbsim_trace_open_opts(path, NULL, NULL, opts, &r, NULL)) < 0)
		return rc;
	for (i = 0; i <= (uint64_t)err->event && (rc = tlbsim_trace_next(r, &ev, NULL)) > 0; i++)
		;
	if (rc > 0 && (rc = tlbsim_trace_position(r, &line, &offset)) == 0) {
		/* a line beyond int's range is left out: the offset says it */
		err->line = line > 0 && line <= INT32_MAX ? (int)line : -1;
		err->column = -1;
		err->offset = (long long)offset;
	} else if (rc == 0) {
		rc = -TLBSIM_ENOENT; /* the trace ended first: it changed since */
	}
	tlbsim_trace_close(r);
	return rc;
}
