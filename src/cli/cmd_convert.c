/* SPDX-License-Identifier: MIT */
/*
 * tlbsim convert: any trace tlbsim reads (text, binary, a valgrind lackey
 * log, a ChampSim trace; compressed or not) into tlbsim's text or binary
 * format, written atomically (temporary file, then rename).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

static const char convert_help[] =
    "usage: tlbsim convert IN OUT [--from|--format FORMAT] [--to text|binary]\n"
    "                      [--compress zstd|xz|none] [--isa x86-64|arm64] [--linear-map ADDR]\n"
    "                      [--retarget x86-64|arm64] [--quiet]\n\n"
    "Reads IN (\"-\" for standard input) and writes its events to OUT in tlbsim's\n"
    "binary format (default) or text format (traces/FORMAT.md).  IN's format and\n"
    "compression are recognised by their first bytes: text, binary, lackey\n"
    "(valgrind --tool=lackey --trace-mem=yes --trace-syscalls=yes --trace-sched=yes\n"
    "logs), insn (tlbsim-insn instruction lines); ChampSim traces need --from\n"
    "champsim, QEMU execlog output is recognised but needs --isa (Capstone decodes\n"
    "the instructions; --linear-map ADDR makes stores to kernel VA ADDR + PA\n"
    "phys_store events).\n"
    "OUT's name says the format and compression unless --to and --compress say\n"
    "otherwise (a warning if they contradict it): a trailing .zst or .xz the\n"
    "compression, .txt (before it, or alone) text; else binary, zstd-compressed.\n"
    "OUT \"-\" is standard output, text unless --to binary (then not a terminal).\n"
    "OUT is written to OUT.tmp.XXXXXX and renamed when complete: an error or\n"
    "Ctrl-C leaves OUT as it was.  Prints the events by kind, the input lines\n"
    "skipped as unknown and the mmaps implied for memory the input never maps\n"
    "(on stderr when OUT is \"-\").  A terminal shows a progress line (events, how\n"
    "far into IN, the rate) unless --quiet.\n"
    "--retarget ISA writes OUT as a trace of ISA: a user-level trace (a recording, a\n"
    "generator's: accesses, threads, processes, memory syscalls) means the same to\n"
    "the OS model on either ISA, which then flushes as ISA's policies do; so an\n"
    "x86-64 recording retargeted to arm64 compares the arm64 policies on an arm64\n"
    "machine (tlbsim run and compare refuse a trace of another ISA than the\n"
    "machine's).  Kernel-level events (INVLPG, TLBI, CR3 writes ...) are\n"
    "instructions of the source ISA: a trace with one is refused at it.  The page\n"
    "size stays; x86-64 user addresses fit arm64's 48-bit user space.\n\n"
    "exit status: 0 success, 2 usage or input error, 130 interrupted\n\n"
    "example: tlbsim convert --from champsim 600.perlbench_s-210B.champsimtrace.xz \\\n"
    "             perlbench.tlbt.zst\n"
    "         tlbsim convert --retarget arm64 traces/samples/shell-loop.tlbt.xz \\\n"
    "             shell-loop-arm64.tlbt.zst\n";

int cmd_convert(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"from", required_argument, NULL, 'f'},
	    {"to", required_argument, NULL, 't'},
	    {"compress", required_argument, NULL, 'c'},
	    {"format", required_argument, NULL, 'f'},
	    {"isa", required_argument, NULL, 'i'},
	    {"linear-map", required_argument, NULL, 'l'},
	    {"retarget", required_argument, NULL, 'r'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct tlbsim_trace_opts topts = {0};
	enum tlbsim_isa retarget = 0;
	enum tlbsim_trace_format to;
	enum tlbsim_trace_compression compression;
	const char *to_name = NULL, *compress = NULL, *in, *out;
	struct tlbsim_trace_info info;
	struct tlbsim_error err;
	struct cli_copy copy;
	tlbsim_trace_reader *r = NULL;
	tlbsim_trace_writer *w = NULL;
	FILE *summary;
	bool quiet = false;
	struct stat sb;
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
		case 'i':
		case 'l':
			if (cli_trace_opt("convert", c == 'f' ? "format" : c == 'i' ? "isa" : "linear-map",
					  optarg, &topts))
				return CLI_USAGE;
			break;
		case 't':
			to_name = optarg;
			break;
		case 'r':
			if (!strcmp(optarg, "x86-64"))
				retarget = TLBSIM_ISA_X86_64;
			else if (!strcmp(optarg, "arm64"))
				retarget = TLBSIM_ISA_ARM64;
			else
				return cli_fail(
				    "convert: --retarget expects x86-64 or arm64, found '%s'",
				    optarg);
			break;
		case 'c':
			compress = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			fputs(convert_help, stdout);
			return CLI_OK;
		default:
			return cli_fail("convert: unknown or incomplete option '%s' (see --help)",
					argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return cli_fail("convert: IN and OUT expected (see --help)");
	in = argv[optind];
	out = argv[optind + 1];
	if ((rc = cli_parse_output("--to", to_name, compress, out, &to, &compression)))
		return rc;
	/* The trace on standard output: what is said of it goes to stderr. */
	summary = strcmp(out, "-") ? stdout : stderr;

	tlbsim_error_clear(&err);
	rc = strcmp(in, "-") ? tlbsim_trace_open_opts(in, NULL, NULL, &topts, &r, &err)
			     : tlbsim_trace_open_opts(NULL, stdin, "<stdin>", &topts, &r, &err);
	if (rc)
		return cli_fail_err(&err);
	info = *tlbsim_trace_info(r);
	if (retarget)
		info.isa = retarget;
	if (cli_trace_writer_open(out, to, compression, &info, &w)) {
		tlbsim_trace_close(r);
		return CLI_USAGE;
	}
	cli_catch_sigint(NULL);
	memset(&copy, 0, sizeof(copy));
	copy.what = in;
	copy.quiet = quiet;
	if (strcmp(in, "-") && !stat(in, &sb) && S_ISREG(sb.st_mode))
		copy.in_size = (uint64_t)sb.st_size;
	copy.stop_on_interrupt = true;
	copy.user_only = retarget != 0;
	rc = cli_copy_events(r, w, &copy);
	if (rc < 0) {
		tlbsim_trace_writer_abort(w);
		tlbsim_trace_close(r);
		if (rc == -TLBSIM_EINTR || cli_interrupted()) {
			fprintf(stderr, "tlbsim: convert interrupted: %s left as it was\n", out);
			return CLI_INTERRUPTED;
		}
		return cli_fail_err(&copy.err);
	}
	if (tlbsim_trace_writer_close(w, &err)) {
		tlbsim_trace_close(r);
		return cli_fail_err(&err);
	}
	fprintf(summary, "%s (%s) -> %s (%s, %s)\n", in, tlbsim_trace_format_name(info.format), out,
		tlbsim_trace_format_name(to), cli_compression_name(compression));
	cli_print_summary(summary, &copy, r, out);
	tlbsim_trace_close(r);
	return CLI_OK;
}
