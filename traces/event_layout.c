/* SPDX-License-Identifier: MIT */
/*
 * The layout table of every event kind and the validator: the single place
 * that says which fields a kind has, in which order they are written, their
 * ranges and names, and the cross-field rules of include/tlbsim/event.h.
 * Sources of the rules: Linux mm/ (syscalls), Intel SDM vol. 2 (INVLPG,
 * INVPCID), AMD APM vol. 3 (INVLPGB), Arm ARM C5.5 and C6.2 (TLBI, DSB).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "event_layout.h"

static const struct trace_name compute_unit_names[] = {
    {TLBSIM_COMPUTE_CYCLES, "cycles"},
    {TLBSIM_COMPUTE_INSNS, "insns"},
    {0, NULL},
};

static const struct trace_name mmap_flag_names[] = {
    {TLBSIM_MAP_SHARED, "shared"},   {TLBSIM_MAP_PRIVATE, "private"},
    {TLBSIM_MAP_ANON, "anon"},	     {TLBSIM_MAP_FIXED, "fixed"},
    {TLBSIM_MAP_HUGETLB, "hugetlb"}, {TLBSIM_MAP_HUGETLB_1G, "hugetlb1g"},
    {TLBSIM_MAP_THP, "thp"},	     {0, NULL},
};

static const struct trace_name madvise_names[] = {
    {TLBSIM_MADV_DONTNEED, "dontneed"},
    {TLBSIM_MADV_FREE, "free"},
    {0, NULL},
};

static const struct trace_name mremap_flag_names[] = {
    {TLBSIM_MREMAP_MAYMOVE, "maymove"},
    {TLBSIM_MREMAP_FIXED, "fixed"},
    {TLBSIM_MREMAP_DONTUNMAP, "dontunmap"},
    {0, NULL},
};

static const struct trace_name invlpgb_flag_names[] = {
    {TLBSIM_INVLPGB_VA, "va"},
    {TLBSIM_INVLPGB_PCID, "pcid"},
    {TLBSIM_INVLPGB_ASID, "asid"},
    {TLBSIM_INVLPGB_INCLUDE_GLOBAL, "global"},
    {TLBSIM_INVLPGB_FINAL_ONLY, "final_only"},
    {TLBSIM_INVLPGB_INCLUDE_NESTED, "nested"},
    {0, NULL},
};

const struct trace_name trace_tlbi_op_names[] = {
    {TLBSIM_TLBI_VAE1, "vae1"},
    {TLBSIM_TLBI_VALE1, "vale1"},
    {TLBSIM_TLBI_VAAE1, "vaae1"},
    {TLBSIM_TLBI_VAALE1, "vaale1"},
    {TLBSIM_TLBI_ASIDE1, "aside1"},
    {TLBSIM_TLBI_VMALLE1, "vmalle1"},
    {TLBSIM_TLBI_ALLE1, "alle1"},
    {TLBSIM_TLBI_VMALLS12E1, "vmalls12e1"},
    {TLBSIM_TLBI_IPAS2E1, "ipas2e1"},
    {TLBSIM_TLBI_IPAS2LE1, "ipas2le1"},
    {TLBSIM_TLBI_ALLE2, "alle2"},
    {TLBSIM_TLBI_VAE2, "vae2"},
    {TLBSIM_TLBI_VALE2, "vale2"},
    {TLBSIM_TLBI_ALLE3, "alle3"},
    {TLBSIM_TLBI_VAE3, "vae3"},
    {TLBSIM_TLBI_VALE3, "vale3"},
    {0, NULL},
};

const struct trace_name trace_tlbi_range_op_names[] = {
    {TLBSIM_TLBI_RVAE1, "rvae1"},
    {TLBSIM_TLBI_RVALE1, "rvale1"},
    {TLBSIM_TLBI_RVAAE1, "rvaae1"},
    {TLBSIM_TLBI_RVAALE1, "rvaale1"},
    {0, NULL},
};

static const struct trace_name sysreg_names[] = {
    {TLBSIM_SYSREG_TCR_EL1, "tcr_el1"}, {TLBSIM_SYSREG_SCTLR_EL1, "sctlr_el1"},
    {TLBSIM_SYSREG_MAIR_EL1, "mair_el1"}, {TLBSIM_SYSREG_CR4, "cr4"},
    {TLBSIM_SYSREG_CR0, "cr0"},	      {0, NULL},
};

static const struct trace_name dc_op_names[] = {
    {TLBSIM_DC_IVAC, "ivac"},	{TLBSIM_DC_ISW, "isw"},	  {TLBSIM_DC_CSW, "csw"},
    {TLBSIM_DC_CISW, "cisw"},	{TLBSIM_DC_ZVA, "zva"},	  {TLBSIM_DC_CVAC, "cvac"},
    {TLBSIM_DC_CVAU, "cvau"},	{TLBSIM_DC_CIVAC, "civac"}, {TLBSIM_DC_CVAP, "cvap"},
    {TLBSIM_DC_CVADP, "cvadp"}, {0, NULL},
};

static const struct trace_name tlbi_flag_names[] = {
    {TLBSIM_TLBI_IS, "is"},
    {TLBSIM_TLBI_OS, "os"},
    {TLBSIM_TLBI_NXS, "nxs"},
    {0, NULL},
};

static const struct trace_name dsb_names[] = {
    {TLBSIM_DSB_SY, "sy"},
    {TLBSIM_DSB_ST, "st"},
    {TLBSIM_DSB_LD, "ld"},
    {TLBSIM_DSB_ISH, "ish"},
    {TLBSIM_DSB_ISHST, "ishst"},
    {TLBSIM_DSB_ISHLD, "ishld"},
    {TLBSIM_DSB_NSH, "nsh"},
    {TLBSIM_DSB_NSHST, "nshst"},
    {TLBSIM_DSB_NSHLD, "nshld"},
    {TLBSIM_DSB_OSH, "osh"},
    {TLBSIM_DSB_OSHST, "oshst"},
    {TLBSIM_DSB_OSHLD, "oshld"},
    {0, NULL},
};

static const struct trace_name ttbr_names[] = {
    {0, "ttbr0"},
    {1, "ttbr1"},
    {0, NULL},
};

#define MEMBER_SIZE(m) sizeof(((struct tlbsim_event *)0)->m)
/* A positional field, and an optional one (see struct trace_field). */
#define POS(nm, ty, m, mn, mx, nms)                                                                \
	{                                                                                          \
		.name = nm, .type = ty, .size = MEMBER_SIZE(m),                                    \
		.offset = offsetof(struct tlbsim_event, m), .min = mn, .max = mx, .names = nms     \
	}
