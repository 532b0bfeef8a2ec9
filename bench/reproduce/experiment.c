/* SPDX-License-Identifier: MIT */
/*
 * Reading an experiment file of the reproduction suite (jansson), with
 * strict checks: an unknown key, a wrong type or a missing field is an
 * error naming the file, the key and what was expected (the format is in
 * bench/reproduce/README.md).
 */
#include "bench/reproduce/experiment.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tlbsim/tlbsim.h"

static int fail(char *msg, size_t len, const char *file, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(msg, len, "%s: ", file);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < len)
		vsnprintf(msg + n, len - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Every key of @o is one of the NULL-terminated @known. */
static int check_keys(json_t *o, const char *const *known, const char *where, const char *file,
		      char *msg, size_t len)
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v)
	{
		unsigned i;
		char list[512] = "";

		for (i = 0; known[i] && strcmp(known[i], k); i++)
			;
		if (known[i])
			continue;
		for (i = 0; known[i]; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? ", " : "", known[i]);
		return fail(msg, len, file, "%s: unknown key '%s' (known: %s)", where, k, list);
	}
	return 0;
}

/* A string member into @dst; @required: absent is an error. */
static int get_str(json_t *o, const char *key, bool required, char *dst, size_t dst_len,
		   const char *where, const char *file, char *msg, size_t len)
{
	json_t *v = json_object_get(o, key);

	if (!v) {
		if (required)
			return fail(msg, len, file, "%s: '%s' is required", where, key);
		return 0;
	}
	if (!json_is_string(v) || !json_string_length(v))
		return fail(msg, len, file, "%s: '%s' must be a non-empty string", where, key);
	if (json_string_length(v) >= dst_len)
		return fail(msg, len, file, "%s: '%s' is longer than %zu bytes", where, key,
			    dst_len - 1);
	strcpy(dst, json_string_value(v));
	return 0;
}

static int check_params(json_t *p, const char *where, const char *file, char *msg, size_t len)
{
	const char *k;
	json_t *v;

	if (!json_is_object(p))
		return fail(msg, len, file, "%s: 'params' must be an object", where);
	json_object_foreach(
	    p, k,
	    v) if (!(json_is_integer(v) && json_integer_value(v) >= 0) &&
		   !json_is_string(
		       v)) return fail(msg, len, file,
				       "%s: parameter '%s' must be a whole number >= 0 or a string",
				       where, k);
	return 0;
}

static int load_metric(struct repro_experiment *e, json_t *m, unsigned idx, char *msg, size_t len)
{
	static const char *const keys[] = {"metric",	"label",	   "ops",    "ops_per",
					   "published", "published_ratio", "source", NULL};
	struct repro_metric_spec *s = &e->metrics[idx];
	char where[32], kind[REPRO_NAME_LEN];
	json_t *pub, *v;
	const char *k;
	size_t i;
	int kd;

	snprintf(where, sizeof(where), "metrics[%u]", idx);
	if (!json_is_object(m))
		return fail(msg, len, e->file, "%s must be an object", where);
	if (check_keys(m, keys, where, e->file, msg, len) ||
	    get_str(m, "metric", true, kind, sizeof(kind), where, e->file, msg, len) ||
	    get_str(m, "label", false, s->label, sizeof(s->label), where, e->file, msg, len) ||
	    get_str(m, "source", false, s->source, sizeof(s->source), where, e->file, msg, len))
		return -1;
	kd = repro_metric_kind(kind);
	if (kd < 0)
		return fail(msg, len, e->file,
			    "%s: unknown metric '%s' (known: seconds, flush_share, "
			    "flush_share_all, rate, ns_per_switch)",
			    where, kind);
	s->kind = (enum repro_metric_kind)kd;
	if (!s->label[0])
		snprintf(s->label, sizeof(s->label), "%s", kind);
	s->ops_per = 1;
	if ((v = json_object_get(m, "ops_per")) && !(json_is_number(v) && json_number_value(v) > 0))
		return fail(msg, len, e->file, "%s: 'ops_per' must be a number > 0", where);
	if (v)
		s->ops_per = json_number_value(v);
	v = json_object_get(m, "ops");
	if ((s->kind == REPRO_RATE) != (v != NULL))
		return fail(msg, len, e->file,
			    "%s: 'ops' goes with metric 'rate', and only with it", where);
	if (v &&
	    (!json_is_array(v) || !json_array_size(v) || json_array_size(v) > REPRO_MAX_OPS_PARAMS))
		return fail(msg, len, e->file, "%s: 'ops' must list 1 to %d parameter names", where,
			    REPRO_MAX_OPS_PARAMS);
	json_array_foreach(v, i, pub)
	{
		if (!json_is_string(pub) || json_string_length(pub) >= REPRO_NAME_LEN)
			return fail(msg, len, e->file, "%s: 'ops' must list parameter names",
				    where);
		strcpy(s->ops_params[s->nr_ops_params++], json_string_value(pub));
	}
	for (i = 0; i < REPRO_MAX_POLICIES; i++)
		s->published[i] = NAN;
	s->published_ratio = NAN;
	if ((v = json_object_get(m, "published_ratio"))) {
		if (!json_is_number(v) || json_number_value(v) <= 0)
			return fail(msg, len, e->file, "%s: 'published_ratio' must be a number > 0",
				    where);
		s->published_ratio = json_number_value(v);
	}
	pub = json_object_get(m, "published");
	if (pub && !json_is_object(pub))
		return fail(msg, len, e->file, "%s: 'published' must map policy names to numbers",
			    where);
	json_object_foreach(pub, k, v)
	{
		unsigned p;

		for (p = 0; p < e->nr_policies && strcmp(e->policies[p], k); p++)
			;
		if (p == e->nr_policies)
			return fail(msg, len, e->file,
				    "%s: 'published' names '%s', not a policy of "
				    "the experiment",
				    where, k);
		if (!json_is_number(v))
			return fail(msg, len, e->file, "%s: published['%s'] must be a number",
				    where, k);
		s->published[p] = json_number_value(v);
	}
	return 0;
}

