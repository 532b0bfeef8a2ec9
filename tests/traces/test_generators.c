/* SPDX-License-Identifier: MIT */
/*
 * The workload generators (traces/gen_*.c): exact event counts by kind for
 * small parameters, worked out by hand from each generator's documented
 * event sequence (the comments below); every event valid; the stream a
 * function of parameters and seed; parameter errors; and every generator
 * run through a simulation to its end on x86-stock and arm64-stock.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "os/os.h"
#include "support/machines.h"
#include "tlbsim/gen.h"
#include "traces/workload.h"

#define RW (TLBSIM_PROT_READ | TLBSIM_PROT_WRITE)
#define KB 1024ull
/* Threads a test stream may have, tids 1..MAX_TID - 1. */
#define MAX_TID 4096

/* What a stream held. */
struct counts {
	uint64_t n[TLBSIM_EV_NR_KINDS];
	uint64_t total;
	uint64_t hash; /* FNV-1a of every event's bytes */
};

/* Thread states the stream must respect (check_stream). */
enum { T_UNSEEN = 0, T_CREATED, T_EXITED };

/*
 * The rules of include/tlbsim/event.h for the kinds generators emit:
 * user-level kinds only (LOAD..BRK, the kthread kinds, EXEC, AFFINITY), performed
 * by a thread (PROC_CREATE by none), cpu
 * given for SWITCH only, non-empty accesses and ranges below 2^64, known
 * flags.
 */
static void check_event(const struct tlbsim_event *ev)
{
	assert_true(
	    (ev->kind >= TLBSIM_EV_LOAD && ev->kind <= TLBSIM_EV_BRK) ||
	    (ev->kind >= TLBSIM_EV_KTHREAD_CREATE && ev->kind <= TLBSIM_EV_KTHREAD_UNUSE_MM) ||
	    ev->kind == TLBSIM_EV_RECLAIM || ev->kind == TLBSIM_EV_RECLAIM_FLUSH ||
	    ev->kind == TLBSIM_EV_EXEC || ev->kind == TLBSIM_EV_AFFINITY);
	if (ev->kind == TLBSIM_EV_PROC_CREATE) {
		assert_int_equal(ev->tid, TLBSIM_TID_NONE);
		assert_true(ev->proc_create.pid >= 1 && ev->proc_create.tid >= 1);
	} else {
		assert_int_not_equal(ev->tid, TLBSIM_TID_NONE);
	}
	if (ev->kind == TLBSIM_EV_SWITCH)
		assert_int_not_equal(ev->cpu, TLBSIM_CPU_ANY);
	else
		assert_int_equal(ev->cpu, TLBSIM_CPU_ANY);
	switch (ev->kind) {
	case TLBSIM_EV_LOAD:
	case TLBSIM_EV_STORE:
		assert_true(ev->access.size >= 1);
		assert_true(ev->access.va <= UINT64_MAX - (ev->access.size - 1));
		break;
	case TLBSIM_EV_COMPUTE:
		assert_int_equal(ev->compute.unit, TLBSIM_COMPUTE_CYCLES);
		break;
	case TLBSIM_EV_MMAP:
		assert_true(ev->mmap.len >= 1);
		assert_int_equal(ev->mmap.prot & ~RW, 0);
		assert_true((ev->mmap.flags & (TLBSIM_MAP_SHARED | TLBSIM_MAP_PRIVATE)) ==
				TLBSIM_MAP_SHARED ||
			    (ev->mmap.flags & (TLBSIM_MAP_SHARED | TLBSIM_MAP_PRIVATE)) ==
				TLBSIM_MAP_PRIVATE);
		break;
	case TLBSIM_EV_MUNMAP:
		assert_true(ev->munmap.len >= 1);
		break;
	case TLBSIM_EV_MPROTECT:
		assert_int_equal(ev->mprotect.prot & ~RW, 0);
		break;
	case TLBSIM_EV_MADVISE:
		assert_int_equal(ev->madvise.advice, TLBSIM_MADV_DONTNEED);
		break;
	case TLBSIM_EV_THREAD_CREATE:
		assert_true(ev->thread_create.tid >= 1);
		break;
	case TLBSIM_EV_FORK:
		assert_true(ev->fork.pid >= 1 && ev->fork.tid >= 1);
		break;
	case TLBSIM_EV_WAKE:
		assert_true(ev->wake.tid >= 1);
		break;
	case TLBSIM_EV_KTHREAD_USE_MM:
		assert_true(ev->kthread_use_mm.pid >= 1 && ev->kthread_use_mm.mmget <= 1);
		break;
	default:
		break;
	}
	{
		char why[256];

		if (tlbsim_event_validate(ev, why, sizeof(why)))
			fail_msg("invalid event: %s", why);
	}
}

/*
 * Stream order (what traces/workload.h promises): a thread's events come
 * after its creation and none after its EXIT; every thread created exits.
 */
static void check_stream(uint8_t *state, const struct tlbsim_event *ev)
{
	uint32_t born = 0;

	if (ev->kind == TLBSIM_EV_PROC_CREATE)
		born = ev->proc_create.tid;
	else if (ev->kind == TLBSIM_EV_THREAD_CREATE)
		born = ev->thread_create.tid;
	else if (ev->kind == TLBSIM_EV_FORK)
		born = ev->fork.tid;
	else if (ev->kind == TLBSIM_EV_KTHREAD_CREATE)
		born = ev->kthread_create.tid;
	if (born) {
		assert_true(born < MAX_TID);
		assert_int_equal(state[born], T_UNSEEN);
		state[born] = T_CREATED;
	}
	if (ev->tid != TLBSIM_TID_NONE) {
		assert_true(ev->tid < MAX_TID);
		assert_int_equal(state[ev->tid], T_CREATED);
		if (ev->kind == TLBSIM_EV_EXIT)
			state[ev->tid] = T_EXITED;
	}
}

/* Run generator @name with @params to its end: count, check, hash. */
static void run_gen(const char *name, const char *params, struct counts *c)
{
	uint8_t *state = calloc(MAX_TID, 1);
	struct tlbsim_error err;
	struct tlbsim_event ev;
	tlbsim_gen *g;
	unsigned t;

	memset(c, 0, sizeof(*c));
	c->hash = 14695981039346656037ull;
	tlbsim_error_clear(&err);
	if (tlbsim_gen_create(name, params, TLBSIM_ISA_X86_64, &g, &err))
		fail_msg("%s: %s", name, err.text);
	while (tlbsim_gen_next(g, &ev, NULL) == 1) {
		const unsigned char *b = (const unsigned char *)&ev;
		size_t i;

		check_event(&ev);
		check_stream(state, &ev);
		c->n[ev.kind]++;
		c->total++;
		for (i = 0; i < sizeof(ev); i++)
			c->hash = (c->hash ^ b[i]) * 1099511628211ull;
	}
	for (t = 0; t < MAX_TID; t++)
		assert_int_not_equal(state[t], T_CREATED);
	tlbsim_gen_destroy(g);
	free(state);
}

/* The events of thread @tid (PROC_CREATE counts as its first), in order,
 * into @out (at most @max); returns how many. */
static size_t events_of(const char *name, const char *params, uint32_t tid,
			struct tlbsim_event *out, size_t max)
{
	struct tlbsim_event ev;
	tlbsim_gen *g;
	size_t n = 0;

	assert_int_equal(tlbsim_gen_create(name, params, TLBSIM_ISA_ARM64, &g, NULL), 0);
	while (tlbsim_gen_next(g, &ev, NULL) == 1) {
		bool mine = ev.tid == tid ||
			    (ev.kind == TLBSIM_EV_PROC_CREATE && ev.proc_create.tid == tid);

		if (mine) {
			assert_true(n < max);
			out[n++] = ev;
		}
	}
	tlbsim_gen_destroy(g);
	return n;
}

#define N(k) c.n[TLBSIM_EV_##k]

/* ---- exact counts ------------------------------------------------------------------ */

/*
 * procs=2 threads=3 size=16K (4 pages) loops=5 compute=7, per process:
 * PROC_CREATE 1, MMAP 1, STORE 4, THREAD_CREATE 2, MPROTECT 2*5 = 10,
 * COMPUTE 10, SLEEP 2, WAKE 2, EXIT 3 (= 35); two processes: 70.
 */
static void mprotect_toggle_counts_by_kind(void **unused)
{
	struct counts c;

	(void)unused;
	run_gen("mprotect-toggle", "procs=2,threads=3,size=16K,loops=5,compute=7", &c);
	assert_int_equal(N(PROC_CREATE), 2);
	assert_int_equal(N(MMAP), 2);
	assert_int_equal(N(STORE), 8);
	assert_int_equal(N(THREAD_CREATE), 4);
	assert_int_equal(N(MPROTECT), 20);
	assert_int_equal(N(COMPUTE), 20);
	assert_int_equal(N(SLEEP), 4);
	assert_int_equal(N(WAKE), 4);
	assert_int_equal(N(EXIT), 6);
	assert_int_equal(c.total, 70);
}

/*
 * procs=1 threads=1 size=5000 (rounded up: 2 pages) loops=3 compute=0: the
 * single-threaded variant, in this order: PROC_CREATE, MMAP base 8K rw,
 * STORE base, STORE base+4K, 3 x (MPROTECT r, MPROTECT rw), EXIT: 11.
 */
