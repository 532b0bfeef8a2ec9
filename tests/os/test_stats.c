/* SPDX-License-Identifier: MIT */
/*
 * The statistics getters (tlbsim/stats.h): a small known workload worked
 * out by hand, every value the same as the JSON's, and the sized-struct
 * convention.
 */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "support/sim.h"
#include "tlbsim/stats.h"

#define A 0x10000000ull /* 256 MiB: one PT maps both pages */

/*
 * x86-stock on the round-cost machine with 2 cpus (tests/support/
 * machines.h: topology.line and costs.atomic_rmw 0, so lines cost nothing
 * but are counted).  Thread 1 (cpu 0) maps 2 pages of A, writes both (2
 * faults), starts thread 2 (cpu 1), which reads both and computes 3M
 * cycles; after 1M cycles thread 1 unmaps the second page and ends.
 */
static void build(struct evlist *l)
{
	ev_proc(l, 1, 1);
	ev_pin(l, 1, 0);
	ev_mmap(l, 1, A, 2 * PAGE, RW, 0);
	ev_access(l, 1, TLBSIM_EV_STORE, A);
	ev_access(l, 1, TLBSIM_EV_STORE, A + PAGE);
	ev_thread(l, 1, 2);
	ev_pin(l, 2, 1);
	ev_access(l, 2, TLBSIM_EV_LOAD, A);
	ev_access(l, 2, TLBSIM_EV_LOAD, A + PAGE);
	ev_compute(l, 2, 3000000);
	ev_compute(l, 1, 1000000);
	ev_munmap(l, 1, A + PAGE, PAGE);
}

