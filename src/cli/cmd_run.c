/* SPDX-License-Identifier: MIT */
/*
 * tlbsim run: one workload under one policy, a summary table and the full
 * statistics as JSON.  tlbsim compare: the same workload under several
 * policies, side by side with ratios to the first, optionally as a chart
 * drawn by gnuplot.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "tlbsim/check.h"

struct run_opts {
	const char *machine;
	const char *policy;
	const char *json;
	const char *gen;
	const char *params;
	const char *tpl;
	const char *trace;
	const char *plot;
	int threads;
	int jobs; /* compare: simulations at once, 0 = as many as the host's cpus allow */
	uint64_t max_events, max_cycles;
	uint64_t memory_frames; /* --memory, in 4 KiB frames (0: the default) */
	unsigned os_flags;	/* --os, TLBSIM_OS_* */
	const char *os_text;	/* --os as given, NULL: not given */
	bool quiet;
	bool check;
	bool kernel;
	struct tlbsim_trace_opts topts;
};

static const char run_help[] =
    "usage: tlbsim run --machine M [--policy P] [--os K=V,...] [--threads N] [--json OUT]\n"
    "                  [--check] [--memory SIZE] [--max-events N] [--max-cycles N] [--quiet]\n"
    "                  [--kernel] [--format F] [--isa x86-64|arm64] [--linear-map ADDR]\n"
    "                  (TRACE | --gen NAME [--param K=V,...] [--template FILE])\n\n"
    "Simulates TRACE (any format tlbsim reads, compressed or not) or a generator's\n"
    "events on machine M (a name from 'tlbsim list machines' or a JSON path) under\n"
    "flush policy P ('tlbsim list policies'; 'a+b' composes a table-free strategy;\n"
    "default: the ISA's stock policy).  Prints a table per cpu and in total, and\n"
    "writes every statistic as JSON to OUT (schema: docs/stats-schema.md).  With\n"
    "--json -, the JSON goes to standard output and the tables to standard error:\n"
    "standard output holds only the JSON (tlbsim run ... --json - | jq .cycles).\n"
    "--os sets OS-model options, as older or newer kernels behave:\n"
    "  fault_lock=split|mm|lockless  how faults and PTE changes lock: a lock per\n"
    "                                PTE-table page (default), the mm-wide\n"
    "                                page_table_lock (Linux 2.6.8), or faults by\n"
    "                                cmpxchg on their PTE (the 2004 fast path)\n"
    "  lru_add_drain=0|1             drain the cpu's LRU add batch under the\n"
    "                                lruvec lock on every madvise/munmap zap\n"
    "  per_vma_lock=0|1              faults take their VMA's lock, not mmap_lock\n"
    "                                (Linux 6.4)\n"
    "  no_nested_flush=0|1           no mm_tlb_flush_nested() (Linux < 4.15)\n"
    "Mutations (historical bugs, docs/scenarios.md):\n"
    "  no_batched_pending=0|1        no flush_tlb_batched_pending() (< 4.13)\n"
    "  reclaim_cpumask_only=0|1      INVLPGB reclaim flush only with a non-empty\n"
    "                                batch cpumask (ruled out by 0b7eb55cb706)\n"
    "  mremap_late_flush=0|1         mremap flushes after dropping the PTE lock\n"
    "                                (< 4.19, eb66ae030829)\n"
    "  nested_reset_range=0|1        the nested gather's forced flush resets its\n"
    "                                range and drops freed_tables (< 5.2)\n"
    "The table after the per-cpu one says where the shared kernel lines (locks,\n"
    "mm_cpumask, tlb_gen, ...) cost transfers and waiting.\n"
    "--threads runs the cores on N host threads; results do not depend on N (on a\n"
    "busy host, set OMP_WAIT_POLICY=passive so that waiting threads do not spin).\n"
    "--memory is the simulated physical memory, bytes with K/M/G suffixes (default\n"
    "64G); a run that needs more stops with an error naming the event.\n"
    "--max-events/--max-cycles stop early (0: no limit); the statistics are then marked\n"
    "partial.  A --max-cycles run stops at the first window's end at or past the limit,\n"
    "so its cycles may exceed it by up to a window (the engine's quantum, longer when\n"
    "no core can act sooner).\n"
    "--quiet: nothing on standard output but the JSON of --json - (no tables) and\n"
    "no progress line; warnings and errors still go to standard error, and --json\n"
    "OUT is written as without it.\n"
    "--check runs the hazard oracle (stale translations used, walks into freed page\n"
    "tables, incomplete TLB maintenance, break-before-make skipped), lists what it\n"
    "found and exits with status 1 if it found anything.\n"
    "--kernel replays TRACE's kernel-level events (PTE writes, TLBI, DSB, TTBR/CR3\n"
    "writes, INVLPG(B), table frees...) on the cpus they name, without the OS model\n"
    "(include/tlbsim/check.h); execlog and insn traces always replay so.\n"
    "TRACE's ISA must be the machine's: an x86-64 trace runs on x86-64 machines only.\n"
    "A user-level trace (accesses, threads, processes, memory syscalls: a recording's\n"
    "or a generator's) means the same on either ISA, and 'tlbsim convert --retarget\n"
    "arm64 IN OUT' makes an x86-64 recording one that the arm64 machines and\n"
    "policies replay; kernel-level traces (INVLPG, TLBI ...) cannot be retargeted.\n"
    "--template FILE gives a generator that runs a recorded process many times\n"
    "(spawn) its process template: a binary trace of one process, as tlbsim record\n"
    "writes it (docs/templates.md).\n"
    "--format names TRACE's format when it has no magic (execlog, champsim);\n"
    "--isa and --linear-map (kernel VA = PA + ADDR) are for instruction traces\n"
    "(execlog: the ISA defaults to the machine's).\n\n"
    "exit status: 0 success, 1 hazards found under --check, 2 usage or input error,\n"
    "130 interrupted\n\n"
    "example: tlbsim run --machine emag-32 --policy arm64-nr-active-mm \\\n"
    "             --gen mprotect-toggle --param procs=4,loops=100 --json out.json\n";

