/* SPDX-License-Identifier: MIT */
/*
 * Machine descriptions: the documented defaults, the JSON loader (jansson)
 * and the consistency checks shared by the loader and
 * tlbsim_machine_validate().
 *
 * The format, every default and the source of each default (rows of
 * CALIBRATION.md, or "generic") are documented in models/README.md; keep the
 * two in step.  Errors follow jansson's json_error_t: the first one wins and
 * names the file, the JSON path and the line/column of the offending value
 * (json_read.c reads and reports, json_path.c finds the position, since
 * jansson keeps no positions of values).
 *
 * Error codes: -TLBSIM_EPARSE for malformed JSON, unknown keys, missing
 * required keys and wrong JSON types; -TLBSIM_ERANGE for a value of the right
 * type outside its allowed range or set, and for inconsistent fields.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "error_internal.h"
#include "config/json_read.h"
#include "config/machine_internal.h"
#include "tlbsim/machine.h"

/* ---- limits (models/README.md lists them with their reasons) ---- */

/* 4096 cores: Linux's largest common NR_CPUS (x86 MAXSMP allows 8192). */
static const struct jr_limit LIM_CORES = {1, 4096};
/* 16 bits: arm64 ASIDs (CALIBRATION.md 7.14), the widest tag modelled. */
static const struct jr_limit LIM_ASID_BITS = {0, 16};
/*
 * 65536 entries: 16x the largest TLB in CALIBRATION.md (Zen 5 L2 DTLB,
 * 4096 entries, 7.1), room for what-if studies while bounding per-core
 * memory.
 */
static const struct jr_limit LIM_ENTRIES = {0, 65536};
static const struct jr_limit LIM_WAYS = {1, 65536};
/* Cycles; DRAM is ~400 cycles (7.12), so 100000 can only be a typo. */
static const struct jr_limit LIM_LATENCY = {0, 100000};
static const struct jr_limit LIM_SEED = {0, LLONG_MAX};
static const struct jr_limit LIM_LEVELS = {4, 5};
/* GHz; no core clocks above 10 GHz, so a bigger value is a unit mistake (MHz). */
#define FREQ_GHZ_MAX 10.0
/* hw/tlb.c keeps a set's PLRU tree bits (ways - 1 of them) in one uint64_t. */
#define PLRU_MAX_WAYS 64
#define NAME_MAX_BYTES (TLBSIM_NAME_LEN - 1)

/* ---- schema: the keys of each JSON object ---- */

static const struct jr_key tlb_geom_keys[] = {
    {"entries", NULL}, {"ways", NULL},	  {"page_sizes", NULL}, {"replacement", NULL},
    {"seed", NULL},    {"latency", NULL}, {NULL, NULL},
};
/* Page-walk caches hold one level each, hence no page_sizes. */
static const struct jr_key pwc_geom_keys[] = {
    {"entries", NULL}, {"ways", NULL},	  {"replacement", NULL},
    {"seed", NULL},    {"latency", NULL}, {NULL, NULL},
};
/*
 * The walk cache of level k (machine.h numbering) is entry k - 1.  Intel SDM
 * vol. 3 4.10.3 names them after the entries cached; Arm after the table's
 * own level number, which counts from the root: Arm level 2 = our level 1.
 */
static const struct jr_key pwc_x86_keys[] = {
    {"pde", pwc_geom_keys},
    {"pdpte", pwc_geom_keys},
    {"pml4e", pwc_geom_keys},
    {"pml5e", pwc_geom_keys},
    {NULL, NULL},
};
static const struct jr_key pwc_arm64_keys[] = {
    {"l2", pwc_geom_keys},
    {"l1", pwc_geom_keys},
    {"l0", pwc_geom_keys},
    {NULL, NULL},
};
static const struct jr_key tlb_keys[] = {
    {"l1i", tlb_geom_keys},
    {"l1d", tlb_geom_keys},
    {"l2", tlb_geom_keys},
    {NULL, NULL},
};
static const struct jr_key page_table_keys[] = {{"levels", NULL}, {NULL, NULL}};
static const struct jr_key walker_keys[] = {{"pte_latency", NULL}, {NULL, NULL}};

#define ROOT_KEYS(pwc_keys)                                                                        \
	{                                                                                          \
		{"name", NULL}, {"isa", NULL}, {"cores", NULL}, {"freq_ghz", NULL},                \
		    {"page_table", page_table_keys}, {"asid_bits", NULL}, {"tlb", tlb_keys},       \
		    {"pwc", pwc_keys}, {"walker", walker_keys}, {"topology", mach_topology_keys},  \
		    {"costs", mach_costs_keys}, {"sources", NULL}, {"errata", NULL}, {NULL, NULL}, \
	}
