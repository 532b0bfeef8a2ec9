/* SPDX-License-Identifier: MIT */
/* The built-in generators, one traces/gen_NAME.c each (internal). */
#ifndef TLBSIM_TRACES_GENERATORS_H
#define TLBSIM_TRACES_GENERATORS_H

#include "tlbsim/gen.h"

/* Add a generator: declare it here and append it to GENERATOR_LIST. */
#define GENERATOR_LIST

#endif
