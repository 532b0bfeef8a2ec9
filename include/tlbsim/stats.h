/* SPDX-License-Identifier: MIT */
/*
 * A simulation's common statistics as C structs, so that an experiment
 * reads its numbers without parsing JSON: the same values as the
 * statistics JSON of the same run (tlbsim_sim_stats_json(), schema
 * tlbsim-stats/1, docs/stats-schema.md), each member named as its JSON key
 * (the path given in its comment).
 *
 * The structs grow at their end only: the caller passes the size it was
 * compiled with, and the library fills what both know and zeroes what only
 * the caller knows (the extensible-struct convention of Linux's
 * copy_struct_from_user(), include/linux/uaccess.h).
 */
#ifndef TLBSIM_STATS_H
#define TLBSIM_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tlbsim/export.h"
#include "tlbsim/machine.h"
#include "tlbsim/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct tlbsim_cpu_stats - one cpu's counters, or all cpus' summed
 * @cycles: the cpu's clock at the end, cycles (per_cpu[i].cycles); in the
 *          totals, the latest cpu clock: the run's simulated time (cycles)
 * @busy_cycles: its own work: accesses (translation cost), compute,
 *               syscalls, faults, context switches, flush instructions
 * @waiting_cycles: blocked: IPI acknowledgements, DSB, TLBSYNC, mmap_lock,
 *                  earlier syscalls of other threads, the lru_lock
 * @idle_cycles: nothing to run
 * @stolen_cycles: taken by interrupts and broadcasts it received
 * @idle_stolen_cycles: of @stolen_cycles, those taken while the cpu had
 *             nothing to run (a broadcast serviced by an idle cpu)
 * @events: events completed
 * @context_switches: thread switches
 * @mm_switches: context switches between address spaces
 * @syscalls: memory syscalls (mmap, munmap, mprotect, madvise, ...)
 * @faults: page faults
 * @segv: accesses outside a mapping or not permitted (skipped)
 * @bad_syscalls: syscalls with a range outside the user address space,
 *                empty where Linux fails it (munmap, mmap, mremap), or
 *                starting off a page boundary (munmap, mprotect, madvise,
 *                mremap: -EINVAL); an empty, aligned mprotect or madvise
 *                succeeds (do_mprotect_pkey(), do_madvise() return 0) and
 *                is not counted
 * @ignored_events: kernel-level events (INVLPG .. COMMIT), in a thread's stream or
 *                  on a cpu for no thread, counted on that cpu; and events the OS
 *                  model refused (traces/FORMAT.md: a kthread_use_mm of no live
 *                  process, a reclaim of a dead one, a fork by a kernel thread)
 * @flushes_local: flush requests this cpu initiated done with local
 *                 flushes only
 * @flushes_ipi: ... with IPIs (x86 shootdowns)
 * @flushes_broadcast: ... with TLBI broadcasts (arm64 TLBI ...IS)
 * @flushes_invlpgb: ... with AMD INVLPGB
 * @flushes_skipped: ... with nothing to flush (no cpu held the mm)
 * @full_flush_requests: requests for a whole address space
 * @flush_cycles: busy cycles inside this cpu's own flush requests (the
 *                policy's flush_range: local flushes, IPI sends, TLBI and
 *                INVLPGB issue, DSB/TLBSYNC), not the wait that follows
 * @lru_wait_cycles: waiting for a lruvec lock (part of @waiting_cycles)
 * @line_transfer_cycles: fetching shared kernel lines another cpu held,
 *                        every kind (tlbsim_sim_line_stats() by kind)
 * @line_wait_cycles: waiting behind other cpus' atomics and lock holds on
 *                    those lines, every kind
 * @mmap_lock_wait_cycles: asleep on an mmap_lock's wait list, from
 *                         joining it to being handed the lock at a release
 *                         (Linux kernel/locking/rwsem.c order; src/os/
 *                         mmap_lock.c), interrupts not included (part of
 *                         @waiting_cycles)
 * @flush_lock_wait_cycles: of them, while the lock's write holders were
 *                          blocked on their flushes
 * @switch_line_cycles: cycles the policy's switch_mm and enter_lazy spent
 *                      on shared lines (mm_cpumask, tlb_gen, nr_active_mm),
 *                      the bookkeeping of which cpus a flush must reach
 * @shootdowns: IPI multicasts sent
 * @ipis_sent: IPIs sent, one per target cpu
 * @ipis_received: IPIs received
 * @ipi_stolen_cycles: cycles of IPI handlers run on this cpu (entry,
 *                     handler, its flush, exit)
 * @ipi_send_cycles: this cpu's IPI set-up and sends, costs.ipi_send plus
 *                   costs.ipi_send_per_target a target (part of
 *                   @flush_cycles)
 * @tlbi_broadcasts_sent: arm64 TLBI ...IS instructions issued
 * @tlbi_broadcasts_received: arm64 TLBI broadcasts received
 * @broadcast_stolen_cycles: cycles taken by the broadcasts received
 * @invlpgb_sent: AMD INVLPGB instructions issued
 * @invlpgb_received: INVLPGB invalidations received
 * @ipi_wait_cycles: from the start of each wait for IPI acknowledgements
 *                   until all came (interrupts taken meanwhile included)
 * @dsb_wait_cycles: the same for DSBs after TLBI broadcasts
 * @tlbsync_wait_cycles: the same for TLBSYNC after INVLPGB
 * @flush_wait_cycles: blocked waiting for acknowledgements, DSB or TLBSYNC,
 *                     without the interrupts taken meanwhile (part of
 *                     @waiting_cycles)
 * @tlb_l1i_hits: L1 instruction TLB hits, lookups
 * @tlb_l1i_misses: L1 instruction TLB misses, lookups
 * @tlb_l1d_hits: L1 data TLB hits, lookups
 * @tlb_l1d_misses: L1 data TLB misses, lookups
 * @tlb_l2_hits: L2 (shared) TLB hits, lookups
 * @tlb_l2_misses: L2 TLB misses, lookups
 * @walks: page-table walks
 * @walk_cycles: cycles spent walking
 * @walks_after_flush: walks that filled again a translation an
 *                     invalidation had removed from this cpu's TLBs (a
 *                     lower bound: a direct-mapped table remembers them)
 * @walk_cycles_after_flush: their cycles
 *
 * Every member is per_cpu[i].NAME in the JSON and, but @cycles,
 * totals.NAME for the sums, in the JSON's order (docs/stats-schema.md,
 * "Per cpu").  Cycles are the simulated machine's core cycles.
 */
