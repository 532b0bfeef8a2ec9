/* SPDX-License-Identifier: MIT */
/*
 * The Arm VMSA memory model on litmus tests (docs/litmus.md): every
 * candidate execution of a test is built and checked against the axioms of
 * herd7's aarch64.cat for the VMSA subset (herdtools7 herd/libdir:
 * aarch64.cat, aarch64hwreqs.cat, aarch64bbm.cat, aarch64deps.cat); our
 * own implementation of those definitions, relation by relation.
 *
 * 1. Each thread is run symbolically: every load and every translation-
 *    table walk (herd's Imp TTD R) takes each value its location may hold
 *    (the values written anywhere, computed to a fixpoint), so a walk may
 *    see any descriptor not yet guaranteed visible to it (rule 8) and an
 *    old valid one stays usable (rule 1: TLB and walk-cache refills from
 *    any valid descriptor); a walk of an invalid or AF=0 descriptor
 *    faults, and the fault is an outcome (fault(P1:L0,x)).  Each thread
 *    run records its events, their dependencies (addr, data, ctrl and the
 *    CSEL "pick" forms) and its locally-ordered-before relation (lob:
 *    barriers by type, DSB-ob with the per-cpu FEAT_ETS2 clauses, IFB-ob
 *    for ISB and exception entry, dob, pob, aob, bob, lmws, tr-ib, ets-ob).
 * 2. Runs of all threads are combined with each reads-from and each
 *    coherence order; the internal visibility axioms prune (coRW1, coWW,
 *    coWR, atomic).
 * 3. Each completed TLBI (a DSB of the full type on its issuer: ISH or wider
 *    for the broadcast forms, rule 5) is ordered before or after each walk
 *    it covers, every way local-hw-reqs leaves open (herd's TLBI-after
 *    enumeration); an execution is consistent when for one of those
 *    choices ordered-before (hw-reqs | obs)+ is irreflexive.
 * 4. Consistent executions decide the verdict through the final
 *    condition, and raise Warning-BBM-expected when a valid descriptor is
 *    replaced by another valid one with a different output address without
 *    the break-before-make sequence (aarch64bbm.cat; rule 10).  The flag
 *    never decides the verdict.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/litmus.h"
#include "error_internal.h"
#include "hw/pte.h"
#include "tlbsim/check.h"
#include "tlbsim/event.h"
#include "tlbsim/mmu.h"

#define TEV 64		   /* events of one thread run */
#define MAXEV 256	   /* events of one candidate */
#define WORDS (MAXEV / 64) /* of a relation's row */
#define MAX_VALUES 24	   /* per location */
#define MAX_RUNS 200000	   /* runs of one thread */
#define DEFAULT_MAX_CANDIDATES 50000000ull

enum ek { EK_IW, EK_R, EK_W, EK_TTD, EK_FAULT, EK_DMB, EK_DSB, EK_ISB, EK_TLBI, EK_BCC };

/* An event of one thread run. */
struct tev {
	uint8_t kind, acq, rel, ftype, barrier, tlbi_is, tlbi_all, amo;
	int16_t loc, fva, tlbi_var, insn;
	int8_t tr, rmw, lmrs; /* local indices, -1 none */
	uint32_t seq;	      /* dynamic instruction number: po */
	struct lit_val val;
	uint64_t addr, data, ctrl, paddr, pdata, pctrl, cond, pcond;
};

/* One run of one thread, with its static relations. */
struct run {
	struct tev ev[TEV];
	int n;
	struct lit_val reg[32];
	uint64_t lhr[TEV];  /* local-hw-reqs, closed */
	uint64_t trob[TEV]; /* TLBI t -> DSB-ob | IFB-ob from t */
	uint64_t done_tlbi; /* TLBIs completed by a DSB on this thread */
};

struct runs {
	struct run *v;
	size_t n, cap;
};

struct valset {
	struct lit_val v[MAX_VALUES];
	int n;
};

struct model {
	const struct lit_test *t;
	bool ets2[LIT_MAX_THREADS];
	struct valset vs[2 * LIT_MAX_VARS];
	bool grew;	 /* a new value was written in this pass */
	bool collecting; /* fixpoint passes: only the writes matter */
	struct runs runs[LIT_MAX_THREADS];
	struct run cur; /* the run being built */
	int th;		/* its thread */
	int err_line;	/* an operation the model cannot compute */
	char err_msg[160];
	int rc;
	/* The candidate being checked. */
	const struct run *sel[LIT_MAX_THREADS];
	int n, base[LIT_MAX_THREADS + 1], nw;
	struct gev {
		uint8_t kind, acq, rel, ftype, amo, tlbi_is, tlbi_all;
		int8_t th;
		int16_t loc, fva, tlbi_var, insn;
		int tr, rmw, lmrs;
		uint32_t seq;
		struct lit_val val;
	} g[MAXEV];
	int rf[MAXEV];
	int co_rank[MAXEV]; /* position in its location's coherence order */
	int co_last[2 * LIT_MAX_VARS];
	int cands_of[MAXEV][MAXEV / 8]; /* rf candidates of each read, truncated */
	int nr_cands[MAXEV];
	int reads[MAXEV], nr_reads;
	int wloc[2 * LIT_MAX_VARS][MAXEV / 4], nr_wloc[2 * LIT_MAX_VARS];
	int co_order[2 * LIT_MAX_VARS][MAXEV / 4];
	uint64_t lhr[MAXEV][WORDS], base_ob[MAXEV][WORDS], ob[MAXEV][WORDS];
	uint64_t trob[MAXEV][WORDS];
	int pair_t[MAXEV * 4], pair_r[MAXEV * 4], pair_dir[MAXEV * 4], nr_pairs;
	int free_pair[MAXEV * 4], nr_free;
	/* Results. */
	uint64_t candidates, consistent, positive, negative, max_candidates, work;
	bool flagged, stopped;
};

/* ---- bit rows --------------------------------------------------------------- */

#define BIT(row, i) ((row)[(i) >> 6] >> ((i)&63) & 1)
#define SET(row, i) ((row)[(i) >> 6] |= 1ull << ((i)&63))

static int words(const struct model *m)
{
	return (m->n + 63) / 64;
}

/* Warshall's transitive closure of @r (n x n); true when acyclic. */
static bool close_acyclic(uint64_t (*r)[WORDS], int n, int w)
{
	int k, i, j;

	for (k = 0; k < n; k++)
		for (i = 0; i < n; i++)
			if (BIT(r[i], k))
				for (j = 0; j < w; j++)
					r[i][j] |= r[k][j];
	for (i = 0; i < n; i++)
		if (BIT(r[i], i))
			return false;
	return true;
}

static void close_local(uint64_t *r, int n)
{
	int k, i;

	for (k = 0; k < n; k++)
		for (i = 0; i < n; i++)
			if (r[i] >> k & 1)
				r[i] |= r[k];
}

/* ---- descriptors ------------------------------------------------------------- */

/*
 * The raw Arm descriptor of a litmus descriptor (Arm ARM D8.3, a page at
 * level 3): valid bit 0, bit 1 (page), AP[1] bit 6 (EL0 access), AP[2]
 * bit 7 (read-only: herd's db:0 without hardware dirty-bit management),
 * AF bit 10, DBM bit 51, the output address naming the variable's frame.
 * The walker's own decoder (hw/pte.c) then says whether it translates,
 * and with which rights: a faulting descriptor is never cached (rule 1).
 */
