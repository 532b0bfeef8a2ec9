/* SPDX-License-Identifier: MIT */
/*
 * Kernel-level replay (include/tlbsim/check.h): raw events run on the cpus
 * they name, on the engine and the hardware model, with the hazard oracle
 * watching; no OS model.  Every event runs in the serial phase (serve), so
 * its effects on page tables and walk caches are ordered exactly as the
 * replay order says; broadcasts (TLBI IS, INVLPGB) still travel through
 * the interconnect with their latencies, and DSB and TLBSYNC wait for them.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "check/map.h"
#include "check/oracle.h"
#include "check/oracle_json.h"
#include "engine/engine.h"
#include "error_internal.h"
#include "hw/physmem.h"
#include "hw/pte.h"
#include "hw/smp.h"
#include "report/json_util.h"
#include "tlbsim/check.h"

/* Events a replay reads at most (48 bytes each: 192 MiB). */
#define REPLAY_MAX_EVENTS (1ull << 22)
/* Events one cpu runs in a row in timed replay before others get a turn. */
#define TIMED_BATCH 256

/* Frame-name map values: the real frame, and what the name is. */
#define NAME_PFN(v) ((v) & ((1ull << 52) - 1))
#define NAME_TABLE (1ull << 60)
#define NAME_LEVEL(v) ((unsigned)((v) >> 56) & 7u)

struct rcpu {
	uint64_t *idx; /* indices of its events, in order */
	uint64_t n, cap, next;
	uint64_t events, faults;
};

/* An access that faulted; the value a load returned (docs/scenarios.md). */
struct rfault {
	uint64_t event, va;
	unsigned cpu;
};

struct rload {
	uint64_t event, value;
	bool known;
};

struct replay {
	const struct tlbsim_machine *m;
	tlbsim_physmem *pm;
	struct eng eng;
	struct hw_smp smp;
	struct chk_oracle *oracle;
	struct tlbsim_event *ev;
	uint64_t nr_ev;
	struct rcpu *cpu;
	bool ordered;
	uint64_t issued, issue_time;
	uint8_t *started;
	struct chk_map names;	 /* scenario frame -> value (NAME_*) */
	struct chk_map tid_cpu;	 /* tid -> cpu + 1, from switch events */
	uint64_t unknown_ops;	 /* TLBI with an unknown operand, DC, sysreg writes */
	struct tlbsim_error *err;
	const char *name; /* for error reports */
	int rc;
	bool partial; /* stopped at cfg->max_cycles */
	struct rfault *faults; /* accesses that took a translation or permission fault */
	size_t nr_faults, cap_faults;
	/* Data words (8 bytes, by real PA | 1): their value, or in @unknown
	 * when a store of no known value wrote them; absent: 0. */
	struct chk_map words, unknown;
	struct rload *loads; /* the value each load returned */
	size_t nr_loads, cap_loads;
};

static int fail(struct replay *r, uint64_t idx, const char *msg)
{
	if (!r->rc)
		r->rc = err_set_event(r->err, -TLBSIM_EINVAL, r->name, (long long)idx,
				      "event %llu: %s", (unsigned long long)idx, msg);
	r->eng.stop_requested = 1;
	return r->rc;
}

/* ---- frame names ----------------------------------------------------------- */

static uint64_t addr_mask(enum tlbsim_isa isa)
{
	/* x86: bits 51..12 (SDM 4.5); arm64: bits 47..12 (4 KiB granule). */
	return isa == TLBSIM_ISA_X86_64 ? 0x000ffffffffff000ull : 0x0000fffffffff000ull;
}

/* The real frame of data frame name @name (mapped by a leaf of @level),
 * allocated on first use; 0 when memory ran out. */
static uint64_t data_frame(struct replay *r, uint64_t name, unsigned level)
{
	uint64_t v, pfn;
	int rc;

	if (chk_map_get(&r->names, name, &v))
		return NAME_PFN(v);
	rc = level ? tlbsim_physmem_alloc_block(r->pm, 9 * level, &pfn)
		   : tlbsim_physmem_alloc(r->pm, TLBSIM_FRAME_DATA, &pfn);
	if (rc || chk_map_put(&r->names, name, pfn))
		return 0;
	return pfn;
}

/* Translate the frame a descriptor at @level names into the real one. */
static int xlate_desc(struct replay *r, uint64_t idx, unsigned level, uint64_t raw, uint64_t *out)
{
	uint64_t mask = addr_mask(r->m->isa), v, pfn;
	struct hw_pte d;

	hw_pte_decode(r->m->isa, level, raw, &d);
	*out = raw;
	if (!d.present)
		return 0;
	if (!d.leaf) {
		if (!chk_map_get(&r->names, d.pfn, &v) || !(v & NAME_TABLE))
			return fail(r, idx, "a table descriptor names a frame no table_alloc made a table");
		pfn = NAME_PFN(v);
	} else {
		pfn = data_frame(r, d.pfn, level);
		if (!pfn)
			return fail(r, idx, "out of simulated memory for a data frame");
	}
	*out = (raw & ~mask) | ((pfn << 12) & mask);
	return 0;
}

