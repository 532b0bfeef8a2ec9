/* SPDX-License-Identifier: MIT */
/*
 * Core-to-core latency from the machine's topology: by the closest group
 * two cores share (cluster, NUMA node, socket), or from an explicit matrix.
 * The figures are cache-line transfer times (CALIBRATION.md section 2), the
 * wire time of an IPI and of its acknowledgement; the line model
 * (line.c) has its own levels, topology.line_*, by the same grouping.
 */
#include "fabric/fabric.h"

/* The closest group @from and @to share: 0 cluster, 1 node, 2 socket, 3
 * none (another socket).  Cores are numbered cluster-major (machine.h). */
static unsigned level_of(const struct tlbsim_machine *m, unsigned from, unsigned to)
{
	const struct tlbsim_topology *t = &m->topology;
	unsigned per_cluster = t->cores_per_cluster ? t->cores_per_cluster : m->nr_cpus;
	unsigned per_node = per_cluster * (t->clusters_per_node ? t->clusters_per_node : 1);
	unsigned per_socket = per_node * (t->nodes_per_socket ? t->nodes_per_socket : 1);

	if (from / per_cluster == to / per_cluster)
		return 0;
	if (from / per_node == to / per_node)
		return 1;
	if (from / per_socket == to / per_socket)
		return 2;
	return 3;
}

uint64_t tlbsim_machine_latency(const struct tlbsim_machine *m, unsigned from, unsigned to)
{
	const struct tlbsim_topology *t = &m->topology;
	const unsigned lat[4] = {t->lat_cluster, t->lat_node, t->lat_socket, t->lat_remote};

	if (from == to)
		return 0;
	if (t->matrix)
		return t->matrix[(uint64_t)from * m->nr_cpus + to];
	return lat[level_of(m, from, to)];
}

void fab_latency_rows(const struct tlbsim_machine *m, unsigned src, uint64_t *to, uint64_t *from)
{
	const struct tlbsim_topology *t = &m->topology;
	unsigned per_cluster = t->cores_per_cluster ? t->cores_per_cluster : m->nr_cpus;
	unsigned per_node = per_cluster * (t->clusters_per_node ? t->clusters_per_node : 1);
	unsigned per_socket = per_node * (t->nodes_per_socket ? t->nodes_per_socket : 1);
	/* level_of()'s groups of @src, as ranges of core ids */
	unsigned c0 = src / per_cluster * per_cluster, n0 = src / per_node * per_node;
	unsigned s0 = src / per_socket * per_socket;

	for (unsigned d = 0; d < m->nr_cpus; d++) {
		uint64_t l;

		if (t->matrix) {
			to[d] = t->matrix[(uint64_t)src * m->nr_cpus + d];
			from[d] = t->matrix[(uint64_t)d * m->nr_cpus + src];
			continue;
		}
		if (d - c0 < per_cluster)
			l = t->lat_cluster;
		else if (d - n0 < per_node)
			l = t->lat_node;
		else if (d - s0 < per_socket)
			l = t->lat_socket;
		else
			l = t->lat_remote;
		to[d] = from[d] = l;
	}
	to[src] = from[src] = 0;
}

uint64_t fab_line_latency(const struct tlbsim_machine *m, unsigned from, unsigned to)
{
	const struct tlbsim_topology *t = &m->topology;
	const unsigned lat[4] = {t->line_cluster, t->line_node, t->line_socket, t->line_remote};

	return from == to ? 0 : lat[level_of(m, from, to)];
}

unsigned fab_node_of(const struct tlbsim_machine *m, unsigned cpu)
{
	const struct tlbsim_topology *t = &m->topology;
	unsigned per_node = t->cores_per_cluster * t->clusters_per_node;

	return per_node ? cpu / per_node : 0;
}

uint64_t fab_min_latency(const struct tlbsim_machine *m)
{
	uint64_t best = UINT64_MAX;
	unsigned a, b;

	if (m->nr_cpus < 2)
		return UINT64_MAX;
	if (m->topology.matrix) {
		for (a = 0; a < m->nr_cpus; a++)
			for (b = 0; b < m->nr_cpus; b++)
				if (a != b &&
				    m->topology.matrix[(uint64_t)a * m->nr_cpus + b] < best)
					best = m->topology.matrix[(uint64_t)a * m->nr_cpus + b];
		return best;
	}
	/* With a regular hierarchy, core 0 sees every level that exists. */
	for (b = 1; b < m->nr_cpus; b++) {
		uint64_t l = tlbsim_machine_latency(m, 0, b);

		if (l < best)
			best = l;
	}
	return best;
}
