/* SPDX-License-Identifier: MIT */
/* The built-in policies, one file each in policies/ (internal). */
#ifndef TLBSIM_POLICIES_H
#define TLBSIM_POLICIES_H

#include "tlbsim/policy.h"

extern const struct tlbsim_policy tlbsim_policy_x86_stock;
extern const struct tlbsim_policy tlbsim_policy_x86_lazy_cpumask;
extern const struct tlbsim_policy tlbsim_policy_x86_invlpgb;
extern const struct tlbsim_policy tlbsim_policy_arm64_stock;
extern const struct tlbsim_policy tlbsim_policy_arm64_nr_active_mm;
extern const struct tlbsim_policy tlbsim_policy_rcu_table_free;
extern const struct tlbsim_policy tlbsim_policy_flush_all;

#endif