static int table_of(struct replay *r, uint64_t idx, uint64_t name, uint64_t *pfn, unsigned *level)
{
	uint64_t v;

	if (!chk_map_get(&r->names, name, &v) || !(v & NAME_TABLE))
		return fail(r, idx, "names a frame that is not a page table (table_alloc it first)");
	*pfn = NAME_PFN(v);
	*level = NAME_LEVEL(v);
	return 0;
}

/* ---- events ------------------------------------------------------------------- */


/* DSB options that complete TLB maintenance: full type, inner or outer
 * shareable or full system (Arm ARM C6.2 DSB; docs/hazard-rules.md rule 5). */
static bool dsb_completes_broadcast(unsigned domain)
{
	return domain == TLBSIM_DSB_ISH || domain == TLBSIM_DSB_OSH || domain == TLBSIM_DSB_SY;
}

/* DSB and DMB options that order this cpu's earlier stores before its
 * later ones for the other cpus: type ST or full, inner or outer shareable
 * or full system (Arm ARM B2.3 and C6.2 DMB; not the LD types, and not
 * NSH, whose domain holds no other cpu). */
static bool orders_stores(unsigned domain)
{
	return (domain & 3) >= 2 && domain != TLBSIM_DSB_NSH && domain != TLBSIM_DSB_NSHST;
}

static void exec_tlbi(struct replay *r, struct hw_cpu *cpu, const struct tlbsim_event *ev)
{
	enum tlbsim_tlbi_op op = (enum tlbsim_tlbi_op)ev->tlbi.op;

	if (ev->tlbi.operand_unknown) {
		r->unknown_ops++;
		return;
	}
	if (ev->tlbi.flags & (TLBSIM_TLBI_IS | TLBSIM_TLBI_OS))
		hw_tlbi_is(&r->smp, cpu, op, ev->tlbi.va, ev->tlbi.asid);
	else
		hw_tlbi_local(&r->smp, cpu, op, ev->tlbi.va, ev->tlbi.asid);
}

/* FEAT_TLBIRANGE: one TLBI per page (the hardware model's broadcast is by
 * page); an ASID-wide or full one beyond 512 pages (Linux MAX_TLBI_OPS). */
static void exec_tlbi_range(struct replay *r, struct hw_cpu *cpu, const struct tlbsim_event *ev)
{
	static const enum tlbsim_tlbi_op per_page[] = {TLBSIM_TLBI_VAE1, TLBSIM_TLBI_VALE1,
						       TLBSIM_TLBI_VAAE1, TLBSIM_TLBI_VAALE1};
	bool bcast = ev->tlbi_range.flags & (TLBSIM_TLBI_IS | TLBSIM_TLBI_OS);
	unsigned op = ev->tlbi_range.op & 3, i;
	struct tlbsim_event one = {.kind = TLBSIM_EV_TLBI, .cpu = ev->cpu};

	if (ev->tlbi_range.operand_unknown) {
		r->unknown_ops++;
		return;
	}
	one.tlbi.flags = bcast ? TLBSIM_TLBI_IS : 0;
	one.tlbi.asid = op < 2 ? ev->tlbi_range.asid : 0;
	if (ev->tlbi_range.nr_pages > 512) {
		one.tlbi.op = op < 2 ? TLBSIM_TLBI_ASIDE1 : TLBSIM_TLBI_VMALLE1;
		exec_tlbi(r, cpu, &one);
		return;
	}
	one.tlbi.op = (uint8_t)per_page[op];
	for (i = 0; i < ev->tlbi_range.nr_pages; i++) {
		one.tlbi.va = ev->tlbi_range.va + ((uint64_t)i << 12);
		exec_tlbi(r, cpu, &one);
	}
}

/*
 * The ISA whose instruction a kernel-level kind is, or -1 for both.  The
 * text and binary formats take any kind in any trace; the hardware model
 * runs an instruction only on its own ISA: INVLPG, INVPCID (Intel SDM vol.
 * 2), INVLPGB, TLBSYNC (AMD APM vol. 3) and a CR3 load are x86's, TLBI,
 * TLBI RVA* and a TTBR load (Arm ARM C5.5, D8) arm64's.  DSB, ISB, ERET
 * and the rest only cost time, whatever the ISA.
 */
