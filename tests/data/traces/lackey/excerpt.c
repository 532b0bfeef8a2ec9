/* SPDX-License-Identifier: MIT */
/*
 * The program whose valgrind lackey log excerpt.log is cut from, also
 * recorded by tests/cli/test_record.c: a worker thread that maps, touches,
 * madvises, mprotects and unmaps 64 KiB; a sleeper thread blocked in
 * read() when main calls _exit; main's mremap and brk in between.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>
static int fds[2];
static void *worker(void *a) {
  char *p = mmap(NULL, 65536, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
  p[0] = 1;
  madvise(p, 65536, MADV_DONTNEED);
  mprotect(p, 4096, PROT_READ);
  munmap(p, 65536);
  return a;
}
static void *sleeper(void *a) { char c; read(fds[0], &c, 1); return a; }
int main(void) {
  pthread_t t, s;
  pipe(fds);
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  pthread_create(&s, NULL, sleeper, NULL);
  char *q = mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
  q = mremap(q, 8192, 16384, MREMAP_MAYMOVE);
  q[12288] = 2;
  sbrk(4096);
  _exit(0);
}
