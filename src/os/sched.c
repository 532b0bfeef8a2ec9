/* SPDX-License-Identifier: MIT */
/*
 * Threads, processes and the scheduler.
 *
 * Placement: a thread placed by a SWITCH event stays on that cpu (cpu
 * numbers beyond the machine's are taken modulo its size); others go
 * to the cpu they last ran on if it is idle, else to the least loaded cpu
 * (running + queued), lowest number first, among the cpus an AFFINITY
 * event allowed them or their creator (inherited, as cpus_mask is).  Each cpu has a FIFO runqueue
 * and preempts at the end of a time slice when others wait (a round-robin
 * stand-in for CFS; the point here is when switch_mm runs and which cpus
 * hold which mm).  A cpu with nothing to run goes idle in lazy TLB mode,
 * keeping the last mm loaded (Linux enter_lazy_tlb(), kernel/sched/core.c
 * context_switch()).
 *
 * Lifecycle: PROC_CREATE starts a process with an empty address space;
 * THREAD_CREATE a thread sharing the creator's; FORK a process whose
 * address space is a copy-on-write copy; EXEC gives the thread's process
 * a new, empty one (execve()); EXIT ends a thread, and its process's
 * address space with the last one (exit_mmap()).  KTHREAD_CREATE
 * starts a kernel thread, which has no address space: switched to, it
 * leaves the cpu's mm loaded lazily (context_switch(): enter_lazy_tlb());
 * KTHREAD_USE_MM makes it borrow a process's mm (kthread_use_mm():
 * switch_mm to it; with mmget an mm_users reference that keeps exit_mmap
 * off until KTHREAD_UNUSE_MM drops it), KTHREAD_UNUSE_MM returns to lazy
 * mode (kthread_unuse_mm(): enter_lazy_tlb()).  A tid may be
 * reused after its thread exited (as Linux reuses pids): the new thread is
 * another struct os_thread, and the old one lives on in os->retired.
 */
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "os/os.h"
#include "tlbsim/error.h"

/* ---- the thread table ------------------------------------------------------ */

static uint32_t tid_hash(uint32_t tid, uint32_t cap)
{
	return (tid * 2654435761u) & (cap - 1);
}

static int threads_grow(struct os *os)
{
	uint32_t cap = os->threads_cap ? 2 * os->threads_cap : 64, i;
	struct os_thread **n = calloc(cap, sizeof(*n));

	if (!n)
		return -TLBSIM_ENOMEM;
	for (i = 0; i < os->threads_cap; i++) {
		struct os_thread *t = os->threads[i];
		uint32_t h;

		if (!t)
			continue;
		for (h = tid_hash(t->tid, cap); n[h]; h = (h + 1) & (cap - 1))
			;
		n[h] = t;
	}
	free(os->threads);
	os->threads = n;
	os->threads_cap = cap;
	return 0;
}

struct os_thread *os_thread_get_slow(struct os *os, uint32_t tid, bool create)
{
	struct os_thread *t;
	uint32_t h;

	if (os->threads_cap) {
		for (h = tid_hash(tid, os->threads_cap); os->threads[h];
		     h = (h + 1) & (os->threads_cap - 1))
			if (os->threads[h]->tid == tid)
				return os->last_thread = os->threads[h];
	}
	if (!create)
		return NULL;
	if (2 * (os->nr_threads + 1) > os->threads_cap && threads_grow(os))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = tid;
	t->cpu = -1;
	t->pinned = -1;
	for (h = tid_hash(tid, os->threads_cap); os->threads[h]; h = (h + 1) & (os->threads_cap - 1))
		;
	os->threads[h] = t;
	os->nr_threads++;
	return os->last_thread = t;
}

/* ---- context switches ------------------------------------------------------ */

static void rq_push(struct os_cpu *oc, struct os_thread *t)
{
	t->rq_next = NULL;
	if (oc->rq_tail)
		oc->rq_tail->rq_next = t;
	else
		oc->rq_head = t;
	oc->rq_tail = t;
	oc->rq_len++;
}

static struct os_thread *rq_pop(struct os_cpu *oc)
{
	struct os_thread *t = oc->rq_head;

