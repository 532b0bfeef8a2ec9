/* SPDX-License-Identifier: MIT */
/*
 * State of the valgrind lackey log reader, shared by read_lackey.c (lines,
 * accesses), lackey_sched.c (threads), lackey_syscall.c and
 * lackey_sysevents.c (SYSCALL lines) and lackey_events.c.  See
 * traces/FORMAT.md, "Valgrind lackey logs", for what the reader accepts
 * and the events it makes.
 *
 * Internal to traces/.
 */
#ifndef TLBSIM_TRACES_LACKEY_H
#define TLBSIM_TRACES_LACKEY_H

#include <stdint.h>

#include "ranges.h"
#include "trace_format.h"

/* What a pending syscall waits for. */
enum lk_call_state {
	LK_IDLE = 0,
	LK_ASYNC, /* "--> [async] ...": a later "SYSCALL[p,t](n) ... [async] --> R" */
	LK_CONT,  /* no result on its line: a later line " --> R" */
};

/* The syscalls that make events (lackey_syscall.c's table). */
enum lk_sys {
	LK_OTHER = 0,
	LK_MMAP,
	LK_MUNMAP,
	LK_MPROTECT,
	LK_MADVISE,
	LK_MREMAP,
	LK_BRK,
	LK_CLONE,
	LK_FORK,
};

#define LK_MAX_ARGS 6
/* Valgrind thread ids accepted: valgrind's --max-threads is 500 by default. */
#define LK_MAX_VTID (1u << 20)

/* A syscall whose line has been read but not its result. */
struct lk_call {
	uint8_t state; /* enum lk_call_state */
	uint8_t sys;   /* enum lk_sys */
	uint32_t nr;   /* syscall number */
	uint64_t arg[LK_MAX_ARGS];
	uint64_t line_no; /* where it started, for messages */
};

/* A valgrind thread id's slot: valgrind reuses the ids of exited threads. */
struct lk_thread {
	uint32_t tid;	 /* the event (Linux) tid bound to it, 0 when free */
	uint8_t blocked; /* gave up the lock inside a syscall (VgTs_WaitSys) */
	struct lk_call call;
};

struct lackey {
	uint32_t pid;	 /* the process, 0 until a line names it */
	char marker[24]; /* "--<pid>--": starts valgrind's messages, even glued ones */
	size_t marker_len;

	struct lk_thread *th; /* by valgrind thread id */
	uint32_t nr_th;
	uint32_t cur;  /* valgrind thread holding valgrind's lock, 0 for none */
	uint32_t last; /* valgrind thread that held it last (cur, or the one before) */
	uint32_t cont; /* valgrind thread whose syscall line awaits " --> ", 0 for none */

	uint32_t *clones; /* tids of clone()s whose thread has not run yet, oldest first */
	uint32_t nr_clones, cap_clones;

	struct trace_ranges mapped; /* what the log shows mapped, by syscalls or use */
	uint64_t brk_start, brk_end;
	int has_brk;
	uint64_t page_size;

	struct tlbsim_event *q; /* events made from the line, not yet returned */
	size_t q_head, q_len, q_cap;

	/* The physical line being read, for error positions. */
	uint64_t line_no, line_offset;
	const char *line;
	size_t len;
};

/* Report an error at @at, a pointer into the current line (NULL: column 1). */
int lk_bad(struct tlbsim_trace_reader *r, struct tlbsim_error *err, int code, const char *at,
	   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* A new zeroed event at the end of the queue, performed by @tid; NULL when out of memory. */
struct tlbsim_event *lk_push(struct lackey *lk, uint8_t kind, uint32_t tid);

/* The slot of valgrind thread @vtid (< LK_MAX_VTID), made on first use; NULL: no memory. */
struct lk_thread *lk_slot(struct lackey *lk, uint32_t vtid);

/* Does [@p, @end) start with @s? */
int lk_starts(const char *p, const char *end, const char *s);

/* Check and keep the newest event (reporting at @at), or drop it and fail. */
int lk_check_last(struct tlbsim_trace_reader *r, struct tlbsim_error *err, const char *at);

/* Imply an MMAP by @tid of every part of [@first, @last] not known to be mapped. */
int lk_imply(struct tlbsim_trace_reader *r, struct tlbsim_error *err, uint32_t tid, uint64_t first,
	     uint64_t last, const char *at);

/* The process is @pid (from a line's prefix at @at): the first time, it is created. */
int lk_set_pid(struct tlbsim_trace_reader *r, struct tlbsim_error *err, uint64_t pid,
	       const char *at);

/* "SCHED[n]: message" at @p, after the "--pid--" prefix of @line. */
int lk_sched_line(struct tlbsim_trace_reader *r, struct tlbsim_error *err, const char *p,
		  const char *end, const char *line);

/* Read a line segment [@p, @end): the whole line, or a message glued after a syscall. */
int lk_dispatch(struct tlbsim_trace_reader *r, struct tlbsim_error *err, const char *p,
		const char *end);

/* A SYSCALL[...] line, and a " --> result" continuation line. */
int lk_syscall_line(struct tlbsim_trace_reader *r, struct tlbsim_error *err, const char *p,
		    const char *end);
int lk_continuation(struct tlbsim_trace_reader *r, struct tlbsim_error *err, const char *p,
		    const char *end);

/* The events of call @c of thread @tid that returned @val (success); @at: the result. */
int lk_succeeded(struct tlbsim_trace_reader *r, struct tlbsim_error *err, const struct lk_call *c,
		 uint32_t tid, uint64_t val, const char *at);

/* Number parsing: [*@pp, @end) -> @out; *@pp moves past the digits. 0 or -1. */
int lk_parse_dec(const char **pp, const char *end, uint64_t *out);
int lk_parse_hex(const char **pp, const char *end, uint64_t *out);

#endif
