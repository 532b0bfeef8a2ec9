/* SPDX-License-Identifier: MIT */
/*
 * The input side of every trace reader: a file, a stream or a memory
 * buffer, decompressed on the fly when it starts with the magic bytes of a
 * zstd frame (RFC 8878 3.1.1: 28 B5 2F FD) or of an .xz stream (xz file
 * format 2.1.1.1: FD 37 7A 58 5A 00), read through fixed 64 KiB windows.
 *
 * The streaming APIs used: libzstd's ZSTD_decompressStream() (zstd.h,
 * "Streaming decompression"), which returns 0 exactly when a frame is fully
 * decoded and flushed, so input that ends while it returns non-zero is a
 * cut frame; and liblzma's lzma_code() with LZMA_CONCATENATED and
 * LZMA_FINISH (lzma/container.h), which returns LZMA_BUF_ERROR when the
 * input ends before the stream does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "error_internal.h"
#include "trace_io.h"

static const uint8_t zstd_magic[] = {0x28, 0xb5, 0x2f, 0xfd};
static const uint8_t xz_magic[] = {0xfd, '7', 'z', 'X', 'Z', 0x00};
static const uint8_t gzip_magic[] = {0x1f, 0x8b};
static const uint8_t bzip2_magic[] = {'B', 'Z', 'h'};

/* Errors of the compressed layer: the offset is in the compressed input. */
#define in_fail(in, err, code, ...)                                                                \
	err_set(err, code, (in)->name, -1, -1, (long long)(in)->raw_consumed, NULL, __VA_ARGS__)

/* Refill the compressed-input buffer, which must be consumed. */
static int read_raw(struct trace_in *in, struct tlbsim_error *err)
{
	size_t n;

	if (in->f) {
		/* fread() returns short only at end of file or on an error */
		n = fread(in->raw, 1, TRACE_RAW_BUF_SIZE, in->f);
		if (n < TRACE_RAW_BUF_SIZE && ferror(in->f))
			return err_set(err, -TLBSIM_EIO, in->name, -1, -1, -1, NULL,
				       "read error: %s", strerror(errno));
	} else {
		n = in->mem_size - in->mem_pos;
		if (n > TRACE_RAW_BUF_SIZE)
			n = TRACE_RAW_BUF_SIZE;
		memcpy(in->raw, in->mem + in->mem_pos, n);
		in->mem_pos += n;
	}
	in->raw_pos = 0;
	in->raw_len = n;
	in->raw_eof = n < TRACE_RAW_BUF_SIZE || (!in->f && in->mem_pos == in->mem_size);
	return 0;
}

static int fill_plain(struct trace_in *in, struct tlbsim_error *err)
{
	size_t n = in->raw_len - in->raw_pos;

	if (n == 0) {
		if (in->raw_eof) {
			in->eof = 1;
			return 0;
		}
		return read_raw(in, err);
	}
	if (n > TRACE_IN_BUF_SIZE - in->len)
		n = TRACE_IN_BUF_SIZE - in->len;
	memcpy(in->buf + in->len, in->raw + in->raw_pos, n);
	in->raw_pos += n;
	in->raw_consumed += n;
	in->len += n;
	return 0;
}

/*
 * Where a zstd error is: ZSTD_decompressStream() does not move its input
 * position when it fails, so each call is given no more than the input
 * its last answer asked for (the rest of the frame header, of a block and
 * the next block's 3-byte header, or of the checksum).  A failing call
 * has then read all it was given before deciding: the error is found at
 * the end of that input, the end of the block, header or checksum (RFC
 * 8878 3.1.1) that failed, and lies in the bytes read since the last call
 * that was given all it asked for (@zd_unit on), or, for the checksum of
 * the decompressed content, anywhere in the frame (@zd_frame on).  Blocks
 * are at most 128 KiB, so the calls stay few.
 */
static int zstd_fail(struct trace_in *in, struct tlbsim_error *err, size_t ret, uint64_t found)
{
	if (ZSTD_getErrorCode(ret) == ZSTD_error_checksum_wrong)
		return err_set(err, -TLBSIM_EPARSE, in->name, -1, -1, (long long)found, NULL,
			       "corrupt zstd stream: the checksum of the frame at compressed bytes "
			       "%llu..%llu does not match its content (the trace from byte %llu on)",
			       (unsigned long long)in->zd_frame, (unsigned long long)found - 1,
			       (unsigned long long)in->zd_frame_out);
	return err_set(err, -TLBSIM_EPARSE, in->name, -1, -1, (long long)found, NULL,
		       "corrupt zstd stream: %s in compressed bytes %llu..%llu",
		       ZSTD_getErrorName(ret), (unsigned long long)in->zd_unit,
		       (unsigned long long)found - 1);
}

