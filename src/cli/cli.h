/* SPDX-License-Identifier: MIT */
/* The tlbsim command: shared pieces of its subcommands. */
#ifndef TLBSIM_CLI_H
#define TLBSIM_CLI_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "report/progress.h"
#include "tlbsim/tlbsim.h"
#include "tlbsim/trace.h"

/* Exit statuses (documented in every --help). */
enum {
	CLI_OK = 0,
	CLI_HAZARDS = 1, /* the simulation found hazards and --check asked to fail */
	CLI_USAGE = 2,	 /* bad usage or bad input */
	CLI_INTERRUPTED = 130,
};

struct cli_cmd {
	const char *name;
	const char *summary;
	int (*main)(int argc, char **argv);
};

extern const struct cli_cmd cli_cmds[];

/* Print "tlbsim: " + message to stderr; returns CLI_USAGE. */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print a filled error report as "source:line:col: text"; returns CLI_USAGE. */
int cli_fail_err(const struct tlbsim_error *err);

/*
 * cli_fail_err() for an error of a run on the events of the trace file
 * @path (NULL: a generator's), read with @opts: one that names an event of
 * the trace (the OS model's, the kernel-level replayer's) is first filed at
 * the event's line or byte offset, tlbsim_trace_locate() reading the file
 * again up to it.  Standard input ("-") cannot be read again: its errors
 * keep the event index alone, as do a generator's.  Returns CLI_USAGE.
 */
int cli_fail_run_err(struct tlbsim_error *err, const char *path,
		     const struct tlbsim_trace_opts *opts);

/*
 * Write @len bytes of @data to @path atomically: into a temporary file in
 * the same directory, then renamed over @path, so an interrupted run never
 * leaves a half-written file.  "-" writes to standard output.  Returns 0 or
 * CLI_USAGE after printing why.
 */
int cli_write_file(const char *path, const char *data, size_t len);

/* 0 if @path's directory is writable, else CLI_USAGE after printing why. */
int cli_check_output(const char *path);

/* How far a run has got, read by another thread (compare's progress lines). */
struct cli_progress {
	_Atomic uint64_t events;
	_Atomic uint64_t bytes;	 /* of the trace file read (compressed), 0 for a generator */
	_Atomic uint64_t sim_ns; /* simulated time so far, nanoseconds */
};

/* The event source of a run: a trace file or a generator. */
struct cli_source {
	tlbsim_trace_reader *trace;
	tlbsim_gen *gen;
	tlbsim_template *tpl; /* the generator's process template, if any */
	const char *what; /* for messages */
	uint64_t events;
	uint64_t size;	  /* the trace file's bytes, 0 if unknown (a pipe, a generator) */
	struct rep_progress meter;   /* the progress line (report/progress.h), off until asked */
	const tlbsim_sim *sim;	     /* whose simulated time the line shows, or NULL */
	struct cli_progress *report; /* updated every 65536 events, or NULL */
};

/*
 * The progress line of @s's run on a terminal, unless @quiet: events, the
 * fraction of a trace file read, the simulated time of @sim (may be NULL),
 * the rate.  Updated as events are read (the serial phase: the cpus
 * stand still).
 */
void cli_source_progress(struct cli_source *s, bool quiet, const tlbsim_sim *sim);
/* The fraction of @s's trace file read (compressed bytes), or -1 if unknown. */
double cli_source_fraction(const struct cli_source *s);
/* The simulated seconds of @sim so far, or -1 without one. */
double cli_sim_seconds(const tlbsim_sim *sim);

/* Open the trace at @path with @opts (format, ISA, linear map); 0, or CLI_USAGE after printing why. */
int cli_source_open_trace(struct cli_source *s, const char *path,
			  const struct tlbsim_trace_opts *opts);
/*
 * The reader options shared by run, compare and convert: --format NAME,
 * --isa x86-64|arm64, --linear-map ADDR (@opt without the dashes) into @o.
 * 0, or CLI_USAGE after printing why.
 */
int cli_trace_opt(const char *cmd, const char *opt, const char *arg, struct tlbsim_trace_opts *o);
/* Start generator @name with "k=v,..." @params, and the process template
 * loaded from @tpl if not NULL (--template); as above. */
int cli_source_open_gen(struct cli_source *s, const char *name, const char *params,
			enum tlbsim_isa isa, const char *tpl);
