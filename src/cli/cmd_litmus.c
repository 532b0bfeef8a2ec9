/* SPDX-License-Identifier: MIT */
/*
 * tlbsim litmus: judge Arm VMSA litmus tests in herd7's format
 * (include/tlbsim/check.h, docs/litmus.md) and print, per test, Allowed,
 * Forbidden or Required, with herd's Flag Warning-BBM-expected beside it;
 * with --kinds, compare with a herd kinds file (herdtools7 catalogue
 * kinds.txt: "NAME Allowed|Forbidden|Required" a line).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "tlbsim/check.h"

static const char litmus_help[] =
    "usage: tlbsim litmus [--ets2[=THREADS]] [--kinds FILE] [--max-candidates N] [--verbose]\n"
    "                     FILE.litmus...\n\n"
    "Judges each Arm VMSA litmus test (herd7's AArch64 format: the page-table\n"
    "variables pte_x/PTE(x), descriptors (oa:..,valid:..,af:..,db:..), TLBI, DSB/DMB,\n"
    "ISB, loads and stores, exists/~exists/forall; docs/litmus.md) against the Arm\n"
    "VMSA memory model by checking every candidate execution, and prints\n"
    "  NAME Allowed|Forbidden|Required [Flag Warning-BBM-expected]\n"
    "--ets2 gives every thread FEAT_ETS2 (--ets2=0,2: threads P0 and P2 only).\n"
    "--kinds FILE compares with herd's recorded kinds (lines 'NAME Kind', and an\n"
    "optional third column bbm or nobbm for the flag): each line then starts with\n"
    "ok or DIFF (and what was expected), tests not in FILE with '-'.  A construct outside the "
    "subset is an error naming its line.\n"
    "Exit status: 0 all agree (or no --kinds), 1 some disagree, 2 a test could not\n"
    "be judged.\n\n"
    "example: tlbsim litmus --kinds tests/litmus/kinds.txt tests/litmus/*.litmus\n";

struct kind {
	char name[128];
	char kind[16];
	int bbm; /* -1: not recorded; 0/1: Warning-BBM-expected expected */
};

/* herd writes Allow/Forbid/Require too (VMSA-ETS2-kinds.txt). */
static void norm_kind(char *k)
{
	if (!strcmp(k, "Allow"))
		strcpy(k, "Allowed");
	else if (!strcmp(k, "Forbid"))
		strcpy(k, "Forbidden");
	else if (!strcmp(k, "Require"))
		strcpy(k, "Required");
}

static int load_kinds(const char *path, struct kind **out, size_t *n)
{
	FILE *f = fopen(path, "r");
	char line[512];
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	if (!f)
		return cli_fail("%s: cannot read the kinds file: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		struct kind k;
		char flag[32];
		int cols;

		if (line[0] == '#' ||
		    (cols = sscanf(line, "%127s %15s %31s", k.name, k.kind, flag)) < 2)
			continue;
		/* tlbsim's own kinds files may add a third column: bbm or nobbm. */
		k.bbm = cols < 3 ? -1 : !strcmp(flag, "bbm") ? 1 : !strcmp(flag, "nobbm") ? 0 : -1;
		norm_kind(k.kind);
		if (strcmp(k.kind, "Allowed") && strcmp(k.kind, "Forbidden") &&
		    strcmp(k.kind, "Required"))
			continue;
		if (*n == cap) {
			struct kind *p = realloc(*out, (cap = cap ? 2 * cap : 256) * sizeof(*p));

			if (!p) {
				fclose(f);
				return cli_fail("out of memory");
			}
			*out = p;
		}
		(*out)[(*n)++] = k;
	}
	fclose(f);
	return CLI_OK;
}

/* The last entry for @name (a kinds file may list a test twice). */
static const struct kind *kind_of(const struct kind *k, size_t n, const char *name)
{
	const struct kind *found = NULL;
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(k[i].name, name))
			found = &k[i];
	return found;
}

static int parse_threads(const char *s, struct tlbsim_cpumask *m)
{
	char buf[256], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long t = strtoul(tok + (*tok == 'P'), &end, 10);

		if (*end || end == tok || t >= 64)
			return -1;
		tlbsim_cpumask_set(m, (unsigned)t);
	}
	return 0;
}

int cmd_litmus(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"ets2", optional_argument, NULL, 'e'},
	    {"kinds", required_argument, NULL, 'k'},
	    {"max-candidates", required_argument, NULL, 'n'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct tlbsim_litmus_opts opts = {0};
	struct tlbsim_cpumask ets2 = {0};
	struct kind *kinds = NULL;
	size_t nr_kinds = 0;
	unsigned agree = 0, differ = 0, errors = 0, unknown = 0;
	const char *kinds_path = NULL;
	bool verbose = false;
	int c, i, rc = CLI_OK;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'e':
			if (!optarg) {
				for (i = 0; i < 64; i++)
					tlbsim_cpumask_set(&ets2, (unsigned)i);
			} else if (parse_threads(optarg, &ets2)) {
				return cli_fail("litmus: --ets2 takes thread numbers (0,2 or "
						"P0,P2), found '%s'",
						optarg);
			}
			opts.ets2 = &ets2;
			break;
		case 'k':
			kinds_path = optarg;
			break;
		case 'n':
			errno = 0;
			opts.max_candidates = strtoull(optarg, &end, 10);
			if (errno || *end || !opts.max_candidates || optarg[0] == '-')
				return cli_fail("litmus: --max-candidates expects a positive "
						"number, found '%s'",
						optarg);
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			fputs(litmus_help, stdout);
			return CLI_OK;
		default:
			return cli_fail("litmus: unknown or incomplete option '%s' (see --help)",
					argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_fail("litmus: give one or more .litmus files (see --help)");
	if (kinds_path && (rc = load_kinds(kinds_path, &kinds, &nr_kinds)))
		return rc;
	for (i = optind; i < argc; i++) {
		struct tlbsim_litmus_result res;
		struct tlbsim_error err;
		const struct kind *want;
		bool same;

		tlbsim_error_clear(&err);
		if (tlbsim_litmus_check(argv[i], &opts, &res, &err)) {
			cli_fail_err(&err);
			printf("ERROR %s\n", argv[i]);
			errors++;
			rc = CLI_USAGE;
			continue;
		}
		want = kinds_path ? kind_of(kinds, nr_kinds, res.name) : NULL;
		same = want && !strcmp(want->kind, res.verdict) &&
		       (want->bbm < 0 || want->bbm == res.bbm_warning);
		if (kinds_path)
			printf("%s ", !want ? "-" : same ? "ok" : "DIFF");
		printf("%s %s%s", res.name, res.verdict,
		       res.bbm_warning ? " Flag Warning-BBM-expected" : "");
		if (want && !same)
			printf(" (expected %s%s)", want->kind,
			       want->bbm < 0 ? ""
			       : want->bbm   ? " Flag Warning-BBM-expected"
					     : ", no flag");
		if (verbose)
			printf(" [%s: %llu candidates, %llu consistent, %llu positive%s]", argv[i],
			       (unsigned long long)res.candidates,
			       (unsigned long long)res.consistent, (unsigned long long)res.positive,
			       res.complete ? "" : ", stopped early");
		printf("\n");
		if (!kinds_path)
			continue;
		if (!want)
			unknown++;
		else if (!same)
			differ++;
		else
			agree++;
	}
	if (kinds_path)
		printf("%u passed, %u failed, %u could not run (%u not in %s)\n", agree, differ,
		       errors, unknown, kinds_path);
	free(kinds);
	if (rc == CLI_OK && differ)
		rc = CLI_HAZARDS;
	return rc;
}