static void a_known_workload_by_hand(void **state)
{
	struct tlbsim_cpu_stats c0, c1, tot;
	struct tlbsim_line_stats gen, mask;
	struct tlbsim_stats st;
	struct evlist l = {0};
	struct run r;

	(void)state;
	build(&l);
	run_events(&r, TLBSIM_ISA_X86_64, 2, "x86-stock", &l);
	assert_int_equal(tlbsim_sim_stats(r.sim, &st, sizeof(st)), 0);
	assert_int_equal(tlbsim_sim_cpu_stats(r.sim, 0, &c0, sizeof(c0)), 0);
	assert_int_equal(tlbsim_sim_cpu_stats(r.sim, 1, &c1, sizeof(c1)), 0);
	assert_int_equal(tlbsim_sim_cpu_stats(r.sim, TLBSIM_STATS_TOTAL, &tot, sizeof(tot)), 0);

	assert_string_equal(st.machine, "test-x86");
	assert_string_equal(st.policy, "x86-stock");
	assert_int_equal(st.isa, TLBSIM_ISA_X86_64);
	assert_int_equal(st.cpus, 2);
	assert_false(st.partial);
	assert_false(st.hazards_checked);
	assert_int_equal(st.events_read, l.n);
	/* Every event runs on a cpu but the first PROC_CREATE, which names
	 * no thread: the reader starts that process itself. */
	assert_int_equal(tot.events, l.n - 1);
	/* The run's time is the later clock; seconds follow from it. */
	assert_int_equal(st.cycles, c0.cycles > c1.cycles ? c0.cycles : c1.cycles);
	assert_int_equal(tot.cycles, st.cycles);
	assert_true(st.seconds == (double)st.cycles / (st.freq_ghz * 1e9));
	/* The two stores fault; the loads find the pages mapped. */
	assert_int_equal(c0.faults, 2);
	assert_int_equal(c1.faults, 0);
	assert_int_equal(c0.syscalls, 2); /* mmap, munmap */
	assert_int_equal(tot.segv, 0);
	assert_int_equal(st.threads, 2);
	assert_int_equal(st.address_spaces, 1);
	/*
	 * Two shootdowns of one IPI each: the munmap from cpu 0 to cpu 1,
	 * which runs thread 2; then thread 2, the mm's last user, tears it
	 * down from cpu 1 (exit_mmap: a full flush that frees the tables), and
	 * cpu 0, idle lazily on the mm since thread 1 ended, gets the IPI
	 * because tables are freed (native_flush_tlb_multi()).
	 */
	assert_int_equal(c0.shootdowns, 1);
	assert_int_equal(c1.shootdowns, 1);
	assert_int_equal(c0.ipis_received, 1);
	assert_int_equal(c1.ipis_received, 1);
	assert_int_equal(c0.flushes_ipi, 1);
	assert_int_equal(c1.flushes_ipi, 1);
	assert_int_equal(c1.full_flush_requests, 1);
	assert_int_equal(tot.ipis_sent, 2);
	/* Each send: ipi_send 100 + ipi_send_per_target 10 (hw_smp_ipi_many()). */
	assert_int_equal(c0.ipi_send_cycles, 110);
	assert_int_equal(tot.ipi_send_cycles, 220);
	/*
	 * The handlers: ipi_entry 300 + ipi_handler 100 + exit 200, and
	 * between them cpu 1's INVLPG of the page (200: 800 in all) and the
	 * lazy cpu 0's switch to init_mm (a CR3 write, 100: 700).
	 */
	assert_int_equal(c1.ipi_stolen_cycles, 800);
	assert_int_equal(c0.ipi_stolen_cycles, 700);
	assert_int_equal(st.coherence.ipi_send_cycles, 220);
	assert_int_equal(st.coherence.ipi_handler_cycles, 1500);
	assert_int_equal(st.coherence.other_flush_cycles, tot.flush_cycles - 220);
	assert_int_equal(st.coherence.cycles, 220 + 1500 + tot.broadcast_stolen_cycles +
						  tot.flush_wait_cycles + (tot.flush_cycles - 220) +
						  tot.walk_cycles_after_flush +
						  tot.flush_lock_wait_cycles);
	/* The switches' lines cost nothing on this machine. */
	assert_int_equal(tot.switch_line_cycles, 0);
	assert_int_equal(st.coherence.switch_line_cycles, 0);
	/* Cpu 1's two loads: each misses both TLB levels and walks. */
	assert_int_equal(c1.tlb_l1d_hits, 0);
	assert_int_equal(c1.tlb_l1d_misses, 2);
	assert_int_equal(c1.tlb_l2_misses, 2);
	assert_int_equal(c1.walks, 2);
	assert_int_equal(tot.walks_after_flush, 0);
	/*
	 * Memory: 2 data frames; the process's PML4, a PDPT, a PD and a PT
	 * for A, and init_mm's PML4 (what lazy cpus switch to).  Once the
	 * process is gone the two PML4s are left: exit_mmap's
	 * free_pgtables() frees the tables below the root, and the root stays
	 * with the dead mm (src/os/mm.c, os_exit_mm()).
	 */
	assert_int_equal(st.data_frames_peak, 2);
	assert_int_equal(st.table_frames_peak, 5);
	assert_int_equal(st.data_frames_used, 0);
	assert_int_equal(st.table_frames_used, 2);
	/*
	 * The lines (policies/x86_stock.c).  tlb_gen: each cpu reads it in
	 * switch_mm; each flush increments it (cpu 0's munmap, cpu 1's
	 * exit_mmap); cpu 0's own flush of the munmap reads it, as does cpu
	 * 1's handler; the lazy cpus (cpu 1 in its exit_mmap, cpu 0 in its
	 * handler) do not: 3 + 3.  mm_cpumask: each switch_mm sets the bit
	 * (from no mm: one atomic), each flush reads the mask, and the lazy
	 * cpus leave it (an atomic): 3 + 3.  No line is lock-held.
	 */
	assert_int_equal(tlbsim_sim_line_stats(r.sim, TLBSIM_STATS_TOTAL, TLBSIM_LINE_TLB_GEN, &gen,
					       sizeof(gen)),
			 0);
	assert_int_equal(
	    tlbsim_sim_line_stats(r.sim, 0, TLBSIM_LINE_MM_CPUMASK, &mask, sizeof(mask)), 0);
	assert_int_equal(gen.accesses, 6);
	assert_int_equal(gen.transfer_cycles, 0);
	assert_int_equal(gen.hold_cycles, 0);
	assert_int_equal(mask.accesses, 3);
	run_free(&r);
	evlist_free(&l);
}

/* ---- every value is the JSON's ---------------------------------------- */

struct field {
	const char *name;
	size_t off;
};

#define CPU_F(n)                                                                                   \
	{                                                                                          \
#n, offsetof(struct tlbsim_cpu_stats, n)                                           \
	}
