/* SPDX-License-Identifier: MIT */
/*
 * tlbsim merge: a sweep's results in one table (docs/sweep.md).  One row
 * per run of the manifest, in run order: the axes as columns, the run's
 * status, and the chosen statistics, each with its ratio to the baseline
 * policy's run of the same row (the run whose axes are all equal but the
 * policy); written as DIR/merge.csv and DIR/merge.json, and drawn by
 * gnuplot, one chart per statistic against one axis (DIR/plots/).  What is
 * missing (runs not run, or failed: their runs/ID.err) is in the table
 * and said, and the exit status is 1; nothing in the outputs depends on
 * where or when the runs ran, so a sweep merged after Slurm and after
 * --local gives the same files.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/sweep.h"

struct merge_opts {
	const char *dir;
	const char *metrics, *baseline, *x;
	const char *plot; /* "svg", "png" or "none" */
};

static const char merge_help[] =
    "usage: tlbsim merge DIR [--metrics M,...] [--baseline P,...] [--x AXIS]\n"
    "                    [--plot svg|png|none]\n\n"
    "Gathers the results of the sweep in DIR (tlbsim sweep) into one table, one row\n"
    "per run with the axes as columns: DIR/merge.csv and DIR/merge.json.  Each\n"
    "statistic (--metrics, else the spec's \"merge\".\"metrics\", else those\n"
    "'tlbsim compare' prints; a name is a key of the statistics JSON, of its\n"
    "\"totals\", or a dotted path such as fabric.dvm_broadcasts) comes with its\n"
    "ratio to the baseline: the run with the same axes under the first policy of\n"
    "--baseline (else the spec's, else its policy list) that the row's group of\n"
    "runs has.  One gnuplot chart per statistic against AXIS (--x, the spec's\n"
    "\"merge\".\"x\", else the first axis with several values), one line per value\n"
    "of the other axes, seeds averaged: DIR/plots/NAME.svg.  An incomplete sweep is\n"
    "merged as it is; the missing and failed runs are listed.\n"
    "exit status: 0 complete, 1 runs missing or failed, 2 usage or input error.\n\n"
    "example: tlbsim merge out/policies --metrics cycles,flushes_ipi --x cores\n";

static int parse(int argc, char **argv, struct merge_opts *o)
{
	static const struct option longopts[] = {
	    {"metrics", required_argument, NULL, 'm'}, {"baseline", required_argument, NULL, 'b'},
	    {"x", required_argument, NULL, 'x'},       {"plot", required_argument, NULL, 'p'},
	    {"help", no_argument, NULL, 'h'},	       {NULL, 0, NULL, 0},
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->plot = "svg";
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			o->metrics = optarg;
			break;
		case 'b':
			o->baseline = optarg;
			break;
		case 'x':
			o->x = optarg;
			break;
		case 'p':
			if (strcmp(optarg, "svg") && strcmp(optarg, "png") &&
			    strcmp(optarg, "none"))
				return cli_fail(
				    "merge: --plot expects svg, png or none, found '%s'", optarg);
			o->plot = optarg;
			break;
		case 'h':
			fputs(merge_help, stdout);
			exit(CLI_OK);
		default:
			return cli_fail("merge: unknown or incomplete option '%s' (see --help)",
					argv[optind - 1]);
		}
	}
	if (optind < argc)
		o->dir = argv[optind++];
	if (optind < argc)
		return cli_fail("merge: one sweep directory at a time, found also '%s'",
				argv[optind]);
	if (!o->dir)
		return cli_fail("merge: give the sweep directory (tlbsim sweep -o DIR)");
	return 0;
}

/* "a,b,c" as a JSON array of strings. */
static json_t *split_list(const char *s)
{
	json_t *a = json_array();

	while (*s) {
		size_t n = strcspn(s, ",");

		if (n)
			json_array_append_new(a, json_stringn(s, n));
		s += n + (s[n] == ',');
	}
	return a;
}

/* A string or an array of strings as an array (new reference); NULL if
 * @v is neither. */
static json_t *as_list(json_t *v)
{
	json_t *a;

	if (json_is_array(v))
		return json_incref(v);
	if (!json_is_string(v))
		return NULL;
	a = json_array();
	json_array_append(a, v);
	return a;
}