static void mprotect_toggle_single_thread_sequence(void **unused)
{
	struct tlbsim_event ev[16];
	size_t n, i;

	(void)unused;
	n = events_of("mprotect-toggle", "procs=1,threads=1,size=5000,loops=3", 1, ev, 16);
	assert_int_equal(n, 11);
	assert_int_equal(ev[0].kind, TLBSIM_EV_PROC_CREATE);
	assert_int_equal(ev[0].proc_create.pid, 1);
	assert_int_equal(ev[1].kind, TLBSIM_EV_MMAP);
	assert_int_equal(ev[1].mmap.addr, TRACE_VA_BASE);
	assert_int_equal(ev[1].mmap.len, 8 * KB);
	assert_int_equal(ev[1].mmap.prot, RW);
	assert_int_equal(ev[2].kind, TLBSIM_EV_STORE);
	assert_int_equal(ev[2].access.va, TRACE_VA_BASE);
	assert_int_equal(ev[3].access.va, TRACE_VA_BASE + 4 * KB);
	for (i = 4; i < 10; i++) {
		assert_int_equal(ev[i].kind, TLBSIM_EV_MPROTECT);
		assert_int_equal(ev[i].mprotect.len, 8 * KB);
		assert_int_equal(ev[i].mprotect.prot, i % 2 ? RW : TLBSIM_PROT_READ);
	}
	assert_int_equal(ev[10].kind, TLBSIM_EV_EXIT);
}

/*
 * threads=2 size=16K (4 pages) pages=3 (groups [0,3) and [3,4)) loops=2:
 * harness PROC_CREATE 1, THREAD_CREATE 2, SWITCH 2, SLEEP 2, WAKE 2,
 * EXIT 3 (= 12); per worker and round MMAP 1, STORE 4, MADVISE 2, LOAD 4,
 * MUNMAP 1, times 2 workers x 2 rounds: 4, 16, 8, 16, 4 (= 48); 60.
 */
static void madvise_threads_counts_by_kind(void **unused)
{
	struct counts c;

	(void)unused;
	run_gen("madvise-threads", "threads=2,size=16K,pages=3,loops=2", &c);
	assert_int_equal(N(PROC_CREATE), 1);
	assert_int_equal(N(THREAD_CREATE), 2);
	assert_int_equal(N(SWITCH), 2);
	assert_int_equal(N(SLEEP), 2);
	assert_int_equal(N(WAKE), 2);
	assert_int_equal(N(EXIT), 3);
	assert_int_equal(N(MMAP), 4);
	assert_int_equal(N(STORE), 16);
	assert_int_equal(N(MADVISE), 8);
	assert_int_equal(N(LOAD), 16);
	assert_int_equal(N(MUNMAP), 4);
	assert_int_equal(c.total, 60);
}

/*
 * Worker 1 (tid 3) of threads=2 size=16K pages=3 loops=1 cpus=1: SWITCH
 * cpu 1 % 1 = 0; MMAP at base + 16K; STORE pages 0, 1, 2; MADVISE 3 pages;
 * LOAD 0, 1, 2; STORE 3; MADVISE 1 page at +12K; LOAD 3; MUNMAP; WAKE 1;
 * EXIT: 15 events.
 */
static void madvise_threads_worker_sequence(void **unused)
{
	struct tlbsim_event ev[32];
	uint64_t r = TRACE_VA_BASE + 16 * KB;
	size_t n;

	(void)unused;
	n = events_of("madvise-threads", "threads=2,size=16K,pages=3,loops=1,cpus=1", 3, ev, 32);
	assert_int_equal(n, 15);
	assert_int_equal(ev[0].kind, TLBSIM_EV_SWITCH);
	assert_int_equal(ev[0].cpu, 0);
	assert_int_equal(ev[1].mmap.addr, r);
	assert_int_equal(ev[4].access.va, r + 8 * KB);
	assert_int_equal(ev[5].kind, TLBSIM_EV_MADVISE);
	assert_int_equal(ev[5].madvise.addr, r);
	assert_int_equal(ev[5].madvise.len, 12 * KB);
	assert_int_equal(ev[6].kind, TLBSIM_EV_LOAD);
	assert_int_equal(ev[6].access.va, r);
	assert_int_equal(ev[9].kind, TLBSIM_EV_STORE);
	assert_int_equal(ev[9].access.va, r + 12 * KB);
	assert_int_equal(ev[10].madvise.addr, r + 12 * KB);
	assert_int_equal(ev[10].madvise.len, 4 * KB);
	assert_int_equal(ev[11].kind, TLBSIM_EV_LOAD);
	assert_int_equal(ev[12].kind, TLBSIM_EV_MUNMAP);
	assert_int_equal(ev[13].kind, TLBSIM_EV_WAKE);
	assert_int_equal(ev[13].wake.tid, 1);
	assert_int_equal(ev[14].kind, TLBSIM_EV_EXIT);
}

/*
 * threads=2 size=16K (n = 4 pages) touch=3 (touches = ceil(4/3) = 2)
 * loops=3: per worker and round MMAP 20K (16K + the chunk header's page),
 * STORE header + 2 touches = 3, MUNMAP; 6 rounds: MMAP 6, STORE 18,
 * MUNMAP 6; harness 12 as above; 42.  touch=0 (malloc1 itself): 1 STORE
 * per round, 6 in all.
 */
static void munmap_churn_counts_by_kind(void **unused)
{
	struct tlbsim_event ev[16];
	struct counts c;

	(void)unused;
	run_gen("munmap-churn", "threads=2,size=16K,touch=3,loops=3", &c);
	assert_int_equal(N(MMAP), 6);
	assert_int_equal(N(STORE), 18);
	assert_int_equal(N(MUNMAP), 6);
	assert_int_equal(
	    N(PROC_CREATE) + N(THREAD_CREATE) + N(SWITCH) + N(SLEEP) + N(WAKE) + N(EXIT), 12);
	assert_int_equal(c.total, 42);
	run_gen("munmap-churn", "threads=2,size=16K,touch=0,loops=3", &c);
	assert_int_equal(N(STORE), 6);
	assert_int_equal(c.total, 30);
	/* Worker 0 (tid 2), touch=3: SWITCH, MMAP base 20K, STORE base (16
	 * bytes: the header), STORE base+16, STORE base+16+12K, MUNMAP 20K. */
	assert_int_equal(events_of("munmap-churn", "threads=1,size=16K,touch=3,loops=1", 2, ev, 16),
			 8);
	assert_int_equal(ev[1].mmap.len, 20 * KB);
	assert_int_equal(ev[2].access.va, TRACE_VA_BASE);
	assert_int_equal(ev[2].access.size, 16);
	assert_int_equal(ev[3].access.va, TRACE_VA_BASE + 16);
	assert_int_equal(ev[4].access.va, TRACE_VA_BASE + 16 + 12 * KB);
	assert_int_equal(ev[5].munmap.len, 20 * KB);
}

/*
 * loops=3 procs=1 pages=2 compute=50: PROC_CREATE 1, SWITCH 2, FORK 1,
 * MMAP 2, LOAD 2 sides x 3 turns x 2 pages = 12, COMPUTE 6, WAKE 6,
 * SLEEP 6, EXIT 2: 38.  loops=4 thread mode, no pages, no compute:
 * PROC_CREATE 1, SWITCH 2, THREAD_CREATE 1, WAKE 8, SLEEP 8, EXIT 2: 22;
 * B (tid 2) is SWITCH cpu 5, 4 x (SLEEP, WAKE 1), EXIT.
 */
static void ctx_switch_counts_by_kind(void **unused)
{
	struct tlbsim_event ev[16];
	struct counts c;
	size_t i;

	(void)unused;
	run_gen("ctx-switch", "loops=3,procs=1,pages=2,compute=50", &c);
	assert_int_equal(N(PROC_CREATE), 1);
	assert_int_equal(N(SWITCH), 2);
	assert_int_equal(N(FORK), 1);
	assert_int_equal(N(MMAP), 2);
	assert_int_equal(N(LOAD), 12);
	assert_int_equal(N(COMPUTE), 6);
	assert_int_equal(N(WAKE), 6);
	assert_int_equal(N(SLEEP), 6);
	assert_int_equal(N(EXIT), 2);
	assert_int_equal(c.total, 38);
	run_gen("ctx-switch", "loops=4", &c);
	assert_int_equal(N(THREAD_CREATE), 1);
	assert_int_equal(N(WAKE), 8);
	assert_int_equal(N(SLEEP), 8);
	assert_int_equal(c.total, 22);
	assert_int_equal(events_of("ctx-switch", "loops=4,cpu=5", 2, ev, 16), 10);
	assert_int_equal(ev[0].kind, TLBSIM_EV_SWITCH);
	assert_int_equal(ev[0].cpu, 5);
	for (i = 1; i < 9; i++)
		assert_int_equal(ev[i].kind, i % 2 ? TLBSIM_EV_SLEEP : TLBSIM_EV_WAKE);
	assert_int_equal(ev[2].wake.tid, 1);
	assert_int_equal(ev[9].kind, TLBSIM_EV_EXIT);
}

/*
 * groups=1 senders=2 receivers=2 loops=3 compute=10, processes: tasks =
 * 4, messages m = 1*2*2*3 = 12; a socket holds 277 messages, 138 rounds
 * of 2 senders, more than the 3 loops: no sender waits for space (w = 0).
 * PROC_CREATE 1, MMAP 1 (the 4 tasks' buffers), STORE 4 + 2m = 28, LOAD
 * 2m = 24, COMPUTE 2m = 24, FORK 4, SLEEP 4 + 12 = 16, WAKE 12 + 4 = 16,
 * EXIT 5: 119.  With queue=2 (compute=0): 1 round in flight, so w =
 * 1*2*2*(3 - 1) = 8 waits for space, a SLEEP of the sender and a WAKE of
 * the receiver each: SLEEP and WAKE 24, total 1 + 1 + 28 + 24 + 4 + 24 +
 * 24 + 5 = 111.  Threads, groups=2 senders=1 receivers=1 loops=2
 * compute=0: tasks 4, m = 4: PROC_CREATE 1, MMAP 1, STORE 4 + 8, LOAD 8,
 * THREAD_CREATE 4, SLEEP 4 + 4, WAKE 4 + 4, EXIT 5: 47.
 */