static const struct jr_key root_x86_keys[] = ROOT_KEYS(pwc_x86_keys);
static const struct jr_key root_arm64_keys[] = ROOT_KEYS(pwc_arm64_keys);

static const struct jr_name isa_names[] = {
    {"x86-64", TLBSIM_ISA_X86_64},
    {"arm64", TLBSIM_ISA_ARM64},
    {NULL, 0},
};
static const struct jr_name repl_names[] = {
    {"lru", TLBSIM_REPL_LRU},
    {"plru", TLBSIM_REPL_PLRU},
    {"random", TLBSIM_REPL_RANDOM},
    {NULL, 0},
};
static const struct jr_name page_size_names[] = {
    {"4K", TLBSIM_PS_4K},
    {"2M", TLBSIM_PS_2M},
    {"1G", TLBSIM_PS_1G},
    {NULL, 0},
};
#define PS_ALL (TLBSIM_PS_4K | TLBSIM_PS_2M | TLBSIM_PS_1G)

/* ---- defaults (models/README.md, "Defaults") ---- */

/* Cycles per descriptor read: an L2-cache hit plus queueing, 7.9 and 7.12. */
#define DEFAULT_PTE_LATENCY 20

static const struct tlbsim_machine x86_default = {
    .name = "default-x86-64",
    .isa = TLBSIM_ISA_X86_64,
    .nr_cpus = 1,
    .freq_ghz = 3.0,
    .pt_levels = 4,
    /* {entries, ways, page_sizes, repl, seed, latency_cycles} */
    .l1i = {64, 8, TLBSIM_PS_4K | TLBSIM_PS_2M, TLBSIM_REPL_LRU, 0, 1},	  /* generic */
    .l1d = {64, 4, PS_ALL, TLBSIM_REPL_LRU, 0, 1},			  /* 7.2, F */
    .l2 = {1536, 12, TLBSIM_PS_4K | TLBSIM_PS_2M, TLBSIM_REPL_LRU, 0, 8}, /* 7.3, F */
    .pwc = {[1] = {32, 4, 0, TLBSIM_REPL_LRU, 0, 2},			  /* PDE cache, 7.13 */
	    [2] = {4, 4, 0, TLBSIM_REPL_LRU, 0, 2},			  /* PDPTE cache, 7.13 */
	    [3] = {2, 2, 0, TLBSIM_REPL_LRU, 0, 2}},			  /* PML4E cache, 7.13 */
    .pte_latency_cycles = {DEFAULT_PTE_LATENCY, DEFAULT_PTE_LATENCY, DEFAULT_PTE_LATENCY,
			   DEFAULT_PTE_LATENCY},
    .asid_bits = 12, /* PCID, 5.8 */
};

/* Added when page_table.levels is 5: a PML5E cache as small as the PML4E one. */
static const struct tlbsim_cache_geom x86_pml5e_default = {2, 2, 0, TLBSIM_REPL_LRU, 0, 2};

static const struct tlbsim_machine arm64_default = {
    .name = "default-arm64",
    .isa = TLBSIM_ISA_ARM64,
    .nr_cpus = 1,
    .freq_ghz = 3.0,
    .pt_levels = 4,
    /* Cortex-A76 / Neoverse N1 (7.6): 48-entry fully associative L1s, 1-cycle hit. */
    .l1i = {48, 48, TLBSIM_PS_4K | TLBSIM_PS_2M, TLBSIM_REPL_LRU, 0, 1},
    .l1d = {48, 48, PS_ALL, TLBSIM_REPL_LRU, 0, 1},
    /* A76 L2 TLB 1280 entries, 5-way (7.6): 256 sets; latency generic. */
    .l2 = {1280, 5, PS_ALL, TLBSIM_REPL_LRU, 0, 6},
    .pwc = {[1] = {32, 4, 0, TLBSIM_REPL_LRU, 0, 2}, /* Arm level 2, generic */
	    [2] = {8, 8, 0, TLBSIM_REPL_LRU, 0, 2},  /* Arm level 1, generic */
	    [3] = {4, 4, 0, TLBSIM_REPL_LRU, 0, 2}}, /* Arm level 0, generic */
    .pte_latency_cycles = {DEFAULT_PTE_LATENCY, DEFAULT_PTE_LATENCY, DEFAULT_PTE_LATENCY,
			   DEFAULT_PTE_LATENCY},
    .asid_bits = 16, /* 7.14 */
};

struct isa_info {
	unsigned max_levels;
	const struct jr_key *root_keys;
	const struct jr_key *pwc_keys;
	const struct tlbsim_machine *defaults;
};

