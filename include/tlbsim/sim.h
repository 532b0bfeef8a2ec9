/* SPDX-License-Identifier: MIT */
/*
 * A whole simulation: a machine, the OS model with a flush policy, and a
 * stream of events (a trace, a generator, or the caller's own).  Cores run
 * in windows on the engine (OpenMP); results are identical for any number
 * of threads.
 */
#ifndef TLBSIM_SIM_H
#define TLBSIM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tlbsim/cpumask.h"
#include "tlbsim/error.h"
#include "tlbsim/event.h"
#include "tlbsim/export.h"
#include "tlbsim/machine.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tlbsim_sim tlbsim_sim;

/**
 * typedef tlbsim_event_source_fn - where a simulation gets its events
 * @arg: the caller's argument
 * @ev: receives the next event, in the source's global order
 * @err: receives a parse error, if any
 *
 * Returns: 1 for an event, 0 at the end, or a negative TLBSIM_E* code.
 */
typedef int (*tlbsim_event_source_fn)(void *arg, struct tlbsim_event *ev, struct tlbsim_error *err);

/**
 * typedef tlbsim_event_batch_fn - a source that hands out events in batches
 * @arg: the caller's argument
 * @ev: receives up to @max events, in the source's global order
 * @max: room in @ev, at least 1 (the simulation asks for at most 256, and
 *       never for events past its max_events cap)
 * @err: receives a parse error, if any
 *
 * A source that meets an error after decoding some events returns those
 * and leaves @err untouched; it returns the error on its next call (so
 * the OS model's own reports of the events before it come first,
 * tlbsim_trace_next_batch() does so).
 *
 * Returns: the number of events written (1 to @max), 0 at the end, or a
 * negative TLBSIM_E* code.
 */
typedef int (*tlbsim_event_batch_fn)(void *arg, struct tlbsim_event *ev, size_t max,
				     struct tlbsim_error *err);

/**
 * struct tlbsim_sim_config - how to build a simulation
 * @machine: the machine (borrowed; must outlive the simulation)
 * @policy: "name", "name:key=value,...", or "a+b" (a flush policy composed
 *        with a table-free strategy); NULL for the ISA's default
 * @threads: OpenMP threads for the parallel phase (>= 1; 0 means 1).
 *        A window's cores are shared among them only while windows take
 *        long on the host (about 100 us) and sharing them beats one
 *        thread, OpenMP's two barriers a window included (timed as the
 *        run goes); other windows run on the calling thread
 * @share_all: non-zero: with @threads > 1, share every window however
 *        short (tests, ThreadSanitizer); the results are the same either
 *        way, only the speed differs
 * @max_events: stop after this many events (0: no cap); stats are then
 *        marked partial
 * @max_cycles: stop at this simulated time, cycles (0: no cap)
 * @memory_frames: physical memory size in 4 KiB frames (0: 2^24 = 64 GiB;
 *        at most 2^40); a run that needs more stops: tlbsim_sim_run()
 *        returns -TLBSIM_ENOMEM, the error naming the event and the frames
 *        in use
 * @check: non-zero: run the hazard oracle (stale uses, walks into freed
 *        tables, incomplete maintenance, break-before-make; the "hazards"
 *        object of the statistics; docs/hazard-rules.md)
 * @ordered: non-zero: replay in trace order: an event starts only once
 *        every earlier event of the trace has started (scenarios give
 *        cross-cpu interleavings this way); the trace is read whole, at
 *        most 2^20 events
 * @ets2: Arm cpus that implement FEAT_ETS2 (docs/hazard-rules.md rule 7), or NULL
 *        for none (borrowed for tlbsim_sim_create() only)
 * @os_flags: TLBSIM_OS_* bits: OS-model behaviours of older kernels
 *        (TLBSIM_OS_FAULT_LOCK_MM and TLBSIM_OS_FAULT_LOCKLESS together
 *        are refused: -TLBSIM_EINVAL)
 * @name: the event source's name for error reports, e.g. the trace file
 *        (borrowed for tlbsim_sim_create() only: copied), or NULL for
 *        "<trace>"
 */
