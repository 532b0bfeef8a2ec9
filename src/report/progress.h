/* SPDX-License-Identifier: MIT */
/*
 * The progress line of the long-running commands (tlbsim run, compare,
 * gen, convert, record; tlbsim-reproduce): one line on stderr, redrawn in
 * place at most twice a second once a run has taken a second, only on a
 * terminal and never with --quiet.  Its text:
 *
 *   WHAT: 12.3 M events of 45.6 M, 27%, 2.10 M events/s, simulated 0.0123 s,
 *   6 s, about 16 s left
 *
 * each part only where known: the total events (a generator that knows
 * them) or the fraction done (of a trace file's compressed bytes read),
 * the simulated time (runs, not copies).  $TLBSIM_PROGRESS_DELAY sets
 * the first line's delay in seconds (1 by default; the tests use 0).
 */
#ifndef TLBSIM_REPORT_PROGRESS_H
#define TLBSIM_REPORT_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Monotonic wall-clock seconds (CLOCK_MONOTONIC). */
double rep_now(void);

/*
 * How far a run has got.
 * @events: events done
 * @total: events in all, 0 if unknown
 * @fraction: done, 0..1, or < 0 if unknown (@total gives it when known)
 * @sim_seconds: simulated seconds so far, or < 0 for none (a copy)
 * @elapsed: wall seconds since the start
 */
struct rep_progress_state {
	uint64_t events, total;
	double fraction, sim_seconds, elapsed;
};

/* The line's text after "WHAT: " into @buf (@len bytes, NUL-terminated,
 * cut if short). */
void rep_progress_format(char *buf, size_t len, const struct rep_progress_state *s);

struct rep_progress {
	const char *what; /* borrowed: lives as long as the line */
	bool on;	  /* stderr is a terminal and not quiet */
	bool drawn;	  /* a line is on the screen */
	double started, last;
	double delay; /* seconds before the first line */
};

/* Start the clock of @p for @what; @quiet (or stderr not a terminal)
 * turns the line off. */
void rep_progress_start(struct rep_progress *p, const char *what, bool quiet);
/* Redraw the line if it is on and due (see above); @total, @fraction and
 * @sim_seconds as in struct rep_progress_state. */
void rep_progress_update(struct rep_progress *p, uint64_t events, uint64_t total, double fraction,
			 double sim_seconds);
/* Erase the line if one was drawn; returns whether one was. */
bool rep_progress_end(struct rep_progress *p);

#endif