static uint64_t desc_raw(const struct lit_val *d)
{
	return (uint64_t)d->valid | 2ull | (uint64_t)d->el0 << 6 | (uint64_t)!d->db << 7 |
	       (uint64_t)d->af << 10 | (uint64_t)d->dbm << 51 | ((uint64_t)(d->sym + 1) << 12);
}

static void desc_decode(const struct lit_val *d, struct hw_pte *out)
{
	hw_pte_decode(TLBSIM_ISA_ARM64, 0, desc_raw(d), out);
}

/* Can a TLB hold it (herd TLBCacheableTTD: valid, AF set)? */
static bool cacheable(const struct lit_val *d)
{
	struct hw_pte pte;

	if (d->kind != LV_DESC)
		return false;
	desc_decode(d, &pte);
	return pte.present;
}

/* ---- values written (the fixpoint) ---------------------------------------------- */

static void add_value(struct model *m, int loc, const struct lit_val *v)
{
	struct valset *s = &m->vs[loc];
	int i;

	for (i = 0; i < s->n; i++)
		if (chk_lit_val_eq(&s->v[i], v))
			return;
	if (s->n == MAX_VALUES) {
		if (!m->rc) {
			m->rc = -TLBSIM_EBUSY;
			snprintf(m->err_msg, sizeof(m->err_msg),
				 "more than %d values may be written to one location", MAX_VALUES);
		}
		return;
	}
	s->v[s->n++] = *v;
	m->grew = true;
}

/* ---- running a thread ------------------------------------------------------------ */

struct rstate {
	struct lit_val v[32];
	uint64_t dep[32], pdep[32];
	struct lit_val fa, fb; /* CMP operands */
	uint64_t fdep, fpdep;
	bool has_flags;
	uint64_t ctrl, pctrl;
	bool handled; /* after a handled fault: herd re-runs in the handler's mode */
	uint32_t seq;
	int last_w[2 * LIT_MAX_VARS]; /* local index of the thread's last write, -1 */
};

static void run_from(struct model *m, struct rstate st, int pc);
static void finish_run(struct model *m, struct run *r, int th);

static int fail_op(struct model *m, const struct lit_insn *in, const char *what)
{
	if (!m->rc) {
		m->rc = -TLBSIM_ENOTSUP;
		m->err_line = in->line;
		snprintf(m->err_msg, sizeof(m->err_msg), "%s is not modelled", what);
	}
	return -1;
}

static struct tev *new_ev(struct model *m, struct rstate *st, int kind, const struct lit_insn *in)
{
	struct tev *e;

	if (m->cur.n == TEV) {
		fail_op(m, in, "a thread run of more than 64 events");
		return NULL;
	}
	e = &m->cur.ev[m->cur.n++];
	memset(e, 0, sizeof(*e));
	e->kind = (uint8_t)kind;
	e->loc = e->fva = e->tlbi_var = -1;
	e->tr = e->rmw = e->lmrs = -1;
	e->insn = (int16_t)(in - m->t->th[m->th].insn);
	e->seq = st->seq;
	e->ctrl = st->ctrl;
	e->pctrl = st->pctrl;
	return e;
}

static struct lit_val reg_val(const struct rstate *st, int r)
{
	if (r == LIT_REG_ZR)
		return (struct lit_val){.kind = LV_INT};
	return st->v[r];
}

static uint64_t reg_dep(const struct rstate *st, int r)
{
	return r == LIT_REG_ZR ? 0 : st->dep[r];
}

static uint64_t reg_pdep(const struct rstate *st, int r)
{
	return r == LIT_REG_ZR ? 0 : st->pdep[r];
}

static void set_reg(struct rstate *st, int r, struct lit_val v, uint64_t dep, uint64_t pdep)
{
	if (r == LIT_REG_ZR)
		return;
	st->v[r] = v;
	st->dep[r] = dep;
	st->pdep[r] = pdep | dep;
}

/* The end of a run: keep it (or, while collecting values, nothing more). */
static void run_end(struct model *m, const struct rstate *st)
{
	struct runs *rs = &m->runs[m->th];

	/* Thread runs count against the budget of candidates too. */
	if (++m->work > m->max_candidates && !m->rc) {
		m->rc = -TLBSIM_EBUSY;
		snprintf(m->err_msg, sizeof(m->err_msg), "more than %llu thread runs",
			 (unsigned long long)m->max_candidates);
	}
	if (m->collecting || m->rc)
		return;
	if (rs->n == MAX_RUNS) {
		m->rc = -TLBSIM_EBUSY;
		snprintf(m->err_msg, sizeof(m->err_msg), "thread P%d has more than %d runs", m->th,
			 MAX_RUNS);
		return;
	}
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? 2 * rs->cap : 16;
		struct run *v = realloc(rs->v, cap * sizeof(*v));

		if (!v) {
			m->rc = -TLBSIM_ENOMEM;
			return;
		}
		rs->v = v;
		rs->cap = cap;
	}
	memcpy(m->cur.reg, st->v, sizeof(m->cur.reg));
	rs->v[rs->n] = m->cur;
	finish_run(m, &rs->v[rs->n], m->th);
	rs->n++;
}

/* A fault of the access of @in (translated by local event @tr, -1: none). */
static void fault(struct model *m, struct rstate st, const struct lit_insn *in, int pc, int tr,
		  int va, int ftype)
{
	struct tev *f = new_ev(m, &st, EK_FAULT, in);

	if (!f)
		return;
	f->tr = (int8_t)tr;
	f->fva = (int16_t)va;
	f->ftype = (uint8_t)ftype;
	f->loc = -1;
	if (tr >= 0) {
		f->paddr = m->cur.ev[tr].paddr;
		f->addr = m->cur.ev[tr].addr;
	}
	st.seq++;
	switch (m->t->fault_mode) {
	case LF_FATAL: /* herd -variant fatal: the thread stops */
		run_end(m, &st);
		return;
	case LF_SKIP:
		run_from(m, st, pc + 1);
		return;
	case LF_HANDLED:
		/* The handler returns to the instruction; a second fault
		 * discards the execution (herd mem.ml add_fault). */
		if (st.handled)
			return;
		st.handled = true;
		run_from(m, st, pc);
		return;
	}
}

static void mem_op(struct model *m, struct rstate st, const struct lit_insn *in, int pc, int loc,
		   int ttd, uint64_t adep, uint64_t apdep);

/*
 * The memory part of instruction @in at @pc: translate the address in @rn
 * (+ @rm; a walk when it is a variable's VA, none for a PTE or PA), then
 * the access (mem_op) or the fault.
 */
