/* SPDX-License-Identifier: MIT */
/*
 * tlbsim_sim_run_batch() (include/tlbsim/sim.h): a batch source gives the
 * same statistics as the same events one at a time; the simulation never
 * asks for events past its max_events cap; an event the OS model refuses
 * is reported before a source error that follows it; a batch larger than
 * asked for is an error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/machines.h"
#include "tlbsim/sim.h"
#include "tlbsim/trace.h"

/* A batch source over a reader, one tlbsim_trace_next() at a time. */
struct batcher {
	tlbsim_trace_reader *r;
	uint64_t handed;  /* events handed out */
	size_t max_asked; /* the largest batch asked for */
	size_t extra;	  /* claims this many more than it wrote (a bad source) */
	int fail_after;	  /* > 0: after this many events, a parse error */
};

static int batch_next(void *arg, struct tlbsim_event *ev, size_t max, struct tlbsim_error *err)
{
	struct batcher *b = arg;
	size_t n = 0;
	int rc = 1;

	if (max > b->max_asked)
		b->max_asked = max;
	if (b->fail_after > 0 && b->handed >= (uint64_t)b->fail_after) {
		tlbsim_error_clear(err);
		err->code = -TLBSIM_EPARSE;
		snprintf(err->text, sizeof(err->text), "the source's own error");
		return -TLBSIM_EPARSE;
	}
	while (n < max &&
	       (b->fail_after <= 0 || b->handed + n < (uint64_t)b->fail_after) &&
	       (rc = tlbsim_trace_next(b->r, &ev[n], err)) > 0)
		n++;
	b->handed += n;
	return n ? (int)(n + b->extra) : rc;
}

static int one_next(void *arg, struct tlbsim_event *ev, struct tlbsim_error *err)
{
	return tlbsim_trace_next(arg, ev, err);
}

#define HEADER "tlbsim-trace 1 isa=x86-64 page_shift=12\n"

/* Thread 1 maps 16 KiB, starts thread 2, and both load 500 times in
 * turns: 3 + 1000 + 2 = 1005 events. */
static char *workload(void)
{
	size_t cap = 40 * 1100, len = 0;
	char *text = malloc(cap);
	int i;

	assert_non_null(text);
	len += (size_t)snprintf(text + len, cap - len,
				HEADER "proc_create 1 1\nT1 mmap 0x10000000 0x4000 rw- private,anon\n"
				       "T1 thread_create 2\n");
	for (i = 0; i < 500; i++)
		len += (size_t)snprintf(text + len, cap - len, "T%d load 0x%x 8\nT%d load 0x%x 8\n",
					1, 0x10000000 + (i * 64) % 0x4000, 2,
					0x10000000 + (i * 64 + 8) % 0x4000);
	snprintf(text + len, cap - len, "T2 exit\nT1 exit\n");
	return text;
}

/* Ordered replay for run() (it reads the whole trace before it starts). */
static int ordered;

struct outcome {
	int rc;
	struct tlbsim_error err;
	char *json;
	struct batcher b;
};

static void run(const char *text, int batch, uint64_t max_events, struct batcher *b0,
		struct outcome *o)
{
	struct tlbsim_machine *m = test_machine(TLBSIM_ISA_X86_64, 2);
	struct tlbsim_sim_config cfg = {
	    .machine = m, .threads = 1, .name = "batch.tlbt", .max_events = max_events,
	    .ordered = ordered};
	tlbsim_trace_reader *r = NULL;
	tlbsim_sim *sim = NULL;

	memset(o, 0, sizeof(*o));
	if (b0)
		o->b = *b0;
	tlbsim_error_clear(&o->err);
	assert_int_equal(
	    tlbsim_trace_open_mem(text, strlen(text), "batch.tlbt", TLBSIM_TRACE_TEXT, &r, &o->err),
	    0);
	assert_int_equal(tlbsim_sim_create(&cfg, &sim, &o->err), 0);
	o->b.r = r;
	o->rc = batch ? tlbsim_sim_run_batch(sim, batch_next, &o->b, &o->err)
		      : tlbsim_sim_run(sim, one_next, r, &o->err);
	o->json = tlbsim_sim_stats_json(sim);
	assert_non_null(o->json);
	tlbsim_sim_destroy(sim);
	tlbsim_trace_close(r);
	tlbsim_machine_free(m);
}