static void hackbench_counts_by_kind(void **unused)
{
	struct counts c;

	(void)unused;
	run_gen("hackbench", "groups=1,senders=2,receivers=2,loops=3,compute=10", &c);
	assert_int_equal(N(PROC_CREATE), 1);
	assert_int_equal(N(MMAP), 1);
	assert_int_equal(N(STORE), 28);
	assert_int_equal(N(LOAD), 24);
	assert_int_equal(N(COMPUTE), 24);
	assert_int_equal(N(FORK), 4);
	assert_int_equal(N(SLEEP), 16);
	assert_int_equal(N(WAKE), 16);
	assert_int_equal(N(EXIT), 5);
	assert_int_equal(c.total, 119);
	run_gen("hackbench", "groups=1,senders=2,receivers=2,loops=3,compute=0,queue=2", &c);
	assert_int_equal(N(SLEEP), 24);
	assert_int_equal(N(WAKE), 24);
	assert_int_equal(N(COMPUTE), 0);
	assert_int_equal(c.total, 111);
	/* A pipe holds 640: still no wait at 3 loops. */
	run_gen("hackbench", "groups=1,senders=2,receivers=2,loops=3,compute=0,pipe=1", &c);
	assert_int_equal(N(SLEEP), 16);
	run_gen("hackbench", "groups=2,senders=1,receivers=1,loops=2,threads=1,compute=0", &c);
	assert_int_equal(N(STORE), 12);
	assert_int_equal(N(LOAD), 8);
	assert_int_equal(N(THREAD_CREATE), 4);
	assert_int_equal(N(FORK), 0);
	assert_int_equal(N(SLEEP), 8);
	assert_int_equal(N(WAKE), 8);
	assert_int_equal(N(EXIT), 5);
	assert_int_equal(c.total, 47);
}

/*
 * groups=1 senders=2 receivers=2 loops=2 compute=0 queue=2 in process
 * mode: one round in flight.  Sender 0 (task 2, receivers first: tid 4)
 * reads its buffer, base + 2 pages, into each message: round 0 LOAD buf
 * 64, LOAD buf+64 36, WAKE tid 2 (receiver 0), the same for tid 3; round
 * 1 first SLEEPs twice (space in both sockets), then as round 0; WAKE 1,
 * EXIT: 16.  Receiver 0 (tid 2, buffer at base) takes s0's and s1's
 * messages in turn: SLEEP, STORE buf 64, STORE buf+64 36, and for round
 * 0 a WAKE of that sender (tid 4, then 5) for the space it waits for in
 * round 1; round 1's messages free space no one waits for: 4 + 4 + 3 + 3,
 * WAKE 1, EXIT: 16.
 */
static void hackbench_sender_and_receiver_sequences(void **unused)
{
	const char *p = "groups=1,senders=2,receivers=2,loops=2,compute=0,queue=2";
	struct tlbsim_event ev[32];
	unsigned i;

	(void)unused;
	assert_int_equal(events_of("hackbench", p, 4, ev, 32), 16);
	assert_int_equal(ev[0].kind, TLBSIM_EV_LOAD);
	assert_int_equal(ev[0].access.va, TRACE_VA_BASE + 2 * TRACE_PAGE);
	assert_int_equal(ev[0].access.size, 64);
	assert_int_equal(ev[1].access.va, TRACE_VA_BASE + 2 * TRACE_PAGE + 64);
	assert_int_equal(ev[1].access.size, 36);
	assert_int_equal(ev[2].wake.tid, 2);
	assert_int_equal(ev[3].access.va, TRACE_VA_BASE + 2 * TRACE_PAGE);
	assert_int_equal(ev[5].wake.tid, 3);
	assert_int_equal(ev[6].kind, TLBSIM_EV_SLEEP);
	assert_int_equal(ev[7].kind, TLBSIM_EV_SLEEP);
	assert_int_equal(ev[8].kind, TLBSIM_EV_LOAD);
	assert_int_equal(ev[10].wake.tid, 2);
	assert_int_equal(ev[13].wake.tid, 3);
	assert_int_equal(ev[14].wake.tid, 1);
	assert_int_equal(ev[15].kind, TLBSIM_EV_EXIT);

	assert_int_equal(events_of("hackbench", p, 2, ev, 32), 16);
	for (i = 0; i < 2; i++) {
		assert_int_equal(ev[4 * i].kind, TLBSIM_EV_SLEEP);
		assert_int_equal(ev[4 * i + 1].kind, TLBSIM_EV_STORE);
		assert_int_equal(ev[4 * i + 1].access.va, TRACE_VA_BASE);
		assert_int_equal(ev[4 * i + 2].access.va, TRACE_VA_BASE + 64);
		assert_int_equal(ev[4 * i + 3].kind, TLBSIM_EV_WAKE);
		assert_int_equal(ev[4 * i + 3].wake.tid, 4 + i);
	}
	assert_int_equal(ev[8].kind, TLBSIM_EV_SLEEP);
	assert_int_equal(ev[10].kind, TLBSIM_EV_STORE);
	assert_int_equal(ev[11].kind, TLBSIM_EV_SLEEP);
	assert_int_equal(ev[13].kind, TLBSIM_EV_STORE);
	assert_int_equal(ev[14].wake.tid, 1);
	assert_int_equal(ev[15].kind, TLBSIM_EV_EXIT);
}

/*
 * loops=2 procs=3 accesses=5 heap=8K compute=4, per shell: PROC_CREATE 1,
 * MMAP 1, STORE 16 (its pages) + 3 children x floor(5/2) = 22, LOAD
 * 3 x ceil(5/2) = 9, FORK 3, SLEEP 3, MUNMAP 3, BRK 6, COMPUTE 15, WAKE 3,
 * EXIT 4 (= 70); two shells: 140.  The children are pids 3..8.
 */
static void short_procs_counts_by_kind(void **unused)
{
	struct counts c;

	(void)unused;
	run_gen("short-procs", "loops=2,procs=3,accesses=5,heap=8K,compute=4", &c);
	assert_int_equal(N(PROC_CREATE), 2);
	assert_int_equal(N(MMAP), 2);
	assert_int_equal(N(STORE), 44);
	assert_int_equal(N(LOAD), 18);
	assert_int_equal(N(FORK), 6);
	assert_int_equal(N(SLEEP), 6);
	assert_int_equal(N(MUNMAP), 6);
	assert_int_equal(N(BRK), 12);
	assert_int_equal(N(COMPUTE), 30);
	assert_int_equal(N(WAKE), 6);
	assert_int_equal(N(EXIT), 8);
	assert_int_equal(c.total, 140);
}

/*
 * Shell 2 (tid 2) of loops=2 procs=3 forks pids 2 + 1 + 1*3 + k = 6, 7, 8;
 * its child 7 runs MUNMAP of the shell's 64K, BRK 0x555556000000, BRK +8K,
 * then loads and stores alternating inside the heap, WAKE 2, EXIT.
 */
static void short_procs_child_sequence(void **unused)
{
	const char *p = "loops=2,procs=3,accesses=5,heap=8K,compute=0";
	struct tlbsim_event ev[32];
	size_t n, i;

	(void)unused;
	n = events_of("short-procs", p, 2, ev, 32);
	/* PROC_CREATE, MMAP, 16 STORE, 3 x (FORK, SLEEP), EXIT */
	assert_int_equal(n, 25);
	assert_int_equal(ev[18].fork.pid, 6);
	assert_int_equal(ev[20].fork.pid, 7);
	assert_int_equal(ev[22].fork.tid, 8);
	n = events_of("short-procs", p, 7, ev, 32);
	assert_int_equal(n, 10);
	assert_int_equal(ev[0].kind, TLBSIM_EV_MUNMAP);
	assert_int_equal(ev[0].munmap.len, 64 * KB);
	assert_int_equal(ev[1].brk.end, 0x555556000000ull);
	assert_int_equal(ev[2].brk.end, 0x555556000000ull + 8 * KB);
	for (i = 3; i < 8; i++) {
		assert_int_equal(ev[i].kind, i % 2 ? TLBSIM_EV_LOAD : TLBSIM_EV_STORE);
		assert_true(ev[i].access.va >= 0x555556000000ull &&
			    ev[i].access.va + 8 <= 0x555556000000ull + 8 * KB);
	}
	assert_int_equal(ev[8].wake.tid, 2);
	assert_int_equal(ev[9].kind, TLBSIM_EV_EXIT);
}

/*
 * threads=3 size=12K (3 pages) loops=2: harness PROC_CREATE 1,
 * THREAD_CREATE 3, SWITCH 3, SLEEP 3, WAKE 3, EXIT 4 (= 17); 6 rounds of
 * MMAP, 3 STORE, MUNMAP (= 30); 47.
 */
static void page_faults_counts_by_kind(void **unused)
{
	struct counts c;

	(void)unused;
	run_gen("page-faults", "threads=3,size=12K,loops=2", &c);
	assert_int_equal(N(PROC_CREATE), 1);
	assert_int_equal(N(THREAD_CREATE), 3);
	assert_int_equal(N(SWITCH), 3);
	assert_int_equal(N(SLEEP), 3);
	assert_int_equal(N(WAKE), 3);
	assert_int_equal(N(EXIT), 4);
	assert_int_equal(N(MMAP), 6);
	assert_int_equal(N(STORE), 18);
	assert_int_equal(N(MUNMAP), 6);
	assert_int_equal(c.total, 47);
}

/*
 * pft (shared=1) threads=3 size=12K (3 pages, one a worker) loops=2:
 * main: PROC_CREATE, 3 THREAD_CREATE, per repetition MMAP, 3 WAKE,
 * 3 SLEEP, MUNMAP (x2), EXIT; each worker: SWITCH, per repetition SLEEP,
 * STORE, WAKE (x2), EXIT.  PROC_CREATE 1, THREAD_CREATE 3, SWITCH 3,
 * SLEEP 6 + 6, WAKE 6 + 6, EXIT 4, MMAP 2, STORE 6, MUNMAP 2: 45.
 * threads=4 size=8K loops=1: shares [0,0) [0,1)
 * [1,1) [1,2): two workers fault one page each, two none: STORE 2;
 * main 1 + 4 + 1 + 4 + 4 + 1 + 1 = 16, workers 4 x (SWITCH, SLEEP,
 * WAKE, EXIT) + 2 STORE = 18: 34.
 */