struct tlbsim_cpu_stats {
	uint64_t cycles;
	uint64_t busy_cycles, waiting_cycles, idle_cycles, stolen_cycles, idle_stolen_cycles;
	uint64_t events, context_switches, mm_switches;
	uint64_t syscalls, faults, segv, bad_syscalls, ignored_events;
	uint64_t flushes_local, flushes_ipi, flushes_broadcast, flushes_invlpgb, flushes_skipped;
	uint64_t full_flush_requests, flush_cycles, lru_wait_cycles;
	uint64_t line_transfer_cycles, line_wait_cycles, mmap_lock_wait_cycles,
	    flush_lock_wait_cycles, switch_line_cycles;
	uint64_t shootdowns, ipis_sent, ipis_received, ipi_stolen_cycles, ipi_send_cycles;
	uint64_t tlbi_broadcasts_sent, tlbi_broadcasts_received, broadcast_stolen_cycles;
	uint64_t invlpgb_sent, invlpgb_received;
	uint64_t ipi_wait_cycles, dsb_wait_cycles, tlbsync_wait_cycles, flush_wait_cycles;
	uint64_t tlb_l1i_hits, tlb_l1i_misses, tlb_l1d_hits, tlb_l1d_misses;
	uint64_t tlb_l2_hits, tlb_l2_misses, walks, walk_cycles;
	uint64_t walks_after_flush, walk_cycles_after_flush;
};

/**
 * struct tlbsim_line_stats - what one kind of shared kernel cache line
 * (enum tlbsim_line_kind: mm_cpumask, tlb_gen, mmap_lock, ...) cost a cpu
 * @accesses: reads, writes and atomics (a lock taken is one)
 * @transfers: of them, those that fetched the line from another cpu
 * @transfer_cycles: cycles those transfers took (topology.line by the
 *                   cpus' distance, plus costs.atomic_rmw for an atomic)
 * @wait_cycles: cycles waiting behind another cpu's atomic or lock hold:
 *               waiting time, or stolen inside an IPI handler
 * @hold_cycles: cycles a lock of this kind was held (the work done under
 *               it, part of the busy cycles)
 *
 * per_cpu[i].lines.KIND and lines.KIND (summed) in the JSON
 * (docs/stats-schema.md, "lines"; the model: src/fabric/line.c).
 */
