/* SPDX-License-Identifier: MIT */
/*
 * mmap_lock as Linux's rw_semaphore serves it (kernel/locking/rwsem.c,
 * Linux 5.3 to 6.x): a count taken with an atomic (one line per mm, the
 * line model, os/lines.c) and a FIFO wait list.
 *
 *  - A cpu takes the lock at once when it is free for it (no writer; no
 *    reader either, for a writer) and no one waits; else it reads the count
 *    once, joins the tail of the wait list (rwsem_add_waiter()) and sleeps:
 *    its core blocks in the engine with no deadline, and the windows leave
 *    it out until it is woken.  With the lock held and waiters queued, a
 *    newcomer never passes them (the lock is never free while anyone
 *    waits: a release hands it over, below).
 *  - A release (up_read() of the last reader, up_write(), downgrade_write())
 *    wakes the head of the list (rwsem_wake() -> rwsem_mark_wake()): a
 *    writer at the head gets the lock alone, once no one holds it; a reader
 *    at the head gets it together with every other reader on the list, at
 *    most MAX_READERS_WAKEUP (256), while the writers keep their places
 *    (the "phase-fair" wake-up of d3681e269fff, Linux 5.3: before it, only
 *    the readers up to the first writer).  downgrade_write() wakes the
 *    readers only (RWSEM_WAKE_READ_OWNED).
 *  - Handoff: the woken cpu owns the lock when it wakes; nothing can take
 *    it in between.  Linux grants the readers so (the waker adds their
 *    counts), and a woken writer takes it with its own cmpxchg, which a
 *    third cpu could beat by optimistic spinning unless the handoff bit is
 *    set: the model has no spinning, so the woken writer always wins.
 *  - Time: the woken cpu resumes at its own clock or at the release,
 *    whichever is later, then pays for the lock word coming from the
 *    releaser (the line model's transfer): a writer's cmpxchg on it
 *    (rwsem_try_write_lock()), a reader's read of what the waker wrote
 *    (smp_load_acquire() of its waiter entry).  The release itself is the
 *    releaser's atomic on the count, as before.  Its event then runs in
 *    the next serial phase.
 *
 * All of it is serial (grants happen where a release is served): the
 * order of the list is the order of the serial phase, (clock, cpu id), so
 * who wakes when does not depend on the number of host threads.
 *
 * A sleeping waiter whose cpu has other threads to run gives up at the end
 * of its time slice (the step parks it for a reschedule): it leaves the
 * list (rwsem_del_waiter(), as an interrupted down_*_killable() does) and
 * queues again when its thread runs again.  (Linux would run the other
 * threads at once while the waiter sleeps; the OS model keeps a thread on
 * its cpu until its slice ends.)
 */
#include <stdlib.h>

#include "bug.h"
#include "os/os.h"

/* Readers one wake-up hands the lock to at most (Linux MAX_READERS_WAKEUP). */
#define READERS_WAKEUP 256

/* Cycles @w has been blocked on its flushes (IPI acknowledgements, DSB,
 * TLBSYNC) up to @t: the blocks that ended, and the one in progress. */
static uint64_t flush_blocked(const struct hw_cpu *w, uint64_t t)
{
	uint64_t b = w->st.blocked_cycles;

	if (w->waiting_for && t > w->wait_start)
		b += t - w->wait_start;
	return b;
}

/* Cycles @mm's write holders have spent blocked on their flushes while
 * holding the lock, up to @t (flush_lock_wait_cycles). */
static uint64_t write_flush(const struct os *os, const struct os_mm *mm, uint64_t t)
{
	uint64_t f = mm->lock_flush_base;

	if (mm->lock_writer) {
		uint64_t b = flush_blocked(&os->smp.cpu[mm->lock_writer - 1], t);

		f += b > mm->lock_flush_acq ? b - mm->lock_flush_acq : 0;
	}
	return f;
}

static void set_writer(struct os_mm *mm, const struct hw_cpu *cpu)
{
	mm->lock_writer = cpu->id + 1;
	mm->lock_flush_acq = cpu->st.blocked_cycles;
}

/* @cpu holds @mm's lock now, for writing or reading. */
static void take(struct os_mm *mm, struct hw_cpu *cpu, bool write)
{
	struct os_cpu *oc = os_cpu_of(cpu);

	if (write)
		set_writer(mm, cpu);
	else
		mm->lock_readers++;
	oc->locked = mm;
	oc->locked_write = write;
}

