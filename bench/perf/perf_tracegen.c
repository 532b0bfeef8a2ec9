/* SPDX-License-Identifier: MIT */
/*
 * Synthetic traces for the performance benchmarks (bench/perf/README.md):
 * one process of one thread mapping one anonymous region and accessing it,
 * written in the native binary format, the text format (traces/FORMAT.md)
 * or as a valgrind lackey log (the lines `tlbsim record` reads; tlbsim has
 * no lackey writer, so the few line shapes needed are printed here).
 *
 *   hit:  a 128 KiB region (32 pages, half the 64-entry L1 dTLB of every
 *         shipped x86 machine); 7 in 8 accesses are the next 8 bytes of
 *         the current page, 1 in 8 jumps to a random one of the 32 pages:
 *         after the 32 first-touch faults every translation hits the L1;
 *   miss: a 1 GiB region (262,144 pages, 170 times the 1536-entry L2 TLB
 *         and 16 times what the 32-entry PDE cache covers); every access
 *         goes to a random page: almost every translation walks.
 * 70% loads, 30% stores (an x86 mix), 8-byte accesses.
 *
 * The size is given either as accesses (N) or, with a trailing "B"
 * ("1073741824B"), as the native file size to reach: the memory figure
 * needs a trace of at least 1 GiB whatever its bytes per access.
 *
 * Usage: perf_tracegen hit|miss N[B] binary|text|lackey OUT
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlbsim/trace.h"

#define REGION_VA UINT64_C(0x10000000)
#define HIT_BYTES (UINT64_C(32) << 12)
#define MISS_BYTES (UINT64_C(1) << 30)
#define ACCESS_BYTES 8u
/* the lackey log's process id: any positive number */
#define LACKEY_PID 4242

struct pattern {
	uint64_t rng;
	uint64_t va;
	int miss;
};

/* xorshift64* (Vigna 2016): deterministic, fast enough not to matter. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

static uint64_t region_bytes(const struct pattern *p)
{
	return p->miss ? MISS_BYTES : HIT_BYTES;
}

/* The next access; *store receives whether it is a store. */
static uint64_t next_access(struct pattern *p, int *store)
{
	uint64_t r = next_rand(&p->rng);
	uint64_t page = (r >> 8) % (region_bytes(p) >> 12);

	if (p->miss || r % 8 == 0)
		p->va = REGION_VA + (page << 12);
	else
		p->va = (p->va & ~UINT64_C(0xfff)) | ((p->va + ACCESS_BYTES) & 0xfff);
	*store = (r >> 40) % 10 >= 7;
	return p->va;
}

static void die(const char *what, const struct tlbsim_error *err)
{
	char msg[700];

	tlbsim_error_format(err, msg, sizeof(msg));
	fprintf(stderr, "perf_tracegen: %s: %s\n", what, msg);
	exit(2);
}

/* Bytes of a compact access record (FORMAT.md "Binary format"): the
 * opcode, then the zigzag varint of the address delta. */
static unsigned native_access_bytes(uint64_t delta)
{
	uint64_t z = (delta << 1) ^ (uint64_t)((int64_t)delta >> 63);
	unsigned n = 1;

	do {
		n++;
		z >>= 7;
	} while (z);
	return n;
}

static void write_native(struct pattern *p, uint64_t n, uint64_t target_bytes,
			 enum tlbsim_trace_format format, const char *out)
{
	struct tlbsim_trace_info info = {
	    .isa = TLBSIM_ISA_X86_64, .page_shift = 12, .nr_threads = 1, .source = "perf_tracegen"};
	struct tlbsim_event ev = {.kind = TLBSIM_EV_PROC_CREATE, .cpu = TLBSIM_CPU_ANY};
	struct tlbsim_error err;
	tlbsim_trace_writer *w;
	int store;