static const struct isa_info *isa_info(enum tlbsim_isa isa)
{
	static const struct isa_info x86 = {5, root_x86_keys, pwc_x86_keys, &x86_default};
	static const struct isa_info arm64 = {4, root_arm64_keys, pwc_arm64_keys, &arm64_default};

	switch (isa) {
	case TLBSIM_ISA_X86_64:
		return &x86;
	case TLBSIM_ISA_ARM64:
		return &arm64;
	}
	return NULL;
}

/*
 * The defaults of @isa for a @levels-deep page table (4, or 5 on x86-64).
 * The defaults own no matrix, so the plain copy is safe.
 */
static void set_defaults(struct tlbsim_machine *m, enum tlbsim_isa isa, unsigned levels)
{
	*m = *isa_info(isa)->defaults;
	mach_default_topology(&m->topology, m->nr_cpus);
	mach_default_costs(&m->costs, isa);
	if (levels == 5) {
		m->pt_levels = 5;
		m->pwc[4] = x86_pml5e_default;
		m->pte_latency_cycles[4] = DEFAULT_PTE_LATENCY;
	}
}

static int read_page_sizes(struct jr_ctx *c, const json_t *arr, unsigned *mask)
{
	size_t i;
	const json_t *v;

	if (!json_is_array(arr))
		return jr_fail(c, -TLBSIM_EPARSE, false,
			       "expected an array of page sizes (\"4K\", \"2M\", \"1G\"), found %s",
			       jr_type_name(arr));
	*mask = 0;
	json_array_foreach(arr, i, v)
	{
		unsigned bit = 0;
		int rc;

		jpath_push_index(&c->path, i);
		rc = jr_read_name(c, v, page_size_names, &bit);
		if (!rc && (*mask & bit))
			rc = jr_fail(c, -TLBSIM_ERANGE, false, "page size \"%s\" listed twice",
				     json_string_value(v));
		jpath_pop(&c->path);
		if (rc)
			return rc;
		*mask |= bit;
	}
	return 0;
}

/* A TLB (with @keys == tlb_geom_keys) or a page-walk cache. */
static int read_geom(struct jr_ctx *c, const json_t *obj, const struct jr_key *keys,
		     struct tlbsim_cache_geom *g)
{
	const json_t *ps = json_object_get(obj, "page_sizes");
	const json_t *seed = json_object_get(obj, "seed");
	unsigned repl = g->repl;
	int rc;

	rc = jr_check_keys(c, obj, keys);
	if (!rc)
		rc = jr_opt_uint(c, obj, "entries", &LIM_ENTRIES, &g->entries);
	if (!rc)
		rc = jr_opt_uint(c, obj, "ways", &LIM_WAYS, &g->ways);
	if (!rc && ps) {
		jpath_push_key(&c->path, "page_sizes");
		rc = read_page_sizes(c, ps, &g->page_sizes);
		jpath_pop(&c->path);
	}
	if (!rc)
		rc = jr_opt_name(c, obj, "replacement", repl_names, &repl);
	g->repl = (enum tlbsim_repl)repl;
	if (!rc && seed) {
		long long x = 0;

		jpath_push_key(&c->path, "seed");
		rc = jr_read_int(c, seed, &LIM_SEED, &x);
		jpath_pop(&c->path);
		g->seed = (uint64_t)x;
	}
	if (!rc)
		rc = jr_opt_uint(c, obj, "latency", &LIM_LATENCY, &g->latency_cycles);
	return rc;
}

static int opt_geom(struct jr_ctx *c, const json_t *group, const char *key,
		    const struct jr_key *keys, struct tlbsim_cache_geom *g)
{
	const json_t *obj;
	int rc = jr_opt_object(c, group, key, &obj);

	if (rc || !obj)
		return rc;
	jpath_push_key(&c->path, key);
	rc = read_geom(c, obj, keys, g);
	jpath_pop(&c->path);
	return rc;
}

/* ---- consistency checks (loader and tlbsim_machine_validate) ---- */

static bool is_pow2(unsigned x)
{
	return x && !(x & (x - 1));
}

