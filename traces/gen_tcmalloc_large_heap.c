/* SPDX-License-Identifier: MIT */
/*
 * tcmalloc-large-heap: gperftools' tcmalloc_large_heap_fragmentation_unittest
 * (src/tests/large_heap_fragmentation_unittest.cc), @procs copies at once,
 * unpinned (WORKLOADS.md 5b: `for-each-cpu.sh` on eMAG, 32 copies).  Each
 * copy is one single-threaded process:
 *
 *   free(malloc(@prealloc)); MallocExtension::ReleaseFreeMemory();
 *   @passes times: for (size = @min; size < @max; size += @step) {
 *           free(malloc(size)); GetNumericProperty("generic.heap_size");
 *           ASSERT_LT(heap_size, 1 GiB); }
 *
 * (@prealloc = 0: the test as it was from 2013 until 2024-03-20, gperftools
 * commit 159c9e5, which added the 550 MiB pre-grow and the release: the
 * 2020 eMAG run could only have run that form.)  The test never touches
 * its blocks.  What happens below it is tcmalloc's, modelled here from
 * gperftools 2.7 (2018-04-29, the release current when the experiment ran
 * in February 2020; 2.8 came in July 2020), read in its source:
 *
 * Page heap (src/page_heap.cc; tcmalloc pages of 8 KiB, kPageShift 13,
 * common.h).  Every request here is above kMaxSize (256 KiB), so malloc
 * goes to do_malloc_pages() -> PageHeap::New(pages) and free to
 * do_free_pages() -> PageHeap::Delete().  Free spans are "normal" (still
 * backed) or "returned" (madvised); spans of more than kMaxPages (128)
 * pages are in two sets ordered by (length, start), smaller ones in
 * per-length lists (newest first).  New(): best fit, AllocLarge(): the
 * shortest normal span that fits, or a returned one if strictly shorter
 * (or as long and lower); Carve() splits off the rest as a free span of
 * the same kind, not coalesced.  If nothing fits and free + returned
 * bytes are at least a quarter of the heap and the growth would cross a
 * 128 MiB multiple of the heap size (kForcedCoalesceInterval), New()
 * first releases every normal span (ReleaseAtLeastNPages(0x7fffffff)),
 * so that all coalesce, and searches again; else GrowHeap(max(n, 128))
 * takes new memory and Delete()s it into the heap.  Delete()
 * (MergeIntoFreeList()) coalesces with the neighbours of the same kind
 * only, then IncrementalScavenge(n): a counter of freed pages; when it
 * goes negative, ReleaseAtLeastNPages(1) releases one whole span (round
 * robin over the lists, release_index_ starting at the large set; in a
 * list the oldest, in the set the shortest) and the counter restarts at
 * 1000 / TCMALLOC_RELEASE_RATE (default 1) pages per page released, at
 * most kMaxReleaseDelay (2^20), or kDefaultReleaseDelay (2^18) when
 * nothing was released.  ReleaseFreeMemory() is
 * ReleaseAtLeastNPages(SIZE_MAX >> 13): every normal span.  Releasing a
 * span (ReleaseSpan() -> TCMalloc_SystemRelease(), src/system-alloc.cc)
 * is one madvise(MADV_DONTNEED) of it (MADV_FREE is used only when built
 * with TCMALLOC_USE_MADV_FREE), then it coalesces with returned
 * neighbours.  Taking a returned span back (CommitSpan()) makes no system
 * call on Linux.
 *
 * System memory (src/system-alloc.cc).  A release build (-DNDEBUG)
 * tries sbrk() before mmap(): every TCMalloc_SystemAlloc() here is an
 * sbrk, one brk() call (the break stays 8 KiB aligned, so no second
 * sbrk for alignment), and nothing is ever given back with munmap or a
 * lower break.  tcmalloc's own metadata comes from the same break
 * (src/common.cc MetaDataAlloc(): 8 MiB chunks), so the heap starts after
 * the first chunk.
 *
 * What tcmalloc writes (one STORE event per page for a memset, else one
 * per object written):
 *  - at start-up (Static::InitStaticVars(), ThreadCache::InitModule()),
 *    in libtcmalloc's .bss (an anonymous mapping here, each object on its
 *    own pages: the linker's layout is not published): the SizeMap (1
 *    page), the 86 size classes' central free lists (86 x 1216 bytes,
 *    26 pages, each written by CentralFreeList::Init()), and the
 *    PageHeap's constructor: the page-map cache (PackedCache, 2^16 words
 *    memset, 128 pages), the page map's root (PageMap2<35>: 2^17 pointers
 *    memset, 256 pages) and the free lists (128 x 2 list heads, 3 pages):
 *    414 pages; in the first metadata chunk, the first object of the
 *    Span, StackTrace, Bucket and ThreadCache allocators (each
 *    PageHeapAllocator's Init() carves and frees one: 4 stores) and the
 *    main thread's ThreadCache (1 store);
 *  - GrowHeap(): the StackTrace of RecordGrowth(); pagemap_.Ensure(): a
 *    2 MiB leaf (2^18 entries, one per 8 KiB page: 2 GiB of heap) memset
 *    for each new leaf (512 stores) and its root entry;
 *  - a Span object (48 bytes, from the Span allocator's free list, newest
 *    first, or carved) for each NewSpan(); its free-list link when it is
 *    deleted (DeleteSpan() after a merge);
 *  - a page-map entry (8 bytes in the leaf) for each pagemap_.set(): a
 *    span's first and last page by RecordSpan(), the boundaries Carve()
 *    and MergeIntoFreeList() move;
 *  - an rb-tree node (48 bytes, its own allocator) for each insertion
 *    into a large set, its link when an erase frees it; the first
 *    insertion also initialises that allocator (one more store);
 *  - the page-map cache entry of the block's first page on each malloc
 *    (InvalidateCachedSizeClass()).
 * Span fields rewritten in place, list links and the rb-tree's
 * rebalancing are in lines just written: they are in the COMPUTE events.
 * The C++ runtime's own small allocations at start-up (gtest, libstdc++'s
 * emergency pool) and the program's exec and loader are left out.
 *
 * CPU time (estimates: no published figure): @op cycles for each malloc,
 * free and ReleaseFreeMemory() in the page heap (a spin lock, a few
 * rb-tree steps over a handful of spans, the page-map stores), @stats
 * cycles for each GetNumericProperty("generic.heap_size"), which runs
 * ExtractStats(): for each of the 86 size classes three spin-lock round
 * trips (length(), tc_length(), OverheadBytes(), src/central_freelist.*):
 * 516 atomic read-modify-writes at ~17 cycles, plus the page heap's lock
 * and some arithmetic, ~9,700 cycles.
 *
 * Layout (every process the same addresses): the break starts at
 * TRACE_VA_BASE (2 GiB aligned: one page-map leaf covers the first 2 GiB
 * of heap), libtcmalloc's .bss is 2 MiB at TRACE_VA_BASE + 64 GiB.
 *
 * Parameters: procs, prealloc (bytes; 0: none and no ReleaseFreeMemory),
 * passes, min, max, step (bytes; min and a non-zero prealloc above 256 KiB,
 * min below max), rate (TCMALLOC_RELEASE_RATE; 0: never
 * scavenge), op, stats (cycles).
 *
 * Events of process k (pid = tid = k + 1), in order:
 *   PROC_CREATE, MMAP bss 2 MiB rw, BRK TRACE_VA_BASE (the initial break),
 *   STORE (the SizeMap), BRK +8 MiB (the first metadata chunk), STORE x 418
 *   (above);
 *   [COMPUTE op, New(prealloc pages), STORE cache entry,
 *    COMPUTE op, Delete, COMPUTE op, ReleaseAtLeastNPages(all)];
 *   per pair: COMPUTE op, New, STORE cache entry, COMPUTE op, Delete,
 *   COMPUTE stats; EXIT (also right after a pair that leaves the heap at
 *   1 GiB or more: the ASSERT_LT fails and the test returns).
 * New, Delete and the releases emit BRK, MADVISE and STORE as above;
 * tests/traces/test_generators.c works two small runs out by hand.
 */
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "tlbsim/error.h"
#include "traces/generators.h"
#include "traces/workload.h"

