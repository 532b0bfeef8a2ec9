/* SPDX-License-Identifier: MIT */
/*
 * Process templates (include/tlbsim/template.h, traces/template.c) and the
 * spawn generator that starts them many times (traces/gen_spawn.c): what a
 * template may hold, what a loaded one counts, how each copy is renamed
 * (its own pid and tids, the parent woken by the thread that exits last),
 * and a whole spawn run through the OS model (every process made, exec'd
 * and ended, nothing left over).  The expected counts are worked out from
 * the hand-written templates below.
 */
#include "tlbsim/gen.h"
#include "tlbsim/sim.h"
#include "tlbsim/template.h"
#include "trace_test.h"

#include "os/os.h"
#include "support/machines.h"

#define HEADER "tlbsim-trace 1 isa=x86-64 page_shift=12\n"

/*
 * A two-thread process: the recorded pid 40 (tid 40) maps and writes 2
 * pages, creates thread 41, which loads a page, wakes 40 and exits; 40
 * sleeps (a join), unmaps and exits last.  Events after the proc_create:
 * 11: 3 accesses, 2 syscalls (mmap, munmap), 2 threads.
 */
static const char two_threads[] = HEADER "proc_create 40 40\n"
					 "T40 mmap 0x10000000 0x2000 rw- private,anon\n"
					 "T40 store 0x10000000 8\n"
					 "T40 store 0x10001000 8\n"
					 "T40 thread_create 41\n"
					 "T41 load 0x10000000 8\n"
					 "T41 wake 40\n"
					 "T41 exit\n"
					 "T40 sleep\n"
					 "T40 compute 100 cycles\n"
					 "T40 munmap 0x10000000 0x2000\n"
					 "T40 exit\n";

/* @text as a binary trace (zstd) in @dir/@name; the path (static). */
static const char *binary(const char *dir, const char *name, const char *text)
{
	static char path[600];
	tlbsim_trace_reader *r = NULL;
	tlbsim_trace_writer *w = NULL;
	struct tlbsim_trace_info info = {.isa = TLBSIM_ISA_X86_64, .page_shift = 12};
	struct tlbsim_event ev;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(
	    tlbsim_trace_open_mem(text, strlen(text), name, TLBSIM_TRACE_TEXT, &r, NULL), 0);
	assert_int_equal(tlbsim_trace_writer_open(path, TLBSIM_TRACE_BINARY, TLBSIM_COMPRESS_ZSTD,
						  &info, &w, NULL),
			 0);
	while ((rc = tlbsim_trace_next(r, &ev, NULL)) == 1)
		assert_int_equal(tlbsim_trace_writer_write(w, &ev, NULL), 0);
	assert_int_equal(rc, 0);
	assert_int_equal(tlbsim_trace_writer_close(w, NULL), 0);
	tlbsim_trace_close(r);
	return path;
}

static void a_template_counts_its_events_and_threads(void **state)
{
	struct tlbsim_error err;
	tlbsim_template *t = NULL;
	const struct tlbsim_template_info *in;

	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_template_load(binary(*state, "two.tlbt", two_threads), &t, &err),
			 0);
	in = tlbsim_template_info(t);
	assert_int_equal(in->events, 11);
	assert_int_equal(in->threads, 2);
	assert_int_equal(in->pid, 40);
	assert_int_equal(in->tid, 40);
	assert_int_equal(in->accesses, 3);
	assert_int_equal(in->syscalls, 2);
	assert_int_equal(in->isa, TLBSIM_ISA_X86_64);
	tlbsim_template_destroy(t);
}

/* Loading @text (binary) fails with EINVAL and a message holding @why. */
static void refused(const char *dir, const char *text, const char *why)
{
	struct tlbsim_error err;
	tlbsim_template *t = NULL;

	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_template_load(binary(dir, "bad.tlbt", text), &t, &err),
			 -TLBSIM_EINVAL);
	assert_null(t);
	if (!strstr(err.text, why))
		fail_msg("'%s' lacks '%s'", err.text, why);
}

