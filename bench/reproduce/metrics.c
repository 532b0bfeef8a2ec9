/* SPDX-License-Identifier: MIT */
/*
 * Metrics of the reproduction suite from a run's statistics JSON
 * (docs/stats-schema.md).  The TLB-invalidation share follows what a
 * profile of the kernel attributes to TLB flushing in will-it-scale's
 * tlb_flush2_threads (R. van Riel, "AMD broadcast TLB invalidation" v13,
 * 2025: ~40% of cpu time with IPIs, ~4% with INVLPGB; CALIBRATION.md
 * 5.2): the initiator's own flush work, its wait for the flush to complete,
 * and the time the flush takes from the other cpus.
 */
#include "bench/reproduce/metrics.h"

#include <string.h>

static const char *const names[] = {
    [REPRO_SECONDS] = "seconds",
    [REPRO_FLUSH_SHARE] = "flush_share",
    [REPRO_FLUSH_SHARE_ALL] = "flush_share_all",
    [REPRO_RATE] = "rate",
    [REPRO_NS_PER_SWITCH] = "ns_per_switch",
    [REPRO_FAULTS_RATE] = "faults_rate",
    [REPRO_CPU_RATE] = "cpu_rate",
};

static const char *const units[] = {
    [REPRO_SECONDS] = "s", [REPRO_FLUSH_SHARE] = "%",	 [REPRO_FLUSH_SHARE_ALL] = "%",
    [REPRO_RATE] = "/s",   [REPRO_NS_PER_SWITCH] = "ns", [REPRO_FAULTS_RATE] = "/s", [REPRO_CPU_RATE] = "/s",
};

int repro_metric_kind(const char *name)
{
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return (int)i;
	return -1;
}

const char *repro_metric_name(enum repro_metric_kind kind)
{
	return names[kind];
}

const char *repro_metric_unit(enum repro_metric_kind kind)
{
	return units[kind];
}

bool repro_metric_lower_is_better(enum repro_metric_kind kind)
{
	return kind != REPRO_RATE && kind != REPRO_FAULTS_RATE && kind != REPRO_CPU_RATE;
}

/* A counter of @o: -1 when absent (an older schema), so that a missing
 * counter fails instead of reading as 0. */
static double counter(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? (double)json_integer_value(v) : -1.0;
}

/*
 * Cycles all cpus spent on TLB invalidation (totals over the cpus):
 *   flush_cycles             the initiators' own work in their flush
 *                            requests (flush instructions, IPI sends,
 *                            TLBI/INVLPGB issue)
 *   flush_wait_cycles        the initiators blocked on IPI acknowledgements,
 *                            DSB after TLBI broadcasts, TLBSYNC (not on the
 *                            mmap_lock, which waiting_cycles also holds)
 *   ipi_stolen_cycles        the receivers' interrupt entry, handler (with
 *                            its flush) and exit
 *   broadcast_stolen_cycles  the receivers' loss per TLBI or INVLPGB
 *                            broadcast
 * The four do not overlap: flush_wait_cycles is BLOCKED time without the
 * interrupts taken meanwhile, which are stolen time.
 */
static double sum(json_t *totals, const char *const *keys, unsigned n)
{
	double s = 0;

	for (unsigned i = 0; i < n; i++) {
		double c = counter(totals, keys[i]);

		if (c < 0)
			return -1;
		s += c;
	}
	return s;
}

static double flush_time(json_t *totals)
{
	static const char *const keys[] = {"flush_cycles", "flush_wait_cycles", "ipi_stolen_cycles",
					   "broadcast_stolen_cycles"};

	return sum(totals, keys, 4);
}

/* Cycles the cpus ran anything: not idle. */
static double running_time(json_t *totals)
{
	static const char *const keys[] = {"busy_cycles", "waiting_cycles", "stolen_cycles"};

	return sum(totals, keys, 3);
}

int repro_metric_value(enum repro_metric_kind kind, json_t *stats, double ops, unsigned cpu,
		       double *out)
{
	json_t *totals = json_object_get(stats, "totals");
	json_t *sec = json_object_get(stats, "seconds");
	double seconds = json_is_number(sec) ? json_number_value(sec) : -1;
	double cycles = counter(stats, "cycles"), cpus = counter(stats, "cpus"), t, n;
	double running = running_time(totals);

	switch (kind) {
	case REPRO_SECONDS:
		if (seconds < 0)
			return -1;
		*out = seconds;
		return 0;
	case REPRO_FLUSH_SHARE:
		/* Over the time the cpus ran something (busy, waiting,
		 * stolen): a fixed-work run ends with a tail in which the
		 * threads that finished first leave their cpus idle, which a
		 * fixed-time benchmark (will-it-scale) does not have.  A wait
		 * for the mmap_lock is not idle: the model spins on it. */
		t = flush_time(totals);
		if (t < 0 || !(running > 0))
			return -1;
		*out = 100.0 * t / running;
		return 0;
	case REPRO_FLUSH_SHARE_ALL:
		/* Over every cpu for the whole run, idle time included. */
		t = flush_time(totals);
		if (t < 0 || cycles <= 0 || cpus <= 0)
			return -1;
		*out = 100.0 * t / (cpus * cycles);
		return 0;
	case REPRO_RATE:
		if (seconds <= 0)
			return -1;
		*out = ops / seconds;
		return 0;
	case REPRO_NS_PER_SWITCH:
		n = counter(totals, "context_switches");
		if (seconds < 0 || n <= 0)
			return -1;
		*out = seconds * 1e9 / n;
		return 0;
	case REPRO_FAULTS_RATE:
		n = counter(totals, "faults");
		if (seconds <= 0 || n < 0)
			return -1;
		*out = n / seconds;
		return 0;
	case REPRO_CPU_RATE: {
		json_t *pc = json_array_get(json_object_get(stats, "per_cpu"), cpu);
		json_t *ghz = json_object_get(stats, "freq_ghz");
		double idle_stolen = counter(pc, "idle_stolen_cycles");

		t = running_time(pc);
		if (!pc || t < 0 || idle_stolen < 0 || !json_is_number(ghz) ||
		    !(t - idle_stolen > 0))
			return -1;
		*out = ops / ((t - idle_stolen) / (json_number_value(ghz) * 1e9));
		return 0;
	}
	}
	return -1;
}

double repro_ratio(enum repro_metric_kind kind, double base, double value)
{
	double num = repro_metric_lower_is_better(kind) ? base : value;
	double den = repro_metric_lower_is_better(kind) ? value : base;

	return den > 0 ? num / den : 0;
}
