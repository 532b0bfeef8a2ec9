/* SPDX-License-Identifier: MIT */
/*
 * What every benchmark program measures with: wall-clock and cpu seconds
 * and the peak resident set (POSIX clock_gettime(), getrusage()).
 */
#ifndef TLBSIM_BENCH_H
#define TLBSIM_BENCH_H

#include <sys/resource.h>
#include <time.h>

/* Seconds of CLOCK_MONOTONIC: differences are wall-clock time. */
static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds of cpu time (user + system) this process has used. */
static inline double bench_cpu_now(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

/* This process's peak resident set so far, KiB (ru_maxrss on Linux). */
static inline long bench_peak_rss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

#endif
