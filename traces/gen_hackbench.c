/* SPDX-License-Identifier: MIT */
/*
 * hackbench: the scheduler benchmark (rt-tests hackbench.c): @groups
 * groups, each of @senders senders and @receivers receivers; every sender
 * sends @loops messages of 100 bytes to every receiver of its group
 * (hackbench -l), and every receiver reads senders * loops messages.  The
 * tasks are processes forked by the main process (the default) or, with
 * threads=1, threads of it (hackbench -T); as hackbench's group() does, the
 * receivers of a group are created before its senders.  Nothing is pinned.
 * The main process waits for every task (waitpid/pthread_join: each task
 * WAKEs it before its EXIT, one SLEEP of main per task).
 *
 * A message is modelled as hackbench's socket or pipe traffic seen from
 * user space: the sender's two stores (64 + 36 bytes) into the message's
 * slot of a buffer shared by all tasks (MAP_SHARED, mapped and populated by
 * the main process before the forks, so every task maps the same pages),
 * @compute cycles of write() work, and a WAKE of the receiver; the
 * receiver SLEEPs until a message is there (a WAKE that came earlier is
 * kept as a token: a message already queued), loads the two parts and
 * spends @compute cycles of read() work.  The default compute, 2000
 * cycles, is an estimate of one unix-socket sendmsg() or recvmsg() of 100
 * bytes on a ~3 GHz core (no source measured it alone).
 *
 * Parameters: groups, senders, receivers (per group), loops (messages per
 * sender per receiver), threads (0: processes, 1: threads), compute.
 *
 * Layout: task k (0-based, group by group, receivers first) is tid k + 2,
 * in pid k + 2 (processes) or pid 1 (threads); message slot of (group g,
 * receiver r, sender s) = TRACE_VA_BASE + ((g*R + r)*S + s) * 128.
 *   main:     PROC_CREATE, MMAP buf (shared, rw), STORE each page of buf,
 *             FORK (or THREAD_CREATE) x tasks, SLEEP x tasks, EXIT
 *   sender:   loops x receivers x { STORE slot 64, STORE slot+64 36,
 *             [COMPUTE], WAKE receiver }, WAKE main, EXIT
 *   receiver: senders*loops x { SLEEP, LOAD slot 64, LOAD slot+64 36,
 *             [COMPUTE] }, WAKE main, EXIT
 * With tasks = G*(S+R) and messages m = G*S*R*loops: 1 PROC_CREATE, 1 MMAP,
 * pages(buf) + 2m STORE, 2m LOAD, m COMPUTE each side if compute,
 * tasks FORK or THREAD_CREATE, tasks + m SLEEP and WAKE, tasks + 1 EXIT.
 */
#include "traces/generators.h"
#include "traces/workload.h"

enum { P_GROUPS, P_SENDERS, P_RECEIVERS, P_LOOPS, P_THREADS, P_COMPUTE, NR_P };

static const struct tlbsim_gen_param params[NR_P] = {
    [P_GROUPS] = {"groups", "groups of senders and receivers", 10, 1, 1000, "groups"},
    [P_SENDERS] = {"senders", "senders per group", 20, 1, 100, "tasks"},
    [P_RECEIVERS] = {"receivers", "receivers per group", 20, 1, 100, "tasks"},
    [P_LOOPS] = {"loops", "messages each sender sends each receiver", 100, 1, 1ull << 32,
		 "messages"},
    [P_THREADS] = {"threads", "0: tasks are processes, 1: threads", 0, 0, 1, "0/1"},
    [P_COMPUTE] = {"compute", "cycles of work per write() and per read()", 2000, 0, 1ull << 32,
		   "cycles"},
};

/* Bytes per message slot: the 100-byte message, cache-line aligned. */
#define SLOT 128
#define MSG 100
#define MSG_FIRST 64

struct hb {
	struct trace_sched s;
	unsigned groups, senders, receivers, tasks;
	bool threads;
	uint64_t loops, compute, buf_len;
};

enum { M_CREATE, M_MMAP, M_TOUCH, M_SPAWN, M_JOIN, M_EXIT };

static void main_step(struct hb *m, struct trace_actor *a, struct tlbsim_event *ev)
{
	switch (a->phase) {
	case M_CREATE:
		trace_ev_proc_create(ev, a);
		a->phase = M_MMAP;
		break;
	case M_MMAP:
		trace_ev_mmap(ev, a, TRACE_VA_BASE, m->buf_len, TRACE_RW,
			      TLBSIM_MAP_SHARED | TLBSIM_MAP_ANON);
		a->phase = M_TOUCH;
		break;
	case M_TOUCH:
		trace_ev_access(ev, a, TLBSIM_EV_STORE, TRACE_VA_BASE + a->i * TRACE_PAGE, 8);
		if (++a->i == m->buf_len / TRACE_PAGE) {
			a->i = 0;
			a->phase = M_SPAWN;
		}
		break;
	case M_SPAWN:
		trace_ev_spawn(&m->s, ev, a, &m->s.a[1 + a->i], !m->threads);
		if (++a->i == m->tasks) {
			a->i = 0;
			a->phase = M_JOIN;
		}
		break;
	case M_JOIN:
		trace_ev_sleep(ev, a);
		if (++a->i == m->tasks)
			a->phase = M_EXIT;
		break;
	default:
		trace_ev_exit(&m->s, ev, a);
		break;
	}
}