/* The rows' key for ratios: the axes but the policy (compact JSON). */
static char *row_key(json_t *axes)
{
	json_t *c = json_copy(axes);
	char *k;

	json_object_del(c, "policy");
	k = json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(c);
	return k;
}

/* ---- the rows ------------------------------------------------------------------- */

/* One row per run: {id, axes, status, partial, values, error}, from the
 * run's JSON or its .err. */
static json_t *read_rows(const char *dir, json_t *manifest, json_t *metrics, json_t *found)
{
	json_t *rows = json_array(), *run;
	size_t i;

	json_array_foreach(json_object_get(manifest, "runs"), i, run)
	{
		long long id = json_integer_value(json_object_get(run, "id"));
		json_t *row = json_object(), *vals = json_object(), *st = NULL, *m;
		char path[4096], line[512];
		size_t k;

		json_object_set_new(row, "id", json_integer(id));
		json_object_set(row, "axes", json_object_get(run, "axes"));
		sweep_result_path(dir, id, "json", path, sizeof(path));
		if (!access(path, F_OK) && !(st = json_load_file(path, 0, NULL)))
			fprintf(stderr, "tlbsim: merge: %s is not JSON: counted missing\n", path);
		if (st) {
			json_object_set_new(row, "status", json_string("ok"));
			json_object_set_new(
			    row, "partial",
			    json_boolean(json_is_true(json_object_get(st, "partial"))));
		} else {
			FILE *f;

			sweep_result_path(dir, id, "err", path, sizeof(path));
			line[0] = 0;
			if ((f = fopen(path, "r"))) {
				if (fgets(line, sizeof(line), f))
					line[strcspn(line, "\n")] = 0;
				fclose(f);
			}
			json_object_set_new(row, "status", json_string(f ? "failed" : "missing"));
			json_object_set_new(row, "partial", json_null());
			if (f)
				json_object_set_new(row, "error", json_string(line));
		}
		json_array_foreach(metrics, k, m)
		{
			const json_t *v = st ? cli_stat(st, json_string_value(m)) : NULL;

			json_object_set_new(vals, json_string_value(m),
					    v ? json_deep_copy(v) : json_null());
			if (v)
				json_object_set_new(found, json_string_value(m), json_true());
		}
		json_object_set_new(row, "values", vals);
		json_array_append_new(rows, row);
		json_decref(st);
	}
	return rows;
}

/* Each row's baseline (the policy, "" if its group has none of @baseline)
 * and its ratios to the baseline's values. */
static void add_ratios(json_t *rows, json_t *metrics, json_t *baseline)
{
	json_t *groups = json_object(), *row, *b;
	size_t i, k;

	/* Rows by key: the baseline's row of each key, by rank in @baseline. */
	json_array_foreach(rows, i, row)
	{
		char *key = row_key(json_object_get(row, "axes"));
		const char *pol =
		    json_string_value(json_object_get(json_object_get(row, "axes"), "policy"));
		json_t *best = json_object_get(groups, key);

		json_array_foreach(baseline, k, b) if (!strcmp(json_string_value(b), pol)) break;
		if (k < json_array_size(baseline) &&
		    (!best || k < (size_t)json_integer_value(json_object_get(best, "rank")))) {
			json_t *g = json_object();

			json_object_set_new(g, "rank", json_integer((json_int_t)k));
			json_object_set(g, "row", row);
			json_object_set_new(groups, key, g);
		}
		free(key);
	}
	json_array_foreach(rows, i, row)
	{
		char *key = row_key(json_object_get(row, "axes"));
		json_t *g = json_object_get(groups, key), *base = json_object_get(g, "row");
		json_t *ratios = json_object(), *m;

		free(key);
		json_object_set_new(row, "baseline",
				    json_string(base ? json_string_value(json_object_get(
							   json_object_get(base, "axes"), "policy"))
						     : ""));
		json_array_foreach(metrics, k, m)
		{
			const char *name = json_string_value(m);
			json_t *v = json_object_get(json_object_get(row, "values"), name);
			json_t *bv =
			    base ? json_object_get(json_object_get(base, "values"), name) : NULL;

			if (json_is_number(v) && json_is_number(bv) && json_number_value(bv) != 0)
				json_object_set_new(
				    ratios, name,
				    json_real(json_number_value(v) / json_number_value(bv)));
			else
				json_object_set_new(ratios, name, json_null());
		}
		json_object_set_new(row, "ratios", ratios);
	}
	json_decref(groups);
}

