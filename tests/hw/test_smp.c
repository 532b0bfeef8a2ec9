/* SPDX-License-Identifier: MIT */
/*
 * The multi-core mechanisms on the engine: an IPI shootdown across sockets,
 * TLBI broadcasts contending for the DVM engine, INVLPGB with and without
 * TLBSYNC, and byte-identical results for 1, 2 and 4 OpenMP threads on a
 * 16-core machine with heavy cross-core traffic.  Cores run small scripts;
 * every expected time is worked out in the comments.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hw/smp.h"

enum op { COMPUTE, IPI, TLBI_IS, DSB, INVLPGB, TLBSYNC, MARK };

struct action {
	enum op op;
	uint64_t n; /* COMPUTE: cycles; IPI: target mask bits; TLBI_IS: va */
};

#define MAX_ACTIONS 4096

struct script {
	struct action a[MAX_ACTIONS];
	unsigned nr, pc;
	uint64_t left;	    /* cycles left of the current COMPUTE */
	uint64_t marks[8];  /* clock at each MARK */
	unsigned nr_marks;
};

struct world {
	struct tlbsim_machine m;
	tlbsim_physmem *pm;
	struct eng eng;
	struct hw_smp smp;
	struct script s[16];
};

static void ipi_invalidate(void *info, struct hw_smp *smp, struct hw_cpu *cpu)
{
	uint64_t va = *(const uint64_t *)info;

	if (smp->m->isa == TLBSIM_ISA_X86_64)
		hw_invlpg(smp, cpu, va);
	else
		hw_tlbi_local(smp, cpu, TLBSIM_TLBI_VAE1, va, 1);
}

static const uint64_t ipi_va = 0x400000;

static void script_step(void *ctx, struct eng *e, struct eng_core *c, uint64_t stop)
{
	struct world *w = ctx;
	struct hw_cpu *cpu = c->priv;
	struct script *s = &w->s[c->id];

	(void)e;
	while (c->now < stop && c->state == ENG_RUNNING) {
		const struct action *a;

		if (s->pc == s->nr) {
			/* Scripts end idle, so they still take messages. */
			c->state = ENG_IDLE;
			return;
		}
		a = &s->a[s->pc];
		switch (a->op) {
		case COMPUTE: {
			uint64_t n;

			if (!s->left)
				s->left = a->n;
			/* Stop at @stop so that an interrupt is taken on
			 * time, not after the whole computation. */
			n = s->left < stop - c->now ? s->left : stop - c->now;
			hw_charge(cpu, n);
			s->left -= n;
			if (!s->left)
				s->pc++;
			continue;
		}
		case IPI: {
			struct tlbsim_cpumask mask;
			unsigned i;

			tlbsim_cpumask_zero(&mask);
			for (i = 0; i < 16; i++)
				if ((a->n >> i) & 1)
					tlbsim_cpumask_set(&mask, i);
			s->pc++;
			hw_smp_ipi_many(&w->smp, cpu, &mask, ipi_invalidate, (void *)&ipi_va);
			break;
		}
		case TLBI_IS:
			s->pc++;
			hw_tlbi_is(&w->smp, cpu, TLBSIM_TLBI_VAE1, a->n, 1);
			break;
		case DSB:
			s->pc++;
			hw_dsb(&w->smp, cpu);
			break;
		case INVLPGB:
			s->pc++;
			hw_invlpgb(&w->smp, cpu, a->n, 1, 12, 1, TLBSIM_INVLPGB_VA | TLBSIM_INVLPGB_PCID);
			break;
		case TLBSYNC:
			s->pc++;
			hw_tlbsync(&w->smp, cpu);
			break;
		case MARK:
			s->pc++;
			s->marks[s->nr_marks++] = c->now;
			break;
		}
	}
}

static void world_deliver(void *ctx, struct eng *e, struct eng_core *c, const struct eng_msg *m)
{
	struct world *w = ctx;

	(void)e;
	hw_smp_deliver(&w->smp, c, m);
}

static void world_fabric(void *ctx, struct eng *e, const struct eng_msg *m)
{
	struct world *w = ctx;

	(void)e;
	hw_smp_fabric(&w->smp, m);
}

static const struct eng_ops world_ops = {
	.step = script_step,
	.deliver = world_deliver,
	.fabric = world_fabric,
};

