/* SPDX-License-Identifier: MIT */
/*
 * The output side of every trace writer: a 64 KiB staging buffer,
 * compressed with libzstd's ZSTD_compressStream2() (level 3, the zstd
 * command's default, with a content checksum so corruption is detected)
 * or liblzma's lzma_easy_encoder() (preset 6, the xz command's default,
 * CRC64 check), written to "path.tmp.XXXXXX" in the destination's
 * directory and renamed onto the path only when complete and fsync'ed:
 * rename() within a directory is atomic (POSIX), so readers see either the
 * old file or the whole new one.
 */
#define _XOPEN_SOURCE 700 /* realpath() */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "error_internal.h"
#include "trace_io.h"

#define ZSTD_LEVEL 3
#define XZ_PRESET 6
/* Compressed bytes gathered before an fwrite(). */
#define ZBUF_SIZE (64 * 1024)
/* Temporary names tried before giving up: collisions need a name clash. */
#define TMP_ATTEMPTS 100

static int out_fail(struct trace_out *out, int code, const char *what)
{
	return err_set(&out->err, code, out->path, -1, -1, -1, NULL, "%s: %s", what,
		       errno ? strerror(errno) : "failed");
}

/*
 * Create "path.tmp.XXXXXX" with O_EXCL, as mkstemp() does, but with mode
 * 0666 so the umask, not mkstemp's 0600, decides who may read the trace.
 */
static int create_tmp(struct trace_out *out)
{
	static const char chars[] =
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static unsigned counter;
	struct timespec ts;
	uint64_t x;
	size_t n = strlen(out->path);
	int fd = -1;

	clock_gettime(CLOCK_REALTIME, &ts);
	x = (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)out;
	for (int attempt = 0; attempt < TMP_ATTEMPTS && fd < 0; attempt++) {
		/* splitmix64 step (Steele et al., OOPSLA 2014) for the suffix */
		x += UINT64_C(0x9e3779b97f4a7c15) + counter++;
		uint64_t z = x;
		z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
		z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
		z ^= z >> 31;
		memcpy(out->tmp, out->path, n);
		memcpy(out->tmp + n, ".tmp.", 5);
		for (int i = 0; i < 6; i++, z /= sizeof(chars) - 1)
			out->tmp[n + 5 + i] = chars[z % (sizeof(chars) - 1)];
		out->tmp[n + 11] = '\0';
		fd = open(out->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0)
		return out_fail(out, -TLBSIM_EIO, "cannot create a temporary file");
	out->f = fdopen(fd, "wb");
	if (!out->f) {
		close(fd);
		unlink(out->tmp);
		return out_fail(out, -TLBSIM_EIO, "fdopen");
	}
	return 0;
}

static int start_codec(struct trace_out *out)
{
	lzma_stream init = LZMA_STREAM_INIT;

	if (out->codec == TLBSIM_COMPRESS_ZSTD) {
		out->zc = ZSTD_createCStream();
		if (!out->zc ||
		    ZSTD_isError(
			ZSTD_CCtx_setParameter(out->zc, ZSTD_c_compressionLevel, ZSTD_LEVEL)) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(out->zc, ZSTD_c_checksumFlag, 1)))
			return err_set(&out->err, -TLBSIM_ENOMEM, out->path, -1, -1, -1, NULL,
				       "cannot start zstd compression");
	} else if (out->codec == TLBSIM_COMPRESS_XZ) {
		out->xz = init;
		if (lzma_easy_encoder(&out->xz, XZ_PRESET, LZMA_CHECK_CRC64) != LZMA_OK)
			return err_set(&out->err, -TLBSIM_ENOMEM, out->path, -1, -1, -1, NULL,
				       "cannot start xz compression");
		out->xz_active = 1;
	}
	return 0;
}

/*
 * A symbolic link is written through (to what it names, atomically); a
 * device, FIFO or socket is written in place, never replaced by a file.
 */
static int open_target(struct trace_out *out)
{
	char target[4096];
	struct stat st;
	int fd;

	if (!lstat(out->path, &st) && S_ISLNK(st.st_mode) && realpath(out->path, target)) {
		char *p = strdup(target), *t = malloc(strlen(target) + 12);

		if (!p || !t) {
			free(p);
			free(t);
			return err_set(&out->err, -TLBSIM_ENOMEM, out->path, -1, -1, -1, NULL,
				       "out of memory");
		}
		free(out->path);
		free(out->tmp);
		out->path = p;
		out->tmp = t;
	}
	if (stat(out->path, &st) || S_ISREG(st.st_mode))
		return create_tmp(out);
	fd = open(out->path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || !(out->f = fdopen(fd, "wb"))) {
		if (fd >= 0)
			close(fd);
		return err_set(&out->err, -TLBSIM_EIO, out->path, -1, -1, -1, NULL,
			       "cannot open for writing: %s", strerror(errno));
	}
	out->direct = 1;
	return 0;
}

/* @f non-NULL: write onto that borrowed stream, in place, under @path's name. */
static int out_open(struct trace_out *out, const char *path, FILE *f, int codec,
		    struct tlbsim_error *err)
{
	int rc;

	memset(out, 0, sizeof(*out));
	tlbsim_error_clear(&out->err);
	out->codec = codec;
	out->path = strdup(path);
	out->tmp = malloc(strlen(path) + 12);
	out->buf = malloc(TRACE_OUT_BUF_SIZE);
	out->zbuf = malloc(ZBUF_SIZE);
	if (!out->path || !out->tmp || !out->buf || !out->zbuf) {
		rc = err_set(&out->err, -TLBSIM_ENOMEM, path, -1, -1, -1, NULL, "out of memory");
	} else if (f) {
		out->f = f;
		out->direct = out->borrowed = 1;
		rc = start_codec(out);
	} else if ((rc = open_target(out)) == 0) {
		rc = start_codec(out);
	}
	if (rc < 0) {
		err_set(err, rc, out->err.source, -1, -1, -1, NULL, "%s", out->err.text);
		trace_out_abort(out);
	}
	return rc;
}

