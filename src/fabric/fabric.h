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

/* tlbsim_machine_latency() from @src to every core, into @to[0..nr_cpus),
 * and from every core to @src, into @from[0..nr_cpus), cycles: the same
 * values, without a division a pair (a broadcast's spread). */
void fab_latency_rows(const struct tlbsim_machine *m, unsigned src, uint64_t *to, uint64_t *from);

/* What a shared line takes from core @from to core @to, cycles (the
 * machine's topology.line_* levels; 0 for @from == @to). */
uint64_t fab_line_latency(const struct tlbsim_machine *m, unsigned from, unsigned to);

/* fab_line.owner of a line no cpu has written yet, and the user of a
 * server use whose user does not matter (a broadcast engine's). */
#define FAB_NO_CPU UINT32_MAX

/* Uses of a server remembered for placing a late-served earlier one (a
 * power of two: struct fab_server keeps them in a ring). */
#define FAB_HOLDS 16
_Static_assert((FAB_HOLDS & (FAB_HOLDS - 1)) == 0, "FAB_HOLDS is a power of two");

/* One use of a server: [@start, @end), by @cpu. */
struct fab_hold {
	uint64_t start, end;
	uint32_t cpu;
};

/**
 * struct fab_server - a FIFO resource: a broadcast engine, or what
 * serialises the atomics on a shared line and the holders of a lock
 * (struct fab_line; server.c)
 * @service: cycles it is busy per broadcast (fab_server_accept())
 * @busy_until: the end of its latest use, cycles
 * @served: uses (broadcasts, atomics, lock holds) so far
 * @queued_cycles: cycles they waited for it (contention)
 * @hold: the latest @nr_hold uses, in time order (oldest first), a ring
 *        from @head (fab_server_use()): the oldest is forgotten when a
 *        use comes to a full record without moving the others (a line
 *        in steady use has a full record, and every use made it shift)
 * @head: the index in @hold of the oldest use remembered
 * @before: the cpu of the last use dropped from @hold (FAB_NO_CPU: none)
 * @before_end: when the uses dropped from @hold ended: no gap before it
 *
 * A use arriving at t takes the server at max(t, the end of the latest
 * use), so k arriving together finish 1, 2, ..., k services later.  But
 * the serial phase serves one cpu's whole syscall or fault before the
 * next cpu's, whose clock may be earlier, and a cpu's broadcast may be
 * stamped ahead of another's issued later in host order: a use that fits
 * in a gap between remembered later uses, at or after its arrival, goes
 * there instead (a down_read() between another cpu's down_read() and
 * up_read(); a broadcast on an idle engine before one reserved further
 * ahead).  The later uses keep what they were charged.
 */
struct fab_server {
	uint64_t service;
	uint64_t busy_until;
	uint64_t served;
	uint64_t queued_cycles;
	struct fab_hold hold[FAB_HOLDS];
	uint8_t nr_hold, head;
	uint32_t before;
	uint64_t before_end;
};

void fab_server_init(struct fab_server *s, uint64_t service);

/* The @i-th oldest use @s remembers, @i < s->nr_hold. */
static inline const struct fab_hold *fab_server_use(const struct fab_server *s, unsigned i)
{
	return &s->hold[(s->head + i) % FAB_HOLDS];
}

/* How long a use takes, given the user of the server just before it
 * (@prev, FAB_NO_CPU if unknown) and whether it goes after the latest use
 * (@last): a line's transfer depends on who had it. */
typedef uint64_t (*fab_len_fn)(const void *arg, uint32_t prev, bool last);

/*
 * Where a use arriving at @arrive goes (see struct fab_server): its start
 * in *@start, its length (@len's) in *@length; returns its place among
 * the uses remembered, oldest first (s->nr_hold: after the latest).
 * Changes nothing.  Inline, so that @len, a constant where it is called,
 * is inlined too (a line's access costs a transfer by who had the line).
 */
