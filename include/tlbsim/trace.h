/* SPDX-License-Identifier: MIT */
/*
 * Trace readers and writers: streams of struct tlbsim_event (event.h) in
 * the formats of traces/FORMAT.md -- the native binary format, compact
 * (2 to 4 bytes an access), and the human-writable text format -- and
 * readers of foreign formats: valgrind lackey logs, ChampSim traces and
 * instruction traces (QEMU's execlog plugin, tlbsim's insn lines) decoded
 * with Capstone.
 *
 * Readers stream through a bounded buffer (64 KiB of decompressed data, as
 * much of compressed input): memory does not grow with the trace.  The
 * format and the compression (zstd, xz) are recognised by their magic
 * bytes (lackey logs, which have none, by their first line), never by the
 * file name; ChampSim traces have neither and must be asked for.  Every
 * error names the file and the line and column (text) or byte offset
 * (binary), with what was expected and what was found; truncated input,
 * compressed or not, is an error.
 *
 * Writers write to "path.tmp.XXXXXX" in the destination's directory and
 * rename it onto the path when closed, so no half-written trace is ever
 * left under the final name.
 */
#ifndef TLBSIM_TRACE_H
#define TLBSIM_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "tlbsim/error.h"
#include "tlbsim/event.h"
#include "tlbsim/export.h"
#include "tlbsim/machine.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Trace formats (traces/FORMAT.md).  Only TEXT and BINARY can be written. */
enum tlbsim_trace_format {
	TLBSIM_TRACE_AUTO = 0,	   /* readers: recognise by magic bytes or first line */
	TLBSIM_TRACE_TEXT = 1,	   /* "tlbsim-trace 1 ..." lines */
	TLBSIM_TRACE_BINARY = 2,   /* native binary, magic "TLBSIMTR" */
	TLBSIM_TRACE_LACKEY = 3,   /* valgrind --tool=lackey --trace-mem=yes log, with
				    * --trace-syscalls=yes --trace-sched=yes lines */
	TLBSIM_TRACE_CHAMPSIM = 4, /* ChampSim input_instr records; never auto-detected */
	TLBSIM_TRACE_EXECLOG = 5,  /* QEMU TCG execlog plugin output; needs the ISA */
	TLBSIM_TRACE_INSN = 6,	   /* "tlbsim-insn 1 isa=..." instruction lines */
};

/**
 * struct tlbsim_trace_opts - what a reader cannot learn from the input
 * @format: the format, or TLBSIM_TRACE_AUTO
 * @isa: instruction traces: the ISA of the traced system; required for
 *       execlog (its output does not say), overrides nothing in an insn
 *       trace (whose header must then agree); 0 = not given
 * @has_linear_map, @linear_map: the kernel's linear map, kernel VA = PA +
 *       @linear_map (Linux PAGE_OFFSET on arm64, page_offset_base on
 *       x86-64), so that stores into it become PHYS_STORE events; an insn
 *       header's linear_map= is used when this is not given
 *
 * Zero-initialise it: new members keep their meaning at 0.
 */
struct tlbsim_trace_opts {
	enum tlbsim_trace_format format;
	enum tlbsim_isa isa;
	int has_linear_map;
	uint64_t linear_map;
};

/* Compression of a trace file (readers detect it by magic bytes). */
enum tlbsim_trace_compression {
	TLBSIM_COMPRESS_NONE = 0,
	TLBSIM_COMPRESS_ZSTD = 1, /* zstd frames (RFC 8878), level 3 when writing */
	TLBSIM_COMPRESS_XZ = 2,	  /* .xz container (liblzma), preset 6 when writing */
};

/* Version of the native formats written by this library (both formats). */
#define TLBSIM_TRACE_VERSION 1
/* Bytes of tlbsim_trace_info.source, NUL included. */
#define TLBSIM_TRACE_SOURCE_LEN 256

/**
 * struct tlbsim_trace_info - what a trace's header says
 * @version: format version read (readers fill it; writers ignore it)
 * @isa: ISA of the traced system; addresses and kernel events follow it
 * @page_shift: log2 of the traced system's base page size in bytes: 12,
 *              14 or 16
 * @nr_threads: threads the producer declared, 0 when unknown; advisory,
 *              the events themselves create threads
 * @source: free-form producer description ("valgrind-lackey 3.19 ls -l"),
 *          printable characters only, may be empty
 * @format: the format read (readers fill it; writers ignore it)
 * @compression: the compression read (readers fill it; writers ignore it)
 */
