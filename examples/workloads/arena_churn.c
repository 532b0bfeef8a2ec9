/* SPDX-License-Identifier: MIT */
/*
 * arena-churn: a multi-threaded allocator workload, recorded for
 * traces/samples/arena-churn.tlbt.xz and run by shell-loop.sh
 * (traces/samples/README.md).
 *
 * PHASES times: start THREADS worker threads and join them.  Each worker
 * runs ROUNDS rounds: allocate BATCH buffers with glibc malloc, write
 * every page of each, then free them in a shuffled order.  Sizes, from a
 * fixed xorshift sequence per thread: 70% small (16 B .. 1 KiB), 25%
 * medium (4 .. 64 KiB), 5% large (256 KiB .. 1 MiB).
 *
 * What glibc does with that (malloc/arena.c, malloc/malloc.c, glibc 2.36):
 * each worker gets an arena of its own (a 64 MiB heap reserved PROT_NONE,
 * opened with mprotect as it grows); a free that leaves more than the trim
 * threshold at the top of a heap shrinks it with madvise(MADV_DONTNEED)
 * (shrink_heap()); chunks above the mmap threshold are mmapped and
 * munmapped (the threshold adapts: it rises to the size of a freed mmapped
 * chunk); an exiting thread's stack is madvised away, and stacks are
 * mapped for new threads.  Every one of
 * those calls changes page tables of an address space that other threads
 * are using on other cpus: a TLB shootdown.
 *
 * usage: arena_churn [THREADS [PHASES [ROUNDS [BATCH]]]]   (4 3 8 64)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned rounds = 8, batch = 64;

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static size_t pick_size(uint64_t *s)
{
	unsigned r = (unsigned)(next(s) % 100);

	if (r < 70)
		return 16 + next(s) % 1009;
	if (r < 95)
		return 4096 + next(s) % (60 * 1024);
	return 256 * 1024 + next(s) % (768 * 1024);
}

static void *worker(void *arg)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull ^ (uintptr_t)arg;
	char **buf = calloc(batch, sizeof(*buf));
	size_t *len = calloc(batch, sizeof(*len));
	unsigned *order = calloc(batch, sizeof(*order));

	if (!buf || !len || !order)
		return (void *)1;
	for (unsigned r = 0; r < rounds; r++) {
		for (unsigned i = 0; i < batch; i++) {
			len[i] = pick_size(&seed);
			buf[i] = malloc(len[i]);
			if (!buf[i])
				return (void *)1;
			for (size_t o = 0; o < len[i]; o += 4096)
				buf[i][o] = (char)o;
			buf[i][len[i] - 1] = 1;
			order[i] = i;
		}
		for (unsigned i = batch - 1; i > 0; i--) { /* Fisher-Yates */
			unsigned j = (unsigned)(next(&seed) % (i + 1)), t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
		for (unsigned i = 0; i < batch; i++)
			free(buf[order[i]]);
	}
	free(buf);
	free(len);
	free(order);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned threads = argc > 1 ? (unsigned)atoi(argv[1]) : 4;
	unsigned phases = argc > 2 ? (unsigned)atoi(argv[2]) : 3;
	pthread_t *th;

	if (argc > 3)
		rounds = (unsigned)atoi(argv[3]);
	if (argc > 4)
		batch = (unsigned)atoi(argv[4]);
	if (!threads || !phases || !rounds || !batch || !(th = calloc(threads, sizeof(*th)))) {
		fprintf(stderr, "usage: arena_churn [THREADS [PHASES [ROUNDS [BATCH]]]]\n");
		return 2;
	}
	for (unsigned p = 0; p < phases; p++) {
		for (unsigned t = 0; t < threads; t++)
			if (pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)(p * threads + t + 1)))
				return 1;
		for (unsigned t = 0; t < threads; t++) {
			void *rc;

			pthread_join(th[t], &rc);
			if (rc)
				return 1;
		}
	}
	free(th);
	return 0;
}