static void page_faults_shared_counts_by_kind(void **unused)
{
	struct counts c;

	(void)unused;
	run_gen("page-faults", "threads=3,size=12K,loops=2,shared=1", &c);
	assert_int_equal(N(PROC_CREATE), 1);
	assert_int_equal(N(THREAD_CREATE), 3);
	assert_int_equal(N(SWITCH), 3);
	assert_int_equal(N(SLEEP), 12);
	assert_int_equal(N(WAKE), 12);
	assert_int_equal(N(EXIT), 4);
	assert_int_equal(N(MMAP), 2);
	assert_int_equal(N(STORE), 6);
	assert_int_equal(N(MUNMAP), 2);
	assert_int_equal(c.total, 45);
	run_gen("page-faults", "threads=4,size=8K,loops=1,shared=1", &c);
	assert_int_equal(N(STORE), 2);
	assert_int_equal(N(MMAP), 1);
	assert_int_equal(N(MUNMAP), 1);
	assert_int_equal(N(SLEEP), 8);
	assert_int_equal(N(WAKE), 8);
	assert_int_equal(c.total, 34);
}

/*
 * pft threads=3 size=20K (5 pages) loops=1: worker w faults pages
 * [w*5/3, (w+1)*5/3): [0,1), [1,3), [3,5) of the one region at
 * TRACE_VA_BASE that the main thread (tid 1) maps and unmaps.
 * Worker 1 (tid 3): SWITCH cpu 1, SLEEP, STORE +4K, STORE +8K, WAKE 1,
 * EXIT.  Main: PROC_CREATE, THREAD_CREATE x 3, MMAP base 20K, WAKE 2, 3,
 * 4, SLEEP x 3, MUNMAP base 20K, EXIT (13).
 */
static void page_faults_shared_splits_one_region(void **unused)
{
	const char *p = "threads=3,size=20K,loops=1,shared=1";
	struct tlbsim_event ev[16];

	(void)unused;
	assert_int_equal(events_of("page-faults", p, 3, ev, 16), 6);
	assert_int_equal(ev[0].kind, TLBSIM_EV_SWITCH);
	assert_int_equal(ev[0].cpu, 1);
	assert_int_equal(ev[1].kind, TLBSIM_EV_SLEEP);
	assert_int_equal(ev[2].kind, TLBSIM_EV_STORE);
	assert_int_equal(ev[2].access.va, TRACE_VA_BASE + 4 * KB);
	assert_int_equal(ev[3].access.va, TRACE_VA_BASE + 8 * KB);
	assert_int_equal(ev[4].kind, TLBSIM_EV_WAKE);
	assert_int_equal(ev[4].wake.tid, 1);
	assert_int_equal(ev[5].kind, TLBSIM_EV_EXIT);
	assert_int_equal(events_of("page-faults", p, 4, ev, 16), 6);
	assert_int_equal(ev[2].access.va, TRACE_VA_BASE + 12 * KB);
	assert_int_equal(ev[3].access.va, TRACE_VA_BASE + 16 * KB);
	assert_int_equal(events_of("page-faults", p, 2, ev, 16), 5);
	assert_int_equal(ev[2].access.va, TRACE_VA_BASE);
	assert_int_equal(events_of("page-faults", p, 1, ev, 16), 13);
	assert_int_equal(ev[4].kind, TLBSIM_EV_MMAP);
	assert_int_equal(ev[4].mmap.addr, TRACE_VA_BASE);
	assert_int_equal(ev[4].mmap.len, 20 * KB);
	assert_int_equal(ev[5].kind, TLBSIM_EV_WAKE);
	assert_int_equal(ev[5].wake.tid, 2);
	assert_int_equal(ev[7].wake.tid, 4);
	assert_int_equal(ev[8].kind, TLBSIM_EV_SLEEP);
	assert_int_equal(ev[11].kind, TLBSIM_EV_MUNMAP);
	assert_int_equal(ev[11].munmap.addr, TRACE_VA_BASE);
	assert_int_equal(ev[11].munmap.len, 20 * KB);
	assert_int_equal(ev[12].kind, TLBSIM_EV_EXIT);
}

/*
 * Himeno ni=nj=nk=2 iters=2 point_cycles=5 copy_cycles=2, no noise: arrays
 * of 5 x 5 x 5 points, a plane 5 x 5 x 4 = 100 bytes, a component 500
 * bytes rounded up to one page: p, bnd, wrk1, wrk2 one page each, a 4, b
 * 3, c 3 (14 pages), each matrix 2 MiB apart from TRACE_VA_BASE (p +0,
 * bnd +2M, wrk1 +4M, wrk2 +6M, a +8M, b +10M, c +12M).  A plane is one
 * page with its 4 interior points.
 *   PROC_CREATE, AFFINITY init_cpu, 7 MMAP, 14 STORE (initmt()),
 *   AFFINITY cpu (= 24); an iteration: 2 planes x (15 LOAD, STORE,
 *   COMPUTE 4 x 5) then 2 planes x (LOAD wrk2, STORE p, COMPUTE 4 x 2):
 *   32 LOAD, 4 STORE, 4 COMPUTE; two: 64, 8, 8; EXIT.  105 events.
 */
static void stencil_noise_himeno_alone(void **unused)
{
	const char *p = "ni=2,nj=2,nk=2,iters=2,point_cycles=5,copy_cycles=2,noise=0,cpu=3,"
			"init_cpu=1";
	struct tlbsim_event ev[128];
	struct counts c;

	(void)unused;
	run_gen("stencil-noise", p, &c);
	assert_int_equal(N(PROC_CREATE), 1);
	assert_int_equal(N(AFFINITY), 2);
	assert_int_equal(N(MMAP), 7);
	assert_int_equal(N(STORE), 22);
	assert_int_equal(N(LOAD), 64);
	assert_int_equal(N(COMPUTE), 8);
	assert_int_equal(N(EXIT), 1);
	assert_int_equal(c.total, 105);
	assert_int_equal(events_of("stencil-noise", p, 1, ev, 128), 105);
	assert_int_equal(ev[1].kind, TLBSIM_EV_AFFINITY);
	assert_int_equal(ev[1].affinity.first, 1);
	assert_int_equal(ev[1].affinity.count, 1);
	/* a: 4 components of one page at +8M */
	assert_int_equal(ev[6].kind, TLBSIM_EV_MMAP);
	assert_int_equal(ev[6].mmap.addr, TRACE_VA_BASE + 8 * 1024 * KB);
	assert_int_equal(ev[6].mmap.len, 4 * 4 * KB);
	assert_int_equal(ev[23].kind, TLBSIM_EV_AFFINITY);
	assert_int_equal(ev[23].affinity.first, 3);
	/* Plane 1 (100 bytes into each component): p of planes 0, 1, 2 (at
	 * +0, +100, +200), a0 at +8M, a3 at +8M + 12K, b0 +10M, c0 +12M, bnd
	 * +2M, wrk1 +4M, then the store to wrk2 +6M and 4 points x 5 cycles. */
	assert_int_equal(ev[24].access.va, TRACE_VA_BASE);
	assert_int_equal(ev[25].access.va, TRACE_VA_BASE + 100);
	assert_int_equal(ev[26].access.va, TRACE_VA_BASE + 200);
	assert_int_equal(ev[27].access.va, TRACE_VA_BASE + 8 * 1024 * KB + 100);
	assert_int_equal(ev[30].access.va, TRACE_VA_BASE + 8 * 1024 * KB + 12 * KB + 100);
	assert_int_equal(ev[31].access.va, TRACE_VA_BASE + 10 * 1024 * KB + 100);
	assert_int_equal(ev[34].access.va, TRACE_VA_BASE + 12 * 1024 * KB + 100);
	assert_int_equal(ev[37].access.va, TRACE_VA_BASE + 2 * 1024 * KB + 100);
	assert_int_equal(ev[38].access.va, TRACE_VA_BASE + 4 * 1024 * KB + 100);
	assert_int_equal(ev[39].kind, TLBSIM_EV_STORE);
	assert_int_equal(ev[39].access.va, TRACE_VA_BASE + 6 * 1024 * KB + 100);
	assert_int_equal(ev[40].compute.count, 20);
	/* After plane 2 (41-57) the copy: LOAD wrk2, STORE p, 4 x 2. */
	assert_int_equal(ev[58].access.va, TRACE_VA_BASE + 6 * 1024 * KB + 100);
	assert_int_equal(ev[59].kind, TLBSIM_EV_STORE);
	assert_int_equal(ev[59].access.va, TRACE_VA_BASE + 100);
	assert_int_equal(ev[60].compute.count, 8);
	assert_int_equal(ev[104].kind, TLBSIM_EV_EXIT);
}

/*
 * A plane of several pages: nj=nk=62 gives planes of 65 x 65 x 4 = 16,900
 * bytes, 5 pages' worth; the 3,844 interior points of a plane are split
 * 768, 768, 768, 768 and the rest, 772.  Whatever the split, an iteration
 * computes ni x nj x nk x (point_cycles + copy_cycles) cycles in all:
 * 1 x 62 x 62 x (7 + 3) = 38,440.
 */
static void stencil_noise_plane_of_pages(void **unused)
{
	const char *p = "ni=1,nj=62,nk=62,iters=1,point_cycles=7,copy_cycles=3,noise=0";
	struct tlbsim_event ev[512];
	uint64_t sum = 0, first = 0, last = 0;
	size_t n, i, k = 0;

	(void)unused;
	/* 1 + 1 + 7 + 14 x 17 pages (4 x 16,900 = 67,600 bytes a component)
	 * + 1 + 5 x 17 + 5 x 3 + 1 */
	n = events_of("stencil-noise", p, 1, ev, 512);
	assert_int_equal(n, 349);
	for (i = 0; i < n; i++) {
		if (ev[i].kind != TLBSIM_EV_COMPUTE)
			continue;
		sum += ev[i].compute.count;
		if (k == 0)
			first = ev[i].compute.count;
		if (k == 4)
			last = ev[i].compute.count;
		k++;
	}
	assert_int_equal(sum, 38440);
	assert_int_equal(first, 768 * 7);
	assert_int_equal(last, 772 * 7);
}

