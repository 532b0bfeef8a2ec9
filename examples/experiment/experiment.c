/* SPDX-License-Identifier: MIT */
/*
 * A small experiment linked against the installed libtlbsim: load a machine
 * (a name such as milan-36, or a description's path), map a buffer of
 * 4 KiB pages into a fresh address space, walk it with a stride twice, and
 * print the MMU's counters as JSON.
 *
 *   experiment MACHINE [NR_PAGES] [STRIDE_PAGES]
 *   experiment --policy-demo MACHINE
 *   experiment --stats MACHINE [POLICY]
 *
 * With --policy-demo it registers a flush policy of its own (a struct of
 * hooks, tlbsim_policy_register()) and runs a short simulation with it:
 * two threads of one process share a buffer, one unmaps part of it, and
 * the simulation's statistics are printed as JSON.  With --stats it runs
 * the same workload under POLICY (default: the ISA's stock policy) and
 * prints the statistics read through tlbsim_sim_stats() and friends
 * (tlbsim/stats.h), without parsing JSON.
 *
 * It uses only the public headers (include/tlbsim/), so it is also the
 * smallest example of the library's API.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tlbsim/tlbsim.h>

/* ---- --policy-demo: a policy of our own -------------------------------- */

/* Flush requests the demo policy has seen. */
static unsigned long demo_flushes;

/* Keep mm_cpumask as Linux x86 does: this cpu leaves @prev, joins @next. */
static void demo_switch_mm(struct tlbsim_pctx *ctx, struct tlbsim_mm *prev, struct tlbsim_mm *next)
{
	if (prev != next) {
		if (prev)
			tlbsim_cpumask_clear(&prev->cpumask, ctx->cpu->id);
		tlbsim_cpumask_set(&next->cpumask, ctx->cpu->id);
	}
	ctx->ops->load_mm(ctx, next);
}

/* IPI every other cpu of mm_cpumask, lazy or not, whatever the ISA; flush
 * locally meanwhile.  The IPI handler is the default: a local flush. */
static void demo_flush_range(struct tlbsim_pctx *ctx, const struct tlbsim_flush_info *info)
{
	demo_flushes++;
	ctx->ops->send_ipi(ctx, &info->mm->cpumask, info);
	ctx->ops->local_flush(ctx, info);
}

static const struct tlbsim_policy demo_policy = {
	.name = "demo-ipi-mask",
	.summary = "IPIs to every cpu of mm_cpumask, on any ISA (example)",
	.source = "examples/experiment/experiment.c",
	.abi = TLBSIM_POLICY_ABI,
	.isa_mask = TLBSIM_ISA_BIT(TLBSIM_ISA_X86_64) | TLBSIM_ISA_BIT(TLBSIM_ISA_ARM64),
	.switch_mm = demo_switch_mm,
	.flush_range = demo_flush_range,
};

/* The demo's events, read in order by demo_next(). */
struct demo_events {
	struct tlbsim_event ev[64];
	unsigned n, next;
};

static struct tlbsim_event *demo_add(struct demo_events *d, unsigned kind, uint32_t tid)
{
	struct tlbsim_event *e = &d->ev[d->n++];

	memset(e, 0, sizeof(*e));
	e->kind = (uint8_t)kind;
	e->tid = tid;
	e->cpu = TLBSIM_CPU_ANY;
	return e;
}

static int demo_next(void *arg, struct tlbsim_event *ev, struct tlbsim_error *err)
{
	struct demo_events *d = arg;

	(void)err;
	if (d->next == d->n)
		return 0;
	*ev = d->ev[d->next++];
	return 1;
}

/*
 * Thread 1 maps 16 pages and writes them; thread 2 (on another cpu) reads
 * them; thread 1 then unmaps the first 8: one flush request, an IPI to
 * thread 2's cpu.
 */
static void demo_build(struct demo_events *d)
{
	const uint64_t base = 0x10000000; /* 256 MiB, 2 MiB-aligned */
	struct tlbsim_event *e;
	unsigned i;

	e = demo_add(d, TLBSIM_EV_PROC_CREATE, TLBSIM_TID_NONE);
	e->proc_create.pid = 1;
	e->proc_create.tid = 1;
	e = demo_add(d, TLBSIM_EV_MMAP, 1);
	e->mmap.addr = base;
	e->mmap.len = 16 << 12;
	e->mmap.prot = TLBSIM_PROT_READ | TLBSIM_PROT_WRITE;
	e->mmap.flags = TLBSIM_MAP_PRIVATE | TLBSIM_MAP_ANON;
	for (i = 0; i < 16; i++) {
		e = demo_add(d, TLBSIM_EV_STORE, 1);
		e->access.va = base + ((uint64_t)i << 12);
		e->access.size = 8;
	}
	demo_add(d, TLBSIM_EV_THREAD_CREATE, 1)->thread_create.tid = 2;
	for (i = 0; i < 16; i++) {
		e = demo_add(d, TLBSIM_EV_LOAD, 2);
		e->access.va = base + ((uint64_t)i << 12);
		e->access.size = 8;
	}
	demo_add(d, TLBSIM_EV_COMPUTE, 2)->compute.count = 1000000;
	demo_add(d, TLBSIM_EV_COMPUTE, 1)->compute.count = 100000;
	e = demo_add(d, TLBSIM_EV_MUNMAP, 1);
	e->munmap.addr = base;
	e->munmap.len = 8 << 12;
}