static const struct field cpu_fields[] = {
    CPU_F(busy_cycles),
    CPU_F(waiting_cycles),
    CPU_F(idle_cycles),
    CPU_F(stolen_cycles),
    CPU_F(idle_stolen_cycles),
    CPU_F(events),
    CPU_F(context_switches),
    CPU_F(mm_switches),
    CPU_F(syscalls),
    CPU_F(faults),
    CPU_F(segv),
    CPU_F(bad_syscalls),
    CPU_F(ignored_events),
    CPU_F(flushes_local),
    CPU_F(flushes_ipi),
    CPU_F(flushes_broadcast),
    CPU_F(flushes_invlpgb),
    CPU_F(flushes_skipped),
    CPU_F(full_flush_requests),
    CPU_F(flush_cycles),
    CPU_F(lru_wait_cycles),
    CPU_F(line_transfer_cycles),
    CPU_F(line_wait_cycles),
    CPU_F(mmap_lock_wait_cycles),
    CPU_F(flush_lock_wait_cycles),
    CPU_F(switch_line_cycles),
    CPU_F(shootdowns),
    CPU_F(ipis_sent),
    CPU_F(ipis_received),
    CPU_F(ipi_stolen_cycles),
    CPU_F(ipi_send_cycles),
    CPU_F(tlbi_broadcasts_sent),
    CPU_F(tlbi_broadcasts_received),
    CPU_F(broadcast_stolen_cycles),
    CPU_F(invlpgb_sent),
    CPU_F(invlpgb_received),
    CPU_F(ipi_wait_cycles),
    CPU_F(dsb_wait_cycles),
    CPU_F(tlbsync_wait_cycles),
    CPU_F(flush_wait_cycles),
    CPU_F(tlb_l1i_hits),
    CPU_F(tlb_l1i_misses),
    CPU_F(tlb_l1d_hits),
    CPU_F(tlb_l1d_misses),
    CPU_F(tlb_l2_hits),
    CPU_F(tlb_l2_misses),
    CPU_F(walks),
    CPU_F(walk_cycles),
    CPU_F(walks_after_flush),
    CPU_F(walk_cycles_after_flush),
};

#define RUN_F(obj, n)                                                                              \
	{                                                                                          \
		obj "." #n, offsetof(struct tlbsim_stats, n)                                       \
	}
#define COH_F(n)                                                                                   \
	{                                                                                          \
		"coherence." #n, offsetof(struct tlbsim_stats, coherence.n)                        \
	}
static const struct field run_fields[] = {
    {".events_read", offsetof(struct tlbsim_stats, events_read)},
    {".cycles", offsetof(struct tlbsim_stats, cycles)},
    {".windows", offsetof(struct tlbsim_stats, windows)},
    COH_F(cycles),
    COH_F(ipi_send_cycles),
    COH_F(ipi_handler_cycles),
    COH_F(broadcast_receive_cycles),
    COH_F(flush_wait_cycles),
    COH_F(other_flush_cycles),
    COH_F(walk_cycles_after_flush),
    COH_F(lock_wait_cycles),
    COH_F(switch_line_cycles),
    RUN_F("fabric", dvm_broadcasts),
    RUN_F("fabric", dvm_queued_cycles),
    RUN_F("fabric", invlpgb_broadcasts),
    RUN_F("fabric", invlpgb_queued_cycles),
    RUN_F("os", threads),
    RUN_F("os", address_spaces),
    RUN_F("os", unknown_thread_events),
    RUN_F("os", switches_folded),
    RUN_F("os", syscall_order_waits),
    RUN_F("os", asid_rollovers),
    RUN_F("os", global_asid_resets),
    RUN_F("os", rcu_batches),
    RUN_F("os", rcu_tables_freed),
    RUN_F("os", lru_lock_acquisitions),
    RUN_F("os", lru_lock_queued_cycles),
    RUN_F("memory", frames),
    RUN_F("memory", data_frames_used),
    RUN_F("memory", table_frames_used),
    RUN_F("memory", frames_peak),
    RUN_F("memory", data_frames_peak),
    RUN_F("memory", table_frames_peak),
    {"hazards.total", offsetof(struct tlbsim_stats, hazards)},
    RUN_F("hazards.by_kind", stale_use),
    RUN_F("hazards.by_kind", walk_freed_table),
    RUN_F("hazards.by_kind", walk_reused_table),
    RUN_F("hazards.by_kind", incomplete_maintenance),
    RUN_F("hazards.by_kind", bbm),
    RUN_F("hazards.by_kind", unordered_publish),
};