static int kind_isa(enum tlbsim_event_kind kind)
{
	switch (kind) {
	case TLBSIM_EV_INVLPG:
	case TLBSIM_EV_INVPCID:
	case TLBSIM_EV_INVLPGB:
	case TLBSIM_EV_TLBSYNC:
	case TLBSIM_EV_CR3_WRITE:
		return TLBSIM_ISA_X86_64;
	case TLBSIM_EV_TLBI:
	case TLBSIM_EV_TLBI_RANGE:
	case TLBSIM_EV_TTBR_WRITE:
		return TLBSIM_ISA_ARM64;
	default:
		return -1;
	}
}

/*
 * Does @tag fit the machine's ASID/PCID width?  A context tag the machine
 * cannot hold (a PCID on an x86 machine without PCIDs, Intel SDM vol. 3
 * 4.10.1; ASID[15:8] on an arm64 machine with 8-bit ASIDs, Arm ARM D8,
 * TTBR0_EL1.ASID) means the trace was taken on another kind of machine:
 * its loads and invalidations by tag cannot be replayed faithfully here,
 * so it is the trace's error (it was an abort in hw/smp.c).
 */
static bool tag_fits(const struct replay *r, uint16_t tag)
{
	return r->m->asid_bits >= 16 || (tag >> r->m->asid_bits) == 0;
}

static int fail_tag(struct replay *r, uint64_t idx, const char *what, uint16_t tag)
{
	char msg[128];

	snprintf(msg, sizeof(msg), "%s %u does not fit the machine's %u-bit %ss (asid_bits)",
		 what, tag, r->m->asid_bits, what);
	return fail(r, idx, msg);
}

/*
 * Fail the replay at an INVLPGB or TLBSYNC the machine cannot run (non-zero
 * then, 0 if it can).  Both raise #UD where CPUID
 * Fn8000_0008 EBX[3] (INVLPGB) is clear, and INVLPGB raises #GP when it
 * names more pages than Fn8000_0008 EDX[15:0] + 1 (AMD APM vol. 3, INVLPGB,
 * TLBSYNC): the machine's invlpgb_max_pages, 0 for none.  The trace was
 * then taken on another kind of machine (the hardware model assumed both
 * and served the instruction anyway, a tester's finding).
 */
static int invlpgb_refused(struct replay *r, const struct tlbsim_event *ev, uint64_t idx)
{
	unsigned max = r->m->costs.invlpgb_max_pages;
	char msg[128];

	if (!max)
		snprintf(msg, sizeof(msg),
			 "%s, but the machine has no INVLPGB/TLBSYNC (invlpgb_max_pages 0)",
			 tlbsim_event_kind_name(ev->kind));
	else if (ev->kind == TLBSIM_EV_INVLPGB && ev->invlpgb.nr_pages > max)
		snprintf(msg, sizeof(msg),
			 "invlpgb of %u pages, but the machine's INVLPGB names %u at most (invlpgb_max_pages)",
			 ev->invlpgb.nr_pages, max);
	else
		return 0;
	return fail(r, idx, msg);
}

/* Room in *@v (of @size-byte items, *@cap of them) for item @n. */
static bool room_for(void **v, size_t *cap, size_t n, size_t size)
{
	void *p;

	if (n < *cap)
		return true;
	p = realloc(*v, (*cap ? 2 * *cap : 16) * size);
	if (!p)
		return false;
	*v = p;
	*cap = *cap ? 2 * *cap : 16;
	return true;
}

/* An access of event @idx by @cpu faulted: an outcome scenarios can
 * expect (fault@EVENT, docs/scenarios.md).  False when out of memory. */
static bool fault_note(struct replay *r, unsigned cpu, uint64_t idx, uint64_t va)
{
	r->cpu[cpu].faults++;
	if (!room_for((void **)&r->faults, &r->cap_faults, r->nr_faults, sizeof(*r->faults)))
		return false;
	r->faults[r->nr_faults++] = (struct rfault){.event = idx, .va = va, .cpu = cpu};
	return true;
}

/* The data word at real @pa takes @value (@known false: a value the event
 * does not give). */
static bool word_store(struct replay *r, uint64_t pa, uint64_t value, bool known)
{
	uint64_t key = (pa & ~7ull) | 1;

	if (!known) {
		chk_map_del(&r->words, key);
		return !chk_map_put(&r->unknown, key, 1);
	}
	chk_map_del(&r->unknown, key);
	return !chk_map_put(&r->words, key, value);
}

/* A load of event @idx read real @pa: record the value it returns (a
 * descriptor read as data, from a table frame, is unknown here). */