/* A tlbsim_event_source_fn over a cli_source: cli_source_next_batch() of one. */
int cli_source_next(void *arg, struct tlbsim_event *ev, struct tlbsim_error *err);
/* A tlbsim_event_batch_fn over a cli_source (tlbsim_sim_run_batch()). */
int cli_source_next_batch(void *arg, struct tlbsim_event *ev, size_t max, struct tlbsim_error *err);
void cli_source_close(struct cli_source *s);

/*
 * The format and compression of a trace to be written to @path ("-":
 * standard output), for the commands that write traces: from @to, the
 * value of option @opt (convert's and record's --to, gen's --format:
 * "text" or "binary"), and @compress (--compress: zstd, xz, none), each
 * NULL when not given; else from @path's name: a trailing .zst or .xz is
 * the compression, a .txt before it (or alone: uncompressed) text; else
 * binary, zstd-compressed, and on "-" text, uncompressed.  An option the
 * name contradicts wins, with a warning on stderr; a .gz or .bz2 name is
 * an error (tlbsim writes neither).  0, or CLI_USAGE after printing why.
 */
int cli_parse_output(const char *opt, const char *to, const char *compress, const char *path,
		     enum tlbsim_trace_format *format, enum tlbsim_trace_compression *compression);
/* "zstd", "xz" or "uncompressed". */
const char *cli_compression_name(enum tlbsim_trace_compression c);
/*
 * tlbsim_trace_writer_open() of @path, or on "-" the stream writer on
 * standard output (a binary or compressed trace refused on a terminal).
 * 0, or CLI_USAGE after printing why.
 */
int cli_trace_writer_open(const char *path, enum tlbsim_trace_format format,
			  enum tlbsim_trace_compression compression,
			  const struct tlbsim_trace_info *info, tlbsim_trace_writer **w);

/* Copying a trace's events into a writer (convert, record). */
struct cli_copy {
	const char *what;	/* for progress */
	bool quiet;		/* no progress line (--quiet) */
	uint64_t in_size;	/* the reader's file's bytes, 0 if unknown: the line's fraction */
	bool stop_on_interrupt; /* stop at SIGINT (convert); record drains its pipe instead */
	bool user_only;		/* refuse kernel-level events (convert --retarget) */
	uint64_t events;
	uint64_t by_kind[TLBSIM_EV_NR_KINDS];
	double seconds;
	bool write_failed; /* the error in @err is the writer's */
	struct tlbsim_error err;
};

/*
 * Copy until the reader ends: 0 at its clean end, -TLBSIM_EINTR when
 * interrupted (with @c->stop_on_interrupt), -TLBSIM_EINVAL at a
 * kernel-level event (with @c->user_only), or the negative code of the
 * reader's or writer's error (in @c->err).
 */
int cli_copy_events(tlbsim_trace_reader *r, tlbsim_trace_writer *w, struct cli_copy *c);
/* Events by kind, unknown lines, implied mmaps, and @path's size. */
void cli_print_summary(FILE *f, const struct cli_copy *c, const tlbsim_trace_reader *r,
		       const char *path);

/* What rec_merge() did (tlbsim record's summary). */
struct rec_merge_stats {
	uint64_t events;
	uint64_t by_kind[TLBSIM_EV_NR_KINDS];
	uint64_t insns;		  /* guest instructions: fetches, or compute ... insns */
	uint64_t parts, chunks;	  /* process images written by the tool; their buffers */
	uint64_t images, forks;	  /* proc_create (the program and each exec), fork events */
	uint64_t threads;	  /* thread_create events */
	uint64_t exec_exits;	  /* exits made for the threads an exec ended */
	uint64_t dropped_wakes;	  /* wake of a thread not alive in the trace */
	uint64_t dropped_sleeps;  /* sleep no earlier wake allows */
	uint64_t orphan_parts;	  /* forked children whose fork was not recorded */
	bool write_failed;	  /* the error is the writer's */
};

/*
 * Merge the parts tlbsim's valgrind tool wrote into @dir into @w, in the
 * order of @dir/order (src/cli/record_merge.c says how).  0, or CLI_USAGE
 * after printing why (the reader's or writer's error is in @err).
 */