/* The demo's workload on @m under @policy: the simulation, or NULL after
 * saying why. */
static tlbsim_sim *demo_run(const struct tlbsim_machine *m, const char *policy)
{
	struct tlbsim_sim_config cfg = {0};
	struct demo_events d = {0};
	struct tlbsim_error err;
	tlbsim_sim *sim = NULL;
	char msg[1024];
	int rc;

	demo_build(&d);
	cfg.machine = m;
	cfg.policy = policy;
	cfg.threads = 1;
	tlbsim_error_clear(&err);
	rc = tlbsim_sim_create(&cfg, &sim, &err);
	if (!rc)
		rc = tlbsim_sim_run(sim, demo_next, &d, &err);
	if (rc < 0) {
		tlbsim_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "%s\n", msg);
		tlbsim_sim_destroy(sim);
		return NULL;
	}
	return sim;
}

static int policy_demo(const struct tlbsim_machine *m)
{
	tlbsim_sim *sim;
	char *json;

	if (tlbsim_policy_register(&demo_policy)) {
		fprintf(stderr, "cannot register policy %s\n", demo_policy.name);
		return 1;
	}
	sim = demo_run(m, demo_policy.name);
	if (!sim)
		return 1;
	json = tlbsim_sim_stats_json(sim);
	tlbsim_sim_destroy(sim);
	if (!json)
		return 1;
	printf("{\"demo_policy_flushes\": %lu,\n \"sim\": %s}\n", demo_flushes, json);
	free(json);
	return 0;
}

/* ---- --stats: the statistics as C structs ------------------------------ */

static int stats_demo(const struct tlbsim_machine *m, const char *policy)
{
	struct tlbsim_cpu_stats c;
	struct tlbsim_line_stats l;
	struct tlbsim_stats st;
	tlbsim_sim *sim;
	unsigned i;

	if (!policy)
		policy = m->isa == TLBSIM_ISA_X86_64 ? "x86-stock" : "arm64-stock";
	sim = demo_run(m, policy);
	if (!sim)
		return 1;
	if (tlbsim_sim_stats(sim, &st, sizeof(st))) {
		tlbsim_sim_destroy(sim);
		return 1;
	}
	/* @st's strings belong to @sim: print them before destroying it. */
	printf("machine %s (%s, %u cpus at %.2f GHz), policy %s\n", st.machine,
	       tlbsim_isa_name(st.isa), st.cpus, st.freq_ghz, st.policy);
	printf("simulated %.9f s (%llu cycles), %llu events\n", st.seconds,
	       (unsigned long long)st.cycles, (unsigned long long)st.events_read);
	printf("%4s %10s %10s %8s %7s %11s %8s %6s\n", "cpu", "busy", "waiting", "stolen", "faults",
	       "shootdowns", "ipis_in", "walks");
	for (i = 0; i <= st.cpus; i++) {
		unsigned cpu = i < st.cpus ? i : TLBSIM_STATS_TOTAL;

		if (tlbsim_sim_cpu_stats(sim, cpu, &c, sizeof(c)))
			break;
		/* Only the cpus that did something, and the totals. */
		if (cpu != TLBSIM_STATS_TOTAL && !c.busy_cycles && !c.stolen_cycles)
			continue;
		if (cpu == TLBSIM_STATS_TOTAL)
			printf("%4s", "all");
		else
			printf("%4u", cpu);
		printf(" %10llu %10llu %8llu %7llu %11llu %8llu %6llu\n",
		       (unsigned long long)c.busy_cycles, (unsigned long long)c.waiting_cycles,
		       (unsigned long long)c.stolen_cycles, (unsigned long long)c.faults,
		       (unsigned long long)c.shootdowns, (unsigned long long)c.ipis_received,
		       (unsigned long long)c.walks);
	}
	printf("TLB coherence: %llu cycles: IPI sends %llu, IPI handlers %llu, broadcasts "
	       "received %llu, flush waits %llu, other flush work %llu, walks after flushes "
	       "%llu, mmap_lock waits %llu\n",
	       (unsigned long long)st.coherence.cycles,
	       (unsigned long long)st.coherence.ipi_send_cycles,
	       (unsigned long long)st.coherence.ipi_handler_cycles,
	       (unsigned long long)st.coherence.broadcast_receive_cycles,
	       (unsigned long long)st.coherence.flush_wait_cycles,
	       (unsigned long long)st.coherence.other_flush_cycles,
	       (unsigned long long)st.coherence.walk_cycles_after_flush,
	       (unsigned long long)st.coherence.lock_wait_cycles);
	printf("shared lines touched (accesses, transfers, cycles):");
	for (i = 0; i < TLBSIM_LINE_NR_KINDS; i++)
		if (!tlbsim_sim_line_stats(sim, TLBSIM_STATS_TOTAL, i, &l, sizeof(l)) && l.accesses)
			printf(" %s %llu %llu %llu;", tlbsim_line_kind_name(i),
			       (unsigned long long)l.accesses, (unsigned long long)l.transfers,
			       (unsigned long long)(l.transfer_cycles + l.wait_cycles));
	printf("\nframes: %llu data and %llu page-table frames at most\n",
	       (unsigned long long)st.data_frames_peak, (unsigned long long)st.table_frames_peak);
	tlbsim_sim_destroy(sim);
	return 0;
}

