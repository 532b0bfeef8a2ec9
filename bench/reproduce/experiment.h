/* SPDX-License-Identifier: MIT */
/*
 * One experiment of the reproduction suite, as read from its JSON file
 * (format: bench/reproduce/README.md): a workload (machine, generator,
 * parameters, optionally several variants of them) run under each of a
 * list of policies, and the metrics to compare, with the published figures
 * if any.
 */
#ifndef TLBSIM_REPRO_EXPERIMENT_H
#define TLBSIM_REPRO_EXPERIMENT_H

#include <jansson.h>
#include <stdbool.h>

#include "bench/reproduce/metrics.h"

#define REPRO_MAX_POLICIES 8
#define REPRO_MAX_METRICS 4
#define REPRO_MAX_VARIANTS 8
#define REPRO_MAX_OPS_PARAMS 4
#define REPRO_NAME_LEN 64

/*
 * struct repro_metric_spec - one metric of an experiment
 * @kind: what is computed (metrics.h)
 * @label: as printed, e.g. "total time"
 * @ops_params, @nr_ops_params, @ops_per: REPRO_RATE only: a run does
 *        ops_per x the product of these generator parameters (after
 *        --scale) operations
 * @published: per policy (same order as the experiment's), the published
 *        figure in the metric's unit; NaN where none
 * @published_ratio: the published ratio (as repro_ratio() defines it),
 *        NaN if none
 * @source: where the published figures come from ("" if none)
 */
struct repro_metric_spec {
	enum repro_metric_kind kind;
	char label[REPRO_NAME_LEN];
	char ops_params[REPRO_MAX_OPS_PARAMS][REPRO_NAME_LEN];
	unsigned nr_ops_params;
	double ops_per;
	double published[REPRO_MAX_POLICIES];
	double published_ratio;
	char source[256];
};

/*
 * struct repro_variant - one workload of an experiment
 * @label: "" when the experiment has no variants
 * @machine, @generator: names (or paths) as tlbsim_machine_find() and
 *        tlbsim_gen_create() take them
 * @params: generator parameters, the experiment's merged with the
 *        variant's (owned): integers or strings such as "4M"
 * @os: OS-model options as tlbsim_os_options_parse() reads them (the
 *        variant's, else the experiment's; "" for none), and @os_flags
 *        what they give
 */
struct repro_variant {
	char label[REPRO_NAME_LEN];
	char machine[256];
	char generator[REPRO_NAME_LEN];
	json_t *params;
	char os[128];
	unsigned os_flags;
};

/*
 * struct repro_experiment - a whole experiment file
 * @file: its path
 * @id: short identifier, e.g. "1" or "5b"
 * @title: one line
 * @is_calibration: "kind": "calibration" (true) or "prediction"
 * @policies: the policies (at least two), the first being the baseline of
 *        the ratios
 * @scale: names of the parameters --scale divides (owned JSON array)
 * @expected: for a prediction, the direction expected before running
 * @note: anything the reader of the table must know ("" if none)
 */
struct repro_experiment {
	char file[512];
	char id[16];
	char title[160];
	bool is_calibration;
	char policies[REPRO_MAX_POLICIES][REPRO_NAME_LEN];
	unsigned nr_policies;
	struct repro_metric_spec metrics[REPRO_MAX_METRICS];
	unsigned nr_metrics;
	struct repro_variant variants[REPRO_MAX_VARIANTS];
	unsigned nr_variants;
	json_t *scale;
	char expected[1024];
	char note[1024];
};

/*
 * Read and check @path into @e.  On error, returns -1 with a message
 * naming the file and what was expected in @msg.  repro_experiment_free()
 * releases @e in both cases.
 */
int repro_experiment_load(const char *path, struct repro_experiment *e, char *msg, size_t msg_len);
void repro_experiment_free(struct repro_experiment *e);

/*
 * What loading cannot see: that each variant's machine exists, its
 * generator takes its parameters (after --scale @scale) and each policy
 * runs on its ISA (through tlbsim_machine_find(), tlbsim_gen_create() and
 * tlbsim_sim_create(), as `tlbsim compare` checks before its first run).
 * Returns 0, or -1 with a message naming the file in @msg.
 */
int repro_experiment_check(const struct repro_experiment *e, double scale, char *msg, size_t len);

/*
 * The generator parameters of @v as "key=value,..." with the parameters
 * named in @e->scale divided by @scale (rounded, at least 1).  Returns 0,
 * or -1 if @buf is too small.
 */
int repro_variant_params(const struct repro_experiment *e, const struct repro_variant *v,
			 double scale, char *buf, size_t len);

/* A parameter's value after scaling, as repro_variant_params() passes it;
 * -1 if the variant does not give it as an integer. */
double repro_variant_param(const struct repro_experiment *e, const struct repro_variant *v,
			   const char *name, double scale);

#endif /* TLBSIM_REPRO_EXPERIMENT_H */
