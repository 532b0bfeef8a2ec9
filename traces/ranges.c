/* SPDX-License-Identifier: MIT */
/*
 * A sorted array of disjoint inclusive address ranges (ranges.h).  A
 * program has a few hundred mappings at most, and readers look up the same
 * few ranges (code, stack, heap) again and again, so a sorted array with a
 * remembered position beats a tree here.
 */
#include <stdlib.h>
#include <string.h>

#include "ranges.h"
#include "tlbsim/error.h"

/* Index of the first range whose last byte is at or above @va (n if none). */
static size_t index_of(const struct trace_ranges *s, uint64_t va)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->r[mid].last < va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Replace ranges [@i, @j) by the @k ranges of @with. */
static int splice(struct trace_ranges *s, size_t i, size_t j, const struct trace_range *with,
		  size_t k)
{
	if (s->n - (j - i) + k > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct trace_range *r = realloc(s->r, cap * sizeof(*r));

		if (!r)
			return -TLBSIM_ENOMEM;
		s->r = r;
		s->cap = cap;
	}
	memmove(&s->r[i + k], &s->r[j], (s->n - j) * sizeof(*s->r));
	memcpy(&s->r[i], with, k * sizeof(*with));
	s->n = s->n - (j - i) + k;
	s->hint = i;
	return 0;
}

int trace_ranges_add(struct trace_ranges *s, uint64_t first, uint64_t last)
{
	struct trace_range m = {first, last};
	/* Ranges that overlap or touch [first, last] merge with it. */
	size_t i = index_of(s, first ? first - 1 : 0), j = i;

	while (j < s->n && (last == UINT64_MAX || s->r[j].first <= last + 1)) {
		if (s->r[j].first < m.first)
			m.first = s->r[j].first;
		if (s->r[j].last > m.last)
			m.last = s->r[j].last;
		j++;
	}
	return splice(s, i, j, &m, 1);
}

int trace_ranges_remove(struct trace_ranges *s, uint64_t first, uint64_t last)
{
	struct trace_range keep[2];
	size_t i = index_of(s, first), j = i, k = 0;

	while (j < s->n && s->r[j].first <= last)
		j++;
	if (j == i)
		return 0;
	if (s->r[i].first < first)
		keep[k++] = (struct trace_range){s->r[i].first, first - 1};
	if (s->r[j - 1].last > last)
		keep[k++] = (struct trace_range){last + 1, s->r[j - 1].last};
	return splice(s, i, j, keep, k);
}

bool trace_ranges_contains(struct trace_ranges *s, uint64_t va)
{
	size_t i = s->hint;

	if (i < s->n && s->r[i].first <= va && va <= s->r[i].last)
		return true;
	i = index_of(s, va);
	if (i < s->n && s->r[i].first <= va) {
		s->hint = i;
		return true;
	}
	return false;
}

bool trace_ranges_first_gap(const struct trace_ranges *s, uint64_t first, uint64_t last,
			    uint64_t *gap_first, uint64_t *gap_last)
{
	size_t i = index_of(s, first);

	if (i < s->n && s->r[i].first <= first) {
		if (s->r[i].last >= last)
			return false;
		first = s->r[i].last + 1;
		i++;
	}
	*gap_first = first;
	/* Merged ranges never touch, so the gap runs up to the next range. */
	*gap_last = i < s->n && s->r[i].first <= last ? s->r[i].first - 1 : last;
	return true;
}

void trace_ranges_free(struct trace_ranges *s)
{
	free(s->r);
	memset(s, 0, sizeof(*s));
}