static struct tlbsim_cache_geom g(unsigned entries, unsigned ways, unsigned sizes)
{
	return (struct tlbsim_cache_geom){.entries = entries, .ways = ways, .page_sizes = sizes,
					  .latency_cycles = 1};
}

static void machine(struct tlbsim_machine *m, enum tlbsim_isa isa, unsigned sockets,
		    unsigned per_socket)
{
	unsigned k;

	memset(m, 0, sizeof(*m));
	strcpy(m->name, "smp-test");
	m->isa = isa;
	m->nr_cpus = sockets * per_socket;
	m->freq_ghz = 1;
	m->pt_levels = 4;
	m->asid_bits = isa == TLBSIM_ISA_X86_64 ? 12 : 16;
	m->l1i = g(16, 4, TLBSIM_PS_4K);
	m->l1d = g(16, 4, TLBSIM_PS_4K);
	for (k = 1; k < 4; k++)
		m->pwc[k] = g(4, 4, 0);
	for (k = 0; k < 4; k++)
		m->pte_latency_cycles[k] = 10;
	m->topology = (struct tlbsim_topology){.sockets = sockets, .nodes_per_socket = 1,
					       .clusters_per_node = 1,
					       .cores_per_cluster = per_socket,
					       .lat_cluster = 100, .lat_node = 100,
					       .lat_socket = 100, .lat_remote = 400};
}

static struct world *world_new(enum tlbsim_isa isa, unsigned sockets, unsigned per_socket,
			       const struct tlbsim_costs *costs, int threads)
{
	struct world *w = calloc(1, sizeof(*w));

	assert_non_null(w);
	machine(&w->m, isa, sockets, per_socket);
	w->m.costs = *costs;
	w->pm = tlbsim_physmem_create(1024);
	assert_non_null(w->pm);
	assert_int_equal(eng_init(&w->eng, w->m.nr_cpus, hw_smp_window(&w->m), threads, &world_ops, w),
			 0);
	assert_int_equal(hw_smp_init(&w->smp, &w->m, w->pm, &w->eng), 0);
	return w;
}

static void world_start(struct world *w)
{
	unsigned i;

	for (i = 0; i < w->m.nr_cpus; i++)
		if (w->s[i].nr)
			w->eng.cores[i].state = ENG_RUNNING;
	assert_int_equal(eng_run(&w->eng, ENG_NEVER), 0);
}

static void world_free(struct world *w)
{
	hw_smp_fini(&w->smp);
	eng_fini(&w->eng);
	tlbsim_physmem_destroy(w->pm);
	free(w);
}

static void add(struct world *w, unsigned cpu, enum op op, uint64_t n)
{
	struct script *s = &w->s[cpu];

	s->a[s->nr++] = (struct action){op, n};
}

/*
 * Two sockets of four cores; one-way latency 100 inside a socket, 400
 * across.  Core 0 shoots down cores 1, 2 (same socket) and 5 (other
 * socket), each running a 5000-cycle computation.
 * Costs: send 200 + 50 per target; target: entry 300 + handler 100 +
 * INVLPG 250, acknowledge, exit 200.
 *   IPI to 1 leaves at 250, arrives 350; to 2 leaves 300, arrives 400;
 *   to 5 leaves 350, arrives 750.  Core 0 has sent all at 350 and spins.
 *   core 1: 350 + 300 + 100 + 250 = 1000, ack arrives at 0 at 1100
 *   core 2: 400 + 650 = 1050, ack at 1150
 *   core 5: 750 + 650 = 1400, ack at 1400 + 400 = 1800
 *   Core 0 resumes at 1800: busy 350, waiting 1450, total 1800.
 *   Each target: 650 + 200 (exit) = 850 stolen, ends at 5000 + 850 = 5850.
 *   Total stolen 3 * 850 = 2550.
 */