static const char compare_help[] =
    "usage: tlbsim compare --machine M [--policies P1,P2,...] [--os K=V,...] [--threads N]\n"
    "                      [--jobs N] [--json OUT] [--check] [--memory SIZE] [--max-events N]\n"
    "                      [--max-cycles N] [--plot FILE.svg|FILE.png] [--quiet] [--format F]\n"
    "                      [--isa x86-64|arm64] [--linear-map ADDR]\n"
    "                      (TRACE | --gen NAME [--param K=V,...] [--template FILE])\n\n"
    "Runs the same workload under each policy.  First the answer: which policy spends\n"
    "the fewest cycles on TLB coherence (IPIs sent, IPI handlers, broadcasts\n"
    "received, waiting for acknowledgements, DSB or TLBSYNC, local flushes and\n"
    "TLBI/INVLPGB issue, walks after flushes, mmap_lock waits while the holder\n"
    "flushes, the mm_cpumask/tlb_gen/nr_active_mm lines at context switches), how\n"
    "many times as many each other spends, where each spends them and\n"
    "the run times; then those cycles by kind, and the key figures side by side with\n"
    "the ratio of each to the first policy's.  --json writes every run's statistics\n"
    "as one JSON array (idle time included; --json -: to standard output, the tables\n"
    "then to standard error); --plot draws the coherence cycles by kind\n"
    "per policy and the run times with gnuplot.  Without --policies, every policy of\n"
    "the machine's ISA is run (x86-invlpgb only on a machine with INVLPGB); at most\n"
    "16.  The runs are independent simulations: --jobs N runs N at once on host\n"
    "threads (default: the host's cpus divided by --threads), with the same results\n"
    "as one at a time; a terminal shows a progress line per policy, anything else a\n"
    "'running P...' line on standard error as each run starts.  --quiet means what\n"
    "it means for run: nothing on standard output but the JSON of --json - (no\n"
    "answer, no tables), no progress or 'running' lines; warnings and errors still\n"
    "go to standard error, --json and --plot files are written.  The other\n"
    "options are run's (tlbsim run --help).\n"
    "A run that stopped early (--max-events, --max-cycles, SIGINT) is marked\n"
    "[partial] and never ranked against complete ones; when every run stopped at\n"
    "the same cap they are ranked over that part, and runs stopped by SIGINT (each\n"
    "wherever it had got to) are not ranked at all.  The policies an interrupt kept\n"
    "from starting are listed as [not run]; the JSON holds the runs made.\n\n"
    "exit status: 0 success, 1 hazards found under --check, 2 usage or input error,\n"
    "130 interrupted\n\n"
    "example: tlbsim compare --machine milan-36 --policies x86-stock,x86-invlpgb \\\n"
    "             traces/samples/shell-loop.tlbt.xz\n";

enum {
	OPT_MAX_EVENTS = 256,
	OPT_MAX_CYCLES,
	OPT_QUIET,
	OPT_CHECK,
	OPT_KERNEL,
	OPT_FORMAT,
	OPT_ISA,
	OPT_LINEAR_MAP,
	OPT_MEMORY,
	OPT_OS,
	OPT_JOBS
};

/* --memory bounds: 1 MiB (the kernel's and a process's first tables fit)
 * to 2^52 bytes (the 2^40 frames of tlbsim_physmem_create(), x86-64's
 * 52-bit MAXPHYADDR). */
#define MEMORY_MIN (1ull << 20)
#define MEMORY_MAX (1ull << 52)

/* --memory SIZE: bytes, K/M/G suffixes as generator parameters take them. */
static int parse_memory(const char *cmd, const char *arg, uint64_t *frames)
{
	uint64_t bytes;

	if (tlbsim_size_parse(arg, &bytes) || bytes % 4096 || bytes < MEMORY_MIN ||
	    bytes > MEMORY_MAX)
		return cli_fail(
		    "%s: --memory expects bytes of simulated physical memory, a multiple of "
		    "4 KiB from 1M to 4194304G (K/M/G suffixes: 128G), found '%s'",
		    cmd, arg);
	*frames = bytes / 4096;
	return 0;
}

/* Policies compare runs at most (a table wider than that is unreadable). */
#define MAX_POLICIES 16

/* parse() printed the help: the command exits 0. */
#define PARSE_HELP (-1)