static int load_variant(struct repro_experiment *e, json_t *root, json_t *var, unsigned idx,
			char *msg, size_t len)
{
	static const char *const keys[] = {"label", "machine", "generator", "params", "os", NULL};
	struct repro_variant *v = &e->variants[idx];
	json_t *base = json_object_get(root, "params"), *own;
	char where[32];

	snprintf(where, sizeof(where), "variants[%u]", idx);
	if (var && !json_is_object(var))
		return fail(msg, len, e->file, "%s must be an object", where);
	if (var &&
	    (check_keys(var, keys, where, e->file, msg, len) ||
	     get_str(var, "label", true, v->label, sizeof(v->label), where, e->file, msg, len)))
		return -1;
	/* The experiment's machine and generator, unless the variant names
	 * its own. */
	if (get_str(root, "machine", false, v->machine, sizeof(v->machine), "top level", e->file,
		    msg, len) ||
	    get_str(root, "generator", false, v->generator, sizeof(v->generator), "top level",
		    e->file, msg, len))
		return -1;
	if (var && (get_str(var, "machine", false, v->machine, sizeof(v->machine), where, e->file,
			    msg, len) ||
		    get_str(var, "generator", false, v->generator, sizeof(v->generator), where,
			    e->file, msg, len)))
		return -1;
	/* The OS-model options: the variant's replace the experiment's. */
	if (get_str(root, "os", false, v->os, sizeof(v->os), "top level", e->file, msg, len) ||
	    (var && get_str(var, "os", false, v->os, sizeof(v->os), where, e->file, msg, len)))
		return -1;
	if (v->os[0]) {
		char why[256];

		if (tlbsim_os_options_parse(v->os, &v->os_flags, why, sizeof(why), NULL))
			return fail(msg, len, e->file, "%s: os: %s", var ? where : "top level",
				    why);
	}
	if (!v->machine[0] || !v->generator[0])
		return fail(msg, len, e->file,
			    "%s: no 'machine' or 'generator' (top level or "
			    "variant)",
			    var ? where : "top level");
	v->params = base ? json_deep_copy(base) : json_object();
	if ((own = var ? json_object_get(var, "params") : NULL)) {
		if (check_params(own, where, e->file, msg, len))
			return -1;
		json_object_update(v->params, own);
	}
	return 0;
}

/* "variants[K]" for an experiment with variants, else "top level". */
static const char *variant_where(const struct repro_experiment *e, unsigned k, char *buf,
				 size_t len)
{
	if (!e->variants[k].label[0])
		return "top level";
	snprintf(buf, len, "variants[%u]", k);
	return buf;
}

/* @name, listed under @what, is a whole-number parameter of each variant. */
static int check_int_param(const struct repro_experiment *e, const char *name, const char *what,
			   char *msg, size_t len)
{
	for (unsigned k = 0; k < e->nr_variants; k++) {
		json_t *p = json_object_get(e->variants[k].params, name);
		char where[32];

		if (!json_is_integer(p))
			return fail(msg, len, e->file,
				    "%s: '%s' is not a whole-number parameter of %s (%s)", what,
				    name, variant_where(e, k, where, sizeof(where)),
				    p ? "given as a string" : "not given");
	}
	return 0;
}