int trace_out_open(struct trace_out *out, const char *path, int codec, struct tlbsim_error *err)
{
	return out_open(out, path, NULL, codec, err);
}

int trace_out_open_stream(struct trace_out *out, FILE *f, const char *name, int codec,
			  struct tlbsim_error *err)
{
	return out_open(out, name, f, codec, err);
}

static int put_raw(struct trace_out *out, const void *p, size_t n)
{
	errno = 0;
	if (n && fwrite(p, 1, n, out->f) != n)
		return out_fail(out, -TLBSIM_EIO, out->borrowed ? "cannot write" : "write error");
	return 0;
}

/* Feed @n bytes (or, with @end, the end of the stream) to the compressor. */
static int compress(struct trace_out *out, const uint8_t *p, size_t n, int end)
{
	ZSTD_inBuffer ib = {p, n, 0};
	ZSTD_outBuffer ob;
	size_t left;
	lzma_ret ret;
	int rc;

	if (out->codec == TLBSIM_COMPRESS_ZSTD) {
		do {
			ob = (ZSTD_outBuffer){out->zbuf, ZBUF_SIZE, 0};
			left = ZSTD_compressStream2(out->zc, &ob, &ib,
						    end ? ZSTD_e_end : ZSTD_e_continue);
			if (ZSTD_isError(left))
				return err_set(&out->err, -TLBSIM_EIO, out->path, -1, -1, -1, NULL,
					       "zstd: %s", ZSTD_getErrorName(left));
			if ((rc = put_raw(out, out->zbuf, ob.pos)) < 0)
				return rc;
			/* e_end returns 0 once the frame is complete and flushed */
		} while (end ? left != 0 : ib.pos < ib.size);
		return 0;
	}
	out->xz.next_in = p;
	out->xz.avail_in = n;
	do {
		out->xz.next_out = out->zbuf;
		out->xz.avail_out = ZBUF_SIZE;
		ret = lzma_code(&out->xz, end ? LZMA_FINISH : LZMA_RUN);
		if (ret != LZMA_OK && ret != LZMA_STREAM_END)
			return err_set(&out->err, -TLBSIM_EIO, out->path, -1, -1, -1, NULL,
				       "xz: liblzma error %d", (int)ret);
		if ((rc = put_raw(out, out->zbuf, ZBUF_SIZE - out->xz.avail_out)) < 0)
			return rc;
	} while (end ? ret != LZMA_STREAM_END : out->xz.avail_in > 0);
	return 0;
}

int trace_out_flush(struct trace_out *out)
{
	int rc;

	if (out->err.code)
		return out->err.code;
	if (out->codec == TLBSIM_COMPRESS_NONE)
		rc = put_raw(out, out->buf, out->len);
	else
		rc = compress(out, out->buf, out->len, 0);
	out->offset += out->len;
	out->len = 0;
	return rc;
}

int trace_out_write(struct trace_out *out, const void *p, size_t n)
{
	uint8_t *dst;
	size_t chunk;

	while (n) {
		chunk = n < TRACE_OUT_BUF_SIZE ? n : TRACE_OUT_BUF_SIZE;
		if (!(dst = trace_out_reserve(out, chunk)))
			return out->err.code;
		memcpy(dst, p, chunk);
		out->len += chunk;
		p = (const uint8_t *)p + chunk;
		n -= chunk;
	}
	return 0;
}

static void release(struct trace_out *out)
{
	ZSTD_freeCStream(out->zc);
	if (out->xz_active)
		lzma_end(&out->xz);
	free(out->path);
	free(out->tmp);
	free(out->buf);
	free(out->zbuf);
	out->zc = NULL;
	out->xz_active = 0;
	out->path = out->tmp = NULL;
	out->buf = out->zbuf = NULL;
}

int trace_out_commit(struct trace_out *out, struct tlbsim_error *err)
{
	int rc = trace_out_flush(out);

	if (rc == 0 && out->codec != TLBSIM_COMPRESS_NONE)
		rc = compress(out, NULL, 0, 1);
	errno = 0;
	if (rc == 0 && fflush(out->f) != 0)
		rc = out_fail(out, -TLBSIM_EIO, out->borrowed ? "cannot write" : "write error");
	/* the data must be on disk before the name points at it */
	if (rc == 0 && !out->direct && fsync(fileno(out->f)) != 0)
		rc = out_fail(out, -TLBSIM_EIO, "fsync");
	if (!out->borrowed && fclose(out->f) != 0 && rc == 0)
		rc = out_fail(out, -TLBSIM_EIO, "close");
	out->f = NULL;
	if (rc == 0 && !out->direct && rename(out->tmp, out->path) != 0)
		rc = out_fail(out, -TLBSIM_EIO, "cannot rename the temporary file onto it");
	if (rc < 0) {
		if (!out->direct)
			unlink(out->tmp);
		if (err && !err->code)
			*err = out->err;
	}
	release(out);
	return rc;
}

void trace_out_abort(struct trace_out *out)
{
	if (out->f) {
		if (!out->borrowed)
			fclose(out->f);
		if (!out->direct)
			unlink(out->tmp);
		out->f = NULL;
	}
	release(out);
}
