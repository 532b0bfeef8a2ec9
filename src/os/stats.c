/* SPDX-License-Identifier: MIT */
/*
 * A simulation's statistics: the values (struct tlbsim_stats and friends,
 * tlbsim/stats.h) and their JSON (jansson), schema "tlbsim-stats/1"
 * (docs/stats-schema.md), written from the same values.  Keys are
 * inserted in a fixed order, so equal runs give byte-identical text.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "check/oracle.h"
#include "check/oracle_json.h"
#include "os/os.h"
#include "report/json_util.h"

#define SCHEMA "tlbsim-stats/1"

/*
 * The per-cpu counters that also appear summed in "totals", in order: the
 * JSON key and the member of struct tlbsim_cpu_stats by one name, and the
 * expression of its value.
 */
#define CPU_COUNTERS(X)                                                                            \
	X(busy_cycles, core->st.busy)                                                              \
	X(waiting_cycles, core->st.waiting)                                                        \
	X(idle_cycles, core->st.idle)                                                              \
	X(stolen_cycles, core->st.stolen)                                                          \
	X(idle_stolen_cycles, core->st.stolen_idle)                                                \
	X(events, oc->st.events)                                                                   \
	X(context_switches, oc->st.context_switches)                                               \
	X(mm_switches, oc->st.mm_switches)                                                         \
	X(syscalls, oc->st.syscalls)                                                               \
	X(faults, oc->st.faults)                                                                   \
	X(segv, oc->st.segv)                                                                       \
	X(bad_syscalls, oc->st.bad_syscalls)                                                       \
	X(ignored_events, oc->st.ignored)                                                          \
	X(flushes_local, oc->st.flushes_local)                                                     \
	X(flushes_ipi, oc->st.flushes_ipi)                                                         \
	X(flushes_broadcast, oc->st.flushes_broadcast)                                             \
	X(flushes_invlpgb, oc->st.flushes_invlpgb)                                                 \
	X(flushes_skipped, oc->st.flushes_skipped)                                                 \
	X(full_flush_requests, oc->st.full_flushes)                                                \
	X(flush_cycles, oc->st.flush_cycles)                                                       \
	X(lru_wait_cycles, oc->st.lru_wait_cycles)                                                 \
	X(line_transfer_cycles, line_sum(oc, 0))                                                   \
	X(line_wait_cycles, line_sum(oc, 1))                                                       \
	X(mmap_lock_wait_cycles, oc->st.mmap_lock_wait_cycles)                                     \
	X(flush_lock_wait_cycles, oc->st.flush_lock_wait_cycles)                                   \
	X(switch_line_cycles, oc->st.switch_line_cycles)                                           \
	X(shootdowns, hw->st.shootdowns)                                                           \
	X(ipis_sent, hw->st.ipis_sent)                                                             \
	X(ipis_received, hw->st.ipis_received)                                                     \
	X(ipi_stolen_cycles, hw->st.ipi_stolen_cycles)                                             \
	X(ipi_send_cycles, hw->st.ipi_send_cycles)                                                 \
	X(tlbi_broadcasts_sent, hw->st.tlbi_bcast_sent)                                            \
	X(tlbi_broadcasts_received, hw->st.tlbi_bcast_received)                                    \
	X(broadcast_stolen_cycles, hw->st.bcast_stolen_cycles)                                     \
	X(invlpgb_sent, hw->st.invlpgb_sent)                                                       \
	X(invlpgb_received, hw->st.invlpgb_received)                                               \
	X(ipi_wait_cycles, hw->st.wait_cycles[HW_WAIT_IPI_ACKS])                                   \
	X(dsb_wait_cycles, hw->st.wait_cycles[HW_WAIT_DSB])                                        \
	X(tlbsync_wait_cycles, hw->st.wait_cycles[HW_WAIT_TLBSYNC])                                \
	X(flush_wait_cycles, hw->st.blocked_cycles)                                                \
	X(tlb_l1i_hits, mmu->l1i_hits)                                                             \
	X(tlb_l1i_misses, mmu->l1i_misses)                                                         \
	X(tlb_l1d_hits, mmu->l1d_hits)                                                             \
	X(tlb_l1d_misses, mmu->l1d_misses)                                                         \
	X(tlb_l2_hits, mmu->l2_hits)                                                               \
	X(tlb_l2_misses, mmu->l2_misses)                                                           \
	X(walks, mmu->walks)                                                                       \
	X(walk_cycles, mmu->walk_cycles)                                                           \
	X(walks_after_flush, mmu->walks_after_flush)                                               \
	X(walk_cycles_after_flush, mmu->walk_cycles_after_flush)

/* The counters of one kind of line (struct tlbsim_line_stats), in order. */
#define LINE_COUNTERS(X) X(accesses) X(transfers) X(transfer_cycles) X(wait_cycles) X(hold_cycles)

