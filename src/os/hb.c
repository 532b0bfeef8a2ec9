/* SPDX-License-Identifier: MIT */
/*
 * The trace's order of memory syscalls on overlapping ranges: a
 * happens-before edge from each memory syscall to every later one (trace
 * order) of another thread of the same process whose range overlaps it,
 * unless both only read the VMAs (two madvise calls, which Linux runs
 * side by side under the read mmap_lock).  The later one starts only once
 * the earlier one has returned to user space.
 *
 * Why: a recorded trace's order of such syscalls is the order they ran in
 * (valgrind runs one thread at a time; a program reuses a range another
 * thread unmapped only after that munmap returned), but the OS model runs
 * each thread's events as its cpu gets to them.  Without the edge, thread
 * 3's mmap of a range thread 2 munmaps earlier in the trace could run
 * first: the munmap then removed the live mapping, and thread 3's accesses
 * became segv, differently under each policy (their flushes take
 * different times).  Only such pairs wait: a trace without them runs as
 * before, to the cycle.
 *
 * Each thread keeps its syscalls read and not yet returned in a ring, in
 * trace order (they return in that order: a thread runs one at a time).
 * A syscall about to start looks at the other threads with such records:
 * any record older than it, of the same process, overlapping and
 * conflicting, makes it wait (sim.c stalls the cpu, as for a held
 * mmap_lock).  Records are 24 bytes (a mremap makes two); past
 * HB_MAX_RECS a thread's newest record absorbs the next ones (their
 * union, the newest index): a wait may then come early, never late, and
 * memory stays bounded when a far read-ahead queues a syscall-heavy
 * stream.
 *
 * Ordered replay (tlbsim_sim_config.ordered) keeps the trace order of
 * every event already and has no records.
 */
#include <stdlib.h>
#include <string.h>

#include "os/os.h"
#include "tlbsim/error.h"

/* Records kept per thread before the newest absorbs the next (1.5 MiB). */
#define HB_MAX_RECS (1u << 16)

static inline uint64_t rec_idx(const struct os_hb_rec *r)
{
	return r->idx >> 1;
}

static inline bool rec_writes(const struct os_hb_rec *r)
{
	return r->idx & 1;
}

static struct os_hb_rec *rec_at(const struct os_thread *t, uint32_t i)
{
	return &t->hb[(t->hb_head + i) & (t->hb_cap - 1)];
}

/* @t joins os->hb_threads (it has its first record). */
static int list_add(struct os *os, struct os_thread *t)
{
	if (os->nr_hb_threads == os->cap_hb_threads) {
		uint32_t cap = os->cap_hb_threads ? 2 * os->cap_hb_threads : 16;
		struct os_thread **n = realloc(os->hb_threads, cap * sizeof(*n));

		if (!n)
			return -TLBSIM_ENOMEM;
		os->hb_threads = n;
		os->cap_hb_threads = cap;
	}
	t->hb_slot = os->nr_hb_threads;
	os->hb_threads[os->nr_hb_threads++] = t;
	return 0;
}

/* @t leaves os->hb_threads (its last record went). */
static void list_del(struct os *os, struct os_thread *t)
{
	struct os_thread *last = os->hb_threads[--os->nr_hb_threads];

	os->hb_threads[t->hb_slot] = last;
	last->hb_slot = t->hb_slot;
}

static int push(struct os *os, struct os_thread *t, uint64_t idx, bool writes, uint64_t start,
		uint64_t end)
{
	struct os_hb_rec *r;

	if (t->hb_n && t->hb_n >= HB_MAX_RECS) {
		/* Absorbed by the newest: conservative (see the file comment). */
		r = rec_at(t, t->hb_n - 1);
		r->idx = idx << 1 | (rec_writes(r) || writes);
		r->start = start < r->start ? start : r->start;
		r->end = end > r->end ? end : r->end;
	} else {
		if (t->hb_n == t->hb_cap) {
			uint32_t cap = t->hb_cap ? 2 * t->hb_cap : 16, i;
			struct os_hb_rec *n = malloc(cap * sizeof(*n));

			if (!n)
				return -TLBSIM_ENOMEM;
			for (i = 0; i < t->hb_n; i++)
				n[i] = *rec_at(t, i);
			free(t->hb);
			t->hb = n;
			t->hb_cap = cap;
			t->hb_head = 0;
		}
		if (!t->hb_n) {
			if (list_add(os, t))
				return -TLBSIM_ENOMEM;
			t->hb_lo = start;
			t->hb_hi = end;
		}
		r = rec_at(t, t->hb_n++);
		*r = (struct os_hb_rec){.idx = idx << 1 | writes, .start = start, .end = end};
	}
	if (start < t->hb_lo)
		t->hb_lo = start;
	if (end > t->hb_hi)
		t->hb_hi = end;
	return 0;
}

