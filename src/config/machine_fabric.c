/* SPDX-License-Identifier: MIT */
/*
 * Machine descriptions, second part: the "topology" (how cores are grouped
 * and the one-way core-to-core latency, CALIBRATION.md section 2) and the
 * "costs" of the mechanisms (IPIs, local and broadcast TLB maintenance,
 * the OS paths; CALIBRATION.md sections 1 and 3-6).  The per-ISA cost
 * defaults come from CALIBRATION.md "Suggested default parameters", rows A
 * (arm64, eMAG-like) and F (x86-64, Intel-like), converted at a generic
 * 3 GHz; models/README.md gives the derivation of each.
 *
 * Same error rules as src/config/machine.c: -TLBSIM_EPARSE for unknown keys and
 * wrong JSON types, -TLBSIM_ERANGE for values out of range or inconsistent.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error_internal.h"
#include "config/machine_internal.h"

/* ---- limits (models/README.md lists them with their reasons) ---- */

/* Groups of cores: at most one per core, and cores are at most 4096. */
static const struct jr_limit LIM_GROUPS = {1, 4096};
/*
 * One-way latency between two distinct cores, cycles.  1e6 cycles is a
 * third of a millisecond at 3 GHz, over 1000 times the slowest link in
 * CALIBRATION.md (cross-socket ~200 ns, 2.2): a bigger value is a unit
 * mistake.  0 would let a message take effect in the window it was sent
 * in, which the engine forbids (engine.h).
 */
static const struct jr_limit LIM_HOP = {1, 1000000};
/* A shared cache line's transfer between two cores (the line model,
 * src/fabric/line.c): the same bound as a hop, and 0 for "not modelled". */
static const struct jr_limit LIM_LINE = {0, 1000000};
/*
 * A matrix holds nr_cpus^2 latencies (256 KiB of uint32_t at 256 cores);
 * its text for 512 cores would not fit the 1 MiB machine-file limit anyway.
 */
#define MATRIX_MAX_CORES 256u
/* Cycles; 1e9 is a third of a second at 3 GHz, more than any mechanism. */
static const struct jr_limit LIM_COST = {0, 1000000000LL};
/* rcu_grace_min and sched_slice: up to ~5.5 minutes at 3 GHz. */
static const struct jr_limit LIM_COST_LONG = {0, 1000000000000LL};
/* CPUID 8000_0008h EDX[15:0] + 1 (CALIBRATION.md 5.6): at most 65536. */
static const struct jr_limit LIM_INVLPGB_PAGES = {0, 65536};

/* ---- schema ---- */

static const struct jr_key latency_keys[] = {
    {"cluster", NULL}, {"node", NULL}, {"socket", NULL}, {"remote", NULL}, {NULL, NULL},
};

const struct jr_key mach_topology_keys[] = {
    {"sockets", NULL},
    {"nodes_per_socket", NULL},
    {"clusters_per_node", NULL},
    {"cores_per_cluster", NULL},
    {"latency", latency_keys},
    {"line", latency_keys},
    {"matrix", NULL},
    {"asymmetric", NULL},
    {NULL, NULL},
};

/*
 * Every field of struct tlbsim_costs, in struct order, with its limit: U
 * for an unsigned field, W for a uint64_t one.
 */
/* clang-format off */
#define COST_FIELDS(U, W)                                                      \
	U(ipi_send, COST) U(ipi_send_per_target, COST) U(ipi_entry, COST)      \
	U(ipi_handler, COST) U(ipi_exit, COST)                                 \
	U(invlpg, COST) U(invpcid, COST) U(cr3_write, COST) U(flush_all, COST) \
	U(tlbi_local, COST) U(dsb, COST) U(isb, COST)                          \
	U(tlbi_issue, COST) U(dvm_service, COST) U(tlbi_perform, COST)         \
	U(tlbi_receive, COST)                                                  \
	U(invlpgb_issue, COST) U(invlpgb_service, COST)                        \
	U(invlpgb_perform, COST) U(invlpgb_receive, COST)                      \
	U(invlpgb_max_pages, INVLPGB_PAGES) U(tlbsync, COST)                   \
	U(syscall, COST) U(page_fault, COST) U(page_copy, COST)                \
	U(pte_update, COST) U(context_switch, COST) U(switch_mm, COST)         \
	U(call_rcu, COST) U(lru_page, COST) U(atomic_rmw, COST)                \
	W(rcu_grace_min, COST_LONG) W(sched_slice, COST_LONG)

