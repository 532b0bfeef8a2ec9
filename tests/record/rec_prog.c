/* SPDX-License-Identifier: MIT */
/*
 * The program tests/record/ records: what it does is known exactly, so the
 * trace's events can be checked against it (test_record.c).
 *
 *   rec_prog          the parent: starts a taker thread, maps HANDOFF_LEN
 *                     and hands it over through a pointer (no syscall: the
 *                     taker spins on it), and the taker writes every page
 *                     of it; joins it; maps REGION_LEN and writes every page of
 *                     it, starts NR_THREADS threads that each map, touch and
 *                     unmap THREAD_LEN, joins them, forks a child and waits
 *                     for it, then mremaps its region to REMAP_LEN, unmaps
 *                     it and exits;
 *   (the child)       mprotects the region read-only (CHILD_PROT_LEN), then
 *                     execs "rec_prog exec";
 *   rec_prog exec     maps EXEC_LEN, writes it, madvises it MADV_DONTNEED
 *                     and exits.
 *
 * Lengths are distinct page counts so that each syscall can be told apart
 * in the trace.
 */
#define _GNU_SOURCE /* mremap */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rec_prog.h"

static void touch(char *p, size_t len)
{
	for (size_t i = 0; i < len; i += 4096)
		p[i] = (char)i;
}

static char *_Atomic handed;

/* Writes the pages of a buffer another thread mapped, handed over by memory alone. */
static void *taker(void *arg)
{
	char *p;

	(void)arg;
	while (!(p = atomic_load(&handed)))
		;
	touch(p, HANDOFF_LEN);
	return NULL;
}

static void *thread_main(void *arg)
{
	char *p =
	    mmap(NULL, THREAD_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)arg;
	if (p == MAP_FAILED)
		return (void *)1;
	touch(p, THREAD_LEN);
	munmap(p, THREAD_LEN);
	return NULL;
}

static int exec_image(void)
{
	char *p = mmap(NULL, EXEC_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	touch(p, EXEC_LEN);
	return madvise(p, EXEC_LEN, MADV_DONTNEED) != 0;
}

int main(int argc, char **argv)
{
	pthread_t th[NR_THREADS];
	char *p;
	pid_t pid;
	int status, i;

	if (argc > 1 && !strcmp(argv[1], "exec"))
		return exec_image();
	if (pthread_create(&th[0], NULL, taker, NULL))
		return 1;
	p = mmap(NULL, HANDOFF_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	atomic_store(&handed, p);
	pthread_join(th[0], NULL);
	munmap(p, HANDOFF_LEN);
	p = mmap(NULL, REGION_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	touch(p, REGION_LEN);
	for (i = 0; i < NR_THREADS; i++)
		if (pthread_create(&th[i], NULL, thread_main, NULL))
			return 1;
	for (i = 0; i < NR_THREADS; i++)
		pthread_join(th[i], NULL);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		mprotect(p, CHILD_PROT_LEN, PROT_READ);
		execl(argv[0], argv[0], "exec", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	p = mremap(p, REGION_LEN, REMAP_LEN, MREMAP_MAYMOVE);
	if (p == MAP_FAILED)
		return 1;
	return munmap(p, REMAP_LEN) != 0;
}
