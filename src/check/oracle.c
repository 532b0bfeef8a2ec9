/* SPDX-License-Identifier: MIT */
/*
 * The hazard oracle (oracle.h): the architectural rules of
 * docs/hazard-rules.md turned into checks on the hardware model's
 * state.  What it keeps and why:
 *
 *  - pending changes: a leaf descriptor that was valid and was cleared,
 *    moved to another frame or lost permissions leaves translations
 *    filled from it (identified by the descriptor write they came from,
 *    the "version" of struct hw_tlb_entry) in TLBs until an invalidation
 *    removes them.  Using one is a hazard once the change is committed: its
 *    syscall (or fault) returned, a TLBI covering it completed (kernel-level
 *    replay), or the old frame was freed.  At that point the oracle marks
 *    every surviving copy on every cpu HW_TLBE_POISON; the MMU reports a
 *    poisoned entry when an access uses it (stale use).
 *  - walks into freed tables (rules 1, 12, 13, 19): at every table free and
 *    at every reuse of a freed table frame, every cpu's walk caches are
 *    searched for an entry leading into that frame (filled while the frame
 *    held that table).  Arm: any ASID the walk cache holds (speculative
 *    walks may use any); x86: only a cpu that still has the table's CR3
 *    loaded, in the PCID it is loaded with (SDM 4.10.2.4, Linux
 *    native_flush_tlb_multi()).  A may-analysis: the verdict does not depend
 *    on whether a walk happened to run.
 *  - incomplete maintenance (rules 5, 20, 12): TLBIs not yet completed by a
 *    DSB on their issuer and INVLPGBs not yet completed by a TLBSYNC on
 *    theirs; a frame freed while such an operation covering it is
 *    outstanding and reused before it completes is reported, as is a table
 *    freed while a cpu that switched away from its address space (MSR
 *    TTBR0; ISB) has not executed a DSB since (walks of the old context may
 *    be in flight; rule 5, the nr_active_mm review).
 *  - break-before-make (rule 10, Arm only): a valid descriptor replaced by
 *    one with another output address or type, directly or through an
 *    invalid one without, in between, a completed broadcast TLBI covering
 *    it or, on every cpu that had loaded the address space by the break,
 *    a local TLBI covering it completed by that cpu's DSB (a flush by IPIs;
 *    rules 4, 5).  For a table descriptor only non-last-level TLBIs count:
 *    VALE1/VAALE1 leave walk-cache entries (rule 2), as they do not count
 *    for a freed table either (struct chk_op @last_level).
 *  - rule 7 (Arm, without FEAT_ETS2): after TLBI + DSB, the issuing cpu's
 *    accesses to the invalidated addresses may still use the old
 *    translation until a context synchronisation (ISB, ERET).
 */
#include <stdlib.h>
#include <string.h>

#include "check/map.h"
#include "check/oracle.h"
#include "hw/mmu_internal.h"
#include "hw/observe.h"
#include "hw/physmem.h"
#include "hw/pte.h"
#include "hw/smp.h"
#include "hw/tlb.h"
#include "tlbsim/pgtable.h"

/* A TLBI or INVLPGB: what it covers, and when it was issued. */
struct chk_op {
	uint64_t seq;	/* per-cpu issue order */
	uint64_t time;	/* issue time, cycles */
	uint64_t va_lo; /* [va_lo, va_hi] covered, inclusive */
	uint64_t va_hi;
	uint16_t asid;
	uint8_t all_asids;
	uint8_t broadcast;
	uint8_t invlpgb; /* else a TLBI */
	/* A last-level form (TLBI VALE1, VAALE1 and their IS/OS forms;
	 * INVLPGB with final-translation-only): it removes final-level (leaf
	 * and block) entries only and leaves the walk-cache entries of table
	 * descriptors (Arm ARM D8.13 "TLB maintenance", the TLBI VALE1 and
	 * VAALE1 descriptions: "last level"; AMD APM vol. 3 INVLPGB;
	 * docs/hazard-rules.md rules 2, 20).  Never enough for a table
	 * descriptor's break or a freed table. */
	uint8_t last_level;
	/* Arm erratum 1286807 (tlbsim_machine.errata): @weak, a DSB
	 * completed this TLBI but an access that used the old translation
	 * may still be in flight, so it stays outstanding; @repeat, this TLBI
	 * repeats such a weak one (Linux ARM64_WORKAROUND_REPEAT_TLBI), and
	 * its completion completes both */
	uint8_t weak;
	uint8_t repeat;
};

struct chk_ops {
	struct chk_op *v;
	unsigned n, cap;
};

struct chk_reports {
	struct chk_report *v;
	unsigned n, cap;
	uint64_t count[CHK_NR_KINDS];
};

/* A root table loaded with an ASID it was not known to have (learned in
 * the parallel phase, recorded serially). */
struct chk_pair {
	uint64_t root;
	uint16_t asid;
};

#define DSB_ST_RING 64

struct chk_cpu {
	uint64_t event;
	bool ets2;
	bool has_ctx;
	uint64_t root;
	uint16_t asid;
	uint64_t next_seq;
	struct chk_ops pending;	 /* issued, not complete */
	struct chk_ops done;	 /* completed since the last chk_sync() */
	struct chk_ops unsynced; /* completed, no context synchronisation since */
	uint64_t tlbi_done_seq;	 /* every TLBI with seq <= this is complete */
	uint64_t invlpgb_done_seq;
	bool draining; /* switched away from (drain_root, drain_asid), no DSB since */
	uint64_t drain_root;
	uint16_t drain_asid;
	uint64_t drain_time;
	/* the last lockless software walk (GUP-fast) of this cpu: root,
	 * [sw_lo, sw_hi] walked, during [sw_from, sw_until) cycles */
	uint64_t sw_root, sw_lo, sw_hi, sw_from, sw_until;
	struct chk_map asid_root; /* asid + 1 -> root last loaded with it */
	/* Arm: the address spaces this cpu loaded, root + 1 -> time + 1 of
	 * its first load since the root frame was allocated (deleted when the
	 * frame is freed).  Whatever it runs now, a cpu that ever loaded one
	 * may still cache its entries (rule 1: time does not remove them). */
	struct chk_map loaded;
	/* Arm: latest issue time + 1 of this cpu's completed local
	 * (non-broadcast) TLBIs, for the break-before-make check
	 * (local_done_since()): of everything (VMALLE1), per ASID
	 * (asid + 1 ->), per page and ASID (va_key()), per region of a
	 * level >= 1 descriptor and ASID (span_key()). */
	uint64_t local_all;
	struct chk_map local_asid, local_va, local_span;
	/* Table frames (pfn + 1) this cpu made an entry valid in since its
	 * last store barrier (kernel mode, chk_store_barrier()). */
	struct chk_map unordered;
	/* Kernel mode: store-ordering DSBs executed, and the times of the
	 * last DSB_ST_RING of them (the n-th at [n % DSB_ST_RING]). */
	uint64_t nr_dsb_st;
	uint64_t dsb_st_time[DSB_ST_RING];
	struct chk_pair *pairs;
	unsigned nr_pairs, cap_pairs;
	struct chk_reports rep;
};

/* A leaf translation that was changed and may still be cached. */
struct chk_change {
	uint64_t time; /* of the change, cycles */
	uint64_t root;
	uint64_t va;
	uint64_t old_version;
	uint64_t old_pfn;
	uint32_t next; /* next change of the same old frame key, or NONE */
	uint8_t shift;
	uint8_t live;
};

#define NONE UINT32_MAX

/* Outstanding operations a freed frame waits for. */
struct chk_wait {
	unsigned cpu;
	uint64_t seq;
	uint8_t invlpgb;
};

struct chk_pend {
	uint64_t pfn;
	struct chk_wait *w;
	unsigned n;
};

/* A descriptor made invalid, waiting for its TLBI before a new valid value. */
struct chk_break {
	uint64_t time;
	uint64_t old_pfn;
	uint8_t old_leaf;
	/* kernel mode: the breaking cpu, and its count of store-ordering
	 * DSBs at the break (rule 6) */
	uint8_t kernel;
	unsigned cpu;
	uint64_t dsb_mark;
};

/* Completed broadcast TLBIs remembered for the break-before-make check. */
#define DONE_RING 1024

struct chk_oracle {
	struct hw_smp *smp;
	tlbsim_physmem *pm;
	enum tlbsim_isa isa;
	unsigned levels;
	unsigned nr_cpus;
	struct chk_cpu *cpu;

