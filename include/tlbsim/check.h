/* SPDX-License-Identifier: MIT */
/*
 * Checking flush-policy and TLB-maintenance correctness: the kernel-level
 * replayer and hazard scenarios.
 *
 * The hazard oracle itself runs inside a simulation (struct
 * tlbsim_sim_config.check, sim.h) or inside the replayer below; it reports
 * stale uses, walks into freed (or reused) page tables, incomplete
 * maintenance and skipped break-before-make, following the Arm ARM and
 * Intel SDM rules collected in docs/hazard-rules.md.
 *
 * Kernel-level replay runs raw events (PTE writes, TLBI, DSB, ISB, TTBR/CR3
 * writes, INVLPG/INVPCID/INVLPGB/TLBSYNC, table allocation and free, and
 * accesses) on the cpus they name, through the hardware model, with no OS
 * model in between: what a kernel actually executed (instruction traces,
 * traces/FORMAT.md) or a hand-written litmus-style scenario.  Frame numbers
 * in the events are names: the replayer maps each to a frame of simulated
 * physical memory when it first appears (table_alloc, or a leaf descriptor
 * naming it) and frees it at table_free (of a table or a data frame); a
 * later use of a freed name takes a fresh frame, which the allocator hands
 * out most-recently-freed first, so "free, then reuse" happens as written.
 *
 * A scenario is a text trace (traces/FORMAT.md) with directives in comment
 * lines "#@ key value" (docs/scenarios.md): the machine, the policy, the
 * mode (os: events go through the OS model and the policy; kernel: the
 * replayer), the order (trace: an event starts only once every earlier
 * one started; timed: each cpu runs its events as fast as it can) and the
 * expected verdict ("safe", or the diagnostics "kind@event" expected).
 */
#ifndef TLBSIM_CHECK_H
#define TLBSIM_CHECK_H

#include <stdint.h>

