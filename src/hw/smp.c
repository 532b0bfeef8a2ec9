/* SPDX-License-Identifier: MIT */
/*
 * The multi-core hardware's mechanisms: IPI multicast with
 * acknowledgements, arm64 TLBI broadcast completed by DSB, AMD
 * INVLPGB completed by TLBSYNC, and the local TLB-maintenance instructions
 * with their costs.  See smp.h for the cost model of each.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "hw/mmu_internal.h"
#include "hw/observe.h"
#include "hw/physmem.h"
#include "hw/smp.h"
#include "hw/tlb.h"
#include "tlbsim/error.h"

static struct hw_cpu *cpu_of(struct eng_core *c)
{
	return c->priv;
}

uint64_t hw_smp_window(const struct tlbsim_machine *m)
{
	uint64_t w = fab_min_latency(m);

	/* One core: nothing crosses, any window is safe; a long one costs
	 * fewer boundaries. */
	if (w == UINT64_MAX)
		return 1u << 20;
	return w ? w : 1;
}

void hw_charge(struct hw_cpu *cpu, uint64_t cycles)
{
	if (cpu->in_irq)
		eng_steal(cpu->core, cycles);
	else
		eng_charge(cpu->core, cycles);
}

/* Block @cpu until condition @why is satisfied too. */
static void hw_wait(struct hw_cpu *cpu, enum hw_wait why)
{
	if (!cpu->waiting_for) {
		cpu->wait_start = cpu->core->now;
		cpu->wait_stolen_start = cpu->core->st.stolen;
		eng_block(cpu->core, ENG_NEVER);
	}
	cpu->waiting_for |= 1u << why;
}

/* Condition @why is satisfied: resume if it was the last one awaited. */
static void hw_satisfied(struct hw_cpu *cpu, enum hw_wait why)
{
	if (!(cpu->waiting_for & (1u << why)))
		return;
	cpu->st.wait_cycles[why] += cpu->core->now - cpu->wait_start;
	cpu->waiting_for &= ~(1u << why);
	if (!cpu->waiting_for) {
		cpu->st.blocked_cycles += cpu->core->now - cpu->wait_start -
					  (cpu->core->st.stolen - cpu->wait_stolen_start);
		eng_unblock(cpu->core);
	}
}

/* The observer of the machine's memory (the hazard oracle), or NULL. */
static const struct hw_observer *observer(const struct hw_smp *smp)
{
	return hw_physmem_observer(smp->pm);
}

static uint64_t lat(const struct hw_smp *smp, unsigned from, unsigned to)
{
	return tlbsim_machine_latency(smp->m, from, to);
}

/* ---- IPIs ------------------------------------------------------------- */

unsigned hw_smp_ipi_many(struct hw_smp *smp, struct hw_cpu *cpu, const struct tlbsim_cpumask *targets,
			 hw_ipi_fn fn, void *info)
{
	const struct tlbsim_costs *k = &smp->m->costs;
	unsigned d, n = 0;

	BUG_ON(cpu->acks_pending, "one multicast at a time per cpu");
	cpu->call.fn = fn;
	cpu->call.info = info;
	hw_charge(cpu, k->ipi_send);
	cpu->st.ipi_send_cycles += k->ipi_send;
	tlbsim_for_each_cpu(d, targets) {
		struct eng_msg m = {0};

		BUG_ON(d == cpu->id || d >= smp->m->nr_cpus, "IPI targets are other existing cpus");
		hw_charge(cpu, k->ipi_send_per_target);
		cpu->st.ipi_send_cycles += k->ipi_send_per_target;
		m.time = cpu->core->now + lat(smp, cpu->id, d);
		m.dst = d;
		m.kind = HW_MSG_IPI;
		m.ptr = cpu;
		eng_send(smp->eng, cpu->core, &m);
		n++;
	}
	if (!n)
		return 0;
	cpu->st.shootdowns++;
	cpu->st.ipis_sent += n;
	cpu->acks_pending = n;
	hw_wait(cpu, HW_WAIT_IPI_ACKS);
	return n;
}

