/* SPDX-License-Identifier: MIT */
/*
 * Per-thread previous addresses of the native binary format (native.h):
 * an open-addressing hash table with linear probing, kept at most half
 * full.  Lookups happen only when the thread changes, so its cost is per
 * thread switch, not per access.
 */
#include <stdlib.h>

#include "native.h"

/* Slots of a new table: a power of two, room for a few threads. */
#define INITIAL_SLOTS 16

/* Fibonacci hashing (Knuth TAOCP vol. 3, 6.4): 2^32 / golden ratio. */
static uint32_t slot_of(const struct native_threads *t, uint32_t tid)
{
	return (uint32_t)(tid * UINT32_C(2654435769)) & t->mask;
}

static int alloc_slots(struct native_threads *t, uint32_t slots)
{
	t->tids = calloc(slots, sizeof(*t->tids));
	t->last_va = calloc(slots, sizeof(*t->last_va));
	t->used = calloc(slots, sizeof(*t->used));
	t->mask = slots - 1;
	t->nr = 0;
	return t->tids && t->last_va && t->used ? 0 : -TLBSIM_ENOMEM;
}

static uint32_t find(const struct native_threads *t, uint32_t tid)
{
	uint32_t i = slot_of(t, tid);

	while (t->used[i] && t->tids[i] != tid)
		i = (i + 1) & t->mask;
	return i;
}

static void insert(struct native_threads *t, uint32_t tid, uint64_t last_va)
{
	uint32_t i = find(t, tid);

	if (!t->used[i]) {
		t->used[i] = 1;
		t->tids[i] = tid;
		t->nr++;
	}
	t->last_va[i] = last_va;
}

static int grow(struct native_threads *t)
{
	struct native_threads old = *t;
	int rc = alloc_slots(t, (old.mask + 1) * 2);

	if (rc == 0)
		for (uint32_t i = 0; i <= old.mask; i++)
			if (old.used[i])
				insert(t, old.tids[i], old.last_va[i]);
	if (rc < 0) {
		trace_native_threads_free(t);
		*t = old;
		return rc;
	}
	trace_native_threads_free(&old);
	return 0;
}

int trace_native_threads_init(struct native_threads *t)
{
	int rc = alloc_slots(t, INITIAL_SLOTS);

	if (rc < 0) {
		trace_native_threads_free(t);
		return rc;
	}
	insert(t, TLBSIM_TID_NONE, 0);
	t->cur_tid = TLBSIM_TID_NONE;
	t->cur = &t->last_va[find(t, TLBSIM_TID_NONE)];
	return 0;
}

void trace_native_threads_free(struct native_threads *t)
{
	free(t->tids);
	free(t->last_va);
	free(t->used);
	t->tids = NULL;
	t->last_va = NULL;
	t->used = NULL;
	t->cur = NULL;
}

int trace_native_threads_switch(struct native_threads *t, uint32_t tid)
{
	uint32_t i = find(t, tid);
	int rc;

	if (!t->used[i]) {
		if (t->nr >= NATIVE_THREADS_MAX)
			return -TLBSIM_ERANGE;
		/* keep the table at most half full, so probes stay short */
		if (2 * (t->nr + 1) > t->mask + 1 && (rc = grow(t)) < 0)
			return rc;
		insert(t, tid, 0);
		i = find(t, tid);
	}
	t->cur_tid = tid;
	t->cur = &t->last_va[i];
	return 0;
}