static void what_a_template_may_not_hold_is_refused_at_its_event(void **state)
{
	refused(*state, HEADER "proc_create 1 1\nT1 fork 2 2\nT1 exit\n",
		"event 1 (fork): a process template holds user-level events of one process");
	refused(*state, HEADER "proc_create 1 1\nT1@cpu3 switch\nT1 exit\n",
		"event 1 (switch): a process template holds");
	refused(*state, HEADER "proc_create 1 1\nT1 thread_create 2\nT2 exit\n",
		"a process template ends with its last thread's exit: a thread never exits");
	refused(*state, HEADER "proc_create 1 1\nT1 wake 9\nT1 exit\n",
		"event 1 (wake): a process template wakes only its own threads, not 9");
	refused(*state, HEADER "proc_create 1 1\nT1 load 0x1000 8\nT7 load 0x1000 8\nT1 exit\n",
		"event 2 (load): a process template has no thread 7");
	refused(*state, HEADER "proc_create 1 1\nT1 exit\nT1 load 0x1000 8\n",
		"event 2 (load): a process template ends with its last thread's exit: no event");
}

static void a_text_template_is_refused_with_the_conversion_to_use(void **state)
{
	char path[600];
	struct tlbsim_error err;
	tlbsim_template *t = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "%s/t.txt", (char *)*state);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(two_threads, f);
	fclose(f);
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_template_load(path, &t, &err), -TLBSIM_EINVAL);
	assert_non_null(strstr(err.text, "tlbsim convert --to binary"));
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_template_load("/nonexistent/t.tlbt", &t, &err), -TLBSIM_ENOENT);
}

/*
 * spawn shells=2, runs=3 of the two-thread template, shell_pages=4,
 * shell_writes=2, child_writes=1, compute=0.  Ids: script 1, subshells 2
 * and 3; copy n = s * 3 + i has pid 4 + 2n and tids 4 + 2n (the recorded
 * 40) and 5 + 2n (41).  Per copy: 1 store, exec, the template's 11 events
 * renamed, and a wake of its subshell by 4 + 2n (40 exits last) just
 * before its last exit: 14.  Per subshell: 3 x (fork, 2 stores, sleep),
 * wake, exit: 14.  The script: proc_create, mmap, 4 stores, 2 forks, 2
 * sleeps, exit: 11.  In all 11 + 2 x 14 + 6 x 14 = 123 events.
 */
static void spawn_renames_each_copy_and_wakes_its_parent_last(void **state)
{
	struct tlbsim_error err;
	tlbsim_template *t = NULL;
	tlbsim_gen *g = NULL;
	struct tlbsim_event ev;
	unsigned n = 0, forks = 0, execs = 0, wakes_of_shell = 0, creates = 0;
	uint32_t last_tid[8] = {0}, exec_tid[8];
	bool exited_after_wake[8] = {false}, woke[8] = {false};

	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_template_load(binary(*state, "two.tlbt", two_threads), &t, &err),
			 0);
	assert_int_equal(tlbsim_gen_create("spawn", "shells=2,runs=3", TLBSIM_ISA_X86_64, &g, &err),
			 -TLBSIM_EINVAL);
	assert_non_null(strstr(err.text, "spawn runs 1 process template"));
	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_gen_create_with("spawn",
						"shells=2,runs=3,shell_pages=4,shell_writes=2,"
						"child_writes=1,compute=0",
						TLBSIM_ISA_X86_64, &t, 1, &g, &err),
			 0);
	while (tlbsim_gen_next(g, &ev, NULL) == 1) {
		unsigned copy = ev.tid >= 4 ? (ev.tid - 4) / 2 : 8;

		assert_int_equal(tlbsim_event_validate(&ev, NULL, 0), 0);
		n++;
		if (ev.kind == TLBSIM_EV_FORK && ev.tid >= 2 && ev.tid <= 3) {
			assert_int_equal(ev.fork.pid, ev.fork.tid);
			forks++;
		}
		if (ev.kind == TLBSIM_EV_EXEC) {
			assert_true(copy < 6);
			exec_tid[copy] = ev.tid;
			assert_int_equal(ev.tid, 4 + 2 * copy);
			execs++;
		}
		if (ev.kind == TLBSIM_EV_THREAD_CREATE) {
			assert_int_equal(ev.thread_create.tid, ev.tid + 1);
			creates++;
		}
		if (ev.kind == TLBSIM_EV_WAKE && copy < 6 && ev.wake.tid < 4) {
			/* copy n belongs to subshell n / 3 (tid 2 + n / 3) */
			assert_int_equal(ev.wake.tid, 2 + copy / 3);
			assert_int_equal(ev.tid, 4 + 2 * copy);
			woke[copy] = true;
			wakes_of_shell++;
		}
		if (ev.kind == TLBSIM_EV_EXIT && copy < 6) {
			last_tid[copy] = ev.tid;
			exited_after_wake[copy] = woke[copy];
		}
	}
	assert_int_equal(n, 123);
	assert_int_equal(forks, 6);
	assert_int_equal(execs, 6);
	assert_int_equal(creates, 6);
	assert_int_equal(wakes_of_shell, 6);
	for (unsigned c = 0; c < 6; c++) {
		assert_int_equal(last_tid[c], exec_tid[c]);
		assert_true(exited_after_wake[c]);
	}
	tlbsim_gen_destroy(g);
	tlbsim_template_destroy(t);
}