int rec_merge(const char *dir, tlbsim_trace_writer *w, struct rec_merge_stats *st,
	      struct tlbsim_error *err);

/*
 * A statistic of a run's JSON (docs/stats-schema.md) by name: a dotted
 * path ("fabric.dvm_broadcasts", "totals.walks"), or a plain key of the
 * top level ("cycles", "seconds") or else of "totals" ("walks"); the
 * number (borrowed), or NULL when the run has no such number.
 */
const json_t *cli_stat(const json_t *st, const char *name);
/* What compare prints and merge takes by default: label and cli_stat()
 * key; ends with {NULL, NULL}. */
struct cli_metric {
	const char *label;
	const char *key;
};
extern const struct cli_metric cli_metrics[];

/*
 * Charts (plot.c).  cli_gnuplot() runs gnuplot on @script, a constant
 * gnuplot script of the caller that draws into ARG1 and takes its data
 * paths and titles as ARG2.. (the @nargs <= 8 strings @args, passed by
 * `gnuplot -c`: strings, never parsed as script); the terminal (svg or
 * pngcairo, 900x500, noenhanced text) comes from @out's extension.  The
 * chart is drawn to a temporary name beside @out and renamed over it.
 * 0, or CLI_USAGE after printing why (gnuplot's own message included).
 */
int cli_gnuplot(const char *script, const char *out, const char *const *args, unsigned nargs);
/* Whether @path ends in .svg or .png, the charts cli_gnuplot() draws. */
bool cli_plot_ext_ok(const char *path);
/* A new temporary data file for gnuplot, its path in @path (the caller
 * unlinks it); NULL after printing why. */
FILE *cli_plot_data(char *path, size_t len);
/* @in as a label of a tab-separated gnuplot data file: control characters
 * and quotes become '_'. */
void cli_plot_label(const char *in, char *out, size_t len);

/* Append to the string of @used bytes in @buf (@len bytes): returns the
 * length it would have, so that >= @len means it was cut short (then @buf
 * holds what fits, NUL-terminated). */
size_t cli_appendf(char *buf, size_t len, size_t used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Seconds since an arbitrary point (CLOCK_MONOTONIC). */
double cli_now(void);

/* Catch SIGINT and SIGTERM: stop @sim (or nothing, when NULL) at its next window. */
void cli_catch_sigint(tlbsim_sim *sim);
/* The same for several simulations at once: every one added is stopped, until removed. */
void cli_sigint_add(tlbsim_sim *sim);
void cli_sigint_remove(tlbsim_sim *sim);

/*
 * tlbsim compare's runs (compare_jobs.c): @fn(@arg, policy, progress,
 * &stats) for each of the @n policies @names, @jobs at a time on host
 * threads (independent simulations, so the results are those of
 * sequential runs), with a progress line per policy on a terminal
 * (@quiet: none), "running P..." lines otherwise.  Once interrupted, no
 * run starts, so the runs made are the first ones.  @stats[i] receives
 * run i's statistics, NULL if it did not run.  Returns 0, or the first
 * non-zero return of @fn in policy order (its message already printed).
 * @size: the trace file's bytes, for the percentages (0: unknown).
 */
typedef int (*cli_policy_run_fn)(void *arg, const char *policy, struct cli_progress *p,
				 void **stats);
/*
 * tlbsim compare's answer (compare_report.c): the policy that spends the
 * fewest cycles on TLB coherence, by how much, where each spends them, the
 * run times, and the table of coherence cycles by kind, from the runs'
 * statistics (@runs: a JSON array, one per name).  Only the runs with
 * @ranked[i] are ranked against each other (runs of the same extent: the
 * complete ones); the others are shown, marked [partial], never ranked.
 */
void cli_compare_answer(FILE *f, json_t *runs, char *const *names, unsigned n,
			const bool *ranked);
/* The chart of the same as SVG or PNG (by @path's extension), drawn by
 * gnuplot, the runs not @ranked labelled partial; 0, or CLI_USAGE after
 * printing why. */
int cli_compare_plot(const char *path, json_t *runs, char *const *names, unsigned n,
		     const bool *ranked, const char *machine);

int cli_run_policies(char *const *names, unsigned n, unsigned jobs, bool quiet, uint64_t size,
		     cli_policy_run_fn fn, void *arg, void **stats);
bool cli_interrupted(void);

#endif