/* ---- CSV -------------------------------------------------------------------------- */

/* @s as a CSV field (RFC 4180: quoted when it holds a comma, quote or line end). */
static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_value(FILE *f, const json_t *v)
{
	char buf[1024];

	if (json_is_real(v))
		snprintf(buf, sizeof(buf), "%.10g", json_real_value(v));
	else if (json_is_true(v) || json_is_false(v))
		snprintf(buf, sizeof(buf), "%d", json_is_true(v));
	else
		sweep_axis_text(v, buf, sizeof(buf));
	csv_field(f, buf);
}

static char *csv_text(json_t *axes, json_t *metrics, json_t *rows)
{
	char *text = NULL;
	size_t len = 0, i, k;
	FILE *f = open_memstream(&text, &len);
	json_t *row, *a, *m;

	if (!f)
		return NULL;
	fputs("id", f);
	json_array_foreach(axes, k, a) fputc(',', f), csv_field(f, json_string_value(a));
	fputs(",status,partial,baseline", f);
	json_array_foreach(metrics, k, m)
	{
		fputc(',', f);
		csv_field(f, json_string_value(m));
		fputc(',', f);
		fprintf(f, "%s_ratio", json_string_value(m));
	}
	fputc('\n', f);
	json_array_foreach(rows, i, row)
	{
		fprintf(f, "%lld", (long long)json_integer_value(json_object_get(row, "id")));
		json_array_foreach(axes, k, a)
		{
			fputc(',', f);
			csv_value(
			    f, json_object_get(json_object_get(row, "axes"), json_string_value(a)));
		}
		fputc(',', f);
		csv_value(f, json_object_get(row, "status"));
		fputc(',', f);
		csv_value(f, json_object_get(row, "partial"));
		fputc(',', f);
		csv_value(f, json_object_get(row, "baseline"));
		json_array_foreach(metrics, k, m)
		{
			const char *name = json_string_value(m);

			fputc(',', f);
			csv_value(f, json_object_get(json_object_get(row, "values"), name));
			fputc(',', f);
			csv_value(f, json_object_get(json_object_get(row, "ratios"), name));
		}
		fputc('\n', f);
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

/* ---- charts ------------------------------------------------------------------------- */

/* The number of distinct values of column @axis among @rows. */
static size_t distinct(json_t *rows, const char *axis)
{
	json_t *seen = json_object(), *row;
	char buf[1024];
	size_t i, n;

	json_array_foreach(rows, i, row)
	{
		sweep_axis_text(json_object_get(json_object_get(row, "axes"), axis), buf,
				sizeof(buf));
		json_object_set_new(seen, buf, json_true());
	}
	n = json_object_size(seen);
	json_decref(seen);
	return n;
}

/* The x axis: @want, else the first axis (not the seed) with several values,
 * else the policy. */
static const char *pick_x(json_t *axes, json_t *rows, const char *want)
{
	size_t i;
	json_t *a;

	if (want)
		return want;
	json_array_foreach(axes, i, a)
	{
		const char *n = json_string_value(a);

		if (strcmp(n, "seed") && strcmp(n, "policy") && distinct(rows, n) > 1)
			return n;
	}
	return "policy";
}

/* Does column @axis tell series apart: for the machine, workload, policy
 * and group, several values among @rows; for an override or a parameter,
 * several values within the runs of one workload (loops 20 in one
 * workload and 5 in another names nothing the workload does not). */
static bool tells_apart(json_t *rows, const char *axis)
{
	json_t *by = json_object(), *row;
	char w[1024], v[1024];
	bool yes = false;
	size_t i;

	if (!strcmp(axis, "machine") || !strcmp(axis, "workload") || !strcmp(axis, "policy") ||
	    !strcmp(axis, "group"))
		yes = distinct(rows, axis) > 1;
	else
		json_array_foreach(rows, i, row)
		{
			json_t *ra = json_object_get(row, "axes"), *seen;

			sweep_axis_text(json_object_get(ra, "workload"), w, sizeof(w));
			sweep_axis_text(json_object_get(ra, axis), v, sizeof(v));
			if (!(seen = json_object_get(by, w)))
				json_object_set_new(by, w, json_string(v));
			else if (strcmp(json_string_value(seen), v))
				yes = true;
		}
	json_decref(by);
	return yes;
}

/*
 * The chart of @metric against @x: one series per combination of the
 * other axes that vary (the seed aside: its runs are averaged), a point
 * per value of @x (in order of first appearance); *@drawn tells whether
 * there was anything to draw.
 */
static int chart(const char *dir, const char *ext, json_t *axes, json_t *rows, const char *metric,
		 const char *label, const char *x, bool *drawn)
{
	static const char script[] =
	    "set title ARG3\nset ylabel ARG4\nset xlabel ARG5\nset datafile separator '\\t'\n"
	    "set key below font ',9'\nset grid ytics\nset offsets 0.25, 0.25, 0, 0\n"
	    "set format y '%.1s%c'\nstats ARG2 using 1 nooutput\n"
	    "plot for [i=0:STATS_blocks-1] ARG2 index i using 1:3:xtic(2) with linespoints "
	    "title columnhead(3)\n";
	json_t *series = json_object(), *xs = json_object(), *row, *a, *s;
	char data[4096], out[4096], title[512], buf[1024], key[2048];
	bool seeds = json_object_get(json_object_get(json_array_get(rows, 0), "axes"), "seed") &&
		     distinct(rows, "seed") > 1;
	const char *args[4];
	const char *k;
	size_t i, j;
	FILE *f;
	int rc;

	json_t *apart = json_object();

	json_array_foreach(axes, j, a) json_object_set_new(
	    apart, json_string_value(a), json_boolean(tells_apart(rows, json_string_value(a))));
	/* Points: series key -> {x text -> [sum, count]}. */
	json_array_foreach(rows, i, row)
	{
		json_t *ra = json_object_get(row, "axes"), *v, *pts, *pt;
		size_t used = 0;

		v = json_object_get(json_object_get(row, "values"), metric);
		sweep_axis_text(json_object_get(ra, x), buf, sizeof(buf));
		if (!json_object_get(xs, buf))
			json_object_set_new(xs, buf,
					    json_integer((json_int_t)json_object_size(xs)));
		if (!json_is_number(v))
			continue;
		/* "generic-x86-64 madvise-threads threads=2 x86-stock": names
		 * alone, other columns as k=v, those that do not apply left out. */
		key[0] = 0;
		json_array_foreach(axes, j, a)
		{
			const char *an = json_string_value(a);
			bool named = !strcmp(an, "machine") || !strcmp(an, "workload") ||
				     !strcmp(an, "policy") || !strcmp(an, "group");
			char val[512];

			if (!strcmp(an, x) || !strcmp(an, "seed") ||
			    !json_is_true(json_object_get(apart, an)))
				continue;
			sweep_axis_text(json_object_get(ra, an), val, sizeof(val));
			if (!val[0])
				continue;
			used = cli_appendf(key, sizeof(key), used, "%s%s%s%s", used ? " " : "",
					   named ? "" : an, named ? "" : "=", val);
		}
		if (!key[0])
			snprintf(key, sizeof(key), "%s", metric);
		if (!(pts = json_object_get(series, key))) {
			pts = json_object();
			json_object_set_new(series, key, pts);
		}
		if (!(pt = json_object_get(pts, buf))) {
			pt = json_pack("[f,i]", 0.0, 0);
			json_object_set_new(pts, buf, pt);
		}
		json_array_set_new(
		    pt, 0,
		    json_real(json_real_value(json_array_get(pt, 0)) + json_number_value(v)));
		json_array_set_new(pt, 1,
				   json_integer(json_integer_value(json_array_get(pt, 1)) + 1));
	}
	rc = 0;
	if (!json_object_size(series))
		goto out;
	if (!(f = cli_plot_data(data, sizeof(data)))) {
		rc = CLI_USAGE;
		goto out;
	}
	json_object_foreach(series, k, s)
	{
		const char *xv;
		json_t *pt;

		cli_plot_label(k, title, sizeof(title));
		fprintf(f, "x\tlabel\t%s\n", title);
		/* in the order of @x's values */
		for (size_t pos = 0; pos < json_object_size(xs); pos++)
			json_object_foreach(xs, xv, a)
			{
				if ((size_t)json_integer_value(a) != pos ||
				    !(pt = json_object_get(s, xv)))
					continue;
				cli_plot_label(xv, buf, sizeof(buf));
				fprintf(f, "%zu\t%s\t%.10g\n", pos, buf[0] ? buf : "-",
					json_real_value(json_array_get(pt, 0)) /
					    (double)json_integer_value(json_array_get(pt, 1)));
			}
		fputs("\n\n", f);
	}
	if (fclose(f)) {
		unlink(data);
		rc = cli_fail("merge: cannot write a gnuplot data file");
		goto out;
	}
	for (i = 0; metric[i] && i + 1 < 256; i++)
		buf[i] = strchr("/\\ ", metric[i]) ? '_' : metric[i];
	buf[i] = 0;
	snprintf(out, sizeof(out), "%s/plots/%s.%s", dir, buf, ext);
	snprintf(title, sizeof(title), "%s by %s%s", label, x,
		 seeds ? " (mean over the seeds)" : "");
	args[0] = data;
	args[1] = title;
	args[2] = label;
	args[3] = x;
	rc = cli_gnuplot(script, out, args, 4);
	*drawn = !rc;
	unlink(data);
out:
	json_decref(apart);
	json_decref(series);
	json_decref(xs);
	return rc;
}

/* The label compare prints for @metric, or the name itself. */
static const char *metric_label(const char *metric)
{
	for (unsigned i = 0; cli_metrics[i].key; i++)
		if (!strcmp(cli_metrics[i].key, metric))
			return cli_metrics[i].label;
	return metric;
}

static int write_outputs(const struct merge_opts *o, json_t *out, json_t *axes, json_t *metrics,
			 json_t *rows, const char *x, unsigned *charts)
{
	char path[4096], *text;
	size_t k;
	json_t *m;
	int rc;

	text = csv_text(axes, metrics, rows);
	if (!text)
		return cli_fail("out of memory");
	snprintf(path, sizeof(path), "%s/merge.csv", o->dir);
	rc = cli_write_file(path, text, strlen(text));
	free(text);
	if (rc)
		return rc;
	text = json_dumps(out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	if (!text)
		return cli_fail("out of memory");
	snprintf(path, sizeof(path), "%s/merge.json", o->dir);
	rc = cli_write_file(path, text, strlen(text));
	free(text);
	if (rc || !strcmp(o->plot, "none"))
		return rc;
	snprintf(path, sizeof(path), "%s/plots", o->dir);
	if (mkdir(path, 0777) && errno != EEXIST)
		return cli_fail("%s: cannot create the directory: %s", path, strerror(errno));
	json_array_foreach(metrics, k, m)
	{
		const char *name = json_string_value(m);

		bool drawn = false;

		if ((rc = chart(o->dir, o->plot, axes, rows, name, metric_label(name), x, &drawn)))
			return rc;
		*charts += drawn;
	}
	return 0;
}

int cmd_merge(int argc, char **argv)
{
	json_t *manifest = NULL, *metrics = NULL, *baseline = NULL, *rows = NULL, *out = NULL;
	json_t *found = json_object(), *settings, *axes, *row, *m, *missing, *failed;
	struct merge_opts o;
	unsigned charts = 0;
	const char *x;
	size_t i;
	int rc = parse(argc, argv, &o);

	if (rc || (rc = sweep_manifest_load(o.dir, &manifest)))
		goto done;
	settings = json_object_get(manifest, "merge");
	axes = json_object_get(manifest, "axes");
	if (o.metrics)
		metrics = split_list(o.metrics);
	else if ((metrics = as_list(json_object_get(settings, "metrics"))) == NULL) {
		metrics = json_array();
		for (i = 0; cli_metrics[i].key; i++)
			json_array_append_new(metrics, json_string(cli_metrics[i].key));
	}
	if (!json_array_size(metrics)) {
		rc = cli_fail("merge: --metrics names no statistic");
		goto done;
	}
	baseline =
	    o.baseline ? split_list(o.baseline) : as_list(json_object_get(settings, "baseline"));
	if (!baseline)
		baseline = json_incref(json_object_get(manifest, "policies"));
	json_array_foreach(baseline, i, m)
	{
		json_t *p;
		size_t k;

		json_array_foreach(json_object_get(manifest, "policies"), k,
				   p) if (json_equal(p, m)) break;
		if (k == json_array_size(json_object_get(manifest, "policies"))) {
			rc = cli_fail("merge: --baseline %s is none of the sweep's policies",
				      json_string_value(m));
			goto done;
		}
	}
	x = pick_x(axes, json_object_get(manifest, "runs"),
		   o.x ? o.x : json_string_value(json_object_get(settings, "x")));
	json_array_foreach(axes, i, m) if (!strcmp(json_string_value(m), x)) break;
	if (i == json_array_size(axes)) {
		rc = cli_fail("merge: --x %s is no column of the sweep", x);
		goto done;
	}
	rows = read_rows(o.dir, manifest, metrics, found);
	/* A statistic no run has is a typo, once a run is there to tell. */
	json_array_foreach(metrics, i, m)
	{
		bool any = false;
		size_t k;

		json_array_foreach(rows, k, row) any =
		    any || !strcmp(json_string_value(json_object_get(row, "status")), "ok");
		if (any && !json_object_get(found, json_string_value(m))) {
			rc = cli_fail("merge: no run's statistics have a number '%s' (a key of the "
				      "statistics, of their \"totals\", or a dotted path: "
				      "docs/stats-schema.md)",
				      json_string_value(m));
			goto done;
		}
	}
	add_ratios(rows, metrics, baseline);
	missing = json_array();
	failed = json_array();
	json_array_foreach(rows, i, row)
	{
		const char *st = json_string_value(json_object_get(row, "status"));

		if (!strcmp(st, "missing"))
			json_array_append(missing, json_object_get(row, "id"));
		else if (!strcmp(st, "failed"))
			json_array_append_new(failed, json_pack("{s:O, s:O}", "id",
								json_object_get(row, "id"), "error",
								json_object_get(row, "error")));
	}
	out = json_object();
	json_object_set_new(out, "schema", json_string("tlbsim-merge/1"));
	json_object_set(out, "sweep", json_object_get(manifest, "name"));
	json_object_set(out, "axes", axes);
	json_object_set(out, "metrics", metrics);
	json_object_set(out, "baseline", baseline);
	json_object_set_new(out, "runs", json_integer((json_int_t)json_array_size(rows)));
	json_object_set_new(out, "complete",
			    json_boolean(!json_array_size(missing) && !json_array_size(failed)));
	json_object_set_new(out, "missing", missing);
	json_object_set_new(out, "failed", failed);
	json_object_set(out, "rows", rows);
	if ((rc = write_outputs(&o, out, axes, metrics, rows, x, &charts)))
		goto done;
	fprintf(stderr, "merge: %zu runs, %zu merged", json_array_size(rows),
		json_array_size(rows) - json_array_size(missing) - json_array_size(failed));
	if (json_array_size(failed)) {
		fprintf(stderr, ", %zu failed:", json_array_size(failed));
		json_array_foreach(failed, i, row) if (i < 10)
		    fprintf(stderr, "\n  run %lld: %s (%s/runs/%lld.err)",
			    (long long)json_integer_value(json_object_get(row, "id")),
			    json_string_value(json_object_get(row, "error")), o.dir,
			    (long long)json_integer_value(json_object_get(row, "id")));
		if (json_array_size(failed) > 10)
			fprintf(stderr, "\n  ... (all in merge.json's \"failed\")");
	}
	if (json_array_size(missing)) {
		fprintf(stderr, "%s%zu not run (", json_array_size(failed) ? "\n  " : ", ",
			json_array_size(missing));
		json_array_foreach(missing, i, m) if (i < 20)
		    fprintf(stderr, "%s%lld", i ? " " : "", (long long)json_integer_value(m));
		fprintf(stderr, "%s)", json_array_size(missing) > 20 ? " ..." : "");
	}
	fprintf(stderr, "\n  %s/merge.csv, %s/merge.json", o.dir, o.dir);
	if (charts)
		fprintf(stderr, ", %u charts against %s in %s/plots/", charts, x, o.dir);
	fputc('\n', stderr);
	rc = json_array_size(missing) || json_array_size(failed) ? CLI_HAZARDS : CLI_OK;
done:
	json_decref(manifest);
	json_decref(metrics);
	json_decref(baseline);
	json_decref(rows);
	json_decref(out);
	json_decref(found);
	return rc;
}