enum { P_PROCS, P_PREALLOC, P_PASSES, P_MIN, P_MAX, P_STEP, P_RATE, P_OP, P_STATS, NR_P };

static const struct tlbsim_gen_param params[NR_P] = {
    [P_PROCS] = {"procs", "copies of the test running at once", 32, 1, 4096, "processes"},
    [P_PREALLOC] = {"prealloc", "bytes malloced and freed first, then ReleaseFreeMemory (0: none)",
		    550ull << 20, 0, 1ull << 30, "bytes"},
    [P_PASSES] = {"passes", "passes over the sizes", 3, 1, 1u << 20, "passes"},
    [P_MIN] = {"min", "first size of a pass", 100ull << 20, 1, 1ull << 30, "bytes"},
    [P_MAX] = {"max", "sizes stay below this", 500ull << 20, 2, 1ull << 30, "bytes"},
    [P_STEP] = {"step", "size increment", 20000, 1, 1ull << 30, "bytes"},
    [P_RATE] = {"rate", "TCMALLOC_RELEASE_RATE (0: never scavenge)", 1, 0, 1000, "rate"},
    [P_OP] = {"op", "cycles of one malloc, free or release in the page heap", 500, 0,
	      1ull << 32, "cycles"},
    [P_STATS] = {"stats", "cycles of one GetNumericProperty(\"generic.heap_size\")", 9700, 0,
		 1ull << 32, "cycles"},
};

