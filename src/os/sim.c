/* SPDX-License-Identifier: MIT */
/*
 * A whole simulation (include/tlbsim/sim.h): the OS model on the engine.
 * The engine's hooks: a cpu's step runs its thread's accesses and compute
 * (parallel phase); everything else parks the cpu for serve() (serial
 * phase): syscalls, faults, lifecycle and scheduling events, reading more
 * events, and continuations after a flush's wait.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bug.h"
#include "check/oracle.h"
#include "error_internal.h"
#include "hw/mmu_internal.h"
#include "os/os.h"
#include "tlbsim/sim.h"

/* Events asked of a batch source at a time (tlbsim_sim_run_batch()). */
#define SOURCE_BATCH 256
/* Events read ahead for a thread whose queue ran dry. */
#define REFILL_EVENTS 4096
/* Events one refill reads for the other threads at most (about 56 MiB of
 * queued events), once the thread it is for has one: refill(). */
#define REFILL_BUDGET (256ull * REFILL_EVENTS)
/* Ordered replay reads the whole trace first: scenarios are small. */
#define ORDERED_MAX_EVENTS (1u << 20)
/* Serial services in a row in which no event could start, before an
 * ordered replay is declared stuck. */
#define ORDERED_MAX_STALLS 100000
/* How far ahead of an access that walked run_accesses() asks the host
 * for the next walk's tables (hw_mmu_prefetch()). */
#define PREFETCH_AHEAD 4
/* Faults one access may take before it is given up (a segv). */
#define MAX_FAULT_RETRIES 4

struct tlbsim_sim {
	struct os os;
};

/* ---- reading events ------------------------------------------------------------ */

/* The end of the source, or its error @rc. */
static void source_end(struct os *os, int rc)
{
	os->source_ended = true;
	if (rc < 0) {
		os->source_error = rc;
		atomic_store_explicit(&os->eng.stop_requested, 1, memory_order_relaxed);
	}
}

/* Make the batch hold an unread event (os->batch[os->batch_pos]), asking
 * the source for more when it is used up; false at the end of the source
 * (or on an error, or at the max_events cap). */
static bool batch_ready(struct os *os)
{
	size_t max = SOURCE_BATCH;
	int rc;

	/* Ended by an error (the source's, an input error, a queue that
	 * could not take an event): the rest of the batch is not read, as
	 * one event at a time would not have read it.  A clean end or the
	 * cap comes only with the batch used up. */
	if (os->source_ended)
		return false;
	if (os->batch_pos < os->batch_n)
		return true;
	if (os->max_events) {
		if (os->st.events_read >= os->max_events) {
			os->source_ended = true;
			os->stopped_early = true;
			return false;
		}
		if (max > os->max_events - os->st.events_read)
			max = (size_t)(os->max_events - os->st.events_read);
	}
	if (os->next_batch) {
		rc = os->next_batch(os->next_arg, os->batch, max, os->err);
		if (rc > (int)max) {
			rc = err_set(os->err, -TLBSIM_EINVAL, os->source_name, -1, -1, -1, NULL,
				     "the event source returned %d events, more than the %zu asked for",
				     rc, max);
		}
	} else {
		rc = os->next(os->next_arg, os->batch, os->err);
		if (rc > 1)
			rc = 1;
	}
	if (rc <= 0) {
		source_end(os, rc);
		return false;
	}
	os->batch_n = (uint32_t)rc;
	os->batch_pos = 0;
	return true;
}

/* The next event of the source (valid until the next call), or NULL at its
 * end (or on an error, or at the max_events cap). */
static const struct tlbsim_event *read_one(struct os *os)
{
	if (!batch_ready(os))
		return NULL;
	os->st.events_read++;
	return &os->batch[os->batch_pos++];
}

/* Ordered replay: event @idx has started; advance the issue point. */
static void os_ordered_started(struct os *os, uint64_t idx)
{
	if (idx >= os->ord_cap)
		return;
	os->ord_started[idx / 64] |= 1ull << (idx % 64);
	while (os->issued < os->ord_cap &&
	       (os->ord_started[os->issued / 64] >> (os->issued % 64) & 1))
		os->issued++;
	os->stalls = 0;
}

