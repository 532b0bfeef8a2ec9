/* SPDX-License-Identifier: MIT */
/*
 * What tlbsim convert and tlbsim record share: parsing --to/--compress,
 * copying a reader's events into a writer with progress on a terminal, and
 * the summary they print (events by kind, what the reader skipped or
 * implied, bytes written).
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

int cli_parse_output(const char *opt, const char *to, const char *compress,
		     enum tlbsim_trace_format *format, enum tlbsim_trace_compression *compression)
{
	if (!to || !strcmp(to, "binary"))
		*format = TLBSIM_TRACE_BINARY;
	else if (!strcmp(to, "text"))
		*format = TLBSIM_TRACE_TEXT;
	else
		return cli_fail("%s expects text or binary, found '%s'", opt, to);
	/* Binary traces are for size: compressed by default; text is for reading. */
	if (!compress)
		*compression =
		    *format == TLBSIM_TRACE_BINARY ? TLBSIM_COMPRESS_ZSTD : TLBSIM_COMPRESS_NONE;
	else if (!strcmp(compress, "zstd"))
		*compression = TLBSIM_COMPRESS_ZSTD;
	else if (!strcmp(compress, "xz"))
		*compression = TLBSIM_COMPRESS_XZ;
	else if (!strcmp(compress, "none"))
		*compression = TLBSIM_COMPRESS_NONE;
	else
		return cli_fail("--compress expects zstd, xz or none, found '%s'", compress);
	return 0;
}

static void progress(struct cli_copy *c, double started, double *last)
{
	double now = cli_now(), el = now - started;

	if (el < 1.0 || now - *last < 0.5)
		return;
	*last = now;
	fprintf(stderr, "\r%s: %llu events, %.2f M events/s, %.0f s", c->what,
		(unsigned long long)c->events, c->events / el / 1e6, el);
}

int cli_copy_events(tlbsim_trace_reader *r, tlbsim_trace_writer *w, struct cli_copy *c)
{
	double started = cli_now(), last = 0;
	bool tty = isatty(2);
	struct tlbsim_event ev;
	int rc;

	tlbsim_error_clear(&c->err);
	for (;;) {
		if (c->stop_on_interrupt && cli_interrupted()) {
			rc = -TLBSIM_EINTR;
			break;
		}
		rc = tlbsim_trace_next(r, &ev, &c->err);
		if (rc <= 0)
			break;
		if (c->user_only && ev.kind >= TLBSIM_EV_INVLPG) {
			uint64_t line = 0, offset = 0;

			if (tlbsim_trace_position(r, &line, &offset))
				line = offset = 0; /* none kept: the message has the index */
			c->err.code = rc = -TLBSIM_EINVAL;
			c->err.line = (int)line;
			c->err.offset = (long long)offset;
			snprintf(c->err.source, sizeof(c->err.source), "%s", c->what);
			snprintf(c->err.text, sizeof(c->err.text),
				 "event %llu (%s): a kernel-level event is an instruction of the "
				 "trace's own ISA and cannot be retargeted; only user-level traces "
				 "(recordings, generators) can",
				 (unsigned long long)c->events, tlbsim_event_kind_name(ev.kind));
			break;
		}
		if ((rc = tlbsim_trace_writer_write(w, &ev, &c->err)) < 0) {
			c->write_failed = true;
			break;
		}
		c->by_kind[ev.kind]++;
		if ((++c->events & 0xffff) == 0 && tty)
			progress(c, started, &last);
	}
	if (tty && last > 0)
		fputc('\n', stderr);
	c->seconds = cli_now() - started;
	return rc;
}

void cli_print_summary(FILE *f, const struct cli_copy *c, const tlbsim_trace_reader *r,
		       const char *path)
{
	struct tlbsim_trace_stats st;
	struct stat sb;
	unsigned k;

	tlbsim_trace_stats(r, &st);
	fprintf(f, "%s: %llu events in %.1f s", path, (unsigned long long)c->events, c->seconds);
	if (path && stat(path, &sb) == 0)
		fprintf(f, ", %lld bytes written (%.2f bytes/event)", (long long)sb.st_size,
			c->events ? (double)sb.st_size / (double)c->events : 0.0);
	fprintf(f, "\n  by kind:");
	for (k = 1; k < TLBSIM_EV_NR_KINDS; k++)
		if (c->by_kind[k])
			fprintf(f, " %s %llu", tlbsim_event_kind_name(k),
				(unsigned long long)c->by_kind[k]);
	fprintf(f, "\n  unknown lines skipped: %llu", (unsigned long long)st.unknown_lines);
	if (st.unknown_lines)
		fprintf(f, " (the first, line %llu: '%s')",
			(unsigned long long)st.first_unknown_line, st.first_unknown);
	fprintf(f, "\n  implied mmaps (memory used but never mapped in the input): %llu\n",
		(unsigned long long)st.implied_mmaps);
}
