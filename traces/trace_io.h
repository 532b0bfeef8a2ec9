/* SPDX-License-Identifier: MIT */
/*
 * Byte streams under every trace reader and writer: bounded buffers,
 * transparent zstd (libzstd streaming API, ZSTD_DStream/ZSTD_CStream) and
 * xz (liblzma lzma_stream_decoder/lzma_easy_encoder) by magic bytes, and
 * the temp-file-then-rename protocol of writers.
 *
 * Internal to traces/.
 */
#ifndef TLBSIM_TRACES_TRACE_IO_H
#define TLBSIM_TRACES_TRACE_IO_H

#include <stdint.h>
#include <stdio.h>

#include <lzma.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "tlbsim/error.h"
#include "tlbsim/trace.h"

/*
 * Decompressed bytes a reader sees at once, and compressed bytes read at
 * once: 64 KiB each, so a reader's memory stays flat for any trace length.
 * A text line must fit in the former.
 */
#define TRACE_IN_BUF_SIZE (64 * 1024)
#define TRACE_RAW_BUF_SIZE (64 * 1024)

/**
 * struct trace_in - a decompressing input stream with a window @buf[@pos,
 * @len) of bytes not yet consumed
 * @name: source for error reports
 * @codec: enum tlbsim_trace_compression found at the start of the input
 * @base: offset in the (decompressed) trace of @buf[0]
 * @eof: no byte follows @buf[@len - 1]
 * @raw_*: compressed input buffered, and its total consumed so far
 */
struct trace_in {
	char name[TLBSIM_ERROR_SOURCE_LEN];
	FILE *f;
	int own_f;
	const uint8_t *mem;
	size_t mem_size, mem_pos;

	int codec;
	ZSTD_DStream *zd;
	size_t zd_ret;	 /* last ZSTD_decompressStream() hint: 0 at a frame's end */
	size_t zd_want;	 /* compressed bytes the next call may be given, at most */
	size_t zd_first; /* ZSTD_initDStream()'s first input size: a frame's start */
	uint64_t zd_unit, zd_frame; /* compressed offsets: see fill_zstd() */
	uint64_t zd_frame_out;	    /* trace offset where frame @zd_frame starts */
	lzma_stream xz;
	int xz_active;

	uint8_t *raw;
	size_t raw_pos, raw_len;
	int raw_eof;
	uint64_t raw_consumed;

	uint8_t *buf;
	size_t pos, len;
	uint64_t base;
	int eof;
};

/*
 * Open one of @path, @f (borrowed) or @mem/@size, sniff the compression
 * and fill the first window.  Returns 0 or a negative code (reported).
 */
int trace_in_open(struct trace_in *in, const char *path, FILE *f, const void *mem, size_t size,
		  const char *name, struct tlbsim_error *err);
void trace_in_close(struct trace_in *in);

/*
 * Move the unconsumed bytes to the front and read until the window is full
 * or the input ends (then @eof is set).  Returns 0, or a negative code
 * (reported): -TLBSIM_EIO, -TLBSIM_ETRUNC for a cut compressed stream,
 * -TLBSIM_EPARSE for a corrupt one.
 */
int trace_in_fill(struct trace_in *in, struct tlbsim_error *err);

/*
 * The next line of a text input, for the text and lackey readers: on 1,
 * [*@line, + *@len) is the line in the window, without its "\n" (a "\r"
 * before it is kept), valid until the next call; *@terminated is 0 for a
 * last line the input ends inside of.  A line longer than @max bytes
 * (@max < TRACE_IN_BUF_SIZE) is not consumed: *@len is then @max + 1.
 * Returns 1, 0 at the end of the input, or a negative code (reported).
 */
int trace_in_line(struct trace_in *in, size_t max, const char **line, size_t *len, int *terminated,
		  struct tlbsim_error *err);

static inline size_t trace_in_avail(const struct trace_in *in)
{
	return in->len - in->pos;
}

/* Offset in the decompressed trace of the next unconsumed byte. */
static inline uint64_t trace_in_offset(const struct trace_in *in)
{
	return in->base + in->pos;
}

/* Uncompressed bytes a writer gathers before compressing or writing them. */
#define TRACE_OUT_BUF_SIZE (64 * 1024)

/**
 * struct trace_out - a compressing output stream into a temporary file
 * @path: final path; @tmp: the temporary file's path
 * @buf[0, @len): bytes not yet compressed/written
 * @err: the first I/O error, reported again by close
 */
struct trace_out {
	char *path;
	char *tmp;
	FILE *f;
	int codec;
	ZSTD_CStream *zc;
	lzma_stream xz;
	int xz_active;
	uint8_t *buf;
	size_t len;
	uint8_t *zbuf;
	uint64_t offset;
	int direct;   /* writing in place: a device, FIFO or socket (no temp file) */
	int borrowed; /* @f is the caller's (trace_out_open_stream()): never closed */
	struct tlbsim_error err;
};

int trace_out_open(struct trace_out *out, const char *path, int codec, struct tlbsim_error *err);
/* Write in place onto @f (borrowed), @name in errors. */
int trace_out_open_stream(struct trace_out *out, FILE *f, const char *name, int codec,
			  struct tlbsim_error *err);

/* Compress and write @buf[0, @len).  Returns 0 or -TLBSIM_EIO (in @err). */
int trace_out_flush(struct trace_out *out);

/*
 * Room for @n <= TRACE_OUT_BUF_SIZE bytes at @buf + @len (the caller adds
 * what it wrote to @len).  Returns NULL after an I/O error (in @err).
 */
static inline uint8_t *trace_out_reserve(struct trace_out *out, size_t n)
{
	if (TRACE_OUT_BUF_SIZE - out->len < n && trace_out_flush(out) < 0)
		return NULL;
	return out->buf + out->len;
}

/* Append @n bytes.  Returns 0 or -TLBSIM_EIO. */
int trace_out_write(struct trace_out *out, const void *p, size_t n);

/*
 * End the compressed stream, flush, fsync, close and rename the temporary
 * file onto the final path; on failure remove it.  Frees @out's buffers.
 */
int trace_out_commit(struct trace_out *out, struct tlbsim_error *err);

/* Remove the temporary file and free @out's buffers. */
void trace_out_abort(struct trace_out *out);

#endif