static void clear_writer(struct os *os, struct os_mm *mm, uint64_t t)
{
	mm->lock_flush_base = write_flush(os, mm, t);
	mm->lock_writer = 0;
}

/* @cpu's wait on @mm's list is over at its clock: its statistics. */
static void account_wait(const struct os *os, struct hw_cpu *cpu, const struct os_mm *mm)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	const struct eng_core *c = cpu->core;
	uint64_t wait = c->now - oc->mmap_wait_start - (c->st.stolen - oc->mmap_wait_stolen);
	uint64_t f = write_flush(os, mm, c->now) - oc->mmap_wait_flush;

	oc->st.mmap_lock_wait_cycles += wait;
	oc->st.flush_lock_wait_cycles += f < wait ? f : wait;
}

/* Hand @mm's lock to the waiter @w (a lock_wait entry) released at @t. */
static void grant(struct os *os, struct os_mm *mm, uint32_t w, uint64_t t)
{
	bool write = w & OS_LOCK_WAIT_WRITE;
	struct hw_cpu *cpu = &os->smp.cpu[w & ~OS_LOCK_WAIT_WRITE];
	struct os_cpu *oc = os_cpu_of(cpu);
	struct eng_core *c = cpu->core;

	BUG_ON(oc->mmap_waiting != mm, "a waiter on the wait list it is on");
	if (c->now < t) {
		c->st.waiting += t - c->now;
		c->now = t;
	}
	account_wait(os, cpu, mm);
	os_line(os, cpu, TLBSIM_LINE_MMAP_LOCK, &mm->mmap_line, write ? FAB_RMW : FAB_READ, 0);
	take(mm, cpu, write);
	oc->mmap_waiting = NULL;
	oc->mmap_granted = true;
	/* Its event (the syscall or fault at its thread's head) runs in the
	 * next serial phase. */
	oc->park = OS_PARK_EVENT;
	c->state = ENG_PARKED;
	c->wake_time = ENG_NEVER;
	eng_wake(&os->eng, c);
}

/* rwsem_mark_wake(): hand @mm's lock, released at @t, to the head of its
 * wait list if it can have it (a writer once no one holds the lock; the
 * waiting readers while no writer does). */
static void wake_waiters(struct os *os, struct os_mm *mm, uint64_t t)
{
	unsigned i, n = 0, woken = 0;

	if (!mm->lock_nr_wait || mm->lock_writer)
		return;
	if (mm->lock_wait[0] & OS_LOCK_WAIT_WRITE) {
		if (mm->lock_readers)
			return;
		grant(os, mm, mm->lock_wait[0], t);
		for (i = 1; i < mm->lock_nr_wait; i++)
			mm->lock_wait[i - 1] = mm->lock_wait[i];
		mm->lock_nr_wait--;
		return;
	}
	for (i = 0; i < mm->lock_nr_wait; i++) {
		uint32_t w = mm->lock_wait[i];

		if (!(w & OS_LOCK_WAIT_WRITE) && woken < READERS_WAKEUP) {
			grant(os, mm, w, t);
			woken++;
		} else {
			mm->lock_wait[n++] = w;
		}
	}
	mm->lock_nr_wait = n;
}

/* @cpu joins the tail of @mm's wait list; false when out of memory. */
static bool add_waiter(struct os *os, struct hw_cpu *cpu, struct os_mm *mm, bool write)
{
	struct os_cpu *oc = os_cpu_of(cpu);

	BUG_ON(mm->lock_nr_wait >= os->m->nr_cpus, "a cpu waits on one list once at most");
	if (mm->lock_nr_wait == mm->lock_cap_wait) {
		/* Room for every cpu: the list never outgrows them. */
		uint32_t *n = realloc(mm->lock_wait, os->m->nr_cpus * sizeof(*n));

		if (!n) {
			os_out_of_memory(os, "an mmap_lock wait list", 0);
			return false;
		}
		mm->lock_wait = n;
		mm->lock_cap_wait = os->m->nr_cpus;
	}
	mm->lock_wait[mm->lock_nr_wait++] = cpu->id | (write ? OS_LOCK_WAIT_WRITE : 0);
	oc->mmap_waiting = mm;
	oc->mmap_wait_start = cpu->core->now;
	oc->mmap_wait_stolen = cpu->core->st.stolen;
	oc->mmap_wait_flush = write_flush(os, mm, cpu->core->now);
	return true;
}