struct tlbsim_line_stats {
	uint64_t accesses, transfers, transfer_cycles, wait_cycles, hold_cycles;
};

/**
 * struct tlbsim_coherence_stats - where the cycles spent keeping TLBs
 * coherent went, all cpus, each cycle in one kind (the JSON's coherence
 * object, which tlbsim compare leads with)
 * @cycles: the sum of the kinds below
 * @ipi_send_cycles: initiators sending IPIs (totals.ipi_send_cycles)
 * @ipi_handler_cycles: receivers in the flush IPI's handler
 *                      (totals.ipi_stolen_cycles)
 * @broadcast_receive_cycles: receivers of TLBI broadcasts and INVLPGB
 *                            (totals.broadcast_stolen_cycles)
 * @flush_wait_cycles: initiators blocked for acknowledgements, DSB or
 *                     TLBSYNC (totals.flush_wait_cycles)
 * @other_flush_cycles: the rest of the initiators' flush work
 *                      (totals.flush_cycles - totals.ipi_send_cycles)
 * @walk_cycles_after_flush: walks refilling what a flush removed
 * @lock_wait_cycles: cpus stalled for an mmap_lock whose writer waited
 *                    for its flush (totals.flush_lock_wait_cycles)
 * @switch_line_cycles: the policy's shared lines at context switches
 *                      (totals.switch_line_cycles)
 */
struct tlbsim_coherence_stats {
	uint64_t cycles, ipi_send_cycles, ipi_handler_cycles, broadcast_receive_cycles;
	uint64_t flush_wait_cycles, other_flush_cycles, walk_cycles_after_flush, lock_wait_cycles;
	uint64_t switch_line_cycles;
};

/**
 * struct tlbsim_stats - a run's statistics beyond the cpus' counters
 * @machine: the machine's name (machine), borrowed from the simulation:
 *           valid until tlbsim_sim_destroy()
 * @isa: its instruction set (isa)
 * @policy: the policy as given, parameters included (policy), borrowed
 *          as @machine is
 * @partial: the run stopped early (a cap, tlbsim_sim_stop()) (partial)
 * @cpus: cpus of the machine (cpus)
 * @freq_ghz: the machine's clock, GHz (freq_ghz)
 * @os_flags: the OS-model options of the run, TLBSIM_OS_* (os_options is
 *            their tlbsim_os_options_format())
 * @events_read: events taken from the source (events_read)
 * @cycles: simulated time, cycles: the latest cpu clock (cycles)
 * @seconds: @cycles / (@freq_ghz * 1e9), simulated seconds (seconds)
 * @windows: engine windows run, a cost of the simulation itself (windows)
 * @coherence: the cycles spent on TLB coherence by kind (coherence.*)
 * @dvm_broadcasts: TLBI broadcasts the DVM engine served (fabric.*)
 * @dvm_queued_cycles: cycles broadcasts waited for the DVM engine
 * @invlpgb_broadcasts: INVLPGBs the fabric served
 * @invlpgb_queued_cycles: cycles INVLPGBs waited for the fabric
 * @threads: threads created (os.*)
 * @address_spaces: address spaces (mm) created
 * @unknown_thread_events: events of threads never created
 * @switches_folded: SWITCH events to a cpu the machine lacks, run on
 *                   cpu % cpus
 * @syscall_order_waits: memory syscalls that waited for an earlier one of
 *                       another thread on an overlapping range
 * @asid_rollovers: ASID generation rollovers
 * @global_asid_resets: global ASID space resets (INVLPGB policies)
 * @rcu_batches: RCU grace periods that freed page tables
 * @rcu_tables_freed: page-table pages freed after a grace period
 * @reclaimed_pages: pages RECLAIM events unmapped (Linux try_to_unmap())
 * @reclaim_refaults: of them, pages a fault mapped again from the swap
 *        cache before the reclaim batch's flush freed them
 * @lru_lock_acquisitions: lruvec lock acquisitions, all nodes
 * @lru_lock_queued_cycles: cycles cpus waited for lruvec locks
 * @frames: simulated physical memory, 4 KiB frames (memory.*)
 * @data_frames_used: data frames in use at the end
 * @table_frames_used: page-table frames in use at the end
 * @frames_peak: the most frames in use at once
 * @data_frames_peak: the most data frames in use at once
 * @table_frames_peak: the most page-table frames in use at once
 * @hazards_checked: the hazard oracle ran (hazards.checked)
 * @hazards: diagnostics found, 0 when not checked (hazards.total)
 * @stale_use: of them, stale translations used (hazards.by_kind.*)
 * @walk_freed_table: walks into a freed page-table page
 * @walk_reused_table: walks into a page-table page reused
 * @incomplete_maintenance: TLBI without DSB, INVLPGB without TLBSYNC
 * @bbm: break-before-make skipped
 * @unordered_publish: tables linked before the entries written into them
 *                     were ordered (kernel-level replays only: 0 here)
 */