/*
 * The noise beside a tiny Himeno: one page toggled.  Its events are
 * PROC_CREATE, AFFINITY noise_cpu noise_cpus, MMAP, STORE, THREAD_CREATE
 * (the sleeper), T toggles of two MPROTECTs, WAKE, EXIT; the sleeper's
 * SLEEP, EXIT.  T depends on the interleaving: at least one toggle, and
 * with noise_tail=100 exactly twice the toggles done by Himeno's end, so
 * an even T (MPROTECTs a multiple of 4).
 */
static void stencil_noise_toggler_and_sleeper(void **unused)
{
	const char *p = "ni=2,nj=2,nk=2,iters=2,noise_cpu=4,noise_cpus=3,noise_size=4K";
	struct tlbsim_event ev[4096];
	struct counts c;
	size_t n;

	(void)unused;
	run_gen("stencil-noise", p, &c);
	assert_int_equal(N(PROC_CREATE), 2);
	assert_int_equal(N(THREAD_CREATE), 1);
	assert_int_equal(N(SLEEP), 1);
	assert_int_equal(N(WAKE), 1);
	assert_int_equal(N(EXIT), 3);
	assert_int_equal(N(MMAP), 8);
	assert_int_equal(N(AFFINITY), 3);
	assert_true(N(MPROTECT) >= 4);
	assert_int_equal(N(MPROTECT) % 4, 0);
	assert_int_equal(c.total, 105 + 9 + N(MPROTECT));
	n = events_of("stencil-noise", p, 2, ev, 4096);
	assert_int_equal(ev[1].kind, TLBSIM_EV_AFFINITY);
	assert_int_equal(ev[1].affinity.first, 4);
	assert_int_equal(ev[1].affinity.count, 3);
	assert_int_equal(ev[4].kind, TLBSIM_EV_THREAD_CREATE);
	assert_int_equal(ev[5].kind, TLBSIM_EV_MPROTECT);
	assert_int_equal(ev[5].mprotect.prot, TLBSIM_PROT_READ);
	assert_int_equal(ev[6].mprotect.prot, TLBSIM_PROT_READ | TLBSIM_PROT_WRITE);
	assert_int_equal(ev[n - 2].kind, TLBSIM_EV_WAKE);
	assert_int_equal(ev[n - 1].kind, TLBSIM_EV_EXIT);
}

/*
 * threads=2 ops=5 min=max=8K (2 pages) live=2 compute=100: main
 * PROC_CREATE, 2 THREAD_CREATE, 2 SLEEP, EXIT; per worker MMAP, 5 x 2
 * STORE, 5 COMPUTE, 5 - 2 = 3 MADVISE, MUNMAP, WAKE, EXIT (= 22): 50.
 * Worker 0's arena is (2 + 2) x 8K = 32K; objects at 0, 8K, 16K, 24K,
 * then 0 again (wrapped); it frees the first three: MADVISE 8K at base,
 * base + 8K, base + 16K.
 */
/*
 * kthread-mm, pages 3, loops 2, compute 50 (the file comment's totals): 1
 * PROC_CREATE, 1 KTHREAD_CREATE, 2 SWITCH, 1 MMAP; 2 x (MADVISE, 3 STORE,
 * 3 LOAD, 2 WAKE, 2 SLEEP, USE_MM, UNUSE_MM) = 2 MADVISE, 6 STORE, 6
 * LOAD, 4 WAKE, 4 SLEEP, 2 + 2; 6 COMPUTE; 2 EXIT: 5 + 26 + 6 + 2 = 39
 * events.  The
 * worker's first events: SWITCH cpu 1, SLEEP, KTHREAD_USE_MM 1 mmget.
 */
static void kthread_mm_counts_by_kind(void **unused)
{
	const char *p = "pages=3,loops=2,compute=50";
	struct tlbsim_event ev[64];
	struct counts c;
	size_t n;

	(void)unused;
	run_gen("kthread-mm", p, &c);
	assert_int_equal(N(PROC_CREATE), 1);
	assert_int_equal(N(KTHREAD_CREATE), 1);
	assert_int_equal(N(SWITCH), 2);
	assert_int_equal(N(MMAP), 1);
	assert_int_equal(N(MADVISE), 2);
	assert_int_equal(N(STORE), 6);
	assert_int_equal(N(LOAD), 6);
	assert_int_equal(N(WAKE), 4);
	assert_int_equal(N(SLEEP), 4);
	assert_int_equal(N(KTHREAD_USE_MM), 2);
	assert_int_equal(N(KTHREAD_UNUSE_MM), 2);
	assert_int_equal(N(COMPUTE), 6);
	assert_int_equal(N(EXIT), 2);
	assert_int_equal(c.total, 39);
	n = events_of("kthread-mm", p, 2, ev, 64);
	assert_true(n >= 3);
	assert_int_equal(ev[0].kind, TLBSIM_EV_SWITCH);
	assert_int_equal(ev[0].cpu, 1);
	assert_int_equal(ev[1].kind, TLBSIM_EV_SLEEP);
	assert_int_equal(ev[2].kind, TLBSIM_EV_KTHREAD_USE_MM);
	assert_int_equal(ev[2].kthread_use_mm.pid, 1);
	assert_int_equal(ev[2].kthread_use_mm.mmget, 1);
}

/*
 * reclaim, threads 2, pages 2, loops 2, rounds 2 (the file comment's
 * totals, worked by hand): 1 PROC_CREATE, 1 MMAP, 1 KTHREAD_CREATE,
 * 2 THREAD_CREATE, 2 SLEEP, 2 WAKE, 2 + 2 EXIT, 2*2*2 = 8 STORE,
 * 2*2*2 = 8 MPROTECT, 2 each of COMPUTE, RECLAIM, RECLAIM_FLUSH: 35.
 */
static void reclaim_counts_by_kind(void **unused)
{
	const char *p = "threads=2,pages=2,loops=2,rounds=2,interval=10";
	struct tlbsim_event ev[64];
	struct counts c;
	size_t n, i;

	(void)unused;
	run_gen("reclaim", p, &c);
	assert_int_equal(N(PROC_CREATE), 1);
	assert_int_equal(N(MMAP), 1);
	assert_int_equal(N(KTHREAD_CREATE), 1);
	assert_int_equal(N(THREAD_CREATE), 2);
	assert_int_equal(N(SLEEP), 2);
	assert_int_equal(N(WAKE), 2);
	assert_int_equal(N(EXIT), 4);
	assert_int_equal(N(STORE), 8);
	assert_int_equal(N(MPROTECT), 8);
	assert_int_equal(N(COMPUTE), 2);
	assert_int_equal(N(RECLAIM), 2);
	assert_int_equal(N(RECLAIM_FLUSH), 2);
	assert_int_equal(c.total, 35);
	/* Every reclaim names the whole buffer of process 1: 2 threads x 2
	 * pages from TRACE_VA_BASE (0x100000000000). */
	/* kswapd (tid threads + 2 = 4): 2 x (COMPUTE, RECLAIM, RECLAIM_FLUSH), EXIT */
	n = events_of("reclaim", p, 4, ev, 64);
	assert_int_equal(n, 7);
	assert_int_equal(ev[0].kind, TLBSIM_EV_COMPUTE);
	assert_int_equal(ev[0].compute.count, 10);
	assert_int_equal(ev[2].kind, TLBSIM_EV_RECLAIM_FLUSH);
	for (i = 0; i < n; i++)
		if (ev[i].kind == TLBSIM_EV_RECLAIM) {
			assert_int_equal(ev[i].reclaim.pid, 1);
			assert_int_equal(ev[i].reclaim.addr, 0x100000000000ull);
			assert_int_equal(ev[i].reclaim.len, 4 * 4096);
		}
}

static void small_free_counts_by_kind(void **unused)
{
	const char *p = "threads=2,ops=5,min=8K,max=8K,live=2,compute=100";
	struct tlbsim_event ev[64];
	struct counts c;
	unsigned madv = 0;
	size_t n, i;

	(void)unused;
	run_gen("small-free", p, &c);
	assert_int_equal(N(PROC_CREATE), 1);
	assert_int_equal(N(THREAD_CREATE), 2);
	assert_int_equal(N(SLEEP), 2);
	assert_int_equal(N(MMAP), 2);
	assert_int_equal(N(STORE), 20);
	assert_int_equal(N(COMPUTE), 10);
	assert_int_equal(N(MADVISE), 6);
	assert_int_equal(N(MUNMAP), 2);
	assert_int_equal(N(WAKE), 2);
	assert_int_equal(N(EXIT), 3);
	assert_int_equal(c.total, 50);
	n = events_of("small-free", p, 2, ev, 64);
	assert_int_equal(n, 22);
	assert_int_equal(ev[0].mmap.len, 32 * KB);
	for (i = 0; i < n; i++) {
		if (ev[i].kind == TLBSIM_EV_COMPUTE)
			assert_int_equal(ev[i].compute.count, 200);
		if (ev[i].kind != TLBSIM_EV_MADVISE)
			continue;
		assert_int_equal(ev[i].madvise.addr, TRACE_VA_BASE + madv * 8 * KB);
		assert_int_equal(ev[i].madvise.len, 8 * KB);
		madv++;
	}
	assert_int_equal(madv, 3);
	/* MMAP, then 3 events per object and a MADVISE from the third on:
	 * the fifth object's stores are events 15 and 16, at offset 0 again. */
	assert_int_equal(ev[15].kind, TLBSIM_EV_STORE);
	assert_int_equal(ev[15].access.va, TRACE_VA_BASE);
	assert_int_equal(ev[16].access.va, TRACE_VA_BASE + 4 * KB);
}