struct tlbsim_trace_info {
	unsigned version;
	enum tlbsim_isa isa;
	unsigned page_shift;
	uint32_t nr_threads;
	char source[TLBSIM_TRACE_SOURCE_LEN];
	enum tlbsim_trace_format format;
	enum tlbsim_trace_compression compression;
};

typedef struct tlbsim_trace_reader tlbsim_trace_reader;
typedef struct tlbsim_trace_writer tlbsim_trace_writer;

/**
 * tlbsim_trace_open() - open a trace file for streaming
 * @path: file to read (borrowed)
 * @format: the format, or TLBSIM_TRACE_AUTO to recognise it
 * @out: on success, receives a reader owned by the caller
 * @err: error report, or NULL; names @path
 *
 * Reads the header (tlbsim_trace_info() then returns it); events come from
 * tlbsim_trace_next().  zstd and xz compression are undone transparently.
 *
 * Returns: 0; -TLBSIM_ENOENT / -TLBSIM_EIO when @path cannot be read;
 * -TLBSIM_EPARSE for a bad or unknown header or magic; -TLBSIM_ENOTSUP for
 * an unsupported version or compression; -TLBSIM_ETRUNC for a truncated
 * header; -TLBSIM_ENOMEM.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_trace_open(const char *path,
						   enum tlbsim_trace_format format,
						   tlbsim_trace_reader **out,
						   struct tlbsim_error *err);

/**
 * tlbsim_trace_open_file() - open a trace from an open stream
 * @f: stream positioned at the start of the trace (borrowed: it is not
 *     closed by tlbsim_trace_close(); it may be a pipe)
 * @name: name for error reports, e.g. "<stdin>" (borrowed, copied)
 * @format, @out, @err: as tlbsim_trace_open()
 *
 * Returns: as tlbsim_trace_open().
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_trace_open_file(FILE *f, const char *name,
							enum tlbsim_trace_format format,
							tlbsim_trace_reader **out,
							struct tlbsim_error *err);

/**
 * tlbsim_trace_open_mem() - open a trace held in memory
 * @buf: the trace's bytes, possibly compressed (borrowed: must outlive the
 *       reader)
 * @size: bytes in @buf
 * @name: name for error reports, or NULL for "<memory>" (copied)
 * @format, @out, @err: as tlbsim_trace_open()
 *
 * Returns: as tlbsim_trace_open().
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_trace_open_mem(const void *buf, size_t size,
						       const char *name,
						       enum tlbsim_trace_format format,
						       tlbsim_trace_reader **out,
						       struct tlbsim_error *err);

/**
 * tlbsim_trace_open_opts() - open a trace file with reader options
 * @path: file to read (borrowed), or NULL to read @f
 * @f: with a NULL @path, the stream to read (borrowed, as
 *     tlbsim_trace_open_file()); @name names it in errors
 * @name: name for error reports, or NULL for @path
 * @opts: format, ISA and linear map (borrowed; NULL = all defaults)
 * @out, @err: as tlbsim_trace_open()
 *
 * Returns: as tlbsim_trace_open(); -TLBSIM_EINVAL for an execlog trace
 * without @opts->isa.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_trace_open_opts(const char *path, FILE *f,
							const char *name,
							const struct tlbsim_trace_opts *opts,
							tlbsim_trace_reader **out,
							struct tlbsim_error *err);

/**
 * tlbsim_trace_open_mem_opts() - open a trace held in memory, with options
 * @buf, @size, @name: as tlbsim_trace_open_mem()
 * @opts, @out, @err: as tlbsim_trace_open_opts()
 *
 * Returns: as tlbsim_trace_open_opts().
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_trace_open_mem_opts(const void *buf, size_t size,
							    const char *name,
							    const struct tlbsim_trace_opts *opts,
							    tlbsim_trace_reader **out,
							    struct tlbsim_error *err);

/**
 * tlbsim_trace_next() - read the next event
 * @r: the reader
 * @ev: receives the event, zeroed and then filled; valid
 *      (tlbsim_event_validate()) whenever 1 is returned
 * @err: error report, or NULL
 *
 * An error is sticky: once it returned one, the reader returns the same
 * code (and report) again.
 *
 * Returns: 1 when an event was read; 0 at the clean end of the trace;
 * -TLBSIM_EPARSE for malformed input; -TLBSIM_EINVAL for an event that
 * breaks its kind's rules; -TLBSIM_ERANGE for a value too large for its
 * field; -TLBSIM_ETRUNC for truncated input (a binary trace without its
 * end record, a cut compressed stream, a lackey log ending inside a line,
 * a ChampSim record cut short); -TLBSIM_ENOTSUP for input the events
 * cannot represent (a lackey log of a program that forks, or of another
 * architecture); -TLBSIM_EIO on a read error; -TLBSIM_ENOMEM.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_trace_next(tlbsim_trace_reader *r, struct tlbsim_event *ev,
						   struct tlbsim_error *err);

/**
 * tlbsim_trace_next_batch() - read up to @max events at once
 * @r: the reader
 * @ev: caller-owned array of at least @max events; the first n (the return
 *      value) receive the events, each zeroed and then filled, valid as
 *      tlbsim_trace_next()'s; the rest may have been overwritten
 * @max: room in @ev, in events, at least 1 (larger values are served at
 *       most INT_MAX at a time)
 * @err: error report, or NULL
 *
 * Returns exactly the events repeated tlbsim_trace_next() calls would, in
 * the same order, and the two may be mixed on one reader;
 * tlbsim_trace_nr_events() and tlbsim_trace_bytes_read() advance as they
 * do.  The native binary reader decodes runs of compact access records in
 * one tight loop (traces/read_native.c); the other formats call their
 * one-event reader @max times.
 *
 * An error met after some events of this call were read is held back:
 * those events are returned now, and the error on the next call, so no
 * event before a bad record is lost.  The error is the one
 * tlbsim_trace_next() would have reported at that point (the same code,
 * byte offset or line and column, and text) and is sticky as there.
 *
 * Returns: the number of events read, 1 to @max; 0 at the clean end of the
 * trace; a negative code as tlbsim_trace_next(); -TLBSIM_EINVAL (not
 * sticky, @r unchanged) when @max is 0.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_trace_next_batch(tlbsim_trace_reader *r,
							 struct tlbsim_event *ev, size_t max,
							 struct tlbsim_error *err);

/**
 * tlbsim_trace_info() - the header of an open trace
 * @r: the reader (borrowed)
 *
 * Returns: a pointer into @r, valid until it is closed.
 */
