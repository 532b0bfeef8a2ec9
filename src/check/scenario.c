/* SPDX-License-Identifier: MIT */
/*
 * Hazard scenarios (include/tlbsim/check.h, docs/scenarios.md): a text
 * trace whose "#@" comment lines say on which machine, under which policy,
 * in which mode and order it runs, and what the hazard oracle must find.
 * Exploration runs every interleaving of the per-actor event lists
 * (bounded) and counts those that reach a hazard: how a policy author
 * finds the race the written order does not show.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/oracle.h"
#include "error_internal.h"
#include "os/os.h"
#include "tlbsim/check.h"
#include "tlbsim/trace.h"

#define DEFAULT_MAX_INTERLEAVINGS 10000
/* Directive lines are short; the expectation list is the longest. */
#define LINE_MAX_LEN 1024

/* Where a directive (or one of its items) is in the file, for errors
 * found after parsing; line 0: not given. */
struct where {
	int line, column;
	long long offset;
};

/* Directives that may be given once: a second one is an input error
 * rather than silently replacing the first.  ets2 and expect add up. */
enum { D_MACHINE, D_POLICY, D_MODE, D_ORDER, D_EXPLORE, D_OS, D_ERRATA, D_ETS2, D_EXPECT, D_NR };
static const char *const directive_name[D_NR] = {"machine", "policy", "mode", "order", "explore",
						 "os",	    "errata", "ets2", "expect"};

struct scenario {
	const char *path;
	struct where at[D_NR];	/* of each directive's value (the first one's) */
	uint64_t expect_max;	/* the highest event index an expect item names */
	struct where expect_max_at;
	bool expect_has_event;
	char machine[256];
	char policy[256];
	bool kernel;		/* mode kernel: the replayer */
	bool ordered;		/* order trace (default) or timed */
	struct tlbsim_cpumask ets2;
	bool has_ets2;
	char expect[TLBSIM_VERDICT_LEN];
	char explore[8];	/* "", "hazard" or "safe" */
	unsigned explore_kinds; /* the kinds exploration counts (bit KIND_FAULT: faults); 0: all */
	bool want_faults;	/* expect or explore names fault outcomes (mode kernel) */
	bool want_values;	/* expect names value@EVENT=V items (mode kernel) */
	unsigned os_flags;	/* TLBSIM_OS_* */
	unsigned errata;	/* TLBSIM_ERRATUM_*, added to the machine's */
	enum tlbsim_isa isa;	/* the trace header's */
	struct tlbsim_event *ev;
	uint64_t n;
};

/* ---- parsing ----------------------------------------------------------------- */

/* An access that faulted (mode kernel): an outcome, not a diagnostic of
 * the oracle; named "fault" in expect and explore, after the oracle's kinds. */
#define KIND_FAULT CHK_NR_KINDS
/* The value a load returned (mode kernel): "value@EVENT=V", V decimal. */
#define KIND_VALUE (CHK_NR_KINDS + 1)

/* The kind named @name: an oracle diagnostic, "fault" or "value"; -1 if none. */
static int kind_find(const char *name)
{
	if (!strcmp(name, "fault"))
		return KIND_FAULT;
	return !strcmp(name, "value") ? KIND_VALUE : chk_kind_find(name);
}

/* The column (1-based) and byte offset of @p, a pointer into @line. */
#define AT(p) lineno, (int)((p) - line) + 1, off + ((p) - line)

/* "#@ key value" in @line (line @lineno, starting at byte @off of the file). */
static int directive(struct scenario *s, char *line, int lineno, long long off,
		     struct tlbsim_error *err)
{
	char *key = strtok(line + 2, " \t\r\n"), *val = strtok(NULL, "\r\n");

	while (val && (*val == ' ' || *val == '\t'))
		val++;
	int d;