	struct chk_change *chg;
	uint32_t nr_chg, cap_chg, live_chg;
	struct chk_map chg_by_pfn; /* old frame (aligned to the page) -> first change */

	struct chk_map watch; /* freed table frame -> generation | (root << 32)... see watch_* */
	struct chk_map watch_root;

	struct chk_pend *pend;
	unsigned nr_pend, cap_pend;
	struct chk_map pend_by_pfn; /* frame -> index + 1 in @pend */

	struct chk_break *brk;
	uint32_t nr_brk, cap_brk;
	struct chk_map brk_by_slot; /* table pfn << 9 | index -> index in @brk */

	struct chk_op done_ring[DONE_RING];
	uint64_t nr_done;
	/* Latest issue time + 1 of a completed broadcast invalidation: of
	 * everything, per ASID (asid + 1 ->), per page and ASID (va_key()) */
	uint64_t all_done;
	struct chk_map asid_done;
	struct chk_map va_done;
	/* Latest time + 1 a syscall return committed, per root and page
	 * (commit_key()), and per root for large ranges: Linux's contract
	 * after a syscall returns counts as completed maintenance whatever
	 * mechanism did it (IPIs and local flushes included). */
	struct chk_map page_committed;
	struct chk_map root_committed;

	struct chk_map owner; /* root -> mm id */
	struct chk_reports rep; /* serial reports */
	struct chk_report *merged;
	unsigned nr_merged;
	uint64_t counts[CHK_NR_KINDS];
	unsigned serving;
	bool kernel_mode; /* chk_set_kernel_mode(): store barriers are reported */
	bool oom;
	bool repeat_tlbi; /* the machine has Arm erratum 1286807 */
};

static const char *const kind_names[] = {
#define CHK_NAME(name, text) text,
	CHK_KINDS(CHK_NAME)
#undef CHK_NAME
};

const char *chk_kind_name(unsigned kind)
{
	return kind < CHK_NR_KINDS ? kind_names[kind] : NULL;
}

int chk_kind_find(const char *name)
{
	unsigned k;

	for (k = 0; k < CHK_NR_KINDS; k++)
		if (!strcmp(kind_names[k], name))
			return (int)k;
	return -1;
}

/* ---- small vectors ------------------------------------------------------- */

static bool grow_vec(void **v, unsigned *cap, unsigned need, size_t size)
{
	unsigned c = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return true;
	while (c < need)
		c *= 2;
	p = realloc(*v, (size_t)c * size);
	if (!p)
		return false;
	*v = p;
	*cap = c;
	return true;
}

static void ops_push(struct chk_oracle *o, struct chk_ops *ops, const struct chk_op *op)
{
	if (!grow_vec((void **)&ops->v, &ops->cap, ops->n + 1, sizeof(*op))) {
		o->oom = true;
		return;
	}
	ops->v[ops->n++] = *op;
}

static uint64_t now_of(const struct chk_oracle *o, unsigned cpu)
{
	return o->smp->cpu[cpu].core->now;
}

/* ---- reports ------------------------------------------------------------- */

static void report(struct chk_oracle *o, struct chk_reports *r, const struct chk_report *rep)
{
	r->count[rep->kind]++;
	if (r->n >= CHK_MAX_REPORTS)
		return;
	if (!grow_vec((void **)&r->v, &r->cap, r->n + 1, sizeof(*rep))) {
		o->oom = true;
		return;
	}
	r->v[r->n++] = *rep;
}

static uint32_t mm_of(const struct chk_oracle *o, uint64_t root)
{
	uint64_t id = 0;

	(void)chk_map_get(&o->owner, root, &id);
	return (uint32_t)id;
}

/* A serial report about @cpu's state, found while @by executes. */
static void report_serial(struct chk_oracle *o, unsigned kind, unsigned cpu, unsigned by,
			  uint64_t root, uint16_t asid, uint64_t va, uint64_t pfn, const char *why)
{
	struct chk_report rep = {.kind = kind, .cpu = cpu, .event = o->cpu[by].event,
				 .time = now_of(o, by), .root = root, .mm = mm_of(o, root),
				 .asid = asid, .va = va, .pfn = pfn, .why = why};

	report(o, &o->rep, &rep);
}

static int cmp_report(const void *a, const void *b)
{
	const struct chk_report *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->va != y->va)
		return x->va < y->va ? -1 : 1;
	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

const struct chk_report *chk_reports(struct chk_oracle *o, unsigned *n)
{
	unsigned total = o->rep.n, i, k = 0;

	for (i = 0; i < o->nr_cpus; i++)
		total += o->cpu[i].rep.n;
	free(o->merged);
	o->merged = total ? malloc((size_t)total * sizeof(*o->merged)) : NULL;
	if (o->merged) {
		if (o->rep.n)
			memcpy(o->merged, o->rep.v, (size_t)o->rep.n * sizeof(*o->merged));
		k = o->rep.n;
		for (i = 0; i < o->nr_cpus; i++) {
			if (o->cpu[i].rep.n)
				memcpy(o->merged + k, o->cpu[i].rep.v,
				       (size_t)o->cpu[i].rep.n * sizeof(*o->merged));
			k += o->cpu[i].rep.n;
		}
		qsort(o->merged, k, sizeof(*o->merged), cmp_report);
	}
	o->nr_merged = k > CHK_MAX_REPORTS ? CHK_MAX_REPORTS : k;
	*n = o->nr_merged;
	return o->merged;
}

const uint64_t *chk_counts(struct chk_oracle *o)
{
	unsigned k, i;

	for (k = 0; k < CHK_NR_KINDS; k++) {
		o->counts[k] = o->rep.count[k];
		for (i = 0; i < o->nr_cpus; i++)
			o->counts[k] += o->cpu[i].rep.count[k];
	}
	return o->counts;
}

/* ---- life cycle ---------------------------------------------------------- */

static const struct hw_observer_ops chk_hw_ops;

struct chk_oracle *chk_create(struct hw_smp *smp)
{
	struct chk_oracle *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->smp = smp;
	o->pm = smp->pm;
	o->isa = smp->m->isa;
	o->levels = smp->m->pt_levels;
	o->nr_cpus = smp->m->nr_cpus;
	o->repeat_tlbi =
	    smp->m->isa == TLBSIM_ISA_ARM64 && (smp->m->errata & TLBSIM_ERRATUM_ARM64_1286807);
	o->cpu = calloc(o->nr_cpus, sizeof(*o->cpu));
	if (!o->cpu) {
		free(o);
		return NULL;
	}
	hw_physmem_set_observer(o->pm, &chk_hw_ops, o);
	return o;
}

static void reports_fini(struct chk_reports *r)
{
	free(r->v);
}

void chk_destroy(struct chk_oracle *o)
{
	unsigned i;

	if (!o)
		return;
	if (hw_physmem_observer(o->pm) && hw_physmem_observer(o->pm)->ctx == o)
		hw_physmem_set_observer(o->pm, NULL, NULL);
	for (i = 0; i < o->nr_cpus; i++) {
		struct chk_cpu *c = &o->cpu[i];

		free(c->pending.v);
		free(c->done.v);
		free(c->unsynced.v);
		free(c->pairs);
		chk_map_fini(&c->asid_root);
		chk_map_fini(&c->loaded);
		chk_map_fini(&c->local_asid);
		chk_map_fini(&c->local_va);
		chk_map_fini(&c->local_span);
		chk_map_fini(&c->unordered);
		reports_fini(&c->rep);
	}
	free(o->cpu);
	free(o->chg);
	chk_map_fini(&o->chg_by_pfn);
	chk_map_fini(&o->watch);
	chk_map_fini(&o->watch_root);
	for (i = 0; i < o->nr_pend; i++)
		free(o->pend[i].w);
	free(o->pend);
	chk_map_fini(&o->pend_by_pfn);
	free(o->brk);
	chk_map_fini(&o->brk_by_slot);
	chk_map_fini(&o->owner);
	chk_map_fini(&o->asid_done);
	chk_map_fini(&o->va_done);
	chk_map_fini(&o->page_committed);
	chk_map_fini(&o->root_committed);
	reports_fini(&o->rep);
	free(o->merged);
	free(o);
}

void chk_set_ets2(struct chk_oracle *o, unsigned cpu, bool on)
{
	if (cpu < o->nr_cpus)
		o->cpu[cpu].ets2 = on;
}

void chk_event_local(struct chk_oracle *o, unsigned cpu, uint64_t index)
{
	o->cpu[cpu].event = index;
}

void chk_root_owner(struct chk_oracle *o, uint64_t root, uint32_t mm_id)
{
	if (chk_map_put(&o->owner, root, mm_id))
		o->oom = true;
}