static int check_geom_fields(struct jr_ctx *c, const struct tlbsim_cache_geom *g, bool is_tlb,
			     bool required)
{
	unsigned sets;
	int rc;

	rc = jr_check_range_at(c, "entries", g->entries, &LIM_ENTRIES);
	if (rc)
		return rc;
	if (g->entries == 0)
		return required
			   ? jr_fail_at(c, "entries", -TLBSIM_ERANGE,
					"an L1 TLB cannot be absent: expected at least 1 entry")
			   : 0;
	rc = jr_check_range_at(c, "ways", g->ways, &LIM_WAYS);
	if (rc)
		return rc;
	if (g->entries % g->ways)
		return jr_fail_at(c, "entries", -TLBSIM_ERANGE,
				  "entries %u is not a multiple of ways %u", g->entries, g->ways);
	/* The set index is a bit field of the page number. */
	sets = g->entries / g->ways;
	if (!is_pow2(sets))
		return jr_fail_at(c, "entries", -TLBSIM_ERANGE,
				  "entries / ways = %u / %u = %u sets, expected a power of two",
				  g->entries, g->ways, sets);
	if ((int)g->repl < TLBSIM_REPL_LRU || (int)g->repl > TLBSIM_REPL_RANDOM)
		return jr_fail_at(c, "replacement", -TLBSIM_ERANGE,
				  "expected \"lru\", \"plru\" or \"random\", found %d",
				  (int)g->repl);
	if (g->repl == TLBSIM_REPL_PLRU && (!is_pow2(g->ways) || g->ways > PLRU_MAX_WAYS))
		return jr_fail_at(
		    c, "replacement", -TLBSIM_ERANGE,
		    "plru needs a power-of-two number of ways up to %d, found %u ways",
		    PLRU_MAX_WAYS, g->ways);
	rc = jr_check_range_at(c, "latency", g->latency_cycles, &LIM_LATENCY);
	if (rc)
		return rc;
	if (is_tlb && (g->page_sizes == 0 || (g->page_sizes & ~PS_ALL)))
		return jr_fail_at(
		    c, "page_sizes", -TLBSIM_ERANGE,
		    "expected a non-empty set of \"4K\", \"2M\", \"1G\", found mask %#x",
		    g->page_sizes);
	return 0;
}

static int check_geom(struct jr_ctx *c, const char *group, const char *key,
		      const struct tlbsim_cache_geom *g, bool is_tlb, bool required)
{
	int rc;

	jpath_push_key(&c->path, group);
	jpath_push_key(&c->path, key);
	rc = check_geom_fields(c, g, is_tlb, required);
	jpath_pop(&c->path);
	jpath_pop(&c->path);
	return rc;
}

static int check_pwcs(struct jr_ctx *c, const struct tlbsim_machine *m, const struct isa_info *ii)
{
	int rc = 0;

	for (unsigned level = 0; !rc && level < TLBSIM_MAX_PT_LEVELS; level++) {
		/* pwc_keys ends with {NULL}: arm64 has no name for level 4. */
		const char *key = level ? ii->pwc_keys[level - 1].key : NULL;
		const struct tlbsim_cache_geom *g = &m->pwc[level];

		if (level > 0 && level < m->pt_levels) {
			rc = check_geom(c, "pwc", key, g, false, false);
			continue;
		}
		if (!g->entries)
			continue;
		jpath_push_key(&c->path, "pwc");
		if (key)
			jpath_push_key(&c->path, key);
		if (level == 0)
			rc = jr_fail(
			    c, -TLBSIM_ERANGE, false,
			    "pwc[0] must be empty (leaves are cached by the TLBs), found %u "
			    "entries",
			    g->entries);
		else
			rc = jr_fail(
			    c, -TLBSIM_ERANGE, false,
			    "no page-walk cache at level %u of a %u-level page table, found "
			    "%u entries",
			    level, m->pt_levels, g->entries);
		if (key)
			jpath_pop(&c->path);
		jpath_pop(&c->path);
	}
	return rc;
}