static void access(struct model *m, struct rstate st, const struct lit_insn *in, int pc)
{
	struct lit_val a = reg_val(&st, in->rn);
	uint64_t adep = reg_dep(&st, in->rn), apdep = reg_pdep(&st, in->rn);
	bool write = in->op != LO_LDR;
	int n0 = m->cur.n, i;

	if (in->rm >= 0) {
		struct lit_val off = reg_val(&st, in->rm);

		if (off.kind != LV_INT || off.i)
			fail_op(m, in, "an access at an offset from a variable");
		adep |= reg_dep(&st, in->rm);
		apdep |= reg_pdep(&st, in->rm);
	}
	if (m->rc)
		return;
	if (a.kind == LV_PTE || a.kind == LV_PA) {
		int loc = a.kind == LV_PTE ? LIT_LOC_PTE(a.sym) : LIT_LOC_PA(a.sym);

		/* A non-virtual access from EL0 faults (herd mk_pte_fault). */
		if (m->t->th[m->th].el0 && !st.handled)
			fault(m, st, in, pc, -1, -1, LFT_PERMISSION);
		else
			mem_op(m, st, in, pc, loc, -1, adep, apdep);
		m->cur.n = n0;
		return;
	}
	if (a.kind != LV_VA) {
		fail_op(m, in, "an access to an address that is not a variable, a PTE or a PA");
		return;
	}
	/* The walk: herd's Imp TTD R of PTE(x), for each value it may read. */
	for (i = 0; i < m->vs[LIT_LOC_PTE(a.sym)].n && !m->rc; i++) {
		const struct lit_val *d = &m->vs[LIT_LOC_PTE(a.sym)].v[i];
		struct rstate st2 = st;
		struct hw_pte pte;
		struct tev *e;
		int ttd;

		m->cur.n = n0;
		e = new_ev(m, &st2, EK_TTD, in);
		if (!e)
			return;
		ttd = m->cur.n - 1;
		e->loc = (int16_t)LIT_LOC_PTE(a.sym);
		e->val = *d;
		e->addr = adep;
		e->paddr = apdep | adep;
		if (d->kind != LV_DESC) {
			fail_op(m, in, "a walk of a page-table entry that holds no descriptor");
			return;
		}
		desc_decode(d, &pte);
		/* herd check_ptw without TTHM: valid, then AF, then the rights (db
		 * for a write; el0 from EL0 outside a handler). */
		if (!pte.present)
			fault(m, st2, in, pc, ttd, a.sym,
			      !d->valid ? LFT_TRANSLATION : LFT_ACCESSFLAG);
		else if ((write && !(pte.prot & TLBSIM_PROT_WRITE)) ||
			 (m->t->th[m->th].el0 && !st2.handled && !(pte.prot & TLBSIM_PROT_USER)))
			fault(m, st2, in, pc, ttd, a.sym, LFT_PERMISSION);
		else
			mem_op(m, st2, in, pc, LIT_LOC_PA(d->sym), ttd, adep, apdep);
	}
	m->cur.n = n0;
}

/* The thread's last write to @loc, if no other came since (herd lmrs). */
static void link_lmrs(const struct rstate *st, struct tev *r, int loc, uint64_t *dep,
		      uint64_t *pdep, const struct run *cur)
{
	int w = st->last_w[loc];

	if (w < 0)
		return;
	r->lmrs = (int8_t)w;
	/* Dependencies flow through memory (herd dtrm includes lmrs): a
	 * write's address and data registers into the value read back. */
	*dep |= cur->ev[w].data | cur->ev[w].addr;
	*pdep |= cur->ev[w].pdata | cur->ev[w].paddr;
}

/* Load, store, SWP or CAS at location @loc (translated by @ttd). */
static void mem_op(struct model *m, struct rstate st, const struct lit_insn *in, int pc, int loc,
		   int ttd, uint64_t adep, uint64_t apdep)
{
	const struct valset *s = &m->vs[loc];
	int n0 = m->cur.n, i;

	if (in->op == LO_STR) {
		struct tev *w = new_ev(m, &st, EK_W, in);

		if (!w)
			return;
		w->loc = (int16_t)loc;
		w->val = reg_val(&st, in->rd);
		w->rel = in->rel;
		w->tr = (int8_t)ttd;
		w->addr = adep;
		w->paddr = apdep | adep;
		w->data = reg_dep(&st, in->rd);
		w->pdata = reg_pdep(&st, in->rd);
		if (m->collecting)
			add_value(m, loc, &w->val);
		st.last_w[loc] = m->cur.n - 1;
		st.seq++;
		run_from(m, st, pc + 1);
		m->cur.n = n0;
		return;
	}
	for (i = 0; i < s->n && !m->rc; i++) {
		struct rstate st2 = st;
		struct tev *r;
		uint64_t dep, pdep;
		int ri;

		m->cur.n = n0;
		r = new_ev(m, &st2, EK_R, in);
		if (!r)
			return;
		ri = m->cur.n - 1;
		r->loc = (int16_t)loc;
		r->val = s->v[i];
		r->acq = in->acq;
		r->tr = (int8_t)ttd;
		r->addr = adep;
		r->paddr = apdep | adep;
		r->amo = in->op != LO_LDR;
		dep = adep | 1ull << ri;
		pdep = apdep | dep;
		link_lmrs(&st2, r, loc, &dep, &pdep, &m->cur);
		if (in->op == LO_LDR) {
			set_reg(&st2, in->rd, r->val, dep, pdep);
		} else {
			/* SWP Rs, Rt: Rt <- old, write Rs; CAS Rs, Rt: write Rt when
			 * old == Rs, Rs <- old (a failed CAS writes nothing). */
			struct lit_val wv = reg_val(&st2, in->op == LO_SWP ? in->rd : in->rt);
			struct lit_val expect = reg_val(&st2, in->rd);
			int wr = in->op == LO_SWP ? in->rd : in->rt;
			bool do_write = in->op == LO_SWP || chk_lit_val_eq(&r->val, &expect);

			if (do_write) {
				struct tev *w = new_ev(m, &st2, EK_W, in);

				if (!w)
					return;
				r = &m->cur.ev[ri];
				w->loc = (int16_t)loc;
				w->val = wv;
				w->rel = in->rel;
				w->amo = 1;
				w->tr = (int8_t)ttd;
				w->addr = adep;
				w->paddr = apdep | adep;
				w->data = reg_dep(&st2, wr);
				w->pdata = reg_pdep(&st2, wr);
				w->rmw = (int8_t)ri;
				r->rmw = (int8_t)(m->cur.n - 1);
				if (m->collecting)
					add_value(m, loc, &wv);
				st2.last_w[loc] = m->cur.n - 1;
			}
			set_reg(&st2, in->op == LO_SWP ? in->rt : in->rd, r->val, dep, pdep);
		}
		st2.seq++;
		run_from(m, st2, pc + 1);
	}
	m->cur.n = n0;
}

static bool is_zero(const struct lit_val *v)
{
	return v->kind == LV_INT && v->i == 0;
}

/* Does the condition hold on the CMP operands?  -1: not computable. */
static int cond_holds(const struct rstate *st, int cond)
{
	if (!st->has_flags)
		return -1;
	if (cond == LC_EQ || cond == LC_NE)
		return chk_lit_val_eq(&st->fa, &st->fb) == (cond == LC_EQ);
	if (st->fa.kind != LV_INT || st->fb.kind != LV_INT)
		return -1;
	switch (cond) {
	case LC_GT:
		return st->fa.i > st->fb.i;
	case LC_GE:
		return st->fa.i >= st->fb.i;
	case LC_LT:
		return st->fa.i < st->fb.i;
	default:
		return st->fa.i <= st->fb.i;
	}
}

/* cond_holds() for @in, an error of the test when it cannot say. */
static int flags_hold(struct model *m, const struct lit_insn *in, const struct rstate *st)
{
	int c = cond_holds(st, in->cond);

	if (c < 0)
		fail_op(m, in,
			"a condition on flags no CMP set, or an ordered compare of addresses");
	return c;
}

static int alu(struct model *m, const struct lit_insn *in, const struct rstate *st,
	       struct lit_val *out)
{
	struct lit_val a = reg_val(st, in->rn);
	struct lit_val b =
	    in->has_imm ? (struct lit_val){.kind = LV_INT, .i = in->imm} : reg_val(st, in->rm);