/* ---- scopes -------------------------------------------------------------- */

/* Sign-extend a lower-half x86 address computed from a root index >= 256. */
static uint64_t canonical(const struct chk_oracle *o, uint64_t va)
{
	unsigned top = o->isa == TLBSIM_ISA_X86_64 ? (o->levels == 5 ? 56 : 47) : 64;

	if (top < 64 && (va >> top) & 1)
		va |= ~0ull << top;
	return va;
}

/* Does @root's address space use @asid (as far as the oracle saw)? */
static bool root_has_asid(const struct chk_oracle *o, uint64_t root, uint16_t asid)
{
	const struct hw_table_page *t = hw_physmem_table(o->pm, root);
	unsigned i;

	if (!t || t->nr_asids > HW_ROOT_ASIDS)
		return true; /* unknown: assume it may */
	for (i = 0; i < t->nr_asids; i++)
		if (t->asids[i] == asid)
			return true;
	return false;
}

/* Does @op cover some address of [lo, hi] in the address space of @root? */
static bool op_covers(const struct chk_oracle *o, const struct chk_op *op, uint64_t root,
		      uint64_t lo, uint64_t hi)
{
	if (op->va_hi < lo || op->va_lo > hi)
		return false;
	return op->all_asids || root_has_asid(o, root, op->asid);
}

/* ---- poisoning ----------------------------------------------------------- */

static const enum hw_struct tlb_structs[] = {HW_L1I, HW_L1D, HW_L2};

/* Mark (or unmark) every cached copy on @cpu of the translation filled from
 * descriptor write @version for the page [va, va + 2^shift). */
static unsigned mark_cpu(struct chk_oracle *o, unsigned cpu, uint64_t va, unsigned shift,
			 uint64_t version, bool poison)
{
	unsigned s, n = 0;

	for (s = 0; s < sizeof(tlb_structs) / sizeof(tlb_structs[0]); s++) {
		struct hw_tlb *t = hw_mmu_struct(o->smp->cpu[cpu].mmu, tlb_structs[s]);

		if (t)
			n += hw_tlb_mark_version(t, va, shift, version, poison);
	}
	return n;
}

static void commit_change(struct chk_oracle *o, struct chk_change *c)
{
	unsigned i;

	for (i = 0; i < o->nr_cpus; i++)
		mark_cpu(o, i, c->va, c->shift, c->old_version, true);
	c->live = 0;
	o->live_chg--;
}

/* Frame key of a change: the frame its page starts at. */
static void add_change(struct chk_oracle *o, uint64_t root, uint64_t va, unsigned shift,
		       uint64_t old_version, uint64_t old_pfn, uint64_t time)
{
	uint64_t head = NONE;
	struct chk_change *c;

	if (o->nr_chg == o->cap_chg && o->live_chg * 2 <= o->nr_chg && o->nr_chg) {
		/* Compact: drop dead changes, rebuild the index. */
		uint32_t i, k = 0;

		chk_map_clear(&o->chg_by_pfn);
		for (i = 0; i < o->nr_chg; i++) {
			if (!o->chg[i].live)
				continue;
			o->chg[k] = o->chg[i];
			o->chg[k].next = NONE;
			if (chk_map_get(&o->chg_by_pfn, o->chg[k].old_pfn, &head))
				o->chg[k].next = (uint32_t)head;
			if (chk_map_put(&o->chg_by_pfn, o->chg[k].old_pfn, k))
				o->oom = true;
			k++;
		}
		o->nr_chg = k;
	}
	if (!grow_vec((void **)&o->chg, &o->cap_chg, o->nr_chg + 1, sizeof(*o->chg))) {
		o->oom = true;
		return;
	}
	c = &o->chg[o->nr_chg];
	*c = (struct chk_change){.time = time, .root = root, .va = va, .old_version = old_version,
				 .old_pfn = old_pfn, .next = NONE, .shift = (uint8_t)shift,
				 .live = 1};
	head = NONE;
	if (chk_map_get(&o->chg_by_pfn, old_pfn, &head))
		c->next = (uint32_t)head;
	if (chk_map_put(&o->chg_by_pfn, old_pfn, o->nr_chg))
		o->oom = true;
	o->nr_chg++;
	o->live_chg++;
}

/* Key of (root, page) in @page_committed (a hash: a collision can only
 * make the break-before-make check more lenient). */
static uint64_t commit_key(uint64_t root, uint64_t va)
{
	return ((va >> 12) * 0x9e3779b97f4a7c15ull ^ root) | 1;
}

static void max_put(struct chk_oracle *o, struct chk_map *m, uint64_t key, uint64_t t);

void chk_syscall_return(struct chk_oracle *o, unsigned cpu, uint64_t root, uint64_t start,
			uint64_t end)
{
	chk_commit(o, cpu, root, start, end);
	chk_context_sync_local(o, cpu);
}

void chk_commit(struct chk_oracle *o, unsigned cpu, uint64_t root, uint64_t start, uint64_t end)
{
	uint64_t t = now_of(o, cpu) + 1, va;
	uint32_t i;

	chk_sync(o);
	if (end - start > (512ull << 12) || end < start)
		max_put(o, &o->root_committed, root, t);
	else
		for (va = start & ~0xfffull; va < end; va += 4096)
			max_put(o, &o->page_committed, commit_key(root, va), t);
	for (i = 0; i < o->nr_chg && o->live_chg; i++) {
		struct chk_change *c = &o->chg[i];
		uint64_t last = c->va + ((1ull << c->shift) - 1);

		if (c->live && c->root == root && c->va < end && last >= start)
			commit_change(o, c);
	}
}

/* ---- maintenance --------------------------------------------------------- */

static void op_scope_tlbi(struct chk_op *op, enum tlbsim_tlbi_op tlbi, uint64_t va, uint16_t asid)
{
	uint64_t page = va & ~0xfffull;

	/* Arm ARM D8.13: the ...LE1 forms are last level only (rule 2). */
	op->last_level = tlbi == TLBSIM_TLBI_VALE1 || tlbi == TLBSIM_TLBI_VAALE1;
	switch (tlbi) {
	case TLBSIM_TLBI_VAE1:
	case TLBSIM_TLBI_VALE1:
		op->va_lo = page;
		op->va_hi = page | 0xfff;
		op->asid = asid;
		break;
	case TLBSIM_TLBI_VAAE1:
	case TLBSIM_TLBI_VAALE1:
		op->va_lo = page;
		op->va_hi = page | 0xfff;
		op->all_asids = 1;
		break;
	case TLBSIM_TLBI_ASIDE1:
		op->va_hi = UINT64_MAX;
		op->asid = asid;
		break;
	default: /* VMALLE1 and anything wider */
		op->va_hi = UINT64_MAX;
		op->all_asids = 1;
		break;
	}
}

static bool same_scope(const struct chk_op *a, const struct chk_op *b)
{
	return a->va_lo == b->va_lo && a->va_hi == b->va_hi && a->asid == b->asid &&
	       a->all_asids == b->all_asids && a->broadcast == b->broadcast;
}

static void obs_tlbi_local(void *ctx, unsigned cpu, enum tlbsim_tlbi_op tlbi, uint64_t va,
			   uint16_t asid, bool broadcast)
{
	struct chk_oracle *o = ctx;
	struct chk_cpu *c = &o->cpu[cpu];
	struct chk_op op = {.seq = ++c->next_seq, .time = now_of(o, cpu),
			    .broadcast = broadcast || o->nr_cpus == 1};

	op_scope_tlbi(&op, tlbi, va, asid);
	if (o->repeat_tlbi && op.broadcast)
		for (unsigned i = 0; i < c->pending.n; i++)
			if (c->pending.v[i].weak && same_scope(&c->pending.v[i], &op))
				op.repeat = 1;
	ops_push(o, &c->pending, &op);
}

static void obs_invlpgb_local(void *ctx, unsigned cpu, uint64_t va, unsigned nr_pages,
			      unsigned stride_shift, uint16_t pcid, unsigned flags)
{
	struct chk_oracle *o = ctx;
	struct chk_cpu *c = &o->cpu[cpu];
	struct chk_op op = {.seq = ++c->next_seq, .time = now_of(o, cpu), .broadcast = 1,
			    .invlpgb = 1, .va_hi = UINT64_MAX, .all_asids = 1};

	if (flags & TLBSIM_INVLPGB_VA) {
		op.va_lo = va;
		op.va_hi = va + ((uint64_t)nr_pages << stride_shift) - 1;
	}
	if (flags & TLBSIM_INVLPGB_PCID) {
		op.all_asids = 0;
		op.asid = pcid;
	}
	op.last_level = !!(flags & TLBSIM_INVLPGB_FINAL_ONLY); /* rule 20 */
	ops_push(o, &c->pending, &op);
}