#define COST_KEY(f, lim) {#f, NULL},
const struct jr_key mach_costs_keys[] = {COST_FIELDS(COST_KEY, COST_KEY) {NULL, NULL}};

struct cost_field {
	const char *key;
	size_t off;
	bool wide; /* uint64_t, else unsigned */
	const struct jr_limit *lim;
};

#define COST_U(f, lim) {#f, offsetof(struct tlbsim_costs, f), false, &LIM_##lim},
#define COST_W(f, lim) {#f, offsetof(struct tlbsim_costs, f), true, &LIM_##lim},
static const struct cost_field cost_fields[] = {COST_FIELDS(COST_U, COST_W) {NULL, 0, false, NULL}};
/* clang-format on */

static long long cost_get(const struct tlbsim_costs *k, const struct cost_field *f)
{
	const char *p = (const char *)k + f->off;

	if (f->wide)
		return (long long)*(const uint64_t *)(const void *)p;
	return *(const unsigned *)(const void *)p;
}

static void cost_put(struct tlbsim_costs *k, const struct cost_field *f, long long v)
{
	char *p = (char *)k + f->off;

	if (f->wide)
		*(uint64_t *)(void *)p = (uint64_t)v;
	else
		*(unsigned *)(void *)p = (unsigned)v;
}

/* ---- defaults (models/README.md, "Topology" and "Costs") ---- */

void mach_default_topology(struct tlbsim_topology *t, unsigned nr_cpus)
{
	/* Generic: a line transfer inside a cluster ~33 ns at 3 GHz, farther
	 * groups slower, a socket link ~200 ns (CALIBRATION.md 2.1-2.2 give
	 * the same order on EPYC). */
	*t = (struct tlbsim_topology){
	    .sockets = 1,
	    .nodes_per_socket = 1,
	    .clusters_per_node = 1,
	    .cores_per_cluster = nr_cpus,
	    .lat_cluster = 100,
	    .lat_node = 150,
	    .lat_socket = 200,
	    .lat_remote = 600,
	};
}

/*
 * Row F (generic Intel-like), 3 GHz.  The IPI split: the first remote
 * target costs 0.78 us = 2340 cycles (1.4, F); the receiver's entry +
 * handler + exit ~1200 cycles (1.11); so
 * ipi_send = 2340 - 210 (per target) - 2 * 100 (latency there and back)
 * - 900 (entry + handler) - 216 (INVLPG) = 814.
 */
static const struct tlbsim_costs x86_costs = {
    .ipi_send = 814,
    .ipi_send_per_target = 210, /* 1.4: +70 ns per extra target */
    .ipi_entry = 400,		/* 1.11: ~1200 for the receiver, split M */
    .ipi_handler = 500,
    .ipi_exit = 300,
    .invlpg = 216,    /* 3.2 */
    .invpcid = 230,   /* 3.5: single-context ~1.85 x CR3 write; F */
    .cr3_write = 124, /* 3.2 */
    .flush_all = 960, /* 3.2: CR4.PGE toggle */
    /* No TLBI, DSB, ISB or DVM on x86: zero. */
    .invlpgb_issue = 150,     /* C: 50 ns */
    .invlpgb_service = 100,   /* placeholder: no data (5.5) */
    .invlpgb_perform = 216,   /* placeholder: as INVLPG (3.2) */
    .invlpgb_receive = 0,     /* placeholder: no data (5.5) */
    .invlpgb_max_pages = 0,   /* F: Intel-like, no INVLPGB */
    .tlbsync = 100,	      /* placeholder: no data (5.5) */
    .syscall = 1650,	      /* D from 3.9: 2119 - 2 x 216 (PTI) - 30 */
    .page_fault = 360,	      /* 6.4: 0.12 us */
    .page_copy = 1890,	      /* 6.6 (M): 0.75 us with the fault, minus 360 */
    .pte_update = 30,	      /* 6.7 (M): ~10 ns per PTE */
    .context_switch = 3000,   /* 6.5 (M): ~1 us */
    .switch_mm = 200,	      /* generic */
    .call_rcu = 105,	      /* 6.8 (M): ~35 ns */
    .lru_page = 0,	      /* no lru_lock contention unless a machine sets it */
    .atomic_rmw = 0,	      /* no shared-line costs unless a machine sets them */
    .rcu_grace_min = 3000000, /* 6.8 (M): 1 ms */
    .sched_slice = 9000000,   /* generic: 3 ms */
};

