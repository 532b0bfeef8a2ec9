/* SPDX-License-Identifier: MIT */
/*
 * The hazard oracle's part of the statistics: the "hazards" object of
 * schema tlbsim-stats/1 (docs/stats-schema.md), built with jansson.
 */
#include <jansson.h>
#include <stdio.h>

#include "check/oracle.h"
#include "check/oracle_json.h"
#include "report/json_util.h"

static json_t *hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	return json_string(buf);
}

json_t *chk_json(struct chk_oracle *o)
{
	json_t *h = json_object(), *counts = json_object(), *list = json_array();
	const struct chk_report *r;
	const uint64_t *n;
	uint64_t total = 0;
	unsigned i, nr;

	json_object_set_new(h, "checked", json_boolean(o != NULL));
	if (!o) {
		json_decref(counts);
		json_decref(list);
		return h;
	}
	n = chk_counts(o);
	for (i = 0; i < CHK_NR_KINDS; i++) {
		rep_json_set_u64(counts, chk_kind_name(i), n[i]);
		total += n[i];
	}
	rep_json_set_u64(h, "total", total);
	json_object_set_new(h, "by_kind", counts);
	r = chk_reports(o, &nr);
	for (i = 0; i < nr; i++) {
		json_t *j = json_object();

		json_object_set_new(j, "kind", json_string(chk_kind_name(r[i].kind)));
		if (r[i].event != UINT64_MAX)
			rep_json_set_u64(j, "event", r[i].event);
		else
			json_object_set_new(j, "event", json_null());
		rep_json_set_u64(j, "cpu", r[i].cpu);
		rep_json_set_u64(j, "time", r[i].time);
		rep_json_set_u64(j, "mm", r[i].mm);
		json_object_set_new(j, "root_pfn", hex(r[i].root));
		rep_json_set_u64(j, "asid", r[i].asid);
		json_object_set_new(j, "va", hex(r[i].va));
		json_object_set_new(j, "pfn", hex(r[i].pfn));
		json_object_set_new(j, "why", json_string(r[i].why));
		json_array_append_new(list, j);
	}
	json_object_set_new(h, "reports", list);
	json_object_set_new(h, "reports_truncated", json_boolean(total > nr));
	return h;
}