#define OPT(nm, ty, m, mx, nms)                                                                    \
	{                                                                                          \
		.name = nm, .type = ty, .size = MEMBER_SIZE(m),                                    \
		.offset = offsetof(struct tlbsim_event, m), .optional = 1, .max = mx, .names = nms \
	}
#define KIND(k, w, n, ...)                                                                         \
	[TLBSIM_EV_##k] = {.name = kind_name_##k, .who = w, .nr_fields = n, .fields = {__VA_ARGS__}}

/* kind_name_LOAD = "load", ...: the names of TLBSIM_EVENT_KINDS, for KIND(). */
#define KIND_NAME(k, val, text) static const char kind_name_##k[] = text;
TLBSIM_EVENT_KINDS(KIND_NAME)
#undef KIND_NAME

/* Largest PCID (12 bits, Intel SDM vol. 3 4.10.1) and INVLPGB page count (ECX[15:0] + 1). */
#define PCID_MAX 4095
/* Largest cpu number an AFFINITY names: machines have 4096 cores at most
 * (models/README.md). */
#define CPU_MAX 4095
#define INVLPGB_NR_PAGES_MAX 65536

const struct trace_kind trace_kinds[TLBSIM_EV_NR_KINDS] = {
    KIND(LOAD, WHO_THREAD, 2, POS("va", TF_VA, access.va, 0, 0, NULL),
	 POS("size", TF_DEC, access.size, 1, 0, NULL)),
    KIND(STORE, WHO_THREAD, 2, POS("va", TF_VA, access.va, 0, 0, NULL),
	 POS("size", TF_DEC, access.size, 1, 0, NULL)),
    KIND(FETCH, WHO_THREAD, 2, POS("va", TF_VA, access.va, 0, 0, NULL),
	 POS("size", TF_DEC, access.size, 1, 0, NULL)),
    KIND(COMPUTE, WHO_THREAD, 2, POS("count", TF_DEC, compute.count, 0, 0, NULL),
	 POS("unit", TF_ENUM, compute.unit, 0, 0, compute_unit_names)),
    KIND(PROC_CREATE, WHO_ANY, 2, POS("pid", TF_DEC, proc_create.pid, 1, 0, NULL),
	 POS("tid", TF_DEC, proc_create.tid, 1, 0, NULL)),
    KIND(THREAD_CREATE, WHO_THREAD, 1, POS("tid", TF_DEC, thread_create.tid, 1, 0, NULL)),
    KIND(FORK, WHO_THREAD, 2, POS("pid", TF_DEC, fork.pid, 1, 0, NULL),
	 POS("tid", TF_DEC, fork.tid, 1, 0, NULL)),
    KIND(EXIT, WHO_THREAD, 0),
    KIND(SWITCH, WHO_BOTH, 0),
    KIND(SLEEP, WHO_THREAD, 0),
    KIND(WAKE, WHO_THREAD, 1, POS("tid", TF_DEC, wake.tid, 1, 0, NULL)),
    KIND(YIELD, WHO_THREAD, 0),
    KIND(MMAP, WHO_THREAD, 4, POS("addr", TF_VA, mmap.addr, 0, 0, NULL),
	 POS("len", TF_HEX, mmap.len, 1, 0, NULL), POS("prot", TF_PROT, mmap.prot, 0, 0, NULL),
	 POS("flags", TF_FLAGS, mmap.flags, 0, 0, mmap_flag_names)),
    KIND(MUNMAP, WHO_THREAD, 2, POS("addr", TF_VA, munmap.addr, 0, 0, NULL),
	 POS("len", TF_HEX, munmap.len, 1, 0, NULL)),
    KIND(MPROTECT, WHO_THREAD, 3, POS("addr", TF_VA, mprotect.addr, 0, 0, NULL),
	 POS("len", TF_HEX, mprotect.len, 0, 0, NULL),
	 POS("prot", TF_PROT, mprotect.prot, 0, 0, NULL)),
    KIND(MADVISE, WHO_THREAD, 3, POS("addr", TF_VA, madvise.addr, 0, 0, NULL),
	 POS("len", TF_HEX, madvise.len, 0, 0, NULL),
	 POS("advice", TF_ENUM, madvise.advice, 0, 0, madvise_names)),
    KIND(MREMAP, WHO_THREAD, 5, POS("old_addr", TF_VA, mremap.old_addr, 0, 0, NULL),
	 POS("old_len", TF_HEX, mremap.old_len, 0, 0, NULL),
	 POS("new_len", TF_HEX, mremap.new_len, 1, 0, NULL),
	 POS("new_addr", TF_VA, mremap.new_addr, 0, 0, NULL),
	 OPT("flags", TF_FLAGS, mremap.flags, 0, mremap_flag_names)),
    KIND(BRK, WHO_THREAD, 1, POS("end", TF_VA, brk.end, 0, 0, NULL)),
    KIND(INVLPG, WHO_CPU, 1, POS("va", TF_VA, invlpg.va, 0, 0, NULL)),
    KIND(INVPCID, WHO_CPU, 3, POS("type", TF_DEC, invpcid.type, 0, 3, NULL),
	 OPT("pcid", TF_DEC, invpcid.pcid, PCID_MAX, NULL), OPT("va", TF_VA, invpcid.va, 0, NULL)),
    KIND(INVLPGB, WHO_CPU, 6, POS("va", TF_VA, invlpgb.va, 0, 0, NULL),
	 POS("nr_pages", TF_DEC, invlpgb.nr_pages, 1, INVLPGB_NR_PAGES_MAX, NULL),
	 POS("stride_shift", TF_DEC, invlpgb.stride_shift, 12, 21, NULL),
	 OPT("pcid", TF_DEC, invlpgb.pcid, PCID_MAX, NULL),
	 OPT("asid", TF_DEC, invlpgb.asid, 0, NULL),
	 OPT("flags", TF_FLAGS, invlpgb.flags, 0, invlpgb_flag_names)),
    KIND(TLBSYNC, WHO_CPU, 0),
    KIND(TLBI, WHO_CPU, 5,
	 POS("op", TF_TLBI_OP, tlbi.op, 0, TLBSIM_TLBI_NR_OPS - 1, trace_tlbi_op_names),
	 {.name = "flags",
	  .type = TF_FLAGS,
	  .size = MEMBER_SIZE(tlbi.flags),
	  .offset = offsetof(struct tlbsim_event, tlbi.flags),
	  .hidden = 1,
	  .names = tlbi_flag_names},
	 OPT("va", TF_VA, tlbi.va, 0, NULL), OPT("asid", TF_DEC, tlbi.asid, 0, NULL),
	 OPT("unknown", TF_WORD, tlbi.operand_unknown, 1, NULL)),
    KIND(DSB, WHO_CPU, 1, POS("domain", TF_ENUM, dsb.domain, 0, 0, dsb_names)),
    KIND(DMB, WHO_CPU, 1, POS("domain", TF_ENUM, dsb.domain, 0, 0, dsb_names)),
    KIND(ISB, WHO_CPU, 0),
    KIND(CR3_WRITE, WHO_CPU, 3, POS("root_pfn", TF_HEX, cr3_write.root_pfn, 0, 0, NULL),
	 OPT("pcid", TF_DEC, cr3_write.pcid, PCID_MAX, NULL),
	 OPT("noflush", TF_WORD, cr3_write.noflush, 1, NULL)),
    KIND(TTBR_WRITE, WHO_CPU, 3, POS("which", TF_ENUM, ttbr_write.which, 0, 0, ttbr_names),
	 POS("root_pfn", TF_HEX, ttbr_write.root_pfn, 0, 0, NULL),
	 OPT("asid", TF_DEC, ttbr_write.asid, 0, NULL)),
    KIND(PTE_WRITE, WHO_CPU, 3, POS("table_pfn", TF_HEX, pte_write.table_pfn, 0, 0, NULL),
	 POS("index", TF_DEC, pte_write.index, 0, TLBSIM_PTRS_PER_TABLE - 1, NULL),
	 POS("value", TF_HEX, pte_write.value, 0, 0, NULL)),
    KIND(TABLE_ALLOC, WHO_CPU, 2, POS("pfn", TF_HEX, table_alloc.pfn, 0, 0, NULL),
	 POS("level", TF_DEC, table_alloc.level, 0, TLBSIM_MAX_PT_LEVELS - 1, NULL)),
    KIND(TABLE_FREE, WHO_CPU, 1, POS("pfn", TF_HEX, table_free.pfn, 0, 0, NULL)),
    KIND(ERET, WHO_CPU, 0),
    KIND(SYSREG_WRITE, WHO_CPU, 3, POS("reg", TF_ENUM, sysreg_write.reg, 0, 0, sysreg_names),
	 OPT("value", TF_HEX, sysreg_write.value, 0, NULL),
	 OPT("unknown", TF_WORD, sysreg_write.unknown, 1, NULL)),
    KIND(SERIALIZE, WHO_CPU, 0),
    KIND(DC, WHO_CPU, 3, POS("op", TF_ENUM, dc.op, 0, 0, dc_op_names),
	 OPT("va", TF_VA, dc.va, 0, NULL), OPT("unknown", TF_WORD, dc.unknown, 1, NULL)),
    KIND(PHYS_STORE, WHO_CPU, 4, POS("pa", TF_HEX, phys_store.pa, 0, 0, NULL),
	 POS("size", TF_DEC, phys_store.size, 1, 0, NULL),
	 OPT("value", TF_HEX, phys_store.value, 0, NULL),
	 OPT("unknown", TF_WORD, phys_store.unknown, 1, NULL)),
    KIND(TLBI_RANGE, WHO_CPU, 6,
	 POS("op", TF_TLBI_OP, tlbi_range.op, 0, TLBSIM_TLBI_RANGE_NR_OPS - 1,
	     trace_tlbi_range_op_names),
	 {.name = "flags",
	  .type = TF_FLAGS,
	  .size = MEMBER_SIZE(tlbi_range.flags),
	  .offset = offsetof(struct tlbsim_event, tlbi_range.flags),
	  .hidden = 1,
	  .names = tlbi_flag_names},
	 POS("va", TF_VA, tlbi_range.va, 0, 0, NULL),
	 POS("nr_pages", TF_DEC, tlbi_range.nr_pages, 0, TLBSIM_TLBI_RANGE_MAX_PAGES, NULL),
	 OPT("asid", TF_DEC, tlbi_range.asid, 0, NULL),
	 OPT("unknown", TF_WORD, tlbi_range.operand_unknown, 1, NULL)),
    KIND(KTHREAD_CREATE, WHO_ANY, 1, POS("tid", TF_DEC, kthread_create.tid, 1, 0, NULL)),
    KIND(KTHREAD_USE_MM, WHO_THREAD, 2, POS("pid", TF_DEC, kthread_use_mm.pid, 1, 0, NULL),
	 OPT("mmget", TF_WORD, kthread_use_mm.mmget, 1, NULL)),
    KIND(KTHREAD_UNUSE_MM, WHO_THREAD, 0),
    KIND(EXEC, WHO_THREAD, 0),
    KIND(AFFINITY, WHO_THREAD, 2, POS("first", TF_DEC, affinity.first, 0, CPU_MAX, NULL),
	 POS("count", TF_DEC, affinity.count, 1, CPU_MAX + 1, NULL)),
    KIND(RECLAIM, WHO_THREAD, 3, POS("pid", TF_DEC, reclaim.pid, 1, 0, NULL),
	 POS("addr", TF_VA, reclaim.addr, 0, 0, NULL), POS("len", TF_HEX, reclaim.len, 1, 0, NULL)),
    KIND(RECLAIM_FLUSH, WHO_THREAD, 0),
    KIND(MMAP_FILE, WHO_THREAD, 5, POS("addr", TF_VA, mmap_file.addr, 0, 0, NULL),
	 POS("len", TF_HEX, mmap_file.len, 1, 0, NULL),
	 POS("prot", TF_PROT, mmap_file.prot, 0, 0, NULL),
	 POS("file", TF_DEC, mmap_file.file, 1, 0, NULL),
	 POS("pgoff", TF_HEX, mmap_file.pgoff, 0, 0, NULL)),
    KIND(TRUNCATE, WHO_THREAD, 2, POS("file", TF_DEC, truncate.file, 1, 0, NULL),
	 POS("size", TF_HEX, truncate.size, 0, 0, NULL)),
    KIND(COMMIT, WHO_CPU, 3, POS("root_pfn", TF_HEX, commit.root_pfn, 0, 0, NULL),
	 POS("va", TF_VA, commit.va, 0, 0, NULL), POS("len", TF_HEX, commit.len, 1, 0, NULL)),
    KIND(GUP_FAST, WHO_THREAD, 2, POS("va", TF_VA, gup_fast.va, 0, 0, NULL),
	 POS("len", TF_HEX, gup_fast.len, 1, 0, NULL)),
};

_Static_assert(sizeof(struct tlbsim_event) <= 48, "struct tlbsim_event must stay within 48 bytes");

const char *trace_name_of(const struct trace_name *names, unsigned value)
{
	for (; names && names->name; names++)
		if (names->value == value)
			return names->name;
	return NULL;
}

const char *tlbsim_event_kind_name(unsigned kind)
{
	const struct trace_kind *k = trace_kind(kind);

	return k ? k->name : "unknown";
}

enum tlbsim_event_kind tlbsim_event_kind_find(const char *name)
{
	for (unsigned kind = 1; kind < TLBSIM_EV_NR_KINDS; kind++)
		if (trace_kinds[kind].name && strcmp(trace_kinds[kind].name, name) == 0)
			return (enum tlbsim_event_kind)kind;
	return TLBSIM_EV_NONE;
}

static int fail(int *field, int index, char *why, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int fail(int *field, int index, char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	*field = index;
	if (why && size) {
		va_start(ap, fmt);
		vsnprintf(why, size, fmt, ap);
		va_end(ap);
	}
	return -TLBSIM_EINVAL;
}

/* [addr, addr + len) stays below 2^64 (an empty range always does). */
static int range_fits(uint64_t addr, uint64_t len)
{
	return len == 0 || addr <= UINT64_MAX - (len - 1);
}

/* The rules of one field alone: its range, and its names or bits. */
static int check_field(const struct tlbsim_event *ev, const struct trace_kind *k, int i, int *field,
		       char *why, size_t size)
{
	const struct trace_field *f = &k->fields[i];
	uint64_t v = trace_field_get(ev, f);
	uint64_t max = f->max ? f->max : trace_field_width_max(f);
	uint64_t bad;

	if (v < f->min || v > max)
		return fail(field, i, why, size,
			    "%s %s: %" PRIu64 "..%" PRIu64 " expected, found %" PRIu64, k->name,
			    f->name, (uint64_t)f->min, max, v);
	switch (f->type) {
	case TF_PROT:
		bad = v & ~(uint64_t)(TLBSIM_PROT_READ | TLBSIM_PROT_WRITE | TLBSIM_PROT_EXEC);
		break;
	case TF_FLAGS:
		bad = v;
		for (const struct trace_name *n = f->names; n->name; n++)
			bad &= ~(uint64_t)n->value;
		break;
	case TF_ENUM:
		if (!trace_name_of(f->names, (unsigned)v))
			return fail(field, i, why, size,
				    "%s %s: a known value expected, found %" PRIu64, k->name,
				    f->name, v);
		return 0;
	default:
		return 0;
	}
	if (bad)
		return fail(field, i, why, size,
			    "%s %s: known bits expected, found unknown bits 0x%" PRIx64, k->name,
			    f->name, bad);
	return 0;
}

/* A syscall's [addr, addr + len): its len is field 1 of the four kinds. */
static int check_range(const struct tlbsim_event *ev, uint64_t addr, uint64_t len, int *field,
		       char *why, size_t size)
{
	if (range_fits(addr, len))
		return 0;
	return fail(field, 1, why, size,
		    "%s: a range below 2^64 expected, found addr 0x%" PRIx64 " len 0x%" PRIx64,
		    tlbsim_event_kind_name(ev->kind), addr, len);
}

/* Number of bits set in @v. */
static int nr_bits(unsigned v)
{
	int n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

/*
 * Rules between fields.  Field indexes are those of the layout table, so
 * an error points at the field a user has to change.
 */
static int check_kind(const struct tlbsim_event *ev, int *field, char *why, size_t size)
{
	unsigned fl;

	switch (ev->kind) {
	case TLBSIM_EV_LOAD:
	case TLBSIM_EV_STORE:
	case TLBSIM_EV_FETCH:
		if (!range_fits(ev->access.va, ev->access.size))
			return fail(field, 1, why, size,
				    "%s: access past 2^64 (va 0x%" PRIx64 " size %u)",
				    tlbsim_event_kind_name(ev->kind), ev->access.va,
				    (unsigned)ev->access.size);
		return 0;
	case TLBSIM_EV_MMAP:
		fl = ev->mmap.flags;
		if (nr_bits(fl & (TLBSIM_MAP_SHARED | TLBSIM_MAP_PRIVATE)) != 1)
			return fail(field, 3, why, size,
				    "mmap flags: exactly one of shared, private expected");
		if (nr_bits(fl & (TLBSIM_MAP_HUGETLB | TLBSIM_MAP_HUGETLB_1G | TLBSIM_MAP_THP)) > 1)
			return fail(field, 3, why, size,
				    "mmap flags: at most one of hugetlb, hugetlb1g, thp expected");
		return check_range(ev, ev->mmap.addr, ev->mmap.len, field, why, size);
	case TLBSIM_EV_MUNMAP:
		return check_range(ev, ev->munmap.addr, ev->munmap.len, field, why, size);
	case TLBSIM_EV_GUP_FAST:
		return check_range(ev, ev->gup_fast.va, ev->gup_fast.len, field, why, size);
	case TLBSIM_EV_COMMIT:
		if (!range_fits(ev->commit.va, ev->commit.len))
			return fail(field, 2, why, size, "commit: range past 2^64");
		return 0;
	case TLBSIM_EV_MPROTECT:
		return check_range(ev, ev->mprotect.addr, ev->mprotect.len, field, why, size);
	case TLBSIM_EV_MADVISE:
		return check_range(ev, ev->madvise.addr, ev->madvise.len, field, why, size);
	case TLBSIM_EV_MMAP_FILE:
		if (!range_fits(ev->mmap_file.addr, ev->mmap_file.len))
			return fail(field, 1, why, size, "mmap_file: a range below 2^64 expected");
		if (ev->mmap_file.pgoff >
		    (UINT64_MAX >> TLBSIM_PAGE_SHIFT) - (ev->mmap_file.len >> TLBSIM_PAGE_SHIFT))
			return fail(field, 4, why, size,
				    "mmap_file: pgoff + pages past 2^52 pages");
		return 0;
	case TLBSIM_EV_RECLAIM:
		if (!range_fits(ev->reclaim.addr, ev->reclaim.len))
			return fail(field, 2, why, size, "reclaim: a range below 2^64 expected");
		return 0;
	case TLBSIM_EV_MREMAP:
		if (!range_fits(ev->mremap.old_addr, ev->mremap.old_len))
			return fail(field, 1, why, size, "mremap: old range past 2^64");
		if (!range_fits(ev->mremap.new_addr, ev->mremap.new_len))
			return fail(field, 2, why, size, "mremap: new range past 2^64");
		return 0;
	case TLBSIM_EV_INVPCID:
		/* Intel SDM vol. 2 INVPCID: type 0 uses PCID and address, type 1 the PCID only */
		if (ev->invpcid.type >= 2 && ev->invpcid.pcid)
			return fail(field, 1, why, size, "invpcid type %u: no pcid expected",
				    (unsigned)ev->invpcid.type);
		if (ev->invpcid.type >= 1 && ev->invpcid.va)
			return fail(field, 2, why, size, "invpcid type %u: no va expected",
				    (unsigned)ev->invpcid.type);
		return 0;
	case TLBSIM_EV_INVLPGB:
		fl = ev->invlpgb.flags;
		if (ev->invlpgb.stride_shift != 12 && ev->invlpgb.stride_shift != 21)
			return fail(field, 2, why, size,
				    "invlpgb stride_shift: 12 or 21 expected, found %u",
				    (unsigned)ev->invlpgb.stride_shift);
		if (!(fl & TLBSIM_INVLPGB_VA) &&
		    (ev->invlpgb.va || ev->invlpgb.nr_pages != 1 || ev->invlpgb.stride_shift != 12))
			return fail(
			    field, 0, why, size,
			    "invlpgb without flag va: va 0, nr_pages 1, stride_shift 12 expected");
		if (!range_fits(ev->invlpgb.va,
				(uint64_t)ev->invlpgb.nr_pages << ev->invlpgb.stride_shift))
			return fail(field, 1, why, size, "invlpgb: range past 2^64");
		if (!(fl & TLBSIM_INVLPGB_PCID) && ev->invlpgb.pcid)
			return fail(field, 3, why, size,
				    "invlpgb without flag pcid: no pcid expected");
		if (!(fl & TLBSIM_INVLPGB_ASID) && ev->invlpgb.asid)
			return fail(field, 4, why, size,
				    "invlpgb without flag asid: no asid expected");
		return 0;
	case TLBSIM_EV_AFFINITY:
		if ((unsigned)ev->affinity.first + ev->affinity.count > CPU_MAX + 1)
			return fail(field, 1, why, size,
				    "affinity: cpus up to %u expected, found %u + %u", CPU_MAX,
				    (unsigned)ev->affinity.first, (unsigned)ev->affinity.count);
		return 0;
	default:
		return 0;
	}
}

/* Arm ARM C5.5: which TLBI operations take a VA (or IPA), and which an ASID. */
static int tlbi_takes_va(unsigned op)
{
	switch (op) {
	case TLBSIM_TLBI_VAE1:
	case TLBSIM_TLBI_VALE1:
	case TLBSIM_TLBI_VAAE1:
	case TLBSIM_TLBI_VAALE1:
	case TLBSIM_TLBI_IPAS2E1:
	case TLBSIM_TLBI_IPAS2LE1:
	case TLBSIM_TLBI_VAE2:
	case TLBSIM_TLBI_VALE2:
	case TLBSIM_TLBI_VAE3:
	case TLBSIM_TLBI_VALE3:
		return 1;
	default:
		return 0;
	}
}

/*
 * Can @n pages be one TLBI range: (NUM + 1) * 2^(5 * SCALE + 1), NUM
 * 0..31, SCALE 0..3 (Arm ARM C5.5, "TLBI RVAE1")?  E.g. 48 = 24 * 2^1
 * (SCALE 0, NUM 23); 33 is odd, so no.
 */
int trace_tlbi_range_pages_ok(uint64_t n)
{
	for (unsigned scale = 0; scale < 4; scale++) {
		uint64_t unit = UINT64_C(1) << (5 * scale + 1);

		if (n % unit == 0 && n / unit >= 1 && n / unit <= 32)
			return 1;
	}
	return 0;
}

static int check_tlbi_range(const struct tlbsim_event *ev, int *field, char *why, size_t size)
{
	unsigned op = ev->tlbi_range.op;

	if ((ev->tlbi_range.flags & TLBSIM_TLBI_IS) && (ev->tlbi_range.flags & TLBSIM_TLBI_OS))
		return fail(field, 0, why, size, "tlbi_range: one of is, os expected, found both");
	if (ev->tlbi_range.operand_unknown) {
		if (ev->tlbi_range.va || ev->tlbi_range.nr_pages || ev->tlbi_range.asid)
			return fail(field, 5, why, size,
				    "tlbi_range with unknown operand: va, nr_pages, asid 0 expected");
		return 0;
	}
	if (!trace_tlbi_range_pages_ok(ev->tlbi_range.nr_pages))
		return fail(field, 3, why, size,
			    "tlbi_range nr_pages: (NUM+1)*2^(5*SCALE+1) with NUM 0..31, SCALE "
			    "0..3 expected, found %u",
			    (unsigned)ev->tlbi_range.nr_pages);
	if ((op == TLBSIM_TLBI_RVAAE1 || op == TLBSIM_TLBI_RVAALE1) && ev->tlbi_range.asid)
		return fail(field, 4, why, size, "tlbi_range %s: no asid expected",
			    trace_name_of(trace_tlbi_range_op_names, op));
	return 0;
}

/* A known value, or the unknown word and nothing else. */
static int check_unknown(const struct tlbsim_event *ev, uint64_t value, unsigned unknown,
			 int value_field, int *field, char *why, size_t size)
{
	if (unknown && value)
		return fail(field, value_field, why, size, "%s with unknown: no %s expected",
			    tlbsim_event_kind_name(ev->kind),
			    trace_kind(ev->kind)->fields[value_field].name);
	return 0;
}

static int check_tlbi(const struct tlbsim_event *ev, int *field, char *why, size_t size)
{
	unsigned op = ev->tlbi.op;
	int takes_va = tlbi_takes_va(op);
	int takes_asid =
	    op == TLBSIM_TLBI_VAE1 || op == TLBSIM_TLBI_VALE1 || op == TLBSIM_TLBI_ASIDE1;
	const char *opname = trace_name_of(trace_tlbi_op_names, op);

	if ((ev->tlbi.flags & TLBSIM_TLBI_IS) && (ev->tlbi.flags & TLBSIM_TLBI_OS))
		return fail(field, 0, why, size, "tlbi: one of is, os expected, found both");
	if (ev->tlbi.operand_unknown && (ev->tlbi.va || ev->tlbi.asid))
		return fail(field, 4, why, size,
			    "tlbi with unknown operand: no va or asid expected");
	if (!takes_va && ev->tlbi.va)
		return fail(field, 2, why, size, "tlbi %s: no va expected", opname);
	if (!takes_asid && ev->tlbi.asid)
		return fail(field, 3, why, size, "tlbi %s: no asid expected", opname);
	return 0;
}

int trace_event_check(const struct tlbsim_event *ev, int *field, char *why, size_t size)
{
	const struct trace_kind *k;
	int rc;

	*field = -1;
	/*
	 * Accesses are nearly every event of a trace: pass a valid one
	 * without walking the table (a third of the native reader's time
	 * otherwise); an invalid one takes the general path for its message.
	 */
	if (ev->kind >= TLBSIM_EV_LOAD && ev->kind <= TLBSIM_EV_FETCH &&
	    ev->tid != TLBSIM_TID_NONE && ev->access.size != 0 &&
	    range_fits(ev->access.va, ev->access.size))
		return 0;
	k = trace_kind(ev->kind);
	if (!k)
		return fail(field, -1, why, size, "a known event kind expected, found %u",
			    (unsigned)ev->kind);
	if ((k->who & WHO_THREAD) && ev->tid == TLBSIM_TID_NONE)
		return fail(field, -1, why, size, "%s: a thread (T<tid>) expected", k->name);
	if ((k->who & WHO_CPU) && ev->cpu == TLBSIM_CPU_ANY)
		return fail(field, -1, why, size, "%s: a cpu (cpu<n>) expected", k->name);
	for (int i = 0; i < k->nr_fields; i++) {
		rc = check_field(ev, k, i, field, why, size);
		if (rc)
			return rc;
	}
	switch (ev->kind) {
	case TLBSIM_EV_TLBI:
		return check_tlbi(ev, field, why, size);
	case TLBSIM_EV_TLBI_RANGE:
		return check_tlbi_range(ev, field, why, size);
	case TLBSIM_EV_SYSREG_WRITE:
		return check_unknown(ev, ev->sysreg_write.value, ev->sysreg_write.unknown, 1, field,
				     why, size);
	case TLBSIM_EV_PHYS_STORE:
		if (!range_fits(ev->phys_store.pa, ev->phys_store.size))
			return fail(field, 1, why, size, "phys_store: store past 2^64");
		return check_unknown(ev, ev->phys_store.value, ev->phys_store.unknown, 2, field,
				     why, size);
	case TLBSIM_EV_COMPUTE:
		if (ev->compute.count > TLBSIM_COMPUTE_MAX)
			return fail(field, 0, why, size,
				    "compute: a count of at most 2^40 (%llu) expected, found %llu",
				    TLBSIM_COMPUTE_MAX, (unsigned long long)ev->compute.count);
		return check_kind(ev, field, why, size);
	case TLBSIM_EV_DC:
		/* set/way operations name no address (Arm ARM C5.3, DC ISW/CSW/CISW) */
		if ((ev->dc.op == TLBSIM_DC_ISW || ev->dc.op == TLBSIM_DC_CSW ||
		     ev->dc.op == TLBSIM_DC_CISW) &&
		    ev->dc.va)
			return fail(field, 1, why, size, "dc %s: no va expected (set/way)",
				    trace_name_of(dc_op_names, ev->dc.op));
		return check_unknown(ev, ev->dc.va, ev->dc.unknown, 1, field, why, size);
	default:
		return check_kind(ev, field, why, size);
	}
}

int tlbsim_event_validate(const struct tlbsim_event *ev, char *why, size_t size)
{
	int field;

	if (why && size)
		why[0] = '\0';
	return trace_event_check(ev, &field, why, size);
}
