/* SPDX-License-Identifier: MIT */
/*
 * Copies of a process template (include/tlbsim/template.h) as generators
 * start them: each copy reads the template's events with a reader of its
 * own and renames them, so that the copy is a process of its own.
 *
 * Internal to traces/, prefix trace_.
 */
#ifndef TLBSIM_TRACES_TEMPLATE_H
#define TLBSIM_TRACES_TEMPLATE_H

#include <stdbool.h>
#include <stdint.h>

#include "tlbsim/event.h"
#include "tlbsim/template.h"
#include "tlbsim/trace.h"

/**
 * struct trace_copy - one running copy of a template
 * @t: the template (borrowed)
 * @r: the copy's reader of the template's bytes (NULL: not running)
 * @first_tid: the copy's tid of the template's first thread; thread k
 *        (in order of creation) is @first_tid + k
 * @waiter: the thread woken just before the copy's last exit (its parent's
 *        wait4() returning), 0 for none
 * @read: template events read so far
 * @woke: the wake of @waiter is out, the last exit comes next
 */
struct trace_copy {
	const tlbsim_template *t;
	tlbsim_trace_reader *r;
	uint32_t first_tid, waiter;
	uint64_t read;
	bool woke;
};

/*
 * Start copy @c of @t, its threads named from @first_tid (the template's
 * thread count of tids from there must be free), woken @waiter at its end.
 * Returns 0 or -TLBSIM_ENOMEM.
 */
int trace_copy_start(struct trace_copy *c, const tlbsim_template *t, uint32_t first_tid,
		     uint32_t waiter);

/*
 * The copy's next event, renamed, into @ev: 1, or 0 once its last exit is
 * out (the copy is then stopped).  *@last is set when @ev is that exit.
 * The template was checked whole when it was loaded, so nothing can fail.
 */
int trace_copy_next(struct trace_copy *c, struct tlbsim_event *ev, bool *last);

/* Stop @c early (nothing if it is not running). */
void trace_copy_stop(struct trace_copy *c);

#endif
