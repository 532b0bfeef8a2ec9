/* SPDX-License-Identifier: MIT */
/*
 * The interconnect: core-to-core latency from the topology, the
 * serialising broadcast engines (arm64 DVM, AMD INVLPGB) that make
 * simultaneous broadcasts wait for each other, and the cache lines the
 * kernel shares between cpus (struct fab_line, line.c).
 *
 * Broadcast contention follows the measurement that TLBI-broadcast latency
 * grows about linearly with the number of cpus broadcasting at once, which
 * suggests one serial, system-wide broadcast engine (CALIBRATION.md 4.3):
 * a FIFO server with a fixed service time per broadcast.  k broadcasts
 * arriving together finish service 1, 2, ..., k service times later.
 */
#ifndef TLBSIM_FABRIC_H
#define TLBSIM_FABRIC_H

#include <stdbool.h>
#include <stdint.h>

#include "tlbsim/cpumask.h"
#include "tlbsim/machine.h"

/* The smallest one-way latency between two distinct cores, cycles
 * (UINT64_MAX for a one-core machine): the engine's window bound. */
uint64_t fab_min_latency(const struct tlbsim_machine *m);

/* The NUMA node of @cpu: cores are numbered cluster-major (machine.h). */
unsigned fab_node_of(const struct tlbsim_machine *m, unsigned cpu);

/* What a shared line takes from core @from to core @to, cycles (the
 * machine's topology.line_* levels; 0 for @from == @to). */
uint64_t fab_line_latency(const struct tlbsim_machine *m, unsigned from, unsigned to);

/**
 * struct fab_server - a FIFO broadcast engine (also what serialises the
 * atomics on a shared line and the holders of a lock: struct fab_line)
 * @service: cycles it is busy per broadcast (fab_server_accept())
 * @busy_until: time it becomes free, cycles
 * @served: broadcasts (requests) served so far
 * @queued_cycles: cycles broadcasts (requests) waited for the engine
 *        (contention)
 */
struct fab_server {
	uint64_t service;
	uint64_t busy_until;
	uint64_t served;
	uint64_t queued_cycles;
};

/*
 * A request reaches the server at @arrive and keeps it busy @service
 * cycles: returns when its service ends, max(@arrive, busy_until) +
 * @service.  Serial phase only.
 */
static inline uint64_t fab_server_hold(struct fab_server *s, uint64_t arrive, uint64_t service)
{
	uint64_t start = arrive > s->busy_until ? arrive : s->busy_until;

	s->queued_cycles += start - arrive;
	s->busy_until = start + service;
	s->served++;
	return s->busy_until;
}

/*
 * A broadcast reaches the engine at @arrive: returns when its service ends,
 * max(@arrive, busy_until) + service.  Serial phase only.
 */
static inline uint64_t fab_server_accept(struct fab_server *s, uint64_t arrive)
{
	return fab_server_hold(s, arrive, s->service);
}

/* ---- shared cache lines (line.c) ------------------------------------------ */

/* fab_line.owner of a line no cpu has written yet. */
#define FAB_NO_CPU UINT32_MAX

/* How a cpu touches a line. */
enum fab_op {
	FAB_READ = 0, /* a load: the line is fetched, then shared */
	FAB_WRITE,    /* a plain store: the line is fetched exclusive */
	FAB_RMW,      /* an atomic read-modify-write, or a lock taken */
};

/* Exclusive uses of a line remembered for placing a late-served earlier
 * one (struct fab_line). */
#define FAB_LINE_HOLDS 16

/* One exclusive use of a line: [@start, @end), by @cpu. */
struct fab_hold {
	uint64_t start, end;
	uint32_t cpu;
};

/**
 * struct fab_line - a cache line the kernel shares between cpus (a lock,
 * an atomic counter, an mm_cpumask word), as a MESI-like directory sees it
 * @srv: the accesses that need the line exclusive (writes, atomics, lock
 *        holds) as a FIFO resource: @srv.busy_until is the end of the
 *        latest, @srv.served and @srv.queued_cycles count them and their
 *        waits; a read waits for the one in progress but occupies nothing
 * @hold: the latest @nr_hold exclusive uses, in time order (oldest first)
 * @before: the cpu of the last use dropped from @hold (FAB_NO_CPU: none)
 * @owner: the cpu of the latest exclusive use, which still holds the line,
 *        or FAB_NO_CPU (in memory: its first use pays no transfer)
 * @sharers: cpus that read it after that use and hold a copy; NULL until
 *        one does
 *
 * Cost of an access by cpu c at time t: it starts at s >= t, when the line
 * is not in another cpu's exclusive use; a read costs the transfer from the
 * last writer before s unless c holds the line; a write or atomic costs the
 * longest transfer from any other holder (the last writer's copy, or the
 * invalidation of the readers' copies), then keeps the line @busy more
 * cycles.  The same cpu twice in a row pays no transfer; cpus arriving
 * together queue in the order they are served.  The serial phase serves
 * one cpu's whole syscall or fault before the next cpu's, whose clock may
 * be earlier: an exclusive use of the second that fits in a gap before the
 * first's later uses (a down_read() between another cpu's down_read()
 * and up_read() of the mmap_lock) goes there, its transfer from the use
 * before the gap; the later uses keep the costs they were charged.
 * Transfers are fab_line_latency() by the cores' distance in the topology.
 */
struct fab_line {
	struct fab_server srv;
	struct fab_hold hold[FAB_LINE_HOLDS];
	uint8_t nr_hold;
	uint32_t before;
	uint32_t owner;
	struct tlbsim_cpumask *sharers;
};

/**
 * struct fab_cost - one access, as fab_line_cost() works it out
 * @start: when the access starts (after waiting), cycles
 * @transfer: cycles the line took to arrive (0 when the cpu held it)
 * @done: when the cpu has finished with it: @start + @transfer (+ @busy for
 *        a write or atomic)
 */
struct fab_cost {
	uint64_t start, transfer, done;
};

void fab_line_init(struct fab_line *l);
void fab_line_fini(struct fab_line *l);

/*
 * What cpu @cpu's access @op at time @now costs on @l as the line stands;
 * @busy: cycles it keeps the line after the transfer (the atomic itself,
 * a lock's hold); ignored for FAB_READ.  Changes nothing: reading @l is
 * all it does, so it may run in the parallel phase while no one writes @l.
 */
void fab_line_cost(const struct tlbsim_machine *m, const struct fab_line *l, unsigned cpu,
		   uint64_t now, enum fab_op op, uint64_t busy, struct fab_cost *c);

/*
 * fab_line_cost(), then the access happens: @l's holders and FIFO change.
 * Serial phase only.  A reader that cannot be recorded (out of memory for
 * the sharer set) is charged as usual and not remembered, so its next read
 * pays again.
 */
void fab_line_access(const struct tlbsim_machine *m, struct fab_line *l, unsigned cpu,
		     uint64_t now, enum fab_op op, uint64_t busy, struct fab_cost *c);

#endif