	*out = (struct lit_val){.kind = LV_INT};
	/* EOR Rd, Rn, Rn: 0 whatever Rn holds (herd's false dependency). */
	if (in->alu == LA_EOR && !in->has_imm && in->rn == in->rm)
		return 0;
	if (a.kind == LV_INT && b.kind == LV_INT) {
		uint64_t x = (uint64_t)a.i, y = (uint64_t)b.i, r = 0;

		switch (in->alu) {
		case LA_ADD:
			r = x + y;
			break;
		case LA_SUB:
			r = x - y;
			break;
		case LA_AND:
			r = x & y;
			break;
		case LA_ORR:
			r = x | y;
			break;
		case LA_EOR:
			r = x ^ y;
			break;
		case LA_BIC:
			r = x & ~y;
			break;
		case LA_LSR:
			r = y < 64 ? x >> y : 0;
			break;
		case LA_LSL:
			r = y < 64 ? x << y : 0;
			break;
		}
		if (!in->wide)
			r &= 0xffffffffu;
		out->i = (int64_t)r;
		return 0;
	}
	/* A symbol plus or minus 0, or ORed with 0, is itself. */
	if ((in->alu == LA_ADD || in->alu == LA_SUB || in->alu == LA_ORR || in->alu == LA_EOR) &&
	    is_zero(&b)) {
		*out = a;
		return 0;
	}
	if ((in->alu == LA_ADD || in->alu == LA_ORR || in->alu == LA_EOR) && is_zero(&a)) {
		*out = b;
		return 0;
	}
	/* The page number of a VA: a TLBI's operand (herd TLB(x)). */
	if (in->alu == LA_LSR && a.kind == LV_VA && b.kind == LV_INT && b.i == 12) {
		*out = (struct lit_val){.kind = LV_PAGE, .sym = a.sym};
		return 0;
	}
	if (in->alu == LA_LSR && a.kind == LV_PTE && b.kind == LV_INT && b.i == 12) {
		/* The page of a page-table entry: covers no translation. */
		*out = (struct lit_val){.kind = LV_INT, .i = -1 - a.sym};
		return 0;
	}
	return fail_op(m, in, "this arithmetic on an address or a descriptor");
}

static void branch(struct model *m, struct rstate st, const struct lit_insn *in, int pc, int taken,
		   uint64_t dep, uint64_t pdep)
{
	struct tev *b = new_ev(m, &st, EK_BCC, in);

	if (!b)
		return;
	b->cond = dep;
	b->pcond = pdep | dep;
	st.ctrl |= dep;
	st.pctrl |= pdep | dep;
	st.seq++;
	run_from(m, st, taken ? in->target : pc + 1);
}

static void run_from(struct model *m, struct rstate st, int pc)
{
	const struct lit_thread *th = &m->t->th[m->th];
	int n0 = m->cur.n;

	while (!m->rc && pc < th->n) {
		const struct lit_insn *in = &th->insn[pc];
		struct tev *e;
		struct lit_val v;

		switch (in->op) {
		case LO_LDR:
		case LO_STR:
		case LO_SWP:
		case LO_CAS:
			access(m, st, in, pc);
			m->cur.n = n0;
			return;
		case LO_MOV:
			if (in->has_imm)
				set_reg(&st, in->rd, (struct lit_val){.kind = LV_INT, .i = in->imm},
					0, 0);
			else
				set_reg(&st, in->rd, reg_val(&st, in->rm), reg_dep(&st, in->rm),
					reg_pdep(&st, in->rm));
			break;
		case LO_ALU:
			if (alu(m, in, &st, &v))
				return;
			set_reg(&st, in->rd, v,
				reg_dep(&st, in->rn) | (in->has_imm ? 0 : reg_dep(&st, in->rm)),
				reg_pdep(&st, in->rn) | (in->has_imm ? 0 : reg_pdep(&st, in->rm)));
			break;
		case LO_CMP:
			st.fa = reg_val(&st, in->rn);
			st.fb = in->has_imm ? (struct lit_val){.kind = LV_INT, .i = in->imm}
					    : reg_val(&st, in->rm);
			st.fdep = reg_dep(&st, in->rn) | (in->has_imm ? 0 : reg_dep(&st, in->rm));
			st.fpdep = reg_pdep(&st, in->rn) |
				   (in->has_imm ? 0 : reg_pdep(&st, in->rm)) | st.fdep;
			st.has_flags = true;
			break;
		case LO_CSEL: {
			int c = flags_hold(m, in, &st);

			if (c < 0)
				return;
			/* The flags select (herd: a control input, a "pick"
			 * dependency); the value chosen flows as data. */
			if (in->csinc)
				set_reg(&st, in->rd, (struct lit_val){.kind = LV_INT, .i = c}, 0,
					st.fpdep);
			else {
				int src = c ? in->rn : in->rm;

				set_reg(&st, in->rd, reg_val(&st, src), reg_dep(&st, src),
					reg_pdep(&st, src) | st.fpdep);
			}
			break;
		}
		case LO_CBZ: {
			struct lit_val r = reg_val(&st, in->rn);
			bool zero = is_zero(&r);

			if (r.kind == LV_DESC) {
				fail_op(m, in, "a branch on a descriptor value");
				return;
			}
			branch(m, st, in, pc, in->cbnz ? !zero : zero, reg_dep(&st, in->rn),
			       reg_pdep(&st, in->rn));
			m->cur.n = n0;
			return;
		}
		case LO_BCOND: {
			int c = flags_hold(m, in, &st);

			if (c < 0)
				return;
			branch(m, st, in, pc, c, st.fdep, st.fpdep);
			m->cur.n = n0;
			return;
		}
		case LO_B:
			pc = in->target;
			st.seq++;
			continue;
		case LO_DMB:
		case LO_DSB:
		case LO_ISB:
			e = new_ev(m, &st,
				   in->op == LO_DMB   ? EK_DMB
				   : in->op == LO_DSB ? EK_DSB
						      : EK_ISB,
				   in);
			if (!e)
				return;
			e->barrier = in->barrier;
			break;
		case LO_TLBI:
			e = new_ev(m, &st, EK_TLBI, in);
			if (!e)
				return;
			e->tlbi_is = in->tlbi_is;
			e->tlbi_all = in->tlbi_op == TLBSIM_TLBI_VMALLE1;
			if (in->rn >= 0) {
				struct lit_val op = reg_val(&st, in->rn);

				/* The operand's page; anything else (a PTE's page, a
				 * number) covers no translation of the test. */
				e->tlbi_var = op.kind == LV_PAGE ? op.sym : -1;
				e->addr = reg_dep(&st, in->rn);
				e->paddr = reg_pdep(&st, in->rn) | e->addr;
			}
			break;
		case LO_NOP:
			break;
		}
		st.seq++;
		pc++;
	}
	if (!m->rc)
		run_end(m, &st);
	m->cur.n = n0;
}

/* Run thread @th from its initial registers. */
static void run_thread(struct model *m, int th)
{
	struct rstate st;
	int r;

	memset(&st, 0, sizeof(st));
	for (r = 0; r < 32; r++)
		st.v[r] = m->t->th[th].reg[r];
	for (r = 0; r < 2 * LIT_MAX_VARS; r++)
		st.last_w[r] = -1;
	m->th = th;
	m->cur.n = 0;
	run_from(m, st, 0);
}

/* ---- a run's static relations ---------------------------------------------------- */

/* Bits of the run's events of @kind. */
static uint64_t kind_mask(const struct run *r, int kind)
{
	uint64_t s = 0;
	int i;

	for (i = 0; i < r->n; i++)
		if (r->ev[i].kind == kind)
			s |= 1ull << i;
	return s;
}

static void add_edges(uint64_t *rel, uint64_t src, uint64_t dst)
{
	while (src) {
		int a = __builtin_ctzll(src);

		src &= src - 1;
		rel[a] |= dst;
	}
}