	if (!t)
		return NULL;
	oc->rq_head = t->rq_next;
	if (!oc->rq_head)
		oc->rq_tail = NULL;
	oc->rq_len--;
	t->rq_next = NULL;
	return t;
}

/* Run @next on @cpu now (kernel/sched/core.c context_switch()). */
static void switch_to(struct os *os, struct hw_cpu *cpu, struct os_thread *next)
{
	struct os_cpu *oc = os_cpu_of(cpu);

	hw_charge(cpu, os->m->costs.context_switch);
	oc->st.context_switches++;
	oc->curr = next;
	next->state = OS_T_RUNNING;
	next->cpu = (int)cpu->id;
	oc->slice_end = os->m->costs.sched_slice ? cpu->core->now + os->m->costs.sched_slice
						 : ENG_NEVER;
	oc->pub.kthread = next->kthread;
	if (!next->mm) {
		/* A kernel thread with no mm borrowed runs on the loaded one. */
		if (!oc->pub.is_lazy)
			os_enter_lazy(os, cpu, true);
	} else if (&next->mm->pub != oc->pub.loaded_mm || oc->pub.is_lazy) {
		if (&next->mm->pub != oc->pub.loaded_mm)
			oc->st.mm_switches++;
		os_switch_mm(os, cpu, next->mm);
	}
	os_rcu_qs(os, cpu);
	/* A slice shorter than the switch's own costs would end before the
	 * thread ran at all, and two threads on one cpu would switch back
	 * and forth for ever: the thread runs at least its next event. */
	if (oc->slice_end <= cpu->core->now)
		oc->slice_end = cpu->core->now + 1;
	cpu->core->state = ENG_RUNNING;
	/* Maybe an idle cpu other than the one served (os_thread_start()). */
	eng_wake(&os->eng, cpu->core);
}

void os_schedule(struct os *os, struct hw_cpu *cpu)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	struct os_thread *next = rq_pop(oc);

	if (next) {
		switch_to(os, cpu, next);
		return;
	}
	oc->curr = NULL;
	os_enter_lazy(os, cpu, true);
	os_rcu_qs(os, cpu);
	if (cpu->core->state == ENG_PARKED || cpu->core->state == ENG_RUNNING)
		cpu->core->state = ENG_IDLE;
}

static unsigned load_of(const struct os_cpu *oc)
{
	return (oc->curr ? 1 : 0) + oc->rq_len;
}

/* May @t run on @cpu (its AFFINITY set, folded onto the machine)? */
static bool allowed(const struct os *os, const struct os_thread *t, unsigned cpu)
{
	unsigned n = os->m->nr_cpus;

	return !t->aff_count || (cpu + n - t->aff_first) % n < t->aff_count;
}

static unsigned place(struct os *os, struct os_thread *t)
{
	unsigned i, best = t->aff_count ? t->aff_first : 0;

	if (t->pinned >= 0)
		return (unsigned)t->pinned;
	if (t->cpu >= 0 && allowed(os, t, (unsigned)t->cpu) && !load_of(&os->cpu[t->cpu]))
		return (unsigned)t->cpu;
	for (i = 0; i < os->m->nr_cpus; i++)
		if (allowed(os, t, i) && load_of(&os->cpu[i]) < load_of(&os->cpu[best]))
			best = i;
	return best;
}

/* sched_setaffinity(): @t may run on cpus [@first, @first + @count),
 * folded onto the machine as SWITCH folds a cpu it lacks. */
static void set_affinity(struct os *os, struct os_thread *t, unsigned first, unsigned count)
{
	unsigned n = os->m->nr_cpus;

	if (first + count > n)
		os->st.switches_folded++;
	t->aff_first = (uint16_t)(first % n);
	t->aff_count = (uint16_t)(count < n ? count : n);
	t->pinned = -1;
}

/* A thread or process @child created by @parent inherits its cpus (Linux
 * copies cpus_mask in dup_task_struct()); an explicit SWITCH placement is
 * the parent's own. */
static void inherit_affinity(struct os_thread *child, const struct os_thread *parent)
{
	if (child && parent) {
		child->aff_first = parent->aff_first;
		child->aff_count = parent->aff_count;
	}
}