/* An event the OS model cannot take: the source's input error. */
static void input_error(struct os *os, uint64_t idx, const struct tlbsim_event *ev,
			const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void input_error(struct os *os, uint64_t idx, const struct tlbsim_event *ev,
			const char *fmt, ...)
{
	char text[TLBSIM_ERROR_TEXT_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	os->source_error = err_set_event(os->err, -TLBSIM_EINVAL, os->source_name, (long long)idx,
					 "event %llu (%s): %s", (unsigned long long)idx,
					 tlbsim_event_kind_name(ev->kind), text);
	os->source_ended = true;
	atomic_store_explicit(&os->eng.stop_requested, 1, memory_order_relaxed);
}

void os_out_of_memory(struct os *os, const char *what, uint64_t va)
{
	uint64_t data = tlbsim_physmem_nr_used(os->pm, TLBSIM_FRAME_DATA);
	uint64_t tables = tlbsim_physmem_nr_used(os->pm, TLBSIM_FRAME_TABLE);
	uint64_t frames = tlbsim_physmem_nr_frames(os->pm);
	char at[48] = "";

	if (os->source_error)
		return;
	if (os->serving >= 0)
		snprintf(at, sizeof(at), "event %lld: ", os->serving);
	if (data + tables < frames)
		os->source_error =
		    err_set_event(os->err, -TLBSIM_ENOMEM, os->source_name, os->serving,
				  "%sthe host is out of memory (%s at va 0x%llx)", at, what,
				  (unsigned long long)va);
	else
		os->source_error = err_set_event(
		    os->err, -TLBSIM_ENOMEM, os->source_name, os->serving,
		    "%sout of simulated memory: %s at va 0x%llx needs a frame, and all %llu "
		    "(%.1f %s) are in use (%llu data, %llu page tables): more memory expected "
		    "(tlbsim run --memory SIZE, tlbsim_sim_config.memory_frames)",
		    at, what, (unsigned long long)va, (unsigned long long)frames,
		    frames >= 1u << 18 ? (double)frames / (1u << 18) : (double)frames / (1u << 8),
		    frames >= 1u << 18 ? "GiB" : "MiB", (unsigned long long)data,
		    (unsigned long long)tables);
	os->source_ended = true;
	atomic_store_explicit(&os->eng.stop_requested, 1, memory_order_relaxed);
}

/* Spilled events could not be read back (the file failed, or memory
 * ran out): @what (about event @idx of the trace, or -1), and why. */
static int spill_error(struct os *os, long long idx, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int spill_error(struct os *os, long long idx, const char *fmt, ...)
{
	char text[TLBSIM_ERROR_TEXT_LEN];
	int e = atomic_load(&os->spill.error);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (!e)
		return err_set_event(os->err, -TLBSIM_ENOMEM, os->source_name, idx,
				     "%s: out of memory", text);
	if (os->spill.fd < 0)
		return err_set_event(os->err, -TLBSIM_EIO, os->source_name, idx,
				     "%s: its spilled events could not be read again: %s", text,
				     os->spill.why);
	return err_set_event(os->err, -TLBSIM_EIO, os->source_name, idx,
			     "%s: the event spill file in %s ($TMPDIR, default /tmp) failed: %s "
			     "(its queued events were written and could not be read again)",
			     text, os->spill.dir, os->spill.why);
}

static void pid_count(struct os *os, uint32_t pid, int delta)
{
	uint64_t n = 0;

	if (!pid)
		return;
	chk_map_get(&os->pid_live, pid, &n);
	n = delta > 0 ? n + 1 : n ? n - 1 : 0;
	if (n)
		(void)chk_map_put(&os->pid_live, pid, n);
	else
		chk_map_del(&os->pid_live, pid);
}

/* An event of @t after its exit (trace order) is an input error: reports
 * it and returns true. */
static bool exited(struct os *os, const struct os_thread *t, const struct tlbsim_event *ev,
		   uint64_t idx)
{
	if (!t || !t->r_exited)
		return false;
	input_error(os, idx, ev,
		    "thread %u exited at event %llu: an event of a live thread expected "
		    "(a tid is used again only by a new proc_create, thread_create or fork)",
		    ev->tid, (unsigned long long)t->r_exited_at);
	return true;
}

/*
 * The lifecycle in trace order, checked as events are read
 * (traces/FORMAT.md, "Threads and processes"): no event of a thread after
 * its exit; a creation names a pid and a tid not in use.  Using them again
 * after an exit is legal and makes a new thread (os_thread_renew()).
 * Events of a thread never created stay legal (counted as
 * unknown_thread_events): an excerpt of a longer trace has them.  Returns
 * the thread @ev creates (NULL if none), or sets the source's error.
 * @self is @ev's thread (NULL for a process created by no thread).
 */
static struct os_thread *lifecycle(struct os *os, struct os_thread *self,
				   const struct tlbsim_event *ev, uint64_t idx, bool *bad)
{
	struct os_thread *c;
	uint32_t pid = 0, tid;
	uint64_t n;

	*bad = exited(os, self, ev, idx);
	if (*bad)
		return NULL;
	switch (ev->kind) {
	case TLBSIM_EV_PROC_CREATE:
		pid = ev->proc_create.pid;
		tid = ev->proc_create.tid;
		break;
	case TLBSIM_EV_FORK:
		pid = ev->fork.pid;
		tid = ev->fork.tid;
		break;
	case TLBSIM_EV_THREAD_CREATE:
		tid = ev->thread_create.tid;
		break;
	case TLBSIM_EV_KTHREAD_CREATE:
		tid = ev->kthread_create.tid;
		break;
	case TLBSIM_EV_EXIT:
		if (self) {
			self->r_exited = true;
			self->r_exited_at = idx;
			if (self->r_created)
				pid_count(os, self->r_pid, -1);
		}
		return NULL;
	case TLBSIM_EV_EXEC:
		/* de_thread(): the exec'ing thread is the process's last. */
		if (self && self->r_created && chk_map_get(&os->pid_live, self->r_pid, &n) &&
		    n > 1) {
			input_error(os, idx, ev,
				    "process %u has %llu live threads: its other threads' exits "
				    "expected before an exec",
				    self->r_pid, (unsigned long long)n);
			*bad = true;
		}
		return NULL;
	default:
		return NULL;
	}
	if (pid && chk_map_get(&os->pid_live, pid, &n)) {
		/* "T1 proc_create 1 1" as a trace's first line: T1 itself
		 * started process 1 (route_slow()), which then exists. */
		bool own = self && self->r_created && self->r_pid == pid;

		input_error(os, idx, ev,
			    "pid %u is in use (%llu thread%s alive): a pid not in use expected "
			    "(a pid is used again only after its last thread's exit)%s",
			    pid, (unsigned long long)n, n == 1 ? "" : "s",
			    own ? "; the thread making this event is that process's: a trace's "
				  "first thread starts its own process when no proc_create came "
				  "before, so a first proc_create is written with no thread "
				  "('proc_create 1 1')"
				: "");
		*bad = true;
		return NULL;
	}
	c = os_thread_get(os, tid, false);
	if (c && c->r_created && !c->r_exited) {
		input_error(os, idx, ev,
			    "thread %u is alive (created at event %llu): a tid not in use expected",
			    tid, (unsigned long long)c->r_created_at);
		*bad = true;
		return NULL;
	}
	c = c && c->r_exited ? os_thread_renew(os, c) : os_thread_get(os, tid, true);
	if (!c)
		return NULL;
	c->r_created = true;
	c->r_created_at = idx;
	/* A kernel thread belongs to no process. */
	c->r_pid = pid                                 ? pid
		   : ev->kind == TLBSIM_EV_KTHREAD_CREATE ? 0
		   : self				  ? self->r_pid
							  : 0;
	pid_count(os, c->r_pid, +1);
	return c;
}

/* Event @idx could not be queued (out of memory): the run cannot go on
 * without losing events. */
static void queue_failed(struct os *os, uint64_t idx)
{
	if (os->source_error)
		return;
	os->source_error = spill_error(os, (long long)idx, "event %llu could not be queued",
				       (unsigned long long)idx);
	os->source_ended = true;
	atomic_store_explicit(&os->eng.stop_requested, 1, memory_order_relaxed);
}

/* @ev (trace index @idx) joins @t's queue. */
static inline void queue(struct os *os, struct os_thread *t, const struct tlbsim_event *ev,
			 uint64_t idx)
{
	if (os_evq_push_fast(&os->spill, &t->q, ev, idx))
		return;
	if (os_evq_push(&os->spill, &t->q, ev, idx) < 0)
		queue_failed(os, idx);
}

/* Hand @ev to its thread; a process created by no thread starts now. */
static void route_slow(struct os *os, struct hw_cpu *reader, const struct tlbsim_event *ev)
{
	uint64_t idx = os->st.events_read - 1;
	bool unowned_proc =
		 (ev->kind == TLBSIM_EV_PROC_CREATE || ev->kind == TLBSIM_EV_KTHREAD_CREATE) &&
		 ev->tid == TLBSIM_TID_NONE,
	     bad;
	struct os_thread *t = NULL, *child;

	if (ev->tid == TLBSIM_TID_NONE && !unowned_proc) {
		/* A kernel-level event on a cpu, on behalf of no thread
		 * (cpu0 tlbi ..., cpu0 commit ...): for the kernel-level
		 * replayer; counted as in a thread's stream, on the cpu it
		 * names (refills run in the serial phase: any cpu's counter). */
		struct os_cpu *oc = &os->cpu[ev->cpu % os->m->nr_cpus];

		if (os->ordered)
			os_ordered_started(os, idx);
		oc->st.events++;
		oc->st.ignored++;
		return;
	}
	if (!unowned_proc) {
		t = os_thread_get(os, ev->tid, true);
		if (!t)
			return;
		if (t->state == OS_T_NEW && !t->mm && os->nr_mms == 0) {
			/* A trace that starts without creating its first
			 * process: the first thread seen is process tid. */
			struct os_mm *mm = os_mm_create(os, ev->tid);

			if (mm && os_thread_bind(os, t, ev->tid, mm))
				os_thread_start(os, reader, t);
			t->r_created = true;
			t->r_created_at = idx;
			t->r_pid = ev->tid;
			pid_count(os, ev->tid, +1);
		}
	}
	switch (ev->kind) {
	case TLBSIM_EV_PROC_CREATE:
	case TLBSIM_EV_FORK:
	case TLBSIM_EV_THREAD_CREATE:
	case TLBSIM_EV_KTHREAD_CREATE:
	case TLBSIM_EV_EXIT:
	case TLBSIM_EV_EXEC:
		child = lifecycle(os, t, ev, idx, &bad);
		if (bad)
			return;
		break;
	default:
		/* The common case: an access or compute of a running thread. */
		if (exited(os, t, ev, idx))
			return;
		child = NULL;
	}
	if (unowned_proc && ev->kind == TLBSIM_EV_KTHREAD_CREATE) {
		if (os->ordered)
			os_ordered_started(os, idx);
		if (child && os_kthread_new(os, child->tid) == child)
			os_thread_start(os, reader, child);
		return;
	}
	if (unowned_proc) {
		struct os_mm *mm = os_mm_create(os, ev->proc_create.pid);

		if (os->ordered)
			os_ordered_started(os, idx);
		t = mm ? os_thread_bind(os, child, ev->proc_create.pid, mm) : NULL;
		if (t)
			os_thread_start(os, reader, t);
		return;
	}
	if (os->ordered && idx < os->ord_cap) {
		if (idx >= os->ord_thread_cap) {
			uint64_t cap = os->ord_thread_cap ? 2 * os->ord_thread_cap : 1024;
			struct os_thread **n = realloc(os->ord_thread, cap * sizeof(*n));

			if (!n)
				return;
			memset(n + os->ord_thread_cap, 0, (cap - os->ord_thread_cap) * sizeof(*n));
			os->ord_thread = n;
			os->ord_thread_cap = cap;
		}
		os->ord_thread[idx] = t;
	}
	if (os_is_mem_syscall(ev->kind) && os_hb_add(os, t, ev, idx) < 0) {
		queue_failed(os, idx);
		return;
	}
	queue(os, t, ev, idx);
}

/* An event a thread runs in its step, nothing else to do when routed. */
static inline bool plain_kind(unsigned kind)
{
	return tlbsim_event_is_access(kind) || kind == TLBSIM_EV_COMPUTE;
}

/* The common case of routing: @ev is an access or compute of a known,
 * live thread, outside ordered replay, and not the first event of a trace
 * that creates no process (route_slow()); its thread then, else NULL.  The
 * thread may not have started yet: a thread's events are read before its
 * creator runs the thread_create. */
static inline struct os_thread *plain_owner(struct os *os, const struct tlbsim_event *ev)
{
	struct os_thread *t;

	if (plain_kind(ev->kind) && !os->ordered &&
	    (t = os_thread_get(os, ev->tid, false)) && !t->r_exited &&
	    (t->state != OS_T_NEW || t->mm || os->nr_mms))
		return t;
	return NULL;
}

/* route(), inline for plain_owner()'s case. */
static inline void route(struct os *os, struct hw_cpu *reader, const struct tlbsim_event *ev)
{
	struct os_thread *t = plain_owner(os, ev);

	if (t)
		queue(os, t, ev, os->st.events_read - 1);
	else
		route_slow(os, reader, ev);
}

/*
 * Read and route the unread events of the batch from its head on that are
 * plain_owner() events of @t, at most @max of them (at least one: the
 * head is one): what route() would do with each, in bulk.  Returns how
 * many were read.
 */
static uint32_t route_run(struct os *os, struct os_thread *t, uint32_t max)
{
	const struct tlbsim_event *ev = &os->batch[os->batch_pos];
	uint32_t avail = os->batch_n - os->batch_pos, k, done;
	uint64_t idx = os->st.events_read;

	if (max > avail)
		max = avail;
	for (k = 1; k < max && ev[k].tid == t->tid && plain_kind(ev[k].kind); k++)
		;
	if (os_evq_push_run(&os->spill, &t->q, ev, idx, k, &done) < 0) {
		/* Read up to the event that failed, as one by one. */
		k = done + 1;
		queue_failed(os, idx + done);
	}
	os->batch_pos += k;
	os->st.events_read += k;
	return k;
}

/* A stop (SIGINT, a cap) was asked for: tlbsim_sim_stop(), engine.h. */
static bool stop_requested(struct os *os)
{
	return atomic_load_explicit(&os->eng.stop_requested, memory_order_relaxed);
}

/*
 * Read for @t until it has REFILL_EVENTS events, or until REFILL_BUDGET
 * events were read in all and it has at least one: a thread whose few
 * remaining events lie far ahead (a main thread's exit after its workers)
 * must not pull the whole stream into the other threads' queues.  Only
 * when @t has none at all does the reading go on past the budget, and a
 * stop request (SIGINT) ends it.  A refill parks the cpu until the serial
 * phase, which can shift the order in which cpus are served there: the
 * budget is large enough (REFILL_EVENTS for each of 256 threads) that a
 * trace whose threads interleave reaches REFILL_EVENTS first, as before
 * the budget existed.
 */
static void refill(struct os *os, struct hw_cpu *cpu, struct os_thread *t)
{
	const struct tlbsim_event *ev;
	uint64_t n = 0, popped = 0;
	unsigned i;

	if (atomic_load(&os->spill.error)) {
		/* A cpu could not read its spilled events back. */
		if (!os->source_error)
			os->source_error = spill_error(os, -1, "thread %u's events", t->tid);
		atomic_store_explicit(&os->eng.stop_requested, 1, memory_order_relaxed);
		return;
	}
	for (i = 0; i < os->m->nr_cpus; i++)
		popped += os->cpu[i].evq_popped;
	os->spill.mem = os->spill.pushed > popped ? os->spill.pushed - popped : 0;
	while ((os_evq_len(&t->q) == 0 ||
		(os_evq_len(&t->q) < REFILL_EVENTS && n < REFILL_BUDGET)) &&
	       !stop_requested(os) && batch_ready(os)) {
		struct os_thread *u = plain_owner(os, &os->batch[os->batch_pos]);
		int64_t len = (int64_t)os_evq_len(&t->q), lim;

		if (!u) {
			ev = read_one(os);
			route_slow(os, cpu, ev);
			n++;
			continue;
		}
		/* As many as the loop's test lets through, one by one: for
		 * @t, until it has REFILL_EVENTS or the budget is used (its
		 * first event always); for another thread, until the budget
		 * is used, or for ever while @t has none. */
		if (u == t) {
			lim = (int64_t)REFILL_EVENTS - len;
			if (lim > (int64_t)REFILL_BUDGET - (int64_t)n)
				lim = (int64_t)REFILL_BUDGET - (int64_t)n;
			if (lim < 1)
				lim = 1;
		} else {
			lim = len ? (int64_t)REFILL_BUDGET - (int64_t)n : SOURCE_BATCH;
		}
		n += route_run(os, u, (uint32_t)(lim < SOURCE_BATCH ? lim : SOURCE_BATCH));
	}
}

/* Read until some cpu has a thread to run, or the source ends; ordered
 * replay reads everything. */
static void prime(struct os *os)
{
	const struct tlbsim_event *ev;
	unsigned i;

	if (os->ordered) {
		while ((ev = read_one(os))) {
			if (os->st.events_read > ORDERED_MAX_EVENTS) {
				os->source_error = err_set(os->err, -TLBSIM_ERANGE, os->source_name, -1, -1, -1,
							   NULL,
							   "an ordered replay holds at most %u events",
							   ORDERED_MAX_EVENTS);
				return;
			}
			route(os, NULL, ev);
		}
		return;
	}
	for (;;) {
		for (i = 0; i < os->m->nr_cpus; i++)
			if (os->cpu[i].curr)
				return;
		if (!(ev = read_one(os)))
			return;
		route(os, NULL, ev);
	}
}

/* ---- engine hooks ------------------------------------------------------------------ */

static void park(struct eng_core *c, struct os_cpu *oc, enum os_park why)
{
	oc->park = why;
	c->state = ENG_PARKED;
}


/* "No page": an address shifted right by a page shift (12 or more) never
 * has all 64 bits set. */
#define HOT_NONE UINT64_MAX

/*
 * Unpack @h, the hot state of the L1 that serves fetches if @fetch, else
 * loads and stores, into run_accesses()'s tables by access: the page an
 * access must be on to be an L1 hit there (HOT_NONE when the entry does not
 * permit it, or there is none), the shift that gives an address's page,
 * and the hit's latency, cycles.
 */
static inline void hot_unpack(const struct hw_mmu_hot *h, bool fetch, uint64_t page[3],
			      unsigned shift[3], unsigned latency[3])
{
	const unsigned first = fetch ? TLBSIM_ACCESS_FETCH : TLBSIM_ACCESS_LOAD;
	const unsigned last = fetch ? TLBSIM_ACCESS_FETCH : TLBSIM_ACCESS_STORE;

	for (unsigned a = first; a <= last; a++) {
		page[a] = h->ok >> a & 1 ? h->vpn : HOT_NONE;
		shift[a] = h->shift;
		latency[a] = h->latency;
	}
}

/*
 * An access of @size bytes at @va crosses a 4 KiB boundary: its bytes lie
 * on more than one page.  (Size 0 counts as 1.)
 */
static inline bool crosses_page(uint64_t va, uint32_t size)
{
	return (va & ((1ull << TLBSIM_PAGE_SHIFT) - 1)) + size > 1ull << TLBSIM_PAGE_SHIFT;
}

/*
 * The access @ev at the head of @t's queue on @cpu: its pages translated
 * one at a time, from its byte t->split_off on, each translation's cycles
 * charged (an access on one page: one translation).  run_accesses() calls
 * it for an access that crosses a page boundary, ordered replay's serve
 * for every access.  A split load or store needs a
 * translation for each page it touches, and faults on any of them (Intel
 * SDM vol. 3 4.10.2.3: the access uses a TLB entry for each page it
 * spans; Arm ARM B2.2.1: an unaligned access may be split, each part
 * translated).  Where a translation maps a larger page (2 MiB, 1 GiB),
 * it covers the bytes of the access on that page.  A string instruction's
 * long access (REP MOVS) is restartable the same way, so an access of
 * many pages costs one translation a page, each fault retried from its
 * page.  Returns 0 once every page is translated (t->split_off back to
 * 0), else tlbsim_mmu_translate()'s error for the page that faulted, with
 * t->split_off at its first byte.
 */
static int translate_pages(struct hw_cpu *cpu, struct os_thread *t, const struct tlbsim_event *ev)
{
	const enum tlbsim_access a = tlbsim_event_access(ev->kind);
	const uint64_t va0 = ev->access.va;
	uint64_t last = va0 + (ev->access.size ? ev->access.size - 1 : 0), va = va0 + t->split_off;

	if (last < va0)
		last = UINT64_MAX; /* a library caller's access past 2^64: up to the end */
	for (;;) {
		struct tlbsim_xlate x;
		int rc = tlbsim_mmu_translate(cpu->mmu, va, a, &x);
		uint64_t next;

		eng_charge(cpu->core, x.cycles);
		if (rc) {
			if (va - va0 > t->split_off)
				t->fault_retries = 0; /* a page further on: progress */
			t->split_off = (uint32_t)(va - va0);
			return rc;
		}
		next = ((va >> x.size_shift) + 1) << x.size_shift;
		if (!next || next > last)
			break;
		va = next;
	}
	t->split_off = 0;
	return 0;
}

/*
 * Run the accesses at the head of @t's queue on @cpu, as step() would one
 * by one: the run ends before the first other event, once the clock
 * reaches @stop or the time slice's end, or at a fault, which leaves its
 * access at the head and parks the cpu (false).  One run covers the
 * events in memory and contiguous in the ring, and only one event under
 * the hazard oracle (which step() tells of each event first); they are
 * popped together.
 *
 * An access that hits its L1 TLB's last hit (hw_mmu_hot()) is taken here,
 * its clock and hit count in registers, from tables by access kind that
 * make the test one shift and one compare; any other goes through
 * hw_mmu_access(), with the counts brought up to date first, which gives
 * that L1's hit state again: the same hits, cycles and stop as one by one.
 */
static bool run_accesses(struct os *os, struct hw_cpu *cpu, struct os_thread *t, uint64_t stop)
{
	struct eng_core *c = cpu->core;
	struct os_cpu *oc = os_cpu_of(cpu);
	tlbsim_mmu *mmu = cpu->mmu;
	const struct tlbsim_event *const ev = &t->q.ev[t->q.head], *e = ev, *ev_end;
	const uint64_t end = stop < oc->slice_end ? stop : oc->slice_end;
	/* hits taken here, and how many of them were fetches: counters in
	 * registers (an array indexed by the kind was a store and a load per
	 * access, each waiting for the last) */
	uint64_t now = c->now, start = c->now, hits = 0, fetch_hits = 0;
	uint64_t page[3];
	unsigned shift[3], latency[3];
	struct hw_mmu_hot hot;
	uint32_t n = t->q.cap - t->q.head, i;
	bool ok = true;

	if (n > t->q.n)
		n = t->q.n;
	if (os->oracle)
		n = 1;
	/* A pointer, not an index: with an index the loop kept it in memory,
	 * each access's increment waiting for the last one's store. */
	ev_end = ev + n;
	hw_mmu_hot(mmu, false, &hot);
	hot_unpack(&hot, false, page, shift, latency);
	hw_mmu_hot(mmu, true, &hot);
	hot_unpack(&hot, true, page, shift, latency);
	for (; e < ev_end; e++) {
		const unsigned a = e->kind - TLBSIM_EV_LOAD; /* enum tlbsim_access */
		unsigned cycles;
		int rc;

		if (a > TLBSIM_ACCESS_FETCH)
			break; /* not an access */
		/* On the hot page, and not across a 4 KiB boundary: a hit.  An
		 * access across one is translate_pages()'s, which finds the same
		 * one hit when a larger hot page holds all of it. */
		if (e->access.va >> shift[a] == page[a] && !crosses_page(e->access.va, e->access.size)) {
			hits++;
			fetch_hits += a == TLBSIM_ACCESS_FETCH;
			now += latency[a];
			if (now >= end) {
				e++;
				break;
			}
			continue;
		}
		eng_charge(c, now - start);
		hw_mmu_hot_hits(mmu, hits - fetch_hits, fetch_hits);
		hits = fetch_hits = 0;
		if (__builtin_expect(crosses_page(e->access.va, e->access.size), 0)) {
			rc = translate_pages(cpu, t, e);
			start = now = c->now;
			if (rc) {
				ok = false;
				break;
			}
			hw_mmu_hot(mmu, a == TLBSIM_ACCESS_FETCH, &hot);
			hot_unpack(&hot, a == TLBSIM_ACCESS_FETCH, page, shift, latency);
			if (now >= end) {
				e++;
				break;
			}
			continue;
		}
		rc = hw_mmu_access(mmu, e->access.va, a, &cycles, &hot);
		/* A walk: the host's cache misses on the tables of the accesses
		 * that follow are waited for less when asked for early.  Not
		 * after a fault: the access is retried once it is served, and
		 * the retry's walk asks for the same tables then. */
		if (hot.walked && !rc && ev_end - e > PREFETCH_AHEAD &&
		    tlbsim_event_is_access(e[PREFETCH_AHEAD].kind))
			hw_mmu_prefetch(mmu, e[PREFETCH_AHEAD].access.va);
		eng_charge(c, cycles);
		start = now = c->now;
		if (rc) {
			ok = false;
			break;
		}
		hot_unpack(&hot, a == TLBSIM_ACCESS_FETCH, page, shift, latency);
		if (now >= end) {
			e++;
			break;
		}
	}
	i = (uint32_t)(e - ev);
	eng_charge(c, now - start);
	hw_mmu_hot_hits(mmu, hits - fetch_hits, fetch_hits);
	if (i) {
		t->fault_retries = 0;
		os_evq_pop_n(oc, t, i);
		oc->st.events += i;
	}
	if (!ok)
		park(c, oc, OS_PARK_EVENT);
	return ok;
}

static void os_step(void *ctx, struct eng *e, struct eng_core *c, uint64_t stop)
{
	struct os *os = ctx;
	struct hw_cpu *cpu = c->priv;
	struct os_cpu *oc = os_cpu_of(cpu);
	struct os_thread *t = oc->curr;

	(void)e;
	if (oc->cont) {
		park(c, oc, OS_PARK_CONT);
		return;
	}
	if (oc->mmap_waiting || oc->mmap_granted) {
		/* On an mmap_lock's wait list (woken for its slice's end), or
		 * handed the lock: its event runs next, nothing else. */
		park(c, oc,
		     oc->mmap_waiting && c->now >= oc->slice_end && oc->rq_len ? OS_PARK_RESCHED
									 : OS_PARK_EVENT);
		return;
	}
	BUG_ON(!t, "a running cpu has a thread");
	if (t->fault_waiting) {
		/* Its access's fault waits (serve_event()): straight back to
		 * the serve, as a task woken on the lock retries its fault,
		 * unless its time slice is over and another thread waits. */
		park(c, oc,
		     c->now >= oc->slice_end && oc->rq_len ? OS_PARK_RESCHED : OS_PARK_EVENT);
		return;
	}
	while (c->now < stop) {
		const struct tlbsim_event *ev;

		if (c->now >= oc->slice_end) {
			if (oc->rq_len) {
				park(c, oc, OS_PARK_RESCHED);
				return;
			}
			/* A tick in user mode is an RCU quiescent state. */
			os_rcu_qs(os, cpu);
			oc->slice_end = os->m->costs.sched_slice ? c->now + os->m->costs.sched_slice
								 : ENG_NEVER;
		}
		ev = os_evq_head(t);
		if (!ev) {
			park(c, oc, OS_PARK_REFILL);
			return;
		}
		if (os->oracle)
			chk_event_local(os->oracle, cpu->id, os_evq_head_idx(t));
		if (os->ordered) {
			park(c, oc, OS_PARK_EVENT);
			return;
		}
		switch (ev->kind) {
		case TLBSIM_EV_LOAD:
		case TLBSIM_EV_STORE:
		case TLBSIM_EV_FETCH:
			if (!run_accesses(os, cpu, t, stop))
				return;
			break;
		case TLBSIM_EV_COMPUTE: {
			uint64_t n;

			if (!t->compute_left)
				t->compute_left = ev->compute.count;
			/* Instructions count at one per cycle. */
			n = t->compute_left < stop - c->now ? t->compute_left : stop - c->now;
			eng_charge(c, n);
			t->compute_left -= n;
			if (!t->compute_left) {
				os_evq_pop(oc, t);
				oc->st.events++;
			}
			break;
		}
		default:
			park(c, oc, OS_PARK_EVENT);
			return;
		}
	}
}

/*
 * Lookahead for the engine: a cpu whose next events are COMPUTE cannot
 * park, fault or send anything before they are done (nor before its time
 * slice ends, nor with a continuation pending).  Any other event may park
 * at once.
 */
static uint64_t os_horizon(void *ctx, const struct eng *e, const struct eng_core *c)
{
	const struct os *os = ctx;
	const struct hw_cpu *cpu = c->priv;
	const struct os_cpu *oc = cpu->priv;
	const struct os_thread *t = oc->curr;
	uint64_t h = c->now;
	uint32_t i;

	(void)os;
	(void)e;
	if (oc->cont || !t)
		return c->now;
	for (i = 0; i < t->q.n && i < 64; i++) {
		const struct tlbsim_event *ev = &t->q.ev[(t->q.head + i) & (t->q.cap - 1)];

		if (ev->kind != TLBSIM_EV_COMPUTE)
			break;
		h += i == 0 && t->compute_left ? t->compute_left : ev->compute.count;
	}
	return h < oc->slice_end ? h : oc->slice_end;
}

/*
 * @cpu cannot go on now (a copy-on-write fault holds a PTE lock it needs,
 * an earlier memory syscall of the trace has not returned, reclaim or a
 * truncate is in the way, or an ordered replay waits for an earlier
 * event): none of these is a lock with a wait list in the model, so its
 * clock moves to the next window, as time spent waiting (@wait) or idle,
 * and it runs again: it takes interrupts and parks again for the same
 * event.  (A held mmap_lock is waited for on its wait list instead:
 * os_mmap_wait(), os/mmap_lock.c.)
 */
static void stall(struct os *os, struct hw_cpu *cpu, bool wait)
{
	struct eng_core *c = cpu->core;
	uint64_t to = os->eng.now + os->eng.window;

	if (to <= c->now)
		to = c->now + 1;
	if (wait)
		c->st.waiting += to - c->now;
	else
		c->st.idle += to - c->now;
	c->now = to;
	os_cpu_of(cpu)->park = OS_PARK_NONE;
	c->state = ENG_RUNNING;
}

/*
 * @t's memory syscall (at the head of its queue, trace index @idx) waits
 * for an earlier one of thread @blk on an overlapping range (hb.c): when
 * @blk waits in this cpu's runqueue, @t gives way to it, as if it
 * blocked (else, without time slices, they would wait for ever);
 * otherwise the cpu stalls (polls).  When no cpu can do
 * anything else, the order cannot be kept: an input error.
 */
static void hb_wait(struct os *os, struct hw_cpu *cpu, struct os_thread *t, struct os_thread *blk,
		    uint64_t idx)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	const struct os_thread *q;

	t->hb_waiting = true;
	for (q = oc->rq_head; q && q != blk; q = q->rq_next)
		;
	if (q) {
		os_preempt(os, cpu);
		return;
	}
	if (os_hb_stuck(os)) {
		os->order_impossible = true;
		input_error(
		    os, idx, os_evq_head(t),
		    "thread %u's syscall waits for an earlier memory syscall (trace order) "
		    "of thread %u on an overlapping range, which cannot return: every "
		    "other thread sleeps or waits too (a trace whose order no run can keep)",
		    t->tid, blk->tid);
		return;
	}
	stall(os, cpu, true);
}

/* The access at the head of @t's queue is done with (a SIGSEGV, or no mm):
 * gone, and a split one's progress with it. */
static void pop_access(struct os_cpu *oc, struct os_thread *t)
{
	t->split_off = 0;
	os_evq_pop(oc, t);
	oc->st.events++;
}

static void serve_event(struct os *os, struct hw_cpu *cpu, struct os_thread *t)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	struct tlbsim_event ev = *os_evq_head(t);

	if (os_reclaim_pending(t) && !plain_kind(ev.kind) && ev.kind != TLBSIM_EV_RECLAIM &&
	    ev.kind != TLBSIM_EV_RECLAIM_FLUSH) {
		/* shrink_folio_list() ends with try_to_unmap_flush(): a batch
		 * never outlives the reclaim that made it.  The event waits
		 * at the head for the flush. */
		os_reclaim_flush(os, cpu, t);
		return;
	}
	switch (ev.kind) {
	case TLBSIM_EV_LOAD:
	case TLBSIM_EV_STORE:
	case TLBSIM_EV_FETCH:
		if (os->ordered && !t->fault_waiting) {
			/* Ordered replay runs accesses here, not in step(). */
			if (!translate_pages(cpu, t, &ev)) {
				t->fault_retries = 0;
				os_evq_pop(oc, t);
				oc->st.events++;
				return;
			}
		}
		/* The page that faulted: a split access's (translate_pages()) is
		 * t->split_off bytes in. */
		ev.access.va += t->split_off;
		if (!t->mm) {
			/* A kernel thread touching user memory with no mm
			 * borrowed: nothing maps it. */
			oc->st.faults++;
			oc->st.segv++;
			pop_access(oc, t);
			return;
		}
		/* Another cpu's copy-on-write holds the page's PTE lock: the
		 * fault waits for it, and is served again, not taken again by
		 * a new translation each window (os_step()). */
		t->fault_waiting = os_cow_busy(os, cpu, t->mm, &ev);
		if (t->fault_waiting) {
			stall(os, cpu, true);
			return;
		}
		if (!os_mmap_lock(os, cpu, t->mm, NULL)) {
			os_mmap_wait(os, cpu);
			return;
		}
		/* The access stays at the head and is retried, unless it
		 * cannot succeed. */
		if (!os_fault(os, cpu, t->mm, ev.access.va, tlbsim_event_access(ev.kind)) ||
		    ++t->fault_retries > MAX_FAULT_RETRIES) {
			if (t->fault_retries > MAX_FAULT_RETRIES)
				oc->st.segv++;
			pop_access(oc, t);
		}
		os_kernel_exit(os, cpu);
		return;
	case TLBSIM_EV_COMPUTE:
		/* Only ordered replay parks for compute: all of it at once. */
		eng_charge(cpu->core, ev.compute.count);
		os_evq_pop(oc, t);
		oc->st.events++;
		return;
	case TLBSIM_EV_MMAP:
	case TLBSIM_EV_MUNMAP:
	case TLBSIM_EV_MPROTECT:
	case TLBSIM_EV_MADVISE:
	case TLBSIM_EV_MREMAP:
	case TLBSIM_EV_BRK: {
		uint64_t idx = os_evq_head_idx(t);
		struct os_thread *blk;

		if (!t->mm) {
			/* A kernel thread's memory syscall with no mm: -EFAULT
			 * at once (its order record goes too). */
			os_hb_start(os, cpu, t, idx);
			os_hb_done(os, cpu);
			os_evq_pop(oc, t);
			oc->st.events++;
			oc->st.syscalls++;
			oc->st.bad_syscalls++;
			return;
		}
		if (os_syscall_is_empty(&ev)) {
			/* Nothing to order, lock or wait for (os_syscall()). */
			os_hb_start(os, cpu, t, idx);
			os_evq_pop(oc, t);
			oc->st.events++;
			os_syscall(os, cpu, &ev);
			return;
		}
		if (t->hb_clear != idx + 1) {
			blk = os_hb_blocker(os, t, &ev, idx);
			if (blk) {
				hb_wait(os, cpu, t, blk, idx);
				return;
			}
			t->hb_clear = idx + 1;
		}
		if (os_cow_busy(os, cpu, t->mm, &ev)) {
			stall(os, cpu, true);
			return;
		}
		if (!os_mmap_lock(os, cpu, t->mm, &ev)) {
			os_mmap_wait(os, cpu);
			return;
		}
		os_hb_start(os, cpu, t, idx);
		os_evq_pop(oc, t);
		oc->st.events++;
		os_syscall(os, cpu, &ev);
		return;
	}
	case TLBSIM_EV_GUP_FAST:
		/* get_user_pages_fast() of the thread's own mm (mm/gup.c):
		 * entry into the kernel (a syscall's cost), then the lockless
		 * walk with interrupts off, no lock taken (hw_sw_walk()).
		 * Pages not mapped go to the slow path, which faults them in;
		 * the OS model leaves that to the thread's accesses. */
		os_evq_pop(oc, t);
		oc->st.events++;
		if (!t->mm) {
			oc->st.ignored++;
			return;
		}
		hw_charge(cpu, os->m->costs.syscall);
		(void)hw_sw_walk(&os->smp, cpu, t->mm->pgt, ev.gup_fast.va, ev.gup_fast.len);
		return;
	case TLBSIM_EV_RECLAIM:
		if (os_reclaim_must_wait(os, cpu, &ev)) {
			stall(os, cpu, true);
			return;
		}
		os_evq_pop(oc, t);
		oc->st.events++;
		os_reclaim(os, cpu, t, &ev);
		return;
	case TLBSIM_EV_MMAP_FILE:
		if (!t->mm) {
			os_evq_pop(oc, t);
			oc->st.events++;
			oc->st.syscalls++;
			oc->st.bad_syscalls++;
			return;
		}
		if (!os_mmap_lock(os, cpu, t->mm, &ev)) {
			os_mmap_wait(os, cpu);
			return;
		}
		os_evq_pop(oc, t);
		oc->st.events++;
		os_mmap_file(os, cpu, t->mm, &ev);
		return;
	case TLBSIM_EV_TRUNCATE:
		/* No mmap_lock: the i_mmap lock and the PTE locks only. */
		if (os_truncate_must_wait(os, cpu, &ev)) {
			stall(os, cpu, true);
			return;
		}
		os_evq_pop(oc, t);
		oc->st.events++;
		os_truncate(os, cpu, &ev);
		os_kernel_exit(os, cpu);
		return;
	case TLBSIM_EV_RECLAIM_FLUSH:
		os_evq_pop(oc, t);
		oc->st.events++;
		os_reclaim_flush(os, cpu, t);
		return;
	case TLBSIM_EV_PROC_CREATE:
	case TLBSIM_EV_THREAD_CREATE:
	case TLBSIM_EV_FORK:
	case TLBSIM_EV_EXIT:
	case TLBSIM_EV_SWITCH:
	case TLBSIM_EV_SLEEP:
	case TLBSIM_EV_WAKE:
	case TLBSIM_EV_YIELD:
	case TLBSIM_EV_EXEC:
	case TLBSIM_EV_AFFINITY:
	case TLBSIM_EV_KTHREAD_CREATE:
	case TLBSIM_EV_KTHREAD_USE_MM:
	case TLBSIM_EV_KTHREAD_UNUSE_MM:
		os_evq_pop(oc, t);
		oc->st.events++;
		os_sched_event(os, cpu, &ev);
		return;
	default:
		/* Raw kernel-level events have no meaning for a thread of the
		 * OS model (they are replayed on cpus by another front end). */
		os_evq_pop(oc, t);
		oc->st.events++;
		oc->st.ignored++;
		return;
	}
}

/*
 * Ordered replay: may @cpu start the event at its thread's head?  Only if
 * every earlier event (trace order) has started; it then starts no earlier
 * than the last one did.  A replay in which nothing can start for long is
 * stuck (an event whose thread never runs) and ends with an error.
 */
static bool ordered_may_start(struct os *os, struct hw_cpu *cpu, struct os_cpu *oc)
{
	uint64_t idx;

	if (!oc->curr || !os_evq_head(oc->curr))
		return true;
	idx = os_evq_head_idx(oc->curr);
	if (idx < os->issued && (os->ord_started[idx / 64] >> (idx % 64) & 1))
		return true; /* started already: a retry (after a fault, a lock wait) */
	if (idx != os->issued) {
		/* Only the thread of event @issued can start it: when that
		 * thread cannot run until some later event, nothing ever will
		 * (every earlier event has started: a creation has made it). */
		const struct os_thread *w =
		    os->issued < os->ord_thread_cap ? os->ord_thread[os->issued] : NULL;
		const char *why = NULL;

		if (w && w->state == OS_T_NEW)
			why = "was not created by an earlier event (a proc_create, thread_create "
			      "or fork naming it expected before)";
		else if (w && w->state == OS_T_SLEEPING && !w->wake_tokens)
			why = "sleeps, and only a later event could wake it";
		if (why) {
			os->order_impossible = true;
			os->source_error = err_set_event(
			    os->err, -TLBSIM_EINVAL, os->source_name, (long long)os->issued,
			    "ordered replay is stuck: event %llu cannot start: its thread %u %s",
			    (unsigned long long)os->issued, w->tid, why);
			os->eng.stop_requested = 1;
			return false;
		}
		if (++os->stalls > ORDERED_MAX_STALLS) {
			os->order_impossible = true;
			os->source_error = err_set_event(
			    os->err, -TLBSIM_EINVAL, os->source_name, (long long)os->issued,
			    "ordered replay is stuck: event %llu cannot start "
			    "(its thread never runs on a cpu)",
			    (unsigned long long)os->issued);
			os->eng.stop_requested = 1;
		}
		return false;
	}
	if (cpu->core->now < os->issue_time) {
		cpu->core->st.idle += os->issue_time - cpu->core->now;
		cpu->core->now = os->issue_time;
	}
	os->issue_time = cpu->core->now;
	os_ordered_started(os, idx);
	return true;
}

static void os_serve(void *ctx, struct eng *e, struct eng_core *c)
{
	struct os *os = ctx;
	struct hw_cpu *cpu = c->priv;
	struct os_cpu *oc = os_cpu_of(cpu);
	enum os_park why = oc->park;

	(void)e;
	if (os->oracle) {
		chk_serve(os->oracle, cpu->id);
		chk_sync(os->oracle);
	}
	if (why == OS_PARK_EVENT && os->ordered && !ordered_may_start(os, cpu, oc)) {
		/* An earlier event has not started.  When its thread waits in
		 * this cpu's runqueue, the current thread gives way to it, as
		 * if it blocked: else they wait for the end of the time slice
		 * (or, without slices, for ever). */
		const struct os_thread *w =
		    os->issued < os->ord_thread_cap ? os->ord_thread[os->issued] : NULL, *q;

		for (q = oc->rq_head; w && w->state == OS_T_RUNNABLE && q && q != w; q = q->rq_next)
			;
		if (w && q == w && !os->source_error) {
			oc->park = OS_PARK_NONE;
			os_preempt(os, cpu);
			return;
		}
		stall(os, cpu, false);
		return;
	}
	oc->park = OS_PARK_NONE;
	if (os->rcu_head) /* a grace period to end */
		os_rcu_advance(os, c->now);
	switch (why) {
	case OS_PARK_CONT: {
		os_cont_fn cont = oc->cont;

		oc->cont = NULL;
		c->state = ENG_RUNNING;
		cont(os, cpu);
		os_kernel_exit(os, cpu);
		break;
	}
	case OS_PARK_REFILL:
		refill(os, cpu, oc->curr);
		if (!os_evq_len(&oc->curr->q) && !stop_requested(os)) {
			/* The thread's stream ended without an EXIT. */
			os_thread_exit(os, cpu, oc->curr);
		}
		break;
	case OS_PARK_RESCHED:
		os_mmap_give_up(os, cpu);
		os_preempt(os, cpu);
		break;
	case OS_PARK_EVENT:
		/* The event served, for errors found on its way (os_out_of_memory()). */
		os->serving = (long long)os_evq_head_idx(oc->curr);
		serve_event(os, cpu, oc->curr);
		os->serving = -1;
		break;
	default:
		BUG_ON(1, "a parked cpu has a reason");
	}
	if (c->state == ENG_PARKED)
		c->state = oc->curr ? ENG_RUNNING : ENG_IDLE;
}

static void os_deliver(void *ctx, struct eng *e, struct eng_core *c, const struct eng_msg *m)
{
	struct os *os = ctx;

	(void)e;
	BUG_ON(m->kind < HW_MSG_BASE || m->kind >= HW_MSG_END, "only hardware messages travel");
	hw_smp_deliver(&os->smp, c, m);
}

static void os_fabric(void *ctx, struct eng *e, const struct eng_msg *m)
{
	struct os *os = ctx;

	(void)e;
	hw_smp_fabric(&os->smp, m);
}

static const struct eng_ops os_eng_ops = {
	.step = os_step,
	.deliver = os_deliver,
	.fabric = os_fabric,
	.serve = os_serve,
	.horizon = os_horizon,
};

/* ---- public API ------------------------------------------------------------------ */

/*
 * A machine whose TLBs cannot fit in this host's memory is refused before
 * anything is allocated: models/README.md allows 4096 cores of 65536-entry
 * structures (what-if studies), about 90 GiB, and allocating that fails
 * only after minutes of paging, or is killed.  Physical memory, not a
 * fixed cap, because what fits depends on the host.
 */
static int check_machine_fits(const struct tlbsim_machine *m, struct tlbsim_error *err)
{
	long pages = sysconf(_SC_PHYS_PAGES), page_bytes = sysconf(_SC_PAGESIZE);
	uint64_t need = hw_smp_bytes(m), have;

	if (pages <= 0 || page_bytes <= 0)
		return 0; /* unknown: let the allocations decide */
	have = (uint64_t)pages * (uint64_t)page_bytes;
	if (need <= have)
		return 0;
	return err_set(err, -TLBSIM_ENOMEM, m->name, -1, -1, -1, NULL,
		       "the machine's TLBs and page-walk caches need %llu MiB (%u cores x %llu "
		       "KiB), more than this host's %llu MiB of memory: fewer cores or "
		       "smaller structures expected",
		       (unsigned long long)(need >> 20), m->nr_cpus,
		       (unsigned long long)(need / m->nr_cpus >> 10),
		       (unsigned long long)(have >> 20));
}

static int os_init(struct os *os, const struct tlbsim_sim_config *cfg, struct tlbsim_error *err)
{
	const struct tlbsim_machine *m = cfg->machine;
	unsigned i, s;
	int rc;

	os->m = m;
	os->serving = -1;
	os_spill_init(&os->spill);
	os->batch = malloc(SOURCE_BATCH * sizeof(*os->batch));
	if (!os->batch)
		return -TLBSIM_ENOMEM;
	rc = check_machine_fits(m, err);
	if (rc)
		return rc;
	rc = os_policy_resolve(&os->pol, cfg->policy, m->isa, err);
	if (!rc)
		rc = os_policy_check_machine(&os->pol, m, err);
	if (rc)
		return rc;
	os_ops_init(&os->ops);
	snprintf(os->source_name, sizeof(os->source_name), "%s", cfg->name ? cfg->name : "<trace>");
	os->max_events = cfg->max_events;
	os->max_cycles = cfg->max_cycles;
	os->pm = tlbsim_physmem_create(cfg->memory_frames ? cfg->memory_frames : 1ull << 24);
	if (!os->pm)
		return -TLBSIM_ENOMEM;
	rc = eng_init(&os->eng, m->nr_cpus, hw_smp_window(m), cfg->threads > 0 ? cfg->threads : 1,
		      &os_eng_ops, os);
	if (rc)
		return rc;
	os->eng.share_all = cfg->share_all;
	rc = hw_smp_init(&os->smp, m, os->pm, &os->eng);
	if (rc)
		return rc;
	if (cfg->check) {
		/* Before any table exists: the oracle learns every root. */
		os->oracle = chk_create(&os->smp);
		if (!os->oracle)
			return -TLBSIM_ENOMEM;
		for (i = 0; i < m->nr_cpus; i++)
			chk_set_ets2(os->oracle, i, cfg->ets2 && tlbsim_cpumask_test(cfg->ets2, i));
	}
	os->os_flags = cfg->os_flags;
	os->no_nested_flush = cfg->os_flags & TLBSIM_OS_NO_NESTED_FLUSH;
	os->lru_add_drain = cfg->os_flags & TLBSIM_OS_LRU_ADD_DRAIN;
	os->per_vma_lock = cfg->os_flags & TLBSIM_OS_PER_VMA_LOCK;
	os->no_batched_pending = cfg->os_flags & TLBSIM_OS_NO_BATCHED_PENDING;
	os->reclaim_cpumask_only = cfg->os_flags & TLBSIM_OS_RECLAIM_CPUMASK_ONLY;
	os->mremap_late_flush = cfg->os_flags & TLBSIM_OS_MREMAP_LATE_FLUSH;
	os->nested_reset_range = cfg->os_flags & TLBSIM_OS_NESTED_RESET_RANGE;
	os->fault_lock = cfg->os_flags & TLBSIM_OS_FAULT_LOCK_MM    ? OS_FAULT_LOCK_MM
			 : cfg->os_flags & TLBSIM_OS_FAULT_LOCKLESS ? OS_FAULT_LOCKLESS
								    : OS_FAULT_LOCK_SPLIT;
	os_lines_init(os);
	if (cfg->ordered) {
		os->ordered = true;
		os->ord_cap = ORDERED_MAX_EVENTS;
		os->ord_started = calloc(ORDERED_MAX_EVENTS / 64, sizeof(uint64_t));
		if (!os->ord_started)
			return -TLBSIM_ENOMEM;
	}
	os->cpu = calloc(m->nr_cpus, sizeof(*os->cpu));
	if (!os->cpu)
		return -TLBSIM_ENOMEM;
	for (i = 0; i < m->nr_cpus; i++) {
		os->smp.cpu[i].priv = &os->cpu[i];
		os->cpu[i].pub.id = i;
		os->cpu[i].slice_end = ENG_NEVER;
		for (s = 0; s < os->pol.nr; s++) {
			if (!os->pol.part[s]->cpu_priv_size)
				continue;
			os->cpu[i].pub.priv[s] = calloc(1, os->pol.part[s]->cpu_priv_size);
			if (!os->cpu[i].pub.priv[s])
				return -TLBSIM_ENOMEM;
		}
	}
	os->init_pgt = tlbsim_pgtable_create(os->pm, m->isa, m->pt_levels);
	if (!os->init_pgt)
		return -TLBSIM_ENOMEM;
	rc = os_lru_init(os);
	if (rc)
		return rc;
	if (m->isa == TLBSIM_ISA_ARM64) {
		unsigned n = m->asid_bits ? 1u << m->asid_bits : 1;

		os->asid_map = calloc((n + 63) / 64, sizeof(uint64_t));
		if (!os->asid_map)
			return -TLBSIM_ENOMEM;
		os->asid_gen = 1;
		os->asid_map[0] = 1; /* ASID 0: the kernel's */
		os->asid_next = 1;
	}
	return os_gasid_init(os);
}

static void os_fini(struct os *os)
{
	uint32_t i;
	unsigned s;

	os_rcu_fini(os);
	for (i = 0; i < os->threads_cap; i++)
		if (os->threads && os->threads[i]) {
			os_evq_free(&os->threads[i]->q);
			free(os->threads[i]->hb);
			os_pfns_free(&os->threads[i]->ubc.pages);
			os_pfns_free(&os->threads[i]->ubc.keys);
			free(os->threads[i]);
		}
	free(os->threads);
	for (i = 0; i < os->nr_retired; i++) {
		os_evq_free(&os->retired[i]->q);
		free(os->retired[i]->hb);
		os_pfns_free(&os->retired[i]->ubc.pages);
		os_pfns_free(&os->retired[i]->ubc.keys);
		free(os->retired[i]);
	}
	os_hb_fini(os);
	free(os->retired);
	os_spill_fini(&os->spill);
	free(os->batch);
	chk_map_fini(&os->pid_live);
	chk_map_fini(&os->swapcache);
	chk_map_fini(&os->pagecache);
	chk_map_fini(&os->file_pages);
	for (i = 0; i < os->nr_mms; i++)
		os_mm_destroy(os, os->mms[i]);
	free(os->mms);
	if (os->cpu)
		for (i = 0; i < os->m->nr_cpus; i++) {
			os_pfns_free(&os->cpu[i].gather.pages);
			os_pfns_free(&os->cpu[i].gather.tables);
			os_pfns_free(&os->cpu[i].ptl_held);
			for (s = 0; s < TLBSIM_POLICY_SLOTS; s++)
				free(os->cpu[i].pub.priv[s]);
		}
	free(os->cpu);
	os_lru_fini(os);
	os_lines_fini(os);
	tlbsim_pgtable_destroy(os->init_pgt);
	chk_destroy(os->oracle);
	free(os->ord_started);
	free(os->ord_thread);
	if (os->smp.cpu)
		hw_smp_fini(&os->smp);
	eng_fini(&os->eng);
	tlbsim_physmem_destroy(os->pm);
	free(os->mapcount);
	free(os->asid_map);
	free(os->gasid_used);
	os_policy_fini(&os->pol);
}

int tlbsim_sim_create(const struct tlbsim_sim_config *cfg, tlbsim_sim **out, struct tlbsim_error *err)
{
	tlbsim_sim *sim;
	int rc;

	if (!out)
		return -TLBSIM_EINVAL;
	*out = NULL;
	if (!cfg || !cfg->machine || cfg->threads < 0)
		return err_set(err, -TLBSIM_EINVAL, "<config>", -1, -1, -1, NULL,
			       "a simulation needs a machine and threads >= 0");
	rc = tlbsim_machine_validate(cfg->machine, err);
	if (rc)
		return rc;
	if ((cfg->os_flags & TLBSIM_OS_FAULT_LOCK_MM) && (cfg->os_flags & TLBSIM_OS_FAULT_LOCKLESS))
		return err_set(err, -TLBSIM_EINVAL, "<config>", -1, -1, -1, NULL,
			       "os_flags: one page-fault locking mode expected, found both "
			       "TLBSIM_OS_FAULT_LOCK_MM and TLBSIM_OS_FAULT_LOCKLESS");
	sim = calloc(1, sizeof(*sim));
	if (!sim)
		return -TLBSIM_ENOMEM;
	rc = os_init(&sim->os, cfg, err);
	if (rc) {
		tlbsim_sim_destroy(sim);
		return rc == -TLBSIM_ENOMEM
			       ? err_set(err, rc, "<config>", -1, -1, -1, NULL, "out of memory")
			       : rc;
	}
	*out = sim;
	return 0;
}

/*
 * After the run: the events read for threads that never ran them.  Those
 * of a thread no event created are counted (unknown_thread_events: an
 * excerpt of a longer trace has them).  A run that read its source to
 * the end (@complete) can also leave those of a thread asleep at a SLEEP
 * that no later event wakes (no `wake` of it follows, or only in the
 * streams of threads asleep themselves).  No correct trace has them: the
 * thread's later events happened, so something woke it first.  Ordered
 * replay stops on them as it meets them ("ordered replay is stuck"); here
 * they are an input error at the end, the earliest such SLEEP (trace
 * order) named.
 */
static void unrun_events(struct os *os, bool complete)
{
	const struct os_thread *first = NULL;
	uint64_t left = 0;

	for (uint32_t i = 0; i < os->threads_cap + os->nr_retired; i++) {
		const struct os_thread *t =
		    i < os->threads_cap ? os->threads[i] : os->retired[i - os->threads_cap];

		if (!t)
			continue;
		if (t->state == OS_T_NEW)
			os->st.unknown_thread_events += os_evq_len(&t->q);
		if (complete && t->state == OS_T_SLEEPING && os_evq_len(&t->q)) {
			if (!first || t->sleep_idx < first->sleep_idx)
				first = t;
			left += os_evq_len(&t->q);
		}
	}
	if (!first)
		return;
	os->source_error = err_set_event(
	    os->err, -TLBSIM_EINVAL, os->source_name, (long long)first->sleep_idx,
	    "event %llu (sleep): thread %u sleeps for good: no later event wakes it (a `wake %u` "
	    "by a thread that runs expected after it), and %llu of its events after it cannot run "
	    "(%llu of sleeping threads in all)",
	    (unsigned long long)first->sleep_idx, first->tid, first->tid,
	    (unsigned long long)os_evq_len(&first->q), (unsigned long long)left);
}

/* tlbsim_sim_run() with @next, or tlbsim_sim_run_batch() with @next_batch. */
static int run(struct os *os, tlbsim_event_source_fn next, tlbsim_event_batch_fn next_batch,
	       void *arg, struct tlbsim_error *err)
{
	uint32_t i;
	int rc;

	os->next = next;
	os->next_batch = next_batch;
	os->next_arg = arg;
	os->err = err;
	prime(os);
	rc = eng_run(&os->eng, os->max_cycles ? os->max_cycles : ENG_NEVER);
	if (rc < 0)
		return rc;
	if (rc > 0)
		os->stopped_early = true;
	/* Idle cpus were idle until the end: account it, so that every
	 * cpu's clock ends at the simulated time (engine clocks of idle
	 * cores only move when something reaches them). */
	{
		uint64_t end = 0;

		for (i = 0; i < os->m->nr_cpus; i++)
			if (os->eng.cores[i].now > end)
				end = os->eng.cores[i].now;
		for (i = 0; i < os->m->nr_cpus; i++) {
			struct eng_core *c = &os->eng.cores[i];

			if (c->state == ENG_IDLE && c->now < end) {
				c->st.idle += end - c->now;
				c->now = end;
			}
		}
	}
	/* Pages still waiting for a grace period: nothing runs any more. */
	os_rcu_advance(os, ENG_NEVER - 1);
	unrun_events(os, !os->source_error && !os->stopped_early);
	if (os->source_error)
		return os->source_error;
	return os->stopped_early ? 1 : 0;
}

int tlbsim_sim_run(tlbsim_sim *sim, tlbsim_event_source_fn next, void *arg, struct tlbsim_error *err)
{
	return run(&sim->os, next, NULL, arg, err);
}

int tlbsim_sim_run_batch(tlbsim_sim *sim, tlbsim_event_batch_fn next, void *arg,
			 struct tlbsim_error *err)
{
	return run(&sim->os, NULL, next, arg, err);
}

void tlbsim_sim_stop(tlbsim_sim *sim)
{
	/* Async-signal-safe: one store to a lock-free atomic (engine.h). */
	atomic_store_explicit(&sim->os.eng.stop_requested, 1, memory_order_relaxed);
}

char *tlbsim_sim_stats_json(const tlbsim_sim *sim)
{
	return os_stats_json(&sim->os);
}

/* Copy what the caller's @size and ours both hold; zero what only it knows. */
static void copy_sized(void *dst, size_t size, const void *src, size_t ours)
{
	memcpy(dst, src, size < ours ? size : ours);
	if (size > ours)
		memset((char *)dst + ours, 0, size - ours);
}

int tlbsim_sim_stats(const tlbsim_sim *sim, struct tlbsim_stats *st, size_t size)
{
	struct tlbsim_stats s;

	if (!sim || !st || !size)
		return -TLBSIM_EINVAL;
	os_run_stats(&sim->os, &s);
	copy_sized(st, size, &s, sizeof(s));
	return 0;
}

int tlbsim_sim_cpu_stats(const tlbsim_sim *sim, unsigned cpu, struct tlbsim_cpu_stats *st,
			 size_t size)
{
	const struct os *os = sim ? &sim->os : NULL;
	struct tlbsim_cpu_stats s;

	if (!os || !st || !size || (cpu >= os->m->nr_cpus && cpu != TLBSIM_STATS_TOTAL))
		return -TLBSIM_EINVAL;
	os_cpu_stats(os, cpu, &s);
	copy_sized(st, size, &s, sizeof(s));
	return 0;
}

int tlbsim_sim_line_stats(const tlbsim_sim *sim, unsigned cpu, unsigned kind,
			  struct tlbsim_line_stats *st, size_t size)
{
	const struct os *os = sim ? &sim->os : NULL;
	struct tlbsim_line_stats s;

	if (!os || !st || !size || kind >= TLBSIM_LINE_NR_KINDS ||
	    (cpu >= os->m->nr_cpus && cpu != TLBSIM_STATS_TOTAL))
		return -TLBSIM_EINVAL;
	os_line_stats(os, cpu, kind, &s);
	copy_sized(st, size, &s, sizeof(s));
	return 0;
}

void tlbsim_sim_destroy(tlbsim_sim *sim)
{
	if (!sim)
		return;
	os_fini(&sim->os);
	free(sim);
}

struct os *os_of_sim(tlbsim_sim *sim)
{
	return &sim->os;
}
