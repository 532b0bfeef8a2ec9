/* SPDX-License-Identifier: MIT */
/*
 * The line model (src/fabric/line.c): what a cpu pays to read, write or
 * atomically update a shared cache line, by where the line is, and how
 * atomics and lock holds queue.  Machine: 8 cores in 2 clusters (CCXs)
 * of 4, a line transfer 30 cycles inside a cluster and 200 between them
 * (topology.line), an atomic 17 cycles.  Every expected value is worked
 * out by hand in the comment above it, from fab_line_cost()'s rule: an
 * access starts at max(now, the end of the exclusive access in progress);
 * a read pays the transfer from the last writer unless the cpu holds the
 * line; a write or atomic pays the longest transfer from any other holder,
 * then keeps the line `busy` more cycles.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fabric/fabric.h"
#include "support/machines.h"

#define NEAR 30 /* same cluster */
#define FAR 200 /* other cluster */
#define RMW 17	/* the atomic itself */

static struct tlbsim_machine *two_ccx(void)
{
	struct tlbsim_machine *m = test_machine(TLBSIM_ISA_X86_64, 8);

	m->topology.clusters_per_node = 2;
	m->topology.cores_per_cluster = 4;
	m->topology.line_cluster = NEAR;
	m->topology.line_node = m->topology.line_socket = m->topology.line_remote = FAR;
	return m;
}

/* A line's transfer goes by the closest group the two cores share. */
static void transfer_is_by_topology_distance(void **state)
{
	struct tlbsim_machine *m = two_ccx();

	(void)state;
	assert_int_equal(fab_line_latency(m, 0, 0), 0);
	assert_int_equal(fab_line_latency(m, 0, 3), NEAR);
	assert_int_equal(fab_line_latency(m, 3, 4), FAR);
	assert_int_equal(fab_line_latency(m, 7, 0), FAR);
	tlbsim_machine_free(m);
}

/*
 * Cpu 0 (CCX 0) and cpu 4 (CCX 1) increment one line in turn, each well
 * after the other is done.  The line is new (in memory): cpu 0's first
 * increment at 0 pays no transfer: done 0 + 17.  Cpu 4 at 100: the line
 * is cpu 0's: 200 + 17, done 317.  Cpu 0 at 400: back from cpu 4: 200,
 * done 617.  Cpu 0 again at 700: it still holds it: no transfer, done 717.
 * No one waits.
 */
static void alternating_increments_pay_the_cross_ccx_transfer_each(void **state)
{
	struct tlbsim_machine *m = two_ccx();
	struct fab_line l;
	struct fab_cost c;

	(void)state;
	fab_line_init(&l);
	fab_line_access(m, &l, 0, 0, FAB_RMW, RMW, &c);
	assert_int_equal(c.transfer, 0);
	assert_int_equal(c.done, 17);
	fab_line_access(m, &l, 4, 100, FAB_RMW, RMW, &c);
	assert_int_equal(c.start, 100);
	assert_int_equal(c.transfer, FAR);
	assert_int_equal(c.done, 317);
	fab_line_access(m, &l, 0, 400, FAB_RMW, RMW, &c);
	assert_int_equal(c.transfer, FAR);
	assert_int_equal(c.done, 617);
	fab_line_access(m, &l, 0, 700, FAB_RMW, RMW, &c);
	assert_int_equal(c.transfer, 0);
	assert_int_equal(c.done, 717);
	assert_int_equal(l.srv.served, 4);
	assert_int_equal(l.srv.queued_cycles, 0);
	fab_line_fini(&l);
	tlbsim_machine_free(m);
}

/*
 * A lock held 100 cycles after its atomic: cpus 1, 2 and 3 (cpu 0's CCX)
 * take it at 1000, served in that order, after cpu 0 took it at 0 (done
 * 0 + 17 + 100 = 117).  Each holds it transfer 30 + atomic 17 + 100 = 147.
 * Cpu 1: starts 1000, done 1147, no wait; cpu 2: waits 147 (one hold),
 * done 1294; cpu 3: waits 294 (two holds), done 1441.  N = 3 cpus at
 * once: the last waits N - 1 holds; the lock queued 441 cycles in all.
 */
static void cpus_arriving_together_queue_the_last_waits_n_minus_1_holds(void **state)
{
	struct tlbsim_machine *m = two_ccx();
	struct fab_line l;
	struct fab_cost c;

	(void)state;
	fab_line_init(&l);
	fab_line_access(m, &l, 0, 0, FAB_RMW, RMW + 100, &c);
	assert_int_equal(c.done, 117);
	fab_line_access(m, &l, 1, 1000, FAB_RMW, RMW + 100, &c);
	assert_int_equal(c.start - 1000, 0);
	assert_int_equal(c.transfer, NEAR);
	assert_int_equal(c.done, 1147);
	fab_line_access(m, &l, 2, 1000, FAB_RMW, RMW + 100, &c);
	assert_int_equal(c.start - 1000, 147);
	assert_int_equal(c.done, 1294);
	fab_line_access(m, &l, 3, 1000, FAB_RMW, RMW + 100, &c);
	assert_int_equal(c.start - 1000, 2 * 147);
	assert_int_equal(c.done, 1441);
	assert_int_equal(l.srv.queued_cycles, 147 + 294);
	fab_line_fini(&l);
	tlbsim_machine_free(m);
}

