/* SPDX-License-Identifier: MIT */
/*
 * The workload generators (one NULL-terminated table; a new generator is a
 * new traces/gen_NAME.c and one line here), and what every generator
 * shares: parameter parsing and the tlbsim_gen handle.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_internal.h"
#include "tlbsim/gen.h"
#include "traces/generators.h"

static const struct tlbsim_generator *const generators[] = {
	GENERATOR_LIST
	NULL,
};

struct tlbsim_gen {
	const struct tlbsim_generator *g;
	void *state;
};

const struct tlbsim_generator *tlbsim_generator_at(unsigned i)
{
	unsigned n = 0;

	while (generators[n])
		n++;
	return i < n ? generators[i] : NULL;
}

static const struct tlbsim_generator *find(const char *name)
{
	const struct tlbsim_generator *g;
	unsigned i;

	for (i = 0; (g = tlbsim_generator_at(i)); i++)
		if (!strcmp(g->name, name))
			return g;
	return NULL;
}

static void list(char *buf, size_t size, const struct tlbsim_generator *g)
{
	size_t used = 0;
	unsigned i;

	buf[0] = 0;
	if (g) {
		for (i = 0; i < g->nr_params && used < size; i++)
			used += (size_t)snprintf(buf + used, size - used, "%s, ", g->params[i].name);
		if (used < size)
			snprintf(buf + used, size - used, "seed");
		return;
	}
	for (i = 0; (g = tlbsim_generator_at(i)) && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", g->name);
}

/* "123", "0x7b", "4K" (x1024), "2M", "1G"; false if malformed. */
static bool parse_value(const char *s, size_t len, uint64_t *out)
{
	char tmp[64], *end;
	uint64_t v, mul = 1;

	if (!len || len >= sizeof(tmp))
		return false;
	memcpy(tmp, s, len);
	tmp[len] = 0;
	switch (tmp[len - 1]) {
	case 'K':
		mul = 1ull << 10;
		break;
	case 'M':
		mul = 1ull << 20;
		break;
	case 'G':
		mul = 1ull << 30;
		break;
	}
	if (mul > 1)
		tmp[--len] = 0;
	if (!len || tmp[0] == '-')
		return false;
	errno = 0;
	v = strtoull(tmp, &end, 0);
	if (errno || *end || (mul > 1 && v > UINT64_MAX / mul))
		return false;
	*out = v * mul;
	return true;
}

int tlbsim_size_parse(const char *s, uint64_t *out)
{
	uint64_t v;

	if (!s || !out || !parse_value(s, strlen(s), &v))
		return -TLBSIM_EINVAL;
	*out = v;
	return 0;
}

int tlbsim_gen_create(const char *name, const char *params, enum tlbsim_isa isa, tlbsim_gen **out,
		      struct tlbsim_error *err)
{
	char src[96], names[512];
	uint64_t values[TLBSIM_GEN_MAX_PARAMS], seed = 1;
	uint64_t given = 0; /* bit i: parameter i seen */
	const struct tlbsim_generator *g;
	const char *s = params ? params : "";
	tlbsim_gen *gen;
	unsigned i;
	int rc;

	if (!name || !out)
		return -TLBSIM_EINVAL;
	*out = NULL;
	snprintf(src, sizeof(src), "<gen:%s>", name);
	g = find(name);
	if (!g) {
		list(names, sizeof(names), NULL);
		return err_set(err, -TLBSIM_ENOENT, src, -1, -1, -1, NULL,
			       "unknown generator '%s'; known: %s", name, names);
	}
	for (i = 0; i < g->nr_params; i++)
		values[i] = g->params[i].def;
	while (*s) {
		size_t len = strcspn(s, ","), klen = strcspn(s, "=");
		uint64_t v;

		if (klen >= len) {
			return err_set(err, -TLBSIM_EINVAL, src, -1, -1, s - params, NULL,
				       "key=value expected near '%.*s'", (int)len, s);
		}
		if (!parse_value(s + klen + 1, len - klen - 1, &v))
			return err_set(err, -TLBSIM_EINVAL, src, -1, -1, s - params, NULL,
				       "a number (decimal, 0x-hex, K/M/G suffix) expected for '%.*s', "
				       "found '%.*s'",
				       (int)klen, s, (int)(len - klen - 1), s + klen + 1);
		/* i: the parameter's index, TLBSIM_GEN_MAX_PARAMS for the seed
		 * (and its bit in @given). */
		if (klen == 4 && !strncmp(s, "seed", 4)) {
			i = TLBSIM_GEN_MAX_PARAMS;
		} else {
			for (i = 0; i < g->nr_params; i++)
				if (strlen(g->params[i].name) == klen &&
				    !strncmp(g->params[i].name, s, klen))
					break;
			if (i == g->nr_params) {
				list(names, sizeof(names), g);
				return err_set(err, -TLBSIM_EINVAL, src, -1, -1, s - params, NULL,
					       "unknown parameter '%.*s' of %s; known: %s", (int)klen,
					       s, g->name, names);
			}
		}
		if (given & 1ull << i)
			return err_set(err, -TLBSIM_EINVAL, src, -1, -1, s - params, NULL,
				       "parameter '%.*s' given twice", (int)klen, s);
		given |= 1ull << i;
		if (i == TLBSIM_GEN_MAX_PARAMS) {
			seed = v;
		} else {
			if (v < g->params[i].min || v > g->params[i].max)
				return err_set(err, -TLBSIM_ERANGE, src, -1, -1, s - params, NULL,
					       "%s=%llu is out of range [%llu, %llu]",
					       g->params[i].name, (unsigned long long)v,
					       (unsigned long long)g->params[i].min,
					       (unsigned long long)g->params[i].max);
			values[i] = v;
		}
		s += len + (s[len] == ',');
	}
	if (g->check) {
		char why[TLBSIM_ERROR_TEXT_LEN] = "";

		rc = g->check(values, why, sizeof(why));
		if (rc)
			return err_set(err, rc, src, -1, -1, -1, NULL, "%s", why);
	}
	gen = calloc(1, sizeof(*gen));
	if (!gen)
		return -TLBSIM_ENOMEM;
	gen->g = g;
	gen->state = calloc(1, g->state_size ? g->state_size : 1);
	if (!gen->state) {
		free(gen);
		return -TLBSIM_ENOMEM;
	}
	rc = g->init(gen->state, values, seed, isa);
	if (rc) {
		tlbsim_gen_destroy(gen);
		return err_set(err, rc, src, -1, -1, -1, NULL, "%s cannot start: %s", g->name,
			       tlbsim_strerror(rc));
	}
	*out = gen;
	return 0;
}

int tlbsim_gen_next(void *arg, struct tlbsim_event *ev, struct tlbsim_error *err)
{
	tlbsim_gen *gen = arg;

	(void)err;
	memset(ev, 0, sizeof(*ev));
	return gen->g->next(gen->state, ev);
}

void tlbsim_gen_destroy(tlbsim_gen *gen)
{
	if (!gen)
		return;
	if (gen->g->fini)
		gen->g->fini(gen->state);
	free(gen->state);
	free(gen);
}