static void ipi_shootdown_across_sockets_costs_as_worked_out(void **state)
{
	const struct tlbsim_costs k = {.ipi_send = 200, .ipi_send_per_target = 50,
				       .ipi_entry = 300, .ipi_handler = 100, .ipi_exit = 200,
				       .invlpg = 250};
	struct world *w = world_new(TLBSIM_ISA_X86_64, 2, 4, &k, 1);
	unsigned t;
	uint64_t stolen = 0;

	(void)state;
	add(w, 0, IPI, (1u << 1) | (1u << 2) | (1u << 5));
	add(w, 0, MARK, 0);
	for (t = 1; t < 8; t++)
		if (t == 1 || t == 2 || t == 5) {
			add(w, t, COMPUTE, 5000);
			add(w, t, MARK, 0);
		}
	world_start(w);
	assert_int_equal(w->s[0].marks[0], 1800);
	assert_int_equal(w->eng.cores[0].st.busy, 350);
	assert_int_equal(w->smp.cpu[0].st.wait_cycles[HW_WAIT_IPI_ACKS], 1450);
	/* nothing interrupted the wait: all of it is blocked time */
	assert_int_equal(w->smp.cpu[0].st.blocked_cycles, 1450);
	assert_int_equal(w->smp.cpu[0].st.ipis_sent, 3);
	for (t = 1; t < 8; t++) {
		if (t != 1 && t != 2 && t != 5)
			continue;
		assert_int_equal(w->s[t].marks[0], 5850);
		assert_int_equal(w->smp.cpu[t].st.ipi_stolen_cycles, 850);
		assert_int_equal(w->smp.cpu[t].st.ipis_received, 1);
		assert_int_equal(tlbsim_mmu_stats(w->smp.cpu[t].mmu)->inval[TLBSIM_INVAL_INVLPG], 1);
		stolen += w->eng.cores[t].st.stolen;
	}
	assert_int_equal(stolen, 2550);
	world_free(w);
}

/*
 * k of 8 arm64 cores (one socket, latency 100) issue one TLBI VAE1IS at
 * time 0 and then DSB ISH.  Costs: issue 10, DVM service 500, perform 50,
 * receive 30, DSB 20.  All k reach the DVM engine at 10 and are served in
 * core order: core j's broadcast leaves the engine at 10 + 500 (j + 1),
 * reaches every other core 100 later, is performed 50 later, and the news
 * comes back 100 later.  So core j's DSB completes at
 *   T_j = 10 + 500 (j + 1) + 100 + 50 + 100 = 260 + 500 (j + 1),
 * the path latency plus a contention term linear in j (the published
 * "almost linear in the number of cpus broadcasting", CALIBRATION.md 4.3).
 * Each of the 8 - k bystanders loses 30 cycles per broadcast: 30 k.
 */
static void simultaneous_tlbi_broadcasts_follow_the_contention_formula(void **state)
{
	const struct tlbsim_costs k = {.tlbi_issue = 10, .dvm_service = 500, .tlbi_perform = 50,
				       .tlbi_receive = 30, .dsb = 20};
	const unsigned ks[] = {1, 2, 4, 8};
	unsigned i, j;

	(void)state;
	for (i = 0; i < 4; i++) {
		struct world *w = world_new(TLBSIM_ISA_ARM64, 1, 8, &k, 1);

		for (j = 0; j < ks[i]; j++) {
			add(w, j, TLBI_IS, 0x400000);
			add(w, j, DSB, 0);
			add(w, j, MARK, 0);
		}
		world_start(w);
		for (j = 0; j < ks[i]; j++)
			assert_int_equal(w->s[j].marks[0], 260 + 500 * (j + 1));
		for (j = ks[i]; j < 8; j++) {
			assert_int_equal(w->eng.cores[j].st.stolen, 30 * ks[i]);
			assert_int_equal(w->smp.cpu[j].st.tlbi_bcast_received, ks[i]);
		}
		assert_int_equal(w->smp.dvm.served, ks[i]);
		/* Time spent queued for the engine: 0 + 500 + ... */
		assert_int_equal(w->smp.dvm.queued_cycles, 500 * ks[i] * (ks[i] - 1) / 2);
		world_free(w);
	}
}

/*
 * Four x86 cores (latency 100).  Cores 0 and 1 each issue an INVLPGB at 0
 * (issue 40 cycles); core 0 then runs TLBSYNC (10 cycles), core 1 does not.
 * INVLPGB engine: service 200, perform 60, receive 20.  Both reach the
 * engine at 40; core 0's is served until 240, core 1's until 440.
 * Core 0's completes at 240 + 100 + 60 + 100 = 500: its TLBSYNC, entered at
 * 50, waits 450 and returns at 500 (core 1's later INVLPGB, complete at
 * 700, is not waited for).  Core 1 goes on at 40, having waited 0.
 */