/*
 * Row A (Ampere eMAG), 3 GHz.  No arm64 IPI figure: the x86 split reused,
 * with TLBI + DSB (200) as the handler's flush: 2340 - 210 - 200 - 900 -
 * 200 = 830.
 */
static const struct tlbsim_costs arm64_costs = {
    .ipi_send = 830,
    .ipi_send_per_target = 210,
    .ipi_entry = 400,
    .ipi_handler = 500,
    .ipi_exit = 300,
    /* No INVLPG, INVPCID or CR3 on arm64: zero. */
    .flush_all = 200,	    /* A (M): local ASID flush ~200 */
    .tlbi_local = 150,	    /* A (M): TLBI + DSB NSH ~200, split */
    .dsb = 50,		    /* A (M) */
    .isb = 20,		    /* generic */
    .tlbi_issue = 30,	    /* placeholder */
    .dvm_service = 10200,   /* 4.4 (D): 3.4 us per broadcast, serialised */
    .tlbi_perform = 100,    /* placeholder (4.13, M) */
    .tlbi_receive = 6300,   /* D from 4.7: 20% of a ~10.5 us period */
    .syscall = 1500,	    /* 6.7 (M): 0.5 us */
    .page_fault = 3000,	    /* 6.6 (M): 1-2 us with zeroing on eMAG/TX2 */
    .page_copy = 1500,	    /* generic: 0.5 us per 4 KiB */
    .pte_update = 17,	    /* D from 6.9: (19500 - 1500 - 200) / 1024 */
    .context_switch = 3000, /* 6.5 (M) */
    .switch_mm = 200,
    .call_rcu = 105,
    .lru_page = 0,
    .atomic_rmw = 0,
    .rcu_grace_min = 3000000,
    .sched_slice = 9000000,
};

void mach_default_costs(struct tlbsim_costs *k, enum tlbsim_isa isa)
{
	*k = isa == TLBSIM_ISA_ARM64 ? arm64_costs : x86_costs;
}

/* ---- reading ---- */

static int read_bool(struct jr_ctx *c, const json_t *obj, const char *key, bool *out)
{
	const json_t *v = json_object_get(obj, key);

	if (!v)
		return 0;
	if (!json_is_boolean(v))
		return jr_fail_at(c, key, -TLBSIM_EPARSE, "expected true or false, found %s",
				  jr_type_name(v));
	*out = json_is_true(v);
	return 0;
}

/* The four levels of "latency" or "line" (@key) into @lv (cluster, node,
 * socket, remote), each in @lim. */
static int read_levels(struct jr_ctx *c, const json_t *topo, const char *key,
		       const struct jr_limit *lim, unsigned *const lv[4])
{
	static const char *const level[4] = {"cluster", "node", "socket", "remote"};
	const json_t *obj;
	int rc = jr_opt_object(c, topo, key, &obj);

	if (rc || !obj)
		return rc;
	jpath_push_key(&c->path, key);
	rc = jr_check_keys(c, obj, latency_keys);
	for (unsigned i = 0; !rc && i < 4; i++)
		rc = jr_opt_uint(c, obj, level[i], lim, lv[i]);
	jpath_pop(&c->path);
	return rc;
}

/* One latency of the matrix: 0 on the diagonal, else in LIM_HOP. */
static int check_matrix_entry(struct jr_ctx *c, unsigned from, unsigned to, long long v)
{
	if (from == to && v != 0)
		return jr_fail(c, -TLBSIM_ERANGE, false,
			       "expected 0 on the diagonal (core %u to itself), found %lld", from,
			       v);
	if (from != to)
		return jr_check_range(c, v, &LIM_HOP);
	return 0;
}

