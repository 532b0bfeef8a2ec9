/* SPDX-License-Identifier: MIT */
/*
 * The events of tests/data/traces/lackey/excerpt.log, worked out by hand
 * from the log line by line (tests/data/traces/lackey/README.md tells the
 * log's story): shared by the lackey reader's test and tlbsim convert's.
 */
#ifndef TLBSIM_TESTS_LACKEY_EXCERPT_H
#define TLBSIM_TESTS_LACKEY_EXCERPT_H

#define LACKEY_EXCERPT "tests/data/traces/lackey/excerpt.log"

static const char *const lackey_excerpt_events[] = {
    /* line 1, "==6944== Lackey": the process is 6944, its first thread 6944 */
    "proc_create 6944 6944",
    /* lines 9-11: valgrind thread 1 holds the lock (line 7); the loader's
     * page and the stack's were mapped before any traced syscall */
    "T6944 mmap 0x401a000 0x1000 rwx private",
    "T6944 fetch 0x401ab70 3",
    "T6944 fetch 0x401ab73 5", /* 0x401ab73..77: same page */
    "T6944 mmap 0x1fff000000 0x1000 rwx private",
    "T6944 store 0x1fff000708 8",
    /* line 12: brk(0) returns the initial break */
    "T6944 brk 0x4035000",
    /* line 13: prot 3 = rw-, flags 34 = 0x22 = MAP_PRIVATE | MAP_ANONYMOUS */
    "T6944 mmap 0x4835000 0x2000 rw- private,anon",
    "T6944 brk 0x4035000", /* line 14 */
    "T6944 brk 0x4056000", /* line 15 */
    /* lines 16-17: an unimplemented syscall, failed: nothing.  Line 18:
     * clone(0x3d0f00 has CLONE_VM 0x100 and CLONE_THREAD 0x10000) returns
     * 0x1b24 = 6948; the glued SCHED[1] message releases the lock */
    "T6944 thread_create 6948",
    /* line 19: valgrind thread 2 runs for the first time: it is 6948 */
    "T6948 mmap 0x494f000 0x1000 rwx private", /* libc's mmaps are cut out */
    "T6948 fetch 0x494fb42 3",
    "T6948 mmap 0x522d000 0x10000 rw- private,anon", /* line 22: 65536 bytes */
    "T6948 mmap 0x109000 0x1000 rwx private",	     /* the executable's page */
    "T6948 fetch 0x109230 3",
    "T6948 store 0x522d000 1",
    /* line 25: madvise [async] waits; lines 26-29: thread 1 runs again */
    "T6944 fetch 0x494fb42 3",
    /* line 32: thread 2, blocked in a syscall since line 26, runs again
     * after thread 1 (which held the lock last, lines 27-31): an edge */
    "T6944 wake 6948",
    "T6948 sleep",
    /* line 33: the madvise returns (advice 4 = MADV_DONTNEED) */
    "T6948 madvise 0x522d000 0x10000 dontneed",
    "T6948 mprotect 0x522d000 0x1000 r--", /* line 34: prot 1 */
    "T6948 munmap 0x522d000 0x10000",	   /* line 35 */
    /* lines 36-39: madvise of the thread's stack, 8368128 = 0x7fb000
     * bytes, whose mmap is cut out of the excerpt: success proves the
     * range mapped, so it is implied first */
    "T6948 mmap 0x4a2c000 0x7fb000 rwx private",
    "T6948 madvise 0x4a2c000 0x7fb000 dontneed",
    "T6948 exit", /* line 41: SCHED[2] exits; line 43: thread 1, blocked since line 31,
		   * runs after a thread that has exited: no edge */
    /* line 47: clone returns 0x1b25 = 6949; line 48: valgrind reuses
     * thread id 2 for it */
    "T6944 thread_create 6949",
    "T6949 fetch 0x494fb42 3",
    /* line 51: its read() never returns: no event.  Line 55: */
    "T6944 mmap 0x483c000 0x2000 rw- private,anon",
    /* line 56: MREMAP_MAYMOVE = 1; the mapping grows in place */
    "T6944 mremap 0x483c000 0x2000 0x4000 0x483c000 flags=maymove",
    "T6944 fetch 0x109302 7",
    "T6944 store 0x483f000 1", /* inside the grown mapping: nothing implied */
    "T6944 brk 0x4057000",     /* line 59 */
    /* line 60: exit_group's result comes on line 66; meanwhile valgrind
     * kills thread 2, blocked in read() since line 52, after thread 1
     * held the lock (lines 53-60): an edge, then its exit (lines 61-64);
     * then thread 1 exits (line 67) */
    "T6944 wake 6949",
    "T6949 sleep",
    "T6949 exit",
    "T6944 exit",
};

/* The MMAPs above marked as implied: 0x401a000, 0x1fff000000, 0x494f000, 0x109000, 0x4a2c000. */
#define LACKEY_EXCERPT_IMPLIED 5

#endif
