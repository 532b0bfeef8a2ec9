/* SPDX-License-Identifier: MIT */
/*
 * tlbsim-reproduce: the validation suite of issue 9.  Runs each experiment
 * file (the .json files of bench/reproduce/experiments, format in
 * bench/reproduce/README.md) on its machine model under each of its
 * policies through the public simulation API (as `tlbsim run --gen` does),
 * computes its metrics (metrics.c), prints one table row per metric and
 * policy against the baseline policy, with the published figure and
 * whether the experiment is a calibration point or a prediction, and
 * writes everything as JSON (a temporary file renamed into place).
 *
 * With --emit-sweep OUT it runs nothing and writes the experiments as a
 * sweep spec instead (docs/sweep.md: one group per experiment and variant,
 * labelled "ID" or "ID/VARIANT"), so that `tlbsim sweep` runs the suite on
 * a Slurm cluster; --from-sweep DIR then makes the same table from the
 * sweep's results rather than by simulating.
 *
 * usage: tlbsim-reproduce [--scale F] [--threads N] [--json OUT] [--only ID,...]
 *                         [--emit-sweep OUT | --from-sweep DIR] [FILE.json | DIR]...
 */
#define _XOPEN_SOURCE 700 /* realpath() */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/reproduce/experiment.h"
#include "report/progress.h"
#include "tlbsim/tlbsim.h"

#include "../bench.h"

#ifndef REPRO_EXPERIMENTS_DIR
#define REPRO_EXPERIMENTS_DIR "bench/reproduce/experiments"
#endif

#define MAX_FILES 256

struct opts {
	double scale;
	int threads;
	const char *json;
	const char *only;
	bool quiet;
	const char *emit;   /* --emit-sweep: the spec to write */
	const char *from;   /* --from-sweep: the sweep directory */
	json_t *sweep_runs; /* its manifest's "runs" */
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.json files of @dir, sorted, appended to @files; -1 if @dir cannot
 * be read, else how many were added. */
static int list_dir(const char *dir, char **files, unsigned *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	unsigned first = *n;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char *p;

		if (l < 6 || strcmp(de->d_name + l - 5, ".json") || *n == MAX_FILES)
			continue;
		p = malloc(strlen(dir) + l + 2);
		if (!p)
			break;
		sprintf(p, "%s/%s", dir, de->d_name);
		files[(*n)++] = p;
	}
	closedir(d);
	qsort(files + first, *n - first, sizeof(*files), cmp_str);
	return (int)(*n - first);
}

/* Experiments of @dir, which must hold some: 0, or -1 with a message. */
static int add_dir(const char *dir, char **files, unsigned *n)
{
	int added = list_dir(dir, files, n);

	if (added < 0)
		fprintf(stderr,
			"reproduce: '%s' is neither a .json file nor a readable directory\n", dir);
	else if (!added)
		fprintf(stderr, "reproduce: %s: no *.json experiment files\n", dir);
	return added > 0 ? 0 : -1;
}

/* Can @path be written (its directory exists and is writable)?  Checked
 * before the first run, as `tlbsim run` does (src/cli cli_check_output()),
 * so that a typo does not cost a whole suite. */