/*
 * tcmalloc-large-heap (gen_tcmalloc_large_heap.c: gperftools 2.7's page
 * heap under the large-heap fragmentation test), worked out by hand.
 * H = TRACE_VA_BASE (the initial break); the first metadata chunk is
 * [H, H + 8 MiB), the heap starts at H + 8 MiB (tcmalloc page p1).
 *
 * A: prealloc=0 passes=1 min=2M max=2M+16K step=8K: two pairs, 256 and
 * 257 tcmalloc pages.
 *  start-up: PROC_CREATE, MMAP (.bss), BRK H, STORE SizeMap, BRK H+8M
 *    (the chunk, for the Span allocator's Init), STOREs: Span, StackTrace,
 *    Bucket allocators' first objects (3), central lists 26, page-map
 *    cache 128, root 256, free lists 3, ThreadCache allocator and the
 *    ThreadCache (2): 419 STOREs.
 *  pair 1: nothing free, GrowHeap(256): BRK H+10M; StackTrace (1); a new
 *    leaf: 512 + its root entry (1); NewSpan (1); RecordSpan (2);
 *    Delete -> the large normal set: the node allocator's Init (1) and
 *    the node (1); IncrementalScavenge(256): the counter (0) goes
 *    negative, ReleaseAtLeastNPages(1) releases the span: MADVISE
 *    [H+8M, 2 MiB), node erased (1) and inserted in the returned set
 *    (1); counter 256000.  Search: the returned span fits exactly:
 *    erased (1).  Cache entry (1).  Free: inserted as normal (1);
 *    counter 255744.  524 STOREs, 3 COMPUTE.
 *  pair 2 (257): the normal 256 is too short, no returned span: no
 *    forced release (nothing returned), GrowHeap(257): BRK H+10M+257*8K;
 *    StackTrace (1), leaf exists, NewSpan (1), RecordSpan (2); Delete
 *    merges the normal 256 before it: node erased (1), Span freed (1),
 *    new start (1), inserted (1).  Carve 257 of the 513: erased (1), the
 *    leftover's NewSpan (1), RecordSpan (2), inserted (1), the block's
 *    end (1).  Cache (1).  Free merges the leftover after it: erased
 *    (1), Span freed (1), new end (1), inserted (1).  19 STOREs, 3
 *    COMPUTE, no MADVISE (counter 255230).
 *  Totals: PROC_CREATE 1, MMAP 1, BRK 4, MADVISE 1, COMPUTE 6,
 *  STORE 419 + 524 + 19 = 962, EXIT 1: 976.  Distinct 4 KiB pages
 *  written: .bss 1 + 26 + 128 + 256 + 3 = 414 (the root entry and the
 *  cache entry fall in them); the chunk: the Span, StackTrace, Bucket and
 *  ThreadCache areas' first pages (4; every Span and both StackTraces are
 *  in them), the leaf 512, the node area's first page 1: 931.
 */
static void tcmalloc_large_heap_counts_by_kind(void **unused)
{
	const char *p = "procs=1,prealloc=0,passes=1,min=2M,max=2113536,step=8K,op=100,"
			"stats=1000";
	const uint64_t h = TRACE_VA_BASE, mib = 1ull << 20;
	static struct tlbsim_event ev[1024];
	uint64_t pages[1024], brk[8];
	size_t n, i, j, np = 0, nb = 0, nc = 0;
	struct counts c;

	(void)unused;
	run_gen("tcmalloc-large-heap", p, &c);
	assert_int_equal(N(PROC_CREATE), 1);
	assert_int_equal(N(MMAP), 1);
	assert_int_equal(N(BRK), 4);
	assert_int_equal(N(MADVISE), 1);
	assert_int_equal(N(COMPUTE), 6);
	assert_int_equal(N(STORE), 962);
	assert_int_equal(N(EXIT), 1);
	assert_int_equal(c.total, 976);
	n = events_of("tcmalloc-large-heap", p, 1, ev, 1024);
	assert_int_equal(n, 976);
	for (i = 0; i < n; i++) {
		if (ev[i].kind == TLBSIM_EV_BRK) {
			brk[nb++] = ev[i].brk.end;
		} else if (ev[i].kind == TLBSIM_EV_MADVISE) {
			assert_int_equal(ev[i].madvise.addr, h + 8 * mib);
			assert_int_equal(ev[i].madvise.len, 2 * mib);
		} else if (ev[i].kind == TLBSIM_EV_COMPUTE) {
			/* op (malloc), op (free), stats, per pair */
			assert_int_equal(ev[i].compute.count, nc % 3 == 2 ? 1000 : 100);
			nc++;
		} else if (ev[i].kind == TLBSIM_EV_STORE) {
			uint64_t pg = ev[i].access.va >> 12;

			for (j = 0; j < np && pages[j] != pg; j++)
				;
			if (j == np) {
				assert_true(np < 1024);
				pages[np++] = pg;
			}
		}
	}
	assert_int_equal(nb, 4);
	assert_int_equal(brk[0], h);
	assert_int_equal(brk[1], h + 8 * mib);
	assert_int_equal(brk[2], h + 10 * mib);
	assert_int_equal(brk[3], h + 10 * mib + 257 * 8 * KB);
	assert_int_equal(np, 931);
	/* The last events: COMPUTE stats (1000), EXIT. */
	assert_int_equal(ev[n - 2].kind, TLBSIM_EV_COMPUTE);
	assert_int_equal(ev[n - 2].compute.count, 1000);
	assert_int_equal(ev[n - 1].kind, TLBSIM_EV_EXIT);
}

/*
 * B: prealloc=100M (12800 pages) passes=1 min=60M (7680) max=60M+16K
 * step=8K.  The pre-grow: GrowHeap(12800) (BRK H+8M+100M), whose Delete
 * scavenges at once (counter 0 - 12800): MADVISE [H+8M, 100 MiB) #1,
 * counter min(12,800,000, 2^20) = 1048576; malloc takes the returned span
 * whole, free makes it normal (counter 1035776); ReleaseFreeMemory
 * releases it: #2, the same range.  Pair 1 (7680): carved from the
 * returned 12800, a returned 5120 left; freed as normal 7680, not merged
 * with the returned one after it.  Pair 2 (7681): neither fits; free +
 * returned = 100 MiB >= a quarter of 100 MiB, and 100 MiB + 7681 pages
 * (160.0 MiB) crosses 128 MiB: the forced release of every normal span:
 * #3, [H+8M, 60 MiB), which coalesces with the returned 5120 into 12800
 * and fits.  BRK 3 (H, H+8M, H+108M), MADVISE 3, COMPUTE 3 + 2 x 3 = 9.
 */
static void tcmalloc_large_heap_release_and_forced_coalesce(void **unused)
{
	const char *p = "procs=1,prealloc=100M,passes=1,min=60M,max=62930944,step=8K";
	const uint64_t h = TRACE_VA_BASE, mib = 1ull << 20;
	const uint64_t madv[3] = {100 * mib, 100 * mib, 60 * mib};
	static struct tlbsim_event ev[2048];
	size_t n, i, nm = 0, nb = 0;
	struct counts c;

	(void)unused;
	run_gen("tcmalloc-large-heap", p, &c);
	assert_int_equal(N(BRK), 3);
	assert_int_equal(N(MADVISE), 3);
	assert_int_equal(N(COMPUTE), 9);
	assert_int_equal(N(MUNMAP), 0);
	n = events_of("tcmalloc-large-heap", p, 1, ev, 2048);
	for (i = 0; i < n; i++) {
		if (ev[i].kind == TLBSIM_EV_MADVISE) {
			assert_true(nm < 3);
			assert_int_equal(ev[i].madvise.addr, h + 8 * mib);
			assert_int_equal(ev[i].madvise.len, madv[nm]);
			nm++;
		}
		if (ev[i].kind == TLBSIM_EV_BRK && nb++ == 2)
			assert_int_equal(ev[i].brk.end, h + 108 * mib);
	}
	assert_int_equal(nm, 3);

	/*
	 * C: the test's ASSERT_LT(heap_size, 1 GiB).  prealloc=0 min=600M
	 * max=1G step=100M: pair 1 grows 600 MiB (released at once by the
	 * scavenger, MADVISE 1); pair 2 (700 MiB): the normal 600 MiB is too
	 * short and nothing is returned, so no forced release: GrowHeap(700
	 * MiB), which merges with it; the heap is 1300 MiB: the test stops
	 * after 2 of its 4 pairs.  BRK 4, MADVISE 1, COMPUTE 6.
	 */
	run_gen("tcmalloc-large-heap", "procs=2,prealloc=0,passes=3,min=600M,max=1G,step=100M",
		&c);
	/* Sizes tcmalloc would serve from its size classes are refused, as
	 * is an empty pass. */
	{
		struct tlbsim_error err;
		tlbsim_gen *g = NULL;

		tlbsim_error_clear(&err);
		assert_int_equal(tlbsim_gen_create("tcmalloc-large-heap", "min=256K",
						   TLBSIM_ISA_ARM64, &g, &err),
				 -TLBSIM_EINVAL);
		assert_null(g);
		assert_non_null(strstr(err.text, "min=262144 must exceed 256 KiB"));
		tlbsim_error_clear(&err);
		/* The message names the parameter at fault, here prealloc. */
		assert_int_equal(tlbsim_gen_create("tcmalloc-large-heap", "prealloc=4K",
						   TLBSIM_ISA_ARM64, &g, &err),
				 -TLBSIM_EINVAL);
		assert_non_null(strstr(err.text, "prealloc=4096 must exceed 256 KiB (262144) (or be 0)"));
		tlbsim_error_clear(&err);
		assert_int_equal(tlbsim_gen_create("tcmalloc-large-heap", "min=500M,max=500M",
						   TLBSIM_ISA_ARM64, &g, &err),
				 -TLBSIM_EINVAL);
		assert_non_null(strstr(err.text, "min (524288000) must be below max (524288000)"));
	}
	assert_int_equal(N(PROC_CREATE), 2);
	assert_int_equal(N(BRK), 8);
	assert_int_equal(N(MADVISE), 2);
	assert_int_equal(N(COMPUTE), 12);
	assert_int_equal(N(EXIT), 2);
}

