/* SPDX-License-Identifier: MIT */
/*
 * OS-model options as text (include/tlbsim/sim.h,
 * tlbsim_os_options_parse()): the syntax `tlbsim run --os`, a scenario's
 * "#@ os" line and an experiment's "os" key share.
 */
#include <stdio.h>
#include <string.h>

#include "tlbsim/error.h"
#include "tlbsim/sim.h"

#define FAULT_LOCK_BITS (TLBSIM_OS_FAULT_LOCK_MM | TLBSIM_OS_FAULT_LOCKLESS)

/* A 0/1 option: its key and its bit. */
static const struct {
	const char *key;
	unsigned bit;
} bool_opts[] = {
    {"lru_add_drain", TLBSIM_OS_LRU_ADD_DRAIN},
    {"per_vma_lock", TLBSIM_OS_PER_VMA_LOCK},
    {"no_nested_flush", TLBSIM_OS_NO_NESTED_FLUSH},
    /* mutations: historical bugs (docs/scenarios.md) */
    {"no_batched_pending", TLBSIM_OS_NO_BATCHED_PENDING},
    {"reclaim_cpumask_only", TLBSIM_OS_RECLAIM_CPUMASK_ONLY},
    {"mremap_late_flush", TLBSIM_OS_MREMAP_LATE_FLUSH},
    {"nested_reset_range", TLBSIM_OS_NESTED_RESET_RANGE},
};

/* The first mutation's index in bool_opts: those are formatted only when set. */
#define FIRST_MUTATION 3

static const struct {
	const char *name;
	unsigned bits;
} fault_locks[] = {
    {"split", 0},
    {"mm", TLBSIM_OS_FAULT_LOCK_MM},
    {"lockless", TLBSIM_OS_FAULT_LOCKLESS},
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int bad(char *why, size_t size, size_t *at, size_t off, const char *fmt, const char *item,
	       int len)
{
	if (why && size)
		snprintf(why, size, fmt, len, item);
	if (at)
		*at = off;
	return -TLBSIM_EINVAL;
}

/* Item @item (@len bytes, no separators) into *@flags. */
static int parse_item(const char *item, int len, unsigned *flags, char *why, size_t size,
		      size_t *at, size_t off)
{
	const char *eq = memchr(item, '=', (size_t)len);
	int klen = eq ? (int)(eq - item) : len;
	const char *val = eq ? eq + 1 : NULL;
	int vlen = eq ? len - klen - 1 : 0;
	size_t i;

	if (klen == 10 && !strncmp(item, "fault_lock", 10)) {
		for (i = 0; val && i < N(fault_locks); i++)
			if ((int)strlen(fault_locks[i].name) == vlen &&
			    !strncmp(val, fault_locks[i].name, (size_t)vlen)) {
				*flags = (*flags & ~FAULT_LOCK_BITS) | fault_locks[i].bits;
				return 0;
			}
		return bad(why, size, at, off, "fault_lock is mm, split or lockless, found '%.*s'",
			   item, len);
	}
	for (i = 0; i < N(bool_opts); i++) {
		if ((int)strlen(bool_opts[i].key) != klen ||
		    strncmp(item, bool_opts[i].key, (size_t)klen))
			continue;
		if (!val || (vlen == 1 && val[0] == '1')) {
			*flags |= bool_opts[i].bit;
			return 0;
		}
		if (vlen == 1 && val[0] == '0') {
			*flags &= ~bool_opts[i].bit;
			return 0;
		}
		return bad(why, size, at, off, "expected KEY=0 or KEY=1, found '%.*s'", item, len);
	}
	return bad(why, size, at, off,
		   "an OS option expected (fault_lock=mm|split|lockless, lru_add_drain=0|1, "
		   "per_vma_lock=0|1, no_nested_flush=0|1, no_batched_pending=0|1, "
		   "reclaim_cpumask_only=0|1, mremap_late_flush=0|1, nested_reset_range=0|1), "
		   "found '%.*s'",
		   item, len);
}

int tlbsim_os_options_parse(const char *spec, unsigned *flags, char *why, size_t size, size_t *at)
{
	const char *p = spec;
	unsigned f = 0;

	if (!spec || !flags)
		return -TLBSIM_EINVAL;
	p += strspn(p, " \t");
	while (*p) {
		size_t len = strcspn(p, ", \t");
		unsigned commas = 0;
		int rc;

		if (!len)
			return bad(why, size, at, (size_t)(p - spec),
				   "expected key=value, found an empty item%.*s", "", 0);
		rc = parse_item(p, (int)len, &f, why, size, at, (size_t)(p - spec));
		if (rc)
			return rc;
		p += len;
		/* Blanks and at most one comma up to the next item. */
		for (; *p == ',' || *p == ' ' || *p == '\t'; p++)
			if (*p == ',' && ++commas > 1)
				break;
		if (commas && !*p)
			return bad(why, size, at, (size_t)(p - spec),
				   "expected key=value after ',', found the end%.*s", "", 0);
	}
	*flags = f;
	return 0;
}

int tlbsim_os_options_format(unsigned flags, char *buf, size_t size)
{
	const char *lock = flags & TLBSIM_OS_FAULT_LOCK_MM    ? "mm"
			   : flags & TLBSIM_OS_FAULT_LOCKLESS ? "lockless"
							      : "split";

	int n =
	    snprintf(buf, size, "fault_lock=%s,lru_add_drain=%d,per_vma_lock=%d,no_nested_flush=%d",
		     lock, !!(flags & TLBSIM_OS_LRU_ADD_DRAIN), !!(flags & TLBSIM_OS_PER_VMA_LOCK),
		     !!(flags & TLBSIM_OS_NO_NESTED_FLUSH));
	size_t i;

	for (i = FIRST_MUTATION; i < N(bool_opts) && n >= 0; i++)
		if (flags & bool_opts[i].bit)
			n += snprintf(buf + ((size_t)n < size ? (size_t)n : size),
				      (size_t)n < size ? size - (size_t)n : 0, ",%s=1",
				      bool_opts[i].key);
	return n;
}
