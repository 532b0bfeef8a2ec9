/* SPDX-License-Identifier: MIT */
/*
 * A set of address ranges: what foreign-trace readers (lackey, ChampSim)
 * know to be mapped, so that they can imply an MMAP for memory the input
 * uses without ever mapping it.  Sorted, disjoint, merged when they touch;
 * ranges are inclusive ([first, last]) so that one may end at 2^64 - 1.
 * Memory grows with the number of separate ranges (a program's mappings),
 * never with the trace's length.
 *
 * Internal to traces/.
 */
#ifndef TLBSIM_TRACES_RANGES_H
#define TLBSIM_TRACES_RANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trace_range {
	uint64_t first, last;
};

struct trace_ranges {
	struct trace_range *r;
	size_t n, cap;
	size_t hint; /* index of the range that answered the last lookup */
};

/* Add [@first, @last] (@first <= @last).  Returns 0 or -TLBSIM_ENOMEM. */
int trace_ranges_add(struct trace_ranges *s, uint64_t first, uint64_t last);

/* Remove [@first, @last].  Returns 0 or -TLBSIM_ENOMEM (a split). */
int trace_ranges_remove(struct trace_ranges *s, uint64_t first, uint64_t last);

/* Is @va in the set?  Remembers where it was found: lookups near the last are O(1). */
bool trace_ranges_contains(struct trace_ranges *s, uint64_t va);

/*
 * The first part of [@first, @last] not in the set: true and [*@gap_first,
 * *@gap_last], or false when all of it is in the set.
 */
bool trace_ranges_first_gap(const struct trace_ranges *s, uint64_t first, uint64_t last,
			    uint64_t *gap_first, uint64_t *gap_last);

void trace_ranges_free(struct trace_ranges *s);

#endif
