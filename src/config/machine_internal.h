/* SPDX-License-Identifier: MIT */
/*
 * The parts of the machine loader that describe the interconnect and the
 * mechanisms' costs (struct tlbsim_topology, struct tlbsim_costs), kept
 * apart from src/config/machine.c, which reads the per-core structures.  Both
 * files share the reading helpers of json_read.h; models/README.md
 * documents every key and default.  Internal (prefix mach_).
 */
#ifndef TLBSIM_MACHINE_INTERNAL_H
#define TLBSIM_MACHINE_INTERNAL_H

#include <jansson.h>

#include "config/json_read.h"
#include "tlbsim/machine.h"

/* Keys of the "topology" and "costs" objects, for the schema of "sources". */
extern const struct jr_key mach_topology_keys[];
extern const struct jr_key mach_costs_keys[];

/* The defaults: one socket, node and cluster holding @nr_cpus cores. */
void mach_default_topology(struct tlbsim_topology *t, unsigned nr_cpus);
/* The per-ISA cost defaults (3 GHz, models/README.md "Costs"). */
void mach_default_costs(struct tlbsim_costs *k, enum tlbsim_isa isa);

/*
 * Read the "topology" / "costs" members of @root into @m, when present.
 * m->nr_cpus must already be read.  A matrix is allocated into
 * m->topology.matrix (released by tlbsim_machine_free(), also on error).
 * Returns 0 or a negative TLBSIM_E* code reported through @c.
 */
int mach_read_topology(struct jr_ctx *c, const json_t *root, struct tlbsim_machine *m);
int mach_read_costs(struct jr_ctx *c, const json_t *root, struct tlbsim_machine *m);

/* Consistency checks shared by the loader and tlbsim_machine_validate(). */
int mach_check_topology(struct jr_ctx *c, const struct tlbsim_machine *m);
int mach_check_costs(struct jr_ctx *c, const struct tlbsim_machine *m);

#endif
