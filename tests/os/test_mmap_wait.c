/* SPDX-License-Identifier: MIT */
/*
 * The mmap_lock's wait list (src/os/mmap_lock.c, Linux
 * kernel/locking/rwsem.c rwsem_mark_wake()): who a release hands the lock
 * to, and when the woken cpu resumes.  The OS is driven directly on a
 * simulation that has not run, the cpus' clocks set by hand, as in
 * test_lines.c; each expected value is worked out in the comment above
 * it from the machine below and the line model (src/fabric/line.c).
 *
 * Machine: test_machine() (support/machines.h), 4 cpus in one cluster,
 * with a lock line that crosses cpus in L = 50 cycles and an atomic of
 * A = 20 cycles (the round numbers the line model needs; the machine
 * files take them from CALIBRATION.md 2.1).  Line model: an atomic at t
 * starts when the line's previous exclusive use is over, pays the
 * transfer from the farthest other holder (0 from itself, 0 for a line
 * still in memory) and then A; a read pays the transfer from the last
 * writer unless the cpu holds a copy, and keeps a copy.
 */
#include "support/sim.h"

#define L 50
#define A 20

struct lab {
	struct tlbsim_machine *m;
	tlbsim_sim *sim;
	struct os *os;
	struct os_mm *mm;
};

static void lab_open(struct lab *b)
{
	struct tlbsim_sim_config cfg = {0};
	struct tlbsim_error err;

	b->m = test_machine(TLBSIM_ISA_X86_64, 4);
	b->m->topology.line_cluster = b->m->topology.line_node = L;
	b->m->topology.line_socket = b->m->topology.line_remote = L;
	b->m->costs.atomic_rmw = A;
	cfg.machine = b->m;
	cfg.threads = 1;
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_sim_create(&cfg, &b->sim, &err), 0);
	b->os = os_of_sim(b->sim);
	b->mm = os_mm_create(b->os, 1);
	assert_non_null(b->mm);
}

static void lab_close(struct lab *b)
{
	tlbsim_sim_destroy(b->sim);
	tlbsim_machine_free(b->m);
}

static const struct tlbsim_event writer = {.kind = TLBSIM_EV_MPROTECT};
static const struct tlbsim_event reader = {.kind = TLBSIM_EV_MADVISE};

/* cpu @id asks for the lock at @t (as writer or reader); true if it got it,
 * else it is on the list and blocked. */
static bool ask(struct lab *b, unsigned id, uint64_t t, const struct tlbsim_event *ev)
{
	struct hw_cpu *cpu = os_hw(b->os, id);

	cpu->core->now = t;
	cpu->core->state = ENG_RUNNING;
	if (os_mmap_lock(b->os, cpu, b->mm, ev))
		return true;
	os_mmap_wait(b->os, cpu);
	return false;
}

/* cpu @id releases the lock it holds at @t. */
static void release(struct lab *b, unsigned id, uint64_t t)
{
	struct hw_cpu *cpu = os_hw(b->os, id);

	cpu->core->now = t;
	os_mmap_unlock(b->os, cpu);
}

/* cpu @id downgrades the write lock it holds at @t. */
static void downgrade(struct lab *b, unsigned id, uint64_t t)
{
	struct hw_cpu *cpu = os_hw(b->os, id);

	cpu->core->now = t;
	os_mmap_downgrade(b->os, cpu, b->mm);
}

static uint64_t now(struct lab *b, unsigned id)
{
	return os_hw(b->os, id)->core->now;
}

static bool holds(struct lab *b, unsigned id)
{
	return b->os->cpu[id].locked == b->mm;
}

static bool waits(struct lab *b, unsigned id)
{
	return b->os->cpu[id].mmap_waiting == b->mm &&
	       os_hw(b->os, id)->core->state == ENG_BLOCKED &&
	       os_hw(b->os, id)->core->wake_time == ENG_NEVER;
}

static uint64_t lock_wait(struct lab *b, unsigned id)
{
	return b->os->cpu[id].st.mmap_lock_wait_cycles;
}

/*
 * cpu 0 holds the lock for writing; reader A (cpu 1), writer B (cpu 2) and
 * reader C (cpu 3) queue in that order.
 *   cpu 0 takes it at 1000: the line is in memory, the atomic alone:
 *     1000 + A = 1020.
 *   A at 2000, B at 3000, C at 4000: each reads the count once (from
 *     cpu 0, L) and sleeps: clocks 2050, 3050, 4050, the waits' starts.
 *   cpu 0 releases at 10000: its atomic pays the farthest holder's
 *     transfer (the three readers' copies, L) and A: done at 10070, the
 *     release time.  The head, A, is a reader: every waiting reader gets
 *     the lock, A and C; B, a writer, keeps its place (Linux 5.3+).
 *     A resumes at 10070 (waited 10070 - 2050 = 8020), C at 10070
 *     (waited 6020); each reads the lock word the releaser wrote: L from
 *     cpu 0 (reads do not queue behind each other): both at 10120.
 *   A releases at 20000: readers remain (C): no one is woken; its atomic
 *     pays L (cpu 0 last wrote the line, cpu 3 has a copy): 20070.
 *   C releases at 30000: L from cpu 1, the last writer, + A: 30070; the
 *     last reader gone, the head, B, gets the lock: it resumes at 30070
 *     (waited 30070 - 3050 = 27020) and takes the word with its own
 *     atomic: L from cpu 3 + A: 30140.
 *   B releases at 40000: the line is its own: 40000 + A.
 */