/*
 * Under Arm erratum 1286807, may the DSB that completes @op (of @c's
 * pending list) also end every access that used the old translation?
 * Only when @op repeats an earlier TLBI of its scope that a DSB already
 * completed (weak), or is such a weak one whose repeat completes now.
 */
static bool erratum_done(const struct chk_cpu *c, const struct chk_op *op)
{
	unsigned i;

	if (op->repeat)
		return true;
	for (i = 0; op->weak && i < c->pending.n; i++)
		if (c->pending.v[i].repeat && c->pending.v[i].seq > op->seq &&
		    same_scope(&c->pending.v[i], op))
			return true;
	return false;
}

/* Move the pending operations of @cpu that a barrier completes to done. */
static void complete(struct chk_oracle *o, unsigned cpu, bool invlpgb, bool local_only)
{
	struct chk_cpu *c = &o->cpu[cpu];
	uint64_t first_weak = 0;
	unsigned i, k = 0;

	for (i = 0; i < c->pending.n; i++) {
		struct chk_op *op = &c->pending.v[i];

		if (op->invlpgb != invlpgb || (local_only && op->broadcast && o->nr_cpus > 1)) {
			c->pending.v[k++] = *op;
			continue;
		}
		if (o->repeat_tlbi && !invlpgb && op->broadcast && o->nr_cpus > 1 &&
		    !erratum_done(c, op)) {
			/* The entries are gone, an access using them may not
			 * be: outstanding until a repeat completes. */
			op->weak = 1;
			if (!first_weak || op->seq < first_weak)
				first_weak = op->seq;
			c->pending.v[k++] = *op;
			continue;
		}
		ops_push(o, &c->done, op);
		if (!invlpgb)
			ops_push(o, &c->unsynced, op);
	}
	c->pending.n = k;
	/* Barriers complete everything of their kind issued before them. */
	if (invlpgb)
		c->invlpgb_done_seq = c->next_seq;
	else if (!local_only)
		c->tlbi_done_seq = first_weak ? first_weak - 1 : c->next_seq;
}

static void obs_dsb_done_local(void *ctx, unsigned cpu, bool ish)
{
	struct chk_oracle *o = ctx;
	complete(o, cpu, false, !ish);
	/* A DSB completes the walks of the context this cpu switched away
	 * from (docs/hazard-rules.md rule 5; the nr_active_mm review). */
	o->cpu[cpu].draining = false;
}

static void obs_tlbsync_done_local(void *ctx, unsigned cpu)
{
	struct chk_oracle *o = ctx;
	complete(o, cpu, true, false);
}

void chk_context_sync_local(struct chk_oracle *o, unsigned cpu)
{
	o->cpu[cpu].unsynced.n = 0;
}

void chk_access(struct chk_oracle *o, unsigned cpu, uint64_t va)
{
	struct chk_cpu *c = &o->cpu[cpu];
	unsigned i;

	if (c->ets2 || o->isa != TLBSIM_ISA_ARM64 || !c->unsynced.n)
		return;
	for (i = 0; i < c->unsynced.n; i++) {
		const struct chk_op *op = &c->unsynced.v[i];

		if (va >= op->va_lo && va <= op->va_hi && (op->all_asids || op->asid == c->asid)) {
			struct chk_report rep = {
				.kind = CHK_STALE_USE, .cpu = cpu, .event = c->event,
				.time = now_of(o, cpu), .root = c->root, .mm = mm_of(o, c->root),
				.asid = c->asid, .va = va,
				.why = "access after TLBI + DSB with no context synchronisation "
				       "(ISB/ERET) may use the old translation (Arm, no FEAT_ETS2; "
				       "docs/hazard-rules.md rule 7)"};

			report(o, &c->rep, &rep);
			return;
		}
	}
}

static void obs_context_load_local(void *ctx, unsigned cpu, uint64_t root, uint16_t asid)
{
	struct chk_oracle *o = ctx;
	struct chk_cpu *c = &o->cpu[cpu];
	uint64_t prev = 0;

	if (o->isa == TLBSIM_ISA_ARM64 && !chk_map_get(&c->loaded, root + 1, NULL) &&
	    chk_map_put(&c->loaded, root + 1, now_of(o, cpu) + 1))
		o->oom = true;
	if (c->has_ctx && c->root == root && c->asid == asid)
		return; /* a reload (x86 flush by CR3): nothing new */
	if (o->isa == TLBSIM_ISA_ARM64 && c->has_ctx && c->root != root) {
		/* MSR TTBR0 + ISB: walks of the old context may be in flight
		 * until a DSB (docs/hazard-rules.md rule 5). */
		c->draining = true;
		c->drain_root = c->root;
		c->drain_asid = c->asid;
		c->drain_time = now_of(o, cpu);
	}
	if (chk_map_get(&c->asid_root, (uint64_t)asid + 1, &prev) && prev != root) {
		/* The ASID served another address space on this cpu: whatever
		 * it still caches is a translation of that one (rule 9). */
		unsigned s;

		for (s = HW_L1I; s < HW_NR_STRUCTS; s++) {
			struct hw_tlb *t = hw_mmu_struct(o->smp->cpu[cpu].mmu, (enum hw_struct)s);
			unsigned i;

			for (i = 0; t && i < t->nr_sets * t->ways; i++)
				if ((t->e[i].flags & HW_TLBE_VALID) &&
				    !(t->e[i].flags & HW_TLBE_GLOBAL) && t->e[i].asid == asid)
					t->e[i].flags |= HW_TLBE_POISON;
		}
	}
	if (chk_map_put(&c->asid_root, (uint64_t)asid + 1, root))
		o->oom = true;
	if (!root_has_asid(o, root, asid) || !hw_physmem_table(o->pm, root)) {
		if (grow_vec((void **)&c->pairs, &c->cap_pairs, c->nr_pairs + 1, sizeof(*c->pairs)))
			c->pairs[c->nr_pairs++] = (struct chk_pair){.root = root, .asid = asid};
		else
			o->oom = true;
	}
	c->has_ctx = true;
	c->root = root;
	c->asid = asid;
}

static void learn_asid(struct chk_oracle *o, uint64_t root, uint16_t asid)
{
	struct hw_table_page *t = hw_physmem_table(o->pm, root);

	if (!t || root_has_asid(o, root, asid))
		return;
	if (t->nr_asids < HW_ROOT_ASIDS)
		t->asids[t->nr_asids] = asid;
	t->nr_asids++;
}

/* Key of (page, ASID) in @va_done; @asid 0x10000 stands for "all ASIDs".
 * User addresses (below 2^48) are exact; others may share keys, which can
 * only make the check more lenient for kernel addresses. */
static uint64_t va_key(uint64_t va, uint32_t asid)
{
	return ((((va >> 12) & ((1ull << 46) - 1)) + 1) << 17) | asid;
}

static void max_put(struct chk_oracle *o, struct chk_map *m, uint64_t key, uint64_t t)
{
	uint64_t old = 0;

	if (chk_map_get(m, key, &old) && old >= t)
		return;
	if (chk_map_put(m, key, t))
		o->oom = true;
}

/* A completed @op of every address: its issue time + 1 into *@all (of
 * every ASID) or @by_asid (asid + 1 ->), keeping the latest.  False for
 * an operation by VA, which it leaves alone. */
static bool note_whole(struct chk_oracle *o, uint64_t *all, struct chk_map *by_asid,
		       const struct chk_op *op)
{
	uint64_t t = op->time + 1;

	if (op->va_lo != 0 || op->va_hi != UINT64_MAX)
		return false;
	if (op->all_asids)
		*all = *all > t ? *all : t;
	else
		max_put(o, by_asid, (uint64_t)op->asid + 1, t);
	return true;
}

/* Remember a completed broadcast for done_since(). */
static void note_done(struct chk_oracle *o, const struct chk_op *op)
{
	uint64_t t = op->time + 1, va;

	o->done_ring[o->nr_done++ % DONE_RING] = *op;
	if (note_whole(o, &o->all_done, &o->asid_done, op))
		return;
	/* By VA: each page, up to a bound (longer ranges stay in the ring). */
	if (op->va_hi - op->va_lo >= (512ull << 12))
		return;
	for (va = op->va_lo & ~0xfffull; va <= op->va_hi; va += 4096)
		max_put(o, &o->va_done, va_key(va, op->all_asids ? 0x10000 : op->asid), t);
}