/* Where the coherence cycles come from: the object's keys (struct
 * tlbsim_coherence_stats) after "cycles", each from the totals; see
 * coherence() for other_flush_cycles. */
#define COHERENCE(X)                                                                               \
	X(ipi_send_cycles, t->ipi_send_cycles)                                                     \
	X(ipi_handler_cycles, t->ipi_stolen_cycles)                                                \
	X(broadcast_receive_cycles, t->broadcast_stolen_cycles)                                    \
	X(flush_wait_cycles, t->flush_wait_cycles)                                                 \
	X(other_flush_cycles,                                                                      \
	  t->flush_cycles > t->ipi_send_cycles ? t->flush_cycles - t->ipi_send_cycles : 0)         \
	X(walk_cycles_after_flush, t->walk_cycles_after_flush)                                     \
	X(lock_wait_cycles, t->flush_lock_wait_cycles)                                             \
	X(switch_line_cycles, t->switch_line_cycles)

/* The run's counters beyond the cpus', by object of the JSON, as above. */
#define FABRIC_STATS(X)                                                                            \
	X(dvm_broadcasts, os->smp.dvm.served)                                                      \
	X(dvm_queued_cycles, os->smp.dvm.queued_cycles)                                            \
	X(invlpgb_broadcasts, os->smp.invlpgb.served)                                              \
	X(invlpgb_queued_cycles, os->smp.invlpgb.queued_cycles)
#define OS_STATS(X)                                                                                \
	X(threads, os->nr_threads)                                                                 \
	X(address_spaces, os->nr_mms)                                                              \
	X(unknown_thread_events, os->st.unknown_thread_events)                                     \
	X(switches_folded, os->st.switches_folded)                                                 \
	X(syscall_order_waits, os->st.syscall_order_waits)                                         \
	X(asid_rollovers, os->st.asid_rollovers)                                                   \
	X(global_asid_resets, os->st.global_asid_resets)                                           \
	X(rcu_batches, os->st.rcu_batches)                                                         \
	X(rcu_tables_freed, os->st.rcu_tables_freed)                                               \
	X(reclaimed_pages, os->st.reclaimed)                                                       \
	X(reclaim_refaults, os->st.reclaim_refaults)                                               \
	X(lru_lock_acquisitions, lru_served)                                                       \
	X(lru_lock_queued_cycles, lru_queued)
#define MEMORY_STATS(X)                                                                            \
	X(frames, tlbsim_physmem_nr_frames(os->pm))                                                \
	X(data_frames_used, tlbsim_physmem_nr_used(os->pm, TLBSIM_FRAME_DATA))                     \
	X(table_frames_used, tlbsim_physmem_nr_used(os->pm, TLBSIM_FRAME_TABLE))                   \
	X(frames_peak, tlbsim_physmem_nr_peak(os->pm, TLBSIM_FRAME_FREE))                          \
	X(data_frames_peak, tlbsim_physmem_nr_peak(os->pm, TLBSIM_FRAME_DATA))                     \
	X(table_frames_peak, tlbsim_physmem_nr_peak(os->pm, TLBSIM_FRAME_TABLE))

#define FILL(name, expr) st->name = (expr);

/* Cycles @oc spent on shared lines of every kind: transferring them (@wait
 * 0) or waiting for them (1). */
static uint64_t line_sum(const struct os_cpu *oc, int wait)
{
	uint64_t n = 0;

	for (unsigned k = 0; k < TLBSIM_LINE_NR_KINDS; k++)
		n += wait ? oc->st.line[k].wait_cycles : oc->st.line[k].transfer_cycles;
	return n;
}

static void cpu_stats(const struct os *os, unsigned i, struct tlbsim_cpu_stats *st)
{
	const struct hw_cpu *hw = &os->smp.cpu[i];
	const struct os_cpu *oc = &os->cpu[i];
	const struct eng_core *core = hw->core;
	const struct tlbsim_mmu_stats *mmu = tlbsim_mmu_stats(hw->mmu);

	st->cycles = core->now;
	CPU_COUNTERS(FILL)
}

void os_cpu_stats(const struct os *os, unsigned cpu, struct tlbsim_cpu_stats *st)
{
	struct tlbsim_cpu_stats c;

	if (cpu != TLBSIM_STATS_TOTAL) {
		cpu_stats(os, cpu, st);
		return;
	}
	/* The totals: sums, but the clock, which is the latest. */
	memset(st, 0, sizeof(*st));
	for (unsigned i = 0; i < os->m->nr_cpus; i++) {
		cpu_stats(os, i, &c);
		st->cycles = c.cycles > st->cycles ? c.cycles : st->cycles;
#define ADD(name, expr) st->name += c.name;
		CPU_COUNTERS(ADD)
#undef ADD
	}
}

