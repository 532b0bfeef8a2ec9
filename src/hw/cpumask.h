/* SPDX-License-Identifier: MIT */
/*
 * Fixed-width cpu bitmaps (Linux's struct cpumask), sized for NR_CPUS =
 * 4096 as on enterprise arm64 kernels.  A test or set is one word
 * operation; walking a mask skips empty words, so a multicast costs per
 * target, not per possible cpu.
 */
#ifndef TLBSIM_HW_CPUMASK_H
#define TLBSIM_HW_CPUMASK_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define HW_NR_CPUS 4096
#define HW_CPUMASK_WORDS (HW_NR_CPUS / 64)

struct cpumask {
	uint64_t w[HW_CPUMASK_WORDS];
};

static inline void cpumask_clear_all(struct cpumask *m)
{
	memset(m, 0, sizeof(*m));
}

static inline void cpumask_set(struct cpumask *m, unsigned cpu)
{
	m->w[cpu / 64] |= 1ull << (cpu % 64);
}

static inline void cpumask_clear(struct cpumask *m, unsigned cpu)
{
	m->w[cpu / 64] &= ~(1ull << (cpu % 64));
}

static inline bool cpumask_test(const struct cpumask *m, unsigned cpu)
{
	return (m->w[cpu / 64] >> (cpu % 64)) & 1;
}

static inline unsigned cpumask_weight(const struct cpumask *m)
{
	unsigned i, n = 0;

	for (i = 0; i < HW_CPUMASK_WORDS; i++)
		n += (unsigned)__builtin_popcountll(m->w[i]);
	return n;
}

/* The first set cpu at or after @cpu, or HW_NR_CPUS if none. */
static inline unsigned cpumask_next(const struct cpumask *m, unsigned cpu)
{
	unsigned i = cpu / 64;
	uint64_t word;

	if (cpu >= HW_NR_CPUS)
		return HW_NR_CPUS;
	word = m->w[i] & (~0ull << (cpu % 64));
	for (;;) {
		if (word)
			return i * 64 + (unsigned)__builtin_ctzll(word);
		if (++i == HW_CPUMASK_WORDS)
			return HW_NR_CPUS;
		word = m->w[i];
	}
}

#define for_each_cpu(cpu, mask)                                                                    \
	for ((cpu) = cpumask_next((mask), 0); (cpu) < HW_NR_CPUS; (cpu) = cpumask_next((mask), (cpu) + 1))

#endif