/* Key of (the region a level-@level descriptor maps around @va, ASID) in
 * a cpu's @local_span, @level >= 1; @asid 0x10000 stands for "all ASIDs";
 * @walk: of the non-last-level TLBIs only.  Exact for VAs below 2^58. */
static uint64_t span_key(uint64_t va, unsigned level, uint32_t asid, bool walk)
{
	uint64_t region = (va >> hw_level_shift(level)) & ((1ull << 37) - 1);

	return (((region + 1) << 3 | (level - 1) << 1 | walk) << 17) | asid;
}

/* Remember a completed local TLBI of @c for local_done_since(). */
static void note_local_done(struct chk_oracle *o, struct chk_cpu *c, const struct chk_op *op)
{
	uint32_t asid = op->all_asids ? 0x10000 : op->asid;
	uint64_t t = op->time + 1;
	unsigned l;

	if (note_whole(o, &c->local_all, &c->local_asid, op))
		return;
	/* By VA: one page (op_scope_tlbi()), and every descriptor above it:
	 * a block's entry, and unless last level the walk-cache entries used
	 * to translate the VA (rule 2). */
	max_put(o, &c->local_va, va_key(op->va_lo, asid), t);
	for (l = 1; l < o->levels; l++) {
		max_put(o, &c->local_span, span_key(op->va_lo, l, asid, false), t);
		if (!op->last_level)
			max_put(o, &c->local_span, span_key(op->va_lo, l, asid, true), t);
	}
}

/* A completed operation, processed serially. */
static void op_completed(struct chk_oracle *o, const struct chk_op *op)
{
	uint32_t i;
	unsigned k;

	/* Kernel-level traces: the change is committed once an invalidation
	 * covering it completed (OS-level runs commit at syscall return
	 * anyway; this only comes earlier). */
	for (i = 0; i < o->nr_chg && o->live_chg; i++) {
		struct chk_change *c = &o->chg[i];

		if (c->live && op_covers(o, op, c->root, c->va, c->va + ((1ull << c->shift) - 1)))
			commit_change(o, c);
	}
	/* A completed broadcast covering a draining cpu's old ASID completes
	 * its walks too: completion means every access that used an old
	 * translation in scope has finished (rule 5). */
	if (op->broadcast)
		for (k = 0; k < o->nr_cpus; k++) {
			struct chk_cpu *c = &o->cpu[k];

			if (c->draining && op->time >= c->drain_time &&
			    (op->all_asids || op->asid == c->drain_asid))
				c->draining = false;
		}
	if (op->broadcast)
		note_done(o, op);
}

void chk_sync(struct chk_oracle *o)
{
	unsigned i, j;

	for (i = 0; i < o->nr_cpus; i++) {
		struct chk_cpu *c = &o->cpu[i];

		for (j = 0; j < c->nr_pairs; j++)
			learn_asid(o, c->pairs[j].root, c->pairs[j].asid);
		c->nr_pairs = 0;
	}
	for (i = 0; i < o->nr_cpus; i++) {
		struct chk_cpu *c = &o->cpu[i];

		for (j = 0; j < c->done.n; j++) {
			op_completed(o, &c->done.v[j]);
			if (o->isa == TLBSIM_ISA_ARM64 && !c->done.v[j].broadcast)
				note_local_done(o, c, &c->done.v[j]);
		}
		c->done.n = 0;
	}
}

/* ---- frames -------------------------------------------------------------- */

/* Is there a completed broadcast invalidation covering [lo, hi] of @root
 * issued at or after @since?  @walk: of table entries (a table
 * descriptor's break, a freed table), which last-level forms leave in the
 * walk caches (rule 2), so they do not count.  Whole-ASID and single-page
 * ones are indexed (whole-ASID ones are never last level); others are
 * looked for among the last DONE_RING completed. */
static bool done_since(const struct chk_oracle *o, uint64_t root, uint64_t lo, uint64_t hi,
		       uint64_t since, bool walk)
{
	const struct hw_table_page *t = hw_physmem_table(o->pm, root);
	uint64_t i, first = o->nr_done > DONE_RING ? o->nr_done - DONE_RING : 0, v;

	if (o->all_done > since)
		return true;
	if ((chk_map_get(&o->root_committed, root, &v) && v > since) ||
	    (hi - lo < 4096 && chk_map_get(&o->page_committed, commit_key(root, lo), &v) && v > since))
		return true;
	if (t && t->nr_asids <= HW_ROOT_ASIDS)
		for (i = 0; i < t->nr_asids; i++) {
			if (chk_map_get(&o->asid_done, (uint64_t)t->asids[i] + 1, &v) && v > since)
				return true;
			if (!walk && hi - lo < 4096 &&
			    chk_map_get(&o->va_done, va_key(lo, t->asids[i]), &v) && v > since)
				return true;
		}
	if (!walk && hi - lo < 4096 && chk_map_get(&o->va_done, va_key(lo, 0x10000), &v) &&
	    v > since)
		return true;
	for (i = first; i < o->nr_done; i++) {
		const struct chk_op *op = &o->done_ring[i % DONE_RING];

		if (op->time >= since && !(walk && op->last_level) &&
		    op_covers(o, op, root, lo, hi))
			return true;
	}
	return false;
}

/* Has cpu @c completed a local TLBI issued at or after @since that covers
 * the level-@level descriptor at @va of @root: for level 0 one of that
 * page, above it one of any address under the descriptor (rule 2), and
 * not a last-level one when @walk (a table descriptor)?  With the ASIDs of
 * @root unknown, only TLBIs of every ASID count. */
static bool local_done_since(const struct chk_oracle *o, const struct chk_cpu *c, uint64_t root,
			     uint64_t va, unsigned level, bool walk, uint64_t since)
{
	const struct hw_table_page *t = hw_physmem_table(o->pm, root);
	unsigned i, n = t && t->nr_asids <= HW_ROOT_ASIDS ? t->nr_asids : 0;
	uint64_t v;

	if (c->local_all > since)
		return true;
	for (i = 0; i <= n; i++) {
		uint32_t asid = i < n ? t->asids[i] : 0x10000;
		const struct chk_map *m = level ? &c->local_span : &c->local_va;
		uint64_t key = level ? span_key(va, level, asid, walk) : va_key(va, asid);

		if (i < n && chk_map_get(&c->local_asid, (uint64_t)asid + 1, &v) && v > since)
			return true;
		if (chk_map_get(m, key, &v) && v > since)
			return true;
	}
	return false;
}

/*
 * Break-before-make by IPIs (rule 10 with rule 4): no broadcast TLBI, but
 * every cpu that had loaded the address space of @root when the break was
 * made, at @since, completed its own local TLBI covering the level-@level
 * descriptor at @va after it (TLBI + DSB in an IPI handler: Linux
 * on_each_cpu() flushes, the flush-all policy).  A cpu that had not
 * loaded it holds none of its entries and reads the invalid descriptor
 * from then on (rule 1).  Vacuously true when no cpu loaded it.
 */
static bool loaders_flushed(const struct chk_oracle *o, uint64_t root, uint64_t va,
			    unsigned level, bool walk, uint64_t since)
{
	uint64_t first;
	unsigned i;

	for (i = 0; i < o->nr_cpus; i++) {
		const struct chk_cpu *c = &o->cpu[i];

		if (!chk_map_get(&c->loaded, root + 1, &first) || first - 1 > since)
			continue;
		if (!local_done_since(o, c, root, va, level, walk, since))
			return false;
	}
	return true;
}

/* Record the operations outstanding now, issued at or after @since, that
 * cover [lo, hi] of @root: the frame @pfn must not be reused before they
 * complete (unless one such operation already completed: then the frame's
 * maintenance is done, whatever else is in flight).  @walk: @pfn is a
 * table, which only non-last-level operations invalidate (rule 2; the
 * walk caches that last-level ones leave are scan_walk_caches()'s). */