/*
 * local-hw-reqs of aarch64hwreqs.cat on one run: lob (intr-ob, ets-ob,
 * DSB-ob, IFB-ob, lmws, dob, pob, aob, bob) closed, with pick-lob.  Also
 * each TLBI's DSB-ob | IFB-ob successors (for TLBI-ob) and which TLBIs a
 * DSB completes.
 */
static void finish_run(struct model *m, struct run *r, int th)
{
	const struct tev *e = r->ev;
	int n = r->n, i, j;
	uint64_t all = n == 64 ? ~0ull : (1ull << n) - 1;
	uint64_t exp_r = kind_mask(r, EK_R), exp_w = kind_mask(r, EK_W), exp_m = exp_r | exp_w;
	uint64_t ttd = kind_mask(r, EK_TTD), flt = kind_mask(r, EK_FAULT),
		 tlbi = kind_mask(r, EK_TLBI);
	uint64_t ifb = kind_mask(r, EK_ISB) | flt; /* exception entry is context synchronising */
	uint64_t before[TEV], after[TEV], dsbob[TEV] = {0}, ifbob[TEV] = {0}, lob[TEV] = {0};
	uint64_t acq = 0, acq_a = 0, tlbi_is = 0, uflt = 0;
	bool ets2 = m->ets2[th];

	for (i = 0; i < n; i++) {
		before[i] = after[i] = 0;
		for (j = 0; j < n; j++) {
			if (e[j].seq < e[i].seq)
				before[i] |= 1ull << j;
			else if (e[j].seq > e[i].seq)
				after[i] |= 1ull << j;
		}
		if (e[i].kind == EK_R && e[i].acq)
			acq |= 1ull << i;
		if (e[i].kind == EK_R && e[i].acq == 'A')
			acq_a |= 1ull << i;
		if (e[i].kind == EK_TLBI && e[i].tlbi_is)
			tlbi_is |= 1ull << i;
		if (e[i].kind == EK_FAULT &&
		    (e[i].ftype == LFT_TRANSLATION || e[i].ftype == LFT_ACCESSFLAG))
			uflt |= 1ull << i;
	}
	r->done_tlbi = 0;
	for (i = 0; i < n; i++) {
		unsigned opt = e[i].barrier & 3, dom = e[i].barrier >> 2;
		uint64_t src, dst;

		if (e[i].kind == EK_DSB) {
			/* DSB-ob; with FEAT_ETS2 the DSB also orders later walks. */
			src = before[i] & (opt == 3   ? exp_m | ttd | tlbi
					   : opt == 1 ? exp_r
						      : exp_w);
			/* A DSB NSH completes no broadcast TLBI (Arm ARM C6.2 DSB;
			 * rule 5); herd counts NSH as a full DSB, no catalogue test
			 * uses it. */
			if (dom == 1)
				src &= ~tlbi_is;
			dst = after[i] & (ets2 ? all : all & ~ttd);
			add_edges(dsbob, src, dst);
			if (opt == 3)
				r->done_tlbi |= before[i] & tlbi & (dom == 1 ? ~tlbi_is : ~0ull);
		} else if (e[i].kind == EK_DMB) {
			/* bob: DMB full, LD, ST (herd ignores a DMB's domain). */
			src = before[i] & (opt == 3 ? exp_m : opt == 1 ? exp_r : exp_w);
			dst = after[i] & (opt == 2 ? exp_w | flt : exp_m | flt);
			add_edges(lob, src, dst);
		}
	}
	for (i = 0; i < n; i++) {
		uint64_t src = 0;

		if (!(ifb >> i & 1))
			continue;
		/* IFB-ob: what a context-synchronising event orders after it. */
		src |= exp_r & (e[i].ctrl | e[i].pctrl);
		for (j = 0; j < n; j++) {
			if ((exp_m >> j & 1) && (before[i] >> j & 1)) {
				src |= exp_r & e[j].paddr;
				if (e[j].tr >= 0)
					src |= 1ull << e[j].tr;
			}
			if (dsbob[j] >> i & 1)
				src |= 1ull << j;
		}
		if (e[i].kind == EK_FAULT && e[i].tr >= 0)
			src |= (exp_r & e[e[i].tr].paddr) | 1ull << e[i].tr;
		add_edges(ifbob, src, after[i]);
	}
	for (i = 0; i < n; i++) {
		uint64_t bit = 1ull << i;

		lob[i] |= dsbob[i] | ifbob[i];
		/* dob and pob (pick forms include the plain ones). */
		if (e[i].kind == EK_R || e[i].kind == EK_W || e[i].kind == EK_TTD ||
		    e[i].kind == EK_TLBI)
			add_edges(lob, exp_r & e[i].addr, bit);
		if (e[i].kind == EK_W || e[i].kind == EK_TLBI)
			add_edges(lob, exp_r & (e[i].paddr | e[i].pctrl | e[i].ctrl | e[i].pdata),
				  bit);
		if (exp_m >> i & 1) {
			add_edges(lob, exp_r & e[i].paddr, after[i] & exp_w);
			if (e[i].tr >= 0)
				lob[e[i].tr] |= after[i] & exp_w;
		}
		if (e[i].kind == EK_R && e[i].lmrs >= 0) {
			const struct tev *w = &e[e[i].lmrs];

			add_edges(lob, exp_r & (w->addr | w->data), bit);
			/* aob: an RMW's write read back by an acquire. */
			if (w->rmw >= 0 && (acq >> i & 1))
				lob[w->rmw] |= bit;
		}
		if (e[i].kind == EK_R && e[i].rmw >= 0)
			lob[i] |= 1ull << e[i].rmw;
		/* bob: acquire, release, AL atomics. */
		if (acq >> i & 1)
			lob[i] |= after[i] & (exp_m | flt);
		if (e[i].kind == EK_W && e[i].rel) {
			add_edges(lob, before[i] & exp_m, bit);
			lob[i] |= after[i] & acq_a;
			if (e[i].rmw >= 0 && e[e[i].rmw].acq == 'A')
				lob[i] |= after[i] & (exp_m | flt);
		}
		/* lmws: to a later write of the same location. */
		if (e[i].kind == EK_W)
			for (j = 0; j < n; j++)
				if ((before[i] >> j & 1) && ((exp_m | ttd) >> j & 1) &&
				    e[j].loc == e[i].loc)
					lob[j] |= bit;
		/* tr-ib, and ets-ob with ETS2. */
		if (e[i].tr >= 0 && e[i].kind != EK_TTD)
			lob[e[i].tr] |= bit;
		if (ets2 && (uflt >> i & 1) && e[i].tr >= 0)
			add_edges(lob, before[i] & exp_m, 1ull << e[i].tr);
	}
	close_local(lob, n);
	/* pick-lob: pick-dep; lob; [Exp W]. */
	memcpy(r->lhr, lob, sizeof(r->lhr));
	for (i = 0; i < n; i++) {
		uint64_t picks = exp_r & (e[i].paddr | e[i].pdata | e[i].pctrl | e[i].pcond);

		for (j = 0; j < n; j++)
			if ((picks >> j & 1) && e[j].seq != e[i].seq)
				r->lhr[j] |= lob[i] & exp_w;
	}
	close_local(r->lhr, n);
	for (i = 0; i < n; i++)
		r->trob[i] = (tlbi >> i & 1) ? dsbob[i] | ifbob[i] : 0;
}

/* ---- candidates -------------------------------------------------------------------- */

