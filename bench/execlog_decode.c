/* SPDX-License-Identifier: MIT */
/*
 * Throughput of the execlog reader: parse, decode (Capstone, through the
 * template cache) and make events, in instructions per second; the median
 * of 5 reads of one generated trace held in memory (no I/O in the figure).
 *
 * The trace imitates a kernel-heavy AArch64 execlog with register
 * tracking: 4 vCPUs in runs of 32 instructions; each instruction is one
 * of 1024 distinct encodings (ADD/MOV immediates of many registers: a
 * kernel's hot code repeats a few thousand encodings), 25% of them a load
 * or a store with its address, 10% with a "xN -> 0x..." register change,
 * and every 4096th a TLBI VAE1IS followed by DSB ISH.
 *
 * Usage: bench_execlog_decode [N]   (N instructions, default 4000000)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tlbsim/trace.h"

#include "bench.h"

#define NR_CPUS 4
#define RUN_LENGTH 32
#define NR_ENCODINGS 1024
#define ROUNDS 5

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 4000000;
	size_t cap = (size_t)n * 96 + 4096, len = 0;
	char *buf = malloc(cap);
	double rate[ROUNDS];
	uint64_t events = 0;

	if (!buf)
		return 1;
	for (uint64_t i = 0; i < n; i++) {
		unsigned cpu = (unsigned)(i / RUN_LENGTH) % NR_CPUS;
		uint64_t r = next_rand(), pc = UINT64_C(0xffff800010000000) + (i % 65536) * 4;
		/* ADD Xd, Xn, #imm (0x91000000 | imm12 << 10 | Rn << 5 | Rd): 1024 variants */
		uint32_t op = 0x91000000u | (uint32_t)(r % NR_ENCODINGS) << 10 | 1u << 5 | 2u;
		const char *extra = "";
		char acc[64] = "";

		if (i % 4096 == 4094)
			op = 0xd5088320u; /* TLBI VAE1IS, X0 */
		else if (i % 4096 == 4095)
			op = 0xd5033b9fu; /* DSB ISH */
		else if ((r >> 20) % 4 == 0) {
			op = (r >> 22) & 1 ? 0xf9400020u : 0xf9000020u; /* LDR/STR X0, [X1] */
			snprintf(acc, sizeof(acc), ", %s, 0x%016" PRIx64,
				 (r >> 22) & 1 ? "load" : "store",
				 (uint64_t)(0x7f0000000000ull + ((r >> 24) & 0xffff8)));
		}
		if ((r >> 40) % 10 == 0)
			extra = ", x0 -> 0x00050007f0000001";
		len += (size_t)snprintf(buf + len, cap - len,
					"%u, 0x%" PRIx64 ", 0x%08x, \"insn\"%s%s\n", cpu, pc, op,
					acc, extra);
	}
	for (int round = 0; round < ROUNDS; round++) {
		struct tlbsim_trace_opts o = {.format = TLBSIM_TRACE_EXECLOG,
					      .isa = TLBSIM_ISA_ARM64};
		struct tlbsim_error err;
		struct tlbsim_event ev;
		struct tlbsim_trace_stats st;
		tlbsim_trace_reader *rd;
		double t0 = bench_now();
		int rc;

		tlbsim_error_clear(&err);
		if (tlbsim_trace_open_mem_opts(buf, len, "bench", &o, &rd, &err)) {
			fprintf(stderr, "open: %s\n", err.text);
			return 1;
		}
		events = 0;
		while ((rc = tlbsim_trace_next(rd, &ev, &err)) == 1)
			events++;
		if (rc < 0) {
			fprintf(stderr, "read: %d:%d %s\n", err.line, err.column, err.text);
			return 1;
		}
		tlbsim_trace_stats(rd, &st);
		rate[round] = (double)st.insns / (bench_now() - t0);
		tlbsim_trace_close(rd);
	}
	qsort(rate, ROUNDS, sizeof(rate[0]), by_value);
	printf("execlog decode: %" PRIu64 " instructions (%zu bytes), %" PRIu64
	       " events; median of %d: %.2f M insn/s (min %.2f, max %.2f)\n",
	       n, len, events, ROUNDS, rate[ROUNDS / 2] / 1e6, rate[0] / 1e6,
	       rate[ROUNDS - 1] / 1e6);
	free(buf);
	return 0;
}
