/* SPDX-License-Identifier: MIT */
/*
 * What tlbsim convert and tlbsim record share: parsing --to/--compress,
 * copying a reader's events into a writer with progress on a terminal, and
 * the summary they print (events by kind, what the reader skipped or
 * implied, bytes written).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

/* What a trace's file name says: a trailing .zst or .xz its compression, a
 * .txt (before it, or alone) text; NAME_UNSAID where it says nothing. */
enum { NAME_UNSAID = -1 };

/* Whether the first @n bytes of @s end in @ext, after something. */
static bool ends_with(const char *s, size_t n, const char *ext)
{
	size_t e = strlen(ext);

	return n > e && !memcmp(s + n - e, ext, e);
}

static void name_says(const char *path, int *format, int *compression)
{
	size_t n = strlen(path);

	*format = *compression = NAME_UNSAID;
	if (ends_with(path, n, ".zst")) {
		*compression = TLBSIM_COMPRESS_ZSTD;
		n -= 4;
	} else if (ends_with(path, n, ".xz")) {
		*compression = TLBSIM_COMPRESS_XZ;
		n -= 3;
	}
	/* A plain .txt is uncompressed text, to be read as it is. */
	if (ends_with(path, n, ".txt")) {
		*format = TLBSIM_TRACE_TEXT;
		if (*compression == NAME_UNSAID)
			*compression = TLBSIM_COMPRESS_NONE;
	}
}

const char *cli_compression_name(enum tlbsim_trace_compression c)
{
	return c == TLBSIM_COMPRESS_ZSTD ? "zstd" : c == TLBSIM_COMPRESS_XZ ? "xz" : "uncompressed";
}

int cli_parse_output(const char *opt, const char *to, const char *compress, const char *path,
		     enum tlbsim_trace_format *format, enum tlbsim_trace_compression *compression)
{
	bool out = !strcmp(path, "-");
	int name_format, name_compression;
	size_t n = strlen(path);

	if (ends_with(path, n, ".gz") || ends_with(path, n, ".bz2"))
		return cli_fail("%s: tlbsim writes zstd (.zst) or xz (.xz), not %s", path,
				ends_with(path, n, ".gz") ? "gzip" : "bzip2");
	name_says(path, &name_format, &name_compression);
	if (out) /* standard output: text, for reading or a pipe */
		name_format = TLBSIM_TRACE_TEXT;
	if (!to)
		*format = name_format == NAME_UNSAID ? TLBSIM_TRACE_BINARY
						     : (enum tlbsim_trace_format)name_format;
	else if (!strcmp(to, "binary"))
		*format = TLBSIM_TRACE_BINARY;
	else if (!strcmp(to, "text"))
		*format = TLBSIM_TRACE_TEXT;
	else
		return cli_fail("%s expects text or binary, found '%s'", opt, to);
	if (to && !out && name_format != NAME_UNSAID && (int)*format != name_format)
		fprintf(stderr, "tlbsim: warning: %s: the name says %s, but %s %s writes %s\n",
			path, tlbsim_trace_format_name(name_format), opt, to, to);
	/* Binary traces are for size: compressed unless the name says
	 * otherwise; text is for reading. */
	if (!compress)
		*compression = name_compression != NAME_UNSAID
				   ? (enum tlbsim_trace_compression)name_compression
			       : *format == TLBSIM_TRACE_BINARY ? TLBSIM_COMPRESS_ZSTD
								: TLBSIM_COMPRESS_NONE;
	else if (!strcmp(compress, "zstd"))
		*compression = TLBSIM_COMPRESS_ZSTD;
	else if (!strcmp(compress, "xz"))
		*compression = TLBSIM_COMPRESS_XZ;
	else if (!strcmp(compress, "none"))
		*compression = TLBSIM_COMPRESS_NONE;
	else
		return cli_fail("--compress expects zstd, xz or none, found '%s'", compress);
	if (compress && name_compression != NAME_UNSAID && (int)*compression != name_compression)
		fprintf(stderr,
			"tlbsim: warning: %s: the name says %s, but --compress %s writes %s\n",
			path, cli_compression_name((enum tlbsim_trace_compression)name_compression),
			compress, cli_compression_name(*compression));
	return 0;
}

int cli_trace_writer_open(const char *path, enum tlbsim_trace_format format,
			  enum tlbsim_trace_compression compression,
			  const struct tlbsim_trace_info *info, tlbsim_trace_writer **w)
{
	struct tlbsim_error err;

	tlbsim_error_clear(&err);
	if (strcmp(path, "-")) {
		if (tlbsim_trace_writer_open(path, format, compression, info, w, &err))
			return cli_fail_err(&err);
		return 0;
	}
	if ((format == TLBSIM_TRACE_BINARY || compression != TLBSIM_COMPRESS_NONE) && isatty(1))
		return cli_fail("-: a %s trace is not for a terminal: redirect standard output, or "
				"write text (--to text, --compress none)",
				compression != TLBSIM_COMPRESS_NONE ? "compressed" : "binary");
	if (tlbsim_trace_writer_open_stream(stdout, "standard output", format, compression, info, w,
					    &err))
		return cli_fail_err(&err);
	return 0;
}

int cli_copy_events(tlbsim_trace_reader *r, tlbsim_trace_writer *w, struct cli_copy *c)
{
	double started = cli_now();
	struct rep_progress meter;
	struct tlbsim_event ev;
	int rc;

	tlbsim_error_clear(&c->err);
	rep_progress_start(&meter, c->what, c->quiet);
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
		if ((++c->events & 0xffff) == 0 && meter.on)
			rep_progress_update(&meter, c->events, 0,
					    c->in_size ? (double)tlbsim_trace_bytes_read(r) /
							     (double)c->in_size
						       : -1,
					    -1);
	}
	rep_progress_end(&meter);
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
	if (path && strcmp(path, "-") && stat(path, &sb) == 0)
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
