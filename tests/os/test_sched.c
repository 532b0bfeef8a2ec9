/* SPDX-License-Identifier: MIT */
/*
 * The scheduler of the OS model (src/os/sched.c): placement on the least
 * loaded cpu (lowest number first) unless pinned by SWITCH, sleep and wake
 * (a WAKE before its SLEEP is kept as a token), yield, round-robin time
 * slices, idle cpus in lazy TLB mode keeping their mm loaded (Linux
 * context_switch() -> enter_lazy_tlb()), and results independent of the
 * number of host threads (README.md, "How a run works").
 */
#include <string.h>

#include "support/sim.h"

#define A 0x10000000ull /* a 2 MiB-aligned region */

static struct os_thread *thread(struct run *r, uint32_t tid)
{
	struct os_thread *t = os_thread_get(r->os, tid, false);

	assert_non_null(t);
	return t;
}

/*
 * 4 cpus.  Thread 1 starts on cpu 0 (all idle: the lowest), creates
 * threads 2, 3, 4, each going to the lowest idle cpu: 1, 2, 3; thread 5
 * finds every cpu with one thread: equal loads, the lowest, cpu 0, where
 * it waits behind thread 1 (no time slice).  Everyone computes 10M and
 * sleeps, so thread 5 runs on cpu 0 after thread 1: cpu 0 switches twice.
 */
static void threads_go_to_the_least_loaded_cpu_lowest_first(void **state)
{
	struct evlist l = {0};
	struct run r;

	(void)state;
	ev_proc(&l, 1, 1);
	for (uint32_t t = 2; t <= 5; t++)
		ev_thread(&l, 1, t);
	for (uint32_t t = 1; t <= 5; t++) {
		ev_compute(&l, t, 10000000);
		ev_simple(&l, TLBSIM_EV_SLEEP, t);
	}
	run_events(&r, TLBSIM_ISA_X86_64, 4, "x86-stock", &l);
	assert_int_equal(thread(&r, 1)->cpu, 0);
	assert_int_equal(thread(&r, 2)->cpu, 1);
	assert_int_equal(thread(&r, 3)->cpu, 2);
	assert_int_equal(thread(&r, 4)->cpu, 3);
	assert_int_equal(thread(&r, 5)->cpu, 0);
	assert_int_equal(r.os->cpu[0].st.context_switches, 2);
	for (unsigned c = 1; c < 4; c++)
		assert_int_equal(r.os->cpu[c].st.context_switches, 1);
	run_free(&r);
	evlist_free(&l);
}

/*
 * 2 cpus, x86-stock.  Thread 2 (cpu 1) reads A and sleeps: cpu 1 is idle,
 * in lazy mode, with the mm still loaded and its bit still in
 * mm_cpumask.  Woken by thread 1 at 1M, it goes back to cpu 1 (its last
 * cpu, idle), leaving lazy mode without a CR3 write (same mm, same
 * generation), reads A again and sleeps.  Cpu 1: 2 context switches, 1 mm
 * switch (the first), 1 CR3 write in all.
 */
static void sleeping_thread_leaves_its_cpu_lazy_with_the_mm_loaded(void **state)
{
	struct evlist l = {0};
	struct run r;
	struct os_mm *mm;

	(void)state;
	ev_proc(&l, 1, 1);
	ev_mmap(&l, 1, A, PAGE, RW, 0);
	ev_access(&l, 1, TLBSIM_EV_STORE, A);
	ev_thread(&l, 1, 2);
	ev_access(&l, 2, TLBSIM_EV_LOAD, A);
	ev_simple(&l, TLBSIM_EV_SLEEP, 2);
	ev_access(&l, 2, TLBSIM_EV_LOAD, A);
	ev_simple(&l, TLBSIM_EV_SLEEP, 2);
	ev_compute(&l, 1, 1000000);
	ev_wake(&l, 1, 2);
	ev_compute(&l, 1, 1000000);
	ev_simple(&l, TLBSIM_EV_SLEEP, 1);
	run_events(&r, TLBSIM_ISA_X86_64, 2, "x86-stock", &l);
	mm = r.os->mms[0];
	assert_int_equal(thread(&r, 2)->state, OS_T_SLEEPING);
	assert_int_equal(thread(&r, 2)->cpu, 1);
	assert_null(r.os->cpu[1].curr);
	assert_true(r.os->cpu[1].pub.is_lazy);
	assert_ptr_equal(r.os->cpu[1].pub.loaded_mm, &mm->pub);
	assert_true(tlbsim_cpumask_test(&mm->pub.cpumask, 1));
	assert_int_equal(r.os->cpu[1].st.context_switches, 2);
	assert_int_equal(r.os->cpu[1].st.mm_switches, 1);
	assert_int_equal(inval(&r, 1, TLBSIM_INVAL_CR3_FLUSH) + inval(&r, 1, TLBSIM_INVAL_CR3_NOFLUSH),
			 1);
	run_free(&r);
	evlist_free(&l);
}