static uint64_t u64_at(const void *base, size_t off)
{
	uint64_t v;

	memcpy(&v, (const char *)base + off, sizeof(v));
	return v;
}

/* @path "obj.key" (or ".key" at the top) under @root. */
static json_t *at(json_t *root, const char *path)
{
	char buf[64], *dot;

	strcpy(buf, path);
	while ((dot = strchr(buf, '.')) && dot != buf) {
		*dot = 0;
		root = json_object_get(root, buf);
		memmove(buf, dot + 1, strlen(dot + 1) + 1);
	}
	return json_object_get(root, buf[0] == '.' ? buf + 1 : buf);
}

/* Every cpu's counters, the totals, the lines and the run's objects of
 * @r's JSON against the getters. */
static void check_against_json(const struct run *r)
{
	char *text = tlbsim_sim_stats_json(r->sim);
	json_t *root = json_loads(text, 0, NULL), *cpus = json_object_get(root, "per_cpu");
	struct tlbsim_stats st;
	size_t i, n = sizeof(cpu_fields) / sizeof(cpu_fields[0]);

	assert_non_null(root);
	assert_int_equal(tlbsim_sim_stats(r->sim, &st, sizeof(st)), 0);
	assert_string_equal(st.machine, json_string_value(json_object_get(root, "machine")));
	assert_string_equal(st.policy, json_string_value(json_object_get(root, "policy")));
	/* The JSON's reals have 10 significant digits. */
	assert_true(fabs(st.seconds - json_real_value(json_object_get(root, "seconds"))) <=
		    1e-9 * st.seconds);
	assert_int_equal(st.partial, json_is_true(json_object_get(root, "partial")));
	/* Every counter of the totals is one of ours, and the other way. */
	assert_int_equal(json_object_size(json_object_get(root, "totals")), n);
	assert_int_equal(json_object_size(json_array_get(cpus, 0)), n + 4);
	for (unsigned c = 0; c <= json_array_size(cpus); c++) {
		unsigned cpu = c < json_array_size(cpus) ? c : TLBSIM_STATS_TOTAL;
		json_t *o = cpu == TLBSIM_STATS_TOTAL ? json_object_get(root, "totals")
						      : json_array_get(cpus, c);
		json_t *lines = cpu == TLBSIM_STATS_TOTAL ? json_object_get(root, "lines")
							  : json_object_get(o, "lines");
		struct tlbsim_cpu_stats cs;

		assert_int_equal(tlbsim_sim_cpu_stats(r->sim, cpu, &cs, sizeof(cs)), 0);
		if (cpu != TLBSIM_STATS_TOTAL)
			assert_int_equal(cs.cycles,
					 json_integer_value(json_object_get(o, "cycles")));
		for (i = 0; i < n; i++) {
			json_t *v = json_object_get(o, cpu_fields[i].name);

			assert_non_null(v);
			assert_int_equal(u64_at(&cs, cpu_fields[i].off), json_integer_value(v));
		}
		assert_int_equal(json_object_size(lines), TLBSIM_LINE_NR_KINDS);
		for (unsigned k = 0; k < TLBSIM_LINE_NR_KINDS; k++) {
			json_t *l = json_object_get(lines, tlbsim_line_kind_name(k));
			struct tlbsim_line_stats ls;

			assert_int_equal(tlbsim_sim_line_stats(r->sim, cpu, k, &ls, sizeof(ls)), 0);
			assert_int_equal(ls.accesses,
					 json_integer_value(json_object_get(l, "accesses")));
			assert_int_equal(ls.transfers,
					 json_integer_value(json_object_get(l, "transfers")));
			assert_int_equal(ls.transfer_cycles,
					 json_integer_value(json_object_get(l, "transfer_cycles")));
			assert_int_equal(ls.wait_cycles,
					 json_integer_value(json_object_get(l, "wait_cycles")));
			assert_int_equal(ls.hold_cycles,
					 json_integer_value(json_object_get(l, "hold_cycles")));
		}
	}
	for (i = 0; i < sizeof(run_fields) / sizeof(run_fields[0]); i++) {
		json_t *v = at(root, run_fields[i].name);

		if (!st.hazards_checked && !strncmp(run_fields[i].name, "hazards.", 8)) {
			assert_null(v);
			assert_int_equal(u64_at(&st, run_fields[i].off), 0);
			continue;
		}
		assert_non_null(v);
		assert_int_equal(u64_at(&st, run_fields[i].off), json_integer_value(v));
	}
	json_decref(root);
	free(text);
}