static inline unsigned fab_server_place(const struct fab_server *s, uint64_t arrive, fab_len_fn len,
					const void *arg, uint64_t *start, uint64_t *length)
{
	unsigned n = s->nr_hold, p = 0, hi = n;

	/* A use that starts before @arrive leaves no gap before it that
	 * fits: the search starts at the first that does not.  The uses
	 * kept are in order and do not overlap, so their starts grow: a
	 * binary search finds it (the common case first: after all). */
	if (n && fab_server_use(s, n - 1)->start < arrive)
		p = n;
	while (p < hi) {
		unsigned mid = (p + hi) / 2;

		if (fab_server_use(s, mid)->start < arrive)
			p = mid + 1;
		else
			hi = mid;
	}
	for (; p < n; p++) {
		/* The gap before the first use kept starts where the forgotten
		 * ones ended: what lay there is not known any more. */
		const struct fab_hold *prev = p ? fab_server_use(s, p - 1) : NULL;
		uint64_t from = prev ? prev->end : s->before_end;
		uint64_t at = from > arrive ? from : arrive;
		uint64_t d = len(arg, prev ? prev->cpu : s->before, false);

		if (at + d <= fab_server_use(s, p)->start) {
			*start = at;
			*length = d;
			return p;
		}
	}
	*start = arrive > s->busy_until ? arrive : s->busy_until;
	*length = len(arg, n ? fab_server_use(s, n - 1)->cpu : s->before, true);
	return n;
}

/* The use fab_server_place() placed at @p, [@start, @end) of @cpu,
 * arrived at @arrive, is made: counted and remembered.  Returns whether it
 * is the latest use.  Serial phase only. */
bool fab_server_commit(struct fab_server *s, unsigned p, uint64_t arrive, uint64_t start,
		       uint64_t end, uint32_t cpu);

/* fab_server_commit() of a use after the latest (@p == s->nr_hold), the
 * common case, inline: it goes at the ring's end, in the place of the
 * oldest when the record is full, and is the latest now. */
static inline void fab_server_append(struct fab_server *s, uint64_t arrive, uint64_t start,
				     uint64_t end, uint32_t cpu)
{
	unsigned p = s->nr_hold;

	s->served++;
	s->queued_cycles += start - arrive;
	if (p == FAB_HOLDS) {
		s->before = s->hold[s->head].cpu;
		s->before_end = s->hold[s->head].end;
		s->head = (s->head + 1) % FAB_HOLDS;
		p--;
	} else {
		s->nr_hold++;
	}
	s->hold[(s->head + p) % FAB_HOLDS] =
	    (struct fab_hold){.start = start, .end = end, .cpu = cpu};
	s->busy_until = end;
}

/*
 * A request reaches the server at @arrive and keeps it busy @service
 * cycles: returns when its service ends.  Serial phase only.
 */
uint64_t fab_server_hold(struct fab_server *s, uint64_t arrive, uint64_t service);

/* A broadcast reaches the engine at @arrive: returns when its service
 * ends.  Serial phase only. */
static inline uint64_t fab_server_accept(struct fab_server *s, uint64_t arrive)
{
	return fab_server_hold(s, arrive, s->service);
}

/* ---- shared cache lines (line.c) ------------------------------------------ */

/* How a cpu touches a line. */
enum fab_op {
	FAB_READ = 0, /* a load: the line is fetched, then shared */
	FAB_WRITE,    /* a plain store: the line is fetched exclusive */
	FAB_RMW,      /* an atomic read-modify-write, or a lock taken */
};

/**
 * struct fab_line - a cache line the kernel shares between cpus (a lock,
 * an atomic counter, an mm_cpumask word), as a MESI-like directory sees it
 * @srv: its exclusive uses (writes, atomics, lock holds), a FIFO resource
 *        (struct fab_server); a read waits for the one in progress but
 *        occupies nothing
 * @owner: the cpu of the latest exclusive use, which still holds the line,
 *        or FAB_NO_CPU (in memory: its first use pays no transfer)
 * @sharers: cpus that read it after that use and hold a copy; NULL until
 *        one does
 * @sharer_words: words of @sharers below which all its bits are (so a
 *        write looks at and clears those only, not all TLBSIM_NR_CPUS)
 *
 * Cost of an access by cpu c at time t: it starts at s >= t, when the line
 * is not in another cpu's exclusive use; a read costs the transfer from the
 * last writer before s unless c holds the line; a write or atomic costs the
 * longest transfer from any other holder (the last writer's copy, or the
 * invalidation of the readers' copies), then keeps the line @busy more
 * cycles.  The same cpu twice in a row pays no transfer; cpus arriving
 * together queue in the order they are served; an earlier use served
 * after a later one fits in a gap before it (struct fab_server), its
 * transfer from the use before the gap.  Transfers are fab_line_latency()
 * by the cores' distance in the topology.
 */
struct fab_line {
	struct fab_server srv;
	uint32_t owner;
	uint32_t sharer_words;
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
void fab_line_access(const struct tlbsim_machine *m, struct fab_line *l, unsigned cpu, uint64_t now,
		     enum fab_op op, uint64_t busy, struct fab_cost *c);

#endif