/*
 * tcmalloc releases only memory the test never touched, and its own
 * metadata stays: madvise of pages never faulted changes no PTE and
 * flushes nothing (Linux zap_pte_range() gathers nothing,
 * tlb_flush_mmu_tlbonly() returns at once), nor does growing the break.
 * On arm64-stock the only flushes are the exits' (exit_mmap() frees the
 * tables: one flush_tlb_mm(), a broadcast, a process): 3 for 3 copies.
 */
static void tcmalloc_large_heap_flushes_only_at_exit(void **unused)
{
	struct tlbsim_machine *m = test_machine(TLBSIM_ISA_ARM64, 8);
	struct tlbsim_sim_config cfg = {0};
	tlbsim_sim *sim;
	tlbsim_gen *g;
	uint64_t broadcasts = 0, local = 0, syscalls = 0;
	unsigned cpu;

	(void)unused;
	cfg.machine = m;
	cfg.policy = "arm64-stock";
	cfg.threads = 1;
	assert_int_equal(tlbsim_sim_create(&cfg, &sim, NULL), 0);
	assert_int_equal(tlbsim_gen_create("tcmalloc-large-heap",
					   "procs=3,prealloc=100M,passes=1,min=60M,max=61M",
					   TLBSIM_ISA_ARM64, &g, NULL),
			 0);
	assert_int_equal(tlbsim_sim_run(sim, tlbsim_gen_next, g, NULL), 0);
	for (cpu = 0; cpu < 8; cpu++) {
		const struct os_cpu_stats *st = &os_of_sim(sim)->cpu[cpu].st;

		broadcasts += st->flushes_broadcast;
		local += st->flushes_local;
		syscalls += st->syscalls;
	}
	assert_int_equal(broadcasts, 3);
	assert_int_equal(local, 0);
	assert_true(syscalls > 3 * 50);
	tlbsim_gen_destroy(g);
	tlbsim_sim_destroy(sim);
	tlbsim_machine_free(m);
}

/* ---- the whole set --------------------------------------------------------------- */

/* Small parameters for each generator, and whether it changes mappings
 * (munmap, mprotect, madvise) so that its run must flush. */
static const struct {
	const char *name, *params;
	bool flushes;
} small[] = {
    {"mprotect-toggle", "procs=4,threads=2,size=64K,loops=20,compute=100", true},
    {"madvise-threads", "threads=4,size=64K,loops=2", true},
    {"munmap-churn", "threads=4,size=256K,loops=3", true},
    {"ctx-switch", "loops=50,procs=1,pages=4,cpu=3,compute=200", false},
    {"ctx-switch", "loops=50,pages=2", false},
    {"hackbench", "groups=2,senders=3,receivers=3,loops=5", false},
    {"hackbench", "groups=2,senders=3,receivers=3,loops=5,threads=1", false},
    {"hackbench", "groups=2,senders=3,receivers=3,loops=5,pipe=1,queue=4", false},
    {"short-procs", "loops=3,procs=4,accesses=200,heap=32K", true},
    {"page-faults", "threads=4,size=256K,loops=2", true},
    {"page-faults", "threads=4,size=256K,loops=2,shared=1", true},
    {"stencil-noise", "ni=30,nj=30,nk=30,iters=2,noise_cpu=7", true},
    {"stencil-noise", "ni=16,nj=16,nk=16,iters=2,noise_cpus=3,noise_size=64K", true},
    {"small-free", "threads=4,ops=50,live=4,max=32K", true},
    {"kthread-mm", "pages=4,loops=5,compute=100", true},
    {"kthread-mm", "pages=2,loops=3,mmget=0,cpu=3", true},
    {"reclaim", "threads=3,pages=2,loops=3,rounds=4,interval=0", true},
    {"tcmalloc-large-heap", "procs=2,prealloc=4M,passes=2,min=2M,max=3M,step=100K", false},
};

/* Generators that draw random numbers from the seed. */
static bool is_random(const char *name)
{
	return !strcmp(name, "short-procs") || !strcmp(name, "small-free");
}

static void every_generator_is_listed_with_sane_parameters(void **unused)
{
	const char *names[] = {"mprotect-toggle", "madvise-threads", "munmap-churn",
			       "ctx-switch",	  "hackbench",	     "short-procs",
			       "page-faults",	  "stencil-noise",   "small-free",
			       "spawn",		  "kthread-mm",	     "reclaim",
			       "tcmalloc-large-heap"};
	const struct tlbsim_generator *g;
	unsigned i, j;

	(void)unused;
	for (i = 0; (g = tlbsim_generator_at(i)); i++) {
		assert_true(i < 13);
		assert_string_equal(g->name, names[i]);
		assert_true(g->summary && g->summary[0] && g->models && g->models[0]);
		assert_true(g->nr_params <= TLBSIM_GEN_MAX_PARAMS);
		/* what 'tlbsim list generators' says of the seed (GENERATORS.md) */
		assert_int_equal(g->uses_seed, is_random(g->name));
		for (j = 0; j < g->nr_params; j++) {
			assert_true(g->params[j].help && g->params[j].help[0]);
			assert_true(g->params[j].unit && g->params[j].unit[0]);
			assert_true(g->params[j].min <= g->params[j].def);
			assert_true(g->params[j].def <= g->params[j].max);
		}
	}
	assert_int_equal(i, 13);
}

/* With all defaults each generator starts (only the first events are
 * read; a stream may end before 1000, after 100 at least). */
static void every_generator_starts_with_its_defaults(void **unused)
{
	const struct tlbsim_generator *g;
	struct tlbsim_event ev;
	unsigned i, k;

	(void)unused;
	for (i = 0; (g = tlbsim_generator_at(i)); i++) {
		tlbsim_gen *gen;

		/* One that runs a process template is tested with one
		 * (test_template.c). */
		if (g->nr_templates)
			continue;
		assert_int_equal(tlbsim_gen_create(g->name, NULL, TLBSIM_ISA_ARM64, &gen, NULL), 0);
		/* Up to 1000 events, or to the end of a short default run
		 * (munmap-churn's 4 threads x 10 rounds of 3). */
		for (k = 0; k < 1000; k++) {
			int rc = tlbsim_gen_next(gen, &ev, NULL);

			assert_true(rc == 1 || (rc == 0 && k >= 100));
			if (!rc)
				break;
			check_event(&ev);
		}
		tlbsim_gen_destroy(gen);
	}
}

static void same_seed_same_stream_another_seed_another(void **unused)
{
	char p1[256], p2[256];
	struct counts a, b;
	unsigned i;

	(void)unused;
	for (i = 0; i < sizeof(small) / sizeof(small[0]); i++) {
		snprintf(p1, sizeof(p1), "%s,seed=7", small[i].params);
		snprintf(p2, sizeof(p2), "%s,seed=8", small[i].params);
		run_gen(small[i].name, p1, &a);
		run_gen(small[i].name, p1, &b);
		assert_int_equal(a.hash, b.hash);
		run_gen(small[i].name, p2, &b);
		if (is_random(small[i].name))
			assert_int_not_equal(a.hash, b.hash);
		else
			assert_int_equal(a.hash, b.hash);
		/* Only small-free draws sizes; the others' seed changes where,
		 * never how many. */
		if (strcmp(small[i].name, "small-free"))
			assert_int_equal(a.total, b.total);
	}
}

static void parameter_errors_are_reported(void **unused)
{
	struct tlbsim_error err;
	tlbsim_gen *g;

	(void)unused;
	tlbsim_error_clear(&err);
	assert_int_equal(
	    tlbsim_gen_create("mprotect-toggle", "procs=2,thread=3", TLBSIM_ISA_ARM64, &g, &err),
	    -TLBSIM_EINVAL);
	assert_null(g);
	assert_string_equal(err.source, "<gen:mprotect-toggle>");
	assert_non_null(strstr(err.text, "'thread'"));
	assert_non_null(strstr(err.text, "known: procs, threads, size, loops, compute, seed"));

	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_gen_create("hackbench", "threads=2", TLBSIM_ISA_X86_64, &g, &err),
			 -TLBSIM_ERANGE);
	assert_non_null(strstr(err.text, "threads=2 is out of range [0, 1]"));

	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_gen_create("page-faults", "size=12Q", TLBSIM_ISA_X86_64, &g, &err),
			 -TLBSIM_EINVAL);
	assert_non_null(strstr(err.text, "found '12Q'"));

	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_gen_create("page-faults", "threads", TLBSIM_ISA_X86_64, &g, &err),
			 -TLBSIM_EINVAL);

	/* A parameter given twice (the last one silently won), seed too;
	 * the offset is that of the second, in the parameter string. */
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_gen_create("madvise-threads", "loops=2,threads=3,loops=3",
					   TLBSIM_ISA_X86_64, &g, &err),
			 -TLBSIM_EINVAL);
	assert_null(g);
	assert_non_null(strstr(err.text, "parameter 'loops' given twice"));
	assert_int_equal(err.offset, 18);
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_gen_create("madvise-threads", "seed=1,seed=2", TLBSIM_ISA_X86_64,
					   &g, &err),
			 -TLBSIM_EINVAL);
	assert_non_null(strstr(err.text, "parameter 'seed' given twice"));

	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_gen_create("page-fault", NULL, TLBSIM_ISA_X86_64, &g, &err),
			 -TLBSIM_ENOENT);
	assert_non_null(strstr(err.text, "page-faults"));
}

/*
 * Values each within its range but inconsistent together: the code, and a
 * message naming each parameter at fault with the value given and what was
 * expected (it was "small-free cannot start: invalid argument").
 */
