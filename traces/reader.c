/* SPDX-License-Identifier: MIT */
/*
 * The trace reader API: open an input (trace_in.c undoes compression),
 * pick the format by magic bytes or by the caller's choice, and hand the
 * events of the format's reader out, keeping its first error (sticky,
 * like a FILE's error indicator).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "trace_format.h"

static const struct trace_reader_ops *find_reader(enum tlbsim_trace_format format)
{
	for (const struct trace_reader_ops *const *ops = trace_readers; *ops; ops++)
		if ((*ops)->format == format)
			return *ops;
	return NULL;
}

/* The first bytes of the input as "74 6c 62 ...", for "unknown format". */
static void hex_prefix(const struct trace_in *in, char *buf, size_t size)
{
	size_t n = trace_in_avail(in) < 8 ? trace_in_avail(in) : 8, len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && len + 4 < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%02x", i ? " " : "",
					in->buf[in->pos + i]);
}

static const struct trace_reader_ops *detect(const struct trace_in *in, struct tlbsim_error *err)
{
	const uint8_t *p = in->buf + in->pos;
	size_t n = trace_in_avail(in), len = 0;
	char found[40], known[128] = "";

	for (const struct trace_reader_ops *const *ops = trace_readers; *ops; ops++)
		if ((*ops)->magic && n >= (*ops)->magic_len &&
		    memcmp(p, (*ops)->magic, (*ops)->magic_len) == 0)
			return *ops;
	for (const struct trace_reader_ops *const *ops = trace_readers; *ops; ops++)
		if ((*ops)->probe && (*ops)->probe(p, n))
			return *ops;
	/* Name the formats tried, then those never guessed (ChampSim: no magic). */
	for (const struct trace_reader_ops *const *ops = trace_readers; *ops; ops++)
		if (len < sizeof(known) && ((*ops)->magic || (*ops)->probe))
			len += (size_t)snprintf(known + len, sizeof(known) - len, "%s%s",
						len ? ", " : "", (*ops)->name);
	for (const struct trace_reader_ops *const *ops = trace_readers; *ops; ops++)
		if (len < sizeof(known) && !(*ops)->magic && !(*ops)->probe)
			len += (size_t)snprintf(known + len, sizeof(known) - len,
						"; %s only when named", (*ops)->name);
	hex_prefix(in, found, sizeof(found));
	err_set(err, -TLBSIM_EPARSE, in->name, -1, -1, 0, NULL, "a trace format expected (%s), found %s%s%s",
		known, n ? "first bytes [" : "an empty input", found, n ? "]" : "");
	return NULL;
}

static int open_any(const char *path, FILE *f, const void *mem, size_t size, const char *name,
		    const struct tlbsim_trace_opts *opts, tlbsim_trace_reader **out,
		    struct tlbsim_error *err)
{
	enum tlbsim_trace_format format = opts->format;
	tlbsim_trace_reader *r;
	int rc;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return err_set(err, -TLBSIM_ENOMEM, name ? name : path, -1, -1, -1, NULL,
			       "out of memory");
	r->opts = *opts;
	rc = trace_in_open(&r->in, path, f, mem, size, name, err);
	if (rc == 0) {
		r->ops = format == TLBSIM_TRACE_AUTO ? detect(&r->in, err) : find_reader(format);
		if (!r->ops)
			rc = err_set(
			    err, format == TLBSIM_TRACE_AUTO ? -TLBSIM_EPARSE : -TLBSIM_EINVAL,
			    r->in.name, -1, -1, -1, NULL, "no reader for format %d", (int)format);
	}
	if (rc == 0) {
		r->info.format = r->ops->format;
		r->info.compression = (enum tlbsim_trace_compression)r->in.codec;
		rc = r->ops->open(r, err);
	}
	if (rc < 0) {
		tlbsim_trace_close(r);
		return rc;
	}
	*out = r;
	return 0;
}

int tlbsim_trace_open(const char *path, enum tlbsim_trace_format format, tlbsim_trace_reader **out,
		      struct tlbsim_error *err)
{
	struct tlbsim_trace_opts o = {.format = format};

	return open_any(path, NULL, NULL, 0, NULL, &o, out, err);
}

int tlbsim_trace_open_file(FILE *f, const char *name, enum tlbsim_trace_format format,
			   tlbsim_trace_reader **out, struct tlbsim_error *err)
{
	struct tlbsim_trace_opts o = {.format = format};

	return open_any(NULL, f, NULL, 0, name ? name : "<stream>", &o, out, err);
}

int tlbsim_trace_open_mem(const void *buf, size_t size, const char *name,
			  enum tlbsim_trace_format format, tlbsim_trace_reader **out,
			  struct tlbsim_error *err)
{
	struct tlbsim_trace_opts o = {.format = format};

	return open_any(NULL, NULL, buf, size, name ? name : "<memory>", &o, out, err);
}

int tlbsim_trace_open_opts(const char *path, FILE *f, const char *name,
			   const struct tlbsim_trace_opts *opts, tlbsim_trace_reader **out,
			   struct tlbsim_error *err)
{
	struct tlbsim_trace_opts o = {0};

	if (opts)
		o = *opts;
	if (path)
		return open_any(path, NULL, NULL, 0, name, &o, out, err);
	return open_any(NULL, f, NULL, 0, name ? name : "<stream>", &o, out, err);
}