/*
 * execve() of @t (os_sched_event()): a new empty address space, loaded at
 * once (exec_mmap(): activate_mm()), then the old one dropped (mmput():
 * exit_mmap() once nothing else uses it, flushing an mm this cpu no
 * longer has loaded).  Out of memory: the old one stays.
 */
static void exec_mm(struct os *os, struct hw_cpu *cpu, struct os_thread *t)
{
	struct os_mm *old = t->mm, *mm = os_mm_create(os, t->pid);

	if (!mm)
		return;
	mm->pub.users = 1;
	t->mm = mm;
	os_switch_mm(os, cpu, mm);
	os_cpu_of(cpu)->st.mm_switches++;
	if (--old->pub.users == 0)
		os_exit_mm(os, cpu, old, NULL);
}

/*
 * Make @t runnable, from @waker's context (NULL: at the start of the run).
 * An idle cpu starts it at once, no earlier than the waker's clock.
 */
void os_thread_start(struct os *os, struct hw_cpu *waker, struct os_thread *t)
{
	unsigned id = place(os, t);
	struct hw_cpu *cpu = os_hw(os, id);
	struct os_cpu *oc = os_cpu_of(cpu);

	t->state = OS_T_RUNNABLE;
	if (!oc->curr && cpu->core->state == ENG_IDLE && !oc->cont) {
		uint64_t now = waker ? waker->core->now : cpu->core->now;

		if (cpu->core->now < now) {
			cpu->core->st.idle += now - cpu->core->now;
			cpu->core->now = now;
		}
		switch_to(os, cpu, t);
		return;
	}
	rq_push(oc, t);
	os_mmap_rq_changed(os, cpu);
}

void os_preempt(struct os *os, struct hw_cpu *cpu)
{
	struct os_cpu *oc = os_cpu_of(cpu);

	if (!oc->rq_len)
		return;
	oc->curr->state = OS_T_RUNNABLE;
	rq_push(oc, oc->curr);
	os_schedule(os, cpu);
}

/* ---- lifecycle and scheduling events --------------------------------------- */

struct os_thread *os_kthread_new(struct os *os, uint32_t tid)
{
	struct os_thread *t = NULL;

	for (uint32_t i = 0; i < os->nr_retired && !t; i++)
		if (os->retired[i]->tid == tid && os->retired[i]->state == OS_T_NEW)
			t = os->retired[i];
	if (!t)
		t = os_thread_get(os, tid, true);
	if (!t || t->state != OS_T_NEW)
		return NULL;
	t->kthread = true;
	t->pid = 0;
	t->mm = NULL;
	return t;
}

struct os_thread *os_thread_bind(struct os *os, struct os_thread *t, uint32_t pid, struct os_mm *mm)
{
	(void)os;
	if (!t || t->state != OS_T_NEW)
		return NULL;
	t->pid = pid;
	t->mm = mm;
	mm->pub.users++;
	return t;
}

/*
 * A creation carried out now (execution order) names the oldest
 * incarnation of its tid not yet started: with a tid reused after an
 * exit, the trace may have made the later incarnation (route()) before
 * the creation of the earlier one has run.
 */
struct os_thread *os_thread_new(struct os *os, uint32_t tid, uint32_t pid, struct os_mm *mm)
{
	uint32_t i;

	for (i = 0; i < os->nr_retired; i++)
		if (os->retired[i]->tid == tid && os->retired[i]->state == OS_T_NEW)
			return os_thread_bind(os, os->retired[i], pid, mm);
	return os_thread_bind(os, os_thread_get(os, tid, true), pid, mm);
}

struct os_thread *os_thread_renew(struct os *os, struct os_thread *old)
{
	struct os_thread *t;
	uint32_t h;