/*
 * A WAKE that comes while its target runs is kept: thread 2 computes 2M,
 * thread 1 wakes it at 0.5M; thread 2's first SLEEP consumes the token and
 * does not block, its second one does.  Cpu 1 switches once (to thread
 * 2), thread 2 completes its 4 events and ends asleep with no token left.
 */
static void wake_before_sleep_is_kept_as_a_token(void **state)
{
	struct evlist l = {0};
	struct run r;

	(void)state;
	ev_proc(&l, 1, 1);
	ev_thread(&l, 1, 2);
	ev_compute(&l, 2, 2000000);
	ev_simple(&l, TLBSIM_EV_SLEEP, 2);
	ev_compute(&l, 2, 1000);
	ev_simple(&l, TLBSIM_EV_SLEEP, 2);
	ev_compute(&l, 1, 500000);
	ev_wake(&l, 1, 2);
	ev_simple(&l, TLBSIM_EV_SLEEP, 1);
	run_events(&r, TLBSIM_ISA_X86_64, 2, "x86-stock", &l);
	assert_int_equal(thread(&r, 2)->state, OS_T_SLEEPING);
	assert_int_equal(thread(&r, 2)->wake_tokens, 0);
	assert_int_equal(thread(&r, 2)->events_done, 4);
	assert_int_equal(r.os->cpu[1].st.context_switches, 1);
	run_free(&r);
	evlist_free(&l);
}

/*
 * One cpu.  Thread 1 yields with no one waiting: no switch.  It creates
 * thread 2 (queued behind it) and yields: thread 2 runs; thread 2 computes
 * and yields: thread 1; thread 1 sleeps: thread 2; thread 2 sleeps: idle.
 * Context switches: 1 (thread 1) + 3 = 4; one mm, so 1 mm switch.
 */
static void yield_switches_only_when_another_thread_waits(void **state)
{
	struct evlist l = {0};
	struct run r;

	(void)state;
	ev_proc(&l, 1, 1);
	ev_simple(&l, TLBSIM_EV_YIELD, 1);
	ev_thread(&l, 1, 2);
	ev_simple(&l, TLBSIM_EV_YIELD, 1);
	ev_simple(&l, TLBSIM_EV_SLEEP, 1);
	ev_compute(&l, 2, 1000);
	ev_simple(&l, TLBSIM_EV_YIELD, 2);
	ev_simple(&l, TLBSIM_EV_SLEEP, 2);
	run_events(&r, TLBSIM_ISA_X86_64, 1, "x86-stock", &l);
	assert_int_equal(r.os->cpu[0].st.context_switches, 4);
	assert_int_equal(r.os->cpu[0].st.mm_switches, 1);
	assert_int_equal(thread(&r, 1)->events_done, 4);
	assert_int_equal(thread(&r, 2)->events_done, 3);
	run_free(&r);
	evlist_free(&l);
}

/*
 * Time slices.  2 cpus (windows of 100 cycles: a slice ends within 100
 * cycles of its nominal end).  Thread 2, created on the idle cpu 1, moves
 * to cpu 0 behind thread 1.  Thread 1 computes 2.5M, thread 2 1.5M, then
 * each sleeps.  With a 1M slice, cpu 0 runs: T1 1M, T2 1M, T1 1M, T2 0.5M
 * (sleeps), T1 0.5M (sleeps): 5 context switches, 3 of them preemptions.
 * Without slices: T1 then T2: 2.
 */