/*
 * Reads share the line.  Cpu 0 writes it at 0 (new line: done 0).  Cpus
 * 4 and 5 read it at 100: each pays the transfer from cpu 0, 200; their
 * second reads cost nothing.  Cpu 0 reads its own line: nothing.  Cpu 1
 * then writes at 1000: the farthest other holder is cpu 4 or 5 (200; cpu
 * 0's copy is 30 away): 200.  The readers' copies are gone: cpu 4's next
 * read pays 200 again, from cpu 1.
 */
static void a_read_line_stays_shared_until_a_write_invalidates_it(void **state)
{
	struct tlbsim_machine *m = two_ccx();
	struct fab_line l;
	struct fab_cost c;

	(void)state;
	fab_line_init(&l);
	fab_line_access(m, &l, 0, 0, FAB_WRITE, 0, &c);
	assert_int_equal(c.done, 0);
	fab_line_access(m, &l, 4, 100, FAB_READ, 0, &c);
	assert_int_equal(c.transfer, FAR);
	fab_line_access(m, &l, 5, 100, FAB_READ, 0, &c);
	assert_int_equal(c.transfer, FAR);
	fab_line_access(m, &l, 4, 400, FAB_READ, 0, &c);
	assert_int_equal(c.transfer, 0);
	fab_line_access(m, &l, 0, 400, FAB_READ, 0, &c);
	assert_int_equal(c.transfer, 0);
	fab_line_access(m, &l, 1, 1000, FAB_WRITE, 0, &c);
	assert_int_equal(c.transfer, FAR);
	fab_line_access(m, &l, 4, 1100, FAB_READ, 0, &c);
	assert_int_equal(c.transfer, FAR);
	/* Reads never queue the others: only the two writes were served. */
	assert_int_equal(l.srv.served, 2);
	fab_line_fini(&l);
	tlbsim_machine_free(m);
}

/* A read arriving during another cpu's atomic waits for it: cpu 0's
 * atomic at 0 on a line cpu 4 holds ends at 200 + 17 = 217; cpu 1 reads
 * at 50: starts 217 (waits 167), then the transfer from cpu 0: 30. */
static void a_read_waits_for_the_atomic_in_progress(void **state)
{
	struct tlbsim_machine *m = two_ccx();
	struct fab_line l;
	struct fab_cost c;

	(void)state;
	fab_line_init(&l);
	l.owner = 4;
	fab_line_access(m, &l, 0, 0, FAB_RMW, RMW, &c);
	assert_int_equal(c.done, 217);
	fab_line_cost(m, &l, 1, 50, FAB_READ, 0, &c);
	assert_int_equal(c.start, 217);
	assert_int_equal(c.transfer, NEAR);
	assert_int_equal(c.done, 247);
	fab_line_fini(&l);
	tlbsim_machine_free(m);
}

/*
 * The serial phase serves cpu 0's whole fault, then cpu 1's, whose clock
 * is earlier than cpu 0's last access: cpu 0 takes a reader count at 0
 * (new line: done 17) and drops it at 2000 (its own line: done 2017).
 * Cpu 1's down_read at 100 fits in the gap: transfer from cpu 0 (the
 * writer before the gap) 30 + 17, done 147, no wait; its up_read at 1500
 * follows its own use: no transfer, done 1517.  Served one after the
 * other without gaps, cpu 1 would have waited until 2017.  The line stays
 * cpu 0's, the latest user's.
 */
static void an_earlier_use_served_later_fits_in_a_gap(void **state)
{
	struct tlbsim_machine *m = two_ccx();
	struct fab_line l;
	struct fab_cost c;

	(void)state;
	fab_line_init(&l);
	fab_line_access(m, &l, 0, 0, FAB_RMW, RMW, &c);
	fab_line_access(m, &l, 0, 2000, FAB_RMW, RMW, &c);
	assert_int_equal(c.transfer, 0);
	assert_int_equal(c.done, 2017);
	fab_line_access(m, &l, 1, 100, FAB_RMW, RMW, &c);
	assert_int_equal(c.start, 100);
	assert_int_equal(c.transfer, NEAR);
	assert_int_equal(c.done, 147);
	fab_line_access(m, &l, 1, 1500, FAB_RMW, RMW, &c);
	assert_int_equal(c.start, 1500);
	assert_int_equal(c.transfer, 0);
	assert_int_equal(c.done, 1517);
	assert_int_equal(l.owner, 0);
	assert_int_equal(l.srv.busy_until, 2017);
	assert_int_equal(l.srv.queued_cycles, 0);
	/* A use that does not fit before 2000 goes after the latest: at
	 * 1990 cpu 4 needs 200 + 17: it starts at 2017, from cpu 0. */
	fab_line_access(m, &l, 4, 1990, FAB_RMW, RMW, &c);
	assert_int_equal(c.start, 2017);
	assert_int_equal(c.transfer, FAR);
	fab_line_fini(&l);
	tlbsim_machine_free(m);
}