static bool is_exp(const struct gev *g)
{
	return g->kind == EK_R || g->kind == EK_W;
}

static bool is_write(const struct gev *g)
{
	return g->kind == EK_W || g->kind == EK_IW;
}

/* Does w2 come after the write read by @r in coherence (r fr w2)? */
static bool fr(const struct model *m, int r, int w2)
{
	return m->g[w2].loc == m->g[r].loc && is_write(&m->g[w2]) &&
	       m->co_rank[w2] > m->co_rank[m->rf[r]];
}

/* a ca b (coherence-after: fr | co) for a memory event @a and write @b. */
static bool ca(const struct model *m, int a, int b)
{
	if (m->g[a].loc != m->g[b].loc || !is_write(&m->g[b]) || a == b)
		return false;
	if (is_write(&m->g[a]))
		return m->co_rank[a] < m->co_rank[b];
	return fr(m, a, b);
}

static int fault_of(const struct model *m, int ttd)
{
	int i;

	for (i = ttd + 1; i < m->n && m->g[i].th == m->g[ttd].th; i++)
		if (m->g[i].kind == EK_FAULT && m->g[i].tr == ttd)
			return i;
	return -1;
}

/* The internal visibility and atomicity axioms (aarch64.cat). */
static bool internal_ok(const struct model *m)
{
	int i, j;

	for (i = 0; i < m->n; i++) {
		const struct gev *a = &m->g[i];

		if (a->kind == EK_R) {
			const struct gev *w = &m->g[m->rf[i]];

			/* coRW1-Exp: no read from a po-later write or its own RMW's. */
			if (w->th == a->th && w->kind == EK_W &&
			    (w->seq > a->seq || a->rmw == m->rf[i]))
				return false;
			/* atomic: nothing between an RMW's read and write. */
			if (a->rmw >= 0 && m->co_rank[a->rmw] != m->co_rank[m->rf[i]] + 1)
				return false;
		}
		if (!is_exp(a))
			continue;
		for (j = 0; j < m->n; j++) {
			const struct gev *b = &m->g[j];

			if (b->th != a->th || b->loc != a->loc || b->seq <= a->seq || !is_exp(b) ||
			    a->kind != EK_W)
				continue;
			/* coWW-Exp, coWR-Exp. */
			if (b->kind == EK_W && m->co_rank[j] < m->co_rank[i])
				return false;
			if (b->kind == EK_R && fr(m, j, i))
				return false;
		}
	}
	return true;
}

/* The final condition on this execution. */
static bool eval(const struct model *m, int node)
{
	const struct lit_cond *c = &m->t->cond[node];
	int i;

	switch (c->kind) {
	case LCN_TRUE:
		return true;
	case LCN_FALSE:
		return false;
	case LCN_NOT:
		return !eval(m, c->a);
	case LCN_AND:
		return eval(m, c->a) && eval(m, c->b);
	case LCN_OR:
		return eval(m, c->a) || eval(m, c->b);
	case LCN_REG:
		return chk_lit_val_eq(&m->sel[c->thread]->reg[c->reg], &c->val);
	case LCN_MEM:
		return chk_lit_val_eq(&m->g[m->co_last[c->loc]].val, &c->val);
	case LCN_FAULT:
		for (i = m->base[c->thread]; i < m->base[c->thread + 1]; i++) {
			const struct gev *f = &m->g[i];

			if (f->kind == EK_FAULT && (c->label < 0 || f->insn == c->label) &&
			    (c->loc < 0 || f->fva == c->loc) &&
			    (c->ftype == LFT_ANY || f->ftype == c->ftype))
				return true;
		}
		return false;
	}
	return false;
}

/* Same output address (herd same-oa) of two descriptors. */
static bool same_oa(const struct lit_val *a, const struct lit_val *b)
{
	return a->kind == LV_DESC && b->kind == LV_DESC && a->sym == b->sym;
}

static const struct lit_val *desc_of(const struct model *m, int i)
{
	return &m->g[i].val;
}

/* Some write to PA(@a) differs in value from some write to PA(@b). */
static bool contents_mismatch(const struct model *m, const struct lit_val *a,
			      const struct lit_val *b)
{
	int la = LIT_LOC_PA(a->sym), lb = LIT_LOC_PA(b->sym), i, j;

	for (i = 0; i < m->nr_wloc[la]; i++)
		for (j = 0; j < m->nr_wloc[lb]; j++)
			if (!chk_lit_val_eq(&m->g[m->wloc[la][i]].val, &m->g[m->wloc[lb][j]].val))
				return true;
	return false;
}

static bool writable(const struct lit_val *d)
{
	struct hw_pte pte;

	desc_decode(d, &pte);
	return pte.present && (pte.prot & TLBSIM_PROT_WRITE);
}

static bool in_scope(const struct gev *t, const struct gev *e)
{
	return e->loc >= 0 && (e->loc & 1) && (t->tlbi_all || t->tlbi_var == e->loc / 2);
}

/*
 * Warning-BBM-expected (aarch64bbm.cat): a pair m1 ca w2 of TLB-cacheable
 * descriptors with different output addresses (and one writable, or the
 * pages' contents differing) not covered by BBM = [cacheable]; ca;
 * [uncacheable]; ob; [TLBI]; ob & inv-scope; [cacheable].
 */
static bool bbm_flag(const struct model *m)
{
	int a, b, u, t;

	for (b = 0; b < m->n; b++) {
		const struct gev *w2 = &m->g[b];

		if (w2->kind != EK_W || !(w2->loc & 1) || !cacheable(desc_of(m, b)))
			continue;
		for (a = 0; a < m->n; a++) {
			const struct gev *m1 = &m->g[a];
			bool covered = false;

			if (m1->loc != w2->loc || m1->kind == EK_FAULT ||
			    !cacheable(desc_of(m, a)) || !ca(m, a, b) ||
			    same_oa(desc_of(m, a), desc_of(m, b)))
				continue;
			if (!writable(desc_of(m, a)) && !writable(desc_of(m, b)) &&
			    !contents_mismatch(m, desc_of(m, a), desc_of(m, b)))
				continue;
			for (u = 0; u < m->n && !covered; u++) {
				if (m->g[u].loc != w2->loc || cacheable(desc_of(m, u)) ||
				    !ca(m, a, u))
					continue;
				for (t = 0; t < m->n && !covered; t++)
					covered = m->g[t].kind == EK_TLBI && BIT(m->ob[u], t) &&
						  BIT(m->ob[t], b) && in_scope(&m->g[t], w2);
			}
			if (!covered)
				return true;
		}
	}
	return false;
}

/* Add the edges of TLBI-after orientation @mask (free pairs) to m->ob. */
static void tlbi_edges(struct model *m, uint64_t mask)
{
	int p, w = words(m), i, j;

	for (p = 0; p < m->nr_pairs; p++) {
		int t = m->pair_t[p], r = m->pair_r[p], dir = m->pair_dir[p];

		if (dir < 0) {
			int k;

			for (k = 0; k < m->nr_free && m->free_pair[k] != p; k++)
				;
			dir = (int)(mask >> k & 1);
		}
		if (dir == 0) {
			/* The walk is before the TLBI: TTD-read-ordered-before, and
			 * the TLBI-ob forms through the walk's access. */
			for (j = 0; j < w; j++)
				m->ob[r][j] |= m->trob[t][j];
			for (i = 0; i < m->n; i++) {
				const struct gev *a = &m->g[i];

				if (a->tr == r && a->kind != EK_TTD) {
					for (j = m->base[0]; j < m->n; j++)
						if (m->g[j].th != a->th && BIT(m->trob[t], j))
							SET(m->ob[i], j);
				}
				/* A po-earlier access of the same thread, its walk. */
				if (is_exp(a) && a->tr >= 0 && a->th == m->g[r].th) {
					int k;

					for (k = 0; k < m->n; k++)
						if (m->g[k].tr == r && is_exp(&m->g[k]) &&
						    m->g[k].seq > a->seq)
							break;
					if (k == m->n)
						continue;
					for (j = m->base[0]; j < m->n; j++)
						if (m->g[j].th != m->g[a->tr].th &&
						    BIT(m->trob[t], j))
							SET(m->ob[a->tr], j);
				}
			}
		} else {
			/* The walk is after the TLBI: TLBI-ca. */
			for (j = 0; j < m->n; j++)
				if (ca(m, r, j))
					SET(m->ob[t], j);
		}
	}
}

