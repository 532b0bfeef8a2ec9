/* SPDX-License-Identifier: MIT */
/*
 * Cpu bitmaps (Linux's struct cpumask), sized for NR_CPUS = 4096 as on
 * enterprise arm64 kernels.  A test or set is one word operation; walking a
 * mask skips empty words, so a multicast costs per target and per word, and
 * walking the cpus of a machine (tlbsim_for_each_cpu_below()) per word of
 * its cpus, not of every possible cpu.
 */
#ifndef TLBSIM_CPUMASK_H
#define TLBSIM_CPUMASK_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest number of cpus a machine may have (Linux NR_CPUS on arm64). */
#define TLBSIM_NR_CPUS 4096
#define TLBSIM_CPUMASK_WORDS (TLBSIM_NR_CPUS / 64)

/* One bit per cpu; cpu i is bit i % 64 of word i / 64. */
struct tlbsim_cpumask {
	uint64_t w[TLBSIM_CPUMASK_WORDS];
};

/* Clear every bit of @m. */
static inline void tlbsim_cpumask_zero(struct tlbsim_cpumask *m)
{
	memset(m, 0, sizeof(*m));
}

/* Set the bits of cpus 0..@nr_cpus-1 of @m, clear the others. */
static inline void tlbsim_cpumask_fill(struct tlbsim_cpumask *m, unsigned nr_cpus)
{
	unsigned i;

	tlbsim_cpumask_zero(m);
	for (i = 0; i < nr_cpus / 64; i++)
		m->w[i] = ~0ull;
	if (nr_cpus % 64)
		m->w[nr_cpus / 64] = (1ull << (nr_cpus % 64)) - 1;
}

/* Set cpu @cpu's bit (@cpu < TLBSIM_NR_CPUS). */
static inline void tlbsim_cpumask_set(struct tlbsim_cpumask *m, unsigned cpu)
{
	m->w[cpu / 64] |= 1ull << (cpu % 64);
}

/* Clear cpu @cpu's bit. */
static inline void tlbsim_cpumask_clear(struct tlbsim_cpumask *m, unsigned cpu)
{
	m->w[cpu / 64] &= ~(1ull << (cpu % 64));
}

/*
 * Set or clear a bit atomically: the only way a cpu may change a shared
 * mask (an mm's) from an IPI handler, which runs concurrently with other
 * cpus' handlers.  Atomic bit updates commute, so the result does not
 * depend on their order.
 */
static inline void tlbsim_cpumask_set_atomic(struct tlbsim_cpumask *m, unsigned cpu)
{
	__atomic_fetch_or(&m->w[cpu / 64], 1ull << (cpu % 64), __ATOMIC_RELAXED);
}

static inline void tlbsim_cpumask_clear_atomic(struct tlbsim_cpumask *m, unsigned cpu)
{
	__atomic_fetch_and(&m->w[cpu / 64], ~(1ull << (cpu % 64)), __ATOMIC_RELAXED);
}

/* Is cpu @cpu's bit set? */
static inline bool tlbsim_cpumask_test(const struct tlbsim_cpumask *m, unsigned cpu)
{
	return (m->w[cpu / 64] >> (cpu % 64)) & 1;
}

/* Number of bits set. */
static inline unsigned tlbsim_cpumask_weight(const struct tlbsim_cpumask *m)
{
	unsigned i, n = 0;

	for (i = 0; i < TLBSIM_CPUMASK_WORDS; i++)
		n += (unsigned)__builtin_popcountll(m->w[i]);
	return n;
}

/*
 * Is a bit other than cpu @cpu's set (Linux cpumask_any_but() <
 * nr_cpu_ids)?  Looks at the words holding cpus 0..@nr_cpus-1 only, a
 * machine's masks having no bit above them, and stops at the first word
 * with a bit; @cpu may be TLBSIM_NR_CPUS (no cpu excepted).
 */
static inline bool tlbsim_cpumask_any_but(const struct tlbsim_cpumask *m, unsigned cpu,
					  unsigned nr_cpus)
{
	unsigned i, n = nr_cpus < TLBSIM_NR_CPUS ? (nr_cpus + 63) / 64 : TLBSIM_CPUMASK_WORDS;

	for (i = 0; i < n; i++) {
		uint64_t word = m->w[i];

		if (i == cpu / 64)
			word &= ~(1ull << (cpu % 64));
		if (word)
			return true;
	}
	return false;
}

/* The first set cpu at or after @cpu, or TLBSIM_NR_CPUS if none. */
static inline unsigned tlbsim_cpumask_next(const struct tlbsim_cpumask *m, unsigned cpu)
{
	unsigned i = cpu / 64;
	uint64_t word;

	if (cpu >= TLBSIM_NR_CPUS)
		return TLBSIM_NR_CPUS;
	word = m->w[i] & (~0ull << (cpu % 64));
	for (;;) {
		if (word)
			return i * 64 + (unsigned)__builtin_ctzll(word);
		if (++i == TLBSIM_CPUMASK_WORDS)
			return TLBSIM_NR_CPUS;
		word = m->w[i];
	}
}

/* Iterate @cpu (unsigned) over the set bits of @mask, in increasing order. */
#define tlbsim_for_each_cpu(cpu, mask)                                                             \
	for ((cpu) = tlbsim_cpumask_next((mask), 0); (cpu) < TLBSIM_NR_CPUS;                       \
	     (cpu) = tlbsim_cpumask_next((mask), (cpu) + 1))

/* The first set cpu at or after @cpu and below @nr_cpus (at most
 * TLBSIM_NR_CPUS), or @nr_cpus if none: tlbsim_cpumask_next() that looks
 * at the words of cpus below @nr_cpus only. */
static inline unsigned tlbsim_cpumask_next_below(const struct tlbsim_cpumask *m, unsigned cpu,
						 unsigned nr_cpus)
{
	unsigned i = cpu / 64, words = (nr_cpus + 63) / 64, found;
	uint64_t word;

	if (cpu >= nr_cpus)
		return nr_cpus;
	word = m->w[i] & (~0ull << (cpu % 64));
	for (;;) {
		if (word) {
			found = i * 64 + (unsigned)__builtin_ctzll(word);
			return found < nr_cpus ? found : nr_cpus;
		}
		if (++i == words)
			return nr_cpus;
		word = m->w[i];
	}
}

/* Iterate @cpu (unsigned) over the set bits of @mask below @nr_cpus (a
 * machine's cpus: at most TLBSIM_NR_CPUS), in increasing order; a walk
 * costs per word of those cpus, not of all TLBSIM_NR_CPUS. */
#define tlbsim_for_each_cpu_below(cpu, mask, nr_cpus)                                              \
	for ((cpu) = tlbsim_cpumask_next_below((mask), 0, (nr_cpus)); (cpu) < (nr_cpus);           \
	     (cpu) = tlbsim_cpumask_next_below((mask), (cpu) + 1, (nr_cpus)))

#ifdef __cplusplus
}
#endif

#endif /* TLBSIM_CPUMASK_H */
