/* SPDX-License-Identifier: MIT */
/*
 * Simulated physical memory: a frame allocator with per-frame allocation
 * generations, and the contents of the frames that hold page tables.
 *
 * Frames are handed out in increasing order until the first free; after
 * that the most recently freed frame is reused first, as Linux's per-cpu
 * hot page lists do (mm/page_alloc.c, free_unref_page -> pcp list head).
 * That makes the hazards the oracle looks for (a walk through a table page
 * that was freed and reused) happen as soon as they can.
 *
 * Only table frames have contents: data frames are never read by the
 * simulator.  Per-frame metadata grows with the highest frame ever handed
 * out, not with max_frames, so a machine with 2^40 frames of "RAM" costs
 * nothing until it is used.  Table contents live in a pool of page structs
 * that are recycled when their frame is freed.
 */
#include <stdlib.h>
#include <string.h>

#include "hw/observe.h"
#include "hw/physmem.h"
#include "tlbsim/error.h"

/* Largest max_frames accepted: 2^40 frames of 4 KiB = 4 PiB, the x86 MAXPHYADDR of 52 bits. */
#define PHYSMEM_MAX_FRAMES (1ull << 40)
/* Pages the table-page pool can hold. */
#define MAX_PAGES UINT32_MAX

/**
 * struct frame_meta - what the allocator knows about one frame
 * @table: its page of the table-page pool while the frame is a table, NULL
 *         otherwise: what hw_physmem_table() answers, one load (a walk
 *         asks at each level)
 * @generation: number of allocations so far (0: never allocated); wraps
 *              after 2^32 allocations of the same frame
 * @kind: enum tlbsim_frame_kind
 */
struct frame_meta {
	struct hw_table_page *table;
	uint32_t generation;
	uint8_t kind;
};

/**
 * struct tlbsim_physmem - frames, their metadata and table contents
 * @max_frames: capacity; frames are numbered 1..@max_frames (pfn 0 means
 *              "none" and is never handed out)
 * @meta: metadata of frames 1..@nr_meta; @meta[0] is unused
 * @nr_meta: highest frame ever handed out
 * @cap_meta: entries allocated in @meta
 * @free: stack of freed frames, top = most recently freed
 * @nr_free, @cap_free: depth and capacity of @free
 * @pages: table-page pool; each page is allocated once and kept, so
 *         pointers handed out by hw_physmem_table() stay put while the
 *         pool array grows
 * @nr_pages, @cap_pages: pool pages in use or recyclable, and capacity
 * @free_pages: stack of recyclable pool pages
 * @nr_free_pages: depth of @free_pages (its capacity is @cap_pages)
 * @nr_used: frames in use per kind
 * @nr_peak: the most frames ever in use at once, per kind; [TLBSIM_FRAME_FREE]:
 *           of both kinds together
 * @writes: global descriptor write counter, the version of the last write
 * @obs: the observer told of allocations, frees and writes (hw/observe.h);
 *       @obs.ops NULL: none
 */
struct tlbsim_physmem {
	uint64_t max_frames;
	struct frame_meta *meta;
	uint64_t nr_meta;
	uint64_t cap_meta;
	uint64_t *free;
	uint64_t nr_free;
	uint64_t cap_free;
	struct hw_table_page **pages;
	uint32_t nr_pages;
	uint32_t cap_pages;
	struct hw_table_page **free_pages;
	uint32_t nr_free_pages;
	uint64_t nr_used[3];
	uint64_t nr_peak[3];
	uint64_t writes;
	struct hw_observer obs;
};

/*
 * The array @p of *@cap elements of @size bytes, grown (by doubling) to hold
 * at least @need; NULL when out of memory, and then @p is untouched.
 */
static void *grow(void *p, uint64_t *cap, uint64_t need, size_t size)
{
	uint64_t ncap = *cap ? *cap : 16;
	void *np;

	if (need <= *cap)
		return p;
	while (ncap < need)
		ncap *= 2;
	if (ncap > SIZE_MAX / size)
		return NULL;
	np = realloc(p, (size_t)(ncap * size));
	if (np)
		*cap = ncap;
	return np;
}

tlbsim_physmem *tlbsim_physmem_create(uint64_t max_frames)
{
	tlbsim_physmem *pm;

	if (max_frames == 0 || max_frames > PHYSMEM_MAX_FRAMES)
		return NULL;
	pm = calloc(1, sizeof(*pm));
	if (!pm)
		return NULL;
	pm->max_frames = max_frames;
	return pm;
}

void tlbsim_physmem_destroy(tlbsim_physmem *pm)
{
	if (!pm)
		return;
	for (uint32_t i = 0; i < pm->nr_pages; i++)
		free(pm->pages[i]);
	free(pm->pages);
	free(pm->free_pages);
	free(pm->free);
	free(pm->meta);
	free(pm);
}

