/* SPDX-License-Identifier: MIT */
/*
 * How a trace format plugs in (STYLE.md, "How a policy, reader or
 * generator plugs in"): one const struct trace_reader_ops per readable
 * format, in traces/read_<name>.c, and one const struct trace_writer_ops
 * per writable format, in traces/write_<name>.c, each listed once in
 * traces/format_table.c.  reader.c and writer.c do everything else:
 * opening, decompression, format detection, sticky errors, validation of
 * written events, the temp-file protocol.
 *
 * Internal to traces/.
 */
#ifndef TLBSIM_TRACES_TRACE_FORMAT_H
#define TLBSIM_TRACES_TRACE_FORMAT_H

#include <stdint.h>

#include "error_internal.h"
#include "event_layout.h"
#include "tlbsim/trace.h"
#include "trace_io.h"

struct tlbsim_trace_reader {
	const struct trace_reader_ops *ops;
	struct trace_in in;
	struct tlbsim_trace_info info;
	uint64_t nr_events;
	int failed;			 /* the sticky error code, or 0 */
	int ended;			 /* the format's reader returned its clean end */
	int positioned;			 /* the last event came from tlbsim_trace_next() */
	struct tlbsim_error err;	 /* ... and its report */
	struct tlbsim_trace_stats stats; /* skipped and implied (events: see nr_events) */
	struct tlbsim_trace_opts opts;	 /* what the caller told the reader */
	void *priv;			 /* the format's state */
};

/* Count the skipped line @line_no, [@text, +@len), in @r's stats. */
void trace_note_unknown(struct tlbsim_trace_reader *r, uint64_t line_no, const char *text,
			size_t len);

/**
 * struct trace_reader_ops - one readable format
 * @name: what users type (--format text), and tlbsim_trace_format_name()
 * @format: its enum tlbsim_trace_format value
 * @summary: one line for --help
 * @magic, @magic_len: the first bytes of the (decompressed) trace that
 *         identify the format for TLBSIM_TRACE_AUTO
 * @probe: for formats without magic bytes (e.g. valgrind lackey output):
 *         returns 1 when the first @n bytes look like the format; NULL
 *         means @magic decides.  Probes run after every magic check failed.
 * @open: read the header from @r->in into @r->info (isa, page_shift,
 *        nr_threads, source, version) and set up @r->priv; 0 or a negative
 *        code reported in @err.  @close runs even when @open fails.
 * @next: read one event into @ev (already zeroed); return 1, 0 at the
 *        clean end, or a negative code reported in @err.  Only valid
 *        events (trace_event_check()) may be returned.
 * @next_batch: optional, for tlbsim_trace_next_batch(): decode up to @max
 *        events into @ev (each zeroed by the op), exactly the events @next
 *        would return one by one, counting each into @r->nr_events as it
 *        goes (@next's error texts quote that count).  Returns how many
 *        (0 < n <= @max), or 0 after setting @r->ended (clean end) or
 *        @r->failed with @r->err (error); an end or error met after some
 *        events is recorded the same way and those events returned.  NULL:
 *        reader.c loops over @next.
 * @position: where the event @next returned last came from, for
 *        tlbsim_trace_position(): *@line, the 1-based line (0 for binary
 *        formats), and *@offset, the byte offset in the decompressed trace
 *        of that line's or record's first byte; the position the format's
 *        own error messages keep, so it costs @next nothing more.  NULL:
 *        the format cannot say.
 * @close: free @r->priv; NULL when there is nothing to free.
 * @insn_counts: instruction traces: tlbsim_trace_insn_counts(); NULL for
 *        the others.
 */
struct trace_reader_ops {
	const char *name;
	enum tlbsim_trace_format format;
	const char *summary;
	const char *magic;
	size_t magic_len;
	int (*probe)(const uint8_t *p, size_t n);
	int (*open)(struct tlbsim_trace_reader *r, struct tlbsim_error *err);
	int (*next)(struct tlbsim_trace_reader *r, struct tlbsim_event *ev,
		    struct tlbsim_error *err);
	size_t (*next_batch)(struct tlbsim_trace_reader *r, struct tlbsim_event *ev, size_t max);
	void (*position)(const struct tlbsim_trace_reader *r, uint64_t *line, uint64_t *offset);
	void (*close)(struct tlbsim_trace_reader *r);
	size_t (*insn_counts)(const struct tlbsim_trace_reader *r,
			      struct tlbsim_trace_insn_count *out, size_t max);
};

struct tlbsim_trace_writer {
	const struct trace_writer_ops *ops;
	struct trace_out out;
	struct tlbsim_trace_info info;
	uint64_t nr_events;
	void *priv;
};

/**
 * struct trace_writer_ops - one writable format
 * @name, @format: as struct trace_reader_ops
 * @open: write the header from @w->info to @w->out and set up @w->priv
 * @write: append @ev, which is valid; 0 or the negative code of an error
 *         recorded in @w->out.err
 * @finish: write what ends the trace (the binary end record) to @w->out;
 *          NULL when nothing does
 * @close: free @w->priv; NULL when there is nothing to free
 */
struct trace_writer_ops {
	const char *name;
	enum tlbsim_trace_format format;
	int (*open)(struct tlbsim_trace_writer *w, struct tlbsim_error *err);
	int (*write)(struct tlbsim_trace_writer *w, const struct tlbsim_event *ev);
	int (*finish)(struct tlbsim_trace_writer *w);
	void (*close)(struct tlbsim_trace_writer *w);
};

/* NULL-terminated tables of traces/format_table.c. */
extern const struct trace_reader_ops *const trace_readers[];
extern const struct trace_writer_ops *const trace_writers[];

extern const struct trace_reader_ops trace_read_text, trace_read_native;
extern const struct trace_reader_ops trace_read_lackey, trace_read_champsim;
extern const struct trace_reader_ops trace_read_execlog, trace_read_insn;
extern const struct trace_writer_ops trace_write_text, trace_write_native;

/* ISA names of headers: "x86-64", "arm64" (the machine JSON's names). */
extern const struct trace_name trace_isa_names[];

/*
 * Header rules shared by every format and by writers: a known ISA, a page
 * shift of 12, 14 or 16 (4, 16, 64 KiB: the base pages of x86-64 and of
 * arm64's three granules, Arm ARM D8.1), and a printable source.
 */
int trace_page_shift_ok(unsigned page_shift);
/* Index of the first non-printable byte of @s[0, @n), or -1. */
int trace_source_bad_char(const char *s, size_t n);

#endif
