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
 * The messages go through the kernel: a socket pair per receiver (the
 * default, AF_UNIX SOCK_STREAM) or with pipe=1 a pipe (hackbench -p), whose
 * write end every sender of the group shares.  A sender goes round its
 * receivers, write()ing each a message from its own 100-byte buffer (two
 * loads, 64 + 36 bytes: copy_from_user()), @compute cycles of sendmsg()
 * work, and a WAKE of the receiver (sock_def_readable() / pipe_write()'s
 * wake-up: a receiver that is not asleep keeps it as data to read).  A
 * receiver read()s its senders' messages in turn: it SLEEPs until one is
 * there (blocking in read, woken by the write), stores it into its own
 * buffer (copy_to_user()), spends @compute cycles of recvmsg() work, and
 * WAKEs the sender whose message it took, whose space in the socket or
 * pipe is free again (sk_write_space() / pipe_read()'s wake-up).
 *
 * A socket or pipe holds @queue messages; a sender that finds its
 * receiver's full blocks in write() until the receiver has read.  With all
 * of a group's senders writing round-robin, a sender has queue / senders
 * (at least 1) rounds in flight: before round k >= that it SLEEPs once per
 * receiver, for the WAKEs the receivers give it as they read its round
 * k - queue / senders.  By default the kernel's: a unix stream socket's
 * sk_sndbuf (net.core.wmem_default, 212992 bytes) over the truesize of a
 * 100-byte skb (768 bytes: sk_buff, a 512-byte kmalloc head, the shared
 * info) lets 277 messages wait; a pipe's 16 pages take 40 messages each,
 * small writes merging into the last page (fs/pipe.c pipe_write()): 640.
 * The default compute, 2000 cycles, is an estimate of one unix-socket
 * sendmsg() or recvmsg() of 100 bytes on a ~3 GHz core (no source
 * measured it alone).
 *
 * Parameters: groups, senders, receivers (per group), loops (messages per
 * sender per receiver), threads (0: processes, 1: threads), pipe (0:
 * sockets, 1: pipes), queue (messages a socket or pipe holds; 0: the
 * kernel's, as above), compute.
 *
 * Layout: task k (0-based, group by group, receivers first) is tid k + 2,
 * in pid k + 2 (processes) or pid 1 (threads); its buffer is the page
 * TRACE_VA_BASE + k * 4096, mapped private and written by the main process
 * before the forks (a forked receiver's first store copies it on write).
 * With F = floor(queue / senders) (at least 1) rounds in flight:
 *   main:     PROC_CREATE, MMAP bufs (private, rw), STORE each page,
 *             FORK (or THREAD_CREATE) x tasks, SLEEP x tasks, EXIT
 *   sender:   loops x { [round >= F: receivers x SLEEP], receivers x {
 *             LOAD buf 64, LOAD buf+64 36, [COMPUTE], WAKE receiver } },
 *             WAKE main, EXIT
 *   receiver: senders*loops x { SLEEP, STORE buf 64, STORE buf+64 36,
 *             [COMPUTE], [WAKE the sender, unless its round + F >= loops] },
 *             WAKE main, EXIT
 * With tasks = G*(S+R), messages m = G*S*R*loops and w = G*S*R*max(0,
 * loops - F) space wake-ups: 1 PROC_CREATE, 1 MMAP, tasks + 2m STORE, 2m
 * LOAD, 2m COMPUTE if compute, tasks FORK or THREAD_CREATE, tasks + m + w
 * SLEEP and WAKE, tasks + 1 EXIT.
 */
#include "traces/generators.h"
#include "traces/workload.h"

enum { P_GROUPS, P_SENDERS, P_RECEIVERS, P_LOOPS, P_THREADS, P_PIPE, P_QUEUE, P_COMPUTE, NR_P };

static const struct tlbsim_gen_param params[NR_P] = {
    [P_GROUPS] = {"groups", "groups of senders and receivers", 10, 1, 1000, "groups"},
    [P_SENDERS] = {"senders", "senders per group", 20, 1, 100, "tasks"},
    [P_RECEIVERS] = {"receivers", "receivers per group", 20, 1, 100, "tasks"},
    [P_LOOPS] = {"loops", "messages each sender sends each receiver", 100, 1, 1ull << 32,
		 "messages"},
    [P_THREADS] = {"threads", "0: tasks are processes, 1: threads", 0, 0, 1, "0/1"},
    [P_PIPE] = {"pipe", "0: a socket pair per receiver, 1: a pipe", 0, 0, 1, "0/1"},
    [P_QUEUE] = {"queue", "messages a socket or pipe holds (0: 277 socket, 640 pipe)", 0, 0,
		 1u << 20, "messages"},
    [P_COMPUTE] = {"compute", "cycles of work per write() and per read()", 2000, 0, 1ull << 32,
		   "cycles"},
};

/* The message: 100 bytes, copied in two parts (the first cache line and
 * the rest). */
#define MSG 100
#define MSG_FIRST 64
/* Messages the kernel lets wait (see above). */
#define SOCKET_QUEUE 277
#define PIPE_QUEUE 640

struct hb {
	struct trace_sched s;
	unsigned groups, senders, receivers, tasks;
	bool threads;
	uint64_t loops, compute, inflight;
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
		trace_ev_mmap(ev, a, TRACE_VA_BASE, (uint64_t)m->tasks * TRACE_PAGE, TRACE_RW,
			      TLBSIM_MAP_PRIVATE | TLBSIM_MAP_ANON);
		a->phase = M_TOUCH;
		break;
	case M_TOUCH:
		trace_ev_access(ev, a, TLBSIM_EV_STORE, TRACE_VA_BASE + a->i * TRACE_PAGE, 8);
		if (++a->i == m->tasks) {
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
enum { OP_PART1, OP_PART2, OP_COMPUTE, OP_WAKE, OP_SLEEP, NR_OPS = 4 };
static const uint8_t sender_ops[] = {OP_PART1, OP_PART2, OP_COMPUTE, OP_WAKE};
static const uint8_t receiver_ops[] = {OP_SLEEP, OP_PART1, OP_PART2, OP_COMPUTE, OP_WAKE};

/*
 * A task: a->i counts its messages (a sender's in rounds of receivers),
 * a->j the event within one; phase 1 is the WAKE of main, 2 the EXIT, 3 a
 * sender's SLEEPs for space, 4 the round they let it start.
 */
static void task_step(struct hb *m, struct trace_actor *a, struct tlbsim_event *ev)
{
	unsigned k = (unsigned)(a - m->s.a) - 1, per = m->senders + m->receivers;
	unsigned g = k / per, idx = k % per;
	bool sender = idx >= m->receivers;
	const uint8_t *ops = sender ? sender_ops : receiver_ops;
	unsigned nr_ops = sender ? NR_OPS : NR_OPS + 1;
	uint64_t msgs = sender ? m->loops * m->receivers : m->loops * m->senders;
	/* The message's (receiver, sender) and the sender's round: a sender
	 * goes round its receivers; a receiver takes its senders' in turn. */
	unsigned r = sender ? (unsigned)(a->i % m->receivers) : idx;
	unsigned s = sender ? idx - m->receivers : (unsigned)(a->i % m->senders);
	uint64_t round = sender ? a->i / m->receivers : a->i / m->senders;
	uint64_t buf = TRACE_VA_BASE + (uint64_t)k * TRACE_PAGE;
	unsigned kind = sender ? TLBSIM_EV_LOAD : TLBSIM_EV_STORE;
	unsigned op;

	if (a->phase == 1) {
		trace_ev_wake(ev, a, &m->s.a[0]);
		a->phase = 2;
		return;
	}
	if (a->phase == 2) {
		trace_ev_exit(&m->s, ev, a);
		return;
	}
	/* A sender starting a round it has no space for yet: a SLEEP per
	 * receiver first (phase 3, a->j counting them down), then the round
	 * (phase 4 until its first event). */
	if (sender && a->phase == 0 && r == 0 && a->j == 0 && round >= m->inflight) {
		a->phase = 3;
		a->j = m->receivers;
	}
	if (a->phase == 3) {
		trace_ev_sleep(ev, a);
		if (--a->j == 0)
			a->phase = 4;
		return;
	}
	a->phase = 0;
	op = ops[a->j];
	switch (op) {
	case OP_PART1:
		trace_ev_access(ev, a, kind, buf, MSG_FIRST);
		break;
	case OP_PART2:
		trace_ev_access(ev, a, kind, buf + MSG_FIRST, MSG - MSG_FIRST);
		break;
	case OP_COMPUTE:
		trace_ev_compute(ev, a, m->compute);
		break;
	case OP_SLEEP:
		trace_ev_sleep(ev, a);
		break;
	default:
		/* The sender wakes its receiver; the receiver the sender of
		 * the message it took. */
		trace_ev_wake(ev, a, &m->s.a[1 + g * per + (sender ? r : m->receivers + s)]);
		break;
	}
	a->j++;
	if (a->j < nr_ops && ops[a->j] == OP_COMPUTE && !m->compute)
		a->j++;
	/* A receiver gives no space back that its sender will not wait for. */
	if (!sender && a->j == nr_ops - 1 && round + m->inflight >= m->loops)
		a->j++;
	if (a->j == nr_ops) {
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
	uint64_t queue;
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
	queue = v[P_QUEUE] ? v[P_QUEUE] : v[P_PIPE] ? PIPE_QUEUE : SOCKET_QUEUE;
	m->inflight = queue / m->senders ? queue / m->senders : 1;
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
    .summary = "groups of senders and receivers exchanging 100-byte messages through sockets "
	       "or pipes, blocking on empty and full",
    .models = "hackbench (rt-tests): processes or threads (-T), sockets or pipes (-p)",
    .params = params,
    .nr_params = NR_P,
    .state_size = sizeof(struct hb),
    .init = init,
    .next = trace_gen_next,
    .fini = trace_gen_fini,
};
