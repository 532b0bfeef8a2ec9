/* SPDX-License-Identifier: MIT */
/*
 * tlbsim check: run hazard scenarios (include/tlbsim/check.h,
 * docs/scenarios.md) and print, per file, whether the hazard oracle's
 * verdict matches the one the scenario expects; with --explore, also every
 * interleaving of the scenarios that ask for it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "tlbsim/check.h"

static const char check_help[] =
	"usage: tlbsim check [--explore] [--max-interleavings N] [--policy P] [--verbose] FILE...\n\n"
	"Runs each hazard scenario (a text trace with '#@' directives: machine, policy,\n"
	"mode os|kernel, order trace|timed, ets2, errata, os, expect, explore;\n"
	"docs/scenarios.md)\n"
	"with the hazard oracle and prints PASS or FAIL per file: the diagnostics\n"
	"found (kind@event, the 0-based event index in the file) against the ones\n"
	"expected.  --explore also runs every interleaving of the per-thread (mode os)\n"
	"or per-cpu (mode kernel) event lists of the scenarios with an 'explore'\n"
	"directive, up to N (default 10000, depth first), and reports how many reach a hazard and\n"
	"the first that does ('#@ explore safe stale_use' counts stale uses only; in mode\n"
	"kernel 'fault' counts faulting accesses, also in '#@ expect fault@N').  An\n"
	"interleaving that cannot run (an event of a thread after its sleep and before\n"
	"the wake that ends it) is skipped, counted, and the count printed.\n"
	"--policy runs every scenario under P instead of its\n"
	"own.  Exit status: 0 all passed, 1 some failed, 2 a scenario could not run.\n\n"
	"example: tlbsim check --explore tests/hazards/*.tlbt\n";

/*
 * "PASS|FAIL FILE: found X (expected Y)", and when only the exploration
 * failed, say so: the file-order verdict alone would read as a pass.
 */
static void print_verdict(const char *file, const struct tlbsim_scenario_result *res,
			  bool verbose)
{
	bool explore_failed = res->explore_expected[0] && res->matched && !res->passed;

	printf("%s %s: ", res->passed ? "PASS" : "FAIL", file);
	if (explore_failed)
		printf("explore: expected %s, %llu of %llu%s orders reach one; ",
		       res->explore_expected, (unsigned long long)res->hazardous,
		       (unsigned long long)res->explored, res->exhausted ? "" : " (bound reached)");
	printf("found %s", res->found);
	if (!res->matched || verbose)
		printf(" (expected %s)", res->expected);
	else if (explore_failed)
		printf(" in file order, as expected");
	printf("\n");
}

int cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"explore", no_argument, NULL, 'e'},
		{"max-interleavings", required_argument, NULL, 'n'},
		{"policy", required_argument, NULL, 'p'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct tlbsim_scenario_opts opts = {0};
	unsigned passed = 0, failed = 0, errors = 0;
	uint64_t skipped = 0;
	bool verbose = false;
	int c, i, rc = CLI_OK;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'e':
			opts.explore = 1;
			break;
		case 'n':
			errno = 0;
			opts.max_interleavings = strtoull(optarg, &end, 10);
			if (errno || *end || !opts.max_interleavings || optarg[0] == '-')
				return cli_fail("check: --max-interleavings expects a positive number, found '%s'",
						optarg);
			break;
		case 'p':
			opts.policy = optarg;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			fputs(check_help, stdout);
			return CLI_OK;
		default:
			return cli_fail("check: unknown or incomplete option '%s' (see --help)",
					argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_fail("check: give one or more scenario files (see --help)");
	for (i = optind; i < argc; i++) {
		struct tlbsim_scenario_result res;
		struct tlbsim_error err;

		tlbsim_error_clear(&err);
		if (tlbsim_scenario_check(argv[i], &opts, &res, &err)) {
			cli_fail_err(&err);
			printf("ERROR %s\n", argv[i]);
			errors++;
			rc = CLI_USAGE;
			continue;
		}
		print_verdict(argv[i], &res, verbose);
		if (res.explored || res.skipped) {
			printf("     explored %llu interleaving%s%s", (unsigned long long)res.explored,
			       res.explored == 1 ? "" : "s",
			       res.exhausted ? " (all)" : " (bound reached)");
			if (res.skipped)
				printf(", skipped %llu that cannot run", (unsigned long long)res.skipped);
			printf(": %llu reach a hazard%s%s\n", (unsigned long long)res.hazardous,
			       res.witness[0] ? "; first: " : "", res.witness);
		}
		skipped += res.skipped;
		if (verbose && res.stats)
			fputs(res.stats, stdout);
		free(res.stats);
		if (res.passed)
			passed++;
		else
			failed++;
	}
	printf("%u passed, %u failed, %u could not run", passed, failed, errors);
	if (skipped)
		printf("; %llu interleaving%s skipped (impossible orders)",
		       (unsigned long long)skipped, skipped == 1 ? "" : "s");
	printf("\n");
	if (rc == CLI_OK && failed)
		rc = CLI_HAZARDS;
	return rc;
}