static int matrix_too_big(struct jr_ctx *c, unsigned n)
{
	return jr_fail(c, -TLBSIM_ERANGE, false,
		       "a latency matrix is limited to %u cores (it takes cores^2 entries of "
		       "memory), found %u cores: describe this machine with \"latency\" levels",
		       MATRIX_MAX_CORES, n);
}

/* Row @i of the matrix, into @row (@n entries). */
static int read_matrix_row(struct jr_ctx *c, const json_t *v, unsigned i, unsigned n, uint32_t *row)
{
	int rc = 0;

	if (!json_is_array(v))
		return jr_fail(c, -TLBSIM_EPARSE, false,
			       "expected an array of %u latencies (cycles), found %s", n,
			       jr_type_name(v));
	if (json_array_size(v) != n)
		return jr_fail(c, -TLBSIM_ERANGE, false,
			       "expected %u latencies (one per core), found %zu", n,
			       json_array_size(v));
	for (unsigned j = 0; !rc && j < n; j++) {
		const json_t *x = json_array_get(v, j);

		jpath_push_index(&c->path, j);
		if (!json_is_integer(x))
			rc = jr_fail(c, -TLBSIM_EPARSE, false,
				     "expected an integer (cycles), found %s", jr_type_name(x));
		else
			rc = check_matrix_entry(c, i, j, json_integer_value(x));
		if (!rc)
			row[j] = (uint32_t)json_integer_value(x);
		jpath_pop(&c->path);
	}
	return rc;
}

/* In document order, the first [i][j] (j < i) that differs from [j][i]. */
static int check_symmetric(struct jr_ctx *c, const uint32_t *mat, unsigned n)
{
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = 0; j < i; j++) {
			int rc;

			if (mat[i * n + j] == mat[j * n + i])
				continue;
			jpath_push_index(&c->path, i);
			jpath_push_index(&c->path, j);
			rc = jr_fail(c, -TLBSIM_ERANGE, false,
				     "expected %u, as matrix[%u][%u] (the matrix must be symmetric "
				     "unless \"asymmetric\": true), found %u",
				     mat[j * n + i], j, i, mat[i * n + j]);
			jpath_pop(&c->path);
			jpath_pop(&c->path);
			return rc;
		}
	return 0;
}

static int read_matrix(struct jr_ctx *c, const json_t *v, bool asymmetric, struct tlbsim_machine *m)
{
	unsigned n = m->nr_cpus;
	uint32_t *mat;
	int rc = 0;

	if (n > MATRIX_MAX_CORES)
		return matrix_too_big(c, n);
	if (!json_is_array(v))
		return jr_fail(c, -TLBSIM_EPARSE, false,
			       "expected an array of %u rows of %u latencies (cycles), found %s", n,
			       n, jr_type_name(v));
	if (json_array_size(v) != n)
		return jr_fail(c, -TLBSIM_ERANGE, false,
			       "expected %u rows (one per core, the sender), found %zu", n,
			       json_array_size(v));
	mat = malloc((size_t)n * n * sizeof(*mat));
	if (!mat)
		return jr_fail(c, -TLBSIM_ENOMEM, false, "out of memory for a %u x %u matrix", n,
			       n);
	/* Owned by the machine from here on, freed with it even on error. */
	m->topology.matrix = mat;
	for (unsigned i = 0; !rc && i < n; i++) {
		jpath_push_index(&c->path, i);
		rc = read_matrix_row(c, json_array_get(v, i), i, n, mat + (size_t)i * n);
		jpath_pop(&c->path);
	}
	if (!rc && !asymmetric)
		rc = check_symmetric(c, mat, n);
	return rc;
}

/*
 * Without cores_per_cluster, the clusters share the cores evenly: cores /
 * (sockets * nodes_per_socket * clusters_per_node), which must divide.
 */