struct tlbsim_stats {
	const char *machine;
	enum tlbsim_isa isa;
	const char *policy;
	bool partial;
	unsigned cpus;
	double freq_ghz;
	unsigned os_flags;
	uint64_t events_read, cycles;
	double seconds;
	uint64_t windows;
	struct tlbsim_coherence_stats coherence;
	uint64_t dvm_broadcasts, dvm_queued_cycles, invlpgb_broadcasts, invlpgb_queued_cycles;
	uint64_t threads, address_spaces, unknown_thread_events, switches_folded;
	uint64_t syscall_order_waits, asid_rollovers, global_asid_resets;
	uint64_t rcu_batches, rcu_tables_freed, reclaimed_pages, reclaim_refaults;
	uint64_t lru_lock_acquisitions, lru_lock_queued_cycles;
	uint64_t frames, data_frames_used, table_frames_used;
	uint64_t frames_peak, data_frames_peak, table_frames_peak;
	bool hazards_checked;
	uint64_t hazards;
	uint64_t stale_use, walk_freed_table, walk_reused_table, incomplete_maintenance, bbm;
	uint64_t unordered_publish;
};

/* tlbsim_sim_cpu_stats()'s @cpu for the sums over every cpu (totals). */
#define TLBSIM_STATS_TOTAL UINT32_MAX

/**
 * tlbsim_sim_stats() - a run's statistics
 * @sim: the simulation (borrowed), run or not
 * @st: receives the statistics
 * @size: sizeof(*@st) as the caller was compiled
 *
 * The same values as tlbsim_sim_stats_json() at the same moment, from
 * the thread that runs @sim: before and after tlbsim_sim_run(), also
 * after one that failed or was stopped (@partial).  The strings
 * @st->machine and @st->policy belong to @sim.  Per-mm, per-node and
 * hazard-report details stay in the JSON only.
 *
 * Returns: 0, or -TLBSIM_EINVAL for a NULL argument or a @size of 0.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_sim_stats(const tlbsim_sim *sim, struct tlbsim_stats *st,
						  size_t size);

/**
 * tlbsim_sim_cpu_stats() - one cpu's counters, or their sums
 * @sim: the simulation (borrowed)
 * @cpu: the cpu, 0 to cpus - 1, or TLBSIM_STATS_TOTAL for the sums over
 *       every cpu (the JSON's totals; @cycles then the latest clock)
 * @st: receives the counters
 * @size: sizeof(*@st) as the caller was compiled
 *
 * Returns: 0, or -TLBSIM_EINVAL for a NULL argument, a @size of 0 or a
 * @cpu the machine lacks.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_sim_cpu_stats(const tlbsim_sim *sim, unsigned cpu,
						      struct tlbsim_cpu_stats *st, size_t size);

/**
 * tlbsim_sim_line_stats() - what one kind of shared kernel line cost
 * @sim: the simulation (borrowed)
 * @cpu: the cpu, or TLBSIM_STATS_TOTAL for the sums (the JSON's lines)
 * @kind: enum tlbsim_line_kind (tlbsim_line_kind_name() names it)
 * @st: receives the counters
 * @size: sizeof(*@st) as the caller was compiled
 *
 * Returns: 0, or -TLBSIM_EINVAL for a NULL argument, a @size of 0, a
 * @cpu the machine lacks or a @kind of TLBSIM_LINE_NR_KINDS or more.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_sim_line_stats(const tlbsim_sim *sim, unsigned cpu,
						       unsigned kind, struct tlbsim_line_stats *st,
						       size_t size);

#ifdef __cplusplus
}
#endif

#endif /* TLBSIM_STATS_H */