	if (os->nr_retired == os->cap_retired) {
		uint32_t cap = os->cap_retired ? 2 * os->cap_retired : 16;
		struct os_thread **n = realloc(os->retired, cap * sizeof(*n));

		if (!n)
			return NULL;
		os->retired = n;
		os->cap_retired = cap;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = old->tid;
	t->cpu = -1;
	t->pinned = -1;
	for (h = tid_hash(old->tid, os->threads_cap); os->threads[h] != old;
	     h = (h + 1) & (os->threads_cap - 1))
		;
	os->threads[h] = t;
	os->retired[os->nr_retired++] = old;
	os->nr_threads++;
	return os->last_thread = t;
}

static void after_exit(struct os *os, struct hw_cpu *cpu)
{
	os_schedule(os, cpu);
}

struct os_mm *os_mm_of_pid(struct os *os, uint32_t pid)
{
	for (uint32_t i = os->nr_mms; i-- > 0;)
		if (os->mms[i]->pid == pid && !os->mms[i]->dead)
			return os->mms[i];
	return NULL;
}

/* kthread_use_mm(): @t (a kernel thread on @cpu) borrows @mm. */
static void kthread_use_mm(struct os *os, struct hw_cpu *cpu, struct os_thread *t, struct os_mm *mm,
			   bool mmget)
{
	struct os_cpu *oc = os_cpu_of(cpu);

	t->mm = mm;
	t->mmget = mmget;
	if (mmget)
		mm->pub.users++; /* mmget_not_zero() */
	oc->pub.kthread = true;
	if (&mm->pub != oc->pub.loaded_mm || oc->pub.is_lazy) {
		if (&mm->pub != oc->pub.loaded_mm)
			oc->st.mm_switches++;
		os_switch_mm(os, cpu, mm);
	}
}

/* kthread_unuse_mm(), then the caller's mmput() if it took a reference:
 * the last one tears the mm down (exit_mmap()) from this cpu, and @then
 * runs once that is over; returns whether it did. */
static bool kthread_unuse_mm(struct os *os, struct hw_cpu *cpu, struct os_thread *t,
			     os_cont_fn then)
{
	struct os_mm *mm = t->mm;
	bool put = t->mmget;

	t->mm = NULL;
	t->mmget = false;
	os_enter_lazy(os, cpu, true);
	if (!put || --mm->pub.users)
		return false;
	os_exit_mm(os, cpu, mm, then);
	return true;
}

void os_thread_exit(struct os *os, struct hw_cpu *cpu, struct os_thread *t)
{
	struct os_mm *mm = t->mm;

	t->state = OS_T_EXITED;
	if (t->kthread) {
		/* A kernel thread exiting while it borrows an mm drops it. */
		if (!mm || !kthread_unuse_mm(os, cpu, t, after_exit))
			os_schedule(os, cpu);
		return;
	}
	if (--mm->pub.users == 0) {
		/* exit_mm(): the cpu keeps the mm loaded, lazily, while
		 * exit_mmap() tears it down. */
		os_enter_lazy(os, cpu, false);
		os_exit_mm(os, cpu, mm, after_exit);
		return;
	}
	os_schedule(os, cpu);
}

/* The continuation of a fork whose flush made it wait: nothing left to do
 * but return (os_serve() then commits, os_kernel_exit()). */
static void fork_returned(struct os *os, struct hw_cpu *cpu)
{
	(void)os;
	(void)cpu;
}

void os_sched_event(struct os *os, struct hw_cpu *cpu, const struct tlbsim_event *ev)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	struct os_thread *self = oc->curr, *t;