#include "tlbsim/cpumask.h"
#include "tlbsim/error.h"
#include "tlbsim/export.h"
#include "tlbsim/machine.h"
#include "tlbsim/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct tlbsim_replay_config - a kernel-level replay
 * @machine: the machine (borrowed)
 * @ordered: non-zero: an event starts only once every earlier event (in
 *        the source's order) has started; zero: each cpu runs its own
 *        events back to back (timed)
 * @check: non-zero: run the hazard oracle
 * @ets2: Arm cpus with FEAT_ETS2, or NULL (borrowed)
 * @max_events: read at most this many events (0: the limit, 2^22)
 * @name: the trace's name for error reports (borrowed), or NULL
 * @max_cycles: stop at this simulated time, cycles (0: no cap); the
 *        statistics are then marked "partial"
 */
struct tlbsim_replay_config {
	const struct tlbsim_machine *machine;
	int ordered;
	int check;
	const struct tlbsim_cpumask *ets2;
	uint64_t max_events;
	const char *name;
	uint64_t max_cycles;
};

/**
 * tlbsim_replay_run() - replay kernel-level events on the hardware model
 * @cfg: configuration (borrowed)
 * @next: the event source (read whole before the replay starts)
 * @arg: passed to @next
 * @stats: receives the statistics as JSON text, schema tlbsim-stats/1 with
 *         "mode": "kernel-replay" (docs/stats-schema.md); caller frees
 * @err: error report, or NULL
 *
 * Every event needs a cpu: kernel-level kinds name it; an access names it
 * (T1@cpu0 load ...) or belongs to a thread a switch event placed.  A
 * descriptor value written by pte_write or phys_store names frames as
 * above.  TLBI with an unknown operand invalidates nothing (an unknown
 * address is not assumed to cover any); DSB LD/ST forms do not complete
 * TLBIs (Arm ARM: completion needs a DSB of the full type, docs/hazard-rules.md
 * rule 5).
 *
 * Returns: 0; -TLBSIM_EINVAL for an event that cannot be replayed (no cpu,
 * a user-level syscall, a descriptor naming a table never allocated, an
 * instruction of the other ISA: INVLPG, INVPCID, INVLPGB, TLBSYNC, CR3 on
 * arm64, TLBI, TLBI RVA*, TTBR on x86-64, a CR3 PCID or TTBR0 ASID wider
 * than the machine's asid_bits), with
 * the event's index in @err (its text and @event; tlbsim_trace_locate()
 * adds the line or offset); the source's error; -TLBSIM_ENOMEM.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_replay_run(const struct tlbsim_replay_config *cfg,
						   tlbsim_event_source_fn next, void *arg,
						   char **stats, struct tlbsim_error *err);

/**
 * struct tlbsim_scenario_opts - how to check a scenario
 * @explore: non-zero: also try every interleaving of the per-actor event
 *        lists (threads in mode os, cpus in mode kernel; each list keeps
 *        its order), and compare with the scenario's "explore" directive
 * @max_interleavings: stop exploring after this many (0: 10000)
 * @policy: run under this policy instead of the scenario's (NULL: its own)
 * @max_events: run only the first this many events of the scenario, in
 *        every run (0: all); the verdict is then that of those events
 * @max_cycles: stop every run at this simulated time, cycles (0: no cap);
 *        the statistics are then marked "partial"
 *
 * With a bounded @max_interleavings, @max_events and @max_cycles, checking
 * any scenario takes bounded time (what the fuzzer, tests/fuzz, relies on).
 * Zero-initialise it: new members keep their meaning at 0.
 */
struct tlbsim_scenario_opts {
	int explore;
	uint64_t max_interleavings;
	const char *policy;
	uint64_t max_events;
	uint64_t max_cycles;
};

/* Bytes of the verdict strings of struct tlbsim_scenario_result. */
#define TLBSIM_VERDICT_LEN 1024

/**
 * struct tlbsim_scenario_result - what checking one scenario found
 * @passed: the verdict (and, when exploring, the exploration's) matched
 *        the scenario's expectation
 * @hazards: diagnostics found in the scenario's own order
 * @found: "safe", or the diagnostics found as "kind@event" (0-based event
 *        index in the file), sorted, each once
 * @expected: the expectation as written
 * @explored: interleavings run (0 when not exploring)
 * @hazardous: of them, how many reached a diagnostic
 * @exhausted: every interleaving was run (not stopped at the bound)
 * @witness: the first hazardous interleaving, as the file's event indices
 *        in the order run, and what it found; empty if none
 * @stats: the statistics JSON of the run in the scenario's order (caller
 *        frees with free())
 * @matched: the verdict in the scenario's own order matched @expected
 *        (@passed also needs the exploration's, when exploring)
 * @explore_expected: "hazard" or "safe" when the interleavings were
 *        explored (the scenario's "#@ explore"), else empty
 * @skipped: interleavings that cannot run, not counted in @explored: an
 *        order in which a thread's event comes after its sleep and before
 *        every wake that could end it (or that waits on a thread never
 *        created, or on a memory syscall that cannot return); in the
 *        file's own order that is an input error instead
 */
struct tlbsim_scenario_result {
	int passed;
	uint64_t hazards;
	char found[TLBSIM_VERDICT_LEN];
	char expected[TLBSIM_VERDICT_LEN];
	uint64_t explored, hazardous;
	int exhausted;
	char witness[TLBSIM_VERDICT_LEN];
	char *stats;
	int matched;
	char explore_expected[8];
	uint64_t skipped;
};

/**
 * tlbsim_scenario_check() - run a hazard scenario and judge it
 * @path: the scenario: a text trace with "#@" directives (docs/scenarios.md)
 * @opts: options, or NULL for the defaults
 * @res: receives the result (its @stats is owned by the caller)
 * @err: error report, or NULL
 *
 * Returns: 0 when the scenario ran (whether or not it passed: see
 * @res->passed); -TLBSIM_EPARSE for a bad directive or trace (file and
 * line), -TLBSIM_ENOENT for an unknown machine or policy, or any error of
 * the run (one of an event, in the file's order, filed at the event's
 * line; in an explored interleaving, its index in that order alone).
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_scenario_check(const char *path,
						       const struct tlbsim_scenario_opts *opts,
						       struct tlbsim_scenario_result *res,
						       struct tlbsim_error *err);

/**
 * struct tlbsim_litmus_opts - how to judge a litmus test
 * @ets2: the threads (P0 = bit 0, ...) that implement FEAT_ETS2 (Arm ARM
 *        D8.16.2; HAZARD-RULES rule 7), or NULL for none (borrowed)
 * @max_candidates: stop with -TLBSIM_EBUSY after this many candidate
 *        executions, each placement of the TLBIs against the walks
 *        counting as one, and thread runs counting too (0: 50 000 000);
 *        bounds the time any test takes
 *
 * Zero-initialise it: new members keep their meaning at 0.
 */
struct tlbsim_litmus_opts {
	const struct tlbsim_cpumask *ets2;
	uint64_t max_candidates;
};

/**
 * struct tlbsim_litmus_result - the verdict on one litmus test
 * @name: the test's name (its first line, herd's "AArch64 NAME")
 * @verdict: "Allowed" (some consistent execution satisfies the condition;
 *        for ~exists as for exists), "Forbidden" (none does), or for
 *        forall: "Required" (all do), else "Allowed"/"Forbidden" as above
 * @bbm_warning: herd's Warning-BBM-expected flag: some consistent
 *        execution changes a valid descriptor to another valid one needing
 *        break-before-make without it (HAZARD-RULES rule 10), reported
 *        beside the verdict, never deciding it
 * @candidates: candidate executions checked; @consistent: of them, allowed
 *        by the model; @positive: of those, satisfying the condition
 * @complete: every candidate was checked (the search stops early once the
 *        verdict and the flag cannot change)
 */
struct tlbsim_litmus_result {
	char name[128];
	char verdict[16];
	int bbm_warning;
	uint64_t candidates, consistent, positive;
	int complete;
};

/**
 * tlbsim_litmus_check() - judge an Arm VMSA litmus test in herd7's format
 * @path: the .litmus file (herdtools7 AArch64 syntax, VMSA subset:
 *        docs/litmus.md)
 * @opts: options, or NULL for the defaults (no ETS2)
 * @res: receives the verdict
 * @err: error report, or NULL
 *
 * Every candidate execution of the test (values of its loads and walks,
 * reads-from, coherence, and the order of each TLBI against each walk it
 * covers) is checked against the Arm VMSA memory model as herd7's
 * aarch64.cat states it (herdtools7 herd/libdir/aarch64.cat,
 * aarch64hwreqs.cat, aarch64bbm.cat; HAZARD-RULES.md rules 1, 5-8, 10).
 *
 * Returns: 0; -TLBSIM_EPARSE for a syntax error or a construct outside the
 * subset, with the file and line in @err (never a verdict on what was not
 * understood); -TLBSIM_ENOTSUP for an operation the model cannot compute
 * (arithmetic on addresses), with its line; -TLBSIM_EBUSY past
 * @opts->max_candidates; -TLBSIM_ENOENT, -TLBSIM_EIO, -TLBSIM_ENOMEM.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_litmus_check(const char *path,
						     const struct tlbsim_litmus_opts *opts,
						     struct tlbsim_litmus_result *res,
						     struct tlbsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* TLBSIM_CHECK_H */