static int check_machine(struct jr_ctx *c, const struct tlbsim_machine *m)
{
	const struct isa_info *ii = isa_info(m->isa);
	int rc;

	if (!ii)
		return jr_fail_at(c, "isa", -TLBSIM_ERANGE,
				  "expected TLBSIM_ISA_X86_64 or TLBSIM_ISA_ARM64, found %d",
				  (int)m->isa);
	if (!memchr(m->name, '\0', sizeof(m->name)) || !m->name[0])
		return jr_fail_at(c, "name", -TLBSIM_ERANGE,
				  "expected a NUL-terminated name of 1..%d bytes", NAME_MAX_BYTES);
	rc = jr_check_range_at(c, "cores", m->nr_cpus, &LIM_CORES);
	if (rc)
		return rc;
	if (!(m->freq_ghz > 0 && m->freq_ghz <= FREQ_GHZ_MAX))
		return jr_fail_at(c, "freq_ghz", -TLBSIM_ERANGE,
				  "expected a number of GHz in (0, %g], found %g", FREQ_GHZ_MAX,
				  m->freq_ghz);
	jpath_push_key(&c->path, "page_table");
	rc = jr_check_range_at(c, "levels", m->pt_levels, &LIM_LEVELS);
	if (!rc && m->pt_levels > ii->max_levels)
		rc = jr_fail_at(c, "levels", -TLBSIM_ERANGE,
				"%s page tables have at most %u levels (4 KiB granule), found %u",
				tlbsim_isa_name(m->isa), ii->max_levels, m->pt_levels);
	jpath_pop(&c->path);
	if (!rc)
		rc = jr_check_range_at(c, "asid_bits", m->asid_bits, &LIM_ASID_BITS);
	if (!rc)
		rc = check_geom(c, "tlb", "l1i", &m->l1i, true, true);
	if (!rc)
		rc = check_geom(c, "tlb", "l1d", &m->l1d, true, true);
	if (!rc)
		rc = check_geom(c, "tlb", "l2", &m->l2, true, false);
	if (!rc)
		rc = check_pwcs(c, m, ii);
	jpath_push_key(&c->path, "walker");
	jpath_push_key(&c->path, "pte_latency");
	for (unsigned level = 0; !rc && level < m->pt_levels; level++) {
		/* JSON lists the levels root first. */
		jpath_push_index(&c->path, m->pt_levels - 1 - level);
		rc = jr_check_range(c, m->pte_latency_cycles[level], &LIM_LATENCY);
		jpath_pop(&c->path);
	}
	jpath_pop(&c->path);
	jpath_pop(&c->path);
	if (!rc)
		rc = mach_check_topology(c, m);
	if (!rc)
		rc = mach_check_costs(c, m);
	return rc;
}

/* ---- the loader ---- */

static int read_levels(struct jr_ctx *c, const json_t *root, enum tlbsim_isa isa, unsigned *levels)
{
	const json_t *pt;
	int rc = jr_opt_object(c, root, "page_table", &pt);

	if (rc || !pt)
		return rc;
	jpath_push_key(&c->path, "page_table");
	rc = jr_check_keys(c, pt, page_table_keys);
	if (!rc)
		rc = jr_opt_uint(c, pt, "levels", &LIM_LEVELS, levels);
	if (!rc && *levels > isa_info(isa)->max_levels)
		rc = jr_fail_at(c, "levels", -TLBSIM_ERANGE,
				"%s page tables have at most %u levels (4 KiB granule), found %u",
				tlbsim_isa_name(isa), isa_info(isa)->max_levels, *levels);
	jpath_pop(&c->path);
	return rc;
}

static int read_tlbs(struct jr_ctx *c, const json_t *root, struct tlbsim_machine *m)
{
	const json_t *tlb;
	int rc = jr_opt_object(c, root, "tlb", &tlb);

	if (rc || !tlb)
		return rc;
	jpath_push_key(&c->path, "tlb");
	rc = jr_check_keys(c, tlb, tlb_keys);
	if (!rc)
		rc = opt_geom(c, tlb, "l1i", tlb_geom_keys, &m->l1i);
	if (!rc)
		rc = opt_geom(c, tlb, "l1d", tlb_geom_keys, &m->l1d);
	if (!rc)
		rc = opt_geom(c, tlb, "l2", tlb_geom_keys, &m->l2);
	jpath_pop(&c->path);
	return rc;
}

static int read_pwcs(struct jr_ctx *c, const json_t *root, struct tlbsim_machine *m)
{
	const struct isa_info *ii = isa_info(m->isa);
	const struct isa_info *other =
	    isa_info(m->isa == TLBSIM_ISA_X86_64 ? TLBSIM_ISA_ARM64 : TLBSIM_ISA_X86_64);
	const json_t *pwc;
	const char *unknown;
	char known[64];
	int rc = jr_opt_object(c, root, "pwc", &pwc);

	if (rc || !pwc)
		return rc;
	jpath_push_key(&c->path, "pwc");
	unknown = jr_first_unknown_key(pwc, ii->pwc_keys);
	if (unknown && jr_find_key(other->pwc_keys, unknown, strlen(unknown))) {
		jr_list_keys(ii->pwc_keys, known, sizeof(known));
		jpath_push_key(&c->path, unknown);
		rc = jr_fail(c, -TLBSIM_EPARSE, true,
			     "\"%s\" is a page-walk cache of the other ISA, not %s; known keys: %s",
			     unknown, tlbsim_isa_name(m->isa), known);
		jpath_pop(&c->path);
	} else {
		rc = jr_check_keys(c, pwc, ii->pwc_keys);
	}
	for (unsigned k = 0; !rc && ii->pwc_keys[k].key; k++) {
		const char *key = ii->pwc_keys[k].key;
		unsigned level = k + 1;

		if (level >= m->pt_levels && json_object_get(pwc, key)) {
			jpath_push_key(&c->path, key);
			rc = jr_fail(c, -TLBSIM_EPARSE, true,
				     "\"%s\" caches level %u, which needs page_table.levels %u, "
				     "found %u",
				     key, level, level + 1, m->pt_levels);
			jpath_pop(&c->path);
		} else {
			rc = opt_geom(c, pwc, key, pwc_geom_keys, &m->pwc[level]);
		}
	}
	jpath_pop(&c->path);
	return rc;
}