static void take_ipi(struct hw_smp *smp, struct hw_cpu *cpu, const struct eng_msg *m)
{
	const struct tlbsim_costs *k = &smp->m->costs;
	struct hw_cpu *from = m->ptr;
	uint64_t start = cpu->core->now;
	bool was_in_irq = cpu->in_irq;
	struct eng_msg ack = {0};

	cpu->in_irq = true;
	hw_charge(cpu, k->ipi_entry + k->ipi_handler);
	/* The initiator's call is read-only while its IPIs are in flight:
	 * it is blocked until the last acknowledgement. */
	if (from->call.fn)
		from->call.fn(from->call.info, smp, cpu);
	ack.time = cpu->core->now + lat(smp, cpu->id, from->id);
	ack.dst = from->id;
	ack.kind = HW_MSG_IPI_ACK;
	eng_send(smp->eng, cpu->core, &ack);
	hw_charge(cpu, k->ipi_exit);
	cpu->in_irq = was_in_irq;
	cpu->st.ipis_received++;
	cpu->st.ipi_stolen_cycles += cpu->core->now - start;
}

/* ---- shared lines ------------------------------------------------------ */

void hw_line_access(struct hw_smp *smp, struct hw_cpu *cpu, struct fab_line *l, enum fab_op op,
		    uint64_t busy, struct fab_cost *c)
{
	struct eng_core *core = cpu->core;
	uint64_t now = core->now;

	if (cpu->in_irq) {
		struct eng_msg m = {0};

		fab_line_cost(smp->m, l, cpu->id, now, op, busy, c);
		m.time = now;
		m.dst = ENG_FABRIC;
		m.kind = HW_MSG_LINE;
		m.arg[0] = op;
		m.arg[1] = busy;
		m.ptr = l;
		eng_send(smp->eng, core, &m);
		/* Spinning in the handler is the handler's time: stolen. */
		hw_charge(cpu, c->done - now);
		return;
	}
	fab_line_access(smp->m, l, cpu->id, now, op, busy, c);
	core->now = c->start;
	core->st.waiting += c->start - now;
	eng_charge(core, c->done - c->start); /* hw_charge() outside a handler */
}

/* ---- local maintenance ------------------------------------------------ */

/* Results of the MMU calls below are 0 by construction: each is called
 * only for its own ISA, with operands from the mechanisms' callers. */
#define MMU_OK(call) BUG_ON((call) != 0, "local TLB maintenance on the wrong ISA or operand")

void hw_invlpg(struct hw_smp *smp, struct hw_cpu *cpu, uint64_t va)
{
	MMU_OK(tlbsim_mmu_invlpg(cpu->mmu, va));
	hw_charge(cpu, smp->m->costs.invlpg);
}

void hw_invpcid(struct hw_smp *smp, struct hw_cpu *cpu, unsigned type, uint16_t pcid, uint64_t va)
{
	MMU_OK(tlbsim_mmu_invpcid(cpu->mmu, type, pcid, va));
	hw_charge(cpu, smp->m->costs.invpcid);
}

void hw_write_cr3(struct hw_smp *smp, struct hw_cpu *cpu, uint64_t root_pfn, uint16_t pcid,
		  bool noflush)
{
	MMU_OK(tlbsim_mmu_write_cr3(cpu->mmu, root_pfn, pcid, noflush));
	hw_charge(cpu, smp->m->costs.cr3_write);
	HW_OBSERVE(observer(smp), context_load_local, cpu->id, root_pfn, pcid);
}

void hw_flush_all(struct hw_smp *smp, struct hw_cpu *cpu)
{
	tlbsim_mmu_flush_all(cpu->mmu);
	hw_charge(cpu, smp->m->costs.flush_all);
}

void hw_tlbi_local(struct hw_smp *smp, struct hw_cpu *cpu, enum tlbsim_tlbi_op op, uint64_t va,
		   uint16_t asid)
{
	MMU_OK(tlbsim_mmu_tlbi(cpu->mmu, op, va, asid));
	hw_charge(cpu, smp->m->costs.tlbi_local);
	HW_OBSERVE(observer(smp), tlbi_local, cpu->id, op, va, asid, false);
}