static int parse(int argc, char **argv, struct run_opts *o, bool compare)
{
	static const struct option longopts[] = {
	    {"machine", required_argument, NULL, 'm'},
	    {"policy", required_argument, NULL, 'p'},
	    {"policies", required_argument, NULL, 'P'},
	    {"threads", required_argument, NULL, 't'},
	    {"json", required_argument, NULL, 'j'},
	    {"gen", required_argument, NULL, 'g'},
	    {"param", required_argument, NULL, 'k'},
	    {"template", required_argument, NULL, 'T'},
	    {"plot", required_argument, NULL, 'o'},
	    {"max-events", required_argument, NULL, OPT_MAX_EVENTS},
	    {"max-cycles", required_argument, NULL, OPT_MAX_CYCLES},
	    {"quiet", no_argument, NULL, OPT_QUIET},
	    {"check", no_argument, NULL, OPT_CHECK},
	    {"kernel", no_argument, NULL, OPT_KERNEL},
	    {"format", required_argument, NULL, OPT_FORMAT},
	    {"isa", required_argument, NULL, OPT_ISA},
	    {"linear-map", required_argument, NULL, OPT_LINEAR_MAP},
	    {"memory", required_argument, NULL, OPT_MEMORY},
	    {"os", required_argument, NULL, OPT_OS},
	    {"jobs", required_argument, NULL, OPT_JOBS},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->threads = 1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'm':
			if (o->machine)
				return cli_fail("%s: --machine given twice ('%s', then '%s'): one "
						"machine a run",
						argv[0], o->machine, optarg);
			o->machine = optarg;
			break;
		case 'p':
		case 'P':
			if ((c == 'P') != compare)
				return cli_fail("%s: unknown option '%s' (see --help)", argv[0],
						argv[optind - 1]);
			if (o->policy)
				return cli_fail(
				    "%s: %s given twice ('%s', then '%s'): %s", argv[0],
				    compare ? "--policies" : "--policy", o->policy, optarg,
				    compare ? "one list, P1,P2,..." : "one policy a run");
			o->policy = optarg;
			break;
		case 't':
			o->threads = (int)strtol(optarg, &end, 10);
			if (*end || o->threads < 1 || o->threads > 256)
				return cli_fail("%s: --threads expects 1..256, found '%s'", argv[0], optarg);
			break;
		case 'j':
			o->json = optarg;
			break;
		case 'g':
			o->gen = optarg;
			break;
		case 'k':
			o->params = optarg;
			break;
		case 'T':
			o->tpl = optarg;
			break;
		case 'o':
			if (!compare)
				return cli_fail("%s: --plot is an option of compare", argv[0]);
			o->plot = optarg;
			break;
		case OPT_MAX_EVENTS:
		case OPT_MAX_CYCLES:
			errno = 0;
			*(c == OPT_MAX_EVENTS ? &o->max_events : &o->max_cycles) =
				strtoull(optarg, &end, 0);
			if (errno || *end || optarg[0] == '-' || !optarg[0])
				return cli_fail("%s: %s expects a whole number, found '%s'", argv[0],
						c == OPT_MAX_EVENTS ? "--max-events" : "--max-cycles",
						optarg);
			break;
		case OPT_JOBS:
			o->jobs = (int)strtol(optarg, &end, 10);
			if (!compare || *end || o->jobs < 1 || o->jobs > 64)
				return cli_fail("%s: --jobs expects 1..64 (compare only), found '%s'",
						argv[0], optarg);
			break;
		case OPT_MEMORY:
			if (parse_memory(argv[0], optarg, &o->memory_frames))
				return CLI_USAGE;
			break;
		case OPT_OS: {
			char why[256];
			size_t at = 0;

			if (o->os_text)
				return cli_fail("%s: --os given twice ('%s', then '%s'): one list, "
						"K=V,K=V,...",
						argv[0], o->os_text, optarg);
			o->os_text = optarg;
			if (tlbsim_os_options_parse(optarg, &o->os_flags, why, sizeof(why), &at))
				return cli_fail("%s: --os: byte %zu of '%s': %s", argv[0], at,
						optarg, why);
			break;
		}
		case OPT_QUIET:
			o->quiet = true;
			break;
		case OPT_CHECK:
			o->check = true;
			break;
		case OPT_KERNEL:
			o->kernel = true;
			break;
		case OPT_FORMAT:
		case OPT_ISA:
		case OPT_LINEAR_MAP:
			if (cli_trace_opt(argv[0], c == OPT_FORMAT ? "format" : c == OPT_ISA ? "isa" : "linear-map",
					  optarg, &o->topts))
				return CLI_USAGE;
			break;
		case 'h':
			fputs(compare ? compare_help : run_help, stdout);
			return PARSE_HELP;
		default:
			return cli_fail("%s: unknown or incomplete option '%s' (see --help)", argv[0],
					argv[optind - 1]);
		}
	}
	if (optind < argc)
		o->trace = argv[optind++];
	if (optind < argc)
		return cli_fail("%s: one trace at a time, found also '%s'", argv[0], argv[optind]);
	if (!o->machine)
		return cli_fail("%s: --machine is required (see 'tlbsim list machines')", argv[0]);
	if (!o->trace == !o->gen)
		return cli_fail("%s: give a TRACE or --gen NAME (one of them)", argv[0]);
	if (o->params && !o->gen)
		return cli_fail("%s: --param goes with --gen", argv[0]);
	if (o->tpl && !o->gen)
		return cli_fail("%s: --template goes with --gen (a generator that runs it: spawn)",
				argv[0]);
	return 0;
}

/* ---- one simulation ------------------------------------------------------------ */

/* An instruction trace's counts go into the statistics ("trace"): how many
 * instructions, and those that became no event, by mnemonic. */