static void readers_pass_the_writer_in_the_queue(void **state)
{
	struct lab b;

	(void)state;
	lab_open(&b);
	assert_true(ask(&b, 0, 1000, &writer));
	assert_int_equal(now(&b, 0), 1020);
	assert_false(ask(&b, 1, 2000, &reader));
	assert_false(ask(&b, 2, 3000, &writer));
	assert_false(ask(&b, 3, 4000, &reader));
	assert_int_equal(now(&b, 1), 2050);
	assert_int_equal(now(&b, 2), 3050);
	assert_int_equal(now(&b, 3), 4050);
	assert_true(waits(&b, 1) && waits(&b, 2) && waits(&b, 3));
	assert_int_equal(b.mm->lock_nr_wait, 3);

	release(&b, 0, 10000);
	assert_int_equal(now(&b, 0), 10070);
	assert_true(holds(&b, 1) && holds(&b, 3));
	assert_true(waits(&b, 2));
	assert_int_equal(b.mm->lock_readers, 2);
	assert_int_equal(b.mm->lock_writer, 0);
	assert_int_equal(b.mm->lock_nr_wait, 1);
	assert_int_equal(now(&b, 1), 10120);
	assert_int_equal(now(&b, 3), 10120);
	assert_int_equal(lock_wait(&b, 1), 8020);
	assert_int_equal(lock_wait(&b, 3), 6020);
	/* woken into the serial phase, for the event they waited for */
	assert_int_equal(os_hw(b.os, 1)->core->state, ENG_PARKED);
	assert_int_equal(b.os->cpu[1].park, OS_PARK_EVENT);
	assert_true(b.os->cpu[1].mmap_granted);

	release(&b, 1, 20000);
	assert_int_equal(now(&b, 1), 20070);
	assert_true(waits(&b, 2));
	assert_int_equal(b.mm->lock_readers, 1);

	release(&b, 3, 30000);
	assert_int_equal(now(&b, 3), 30070);
	assert_true(holds(&b, 2));
	assert_true(b.os->cpu[2].locked_write);
	assert_int_equal(b.mm->lock_writer, 3);
	assert_int_equal(now(&b, 2), 30140);
	assert_int_equal(lock_wait(&b, 2), 27020);
	assert_int_equal(b.mm->lock_nr_wait, 0);

	release(&b, 2, 40000);
	assert_int_equal(now(&b, 2), 40000 + A);
	assert_int_equal(b.mm->lock_writer, 0);
	lab_close(&b);
}

/*
 * No one passes a waiting writer: cpu 0 holds the lock for reading; writer
 * B (cpu 1) queues; reader C (cpu 2) then finds the lock held by readers
 * only, which it could share, but queues behind B (Linux: a reader that
 * finds waiters sleeps, rwsem_down_read_slowpath(); the lock is
 * reader-owned by another, so no lock stealing).
 *   cpu 0 takes it at 1000: 1020.  B reads at 2000: 2050.  C reads at
 *   3000: 3050.
 *   cpu 0 releases at 10000: L (copies in cpus 1, 2) + A = 10070; the
 *   head, B, alone: resumes at 10070, its atomic L from cpu 0 + A =
 *   10140; it waited 10070 - 2050 = 8020.
 *   B releases at 20000: its own line, A: 20020; C, resumes at 20020
 *   (waited 20020 - 3050 = 16970), reads the word from cpu 1: 20070.
 */
static void a_reader_queues_behind_a_waiting_writer(void **state)
{
	struct lab b;

	(void)state;
	lab_open(&b);
	assert_true(ask(&b, 0, 1000, &reader));
	assert_false(ask(&b, 1, 2000, &writer));
	assert_false(ask(&b, 2, 3000, &reader));
	assert_int_equal(now(&b, 2), 3050);
	assert_int_equal(b.mm->lock_readers, 1);

	release(&b, 0, 10000);
	assert_int_equal(now(&b, 0), 10070);
	assert_true(holds(&b, 1) && b.os->cpu[1].locked_write);
	assert_true(waits(&b, 2));
	assert_int_equal(now(&b, 1), 10140);
	assert_int_equal(lock_wait(&b, 1), 8020);

	release(&b, 1, 20000);
	assert_int_equal(now(&b, 1), 20020);
	assert_true(holds(&b, 2) && !b.os->cpu[2].locked_write);
	assert_int_equal(now(&b, 2), 20070);
	assert_int_equal(lock_wait(&b, 2), 16970);
	lab_close(&b);
}