static int read_pte_latency(struct jr_ctx *c, const json_t *v, struct tlbsim_machine *m)
{
	unsigned levels = m->pt_levels;
	long long x = 0;
	int rc;

	if (json_is_integer(v)) {
		rc = jr_read_int(c, v, &LIM_LATENCY, &x);
		for (unsigned level = 0; !rc && level < levels; level++)
			m->pte_latency_cycles[level] = (unsigned)x;
		return rc;
	}
	if (!json_is_array(v))
		return jr_fail(c, -TLBSIM_EPARSE, false,
			       "expected an integer or an array of integers (cycles), found %s",
			       jr_type_name(v));
	if (json_array_size(v) != levels)
		return jr_fail(
		    c, -TLBSIM_ERANGE, false,
		    "expected %u latencies (one per page-table level, root first), found %zu",
		    levels, json_array_size(v));
	for (size_t i = 0; i < levels; i++) {
		jpath_push_index(&c->path, i);
		rc = jr_read_int(c, json_array_get(v, i), &LIM_LATENCY, &x);
		jpath_pop(&c->path);
		if (rc)
			return rc;
		m->pte_latency_cycles[levels - 1 - i] = (unsigned)x;
	}
	return 0;
}

static int read_walker(struct jr_ctx *c, const json_t *root, struct tlbsim_machine *m)
{
	const json_t *walker, *v;
	int rc = jr_opt_object(c, root, "walker", &walker);

	if (rc || !walker)
		return rc;
	jpath_push_key(&c->path, "walker");
	rc = jr_check_keys(c, walker, walker_keys);
	v = json_object_get(walker, "pte_latency");
	if (!rc && v) {
		jpath_push_key(&c->path, "pte_latency");
		rc = read_pte_latency(c, v, m);
		jpath_pop(&c->path);
	}
	jpath_pop(&c->path);
	return rc;
}

/* @param, a key of "sources", must name a key path of the machine's schema. */
static int check_source_path(struct jr_ctx *c, enum tlbsim_isa isa, const char *param)
{
	const struct jr_key *level = isa_info(isa)->root_keys;
	const char *p = param;
	char known[448]; /* the 32 cost names take ~390 bytes */

	for (;;) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		const struct jr_key *k = jr_find_key(level, p, n);
		const char *where = p == param ? "the top level" : param;
		int where_len = p == param ? (int)strlen(where) : (int)(p - param - 1);

		if (k && level == isa_info(isa)->root_keys && !strcmp(k->key, "sources"))
			return jr_fail(c, -TLBSIM_EPARSE, true,
				       "\"%.60s\" names no parameter: sources are citations",
				       param);
		if (!k) {
			jr_list_keys(level, known, sizeof(known));
			return jr_fail(
			    c, -TLBSIM_EPARSE, true,
			    "\"%.60s\" names no parameter: no key \"%.*s\" in %.*s; known "
			    "keys: %s",
			    param, (int)n, p, where_len, where, known);
		}
		if (!dot)
			return 0;
		if (!k->sub)
			return jr_fail(c, -TLBSIM_EPARSE, true,
				       "\"%.60s\" names no parameter: %.*s has no keys", param,
				       (int)(dot - param), param);
		level = k->sub;
		p = dot + 1;
	}
}

/* "errata": a list of erratum names (enum tlbsim_erratum in machine.h). */
static int read_errata(struct jr_ctx *c, const json_t *root, struct tlbsim_machine *m)
{
	const json_t *list = json_object_get(root, "errata"), *e;
	size_t i;
	int rc = 0;

	if (!list)
		return 0;
	if (!json_is_array(list))
		return jr_fail_at(
		    c, "errata", -TLBSIM_EPARSE,
		    "expected a list of erratum names such as [\"arm-1286807\"], found %s",
		    jr_type_name(list));
	json_array_foreach(list, i, e)
	{
		if (json_is_string(e) && !strcmp(json_string_value(e), "arm-1286807") &&
		    m->isa == TLBSIM_ISA_ARM64) {
			m->errata |= TLBSIM_ERRATUM_ARM64_1286807;
			continue;
		}
		rc = jr_fail_at(c, "errata", -TLBSIM_ERANGE, "item %zu: %s, found %s%s%s", i,
				m->isa == TLBSIM_ISA_ARM64
				    ? "a known arm64 erratum expected (\"arm-1286807\", "
				      "Cortex-A76/Neoverse-N1 repeat-TLBI)"
				    : "no erratum of this ISA is modelled (the list must be empty "
				      "or absent)",
				json_is_string(e) ? "\"" : "",
				json_is_string(e) ? json_string_value(e) : jr_type_name(e),
				json_is_string(e) ? "\"" : "");
		break;
	}
	return rc;
}