int os_hb_add(struct os *os, struct os_thread *t, const struct tlbsim_event *ev, uint64_t idx)
{
	uint64_t start[2], end[2];
	unsigned n, i;
	int rc = 0;

	/* A thread never created never runs: its syscalls order nothing. */
	if (os->ordered || !t->r_created)
		return 0;
	/* A brk's earlier break is not known when it is read: [0, end)
	 * conflicts with every other brk and with the low mappings. */
	n = os_syscall_ranges(ev, 0, start, end);
	for (i = 0; i < n && !rc; i++)
		rc = push(os, t, idx, ev->kind != TLBSIM_EV_MADVISE, start[i], end[i]);
	return rc;
}

struct os_thread *os_hb_blocker(struct os *os, const struct os_thread *t,
				const struct tlbsim_event *ev, uint64_t idx)
{
	bool writes = ev->kind != TLBSIM_EV_MADVISE;
	uint64_t start[2], end[2];
	unsigned n, i, k;
	uint32_t j;

	if (!os->nr_hb_threads)
		return NULL;
	n = os_syscall_ranges(ev, 0, start, end);
	for (k = 0; k < os->nr_hb_threads; k++) {
		struct os_thread *u = os->hb_threads[k];

		if (u == t || u->r_pid != t->r_pid || rec_idx(rec_at(u, 0)) > idx)
			continue;
		for (i = 0; i < n; i++)
			if (start[i] < u->hb_hi && u->hb_lo < end[i])
				break;
		if (i == n)
			continue;
		for (j = 0; j < u->hb_n; j++) {
			const struct os_hb_rec *r = rec_at(u, j);

			if (rec_idx(r) > idx)
				break;
			if (!writes && !rec_writes(r))
				continue;
			for (i = 0; i < n; i++)
				if (start[i] < r->end && r->start < end[i])
					return u;
		}
	}
	return NULL;
}

void os_hb_start(struct os *os, struct hw_cpu *cpu, struct os_thread *t, uint64_t idx)
{
	struct os_cpu *oc = os_cpu_of(cpu);

	if (t->hb_waiting)
		os->st.syscall_order_waits++;
	t->hb_waiting = false;
	if (!t->hb_n || rec_idx(rec_at(t, 0)) > idx)
		return; /* not recorded (ordered replay, a thread never created) */
	oc->hb_thread = t;
	oc->hb_idx = idx;
}

void os_hb_done(struct os *os, struct hw_cpu *cpu)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	struct os_thread *t = oc->hb_thread;

	if (!t)
		return;
	oc->hb_thread = NULL;
	/* Its records, and those it absorbed (the same index), go. */
	while (t->hb_n && rec_idx(rec_at(t, 0)) <= oc->hb_idx) {
		t->hb_head = (t->hb_head + 1) & (t->hb_cap - 1);
		t->hb_n--;
	}
	if (!t->hb_n)
		list_del(os, t);
}

bool os_hb_stuck(struct os *os)
{
	unsigned i;

	/* Cheap first: a cpu with anything else to do. */
	for (i = 0; i < os->m->nr_cpus; i++) {
		const struct os_cpu *oc = &os->cpu[i];

		if (oc->rq_len || oc->cont || os->eng.cores[i].state == ENG_BLOCKED)
			return false;
		if (oc->curr && !oc->curr->hb_waiting)
			return false;
	}
	/* Then each waiting thread's blocker again: one may have returned
	 * since its cpu last looked. */
	for (i = 0; i < os->m->nr_cpus; i++) {
		struct os_thread *t = os->cpu[i].curr;
		const struct tlbsim_event *ev = t ? os_evq_head(t) : NULL;

		if (ev && !os_hb_blocker(os, t, ev, os_evq_head_idx(t)))
			return false;
	}
	return true;
}

void os_hb_fini(struct os *os)
{
	free(os->hb_threads);
	os->hb_threads = NULL;
	os->nr_hb_threads = os->cap_hb_threads = 0;
}