/* gperftools 2.7 constants (src/common.h, page_heap.h, common.cc, pagemap.h). */
#define TC_SHIFT 13 /* kPageShift */
#define TC_PAGE (1ull << TC_SHIFT)
#define MAX_PAGES 128u		       /* kMaxPages: longer spans are "large" */
#define MIN_SYSTEM_ALLOC 128u	       /* kMinSystemAlloc, pages */
#define MAX_RELEASE_DELAY (1ll << 20)  /* kMaxReleaseDelay, pages */
#define DEF_RELEASE_DELAY (1ll << 18)  /* kDefaultReleaseDelay, pages */
#define COALESCE_INTERVAL (128ull << 20) /* kForcedCoalesceInterval, bytes */
#define META_CHUNK (8ull << 20)	       /* kMetadataAllocChunkSize */
#define ALLOC_INCREMENT (128ull << 10) /* PageHeapAllocator's kAllocIncrement */
#define LEAF_BITS 18		       /* PageMap2<35>: (35 + 1) / 2 */
#define LEAF_BYTES ((1ull << LEAF_BITS) * 8)
#define SPAN_BYTES 48  /* sizeof(Span) */
#define NODE_BYTES 48  /* an rb-tree node of SpanPtrWithLength */
#define STACK_BYTES 264 /* sizeof(StackTrace): size, depth, 31 frames */
#define HEAP_LIMIT (1ull << 30) /* the test's ASSERT_LT(heap_size, 1 << 30) */
#define MAX_SIZE (256ull << 10) /* kMaxSize: larger requests go to the page heap */

/* Layout. */
#define HEAP_VA TRACE_VA_BASE
#define BSS_VA (TRACE_VA_BASE + (64ull << 30))
#define BSS_LEN (2ull << 20)
#define BSS_SIZEMAP 0ull		    /* 1 page */
#define BSS_CENTRAL (4ull << 10)	    /* 86 x 1216 bytes: 26 pages */
#define BSS_CENTRAL_PAGES 26u
#define BSS_PACKED (128ull << 10)	    /* 2^16 x 8 bytes: 128 pages */
#define BSS_ROOT (BSS_PACKED + (512ull << 10)) /* 2^17 x 8 bytes: 256 pages */
#define BSS_FREE (BSS_ROOT + (1ull << 20))  /* 128 x 96 bytes: 3 pages */
#define BSS_FREE_PAGES 3u
#define MAX_LEAVES 8u /* 16 GiB of heap: the break never gets near */

enum { LOC_NORMAL = 1, LOC_RETURNED = 2 };

/* A free span (tcmalloc pages). */
struct span {
	uint64_t start, len;
	uint64_t obj;  /* its Span object */
	uint64_t node; /* its rb-tree node, if large */
	uint64_t seq;  /* when it was prepended: a list's head is the newest */
	unsigned loc;
};

/* A PageHeapAllocator: objects carved from 128 KiB areas, freed LIFO. */
struct palloc {
	uint64_t area, avail, size;
	uint64_t *fl;
	unsigned nfl, cap;
};

struct proc {
	struct span *fs; /* the free spans, in no order */
	unsigned nfs, capfs;
	uint64_t brk, chunk, chunk_avail;
	struct palloc span_a, stack_a, bucket_a, tc_a, node_a;
	bool node_init;
	uint64_t leaf_i1[MAX_LEAVES], leaf_va[MAX_LEAVES];
	unsigned nleaf;
	uint64_t free_pages, returned_pages, system_pages;
	int64_t counter; /* scavenge_counter_ */
	unsigned release_index;
	uint64_t seq;
	struct span use; /* the block in use */
	/* Events of the operation under way, emitted one a step. */
	struct tlbsim_event *q;
	size_t qn, qh, qcap;
	bool oom; /* a host allocation failed: the copy ends (tcmalloc's
		   * metadata exhaustion is fatal too) */
	unsigned phase;
	uint64_t pass, size;
};

struct lhf {
	struct trace_sched s;
	struct proc *p;
	unsigned procs;
	uint64_t prealloc, passes, min, max, step, rate, op, stats;
};

/* ---- the queue ------------------------------------------------------------ */