/* The hand-built run, and a checked, flush-heavy one on arm64 with the
 * line model's costs, which sets most counters. */
static void every_value_is_the_json_s(void **state)
{
	struct evlist l = {0};
	struct run r;

	(void)state;
	build(&l);
	run_events(&r, TLBSIM_ISA_X86_64, 2, "x86-stock", &l);
	check_against_json(&r);
	run_free(&r);
	evlist_free(&l);

	memset(&l, 0, sizeof(l));
	ev_proc(&l, 1, 1);
	ev_pin(&l, 1, 0);
	ev_mmap(&l, 1, A, 8 * PAGE, RW, 0);
	for (unsigned t = 2; t <= 4; t++) {
		ev_thread(&l, 1, t);
		ev_pin(&l, t, t - 1);
	}
	for (unsigned round = 0; round < 4; round++)
		for (unsigned t = 1; t <= 4; t++) {
			ev_access(&l, t, TLBSIM_EV_STORE, A + (t - 1) * 2 * PAGE);
			ev_madvise(&l, t, A + (t - 1) * 2 * PAGE, PAGE, TLBSIM_MADV_DONTNEED);
		}
	{
		struct run_opts o = {.lru_page = 100};

		run_opts(&r, TLBSIM_ISA_ARM64, 4, "arm64-stock", &l, &o);
	}
	check_against_json(&r);
	run_free(&r);
	evlist_free(&l);
}

/* A caller compiled with a smaller struct gets its part; a larger one
 * gets zeros beyond ours (copy_struct_from_user()'s convention). */
static void sizes_and_errors(void **state)
{
	struct {
		struct tlbsim_cpu_stats cs;
		uint64_t later[4];
	} big;
	struct tlbsim_cpu_stats full;
	struct tlbsim_line_stats ls;
	struct tlbsim_stats st;
	struct evlist l = {0};
	uint64_t first[2] = {~0ull, ~0ull};
	struct run r;

	(void)state;
	build(&l);
	run_events(&r, TLBSIM_ISA_X86_64, 2, "x86-stock", &l);
	assert_int_equal(tlbsim_sim_cpu_stats(r.sim, 1, &full, sizeof(full)), 0);
	/* The first member only: cycles; the next word is left alone. */
	assert_int_equal(
	    tlbsim_sim_cpu_stats(r.sim, 1, (struct tlbsim_cpu_stats *)first, sizeof(uint64_t)), 0);
	assert_int_equal(first[0], full.cycles);
	assert_int_equal(first[1], ~0ull);
	memset(&big, 0xff, sizeof(big));
	assert_int_equal(tlbsim_sim_cpu_stats(r.sim, 1, &big.cs, sizeof(big)), 0);
	assert_memory_equal(&big.cs, &full, sizeof(full));
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(big.later[i], 0);
	assert_int_equal(tlbsim_sim_cpu_stats(r.sim, 2, &full, sizeof(full)), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_sim_cpu_stats(NULL, 0, &full, sizeof(full)), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_sim_stats(r.sim, NULL, sizeof(st)), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_sim_stats(r.sim, &st, 0), -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_sim_line_stats(r.sim, 0, TLBSIM_LINE_NR_KINDS, &ls, sizeof(ls)),
			 -TLBSIM_EINVAL);
	assert_int_equal(tlbsim_sim_line_stats(r.sim, 2, 0, &ls, sizeof(ls)), -TLBSIM_EINVAL);
	run_free(&r);
	evlist_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(a_known_workload_by_hand),
	    cmocka_unit_test(every_value_is_the_json_s),
	    cmocka_unit_test(sizes_and_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
