/* SPDX-License-Identifier: MIT */
/*
 * Reader of ChampSim instruction traces: a headerless sequence of 64-byte
 * records, struct input_instr of ChampSim's inc/trace_instruction.h
 * (github.com/ChampSim/ChampSim, commit b92dc114), little-endian, usually
 * xz-compressed as distributed (DPC-3, CRC-2):
 *
 *   offset  size  field
 *        0     8  ip
 *        8     1  is_branch (0 or 1)
 *        9     1  branch_taken (0 or 1; 1 only for a branch)
 *       10     2  destination_registers[2]
 *       12     4  source_registers[4]
 *       16    16  destination_memory[2]  (0 = none)
 *       32    32  source_memory[4]       (0 = none)
 *
 * Each record becomes a FETCH of ip, a LOAD of each non-zero
 * source_memory, then a STORE of each non-zero destination_memory, by
 * thread 1 of process 1, created first (PROC_CREATE).  Records give no
 * access size, so every access is 1 byte: it touches the recorded
 * address's page and invents no page crossing.  The trace has no
 * syscalls: the first access to each 1 GiB region (2^30 bytes, aligned)
 * is preceded by an implied anonymous MMAP of the whole region, so every
 * address is mapped and the OS model's VMA list stays a few entries long.
 * The first region starts at its second page, 0x1000: an MMAP at address
 * 0 means "the kernel picks the address" (traces/FORMAT.md), and the code
 * of a non-PIE binary (0x400000 on), where SPEC traces' IPs are, would be
 * mapped elsewhere; page 0 stays unmapped, as Linux's mmap_min_addr keeps
 * it.
 *
 * The format has no magic, so it is never guessed: it is read only when
 * asked for (format "champsim").  Records are checked so that a file of
 * another format fails early: flags 0 or 1, ip non-zero, addresses below
 * 2^56 (x86-64 user space, 5-level paging).
 */
#include <stdlib.h>
#include <string.h>

#include "ranges.h"
#include "trace_format.h"

#define CS_RECORD_SIZE 64
#define CS_NR_DST 2
#define CS_NR_SRC 4
#define CS_DST_OFFSET 16
#define CS_SRC_OFFSET 32
/* Implied mappings come in 1 GiB regions: few events, few VMAs. */
#define CS_REGION_SHIFT 30
/* Where the implied mapping of region 0 starts: page 0 cannot be mapped at. */
#define CS_FIRST_VA 0x1000ull
/* Above x86-64 user space even with 5-level paging (Intel SDM vol. 3, 4.5). */
#define CS_USER_LIMIT (1ull << 56)
#define CS_PID 1

struct champsim {
	struct trace_ranges regions;				/* the regions mapped so far */
	struct tlbsim_event q[2 * (1 + CS_NR_SRC + CS_NR_DST)]; /* one record's events */
	int q_head, q_len;
	int started;
	uint64_t rec_offset; /* of the record whose events @q holds; 0 before the first */
};

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int bad(struct tlbsim_trace_reader *r, struct tlbsim_error *err, int code, uint64_t offset,
	       const char *what, const char *expected, uint64_t found)
{
	return err_set(err, code, r->in.name, -1, -1, (long long)offset, NULL,
		       "record %llu, %s: %s expected, found 0x%llx",
		       (unsigned long long)(offset / CS_RECORD_SIZE), what, expected,
		       (unsigned long long)found);
}

static struct tlbsim_event *push(struct champsim *cs, uint8_t kind)
{
	struct tlbsim_event *ev = &cs->q[cs->q_len++];

	memset(ev, 0, sizeof(*ev));
	ev->kind = kind;
	ev->tid = CS_PID;
	ev->cpu = TLBSIM_CPU_ANY;
	return ev;
}

/* An access of one byte at @va, after the MMAP of its region the first time. */
static int cs_access(struct tlbsim_trace_reader *r, struct tlbsim_error *err, uint8_t kind,
		     uint64_t va, uint64_t offset, const char *what)
{
	struct champsim *cs = r->priv;
	uint64_t base = va & ~((1ull << CS_REGION_SHIFT) - 1);

	if (va >= CS_USER_LIMIT)
		return bad(r, err, -TLBSIM_ERANGE, offset, what,
			   "a user-space address (below 2^56)", va);
	if (!trace_ranges_contains(&cs->regions, va)) {
		struct tlbsim_event *ev = push(cs, TLBSIM_EV_MMAP);

		if (trace_ranges_add(&cs->regions, base, base + (1ull << CS_REGION_SHIFT) - 1) < 0)
			return err_set(err, -TLBSIM_ENOMEM, r->in.name, -1, -1, -1, NULL,
				       "out of memory");
		ev->mmap.addr = base ? base : CS_FIRST_VA;
		ev->mmap.len = (1ull << CS_REGION_SHIFT) - (base ? 0 : CS_FIRST_VA);
		ev->mmap.prot = TLBSIM_PROT_READ | TLBSIM_PROT_WRITE | TLBSIM_PROT_EXEC;
		ev->mmap.flags = TLBSIM_MAP_PRIVATE | TLBSIM_MAP_ANON;
		r->stats.implied_mmaps++;
	}
	push(cs, kind)->access.va = va;
	cs->q[cs->q_len - 1].access.size = 1;
	return 0;
}

