/* SPDX-License-Identifier: MIT */
/*
 * tlbsim gen: write a generator's events to a trace file (or standard
 * output as text).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static const char gen_help[] =
    "usage: tlbsim gen NAME [--param K=V,...] [--template FILE] [--isa x86-64|arm64]\n"
    "                  [--format text|binary] [--compress none|zstd|xz] [--quiet] -o FILE\n\n"
    "Writes the events of generator NAME ('tlbsim list generators' shows them and\n"
    "their parameters) to FILE, atomically.  The same parameters (seed included)\n"
    "give the same file.  FILE's name says the format and compression unless\n"
    "--format and --compress say otherwise (a warning if they contradict it): a\n"
    "trailing .zst or .xz the compression, .txt (before it, or alone) text; else\n"
    "binary, zstd-compressed.  -o - writes a text trace to standard output\n"
    "(uncompressed), which 'tlbsim run ... -' reads from standard input.  A\n"
    "terminal shows a progress line (events, the rate) unless --quiet.\n"
    "--template FILE: the process template of a generator that runs one (spawn).\n\n"
    "example: tlbsim gen mprotect-toggle --param procs=2,loops=10 -o t.tlbt\n";

int cmd_gen(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"param", required_argument, NULL, 'k'},  {"isa", required_argument, NULL, 'i'},
	    {"format", required_argument, NULL, 'f'}, {"compress", required_argument, NULL, 'c'},
	    {"output", required_argument, NULL, 'o'}, {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},	      {"template", required_argument, NULL, 'T'},
	    {NULL, 0, NULL, 0},
	};
	const char *params = NULL, *out = NULL, *format = NULL, *compress = NULL, *tpl = NULL;
	struct cli_source src;
	enum tlbsim_isa isa = TLBSIM_ISA_X86_64;
	struct tlbsim_trace_info info;
	tlbsim_trace_writer *w = NULL;
	struct tlbsim_error err;
	struct tlbsim_event ev;
	enum tlbsim_trace_format fmt;
	enum tlbsim_trace_compression comp;
	tlbsim_gen *g = NULL;
	struct rep_progress meter;
	bool quiet = false;
	uint64_t n = 0;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'k':
			params = optarg;
			break;
		case 'i':
			if (!strcmp(optarg, "x86-64"))
				isa = TLBSIM_ISA_X86_64;
			else if (!strcmp(optarg, "arm64"))
				isa = TLBSIM_ISA_ARM64;
			else
				return cli_fail("gen: --isa expects x86-64 or arm64, found '%s'", optarg);
			break;
		case 'f':
			format = optarg;
			break;
		case 'c':
			compress = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'T':
			tpl = optarg;
			break;
		case 'h':
			fputs(gen_help, stdout);
			return CLI_OK;
		default:
			return cli_fail("gen: unknown or incomplete option '%s' (see --help)",
					argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return cli_fail("gen: give one generator NAME (see 'tlbsim list generators')");
	if (!out)
		return cli_fail("gen: -o FILE is required");
	if (cli_parse_output("--format", format, compress, out, &fmt, &comp))
		return CLI_USAGE;
	if (cli_source_open_gen(&src, argv[optind], params, isa, tpl))
		return CLI_USAGE;
	g = src.gen;
	tlbsim_error_clear(&err);
	memset(&info, 0, sizeof(info));
	info.isa = isa;
	info.page_shift = 12;
	snprintf(info.source, sizeof(info.source), "tlbsim gen %s%s%s", argv[optind],
		 params ? " " : "", params ? params : "");
	if (cli_trace_writer_open(out, fmt, comp, &info, &w)) {
		cli_source_close(&src);
		return CLI_USAGE;
	}
	/* Ctrl-C or SIGTERM: the temporary file goes, FILE stays as it was. */
	cli_catch_sigint(NULL);
	rep_progress_start(&meter, argv[optind], quiet);
	while (tlbsim_gen_next(g, &ev, NULL) > 0) {
		if (n && (n & 0xffff) == 0 && meter.on)
			rep_progress_update(&meter, n, 0, -1, -1);
		if ((n & 0xfff) == 0 && cli_interrupted()) {
			rep_progress_end(&meter);
			tlbsim_trace_writer_abort(w);
			cli_source_close(&src);
			if (strcmp(out, "-"))
				fprintf(stderr, "tlbsim: gen interrupted: %s left as it was\n",
					out);
			else
				fprintf(stderr, "tlbsim: gen interrupted: the trace on standard "
						"output is cut short\n");
			return CLI_INTERRUPTED;
		}
		if (tlbsim_trace_writer_write(w, &ev, &err)) {
			rep_progress_end(&meter);
			tlbsim_trace_writer_abort(w);
			cli_source_close(&src);
			return cli_fail_err(&err);
		}
		n++;
	}
	rep_progress_end(&meter);
	cli_source_close(&src);
	if (tlbsim_trace_writer_close(w, &err))
		return cli_fail_err(&err);
	if (strcmp(out, "-"))
		fprintf(stderr, "%s: %llu events\n", out, (unsigned long long)n);
	return CLI_OK;
}