static int read_sources(struct jr_ctx *c, enum tlbsim_isa isa, const json_t *root)
{
	const json_t *sources;
	int rc = jr_opt_object(c, root, "sources", &sources);

	if (rc || !sources)
		return rc;
	jpath_push_key(&c->path, "sources");
	for (void *it = json_object_iter((json_t *)sources); !rc && it;
	     it = json_object_iter_next((json_t *)sources, it)) {
		const char *param = json_object_iter_key(it);
		const json_t *cite = json_object_iter_value(it);

		jpath_push_key(&c->path, param);
		rc = check_source_path(c, isa, param);
		if (!rc && !json_is_string(cite))
			rc = jr_fail(c, -TLBSIM_EPARSE, false,
				     "expected a citation string, found %s", jr_type_name(cite));
		if (!rc && json_string_length(cite) == 0)
			rc = jr_fail(
			    c, -TLBSIM_ERANGE, false,
			    "expected a citation such as \"CALIBRATION.md 7.7\", found \"\"");
		jpath_pop(&c->path);
	}
	jpath_pop(&c->path);
	return rc;
}

/* A machine named after its file: "models/machines/x.json" gives "x". */
static void name_from_source(char *name, const char *source)
{
	const char *slash = strrchr(source, '/');
	const char *base = slash ? slash + 1 : source;
	size_t n = strlen(base);

	if (n > 5 && strcmp(base + n - 5, ".json") == 0)
		n -= 5;
	if (n > NAME_MAX_BYTES)
		n = NAME_MAX_BYTES;
	if (n == 0) {
		base = "machine";
		n = strlen(base);
	}
	memcpy(name, base, n);
	name[n] = '\0';
}

static int read_machine(struct jr_ctx *c, const json_t *root, struct tlbsim_machine *m)
{
	const json_t *v;
	unsigned isa = 0, levels = 4;
	int rc;

	if (!json_is_object(root))
		return jr_fail(c, -TLBSIM_EPARSE, false,
			       "expected a JSON object at the top level, found %s",
			       jr_type_name(root));
	/* Both ISAs have the same top-level keys. */
	rc = jr_check_keys(c, root, root_x86_keys);
	if (rc)
		return rc;
	if (!json_object_get(root, "isa"))
		return jr_fail_at(c, "isa", -TLBSIM_EPARSE,
				  "missing required key \"isa\" (\"x86-64\" or \"arm64\")");
	rc = jr_opt_name(c, root, "isa", isa_names, &isa);
	if (!rc)
		rc = read_levels(c, root, (enum tlbsim_isa)isa, &levels);
	if (rc)
		return rc;
	set_defaults(m, (enum tlbsim_isa)isa, levels);
	name_from_source(m->name, c->source);
	v = json_object_get(root, "name");
	if (v) {
		jpath_push_key(&c->path, "name");
		if (!json_is_string(v))
			rc = jr_fail(c, -TLBSIM_EPARSE, false, "expected a string, found %s",
				     jr_type_name(v));
		else if (json_string_length(v) < 1 || json_string_length(v) > NAME_MAX_BYTES ||
			 strlen(json_string_value(v)) != json_string_length(v))
			rc = jr_fail(c, -TLBSIM_ERANGE, false,
				     "expected a name of 1..%d bytes, found %zu bytes",
				     NAME_MAX_BYTES, json_string_length(v));
		else
			memcpy(m->name, json_string_value(v), json_string_length(v) + 1);
		jpath_pop(&c->path);
	}
	if (!rc)
		rc = jr_opt_uint(c, root, "cores", &LIM_CORES, &m->nr_cpus);
	v = json_object_get(root, "freq_ghz");
	if (!rc && v) {
		if (!json_is_number(v))
			rc = jr_fail_at(c, "freq_ghz", -TLBSIM_EPARSE,
					"expected a number (GHz), found %s", jr_type_name(v));
		else
			m->freq_ghz = json_number_value(v); /* checked by check_machine() */
	}
	if (!rc)
		rc = jr_opt_uint(c, root, "asid_bits", &LIM_ASID_BITS, &m->asid_bits);
	if (!rc)
		rc = read_tlbs(c, root, m);
	if (!rc)
		rc = read_pwcs(c, root, m);
	if (!rc)
		rc = read_walker(c, root, m);
	if (!rc)
		rc = mach_read_topology(c, root, m);
	if (!rc)
		rc = mach_read_costs(c, root, m);
	if (!rc)
		rc = read_sources(c, m->isa, root);
	if (!rc)
		rc = read_errata(c, root, m);
	if (!rc)
		rc = check_machine(c, m);
	return rc;
}

