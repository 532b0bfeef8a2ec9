/* SPDX-License-Identifier: MIT */
/*
 * madvise-threads: will-it-scale's tlb_flush2_threads (tests/tlb_flush2.c,
 * github.com/antonblanchard/will-it-scale), the AMD Milan calibration point
 * of BACKGROUND.md section 3 and CALIBRATION.md 5.2 (TLB invalidation ~40%
 * of cpu time with IPIs, ~4% with INVLPGB).
 *
 * As read in tlb_flush2.c: each thread loops on: mmap 1 MiB of private
 * anonymous memory; for each page, write one byte, madvise(page, 4 KiB,
 * MADV_DONTNEED), read the byte back (an assert that it is 0: the read
 * faults the page in again); then munmap the 1 MiB.  @pages > 1 treats
 * that many consecutive pages per madvise call (a variant; 1 is the
 * benchmark).  will-it-scale's main.c creates the threads pinned to core
 * i % cores and joins them (traces/workload.h harness); @cpus is that
 * modulus (0: thread i on cpu i; the machine needs @threads cpus then).
 * Each thread's mapping has its own fixed place, side by side as top-down
 * mmap() would put them.  No COMPUTE events: the loop does nothing else.
 *
 * Parameters: threads, size (bytes of each mapping, rounded up to 4 KiB
 * pages), pages (pages per madvise call), loops (mmap..munmap rounds per
 * thread), cpus.
 *
 * Events (npages = size / 4 KiB, groups = ceil(npages / pages); thread 0
 * is the harness's main thread, workers w = 0..threads-1 are tids w + 2;
 * R_w = TRACE_VA_BASE + w * size):
 *   main:    PROC_CREATE, THREAD_CREATE x threads, SLEEP x threads, EXIT
 *   worker:  SWITCH cpu, loops x { MMAP R_w size rw,
 *              groups x { STORE each page of the group,
 *                         MADVISE group dontneed, LOAD each page },
 *              MUNMAP R_w size }, WAKE main, EXIT
 * Totals: 1 PROC_CREATE, threads x (THREAD_CREATE, SWITCH, SLEEP, WAKE),
 * threads + 1 EXIT, threads * loops x (MMAP, MUNMAP, npages STORE,
 * npages LOAD, groups MADVISE).
 */
#include <stdio.h>

#include "traces/generators.h"
#include "traces/workload.h"

enum { P_THREADS, P_SIZE, P_PAGES, P_LOOPS, P_CPUS, NR_P };

static const struct tlbsim_gen_param params[NR_P] = {
    [P_THREADS] = {"threads", "worker threads of the one process", 4, 1, 1024, "threads"},
    [P_SIZE] = {"size", "bytes each thread maps per round", 1ull << 20, 1, 1ull << 32, "bytes"},
    [P_PAGES] = {"pages", "pages written and dropped per madvise call", 1, 1, 1u << 20, "pages"},
    [P_LOOPS] = {"loops", "mmap..munmap rounds per thread", 10, 1, 1ull << 40, "rounds"},
    [P_CPUS] = {"cpus", "pin thread i to cpu i mod cpus (0: cpu i)", 0, 0, 4096, "cpus"},
};

struct mt {
	struct trace_sched s;
	unsigned threads, cpus;
	uint64_t size, npages, pages, loops;
};

enum { W_PIN, W_MMAP, W_STORE, W_MADV, W_LOAD, W_MUNMAP, W_WAKE, W_EXIT };

