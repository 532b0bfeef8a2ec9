/* SPDX-License-Identifier: MIT */
/*
 * Benchmark of the native binary trace format: write a synthetic trace of
 * N accesses, read it back, and report bytes per access, write and read
 * throughput, and the peak resident set size, which must stay flat (a few
 * MiB) whatever N: readers and writers stream through fixed buffers.
 *
 * The workload imitates a multithreaded program: 4 threads interleaved in
 * runs of 64 accesses; each access is, per thread, sequential (75%: the
 * next 8 bytes), near (20%: within +-32 KiB) or far (5%: anywhere in a
 * 1 GiB heap); 70% loads, 30% stores, 8-byte accesses.
 *
 * Usage: bench_trace_io [N [dir [none|zstd|xz]]]   (N defaults to 50000000)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tlbsim/trace.h"

#include "bench.h"

#define NR_THREADS 4
#define RUN_LENGTH 64		       /* accesses before switching thread */
#define HEAP_BYTES (UINT64_C(1) << 30) /* 1 GiB per thread */
#define NEAR_BYTES (32 * 1024)

/* xorshift64* (Vigna 2016): fast, deterministic, good enough for a workload. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

static void die(const char *what, const struct tlbsim_error *err)
{
	char msg[700];

	tlbsim_error_format(err, msg, sizeof(msg));
	fprintf(stderr, "bench_trace_io: %s: %s\n", what, msg);
	exit(1);
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 50000000;
	const char *dir = argc > 2 ? argv[2] : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	const char *comp_name = argc > 3 ? argv[3] : "none";
	enum tlbsim_trace_compression comp = strcmp(comp_name, "zstd") == 0 ? TLBSIM_COMPRESS_ZSTD
					     : strcmp(comp_name, "xz") == 0 ? TLBSIM_COMPRESS_XZ
									    : TLBSIM_COMPRESS_NONE;
	struct tlbsim_trace_info info = {.isa = TLBSIM_ISA_X86_64,
					 .page_shift = 12,
					 .nr_threads = NR_THREADS,
					 .source = "bench_trace_io"};
	uint64_t last[NR_THREADS], seed = 42, sum = 0, got = 0, r;
	struct tlbsim_error err;
	struct tlbsim_event ev;
	tlbsim_trace_writer *w;
	tlbsim_trace_reader *rd;
	char path[4096];
	struct stat st;
	long rss_start = bench_peak_rss_kib(), rss_write, rss_read;
	double t0, t_write, t_read;
	int rc;

	snprintf(path, sizeof(path), "%s/bench_trace_io.%d.trace", dir, (int)getpid());
	tlbsim_error_clear(&err);
	for (int t = 0; t < NR_THREADS; t++)
		last[t] = UINT64_C(0x7f0000000000) + (uint64_t)t * HEAP_BYTES;

	t0 = bench_now();
	if (tlbsim_trace_writer_open(path, TLBSIM_TRACE_BINARY, comp, &info, &w, &err) < 0)
		die("open for writing", &err);
	memset(&ev, 0, sizeof(ev));
	ev.cpu = TLBSIM_CPU_ANY;
	ev.access.size = 8;
	for (uint64_t i = 0; i < n; i++) {
		int t = (int)((i / RUN_LENGTH) % NR_THREADS);
		uint64_t base = UINT64_C(0x7f0000000000) + (uint64_t)t * HEAP_BYTES;

		r = next_rand(&seed);
		if (r % 100 < 75)
			last[t] += 8;
		else if (r % 100 < 95)
			last[t] += ((r >> 8) % (2 * NEAR_BYTES)) - NEAR_BYTES;
		else
			last[t] = base + ((r >> 8) % HEAP_BYTES);
		/* stay inside the thread's heap, 8-byte aligned */
		last[t] = base + ((last[t] - base) % HEAP_BYTES & ~UINT64_C(7));
		ev.kind = (r >> 40) % 10 < 7 ? TLBSIM_EV_LOAD : TLBSIM_EV_STORE;
		ev.tid = (uint32_t)t + 1;
		ev.access.va = last[t];
		if (tlbsim_trace_writer_write(w, &ev, &err) < 0)
			die("write", &err);
	}
	if (tlbsim_trace_writer_close(w, &err) < 0)
		die("close", &err);
	t_write = bench_now() - t0;
	rss_write = bench_peak_rss_kib();
	if (stat(path, &st) != 0) {
		perror(path);
		return 1;
	}

	t0 = bench_now();
	if (tlbsim_trace_open(path, TLBSIM_TRACE_AUTO, &rd, &err) < 0)
		die("open for reading", &err);
	while ((rc = tlbsim_trace_next(rd, &ev, &err)) == 1) {
		sum += ev.access.va;
		got++;
	}
	if (rc < 0)
		die("read", &err);
	tlbsim_trace_close(rd);
	t_read = bench_now() - t0;
	rss_read = bench_peak_rss_kib();
	remove(path);

	printf("accesses           %" PRIu64 " (read back %" PRIu64 ", va checksum %016" PRIx64
	       ")\n",
	       n, got, sum);
	printf("compression        %s\n", comp_name);
	printf("file size          %.1f MB\n", (double)st.st_size / 1e6);
	printf("bytes per access   %.3f\n", (double)st.st_size / (double)n);
	printf("write              %.2f s, %.1f MB/s, %.1f M events/s\n", t_write,
	       (double)st.st_size / 1e6 / t_write, (double)n / 1e6 / t_write);
	printf("read               %.2f s, %.1f MB/s, %.1f M events/s\n", t_read,
	       (double)st.st_size / 1e6 / t_read, (double)n / 1e6 / t_read);
	printf("peak RSS (KiB)     start %ld, after write %ld, after read %ld\n", rss_start,
	       rss_write, rss_read);
	return got == n ? 0 : 1;
}