static int load_text(const char *text, size_t len, const char *source, struct tlbsim_machine **out,
		     struct tlbsim_error *err)
{
	struct jr_ctx c = {.text = text, .len = len, .source = source, .err = err};
	struct tlbsim_machine *m;
	json_t *root;
	int rc;

	rc = jr_parse(&c, &root);
	if (rc)
		return rc;
	m = calloc(1, sizeof(*m));
	if (!m) {
		json_decref(root);
		return err_set(err, -TLBSIM_ENOMEM, source, -1, -1, -1, NULL, "out of memory");
	}
	rc = read_machine(&c, root, m);
	json_decref(root);
	if (rc) {
		tlbsim_machine_free(m); /* with a matrix read before the error */
		return rc;
	}
	*out = m;
	return 0;
}

/* A machine description is a few KiB; anything this big is the wrong file. */
#define MACHINE_FILE_MAX_BYTES ((size_t)1 << 20)

/* ---- public entry points ---- */

int tlbsim_machine_load_file(const char *path, struct tlbsim_machine **out,
			     struct tlbsim_error *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc;

	if (!path || !out)
		return err_set(err, -TLBSIM_EINVAL, path, -1, -1, -1, NULL,
			       "tlbsim_machine_load_file() needs a path and an output pointer");
	*out = NULL;
	rc = jr_read_file(path, MACHINE_FILE_MAX_BYTES, &text, &len, err);
	if (rc)
		return rc;
	rc = load_text(text, len, path, out, err);
	free(text);
	return rc;
}

int tlbsim_machine_load_string(const char *json, const char *source, struct tlbsim_machine **out,
			       struct tlbsim_error *err)
{
	if (!source)
		source = "<string>";
	if (!json || !out)
		return err_set(err, -TLBSIM_EINVAL, source, -1, -1, -1, NULL,
			       "tlbsim_machine_load_string() needs a text and an output pointer");
	*out = NULL;
	return load_text(json, strlen(json), source, out, err);
}

struct tlbsim_machine *tlbsim_machine_create_default(enum tlbsim_isa isa)
{
	struct tlbsim_machine *m;

	if (!isa_info(isa))
		return NULL;
	m = malloc(sizeof(*m));
	if (m)
		set_defaults(m, isa, 4);
	return m;
}

int tlbsim_machine_validate(const struct tlbsim_machine *m, struct tlbsim_error *err)
{
	char source[TLBSIM_NAME_LEN + 16];
	struct jr_ctx c = {.source = source, .err = err};

	if (!m)
		return err_set(err, -TLBSIM_EINVAL, "<machine>", -1, -1, -1, NULL,
			       "no machine given");
	snprintf(source, sizeof(source), "<machine:%.*s>", TLBSIM_NAME_LEN - 1, m->name);
	return check_machine(&c, m);
}

struct tlbsim_machine *tlbsim_machine_dup(const struct tlbsim_machine *m)
{
	struct tlbsim_machine *copy;
	size_t n;

	if (!m)
		return NULL;
	copy = malloc(sizeof(*copy));
	if (!copy)
		return NULL;
	*copy = *m;
	if (!m->topology.matrix)
		return copy;
	/* The matrix is the machine's own: each copy gets its own. */
	n = (size_t)m->nr_cpus * m->nr_cpus;
	copy->topology.matrix = malloc(n * sizeof(*copy->topology.matrix));
	if (!copy->topology.matrix) {
		free(copy);
		return NULL;
	}
	memcpy(copy->topology.matrix, m->topology.matrix, n * sizeof(*copy->topology.matrix));
	return copy;
}

void tlbsim_machine_free(struct tlbsim_machine *m)
{
	if (m)
		free(m->topology.matrix);
	free(m);
}

const char *tlbsim_isa_name(enum tlbsim_isa isa)
{
	for (const struct jr_name *n = isa_names; n->name; n++)
		if (n->val == (unsigned)isa)
			return n->name;
	return "unknown";
}