void hw_write_ttbr0(struct hw_smp *smp, struct hw_cpu *cpu, uint64_t root_pfn, uint16_t asid)
{
	MMU_OK(tlbsim_mmu_write_ttbr0(cpu->mmu, root_pfn, asid));
	hw_charge(cpu, smp->m->costs.isb);
	HW_OBSERVE(observer(smp), context_load_local, cpu->id, root_pfn, asid);
}

void hw_isb(struct hw_smp *smp, struct hw_cpu *cpu)
{
	hw_charge(cpu, smp->m->costs.isb);
	HW_OBSERVE(observer(smp), context_sync_local, cpu->id);
}

void hw_dsb_local(struct hw_smp *smp, struct hw_cpu *cpu)
{
	hw_charge(cpu, smp->m->costs.dsb);
	HW_OBSERVE(observer(smp), dsb_done_local, cpu->id, false);
}

/* ---- broadcasts ------------------------------------------------------- */

void hw_tlbi_is(struct hw_smp *smp, struct hw_cpu *cpu, enum tlbsim_tlbi_op op, uint64_t va,
		uint16_t asid)
{
	struct eng_msg m = {0};

	hw_charge(cpu, smp->m->costs.tlbi_issue);
	m.time = cpu->core->now;
	m.dst = ENG_FABRIC;
	m.kind = HW_MSG_TLBI;
	m.arg[0] = op;
	m.arg[1] = va;
	m.arg[2] = asid;
	eng_send(smp->eng, cpu->core, &m);
	cpu->tlbi_outstanding++;
	cpu->st.tlbi_bcast_sent++;
	HW_OBSERVE(observer(smp), tlbi_local, cpu->id, op, va, asid, true);
}

void hw_dsb(struct hw_smp *smp, struct hw_cpu *cpu)
{
	hw_charge(cpu, smp->m->costs.dsb);
	cpu->st.dsbs++;
	if (cpu->tlbi_outstanding)
		hw_wait(cpu, HW_WAIT_DSB);
	else
		HW_OBSERVE(observer(smp), dsb_done_local, cpu->id, true);
}

void hw_invlpgb(struct hw_smp *smp, struct hw_cpu *cpu, uint64_t va, unsigned nr_pages,
		unsigned stride_shift, uint16_t pcid, unsigned flags)
{
	struct eng_msg m = {0};

	hw_charge(cpu, smp->m->costs.invlpgb_issue);
	m.time = cpu->core->now;
	m.dst = ENG_FABRIC;
	m.kind = HW_MSG_INVLPGB;
	m.arg[0] = va;
	m.arg[1] = nr_pages;
	m.arg[2] = ((uint64_t)stride_shift << 32) | ((uint64_t)pcid << 16) | flags;
	eng_send(smp->eng, cpu->core, &m);
	cpu->invlpgb_outstanding++;
	cpu->st.invlpgb_sent++;
	HW_OBSERVE(observer(smp), invlpgb_local, cpu->id, va, nr_pages, stride_shift, pcid, flags);
}

void hw_tlbsync(struct hw_smp *smp, struct hw_cpu *cpu)
{
	hw_charge(cpu, smp->m->costs.tlbsync);
	cpu->st.tlbsyncs++;
	if (cpu->invlpgb_outstanding)
		hw_wait(cpu, HW_WAIT_TLBSYNC);
	else
		HW_OBSERVE(observer(smp), tlbsync_done_local, cpu->id);
}

void hw_tlbsync_migrated(struct hw_smp *smp, struct hw_cpu *cpu, struct hw_cpu *on)
{
	hw_charge(cpu, smp->m->costs.tlbsync);
	on->st.tlbsyncs++;
	if (!on->invlpgb_outstanding)
		HW_OBSERVE(observer(smp), tlbsync_done_local, on->id);
}