static void a_batch_source_gives_the_same_statistics(void **state)
{
	char *text = workload();
	struct outcome one, many;

	(void)state;
	run(text, 0, 0, NULL, &one);
	run(text, 1, 0, NULL, &many);
	assert_int_equal(one.rc, 0);
	assert_int_equal(many.rc, 0);
	assert_int_equal(many.b.handed, 1005);
	assert_int_equal(many.b.max_asked, 256);
	assert_string_equal(one.json, many.json);
	free(one.json);
	free(many.json);
	free(text);
}

static void no_event_past_max_events_is_asked_for(void **state)
{
	char *text = workload();
	struct outcome o;

	(void)state;
	/* A cap of 300: a batch of 256, then one of 44. */
	run(text, 1, 300, NULL, &o);
	assert_int_equal(o.rc, 1); /* stopped early */
	assert_int_equal(o.b.handed, 300);
	assert_non_null(strstr(o.json, "\"events_read\": 300"));
	free(o.json);
	free(text);
}

static void the_model_reports_its_error_before_a_later_source_error(void **state)
{
	/* events: 0 proc_create, 1 T1 exit, 2 T1 load (after the exit);
	 * the source fails after handing out those 3. */
	const char *text = HEADER "proc_create 1 1\nT1 exit\nT1 load 0x1000 8\nT1 load 0x2000 8\n";
	struct batcher b = {.fail_after = 3};
	struct outcome o;

	(void)state;
	run(text, 1, 0, &b, &o);
	assert_int_equal(o.rc, -TLBSIM_EINVAL);
	assert_non_null(strstr(o.err.text, "event 2 (load): thread 1 exited at event 1"));
	free(o.json);
}

/* Ordered replay reads everything first: after the input error at event
 * 2, event 3 of the same batch is not read (events_read 3, as one event
 * at a time). */
static void no_event_is_read_after_an_input_error(void **state)
{
	const char *text = HEADER "proc_create 1 1\nT1 exit\nT1 load 0x1000 8\nT1 load 0x2000 8\n";
	struct outcome o;

	(void)state;
	ordered = 1;
	run(text, 1, 0, NULL, &o);
	ordered = 0;
	assert_int_equal(o.rc, -TLBSIM_EINVAL);
	assert_non_null(strstr(o.err.text, "event 2 (load): thread 1 exited at event 1"));
	assert_non_null(strstr(o.json, "\"events_read\": 3,"));
	free(o.json);
}

static void a_source_error_after_a_batch_is_reported(void **state)
{
	char *text = workload();
	struct batcher b = {.fail_after = 600};
	struct outcome o;

	(void)state;
	run(text, 1, 0, &b, &o);
	assert_int_equal(o.rc, -TLBSIM_EPARSE);
	assert_string_equal(o.err.text, "the source's own error");
	assert_int_equal(o.b.handed, 600);
	free(o.json);
	free(text);
}

static void a_batch_larger_than_asked_is_an_error(void **state)
{
	char *text = workload();
	struct batcher b = {.extra = 1};
	struct outcome o;

	(void)state;
	run(text, 1, 0, &b, &o);
	assert_int_equal(o.rc, -TLBSIM_EINVAL);
	assert_non_null(strstr(o.err.text, "returned 257 events, more than the 256 asked for"));
	free(o.json);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(a_batch_source_gives_the_same_statistics),
	    cmocka_unit_test(no_event_past_max_events_is_asked_for),
	    cmocka_unit_test(the_model_reports_its_error_before_a_later_source_error),
	    cmocka_unit_test(no_event_is_read_after_an_input_error),
	    cmocka_unit_test(a_source_error_after_a_batch_is_reported),
	    cmocka_unit_test(a_batch_larger_than_asked_is_an_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