static bool load_note(struct replay *r, uint64_t idx, uint64_t pa)
{
	uint64_t key = (pa & ~7ull) | 1, v = 0;
	bool known = !chk_map_get(&r->unknown, key, &v) && !hw_physmem_table(r->pm, pa >> 12);

	v = 0;
	(void)chk_map_get(&r->words, key, &v);
	if (!room_for((void **)&r->loads, &r->cap_loads, r->nr_loads, sizeof(*r->loads)))
		return false;
	r->loads[r->nr_loads++] = (struct rload){.event = idx, .value = v, .known = known};
	return true;
}

static int exec_event(struct replay *r, struct hw_cpu *cpu, const struct tlbsim_event *ev, uint64_t idx)
{
	struct rcpu *rc = &r->cpu[cpu->id];
	uint64_t pfn, raw, v;
	unsigned level;
	int isa = kind_isa(ev->kind);

	/* Before the oracle sees it: an instruction the machine lacks is the
	 * trace's error (it was an abort in hw/smp.c, a tester's finding). */
	if (isa >= 0 && isa != (int)r->m->isa) {
		char msg[96];

		snprintf(msg, sizeof(msg), "%s is an %s instruction, but the machine is %s",
			 tlbsim_event_kind_name(ev->kind), tlbsim_isa_name((enum tlbsim_isa)isa),
			 tlbsim_isa_name(r->m->isa));
		return fail(r, idx, msg);
	}
	if ((ev->kind == TLBSIM_EV_INVLPGB || ev->kind == TLBSIM_EV_TLBSYNC) && invlpgb_refused(r, ev, idx))
		return r->rc;
	if (r->oracle)
		chk_event_local(r->oracle, cpu->id, idx);
	rc->events++;
	switch (ev->kind) {
	case TLBSIM_EV_LOAD:
	case TLBSIM_EV_STORE:
	case TLBSIM_EV_FETCH: {
		struct tlbsim_xlate x;
		int rc_x;

		if (r->oracle)
			chk_access(r->oracle, cpu->id, ev->access.va);
		rc_x = tlbsim_mmu_translate(cpu->mmu, ev->access.va, tlbsim_event_access(ev->kind),
					    &x);
		if (rc_x == -TLBSIM_EINVAL)
			return fail(r, idx, "an access before any ttbr_write/cr3_write on its cpu");
		if (rc_x == -TLBSIM_EFAULT && !fault_note(r, cpu->id, idx, ev->access.va))
			return fail(r, idx, "out of memory for the faults");
		/* Values: a load returns its word; a store gives none (the
		 * trace formats carry no value for it). */
		if (!rc_x && !(ev->kind == TLBSIM_EV_LOAD
				   ? load_note(r, idx, x.pa)
				   : ev->kind != TLBSIM_EV_STORE || word_store(r, x.pa, 0, false)))
			return fail(r, idx, "out of memory for the values");
		eng_charge(cpu->core, x.cycles ? x.cycles : 1);
		return 0;
	}
	case TLBSIM_EV_COMPUTE:
		eng_charge(cpu->core, ev->compute.count);
		return 0;
	case TLBSIM_EV_SWITCH:
		return 0; /* placement: read when the events were dealt */
	case TLBSIM_EV_INVLPG:
		hw_invlpg(&r->smp, cpu, ev->invlpg.va);
		return 0;
	case TLBSIM_EV_INVPCID:
		hw_invpcid(&r->smp, cpu, ev->invpcid.type, ev->invpcid.pcid, ev->invpcid.va);
		return 0;
	case TLBSIM_EV_INVLPGB:
		hw_invlpgb(&r->smp, cpu, ev->invlpgb.va, ev->invlpgb.nr_pages, ev->invlpgb.stride_shift,
			   ev->invlpgb.pcid, ev->invlpgb.flags);
		return 0;
	case TLBSIM_EV_TLBSYNC:
		hw_tlbsync(&r->smp, cpu);
		return 0;
	case TLBSIM_EV_TLBI:
		exec_tlbi(r, cpu, ev);
		return 0;
	case TLBSIM_EV_TLBI_RANGE:
		exec_tlbi_range(r, cpu, ev);
		return 0;
	case TLBSIM_EV_DSB:
		if (r->oracle && orders_stores(ev->dsb.domain)) {
			chk_store_barrier(r->oracle, cpu->id);
			chk_store_dsb(r->oracle, cpu->id);
		}
		if (dsb_completes_broadcast(ev->dsb.domain))
			hw_dsb(&r->smp, cpu);
		else if (ev->dsb.domain == TLBSIM_DSB_NSH)
			hw_dsb_local(&r->smp, cpu);
		else
			eng_charge(cpu->core, r->m->costs.dsb); /* LD/ST forms: ordering only */
		return 0;
	case TLBSIM_EV_DMB:
		/* Orders explicit accesses only (Arm ARM C6.2 DMB): a replay runs
		 * each cpu's events in order, so it only costs time (no public
		 * figure for its cost, one cycle); the oracle hears of the
		 * store ordering (a new table's contents before its link). */
		if (r->oracle && orders_stores(ev->dsb.domain))
			chk_store_barrier(r->oracle, cpu->id);
		eng_charge(cpu->core, 1);
		return 0;
	case TLBSIM_EV_ISB:
		hw_isb(&r->smp, cpu);
		return 0;
	case TLBSIM_EV_COMMIT:
		/* The kernel claims its change to the range done, as a
		 * syscall's return does in the OS model (os_kernel_exit()):
		 * the oracle commits it; a cpu still using an older
		 * translation of it is a stale use from now on.  No cost: it
		 * is a claim, not an instruction. */
		if (table_of(r, idx, ev->commit.root_pfn, &pfn, &level))
			return r->rc;
		if (r->oracle)
			chk_commit(r->oracle, cpu->id, pfn, ev->commit.va,
				   ev->commit.va + ev->commit.len);
		return 0;
	case TLBSIM_EV_ERET:
		eng_charge(cpu->core, r->m->costs.isb);
		if (r->oracle)
			chk_context_sync_local(r->oracle, cpu->id);
		return 0;
	case TLBSIM_EV_SERIALIZE:
	case TLBSIM_EV_DC:
	case TLBSIM_EV_SYSREG_WRITE:
		r->unknown_ops += ev->kind != TLBSIM_EV_SERIALIZE;
		eng_charge(cpu->core, 1);
		return 0;
	case TLBSIM_EV_CR3_WRITE:
		if (!tag_fits(r, ev->cr3_write.pcid))
			return fail_tag(r, idx, "PCID", ev->cr3_write.pcid);
		if (table_of(r, idx, ev->cr3_write.root_pfn, &pfn, &level))
			return r->rc;
		hw_write_cr3(&r->smp, cpu, pfn, ev->cr3_write.pcid, ev->cr3_write.noflush);
		return 0;
	case TLBSIM_EV_TTBR_WRITE:
		if (ev->ttbr_write.which != 0)
			return 0; /* TTBR1: the kernel's half, not modelled */
		if (!tag_fits(r, ev->ttbr_write.asid))
			return fail_tag(r, idx, "ASID", ev->ttbr_write.asid);
		if (table_of(r, idx, ev->ttbr_write.root_pfn, &pfn, &level))
			return r->rc;
		hw_write_ttbr0(&r->smp, cpu, pfn, ev->ttbr_write.asid);
		return 0;
	case TLBSIM_EV_TABLE_ALLOC: {
		unsigned top = r->m->pt_levels - 1;

		if (ev->table_alloc.level > top)
			return fail(r, idx, "table_alloc level above the machine's top level");
		if (chk_map_get(&r->names, ev->table_alloc.pfn, &v))
			return fail(r, idx, "table_alloc of a frame name in use (table_free it first)");
		if (tlbsim_physmem_alloc(r->pm, TLBSIM_FRAME_TABLE, &pfn) ||
		    chk_map_put(&r->names, ev->table_alloc.pfn,
				pfn | NAME_TABLE | (uint64_t)ev->table_alloc.level << 56))
			return fail(r, idx, "out of simulated memory for a table");
		if (r->oracle)
			chk_table_new(r->oracle, hw_physmem_table(r->pm, pfn), ev->table_alloc.level,
				      ev->table_alloc.level == top);
		eng_charge(cpu->core, r->m->costs.pte_update);
		return 0;
	}
	case TLBSIM_EV_TABLE_FREE:
		if (!chk_map_get(&r->names, ev->table_free.pfn, &v))
			return fail(r, idx, "table_free of a frame name never used");
		if (tlbsim_physmem_free(r->pm, NAME_PFN(v)))
			return fail(r, idx, "table_free of a frame already free");
		/* A reused frame starts zeroed. */
		for (level = 0; level < 512; level++) {
			chk_map_del(&r->words, NAME_PFN(v) << 12 | level << 3 | 1);
			chk_map_del(&r->unknown, NAME_PFN(v) << 12 | level << 3 | 1);
		}
		chk_map_del(&r->names, ev->table_free.pfn);
		return 0;
	case TLBSIM_EV_PTE_WRITE:
		if (table_of(r, idx, ev->pte_write.table_pfn, &pfn, &level) ||
		    xlate_desc(r, idx, level, ev->pte_write.value, &raw))
			return r->rc;
		if (tlbsim_physmem_write_desc(r->pm, pfn, ev->pte_write.index, raw))
			return fail(r, idx, "pte_write index out of range");
		eng_charge(cpu->core, r->m->costs.pte_update);
		return 0;
	case TLBSIM_EV_PHYS_STORE:
		/* Into a table: a descriptor write; into any other named frame:
		 * that frame is used as data (a freed one is reused). */
		if (chk_map_get(&r->names, ev->phys_store.pa >> 12, &v) && (v & NAME_TABLE)) {
			if (ev->phys_store.unknown)
				raw = 0; /* conservatively: the entry is cleared */
			else if (xlate_desc(r, idx, NAME_LEVEL(v), ev->phys_store.value, &raw))
				return r->rc;
			if (tlbsim_physmem_write_desc(r->pm, NAME_PFN(v), (ev->phys_store.pa & 0xfff) / 8, raw))
				return fail(r, idx, "phys_store into a table at a bad offset");
		} else if (!(pfn = data_frame(r, ev->phys_store.pa >> 12, 0))) {
			return fail(r, idx, "out of simulated memory for a data frame");
		} else if (!word_store(r, pfn << 12 | (ev->phys_store.pa & 0xfff),
				       ev->phys_store.value, !ev->phys_store.unknown)) {
			return fail(r, idx, "out of memory for the values");
		}
		eng_charge(cpu->core, 1);
		return 0;
	default:
		return fail(r, idx, "a user-level syscall or lifecycle event has no meaning in kernel-level "
				    "replay (use the OS model: mode os)");
	}
}