static void pend_outstanding(struct chk_oracle *o, uint64_t pfn, uint64_t root, uint64_t lo,
			     uint64_t hi, uint64_t since, bool walk)
{
	struct chk_pend *p = NULL;
	bool told = false;
	uint64_t idx;
	unsigned i, j;

	if (done_since(o, root, lo, hi, since, walk))
		return;
	for (i = 0; i < o->nr_cpus; i++) {
		const struct chk_cpu *c = &o->cpu[i];

		for (j = 0; j < c->pending.n; j++) {
			const struct chk_op *op = &c->pending.v[j];

			if (op->time < since || !op->broadcast || (walk && op->last_level) ||
			    !op_covers(o, op, root, lo, hi))
				continue;
			if (op->invlpgb && !told) {
				/* The free itself is early: only a TLBSYNC on the
				 * issuing cpu completes an INVLPGB, and none has run
				 * there (a TLBSYNC after a migration, on another cpu,
				 * waits for nothing: Linux forbids the migration with
				 * cant_migrate()).  Reported now, and again at a reuse
				 * before completion. */
				report_serial(
				    o, CHK_INCOMPLETE_MAINT, i, o->serving, root, op->asid, lo, pfn,
				    "frame freed while the INVLPGB covering it has not been "
				    "completed by a TLBSYNC on the issuing cpu "
				    "(docs/hazard-rules.md rule 20)");
				told = true;
			}
			if (!p) {
				if (chk_map_get(&o->pend_by_pfn, pfn, &idx)) {
					p = &o->pend[idx - 1];
				} else {
					if (!grow_vec((void **)&o->pend, &o->cap_pend, o->nr_pend + 1,
						      sizeof(*o->pend))) {
						o->oom = true;
						return;
					}
					p = &o->pend[o->nr_pend++];
					*p = (struct chk_pend){.pfn = pfn};
					if (chk_map_put(&o->pend_by_pfn, pfn, o->nr_pend))
						o->oom = true;
				}
			}
			{
				struct chk_wait *w = realloc(p->w, (p->n + 1) * sizeof(*w));

				if (!w) {
					o->oom = true;
					return;
				}
				p->w = w;
				w[p->n++] = (struct chk_wait){.cpu = i, .seq = op->seq,
							      .invlpgb = op->invlpgb};
			}
		}
	}
}

/* Is the walk-cache entry @e of @cpu usable by a speculative walk? */
static bool pwc_in_scope(const struct chk_oracle *o, unsigned cpu, const struct hw_tlb_entry *e,
			 uint64_t root)
{
	uint64_t cur_root;
	uint16_t cur_asid;

	if (o->isa == TLBSIM_ISA_ARM64)
		return true; /* any ASID it holds (docs/hazard-rules.md rules 1 and 12) */
	/* x86: only with that CR3 still loaded, in its PCID (rule 19). */
	if (!hw_mmu_context(o->smp->cpu[cpu].mmu, &cur_root, &cur_asid))
		return false;
	return e->asid == cur_asid && (!root || cur_root == root);
}

/* Report every walk-cache path of any cpu into table frame @pfn filled
 * while it had generation @gen.  Returns the number found. */
static unsigned scan_walk_caches(struct chk_oracle *o, uint64_t pfn, uint32_t gen, uint64_t root,
				 unsigned kind, unsigned by, const char *why)
{
	unsigned i, s, found = 0;

	for (i = 0; i < o->nr_cpus; i++) {
		bool hit = false;
		uint64_t cur_root;
		uint16_t cur_asid;

		for (s = HW_PWC1; s < HW_NR_STRUCTS && !hit; s++) {
			struct hw_tlb *t = hw_mmu_struct(o->smp->cpu[i].mmu, (enum hw_struct)s);
			unsigned k;

			for (k = 0; t && k < t->nr_sets * t->ways; k++) {
				const struct hw_tlb_entry *e = &t->e[k];

				if (!(e->flags & HW_TLBE_VALID) || e->pfn != pfn || e->version != gen ||
				    !pwc_in_scope(o, i, e, root))
					continue;
				report_serial(o, kind, i, by, root, e->asid, e->vpn << e->size_shift,
					      pfn, why);
				hit = true;
				break;
			}
		}
		/* The root itself, still loaded. */
		if (!hit && hw_mmu_context(o->smp->cpu[i].mmu, &cur_root, &cur_asid) &&
		    cur_root == pfn) {
			report_serial(o, kind, i, by, pfn, cur_asid, 0, pfn, why);
			hit = true;
		}
		found += hit;
	}
	return found;
}

void chk_serve(struct chk_oracle *o, unsigned cpu)
{
	if (cpu < o->nr_cpus)
		o->serving = cpu;
}

/*
 * A table of @root covering [lo, hi] is freed by @by: a lockless software
 * walk (GUP-fast) of another cpu through that range still in progress at
 * @by's clock reads the frame as it is freed and reused -- like a hardware
 * walk in flight.  Only an IPI that the walker takes after its walk (irqs
 * off) or an RCU grace period (the irq-off walk is a read-side critical
 * section) orders the free after it; a broadcast TLBI does not interrupt
 * it (Linux mm/mmu_gather.c tlb_remove_table_sync_one(), mm/gup.c).
 */
static void check_sw_walks(struct chk_oracle *o, uint64_t pfn, uint64_t root, uint64_t lo,
			   uint64_t hi, unsigned by)
{
	uint64_t now = now_of(o, by);
	unsigned i;

	for (i = 0; i < o->nr_cpus; i++) {
		const struct chk_cpu *c = &o->cpu[i];

		if (i == by || !c->sw_until || c->sw_root != root || c->sw_from > now ||
		    now >= c->sw_until || c->sw_hi < lo || c->sw_lo > hi)
			continue;
		report_serial(o, CHK_WALK_FREED_TABLE, i, by, root, c->asid, c->sw_lo, pfn,
			      "a page-table frame freed while a lockless software walk (GUP-fast, "
			      "interrupts off) still reads it: the free must wait for it by an IPI "
			      "(tlb_remove_table_sync_one()) or an RCU grace period, a broadcast "
			      "TLBI does not (docs/scenarios.md, lockless walkers)");
	}
}

static void obs_sw_walk(void *ctx, unsigned cpu, uint64_t root, uint64_t va_lo, uint64_t va_hi,
			uint64_t from, uint64_t until)
{
	struct chk_cpu *c = &((struct chk_oracle *)ctx)->cpu[cpu];

	c->sw_root = root;
	c->sw_lo = va_lo;
	c->sw_hi = va_hi;
	c->sw_from = from;
	c->sw_until = until;
}

static void obs_frame_free(void *ctx, uint64_t pfn, unsigned kind, struct hw_table_page *t)
{
	struct chk_oracle *o = ctx;
	unsigned by = o->serving, i;

	chk_sync(o);
	if (kind == TLBSIM_FRAME_TABLE && t) {
		uint64_t root = t->placed ? t->root_pfn : 0;

		/* Its slots' break-before-make records die with it; a root,
		 * with the cpus that loaded it. */
		if (o->brk_by_slot.n)
			for (i = 0; i < TLBSIM_PTRS_PER_TABLE; i++)
				chk_map_del(&o->brk_by_slot, pfn << 9 | i);
		if (o->isa == TLBSIM_ISA_ARM64 && (!t->placed || t->root_pfn == pfn))
			for (i = 0; i < o->nr_cpus; i++)
				chk_map_del(&o->cpu[i].loaded, pfn + 1);
		uint32_t gen = tlbsim_physmem_generation(o->pm, pfn);

		if (t->placed && t->level_known) {
			uint64_t span = 1ull << hw_level_shift(t->level + 1);

			/* Leaves it still holds become changes (exit_mmap frees
			 * tables without clearing them). */
			for (i = 0; i < TLBSIM_PTRS_PER_TABLE; i++) {
				struct hw_pte d;

				hw_pte_decode(o->isa, t->level, t->raw[i], &d);
				if (d.present && d.leaf)
					add_change(o, root,
						   canonical(o, t->base_va + ((uint64_t)i << hw_level_shift(t->level))),
						   hw_level_shift(t->level), t->version[i], d.pfn,
						   now_of(o, by));
			}
			pend_outstanding(o, pfn, root, t->base_va, t->base_va + (span - 1),
					 t->unlinked_at ? t->unlinked_at - 1 : now_of(o, by), true);
		}
		if (scan_walk_caches(o, pfn, gen, root, CHK_WALK_FREED_TABLE, by,
				     "a walk cache still leads into this page-table frame when it "
				     "is freed: a speculative walk may read it (docs/hazard-rules.md rules "
				     "1, 12, 13, 19)")) {
			if (chk_map_put(&o->watch, pfn, gen) || chk_map_put(&o->watch_root, pfn, root))
				o->oom = true;
		}
		if (t->placed && t->level_known)
			check_sw_walks(o, pfn, root, t->base_va,
				       t->base_va + ((1ull << hw_level_shift(t->level + 1)) - 1),
				       by);
		for (i = 0; i < o->nr_cpus; i++) {
			struct chk_cpu *c = &o->cpu[i];

			if (c->draining && root && c->drain_root == root)
				report_serial(o, CHK_INCOMPLETE_MAINT, i, by, root, c->drain_asid,
					      t->placed ? t->base_va : 0, pfn,
					      "table freed while a cpu that switched away from this "
					      "address space (TTBR write + ISB) has not executed a "
					      "DSB: its walks may be in flight (docs/hazard-rules.md rule 5)");
		}
		return;
	}
	/* A data frame: translations of it, wherever they survive, are stale
	 * from now on. */
	{
		static const unsigned aligns[] = {0, 9, 18};
		unsigned a;

		for (a = 0; a < 3; a++) {
			uint64_t key = pfn & ~((1ull << aligns[a]) - 1), idx;

			if (a && key == (pfn & ~((1ull << aligns[a - 1]) - 1)))
				continue;
			if (!chk_map_get(&o->chg_by_pfn, key, &idx))
				continue;
			for (; idx != NONE; idx = o->chg[idx].next) {
				struct chk_change *c = &o->chg[idx];
				uint64_t frames = 1ull << (c->shift - TLBSIM_PAGE_SHIFT);

				if (!c->live || pfn < c->old_pfn || pfn >= c->old_pfn + frames)
					continue;
				pend_outstanding(o, pfn, c->root, c->va,
						 c->va + ((1ull << c->shift) - 1), c->time, false);
				commit_change(o, c);
			}
		}
	}
}