static void add_trace_stats(struct cli_source *src, char **text)
{
	struct tlbsim_trace_insn_count top[32];
	struct tlbsim_trace_stats ts;
	json_t *st, *tr, *by;
	size_t n, i;

	tlbsim_trace_stats(src->trace, &ts);
	if (!ts.insns || !(st = json_loads(*text, 0, NULL)))
		return;
	tr = json_object();
	by = json_object();
	json_object_set_new(tr, "insns", json_integer((json_int_t)ts.insns));
	json_object_set_new(tr, "unknown_insns", json_integer((json_int_t)ts.unknown_insns));
	n = tlbsim_trace_insn_counts(src->trace, top, 32);
	for (i = 0; i < n && i < 32; i++)
		json_object_set_new(by, top[i].mnemonic, json_integer((json_int_t)top[i].count));
	json_object_set_new(tr, "unknown_by_mnemonic", by);
	json_object_set_new(st, "trace", tr);
	free(*text);
	*text = json_dumps(st, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	json_decref(st);
}

/* Runs the workload of @o under @policy; *stats receives the parsed JSON.
 * @report: where compare follows the run from another thread, or NULL. */
/*
 * Can trace @path, whose header is @info, run on machine @m?  Its ISA must
 * be the machine's, and its pages 4 KiB, the only ones modelled: else its
 * faults, TLB reach and flush ranges would silently be those of another
 * system.  0, or cli_fail()'s status with the reason.
 */
static int trace_fits(const char *path, const struct tlbsim_machine *m,
		      const struct tlbsim_trace_info *info)
{
	if (info->isa != m->isa)
		return cli_fail("%s: the trace is %s but machine %s is %s (a user-level "
				"trace, a recording's or a generator's, can be replayed on "
				"it after 'tlbsim convert --retarget %s IN OUT')",
				path, tlbsim_isa_name(info->isa), m->name, tlbsim_isa_name(m->isa),
				tlbsim_isa_name(m->isa));
	if (info->page_shift != TLBSIM_PAGE_SHIFT)
		return cli_fail("%s: the trace's header says page_shift=%u (%u KiB pages), but "
				"the simulator models 4 KiB base pages only (page_shift=%u): "
				"its faults, TLB reach and flush ranges would be those of "
				"another system",
				path, info->page_shift, (1u << info->page_shift) >> 10,
				TLBSIM_PAGE_SHIFT);
	return 0;
}

static int simulate(const struct run_opts *o, const struct tlbsim_machine *m, const char *policy,
		    struct cli_progress *report, json_t **stats)
{
	struct tlbsim_sim_config cfg = {0};
	struct tlbsim_error err;
	struct cli_source src;
	tlbsim_sim *sim = NULL;
	json_error_t jerr;
	char *text;
	int rc;

	*stats = NULL;
	struct tlbsim_trace_opts topts = o->topts;

	/* an execlog trace does not say its ISA: the machine's, unless --isa says */
	if (!topts.isa)
		topts.isa = m->isa;
	rc = o->trace ? cli_source_open_trace(&src, o->trace, &topts)
		      : cli_source_open_gen(&src, o->gen, o->params, m->isa, o->tpl);
	if (rc)
		return rc;
	/* compare draws its own lines from @report */
	src.report = report;
	if (o->trace && (rc = trace_fits(o->trace, m, tlbsim_trace_info(src.trace)))) {
		cli_source_close(&src);
		return rc;
	}
	if (o->trace && (o->kernel || tlbsim_trace_info(src.trace)->format == TLBSIM_TRACE_EXECLOG ||
			 tlbsim_trace_info(src.trace)->format == TLBSIM_TRACE_INSN)) {
		struct tlbsim_replay_config rcfg = {.machine = m, .ordered = 1, .check = o->check,
						    .max_events = o->max_events, .name = o->trace};

		if (o->memory_frames) {
			cli_source_close(&src);
			return cli_fail(
			    "%s: --memory sizes the OS model's memory; a kernel-level replay "
			    "uses the frames its trace names",
			    o->trace);
		}
		tlbsim_error_clear(&err);
		cli_source_progress(&src, o->quiet || report, NULL);
		rc = tlbsim_replay_run(&rcfg, cli_source_next, &src, &text, &err);
		if (!rc)
			add_trace_stats(&src, &text);
		cli_source_close(&src);
		if (rc)
			return cli_fail_run_err(&err, o->trace, &topts);
		goto parse;
	}
	cfg.machine = m;
	cfg.policy = policy;
	cfg.threads = o->threads;
	cfg.max_events = o->max_events;
	cfg.max_cycles = o->max_cycles;
	cfg.memory_frames = o->memory_frames;
	cfg.os_flags = o->os_flags;
	cfg.check = o->check;
	cfg.name = o->trace ? o->trace : o->gen;
	tlbsim_error_clear(&err);
	if (tlbsim_sim_create(&cfg, &sim, &err)) {
		cli_source_close(&src);
		return cli_fail_err(&err);
	}
	cli_sigint_add(sim);
	cli_source_progress(&src, o->quiet || report, sim);
	rc = tlbsim_sim_run_batch(sim, cli_source_next_batch, &src, &err);
	cli_sigint_remove(sim);
	cli_source_close(&src);
	if (rc < 0) {
		tlbsim_sim_destroy(sim);
		return cli_fail_run_err(&err, o->trace, &topts);
	}
	text = tlbsim_sim_stats_json(sim);
	tlbsim_sim_destroy(sim);
parse:
	if (!text)
		return cli_fail("out of memory");
	*stats = json_loads(text, 0, &jerr);
	free(text);
	if (!*stats)
		return cli_fail("internal: statistics are not JSON: %s", jerr.text);
	return 0;
}

/* ---- tables ---------------------------------------------------------------------- */

/*
 * Where run's and compare's tables go: standard output, or standard error
 * when --json - writes the JSON there (so that stdout holds only the JSON,
 * for jq and the like).  Set by cmd_run() and cmd_compare() before they
 * print; the tables are printed by the main thread only.
 */
static FILE *out;

/* The stream of the tables for @o (see above). */
static FILE *table_stream(const struct run_opts *o)
{
	return o->json && !strcmp(o->json, "-") ? stderr : stdout;
}

static uint64_t u(json_t *o, const char *key)
{
	return (uint64_t)json_integer_value(json_object_get(o, key));
}

/*
 * A counter of @o (a per_cpu element or "totals"), when it has it: the
 * kernel-level replay's JSON has fewer keys (docs/stats-schema.md), and
 * its MMU counters only under "mmu", from which the TLB columns are read.
 * Returns false when @o has no such counter: the table prints "-", never
 * a zero the run did not count.
 */
static bool cell(json_t *o, const char *key, uint64_t *v)
{
	static const struct {
		const char *key, *level, *what;
	} from_mmu[] = {
	    {"tlb_l1i_hits", "l1i", "hits"}, {"tlb_l1i_misses", "l1i", "misses"},
	    {"tlb_l1d_hits", "l1d", "hits"}, {"tlb_l1d_misses", "l1d", "misses"},
	    {"tlb_l2_hits", "l2", "hits"},   {"tlb_l2_misses", "l2", "misses"},
	    {"walks", NULL, "walks"},	     {"walk_cycles", NULL, "walk_cycles"},
	};
	json_t *x = json_object_get(o, key), *mmu = json_object_get(o, "mmu");

	if (json_is_integer(x)) {
		*v = (uint64_t)json_integer_value(x);
		return true;
	}
	for (size_t i = 0; mmu && i < sizeof(from_mmu) / sizeof(from_mmu[0]); i++)
		if (!strcmp(key, from_mmu[i].key)) {
			json_t *l =
			    from_mmu[i].level ? json_object_get(mmu, from_mmu[i].level) : mmu;

			x = json_object_get(l, from_mmu[i].what);
			*v = (uint64_t)json_integer_value(x);
			return json_is_integer(x);
		}
	return false;
}

/* The total of @key: "totals"' own, else the sum of every cpu's cell(). */
static bool total_cell(json_t *st, const char *key, uint64_t *v)
{
	json_t *c;
	uint64_t x;
	size_t i;

	if (cell(json_object_get(st, "totals"), key, v))
		return true;
	*v = 0;
	json_array_foreach(json_object_get(st, "per_cpu"), i, c)
	{
		if (!cell(c, key, &x))
			return false;
		*v += x;
	}
	return i > 0;
}

/* A whole-number cell, @w wide, or "-". */
static void print_count(int w, bool have, uint64_t v)
{
	if (have)
		fprintf(out, " %*llu", w, (unsigned long long)v);
	else
		fprintf(out, " %*s", w, "-");
}

/* A hit rate, percent, or "-" when nothing was looked up (or not counted). */
static void print_rate(bool have, uint64_t hits, uint64_t misses)
{
	if (have && hits + misses)
		fprintf(out, " %6.2f", 100.0 * (double)hits / (double)(hits + misses));
	else
		fprintf(out, " %6s", "-");
}

/* A table column: a counter (@key), or one of the composite cells. */
enum col_kind { COL_COUNT, COL_L1, COL_L2, COL_PWC, COL_FLUSH };
struct col {
	const char *head;
	enum col_kind kind;
	const char *key;
	int width;
};

/* The OS model's columns, and the kernel-level replay's (no OS: no
 * faults, flush requests or IPIs; its own DSB and INVLPGB counts). */
static const struct col os_cols[] = {
    {"cycles", COL_COUNT, "cycles", 14},
    {"events", COL_COUNT, "events", 11},
    {"L1%", COL_L1, NULL, 6},
    {"L2%", COL_L2, NULL, 6},
    {"PWC%", COL_PWC, NULL, 6},
    {"walks", COL_COUNT, "walks", 9},
    {"faults", COL_COUNT, "faults", 7},
    {"flush l/i/b/g/s", COL_FLUSH, NULL, 18},
    {"IPIs-out", COL_COUNT, "ipis_sent", 8},
    {"IPIs-in", COL_COUNT, "ipis_received", 8},
    {"bcast-in", COL_COUNT, "tlbi_broadcasts_received", 8},
    {"stolen", COL_COUNT, "stolen_cycles", 12},
    {"waiting", COL_COUNT, "waiting_cycles", 12},
    {NULL, 0, NULL, 0},
};
static const struct col replay_cols[] = {
    {"cycles", COL_COUNT, "cycles", 14},
    {"events", COL_COUNT, "events", 11},
    {"L1%", COL_L1, NULL, 6},
    {"L2%", COL_L2, NULL, 6},
    {"PWC%", COL_PWC, NULL, 6},
    {"walks", COL_COUNT, "walks", 9},
    {"DSBs", COL_COUNT, "dsbs", 7},
    {"bcast-out", COL_COUNT, "tlbi_broadcasts_sent", 9},
    {"bcast-in", COL_COUNT, "tlbi_broadcasts_received", 8},
    {"INVLPGB-out", COL_COUNT, "invlpgb_sent", 11},
    {"stolen", COL_COUNT, "stolen_cycles", 12},
    {"waiting", COL_COUNT, "waiting_cycles", 12},
    {NULL, 0, NULL, 0},
};

/* @key of the row: a cpu's (@st NULL) or the total of @st. */
static bool get(json_t *c, json_t *st, const char *key, uint64_t *v)
{
	return st ? total_cell(st, key, v) : cell(c, key, v);
}

/* The PWC hit rate over every level: a cpu's @c, or every cpu of @st. */
static void print_pwc(json_t *c, json_t *st)
{
	uint64_t h = 0, m = 0;
	bool have = false;
	json_t *l, *cpu;
	size_t i, k;

	json_array_foreach(st ? json_object_get(st, "per_cpu") : NULL, k, cpu)
	{
		json_array_foreach(json_object_get(json_object_get(cpu, "mmu"), "pwc"), i, l)
		{
			h += u(l, "hits");
			m += u(l, "misses");
			have = true;
		}
	}
	json_array_foreach(st ? NULL : json_object_get(json_object_get(c, "mmu"), "pwc"), i, l)
	{
		h += u(l, "hits");
		m += u(l, "misses");
		have = true;
	}
	print_rate(have, h, m);
}

/* One row: cpu @c, or the total of @st (with @c NULL). */
static void row(const struct col *cols, json_t *c, json_t *st, const char *label, const char *haz)
{
	static const char *const flush_keys[] = {"flushes_local", "flushes_ipi",
						 "flushes_broadcast", "flushes_invlpgb",
						 "flushes_skipped"};
	uint64_t v, h1, h2, m1, m2;
	bool have;

	fprintf(out, "%-5s", label);
	for (; cols->head; cols++) {
		switch (cols->kind) {
		case COL_COUNT:
			/* The total's cycles are the simulated time. */
			if (st && !strcmp(cols->key, "cycles"))
				have = cell(st, "cycles", &v);
			else
				have = get(c, st, cols->key, &v);
			print_count(cols->width, have, v);
			break;
		case COL_L1:
			have = get(c, st, "tlb_l1d_hits", &h1) && get(c, st, "tlb_l1i_hits", &h2) &&
			       get(c, st, "tlb_l1d_misses", &m1) &&
			       get(c, st, "tlb_l1i_misses", &m2);
			print_rate(have, have ? h1 + h2 : 0, have ? m1 + m2 : 0);
			break;
		case COL_L2:
			have = get(c, st, "tlb_l2_hits", &h1) && get(c, st, "tlb_l2_misses", &m1);
			print_rate(have, have ? h1 : 0, have ? m1 : 0);
			break;
		case COL_PWC:
			print_pwc(c, st);
			break;
		case COL_FLUSH: {
			char buf[96];
			size_t n = 0;

			for (unsigned k = 0; k < 5; k++) {
				have = get(c, st, flush_keys[k], &v);
				n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s", k ? "/" : "");
				if (have)
					n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%llu",
							      (unsigned long long)v);
				else
					n += (size_t)snprintf(buf + n, sizeof(buf) - n, "-");
			}
			fprintf(out, " %*s", cols->width, buf);
			break;
		}
		}
	}
	fprintf(out, " %3s\n", haz);
}

