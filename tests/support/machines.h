/* SPDX-License-Identifier: MIT */
/*
 * Test support: small machines with round numbers, so that expected
 * cycle counts can be worked out by hand.  Header-only.
 */
#ifndef TLBSIM_TESTS_MACHINES_H
#define TLBSIM_TESTS_MACHINES_H

#include <stdlib.h>
#include <string.h>

#include "tlbsim/machine.h"

/*
 * @nr_cpus cores in one cluster, one-way latency 100 cycles; every cost a
 * round number; no time slices unless set.  Free with tlbsim_machine_free.
 */
static inline struct tlbsim_machine *test_machine(enum tlbsim_isa isa, unsigned nr_cpus)
{
	struct tlbsim_machine *m = tlbsim_machine_create_default(isa);

	if (!m)
		abort();
	strcpy(m->name, isa == TLBSIM_ISA_X86_64 ? "test-x86" : "test-arm64");
	m->nr_cpus = nr_cpus;
	m->topology = (struct tlbsim_topology){.sockets = 1, .nodes_per_socket = 1,
					       .clusters_per_node = 1, .cores_per_cluster = nr_cpus,
					       .lat_cluster = 100, .lat_node = 100,
					       .lat_socket = 100, .lat_remote = 100};
	m->costs = (struct tlbsim_costs){
		.ipi_send = 100, .ipi_send_per_target = 10, .ipi_entry = 300, .ipi_handler = 100,
		.ipi_exit = 200, .invlpg = 200, .invpcid = 200, .cr3_write = 100, .flush_all = 500,
		.tlbi_local = 20, .dsb = 10, .isb = 10, .tlbi_issue = 10, .dvm_service = 500,
		.tlbi_perform = 50, .tlbi_receive = 30,
		.invlpgb_issue = 40, .invlpgb_service = 200, .invlpgb_perform = 60,
		.invlpgb_receive = 20, .invlpgb_max_pages = isa == TLBSIM_ISA_X86_64 ? 8 : 0,
		.tlbsync = 10, .syscall = 500, .page_fault = 1000, .page_copy = 500,
		.pte_update = 10, .context_switch = 2000, .switch_mm = 100, .call_rcu = 50,
		.rcu_grace_min = 10000, .sched_slice = 0};
	return m;
}

#endif