struct tlbsim_sim_config {
	const struct tlbsim_machine *machine;
	const char *policy;
	int threads;
	int share_all;
	uint64_t max_events;
	uint64_t max_cycles;
	uint64_t memory_frames;
	int check;
	int ordered;
	const struct tlbsim_cpumask *ets2;
	unsigned os_flags;
	const char *name;
};

/* struct tlbsim_sim_config.os_flags */
enum tlbsim_os_flags {
	/* mmu_gather without mm_tlb_flush_nested(): a munmap/madvise that
	 * finds its PTEs already cleared by a concurrent one returns without
	 * flushing (Linux before 4.15, commit 99baac21e458). */
	TLBSIM_OS_NO_NESTED_FLUSH = 1u << 0,
	/* Page faults and PTE changes take the mm-wide page_table_lock
	 * (Linux 2.6.8); without this or the next, each PTE-table page has
	 * its own lock (split PTE locks, the default).  BACKGROUND.md 2. */
	TLBSIM_OS_FAULT_LOCK_MM = 1u << 1,
	/* Faults lock only their PTE and install it with a compare-and-
	 * exchange (the 2004 fault fast path); other PTE changes take
	 * page_table_lock.  Excludes TLBSIM_OS_FAULT_LOCK_MM. */
	TLBSIM_OS_FAULT_LOCKLESS = 1u << 2,
	/* lru_add_drain() on every madvise and munmap zap: the cpu's batch
	 * of faulted-in pages goes onto the LRU under the lruvec lock (the
	 * kernels of the 2025 INVLPGB measurements; a separate patch removed
	 * the call).  WORKLOADS.md 2. */
	TLBSIM_OS_LRU_ADD_DRAIN = 1u << 3,
	/* Page faults take their VMA's lock, not the mmap_lock (Linux 6.4
	 * per-VMA locks: lock_vma_under_rcu(), vma_start_read()); syscalls
	 * keep taking the mmap_lock. */
	TLBSIM_OS_PER_VMA_LOCK = 1u << 4,
	/*
	 * Mutations: each brings back a historical kernel bug
	 * (docs/scenarios.md names the commit that fixed it).
	 * No flush_tlb_batched_pending() in mprotect, munmap, madvise and
	 * mremap: they return without flushing PTEs that reclaim cleared
	 * with the flush deferred (Linux before 3ea277194daa, 4.13).
	 */
	TLBSIM_OS_NO_BATCHED_PENDING = 1u << 5,
	/* x86 with INVLPGB: reclaim's batched flush broadcasts only when the
	 * batch's cpumask has cpus, missing the global ASIDs of mms that run
	 * nowhere now (what commit 0b7eb55cb706, Linux 6.15, rules out). */
	TLBSIM_OS_RECLAIM_CPUMASK_ONLY = 1u << 6,
	/* mremap's move_ptes() flushes the old range after dropping the old
	 * PTE lock (Linux before eb66ae030829, 4.18). */
	TLBSIM_OS_MREMAP_LATE_FLUSH = 1u << 7,
	/* tlb_finish_mmu()'s forced flush of a nested gather resets the range
	 * to the gather's own and drops freed_tables (Linux 4.20-5.1, before
	 * 7a30df49f63a). */
	TLBSIM_OS_NESTED_RESET_RANGE = 1u << 8,
};

/**
 * tlbsim_os_options_parse() - OS-model options from text
 * @spec: "key=value,..." (one comma, blanks, or both between items; an
 *        empty item, as in "a=1,,b=1" or a trailing comma, is an error): fault_lock=
 *        mm|split|lockless, lru_add_drain=0|1, per_vma_lock=0|1,
 *        no_nested_flush=0|1, and the mutations no_batched_pending=0|1,
 *        reclaim_cpumask_only=0|1, mremap_late_flush=0|1,
 *        nested_reset_range=0|1; a bare 0/1 key means =1 (borrowed)
 * @flags: receives the TLBSIM_OS_* bits (those of later items win)
 * @why: receives, on failure, what was expected and found; may be NULL
 * @size: bytes of @why
 * @at: receives, on failure, the byte offset in @spec of the bad item;
 *      may be NULL
 *
 * The syntax of `tlbsim run --os` and of a scenario's "#@ os" line.
 *
 * Returns: 0, or -TLBSIM_EINVAL for an unknown key or value.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_os_options_parse(const char *spec, unsigned *flags,
							 char *why, size_t size, size_t *at);

/**
 * tlbsim_os_options_format() - TLBSIM_OS_* bits as tlbsim_os_options_parse()
 * reads them
 * @flags: TLBSIM_OS_* bits
 * @buf: destination, always NUL-terminated when @size > 0
 * @size: bytes of @buf; 256 always suffice
 *
 * The four kernel options are always written, the mutations
 * (no_batched_pending, ...) only when set, as "=1": e.g.
 * "fault_lock=split,lru_add_drain=0,per_vma_lock=0,no_nested_flush=0"
 * or "...,no_nested_flush=0,mremap_late_flush=1" (no blanks).
 *
 * Returns: the characters the text needs, excluding the NUL (as snprintf).
 */
