/* SPDX-License-Identifier: MIT */
/*
 * tlbsim: a cycle-approximate simulator of multi-core MMUs, TLBs and
 * operating-system TLB-flush policies.  Include this header for the whole
 * public API; each area has a header of its own that compiles alone.
 */
#ifndef TLBSIM_TLBSIM_H
#define TLBSIM_TLBSIM_H

#include "tlbsim/error.h"
#include "tlbsim/machine.h"
#include "tlbsim/mmu.h"
#include "tlbsim/pgtable.h"
#include "tlbsim/policy.h"
#include "tlbsim/sim.h"
#include "tlbsim/stats.h"
#include "tlbsim/cpumask.h"
#include "tlbsim/event.h"
#include "tlbsim/gen.h"
#include "tlbsim/template.h"
#include "tlbsim/trace.h"
#include "tlbsim/check.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * tlbsim_version() - the library's version
 *
 * Returns: a static string "MAJOR.MINOR.PATCH".
 */
TLBSIM_API const char *tlbsim_version(void);

#ifdef __cplusplus
}
#endif

#endif /* TLBSIM_TLBSIM_H */