/* One candidate with rf and co chosen. */
static void check_exec(struct model *m)
{
	int w = words(m), i, j, r;
	uint64_t mask, nr_masks;
	bool consistent = false;

	m->candidates++;
	if (m->candidates > m->max_candidates) {
		m->rc = -TLBSIM_EBUSY;
		snprintf(m->err_msg, sizeof(m->err_msg), "more than %llu candidate executions",
			 (unsigned long long)m->max_candidates);
		m->stopped = true;
		return;
	}
	if (!internal_ok(m))
		return;
	memcpy(m->base_ob, m->lhr, sizeof(m->base_ob));
	for (r = 0; r < m->n; r++) {
		const struct gev *rd = &m->g[r];
		int src;

		if (rd->kind != EK_R && rd->kind != EK_TTD)
			continue;
		src = m->rf[r];
		/* rf; [Imp TTD] and Exp-obs rf & ext. */
		if (rd->kind == EK_TTD || (is_exp(&m->g[src]) && m->g[src].th != rd->th))
			SET(m->base_ob[src], r);
		{
			int f = rd->kind == EK_TTD ? fault_of(m, r) : -1;
			bool uncacheable = f >= 0 && (m->g[f].ftype == LFT_TRANSLATION ||
						      m->g[f].ftype == LFT_ACCESSFLAG);

			for (j = 0; j < m->n; j++) {
				const struct gev *b = &m->g[j];

				if (b->kind != EK_W || !fr(m, r, j))
					continue;
				/* Exp-obs ca & ext; TLBuncacheable-ca. */
				if ((rd->kind == EK_R && b->th != rd->th) || uncacheable)
					SET(m->base_ob[r], j);
				/* Exp-haz-ob: an earlier read of the location. */
				if (rd->kind == EK_R && b->th != rd->th)
					for (i = m->base[rd->th]; i < r; i++)
						if (m->g[i].kind == EK_R &&
						    m->g[i].loc == rd->loc && m->g[i].seq < rd->seq)
							SET(m->base_ob[i], j);
			}
		}
	}
	for (i = 0; i < m->n; i++)
		for (j = 0; j < m->n; j++)
			if (m->g[i].kind == EK_W && m->g[j].kind == EK_W &&
			    m->g[i].th != m->g[j].th && ca(m, i, j))
				SET(m->base_ob[i], j);
	/* Edges only get added: a cycle now is a cycle for every choice. */
	memcpy(m->ob, m->base_ob, sizeof(m->ob));
	if (!close_acyclic(m->ob, m->n, w))
		return;
	nr_masks = 1ull << m->nr_free;
	for (mask = 0; mask < nr_masks; mask++) {
		/* Each TLBI placement is a candidate of its own for the budget. */
		if (mask && ++m->candidates > m->max_candidates) {
			m->rc = -TLBSIM_EBUSY;
			snprintf(m->err_msg, sizeof(m->err_msg),
				 "more than %llu candidate executions",
				 (unsigned long long)m->max_candidates);
			m->stopped = true;
			return;
		}
		memcpy(m->ob, m->base_ob, sizeof(m->ob));
		tlbi_edges(m, mask);
		if (!close_acyclic(m->ob, m->n, w))
			continue;
		if (!consistent) {
			consistent = true;
			m->consistent++;
			if (eval(m, m->t->root))
				m->positive++;
			else
				m->negative++;
		}
		if (m->flagged || (m->flagged = bbm_flag(m)))
			break;
	}
	/* Nothing can change the verdict or the flag any more. */
	if (m->flagged && m->positive && (m->t->quant != LQ_FORALL || m->negative))
		m->stopped = true;
}

/* Coherence orders of locations @loc.. (permutations of their writes). */
static void choose_co(struct model *m, int loc)
{
	int k, i;

	while (loc < 2 * m->t->nr_vars && m->nr_wloc[loc] <= 2)
		loc++;
	if (loc == 2 * m->t->nr_vars) {
		for (i = 0; i < 2 * m->t->nr_vars; i++)
			m->co_last[i] = m->nr_wloc[i] == 2 ? m->wloc[i][1] : m->co_last[i];
		check_exec(m);
		return;
	}
	/* Heap-free: generate permutations of wloc[loc][1..] by swapping. */
	{
		int n = m->nr_wloc[loc] - 1, *a = &m->wloc[loc][1], c[MAXEV / 4] = {0};

		for (i = 0; i < n; i++)
			m->co_rank[a[i]] = i + 1;
		m->co_last[loc] = a[n - 1];
		choose_co(m, loc + 1);
		i = 1;
		while (i < n && !m->stopped) {
			if (c[i] < i) {
				int x = i % 2 ? c[i] : 0, tmp = a[x];

				a[x] = a[i];
				a[i] = tmp;
				for (k = 0; k < n; k++)
					m->co_rank[a[k]] = k + 1;
				m->co_last[loc] = a[n - 1];
				choose_co(m, loc + 1);
				c[i]++;
				i = 1;
			} else {
				c[i] = 0;
				i++;
			}
		}
	}
}

static void choose_rf(struct model *m, int k)
{
	int i;

	if (k == m->nr_reads) {
		choose_co(m, 0);
		return;
	}
	for (i = 0; i < m->nr_cands[k] && !m->stopped; i++) {
		m->rf[m->reads[k]] = m->cands_of[k][i];
		choose_rf(m, k + 1);
	}
}

