/* SPDX-License-Identifier: MIT */
/*
 * The trace writer API: check the header, open the temporary file
 * (trace_out.c), refuse invalid events -- so every trace written can be
 * read back -- and hand valid ones to the format's writer.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "trace_format.h"

static const struct trace_writer_ops *find_writer(enum tlbsim_trace_format format)
{
	for (const struct trace_writer_ops *const *ops = trace_writers; *ops; ops++)
		if ((*ops)->format == format)
			return *ops;
	return NULL;
}

static int check_info(const char *path, const struct tlbsim_trace_info *info,
		      struct tlbsim_error *err)
{
	size_t n = strnlen(info->source, sizeof(info->source));

	if (!trace_name_of(trace_isa_names, info->isa))
		return err_set(err, -TLBSIM_EINVAL, path, -1, -1, -1, NULL,
			       "isa: x86-64 or arm64 expected, found %d", (int)info->isa);
	if (!trace_page_shift_ok(info->page_shift))
		return err_set(err, -TLBSIM_EINVAL, path, -1, -1, -1, NULL,
			       "page_shift: 12, 14 or 16 expected, found %u", info->page_shift);
	if (n == sizeof(info->source) || trace_source_bad_char(info->source, n) >= 0)
		return err_set(err, -TLBSIM_EINVAL, path, -1, -1, -1, NULL,
			       "source: a NUL-terminated printable string expected");
	return 0;
}

/* @f non-NULL: onto that stream, @path naming it. */
static int writer_open(const char *path, FILE *f, enum tlbsim_trace_format format,
		       enum tlbsim_trace_compression compression,
		       const struct tlbsim_trace_info *info, tlbsim_trace_writer **out,
		       struct tlbsim_error *err)
{
	const struct trace_writer_ops *ops = find_writer(format);
	tlbsim_trace_writer *w;
	int rc;

	*out = NULL;
	if (!ops)
		return err_set(err, -TLBSIM_EINVAL, path, -1, -1, -1, NULL,
			       "a writable format (text, binary) expected, found %d", (int)format);
	if (compression != TLBSIM_COMPRESS_NONE && compression != TLBSIM_COMPRESS_ZSTD &&
	    compression != TLBSIM_COMPRESS_XZ)
		return err_set(err, -TLBSIM_EINVAL, path, -1, -1, -1, NULL,
			       "compression none, zstd or xz expected, found %d", (int)compression);
	if ((rc = check_info(path, info, err)) < 0)
		return rc;
	w = calloc(1, sizeof(*w));
	if (!w)
		return err_set(err, -TLBSIM_ENOMEM, path, -1, -1, -1, NULL, "out of memory");
	w->ops = ops;
	w->info = *info;
	w->info.version = TLBSIM_TRACE_VERSION;
	w->info.format = format;
	w->info.compression = compression;
	rc = f ? trace_out_open_stream(&w->out, f, path, compression, err)
	       : trace_out_open(&w->out, path, compression, err);
	if (rc < 0) {
		free(w);
		return rc;
	}
	rc = ops->open(w, err);
	if (rc < 0) {
		tlbsim_trace_writer_abort(w);
		return rc;
	}
	*out = w;
	return 0;
}

int tlbsim_trace_writer_open(const char *path, enum tlbsim_trace_format format,
			     enum tlbsim_trace_compression compression,
			     const struct tlbsim_trace_info *info, tlbsim_trace_writer **out,
			     struct tlbsim_error *err)
{
	return writer_open(path, NULL, format, compression, info, out, err);
}

int tlbsim_trace_writer_open_stream(FILE *f, const char *name, enum tlbsim_trace_format format,
				    enum tlbsim_trace_compression compression,
				    const struct tlbsim_trace_info *info, tlbsim_trace_writer **out,
				    struct tlbsim_error *err)
{
	return writer_open(name ? name : "<stream>", f, format, compression, info, out, err);
}

int tlbsim_trace_writer_write(tlbsim_trace_writer *w, const struct tlbsim_event *ev,
			      struct tlbsim_error *err)
{
	char why[TLBSIM_ERROR_TEXT_LEN - 32];
	int field, rc;

	if (w->out.err.code) {
		if (err && !err->code)
			*err = w->out.err;
		return w->out.err.code;
	}
	if (trace_event_check(ev, &field, why, sizeof(why)) < 0)
		return err_set(err, -TLBSIM_EINVAL, w->out.path, -1, -1, -1, NULL,
			       "event %" PRIu64 ": %s", w->nr_events, why);
	rc = w->ops->write(w, ev);
	if (rc < 0) {
		if (err && !err->code)
			*err = w->out.err;
		return rc;
	}
	w->nr_events++;
	return 0;
}

int tlbsim_trace_writer_close(tlbsim_trace_writer *w, struct tlbsim_error *err)
{
	int rc;

	if (!w)
		return 0;
	if (!w->out.err.code && w->ops->finish)
		w->ops->finish(w); /* an error lands in w->out.err: commit reports it */
	rc = trace_out_commit(&w->out, err);
	if (w->ops->close)
		w->ops->close(w);
	free(w);
	return rc;
}

void tlbsim_trace_writer_abort(tlbsim_trace_writer *w)
{
	if (!w)
		return;
	trace_out_abort(&w->out);
	if (w->ops->close)
		w->ops->close(w);
	free(w);
}