/* The events of the record at the front of the window. */
static int decode(struct tlbsim_trace_reader *r, struct tlbsim_error *err)
{
	struct champsim *cs = r->priv;
	const uint8_t *p = r->in.buf + r->in.pos;
	uint64_t off = trace_in_offset(&r->in), ip = le64(p);
	int rc;

	if (p[8] > 1)
		return bad(r, err, -TLBSIM_EPARSE, off + 8, "is_branch", "0 or 1", p[8]);
	if (p[9] > 1 || (p[9] && !p[8]))
		return bad(r, err, -TLBSIM_EPARSE, off + 9, "branch_taken",
			   p[8] ? "0 or 1" : "0 (not a branch)", p[9]);
	if (ip == 0)
		return bad(r, err, -TLBSIM_EPARSE, off, "ip", "an instruction address", ip);
	if ((rc = cs_access(r, err, TLBSIM_EV_FETCH, ip, off, "ip")) < 0)
		return rc;
	for (int i = 0; i < CS_NR_SRC + CS_NR_DST; i++) {
		bool src = i < CS_NR_SRC;
		uint64_t at = src ? CS_SRC_OFFSET + 8 * i : CS_DST_OFFSET + 8 * (i - CS_NR_SRC);
		uint64_t va = le64(p + at);

		if (va &&
		    (rc = cs_access(r, err, src ? TLBSIM_EV_LOAD : TLBSIM_EV_STORE, va, off + at,
				    src ? "source_memory" : "destination_memory")) < 0)
			return rc;
	}
	cs->rec_offset = off;
	r->in.pos += CS_RECORD_SIZE;
	return 0;
}

static int champsim_next(struct tlbsim_trace_reader *r, struct tlbsim_event *ev,
			 struct tlbsim_error *err)
{
	struct champsim *cs = r->priv;
	int rc;

	if (cs->q_head == cs->q_len) {
		cs->q_head = cs->q_len = 0;
		if (!cs->started) {
			struct tlbsim_event *pc = push(cs, TLBSIM_EV_PROC_CREATE);

			pc->tid = TLBSIM_TID_NONE;
			pc->proc_create.pid = CS_PID;
			pc->proc_create.tid = CS_PID;
			cs->started = 1;
		} else {
			if (trace_in_avail(&r->in) < CS_RECORD_SIZE && !r->in.eof &&
			    (rc = trace_in_fill(&r->in, err)) < 0)
				return rc;
			if (trace_in_avail(&r->in) == 0)
				return 0;
			if (trace_in_avail(&r->in) < CS_RECORD_SIZE)
				return err_set(
				    err, -TLBSIM_ETRUNC, r->in.name, -1, -1,
				    (long long)trace_in_offset(&r->in), NULL,
				    "record %llu: a whole %d-byte record expected, found "
				    "%zu bytes",
				    (unsigned long long)(trace_in_offset(&r->in) / CS_RECORD_SIZE),
				    CS_RECORD_SIZE, trace_in_avail(&r->in));
			if ((rc = decode(r, err)) < 0)
				return rc;
		}
	}
	*ev = cs->q[cs->q_head++];
	return 1;
}

static int champsim_open(struct tlbsim_trace_reader *r, struct tlbsim_error *err)
{
	const uint8_t *p = r->in.buf + r->in.pos;
	size_t n = trace_in_avail(&r->in);

	if (!(r->priv = calloc(1, sizeof(struct champsim))))
		return err_set(err, -TLBSIM_ENOMEM, r->in.name, -1, -1, -1, NULL, "out of memory");
	if (n == 0)
		return err_set(err, -TLBSIM_ETRUNC, r->in.name, -1, -1, 0, NULL,
			       "a ChampSim trace expected, found an empty input");
	/* Catch the likeliest mix-up: a native trace read as ChampSim. */
	for (const struct trace_reader_ops *const *ops = trace_readers; *ops; ops++)
		if ((*ops)->magic && n >= (*ops)->magic_len &&
		    memcmp(p, (*ops)->magic, (*ops)->magic_len) == 0)
			return err_set(
			    err, -TLBSIM_EPARSE, r->in.name, -1, -1, 0, NULL,
			    "a ChampSim trace expected, found a tlbsim %s trace (read it "
			    "with format auto)",
			    (*ops)->name);
	r->info.isa = TLBSIM_ISA_X86_64; /* ChampSim's traces come from x86-64 Pin */
	r->info.page_shift = 12;
	r->info.nr_threads = 1;
	snprintf(r->info.source, sizeof(r->info.source), "champsim");
	return 0;
}

static void champsim_position(const struct tlbsim_trace_reader *r, uint64_t *line, uint64_t *offset)
{
	const struct champsim *cs = r->priv;

	*line = 0;
	*offset = cs->rec_offset;
}

static void champsim_close(struct tlbsim_trace_reader *r)
{
	struct champsim *cs = r->priv;

	if (!cs)
		return;
	trace_ranges_free(&cs->regions);
	free(cs);
	r->priv = NULL;
}

const struct trace_reader_ops trace_read_champsim = {
    .name = "champsim",
    .format = TLBSIM_TRACE_CHAMPSIM,
    .summary = "ChampSim instruction trace (64-byte input_instr records), read only when named",
    .open = champsim_open,
    .next = champsim_next,
    .position = champsim_position,
    .close = champsim_close,
};