static struct tlbsim_event *push(struct proc *p)
{
	struct tlbsim_event *ev;

	if (p->oom)
		return NULL;
	if (p->qn == p->qcap) {
		size_t cap = p->qcap ? 2 * p->qcap : 1024;
		struct tlbsim_event *q = realloc(p->q, cap * sizeof(*q));

		if (!q) {
			p->oom = true;
			return NULL;
		}
		p->q = q;
		p->qcap = cap;
	}
	ev = &p->q[p->qn++];
	memset(ev, 0, sizeof(*ev));
	return ev;
}

static void store(struct proc *p, const struct trace_actor *a, uint64_t va, uint32_t size)
{
	struct tlbsim_event *ev = push(p);

	if (ev)
		trace_ev_access(ev, a, TLBSIM_EV_STORE, va, size);
}

static void compute(struct proc *p, const struct trace_actor *a, uint64_t cycles)
{
	struct tlbsim_event *ev;

	if (cycles && (ev = push(p)))
		trace_ev_compute(ev, a, cycles);
}

/* One STORE per 4 KiB page of [va, va + len): a memset. */
static void memset_pages(struct proc *p, const struct trace_actor *a, uint64_t va, uint64_t len)
{
	uint64_t off;

	for (off = 0; off < len; off += TRACE_PAGE)
		store(p, a, va + off, 8);
}

/* ---- system memory: sbrk, MetaDataAlloc, PageHeapAllocator --------------- */

/* TCMalloc_SystemAlloc() by sbrk(): one brk() call. */
static uint64_t sys_alloc(struct proc *p, const struct trace_actor *a, uint64_t bytes)
{
	uint64_t va = p->brk;
	struct tlbsim_event *ev;

	p->brk += bytes;
	if ((ev = push(p)))
		trace_ev_brk(ev, a, p->brk);
	return va;
}

/* MetaDataAlloc(): from the current 8 MiB chunk, a new one when short
 * (every size asked here is a multiple of its 16-byte alignment). */
static uint64_t meta_alloc(struct proc *p, const struct trace_actor *a, uint64_t bytes)
{
	uint64_t va;

	if (bytes >= META_CHUNK)
		return sys_alloc(p, a, bytes);
	if (p->chunk_avail < bytes) {
		p->chunk = sys_alloc(p, a, META_CHUNK);
		p->chunk_avail = META_CHUNK;
	}
	va = p->chunk;
	p->chunk += bytes;
	p->chunk_avail -= bytes;
	return va;
}

static uint64_t pa_new(struct proc *p, const struct trace_actor *a, struct palloc *pa)
{
	uint64_t va;

	if (pa->nfl)
		return pa->fl[--pa->nfl];
	if (pa->avail < pa->size) {
		pa->area = meta_alloc(p, a, ALLOC_INCREMENT);
		pa->avail = ALLOC_INCREMENT;
	}
	va = pa->area;
	pa->area += pa->size;
	pa->avail -= pa->size;
	return va;
}

/* Delete(): the object's first word becomes the free-list link. */
static void pa_delete(struct proc *p, const struct trace_actor *a, struct palloc *pa, uint64_t va)
{
	if (pa->nfl == pa->cap) {
		unsigned cap = pa->cap ? 2 * pa->cap : 64;
		uint64_t *fl = realloc(pa->fl, cap * sizeof(*fl));

		if (!fl) {
			p->oom = true;
			return;
		}
		pa->fl = fl;
		pa->cap = cap;
	}
	pa->fl[pa->nfl++] = va;
	store(p, a, va, 8);
}

/* Init(): Delete(New()), reserving the area's first object. */
static void pa_init(struct proc *p, const struct trace_actor *a, struct palloc *pa, uint64_t size)
{
	pa->size = size;
	pa_delete(p, a, pa, pa_new(p, a, pa));
}

/* ---- the page map ---------------------------------------------------------- */

static uint64_t leaf_of(const struct proc *p, uint64_t page)
{
	unsigned i;

	for (i = 0; i < p->nleaf; i++)
		if (p->leaf_i1[i] == page >> LEAF_BITS)
			return p->leaf_va[i];
	BUG_ON(1, "a page the heap uses has its page-map leaf");
	return 0;
}

/* pagemap_.set(page, span): the leaf's entry. */
static void pm_set(struct proc *p, const struct trace_actor *a, uint64_t page)
{
	store(p, a, leaf_of(p, page) + (page & ((1ull << LEAF_BITS) - 1)) * 8, 8);
}

