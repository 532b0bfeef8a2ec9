/* SPDX-License-Identifier: MIT */
/* The hazard oracle's hash map: see map.h. */
#include <stdlib.h>
#include <string.h>

#include "check/map.h"
#include "tlbsim/error.h"

/* Fibonacci hashing (Knuth vol. 3, 6.4): the golden-ratio multiplier
 * spreads consecutive frame numbers over the table. */
static uint64_t slot_of(const struct chk_map *m, uint64_t key)
{
	return (key * 0x9e3779b97f4a7c15ull) & (m->cap - 1);
}

bool chk_map_get(const struct chk_map *m, uint64_t key, uint64_t *val)
{
	uint64_t i;

	if (!m->cap)
		return false;
	for (i = slot_of(m, key); m->key[i]; i = (i + 1) & (m->cap - 1))
		if (m->key[i] == key) {
			if (val)
				*val = m->val[i];
			return true;
		}
	return false;
}

static int grow(struct chk_map *m)
{
	struct chk_map big = {.cap = m->cap ? m->cap * 2 : 64};
	uint64_t i;

	big.key = calloc(big.cap, sizeof(*big.key));
	big.val = calloc(big.cap, sizeof(*big.val));
	if (!big.key || !big.val) {
		free(big.key);
		free(big.val);
		return -TLBSIM_ENOMEM;
	}
	for (i = 0; i < m->cap; i++)
		if (m->key[i])
			(void)chk_map_put(&big, m->key[i], m->val[i]);
	chk_map_fini(m);
	*m = big;
	return 0;
}

int chk_map_put(struct chk_map *m, uint64_t key, uint64_t val)
{
	uint64_t i;

	/* At most 3/4 full, so probes stay short and an empty slot exists. */
	if (4 * (m->n + 1) > 3 * m->cap) {
		int rc = grow(m);

		if (rc)
			return rc;
	}
	for (i = slot_of(m, key); m->key[i]; i = (i + 1) & (m->cap - 1))
		if (m->key[i] == key) {
			m->val[i] = val;
			return 0;
		}
	m->key[i] = key;
	m->val[i] = val;
	m->n++;
	return 0;
}

void chk_map_del(struct chk_map *m, uint64_t key)
{
	uint64_t i, j, mask = m->cap - 1;

	if (!m->cap)
		return;
	for (i = slot_of(m, key); m->key[i] != key; i = (i + 1) & mask)
		if (!m->key[i])
			return;
	/* Algorithm R: move later members of the cluster back into the hole
	 * when their home slot does not lie cyclically in (i, j]. */
	for (j = i;;) {
		uint64_t home;

		m->key[i] = 0;
		for (;;) {
			j = (j + 1) & mask;
			if (!m->key[j]) {
				m->n--;
				return;
			}
			home = slot_of(m, m->key[j]);
			if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
				continue;
			break;
		}
		m->key[i] = m->key[j];
		m->val[i] = m->val[j];
		i = j;
	}
}

void chk_map_clear(struct chk_map *m)
{
	if (m->cap) {
		memset(m->key, 0, m->cap * sizeof(*m->key));
		m->n = 0;
	}
}

void chk_map_fini(struct chk_map *m)
{
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof(*m));
}
