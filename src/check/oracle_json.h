/* SPDX-License-Identifier: MIT */
/* The "hazards" object of the statistics (docs/stats-schema.md). */
#ifndef TLBSIM_CHECK_ORACLE_JSON_H
#define TLBSIM_CHECK_ORACLE_JSON_H

#include <jansson.h>

struct chk_oracle;

/* A new object (caller owns it): {"checked": false} without an oracle. */
json_t *chk_json(struct chk_oracle *o);

#endif