/* ---- the MMU walk ----------------------------------------------------------- */

int main(int argc, char **argv)
{
	struct tlbsim_machine *m = NULL;
	struct tlbsim_error err;
	tlbsim_physmem *pm = NULL;
	tlbsim_pgtable *pt = NULL;
	tlbsim_mmu *mmu = NULL;
	const char *prog = argv[0];
	int demo = argc > 1 && !strcmp(argv[1], "--policy-demo");
	int stats = argc > 1 && !strcmp(argv[1], "--stats");
	unsigned long nr_pages, stride;
	const uint64_t base = 0x10000000; /* 256 MiB, page-aligned */
	unsigned long i, pass;
	int rc = 1;
	char *json;

	if (demo || stats) {
		argv++;
		argc--;
	}
	nr_pages = argc > 2 && !stats ? strtoul(argv[2], NULL, 0) : 4096;
	stride = argc > 3 ? strtoul(argv[3], NULL, 0) : 1;
	if (argc < 2 || nr_pages == 0 || stride == 0 || (demo && argc > 2) || (stats && argc > 3)) {
		fprintf(
		    stderr,
		    "usage: %s MACHINE [NR_PAGES] [STRIDE_PAGES]\n"
		    "       %s --policy-demo MACHINE\n"
		    "       %s --stats MACHINE [POLICY]\n"
		    "MACHINE: a name (milan-36, tlbsim list machines) or a description's path\n",
		    prog, prog, prog);
		return 2;
	}
	tlbsim_error_clear(&err);
	/* A name is looked up where tlbsim finds machines; a path is loaded. */
	if (tlbsim_machine_find(argv[1], &m, &err)) {
		char msg[1024];

		tlbsim_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "%s\n", msg);
		return 2;
	}
	if (demo || stats) {
		rc = demo ? policy_demo(m) : stats_demo(m, argc > 2 ? argv[2] : NULL);
		tlbsim_machine_free(m);
		return rc;
	}
	pm = tlbsim_physmem_create(1u << 24);
	pt = pm ? tlbsim_pgtable_create(pm, m->isa, m->pt_levels) : NULL;
	mmu = pt ? tlbsim_mmu_create(m, pm) : NULL;
	if (!mmu)
		goto out;
	for (i = 0; i < nr_pages; i++) {
		uint64_t pfn;

		if (tlbsim_physmem_alloc(pm, TLBSIM_FRAME_DATA, &pfn) ||
		    tlbsim_pgtable_map(pt, base + (i << 12), pfn, 12,
				       TLBSIM_PROT_READ | TLBSIM_PROT_WRITE | TLBSIM_PROT_USER))
			goto out;
	}
	if ((m->isa == TLBSIM_ISA_X86_64 ? tlbsim_mmu_write_cr3(mmu, tlbsim_pgtable_root(pt), 1, false)
					 : tlbsim_mmu_write_ttbr0(mmu, tlbsim_pgtable_root(pt), 1)))
		goto out;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < nr_pages; i += stride) {
			struct tlbsim_xlate x;

			if (tlbsim_mmu_translate(mmu, base + (i << 12), TLBSIM_ACCESS_LOAD, &x))
				goto out;
		}
	json = tlbsim_mmu_stats_json(tlbsim_mmu_stats(mmu));
	if (!json)
		goto out;
	printf("{\"machine\": \"%s\", \"isa\": \"%s\", \"pages\": %lu, \"stride\": %lu,\n \"mmu\": %s}\n",
	       m->name, tlbsim_isa_name(m->isa), nr_pages, stride, json);
	free(json);
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "experiment failed\n");
	tlbsim_mmu_destroy(mmu);
	tlbsim_pgtable_destroy(pt);
	tlbsim_physmem_destroy(pm);
	tlbsim_machine_free(m);
	return rc;
}