static void build_slices(struct evlist *l)
{
	ev_proc(l, 1, 1);
	ev_thread(l, 1, 2);
	ev_pin(l, 2, 0);
	ev_compute(l, 2, 1500000);
	ev_simple(l, TLBSIM_EV_SLEEP, 2);
	ev_compute(l, 1, 2500000);
	ev_simple(l, TLBSIM_EV_SLEEP, 1);
}

static void time_slice_preempts_when_others_wait(void **state)
{
	struct run_opts o = {.sched_slice = 1000000};
	struct evlist l = {0};
	struct run r;

	(void)state;
	build_slices(&l);
	run_opts(&r, TLBSIM_ISA_X86_64, 2, "x86-stock", &l, &o);
	assert_int_equal(r.os->cpu[0].st.context_switches, 5);
	run_free(&r);
	o.sched_slice = 0;
	run_opts(&r, TLBSIM_ISA_X86_64, 2, "x86-stock", &l, &o);
	assert_int_equal(r.os->cpu[0].st.context_switches, 2);
	run_free(&r);
	evlist_free(&l);
}

/*
 * A slice shorter than a context switch must still let each thread run:
 * one cpu, two processes of one thread each (1 and 2), each computing
 * 3 x 1000 cycles and sleeping, a 1-cycle slice.  The slice starts after
 * the switch's 2000 cycles (test machine) but before its switch_mm (100
 * cycles and the CR3 write: the processes differ), so it has ended before
 * the thread runs at all; without a guarantee the two threads switch back
 * and forth for ever, and the 10M-cycle cap ends the run with their work
 * undone.  Each switched-in thread runs at least its next event: all 4
 * events of each complete, and the run ends far before the cap (each
 * switch costs about 2200 cycles, and a thread switched in runs on to the
 * end of its engine window).  More than 2 switches: without slices there
 * would be exactly 2 (thread 1, then thread 2 once thread 1 sleeps).
 */
static void slice_shorter_than_a_switch_still_lets_threads_run(void **state)
{
	struct run_opts o = {.sched_slice = 1, .max_cycles = 10000000};
	struct evlist l = {0};
	struct run r;

	(void)state;
	ev_proc(&l, 1, 1);
	ev_proc(&l, 2, 2);
	for (int i = 0; i < 3; i++) {
		ev_compute(&l, 1, 1000);
		ev_compute(&l, 2, 1000);
	}
	ev_simple(&l, TLBSIM_EV_SLEEP, 1);
	ev_simple(&l, TLBSIM_EV_SLEEP, 2);
	run_opts(&r, TLBSIM_ISA_X86_64, 1, "x86-stock", &l, &o);
	assert_int_equal(r.rc, 0);
	assert_int_equal(thread(&r, 1)->events_done, 4); /* 3 computes, sleep */
	assert_int_equal(thread(&r, 2)->events_done, 4);
	assert_true(r.os->cpu[0].st.context_switches > 2);
	run_free(&r);
	evlist_free(&l);
}

/*
 * A SWITCH to a cpu the machine does not have (a trace recorded on a
 * larger machine) is folded onto it: cpu 5 of a 2-cpu machine is cpu 1.
 */
static void switch_to_a_missing_cpu_is_folded_onto_the_machine(void **state)
{
	struct evlist l = {0};
	struct run r;

	(void)state;
	ev_proc(&l, 1, 1);
	ev_pin(&l, 1, 5);
	ev_compute(&l, 1, 1000);
	ev_simple(&l, TLBSIM_EV_SLEEP, 1);
	run_events(&r, TLBSIM_ISA_X86_64, 2, "x86-stock", &l);
	assert_int_equal(thread(&r, 1)->cpu, 1);
	assert_int_equal(thread(&r, 1)->events_done, 3);
	run_free(&r);
	evlist_free(&l);
}

/* A small linear congruential generator (Knuth's MMIX constants): the
 * same stream on every run. */
static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