/* ---- engine hooks ------------------------------------------------------------- */

static void r_step(void *ctx, struct eng *e, struct eng_core *c, uint64_t stop)
{
	struct replay *r = ctx;
	struct rcpu *rc = &r->cpu[c->id];

	(void)e;
	(void)stop;
	c->state = rc->next < rc->n ? ENG_PARKED : ENG_IDLE;
}

static void r_serve(void *ctx, struct eng *e, struct eng_core *c)
{
	struct replay *r = ctx;
	struct hw_cpu *cpu = &r->smp.cpu[c->id];
	struct rcpu *rc = &r->cpu[c->id];
	unsigned batch = 0;

	if (r->oracle) {
		chk_serve(r->oracle, c->id);
		chk_sync(r->oracle);
	}
	c->state = ENG_RUNNING;
	while (rc->next < rc->n && c->state == ENG_RUNNING && !r->rc) {
		uint64_t idx = rc->idx[rc->next];

		if (r->ordered) {
			if (idx != r->issued || batch) {
				if (!batch) {
					/* An earlier event has not started: wait
					 * a window, taking interrupts. */
					uint64_t to = e->now + e->window;

					c->st.idle += to > c->now ? to - c->now : 0;
					c->now = to > c->now ? to : c->now + 1;
				}
				return;
			}
			if (c->now < r->issue_time) {
				c->st.idle += r->issue_time - c->now;
				c->now = r->issue_time;
			}
			r->issue_time = c->now;
			r->started[idx] = 1;
			while (r->issued < r->nr_ev && r->started[r->issued])
				r->issued++;
		} else if (batch == TIMED_BATCH) {
			return;
		}
		rc->next++;
		batch++;
		(void)exec_event(r, cpu, &r->ev[idx], idx);
	}
	if (c->state == ENG_RUNNING && rc->next >= rc->n)
		c->state = ENG_IDLE;
}