TLBSIM_API const struct tlbsim_trace_info *tlbsim_trace_info(const tlbsim_trace_reader *r);

/**
 * tlbsim_trace_bytes_read() - input consumed so far
 * @r: the reader (borrowed)
 *
 * Returns: bytes of the file (compressed, if it is) taken in so far; with
 * the file's size, how far a reader has got (progress estimates).
 */
TLBSIM_API uint64_t tlbsim_trace_bytes_read(const tlbsim_trace_reader *r);

/**
 * tlbsim_trace_nr_events() - events returned so far by tlbsim_trace_next()
 * and tlbsim_trace_next_batch()
 * @r: the reader (borrowed)
 *
 * Returns: a count; the index of the last event returned is this minus 1.
 */
TLBSIM_API uint64_t tlbsim_trace_nr_events(const tlbsim_trace_reader *r);

/**
 * tlbsim_trace_position() - where the last event tlbsim_trace_next() returned starts
 * @r: the reader (borrowed)
 * @line: receives the 1-based line of the event (text, lackey, execlog,
 *        insn), or 0 for the binary formats (native, ChampSim); may be NULL
 * @offset: receives the byte offset, in the decompressed trace (as the
 *          readers' own errors give it), of that line's first byte, of the
 *          event's record (native: its opcode; not a set_cpu record before
 *          it) or of its 64-byte ChampSim record; may be NULL
 *
 * The position of the input an event was made of: a lackey, execlog or insn
 * line, or a ChampSim record, that makes several events is the position of
 * each (a lackey implied mmap: the access line needing it; an execlog
 * compute event gathered over several instructions: the line that ended
 * it; the process a ChampSim trace starts with: offset 0).  Kept by the
 * one-event path only: tlbsim_trace_next_batch() decodes runs of accesses
 * without it (the simulator's fast path), so after a batch there is no
 * position until the next tlbsim_trace_next().
 *
 * Returns: 0; -TLBSIM_ENOENT when the last call to @r was not a
 * tlbsim_trace_next() that returned an event (none yet, the end, an error,
 * a batch).
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_trace_position(const tlbsim_trace_reader *r, uint64_t *line,
						       uint64_t *offset);

/**
 * tlbsim_trace_locate() - add the line or offset of the event an error names
 * @path: the trace file the events came from (borrowed); it is opened and
 *        read again, so it cannot be standard input or a pipe
 * @opts: the reader options it was read with (borrowed; NULL = defaults)
 * @err: a report of an error of one of its events (@err->event >= 0, from
 *       the OS model or the kernel-level replayer) with no @line and no
 *       @offset yet
 *
 * Reads events one by one up to event @err->event and files the error at
 * its tlbsim_trace_position(): @line (and @offset, the line's first byte)
 * for text-like formats, @offset alone for binary ones, so that
 * tlbsim_error_format() gives "path:12: event 11 (exit): ..." or
 * "path:@1234: ...".  The text and the code are kept.  It reads the trace
 * up to that event again, as long as that takes: for the error path only.
 *
 * Returns: 0 with @err filed; -TLBSIM_EINVAL (nothing read) when @err names
 * no event or already has a line or offset; -TLBSIM_ENOTSUP (nothing read)
 * when @path is not a regular file (a FIFO, a device: reading it again
 * would wait for, and read, other data); -TLBSIM_ENOENT when the trace
 * now ends before that event; the code of tlbsim_trace_open_opts() or
 * tlbsim_trace_next() when @path cannot be read.  @err is left as it was
 * on every failure.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_trace_locate(const char *path,
						     const struct tlbsim_trace_opts *opts,
						     struct tlbsim_error *err);

/**
 * struct tlbsim_trace_stats - what a reader skipped or added
 * @events: events returned so far (as tlbsim_trace_nr_events())
 * @unknown_lines: input lines of no shape the format knows, skipped
 *                 (lackey logs: valgrind messages other than the scheduler's
 *                 and the syscalls'); always 0 for formats that fail on
 *                 anything unknown (text, binary, ChampSim)
 * @first_unknown_line: line number of the first of them, 0 when none
 * @first_unknown: its first bytes (at most 63, control characters as '?'),
 *                 for messages; empty when none
 * @implied_mmaps: MMAP events the reader made up for memory the input uses
 *                 but never maps (a lackey log's program image and stack; a
 *                 ChampSim trace's every 1 GiB region); traces/FORMAT.md
 *                 says when
 * @insns: instruction traces (execlog, insn): instructions read
 * @unknown_insns: of them, those decoded to nothing the events can say (a
 *                 system instruction not modelled, an operand the trace
 *                 lacks) or not decodable at all; by mnemonic in
 *                 tlbsim_trace_insn_counts().  Never dropped silently.
 */