uint64_t hw_sw_walk(struct hw_smp *smp, struct hw_cpu *cpu, const tlbsim_pgtable *pgt, uint64_t va,
		    uint64_t len)
{
	uint64_t from = cpu->core->now, page, end = va + len, found = 0, cycles = 0;
	unsigned top = smp->m->pt_levels - 1, lvl;

	for (page = va & ~0xfffull; page < end && page >= (va & ~0xfffull); page += 4096) {
		struct tlbsim_mapping m;

		if (tlbsim_pgtable_lookup(pgt, page, &m)) {
			/* Not mapped: the walk read down to where it stopped;
			 * counted as the whole depth (an upper bound). */
			for (lvl = 0; lvl <= top; lvl++)
				cycles += smp->m->pte_latency_cycles[lvl];
			continue;
		}
		for (lvl = m.level; lvl <= top; lvl++)
			cycles += smp->m->pte_latency_cycles[lvl];
		found++;
	}
	hw_charge(cpu, cycles ? cycles : 1);
	HW_OBSERVE(observer(smp), sw_walk, cpu->id, tlbsim_pgtable_root(pgt), va, end - 1, from,
		   cpu->core->now);
	return found;
}

/*
 * Fabric side of a broadcast (serial phase): the engine serves it, then it
 * travels to every core; the issuer hears of the last core's completion.
 */
static void spread(struct hw_smp *smp, struct fab_server *srv, const struct eng_msg *in,
		   uint32_t perform_kind, uint32_t done_kind, uint64_t perform_cycles)
{
	uint64_t done = fab_server_accept(srv, in->time), complete = done;
	unsigned d;

	if (smp->lat_src != in->src) {
		fab_latency_rows(smp->m, in->src, smp->lat_to, smp->lat_from);
		smp->lat_src = in->src;
	}
	for (d = 0; d < smp->m->nr_cpus; d++) {
		struct eng_msg m = *in;
		uint64_t arrive = done + smp->lat_to[d];
		uint64_t back = arrive + perform_cycles + smp->lat_from[d];

		m.time = arrive;
		m.dst = d;
		m.kind = perform_kind;
		m.arg[3] = in->src;
		eng_send(smp->eng, NULL, &m);
		if (back > complete)
			complete = back;
	}
	{
		struct eng_msg m = {0};

		m.time = complete;
		m.dst = in->src;
		m.kind = done_kind;
		eng_send(smp->eng, NULL, &m);
	}
}

void hw_smp_fabric(struct hw_smp *smp, const struct eng_msg *m)
{
	const struct tlbsim_costs *k = &smp->m->costs;

	switch (m->kind) {
	case HW_MSG_TLBI:
		spread(smp, &smp->dvm, m, HW_MSG_TLBI_PERFORM, HW_MSG_TLBI_DONE, k->tlbi_perform);
		break;
	case HW_MSG_INVLPGB:
		spread(smp, &smp->invlpgb, m, HW_MSG_INVLPGB_PERFORM, HW_MSG_INVLPGB_DONE,
		       k->invlpgb_perform);
		break;
	case HW_MSG_LINE: {
		/* An IPI handler's access (hw_line_access()), already
		 * charged: only the line's state changes. */
		struct fab_cost c;

		fab_line_access(smp->m, m->ptr, m->src, m->time, (enum fab_op)m->arg[0], m->arg[1],
				&c);
		break;
	}
	default:
		BUG_ON(1, "only broadcasts travel through the fabric");
	}
}