int repro_experiment_load(const char *path, struct repro_experiment *e, char *msg, size_t len)
{
	static const char *const keys[] = {"id",       "title",	   "kind",  "machine",	"generator",
					   "params",   "os",	   "scale", "policies", "metrics",
					   "variants", "expected", "note",  NULL};
	char kind[32] = "";
	json_error_t jerr;
	json_t *root, *v, *x;
	size_t i;
	int rc = -1;
	FILE *f;

	memset(e, 0, sizeof(*e));
	snprintf(e->file, sizeof(e->file), "%s", path);
	/* Opened here, so that a missing file reports the OS error rather
	 * than jansson's position -1:-1. */
	if (!(f = fopen(path, "r")))
		return fail(msg, len, path, "cannot open: %s", strerror(errno));
	root = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
	fclose(f);
	if (!root && jerr.line > 0)
		return fail(msg, len, path, "%d:%d: %s", jerr.line, jerr.column, jerr.text);
	if (!root)
		return fail(msg, len, path, "%s", jerr.text);
	if (!json_is_object(root)) {
		fail(msg, len, path, "the top level must be an object");
		goto out;
	}
	if (check_keys(root, keys, "top level", path, msg, len) ||
	    get_str(root, "id", true, e->id, sizeof(e->id), "top level", path, msg, len) ||
	    get_str(root, "title", true, e->title, sizeof(e->title), "top level", path, msg, len) ||
	    get_str(root, "kind", true, kind, sizeof(kind), "top level", path, msg, len) ||
	    get_str(root, "expected", false, e->expected, sizeof(e->expected), "top level", path,
		    msg, len) ||
	    get_str(root, "note", false, e->note, sizeof(e->note), "top level", path, msg, len))
		goto out;
	if (strcmp(kind, "calibration") && strcmp(kind, "prediction")) {
		fail(msg, len, path, "'kind' must be \"calibration\" or \"prediction\", found '%s'",
		     kind);
		goto out;
	}
	e->is_calibration = !strcmp(kind, "calibration");
	if ((v = json_object_get(root, "params")) && check_params(v, "top level", path, msg, len))
		goto out;
	v = json_object_get(root, "policies");
	/* The first is the baseline: one alone would compare nothing. */
	if (!json_is_array(v) || json_array_size(v) < 2 ||
	    json_array_size(v) > REPRO_MAX_POLICIES) {
		fail(msg, len, path,
		     "'policies' must list 2 to %d policy names (at least two policies "
		     "expected: the baseline and one to compare)",
		     REPRO_MAX_POLICIES);
		goto out;
	}
	json_array_foreach(v, i, x)
	{
		if (!json_is_string(x) || !json_string_length(x) ||
		    json_string_length(x) >= REPRO_NAME_LEN) {
			fail(msg, len, path, "policies[%zu] must be a policy name", i);
			goto out;
		}
		strcpy(e->policies[e->nr_policies++], json_string_value(x));
	}
	v = json_object_get(root, "metrics");
	if (!json_is_array(v) || !json_array_size(v) || json_array_size(v) > REPRO_MAX_METRICS) {
		fail(msg, len, path, "'metrics' must list 1 to %d metrics", REPRO_MAX_METRICS);
		goto out;
	}
	json_array_foreach(v, i, x)
	{
		if (load_metric(e, x, (unsigned)i, msg, len))
			goto out;
		e->nr_metrics++;
	}
	e->scale = json_object_get(root, "scale");
	if (e->scale && !json_is_array(e->scale)) {
		fail(msg, len, path, "'scale' must list parameter names");
		goto out;
	}
	json_array_foreach(e->scale, i, x) if (!json_is_string(x))
	{
		fail(msg, len, path, "scale[%zu] must be a parameter name", i);
		goto out;
	}
	e->scale = e->scale ? json_incref(e->scale) : json_array();
	v = json_object_get(root, "variants");
	if (v &&
	    (!json_is_array(v) || !json_array_size(v) || json_array_size(v) > REPRO_MAX_VARIANTS)) {
		fail(msg, len, path, "'variants' must list 1 to %d variants", REPRO_MAX_VARIANTS);
		goto out;
	}
	if (!v) {
		if (load_variant(e, root, NULL, 0, msg, len))
			goto out;
		e->nr_variants = 1;
	}
	json_array_foreach(v, i, x)
	{
		/* Counted first: repro_experiment_free() releases its params
		 * even when it fails half-way. */
		e->nr_variants++;
		if (load_variant(e, root, x, (unsigned)i, msg, len))
			goto out;
	}
	/* --scale divides numbers, and a rate multiplies them: each name must
	 * be a whole-number parameter of every variant (a string such as "4M"
	 * could not be divided; a name given nowhere would be ignored). */
	json_array_foreach(e->scale, i, x)
	{
		char what[32];

		snprintf(what, sizeof(what), "scale[%zu]", i);
		if (check_int_param(e, json_string_value(x), what, msg, len))
			goto out;
	}
	for (unsigned k = 0; k < e->nr_metrics; k++)
		for (unsigned q = 0; q < e->metrics[k].nr_ops_params; q++) {
			char what[32];

			snprintf(what, sizeof(what), "metrics[%u].ops", k);
			if (check_int_param(e, e->metrics[k].ops_params[q], what, msg, len))
				goto out;
		}
	rc = 0;
out:
	json_decref(root);
	return rc;
}