/* A zeroed table page: a recycled pool page, or a new one. */
static int take_page(tlbsim_physmem *pm, struct hw_table_page **out)
{
	struct hw_table_page *page;

	if (pm->nr_free_pages) {
		*out = pm->free_pages[--pm->nr_free_pages];
		memset(*out, 0, sizeof(**out));
		return 0;
	}
	if (pm->nr_pages == MAX_PAGES)
		return -TLBSIM_ENOMEM;
	if (pm->nr_pages == pm->cap_pages) {
		uint64_t cap = pm->cap_pages;
		struct hw_table_page **pages, **free_pages;

		pages = grow(pm->pages, &cap, (uint64_t)pm->nr_pages + 1, sizeof(*pages));
		if (!pages)
			return -TLBSIM_ENOMEM;
		pm->pages = pages;
		cap = cap > MAX_PAGES ? MAX_PAGES : cap;
		/* @free_pages can never hold more than every page. */
		free_pages = realloc(pm->free_pages, (size_t)cap * sizeof(*free_pages));
		if (!free_pages)
			return -TLBSIM_ENOMEM;
		pm->free_pages = free_pages;
		pm->cap_pages = (uint32_t)cap;
	}
	page = calloc(1, sizeof(*page));
	if (!page)
		return -TLBSIM_ENOMEM;
	pm->pages[pm->nr_pages++] = page;
	*out = page;
	return 0;
}

/* The frame to hand out next: most recently freed, else a never-used one. */
static int take_frame(tlbsim_physmem *pm, uint64_t *pfn)
{
	struct frame_meta *meta;
	uint64_t *stack;

	if (pm->nr_free) {
		*pfn = pm->free[--pm->nr_free];
		return 0;
	}
	if (pm->nr_meta >= pm->max_frames)
		return -TLBSIM_ENOMEM;
	/* +2: @meta[0] is unused and the new frame is nr_meta + 1. */
	meta = grow(pm->meta, &pm->cap_meta, pm->nr_meta + 2, sizeof(*meta));
	if (!meta)
		return -TLBSIM_ENOMEM;
	pm->meta = meta;
	/* Room on the free stack for every frame, so that free never fails. */
	stack = grow(pm->free, &pm->cap_free, pm->nr_meta + 1, sizeof(*stack));
	if (!stack)
		return -TLBSIM_ENOMEM;
	pm->free = stack;
	*pfn = ++pm->nr_meta;
	pm->meta[*pfn] = (struct frame_meta){.table = NULL, .kind = TLBSIM_FRAME_FREE};
	return 0;
}

/* Frames of @kind were allocated: the peaks. */
static inline void note_peak(tlbsim_physmem *pm, enum tlbsim_frame_kind kind)
{
	uint64_t all = pm->nr_used[TLBSIM_FRAME_DATA] + pm->nr_used[TLBSIM_FRAME_TABLE];

	if (pm->nr_used[kind] > pm->nr_peak[kind])
		pm->nr_peak[kind] = pm->nr_used[kind];
	if (all > pm->nr_peak[TLBSIM_FRAME_FREE])
		pm->nr_peak[TLBSIM_FRAME_FREE] = all;
}

int tlbsim_physmem_alloc(tlbsim_physmem *pm, enum tlbsim_frame_kind kind, uint64_t *pfn)
{
	struct hw_table_page *page = NULL;
	uint64_t frame;
	int err;

	if (!pm || !pfn || (kind != TLBSIM_FRAME_DATA && kind != TLBSIM_FRAME_TABLE))
		return -TLBSIM_EINVAL;
	/* The pool page first: failing after take_frame() would lose a frame. */
	if (kind == TLBSIM_FRAME_TABLE) {
		err = take_page(pm, &page);
		if (err)
			return err;
	}
	err = take_frame(pm, &frame);
	if (err) {
		if (page)
			pm->free_pages[pm->nr_free_pages++] = page;
		return err;
	}
	pm->meta[frame].generation++;
	pm->meta[frame].kind = (uint8_t)kind;
	pm->meta[frame].table = page;
	pm->nr_used[kind]++;
	note_peak(pm, kind);
	if (page)
		page->pfn = frame; /* take_page() zeroed the rest */
	*pfn = frame;
	HW_OBSERVE(hw_physmem_observer(pm), frame_alloc, frame, kind);
	return 0;
}

/* A never-used frame, even when freed ones are waiting for reuse. */
static int take_fresh_frame(tlbsim_physmem *pm, uint64_t *pfn)
{
	uint64_t saved = pm->nr_free;
	int err;

	pm->nr_free = 0;
	err = take_frame(pm, pfn);
	pm->nr_free = saved;
	return err;
}

int tlbsim_physmem_alloc_block(tlbsim_physmem *pm, unsigned order, uint64_t *pfn)
{
	uint64_t n, first, f, i;

	if (!pm || !pfn || order > 18)
		return -TLBSIM_EINVAL;
	n = 1ull << order;
	/* Fresh frames only: the free stack holds single frames in no order.
	 * Frames skipped to reach the alignment go on the free stack. */
	first = ((pm->nr_meta + 1 + n - 1) / n) * n;
	if (first + n - 1 > pm->max_frames)
		return -TLBSIM_ENOMEM;
	while (pm->nr_meta + 1 < first) {
		int err = take_fresh_frame(pm, &f);

		if (err)
			return err;
		pm->free[pm->nr_free++] = f;
	}
	for (i = 0; i < n; i++) {
		int err = take_fresh_frame(pm, &f);

		if (err)
			return err;
		pm->meta[f].generation++;
		pm->meta[f].kind = TLBSIM_FRAME_DATA;
		pm->nr_used[TLBSIM_FRAME_DATA]++;
	}
	note_peak(pm, TLBSIM_FRAME_DATA);
	*pfn = first;
	return 0;
}

