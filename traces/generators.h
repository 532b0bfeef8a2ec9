/* SPDX-License-Identifier: MIT */
/* The built-in generators, one traces/gen_NAME.c each (internal). */
#ifndef TLBSIM_TRACES_GENERATORS_H
#define TLBSIM_TRACES_GENERATORS_H

#include "tlbsim/gen.h"

extern const struct tlbsim_generator trace_gen_mprotect_toggle;
extern const struct tlbsim_generator trace_gen_madvise_threads;
extern const struct tlbsim_generator trace_gen_munmap_churn;
extern const struct tlbsim_generator trace_gen_ctx_switch;
extern const struct tlbsim_generator trace_gen_hackbench;
extern const struct tlbsim_generator trace_gen_short_procs;
extern const struct tlbsim_generator trace_gen_page_faults;
extern const struct tlbsim_generator trace_gen_stencil_noise;
extern const struct tlbsim_generator trace_gen_small_free;
extern const struct tlbsim_generator trace_gen_spawn;
extern const struct tlbsim_generator trace_gen_kthread_mm;
extern const struct tlbsim_generator trace_gen_reclaim;
extern const struct tlbsim_generator trace_gen_tcmalloc_large_heap;

/* Add a generator: declare it here and append it to GENERATOR_LIST. */
#define GENERATOR_LIST                                                                             \
	&trace_gen_mprotect_toggle, &trace_gen_madvise_threads, &trace_gen_munmap_churn,           \
	    &trace_gen_ctx_switch, &trace_gen_hackbench, &trace_gen_short_procs,                   \
	    &trace_gen_page_faults, &trace_gen_stencil_noise, &trace_gen_small_free,               \
	    &trace_gen_spawn, &trace_gen_kthread_mm, &trace_gen_reclaim,                           \
	    &trace_gen_tcmalloc_large_heap,

#endif
