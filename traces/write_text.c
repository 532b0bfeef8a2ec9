/* SPDX-License-Identifier: MIT */
/*
 * Writer of the text trace format (traces/FORMAT.md, "Text format"): the
 * header line, then one tlbsim_event_format() line per event, the
 * canonical spelling the text reader parses back to the same event.
 */
#include <stdio.h>
#include <string.h>

#include "trace_format.h"

static int text_open(struct tlbsim_trace_writer *w, struct tlbsim_error *err)
{
	char line[TLBSIM_TRACE_SOURCE_LEN + 128];
	int n, rc;

	n = snprintf(line, sizeof(line), "tlbsim-trace %d isa=%s page_shift=%u threads=%u%s%s\n",
		     TLBSIM_TRACE_VERSION, trace_name_of(trace_isa_names, w->info.isa),
		     w->info.page_shift, (unsigned)w->info.nr_threads,
		     w->info.source[0] ? " source=" : "", w->info.source);
	rc = trace_out_write(&w->out, line, (size_t)n);
	if (rc < 0 && err && !err->code)
		*err = w->out.err;
	return rc;
}

static int text_write(struct tlbsim_trace_writer *w, const struct tlbsim_event *ev)
{
	uint8_t *p = trace_out_reserve(&w->out, TLBSIM_EVENT_LINE_MAX + 1);
	int n;

	if (!p)
		return w->out.err.code;
	/* a valid event's line always fits TLBSIM_EVENT_LINE_MAX */
	n = tlbsim_event_format(ev, (char *)p, TLBSIM_EVENT_LINE_MAX);
	p[n] = '\n';
	w->out.len += (size_t)n + 1;
	return 0;
}

const struct trace_writer_ops trace_write_text = {
    .name = "text",
    .format = TLBSIM_TRACE_TEXT,
    .open = text_open,
    .write = text_write,
};