/*
 * The same spawn through the OS model on 4 cpus: every process ends
 * (rc 0), no event belongs to a thread never created, no access is a
 * segv.  Address spaces: the script's, one fork copy per subshell (2),
 * and per copy its fork copy and its exec'd image (2 x 6): 15; the fork
 * copies of the 6 copies are torn down by their exec, every other mm by
 * its last thread's exit.
 */
static void spawn_runs_every_copy_through_the_os_model(void **state)
{
	struct tlbsim_machine *m = test_machine(TLBSIM_ISA_X86_64, 4);
	struct tlbsim_sim_config cfg = {.machine = m, .policy = "x86-stock", .threads = 1};
	struct tlbsim_error err;
	tlbsim_template *t = NULL;
	tlbsim_gen *g = NULL;
	tlbsim_sim *sim = NULL;
	struct os *os;
	uint64_t segv = 0;
	unsigned dead = 0;

	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_template_load(binary(*state, "two.tlbt", two_threads), &t, &err),
			 0);
	assert_int_equal(tlbsim_gen_create_with("spawn",
						"shells=2,runs=3,shell_pages=4,shell_writes=2,"
						"child_writes=1,compute=0",
						TLBSIM_ISA_X86_64, &t, 1, &g, &err),
			 0);
	assert_int_equal(tlbsim_sim_create(&cfg, &sim, &err), 0);
	assert_int_equal(tlbsim_sim_run(sim, tlbsim_gen_next, g, &err), 0);
	os = os_of_sim(sim);
	assert_int_equal(os->st.unknown_thread_events, 0);
	for (unsigned c = 0; c < 4; c++)
		segv += os->cpu[c].st.segv;
	assert_int_equal(segv, 0);
	assert_int_equal(os->nr_mms, 15);
	for (unsigned i = 0; i < os->nr_mms; i++)
		dead += os->mms[i]->dead;
	assert_int_equal(dead, 15);
	/* Copy pid p (4, 6, .., 14) has two mms, in this order: its fork
	 * copy, where its write before the exec faulted once, and whose
	 * teardown at the exec frees the pages no one else maps: the page it
	 * copied if it wrote before its subshell did (1 COW copy, 1 page),
	 * else the one or two pages the subshell copied away from it (the
	 * child's write then reuses its page: no copy); and its image, where
	 * thread 40's 2 stores faulted (thread 41's load finds the page
	 * present) and the munmap freed both pages. */
	for (uint32_t p = 4; p <= 14; p += 2) {
		const struct os_mm *mine[2] = {NULL, NULL};
		unsigned k = 0;

		for (unsigned i = 0; i < os->nr_mms; i++)
			if (os->mms[i]->pid == p) {
				assert_true(k < 2);
				mine[k++] = os->mms[i];
			}
		assert_int_equal(k, 2);
		assert_int_equal(mine[0]->st.faults, 1);
		assert_true(mine[0]->st.cow_copies <= 1);
		assert_true(mine[0]->st.pages_freed >= 1 && mine[0]->st.pages_freed <= 2);
		assert_int_equal(mine[1]->st.faults, 2);
		assert_int_equal(mine[1]->st.pages_freed, 2);
	}
	tlbsim_sim_destroy(sim);
	tlbsim_gen_destroy(g);
	tlbsim_template_destroy(t);
	tlbsim_machine_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(a_template_counts_its_events_and_threads, tmpdir_setup,
					    tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(what_a_template_may_not_hold_is_refused_at_its_event,
					    tmpdir_setup, tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(a_text_template_is_refused_with_the_conversion_to_use,
					    tmpdir_setup, tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(spawn_renames_each_copy_and_wakes_its_parent_last,
					    tmpdir_setup, tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(spawn_runs_every_copy_through_the_os_model,
					    tmpdir_setup, tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