/* Hazards found, or -1 when the run was not checked. */
static long long hazards(json_t *st)
{
	json_t *h = json_object_get(st, "hazards");

	if (!json_is_true(json_object_get(h, "checked")))
		return -1;
	return (long long)u(h, "total");
}

/* The oracle's findings: counts by kind and the first reports; where the
 * rest are (the JSON at @json, or nowhere without --json). */
static void print_hazards(json_t *st, const char *json)
{
	json_t *h = json_object_get(st, "hazards"), *r;
	const char *k;
	json_t *v;
	size_t i;

	if (hazards(st) < 0)
		return;
	fprintf(out, "hazards: %lld", hazards(st));
	json_object_foreach(json_object_get(h, "by_kind"), k, v)
		if (json_integer_value(v))
			fprintf(out, ", %s %lld", k, (long long)json_integer_value(v));
	fprintf(out, "\n");
	json_array_foreach(json_object_get(h, "reports"), i, r) {
		if (i == 10) {
			size_t more = json_array_size(json_object_get(h, "reports")) - 10;

			if (json)
				fprintf(out, "  ... %zu more%s in %s (\"hazards\".\"reports\")\n", more,
				       json_is_true(json_object_get(h, "reports_truncated"))
					   ? " (the first 1000 kept)"
					   : "",
				       strcmp(json, "-") ? json : "the JSON on standard output");
			else
				fprintf(out, "  ... %zu more not shown (--json OUT keeps them, up to "
				       "1000)\n",
				       more);
			break;
		}
		fprintf(out, "  %s: event %lld, cpu %lld, cycle %lld, mm %lld asid %lld, va %s, frame %s: %s\n",
		       json_string_value(json_object_get(r, "kind")),
		       json_is_null(json_object_get(r, "event"))
			       ? -1LL
			       : (long long)json_integer_value(json_object_get(r, "event")),
		       (long long)u(r, "cpu"), (long long)u(r, "time"), (long long)u(r, "mm"),
		       (long long)u(r, "asid"), json_string_value(json_object_get(r, "va")),
		       json_string_value(json_object_get(r, "pfn")),
		       json_string_value(json_object_get(r, "why")));
	}
}

/* What a run did that the trace did not ask for, or could not do: each
 * is shown in the tables and warned about on stderr when not 0. */