bool os_mmap_lock(struct os *os, struct hw_cpu *cpu, struct os_mm *mm, const struct tlbsim_event *ev)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	bool write = ev && ev->kind != TLBSIM_EV_MADVISE;
	/* With per-VMA locks a fault takes its VMA's lock, not mmap_lock
	 * (os_fault()), unless a writer holds mmap_lock: the VMA may be
	 * changing, and the fault falls back to mmap_lock for reading
	 * (lock_vma_under_rcu() failing, lock_mm_and_find_vma()). */
	bool vma_fault = !ev && os->per_vma_lock;

	if (!mm || oc->locked || oc->fault_line)
		return true;
	if (oc->mmap_waiting)
		return false; /* still on the list, woken for its slice's end */
	if (mm->lock_writer || (write && mm->lock_readers) || (!vma_fault && mm->lock_nr_wait)) {
		/* The failed fast path's atomic; then the waiter sleeps until
		 * a release hands it the lock, touching nothing. */
		os_line(os, cpu, TLBSIM_LINE_MMAP_LOCK, &mm->mmap_line, FAB_READ, 0);
		(void)add_waiter(os, cpu, mm, write);
		return false;
	}
	if (vma_fault)
		return true;
	/* down_read()/down_write(); a fault holds it for reading until its
	 * return (os_kernel_exit()), across its flush's wait too. */
	os_line(os, cpu, TLBSIM_LINE_MMAP_LOCK, &mm->mmap_line, FAB_RMW, 0);
	take(mm, cpu, write);
	return true;
}

void os_mmap_wait(struct os *os, struct hw_cpu *cpu)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	struct eng_core *c = cpu->core;
	uint64_t until = ENG_NEVER;

	oc->park = OS_PARK_NONE;
	if (!oc->mmap_waiting) {
		/* Not on the list (out of memory, which stops the run): try
		 * again in the next window. */
		eng_block(c, c->now + os->eng.window);
		return;
	}
	if (oc->rq_len && oc->slice_end != ENG_NEVER)
		until = oc->slice_end > c->now ? oc->slice_end : c->now + 1;
	eng_block(c, until);
}

void os_mmap_give_up(struct os *os, struct hw_cpu *cpu)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	struct os_mm *mm = oc->mmap_waiting;
	unsigned i, n = 0;

	if (!mm)
		return;
	account_wait(os, cpu, mm);
	for (i = 0; i < mm->lock_nr_wait; i++)
		if ((mm->lock_wait[i] & ~OS_LOCK_WAIT_WRITE) != cpu->id)
			mm->lock_wait[n++] = mm->lock_wait[i];
	mm->lock_nr_wait = n;
	oc->mmap_waiting = NULL;
	/* A writer that leaves the head may let the readers behind it in
	 * (rwsem_down_write_slowpath()'s out_nolock: rwsem_mark_wake()). */
	wake_waiters(os, mm, cpu->core->now);
}

void os_mmap_rq_changed(struct os *os, struct hw_cpu *cpu)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	struct eng_core *c = cpu->core;

	if (!oc->mmap_waiting || c->state != ENG_BLOCKED || c->wake_time != ENG_NEVER ||
	    oc->slice_end == ENG_NEVER)
		return;
	c->wake_time = oc->slice_end > c->now ? oc->slice_end : c->now + 1;
	eng_wake(&os->eng, c);
}

void os_mmap_unlock(struct os *os, struct hw_cpu *cpu)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	struct os_mm *mm = oc->locked;

	if (!mm)
		return;
	os_line(os, cpu, TLBSIM_LINE_MMAP_LOCK, &mm->mmap_line, FAB_RMW, 0);
	if (oc->locked_write)
		clear_writer(os, mm, cpu->core->now);
	else
		mm->lock_readers--;
	oc->locked = NULL;
	oc->mmap_granted = false;
	if (!mm->lock_readers)
		wake_waiters(os, mm, cpu->core->now);
}

void os_mmap_downgrade(struct os *os, struct hw_cpu *cpu, struct os_mm *mm)
{
	struct os_cpu *oc = os_cpu_of(cpu);

	if (oc->locked != mm || !oc->locked_write)
		return;
	/* downgrade_write(): an atomic on the rwsem's count, then the
	 * waiting readers in (rwsem_downgrade_wake()). */
	os_line(os, cpu, TLBSIM_LINE_MMAP_LOCK, &mm->mmap_line, FAB_RMW, 0);
	clear_writer(os, mm, cpu->core->now);
	mm->lock_readers++;
	oc->locked_write = false;
	wake_waiters(os, mm, cpu->core->now);
}