void hw_smp_deliver(struct hw_smp *smp, struct eng_core *c, const struct eng_msg *m)
{
	struct hw_cpu *cpu = cpu_of(c);
	const struct tlbsim_costs *k = &smp->m->costs;
	bool from_self = m->arg[3] == cpu->id;

	switch (m->kind) {
	case HW_MSG_IPI:
		take_ipi(smp, cpu, m);
		break;
	case HW_MSG_IPI_ACK:
		BUG_ON(!cpu->acks_pending, "an acknowledgement for a multicast in flight");
		if (--cpu->acks_pending == 0)
			hw_satisfied(cpu, HW_WAIT_IPI_ACKS);
		break;
	case HW_MSG_TLBI_PERFORM:
		MMU_OK(tlbsim_mmu_tlbi(cpu->mmu, (enum tlbsim_tlbi_op)m->arg[0], m->arg[1],
				       (uint16_t)m->arg[2]));
		if (!from_self) {
			eng_steal(c, k->tlbi_receive);
			cpu->st.tlbi_bcast_received++;
			cpu->st.bcast_stolen_cycles += k->tlbi_receive;
		}
		break;
	case HW_MSG_TLBI_DONE:
		BUG_ON(!cpu->tlbi_outstanding, "a completion for a TLBI in flight");
		if (--cpu->tlbi_outstanding == 0 && (cpu->waiting_for & (1u << HW_WAIT_DSB))) {
			HW_OBSERVE(observer(smp), dsb_done_local, cpu->id, true);
			hw_satisfied(cpu, HW_WAIT_DSB);
		}
		break;
	case HW_MSG_INVLPGB_PERFORM:
		MMU_OK(tlbsim_mmu_invlpgb(cpu->mmu, m->arg[0], (unsigned)m->arg[1],
					  (unsigned)(m->arg[2] >> 32), (uint16_t)(m->arg[2] >> 16),
					  (unsigned)(m->arg[2] & 0xffff)));
		if (!from_self) {
			eng_steal(c, k->invlpgb_receive);
			cpu->st.invlpgb_received++;
			cpu->st.bcast_stolen_cycles += k->invlpgb_receive;
		}
		break;
	case HW_MSG_INVLPGB_DONE:
		BUG_ON(!cpu->invlpgb_outstanding, "a completion for an INVLPGB in flight");
		if (--cpu->invlpgb_outstanding == 0 && (cpu->waiting_for & (1u << HW_WAIT_TLBSYNC))) {
			HW_OBSERVE(observer(smp), tlbsync_done_local, cpu->id);
			hw_satisfied(cpu, HW_WAIT_TLBSYNC);
		}
		break;
	default:
		BUG_ON(1, "hardware message kinds only");
	}
}

/* ---- set-up ----------------------------------------------------------- */

uint64_t hw_smp_bytes(const struct tlbsim_machine *m)
{
	/* The structures tlbsim_mmu_create() sets up for one core. */
	uint64_t core = hw_tlb_bytes(&m->l1i) + hw_tlb_bytes(&m->l1d) + hw_tlb_bytes(&m->l2);

	for (unsigned k = 1; k < m->pt_levels && k < TLBSIM_MAX_PT_LEVELS; k++)
		core += hw_tlb_bytes(&m->pwc[k]);
	return (uint64_t)m->nr_cpus * core;
}

int hw_smp_init(struct hw_smp *smp, const struct tlbsim_machine *m, tlbsim_physmem *pm,
		struct eng *eng)
{
	unsigned i;

	memset(smp, 0, sizeof(*smp));
	if (eng->nr_cores != m->nr_cpus || m->nr_cpus > TLBSIM_NR_CPUS)
		return -TLBSIM_EINVAL;
	smp->m = m;
	smp->pm = pm;
	smp->eng = eng;
	fab_server_init(&smp->dvm, m->costs.dvm_service);
	fab_server_init(&smp->invlpgb, m->costs.invlpgb_service);
	smp->lat_src = UINT_MAX;
	smp->cpu = calloc(m->nr_cpus, sizeof(*smp->cpu));
	smp->lat_to = malloc(m->nr_cpus * sizeof(*smp->lat_to));
	smp->lat_from = malloc(m->nr_cpus * sizeof(*smp->lat_from));
	if (!smp->cpu || !smp->lat_to || !smp->lat_from) {
		hw_smp_fini(smp);
		return -TLBSIM_ENOMEM;
	}
	for (i = 0; i < m->nr_cpus; i++) {
		struct hw_cpu *cpu = &smp->cpu[i];

		cpu->id = i;
		cpu->core = &eng->cores[i];
		eng->cores[i].priv = cpu;
		cpu->mmu = tlbsim_mmu_create(m, pm);
		if (!cpu->mmu) {
			hw_smp_fini(smp);
			return -TLBSIM_ENOMEM;
		}
		hw_mmu_set_cpu(cpu->mmu, i);
	}
	return 0;
}

void hw_smp_fini(struct hw_smp *smp)
{
	unsigned i;

	if (smp->cpu)
		for (i = 0; i < smp->m->nr_cpus; i++)
			tlbsim_mmu_destroy(smp->cpu[i].mmu);
	free(smp->cpu);
	free(smp->lat_to);
	free(smp->lat_from);
	memset(smp, 0, sizeof(*smp));
}