/*
 * A read served after a later atomic, arriving before it, sees the line
 * as it was before: cpu 4's atomic at 1000 on a new line (done 1017);
 * cpu 1's read at 100, served after it, starts at 100 and pays nothing
 * (the line was in memory), and keeps no copy: its read at 2000 pays 200
 * from cpu 4.  A read at 1010 waits for the atomic: starts 1017.
 */
static void a_read_before_a_later_atomic_sees_the_line_before_it(void **state)
{
	struct tlbsim_machine *m = two_ccx();
	struct fab_line l;
	struct fab_cost c;

	(void)state;
	fab_line_init(&l);
	fab_line_access(m, &l, 4, 1000, FAB_RMW, RMW, &c);
	assert_int_equal(c.done, 1017);
	fab_line_access(m, &l, 1, 100, FAB_READ, 0, &c);
	assert_int_equal(c.start, 100);
	assert_int_equal(c.transfer, 0);
	fab_line_access(m, &l, 0, 1010, FAB_READ, 0, &c);
	assert_int_equal(c.start, 1017);
	assert_int_equal(c.transfer, FAR);
	fab_line_access(m, &l, 1, 2000, FAB_READ, 0, &c);
	assert_int_equal(c.transfer, FAR);
	fab_line_fini(&l);
	tlbsim_machine_free(m);
}

/*
 * Readers are remembered whatever their number: on a machine of 256 cpus
 * in 2 clusters of 128, cpu 0 writes at 0 (new line); cpu 130 (the other
 * cluster) reads at 100: 200 from cpu 0; cpu 1 reads at 100: 30.  Cpu 1's
 * atomic at 1000 pays the farthest other holder, cpu 130's copy: 200 +
 * 17.  That invalidated it: cpu 130's read at 2000 pays 200 again, from
 * cpu 1, and cpu 1's next atomic at 3000 the same 200 + 17 to take it
 * back; its atomic at 4000, with no other copy left, nothing.
 */
static void readers_above_cpu_63_are_invalidated_too(void **state)
{
	struct tlbsim_machine *m = test_machine(TLBSIM_ISA_X86_64, 256);
	struct fab_line l;
	struct fab_cost c;

	(void)state;
	m->topology.clusters_per_node = 2;
	m->topology.cores_per_cluster = 128;
	m->topology.line_cluster = NEAR;
	m->topology.line_node = m->topology.line_socket = m->topology.line_remote = FAR;
	fab_line_init(&l);
	fab_line_access(m, &l, 0, 0, FAB_WRITE, 0, &c);
	fab_line_access(m, &l, 130, 100, FAB_READ, 0, &c);
	assert_int_equal(c.transfer, FAR);
	fab_line_access(m, &l, 1, 100, FAB_READ, 0, &c);
	assert_int_equal(c.transfer, NEAR);
	fab_line_access(m, &l, 1, 1000, FAB_RMW, RMW, &c);
	assert_int_equal(c.transfer, FAR);
	assert_int_equal(c.done, 1000 + FAR + RMW);
	fab_line_access(m, &l, 130, 2000, FAB_READ, 0, &c);
	assert_int_equal(c.transfer, FAR);
	fab_line_access(m, &l, 1, 3000, FAB_RMW, RMW, &c);
	assert_int_equal(c.transfer, FAR);
	fab_line_access(m, &l, 1, 4000, FAB_RMW, RMW, &c);
	assert_int_equal(c.transfer, 0);
	fab_line_fini(&l);
	tlbsim_machine_free(m);
}

/* fab_line_cost() changes nothing: the same question twice, the same
 * answer, and the line still has no holder. */
static void costing_an_access_changes_nothing(void **state)
{
	struct tlbsim_machine *m = two_ccx();
	struct fab_line l;
	struct fab_cost a, b;

	(void)state;
	fab_line_init(&l);
	l.owner = 4;
	fab_line_cost(m, &l, 0, 10, FAB_RMW, RMW, &a);
	fab_line_cost(m, &l, 0, 10, FAB_RMW, RMW, &b);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_int_equal(a.done, 10 + FAR + RMW);
	assert_int_equal(l.owner, 4);
	assert_int_equal(l.srv.served, 0);
	assert_null(l.sharers);
	fab_line_fini(&l);
	tlbsim_machine_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(transfer_is_by_topology_distance),
	    cmocka_unit_test(alternating_increments_pay_the_cross_ccx_transfer_each),
	    cmocka_unit_test(cpus_arriving_together_queue_the_last_waits_n_minus_1_holds),
	    cmocka_unit_test(a_read_line_stays_shared_until_a_write_invalidates_it),
	    cmocka_unit_test(a_read_waits_for_the_atomic_in_progress),
	    cmocka_unit_test(an_earlier_use_served_later_fits_in_a_gap),
	    cmocka_unit_test(costing_an_access_changes_nothing),
	    cmocka_unit_test(a_read_before_a_later_atomic_sees_the_line_before_it),
	    cmocka_unit_test(readers_above_cpu_63_are_invalidated_too),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