static void r_deliver(void *ctx, struct eng *e, struct eng_core *c, const struct eng_msg *m)
{
	struct replay *r = ctx;

	(void)e;
	hw_smp_deliver(&r->smp, c, m);
}

static void r_fabric(void *ctx, struct eng *e, const struct eng_msg *m)
{
	struct replay *r = ctx;

	(void)e;
	hw_smp_fabric(&r->smp, m);
}

static const struct eng_ops replay_ops = {
	.step = r_step,
	.deliver = r_deliver,
	.fabric = r_fabric,
	.serve = r_serve,
};

/* ---- reading and dealing ------------------------------------------------------ */

static bool push_idx(struct rcpu *c, uint64_t idx)
{
	if (c->n == c->cap) {
		uint64_t cap = c->cap ? 2 * c->cap : 64;
		uint64_t *p = realloc(c->idx, cap * sizeof(*p));

		if (!p)
			return false;
		c->idx = p;
		c->cap = cap;
	}
	c->idx[c->n++] = idx;
	return true;
}

static int read_all(struct replay *r, const struct tlbsim_replay_config *cfg,
		    tlbsim_event_source_fn next, void *arg)
{
	uint64_t cap = 0, limit = cfg->max_events && cfg->max_events < REPLAY_MAX_EVENTS
					  ? cfg->max_events
					  : REPLAY_MAX_EVENTS;
	struct tlbsim_event ev;
	int rc;

	while ((rc = next(arg, &ev, r->err)) > 0) {
		uint64_t idx = r->nr_ev, v;
		unsigned cpu = ev.cpu;

		if (r->nr_ev == limit)
			return err_set(r->err, -TLBSIM_ERANGE, r->name, -1, -1, -1, NULL,
				       "a kernel-level replay reads at most %llu events",
				       (unsigned long long)limit);
		if (r->nr_ev == cap) {
			struct tlbsim_event *p;

			cap = cap ? 2 * cap : 1024;
			p = realloc(r->ev, cap * sizeof(*p));
			if (!p)
				return -TLBSIM_ENOMEM;
			r->ev = p;
		}
		r->ev[r->nr_ev++] = ev;
		if (ev.kind == TLBSIM_EV_SWITCH && chk_map_put(&r->tid_cpu, ev.tid, ev.cpu + 1u))
			return -TLBSIM_ENOMEM;
		if (cpu == TLBSIM_CPU_ANY && ev.tid && chk_map_get(&r->tid_cpu, ev.tid, &v))
			cpu = (unsigned)v - 1;
		if (cpu == TLBSIM_CPU_ANY)
			return err_set_event(r->err, -TLBSIM_EINVAL, r->name, (long long)idx,
				       "event %llu has no cpu: kernel-level replay runs every event on "
				       "the cpu it names (T1@cpu0 load ..., or a switch first)",
				       (unsigned long long)idx);
		if (cpu >= r->m->nr_cpus)
			return err_set_event(r->err, -TLBSIM_EINVAL, r->name, (long long)idx,
				       "event %llu names cpu %u; machine %s has %u", (unsigned long long)idx,
				       cpu, r->m->name, r->m->nr_cpus);
		if (!push_idx(&r->cpu[cpu], idx))
			return -TLBSIM_ENOMEM;
	}
	return rc;
}