/* pagemap_.Ensure(start, n): a zeroed leaf for each 2 GiB not covered. */
static void pm_ensure(struct proc *p, const struct trace_actor *a, uint64_t start, uint64_t n)
{
	uint64_t key;

	for (key = start; key <= start + n - 1; key = ((key >> LEAF_BITS) + 1) << LEAF_BITS) {
		uint64_t i1 = key >> LEAF_BITS, va;
		unsigned i;

		for (i = 0; i < p->nleaf && p->leaf_i1[i] != i1; i++)
			;
		if (i < p->nleaf)
			continue;
		BUG_ON(p->nleaf == MAX_LEAVES, "the heap stays below 16 GiB");
		va = meta_alloc(p, a, LEAF_BYTES);
		memset_pages(p, a, va, LEAF_BYTES);
		store(p, a, BSS_VA + BSS_ROOT + i1 * 8, 8);
		p->leaf_i1[p->nleaf] = i1;
		p->leaf_va[p->nleaf++] = va;
	}
}

/* RecordSpan(): both ends in the page map. */
static void record_span(struct proc *p, const struct trace_actor *a, uint64_t start, uint64_t len)
{
	pm_set(p, a, start);
	if (len > 1)
		pm_set(p, a, start + len - 1);
}

/* NewSpan(): a Span object, memset and filled. */
static uint64_t new_span(struct proc *p, const struct trace_actor *a)
{
	uint64_t obj = pa_new(p, a, &p->span_a);

	store(p, a, obj, SPAN_BYTES);
	return obj;
}

/* ---- the free lists ---------------------------------------------------------- */

static void prepend(struct proc *p, const struct trace_actor *a, struct span s)
{
	if (s.loc == LOC_NORMAL)
		p->free_pages += s.len;
	else
		p->returned_pages += s.len;
	if (s.len > MAX_PAGES) {
		if (!p->node_init) {
			pa_init(p, a, &p->node_a, NODE_BYTES);
			p->node_init = true;
		}
		s.node = pa_new(p, a, &p->node_a);
		store(p, a, s.node, NODE_BYTES);
	}
	if (p->nfs == p->capfs) {
		unsigned cap = p->capfs ? 2 * p->capfs : 16;
		struct span *fs = realloc(p->fs, cap * sizeof(*fs));

		if (!fs) {
			p->oom = true;
			return;
		}
		p->fs = fs;
		p->capfs = cap;
	}
	s.seq = ++p->seq;
	p->fs[p->nfs++] = s;
}

/* RemoveFromFreeList() of p->fs[i]; returns the span. */
static struct span take(struct proc *p, const struct trace_actor *a, unsigned i)
{
	struct span s = p->fs[i];

	if (s.loc == LOC_NORMAL)
		p->free_pages -= s.len;
	else
		p->returned_pages -= s.len;
	if (s.len > MAX_PAGES)
		pa_delete(p, a, &p->node_a, s.node);
	p->fs[i] = p->fs[--p->nfs];
	return s;
}

/* The free span of kind @loc that ends at @end / starts at @start (the
 * page map's boundary entries name it), or -1. */
static int ending_at(const struct proc *p, uint64_t end, unsigned loc)
{
	unsigned i;

	for (i = 0; i < p->nfs; i++)
		if (p->fs[i].start + p->fs[i].len == end && p->fs[i].loc == loc)
			return (int)i;
	return -1;
}

static int starting_at(const struct proc *p, uint64_t start, unsigned loc)
{
	unsigned i;

	for (i = 0; i < p->nfs; i++)
		if (p->fs[i].start == start && p->fs[i].loc == loc)
			return (int)i;
	return -1;
}

/* A list of spans of exactly @len pages (@len <= MAX_PAGES): its head
 * (newest, @newest) or its tail (oldest); -1 if empty. */
static int list_end(const struct proc *p, uint64_t len, unsigned loc, bool newest)
{
	int best = -1;
	unsigned i;

	for (i = 0; i < p->nfs; i++)
		if (p->fs[i].len == len && p->fs[i].loc == loc &&
		    (best < 0 || (newest ? p->fs[i].seq > p->fs[best].seq
					 : p->fs[i].seq < p->fs[best].seq)))
			best = (int)i;
	return best;
}

/* The large set of kind @loc: the first span of at least @n pages in
 * (length, start) order (upper_bound of {0, n}); -1 if none. */
static int set_first(const struct proc *p, uint64_t n, unsigned loc)
{
	int best = -1;
	unsigned i;

	for (i = 0; i < p->nfs; i++) {
		const struct span *s = &p->fs[i];

		if (s->loc != loc || s->len <= MAX_PAGES || s->len < n)
			continue;
		if (best < 0 || s->len < p->fs[best].len ||
		    (s->len == p->fs[best].len && s->start < p->fs[best].start))
			best = (int)i;
	}
	return best;
}

