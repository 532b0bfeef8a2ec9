/* SPDX-License-Identifier: MIT */
/*
 * Broken internal invariants: assertions that name the invariant (Linux's
 * BUG_ON / WARN_ON_ONCE).  Never used for bad input, which gets an error.
 */
#ifndef TLBSIM_BUG_H
#define TLBSIM_BUG_H

#include <stdio.h>
#include <stdlib.h>

#define BUG_ON(cond, invariant)                                                                    \
	do {                                                                                       \
		if (__builtin_expect(!!(cond), 0)) {                                               \
			fprintf(stderr, "tlbsim: invariant broken at %s:%d: %s\n", __FILE__,       \
				__LINE__, invariant);                                              \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#endif