static int check_output(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	char dir[4096];

	if (!path)
		return 0;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path + (slash == path)) : 1,
		 slash ? path : ".");
	if (access(dir, W_OK)) {
		fprintf(stderr, "reproduce: --json %s: cannot write into %s: %s\n", path, dir,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* Whether the comma-separated @list has the item @id. */
static bool in_list(const char *list, const char *id, size_t l)
{
	const char *p = list;

	for (; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		if (strcspn(p, ",") == l && !strncmp(p, id, l))
			return true;
	}
	return false;
}

static bool selected(const struct opts *o, const char *id)
{
	return !o->only || in_list(o->only, id, strlen(id));
}

/*
 * Every id of --only belongs to an experiment of @ex (those with @ok set):
 * 0, or -1 after naming the unknown ones.
 */
static int check_only(const struct opts *o, const struct repro_experiment *ex, const bool *ok,
		      unsigned n)
{
	char ids[1024] = "", unknown[1024] = "";
	const char *p;

	if (!o->only)
		return 0;
	for (unsigned i = 0; i < n; i++)
		if (ok[i])
			snprintf(ids + strlen(ids), sizeof(ids) - strlen(ids), "%s%s",
				 ids[0] ? ", " : "", ex[i].id);
	for (p = o->only; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		size_t l = strcspn(p, ",");
		unsigned i;

		for (i = 0; i < n && !(ok[i] && strlen(ex[i].id) == l && !strncmp(p, ex[i].id, l));
		     i++)
			;
		if (i == n)
			snprintf(unknown + strlen(unknown), sizeof(unknown) - strlen(unknown),
				 "%s'%.*s'", unknown[0] ? ", " : "", (int)l, p);
	}
	if (!unknown[0])
		return 0;
	fprintf(stderr, "reproduce: --only: no experiment has the id %s (ids: %s)\n", unknown,
		ids[0] ? ids : "none");
	return -1;
}

/* A file that could not be used: printed, and kept for the JSON. */
static void load_failed(json_t *failed, const char *file, const char *msg)
{
	fprintf(stderr, "reproduce: %s\n", msg);
	json_array_append_new(failed, json_pack("{s:s, s:s}", "file", file, "message", msg));
}

/*
 * Loads and checks @files into @ex, setting @ok for those usable; the
 * others go into @failed.  Returns how many failed.
 */
static int load_all(const struct opts *o, char **files, unsigned n, struct repro_experiment *ex,
		    bool *ok, json_t *failed)
{
	char msg[1024];
	int failures = 0;

	for (unsigned i = 0; i < n; i++) {
		unsigned j;

		if (repro_experiment_load(files[i], &ex[i], msg, sizeof(msg)) ||
		    repro_experiment_check(&ex[i], o->scale, msg, sizeof(msg))) {
			load_failed(failed, files[i], msg);
			failures++;
			continue;
		}
		for (j = 0; j < i && !(ok[j] && !strcmp(ex[j].id, ex[i].id)); j++)
			;
		if (j < i) {
			snprintf(msg, sizeof(msg), "%s: id '%s' is also the id of %s", files[i],
				 ex[i].id, files[j]);
			load_failed(failed, files[i], msg);
			failures++;
			continue;
		}
		ok[i] = true;
	}
	return failures;
}

/* The generator's events, with the progress line (report/progress.h). */
struct progress_src {
	tlbsim_gen *g;
	tlbsim_sim *sim;
	struct rep_progress meter;
	uint64_t events;
};

static int progress_next(void *arg, struct tlbsim_event *ev, struct tlbsim_error *err)
{
	struct progress_src *p = arg;
	int rc = tlbsim_gen_next(p->g, ev, err);

	if (rc > 0 && (++p->events & 0xffff) == 0 && p->meter.on) {
		struct tlbsim_stats st;

		/* Read between events: the simulated cpus stand still. */
		rep_progress_update(&p->meter, p->events, 0, -1,
				    tlbsim_sim_stats(p->sim, &st, sizeof(st)) ? -1 : st.seconds);
	}
	return rc;
}

/* One simulation: the run's statistics, or NULL with a message printed;
 * @what names it on the progress line (a terminal, not --quiet). */
static json_t *simulate(const struct opts *o, const char *file, const struct tlbsim_machine *m,
			const char *gen, const char *params, const char *tpl_path,
			const char *policy, unsigned os_flags, const char *what)
{
	struct progress_src ps = {0};
	struct tlbsim_sim_config cfg = {
	    .machine = m, .policy = policy, .threads = o->threads, .os_flags = os_flags};
	struct tlbsim_error err;
	tlbsim_template *tpl = NULL;
	tlbsim_sim *sim = NULL;
	tlbsim_gen *g = NULL;
	json_t *st = NULL;
	char *text = NULL, buf[1024];
	int rc = 0;

	tlbsim_error_clear(&err);
	if (tpl_path[0])
		rc = tlbsim_template_load(tpl_path, &tpl, &err);
	if (!rc)
		rc = tlbsim_gen_create_with(gen, params, m->isa, &tpl, tpl ? 1 : 0, &g, &err);
	if (!rc)
		rc = tlbsim_sim_create(&cfg, &sim, &err);
	if (!rc) {
		ps.g = g;
		ps.sim = sim;
		rep_progress_start(&ps.meter, what, o->quiet);
		rc = tlbsim_sim_run(sim, progress_next, &ps, &err);
		/* The line goes; the caller's own line is drawn again. */
		if (rep_progress_end(&ps.meter))
			fprintf(stderr, "%s...", what);
	}
	if (rc < 0) {
		tlbsim_error_format(&err, buf, sizeof(buf));
		fprintf(stderr, "reproduce: %s: %s under %s: %s\n", file, gen, policy, buf);
	} else if (!(text = tlbsim_sim_stats_json(sim))) {
		fprintf(stderr, "reproduce: out of memory\n");
	} else {
		st = json_loads(text, 0, NULL);
	}
	free(text);
	tlbsim_sim_destroy(sim);
	tlbsim_gen_destroy(g);
	tlbsim_template_destroy(tpl);
	return st;
}

/* Write @v to @path through a temporary file renamed into place, so an
 * interrupted run leaves no half-written file. */
static int write_json(const char *path, json_t *v)
{
	char tmp[4096];
	int rc;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	rc = json_dump_file(v, tmp, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	if (rc || rename(tmp, path)) {
		fprintf(stderr, "reproduce: cannot write %s: %s\n", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

static json_t *num_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

/* The sweep group of @v under policy @p: ID or ID/VARIANT, and @N after it
 * when the experiment's policies carry OS options (a group per policy). */
static void group_label(const struct repro_experiment *e, const struct repro_variant *v, unsigned p,
			char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s%s%s", e->id, v->label[0] ? "/" : "", v->label);

	if (e->policy_os_any && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "@%u", p);
}

/*
 * --from-sweep: the statistics of @e's variant @v under @policy from the
 * sweep's runs/ID.json, after checking that the sweep ran it with these
 * parameters (the same --scale); NULL with a message printed.
 */
static json_t *sweep_stats(const struct opts *o, const struct repro_experiment *e,
			   const struct repro_variant *v, unsigned p)
{
	const char *policy = e->policy_name[p];
	char label[256], path[4096];
	json_t *run = NULL, *axes = NULL, *st;
	const char *k;
	json_t *x;
	size_t i;

	group_label(e, v, p, label, sizeof(label));
	json_array_foreach(o->sweep_runs, i, run)
	{
		axes = json_object_get(run, "axes");
		if (!strcmp(json_string_value(json_object_get(axes, "group"))
				? json_string_value(json_object_get(axes, "group"))
				: "",
			    label) &&
		    !strcmp(json_string_value(json_object_get(axes, "policy")), policy))
			break;
	}
	if (i == json_array_size(o->sweep_runs)) {
		fprintf(stderr,
			"reproduce: %s: the sweep %s has no run of group '%s' under %s "
			"(emitted from other experiments?)\n",
			e->file, o->from, label, policy);
		return NULL;
	}
	json_object_foreach(v->params, k, x)
	{
		json_t *got = json_object_get(axes, k);
		bool same = json_is_integer(x)
				? json_is_integer(got) && (double)json_integer_value(got) ==
							      repro_variant_param(e, v, k, o->scale)
				: json_equal(got, x);

		if (!same) {
			fprintf(stderr,
				"reproduce: %s: the sweep %s ran group '%s' with another "
				"'%s' (another --scale?)\n",
				e->file, o->from, label, k);
			return NULL;
		}
	}
	snprintf(path, sizeof(path), "%s/runs/%lld.json", o->from,
		 (long long)json_integer_value(json_object_get(run, "id")));
	st = json_load_file(path, 0, NULL);
	if (!st)
		fprintf(stderr,
			"reproduce: %s: run %lld of %s (group '%s', %s) has no result: "
			"'tlbsim merge %s' lists what is missing\n",
			e->file, (long long)json_integer_value(json_object_get(run, "id")), o->from,
			label, policy, o->from);
	return st;
}

/* --emit-sweep: the selected experiments as one sweep spec, written to
 * @o->emit.  0, or -1 after a message. */
static int emit_sweep(const struct opts *o, const struct repro_experiment *ex, const bool *ok,
		      unsigned n)
{
	json_t *spec = json_object(), *groups = json_array();
	int rc;

	for (unsigned i = 0; i < n; i++) {
		const struct repro_experiment *e = &ex[i];

		if (!ok[i] || !selected(o, e->id))
			continue;
		/* One group per variant, or per variant and policy when the
		 * policies carry OS options of their own. */
		for (unsigned gi = 0; gi < e->nr_variants * (e->policy_os_any ? e->nr_policies : 1);
		     gi++) {
			unsigned vi = e->policy_os_any ? gi / e->nr_policies : gi;
			unsigned pi = e->policy_os_any ? gi % e->nr_policies : 0;
			const struct repro_variant *v = &e->variants[vi];
			unsigned os_flags;
			char os[256];
			json_t *g = json_object(), *pols = json_array(), *params = json_object();
			char label[256], mpath[4096];
			const char *k;
			json_t *x;

			group_label(e, v, pi, label, sizeof(label));
			json_object_set_new(g, "label", json_string(label));
			/* A path is the experiment file's, resolved here: the spec may
			 * be elsewhere. */
			if ((strchr(v->machine, '/') || strstr(v->machine, ".json")) &&
			    realpath(v->machine, mpath))
				json_object_set_new(g, "machines", json_pack("[s]", mpath));
			else
				json_object_set_new(g, "machines", json_pack("[s]", v->machine));
			for (unsigned p = 0; p < e->nr_policies; p++)
				if (!e->policy_os_any || p == pi)
					json_array_append_new(pols, json_string(e->policy_name[p]));
			json_object_set_new(g, "policies", pols);
			json_object_foreach(v->params, k, x) json_object_set_new(
			    params, k,
			    json_is_integer(x)
				? json_integer((json_int_t)repro_variant_param(e, v, k, o->scale))
				: json_incref(x));
			json_object_set_new(
			    g, "workloads",
			    json_pack("[{s:s, s:o}]", "gen", v->generator, "params", params));
			/* A template path is the experiment's (the source tree's):
			 * resolved here, like a machine file's. */
			if (v->tpl[0])
				json_object_set_new(
				    json_array_get(json_object_get(g, "workloads"), 0), "template",
				    json_string(realpath(v->tpl, mpath) ? mpath : v->tpl));
			if (!repro_run_os(e, v, pi, os, sizeof(os), &os_flags) && os[0] &&
			    (e->policy_os_any || v->os[0]))
				json_object_set_new(g, "options", json_pack("{s:s}", "os", os));
			json_array_append_new(groups, g);
		}
	}
	json_object_set_new(spec, "name", json_string("reproduce"));
	json_object_set(spec, "groups", groups);
	rc = write_json(o->emit, spec);
	if (!rc)
		fprintf(stderr,
			"reproduce: wrote %s (%zu groups); run it with 'tlbsim sweep %s -o DIR "
			"--slurm' (or --local), then 'tlbsim-reproduce --from-sweep DIR'%s\n",
			o->emit, json_array_size(groups), o->emit,
			o->scale != 1 ? " with the same --scale" : "");
	json_decref(groups);
	json_decref(spec);
	return rc;
}

/* What the JSON keeps of a run: everything but the per-cpu, per-mm and
 * hazard detail (a 128-cpu run's per_cpu alone is megabytes). */
static json_t *run_summary(json_t *st, const char *policy, double wall)
{
	json_t *r = json_object();
	static const char *const keys[] = {"cycles",  "seconds",    "events_read",
					   "partial", "os_options", "totals",
					   "lines",   "fabric",	    "os"};

	json_object_set_new(r, "policy", json_string(policy));
	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		json_object_set(r, keys[i], json_object_get(st, keys[i]));
	json_object_set_new(r, "wall_seconds", num_or_null(wall));
	return r;
}

static void print_header(void)
{
	printf("%-4s %-17s %-13s %-38s %-19s %10s  %-24s %10s %8s  %-20s %s\n", "exp", "variant",
	       "machine", "metric", "baseline", "value", "policy", "value", "ratio", "published",
	       "kind");
}

/* The published column: "A / B (R x)", whichever parts exist. */
static void published_text(const struct repro_metric_spec *s, unsigned p, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	if (!isnan(s->published[0]) && !isnan(s->published[p]))
		n = (size_t)snprintf(buf, len, "%.3g / %.3g ", s->published[0], s->published[p]);
	if (!isnan(s->published_ratio) && n < len)
		snprintf(buf + n, len - n, "(%.3gx)", s->published_ratio);
	if (!buf[0])
		snprintf(buf, len, "-");
}

/*
 * Runs every variant of @e under every policy; appends the runs to
 * @exp_json and the table rows to @table.  Returns the number of failed
 * runs.
 */
static int run_experiment(const struct opts *o, const struct repro_experiment *e, json_t *exp_json,
			  json_t *table)
{
	json_t *variants = json_array();
	int failures = 0;

	for (unsigned vi = 0; vi < e->nr_variants; vi++) {
		const struct repro_variant *v = &e->variants[vi];
		double values[REPRO_MAX_METRICS][REPRO_MAX_POLICIES];
		json_t *vj = json_object(), *runs = json_array(), *mets = json_array();
		struct tlbsim_machine *m = NULL;
		struct tlbsim_error err;
		char params[1024], buf[1024];
		bool ok = true;

		tlbsim_error_clear(&err);
		if (repro_variant_params(e, v, o->scale, params, sizeof(params))) {
			fprintf(stderr, "reproduce: %s: parameters too long\n", e->file);
			ok = false;
		} else if (tlbsim_machine_find(v->machine, &m, &err)) {
			tlbsim_error_format(&err, buf, sizeof(buf));
			fprintf(stderr, "reproduce: %s: %s\n", e->file, buf);
			ok = false;
		}
		json_object_set_new(vj, "label", json_string(v->label));
		json_object_set_new(vj, "machine", json_string(v->machine));
		json_object_set_new(vj, "generator", json_string(v->generator));
		json_object_set_new(vj, "params", json_string(params));
		json_object_set_new(vj, "template", json_string(v->tpl));
		json_object_set_new(vj, "os", json_string(v->os));
		for (unsigned p = 0; ok && p < e->nr_policies; p++) {
			double t0 = bench_now(), wall;
			unsigned os_flags = 0;
			char what[1600], os[256];
			json_t *st;

			snprintf(what, sizeof(what), "[%s%s%s] %s on %s (%s) under %s", e->id,
				 v->label[0] ? " " : "", v->label, v->generator, v->machine, params,
				 e->policies[p]);
			if (!o->quiet)
				fprintf(stderr, "%s...", what);
			if (repro_run_os(e, v, p, os, sizeof(os), &os_flags))
				st = NULL; /* checked at load */
			else
				st = o->from ? sweep_stats(o, e, v, p)
					     : simulate(o, e->file, m, v->generator, params, v->tpl,
							e->policy_name[p], os_flags, what);
			/* From a sweep: how long the run took is not known here. */
			wall = o->from ? NAN : bench_now() - t0;
			if (!o->quiet)
				fprintf(stderr, o->from ? " (from the sweep)\n" : " %.1f s\n",
					wall);
			if (!st) {
				ok = false;
				break;
			}
			for (unsigned k = 0; k < e->nr_metrics; k++) {
				const struct repro_metric_spec *s = &e->metrics[k];
				double ops = s->ops_per;

				for (unsigned q = 0; q < s->nr_ops_params; q++)
					ops *=
					    repro_variant_param(e, v, s->ops_params[q], o->scale);
				double cpu = s->cpu_param[0] ? repro_variant_param(
								    e, v, s->cpu_param, o->scale)
							      : 0;

				if (ops < 0 || cpu < 0 ||
				    repro_metric_value(s->kind, st, ops, (unsigned)cpu,
						       &values[k][p])) {
					fprintf(stderr,
						"reproduce: %s: metric '%s' cannot be computed "
						"(a run of no time or no switch)\n",
						e->file, s->label);
					values[k][p] = NAN;
				}
			}
			json_array_append_new(runs, run_summary(st, e->policies[p], wall));
			json_decref(st);
		}
		tlbsim_machine_free(m);
		failures += !ok;
		for (unsigned k = 0; ok && k < e->nr_metrics; k++) {
			const struct repro_metric_spec *s = &e->metrics[k];
			json_t *mj = json_object(), *vals = json_object(), *ratios = json_object();
			json_t *pub = json_object();

			for (unsigned p = 0; p < e->nr_policies; p++) {
				double r = repro_ratio(s->kind, values[k][0], values[k][p]);
				char ptext[64];
				json_t *row;

				json_object_set_new(vals, e->policies[p],
						    num_or_null(values[k][p]));
				json_object_set_new(pub, e->policies[p],
						    num_or_null(s->published[p]));
				if (!p)
					continue;
				json_object_set_new(ratios, e->policies[p],
						    num_or_null(r ? r : NAN));
				published_text(s, p, ptext, sizeof(ptext));
				snprintf(buf, sizeof(buf), "%s (%s)", s->label,
					 repro_metric_unit(s->kind));
				printf("%-4s %-17s %-13s %-38s %-19s %10.4g  %-24s %10.4g %7.2fx  "
				       "%-20s "
				       "%s\n",
				       e->id, v->label[0] ? v->label : "-", v->machine, buf,
				       e->policies[0], values[k][0], e->policies[p], values[k][p],
				       r, ptext, e->is_calibration ? "calibration" : "prediction");
				row = json_pack(
				    "{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:s, "
				    "s:o, s:o, s:o, s:o, s:o, s:s}",
				    "experiment", e->id, "variant", v->label, "machine", v->machine,
				    "generator", v->generator, "params", params, "metric",
				    repro_metric_name(s->kind), "label", s->label, "unit",
				    repro_metric_unit(s->kind), "baseline_value",
				    num_or_null(values[k][0]), "policy", e->policies[p], "value",
				    num_or_null(values[k][p]), "ratio", num_or_null(r ? r : NAN),
				    "published_baseline", num_or_null(s->published[0]),
				    "published_value", num_or_null(s->published[p]),
				    "published_ratio", num_or_null(s->published_ratio), "kind",
				    e->is_calibration ? "calibration" : "prediction");
				json_object_set_new(row, "baseline", json_string(e->policies[0]));
				json_array_append_new(table, row);
			}
			json_object_set_new(mj, "metric", json_string(repro_metric_name(s->kind)));
			json_object_set_new(mj, "label", json_string(s->label));
			json_object_set_new(mj, "unit", json_string(repro_metric_unit(s->kind)));
			json_object_set_new(mj, "values", vals);
			json_object_set_new(mj, "ratios", ratios);
			json_object_set_new(mj, "published", pub);
			json_object_set_new(mj, "published_ratio", num_or_null(s->published_ratio));
			json_object_set_new(mj, "source", json_string(s->source));
			json_array_append_new(mets, mj);
		}
		fflush(stdout);
		json_object_set_new(vj, "ok", json_boolean(ok));
		json_object_set_new(vj, "runs", runs);
		json_object_set_new(vj, "metrics", mets);
		json_array_append_new(variants, vj);
	}
	json_object_set_new(exp_json, "variants", variants);
	return failures;
}

static const char usage[] =
    "usage: tlbsim-reproduce [--scale F] [--threads N] [--json OUT] [--only ID,...] [--quiet]\n"
    "                        [EXPERIMENT.json | DIR]...\n\n"
    "Runs each experiment (default: every *.json of " REPRO_EXPERIMENTS_DIR ")\n"
    "on its machine under each of its policies, prints a table (metric, value\n"
    "under the baseline and each policy, ratio, published figure, calibration or\n"
    "prediction) and writes it all as JSON to OUT.  --scale F divides the\n"
    "parameters each experiment lists under \"scale\" (loop counts) by F, for a\n"
    "quick smoke run; the figures then are not comparable with the published\n"
    "ones.  --threads: OpenMP threads per simulation (results do not depend on it).\n"
    "--emit-sweep OUT writes the experiments as a sweep spec (one group per\n"
    "experiment and variant) and runs nothing: 'tlbsim sweep OUT -o DIR --slurm'\n"
    "runs the suite on a cluster; --from-sweep DIR then prints the table from\n"
    "DIR's results (give the same --scale and experiments).\n"
    "Format of an experiment: bench/reproduce/README.md.\n";

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
	    {"scale", required_argument, NULL, 's'},
	    {"threads", required_argument, NULL, 't'},
	    {"json", required_argument, NULL, 'j'},
	    {"only", required_argument, NULL, 'o'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"emit-sweep", required_argument, NULL, 'e'},
	    {"from-sweep", required_argument, NULL, 'f'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	char *end;
	int c;

	*o = (struct opts){.scale = 1, .threads = 1};
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			o->scale = strtod(optarg, &end);
			if (*end || !(o->scale >= 1))
				return fprintf(stderr,
					       "reproduce: --scale expects a number >= 1\n"),
				       -1;
			break;
		case 't':
			o->threads = (int)strtol(optarg, &end, 10);
			if (*end || o->threads < 1 || o->threads > 256)
				return fprintf(stderr, "reproduce: --threads expects 1..256\n"), -1;
			break;
		case 'j':
			o->json = optarg;
			break;
		case 'o':
			if (!*optarg)
				return fprintf(stderr, "reproduce: --only expects ID,...\n"), -1;
			o->only = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'e':
			o->emit = optarg;
			break;
		case 'f':
			o->from = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		default:
			fputs(usage, stderr);
			return -1;
		}
	}
	if (o->emit && o->from)
		return fprintf(stderr, "reproduce: --emit-sweep or --from-sweep, not both\n"), -1;
	return 0;
}

/* --from-sweep DIR: its manifest's runs into @o.  0, or -1 after a message. */
static int load_sweep(struct opts *o)
{
	char path[4096];
	json_error_t je;
	json_t *m;

	snprintf(path, sizeof(path), "%s/manifest.json", o->from);
	m = json_load_file(path, 0, &je);
	if (!m || !json_is_array(json_object_get(m, "runs"))) {
		fprintf(stderr, "reproduce: --from-sweep %s: %s is no sweep manifest (%s)\n",
			o->from, path, m ? "no runs" : je.text);
		json_decref(m);
		return -1;
	}
	o->sweep_runs = json_incref(json_object_get(m, "runs"));
	json_decref(m);
	return 0;
}

int main(int argc, char **argv)
{
	char *files[MAX_FILES];
	unsigned nr_files = 0, nr_run = 0;
	json_t *out = json_object(), *exps = json_array(), *table = json_array();
	json_t *failed = json_array();
	struct repro_experiment *ex = NULL;
	bool *ok = NULL;
	int failures = 0, rc = 2;
	struct opts o;
	double t0 = bench_now();

	if (parse(argc, argv, &o) || check_output(o.json) || check_output(o.emit) ||
	    (o.from && load_sweep(&o)))
		goto done;
	if (optind == argc && add_dir(REPRO_EXPERIMENTS_DIR, files, &nr_files))
		goto done;
	for (int i = optind; i < argc; i++) {
		size_t l = strlen(argv[i]);

		if (l > 5 && !strcmp(argv[i] + l - 5, ".json")) {
			if (nr_files < MAX_FILES && (files[nr_files] = strdup(argv[i])))
				nr_files++;
		} else if (add_dir(argv[i], files, &nr_files)) {
			goto done;
		}
	}
	/* Every file is read and checked before the first (long) run. */
	ex = calloc(nr_files, sizeof(*ex));
	ok = calloc(nr_files, sizeof(*ok));
	if (!ex || !ok) {
		fprintf(stderr, "reproduce: out of memory\n");
		goto done;
	}
	failures = load_all(&o, files, nr_files, ex, ok, failed);
	if (check_only(&o, ex, ok, nr_files))
		goto done;
	if (o.emit) {
		rc = emit_sweep(&o, ex, ok, nr_files) ? 2 : failures ? 1 : 0;
		goto done;
	}
	print_header();
	for (unsigned i = 0; i < nr_files; i++) {
		struct repro_experiment *e = &ex[i];
		json_t *ej;

		if (!ok[i] || !selected(&o, e->id))
			continue;
		ej = json_pack("{s:s, s:s, s:s, s:s}", "id", e->id, "title", e->title, "file",
			       e->file, "kind", e->is_calibration ? "calibration" : "prediction");
		json_object_set_new(ej, "expected", json_string(e->expected));
		json_object_set_new(ej, "suite_scale", json_real(e->suite_scale));
		json_object_set_new(ej, "note", json_string(e->note));
		failures += run_experiment(&o, e, ej, table);
		json_array_append_new(exps, ej);
		nr_run++;
	}
	json_object_set_new(out, "schema", json_string("tlbsim-reproduce/1"));
	json_object_set_new(out, "scale", json_real(o.scale));
	json_object_set_new(out, "experiments_run", json_integer(nr_run));
	json_object_set_new(out, "failures", json_integer(failures));
	json_object_set_new(out, "wall_seconds", json_real(bench_now() - t0));
	json_object_set_new(out, "table", table);
	json_object_set_new(out, "experiments", exps);
	json_object_set_new(out, "failed_files", failed);
	table = exps = failed = NULL;
	if (!o.quiet)
		fprintf(stderr, "%u experiments, %d failed, %.1f s\n", nr_run, failures,
			bench_now() - t0);
	rc = failures ? 1 : 0;
	/* Nothing ran (every file failed): no JSON to keep. */
	if (o.json && nr_run && write_json(o.json, out))
		rc = 2;
done:
	for (unsigned i = 0; ex && i < nr_files; i++)
		repro_experiment_free(&ex[i]);
	free(ex);
	free(ok);
	while (nr_files)
		free(files[--nr_files]);
	json_decref(out);
	json_decref(exps);
	json_decref(table);
	json_decref(failed);
	json_decref(o.sweep_runs);
	return rc;
}
