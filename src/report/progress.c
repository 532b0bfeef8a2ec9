/* SPDX-License-Identifier: MIT */
/*
 * The progress line (report/progress.h).  Redrawn with a carriage return
 * and ECMA-48 erase-in-line (ESC [ K), so a shorter line leaves nothing of
 * the last one behind.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime(), fileno() */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "report/progress.h"

/* A run shorter than this shows no line; then one redraw per interval. */
#define FIRST_DRAW 1.0
#define REDRAW 0.5

double rep_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* @v events as "123", "12.3 K" or "12.3 M". */
static void count(char *buf, size_t len, uint64_t v)
{
	if (v >= 1000000)
		snprintf(buf, len, "%.1f M", (double)v / 1e6);
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
}

void rep_progress_format(char *buf, size_t len, const struct rep_progress_state *s)
{
	double f = s->total ? (double)s->events / (double)s->total : s->fraction;
	char ev[32], tot[32];
	size_t n;

#define PUT(...)                                                                                   \
	do {                                                                                       \
		if (n < len)                                                                       \
			n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__);                      \
	} while (0)
	if (!len)
		return;
	n = 0;
	buf[0] = 0;
	count(ev, sizeof(ev), s->events);
	PUT("%s events", ev);
	if (s->total) {
		count(tot, sizeof(tot), s->total);
		PUT(" of %s", tot);
	}
	if (f > 1.0)
		f = 1.0;
	if (f >= 0)
		PUT(", %.0f%%", 100.0 * f);
	if (s->elapsed > 0)
		PUT(", %.2f M events/s", (double)s->events / s->elapsed / 1e6);
	if (s->sim_seconds >= 0)
		PUT(", simulated %.4g s", s->sim_seconds);
	PUT(", %.0f s", s->elapsed);
	/* The time left at the rate so far, once it means something. */
	if (f > 0.01 && f < 1.0)
		PUT(", about %.0f s left", s->elapsed * (1.0 - f) / f);
#undef PUT
}

void rep_progress_start(struct rep_progress *p, const char *what, bool quiet)
{
	p->what = what;
	p->on = !quiet && isatty(fileno(stderr));
	p->drawn = false;
	p->started = rep_now();
	p->last = 0;
	p->delay = FIRST_DRAW;
	/* The first line's delay, seconds, for tests (a short run shows a
	 * line too). */
	if (p->on && getenv("TLBSIM_PROGRESS_DELAY"))
		p->delay = atof(getenv("TLBSIM_PROGRESS_DELAY"));
}

void rep_progress_update(struct rep_progress *p, uint64_t events, uint64_t total, double fraction,
			 double sim_seconds)
{
	struct rep_progress_state s = {events, total, fraction, sim_seconds, 0};
	double now;
	char text[256];

	if (!p->on)
		return;
	now = rep_now();
	s.elapsed = now - p->started;
	if (s.elapsed < p->delay || now - p->last < REDRAW)
		return;
	p->last = now;
	rep_progress_format(text, sizeof(text), &s);
	fprintf(stderr, "\r\033[K%s: %s", p->what, text);
	fflush(stderr);
	p->drawn = true;
}

bool rep_progress_end(struct rep_progress *p)
{
	bool drawn = p->drawn;

	if (drawn)
		fputs("\r\033[K", stderr);
	p->drawn = false;
	return drawn;
}
