/* SPDX-License-Identifier: MIT */
/*
 * The process and its threads in a lackey log (traces/FORMAT.md,
 * "Threads"): valgrind's scheduler lines, "--pid--   SCHED[n]: ...", say
 * which thread holds valgrind's lock and so performs the lackey lines that
 * follow.  n is valgrind's own thread id (1, 2, ... reused after an exit);
 * events carry the Linux tid: the pid for thread 1, and for the others the
 * value clone() returned, bound to the first valgrind thread that runs
 * after it (valgrind makes the parent yield right after clone()).
 *
 * Valgrind runs one thread at a time, and that order is not kept (no
 * SWITCH events): on replay the threads run concurrently.  But a thread
 * back from a blocking syscall (a futex wait, a read) ran again because
 * another let it: a WAKE from the thread that held the lock last, and a
 * SLEEP in its own stream, keep that happens-before edge of the log.
 */
#include <stdlib.h>
#include <string.h>

#include "lackey.h"

struct lk_thread *lk_slot(struct lackey *lk, uint32_t vtid)
{
	if (vtid >= lk->nr_th) {
		uint32_t n = vtid + 16;
		struct lk_thread *th = realloc(lk->th, n * sizeof(*th));

		if (!th)
			return NULL;
		memset(th + lk->nr_th, 0, (n - lk->nr_th) * sizeof(*th));
		lk->th = th;
		lk->nr_th = n;
	}
	return &lk->th[vtid];
}

int lk_set_pid(struct tlbsim_trace_reader *r, struct tlbsim_error *err, uint64_t pid,
	       const char *at)
{
	struct lackey *lk = r->priv;
	struct tlbsim_event *ev;
	struct lk_thread *main_th;

	if (pid == lk->pid)
		return 0;
	if (lk->pid)
		return lk_bad(r, err, -TLBSIM_ENOTSUP, at,
			      "lines of process %u expected, found process %llu: lackey does not "
			      "say which process an access is from, so logs of programs that fork "
			      "are not supported",
			      lk->pid, (unsigned long long)pid);
	if (pid == 0 || pid > UINT32_MAX)
		return lk_bad(r, err, -TLBSIM_ERANGE, at, "a process id 1..2^32-1 expected");
	lk->pid = (uint32_t)pid;
	lk->marker_len = (size_t)snprintf(lk->marker, sizeof(lk->marker), "--%u--", lk->pid);
	/* Valgrind's thread 1 is the process's first thread: Linux tid = pid. */
	main_th = lk_slot(lk, 1);
	ev = lk_push(lk, TLBSIM_EV_PROC_CREATE, TLBSIM_TID_NONE);
	if (!main_th || !ev)
		return lk_bad(r, err, -TLBSIM_ENOMEM, at, "out of memory");
	main_th->tid = lk->pid;
	ev->proc_create.pid = lk->pid;
	ev->proc_create.tid = lk->pid;
	return 0;
}

/* "SCHED[n]: message" after a "--pid--" prefix. */
int lk_sched_line(struct tlbsim_trace_reader *r, struct tlbsim_error *err, const char *p,
		  const char *end, const char *line)
{
	struct lackey *lk = r->priv;
	const char *n = p + 6;
	struct lk_thread *th;
	uint64_t vtid;

	p = n;
	if (lk_parse_dec(&p, end, &vtid) < 0 || !lk_starts(p, end, "]:") || vtid == 0)
		return lk_bad(r, err, -TLBSIM_EPARSE, n, "SCHED[<thread>]: expected");
	if (vtid >= LK_MAX_VTID)
		return lk_bad(r, err, -TLBSIM_ERANGE, n, "a valgrind thread id below %u expected",
			      LK_MAX_VTID);
	if (!(th = lk_slot(lk, (uint32_t)vtid)))
		return lk_bad(r, err, -TLBSIM_ENOMEM, n, "out of memory");
	for (p += 2; p < end && *p == ' '; p++)
		;
	if (lk_starts(p, end, "acquired lock")) {
		if (!th->tid) {
			/* clone() runs first in the parent, which then yields: the
			 * oldest clone not yet running is this thread's. */
			if (!lk->nr_clones)
				return lk_bad(r, err, -TLBSIM_EPARSE, n,
					      "valgrind thread %llu runs, but no clone() made a "
					      "thread for it",
					      (unsigned long long)vtid);
			th->tid = lk->clones[0];
			memmove(lk->clones, lk->clones + 1, --lk->nr_clones * sizeof(*lk->clones));
		}
		if (th->blocked && lk->last && lk->last != vtid && lk->th[lk->last].tid) {
			/* Back from a blocking syscall: whoever ran last let it go
			 * on.  "wake" in their stream, "sleep" in its own, keep
			 * that order on replay (a wake first leaves a token). */
			struct tlbsim_event *wake =
			    lk_push(lk, TLBSIM_EV_WAKE, lk->th[lk->last].tid);

			if (wake)
				wake->wake.tid = th->tid;
			if (!wake || !lk_push(lk, TLBSIM_EV_SLEEP, th->tid))
				return lk_bad(r, err, -TLBSIM_ENOMEM, n, "out of memory");
		}
		th->blocked = 0;
		lk->cur = lk->last = (uint32_t)vtid;
	} else if (lk_starts(p, end, "releasing lock") || lk_starts(p, end, "release lock in")) {
		/* "releasing lock (VG_(client_syscall)[async]) -> VgTs_WaitSys":
		 * the thread blocks in a syscall, unlike a yield or a timeslice end */
		th->blocked =
		    th->tid && lk_starts(p, end, "releasing lock (VG_(client_syscall)[async])");
		lk->cur = 0;
	} else if (lk_starts(p, end, "exiting VG_(scheduler)")) {
		struct tlbsim_event *ev;

		if (!th->tid)
			return lk_bad(r, err, -TLBSIM_EPARSE, n,
				      "valgrind thread %llu exits, but it never ran",
				      (unsigned long long)vtid);
		if (!(ev = lk_push(lk, TLBSIM_EV_EXIT, th->tid)))
			return lk_bad(r, err, -TLBSIM_ENOMEM, n, "out of memory");
		if (lk->cont == vtid)
			lk->cont = 0;
		if (lk->last == vtid)
			lk->last = 0;
		/* Valgrind prints "releasing lock" after this line; an access in
		 * between would be made by no thread (found by fuzz_lackey). */
		if (lk->cur == vtid)
			lk->cur = 0;
		memset(th, 0, sizeof(*th)); /* a syscall it was in never returns */
	} else if (!lk_starts(p, end, "entering VG_(scheduler)")) {
		trace_note_unknown(r, lk->line_no, line, (size_t)(end - line));
	}
	return 0;
}
