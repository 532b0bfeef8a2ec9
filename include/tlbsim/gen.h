/* SPDX-License-Identifier: MIT */
/*
 * Workload generators: deterministic event streams standing for real
 * programs (will-it-scale tlb_flush2, hackbench, a shell loop of short
 * processes, ...).  Each is one const struct in traces/gen_*.c, listed in
 * traces/gen_table.c; parameters are unsigned integers with defaults and
 * ranges, given as "key=value,...".  Same parameters and seed: the same
 * events, byte for byte.
 */
#ifndef TLBSIM_GEN_H
#define TLBSIM_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tlbsim/error.h"
#include "tlbsim/event.h"
#include "tlbsim/export.h"
#include "tlbsim/machine.h"
#include "tlbsim/template.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parameters a generator takes, at most. */
#define TLBSIM_GEN_MAX_PARAMS 16

/**
 * struct tlbsim_gen_param - one parameter of a generator
 * @name: e.g. "threads"
 * @help: one line, with the unit
 * @def: default value
 * @min/@max: accepted range, inclusive
 * @unit: what the value counts: "bytes" (a size: 'tlbsim list generators'
 *        shows it with a K/M/G suffix), "cycles", "pages", "cpu" (an
 *        index), "0/1" (a switch), or the noun of a count ("threads",
 *        "rounds")
 */
struct tlbsim_gen_param {
	const char *name;
	const char *help;
	uint64_t def, min, max;
	const char *unit;
};

/**
 * struct tlbsim_generator - a workload generator
 * @name: the name users type, e.g. "mprotect-toggle"
 * @summary: one line
 * @models: what real program it stands for
 * @params: its parameters ("seed" is always accepted too, default 1)
 * @nr_params: entries in @params
 * @state_size: bytes of state tlbsim_gen_create() allocates (zeroed)
 * @init: set up @state from @values (one per @params, in order) and
 *        @seed; returns 0 or a negative TLBSIM_E*
 * @next: the next event into @ev (zeroed by the caller); returns 1, or 0 at
 *        the end
 * @fini: release what init allocated, or NULL
 * @check: NULL, or check @values together (each is already within its
 *         range; for example min <= max): on an inconsistency, write into
 *         @msg (@size bytes, NUL-terminated) the parameters at fault with
 *         their values and what was expected, and return a negative
 *         TLBSIM_E*; else 0.  tlbsim_gen_create() calls it before @init and
 *         reports @msg; @init may rely on it having passed.  Added after
 *         the others, so that their offsets stayed.
 * @nr_templates: process templates the generator runs (include/tlbsim/
 *         template.h), given to tlbsim_gen_create_with(); 0: none
 * @init_templates: with @nr_templates, called after @init with the
 *         templates (borrowed: they outlive the generator); returns 0 or a
 *         negative TLBSIM_E*.
 * @uses_seed: whether the events depend on the seed (the generator draws
 *             random numbers); every generator accepts "seed" anyway.
 *             Added after the others, for the same reason.
 * @notes: NULL, or a paragraph (plain text, no newlines) saying what the
 *         generator leaves out of the program it stands for and which
 *         hazard-oracle reports (--check) a run is expected to give under
 *         which policies, so that a user can tell them from a bug;
 *         'tlbsim list generators' prints it under the generator's line.
 *         Last member, for the same reason.
 */
struct tlbsim_generator {
	const char *name;
	const char *summary;
	const char *models;
	const struct tlbsim_gen_param *params;
	unsigned nr_params;
	size_t state_size;
	int (*init)(void *state, const uint64_t *values, uint64_t seed, enum tlbsim_isa isa);
	int (*next)(void *state, struct tlbsim_event *ev);
	void (*fini)(void *state);
	int (*check)(const uint64_t *values, char *msg, size_t size);
	unsigned nr_templates;
	int (*init_templates)(void *state, tlbsim_template *const *templates, unsigned n);
	bool uses_seed;
	const char *notes;
};

typedef struct tlbsim_gen tlbsim_gen;

/**
 * tlbsim_gen_create() - start a generator
 * @name: generator name
 * @params: "key=value,..." (NULL or "" for all defaults); values are
 *          decimal or 0x-hex, with an optional K/M/G suffix (x1024)
 * @isa: the machine's ISA (generators that emit fetches or kernel events
 *       follow it)
 * @out: receives the generator, owned by the caller
 * @err: error report (source "<gen:NAME>"), or NULL
 *
 * Returns: 0; -TLBSIM_ENOENT for an unknown generator (the message lists
 * them); -TLBSIM_EINVAL for an unknown key (the message lists the known
 * ones) or a malformed value; -TLBSIM_ERANGE for a value out of its range;
 * the code of the generator's @check for values inconsistent together
 * (the message names the parameters and their values); -TLBSIM_ENOMEM.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_gen_create(const char *name, const char *params,
						   enum tlbsim_isa isa, tlbsim_gen **out,
						   struct tlbsim_error *err);

/**
 * tlbsim_gen_create_with() - start a generator that runs process templates
 * @name, @params, @isa, @out, @err: as tlbsim_gen_create()
 * @templates: the templates (include/tlbsim/template.h; borrowed: they must
 *        outlive the generator), @n of them: as many as the generator's
 *        @nr_templates
 *
 * tlbsim_gen_create() is this with no template.
 *
 * Returns: as tlbsim_gen_create(); -TLBSIM_EINVAL when @n is not the
 * number of templates the generator runs (the message says how many).
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_gen_create_with(const char *name, const char *params,
							enum tlbsim_isa isa,
							tlbsim_template *const *templates,
							unsigned n, tlbsim_gen **out,
							struct tlbsim_error *err);

/**
 * tlbsim_gen_next() - the next event
 * @g: the generator
 * @ev: receives the event (valid per tlbsim_event_validate())
 * @err: unused (generators cannot fail once created), may be NULL
 *
 * Has the signature of tlbsim_event_source_fn, with @g as its argument.
 *
 * Returns: 1, or 0 at the end.
 */
TLBSIM_API int tlbsim_gen_next(void *g, struct tlbsim_event *ev, struct tlbsim_error *err);

/**
 * tlbsim_gen_destroy() - release a generator
 * @g: the generator, or NULL
 */
TLBSIM_API void tlbsim_gen_destroy(tlbsim_gen *g);

/**
 * tlbsim_size_parse() - a number written as generator parameters are
 * @s: decimal or 0x-hex, with an optional K, M or G suffix (x 2^10, 2^20,
 *     2^30): "4096", "0x1000", "4K", "64G"; no sign, no space
 * @out: receives the value (unchanged on error)
 *
 * What tlbsim_gen_create() takes for a parameter's value, and what the
 * command's --memory takes: one syntax for sizes everywhere.
 *
 * Returns: 0, or -TLBSIM_EINVAL for a malformed number or one that
 * overflows 64 bits.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_size_parse(const char *s, uint64_t *out);

/**
 * tlbsim_generator_at() - the @i-th generator, for listings
 * @i: index from 0
 *
 * Returns: the generator, or NULL past the last.
 */
TLBSIM_API const struct tlbsim_generator *tlbsim_generator_at(unsigned i);

#ifdef __cplusplus
}
#endif

#endif /* TLBSIM_GEN_H */
