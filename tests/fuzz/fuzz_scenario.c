/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: hazard scenarios (src/check/scenario.c, format in
 * docs/scenarios.md) on arbitrary text, parsed and run as `tlbsim check
 * --explore` runs them (tlbsim_scenario_check(), include/tlbsim/check.h):
 * directives, the text trace, the OS model or the kernel-level replayer
 * (src/check/replay.c) with the hazard oracle, and exploration.
 * tlbsim_scenario_check() reads a file, so each input is written to one
 * temporary file first.
 *
 * Every input is bounded so that it runs in well under a second: at most
 * MAX_EVENTS events, MAX_CYCLES simulated cycles a run and MAX_RUNS
 * explored interleavings.  A scenario that ran must say what it found and
 * what it expected and give statistics that are JSON.  Seeds:
 * corpus/scenario/ (the scenarios of tests/hazards/ without their comments).
 */
#include <jansson.h>
#include <unistd.h>

#include "fuzz.h"
#include "tlbsim/check.h"

/* The shipped scenarios have at most a few hundred events, run in under
 * 10^6 cycles (about 0.3 ms at 3 GHz) and explore under 10^4 orders. */
#define MAX_EVENTS 128
#define MAX_CYCLES UINT64_C(10000000)
#define MAX_RUNS 4

static char path[] = "/tmp/tlbsim-fuzz-scenario-XXXXXX";
static int fd = -1;

static void remove_file(void)
{
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tlbsim_scenario_opts opts = {.explore = 1,
					    .max_interleavings = MAX_RUNS,
					    .max_events = MAX_EVENTS,
					    .max_cycles = MAX_CYCLES};
	struct tlbsim_scenario_result res;
	struct tlbsim_error err;
	json_error_t jerr;
	json_t *st;
	int rc;

	if (fd < 0) {
		fd = mkstemp(path);
		FUZZ_ASSERT(fd >= 0, "a temporary file can be made");
		atexit(remove_file);
	}
	FUZZ_ASSERT(ftruncate(fd, 0) == 0 && pwrite(fd, data, size, 0) == (ssize_t)size,
		    "the input can be written to the temporary file");
	tlbsim_error_clear(&err);
	rc = tlbsim_scenario_check(path, &opts, &res, &err);
	if (rc) {
		fuzz_check_error(rc, &err);
		free(res.stats);
		return 0;
	}
	FUZZ_ASSERT(res.found[0] && res.expected[0], "a verdict has what it found and expected");
	FUZZ_ASSERT(res.explored <= MAX_RUNS && res.hazardous <= res.explored,
		    "exploration stays within its bound");
	FUZZ_ASSERT(res.stats != NULL, "a run has statistics");
	st = json_loads(res.stats, 0, &jerr);
	FUZZ_ASSERT(st != NULL, "statistics are JSON");
	json_decref(st);
	free(res.stats);
	return 0;
}
