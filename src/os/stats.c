/* SPDX-License-Identifier: MIT */
/*
 * A simulation's statistics as JSON (jansson), schema "tlbsim-stats/1"
 * (docs/stats-schema.md).  Keys are inserted in a fixed order, so equal
 * runs give byte-identical text.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "check/oracle_json.h"
#include "os/os.h"
#include "report/json_util.h"

#define SCHEMA "tlbsim-stats/1"

/* The per-cpu counters that also appear summed in "totals", in order. */
#define CPU_COUNTERS(X)                                                                            \
	X("busy_cycles", core->st.busy)                                                            \
	X("waiting_cycles", core->st.waiting)                                                      \
	X("idle_cycles", core->st.idle)                                                            \
	X("stolen_cycles", core->st.stolen)                                                        \
	X("events", oc->st.events)                                                                 \
	X("context_switches", oc->st.context_switches)                                             \
	X("mm_switches", oc->st.mm_switches)                                                       \
	X("syscalls", oc->st.syscalls)                                                             \
	X("faults", oc->st.faults)                                                                 \
	X("segv", oc->st.segv)                                                                     \
	X("bad_syscalls", oc->st.bad_syscalls)                                                     \
	X("ignored_events", oc->st.ignored)                                                        \
	X("flushes_local", oc->st.flushes_local)                                                   \
	X("flushes_ipi", oc->st.flushes_ipi)                                                       \
	X("flushes_broadcast", oc->st.flushes_broadcast)                                           \
	X("flushes_invlpgb", oc->st.flushes_invlpgb)                                               \
	X("flushes_skipped", oc->st.flushes_skipped)                                               \
	X("full_flush_requests", oc->st.full_flushes)                                              \
	X("flush_cycles", oc->st.flush_cycles)                                                     \
	X("lru_wait_cycles", oc->st.lru_wait_cycles)                                               \
	X("line_transfer_cycles", line_sum(oc, 0))                                                 \
	X("line_wait_cycles", line_sum(oc, 1))                                                     \
	X("mmap_lock_wait_cycles", oc->st.mmap_lock_wait_cycles)                                   \
	X("flush_lock_wait_cycles", oc->st.flush_lock_wait_cycles)                                 \
	X("shootdowns", hw->st.shootdowns)                                                         \
	X("ipis_sent", hw->st.ipis_sent)                                                           \
	X("ipis_received", hw->st.ipis_received)                                                   \
	X("ipi_stolen_cycles", hw->st.ipi_stolen_cycles)                                           \
	X("ipi_send_cycles", hw->st.ipi_send_cycles)                                               \
	X("tlbi_broadcasts_sent", hw->st.tlbi_bcast_sent)                                          \
	X("tlbi_broadcasts_received", hw->st.tlbi_bcast_received)                                  \
	X("broadcast_stolen_cycles", hw->st.bcast_stolen_cycles)                                   \
	X("invlpgb_sent", hw->st.invlpgb_sent)                                                     \
	X("invlpgb_received", hw->st.invlpgb_received)                                             \
	X("ipi_wait_cycles", hw->st.wait_cycles[HW_WAIT_IPI_ACKS])                                 \
	X("dsb_wait_cycles", hw->st.wait_cycles[HW_WAIT_DSB])                                      \
	X("tlbsync_wait_cycles", hw->st.wait_cycles[HW_WAIT_TLBSYNC])                              \
	X("flush_wait_cycles", hw->st.blocked_cycles)                                              \
	X("tlb_l1i_hits", mmu->l1i_hits)                                                           \
	X("tlb_l1i_misses", mmu->l1i_misses)                                                       \
	X("tlb_l1d_hits", mmu->l1d_hits)                                                           \
	X("tlb_l1d_misses", mmu->l1d_misses)                                                       \
	X("tlb_l2_hits", mmu->l2_hits)                                                             \
	X("tlb_l2_misses", mmu->l2_misses)                                                         \
	X("walks", mmu->walks)                                                                     \
	X("walk_cycles", mmu->walk_cycles)                                                         \
	X("walks_after_flush", mmu->walks_after_flush)                                             \
	X("walk_cycles_after_flush", mmu->walk_cycles_after_flush)

/* Cycles @oc spent on shared lines of every kind: transferring them (@wait
 * 0) or waiting for them (1). */
static uint64_t line_sum(const struct os_cpu *oc, int wait)
{
	uint64_t n = 0;

	for (unsigned k = 0; k < TLBSIM_LINE_NR_KINDS; k++)
		n += wait ? oc->st.line[k].wait_cycles : oc->st.line[k].transfer_cycles;
	return n;
}

enum { NR_COUNTERS = 0
#define COUNT_ONE(name, expr) +1
	CPU_COUNTERS(COUNT_ONE)
#undef COUNT_ONE
};

