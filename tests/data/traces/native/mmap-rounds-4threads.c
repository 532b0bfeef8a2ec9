/* SPDX-License-Identifier: MIT */
/*
 * The program recorded in mmap-rounds-4threads.tlbt.xz (issue 30): four
 * threads each doing 40 rounds of mmap 256 KiB, write every page, mprotect
 * read-only, read every page, mprotect read-write, madvise(MADV_DONTNEED),
 * write every other page, munmap.  glibc hands a range one thread unmapped
 * to the next mmap of any thread, so the recorded trace has mmaps reusing
 * ranges other threads unmapped earlier.  The program never touches memory
 * outside a mapping.  Recorded on Debian 12 (gcc 12, glibc 2.36, valgrind
 * 3.19) with
 *   gcc -O1 -pthread -o rounds mmap-rounds-4threads.c
 *   tlbsim record -o mmap-rounds-4threads.tlbt.xz --compress xz -- ./rounds
 * (365,528 events: 227 mmap, 161 munmap, 328 mprotect, 164 madvise).
 */
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#define ROUNDS 40
#define LEN (64 * 4096)
static void *worker(void *arg)
{
	(void)arg;
	for (int r = 0; r < ROUNDS; r++) {
		char *p = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		for (int i = 0; i < LEN; i += 4096)
			p[i] = 1;
		mprotect(p, LEN, PROT_READ);
		volatile char s = 0;
		for (int i = 0; i < LEN; i += 4096)
			s += p[i];
		mprotect(p, LEN, PROT_READ | PROT_WRITE);
		madvise(p, LEN, MADV_DONTNEED);
		for (int i = 0; i < LEN; i += 8192)
			p[i] = 2;
		munmap(p, LEN);
	}
	return NULL;
}
int main(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	return 0;
}