struct anomaly {
	const char *label;
	const char *obj, *key; /* the counter: @obj (NULL: the top level) . @key */
	const char *what;
};

static const struct anomaly anomalies[] = {
    {"segv", "totals", "segv", "accesses outside any mapping or not permitted, skipped"},
    {"bad syscalls", "totals", "bad_syscalls",
     "syscalls Linux refuses (a range outside the user address space, empty, or not page-aligned), failed"},
    {"unknown-thread events", "os", "unknown_thread_events",
     "events of threads no event created, not run"},
    {"ignored events", "totals", "ignored_events",
     "kernel-level events (for --kernel) and events the OS model refused, not applied"},
    {"switches folded", "os", "switches_folded",
     "switch events naming cpus the machine lacks, run on cpu % cpus"},
    {"ignored operands", "totals", "ignored_operands",
     "TLBI/DC/system-register operands the trace did not show"},
    {"unknown instructions", "trace", "unknown_insns",
     "instructions that became no event (trace.unknown_by_mnemonic)"},
    {NULL, NULL, NULL, NULL},
};

static uint64_t anomaly(json_t *st, const struct anomaly *a)
{
	return u(a->obj ? json_object_get(st, a->obj) : st, a->key);
}

/* One warning on stderr per anomaly of run @st (of @what: the policy). */
static void warn_anomalies(json_t *st, const char *what)
{
	for (const struct anomaly *a = anomalies; a->key; a++)
		if (anomaly(st, a))
			fprintf(stderr, "tlbsim: warning: %s: %llu %s (%s; %s.%s in the JSON)\n",
				what, (unsigned long long)anomaly(st, a), a->label, a->what,
				a->obj ? a->obj : "", a->key);
}

/* Where the shared kernel lines cost (the "lines" totals), kinds touched
 * only; "wait%" is each kind's share of all cpus' waiting cycles. */
static void print_lines(json_t *st)
{
	json_t *lines = json_object_get(st, "lines"), *l;
	uint64_t waiting = u(json_object_get(st, "totals"), "waiting_cycles");
	const char *kind;
	bool any = false;

	json_object_foreach(lines, kind, l)
	{
		if (!u(l, "accesses"))
			continue;
		if (!any)
			fprintf(out, "%-16s %12s %12s %16s %16s %16s %6s\n", "shared line", "accesses",
			       "transfers", "transfer cycles", "wait cycles", "held cycles",
			       "wait%");
		any = true;
		fprintf(out, "%-16s %12llu %12llu %16llu %16llu %16llu %6.2f\n", kind,
		       (unsigned long long)u(l, "accesses"), (unsigned long long)u(l, "transfers"),
		       (unsigned long long)u(l, "transfer_cycles"),
		       (unsigned long long)u(l, "wait_cycles"),
		       (unsigned long long)u(l, "hold_cycles"),
		       waiting ? 100.0 * (double)u(l, "wait_cycles") / (double)waiting : 0.0);
	}
}

static void print_run_table(json_t *st)
{
	bool replay = json_object_get(st, "mode") != NULL;
	const struct col *cols = replay ? replay_cols : os_cols, *k;
	json_t *c;
	size_t i;
	char label[24];

	fprintf(out, "%s on %s (%s, %llu cpus), policy %s%s\n", "tlbsim run",
	       json_string_value(json_object_get(st, "machine")),
	       json_string_value(json_object_get(st, "isa")), (unsigned long long)u(st, "cpus"),
	       json_string_value(json_object_get(st, "policy")),
	       json_is_true(json_object_get(st, "partial")) ? " [partial]" : "");
	fprintf(out, "%-5s", "cpu");
	for (k = cols; k->head; k++)
		fprintf(out, " %*s", k->width, k->head);
	fprintf(out, " %3s\n", "haz");
	json_array_foreach(json_object_get(st, "per_cpu"), i, c)
	{
		snprintf(label, sizeof(label), "%zu", i);
		row(cols, c, NULL, label, "");
	}
	if (hazards(st) >= 0)
		snprintf(label, sizeof(label), "%lld", hazards(st));
	else
		snprintf(label, sizeof(label), "-");
	row(cols, NULL, st, "total", label);
	/* Events run, not those read ahead (a capped run reads past them). */
	fprintf(out, "simulated time %.6f s (%llu cycles at %.2f GHz), %llu events run on cpus",
	       json_real_value(json_object_get(st, "seconds")), (unsigned long long)u(st, "cycles"),
	       json_real_value(json_object_get(st, "freq_ghz")),
	       (unsigned long long)u(json_object_get(st, "totals"), "events"));
	/* A process created by no thread (a trace's first proc_create) is
	 * made as it is read, on no cpu; a capped run also reads ahead. */
	if (u(st, "events_read") != u(json_object_get(st, "totals"), "events"))
		fprintf(out, " of %llu read (%s)", (unsigned long long)u(st, "events_read"),
			json_is_true(json_object_get(st, "partial"))
			    ? "the stop leaves some read unrun; creations by no thread run on no cpu"
			    : "creations of processes by no thread run on no cpu");
	fprintf(out, "\n");
	for (const struct anomaly *a = anomalies; a->key; a++)
		if (anomaly(st, a))
			fprintf(out, "%s: %llu (%s)\n", a->label, (unsigned long long)anomaly(st, a),
			       a->what);
}

static int load_machine(const char *name, struct tlbsim_machine **m)
{
	struct tlbsim_error err;

	tlbsim_error_clear(&err);
	if (tlbsim_machine_find(name, m, &err))
		return cli_fail_err(&err);
	/* A tester's finding: with the erratum every OS-mode run under --check
	 * reports incomplete maintenance, and nothing said why. */
	if ((*m)->errata & TLBSIM_ERRATUM_ARM64_1286807)
		fprintf(stderr,
			"tlbsim: warning: %s has Arm erratum 1286807: the OS model's flush policies do "
			"not repeat their TLBIs (Linux ARM64_WORKAROUND_REPEAT_TLBI is not modelled), "
			"so --check reports their broadcasts as incomplete maintenance; a kernel-level "
			"trace repeats them itself (docs/scenarios.md)\n",
			(*m)->name);
	return 0;
}

static int write_json(const char *path, json_t *v)
{
	char *text = json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	int rc;

	if (!text)
		return cli_fail("out of memory");
	rc = cli_write_file(path, text, strlen(text));
	free(text);
	return rc;
}