	tlbsim_error_clear(&err);
	if (tlbsim_trace_writer_open(out, format, TLBSIM_COMPRESS_NONE, &info, &w, &err) < 0)
		die("open", &err);
	ev.proc_create.pid = 1;
	ev.proc_create.tid = 1;
	if (tlbsim_trace_writer_write(w, &ev, &err) < 0)
		die("write", &err);
	memset(&ev, 0, sizeof(ev));
	ev.kind = TLBSIM_EV_MMAP;
	ev.cpu = TLBSIM_CPU_ANY;
	ev.tid = 1;
	ev.mmap.addr = REGION_VA;
	ev.mmap.len = region_bytes(p);
	ev.mmap.prot = TLBSIM_PROT_READ | TLBSIM_PROT_WRITE;
	ev.mmap.flags = TLBSIM_MAP_PRIVATE | TLBSIM_MAP_ANON;
	if (tlbsim_trace_writer_write(w, &ev, &err) < 0)
		die("write", &err);
	ev.access.size = ACCESS_BYTES;
	for (uint64_t i = 0, bytes = 0; target_bytes ? bytes < target_bytes : i < n; i++) {
		uint64_t last = p->va;

		ev.access.va = next_access(p, &store);
		ev.kind = store ? TLBSIM_EV_STORE : TLBSIM_EV_LOAD;
		bytes += native_access_bytes(ev.access.va - last);
		if (tlbsim_trace_writer_write(w, &ev, &err) < 0)
			die("write", &err);
	}
	if (tlbsim_trace_writer_close(w, &err) < 0)
		die("close", &err);
}

/* traces/FORMAT.md "valgrind lackey logs": banner, one thread holding the
 * lock, an mmap syscall, then ` L ADDR,SIZE` / ` S ADDR,SIZE` lines. */
static void write_lackey(struct pattern *p, uint64_t n, const char *out)
{
	FILE *f = fopen(out, "w");
	int store;

	if (!f) {
		perror(out);
		exit(2);
	}
	fprintf(f, "==%d== Lackey, an example Valgrind tool\n", LACKEY_PID);
	fprintf(f, "==%d== Using Valgrind-3.19.0 and LibVEX; rerun with -h for copyright info\n",
		LACKEY_PID);
	fprintf(f, "==%d== Command: perf_tracegen\n", LACKEY_PID);
	fprintf(f, "--%d--   SCHED[1]:  acquired lock (VG_(scheduler):timeslice)\n", LACKEY_PID);
	fprintf(f,
		"SYSCALL[%d,1](9) sys_mmap ( 0x%" PRIx64 ", %" PRIu64
		", 3, 34, 4294967295, 0 ) --> [pre-success] Success(0x%" PRIx64 ")\n",
		LACKEY_PID, REGION_VA, region_bytes(p), REGION_VA);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t va = next_access(p, &store);

		fprintf(f, " %c %08" PRIx64 ",%u\n", store ? 'S' : 'L', va, ACCESS_BYTES);
	}
	if (fclose(f) != 0) {
		perror(out);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	struct pattern p = {.rng = 42, .va = REGION_VA};
	uint64_t n, target_bytes = 0;
	char *end;

	if (argc != 5 || (strcmp(argv[1], "hit") && strcmp(argv[1], "miss"))) {
		fprintf(stderr, "usage: perf_tracegen hit|miss N[B] binary|text|lackey OUT\n");
		return 2;
	}
	p.miss = strcmp(argv[1], "miss") == 0;
	n = strtoull(argv[2], &end, 10);
	if (*end == 'B')
		target_bytes = n;
	if (strcmp(argv[3], "lackey") == 0) {
		if (target_bytes) {
			fprintf(stderr,
				"perf_tracegen: a size in bytes is for the native format\n");
			return 2;
		}
		write_lackey(&p, n, argv[4]);
	} else {
		write_native(&p, n, target_bytes,
			     strcmp(argv[3], "text") == 0 ? TLBSIM_TRACE_TEXT : TLBSIM_TRACE_BINARY,
			     argv[4]);
	}
	return 0;
}