void repro_experiment_free(struct repro_experiment *e)
{
	for (unsigned i = 0; i < e->nr_variants; i++)
		json_decref(e->variants[i].params);
	json_decref(e->scale);
	e->nr_variants = 0;
	e->scale = NULL;
}

static bool is_scaled(const struct repro_experiment *e, const char *name)
{
	json_t *x;
	size_t i;

	json_array_foreach(e->scale, i, x) if (!strcmp(json_string_value(x), name)) return true;
	return false;
}

static double scaled(double v, double scale)
{
	double s = round(v / scale);

	return s < 1 ? 1 : s;
}

double repro_variant_param(const struct repro_experiment *e, const struct repro_variant *v,
			   const char *name, double scale)
{
	json_t *x = json_object_get(v->params, name);

	if (!json_is_integer(x))
		return -1;
	return is_scaled(e, name) ? scaled((double)json_integer_value(x), scale)
				  : (double)json_integer_value(x);
}

int repro_variant_params(const struct repro_experiment *e, const struct repro_variant *v,
			 double scale, char *buf, size_t len)
{
	const char *k;
	json_t *x;
	size_t n = 0;

	buf[0] = 0;
	json_object_foreach(v->params, k, x)
	{
		int w;

		if (json_is_integer(x))
			w = snprintf(buf + n, len - n, "%s%s=%.0f", n ? "," : "", k,
				     repro_variant_param(e, v, k, scale));
		else
			w = snprintf(buf + n, len - n, "%s%s=%s", n ? "," : "", k,
				     json_string_value(x));
		if (w < 0 || (size_t)w >= len - n)
			return -1;
		n += (size_t)w;
	}
	return 0;
}

int repro_experiment_check(const struct repro_experiment *e, double scale, char *msg, size_t len)
{
	char wbuf[32], params[1024], buf[1024];
	struct tlbsim_error err;
	int rc = 0;

	for (unsigned k = 0; !rc && k < e->nr_variants; k++) {
		const struct repro_variant *v = &e->variants[k];
		struct tlbsim_machine *m = NULL;
		tlbsim_gen *g = NULL;
		const char *where = variant_where(e, k, wbuf, sizeof(wbuf));
		tlbsim_error_clear(&err);
		if (repro_variant_params(e, v, scale, params, sizeof(params)))
			return fail(msg, len, e->file, "%s: parameters longer than %zu bytes",
				    where, sizeof(params) - 1);
		if (tlbsim_machine_find(v->machine, &m, &err)) {
			tlbsim_error_format(&err, buf, sizeof(buf));
			return fail(msg, len, e->file, "%s: machine '%s': %s", where, v->machine,
				    buf);
		}
		if (tlbsim_gen_create(v->generator, params, m->isa, &g, &err))
			rc = fail(msg, len, e->file, "%s: generator '%s' (%s): %s", where,
				  v->generator, params, err.text);
		tlbsim_gen_destroy(g);
		/* A policy is resolved on the machine: its ISA decides. */
		for (unsigned p = 0; !rc && p < e->nr_policies; p++) {
			struct tlbsim_sim_config cfg = {.machine = m,
							.policy = e->policies[p],
							.threads = 1,
							.os_flags = v->os_flags};
			tlbsim_sim *sim = NULL;

			if (tlbsim_sim_create(&cfg, &sim, &err))
				rc = fail(msg, len, e->file, "policies[%u]: '%s' on %s (%s): %s", p,
					  e->policies[p], v->machine, where, err.text);
			tlbsim_sim_destroy(sim);
		}
		tlbsim_machine_free(m);
	}
	return rc;
}