static int derive_cores_per_cluster(struct jr_ctx *c, struct tlbsim_machine *m)
{
	struct tlbsim_topology *t = &m->topology;
	uint64_t groups = (uint64_t)t->sockets * t->nodes_per_socket * t->clusters_per_node;

	if (m->nr_cpus % groups == 0) {
		t->cores_per_cluster = (unsigned)(m->nr_cpus / groups);
		return 0;
	}
	return jr_fail(c, -TLBSIM_ERANGE, false,
		       "cores = %u is not a multiple of sockets * nodes_per_socket * "
		       "clusters_per_node = %u * %u * %u = %llu: give cores_per_cluster",
		       m->nr_cpus, t->sockets, t->nodes_per_socket, t->clusters_per_node,
		       (unsigned long long)groups);
}

int mach_read_topology(struct jr_ctx *c, const json_t *root, struct tlbsim_machine *m)
{
	struct tlbsim_topology *t = &m->topology;
	const json_t *topo, *mat;
	bool asymmetric = false;
	int rc = jr_opt_object(c, root, "topology", &topo);

	mach_default_topology(t, m->nr_cpus);
	if (rc || !topo)
		return rc;
	jpath_push_key(&c->path, "topology");
	rc = jr_check_keys(c, topo, mach_topology_keys);
	if (!rc)
		rc = jr_opt_uint(c, topo, "sockets", &LIM_GROUPS, &t->sockets);
	if (!rc)
		rc = jr_opt_uint(c, topo, "nodes_per_socket", &LIM_GROUPS, &t->nodes_per_socket);
	if (!rc)
		rc = jr_opt_uint(c, topo, "clusters_per_node", &LIM_GROUPS, &t->clusters_per_node);
	if (!rc && json_object_get(topo, "cores_per_cluster"))
		rc = jr_opt_uint(c, topo, "cores_per_cluster", &LIM_GROUPS, &t->cores_per_cluster);
	else if (!rc)
		rc = derive_cores_per_cluster(c, m);
	if (!rc)
		rc = read_levels(c, topo, "latency", &LIM_HOP,
				 (unsigned *const[4]){&t->lat_cluster, &t->lat_node, &t->lat_socket,
						      &t->lat_remote});
	if (!rc)
		rc = read_levels(c, topo, "line", &LIM_LINE,
				 (unsigned *const[4]){&t->line_cluster, &t->line_node,
						      &t->line_socket, &t->line_remote});
	if (!rc)
		rc = read_bool(c, topo, "asymmetric", &asymmetric);
	mat = json_object_get(topo, "matrix");
	if (!rc && asymmetric && !mat)
		rc = jr_fail_at(c, "asymmetric", -TLBSIM_ERANGE,
				"\"asymmetric\" describes a matrix, and there is no \"matrix\"");
	if (!rc && mat) {
		jpath_push_key(&c->path, "matrix");
		rc = read_matrix(c, mat, asymmetric, m);
		jpath_pop(&c->path);
	}
	jpath_pop(&c->path);
	return rc;
}

int mach_read_costs(struct jr_ctx *c, const json_t *root, struct tlbsim_machine *m)
{
	const json_t *costs;
	int rc = jr_opt_object(c, root, "costs", &costs);

	if (rc || !costs)
		return rc;
	jpath_push_key(&c->path, "costs");
	rc = jr_check_keys(c, costs, mach_costs_keys);
	for (const struct cost_field *f = cost_fields; !rc && f->key; f++) {
		const json_t *v = json_object_get(costs, f->key);
		long long x = 0;

		if (!v)
			continue;
		jpath_push_key(&c->path, f->key);
		rc = jr_read_int(c, v, f->lim, &x);
		jpath_pop(&c->path);
		if (!rc)
			cost_put(&m->costs, f, x);
	}
	jpath_pop(&c->path);
	return rc;
}

/* ---- consistency checks ---- */

/* @v (cluster, node, socket, remote) in @lim and, unless @any_order, not
 * decreasing; the path is @key's ("latency" or "line"). */