static void worker(void *g, struct trace_actor *a, struct tlbsim_event *ev)
{
	struct mt *m = g;
	unsigned w = (unsigned)(a - m->s.a) - 1;
	uint64_t r = TRACE_VA_BASE + w * m->size;
	/* a->j: the page being worked on; a group ends at a multiple of
	 * @pages or at the end of the mapping. */
	bool group_end = (a->j + 1) % m->pages == 0 || a->j + 1 == m->npages;
	uint64_t gstart = a->j / m->pages * m->pages;

	switch (a->phase) {
	case W_PIN:
		trace_ev_pin(ev, a, m->cpus ? w % m->cpus : w);
		a->phase = W_MMAP;
		break;
	case W_MMAP:
		trace_ev_mmap(ev, a, r, m->size, TRACE_RW, TRACE_ANON);
		a->j = 0;
		a->phase = W_STORE;
		break;
	case W_STORE:
		trace_ev_access(ev, a, TLBSIM_EV_STORE, r + a->j * TRACE_PAGE, 1);
		if (group_end)
			a->phase = W_MADV;
		else
			a->j++;
		break;
	case W_MADV:
		trace_ev_madvise(ev, a, r + gstart * TRACE_PAGE, (a->j + 1 - gstart) * TRACE_PAGE,
				 TLBSIM_MADV_DONTNEED);
		a->j = gstart;
		a->phase = W_LOAD;
		break;
	case W_LOAD:
		trace_ev_access(ev, a, TLBSIM_EV_LOAD, r + a->j * TRACE_PAGE, 1);
		if (!group_end) {
			a->j++;
		} else if (++a->j == m->npages) {
			a->phase = W_MUNMAP;
		} else {
			a->phase = W_STORE;
		}
		break;
	case W_MUNMAP:
		trace_ev_munmap(ev, a, r, m->size);
		a->phase = ++a->i == m->loops ? W_WAKE : W_MMAP;
		break;
	default: /* W_WAKE, W_EXIT */
		trace_harness_worker_end(&m->s, a, ev, W_EXIT);
		break;
	}
}

/* More pages a call than the mapping holds would be clamped to it without
 * a word: refused instead. */
static int check(const uint64_t *v, char *msg, size_t size)
{
	uint64_t npages = trace_align_up(v[P_SIZE], TRACE_PAGE) / TRACE_PAGE;

	if (v[P_PAGES] > npages) {
		snprintf(msg, size,
			 "pages (%llu a madvise call) must not exceed the 4 KiB pages of size "
			 "(%llu bytes: %llu)",
			 (unsigned long long)v[P_PAGES], (unsigned long long)v[P_SIZE],
			 (unsigned long long)npages);
		return -TLBSIM_EINVAL;
	}
	return 0;
}

static int init(void *state, const uint64_t *v, uint64_t seed, enum tlbsim_isa isa)
{
	struct mt *m = state;

	(void)seed;
	(void)isa;
	m->threads = (unsigned)v[P_THREADS];
	m->cpus = (unsigned)v[P_CPUS];
	m->size = trace_align_up(v[P_SIZE], TRACE_PAGE);
	m->npages = m->size / TRACE_PAGE;
	m->pages = v[P_PAGES];
	m->loops = v[P_LOOPS];
	return trace_harness_init(&m->s, m->threads, worker, m);
}

const struct tlbsim_generator trace_gen_madvise_threads = {
    .name = "madvise-threads",
    .summary = "threads writing a page and dropping it with madvise(MADV_DONTNEED)",
    .models = "will-it-scale tlb_flush2_threads",
    .params = params,
    .nr_params = NR_P,
    .state_size = sizeof(struct mt),
    .check = check,
    .init = init,
    .next = trace_gen_next,
    .fini = trace_gen_fini,
    .notes = "Only the benchmark's loop: will-it-scale's iteration counter and timing are "
	     "left out, and each thread maps its own region, so the threads share only the "
	     "mm. Under arm64-nr-active-mm, --check may report bbm: the main thread's cpu "
	     "loaded the mm and went idle in its join, a local-only flush skips it, and a "
	     "worker remaps a page table munmap freed; whether it happens depends on the "
	     "interleaving (1 with threads=32 on emag-32 under the polling mmap_lock, none "
	     "with the defaults or 8-64 threads since its wait list; "
	     "policies/arm64_nr_active_mm.c). Other policies: no report.",
};
