/* SPDX-License-Identifier: MIT */
/*
 * The latency rows a broadcast spreads by (fab_latency_rows()): the values
 * of the machine's levels or matrix, worked out by hand from the topology
 * below, and the same as tlbsim_machine_latency() pair by pair.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fabric/fabric.h"
#include "tlbsim/error.h"
#include "tlbsim/machine.h"

static struct tlbsim_machine *load(const char *json)
{
	struct tlbsim_machine *m = NULL;
	struct tlbsim_error err;

	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_machine_load_string(json, "<test>", &m, &err), 0);
	return m;
}

static void rows_follow_cluster_node_and_socket(void **state)
{
	/* 16 cores / (2 sockets x 2 nodes x 2 clusters) = 2 cores a cluster:
	 * core 5's cluster is {4, 5}, its node {4..7}, its socket {0..7}. */
	struct tlbsim_machine *m =
	    load("{\"isa\": \"x86-64\", \"cores\": 16, \"topology\": {\"sockets\": 2,"
		 " \"nodes_per_socket\": 2, \"clusters_per_node\": 2, \"latency\": {"
		 "\"cluster\": 10, \"node\": 20, \"socket\": 30, \"remote\": 40}}}");
	const uint64_t want[16] = {30, 30, 30, 30, 10, 0, 20, 20, 40, 40, 40, 40, 40, 40, 40, 40};
	uint64_t to[16], from[16];

	(void)state;
	fab_latency_rows(m, 5, to, from);
	assert_memory_equal(to, want, sizeof(want));
	assert_memory_equal(from, want, sizeof(want));
	for (unsigned s = 0; s < 16; s++) {
		fab_latency_rows(m, s, to, from);
		for (unsigned d = 0; d < 16; d++) {
			assert_int_equal(to[d], tlbsim_machine_latency(m, s, d));
			assert_int_equal(from[d], tlbsim_machine_latency(m, d, s));
		}
	}
	tlbsim_machine_free(m);
}

static void rows_of_an_asymmetric_matrix_keep_both_directions(void **state)
{
	struct tlbsim_machine *m =
	    load("{\"isa\": \"x86-64\", \"cores\": 3, \"topology\": {\"asymmetric\": true,"
		 " \"matrix\": [[0, 10, 20], [15, 0, 30], [25, 35, 0]]}}");
	const uint64_t to1[3] = {15, 0, 30}, from1[3] = {10, 0, 35};
	uint64_t to[3], from[3];

	(void)state;
	fab_latency_rows(m, 1, to, from);
	assert_memory_equal(to, to1, sizeof(to1));
	assert_memory_equal(from, from1, sizeof(from1));
	tlbsim_machine_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(rows_follow_cluster_node_and_socket),
	    cmocka_unit_test(rows_of_an_asymmetric_matrix_keep_both_directions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