int tlbsim_trace_open_mem_opts(const void *buf, size_t size, const char *name,
			       const struct tlbsim_trace_opts *opts, tlbsim_trace_reader **out,
			       struct tlbsim_error *err)
{
	struct tlbsim_trace_opts o = {0};

	if (opts)
		o = *opts;
	return open_any(NULL, NULL, buf, size, name ? name : "<memory>", &o, out, err);
}

size_t tlbsim_trace_insn_counts(const tlbsim_trace_reader *r, struct tlbsim_trace_insn_count *out,
				size_t max)
{
	return r->ops && r->ops->insn_counts ? r->ops->insn_counts(r, out, max) : 0;
}

/*
 * One event from the format's reader into @ev (zeroed first), counted,
 * and its end or error made sticky.  Returns what the reader's next did.
 */
static inline int next_one(tlbsim_trace_reader *r, struct tlbsim_event *ev)
{
	int rc;

	memset(ev, 0, sizeof(*ev));
	rc = r->ops->next(r, ev, &r->err);
	if (rc > 0)
		r->nr_events++;
	else if (rc == 0)
		r->ended = 1;
	else
		r->failed = rc;
	return rc;
}

int tlbsim_trace_next(tlbsim_trace_reader *r, struct tlbsim_event *ev, struct tlbsim_error *err)
{
	int rc;

	if (!r->failed) {
		if (r->ended) {
			memset(ev, 0, sizeof(*ev));
			return 0;
		}
		rc = next_one(r, ev);
		r->positioned = rc > 0;
		if (rc >= 0)
			return rc;
	}
	if (err && !err->code)
		*err = r->err;
	return r->failed;
}

/* The batch of a format without its own: its next, one event at a time. */
static size_t next_batch_one_by_one(tlbsim_trace_reader *r, struct tlbsim_event *ev, size_t max)
{
	size_t n = 0;

	while (n < max && next_one(r, &ev[n]) > 0)
		n++;
	return n;
}

int tlbsim_trace_next_batch(tlbsim_trace_reader *r, struct tlbsim_event *ev, size_t max,
			    struct tlbsim_error *err)
{
	size_t n;

	if (max == 0)
		return err_set(err, -TLBSIM_EINVAL, r->in.name, -1, -1, -1, NULL,
			       "a batch of at least 1 event expected, found room for 0");
	if (!r->failed) {
		if (r->ended)
			return 0;
		/* the count is returned as an int */
		if (max > INT_MAX)
			max = INT_MAX;
		r->positioned = 0; /* access_run() keeps no position */
		n = r->ops->next_batch ? r->ops->next_batch(r, ev, max)
				       : next_batch_one_by_one(r, ev, max);
		/* events before an end or an error first; the error next time */
		if (n > 0 || !r->failed)
			return (int)n;
	}
	if (err && !err->code)
		*err = r->err;
	return r->failed;
}

const struct tlbsim_trace_info *tlbsim_trace_info(const tlbsim_trace_reader *r)
{
	return &r->info;
}

uint64_t tlbsim_trace_nr_events(const tlbsim_trace_reader *r)
{
	return r->nr_events;
}

int tlbsim_trace_position(const tlbsim_trace_reader *r, uint64_t *line, uint64_t *offset)
{
	uint64_t l = 0, o = 0;

	if (!r->positioned || !r->ops->position)
		return -TLBSIM_ENOENT;
	r->ops->position(r, &l, &o);
	if (line)
		*line = l;
	if (offset)
		*offset = o;
	return 0;
}

uint64_t tlbsim_trace_bytes_read(const tlbsim_trace_reader *r)
{
	return r->in.raw_consumed;
}

void tlbsim_trace_stats(const tlbsim_trace_reader *r, struct tlbsim_trace_stats *out)
{
	*out = r->stats;
	out->events = r->nr_events;
}

void trace_note_unknown(struct tlbsim_trace_reader *r, uint64_t line_no, const char *text,
			size_t len)
{
	struct tlbsim_trace_stats *st = &r->stats;

	if (st->unknown_lines++ == 0) {
		st->first_unknown_line = line_no;
		if (len > sizeof(st->first_unknown) - 1)
			len = sizeof(st->first_unknown) - 1;
		for (size_t i = 0; i < len; i++)
			st->first_unknown[i] =
			    (unsigned char)text[i] < 0x20 || text[i] == 0x7f ? '?' : text[i];
		st->first_unknown[len] = '\0';
	}
}

void tlbsim_trace_close(tlbsim_trace_reader *r)
{
	if (!r)
		return;
	if (r->ops && r->ops->close)
		r->ops->close(r);
	trace_in_close(&r->in);
	free(r);
}

const char *tlbsim_trace_format_name(enum tlbsim_trace_format format)
{
	const struct trace_reader_ops *ops = find_reader(format);

	if (format == TLBSIM_TRACE_AUTO)
		return "auto";
	return ops ? ops->name : "unknown";
}

int tlbsim_trace_format_find(const char *name, enum tlbsim_trace_format *out)
{
	if (strcmp(name, "auto") == 0) {
		*out = TLBSIM_TRACE_AUTO;
		return 0;
	}
	for (const struct trace_reader_ops *const *ops = trace_readers; *ops; ops++) {
		if (strcmp((*ops)->name, name) == 0) {
			*out = (*ops)->format;
			return 0;
		}
	}
	return -TLBSIM_ENOENT;
}
