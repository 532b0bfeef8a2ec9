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
	const char *trace;
	const char *plot;
	int threads;
	int jobs; /* compare: simulations at once, 0 = as many as the host's cpus allow */
	uint64_t max_events, max_cycles;
	bool quiet;
	bool check;
	bool kernel;
	struct tlbsim_trace_opts topts;
};

static const char run_help[] =
	"usage: tlbsim run --machine M [--policy P] [--threads N] [--json OUT] [--check] [--kernel]\n"
	"                  [--max-events N] [--max-cycles N] [--quiet] TRACE | --gen NAME [--param K=V,...]\n"
	"                  [--format F] [--isa x86-64|arm64] [--linear-map ADDR]\n\n"
	"Simulates TRACE (any format tlbsim reads, compressed or not) or a generator's\n"
	"events on machine M (a name from 'tlbsim list machines' or a JSON path) under\n"
	"flush policy P ('tlbsim list policies'; 'a+b' composes a table-free strategy;\n"
	"default: the ISA's stock policy).  Prints a table per cpu and in total, and\n"
	"writes every statistic as JSON to OUT (schema: docs/stats-schema.md).\n"
	"--threads runs the cores on N host threads; results do not depend on N (on a\n"
	"busy host, set OMP_WAIT_POLICY=passive so that waiting threads do not spin).\n"
	"--max-events/--max-cycles stop early (0: no limit); the statistics are then marked\n"
	"partial.\n"
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
	"--format names TRACE's format when it has no magic (execlog, champsim);\n"
	"--isa and --linear-map (kernel VA = PA + ADDR) are for instruction traces\n"
	"(execlog: the ISA defaults to the machine's).\n\n"
	"example: tlbsim run --machine emag-32 --policy arm64-nr-active-mm \\\n"
	"             --gen mprotect-toggle --param procs=4,loops=100 --json out.json\n";

static const char compare_help[] =
	"usage: tlbsim compare --machine M --policies P1,P2,... [--threads N] [--jobs N] [--json OUT]\n"
	"                      [--check] [--max-events N] [--max-cycles N] [--plot FILE.svg|FILE.png]\n"
	"                      TRACE | --gen NAME [--param K=V,...]\n\n"
	"Runs the same workload under each policy.  First the answer: which policy spends\n"
	"the fewest cycles on TLB coherence (IPIs sent, IPI handlers, broadcasts\n"
	"received, waiting for acknowledgements, DSB or TLBSYNC, local flushes and\n"
	"TLBI/INVLPGB issue, walks after flushes, mmap_lock waits while the holder\n"
	"flushes), how many times fewer than each other, where each spends them and the\n"
	"run times; then those cycles by kind, and the key figures side by side with the\n"
	"ratio of each to the first policy's.  --json writes every run's statistics as one\n"
	"JSON array (idle time included); --plot draws the coherence cycles by kind per\n"
	"policy and the run times with gnuplot.  Without --policies, every policy of the\n"
	"machine's ISA is run.\n"
	"The runs are independent simulations: --jobs N runs N at once on host threads\n"
	"(default: the host's cpus divided by --threads), with the same results as one\n"
	"at a time; a terminal shows a progress line per policy.\n\n"
	"example: tlbsim compare --machine milan-36 --policies x86-stock,x86-invlpgb \\\n"
	"             traces/samples/shell-loop.tlbt.xz\n";