int cmd_run(int argc, char **argv)
{
	struct tlbsim_machine *m = NULL;
	struct run_opts o;
	json_t *st = NULL;
	int rc = parse(argc, argv, &o, false);

	if (rc == PARSE_HELP)
		return CLI_OK;
	if (rc || (rc = cli_check_output(o.json)) || (rc = load_machine(o.machine, &m)))
		return rc;
	rc = simulate(&o, m, o.policy, NULL, &st);
	tlbsim_machine_free(m);
	if (rc)
		return rc;
	out = table_stream(&o);
	if (!o.quiet) {
		print_run_table(st);
		print_lines(st);
		print_hazards(st, o.json);
	}
	warn_anomalies(st, json_string_value(json_object_get(st, "policy")));
	if (o.json)
		rc = write_json(o.json, st);
	if (!rc && o.check && hazards(st) > 0)
		rc = CLI_HAZARDS;
	json_decref(st);
	if (!rc && cli_interrupted())
		return CLI_INTERRUPTED;
	return rc;
}

/* ---- compare ---------------------------------------------------------------------- */

/* The figures compare prints, and merge's default statistics (the key
 * as cli_stat() takes it). */
const struct cli_metric cli_metrics[] = {
    {"simulated cycles", "cycles"},
    {"busy cycles", "busy_cycles"},
    {"waiting cycles", "waiting_cycles"},
    {"stolen cycles", "stolen_cycles"},
    {"idle cycles", "idle_cycles"},
    {"flushes, local", "flushes_local"},
    {"flushes, IPI", "flushes_ipi"},
    {"flushes, broadcast", "flushes_broadcast"},
    {"flushes, INVLPGB", "flushes_invlpgb"},
    {"flushes, skipped", "flushes_skipped"},
    {"IPIs sent", "ipis_sent"},
    {"TLBI broadcasts received", "tlbi_broadcasts_received"},
    {"INVLPGB received", "invlpgb_received"},
    {"page walks", "walks"},
    {"walk cycles", "walk_cycles"},
    {"page faults", "faults"},
    {"context switches", "context_switches"},
    {"line transfer cycles", "line_transfer_cycles"},
    {"line wait cycles", "line_wait_cycles"},
    {NULL, NULL},
};

const json_t *cli_stat(const json_t *st, const char *name)
{
	const json_t *v = st;
	char part[128];
	const char *p = name, *dot;

	if (!strchr(name, '.')) {
		v = json_object_get(st, name);
		if (json_is_number(v))
			return v;
		v = json_object_get(json_object_get(st, "totals"), name);
		return json_is_number(v) ? v : NULL;
	}
	while ((dot = strchr(p, '.')) && v) {
		snprintf(part, sizeof(part), "%.*s", (int)(dot - p), p);
		v = json_object_get(v, part);
		p = dot + 1;
	}
	v = v ? json_object_get(v, p) : NULL;
	return json_is_number(v) ? v : NULL;
}

static uint64_t metric(json_t *st, const struct cli_metric *mt)
{
	return (uint64_t)json_integer_value(cli_stat(st, mt->key));
}

/* One policy's run for cli_run_policies(). */
struct compare_ctx {
	const struct run_opts *o;
	const struct tlbsim_machine *m;
};

static int compare_one(void *arg, const char *policy, struct cli_progress *p, void **stats)
{
	struct compare_ctx *cx = arg;

	return simulate(cx->o, cx->m, policy, p, (json_t **)stats);
}

/*
 * Which of the @n runs made are ranked against each other in @ranked:
 * runs of the same extent only.  The complete ones, when any run
 * completed: a partial run's figures cover less of the workload.  When
 * none did and compare was not interrupted, every run stopped at the same
 * --max-events or --max-cycles cap, and they are ranked over that part;
 * runs stopped by SIGINT stopped wherever they had got to, and none is
 * ranked.
 */
static void rank_runs(json_t *runs, unsigned n, bool *ranked)
{
	bool any_complete = false;
	unsigned i;

	for (i = 0; i < n; i++)
		any_complete |= !json_is_true(json_object_get(json_array_get(runs, i), "partial"));
	for (i = 0; i < n; i++)
		ranked[i] = any_complete
				? !json_is_true(json_object_get(json_array_get(runs, i), "partial"))
				: !cli_interrupted();
}

/* compare's answer and tables (not under --quiet), on out: the @n runs
 * made of the @n_all policies @names (those after them did not start),
 * @ranked from rank_runs(). */
static void print_compare(const struct run_opts *o, const struct tlbsim_machine *m, json_t *runs,
			  char *const *names, unsigned n, unsigned n_all, const bool *ranked)
{
	unsigned i, k;

	fprintf(out, "tlbsim compare on %s (%s, %u cpus): %s\n", m->name, tlbsim_isa_name(m->isa),
	       m->nr_cpus, o->trace ? o->trace : o->gen);
	for (i = 0; i < n; i++) {
		if (!json_is_true(json_object_get(json_array_get(runs, i), "partial")))
			continue;
		if (!ranked[i])
			fprintf(out, "[partial] %s stopped early (%s): its figures cover only part "
				     "of the workload, and it is not ranked against the others\n",
				names[i],
				cli_interrupted() ? "interrupted" : "--max-events or --max-cycles");
		else
			fprintf(out, "[partial] %s stopped at the --max-events or --max-cycles cap, "
				     "as every run did: ranked over that part of the workload only\n",
				names[i]);
	}
	for (i = n; i < n_all; i++)
		fprintf(out, "[not run] %s: interrupted before it started\n", names[i]);
	cli_compare_answer(out, runs, names, n, ranked);
	fprintf(out, "%-26s", "Key figures (all cpus)");
	for (i = 0; i < n; i++)
		fprintf(out, " %18s %7s", names[i], i ? "ratio" : "");
	fprintf(out, "\n");
	for (k = 0; cli_metrics[k].key; k++) {
		uint64_t base = metric(json_array_get(runs, 0), &cli_metrics[k]);

		fprintf(out, "%-26s", cli_metrics[k].label);
		for (i = 0; i < n; i++) {
			uint64_t v = metric(json_array_get(runs, i), &cli_metrics[k]);

			fprintf(out, " %18llu", (unsigned long long)v);
			if (i && base && ranked[i] && ranked[0])
				fprintf(out, " %7.3f", (double)v / base);
			else
				fprintf(out, " %7s", i ? "-" : "");
		}
		fprintf(out, "\n");
	}
	/* The anomalies, where any run has one. */
	for (const struct anomaly *a = anomalies; a->key; a++) {
		for (i = 0; i < n && !anomaly(json_array_get(runs, i), a); i++)
			;
		if (i == n)
			continue;
		fprintf(out, "%-26s", a->label);
		for (i = 0; i < n; i++)
			fprintf(out, " %18llu %7s",
			       (unsigned long long)anomaly(json_array_get(runs, i), a), "");
		fprintf(out, "\n");
	}
	fprintf(out, "%-26s", "simulated seconds");
	for (i = 0; i < n; i++)
		fprintf(out, " %18.6f %7s", json_real_value(json_object_get(json_array_get(runs, i), "seconds")),
		       "");
	fprintf(out, "\n");
	if (o->check) {
		fprintf(out, "%-26s", "hazards found");
		for (i = 0; i < n; i++) {
			long long hz = hazards(json_array_get(runs, i));

			fprintf(out, " %18lld %7s", hz, "");
		}
		fprintf(out, "\n");
	}
}