	if (!key || !val || !*val)
		return err_set(err, -TLBSIM_EPARSE, s->path, AT(line), NULL,
			       "a directive is '#@ key value' (keys: machine, policy, mode, order, "
			       "ets2, errata, os, expect, explore)");
	for (d = 0; d < D_NR && strcmp(key, directive_name[d]); d++)
		;
	if (d < D_NR && s->at[d].line) {
		if (d < D_ETS2)
			return err_set(err, -TLBSIM_EPARSE, s->path, AT(key), NULL,
				       "a second '#@ %s' directive; the first is on line %d (give it "
				       "once)",
				       key, s->at[d].line);
		if (d == D_EXPECT && (!strcmp(val, "safe") || !strcmp(s->expect, "safe")))
			return err_set(err, -TLBSIM_EPARSE, s->path, AT(val), NULL,
				       "'#@ expect safe' and another '#@ expect' (line %d) contradict "
				       "each other",
				       s->at[d].line);
	}
	if (d < D_NR && !s->at[d].line)
		s->at[d] = (struct where){AT(val)};
	if (!strcmp(key, "machine")) {
		snprintf(s->machine, sizeof(s->machine), "%s", val);
	} else if (!strcmp(key, "policy")) {
		snprintf(s->policy, sizeof(s->policy), "%s", val);
	} else if (!strcmp(key, "mode")) {
		if (strcmp(val, "os") && strcmp(val, "kernel"))
			return err_set(err, -TLBSIM_EPARSE, s->path, AT(val), NULL,
				       "mode is 'os' or 'kernel', found '%s'", val);
		s->kernel = !strcmp(val, "kernel");
	} else if (!strcmp(key, "order")) {
		if (strcmp(val, "trace") && strcmp(val, "timed"))
			return err_set(err, -TLBSIM_EPARSE, s->path, AT(val), NULL,
				       "order is 'trace' or 'timed', found '%s'", val);
		s->ordered = !strcmp(val, "trace");
	} else if (!strcmp(key, "ets2")) {
		char *tok, *save = NULL;

		s->has_ets2 = true;
		for (tok = strtok_r(val, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
			char *end;
			unsigned long c = strtoul(tok, &end, 10);

			if (*end || c >= TLBSIM_NR_CPUS)
				return err_set(err, -TLBSIM_EPARSE, s->path, AT(tok), NULL,
					       "ets2 lists cpu numbers, found '%s'", tok);
			tlbsim_cpumask_set(&s->ets2, (unsigned)c);
		}
	} else if (!strcmp(key, "errata")) {
		char *tok, *save = NULL;

		/* The machine's "errata" key (models/README.md), for this run. */
		for (tok = strtok_r(val, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
			if (strcmp(tok, "arm-1286807"))
				return err_set(
				    err, -TLBSIM_EPARSE, s->path, AT(tok), NULL,
				    "errata names known errata (arm-1286807), found '%s'", tok);
			s->errata |= TLBSIM_ERRATUM_ARM64_1286807;
		}
	} else if (!strcmp(key, "os")) {
		char why[256];
		size_t at = 0;

		/* The syntax of tlbsim run --os (tlbsim_os_options_parse()). */
		if (tlbsim_os_options_parse(val, &s->os_flags, why, sizeof(why), &at))
			return err_set(err, -TLBSIM_EPARSE, s->path, AT(val + at), NULL, "os: %s",
				       why);
	} else if (!strcmp(key, "expect")) {
		char items[TLBSIM_VERDICT_LEN], *tok, *save = NULL;
		size_t have = strlen(s->expect);

		/* A second expect line adds its items to the first's. */
		if (have + 1 + strlen(val) >= sizeof(s->expect))
			return err_set(err, -TLBSIM_EPARSE, s->path, AT(val), NULL,
				       "the expect items add up to more than %d bytes",
				       TLBSIM_VERDICT_LEN - 1);
		snprintf(s->expect + have, sizeof(s->expect) - have, "%s%s", have ? " " : "", val);
		snprintf(items, sizeof(items), "%s", val);
		for (tok = strtok_r(items, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
			char *at = strchr(tok, '@'), *end = NULL;

			if (!strcmp(tok, "safe") && !strcmp(val, "safe"))
				break;
			if (at)
				*at = 0;
			if (kind_find(tok) == KIND_FAULT)
				s->want_faults = true;
			if (kind_find(tok) == KIND_VALUE) {
				/* value@EVENT=V: a load's value, both numbers decimal. */
				char *eq = at ? strchr(at + 1, '=') : NULL, *vend = NULL;

				if (!eq || eq == at + 1 || !eq[1] ||
				    (strtoull(eq + 1, &vend, 10), *vend))
					return err_set(
					    err, -TLBSIM_EPARSE, s->path, AT(val + (tok - items)),
					    NULL,
					    "a value item is value@EVENT=V (decimal), found "
					    "'%s%s%s'",
					    tok, at ? "@" : "", at ? at + 1 : "");
				*eq = 0;
				s->want_values = true;
			}
			if (kind_find(tok) < 0 || (at && strcmp(at + 1, "*") &&
						   (!at[1] || (strtoull(at + 1, &end, 10), *end))))
				return err_set(
				    err, -TLBSIM_EPARSE, s->path, AT(val + (tok - items)), NULL,
				    "expect takes 'safe' or items kind@event (event: a number "
				    "or *; kinds: stale_use, walk_freed_table, walk_reused_table, "
				    "incomplete_maintenance, bbm, fault), found '%s%s%s'",
				    tok, at ? "@" : "", at ? at + 1 : "");
			if (at && strcmp(at + 1, "*")) {
				uint64_t ev = strtoull(at + 1, NULL, 10);

				if (!s->expect_has_event || ev > s->expect_max) {
					s->expect_has_event = true;
					s->expect_max = ev;
					s->expect_max_at = (struct where){AT(val + (tok - items))};
				}
			}
		}
	} else if (!strcmp(key, "explore")) {
		char *tok, *save = NULL, *what = strtok_r(val, " \t", &save);

		if (strcmp(what, "hazard") && strcmp(what, "safe"))
			return err_set(
			    err, -TLBSIM_EPARSE, s->path, AT(val), NULL,
			    "explore is 'hazard' (some interleaving reaches one) or 'safe' "
			    "(none does), optionally followed by the kinds that count, "
			    "found '%s'",
			    what);
		snprintf(s->explore, sizeof(s->explore), "%s", what);
		/* "#@ explore hazard stale_use": only these kinds count, so a
		 * BBM warning does not decide a question about a stale read. */
		for (tok = strtok_r(NULL, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
			int k = kind_find(tok);

			if (k < 0)
				return err_set(
				    err, -TLBSIM_EPARSE, s->path, AT(tok), NULL,
				    "explore counts the kinds stale_use, walk_freed_table, "
				    "walk_reused_table, incomplete_maintenance, bbm, fault; found "
				    "'%s'",
				    tok);
			s->explore_kinds |= 1u << k;
			if (k == KIND_FAULT)
				s->want_faults = true;
		}
	} else {
		return err_set(err, -TLBSIM_EPARSE, s->path, AT(key), NULL,
			       "unknown directive '%s' (machine, policy, mode, order, ets2, errata, "
			       "os, expect, explore)",
			       key);
	}
	return 0;
}

#undef AT

static int load(struct scenario *s, const char *path, struct tlbsim_error *err)
{
	char line[LINE_MAX_LEN];
	tlbsim_trace_reader *r = NULL;
	struct tlbsim_event ev;
	uint64_t cap = 0;
	int lineno = 0, rc;
	long long off = 0; /* of the current line */
	bool at_start = true;
	FILE *f;

	memset(s, 0, sizeof(*s));
	s->path = path;
	s->ordered = true;
	f = fopen(path, "r");
	if (!f)
		return err_set(err, errno == ENOENT ? -TLBSIM_ENOENT : -TLBSIM_EIO, path, -1, -1, -1,
			       NULL, "cannot read the scenario: %s", strerror(errno));
	/* A line longer than the buffer comes in pieces: only the piece at
	 * its start can be a directive. */
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		bool start = at_start;

		at_start = len && line[len - 1] == '\n';
		if (start)
			lineno++;
		if (start && !strncmp(line, "#@", 2) && (rc = directive(s, line, lineno, off, err))) {
			fclose(f);
			return rc;
		}
		off += (long long)len;
	}
	fclose(f);
	if (!lineno)
		return err_set(err, -TLBSIM_EPARSE, path, 1, 1, 0, NULL,
			       "the scenario is empty: it begins with the header line "
			       "'tlbsim-trace 1 isa=<isa> page_shift=<n>', then '#@ machine', "
			       "'#@ expect' and its events");
	/* The header comes first in the file, so it is checked first. */
	rc = tlbsim_trace_open(path, TLBSIM_TRACE_TEXT, &r, err);
	if (rc)
		return rc;
	if (!s->machine[0] || !s->expect[0]) {
		tlbsim_trace_close(r);
		return err_set(err, -TLBSIM_EPARSE, path, -1, -1, -1, NULL,
			       !s->machine[0] ? "a scenario names its machine ('#@ machine NAME')"
					      : "a scenario states its expected verdict ('#@ expect "
						"safe' or '#@ expect kind@event ...')");
	}
	s->isa = tlbsim_trace_info(r)->isa;
	if (tlbsim_trace_info(r)->page_shift != TLBSIM_PAGE_SHIFT) {
		unsigned shift = tlbsim_trace_info(r)->page_shift;

		tlbsim_trace_close(r);
		return err_set(err, -TLBSIM_EPARSE, path, 1, -1, -1, NULL,
			       "page_shift=%u: the simulator models 4 KiB base pages only "
			       "(page_shift=%u)",
			       shift, TLBSIM_PAGE_SHIFT);
	}
	while ((rc = tlbsim_trace_next(r, &ev, err)) > 0) {
		if (s->n == cap) {
			struct tlbsim_event *p;

			cap = cap ? 2 * cap : 64;
			p = realloc(s->ev, cap * sizeof(*p));
			if (!p) {
				rc = -TLBSIM_ENOMEM;
				break;
			}
			s->ev = p;
		}
		s->ev[s->n++] = ev;
	}
	tlbsim_trace_close(r);
	if (rc < 0)
		return rc;
	if (s->expect_has_event && s->expect_max >= s->n)
		return err_set(err, -TLBSIM_EPARSE, path, s->expect_max_at.line,
			       s->expect_max_at.column, s->expect_max_at.offset, NULL,
			       "expect names event %llu, but the scenario has %llu events (0..%lld)",
			       (unsigned long long)s->expect_max, (unsigned long long)s->n,
			       (long long)s->n - 1);
	return 0;
}

/*
 * Re-file an error of loading the machine or resolving the policy (whose
 * source is the name, not the scenario) at the directive naming it.
 */
static int at_directive(const struct scenario *s, int d, int rc, struct tlbsim_error *err)
{
	char text[TLBSIM_ERROR_TEXT_LEN];
	const struct where *w = &s->at[d];

	if (!err)
		return rc;
	snprintf(text, sizeof(text), "%s", err->text);
	tlbsim_error_clear(err);
	return err_set(err, rc, s->path, w->line ? w->line : -1, w->line ? w->column : -1,
		       w->line ? w->offset : -1, NULL, "%s: %s", directive_name[d], text);
}

/* ---- one run ------------------------------------------------------------------- */

struct array_src {
	const struct tlbsim_event *ev;
	const uint64_t *order; /* NULL: as stored */
	uint64_t n, i;
};

static int array_next(void *arg, struct tlbsim_event *ev, struct tlbsim_error *err)
{
	struct array_src *a = arg;

	(void)err;
	if (a->i == a->n)
		return 0;
	*ev = a->ev[a->order ? a->order[a->i] : a->i];
	a->i++;
	return 1;
}

/* Append to @reports an item of @kind per element of @list (the replay's
 * "faults" or "loads": its event, and its value if it has one). */
static void add_outcomes(json_t *reports, json_t *list, const char *kind)
{
	json_t *e;
	size_t i;

	json_array_foreach(list, i, e)
	{
		json_t *item = json_object();

		json_object_set_new(item, "kind", json_string(kind));
		json_object_set(item, "event", json_object_get(e, "event"));
		if (json_object_get(e, "value"))
			json_object_set(item, "value", json_object_get(e, "value"));
		json_array_append_new(reports, item);
	}
}

/* Does an expect item "value@EVENT=..." name event @ev? */
static bool names_value_of(const struct scenario *s, long long ev)
{
	char want[32];
	const char *p = s->expect;
	size_t n = (size_t)snprintf(want, sizeof(want), "value@%lld=", ev);

	while ((p = strstr(p, want)))
		if (p == s->expect || p[-1] == ' ' || p[-1] == '\t')
			return true;
		else
			p += n;
	return false;
}

/*
 * Run @s's events in @order (NULL: the file's) under @policy; *stats gets
 * the statistics JSON (caller frees), *found the diagnostics as
 * "kind@event" with the file's event indices.
 */
static int run_once(const struct scenario *s, const struct tlbsim_machine *m, const char *policy,
		    const uint64_t *order, uint64_t max_cycles, char **stats, json_t **reports,
		    bool *impossible, struct tlbsim_error *err)
{
	struct array_src src = {.ev = s->ev, .order = order, .n = s->n};
	json_error_t jerr;
	json_t *st;
	int rc;

	*stats = NULL;
	*reports = NULL;
	*impossible = false;
	if (s->kernel) {
		struct tlbsim_replay_config cfg = {.machine = m, .ordered = s->ordered, .check = 1,
						   .ets2 = s->has_ets2 ? &s->ets2 : NULL,
						   .name = s->path, .max_cycles = max_cycles};

		rc = tlbsim_replay_run(&cfg, array_next, &src, stats, err);
	} else {
		struct tlbsim_sim_config cfg = {.machine = m, .policy = policy, .threads = 1,
						.check = 1, .ordered = s->ordered,
						.ets2 = s->has_ets2 ? &s->ets2 : NULL,
						.os_flags = s->os_flags, .max_cycles = max_cycles,
						.name = s->path};
		tlbsim_sim *sim = NULL;

		rc = tlbsim_sim_create(&cfg, &sim, err);
		if (!rc) {
			rc = tlbsim_sim_run(sim, array_next, &src, err);
			/* An order no run can keep (a thread that sleeps with
			 * only a later wake): an error of the file's order, an
			 * interleaving that does not exist when exploring. */
			*impossible = rc < 0 && os_of_sim(sim)->order_impossible;
			if (rc >= 0) {
				*stats = tlbsim_sim_stats_json(sim);
				rc = *stats ? 0 : -TLBSIM_ENOMEM;
			}
		}
		tlbsim_sim_destroy(sim);
	}
	if (rc)
		return rc;
	st = json_loads(*stats, 0, &jerr);
	if (!st)
		return err_set(err, -TLBSIM_EINVAL, s->path, -1, -1, -1, NULL,
			       "internal: statistics are not JSON: %s", jerr.text);
	*reports = json_incref(json_object_get(json_object_get(st, "hazards"), "reports"));
	/* Outcomes join the diagnostics: faults, and the values of loads
	 * (those the expectation names are kept below). */
	if (s->want_faults && *reports)
		add_outcomes(*reports, json_object_get(st, "faults"), "fault");
	if (s->want_values && *reports)
		add_outcomes(*reports, json_object_get(st, "loads"), "value");
	json_decref(st);
	/* Back to the file's event indices. */
	if (order && *reports) {
		size_t i;
		json_t *r;

		json_array_foreach(*reports, i, r) {
			json_t *e = json_object_get(r, "event");

			if (json_is_integer(e) && (uint64_t)json_integer_value(e) < s->n)
				json_object_set_new(r, "event",
						    json_integer((json_int_t)order[json_integer_value(e)]));
		}
	}
	if (s->want_values && *reports) {
		/* Only the loads a value item names give an item. */
		size_t i = 0;

		while (i < json_array_size(*reports)) {
			json_t *r = json_array_get(*reports, i);
			const char *k = json_string_value(json_object_get(r, "kind"));

			if (k && !strcmp(k, "value") &&
			    !names_value_of(s, json_integer_value(json_object_get(r, "event"))))
				json_array_remove(*reports, i);
			else
				i++;
		}
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "safe", or the sorted, distinct "kind@event" of @reports. */
static void verdict(json_t *reports, char *out, size_t size)
{
	size_t n = json_array_size(reports), i, k = 0, len = 0;
	char **items = calloc(n ? n : 1, sizeof(*items));
	json_t *r;

	out[0] = 0;
	json_array_foreach(reports, i, r) {
		char buf[96];
		json_t *e = json_object_get(r, "event");

		json_t *v = json_object_get(r, "value");
		const char *kind = json_string_value(json_object_get(r, "kind"));

		if (kind && !strcmp(kind, "value"))
			snprintf(buf, sizeof(buf), "value@%lld=%s",
				 json_is_integer(e) ? (long long)json_integer_value(e) : -1LL,
				 json_is_integer(v) ? "" : "?");
		else
			snprintf(buf, sizeof(buf), "%s@%lld", kind ? kind : "?",
				 json_is_integer(e) ? (long long)json_integer_value(e) : -1LL);
		if (kind && !strcmp(kind, "value") && json_is_integer(v))
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%llu",
				 (unsigned long long)json_integer_value(v));
		if (items)
			items[k++] = strdup(buf);
	}
	if (items) {
		qsort(items, k, sizeof(*items), cmp_str);
		for (i = 0; i < k; i++) {
			if (items[i] && (i == 0 || !items[i - 1] || strcmp(items[i], items[i - 1])))
				len += (size_t)snprintf(out + len, len < size ? size - len : 0, "%s%s",
							len ? " " : "", items[i]);
		}
		for (i = 0; i < k; i++)
			free(items[i]);
		free(items);
	}
	if (!out[0])
		snprintf(out, size, "safe");
}

/* Does one expectation item ("kind", "kind@N", "kind@*") match "kind@M"? */
static bool item_matches(const char *want, const char *got)
{
	const char *at = strchr(want, '@'), *gat = strchr(got, '@');
	size_t klen = at ? (size_t)(at - want) : strlen(want);

	if (!gat || (size_t)(gat - got) != klen || strncmp(want, got, klen))
		return false;
	return !at || !strcmp(at + 1, "*") || !strcmp(at + 1, gat + 1);
}

/* Does every item of list @a match some item of list @b?  @a_is_expect:
 * @a holds the expectation's patterns, else @b does. */
static bool covered(const char *a, const char *b, bool a_is_expect)
{
	char la[TLBSIM_VERDICT_LEN], lb[TLBSIM_VERDICT_LEN], *x, *y, *sa = NULL, *sb = NULL;

	snprintf(la, sizeof(la), "%s", a);
	for (x = strtok_r(la, " \t", &sa); x; x = strtok_r(NULL, " \t", &sa)) {
		bool hit = false;

		snprintf(lb, sizeof(lb), "%s", b);
		for (y = strtok_r(lb, " \t", &sb); y && !hit; y = strtok_r(NULL, " \t", &sb))
			hit = a_is_expect ? item_matches(x, y) : item_matches(y, x);
		if (!hit)
			return false;
	}
	return true;
}

/* Every expected item is found, and every finding is expected. */
static bool matches(const char *expect, const char *found)
{
	if (!strcmp(expect, "safe") || !strcmp(found, "safe"))
		return !strcmp(expect, found);
	return covered(expect, found, true) && covered(found, expect, false);
}

/* ---- exploration ----------------------------------------------------------------- */

struct explore {
	const struct scenario *s;
	const struct tlbsim_machine *m;
	const char *policy;
	uint64_t **lists; /* per actor, its events' indices */
	uint64_t *len, *pos;
	unsigned nr_actors;
	uint64_t *order, depth;
	uint64_t max, runs, hazardous, skipped;
	uint64_t max_cycles; /* of each run; 0: none */
	bool stopped;
	struct tlbsim_scenario_result *res;
	struct tlbsim_error *err;
	int rc;
};

/* Does @reports hold a diagnostic of a kind exploration counts? */
static bool counts(const struct scenario *s, json_t *reports)
{
	size_t i;
	json_t *r;

	if (!s->explore_kinds)
		return json_array_size(reports) > 0;
	json_array_foreach(reports, i, r)
	{
		const char *name = json_string_value(json_object_get(r, "kind"));
		int k = name ? kind_find(name) : -1;

		/* A value counts when it is the one the expectation names. */
		if (k == KIND_VALUE) {
			json_t *v = json_object_get(r, "value");
			char item[64];

			snprintf(item, sizeof(item), "value@%lld=%llu",
				 (long long)json_integer_value(json_object_get(r, "event")),
				 (unsigned long long)json_integer_value(v));
			if (!json_is_integer(v) || !covered(item, s->expect, false))
				continue;
		}

		if (k >= 0 && (s->explore_kinds >> k & 1))
			return true;
	}
	return false;
}

static void explore_leaf(struct explore *x)
{
	char *stats = NULL;
	json_t *reports = NULL;
	int rc;

	bool impossible;

	x->runs++;
	rc = run_once(x->s, x->m, x->policy, x->order, x->max_cycles, &stats, &reports, &impossible,
		      x->err);
	free(stats);
	if (rc && impossible) {
		/* This interleaving cannot run (a sleep whose wake comes after
		 * the sleeper's next event): skipped and counted, the others
		 * go on. */
		x->skipped++;
		if (x->err)
			tlbsim_error_clear(x->err);
		json_decref(reports);
		if (x->runs >= x->max)
			x->stopped = true;
		return;
	}
	if (rc) {
		x->rc = rc;
		x->stopped = true;
		json_decref(reports);
		return;
	}
	if (counts(x->s, reports)) {
		if (!x->hazardous) {
			char found[TLBSIM_VERDICT_LEN];
			size_t len = 0;
			uint64_t i;

			verdict(reports, found, sizeof(found));
			len = (size_t)snprintf(x->res->witness, sizeof(x->res->witness), "order");
			for (i = 0; i < x->s->n && len < sizeof(x->res->witness); i++)
				len += (size_t)snprintf(x->res->witness + len, sizeof(x->res->witness) - len,
							" %llu", (unsigned long long)x->order[i]);
			if (len + 2 < sizeof(x->res->witness))
				snprintf(x->res->witness + len, sizeof(x->res->witness) - len, ": %.*s",
					 (int)(sizeof(x->res->witness) - len - 3), found);
		}
		x->hazardous++;
	}
	json_decref(reports);
	if (x->runs >= x->max)
		x->stopped = true;
}

/* Depth-first over the choice of which actor goes next. */
static void explore_from(struct explore *x)
{
	unsigned a;

	if (x->stopped)
		return;
	if (x->depth == x->s->n) {
		explore_leaf(x);
		return;
	}
	for (a = 0; a < x->nr_actors && !x->stopped; a++) {
		if (x->pos[a] == x->len[a])
			continue;
		x->order[x->depth++] = x->lists[a][x->pos[a]++];
		explore_from(x);
		x->pos[a]--;
		x->depth--;
	}
}

/* The actor of an event: its thread (os), or its cpu (kernel); events of
 * no actor (proc_create by nobody) lead every interleaving. */
static uint64_t actor_of(const struct scenario *s, const struct tlbsim_event *ev)
{
	if (s->kernel)
		return ev->cpu != TLBSIM_CPU_ANY ? ev->cpu : ((uint64_t)1 << 32) + ev->tid;
	return ev->tid;
}

static bool is_setup(const struct tlbsim_event *ev)
{
	return ev->kind == TLBSIM_EV_PROC_CREATE || ev->kind == TLBSIM_EV_THREAD_CREATE ||
	       ev->kind == TLBSIM_EV_KTHREAD_CREATE || ev->kind == TLBSIM_EV_FORK ||
	       ev->kind == TLBSIM_EV_SWITCH || ev->kind == TLBSIM_EV_AFFINITY ||
	       ev->kind == TLBSIM_EV_TABLE_ALLOC ||
	       ev->kind == TLBSIM_EV_TTBR_WRITE || ev->kind == TLBSIM_EV_CR3_WRITE;
}

static int explore(const struct scenario *s, const struct tlbsim_machine *m, const char *policy,
		   uint64_t max, uint64_t max_cycles, struct tlbsim_scenario_result *res,
		   struct tlbsim_error *err)
{
	struct explore x = {.s = s, .m = m, .policy = policy, .max = max, .max_cycles = max_cycles,
			    .res = res, .err = err};
	uint64_t *actors = calloc(s->n + 1, sizeof(uint64_t)), i, prefix = 0, off = 0;
	/* Each event's actor, then the per-actor lists as slices of one pool
	 * of n indices (memory linear in the events, whatever the actors). */
	unsigned *actor_idx = calloc(s->n + 1, sizeof(unsigned));
	uint64_t *pool = calloc(s->n + 1, sizeof(uint64_t));
	unsigned a;

	x.lists = calloc(s->n + 1, sizeof(*x.lists));
	x.len = calloc(s->n + 1, sizeof(*x.len));
	x.pos = calloc(s->n + 1, sizeof(*x.pos));
	x.order = calloc(s->n + 1, sizeof(*x.order));
	if (!actors || !actor_idx || !pool || !x.lists || !x.len || !x.pos || !x.order) {
		x.rc = -TLBSIM_ENOMEM;
		goto out;
	}
	/* The set-up (processes, threads and their placement, up to the last
	 * such event at the start of the file) leads every interleaving, in
	 * file order: a thread's events cannot come before it exists. */
	while (prefix < s->n && is_setup(&s->ev[prefix])) {
		x.order[prefix] = prefix;
		prefix++;
	}
	for (i = prefix; i < s->n; i++) {
		uint64_t who = actor_of(s, &s->ev[i]);

		for (a = 0; a < x.nr_actors && actors[a] != who; a++)
			;
		if (a == x.nr_actors)
			actors[x.nr_actors++] = who;
		actor_idx[i] = a;
		x.len[a]++;
	}
	for (a = 0; a < x.nr_actors; a++) {
		x.lists[a] = pool + off;
		off += x.len[a];
		x.len[a] = 0;
	}
	for (i = prefix; i < s->n; i++) {
		a = actor_idx[i];
		x.lists[a][x.len[a]++] = i;
	}
	x.depth = prefix;
	explore_from(&x);
	res->explored = x.runs - x.skipped;
	res->skipped = x.skipped;
	res->hazardous = x.hazardous;
	res->exhausted = !x.stopped;
out:
	free(pool);
	free(actor_idx);
	free(x.lists);
	free(x.len);
	free(x.pos);
	free(x.order);
	free(actors);
	return x.rc;
}

/* ---- the public entry ----------------------------------------------------------- */

int tlbsim_scenario_check(const char *path, const struct tlbsim_scenario_opts *opts,
			  struct tlbsim_scenario_result *res, struct tlbsim_error *err)
{
	struct tlbsim_scenario_opts def = {0};
	struct tlbsim_machine *m = NULL;
	struct scenario s;
	json_t *reports = NULL;
	const char *policy;
	bool impossible;
	int rc;

	if (!path || !res)
		return -TLBSIM_EINVAL;
	memset(res, 0, sizeof(*res));
	if (!opts)
		opts = &def;
	rc = load(&s, path, err);
	if (rc)
		goto out;
	if (opts->max_events && s.n > opts->max_events)
		s.n = opts->max_events;
	snprintf(res->expected, sizeof(res->expected), "%s", s.expect);
	rc = tlbsim_machine_find(s.machine, &m, err);
	if (rc) {
		rc = at_directive(&s, D_MACHINE, rc, err);
		goto out;
	}
	if (s.isa != m->isa) {
		rc = err_set(err, -TLBSIM_EPARSE, path, 1, 1, 0, NULL,
			     "the trace is %s but machine %s is %s", tlbsim_isa_name(s.isa), m->name,
			     tlbsim_isa_name(m->isa));
		goto out;
	}
	if ((s.want_faults || s.want_values) && !s.kernel) {
		const struct where *w = s.at[D_EXPECT].line ? &s.at[D_EXPECT] : &s.at[D_EXPLORE];

		rc = err_set(err, -TLBSIM_EPARSE, path, w->line, w->column, w->offset, NULL,
			     "fault and value outcomes are those of mode kernel (in mode os the "
			     "OS model handles page faults and keeps no data)");
		goto out;
	}
	if (s.errata && m->isa != TLBSIM_ISA_ARM64) {
		const struct where *w = &s.at[D_ERRATA];

		rc = err_set(err, -TLBSIM_EPARSE, path, w->line, w->column, w->offset, NULL,
			     "erratum arm-1286807 is an Arm one; machine %s is %s", m->name,
			     tlbsim_isa_name(m->isa));
		goto out;
	}
	m->errata |= s.errata;
	if (s.has_ets2) {
		const struct where *w = &s.at[D_ETS2];
		unsigned c;

		/* FEAT_ETS2 is an Arm (Armv8.8) feature; x86 has nothing it
		 * could mean, so on an x86 machine the directive is a mistake. */
		if (m->isa != TLBSIM_ISA_ARM64) {
			rc = err_set(err, -TLBSIM_EPARSE, path, w->line, w->column, w->offset, NULL,
				     "ets2 is an Arm feature (FEAT_ETS2); machine %s is %s", m->name,
				     tlbsim_isa_name(m->isa));
			goto out;
		}
		for (c = m->nr_cpus; c < TLBSIM_NR_CPUS; c++)
			if (tlbsim_cpumask_test(&s.ets2, c)) {
				rc = err_set(err, -TLBSIM_EPARSE, path, w->line, w->column, w->offset,
					     NULL, "ets2 names cpu %u; machine %s has %u", c, m->name,
					     m->nr_cpus);
				goto out;
			}
	}
	/* The scenario's own policy is checked here, so that a bad one is
	 * reported at its directive (os mode only: kernel mode has none). */
	if (!opts->policy && s.policy[0] && !s.kernel) {
		struct os_policy pol;

		rc = os_policy_resolve(&pol, s.policy, m->isa, err);
		os_policy_fini(&pol);
		if (rc) {
			rc = at_directive(&s, D_POLICY, rc, err);
			goto out;
		}
	}
	policy = opts->policy ? opts->policy : s.policy[0] ? s.policy : NULL;
	rc = run_once(&s, m, policy, NULL, opts->max_cycles, &res->stats, &reports, &impossible,
		      err);
	if (rc) {
		/* An error of event N is filed at its line (the run was in the
		 * file's order, so N is the file's); if that fails, N alone. */
		struct tlbsim_trace_opts text = {.format = TLBSIM_TRACE_TEXT};
		int located = err ? tlbsim_trace_locate(path, &text, err) : -TLBSIM_EINVAL;

		(void)located;
		goto out;
	}
	verdict(reports, res->found, sizeof(res->found));
	{
		size_t i;
		json_t *r;

		json_array_foreach(reports, i, r)
		{
			const char *k = json_string_value(json_object_get(r, "kind"));

			res->hazards += !k || strcmp(k, "fault");
		}
	}
	res->passed = matches(s.expect, res->found);
	res->matched = res->passed;
	if (opts->explore && s.explore[0]) {
		snprintf(res->explore_expected, sizeof(res->explore_expected), "%s", s.explore);
		rc = explore(&s, m, policy,
			     opts->max_interleavings ? opts->max_interleavings : DEFAULT_MAX_INTERLEAVINGS,
			     opts->max_cycles, res, err);
		if (rc)
			goto out;
		if (!strcmp(s.explore, "hazard"))
			res->passed = res->passed && res->hazardous > 0;
		else
			res->passed = res->passed && res->hazardous == 0;
	}
out:
	json_decref(reports);
	tlbsim_machine_free(m);
	free(s.ev);
	return rc;
}