/*
 * Costs as above, but core 1 issues at 0 and core 0 only after 10 cycles of
 * work: core 1's INVLPGB reaches the engine at 40 and is served until 240;
 * core 0's reaches it at 50 and is served 240..440.  Core 0 runs TLBSYNC at
 * 50..60 and blocks from 60.  Core 1's broadcast arrives at core 0 at
 * 240 + 100 = 340 and takes 20 cycles from it (stolen).  Core 0's own
 * completes at 440 + 100 + 60 + 100 = 700.  So the wait is 700 - 60 = 640
 * cycles, of which 20 were stolen: 620 blocked (issue 9's
 * flush_wait_cycles, which must not count the stolen 20 a second time).
 */
static void blocked_cycles_leave_out_broadcasts_taken_while_waiting(void **state)
{
	const struct tlbsim_costs k = {.invlpgb_issue = 40, .invlpgb_service = 200,
				       .invlpgb_perform = 60, .invlpgb_receive = 20, .tlbsync = 10};
	struct world *w = world_new(TLBSIM_ISA_X86_64, 1, 4, &k, 1);

	(void)state;
	add(w, 0, COMPUTE, 10);
	add(w, 0, INVLPGB, 0x400000);
	add(w, 0, TLBSYNC, 0);
	add(w, 0, MARK, 0);
	add(w, 1, INVLPGB, 0x800000);
	world_start(w);
	assert_int_equal(w->s[0].marks[0], 700);
	assert_int_equal(w->smp.cpu[0].st.wait_cycles[HW_WAIT_TLBSYNC], 640);
	assert_int_equal(w->eng.cores[0].st.stolen, 20);
	assert_int_equal(w->smp.cpu[0].st.blocked_cycles, 620);
	assert_int_equal(w->eng.cores[0].st.waiting, 620);
	world_free(w);
}

static void tlbsync_waits_only_for_its_own_invlpgb(void **state)
{
	const struct tlbsim_costs k = {.invlpgb_issue = 40, .invlpgb_service = 200,
				       .invlpgb_perform = 60, .invlpgb_receive = 20, .tlbsync = 10};
	struct world *w = world_new(TLBSIM_ISA_X86_64, 1, 4, &k, 1);

	(void)state;
	add(w, 0, INVLPGB, 0x400000);
	add(w, 0, TLBSYNC, 0);
	add(w, 0, MARK, 0);
	add(w, 1, INVLPGB, 0x800000);
	add(w, 1, MARK, 0);
	world_start(w);
	assert_int_equal(w->s[0].marks[0], 500);
	assert_int_equal(w->smp.cpu[0].st.wait_cycles[HW_WAIT_TLBSYNC], 450);
	assert_int_equal(w->smp.cpu[0].st.blocked_cycles, 450);
	assert_int_equal(w->s[1].marks[0], 40);
	assert_int_equal(w->smp.cpu[1].st.wait_cycles[HW_WAIT_TLBSYNC], 0);
	assert_int_equal(w->smp.cpu[1].st.tlbsyncs, 0);
	/* Every core performed both; cores 2 and 3 lost 2 * 20 cycles. */
	assert_int_equal(tlbsim_mmu_stats(w->smp.cpu[2].mmu)->inval[TLBSIM_INVAL_INVLPGB], 2);
	assert_int_equal(w->eng.cores[3].st.stolen, 40);
	world_free(w);
}

/* ---- determinism ------------------------------------------------------ */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

struct snapshot {
	struct eng_core_stats core[16];
	struct hw_cpu_stats cpu[16];
	struct tlbsim_mmu_stats mmu[16];
	uint64_t now[16];
	uint64_t windows;
};

/*
 * 16 arm64 cores on two sockets, each running 300 random actions:
 * computations, IPIs to random sets of cores, TLBI IS broadcasts, DSBs.
 */
