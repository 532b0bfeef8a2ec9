/* SPDX-License-Identifier: MIT */
/* Small jansson helpers shared by the report writers. */
#ifndef TLBSIM_REPORT_JSON_UTIL_H
#define TLBSIM_REPORT_JSON_UTIL_H

#include <jansson.h>
#include <stdint.h>

#include "tlbsim/mmu.h"

/*
 * Set @key of @obj to the counter @v.  jansson integers are signed 64-bit
 * (json_int_t); counters never reach 2^63 in a run, and a value that did
 * would be clamped rather than wrap negative.
 */
static inline void rep_json_set_u64(json_t *obj, const char *key, uint64_t v)
{
	json_object_set_new(obj, key, json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v));
}

/* The MMU counters as a new JSON object (caller owns the reference). */
json_t *rep_mmu_stats_json(const struct tlbsim_mmu_stats *s);

#endif