/* The events of one message, in order, for each side. */
enum { OP_PART1, OP_PART2, OP_COMPUTE, OP_SYNC, NR_OPS };
static const uint8_t sender_ops[NR_OPS] = {OP_PART1, OP_PART2, OP_COMPUTE, OP_SYNC};
static const uint8_t receiver_ops[NR_OPS] = {OP_SYNC, OP_PART1, OP_PART2, OP_COMPUTE};

/*
 * A task: a->i counts its messages, a->j the event within one (the
 * compute skipped when 0); then phase 1 is the WAKE of main, 2 the EXIT.
 */
static void task_step(struct hb *m, struct trace_actor *a, struct tlbsim_event *ev)
{
	unsigned k = (unsigned)(a - m->s.a) - 1, per = m->senders + m->receivers;
	unsigned g = k / per, idx = k % per;
	bool sender = idx >= m->receivers;
	const uint8_t *ops = sender ? sender_ops : receiver_ops;
	uint64_t msgs = sender ? m->loops * m->receivers : m->loops * m->senders;
	/* The message's (receiver, sender): a sender goes round its
	 * receivers; a receiver takes its senders' messages in turn. */
	unsigned r = sender ? (unsigned)(a->i % m->receivers) : idx;
	unsigned s = sender ? idx - m->receivers : (unsigned)(a->i % m->senders);
	uint64_t slot = TRACE_VA_BASE + (((uint64_t)g * m->receivers + r) * m->senders + s) * SLOT;
	unsigned kind = sender ? TLBSIM_EV_STORE : TLBSIM_EV_LOAD;

	if (a->phase == 1) {
		trace_ev_wake(ev, a, &m->s.a[0]);
		a->phase = 2;
		return;
	}
	if (a->phase == 2) {
		trace_ev_exit(&m->s, ev, a);
		return;
	}
	switch (ops[a->j]) {
	case OP_PART1:
		trace_ev_access(ev, a, kind, slot, MSG_FIRST);
		break;
	case OP_PART2:
		trace_ev_access(ev, a, kind, slot + MSG_FIRST, MSG - MSG_FIRST);
		break;
	case OP_COMPUTE:
		trace_ev_compute(ev, a, m->compute);
		break;
	default:
		if (sender)
			trace_ev_wake(ev, a, &m->s.a[1 + g * per + r]);
		else
			trace_ev_sleep(ev, a);
		break;
	}
	if (++a->j < NR_OPS && ops[a->j] == OP_COMPUTE && !m->compute)
		a->j++;
	if (a->j == NR_OPS) {
		a->j = 0;
		if (++a->i == msgs)
			a->phase = 1;
	}
}

static void step(void *g, struct trace_actor *a, struct tlbsim_event *ev)
{
	struct hb *m = g;

	if (a == m->s.a)
		main_step(m, a, ev);
	else
		task_step(m, a, ev);
}

static int init(void *state, const uint64_t *v, uint64_t seed, enum tlbsim_isa isa)
{
	struct hb *m = state;
	unsigned k;
	int rc;

	(void)seed;
	(void)isa;
	m->groups = (unsigned)v[P_GROUPS];
	m->senders = (unsigned)v[P_SENDERS];
	m->receivers = (unsigned)v[P_RECEIVERS];
	m->loops = v[P_LOOPS];
	m->threads = v[P_THREADS] != 0;
	m->compute = v[P_COMPUTE];
	m->tasks = m->groups * (m->senders + m->receivers);
	m->buf_len =
	    trace_align_up((uint64_t)m->groups * m->receivers * m->senders * SLOT, TRACE_PAGE);
	rc = trace_sched_init(&m->s, m->tasks + 1, step, m);
	if (rc)
		return rc;
	for (k = 0; k <= m->tasks; k++) {
		m->s.a[k].tid = k + 1;
		m->s.a[k].pid = m->threads || !k ? 1 : k + 1;
	}
	return 0;
}

const struct tlbsim_generator trace_gen_hackbench = {
    .name = "hackbench",
    .summary = "groups of senders and receivers exchanging messages with sleep and wake-up",
    .models = "hackbench (rt-tests), process and thread mode",
    .params = params,
    .nr_params = NR_P,
    .state_size = sizeof(struct hb),
    .init = init,
    .next = trace_gen_next,
    .fini = trace_gen_fini,
};