static void run_random(int threads, struct snapshot *out)
{
	const struct tlbsim_costs k = {.ipi_send = 150, .ipi_send_per_target = 20,
				       .ipi_entry = 200, .ipi_handler = 80, .ipi_exit = 120,
				       .tlbi_local = 30, .tlbi_issue = 15, .dvm_service = 90,
				       .tlbi_perform = 40, .tlbi_receive = 25, .dsb = 10};
	struct world *w = world_new(TLBSIM_ISA_ARM64, 2, 8, &k, threads);
	uint64_t rng = 42;
	unsigned c, i;

	for (c = 0; c < 16; c++)
		for (i = 0; i < 300; i++) {
			uint64_t r = splitmix(&rng);

			switch (r % 5) {
			case 0:
				add(w, c, IPI, (r >> 8) & 0xffff & ~(1ull << c));
				break;
			case 1:
				add(w, c, TLBI_IS, (r >> 12) << 12);
				break;
			case 2:
				add(w, c, DSB, 0);
				break;
			default:
				add(w, c, COMPUTE, 1 + (r >> 20) % 3000);
			}
		}
	world_start(w);
	for (c = 0; c < 16; c++) {
		out->core[c] = w->eng.cores[c].st;
		out->cpu[c] = w->smp.cpu[c].st;
		out->mmu[c] = *tlbsim_mmu_stats(w->smp.cpu[c].mmu);
		out->now[c] = w->eng.cores[c].now;
		assert_int_equal(w->s[c].pc, w->s[c].nr);
	}
	out->windows = w->eng.windows;
	world_free(w);
}

static void mechanisms_give_identical_results_for_1_2_4_threads(void **state)
{
	static struct snapshot s[3];
	const int threads[3] = {1, 2, 4};
	uint64_t ipis = 0, bcasts = 0;
	int t;

	(void)state;
	for (t = 0; t < 3; t++)
		run_random(threads[t], &s[t]);
	for (t = 1; t < 3; t++)
		assert_memory_equal(&s[0], &s[t], sizeof(s[0]));
	for (t = 0; t < 16; t++) {
		ipis += s[0].cpu[t].ipis_received;
		bcasts += s[0].cpu[t].tlbi_bcast_received;
	}
	/* Heavy traffic: about 16 * 60 multicasts to ~8 cores each, and 16 *
	 * 60 broadcasts reaching 15 other cores each. */
	assert_true(ipis > 4000);
	assert_true(bcasts > 10000);
}

/* tlbsim_cpumask_any_but(): a bit of another cpu, in the words of cpus
 * below nr_cpus only (the IPI send's "any target but me"). */
static void cpumask_any_but_sees_other_cpus_below_nr_cpus(void **state)
{
	struct tlbsim_cpumask m;

	(void)state;
	tlbsim_cpumask_zero(&m);
	assert_false(tlbsim_cpumask_any_but(&m, TLBSIM_NR_CPUS, TLBSIM_NR_CPUS));
	tlbsim_cpumask_set(&m, 5);
	assert_false(tlbsim_cpumask_any_but(&m, 5, 8)); /* only the sender */
	assert_true(tlbsim_cpumask_any_but(&m, 4, 8));
	assert_true(tlbsim_cpumask_any_but(&m, TLBSIM_NR_CPUS, 8));
	tlbsim_cpumask_clear(&m, 5);
	tlbsim_cpumask_set(&m, 63); /* last bit of word 0 */
	assert_false(tlbsim_cpumask_any_but(&m, 63, 64));
	assert_true(tlbsim_cpumask_any_but(&m, 0, 1)); /* word 0 holds cpu 0 */
	/* cpu 70 is in word 1 */
	tlbsim_cpumask_set(&m, 70);
	assert_true(tlbsim_cpumask_any_but(&m, 63, 71));
	assert_false(tlbsim_cpumask_any_but(&m, 63, 64)); /* word 1 not looked at */
	tlbsim_cpumask_zero(&m);
	tlbsim_cpumask_set(&m, TLBSIM_NR_CPUS - 1);
	assert_true(tlbsim_cpumask_any_but(&m, 0, TLBSIM_NR_CPUS));
	assert_false(tlbsim_cpumask_any_but(&m, TLBSIM_NR_CPUS - 1, TLBSIM_NR_CPUS));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ipi_shootdown_across_sockets_costs_as_worked_out),
		cmocka_unit_test(simultaneous_tlbi_broadcasts_follow_the_contention_formula),
		cmocka_unit_test(tlbsync_waits_only_for_its_own_invlpgb),
		cmocka_unit_test(blocked_cycles_leave_out_broadcasts_taken_while_waiting),
		cmocka_unit_test(mechanisms_give_identical_results_for_1_2_4_threads),
		cmocka_unit_test(cpumask_any_but_sees_other_cpus_below_nr_cpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