/* Is @c's outstanding TLBI @seq one a DSB completed under Arm erratum
 * 1286807, waiting for its repeat? */
static bool pending_weak(const struct chk_cpu *c, uint64_t seq)
{
	for (unsigned i = 0; i < c->pending.n; i++)
		if (c->pending.v[i].seq == seq)
			return c->pending.v[i].weak;
	return false;
}

static void obs_frame_alloc(void *ctx, uint64_t pfn, unsigned kind)
{
	struct chk_oracle *o = ctx;
	unsigned by = o->serving;
	uint64_t v, root = 0;

	chk_sync(o);
	if (chk_map_get(&o->watch, pfn, &v)) {
		(void)chk_map_get(&o->watch_root, pfn, &root);
		scan_walk_caches(o, pfn, (uint32_t)v, root, CHK_WALK_REUSED_TABLE, by,
				 kind == TLBSIM_FRAME_TABLE
					 ? "a walk cache still leads into a freed page-table frame "
					   "now reused as another table: a walk reads foreign "
					   "descriptors (docs/hazard-rules.md rules 1, 2, 12)"
					 : "a walk cache still leads into a freed page-table frame "
					   "now reused as data: a walk reads data as descriptors "
					   "(docs/hazard-rules.md rules 1, 12, 13)");
		chk_map_del(&o->watch, pfn);
		chk_map_del(&o->watch_root, pfn);
	}
	if (chk_map_get(&o->pend_by_pfn, pfn, &v)) {
		struct chk_pend *p = &o->pend[v - 1];
		unsigned i;

		for (i = 0; i < p->n; i++) {
			const struct chk_wait *w = &p->w[i];
			const struct chk_cpu *c = &o->cpu[w->cpu];
			bool done = w->invlpgb ? c->invlpgb_done_seq >= w->seq
					       : c->tlbi_done_seq >= w->seq;

			if (done)
				continue;
			report_serial(
			    o, CHK_INCOMPLETE_MAINT, w->cpu, by, 0, 0, 0, pfn,
			    w->invlpgb ? "frame reused before TLBSYNC on the issuing cpu "
					 "completed the INVLPGB covering it (docs/hazard-rules.md "
					 "rule 20)"
			    : pending_weak(c, w->seq)
				? "frame reused after TLBI + DSB without the repeated TLBI + "
				  "DSB that Arm erratum 1286807 needs: an access that used "
				  "the old translation may still be in flight (Linux "
				  "ARM64_WORKAROUND_REPEAT_TLBI; docs/hazard-rules.md rule 5)"
				: "frame reused before a DSB on the issuing cpu "
				  "completed the TLBI covering it (docs/hazard-rules.md rules 5 "
				  "and 12)");
			break; /* one report per reuse */
		}
		free(p->w);
		p->w = NULL;
		p->n = 0;
		chk_map_del(&o->pend_by_pfn, pfn);
		/* The slot stays; emptied pend records are reused only by
		 * compaction when all are empty. */
		if (o->pend_by_pfn.n == 0)
			o->nr_pend = 0;
	}
}

/* ---- descriptor writes --------------------------------------------------- */

void chk_table_new(struct chk_oracle *o, struct hw_table_page *t, unsigned level, bool is_root)
{
	if (!t)
		return;
	t->level = (uint8_t)level;
	t->level_known = 1;
	if (is_root) {
		t->placed = 1;
		t->base_va = 0;
		t->root_pfn = t->pfn;
	}
	(void)o;
}


/* Drop break records no slot refers to any more. */
static void compact_breaks(struct chk_oracle *o)
{
	struct chk_break *live = malloc((size_t)o->cap_brk * sizeof(*live));
	uint64_t i;
	uint32_t k = 0;

	if (!live)
		return; /* keep growing instead */
	for (i = 0; i < o->brk_by_slot.cap; i++) {
		if (!o->brk_by_slot.key[i])
			continue;
		live[k] = o->brk[o->brk_by_slot.val[i]];
		o->brk_by_slot.val[i] = k++;
	}
	free(o->brk);
	o->brk = live;
	o->nr_brk = k;
}

/*
 * From when may a TLBI complete the break @b?  Outside kernel mode, its
 * time (the OS model's policies order their PTE stores before their
 * TLBIs, as Linux's dsb(ishst) in __flush_tlb_range() does).  In kernel
 * mode, the first store-ordering DSB on the breaking cpu after it (rule
 * 6: a DMB orders nothing before a TLBI); UINT64_MAX if none came yet.
 * Beyond the last DSB_ST_RING DSBs the break's own time is kept.
 */
static uint64_t ordered_since(const struct chk_oracle *o, const struct chk_break *b)
{
	const struct chk_cpu *c = &o->cpu[b->cpu];
	uint64_t t;

	if (!b->kernel)
		return b->time;
	if (c->nr_dsb_st == b->dsb_mark)
		return UINT64_MAX;
	if (c->nr_dsb_st - b->dsb_mark > DSB_ST_RING)
		return b->time;
	/* A TLBI's time is taken after its issue cost is charged, so one
	 * issued before the DSB has a time <= the DSB's, one after it more. */
	t = c->dsb_st_time[b->dsb_mark % DSB_ST_RING] + 1;
	return t > b->time ? t : b->time;
}

void chk_store_dsb(struct chk_oracle *o, unsigned cpu)
{
	struct chk_cpu *c = &o->cpu[cpu];

	c->dsb_st_time[c->nr_dsb_st % DSB_ST_RING] = now_of(o, cpu);
	c->nr_dsb_st++;
}