/* MergeIntoFreeList(): coalesce @s with free neighbours of its kind. */
static void merge(struct proc *p, const struct trace_actor *a, struct span s)
{
	uint64_t start = s.start, len = s.len;
	int i = ending_at(p, start, s.loc);

	if (i >= 0) {
		struct span prev = take(p, a, (unsigned)i);

		pa_delete(p, a, &p->span_a, prev.obj);
		s.start -= prev.len;
		s.len += prev.len;
		pm_set(p, a, s.start);
	}
	i = starting_at(p, start + len, s.loc);
	if (i >= 0) {
		struct span next = take(p, a, (unsigned)i);

		pa_delete(p, a, &p->span_a, next.obj);
		s.len += next.len;
		pm_set(p, a, s.start + s.len - 1);
	}
	prepend(p, a, s);
}

/* ReleaseSpan(): madvise it away, then coalesce as returned. */
static uint64_t release_span(struct proc *p, const struct trace_actor *a, unsigned i)
{
	struct tlbsim_event *ev = push(p);
	struct span s;

	if (ev)
		trace_ev_madvise(ev, a, p->fs[i].start << TC_SHIFT, p->fs[i].len << TC_SHIFT,
				 TLBSIM_MADV_DONTNEED);
	s = take(p, a, i);
	s.loc = LOC_RETURNED;
	merge(p, a, s);
	return s.len;
}

/* ReleaseAtLeastNPages(). */
static uint64_t release(struct proc *p, const struct trace_actor *a, uint64_t num)
{
	uint64_t released = 0;

	while (released < num && p->free_pages > 0 && !p->oom) {
		unsigned k;

		for (k = 0; k < MAX_PAGES + 1 && released < num; k++, p->release_index++) {
			int i;

			if (p->release_index > MAX_PAGES)
				p->release_index = 0;
			if (p->release_index == MAX_PAGES)
				i = set_first(p, 0, LOC_NORMAL);
			else
				i = list_end(p, p->release_index + 1, LOC_NORMAL, false);
			if (i >= 0)
				released += release_span(p, a, (unsigned)i);
		}
	}
	return released;
}

/* IncrementalScavenge(). */
static void scavenge(struct lhf *g, struct proc *p, const struct trace_actor *a, uint64_t n)
{
	uint64_t released;
	double wait;

	p->counter -= (int64_t)n;
	if (p->counter >= 0)
		return;
	if (!g->rate) {
		p->counter = DEF_RELEASE_DELAY;
		return;
	}
	released = release(p, a, 1);
	if (!released) {
		p->counter = DEF_RELEASE_DELAY;
		return;
	}
	wait = 1000.0 / (double)g->rate * (double)released;
	p->counter = wait > (double)MAX_RELEASE_DELAY ? MAX_RELEASE_DELAY : (int64_t)wait;
}

/* Delete(): a span back into the heap. */
static void heap_delete(struct lhf *g, struct proc *p, const struct trace_actor *a, struct span s)
{
	uint64_t n = s.len;

	s.loc = LOC_NORMAL;
	merge(p, a, s);
	scavenge(g, p, a, n);
}

/* Carve() @n pages from free span @i: the block in use. */
static void carve(struct proc *p, const struct trace_actor *a, unsigned i, uint64_t n)
{
	struct span s = take(p, a, i);
	uint64_t extra = s.len - n;

	if (extra) {
		struct span left = {.start = s.start + n, .len = extra, .loc = s.loc};

		left.obj = new_span(p, a);
		record_span(p, a, left.start, left.len);
		prepend(p, a, left);
		pm_set(p, a, s.start + n - 1);
	}
	p->use = s;
	p->use.len = n;
	p->use.loc = 0;
}

/* SearchFreeAndLargeLists(): true if @n pages were carved. */
static bool search(struct proc *p, const struct trace_actor *a, uint64_t n)
{
	uint64_t len;
	int i, r;

	for (len = n; len <= MAX_PAGES; len++) {
		if ((i = list_end(p, len, LOC_NORMAL, true)) >= 0 ||
		    (i = list_end(p, len, LOC_RETURNED, true)) >= 0) {
			carve(p, a, (unsigned)i, n);
			return true;
		}
	}
	/* AllocLarge(). */
	i = set_first(p, n, LOC_NORMAL);
	r = set_first(p, n, LOC_RETURNED);
	if (r >= 0 && (i < 0 || p->fs[r].len < p->fs[i].len ||
		       (p->fs[r].len == p->fs[i].len && p->fs[r].start < p->fs[i].start)))
		i = r;
	if (i < 0)
		return false;
	carve(p, a, (unsigned)i, n);
	return true;
}

