/* SPDX-License-Identifier: MIT */
/*
 * tlbsim sweep: a sweep spec (docs/sweep.md) expanded into numbered runs.
 *
 * A spec is one group of axes, or a list of "groups" that take the top
 * level's axes as defaults.  A group's runs are the product
 *
 *   machines x overrides (each key a list) x workloads x parameters (each
 *   a list) x seeds (generators only) x policies
 *
 * in that order, policy innermost, so that the runs a ratio compares sit
 * side by side; minus the pairs a machine's ISA refuses (a policy or a
 * trace of the other ISA: skipped, counted) and those an "exclude" entry
 * matches.  Every name is checked here, with the spec's line and column,
 * before anything runs: machines (and each derived one) load, policies
 * resolve on each machine (tlbsim_sim_create(), as `tlbsim compare` checks
 * them), generators take their parameters, traces open.
 */
#define _XOPEN_SOURCE 700 /* realpath() */
#include <errno.h>
#include <stdarg.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/sweep.h"
#include "config/json_read.h"

/* The largest sweep: a million runs (the manifest's size stays in the
 * hundreds of megabytes). */
#define SWEEP_MAX_RUNS 1000000

/* Keys of a group, and of the top level (a group's, "groups", "name",
 * "slurm", "merge"). */
#define GROUP_KEYS                                                                                 \
	{"machines", NULL}, {"overrides", NULL}, {"policies", NULL}, {"workloads", NULL},          \
	    {"seeds", NULL}, {"exclude", NULL},                                                    \
	{                                                                                          \
		"options", NULL                                                                    \
	}
static const struct jr_key options_keys[] = {
    {"threads", NULL}, {"max_events", NULL}, {"max_cycles", NULL}, {"check", NULL},
    {"os", NULL},      {NULL, NULL}};
static const struct jr_key slurm_keys[] = {
    {"time", NULL},    {"mem", NULL},		{"max_parallel", NULL}, {"partition", NULL},
    {"account", NULL}, {"runs_per_task", NULL}, {"sbatch", NULL},	{NULL, NULL}};
static const struct jr_key merge_keys[] = {
    {"metrics", NULL}, {"baseline", NULL}, {"x", NULL}, {NULL, NULL}};
static const struct jr_key top_keys[] = {
    GROUP_KEYS,	 {"name", NULL}, {"groups", NULL}, {"slurm", slurm_keys}, {"merge", merge_keys},
    {NULL, NULL}};
static const struct jr_key group_keys[] = {{"label", NULL}, GROUP_KEYS, {NULL, NULL}};
static const struct jr_key gen_keys[] = {
    {"gen", NULL}, {"params", NULL}, {"label", NULL}, {NULL, NULL}};
static const struct jr_key trace_keys[] = {{"trace", NULL},	 {"format", NULL}, {"isa", NULL},
					   {"linear_map", NULL}, {"kernel", NULL}, {"label", NULL},
					   {NULL, NULL}};

/* The axis columns every sweep may have; overrides and parameters add theirs. */
static const char *const fixed_columns[] = {"group", "machine", "workload", "seed", "policy",
					    /* merge's own columns */
					    "id", "status", "partial", NULL};

struct expand {
	struct jr_ctx c;
	struct tlbsim_error err; /* the spec's, through jr_fail() */
	struct tlbsim_error lib; /* a library call's, quoted in the spec's */
	char spec_dir[4096];
	const json_t *top;
	json_t *runs;
	json_t *machines;      /* "machines/NAME.json" -> text */
	json_t *override_keys; /* column names, first appearance */
	json_t *param_keys;    /* column names, first appearance */
	json_t *policies;      /* every policy named, first appearance */
	bool has_groups, has_seeds;
	unsigned long long skipped_isa, excluded;
};

/* ---- where a key comes from --------------------------------------------- */

/* Group @g's member @key, or the top level's default; NULL if neither. */
static const json_t *member(const struct expand *e, const json_t *g, const char *key)
{
	const json_t *v = g ? json_object_get(g, key) : NULL;

	return v ? v : json_object_get(e->top, key);
}

/* Point the error path at the member @key of group @gi (@g) or, when the
 * group takes it from the top level, at the top level's.  Errors are
 * reported at the path, which is set before each check that can fail. */
static void at(struct expand *e, const json_t *g, size_t gi, const char *key)
{
	e->c.path.depth = 0;
	if (g && (json_object_get(g, key) || !key)) {
		jpath_push_key(&e->c.path, "groups");
		jpath_push_index(&e->c.path, gi);
	}
	if (key)
		jpath_push_key(&e->c.path, key);
}

static int fail(struct expand *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct expand *e, const char *fmt, ...)
{
	char text[TLBSIM_ERROR_TEXT_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return jr_fail(&e->c, -TLBSIM_EPARSE, false, "%s", text);
}

/* ---- small readers ---------------------------------------------------------- */

static bool is_fixed_column(const char *name)
{
	for (unsigned i = 0; fixed_columns[i]; i++)
		if (!strcmp(fixed_columns[i], name))
			return true;
	return false;
}

/* Append @name to the string array @list unless it is there. */
static void add_name(json_t *list, const char *name)
{
	size_t i;
	json_t *v;

	json_array_foreach(list, i, v) if (!strcmp(json_string_value(v), name)) return;
	json_array_append_new(list, json_string(name));
}

/* @v is a non-empty array of non-empty strings (what: "machine names"). */
static int check_strings(struct expand *e, const json_t *v, const char *what)
{
	size_t i;
	json_t *x;

	if (!json_is_array(v) || !json_array_size(v))
		return fail(e, "expected a non-empty array of %s, found %s", what,
			    json_is_array(v) ? "an empty array" : jr_type_name(v));
	json_array_foreach(v, i, x)
	{
		if (json_is_string(x) && json_string_length(x) && json_string_length(x) < 1024)
			continue;
		jpath_push_index(&e->c.path, i);
		return fail(e, "expected one of the %s (a non-empty string), found %s", what,
			    jr_type_name(x));
	}
	return 0;
}

/* An axis: a list of values, or one value (a list of one). */
static size_t axis_size(const json_t *v)
{
	return json_is_array(v) ? json_array_size(v) : 1;
}

static const json_t *axis_value(const json_t *v, size_t i)
{
	return json_is_array(v) ? json_array_get(v, i) : v;
}

/* The product of the axis sizes of @obj's members; 0 if one is empty. */
static unsigned long long product(const json_t *obj)
{
	unsigned long long n = 1;
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)obj, k, v)
	{
		n *= axis_size(v);
		if (n > SWEEP_MAX_RUNS)
			return SWEEP_MAX_RUNS + 1ULL;
	}
	return n;
}