int tlbsim_physmem_free(tlbsim_physmem *pm, uint64_t pfn)
{
	struct frame_meta *m;

	if (!pm || pfn == 0 || pfn > pm->nr_meta)
		return -TLBSIM_EINVAL;
	m = &pm->meta[pfn];
	if (m->kind == TLBSIM_FRAME_FREE)
		return -TLBSIM_EINVAL;
	HW_OBSERVE(hw_physmem_observer(pm), frame_free, pfn, m->kind, m->table);
	if (m->table) {
		pm->free_pages[pm->nr_free_pages++] = m->table;
		m->table = NULL;
	}
	pm->nr_used[m->kind]--;
	m->kind = TLBSIM_FRAME_FREE;
	pm->free[pm->nr_free++] = pfn;
	return 0;
}

enum tlbsim_frame_kind tlbsim_physmem_kind(const tlbsim_physmem *pm, uint64_t pfn)
{
	if (!pm || pfn == 0 || pfn > pm->nr_meta)
		return TLBSIM_FRAME_FREE;
	return (enum tlbsim_frame_kind)pm->meta[pfn].kind;
}

uint32_t tlbsim_physmem_generation(const tlbsim_physmem *pm, uint64_t pfn)
{
	if (!pm || pfn == 0 || pfn > pm->nr_meta)
		return 0;
	return pm->meta[pfn].generation;
}

uint64_t tlbsim_physmem_nr_used(const tlbsim_physmem *pm, enum tlbsim_frame_kind kind)
{
	if (!pm || (kind != TLBSIM_FRAME_DATA && kind != TLBSIM_FRAME_TABLE))
		return 0;
	return pm->nr_used[kind];
}

uint64_t tlbsim_physmem_nr_peak(const tlbsim_physmem *pm, enum tlbsim_frame_kind kind)
{
	if (!pm || kind > TLBSIM_FRAME_TABLE)
		return 0;
	return pm->nr_peak[kind];
}

uint64_t tlbsim_physmem_nr_frames(const tlbsim_physmem *pm)
{
	return pm ? pm->max_frames : 0;
}

struct hw_table_page *hw_physmem_table(const tlbsim_physmem *pm, uint64_t pfn)
{
	/* pfn 0 wraps to above every frame: "none". */
	if (pfn - 1 >= pm->nr_meta)
		return NULL;
	return pm->meta[pfn].table;
}

bool hw_physmem_is_table(const tlbsim_physmem *pm, uint64_t pfn, uint32_t generation)
{
	/* pfn 0 wraps to above every frame: "none". */
	return pfn - 1 < pm->nr_meta && pm->meta[pfn].table &&
	       pm->meta[pfn].generation == generation;
}

void hw_physmem_write(tlbsim_physmem *pm, struct hw_table_page *t, unsigned index, uint64_t raw)
{
	uint64_t old = t->raw[index], old_version = t->version[index];

	t->raw[index] = raw;
	t->version[index] = ++pm->writes;
	HW_OBSERVE(hw_physmem_observer(pm), desc_write, t, index, old, old_version, raw);
}

void hw_physmem_set_observer(tlbsim_physmem *pm, const struct hw_observer_ops *ops, void *ctx)
{
	pm->obs.ops = ops;
	pm->obs.ctx = ops ? ctx : NULL;
}

const struct hw_observer *hw_physmem_observer(const tlbsim_physmem *pm)
{
	return pm->obs.ops ? &pm->obs : NULL;
}

int tlbsim_physmem_read_desc(const tlbsim_physmem *pm, uint64_t pfn, unsigned index, uint64_t *raw,
			     uint64_t *version)
{
	struct hw_table_page *t;

	if (!pm || !raw || index >= TLBSIM_PTRS_PER_TABLE)
		return -TLBSIM_EINVAL;
	t = hw_physmem_table(pm, pfn);
	if (!t)
		return -TLBSIM_EINVAL;
	*raw = t->raw[index];
	if (version)
		*version = t->version[index];
	return 0;
}

int tlbsim_physmem_write_desc(tlbsim_physmem *pm, uint64_t pfn, unsigned index, uint64_t raw)
{
	struct hw_table_page *t;

	if (!pm || index >= TLBSIM_PTRS_PER_TABLE)
		return -TLBSIM_EINVAL;
	t = hw_physmem_table(pm, pfn);
	if (!t)
		return -TLBSIM_EINVAL;
	hw_physmem_write(pm, t, index, raw);
	return 0;
}