/*
 * 4 processes of 8 threads on 16 cpus (threads placed freely, some
 * pinned), each thread mixing accesses, compute, mmap/munmap, mprotect,
 * madvise, yields and wakes of its siblings, with 200k-cycle slices.
 */
static void build_busy_machine(struct evlist *l)
{
	uint64_t seed = 42;

	for (uint32_t p = 0; p < 4; p++) {
		uint32_t first = 100 * (p + 1);

		ev_proc(l, p + 1, first);
		for (uint32_t t = 1; t < 8; t++)
			ev_thread(l, first, first + t);
		for (uint32_t t = 0; t < 8; t++) {
			uint32_t tid = first + t;
			uint64_t base = A + ((uint64_t)t << 24);

			if (t % 3 == 0)
				ev_pin(l, tid, (unsigned)(lcg(&seed) % 16));
			ev_mmap(l, tid, base, 64 * PAGE, RW, 0);
			for (unsigned i = 0; i < 60; i++) {
				uint64_t va = base + (lcg(&seed) % 64) * PAGE;

				switch (lcg(&seed) % 10) {
				case 0:
					ev_munmap(l, tid, va, PAGE);
					ev_mmap(l, tid, va, PAGE, RW, TLBSIM_MAP_PRIVATE | TLBSIM_MAP_ANON |
									      TLBSIM_MAP_FIXED);
					break;
				case 1:
					ev_mprotect(l, tid, base, 8 * PAGE, TLBSIM_PROT_READ);
					ev_mprotect(l, tid, base, 8 * PAGE, RW);
					break;
				case 2:
					ev_madvise(l, tid, va, 2 * PAGE, TLBSIM_MADV_DONTNEED);
					break;
				case 3:
					ev_simple(l, TLBSIM_EV_YIELD, tid);
					break;
				case 4:
					ev_wake(l, tid, first + (uint32_t)(lcg(&seed) % 8));
					break;
				case 5:
					ev_compute(l, tid, 1000 + lcg(&seed) % 100000);
					break;
				default:
					ev_access(l, tid, lcg(&seed) % 2 ? TLBSIM_EV_STORE : TLBSIM_EV_LOAD,
						  va);
				}
			}
			ev_simple(l, TLBSIM_EV_EXIT, tid);
		}
	}
}

static char *stats_with_threads(struct evlist *l, const char *policy, int threads)
{
	struct run_opts o = {.threads = threads, .sched_slice = 200000};
	struct run r;
	char *json;

	run_opts(&r, TLBSIM_ISA_X86_64, 16, policy, l, &o);
	json = tlbsim_sim_stats_json(r.sim);
	assert_non_null(json);
	/* A run that did something: every process flushed, no thread left. */
	for (uint32_t i = 0; i < r.os->nr_mms; i++) {
		assert_true(r.os->mms[i]->st.flushes > 0);
		assert_true(r.os->mms[i]->dead);
	}
	run_free(&r);
	return json;
}

static void stats_are_identical_for_1_2_and_4_host_threads(void **state)
{
	static const char *const policies[] = {"x86-stock", "x86-lazy-cpumask+rcu-table-free"};
	struct evlist l = {0};

	(void)state;
	build_busy_machine(&l);
	for (unsigned p = 0; p < 2; p++) {
		char *one = stats_with_threads(&l, policies[p], 1);

		for (int threads = 2; threads <= 4; threads *= 2) {
			char *many = stats_with_threads(&l, policies[p], threads);

			assert_string_equal(one, many);
			free(many);
		}
		free(one);
	}
	evlist_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(threads_go_to_the_least_loaded_cpu_lowest_first),
		cmocka_unit_test(sleeping_thread_leaves_its_cpu_lazy_with_the_mm_loaded),
		cmocka_unit_test(wake_before_sleep_is_kept_as_a_token),
		cmocka_unit_test(yield_switches_only_when_another_thread_waits),
		cmocka_unit_test(time_slice_preempts_when_others_wait),
		cmocka_unit_test(slice_shorter_than_a_switch_still_lets_threads_run),
		cmocka_unit_test(switch_to_a_missing_cpu_is_folded_onto_the_machine),
		cmocka_unit_test(stats_are_identical_for_1_2_and_4_host_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