/* Combination @idx of @obj's axes, the last key varying fastest: each key
 * with its value, in the spec's order, set in @out. */
static void combination(const json_t *obj, unsigned long long idx, json_t *out)
{
	size_t n = json_object_size(obj), i, pick[64];
	const char *k;
	json_t *v;

	const json_t *vals[64];

	if (n > 64)
		n = 64;
	i = 0;
	json_object_foreach((json_t *)obj, k, v) if (i < n) vals[i++] = v;
	/* The digits of @idx in the mixed radix of the axis sizes. */
	while (i-- > 0) {
		pick[i] = (size_t)(idx % axis_size(vals[i]));
		idx /= axis_size(vals[i]);
	}
	i = 0;
	json_object_foreach((json_t *)obj, k, v) if (i < n)
	{
		json_object_set(out, k, (json_t *)axis_value(v, pick[i]));
		i++;
	}
}

void sweep_axis_text(const json_t *v, char *buf, size_t len)
{
	char *s;

	if (!v || json_is_null(v)) {
		snprintf(buf, len, "%s", "");
	} else if (json_is_string(v)) {
		snprintf(buf, len, "%s", json_string_value(v));
	} else if (json_is_integer(v)) {
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	} else if ((s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER |
					  JSON_REAL_PRECISION(10)))) {
		snprintf(buf, len, "%s", s);
		free(s);
	} else {
		snprintf(buf, len, "?");
	}
}

void sweep_result_path(const char *dir, long long id, const char *ext, char *buf, size_t len)
{
	snprintf(buf, len, "%s/runs/%lld.%s", dir, id, ext);
}

/* ---- machines ------------------------------------------------------------- */