/* ---- statistics --------------------------------------------------------------- */

static char *stats_json(struct replay *r)
{
	json_t *root = json_object(), *cpus = json_array(), *tot = json_object();
	uint64_t end = 0, busy = 0, waiting = 0, stolen = 0, events = 0;
	unsigned i;
	char *text;

	for (i = 0; i < r->m->nr_cpus; i++) {
		const struct eng_core *c = &r->eng.cores[i];
		json_t *j = json_object();

		end = c->now > end ? c->now : end;
		rep_json_set_u64(j, "cycles", c->now);
		rep_json_set_u64(j, "busy_cycles", c->st.busy);
		rep_json_set_u64(j, "waiting_cycles", c->st.waiting);
		rep_json_set_u64(j, "stolen_cycles", c->st.stolen);
		rep_json_set_u64(j, "events", r->cpu[i].events);
		rep_json_set_u64(j, "dsbs", r->smp.cpu[i].st.dsbs);
		rep_json_set_u64(j, "tlbi_broadcasts_sent", r->smp.cpu[i].st.tlbi_bcast_sent);
		rep_json_set_u64(j, "tlbi_broadcasts_received", r->smp.cpu[i].st.tlbi_bcast_received);
		rep_json_set_u64(j, "invlpgb_sent", r->smp.cpu[i].st.invlpgb_sent);
		json_object_set_new(j, "mmu", rep_mmu_stats_json(tlbsim_mmu_stats(r->smp.cpu[i].mmu)));
		json_array_append_new(cpus, j);
		busy += c->st.busy;
		waiting += c->st.waiting;
		stolen += c->st.stolen;
		events += r->cpu[i].events;
	}
	json_object_set_new(root, "schema", json_string("tlbsim-stats/1"));
	json_object_set_new(root, "mode", json_string("kernel-replay"));
	json_object_set_new(root, "partial", json_boolean(r->partial || (r->eng.stop_requested && !r->rc)));
	json_object_set_new(root, "machine", json_string(r->m->name));
	json_object_set_new(root, "isa", json_string(tlbsim_isa_name(r->m->isa)));
	json_object_set_new(root, "cpus", json_integer(r->m->nr_cpus));
	json_object_set_new(root, "freq_ghz", json_real(r->m->freq_ghz));
	json_object_set_new(root, "policy", json_string("none (kernel-level replay)"));
	json_object_set_new(root, "order", json_string(r->ordered ? "trace" : "timed"));
	rep_json_set_u64(root, "events_read", r->nr_ev);
	rep_json_set_u64(root, "cycles", end);
	json_object_set_new(root, "seconds", json_real((double)end / (r->m->freq_ghz * 1e9)));
	rep_json_set_u64(root, "windows", r->eng.windows);
	rep_json_set_u64(tot, "busy_cycles", busy);
	rep_json_set_u64(tot, "waiting_cycles", waiting);
	rep_json_set_u64(tot, "stolen_cycles", stolen);
	rep_json_set_u64(tot, "events", events);
	rep_json_set_u64(tot, "ignored_operands", r->unknown_ops);
	json_object_set_new(root, "totals", tot);
	json_object_set_new(root, "hazards", chk_json(r->oracle));
	{
		json_t *faults = json_array();
		size_t k;

		for (k = 0; k < r->nr_faults && k < 1000; k++) {
			json_t *f = json_object();
			char va[24];

			snprintf(va, sizeof(va), "0x%llx", (unsigned long long)r->faults[k].va);
			json_object_set_new(f, "event",
					    json_integer((json_int_t)r->faults[k].event));
			json_object_set_new(f, "cpu", json_integer(r->faults[k].cpu));
			json_object_set_new(f, "va", json_string(va));
			json_array_append_new(faults, f);
		}
		json_object_set_new(root, "faults", faults);
		faults = json_array();
		for (k = 0; k < r->nr_loads && k < 1000; k++) {
			json_t *l = json_object();

			json_object_set_new(l, "event",
					    json_integer((json_int_t)r->loads[k].event));
			json_object_set_new(l, "value",
					    r->loads[k].known
						? json_integer((json_int_t)r->loads[k].value)
						: json_null());
			json_array_append_new(faults, l);
		}
		json_object_set_new(root, "loads", faults);
	}
	json_object_set_new(root, "per_cpu", cpus);
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	json_decref(root);
	return text;
}

