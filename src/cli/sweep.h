/* SPDX-License-Identifier: MIT */
/*
 * tlbsim sweep and tlbsim merge: what they share.  A sweep spec (JSON,
 * docs/sweep.md) names axes; sweep_spec_expand() turns it into numbered
 * runs, each the exact arguments of one `tlbsim run`, kept in a sweep
 * directory's manifest.json ("tlbsim-sweep/1"):
 *
 *   DIR/manifest.json     the runs: id, axis values, tlbsim run arguments
 *   DIR/machines/NAME.json every machine a run names, copied or derived
 *                         (overrides), so the directory stands alone
 *   DIR/runs/ID.json      run ID's statistics (tlbsim run --json)
 *   DIR/runs/ID.err       a failed run's standard error
 *   DIR/sweep.sbatch      the Slurm job array (--slurm)
 *   DIR/slurm/            the array tasks' Slurm output
 *
 * Runs are started with DIR as the working directory, so that the paths
 * inside DIR are relative and the arguments are those of the manifest.
 */
#ifndef TLBSIM_CLI_SWEEP_H
#define TLBSIM_CLI_SWEEP_H

#include <jansson.h>
#include <stddef.h>

#define SWEEP_SCHEMA "tlbsim-sweep/1"

/*
 * Read the spec at @path and expand it: *@manifest receives the manifest
 * (new reference; "runs" numbered from 0 in the order of docs/sweep.md),
 * *@machines an object mapping each machine file's path inside the sweep
 * directory ("machines/NAME.json") to its text.  Every machine, policy,
 * generator, parameter and trace is checked here, before anything is
 * written or run.  Returns 0, or CLI_USAGE after printing the error with
 * the spec's file, line and column.
 */
int sweep_spec_expand(const char *path, json_t **manifest, json_t **machines);

/* DIR/manifest.json: 0 and a new reference in *@manifest, or CLI_USAGE
 * after printing why (not a sweep directory, another schema). */
int sweep_manifest_load(const char *dir, json_t **manifest);

/* An axis value as text: a string as it is, a number as JSON writes it,
 * an object or array as compact JSON, null (the axis does not apply to the
 * run) as "". */
void sweep_axis_text(const json_t *v, char *buf, size_t len);

/* "DIR/runs/ID.json" or "DIR/runs/ID.err" (@ext "json" or "err"). */
void sweep_result_path(const char *dir, long long id, const char *ext, char *buf, size_t len);

#endif