static int check_levels(struct jr_ctx *c, const char *key, const unsigned v[4],
			const struct jr_limit *lim, bool any_order)
{
	static const char *const level[4] = {"cluster", "node", "socket", "remote"};
	int rc = 0;

	jpath_push_key(&c->path, key);
	for (unsigned i = 0; !rc && i < 4; i++)
		rc = jr_check_range_at(c, level[i], v[i], lim);
	for (unsigned i = 1; !rc && !any_order && i < 4; i++)
		if (v[i] < v[i - 1])
			rc = jr_fail_at(
			    c, level[i], -TLBSIM_ERANGE,
			    "expected %s >= %s = %u (%s do not decrease from cluster to "
			    "node to socket to remote%s), found %u",
			    level[i], level[i - 1], v[i - 1],
			    !strcmp(key, "line") ? "line transfers" : "latencies",
			    !strcmp(key, "line") ? "" : "; give a \"matrix\" otherwise", v[i]);
	jpath_pop(&c->path);
	return rc;
}

static int check_matrix(struct jr_ctx *c, const struct tlbsim_machine *m)
{
	unsigned n = m->nr_cpus;
	int rc = 0;

	jpath_push_key(&c->path, "matrix");
	if (n > MATRIX_MAX_CORES)
		rc = matrix_too_big(c, n);
	for (unsigned i = 0; !rc && i < n; i++)
		for (unsigned j = 0; !rc && j < n; j++) {
			jpath_push_index(&c->path, i);
			jpath_push_index(&c->path, j);
			rc = check_matrix_entry(c, i, j, m->topology.matrix[(size_t)i * n + j]);
			jpath_pop(&c->path);
			jpath_pop(&c->path);
		}
	jpath_pop(&c->path);
	return rc;
}

int mach_check_topology(struct jr_ctx *c, const struct tlbsim_machine *m)
{
	const struct tlbsim_topology *t = &m->topology;
	uint64_t product;
	int rc;

	jpath_push_key(&c->path, "topology");
	rc = jr_check_range_at(c, "sockets", t->sockets, &LIM_GROUPS);
	if (!rc)
		rc = jr_check_range_at(c, "nodes_per_socket", t->nodes_per_socket, &LIM_GROUPS);
	if (!rc)
		rc = jr_check_range_at(c, "clusters_per_node", t->clusters_per_node, &LIM_GROUPS);
	if (!rc)
		rc = jr_check_range_at(c, "cores_per_cluster", t->cores_per_cluster, &LIM_GROUPS);
	product = (uint64_t)t->sockets * t->nodes_per_socket * t->clusters_per_node *
		  t->cores_per_cluster;
	if (!rc && product != m->nr_cpus)
		rc = jr_fail(c, -TLBSIM_ERANGE, false,
			     "expected sockets * nodes_per_socket * clusters_per_node * "
			     "cores_per_cluster = cores = %u, found %u * %u * %u * %u = %llu",
			     m->nr_cpus, t->sockets, t->nodes_per_socket, t->clusters_per_node,
			     t->cores_per_cluster, (unsigned long long)product);
	/* With a matrix the latency levels are not used, so their order is
	 * free; the line levels are always used. */
	if (!rc)
		rc = check_levels(
		    c, "latency",
		    (const unsigned[4]){t->lat_cluster, t->lat_node, t->lat_socket, t->lat_remote},
		    &LIM_HOP, t->matrix != NULL);
	if (!rc)
		rc = check_levels(c, "line",
				  (const unsigned[4]){t->line_cluster, t->line_node, t->line_socket,
						      t->line_remote},
				  &LIM_LINE, false);
	if (!rc && t->matrix)
		rc = check_matrix(c, m);
	jpath_pop(&c->path);
	return rc;
}

int mach_check_costs(struct jr_ctx *c, const struct tlbsim_machine *m)
{
	int rc = 0;

	jpath_push_key(&c->path, "costs");
	for (const struct cost_field *f = cost_fields; !rc && f->key; f++)
		rc = jr_check_range_at(c, f->key, cost_get(&m->costs, f), f->lim);
	/* INVLPGB is AMD's (x86) instruction; arm64 broadcasts with TLBI IS. */
	if (!rc && m->isa == TLBSIM_ISA_ARM64 && m->costs.invlpgb_max_pages)
		rc = jr_fail_at(c, "invlpgb_max_pages", -TLBSIM_ERANGE,
				"arm64 has no INVLPGB (an AMD x86-64 instruction): expected 0, "
				"found %u",
				m->costs.invlpgb_max_pages);
	jpath_pop(&c->path);
	return rc;
}