struct tlbsim_trace_stats {
	uint64_t events;
	uint64_t unknown_lines;
	uint64_t first_unknown_line;
	char first_unknown[64];
	uint64_t implied_mmaps;
	uint64_t insns;
	uint64_t unknown_insns;
};

/* Bytes of tlbsim_trace_insn_count.mnemonic, NUL included. */
#define TLBSIM_TRACE_MNEMONIC_LEN 48

/**
 * struct tlbsim_trace_insn_count - unknown instructions of one kind
 * @mnemonic: Capstone's mnemonic, with the system register or operation
 *            when it is what was not modelled ("msr vbar_el1", "at"), and
 *            a note when an operand was missing ("invpcid (no descriptor)");
 *            "(undecodable)" for bytes Capstone does not decode
 * @count: how many
 */
struct tlbsim_trace_insn_count {
	char mnemonic[TLBSIM_TRACE_MNEMONIC_LEN];
	uint64_t count;
};

/**
 * tlbsim_trace_insn_counts() - the unknown instructions so far, by mnemonic
 * @r: the reader (borrowed)
 * @out: receives up to @max entries, most frequent first (ties by name)
 * @max: room in @out; 0 to only count
 *
 * Returns: the number of distinct mnemonics (may exceed @max); 0 for
 * readers of other formats.
 */
TLBSIM_API size_t tlbsim_trace_insn_counts(const tlbsim_trace_reader *r,
					   struct tlbsim_trace_insn_count *out, size_t max);

/**
 * tlbsim_trace_stats() - what the reader skipped or added so far
 * @r: the reader (borrowed)
 * @out: receives the counts
 *
 * A reader that skips what it does not understand never does so silently:
 * the counts say how much, and callers (tlbsim convert, tlbsim record)
 * print them.
 */
TLBSIM_API void tlbsim_trace_stats(const tlbsim_trace_reader *r, struct tlbsim_trace_stats *out);

/**
 * tlbsim_trace_close() - release a reader
 * @r: the reader, or NULL (then nothing happens)
 */
TLBSIM_API void tlbsim_trace_close(tlbsim_trace_reader *r);