/* ---- the whole replay --------------------------------------------------------- */

static void replay_fini(struct replay *r)
{
	unsigned i;

	chk_destroy(r->oracle);
	if (r->smp.cpu)
		hw_smp_fini(&r->smp);
	eng_fini(&r->eng);
	tlbsim_physmem_destroy(r->pm);
	if (r->cpu)
		for (i = 0; i < r->m->nr_cpus; i++)
			free(r->cpu[i].idx);
	free(r->cpu);
	free(r->ev);
	free(r->started);
	free(r->faults);
	free(r->loads);
	chk_map_fini(&r->words);
	chk_map_fini(&r->unknown);
	chk_map_fini(&r->names);
	chk_map_fini(&r->tid_cpu);
}

int tlbsim_replay_run(const struct tlbsim_replay_config *cfg, tlbsim_event_source_fn next, void *arg,
		      char **stats, struct tlbsim_error *err)
{
	struct replay r = {0};
	unsigned i;
	int rc;

	if (!stats)
		return -TLBSIM_EINVAL;
	*stats = NULL;
	if (!cfg || !cfg->machine || !next)
		return err_set(err, -TLBSIM_EINVAL, "<config>", -1, -1, -1, NULL,
			       "a replay needs a machine and an event source");
	rc = tlbsim_machine_validate(cfg->machine, err);
	if (rc)
		return rc;
	r.m = cfg->machine;
	r.err = err;
	r.name = cfg->name ? cfg->name : "<trace>";
	r.ordered = cfg->ordered;
	rc = -TLBSIM_ENOMEM;
	r.cpu = calloc(r.m->nr_cpus, sizeof(*r.cpu));
	r.pm = tlbsim_physmem_create(1ull << 24);
	if (!r.cpu || !r.pm)
		goto out;
	rc = eng_init(&r.eng, r.m->nr_cpus, hw_smp_window(r.m), 1, &replay_ops, &r);
	if (rc)
		goto out;
	rc = hw_smp_init(&r.smp, r.m, r.pm, &r.eng);
	if (rc)
		goto out;
	if (cfg->check) {
		r.oracle = chk_create(&r.smp);
		if (!r.oracle) {
			rc = -TLBSIM_ENOMEM;
			goto out;
		}
		chk_set_kernel_mode(r.oracle);
		for (i = 0; i < r.m->nr_cpus; i++)
			chk_set_ets2(r.oracle, i, cfg->ets2 && tlbsim_cpumask_test(cfg->ets2, i));
	}
	rc = read_all(&r, cfg, next, arg);
	if (rc < 0)
		goto out;
	r.started = calloc(r.nr_ev ? r.nr_ev : 1, 1);
	if (!r.started) {
		rc = -TLBSIM_ENOMEM;
		goto out;
	}
	for (i = 0; i < r.m->nr_cpus; i++)
		if (r.cpu[i].n)
			r.eng.cores[i].state = ENG_RUNNING;
	rc = eng_run(&r.eng, cfg->max_cycles ? cfg->max_cycles : ENG_NEVER);
	if (rc > 0) {
		r.partial = true;
		rc = 0;
	}
	if (r.rc) {
		rc = r.rc;
		goto out;
	}
	if (rc < 0)
		goto out;
	*stats = stats_json(&r);
	rc = *stats ? 0 : -TLBSIM_ENOMEM;
out:
	if (rc == -TLBSIM_ENOMEM)
		err_set(err, rc, "<replay>", -1, -1, -1, NULL, "out of memory");
	replay_fini(&r);
	return rc;
}