/* The runs chosen for every thread: build the candidate's events. */
static void check_combo(struct model *m)
{
	const struct lit_test *t = m->t;
	int nloc = 2 * t->nr_vars, th, i, j;

	m->n = 0;
	for (i = 0; i < nloc; i++) {
		struct gev *g = &m->g[m->n++];

		memset(g, 0, sizeof(*g));
		g->kind = EK_IW;
		g->th = -1;
		g->loc = (int16_t)i;
		g->val = t->init[i];
		g->tr = g->rmw = g->lmrs = -1;
		m->co_rank[i] = 0;
		m->co_last[i] = i;
	}
	for (th = 0; th < t->nr_threads; th++) {
		const struct run *r = m->sel[th];

		m->base[th] = m->n;
		if (m->n + r->n > MAXEV) {
			m->rc = -TLBSIM_EBUSY;
			snprintf(m->err_msg, sizeof(m->err_msg), "more than %d events", MAXEV);
			m->stopped = true;
			return;
		}
		for (i = 0; i < r->n; i++) {
			const struct tev *e = &r->ev[i];
			struct gev *g = &m->g[m->n + i];

			g->kind = e->kind;
			g->acq = e->acq;
			g->rel = e->rel;
			g->ftype = e->ftype;
			g->amo = e->amo;
			g->tlbi_is = e->tlbi_is;
			g->tlbi_all = e->tlbi_all;
			g->th = (int8_t)th;
			g->loc = e->loc;
			g->fva = e->fva;
			g->tlbi_var = e->tlbi_var;
			g->insn = e->insn;
			g->tr = e->tr >= 0 ? m->n + e->tr : -1;
			g->rmw = e->rmw >= 0 ? m->n + e->rmw : -1;
			g->lmrs = e->lmrs >= 0 ? m->n + e->lmrs : -1;
			g->seq = e->seq;
			g->val = e->val;
		}
		m->n += r->n;
	}
	m->base[t->nr_threads] = m->n;
	/* Writes per location (the initial one first), reads' candidates. */
	for (i = 0; i < nloc; i++) {
		m->nr_wloc[i] = 1;
		m->wloc[i][0] = i;
	}
	for (i = nloc; i < m->n; i++)
		if (m->g[i].kind == EK_W) {
			int l = m->g[i].loc;

			if (m->nr_wloc[l] == MAXEV / 4) {
				m->rc = -TLBSIM_EBUSY;
				m->stopped = true;
				return;
			}
			m->wloc[l][m->nr_wloc[l]++] = i;
			m->co_rank[i] = m->nr_wloc[l] - 1;
		}
	m->nr_reads = 0;
	for (i = nloc; i < m->n; i++) {
		int l = m->g[i].loc, k = m->nr_reads;

		if (m->g[i].kind != EK_R && m->g[i].kind != EK_TTD)
			continue;
		m->nr_cands[k] = 0;
		for (j = 0; j < m->nr_wloc[l]; j++) {
			int w = m->wloc[l][j];

			if (w != m->g[i].rmw && chk_lit_val_eq(&m->g[w].val, &m->g[i].val) &&
			    m->nr_cands[k] < MAXEV / 8)
				m->cands_of[k][m->nr_cands[k]++] = w;
		}
		if (!m->nr_cands[k])
			return; /* a value nobody writes here */
		m->reads[m->nr_reads++] = i;
	}
	/* local-hw-reqs and the TLBIs' successors, from the runs. */
	memset(m->lhr, 0, sizeof(m->lhr));
	memset(m->trob, 0, sizeof(m->trob));
	for (th = 0; th < t->nr_threads; th++) {
		const struct run *r = m->sel[th];
		int b = m->base[th];

		for (i = 0; i < r->n; i++)
			for (j = 0; j < r->n; j++) {
				if (r->lhr[i] >> j & 1)
					SET(m->lhr[b + i], b + j);
				if (r->trob[i] >> j & 1)
					SET(m->trob[b + i], b + j);
			}
	}
	/* TLBI-after pairs: completed TLBIs and the walks in their scope (a
	 * local TLBI: its own cpu's walks only); local-hw-reqs fixes some. */
	m->nr_pairs = m->nr_free = 0;
	for (i = nloc; i < m->n; i++) {
		const struct gev *tl = &m->g[i];

		if (tl->kind != EK_TLBI ||
		    !(m->sel[tl->th]->done_tlbi >> (i - m->base[tl->th]) & 1))
			continue;
		for (j = nloc; j < m->n; j++) {
			const struct gev *rd = &m->g[j];
			int p = m->nr_pairs;

			if (rd->kind != EK_TTD || !in_scope(tl, rd) ||
			    (!tl->tlbi_is && rd->th != tl->th))
				continue;
			if (p == MAXEV * 4)
				continue;
			m->pair_t[p] = i;
			m->pair_r[p] = j;
			m->pair_dir[p] = BIT(m->lhr[i], j) ? 1 : BIT(m->lhr[j], i) ? 0 : -1;
			if (m->pair_dir[p] < 0) {
				if (m->nr_free == 20) {
					m->rc = -TLBSIM_EBUSY;
					snprintf(m->err_msg, sizeof(m->err_msg),
						 "more than 20 TLBI/walk pairs to order");
					m->stopped = true;
					return;
				}
				m->free_pair[m->nr_free++] = p;
			}
			m->nr_pairs++;
		}
	}
	choose_rf(m, 0);
}

static void choose_runs(struct model *m, int th)
{
	size_t i;

	if (th == m->t->nr_threads) {
		check_combo(m);
		return;
	}
	for (i = 0; i < m->runs[th].n && !m->stopped; i++) {
		m->sel[th] = &m->runs[th].v[i];
		choose_runs(m, th + 1);
	}
}

int chk_lit_check(const struct lit_test *t, const struct tlbsim_litmus_opts *opts,
		  struct tlbsim_litmus_result *res, struct tlbsim_error *err)
{
	const char *path = t->path;
	struct model *m = calloc(1, sizeof(*m));
	int rc = 0, th, loc, pass;

	memset(res, 0, sizeof(*res));
	if (!m)
		return -TLBSIM_ENOMEM;
	snprintf(res->name, sizeof(res->name), "%s", t->name);
	m->t = t;
	m->max_candidates =
	    opts && opts->max_candidates ? opts->max_candidates : DEFAULT_MAX_CANDIDATES;
	for (th = 0; th < t->nr_threads; th++)
		m->ets2[th] = opts && opts->ets2 && tlbsim_cpumask_test(opts->ets2, (unsigned)th);
	/* The values each location may hold: the initial one, then whatever
	 * some run of some thread writes, to a fixpoint. */
	for (loc = 0; loc < 2 * t->nr_vars; loc++) {
		m->vs[loc].n = 1;
		m->vs[loc].v[0] = t->init[loc];
	}
	m->collecting = true;
	for (pass = 0; pass < 16; pass++) {
		m->grew = false;
		for (th = 0; th < t->nr_threads && !m->rc; th++)
			run_thread(m, th);
		if (!m->grew || m->rc)
			break;
	}
	m->collecting = false;
	for (th = 0; th < t->nr_threads && !m->rc; th++)
		run_thread(m, th);
	if (!m->rc)
		choose_runs(m, 0);
	if (m->rc) {
		rc = m->err_line
			 ? err_set(err, m->rc, path, m->err_line, -1, -1, NULL, "%s", m->err_msg)
			 : err_set(err, m->rc, path, -1, -1, -1, NULL, "%s%s",
				   m->rc == -TLBSIM_EBUSY ? "the exploration is too large: " : "",
				   m->err_msg[0] ? m->err_msg : "out of memory");
		goto out;
	}
	res->candidates = m->candidates;
	res->consistent = m->consistent;
	res->positive = m->positive;
	res->complete = !m->stopped;
	res->bbm_warning = m->flagged;
	if (t->quant == LQ_FORALL && m->positive && !m->negative)
		snprintf(res->verdict, sizeof(res->verdict), "Required");
	else
		snprintf(res->verdict, sizeof(res->verdict), "%s",
			 m->positive ? "Allowed" : "Forbidden");
out:
	for (th = 0; th < LIT_MAX_THREADS; th++)
		free(m->runs[th].v);
	free(m);
	return rc;
}

int tlbsim_litmus_check(const char *path, const struct tlbsim_litmus_opts *opts,
			struct tlbsim_litmus_result *res, struct tlbsim_error *err)
{
	struct lit_test *t;
	int rc;

	if (!path || !res)
		return -TLBSIM_EINVAL;
	memset(res, 0, sizeof(*res));
	t = malloc(sizeof(*t));
	if (!t)
		return -TLBSIM_ENOMEM;
	rc = chk_lit_parse(path, t, err);
	if (!rc)
		rc = chk_lit_check(t, opts, res, err);
	free(t);
	return rc;
}