static void inconsistent_parameters_are_named_with_their_values(void **unused)
{
	struct tlbsim_error err;
	tlbsim_gen *g = NULL;

	(void)unused;
	/* min=8192 bytes is 2 pages, max=4096 is 1 (gen_small_free.c: sizes
	 * are whole 4 KiB pages). */
	tlbsim_error_clear(&err);
	assert_int_equal(
	    tlbsim_gen_create("small-free", "min=8192,max=4096", TLBSIM_ISA_X86_64, &g, &err),
	    -TLBSIM_EINVAL);
	assert_null(g);
	assert_int_equal(err.code, -TLBSIM_EINVAL);
	assert_string_equal(err.source, "<gen:small-free>");
	assert_non_null(strstr(err.text, "min (8192) must not exceed max (4096)"));
	assert_non_null(strstr(err.text, "(2 pages > 1)"));
	/* 6000 and 5000 bytes are 2 pages each once rounded up: the sizes
	 * drawn are the same, so the pair is accepted. */
	assert_int_equal(
	    tlbsim_gen_create("small-free", "min=6000,max=5000", TLBSIM_ISA_X86_64, &g, NULL), 0);
	tlbsim_gen_destroy(g);

	/* 64 arenas of (4096 + 2) x 1 GiB: 64 x 4098 GiB = 262272 GiB =
	 * 256.125 TiB, more than the 64 TiB laid out for mappings
	 * (TRACE_VA_SPAN); 8 of them (32.02 TiB) fit. */
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_gen_create("small-free", "threads=64,live=4096,max=1G",
					   TLBSIM_ISA_X86_64, &g, &err),
			 -TLBSIM_ERANGE);
	assert_int_equal(err.code, -TLBSIM_ERANGE);
	assert_non_null(
	    strstr(err.text, "threads (64) x (live (4096) + 2) x max (1073741824 bytes)"));
	assert_non_null(strstr(err.text, "256.1 TiB"));
	assert_non_null(strstr(err.text, "at most 64 TiB expected"));
	assert_int_equal(tlbsim_gen_create("small-free", "threads=8,live=4096,max=1G",
					   TLBSIM_ISA_X86_64, &g, NULL),
			 0);
	tlbsim_gen_destroy(g);

	/* stencil-noise's timed cpu is neither the noise's nor the one
	 * Himeno initialises on. */
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_gen_create("stencil-noise", "cpu=3,noise_cpu=2,noise_cpus=2",
					   TLBSIM_ISA_ARM64, &g, &err),
			 -TLBSIM_ERANGE);
	assert_string_equal(err.source, "<gen:stencil-noise>");
	assert_non_null(strstr(err.text, "cpu (3) is one of the noise's cpus"));
	tlbsim_error_clear(&err);
	assert_int_equal(
	    tlbsim_gen_create("stencil-noise", "cpu=0,init_cpu=0", TLBSIM_ISA_ARM64, &g, &err),
	    -TLBSIM_ERANGE);
	assert_non_null(strstr(err.text, "cpu and init_cpu (0) must differ"));
	assert_int_equal(tlbsim_gen_create("stencil-noise", "cpu=1,noise_cpu=2,noise_cpus=4",
					   TLBSIM_ISA_ARM64, &g, NULL),
			 0);
	tlbsim_gen_destroy(g);
}

/* ---- through a simulation -------------------------------------------------------- */

struct counting {
	tlbsim_gen *g;
	uint64_t n;
};

static int counting_next(void *arg, struct tlbsim_event *ev, struct tlbsim_error *err)
{
	struct counting *c = arg;
	int rc = tlbsim_gen_next(c->g, ev, err);

	c->n += rc == 1;
	return rc;
}

/*
 * Each generator at a small size runs to the end on 8 cpus: every event
 * read (as many as the generator makes), every thread exited, no access
 * outside a mapping, and, where the program changes mappings, flushes
 * done: broadcasts on arm64-stock, local flushes or IPIs on x86-stock.
 */
static void run_in_sim(enum tlbsim_isa isa, const char *policy)
{
	unsigned i, cpu;
	uint32_t t;

	for (i = 0; i < sizeof(small) / sizeof(small[0]); i++) {
		struct tlbsim_machine *m = test_machine(isa, 8);
		struct tlbsim_sim_config cfg = {0};
		struct counting src = {0};
		struct tlbsim_error err;
		struct counts c;
		uint64_t flushes = 0, broadcasts = 0;
		tlbsim_sim *sim;
		struct os *os;

		run_gen(small[i].name, small[i].params, &c);
		cfg.machine = m;
		cfg.policy = policy;
		cfg.threads = 1;
		tlbsim_error_clear(&err);
		assert_int_equal(tlbsim_sim_create(&cfg, &sim, &err), 0);
		assert_int_equal(
		    tlbsim_gen_create(small[i].name, small[i].params, isa, &src.g, &err), 0);
		if (tlbsim_sim_run(sim, counting_next, &src, &err))
			fail_msg("%s %s: %s", small[i].name, small[i].params, err.text);
		os = os_of_sim(sim);
		assert_int_equal(os->st.events_read, c.total);
		assert_int_equal(src.n, c.total);
		assert_int_equal(os->st.unknown_thread_events, 0);
		for (t = 0; t < os->threads_cap; t++)
			if (os->threads[t])
				assert_int_equal(os->threads[t]->state, OS_T_EXITED);
		for (cpu = 0; cpu < 8; cpu++) {
			const struct os_cpu_stats *st = &os->cpu[cpu].st;

			assert_int_equal(st->segv, 0);
			flushes += st->flushes_local + st->flushes_ipi + st->flushes_broadcast +
				   st->flushes_invlpgb;
			broadcasts += st->flushes_broadcast;
		}
		if (small[i].flushes) {
			if (isa == TLBSIM_ISA_ARM64)
				assert_true(broadcasts > 0);
			else
				assert_true(flushes > 0);
		}
		tlbsim_gen_destroy(src.g);
		tlbsim_sim_destroy(sim);
		tlbsim_machine_free(m);
	}
}

static void every_generator_runs_to_the_end_on_x86_stock(void **unused)
{
	(void)unused;
	run_in_sim(TLBSIM_ISA_X86_64, "x86-stock");
}

static void every_generator_runs_to_the_end_on_arm64_stock(void **unused)
{
	(void)unused;
	run_in_sim(TLBSIM_ISA_ARM64, "arm64-stock");
}

/*
 * madvise-threads pins its 4 workers to cpus 0-3, all in the one mm: on
 * x86-stock a worker's madvise reaches the others by IPI (shootdowns), on
 * arm64-stock by broadcast TLBI.
 */
static void madvise_threads_shoots_down_remote_cpus(void **unused)
{
	struct tlbsim_machine *m = test_machine(TLBSIM_ISA_X86_64, 8);
	struct tlbsim_sim_config cfg = {0};
	tlbsim_sim *sim;
	tlbsim_gen *g;
	uint64_t ipis = 0;
	unsigned cpu;

	(void)unused;
	cfg.machine = m;
	cfg.policy = "x86-stock";
	cfg.threads = 1;
	assert_int_equal(tlbsim_sim_create(&cfg, &sim, NULL), 0);
	assert_int_equal(tlbsim_gen_create("madvise-threads", "threads=4,size=64K,loops=2",
					   TLBSIM_ISA_X86_64, &g, NULL),
			 0);
	assert_int_equal(tlbsim_sim_run(sim, tlbsim_gen_next, g, NULL), 0);
	for (cpu = 0; cpu < 4; cpu++) {
		ipis += os_hw(os_of_sim(sim), cpu)->st.ipis_received;
		/* Each worker ran where it was pinned. */
		assert_true(os_of_sim(sim)->cpu[cpu].st.syscalls > 0);
	}
	assert_true(ipis > 0);
	tlbsim_gen_destroy(g);
	tlbsim_sim_destroy(sim);
	tlbsim_machine_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(mprotect_toggle_counts_by_kind),
	    cmocka_unit_test(mprotect_toggle_single_thread_sequence),
	    cmocka_unit_test(madvise_threads_counts_by_kind),
	    cmocka_unit_test(madvise_threads_worker_sequence),
	    cmocka_unit_test(munmap_churn_counts_by_kind),
	    cmocka_unit_test(ctx_switch_counts_by_kind),
	    cmocka_unit_test(hackbench_counts_by_kind),
	    cmocka_unit_test(hackbench_sender_and_receiver_sequences),
	    cmocka_unit_test(short_procs_counts_by_kind),
	    cmocka_unit_test(short_procs_child_sequence),
	    cmocka_unit_test(page_faults_counts_by_kind),
	    cmocka_unit_test(page_faults_shared_counts_by_kind),
	    cmocka_unit_test(page_faults_shared_splits_one_region),
	    cmocka_unit_test(stencil_noise_himeno_alone),
	    cmocka_unit_test(stencil_noise_plane_of_pages),
	    cmocka_unit_test(stencil_noise_toggler_and_sleeper),
	    cmocka_unit_test(small_free_counts_by_kind),
	    cmocka_unit_test(kthread_mm_counts_by_kind),
	    cmocka_unit_test(reclaim_counts_by_kind),
    cmocka_unit_test(tcmalloc_large_heap_counts_by_kind),
    cmocka_unit_test(tcmalloc_large_heap_release_and_forced_coalesce),
    cmocka_unit_test(tcmalloc_large_heap_flushes_only_at_exit),
	    cmocka_unit_test(every_generator_is_listed_with_sane_parameters),
	    cmocka_unit_test(every_generator_starts_with_its_defaults),
	    cmocka_unit_test(same_seed_same_stream_another_seed_another),
	    cmocka_unit_test(parameter_errors_are_reported),
	    cmocka_unit_test(inconsistent_parameters_are_named_with_their_values),
	    cmocka_unit_test(every_generator_runs_to_the_end_on_x86_stock),
	    cmocka_unit_test(every_generator_runs_to_the_end_on_arm64_stock),
	    cmocka_unit_test(madvise_threads_shoots_down_remote_cpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