void os_line_stats(const struct os *os, unsigned cpu, unsigned kind, struct tlbsim_line_stats *st)
{
	if (cpu != TLBSIM_STATS_TOTAL) {
		*st = os->cpu[cpu].st.line[kind];
		return;
	}
	memset(st, 0, sizeof(*st));
	for (unsigned i = 0; i < os->m->nr_cpus; i++) {
#define LINE_ADD(name) st->name += os->cpu[i].st.line[kind].name;
		LINE_COUNTERS(LINE_ADD)
#undef LINE_ADD
	}
}

/*
 * Where the cycles spent on TLB coherence went, from the totals @t: the
 * figures tlbsim compare leads with (docs/stats-schema.md, "coherence").
 * Each cycle is in one kind only: IPI sends are part of the initiator's
 * flush cycles and taken out of "other"; waits exclude the interrupts
 * taken meanwhile (stolen: handlers, broadcasts); lock waits are those for
 * an mmap_lock whose writer waits for its flush; the switch lines are the
 * policy's bookkeeping at context switches (mm_cpumask, tlb_gen,
 * nr_active_mm), outside any flush.
 */
static void coherence(const struct tlbsim_cpu_stats *t, struct tlbsim_coherence_stats *st)
{
	COHERENCE(FILL)
	st->cycles = 0;
#define SUM(name, expr) st->cycles += st->name;
	COHERENCE(SUM)
#undef SUM
}

void os_run_stats(const struct os *os, struct tlbsim_stats *st)
{
	uint64_t lru_served = 0, lru_queued = 0;
	struct tlbsim_cpu_stats totals;
	unsigned i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < os->nr_lru; i++) {
		lru_served += os->lru[i].srv.served;
		lru_queued += os->lru[i].srv.queued_cycles;
	}
	os_cpu_stats(os, TLBSIM_STATS_TOTAL, &totals);
	st->machine = os->m->name;
	st->isa = os->m->isa;
	st->policy = os->pol.name;
	st->partial = os->stopped_early;
	st->cpus = os->m->nr_cpus;
	st->freq_ghz = os->m->freq_ghz;
	st->os_flags = os->os_flags;
	st->events_read = os->st.events_read;
	st->cycles = totals.cycles;
	st->seconds = (double)totals.cycles / (os->m->freq_ghz * 1e9);
	st->windows = os->eng.windows;
	coherence(&totals, &st->coherence);
	FABRIC_STATS(FILL)
	OS_STATS(FILL)
	MEMORY_STATS(FILL)
	st->hazards_checked = os->oracle != NULL;
	if (os->oracle) {
		const uint64_t *n = chk_counts(os->oracle);

		st->stale_use = n[CHK_STALE_USE];
		st->walk_freed_table = n[CHK_WALK_FREED_TABLE];
		st->walk_reused_table = n[CHK_WALK_REUSED_TABLE];
		st->incomplete_maintenance = n[CHK_INCOMPLETE_MAINT];
		st->bbm = n[CHK_BBM];
		st->unordered_publish = n[CHK_UNORDERED_PUBLISH];
		for (i = 0; i < CHK_NR_KINDS; i++)
			st->hazards += n[i];
	}
}

#undef FILL

/* ---- the JSON, from the values above ---------------------------------- */

#define EMIT(name, expr) rep_json_set_u64(o, #name, st->name);

static json_t *cpu_counters_json(json_t *o, const struct tlbsim_cpu_stats *st)
{
	CPU_COUNTERS(EMIT)
	return o;
}

static json_t *line_json(const struct tlbsim_line_stats *st)
{
	json_t *o = json_object();

#define LINE_EMIT(name) rep_json_set_u64(o, #name, st->name);
	LINE_COUNTERS(LINE_EMIT)
#undef LINE_EMIT
	return o;
}

/* {"mm_cpumask": {...}, ...}: every kind, in enum order, of @cpu or the
 * sums (TLBSIM_STATS_TOTAL). */
static json_t *lines_json(const struct os *os, unsigned cpu)
{
	struct tlbsim_line_stats st;
	json_t *o = json_object();

	for (unsigned k = 0; k < TLBSIM_LINE_NR_KINDS; k++) {
		os_line_stats(os, cpu, k, &st);
		json_object_set_new(o, tlbsim_line_kind_name(k), line_json(&st));
	}
	return o;
}

/* One lock (a FIFO line): times taken and cycles its takers queued. */
static json_t *lock_json(const struct fab_line *l)
{
	json_t *o = json_object();

	rep_json_set_u64(o, "acquisitions", l->srv.served);
	rep_json_set_u64(o, "queued_cycles", l->srv.queued_cycles);
	return o;
}