	switch (ev->kind) {
	case TLBSIM_EV_PROC_CREATE: {
		struct os_mm *mm = os_mm_create(os, ev->proc_create.pid);

		t = mm ? os_thread_new(os, ev->proc_create.tid, ev->proc_create.pid, mm) : NULL;
		inherit_affinity(t, self);
		if (t)
			os_thread_start(os, cpu, t);
		break;
	}
	case TLBSIM_EV_THREAD_CREATE:
		if (self->kthread) {
			oc->st.ignored++; /* a kernel thread has no process to add to */
			break;
		}
		t = os_thread_new(os, ev->thread_create.tid, self->pid, self->mm);
		inherit_affinity(t, self);
		if (t)
			os_thread_start(os, cpu, t);
		break;
	case TLBSIM_EV_KTHREAD_CREATE:
		t = os_kthread_new(os, ev->kthread_create.tid);
		if (t)
			os_thread_start(os, cpu, t);
		break;
	case TLBSIM_EV_KTHREAD_USE_MM: {
		struct os_mm *mm = os_mm_of_pid(os, ev->kthread_use_mm.pid);

		/* Only a kernel thread borrows, one mm at a time, of a live
		 * process (mmget_not_zero() fails on an exited one). */
		if (!self->kthread || self->mm || !mm) {
			oc->st.ignored++;
			break;
		}
		kthread_use_mm(os, cpu, self, mm, ev->kthread_use_mm.mmget);
		break;
	}
	case TLBSIM_EV_KTHREAD_UNUSE_MM:
		if (!self->kthread || !self->mm) {
			oc->st.ignored++;
			break;
		}
		(void)kthread_unuse_mm(os, cpu, self, NULL);
		break;
	case TLBSIM_EV_FORK: {
		struct os_mm *mm;

		if (!self->mm || self->kthread) {
			oc->st.ignored++;
			break;
		}
		mm = os_fork_mm(os, cpu, self->mm, ev->fork.pid);

		t = mm ? os_thread_new(os, ev->fork.tid, ev->fork.pid, mm) : NULL;
		inherit_affinity(t, self);
		if (t)
			os_thread_start(os, cpu, t);
		/* fork() returns once its flush of the parent is over. */
		if (cpu->core->state == ENG_BLOCKED && !os_cpu_of(cpu)->cont)
			os_cpu_of(cpu)->cont = fork_returned;
		else
			os_kernel_exit(os, cpu);
		break;
	}
	case TLBSIM_EV_EXIT:
		os_thread_exit(os, cpu, self);
		break;
	case TLBSIM_EV_EXEC:
		/* A kernel thread has no process image to replace (Linux's
		 * kernel threads exec nothing of their own; a borrowed mm is
		 * not theirs to drop). */
		if (self->kthread) {
			oc->st.ignored++;
			break;
		}
		exec_mm(os, cpu, self);
		/* execve() returns once the old mm's flush is over. */
		if (cpu->core->state == ENG_BLOCKED && !os_cpu_of(cpu)->cont)
			os_cpu_of(cpu)->cont = fork_returned;
		else if (!os_cpu_of(cpu)->cont)
			os_kernel_exit(os, cpu);
		break;
	case TLBSIM_EV_AFFINITY:
		set_affinity(os, self, ev->affinity.first, ev->affinity.count);
		if (!allowed(os, self, cpu->id)) {
			/* Migrate, as a SWITCH does. */
			os_schedule(os, cpu);
			os_thread_start(os, cpu, self);
		}
		break;
	case TLBSIM_EV_SLEEP:
		if (self->wake_tokens) {
			self->wake_tokens--;
			break;
		}
		self->state = OS_T_SLEEPING;
		self->sleep_idx = (uint64_t)os->serving;
		os_schedule(os, cpu);
		break;
	case TLBSIM_EV_WAKE:
		t = os_thread_get(os, ev->wake.tid, false);
		for (uint32_t i = 0; i < os->nr_retired; i++)
			if (os->retired[i]->tid == ev->wake.tid && os->retired[i]->state != OS_T_EXITED) {
				t = os->retired[i];
				break;
			}
		if (!t || t->state == OS_T_EXITED)
			break;
		if (t->state == OS_T_SLEEPING)
			os_thread_start(os, cpu, t);
		else
			t->wake_tokens++;
		break;
	case TLBSIM_EV_YIELD:
		os_preempt(os, cpu);
		break;
	case TLBSIM_EV_SWITCH:
		/* A trace recorded on a larger machine names cpus this one
		 * lacks: fold them onto it, keeping distinct cpus apart as
		 * far as it can. */
		self->pinned = (int)(ev->cpu % os->m->nr_cpus);
		if (ev->cpu >= os->m->nr_cpus)
			os->st.switches_folded++;
		if ((unsigned)self->pinned != cpu->id) {
			/* Migrate: leave this cpu, start on the other. */
			os_schedule(os, cpu);
			os_thread_start(os, cpu, self);
		}
		break;
	default:
		BUG_ON(1, "lifecycle and scheduling events only");
	}
}