/* GrowHeap(). */
static void grow(struct lhf *g, struct proc *p, const struct trace_actor *a, uint64_t n)
{
	uint64_t ask = n > MIN_SYSTEM_ALLOC ? n : MIN_SYSTEM_ALLOC, start;
	struct span s = {0};

	BUG_ON(p->brk & (TC_PAGE - 1), "the break stays 8 KiB aligned");
	start = sys_alloc(p, a, ask << TC_SHIFT) >> TC_SHIFT;
	p->system_pages += ask;
	/* RecordGrowth(): a StackTrace of the growth. */
	store(p, a, pa_new(p, a, &p->stack_a), STACK_BYTES);
	pm_ensure(p, a, start - 1, ask + 2);
	s.start = start;
	s.len = ask;
	s.obj = new_span(p, a);
	record_span(p, a, start, ask);
	heap_delete(g, p, a, s);
}

/* PageHeap::New(). */
static void heap_new(struct lhf *g, struct proc *p, const struct trace_actor *a, uint64_t n)
{
	uint64_t sys = p->system_pages << TC_SHIFT;

	if (search(p, a, n))
		return;
	if (p->free_pages && p->returned_pages &&
	    (p->free_pages + p->returned_pages) << TC_SHIFT >= sys / 4 &&
	    sys / COALESCE_INTERVAL != (sys + (n << TC_SHIFT)) / COALESCE_INTERVAL) {
		release(p, a, 0x7fffffff);
		if (search(p, a, n))
			return;
	}
	grow(g, p, a, n);
	BUG_ON(!search(p, a, n) && !p->oom, "a grown heap holds the request");
}

/* ---- the test ---------------------------------------------------------------- */

static uint64_t tc_pages(uint64_t bytes)
{
	return (bytes + TC_PAGE - 1) >> TC_SHIFT;
}

/* tc_malloc(bytes) then free(). */
static void malloc_free(struct lhf *g, struct proc *p, const struct trace_actor *a, uint64_t bytes)
{
	compute(p, a, g->op);
	heap_new(g, p, a, tc_pages(bytes));
	store(p, a, BSS_VA + BSS_PACKED + (p->use.start & 0xffff) * 8, 8);
	compute(p, a, g->op);
	heap_delete(g, p, a, p->use);
}

/* Static::InitStaticVars() and ThreadCache::InitModule(), at the first
 * malloc of the program. */
static void tcmalloc_init(struct proc *p, const struct trace_actor *a)
{
	unsigned i;

	store(p, a, BSS_VA + BSS_SIZEMAP, 8);
	pa_init(p, a, &p->span_a, SPAN_BYTES);
	(void)pa_new(p, a, &p->span_a); /* two Spans taken "to reduce cache conflicts" */
	(void)pa_new(p, a, &p->span_a);
	pa_init(p, a, &p->stack_a, STACK_BYTES);
	pa_init(p, a, &p->bucket_a, 64);
	for (i = 0; i < BSS_CENTRAL_PAGES; i++)
		store(p, a, BSS_VA + BSS_CENTRAL + i * TRACE_PAGE, 8);
	memset_pages(p, a, BSS_VA + BSS_PACKED, 512ull << 10);
	memset_pages(p, a, BSS_VA + BSS_ROOT, 1ull << 20);
	for (i = 0; i < BSS_FREE_PAGES; i++)
		store(p, a, BSS_VA + BSS_FREE + i * TRACE_PAGE, 8);
	pa_init(p, a, &p->tc_a, 4096);
	store(p, a, pa_new(p, a, &p->tc_a), 8); /* the main thread's ThreadCache */
}

enum { S_CREATE, S_INIT, S_PRE, S_PAIRS, S_EXIT, S_DONE };

/* Queue the events of @a's next operation; false when the test is over. */
static bool advance(struct lhf *g, struct proc *p, const struct trace_actor *a)
{
	struct tlbsim_event *ev;

	p->qn = p->qh = 0;
	switch (p->phase) {
	case S_INIT:
		if ((ev = push(p)))
			trace_ev_mmap(ev, a, BSS_VA, BSS_LEN, TRACE_RW, TRACE_ANON);
		if ((ev = push(p)))
			trace_ev_brk(ev, a, HEAP_VA);
		p->brk = HEAP_VA;
		tcmalloc_init(p, a);
		p->phase = g->prealloc ? S_PRE : S_PAIRS;
		p->size = g->min;
		break;
	case S_PRE:
		malloc_free(g, p, a, g->prealloc);
		compute(p, a, g->op);
		/* ReleaseToSystem(SIZE_MAX): ReleaseAtLeastNPages(SIZE_MAX >> 13). */
		release(p, a, UINT64_MAX >> TC_SHIFT);
		p->phase = S_PAIRS;
		break;
	case S_PAIRS:
		malloc_free(g, p, a, p->size);
		p->size += g->step;
		compute(p, a, g->stats);
		if (p->size >= g->max) {
			p->size = g->min;
			if (++p->pass == g->passes)
				p->phase = S_EXIT;
		}
		if (p->system_pages << TC_SHIFT >= HEAP_LIMIT)
			p->phase = S_EXIT; /* ASSERT_LT failed: the test returns */
		break;
	default:
		return false;
	}
	if (p->oom) {
		p->qn = p->qh = 0;
		return false;
	}
	return true;
}