static json_t *cpu_json(const struct os *os, unsigned i)
{
	struct tlbsim_cpu_stats st;
	json_t *o = json_object();

	cpu_stats(os, i, &st);
	json_object_set_new(o, "cpu", json_integer(i));
	rep_json_set_u64(o, "cycles", st.cycles);
	cpu_counters_json(o, &st);
	json_object_set_new(o, "lines", lines_json(os, i));
	json_object_set_new(o, "mmu", rep_mmu_stats_json(tlbsim_mmu_stats(os->smp.cpu[i].mmu)));
	return o;
}

static json_t *mm_json(const struct os_mm *mm)
{
	json_t *o = json_object();

	json_object_set_new(o, "id", json_integer(mm->pub.id));
	json_object_set_new(o, "pid", json_integer(mm->pid));
	rep_json_set_u64(o, "tlb_gen", mm->pub.tlb_gen);
	rep_json_set_u64(o, "flushes", mm->st.flushes);
	rep_json_set_u64(o, "full_flushes", mm->st.full_flushes);
	rep_json_set_u64(o, "pages_freed", mm->st.pages_freed);
	rep_json_set_u64(o, "tables_freed", mm->st.tables_freed);
	rep_json_set_u64(o, "faults", mm->st.faults);
	rep_json_set_u64(o, "cow_copies", mm->st.cow_copies);
	json_object_set_new(o, "global_asid", json_integer(mm->pub.global_asid));
	json_object_set_new(o, "page_table_lock", lock_json(&mm->ptl_line));
	json_object_set_new(o, "mmap_lock", lock_json(&mm->mmap_line));
	return o;
}

static json_t *coherence_json(const struct tlbsim_coherence_stats *st)
{
	json_t *o = json_object();

	rep_json_set_u64(o, "cycles", st->cycles);
	COHERENCE(EMIT)
	return o;
}

/* The objects of the run's counters, from the tables above. */
#define RUN_OBJECT_JSON(fn, list)                                                                  \
	static json_t *fn(const struct tlbsim_stats *st)                                           \
	{                                                                                          \
		json_t *o = json_object();                                                         \
                                                                                                   \
		list(EMIT) return o;                                                               \
	}
RUN_OBJECT_JSON(fabric_json, FABRIC_STATS)
RUN_OBJECT_JSON(os_json, OS_STATS)
RUN_OBJECT_JSON(memory_json, MEMORY_STATS)

char *os_stats_json(const struct os *os)
{
	json_t *root = json_object(), *cpus = json_array(), *mms = json_array(),
	       *nodes = json_array(), *osj;
	struct tlbsim_cpu_stats totals;
	struct tlbsim_stats run, *st = &run;
	unsigned i;
	char *text, opts[256];

	os_run_stats(os, &run);
	os_cpu_stats(os, TLBSIM_STATS_TOTAL, &totals);
	for (i = 0; i < os->m->nr_cpus; i++)
		json_array_append_new(cpus, cpu_json(os, i));
	for (i = 0; i < os->nr_mms; i++)
		json_array_append_new(mms, mm_json(os->mms[i]));
	for (i = 0; i < os->nr_lru; i++)
		json_array_append_new(nodes, lock_json(&os->lru[i]));
	(void)tlbsim_os_options_format(run.os_flags, opts, sizeof(opts));
	json_object_set_new(root, "schema", json_string(SCHEMA));
	json_object_set_new(root, "partial", json_boolean(run.partial));
	json_object_set_new(root, "machine", json_string(run.machine));
	json_object_set_new(root, "isa", json_string(tlbsim_isa_name(run.isa)));
	json_object_set_new(root, "cpus", json_integer(run.cpus));
	json_object_set_new(root, "freq_ghz", json_real(run.freq_ghz));
	json_object_set_new(root, "policy", json_string(run.policy));
	json_object_set_new(root, "os_options", json_string(opts));
	rep_json_set_u64(root, "events_read", run.events_read);
	rep_json_set_u64(root, "cycles", run.cycles);
	json_object_set_new(root, "seconds", json_real(run.seconds));
	rep_json_set_u64(root, "windows", run.windows);
	json_object_set_new(root, "totals", cpu_counters_json(json_object(), &totals));
	json_object_set_new(root, "lines", lines_json(os, TLBSIM_STATS_TOTAL));
	json_object_set_new(root, "coherence", coherence_json(&run.coherence));
	json_object_set_new(root, "fabric", fabric_json(st));
	osj = os_json(st);
	json_object_set_new(osj, "lruvec_locks", nodes);
	json_object_set_new(root, "os", osj);
	json_object_set_new(root, "memory", memory_json(st));
	json_object_set_new(root, "hazards", chk_json(os->oracle));
	json_object_set_new(root, "per_cpu", cpus);
	json_object_set_new(root, "address_spaces", mms);
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	json_decref(root);
	return text;
}