int cmd_compare(int argc, char **argv)
{
	struct tlbsim_machine *m = NULL;
	char *names[MAX_POLICIES], *list = NULL, *save = NULL, *tok;
	json_t *runs = json_array();
	bool ranked[MAX_POLICIES];
	unsigned n = 0, n_all, i, k;
	struct run_opts o;
	int hazard_rc = 0;
	int rc = parse(argc, argv, &o, true);

	if (rc == PARSE_HELP) {
		rc = CLI_OK;
		goto out;
	}
	if (rc || (rc = cli_check_output(o.json)) || (rc = cli_check_output(o.plot)) ||
	    (rc = load_machine(o.machine, &m)))
		goto out;
	if (o.plot && !cli_plot_ext_ok(o.plot)) {
		rc = cli_fail("--plot: the file must end in .svg or .png: '%s'", o.plot);
		goto out;
	}
	if (o.policy) {
		list = strdup(o.policy);
	} else {
		/* Every flush policy of the ISA (table-free strategies alone
		 * cannot run). */
		const struct tlbsim_policy *p;
		size_t len = 0;

		list = calloc(1, 1024);
		for (i = 0; list && (p = tlbsim_policy_at(i)); i++)
			if ((p->isa_mask & TLBSIM_ISA_BIT(m->isa)) && p->flush_range)
				len += (size_t)snprintf(list + len, 1024 - len, "%s%s", len ? "," : "",
							p->name);
	}
	for (i = 0, tok = list; tok && *tok; tok++)
		if (*tok == ',' && ++i >= MAX_POLICIES) {
			rc = cli_fail("compare: at most %d policies at a time, found more in '%s'",
				      MAX_POLICIES, list);
			goto out;
		}
	for (tok = list; list && *list && tok; tok = save) {
		size_t off = (size_t)(tok - list);

		save = strchr(tok, ',');
		if (save)
			*save++ = '\0';
		if (!*tok) {
			rc = cli_fail("--policies: empty name at byte %zu of '%s'", off, o.policy);
			goto out;
		}
		for (i = 0; i < n; i++)
			if (!strcmp(names[i], tok)) {
				rc = cli_fail("--policies: '%s' named twice (byte %zu of '%s')", tok,
					      off, o.policy);
				goto out;
			}
		names[n++] = tok;
	}
	if (!n) {
		rc = cli_fail("compare: --policies names no policy");
		goto out;
	}
	/* Every policy must resolve before the first long run starts; of the
	 * default list, those the machine cannot run (x86-invlpgb without
	 * INVLPGB) are left out, saying so. */
	for (i = k = 0; i < n; i++) {
		struct tlbsim_sim_config cfg = {
		    .machine = m, .policy = names[i], .threads = 1, .os_flags = o.os_flags};
		struct tlbsim_error err;
		tlbsim_sim *probe = NULL;

		tlbsim_error_clear(&err);
		if (tlbsim_sim_create(&cfg, &probe, &err)) {
			if (!o.policy && err.code == -TLBSIM_ENOTSUP) {
				fprintf(stderr, "tlbsim: compare: %s left out: %s\n", names[i],
					err.text);
				continue;
			}
			rc = cli_fail_err(&err);
			goto out;
		}
		tlbsim_sim_destroy(probe);
		names[k++] = names[i];
	}
	n = k;
	/* The trace must open and fit the machine before anything runs, too:
	 * one error, not one for each policy's run. */
	if (o.trace && strcmp(o.trace, "-") && access(o.trace, R_OK)) {
		rc = cli_fail("%s: cannot read: %s", o.trace, strerror(errno));
		goto out;
	}
	if (o.trace && strcmp(o.trace, "-")) {
		struct tlbsim_trace_opts topts = o.topts;
		struct cli_source src;

		if (!topts.isa)
			topts.isa = m->isa;
		rc = cli_source_open_trace(&src, o.trace, &topts);
		if (rc)
			goto out;
		rc = trace_fits(o.trace, m, tlbsim_trace_info(src.trace));
		cli_source_close(&src);
		if (rc)
			goto out;
	}
	{
		struct compare_ctx cx = {.o = &o, .m = m};
		void *st[16];
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		unsigned jobs = o.jobs ? (unsigned)o.jobs
				       : (unsigned)(cpus > o.threads ? cpus / o.threads : 1);
		struct stat sb;

		rc = cli_run_policies(names, n, jobs, o.quiet,
				      o.trace && !stat(o.trace, &sb) ? (uint64_t)sb.st_size : 0,
				      compare_one, &cx, st);
		/* the runs made are the first ones (an interrupt starts no more) */
		for (i = 0; i < n; i++)
			if (st[i] && !rc) {
				warn_anomalies(st[i], names[i]);
				json_array_append_new(runs, st[i]);
			} else {
				json_decref(st[i]);
			}
		if (rc)
			goto out;
	}
	n_all = n;
	n = (unsigned)json_array_size(runs);
	rank_runs(runs, n, ranked);
	out = table_stream(&o);
	if (!o.quiet)
		print_compare(&o, m, runs, names, n, n_all, ranked);
	for (i = 0; o.check && i < n; i++)
		if (hazards(json_array_get(runs, i)) > 0)
			hazard_rc = CLI_HAZARDS;
	if (o.json && (rc = write_json(o.json, runs)))
		goto out;
	if (o.plot && (rc = cli_compare_plot(o.plot, runs, names, n, ranked, m->name)))
		goto out;
	if (cli_interrupted())
		rc = CLI_INTERRUPTED;
	else
		rc = hazard_rc;
out:
	free(list);
	json_decref(runs);
	tlbsim_machine_free(m);
	return rc;
}