TLBSIM_API int tlbsim_os_options_format(unsigned flags, char *buf, size_t size);

/**
 * tlbsim_sim_create() - build a simulation
 * @cfg: configuration (borrowed; @cfg->machine must outlive the result)
 * @out: receives the simulation, owned by the caller
 * @err: error report, or NULL
 *
 * Returns: 0; -TLBSIM_ENOENT for an unknown policy name (the message lists
 * the known ones); -TLBSIM_ENOTSUP for a policy of another ISA;
 * -TLBSIM_EINVAL for bad parameters; -TLBSIM_ENOMEM.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_sim_create(const struct tlbsim_sim_config *cfg,
						   tlbsim_sim **out, struct tlbsim_error *err);

/**
 * tlbsim_sim_run() - simulate every event of a source
 * @sim: the simulation
 * @next: the event source, read in the serial phase only
 * @arg: passed to @next
 * @err: error report (the source's, or the OS model's for an event it
 *       cannot apply, with the event's index in its text and in @event,
 *       and no line or offset: tlbsim_trace_locate() adds them), or NULL
 *
 * Returns: 0 when the source ended and every thread finished; 1 when a cap
 * (max_events, max_cycles) or tlbsim_sim_stop() ended it early; a negative
 * TLBSIM_E* code on a source error, an event the OS model cannot take
 * (-TLBSIM_EINVAL), or simulated memory exhausted (-TLBSIM_ENOMEM, "out
 * of simulated memory" in @err's text: @memory_frames of the config).
 * Statistics are valid in every case.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_sim_run(tlbsim_sim *sim, tlbsim_event_source_fn next,
						void *arg, struct tlbsim_error *err);

/**
 * tlbsim_sim_run_batch() - tlbsim_sim_run() with a batch source
 * @sim: the simulation
 * @next: the event source, read in the serial phase only, up to 256
 *        events a call
 * @arg: passed to @next
 * @err: as for tlbsim_sim_run()
 *
 * The same simulation, statistics and errors as tlbsim_sim_run() with a
 * source handing out the same events one at a time; cheaper per event when
 * the source decodes in batches (tlbsim_trace_next_batch()).  Events are
 * read at most one batch ahead of the simulation: a source error is
 * reported when the simulation reaches it.  A batch larger than asked for
 * is an error (-TLBSIM_EINVAL).
 *
 * Returns: as tlbsim_sim_run().
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_sim_run_batch(tlbsim_sim *sim, tlbsim_event_batch_fn next,
						      void *arg, struct tlbsim_error *err);

/**
 * tlbsim_sim_stop() - ask a running simulation to stop at its next window
 * @sim: the simulation
 *
 * Async-signal-safe (sets a flag), for SIGINT handlers.
 */
TLBSIM_API void tlbsim_sim_stop(tlbsim_sim *sim);

/**
 * tlbsim_sim_stats_json() - every statistic as JSON text
 * @sim: the simulation (borrowed)
 *
 * The schema is documented in docs/stats-schema.md and versioned by its
 * "schema" key.
 *
 * Returns: a string the caller frees with free(), or NULL when out of memory.
 */
TLBSIM_API TLBSIM_MUST_CHECK char *tlbsim_sim_stats_json(const tlbsim_sim *sim);

/**
 * tlbsim_sim_destroy() - release a simulation
 * @sim: the simulation, or NULL (then nothing happens)
 */
TLBSIM_API void tlbsim_sim_destroy(tlbsim_sim *sim);

#ifdef __cplusplus
}
#endif

#endif /* TLBSIM_SIM_H */