static int fill_zstd(struct trace_in *in, struct tlbsim_error *err)
{
	ZSTD_inBuffer ib;
	ZSTD_outBuffer ob = {in->buf, TRACE_IN_BUF_SIZE, in->len};
	size_t ret, give, asked = in->zd_want;
	int rc;

	if (in->raw_pos == in->raw_len && !in->raw_eof && (rc = read_raw(in, err)) < 0)
		return rc;
	give = in->raw_len - in->raw_pos;
	if (give > asked)
		give = asked;
	ib = (ZSTD_inBuffer){in->raw, in->raw_pos + give, in->raw_pos};
	ret = ZSTD_decompressStream(in->zd, &ob, &ib);
	if (ZSTD_isError(ret))
		return zstd_fail(in, err, ret, in->raw_consumed + give);
	if (ob.pos != in->len || ib.pos != in->raw_pos) {
		in->zd_ret = ret;
		/* 0 at a frame's end: the next one starts with its magic and
		 * header, of which the first call asks for ZSTD_initDStream()'s
		 * amount. */
		in->zd_want = ret ? ret : in->zd_first;
	} else if (in->raw_eof && ib.pos == in->raw_len) {
		/*
		 * No input left and no output made: the end.  Judge it by the
		 * last call that made progress: with no input, zstd answers
		 * with the size of the next frame's header, never 0.
		 */
		if (in->zd_ret != 0)
			return in_fail(in, err, -TLBSIM_ETRUNC,
				       "truncated zstd stream: the input ends inside a frame");
		in->eof = 1;
	}
	in->raw_consumed += ib.pos - in->raw_pos;
	/* What was asked for is read: the next error is in what follows. */
	if (ib.pos - in->raw_pos == asked)
		in->zd_unit = in->raw_consumed;
	in->raw_pos = ib.pos;
	in->len = ob.pos;
	if (ret == 0) {
		in->zd_frame = in->raw_consumed;
		in->zd_frame_out = in->base + in->len;
	}
	return 0;
}

static int fill_xz(struct trace_in *in, struct tlbsim_error *err)
{
	size_t avail_in;
	lzma_ret ret;
	int rc;

	if (in->raw_pos == in->raw_len && !in->raw_eof && (rc = read_raw(in, err)) < 0)
		return rc;
	in->xz.next_in = in->raw + in->raw_pos;
	in->xz.avail_in = avail_in = in->raw_len - in->raw_pos;
	in->xz.next_out = in->buf + in->len;
	in->xz.avail_out = TRACE_IN_BUF_SIZE - in->len;
	ret = lzma_code(&in->xz, in->raw_eof ? LZMA_FINISH : LZMA_RUN);
	in->raw_pos += avail_in - in->xz.avail_in;
	in->raw_consumed += avail_in - in->xz.avail_in;
	in->len = TRACE_IN_BUF_SIZE - in->xz.avail_out;
	switch (ret) {
	case LZMA_OK:
		return 0;
	case LZMA_STREAM_END:
		in->eof = 1;
		return 0;
	case LZMA_BUF_ERROR:
		return in_fail(in, err, -TLBSIM_ETRUNC,
			       "truncated xz stream: the input ends inside a block");
	case LZMA_MEM_ERROR:
		return in_fail(in, err, -TLBSIM_ENOMEM, "out of memory decompressing xz");
	default:
		return in_fail(in, err, -TLBSIM_EPARSE, "corrupt xz stream (liblzma error %d)",
			       (int)ret);
	}
}

int trace_in_fill(struct trace_in *in, struct tlbsim_error *err)
{
	int rc = 0;

	if (in->pos) {
		memmove(in->buf, in->buf + in->pos, in->len - in->pos);
		in->base += in->pos;
		in->len -= in->pos;
		in->pos = 0;
	}
	while (rc == 0 && in->len < TRACE_IN_BUF_SIZE && !in->eof) {
		switch (in->codec) {
		case TLBSIM_COMPRESS_ZSTD:
			rc = fill_zstd(in, err);
			break;
		case TLBSIM_COMPRESS_XZ:
			rc = fill_xz(in, err);
			break;
		default:
			rc = fill_plain(in, err);
			break;
		}
	}
	return rc;
}

