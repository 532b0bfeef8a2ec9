/* SPDX-License-Identifier: MIT */
/*
 * The metrics of the reproduction suite (issue 9), computed from one run's
 * statistics (docs/stats-schema.md, "tlbsim-stats/1").  Each is defined in
 * bench/reproduce/README.md; the definitions here and there must agree.
 */
#ifndef TLBSIM_REPRO_METRICS_H
#define TLBSIM_REPRO_METRICS_H

#include <jansson.h>
#include <stdbool.h>

/*
 * The metrics, by the name an experiment file uses:
 *   REPRO_SECONDS      "seconds": simulated time of the whole run, s
 *   REPRO_FLUSH_SHARE  "flush_share": share of the cpus' non-idle time
 *                      spent on TLB invalidation, %
 *   REPRO_FLUSH_SHARE_ALL "flush_share_all": the same over all the cpus'
 *                      time, idle included (cpus x cycles), %
 *   REPRO_RATE         "rate": operations per simulated second, where the
 *                      experiment file says how many operations the run
 *                      did (a product of generator parameters)
 *   REPRO_NS_PER_SWITCH "ns_per_switch": simulated ns per context switch
 *   REPRO_FAULTS_RATE  "faults_rate": page faults taken (totals.faults)
 *                      per simulated second
 *   REPRO_CPU_RATE     "cpu_rate": operations per second of one cpu's
 *                      running time (busy + waiting + stolen, less what
 *                      was stolen while idle): a program's own timer
 *                      around the loop it runs alone on that cpu
 */
enum repro_metric_kind {
	REPRO_SECONDS,
	REPRO_FLUSH_SHARE,
	REPRO_FLUSH_SHARE_ALL,
	REPRO_RATE,
	REPRO_NS_PER_SWITCH,
	REPRO_FAULTS_RATE,
	REPRO_CPU_RATE,
};

/* Name (as in experiment files) to kind; -1 if unknown. */
int repro_metric_kind(const char *name);

/* The name of @kind, and its unit as printed ("s", "%", "/s", "ns"). */
const char *repro_metric_name(enum repro_metric_kind kind);
const char *repro_metric_unit(enum repro_metric_kind kind);

/* Whether a smaller value is the better one (time, share) or not (rate). */
bool repro_metric_lower_is_better(enum repro_metric_kind kind);

/*
 * The metric's value for one run.
 * @stats: the run's statistics (borrowed)
 * @ops: REPRO_RATE and REPRO_CPU_RATE only: operations the run did
 * @cpu: REPRO_CPU_RATE only: the cpu (index into per_cpu)
 * @out: receives the value
 * Returns: 0, or -1 when the statistics lack a counter the metric needs or
 * its denominator is 0 (a run of no time, no switch).
 */
int repro_metric_value(enum repro_metric_kind kind, json_t *stats, double ops, unsigned cpu,
		       double *out);

/*
 * How many times better @value is than @base, the first policy's: base /
 * value when lower is better, value / base otherwise; so 15.6 means "15.6
 * times faster" for a time and for a rate alike.  0 when undefined (a zero
 * denominator).
 */
double repro_ratio(enum repro_metric_kind kind, double base, double value);

#endif /* TLBSIM_REPRO_METRICS_H */