/**
 * tlbsim_trace_format_name() - "text", "binary", "lackey", "champsim", "execlog", "insn"
 * @format: a format
 *
 * Returns: a static string: the name the format has in its reader table,
 * "auto" for TLBSIM_TRACE_AUTO, or "unknown".
 */
TLBSIM_API const char *tlbsim_trace_format_name(enum tlbsim_trace_format format);

/**
 * tlbsim_trace_format_find() - the format of a name, for command lines
 * @name: "text", "binary", "lackey", "champsim", "execlog", "insn" or "auto"
 *        (borrowed)
 * @out: receives the format
 *
 * Returns: 0, or -TLBSIM_ENOENT for an unknown name.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_trace_format_find(const char *name,
							  enum tlbsim_trace_format *out);

/**
 * tlbsim_trace_writer_open() - start writing a trace file
 * @path: final path (borrowed); the data goes to "@path.tmp.XXXXXX" until
 *        tlbsim_trace_writer_close()
 * @format: TLBSIM_TRACE_TEXT or TLBSIM_TRACE_BINARY
 * @compression: how to compress the whole file
 * @info: the header to write (borrowed): @isa, @page_shift, @nr_threads
 *        and @source are used
 * @out: on success, receives a writer owned by the caller
 * @err: error report, or NULL
 *
 * Returns: 0; -TLBSIM_EINVAL for a bad @format, @compression or @info
 * (unknown ISA, page shift not 12, 14 or 16, non-printable source);
 * -TLBSIM_EIO when the temporary file cannot be created; -TLBSIM_ENOMEM.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_trace_writer_open(
    const char *path, enum tlbsim_trace_format format, enum tlbsim_trace_compression compression,
    const struct tlbsim_trace_info *info, tlbsim_trace_writer **out, struct tlbsim_error *err);

/**
 * tlbsim_trace_writer_open_stream() - start writing a trace onto an open
 * stream (standard output, a pipe)
 * @f: the stream (borrowed: tlbsim_trace_writer_close() flushes it and
 *     leaves it open)
 * @name: the stream's name in error reports (borrowed), e.g. "standard
 *        output"; NULL: "<stream>"
 * @format, @compression, @info, @out, @err: as tlbsim_trace_writer_open()
 *
 * The trace is written in place as it goes, with no temporary file: a
 * write error or tlbsim_trace_writer_abort() leaves on @f what was written
 * before it.  A write error (a full disk, a closed pipe) is -TLBSIM_EIO
 * from the write, close or both, "cannot write" and strerror() in @err.
 *
 * Returns: as tlbsim_trace_writer_open(), without its -TLBSIM_EIO at open.
 */
TLBSIM_API TLBSIM_MUST_CHECK int
tlbsim_trace_writer_open_stream(FILE *f, const char *name, enum tlbsim_trace_format format,
				enum tlbsim_trace_compression compression,
				const struct tlbsim_trace_info *info, tlbsim_trace_writer **out,
				struct tlbsim_error *err);

/**
 * tlbsim_trace_writer_write() - append one event
 * @w: the writer
 * @ev: the event (borrowed); must pass tlbsim_event_validate()
 * @err: error report, or NULL; the text says which event (0-based index)
 *
 * Returns: 0; -TLBSIM_EINVAL for an invalid event (nothing is written,
 * and the writer stays usable); -TLBSIM_EIO on a write error (the writer
 * is then failed: only close or abort remain).
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_trace_writer_write(tlbsim_trace_writer *w,
							   const struct tlbsim_event *ev,
							   struct tlbsim_error *err);

/**
 * tlbsim_trace_writer_close() - finish the trace and publish it
 * @w: the writer, or NULL (then nothing happens and 0 is returned);
 *     always released
 * @err: error report, or NULL
 *
 * Writes the end record (binary), ends the compressed stream, flushes and
 * fsyncs the temporary file and renames it onto the final path (a stream
 * of tlbsim_trace_writer_open_stream() is flushed only).  On any
 * failure, or when an earlier write failed, the temporary file is removed
 * and the final path is left as it was.
 *
 * Returns: 0, or -TLBSIM_EIO.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_trace_writer_close(tlbsim_trace_writer *w,
							   struct tlbsim_error *err);

/**
 * tlbsim_trace_writer_abort() - discard a trace being written
 * @w: the writer, or NULL (then nothing happens); always released
 *
 * Removes the temporary file; the final path is left as it was.
 */
TLBSIM_API void tlbsim_trace_writer_abort(tlbsim_trace_writer *w);

#ifdef __cplusplus
}
#endif

#endif /* TLBSIM_TRACE_H */
