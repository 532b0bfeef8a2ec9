/* SPDX-License-Identifier: MIT */
/*
 * A map from 64-bit keys (never 0) to 64-bit values: open addressing with
 * linear probing and backward-shift deletion (Knuth vol. 3, 6.4,
 * Algorithm R), so no tombstones build up.  For the hazard oracle's
 * bookkeeping by frame number and by descriptor slot.
 */
#ifndef TLBSIM_CHECK_MAP_H
#define TLBSIM_CHECK_MAP_H

#include <stdbool.h>
#include <stdint.h>

struct chk_map {
	uint64_t *key;
	uint64_t *val;
	uint64_t cap; /* power of two, or 0 */
	uint64_t n;
};

/* The value of @key in @val; false if absent. */
bool chk_map_get(const struct chk_map *m, uint64_t key, uint64_t *val);
/* Insert or replace; -TLBSIM_ENOMEM when the map cannot grow. */
int chk_map_put(struct chk_map *m, uint64_t key, uint64_t val);
/* Remove @key if present. */
void chk_map_del(struct chk_map *m, uint64_t key);
void chk_map_clear(struct chk_map *m);
void chk_map_fini(struct chk_map *m);

#endif