static void step(void *gp, struct trace_actor *a, struct tlbsim_event *ev)
{
	struct lhf *g = gp;
	struct proc *p = &g->p[a - g->s.a];

	if (p->phase == S_CREATE) {
		trace_ev_proc_create(ev, a);
		p->phase = S_INIT;
		return;
	}
	while (p->qh == p->qn) {
		if (p->phase == S_DONE || !advance(g, p, a)) {
			p->phase = S_DONE;
			trace_ev_exit(&g->s, ev, a);
			return;
		}
	}
	*ev = p->q[p->qh++];
}

static int check(const uint64_t *v, char *msg, size_t size)
{
	/* Up to kMaxSize tcmalloc serves from size classes and thread caches,
	 * which are not modelled. */
	unsigned bad = v[P_MIN] <= MAX_SIZE ? P_MIN
		       : v[P_PREALLOC] && v[P_PREALLOC] <= MAX_SIZE ? P_PREALLOC
								: NR_P;

	if (bad != NR_P) {
		snprintf(msg, size,
			 "%s=%llu must exceed 256 KiB (262144)%s: smaller requests go to "
			 "tcmalloc's size classes, not to the page heap modelled here",
			 bad == P_MIN ? "min" : "prealloc", (unsigned long long)v[bad],
			 bad == P_PREALLOC ? " (or be 0)" : "");
		return -TLBSIM_EINVAL;
	}
	if (v[P_MIN] >= v[P_MAX]) {
		snprintf(msg, size, "min (%llu) must be below max (%llu)",
			 (unsigned long long)v[P_MIN], (unsigned long long)v[P_MAX]);
		return -TLBSIM_EINVAL;
	}
	return 0;
}

static int init(void *state, const uint64_t *v, uint64_t seed, enum tlbsim_isa isa)
{
	struct lhf *g = state;
	unsigned k;
	int rc;

	(void)seed;
	(void)isa;
	g->procs = (unsigned)v[P_PROCS];
	g->prealloc = v[P_PREALLOC];
	g->passes = v[P_PASSES];
	g->min = v[P_MIN];
	g->max = v[P_MAX];
	g->step = v[P_STEP];
	g->rate = v[P_RATE];
	g->op = v[P_OP];
	g->stats = v[P_STATS];
	g->p = calloc(g->procs, sizeof(*g->p));
	if (!g->p)
		return -TLBSIM_ENOMEM;
	rc = trace_sched_init(&g->s, g->procs, step, g);
	if (rc)
		return rc;
	for (k = 0; k < g->procs; k++) {
		g->s.a[k].tid = k + 1;
		g->s.a[k].pid = k + 1;
		/* Every copy starts at once, from no thread. */
		g->s.a[k].state = TRACE_READY;
		g->p[k].release_index = MAX_PAGES; /* PageHeap(): start at the large set */
	}
	return 0;
}

static void fini(void *state)
{
	struct lhf *g = state;
	unsigned k;

	for (k = 0; g->p && k < g->procs; k++) {
		struct proc *p = &g->p[k];

		free(p->fs);
		free(p->q);
		free(p->span_a.fl);
		free(p->stack_a.fl);
		free(p->bucket_a.fl);
		free(p->tc_a.fl);
		free(p->node_a.fl);
	}
	free(g->p);
	trace_gen_fini(state);
}

const struct tlbsim_generator trace_gen_tcmalloc_large_heap = {
    .name = "tcmalloc-large-heap",
    .summary = "copies of tcmalloc's large-heap fragmentation test: large malloc/free, madvise",
    .models = "gperftools tcmalloc_large_heap_fragmentation_unittest on tcmalloc 2.7 (WORKLOADS.md 5b)",
    .params = params,
    .nr_params = NR_P,
    .state_size = sizeof(struct lhf),
    .init = init,
    .next = trace_gen_next,
    .fini = fini,
    .check = check,
};