enum { OPT_MAX_EVENTS = 256, OPT_MAX_CYCLES, OPT_QUIET, OPT_CHECK, OPT_KERNEL, OPT_FORMAT, OPT_ISA,
       OPT_LINEAR_MAP, OPT_JOBS };

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
		{"plot", required_argument, NULL, 'o'},
		{"max-events", required_argument, NULL, OPT_MAX_EVENTS},
		{"max-cycles", required_argument, NULL, OPT_MAX_CYCLES},
		{"quiet", no_argument, NULL, OPT_QUIET},
		{"check", no_argument, NULL, OPT_CHECK},
		{"kernel", no_argument, NULL, OPT_KERNEL},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"isa", required_argument, NULL, OPT_ISA},
		{"linear-map", required_argument, NULL, OPT_LINEAR_MAP},
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
			o->machine = optarg;
			break;
		case 'p':
		case 'P':
			if ((c == 'P') != compare)
				return cli_fail("%s: unknown option '%s' (see --help)", argv[0],
						argv[optind - 1]);
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
			exit(CLI_OK);
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
		      : cli_source_open_gen(&src, o->gen, o->params, m->isa);
	if (rc)
		return rc;
	if (report) {
		src.report = report;
		src.progress = false;
	}
	if (o->trace) {
		const struct tlbsim_trace_info *info = tlbsim_trace_info(src.trace);

		if (info->isa != m->isa) {
			enum tlbsim_isa isa = info->isa;

			cli_source_close(&src);
			return cli_fail("%s: the trace is %s but machine %s is %s (a user-level "
					"trace, a recording's or a generator's, can be replayed on "
					"it after 'tlbsim convert --retarget %s IN OUT')",
					o->trace, tlbsim_isa_name(isa), m->name,
					tlbsim_isa_name(m->isa), tlbsim_isa_name(m->isa));
		}
	}
	if (o->trace && (o->kernel || tlbsim_trace_info(src.trace)->format == TLBSIM_TRACE_EXECLOG ||
			 tlbsim_trace_info(src.trace)->format == TLBSIM_TRACE_INSN)) {
		struct tlbsim_replay_config rcfg = {.machine = m, .ordered = 1, .check = o->check,
						    .max_events = o->max_events, .name = o->trace};

		tlbsim_error_clear(&err);
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
	cfg.check = o->check;
	cfg.name = o->trace ? o->trace : o->gen;
	tlbsim_error_clear(&err);
	if (tlbsim_sim_create(&cfg, &sim, &err)) {
		cli_source_close(&src);
		return cli_fail_err(&err);
	}
	cli_sigint_add(sim);
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

static uint64_t u(json_t *o, const char *key)
{
	return (uint64_t)json_integer_value(json_object_get(o, key));
}

static double pct(uint64_t hit, uint64_t miss)
{
	return hit + miss ? 100.0 * hit / (hit + miss) : 0.0;
}

static double pwc_rate(json_t *mmu)
{
	json_t *pwc = json_object_get(mmu, "pwc"), *l;
	uint64_t h = 0, m = 0;
	size_t i;

	json_array_foreach(pwc, i, l) {
		h += u(l, "hits");
		m += u(l, "misses");
	}
	return pct(h, m);
}

static void row(json_t *c, const char *label, json_t *mmu_src, const char *haz)
{
	json_t *mmu = mmu_src ? json_object_get(mmu_src, "mmu") : NULL;
	double l1 = pct(u(c, "tlb_l1d_hits") + u(c, "tlb_l1i_hits"),
			u(c, "tlb_l1d_misses") + u(c, "tlb_l1i_misses"));
	double l2 = pct(u(c, "tlb_l2_hits"), u(c, "tlb_l2_misses"));

	printf("%-5s %14llu %11llu %6.2f %6.2f ", label, (unsigned long long)u(c, "cycles"),
	       (unsigned long long)u(c, "events"), l1, l2);
	if (mmu)
		printf("%6.2f ", pwc_rate(mmu));
	else
		printf("%6s ", "-");
	printf("%9llu %7llu %6llu/%llu/%llu/%llu/%llu %8llu %8llu %8llu %12llu %12llu %3s\n",
	       (unsigned long long)u(c, "walks"), (unsigned long long)u(c, "faults"),
	       (unsigned long long)u(c, "flushes_local"), (unsigned long long)u(c, "flushes_ipi"),
	       (unsigned long long)u(c, "flushes_broadcast"),
	       (unsigned long long)u(c, "flushes_invlpgb"),
	       (unsigned long long)u(c, "flushes_skipped"), (unsigned long long)u(c, "ipis_sent"),
	       (unsigned long long)u(c, "ipis_received"),
	       (unsigned long long)u(c, "tlbi_broadcasts_received"),
	       (unsigned long long)u(c, "stolen_cycles"), (unsigned long long)u(c, "waiting_cycles"),
	       haz);
}

/* Hazards found, or -1 when the run was not checked. */
static long long hazards(json_t *st)
{
	json_t *h = json_object_get(st, "hazards");

	if (!json_is_true(json_object_get(h, "checked")))
		return -1;
	return (long long)u(h, "total");
}

/* The oracle's findings: counts by kind and the first reports. */
static void print_hazards(json_t *st)
{
	json_t *h = json_object_get(st, "hazards"), *r;
	const char *k;
	json_t *v;
	size_t i;

	if (hazards(st) < 0)
		return;
	printf("hazards: %lld", hazards(st));
	json_object_foreach(json_object_get(h, "by_kind"), k, v)
		if (json_integer_value(v))
			printf(", %s %lld", k, (long long)json_integer_value(v));
	printf("\n");
	json_array_foreach(json_object_get(h, "reports"), i, r) {
		if (i == 10) {
			printf("  ... (all in the JSON's \"hazards\".\"reports\")\n");
			break;
		}
		printf("  %s: event %lld, cpu %lld, cycle %lld, mm %lld asid %lld, va %s, frame %s: %s\n",
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

static void print_run_table(json_t *st)
{
	json_t *cpus = json_object_get(st, "per_cpu"), *c, *tot = json_object_get(st, "totals");
	size_t i;
	char label[24];

	printf("%s on %s (%s, %llu cpus), policy %s%s\n", "tlbsim run",
	       json_string_value(json_object_get(st, "machine")),
	       json_string_value(json_object_get(st, "isa")),
	       (unsigned long long)u(st, "cpus"), json_string_value(json_object_get(st, "policy")),
	       json_is_true(json_object_get(st, "partial")) ? " [partial]" : "");
	printf("%-5s %14s %11s %6s %6s %6s %9s %7s %18s %8s %8s %8s %12s %12s %3s\n", "cpu",
	       "cycles", "events", "L1%", "L2%", "PWC%", "walks", "faults", "flush l/i/b/g/s",
	       "IPIs-out", "IPIs-in", "bcast-in", "stolen", "waiting", "haz");
	json_array_foreach(cpus, i, c) {
		snprintf(label, sizeof(label), "%zu", i);
		row(c, label, c, "");
	}
	json_object_set_new(tot, "cycles", json_integer((json_int_t)u(st, "cycles")));
	if (hazards(st) >= 0)
		snprintf(label, sizeof(label), "%lld", hazards(st));
	else
		snprintf(label, sizeof(label), "-");
	row(tot, "total", NULL, label);
	printf("simulated time %.6f s (%llu cycles at %.2f GHz), %llu events\n",
	       json_real_value(json_object_get(st, "seconds")), (unsigned long long)u(st, "cycles"),
	       json_real_value(json_object_get(st, "freq_ghz")),
	       (unsigned long long)u(st, "events_read"));
	print_hazards(st);
}

static int load_machine(const char *name, struct tlbsim_machine **m)
{
	struct tlbsim_error err;

	tlbsim_error_clear(&err);
	if (tlbsim_machine_find(name, m, &err))
		return cli_fail_err(&err);
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

	if (rc || (rc = cli_check_output(o.json)) || (rc = load_machine(o.machine, &m)))
		return rc;
	rc = simulate(&o, m, o.policy, NULL, &st);
	tlbsim_machine_free(m);
	if (rc)
		return rc;
	if (!o.quiet)
		print_run_table(st);
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

struct metric {
	const char *label;
	const char *key; /* in "totals", or NULL for the top level */
	bool top;
};

static const struct metric metrics[] = {
	{"simulated cycles", "cycles", true},
	{"busy cycles", "busy_cycles", false},
	{"waiting cycles", "waiting_cycles", false},
	{"stolen cycles", "stolen_cycles", false},
	{"idle cycles", "idle_cycles", false},
	{"flushes, local", "flushes_local", false},
	{"flushes, IPI", "flushes_ipi", false},
	{"flushes, broadcast", "flushes_broadcast", false},
	{"flushes, INVLPGB", "flushes_invlpgb", false},
	{"flushes, skipped", "flushes_skipped", false},
	{"IPIs sent", "ipis_sent", false},
	{"TLBI broadcasts received", "tlbi_broadcasts_received", false},
	{"INVLPGB received", "invlpgb_received", false},
	{"page walks", "walks", false},
	{"walk cycles", "walk_cycles", false},
	{"page faults", "faults", false},
	{"context switches", "context_switches", false},
};

static uint64_t metric(json_t *st, const struct metric *mt)
{
	return mt->top ? u(st, mt->key) : u(json_object_get(st, "totals"), mt->key);
}

/* A chart is drawn as SVG or PNG, chosen by the file's extension. */
static bool plot_ext_ok(const char *path)
{
	const char *ext = strrchr(path, '.');

	return ext && (!strcmp(ext, ".svg") || !strcmp(ext, ".png"));
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

int cmd_compare(int argc, char **argv)
{
	struct tlbsim_machine *m = NULL;
	char *names[16], *list = NULL, *save = NULL, *tok;
	json_t *runs = json_array();
	unsigned n = 0, i, k;
	struct run_opts o;
	int hazard_rc = 0;
	int rc = parse(argc, argv, &o, true);

	if (rc || (rc = cli_check_output(o.json)) || (rc = cli_check_output(o.plot)) ||
	    (rc = load_machine(o.machine, &m)))
		goto out;
	if (o.plot && !plot_ext_ok(o.plot)) {
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
	for (tok = strtok_r(list, ",", &save); tok && n < 16; tok = strtok_r(NULL, ",", &save))
		names[n++] = tok;
	if (!n) {
		rc = cli_fail("compare: --policies names no policy");
		goto out;
	}
	/* Every policy must resolve before the first long run starts. */
	for (i = 0; i < n; i++) {
		struct tlbsim_sim_config cfg = {.machine = m, .policy = names[i], .threads = 1};
		struct tlbsim_error err;
		tlbsim_sim *probe = NULL;

		tlbsim_error_clear(&err);
		if (tlbsim_sim_create(&cfg, &probe, &err)) {
			rc = cli_fail_err(&err);
			goto out;
		}
		tlbsim_sim_destroy(probe);
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
			if (st[i] && !rc)
				json_array_append_new(runs, st[i]);
			else
				json_decref(st[i]);
		if (rc)
			goto out;
	}
	n = (unsigned)json_array_size(runs);
	printf("tlbsim compare on %s (%s, %u cpus): %s\n", m->name, tlbsim_isa_name(m->isa),
	       m->nr_cpus, o.trace ? o.trace : o.gen);
	for (i = 0; i < n; i++)
		if (json_is_true(json_object_get(json_array_get(runs, i), "partial")))
			printf("[partial] %s stopped early (--max-events, --max-cycles or "
			       "interrupted): its figures cover only part of the workload\n",
			       names[i]);
	cli_compare_answer(stdout, runs, names, n);
	printf("%-26s", "Key figures (all cpus)");
	for (i = 0; i < n; i++)
		printf(" %18s %7s", names[i], i ? "ratio" : "");
	printf("\n");
	for (k = 0; k < sizeof(metrics) / sizeof(metrics[0]); k++) {
		uint64_t base = metric(json_array_get(runs, 0), &metrics[k]);

		printf("%-26s", metrics[k].label);
		for (i = 0; i < n; i++) {
			uint64_t v = metric(json_array_get(runs, i), &metrics[k]);

			printf(" %18llu", (unsigned long long)v);
			if (i && base)
				printf(" %7.3f", (double)v / base);
			else
				printf(" %7s", i ? "-" : "");
		}
		printf("\n");
	}
	printf("%-26s", "simulated seconds");
	for (i = 0; i < n; i++)
		printf(" %18.6f %7s", json_real_value(json_object_get(json_array_get(runs, i), "seconds")),
		       "");
	printf("\n");
	if (o.check) {
		bool any = false;

		printf("%-26s", "hazards found");
		for (i = 0; i < n; i++) {
			long long hz = hazards(json_array_get(runs, i));

			printf(" %18lld %7s", hz, "");
			any |= hz > 0;
		}
		printf("\n");
		if (any)
			hazard_rc = CLI_HAZARDS;
	}
	if (o.json && (rc = write_json(o.json, runs)))
		goto out;
	if (o.plot && (rc = cli_compare_plot(o.plot, runs, names, n, m->name)))
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