/*
 * downgrade_write() lets the waiting readers in, not a writer
 * (rwsem_downgrade_wake(), RWSEM_WAKE_READ_OWNED): cpu 0 holds the lock
 * for writing (a munmap before its zap); writer B (cpu 1) and reader C
 * (cpu 2) queue.  The head is a writer: the downgrade at 10000 (L + A =
 * 10070) wakes no one, and C stays behind B.  cpu 0's release at 20000
 * (its own line: 20020) hands the lock to B alone: 20020, then L + A =
 * 20090.
 */
static void downgrade_does_not_pass_a_writer_at_the_head(void **state)
{
	struct lab b;

	(void)state;
	lab_open(&b);
	assert_true(ask(&b, 0, 1000, &writer));
	assert_false(ask(&b, 1, 2000, &writer));
	assert_false(ask(&b, 2, 3000, &reader));
	downgrade(&b, 0, 10000);
	assert_int_equal(now(&b, 0), 10070);
	assert_true(waits(&b, 1) && waits(&b, 2));
	assert_int_equal(b.mm->lock_readers, 1);
	release(&b, 0, 20000);
	assert_int_equal(now(&b, 0), 20020);
	assert_true(holds(&b, 1) && b.os->cpu[1].locked_write);
	assert_int_equal(now(&b, 1), 20090);
	assert_true(waits(&b, 2));
	lab_close(&b);
}

/*
 * And with a reader at the head, the downgrade lets it in at once: cpu 0
 * holds the lock for writing, reader C (cpu 1) queues (reads at 2000:
 * 2050); the downgrade at 10000 (10070) grants C while cpu 0 still reads:
 * C resumes at 10070, reads the word from cpu 0: 10120.
 */
static void downgrade_lets_readers_in(void **state)
{
	struct lab b;

	(void)state;
	lab_open(&b);
	assert_true(ask(&b, 0, 1000, &writer));
	assert_false(ask(&b, 1, 2000, &reader));
	downgrade(&b, 0, 10000);
	assert_true(holds(&b, 1));
	assert_int_equal(b.mm->lock_readers, 2);
	assert_int_equal(now(&b, 1), 10120);
	lab_close(&b);
}

/*
 * A waiter whose cpu has another thread to run wakes at its slice's end and
 * leaves the list (os_mmap_give_up()); a writer that leaves the head lets
 * the readers behind it in.  cpu 0 holds the lock for reading; writer B
 * (cpu 1) queues with its slice ending at 5000 and a thread in its
 * runqueue: it blocks until 5000.  Reader C (cpu 2) queues behind B at
 * 3000 (3050).  At 5000 B gives up (waited 5000 - 2050 = 2950): C, now the
 * head, shares the lock with cpu 0 at once: it resumes at 5000 and reads
 * the word, of which it still holds the copy it read at 3000 (no one has
 * written the line since cpu 0's atomic at 1000): no transfer, 5000.
 */
static void a_writer_that_gives_up_lets_readers_in(void **state)
{
	struct lab b;
	struct hw_cpu *c1;

	(void)state;
	lab_open(&b);
	c1 = os_hw(b.os, 1);
	assert_true(ask(&b, 0, 1000, &reader));
	b.os->cpu[1].rq_len = 1; /* as if a thread waited for cpu 1 */
	b.os->cpu[1].slice_end = 5000;
	assert_false(ask(&b, 1, 2000, &writer));
	assert_int_equal(c1->core->state, ENG_BLOCKED);
	assert_int_equal(c1->core->wake_time, 5000);
	assert_false(ask(&b, 2, 3000, &reader));
	c1->core->now = 5000;
	os_mmap_give_up(b.os, c1);
	b.os->cpu[1].rq_len = 0;
	assert_null(b.os->cpu[1].mmap_waiting);
	assert_int_equal(lock_wait(&b, 1), 2950);
	assert_true(holds(&b, 2));
	assert_int_equal(now(&b, 2), 5000);
	assert_int_equal(b.mm->lock_readers, 2);
	assert_int_equal(b.mm->lock_nr_wait, 0);
	lab_close(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(readers_pass_the_writer_in_the_queue),
		cmocka_unit_test(a_reader_queues_behind_a_waiting_writer),
		cmocka_unit_test(downgrade_does_not_pass_a_writer_at_the_head),
		cmocka_unit_test(downgrade_lets_readers_in),
		cmocka_unit_test(a_writer_that_gives_up_lets_readers_in),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
