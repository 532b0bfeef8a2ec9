/* SPDX-License-Identifier: MIT */
/*
 * MMU statistics as JSON (jansson).  Keys are inserted in a fixed order and
 * jansson keeps insertion order, so the text is byte-identical for equal
 * counters.
 */
#include <jansson.h>
#include <stdlib.h>

#include "report/json_util.h"
#include "tlbsim/mmu.h"

static const char *const inval_names[TLBSIM_INVAL_NR] = {
#define INVAL_NAME(name, str) [TLBSIM_INVAL_##name] = str,
	TLBSIM_INVAL_KINDS(INVAL_NAME)
#undef INVAL_NAME
};

const char *tlbsim_inval_kind_name(enum tlbsim_inval_kind kind)
{
	if ((unsigned)kind >= TLBSIM_INVAL_NR)
		return "unknown";
	return inval_names[kind];
}

static json_t *hits_misses(uint64_t hits, uint64_t misses)
{
	json_t *o = json_object();

	rep_json_set_u64(o, "hits", hits);
	rep_json_set_u64(o, "misses", misses);
	return o;
}

json_t *rep_mmu_stats_json(const struct tlbsim_mmu_stats *s)
{
	json_t *o = json_object(), *pwc = json_array(), *inval = json_object();
	unsigned k;

	if (!o || !pwc || !inval) {
		json_decref(o);
		json_decref(pwc);
		json_decref(inval);
		return NULL;
	}
	json_object_set_new(o, "l1i", hits_misses(s->l1i_hits, s->l1i_misses));
	json_object_set_new(o, "l1d", hits_misses(s->l1d_hits, s->l1d_misses));
	json_object_set_new(o, "l2", hits_misses(s->l2_hits, s->l2_misses));
	rep_json_set_u64(o, "walks", s->walks);
	rep_json_set_u64(o, "walk_cycles", s->walk_cycles);
	rep_json_set_u64(o, "pte_reads", s->pte_reads);
	for (k = 1; k < TLBSIM_MAX_PT_LEVELS; k++) {
		json_t *l = hits_misses(s->pwc_hits[k], s->pwc_misses[k]);

		json_object_set_new(l, "level", json_integer(k));
		json_array_append_new(pwc, l);
	}
	json_object_set_new(o, "pwc", pwc);
	rep_json_set_u64(o, "faults", s->faults);
	rep_json_set_u64(o, "stale_table_reads", s->stale_table_reads);
	for (k = 0; k < TLBSIM_INVAL_NR; k++)
		rep_json_set_u64(inval, inval_names[k], s->inval[k]);
	json_object_set_new(o, "invalidations", inval);
	rep_json_set_u64(o, "tlb_entries_invalidated", s->tlb_entries_invalidated);
	rep_json_set_u64(o, "pwc_entries_invalidated", s->pwc_entries_invalidated);
	rep_json_set_u64(o, "walks_after_flush", s->walks_after_flush);
	rep_json_set_u64(o, "walk_cycles_after_flush", s->walk_cycles_after_flush);
	return o;
}

char *tlbsim_mmu_stats_json(const struct tlbsim_mmu_stats *stats)
{
	json_t *o = rep_mmu_stats_json(stats);
	char *text;

	if (!o)
		return NULL;
	text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(o);
	return text;
}