int trace_in_line(struct trace_in *in, size_t max, const char **line, size_t *len, int *terminated,
		  struct tlbsim_error *err)
{
	const uint8_t *nl;
	size_t n;
	int rc;

	for (;;) {
		nl = memchr(in->buf + in->pos, '\n', trace_in_avail(in));
		if (nl || in->eof || trace_in_avail(in) > max)
			break;
		if ((rc = trace_in_fill(in, err)) < 0)
			return rc;
	}
	if (!nl && trace_in_avail(in) == 0)
		return 0;
	n = nl ? (size_t)(nl - (in->buf + in->pos)) : trace_in_avail(in);
	*line = (const char *)in->buf + in->pos;
	if (n > max) {
		*len = max + 1;
		return 1;
	}
	*len = n;
	*terminated = nl != NULL;
	in->pos += n + (nl != NULL);
	return 1;
}

static int starts_with(const struct trace_in *in, const uint8_t *magic, size_t n)
{
	return in->raw_len >= n && memcmp(in->raw, magic, n) == 0;
}

static int start_codec(struct trace_in *in, struct tlbsim_error *err)
{
	lzma_stream init = LZMA_STREAM_INIT;

	if (starts_with(in, zstd_magic, sizeof(zstd_magic))) {
		in->codec = TLBSIM_COMPRESS_ZSTD;
		in->zd_ret = 1; /* no frame decoded yet */
		in->zd = ZSTD_createDStream();
		in->zd_first = in->zd ? ZSTD_initDStream(in->zd) : 0;
		if (!in->zd || ZSTD_isError(in->zd_first) || !in->zd_first)
			return in_fail(in, err, -TLBSIM_ENOMEM, "cannot start zstd decompression");
		in->zd_want = in->zd_first;
	} else if (starts_with(in, xz_magic, sizeof(xz_magic))) {
		in->codec = TLBSIM_COMPRESS_XZ;
		in->xz = init;
		if (lzma_stream_decoder(&in->xz, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
			return in_fail(in, err, -TLBSIM_ENOMEM, "cannot start xz decompression");
		in->xz_active = 1;
	} else if (starts_with(in, gzip_magic, sizeof(gzip_magic)) ||
		   starts_with(in, bzip2_magic, sizeof(bzip2_magic))) {
		return in_fail(
		    in, err, -TLBSIM_ENOTSUP,
		    "%s-compressed input is not supported: recompress it with zstd or xz",
		    in->raw[0] == 'B' ? "bzip2" : "gzip");
	}
	return 0;
}

int trace_in_open(struct trace_in *in, const char *path, FILE *f, const void *mem, size_t size,
		  const char *name, struct tlbsim_error *err)
{
	int rc;

	memset(in, 0, sizeof(*in));
	snprintf(in->name, sizeof(in->name), "%s", name ? name : path ? path : "<memory>");
	if (path) {
		in->f = fopen(path, "rb");
		if (!in->f)
			return err_set(err, errno == ENOENT ? -TLBSIM_ENOENT : -TLBSIM_EIO,
				       in->name, -1, -1, -1, NULL, "cannot open: %s",
				       strerror(errno));
		in->own_f = 1;
	} else if (f) {
		in->f = f;
	} else {
		in->mem = mem;
		in->mem_size = size;
	}
	in->raw = malloc(TRACE_RAW_BUF_SIZE);
	in->buf = malloc(TRACE_IN_BUF_SIZE);
	if (!in->raw || !in->buf)
		return err_set(err, -TLBSIM_ENOMEM, in->name, -1, -1, -1, NULL, "out of memory");
	rc = read_raw(in, err);
	if (rc == 0)
		rc = start_codec(in, err);
	if (rc == 0)
		rc = trace_in_fill(in, err);
	return rc;
}

void trace_in_close(struct trace_in *in)
{
	if (in->own_f && in->f)
		fclose(in->f);
	ZSTD_freeDStream(in->zd);
	if (in->xz_active)
		lzma_end(&in->xz);
	free(in->raw);
	free(in->buf);
	memset(in, 0, sizeof(*in));
}