/* FNV-1a, 32 bits: a short, stable tag for a derived machine's name. */
static unsigned fnv1a(const char *s)
{
	unsigned h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* Set @value at the dotted @key ("tlb.l2.entries") of @m, making the
 * objects on the way; an object value merges into an object there (JSON
 * merge patch, RFC 7386). */
static int set_dotted(json_t *m, const char *key, const json_t *value)
{
	char part[256];
	const char *dot;
	json_t *o = m, *next;

	while ((dot = strchr(key, '.'))) {
		if ((size_t)(dot - key) >= sizeof(part) || dot == key)
			return -1;
		snprintf(part, sizeof(part), "%.*s", (int)(dot - key), key);
		next = json_object_get(o, part);
		if (!json_is_object(next)) {
			next = json_object();
			json_object_set_new(o, part, next);
		}
		o = next;
		key = dot + 1;
	}
	if (!*key)
		return -1;
	next = json_object_get(o, key);
	if (json_is_object(next) && json_is_object(value))
		return json_object_update_recursive(next, (json_t *)value);
	return json_object_set_new(o, key, json_deep_copy(value));
}

/*
 * The machine of base @base (parsed file, borrowed) with the overrides
 * @ov (key -> value) applied, named @name_out; its text in *@text (free()).
 * Overriding `cores` alone keeps the sockets, nodes and clusters and drops
 * `topology.cores_per_cluster`, whose default (models/README.md) is then
 * cores / (sockets x nodes x clusters): eMAG's one cluster of 32 becomes
 * one of 16 at "cores": 16; Milan's 6 CCXs of 6 become 6 of 2 at 12.
 */
static char *derive(const json_t *base, const char *base_name, const json_t *ov, char *name_out,
		    size_t name_len)
{
	json_t *m = json_deep_copy(base), *topo;
	char text[512] = "", v[128];
	bool topology_given = false;
	const char *k;
	size_t used = 0;
	char *out;
	json_t *x;

	json_object_foreach((json_t *)ov, k, x)
	{
		if (set_dotted(m, k, x)) {
			json_decref(m);
			return NULL;
		}
		topology_given |= !strncmp(k, "topology", 8);
		sweep_axis_text(x, v, sizeof(v));
		used = cli_appendf(text, sizeof(text), used, "%s%s=%s", used ? "," : "", k, v);
	}
	topo = json_object_get(m, "topology");
	if (json_object_get(ov, "cores") && !topology_given && json_is_object(topo))
		json_object_del(topo, "cores_per_cluster");
	/* "emag-32+cores=16"; a long list of overrides: "emag-32+3f2a91c0". */
	if (!json_object_size(ov))
		snprintf(name_out, name_len, "%.63s", base_name);
	else if (strlen(base_name) + 1 + used <= 63 && used < sizeof(text))
		snprintf(name_out, name_len, "%.63s+%.63s", base_name, text);
	else
		snprintf(name_out, name_len, "%.50s+%08x", base_name, fnv1a(text));
	for (char *p = name_out; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+=,-",
			    *p))
			*p = '_';
	json_object_set_new(m, "name", json_string(name_out));
	out = json_dumps(m, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	json_decref(m);
	return out;
}

/* The file of machine @name (a name, or a path relative to the spec),
 * parsed into *@base, its name in @base_name.  0, or an error at the
 * current path. */
static int load_base(struct expand *e, const char *name, json_t **base, char *base_name, size_t len)
{
	char path[4096], rel[8192];
	const char *slash, *n;
	size_t tlen;
	char *text;
	json_error_t je;

	tlbsim_error_clear(&e->lib);
	if (tlbsim_machine_path(name, path, sizeof(path), &e->lib))
		return fail(e, "%s", e->lib.text);
	tlbsim_error_clear(&e->lib);
	/* A relative path names a file next to the spec. */
	if (path[0] != '/' && (strchr(name, '/') || strstr(name, ".json")))
		snprintf(rel, sizeof(rel), "%s/%s", e->spec_dir, path);
	else
		snprintf(rel, sizeof(rel), "%s", path);
	if (jr_read_file(rel, 1 << 20, &text, &tlen, &e->lib))
		return fail(e, "machine '%s': %s", name, e->lib.text);
	*base = json_loadb(text, tlen, JSON_REJECT_DUPLICATES, &je);
	free(text);
	if (!*base)
		return fail(e, "machine '%s' (%s): %d:%d: invalid JSON: %s", name, rel, je.line,
			    je.column, je.text);
	if (!json_is_object(*base)) {
		json_decref(*base);
		*base = NULL;
		return fail(e, "machine '%s' (%s): a machine description is an object", name, rel);
	}
	n = json_string_value(json_object_get(*base, "name"));
	if (n) {
		snprintf(base_name, len, "%s", n);
	} else {
		/* The loader's default: the file name without .json. */
		slash = strrchr(rel, '/');
		snprintf(base_name, len, "%.200s", slash ? slash + 1 : rel);
		if (strlen(base_name) > 5 && !strcmp(base_name + strlen(base_name) - 5, ".json"))
			base_name[strlen(base_name) - 5] = 0;
	}
	return 0;
}

/* ---- workloads ------------------------------------------------------------ */

struct workload {
	const char *gen;   /* or NULL */
	const char *trace; /* as written */
	char trace_abs[4096];
	const char *label;
	const json_t *params; /* gen: object of axes, may be NULL */
	const char *format, *isa;
	char linear_map[32];
	bool kernel;
	bool any_isa; /* an execlog/insn trace without "isa": runs on the machine's */
	enum tlbsim_isa trace_isa;
	bool matched; /* ran on some machine */
};

/* Read workloads[@i] (the path points at it) into @w. */
static int read_workload(struct expand *e, const json_t *v, struct workload *w)
{
	const json_t *x;
	const char *k;
	json_t *p;

	memset(w, 0, sizeof(*w));
	if (!json_is_object(v))
		return fail(e,
			    "expected a workload object ({\"gen\": ...} or {\"trace\": ...}), "
			    "found %s",
			    jr_type_name(v));
	if (!json_object_get(v, "gen") == !json_object_get(v, "trace"))
		return fail(e, "a workload names a generator (\"gen\") or a trace (\"trace\"), one "
			       "of them");
	if (jr_check_keys(&e->c, v, json_object_get(v, "gen") ? gen_keys : trace_keys))
		return -TLBSIM_EPARSE;
	json_object_foreach((json_t *)v, k, p)
	{
		if (!strcmp(k, "params") || !strcmp(k, "kernel") || !strcmp(k, "linear_map"))
			continue;
		if (!json_is_string(p) || !json_string_length(p))
			return jr_fail_at(&e->c, k, -TLBSIM_EPARSE,
					  "expected a non-empty string, found %s", jr_type_name(p));
	}
	w->gen = json_string_value(json_object_get(v, "gen"));
	w->trace = json_string_value(json_object_get(v, "trace"));
	w->label = json_string_value(json_object_get(v, "label"));
	if (!w->label)
		w->label = w->gen ? w->gen : w->trace;
	w->format = json_string_value(json_object_get(v, "format"));
	w->isa = json_string_value(json_object_get(v, "isa"));
	if ((x = json_object_get(v, "kernel")) && !json_is_boolean(x))
		return jr_fail_at(&e->c, "kernel", -TLBSIM_EPARSE,
				  "expected true or false, found %s", jr_type_name(x));
	w->kernel = json_is_true(x);
	if ((x = json_object_get(v, "linear_map"))) {
		if (json_is_integer(x) && json_integer_value(x) >= 0)
			snprintf(w->linear_map, sizeof(w->linear_map), "%lld",
				 (long long)json_integer_value(x));
		else if (json_is_string(x) && json_string_length(x) < sizeof(w->linear_map))
			snprintf(w->linear_map, sizeof(w->linear_map), "%s", json_string_value(x));
		else
			return jr_fail_at(&e->c, "linear_map", -TLBSIM_EPARSE,
					  "expected an address (an integer or a string such as "
					  "\"0xffff000000000000\"), found %s",
					  jr_type_name(x));
	}
	w->params = json_object_get(v, "params");
	if (w->params) {
		if (!json_is_object(w->params))
			return jr_fail_at(&e->c, "params", -TLBSIM_EPARSE,
					  "expected an object of generator parameters, found %s",
					  jr_type_name(w->params));
		jpath_push_key(&e->c.path, "params");
		json_object_foreach((json_t *)w->params, k, p)
		{
			size_t n = axis_size(p);

			jpath_push_key(&e->c.path, k);
			if (!strcmp(k, "seed"))
				return fail(e, "the seed is an axis of its own: \"seeds\": [...]");
			if (is_fixed_column(k))
				return fail(e,
					    "a parameter named '%s' would hide the column of that "
					    "name",
					    k);
			if (!n)
				return fail(e, "an empty list of values runs nothing");
			for (size_t i = 0; i < n; i++) {
				const json_t *a = axis_value(p, i);

				if ((json_is_integer(a) && json_integer_value(a) >= 0) ||
				    (json_is_string(a) && json_string_length(a) &&
				     !strpbrk(json_string_value(a), ",=")))
					continue;
				if (json_is_array(p))
					jpath_push_index(&e->c.path, i);
				return fail(e,
					    "expected a whole number >= 0 or a string such as "
					    "\"4M\" (a list of them is an axis), found %s",
					    jr_type_name(a));
			}
			jpath_pop(&e->c.path);
		}
		jpath_pop(&e->c.path);
	}
	if (w->format) {
		enum tlbsim_trace_format f;

		if (tlbsim_trace_format_find(w->format, &f))
			return jr_fail_at(&e->c, "format", -TLBSIM_ERANGE,
					  "expected text, binary, lackey, champsim, execlog, insn "
					  "or auto, found '%s'",
					  w->format);
	}
	if (w->isa && strcmp(w->isa, "x86-64") && strcmp(w->isa, "arm64"))
		return jr_fail_at(&e->c, "isa", -TLBSIM_ERANGE,
				  "expected \"x86-64\" or \"arm64\", found '%s'", w->isa);
	if (w->trace) {
		struct tlbsim_trace_opts o = {0};
		tlbsim_trace_reader *r = NULL;
		char rel[8192];
		const struct tlbsim_trace_info *info;

		snprintf(rel, sizeof(rel), "%s%s%s", w->trace[0] == '/' ? "" : e->spec_dir,
			 w->trace[0] == '/' ? "" : "/", w->trace);
		jpath_push_key(&e->c.path, "trace");
		if (!realpath(rel, w->trace_abs))
			return fail(e, "%s: %s", rel, strerror(errno));
		if (w->format && tlbsim_trace_format_find(w->format, &o.format))
			return fail(e, "unknown format '%s'", w->format);
		if (w->isa)
			o.isa = !strcmp(w->isa, "arm64") ? TLBSIM_ISA_ARM64 : TLBSIM_ISA_X86_64;
		tlbsim_error_clear(&e->lib);
		if (tlbsim_trace_open_opts(w->trace_abs, NULL, NULL, &o, &r, &e->lib)) {
			char msg[TLBSIM_ERROR_TEXT_LEN + 64];

			tlbsim_error_format(&e->lib, msg, sizeof(msg));
			return fail(e, "%s", msg);
		}
		info = tlbsim_trace_info(r);
		w->trace_isa = info->isa;
		w->any_isa = !w->isa && (info->format == TLBSIM_TRACE_EXECLOG ||
					 info->format == TLBSIM_TRACE_INSN);
		tlbsim_trace_close(r);
		jpath_pop(&e->c.path);
	}
	return 0;
}

/* "k=v,..." of a parameter combination @combo, then seed=@seed (< 0: none). */
static int param_text(const json_t *combo, long long seed, char *buf, size_t len)
{
	size_t n = 0;
	const char *k;
	json_t *v;
	char val[256];

	buf[0] = 0;
	json_object_foreach((json_t *)combo, k, v)
	{
		sweep_axis_text(v, val, sizeof(val));
		n = cli_appendf(buf, len, n, "%s%s=%s", n ? "," : "", k, val);
	}
	if (seed >= 0)
		n = cli_appendf(buf, len, n, "%sseed=%lld", n ? "," : "", seed);
	return n < len ? 0 : -1;
}

/* ---- runs ------------------------------------------------------------------- */

/* Does @pattern (a value of an "exclude" entry) match @v, a run's axis value? */
static bool value_matches(const json_t *pattern, const json_t *v)
{
	char a[1024], b[1024];

	if (json_is_array(pattern)) {
		size_t i;
		json_t *p;

		json_array_foreach((json_t *)pattern, i, p) if (value_matches(p, v)) return true;
		return false;
	}
	sweep_axis_text(pattern, a, sizeof(a));
	sweep_axis_text(v, b, sizeof(b));
	return v && !json_is_null(v) &&
	       (json_is_string(pattern) ? !fnmatch(a, b, 0) : !strcmp(a, b));
}

/* The first entry of @exclude matching every key of @axes, or -1. */
static long excluded_by(const json_t *exclude, const json_t *axes)
{
	size_t i;
	json_t *x;

	json_array_foreach((json_t *)exclude, i, x)
	{
		const char *k;
		json_t *p;
		bool all = true;

		json_object_foreach(x, k, p) all =
		    all && value_matches(p, json_object_get(axes, k));
		if (all)
			return (long)i;
	}
	return -1;
}

struct run_options {
	long long threads, max_events, max_cycles;
	bool check;
	char os[128]; /* tlbsim run --os, "" for none */
};

/* Member @key of @o, when present, an integer within @lim into *@out. */
static int opt_int(struct expand *e, const json_t *o, const char *key, const struct jr_limit *lim,
		   long long *out)
{
	const json_t *v = json_object_get(o, key);
	int rc;

	if (!v)
		return 0;
	jpath_push_key(&e->c.path, key);
	rc = jr_read_int(&e->c, v, lim, out);
	jpath_pop(&e->c.path);
	return rc;
}

static int read_options(struct expand *e, const json_t *o, struct run_options *ro)
{
	static const struct jr_limit threads = {1, 256}, count = {0, LLONG_MAX};
	const json_t *v;

	*ro = (struct run_options){.threads = 1};
	if (!o)
		return 0;
	if (!json_is_object(o))
		return fail(e, "expected an object of run options, found %s", jr_type_name(o));
	if (jr_check_keys(&e->c, o, options_keys))
		return -TLBSIM_EPARSE;
	if (opt_int(e, o, "threads", &threads, &ro->threads) ||
	    opt_int(e, o, "max_events", &count, &ro->max_events) ||
	    opt_int(e, o, "max_cycles", &count, &ro->max_cycles))
		return -TLBSIM_EPARSE;
	if ((v = json_object_get(o, "check"))) {
		if (!json_is_boolean(v))
			return jr_fail_at(&e->c, "check", -TLBSIM_EPARSE,
					  "expected true or false, found %s", jr_type_name(v));
		ro->check = json_is_true(v);
	}
	if ((v = json_object_get(o, "os"))) {
		char why[256];
		unsigned flags;

		if (!json_is_string(v) || json_string_length(v) >= sizeof(ro->os))
			return jr_fail_at(&e->c, "os", -TLBSIM_EPARSE,
					  "expected OS-model options as tlbsim run --os takes "
					  "them (a string), found %s",
					  jr_type_name(v));
		if (tlbsim_os_options_parse(json_string_value(v), &flags, why, sizeof(why), NULL))
			return jr_fail_at(&e->c, "os", -TLBSIM_ERANGE, "%s", why);
		snprintf(ro->os, sizeof(ro->os), "%s", json_string_value(v));
	}
	return 0;
}

static void add_arg(json_t *args, const char *a)
{
	json_array_append_new(args, json_string(a));
}

static void add_arg_ll(json_t *args, const char *opt, long long v)
{
	char b[32];

	snprintf(b, sizeof(b), "%lld", v);
	add_arg(args, opt);
	add_arg(args, b);
}

/* The arguments of `tlbsim run` for one run (in the sweep directory). */
static json_t *run_args(const char *machine_file, const char *policy, const struct workload *w,
			const char *params, const struct run_options *ro, size_t id)
{
	json_t *a = json_array();
	char json[64];

	add_arg(a, "run");
	add_arg(a, "--machine");
	add_arg(a, machine_file);
	add_arg(a, "--policy");
	add_arg(a, policy);
	if (w->gen) {
		add_arg(a, "--gen");
		add_arg(a, w->gen);
		if (params[0]) {
			add_arg(a, "--param");
			add_arg(a, params);
		}
	} else {
		if (w->format) {
			add_arg(a, "--format");
			add_arg(a, w->format);
		}
		if (w->isa) {
			add_arg(a, "--isa");
			add_arg(a, w->isa);
		}
		if (w->linear_map[0]) {
			add_arg(a, "--linear-map");
			add_arg(a, w->linear_map);
		}
		if (w->kernel)
			add_arg(a, "--kernel");
	}
	if (ro->threads > 1)
		add_arg_ll(a, "--threads", ro->threads);
	if (ro->max_events)
		add_arg_ll(a, "--max-events", ro->max_events);
	if (ro->max_cycles)
		add_arg_ll(a, "--max-cycles", ro->max_cycles);
	if (ro->check)
		add_arg(a, "--check");
	if (ro->os[0]) {
		add_arg(a, "--os");
		add_arg(a, ro->os);
	}
	add_arg(a, "--quiet");
	add_arg(a, "--json");
	snprintf(json, sizeof(json), "runs/%zu.json", id);
	add_arg(a, json);
	if (w->trace)
		add_arg(a, w->trace_abs);
	return a;
}

/* 0 if @policy runs on @m; 1 if @m's ISA refuses it (skipped); else an
 * error at the current path. */
static int probe_policy(struct expand *e, const struct tlbsim_machine *m, const char *policy)
{
	struct tlbsim_sim_config cfg = {.machine = m, .policy = policy, .threads = 1};
	tlbsim_sim *sim = NULL;
	int rc;

	tlbsim_error_clear(&e->lib);
	rc = tlbsim_sim_create(&cfg, &sim, &e->lib);
	tlbsim_sim_destroy(sim);
	if (!rc)
		return 0;
	if (rc == -TLBSIM_ENOTSUP)
		return 1;
	return fail(e, "policy '%s' on %s: %s", policy, m->name, e->lib.text);
}

/* ---- one group ---------------------------------------------------------------- */

struct group {
	const json_t *g; /* NULL: the top level is the one group */
	size_t gi;
	const char *label;
	const json_t *machines, *overrides, *policies, *workloads, *seeds, *exclude;
	struct run_options ro;
	struct workload *w;
	size_t nw;
	bool *policy_ran;
	unsigned long long *exclude_hits;
};

static const char *group_name(const struct group *gr)
{
	return gr->label ? gr->label : "the sweep";
}

static int read_overrides(struct expand *e, struct group *gr)
{
	const char *k;
	json_t *x;

	at(e, gr->g, gr->gi, "overrides");
	if (!json_is_object(gr->overrides))
		return fail(e, "expected an object of machine keys (\"cores\": [8, 16]), found %s",
			    jr_type_name(gr->overrides));
	json_object_foreach((json_t *)gr->overrides, k, x)
	{
		jpath_push_key(&e->c.path, k);
		if (is_fixed_column(k) || !strcmp(k, "name"))
			return fail(e, "'%s' cannot be overridden (a column of its own)", k);
		if (!axis_size(x))
			return fail(e, "an empty list of values runs nothing");
		jpath_pop(&e->c.path);
		add_name(e->override_keys, k);
	}
	return 0;
}

static int read_seeds(struct expand *e, struct group *gr)
{
	static const struct jr_limit seed = {0, LLONG_MAX};
	long long s;
	size_t i;
	json_t *x;

	at(e, gr->g, gr->gi, "seeds");
	if (!json_is_array(gr->seeds) || !json_array_size(gr->seeds))
		return fail(e, "expected a non-empty array of seeds (whole numbers), found %s",
			    jr_type_name(gr->seeds));
	json_array_foreach(gr->seeds, i, x)
	{
		jpath_push_index(&e->c.path, i);
		if (jr_read_int(&e->c, x, &seed, &s))
			return -TLBSIM_EPARSE;
		jpath_pop(&e->c.path);
	}
	e->has_seeds = true;
	return 0;
}

static int read_workloads(struct expand *e, struct group *gr)
{
	size_t i;
	json_t *x;

	at(e, gr->g, gr->gi, "workloads");
	if (!json_is_array(gr->workloads) || !json_array_size(gr->workloads))
		return fail(e, "expected a non-empty array of workloads, found %s",
			    jr_type_name(gr->workloads));
	gr->nw = json_array_size(gr->workloads);
	gr->w = calloc(gr->nw, sizeof(*gr->w));
	if (!gr->w)
		return fail(e, "out of memory");
	json_array_foreach(gr->workloads, i, x)
	{
		const char *pk;
		json_t *pv;

		at(e, gr->g, gr->gi, "workloads");
		jpath_push_index(&e->c.path, i);
		if (read_workload(e, x, &gr->w[i]))
			return -TLBSIM_EPARSE;
		json_object_foreach((json_t *)gr->w[i].params, pk, pv)
		{
			if (json_object_get(gr->overrides, pk)) {
				jpath_push_key(&e->c.path, "params");
				jpath_push_key(&e->c.path, pk);
				return fail(e, "'%s' is also a machine override: one column each",
					    pk);
			}
			add_name(e->param_keys, pk);
		}
	}
	return 0;
}

/* Is @k a column of the group's runs (an exclusion may name it)? */
static bool is_group_column(const struct group *gr, const char *k)
{
	bool known =
	    is_fixed_column(k) && strcmp(k, "id") && strcmp(k, "status") && strcmp(k, "partial");

	for (size_t w = 0; !known && w < gr->nw; w++)
		known = gr->w[w].params && json_object_get(gr->w[w].params, k);
	return known || json_object_get(gr->overrides, k);
}

static int read_exclude(struct expand *e, struct group *gr)
{
	const char *k;
	json_t *x, *v;
	size_t i;

	at(e, gr->g, gr->gi, "exclude");
	if (!json_is_array(gr->exclude))
		return fail(e, "expected an array of objects (column -> value or list), found %s",
			    jr_type_name(gr->exclude));
	json_array_foreach(gr->exclude, i, x)
	{
		jpath_push_index(&e->c.path, i);
		if (!json_is_object(x) || !json_object_size(x))
			return fail(e,
				    "expected an object of columns (\"policy\": \"x86-*\"), "
				    "found %s",
				    json_is_object(x) ? "an empty object" : jr_type_name(x));
		json_object_foreach(x, k, v)
		{
			if (is_group_column(gr, k))
				continue;
			jpath_push_key(&e->c.path, k);
			return fail(e,
				    "'%s' is no column of these runs (machine, policy, workload, "
				    "seed, group, an override or a parameter)",
				    k);
		}
		jpath_pop(&e->c.path);
	}
	return 0;
}

/* Read and check the group's members (defaults from the top level). */
static int read_group(struct expand *e, struct group *gr)
{
	const json_t *o;

	gr->machines = member(e, gr->g, "machines");
	gr->policies = member(e, gr->g, "policies");
	gr->workloads = member(e, gr->g, "workloads");
	gr->overrides = member(e, gr->g, "overrides");
	gr->seeds = member(e, gr->g, "seeds");
	gr->exclude = member(e, gr->g, "exclude");
	o = member(e, gr->g, "options");
	at(e, gr->g, gr->gi, NULL);
	if (!gr->machines || !gr->policies || !gr->workloads)
		return fail(e, "%s: no \"%s\" (at the top level or in the group)", group_name(gr),
			    !gr->machines   ? "machines"
			    : !gr->policies ? "policies"
					    : "workloads");
	at(e, gr->g, gr->gi, "machines");
	if (check_strings(e, gr->machines, "machine names or paths"))
		return -TLBSIM_EPARSE;
	at(e, gr->g, gr->gi, "policies");
	if (check_strings(e, gr->policies, "policy names"))
		return -TLBSIM_EPARSE;
	for (size_t i = 0; i < json_array_size(gr->policies); i++)
		add_name(e->policies, json_string_value(json_array_get(gr->policies, i)));
	if ((gr->overrides && read_overrides(e, gr)) || (gr->seeds && read_seeds(e, gr)) ||
	    read_workloads(e, gr) || (gr->exclude && read_exclude(e, gr)))
		return -TLBSIM_EPARSE;
	at(e, gr->g, gr->gi, "options");
	if (read_options(e, o, &gr->ro))
		return -TLBSIM_EPARSE;
	gr->policy_ran = calloc(json_array_size(gr->policies), sizeof(bool));
	gr->exclude_hits = calloc(json_array_size(gr->exclude) + 1, sizeof(*gr->exclude_hits));
	if (!gr->policy_ran || !gr->exclude_hits)
		return fail(e, "out of memory");
	return 0;
}

/* The runs of workload @wi on machine variant @m (file @mfile; the axes
 * so far in @base; @refused: the policies its ISA refuses). */
static int add_workload_runs(struct expand *e, struct group *gr, size_t wi,
			     const struct tlbsim_machine *m, const char *mfile, const json_t *base,
			     const bool *refused)
{
	struct workload *w = &gr->w[wi];
	json_t *empty = json_object();
	const json_t *params = w->params ? w->params : empty;
	unsigned long long np = product(params), pi;
	size_t ns = w->gen && gr->seeds ? json_array_size(gr->seeds) : 1;
	size_t npol = json_array_size(gr->policies);
	int rc = 0;

	if (w->trace && !w->any_isa && w->trace_isa != m->isa) {
		e->skipped_isa += npol;
		json_decref(empty);
		return 0;
	}
	w->matched = true;
	for (pi = 0; !rc && pi < np; pi++) {
		json_t *combo = json_object();
		char ptext[2048];

		combination(params, pi, combo);
		for (size_t si = 0; !rc && si < ns; si++) {
			long long seed =
			    w->gen && gr->seeds
				? (long long)json_integer_value(json_array_get(gr->seeds, si))
				: -1;

			at(e, gr->g, gr->gi, "workloads");
			jpath_push_index(&e->c.path, wi);
			if (param_text(combo, seed, ptext, sizeof(ptext))) {
				rc = fail(e, "the parameters are longer than %zu bytes",
					  sizeof(ptext) - 1);
				break;
			}
			if (w->gen) {
				tlbsim_gen *g = NULL;

				tlbsim_error_clear(&e->lib);
				if (tlbsim_gen_create(w->gen, ptext, m->isa, &g, &e->lib)) {
					rc = fail(e, "generator '%s' (%s): %s", w->gen, ptext,
						  e->lib.text);
					break;
				}
				tlbsim_gen_destroy(g);
			}
			for (size_t p = 0; !rc && p < npol; p++) {
				const char *pol =
				    json_string_value(json_array_get(gr->policies, p));
				size_t id = json_array_size(e->runs);
				json_t *axes, *run;
				long ex;

				if (refused[p]) {
					e->skipped_isa++;
					continue;
				}
				gr->policy_ran[p] = true;
				axes = json_deep_copy(base);
				json_object_set_new(axes, "workload", json_string(w->label));
				json_object_update(axes, combo);
				if (seed >= 0)
					json_object_set_new(axes, "seed", json_integer(seed));
				json_object_set_new(axes, "policy", json_string(pol));
				if ((ex = excluded_by(gr->exclude, axes)) >= 0) {
					gr->exclude_hits[ex]++;
					e->excluded++;
					json_decref(axes);
					continue;
				}
				if (id >= SWEEP_MAX_RUNS) {
					json_decref(axes);
					rc = fail(e, "more than %d runs", SWEEP_MAX_RUNS);
					break;
				}
				run = json_object();
				json_object_set_new(run, "id", json_integer((json_int_t)id));
				json_object_set_new(run, "axes", axes);
				json_object_set_new(
				    run, "args",
				    run_args(mfile, pol, w, w->gen ? ptext : "", &gr->ro, id));
				json_array_append_new(e->runs, run);
			}
		}
		json_decref(combo);
	}
	json_decref(empty);
	return rc;
}

/* Machine variant @ov (override key -> value) of machines[@mi]: kept in
 * e->machines, loaded, and every workload run on it. */
static int add_machine_runs(struct expand *e, struct group *gr, size_t mi, const json_t *base,
			    const char *base_name, const json_t *ov)
{
	const char *name = json_string_value(json_array_get(gr->machines, mi));
	size_t np = json_array_size(gr->policies);
	struct tlbsim_machine *m = NULL;
	char dname[128], mfile[192];
	bool *refused = NULL;
	const json_t *prev;
	json_t *axes = NULL;
	char *text;
	int rc = 0;

	at(e, gr->g, gr->gi, "machines");
	jpath_push_index(&e->c.path, mi);
	text = derive(base, base_name, ov, dname, sizeof(dname));
	if (!text)
		return fail(e,
			    "machine '%s': an override key is not a path of names "
			    "(\"tlb.l2.entries\")",
			    name);
	snprintf(mfile, sizeof(mfile), "machines/%s.json", dname);
	tlbsim_error_clear(&e->lib);
	if (tlbsim_machine_load_string(text, mfile, &m, &e->lib)) {
		char ovt[512];

		sweep_axis_text(ov, ovt, sizeof(ovt));
		rc = fail(e, "machine '%s'%s%s: %s%s%s", name,
			  json_object_size(ov) ? " with the overrides " : "",
			  json_object_size(ov) ? ovt : "", e->lib.path, e->lib.path[0] ? ": " : "",
			  e->lib.text);
		goto out;
	}
	prev = json_object_get(e->machines, mfile);
	if (prev && strcmp(json_string_value(prev), text)) {
		rc = fail(e,
			  "machine '%s' is named %s, as another machine of the sweep is (a "
			  "different file with the same \"name\")",
			  name, dname);
		goto out;
	}
	json_object_set_new(e->machines, mfile, json_string(text));
	refused = calloc(np, sizeof(bool));
	for (size_t p = 0; refused && !rc && p < np; p++) {
		int r;

		at(e, gr->g, gr->gi, "policies");
		jpath_push_index(&e->c.path, p);
		r = probe_policy(e, m, json_string_value(json_array_get(gr->policies, p)));
		if (r < 0)
			rc = r;
		refused[p] = r == 1;
	}
	if (!refused)
		rc = fail(e, "out of memory");
	axes = json_object();
	if (gr->label)
		json_object_set_new(axes, "group", json_string(gr->label));
	json_object_set_new(axes, "machine", json_string(name));
	json_object_update(axes, (json_t *)ov);
	for (size_t wi = 0; !rc && wi < gr->nw; wi++)
		rc = add_workload_runs(e, gr, wi, m, mfile, axes, refused);
out:
	json_decref(axes);
	free(refused);
	free(text);
	tlbsim_machine_free(m);
	return rc;
}

/* Every policy runs on some machine, every trace too, every exclusion
 * excludes something (else a warning: a value mistyped?). */
static int check_group_used(struct expand *e, const struct group *gr)
{
	for (size_t p = 0; p < json_array_size(gr->policies); p++) {
		if (gr->policy_ran[p])
			continue;
		at(e, gr->g, gr->gi, "policies");
		jpath_push_index(&e->c.path, p);
		return fail(e, "policy '%s' runs on none of the machines (their ISA refuses it)",
			    json_string_value(json_array_get(gr->policies, p)));
	}
	for (size_t w = 0; w < gr->nw; w++) {
		if (gr->w[w].matched)
			continue;
		at(e, gr->g, gr->gi, "workloads");
		jpath_push_index(&e->c.path, w);
		return fail(e, "trace '%s' is %s, the ISA of none of the machines", gr->w[w].trace,
			    tlbsim_isa_name(gr->w[w].trace_isa));
	}
	for (size_t x = 0; x < json_array_size(gr->exclude); x++)
		if (!gr->exclude_hits[x])
			fprintf(stderr, "tlbsim: %s: warning: %s%sexclude[%zu] excludes no run\n",
				e->c.source, gr->label ? gr->label : "", gr->label ? ": " : "", x);
	return 0;
}

static int check_group_label(struct expand *e, const json_t *g, size_t gi)
{
	const json_t *groups = json_object_get(e->top, "groups"), *l;

	at(e, g, gi, NULL);
	if (!json_is_object(g))
		return fail(e, "expected a group object, found %s", jr_type_name(g));
	if (jr_check_keys(&e->c, g, group_keys))
		return -TLBSIM_EPARSE;
	l = json_object_get(g, "label");
	if (!json_is_string(l) || !json_string_length(l))
		return jr_fail_at(&e->c, "label", -TLBSIM_EPARSE,
				  "a group needs a \"label\" (a non-empty string), found %s",
				  l ? jr_type_name(l) : "none");
	for (size_t k = 0; k < gi; k++)
		if (json_equal(json_object_get(json_array_get(groups, k), "label"), (json_t *)l))
			return jr_fail_at(&e->c, "label", -TLBSIM_EPARSE,
					  "label '%s' is also the label of groups[%zu]",
					  json_string_value(l), k);
	return 0;
}

static int expand_group(struct expand *e, const json_t *g, size_t gi)
{
	struct group gr = {.g = g, .gi = gi};
	int rc = 0;

	if (g && (rc = check_group_label(e, g, gi)))
		return rc;
	gr.label = g ? json_string_value(json_object_get(g, "label")) : NULL;
	rc = read_group(e, &gr);
	for (size_t mi = 0; !rc && mi < json_array_size(gr.machines); mi++) {
		const char *name = json_string_value(json_array_get(gr.machines, mi));
		json_t *empty = json_object(), *base = NULL;
		const json_t *ovs = gr.overrides ? gr.overrides : empty;
		unsigned long long n = product(ovs);
		char base_name[256];

		at(e, g, gi, "machines");
		jpath_push_index(&e->c.path, mi);
		rc = load_base(e, name, &base, base_name, sizeof(base_name));
		for (unsigned long long oi = 0; !rc && oi < n; oi++) {
			json_t *ov = json_object();

			combination(ovs, oi, ov);
			rc = add_machine_runs(e, &gr, mi, base, base_name, ov);
			json_decref(ov);
		}
		json_decref(base);
		json_decref(empty);
	}
	if (!rc)
		rc = check_group_used(e, &gr);
	free(gr.w);
	free(gr.policy_ran);
	free(gr.exclude_hits);
	return rc;
}

/* ---- the top level ------------------------------------------------------------- */

static int check_top(struct expand *e, const json_t *top)
{
	const json_t *v, *s;
	const char *k;
	size_t i;
	json_t *x;

	if (!json_is_object(top))
		return fail(e, "expected a sweep spec (an object), found %s", jr_type_name(top));
	if (jr_check_keys(&e->c, top, top_keys))
		return -TLBSIM_EPARSE;
	if ((v = json_object_get(top, "name")) && (!json_is_string(v) || !json_string_length(v)))
		return jr_fail_at(&e->c, "name", -TLBSIM_EPARSE,
				  "expected a non-empty string, found %s", jr_type_name(v));
	if ((v = json_object_get(top, "groups")) && (!json_is_array(v) || !json_array_size(v)))
		return jr_fail_at(&e->c, "groups", -TLBSIM_EPARSE,
				  "expected a non-empty array of groups, found %s",
				  jr_type_name(v));
	if ((s = json_object_get(top, "slurm"))) {
		jpath_push_key(&e->c.path, "slurm");
		if (!json_is_object(s))
			return fail(e, "expected an object, found %s", jr_type_name(s));
		if (jr_check_keys(&e->c, s, slurm_keys))
			return -TLBSIM_EPARSE;
		json_object_foreach((json_t *)s, k, x)
		{
			static const struct jr_limit pos = {1, INT_MAX};
			long long n;

			jpath_push_key(&e->c.path, k);
			if (!strcmp(k, "max_parallel") || !strcmp(k, "runs_per_task")) {
				if (jr_read_int(&e->c, x, &pos, &n))
					return -TLBSIM_EPARSE;
			} else if (!strcmp(k, "sbatch")) {
				if (!json_is_array(x))
					return fail(e,
						    "expected an array of sbatch options "
						    "(\"--qos=short\"), found %s",
						    jr_type_name(x));
				json_array_foreach(x, i,
						   v) if (!json_is_string(v) ||
							  strncmp(json_string_value(v), "--", 2) ||
							  strchr(json_string_value(v), '\n'))
				{
					jpath_push_index(&e->c.path, i);
					return fail(e, "expected an sbatch option of one line "
						       "starting with \"--\"");
				}
			} else if (!json_is_string(x) || !json_string_length(x) ||
				   strpbrk(json_string_value(x), " \t\n'\"\\")) {
				return fail(e,
					    "expected a string without blanks or quotes, found "
					    "%s%s%s",
					    json_is_string(x) ? "'" : "",
					    json_is_string(x) ? json_string_value(x)
							      : jr_type_name(x),
					    json_is_string(x) ? "'" : "");
			}
			jpath_pop(&e->c.path);
		}
		jpath_pop(&e->c.path);
	}
	if ((s = json_object_get(top, "merge"))) {
		jpath_push_key(&e->c.path, "merge");
		if (!json_is_object(s))
			return fail(e, "expected an object, found %s", jr_type_name(s));
		if (jr_check_keys(&e->c, s, merge_keys))
			return -TLBSIM_EPARSE;
		if ((v = json_object_get(s, "metrics"))) {
			jpath_push_key(&e->c.path, "metrics");
			if (check_strings(e, v, "statistics (\"cycles\", \"totals.walks\")"))
				return -TLBSIM_EPARSE;
			jpath_pop(&e->c.path);
		}
		if ((v = json_object_get(s, "baseline")) && !json_is_string(v)) {
			jpath_push_key(&e->c.path, "baseline");
			if (check_strings(e, v, "policy names"))
				return -TLBSIM_EPARSE;
			jpath_pop(&e->c.path);
		}
		if ((v = json_object_get(s, "x")) && !json_is_string(v))
			return jr_fail_at(&e->c, "x", -TLBSIM_EPARSE,
					  "expected a column name, found %s", jr_type_name(v));
		jpath_pop(&e->c.path);
	}
	return 0;
}

/* The merge settings name policies and columns of the sweep. */
static int check_merge(struct expand *e, const json_t *axes)
{
	const json_t *s = json_object_get(e->top, "merge"), *b, *x;
	size_t i;
	json_t *v;

	if (!s)
		return 0;
	e->c.path.depth = 0;
	jpath_push_key(&e->c.path, "merge");
	b = json_object_get(s, "baseline");
	for (i = 0; b && i < axis_size(b); i++) {
		const char *p = json_string_value(axis_value(b, i));
		size_t k;

		json_array_foreach(e->policies, k, v) if (!strcmp(json_string_value(v), p)) break;
		if (k == json_array_size(e->policies)) {
			jpath_push_key(&e->c.path, "baseline");
			if (json_is_array(b))
				jpath_push_index(&e->c.path, i);
			return fail(e, "'%s' is none of the sweep's policies", p);
		}
	}
	if ((x = json_object_get(s, "x"))) {
		json_array_foreach((json_t *)axes, i, v) if (!strcmp(json_string_value(v),
								     json_string_value(x))) break;
		if (i == json_array_size(axes))
			return jr_fail_at(&e->c, "x", -TLBSIM_EPARSE,
					  "'%s' is no column of the sweep", json_string_value(x));
	}
	jpath_pop(&e->c.path);
	return 0;
}

int sweep_spec_expand(const char *path, json_t **manifest, json_t **machines)
{
	struct expand e = {0};
	json_t *root = NULL, *axes, *m;
	char abs[4096], *text = NULL;
	const json_t *groups;
	const char *slash;
	size_t len, i;
	int rc;

	*manifest = *machines = NULL;
	e.c.source = path;
	e.c.err = &e.err;
	tlbsim_error_clear(&e.err);
	if (jr_read_file(path, 64 << 20, &text, &len, &e.err))
		return cli_fail_err(&e.err);
	e.c.text = text;
	e.c.len = len;
	if (jr_parse(&e.c, &root)) {
		free(text);
		return cli_fail_err(&e.err);
	}
	if (!realpath(path, abs))
		snprintf(abs, sizeof(abs), "%s", path);
	slash = strrchr(abs, '/');
	snprintf(e.spec_dir, sizeof(e.spec_dir), "%.*s", slash ? (int)(slash - abs) : 1,
		 slash ? abs : ".");
	if (slash == abs)
		snprintf(e.spec_dir, sizeof(e.spec_dir), "/");
	e.top = root;
	e.runs = json_array();
	e.machines = json_object();
	e.override_keys = json_array();
	e.param_keys = json_array();
	e.policies = json_array();
	rc = check_top(&e, root);
	groups = json_object_get(root, "groups");
	e.has_groups = groups != NULL;
	if (!rc && !groups)
		rc = expand_group(&e, NULL, 0);
	for (i = 0; !rc && i < json_array_size(groups); i++)
		rc = expand_group(&e, json_array_get(groups, i), i);
	if (!rc && !json_array_size(e.runs)) {
		e.c.path.depth = 0;
		rc =
		    fail(&e, "the sweep has no run (every one excluded or refused by its machine)");
	}
	/* The columns, in the order of the runs' axes. */
	axes = json_array();
	if (e.has_groups)
		add_name(axes, "group");
	add_name(axes, "machine");
	json_array_extend(axes, e.override_keys);
	add_name(axes, "workload");
	json_array_extend(axes, e.param_keys);
	if (e.has_seeds)
		add_name(axes, "seed");
	add_name(axes, "policy");
	if (!rc)
		rc = check_merge(&e, axes);
	if (rc) {
		json_decref(axes);
		json_decref(e.runs);
		json_decref(e.machines);
	} else {
		const char *name = json_string_value(json_object_get(root, "name"));
		char base[256];

		if (!name) {
			snprintf(base, sizeof(base), "%.200s", slash ? slash + 1 : abs);
			if (strlen(base) > 5 && !strcmp(base + strlen(base) - 5, ".json"))
				base[strlen(base) - 5] = 0;
			name = base;
		}
		m = json_object();
		json_object_set_new(m, "schema", json_string(SWEEP_SCHEMA));
		json_object_set_new(m, "name", json_string(name));
		json_object_set_new(m, "spec", json_string(abs));
		json_object_set_new(m, "tlbsim_version", json_string(tlbsim_version()));
		json_object_set_new(m, "axes", axes);
		json_object_set_new(m, "policies", json_incref(e.policies));
		json_object_set_new(m, "skipped_isa", json_integer((json_int_t)e.skipped_isa));
		json_object_set_new(m, "excluded", json_integer((json_int_t)e.excluded));
		if (json_object_get(root, "slurm"))
			json_object_set(m, "slurm", json_object_get(root, "slurm"));
		if (json_object_get(root, "merge"))
			json_object_set(m, "merge", json_object_get(root, "merge"));
		json_object_set_new(m, "runs", e.runs);
		*manifest = m;
		*machines = e.machines;
	}
	json_decref(e.override_keys);
	json_decref(e.param_keys);
	json_decref(e.policies);
	json_decref(root);
	free(text);
	return rc ? cli_fail_err(&e.err) : 0;
}

int sweep_manifest_load(const char *dir, json_t **manifest)
{
	char path[4096];
	json_error_t je;
	json_t *m;

	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	m = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (!m)
		return cli_fail("%s: %s (is %s a sweep directory, written by tlbsim sweep?)", path,
				je.text, dir);
	if (!json_is_object(m) || !json_is_string(json_object_get(m, "schema")) ||
	    strcmp(json_string_value(json_object_get(m, "schema")), SWEEP_SCHEMA) ||
	    !json_is_array(json_object_get(m, "runs")) ||
	    !json_is_array(json_object_get(m, "axes"))) {
		json_decref(m);
		return cli_fail("%s: not a manifest of schema %s", path, SWEEP_SCHEMA);
	}
	*manifest = m;
	return 0;
}