static void check_bbm(struct chk_oracle *o, struct hw_table_page *t, unsigned index,
		      const struct hw_pte *old, const struct hw_pte *new, uint64_t va)
{
	uint64_t key = t->pfn << 9 | index, idx, last, since;
	unsigned by = o->serving;
	bool walk;

	if (old->present && new->present) {
		if (old->pfn != new->pfn || old->leaf != new->leaf)
			report_serial(o, CHK_BBM, by, by, t->root_pfn, 0, va, new->pfn,
				      "a valid descriptor replaced by another valid one with a "
				      "different output address or type, without break-before-make "
				      "(invalid, DSB, TLBI, DSB; docs/hazard-rules.md rule 10)");
		return;
	}
	if (old->present) {
		/* The break: remember it until the make. */
		if (o->nr_brk == o->cap_brk && o->brk_by_slot.n * 2 < o->nr_brk)
			compact_breaks(o);
		if (!grow_vec((void **)&o->brk, &o->cap_brk, o->nr_brk + 1, sizeof(*o->brk))) {
			o->oom = true;
			return;
		}
		o->brk[o->nr_brk] = (struct chk_break){.time = now_of(o, by), .old_pfn = old->pfn,
						       .old_leaf = old->leaf, .kernel = o->kernel_mode,
						       .cpu = by, .dsb_mark = o->cpu[by].nr_dsb_st};
		if (chk_map_put(&o->brk_by_slot, key, o->nr_brk))
			o->oom = true;
		o->nr_brk++;
		return;
	}
	if (!new->present || !chk_map_get(&o->brk_by_slot, key, &idx))
		return;
	chk_map_del(&o->brk_by_slot, key);
	if (o->brk_by_slot.n == 0)
		o->nr_brk = 0;
	if (o->brk[idx].old_pfn == new->pfn && o->brk[idx].old_leaf == new->leaf)
		return;
	/* Any VA under the descriptor: a by-VA TLBI removes the walk-cache
	 * entries used to translate it, but a last-level one only leaf and
	 * block entries, so it does not complete the break of a table
	 * descriptor (rule 2; Arm ARM D8.13, TLBI VALE1). */
	walk = !o->brk[idx].old_leaf;
	/* Local TLBIs completed in this serial step (an IPI-less local
	 * flush before the make) count too. */
	chk_sync(o);
	last = va + ((1ull << hw_level_shift(t->level)) - 1);
	since = ordered_since(o, &o->brk[idx]);
	if (done_since(o, t->root_pfn, va, last, since, walk) ||
	    loaders_flushed(o, t->root_pfn, va, t->level, walk, since))
		return;
	if (since != o->brk[idx].time &&
	    (done_since(o, t->root_pfn, va, last, o->brk[idx].time, walk) ||
	     loaders_flushed(o, t->root_pfn, va, t->level, walk, o->brk[idx].time))) {
		report_serial(o, CHK_BBM, by, by, t->root_pfn, 0, va, new->pfn,
			      "a descriptor made invalid and then valid with a different output "
			      "address, whose invalidating store no DSB on the writing cpu ordered "
			      "before the TLBI (none, or a DMB only): the TLBI may complete before "
			      "the invalid descriptor is visible, and a walk may cache the old one "
			      "again (break-before-make; docs/hazard-rules.md rules 6 and 10)");
		return;
	}
	report_serial(o, CHK_BBM, by, by, t->root_pfn, 0, va, new->pfn,
		      walk ? "a table descriptor made invalid and then valid with a different "
			     "output address, with no completed non-last-level TLBI covering it "
			     "in between (broadcast, or local on every cpu that had loaded the "
			     "address space): a last-level TLBI (VALE1, VAALE1) leaves the walk "
			     "caches (break-before-make; docs/hazard-rules.md rules 2, 4 and 10)"
			   : "a descriptor made invalid and then valid with a different output "
			     "address, with no completed broadcast TLBI covering it in between, "
			     "nor a completed local TLBI on every cpu that had loaded the address "
			     "space (break-before-make; docs/hazard-rules.md rules 4 and 10)");
}

void chk_set_kernel_mode(struct chk_oracle *o)
{
	o->kernel_mode = true;
}

void chk_store_barrier(struct chk_oracle *o, unsigned cpu)
{
	chk_map_clear(&o->cpu[cpu].unordered);
}

/* Does a cpu other than @by have the tree of @root loaded? */
static bool other_cpu_uses(const struct chk_oracle *o, unsigned by, uint64_t root)
{
	for (unsigned i = 0; i < o->nr_cpus; i++)
		if (i != by && o->cpu[i].has_ctx && o->cpu[i].root == root)
			return true;
	return false;
}

/*
 * Rule 8 (test 5, isla ROT.inv+po): a descriptor written valid into table
 * @t by the serving cpu; when it links a table the same cpu filled since
 * its last store barrier, while another cpu has the tree loaded, that
 * cpu's walk may follow the new link and read the table's old contents.
 * Kernel mode on Arm only (chk_set_kernel_mode()).
 */
static void check_publish(struct chk_oracle *o, const struct hw_table_page *t,
			  const struct hw_pte *new, uint64_t va)
{
	unsigned by = o->serving;
	struct chk_cpu *c = &o->cpu[by];
	uint64_t v;

	if (!o->kernel_mode || o->isa != TLBSIM_ISA_ARM64 || !new->present)
		return;
	if (!new->leaf && t->level >= 1 && t->placed &&
	    chk_map_get(&c->unordered, new->pfn + 1, &v) && other_cpu_uses(o, by, t->root_pfn))
		report_serial(o, CHK_UNORDERED_PUBLISH, by, by, t->root_pfn, 0, va, new->pfn,
			      "a table linked while entries its cpu wrote into it are not yet "
			      "ordered before the link (no DMB ST or DSB in between): another "
			      "cpu's walk may read its old contents (docs/hazard-rules.md rule 8)");
	if (chk_map_put(&c->unordered, t->pfn + 1, 1))
		o->oom = true;
}

static void obs_desc_write(void *ctx, struct hw_table_page *t, unsigned index, uint64_t old_raw,
			   uint64_t old_version, uint64_t new_raw)
{
	struct chk_oracle *o = ctx;
	struct hw_pte old, new;
	uint64_t va;

	if (!t->level_known)
		return;
	hw_pte_decode(o->isa, t->level, old_raw, &old);
	hw_pte_decode(o->isa, t->level, new_raw, &new);
	va = canonical(o, t->base_va + ((uint64_t)index << hw_level_shift(t->level)));
	check_publish(o, t, &new, va);
	if (new.present && !new.leaf && t->level >= 1) {
		struct hw_table_page *child = hw_physmem_table(o->pm, new.pfn);

		if (child) {
			child->level = (uint8_t)(t->level - 1);
			child->level_known = 1;
			if (t->placed) {
				child->placed = 1;
				child->base_va = va;
				child->root_pfn = t->root_pfn;
			}
		}
	}
	if (!t->placed)
		return;
	if (old.present && !old.leaf && (!new.present || new.leaf || new.pfn != old.pfn)) {
		struct hw_table_page *child = hw_physmem_table(o->pm, old.pfn);

		if (child)
			child->unlinked_at = now_of(o, o->serving) + 1;
	}
	if (old.present && old.leaf &&
	    (!new.present || !new.leaf || new.pfn != old.pfn ||
	     (old.prot & ~new.prot & (TLBSIM_PROT_READ | TLBSIM_PROT_WRITE | TLBSIM_PROT_EXEC))))
		add_change(o, t->root_pfn, va, hw_level_shift(t->level), old_version, old.pfn,
			   now_of(o, o->serving));
	if (o->isa == TLBSIM_ISA_ARM64)
		check_bbm(o, t, index, &old, &new, va);
}

/* ---- the MMU's report ---------------------------------------------------- */

static void obs_poisoned_use_local(void *ctx, unsigned cpu, const struct hw_tlb_entry *e,
				   uint64_t va, bool walk_cache)
{
	struct chk_oracle *o = ctx;
	struct chk_cpu *c = &o->cpu[cpu];
	struct chk_report rep = {
		.kind = CHK_STALE_USE, .cpu = cpu, .event = c->event, .time = now_of(o, cpu),
		.root = c->root, .mm = mm_of(o, c->root), .asid = e->asid, .va = va,
		.pfn = e->pfn + ((va & ((1ull << e->size_shift) - 1)) >> TLBSIM_PAGE_SHIFT),
		.why = walk_cache ? "a walk through a walk-cache entry of another address space "
				    "using the same ASID (docs/hazard-rules.md rule 9)"
				  : "an access through a translation older than a committed change "
				    "(its syscall returned, its invalidation completed) or than "
				    "the free of its frame"};

	report(o, &c->rep, &rep);
	/* One report per stale translation and cpu: unmark every copy. */
	if (walk_cache) {
		((struct hw_tlb_entry *)e)->flags &= ~HW_TLBE_POISON;
		return;
	}
	mark_cpu(o, cpu, va & ~((1ull << e->size_shift) - 1), e->size_shift, e->version, false);
}

static void obs_table_new(void *ctx, struct hw_table_page *t, unsigned level, bool is_root)
{
	chk_table_new(ctx, t, level, is_root);
}

static void obs_context_sync_local(void *ctx, unsigned cpu)
{
	chk_context_sync_local(ctx, cpu);
}

/* What the oracle hears from the hardware (hw/observe.h). */
static const struct hw_observer_ops chk_hw_ops = {
    .frame_alloc = obs_frame_alloc,
    .frame_free = obs_frame_free,
    .desc_write = obs_desc_write,
    .table_new = obs_table_new,
    .poisoned_use_local = obs_poisoned_use_local,
    .tlbi_local = obs_tlbi_local,
    .invlpgb_local = obs_invlpgb_local,
    .dsb_done_local = obs_dsb_done_local,
    .tlbsync_done_local = obs_tlbsync_done_local,
    .context_load_local = obs_context_load_local,
    .context_sync_local = obs_context_sync_local,
    .sw_walk = obs_sw_walk,
};