/* The counters of one kind of line (struct os_line_stats), in order. */
#define LINE_COUNTERS(X)                                                                           \
	X("accesses", accesses)                                                                    \
	X("transfers", transfers)                                                                  \
	X("transfer_cycles", transfer_cycles)                                                      \
	X("wait_cycles", wait_cycles)                                                              \
	X("hold_cycles", hold_cycles)

static json_t *line_stats_json(const struct os_line_stats *st)
{
	json_t *o = json_object();

#define LINE_EMIT(name, field) rep_json_set_u64(o, name, st->field);
	LINE_COUNTERS(LINE_EMIT)
#undef LINE_EMIT
	return o;
}

/* {"mm_cpumask": {...}, ...}: every kind, in enum order; @sum (may be
 * NULL) adds them up. */
static json_t *lines_json(const struct os_line_stats *st, struct os_line_stats *sum)
{
	json_t *o = json_object();

	for (unsigned k = 0; k < TLBSIM_LINE_NR_KINDS; k++) {
		json_object_set_new(o, tlbsim_line_kind_name(k), line_stats_json(&st[k]));
		if (!sum)
			continue;
#define LINE_ADD(name, field) sum[k].field += st[k].field;
		LINE_COUNTERS(LINE_ADD)
#undef LINE_ADD
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

static json_t *cpu_json(const struct os *os, unsigned i, uint64_t *totals,
			struct os_line_stats *line_totals)
{
	const struct hw_cpu *hw = &os->smp.cpu[i];
	const struct os_cpu *oc = &os->cpu[i];
	const struct eng_core *core = hw->core;
	const struct tlbsim_mmu_stats *mmu = tlbsim_mmu_stats(hw->mmu);
	json_t *o = json_object();
	unsigned k = 0;

	json_object_set_new(o, "cpu", json_integer(i));
	rep_json_set_u64(o, "cycles", core->now);
#define EMIT(name, expr)                                                                           \
	rep_json_set_u64(o, name, (expr));                                                         \
	totals[k++] += (expr);
	CPU_COUNTERS(EMIT)
#undef EMIT
	json_object_set_new(o, "lines", lines_json(oc->st.line, line_totals));
	json_object_set_new(o, "mmu", rep_mmu_stats_json(mmu));
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

/*
 * Where the cycles spent on TLB coherence went, from the totals: the
 * figures tlbsim compare leads with (docs/stats-schema.md, "coherence").
 * Each cycle is in one kind only: IPI sends are part of the initiator's
 * flush cycles and taken out of "other"; waits exclude the interrupts
 * taken meanwhile (stolen: handlers, broadcasts); lock waits are those for
 * an mmap_lock whose writer waits for its flush.
 */
static json_t *coherence_json(const char *const *names, const uint64_t *totals, unsigned n)
{
	static const char *const from[] = {
	    "ipi_send_cycles",	     "ipi_stolen_cycles", "broadcast_stolen_cycles",
	    "flush_wait_cycles",     "flush_cycles",	  "walk_cycles_after_flush",
	    "flush_lock_wait_cycles"};
	static const char *const to[] = {"ipi_send_cycles",	     "ipi_handler_cycles",
					 "broadcast_receive_cycles", "flush_wait_cycles",
					 "other_flush_cycles",	     "walk_cycles_after_flush",
					 "lock_wait_cycles"};
	enum { NR = sizeof(from) / sizeof(from[0]) };
	uint64_t v[NR] = {0}, sum = 0;
	json_t *o = json_object();

	for (unsigned k = 0; k < NR; k++)
		for (unsigned i = 0; i < n; i++)
			if (!strcmp(names[i], from[k]))
				v[k] = totals[i];
	v[4] = v[4] > v[0] ? v[4] - v[0] : 0; /* the flush work but the sends */
	for (unsigned k = 0; k < NR; k++)
		sum += v[k];
	rep_json_set_u64(o, "cycles", sum);
	for (unsigned k = 0; k < NR; k++)
		rep_json_set_u64(o, to[k], v[k]);
	return o;
}

char *os_stats_json(const struct os *os)
{
	static const char *const names[NR_COUNTERS] = {
#define NAME_ONE(name, expr) name,
		CPU_COUNTERS(NAME_ONE)
#undef NAME_ONE
	};
	uint64_t totals[NR_COUNTERS] = {0}, end = 0, lru_served = 0, lru_queued = 0;
	struct os_line_stats line_totals[TLBSIM_LINE_NR_KINDS] = {{0}};
	json_t *root = json_object(), *cpus = json_array(), *mms = json_array(), *tot = json_object();
	json_t *fab = json_object(), *osj = json_object(), *mem = json_object(),
	       *nodes = json_array();
	unsigned i;
	char *text, opts[128];

	for (i = 0; i < os->m->nr_cpus; i++) {
		json_array_append_new(cpus, cpu_json(os, i, totals, line_totals));
		if (os->smp.cpu[i].core->now > end)
			end = os->smp.cpu[i].core->now;
	}
	for (i = 0; i < os->nr_mms; i++)
		json_array_append_new(mms, mm_json(os->mms[i]));
	for (i = 0; i < os->nr_lru; i++) {
		lru_served += os->lru[i].srv.served;
		lru_queued += os->lru[i].srv.queued_cycles;
		json_array_append_new(nodes, lock_json(&os->lru[i]));
	}
	(void)tlbsim_os_options_format(os->os_flags, opts, sizeof(opts));
	json_object_set_new(root, "schema", json_string(SCHEMA));
	json_object_set_new(root, "partial", json_boolean(os->stopped_early));
	json_object_set_new(root, "machine", json_string(os->m->name));
	json_object_set_new(root, "isa", json_string(tlbsim_isa_name(os->m->isa)));
	json_object_set_new(root, "cpus", json_integer(os->m->nr_cpus));
	json_object_set_new(root, "freq_ghz", json_real(os->m->freq_ghz));
	json_object_set_new(root, "policy", json_string(os->pol.name));
	json_object_set_new(root, "os_options", json_string(opts));
	rep_json_set_u64(root, "events_read", os->st.events_read);
	rep_json_set_u64(root, "cycles", end);
	json_object_set_new(root, "seconds", json_real((double)end / (os->m->freq_ghz * 1e9)));
	rep_json_set_u64(root, "windows", os->eng.windows);
	for (i = 0; i < NR_COUNTERS; i++)
		rep_json_set_u64(tot, names[i], totals[i]);
	json_object_set_new(root, "totals", tot);
	json_object_set_new(root, "lines", lines_json(line_totals, NULL));
	json_object_set_new(root, "coherence", coherence_json(names, totals, NR_COUNTERS));
	rep_json_set_u64(fab, "dvm_broadcasts", os->smp.dvm.served);
	rep_json_set_u64(fab, "dvm_queued_cycles", os->smp.dvm.queued_cycles);
	rep_json_set_u64(fab, "invlpgb_broadcasts", os->smp.invlpgb.served);
	rep_json_set_u64(fab, "invlpgb_queued_cycles", os->smp.invlpgb.queued_cycles);
	json_object_set_new(root, "fabric", fab);
	rep_json_set_u64(osj, "threads", os->nr_threads);
	rep_json_set_u64(osj, "address_spaces", os->nr_mms);
	rep_json_set_u64(osj, "unknown_thread_events", os->st.unknown_thread_events);
	rep_json_set_u64(osj, "switches_folded", os->st.switches_folded);
	rep_json_set_u64(osj, "syscall_order_waits", os->st.syscall_order_waits);
	rep_json_set_u64(osj, "asid_rollovers", os->st.asid_rollovers);
	rep_json_set_u64(osj, "global_asid_resets", os->st.global_asid_resets);
	rep_json_set_u64(osj, "rcu_batches", os->st.rcu_batches);
	rep_json_set_u64(osj, "rcu_tables_freed", os->st.rcu_tables_freed);
	rep_json_set_u64(osj, "lru_lock_acquisitions", lru_served);
	rep_json_set_u64(osj, "lru_lock_queued_cycles", lru_queued);
	json_object_set_new(osj, "lruvec_locks", nodes);
	json_object_set_new(root, "os", osj);
	rep_json_set_u64(mem, "frames", tlbsim_physmem_nr_frames(os->pm));
	rep_json_set_u64(mem, "data_frames_used", tlbsim_physmem_nr_used(os->pm, TLBSIM_FRAME_DATA));
	rep_json_set_u64(mem, "table_frames_used", tlbsim_physmem_nr_used(os->pm, TLBSIM_FRAME_TABLE));
	rep_json_set_u64(mem, "frames_peak", tlbsim_physmem_nr_peak(os->pm, TLBSIM_FRAME_FREE));
	rep_json_set_u64(mem, "data_frames_peak",
			 tlbsim_physmem_nr_peak(os->pm, TLBSIM_FRAME_DATA));
	rep_json_set_u64(mem, "table_frames_peak",
			 tlbsim_physmem_nr_peak(os->pm, TLBSIM_FRAME_TABLE));
	json_object_set_new(root, "memory", mem);
	json_object_set_new(root, "hazards", chk_json(os->oracle));
	json_object_set_new(root, "per_cpu", cpus);
	json_object_set_new(root, "address_spaces", mms);
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	json_decref(root);
	return text;
}
