/* SPDX-License-Identifier: MIT */
/*
 * Reader of the native binary trace format (traces/FORMAT.md, "Binary
 * format"), the inverse of write_native.c.  It decodes records straight
 * from the input window, refilled whenever less than a whole record of the
 * largest size is left, so no record straddles a refill.  Errors give the
 * byte offset in the decompressed trace of the record (or varint) at fault.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "native.h"
#include "trace_format.h"

struct native_reader {
	struct native_threads threads;
	uint16_t cpu;
	int done;
	/* access_run()'s table: by compact opcode (less NATIVE_OP_ACCESS),
	 * the first word (kind, cpu, tid) and the third (size) of its access
	 * event for @words_tid on @words_cpu */
	uint32_t words_tid;
	uint16_t words_cpu;
	uint64_t words[NATIVE_OP_ACCESS_END - NATIVE_OP_ACCESS][2];
	/* tlbsim_trace_position(): the offset of the record of the last event
	 * native_next() returned (access_run() keeps none) */
	uint64_t ev_offset;
};

/* Fill @nr's access_run() table for @tid on @cpu: each opcode's event,
 * made as one_access() makes it, cut into words. */
static void access_words(struct native_reader *nr, uint32_t tid, uint16_t cpu)
{
	struct tlbsim_event e;
	unsigned k;

	for (k = 0; k < NATIVE_OP_ACCESS_END - NATIVE_OP_ACCESS; k++) {
		memset(&e, 0, sizeof(e));
		e.kind = (uint8_t)(TLBSIM_EV_LOAD + (k >> 3));
		e.cpu = cpu;
		e.tid = tid;
		e.access.size = 1u << (k & 7);
		memcpy(&nr->words[k][0], &e, 8);
		memcpy(&nr->words[k][1], (const char *)&e + 16, 8);
	}
	nr->words_tid = tid;
	nr->words_cpu = cpu;
}

static int bad(struct tlbsim_trace_reader *r, struct tlbsim_error *err, int code, uint64_t offset,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int bad(struct tlbsim_trace_reader *r, struct tlbsim_error *err, int code, uint64_t offset,
	       const char *fmt, ...)
{
	char text[TLBSIM_ERROR_TEXT_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return err_set(err, code, r->in.name, -1, -1, (long long)offset, NULL, "%s", text);
}

enum { VARINT_OK = 0, VARINT_CUT = -1, VARINT_TOO_LONG = -2 };

/* LEB128 from [*@pp, @end); the 10th byte may hold only bit 63. */
static int get_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	if (p < end && *p < 0x80) { /* one byte: most deltas of a sequential stream */
		*out = *p;
		*pp = p + 1;
		return VARINT_OK;
	}
	do {
		if (p == end)
			return VARINT_CUT;
		b = *p++;
		if (shift == 63 && b > 1)
			return VARINT_TOO_LONG;
		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	*pp = p;
	*out = v;
	return VARINT_OK;
}

/* Decoding state of one record, for error messages. */
struct rec {
	uint64_t start; /* offset of the opcode */
	const uint8_t *base;
	const uint8_t *p, *end;
	const char *what;
};

/*
 * One varint field of @rec, at most @max.  A varint longer than 64 bits in
 * an address field (@is_va) means an address beyond 2^64.
 */
static int get_field(struct tlbsim_trace_reader *r, struct tlbsim_error *err, struct rec *rec,
		     const char *field, uint64_t max, int is_va, uint64_t *v)
{
	const uint8_t *at = rec->p;
	uint64_t offset = rec->start + (uint64_t)(at - rec->base);
	int rc = get_varint(&rec->p, rec->end, v);

	if (rc == VARINT_CUT)
		return bad(r, err, -TLBSIM_ETRUNC, rec->start,
			   "%s record cut off: the trace ends at byte %" PRIu64 " in its %s",
			   rec->what, rec->start + (uint64_t)(rec->end - rec->base), field);
	if (rc == VARINT_TOO_LONG)
		return bad(r, err, -TLBSIM_ERANGE, offset,
			   "%s %s: a varint of at most 64 bits expected, found a longer one%s",
			   rec->what, field, is_va ? " (an address beyond 2^64)" : "");
	if (*v > max)
		return bad(r, err, -TLBSIM_ERANGE, offset,
			   "%s %s: at most %" PRIu64 " expected, found %" PRIu64, rec->what, field,
			   max, *v);
	return 0;
}

static int get(struct tlbsim_trace_reader *r, struct tlbsim_error *err, struct rec *rec,
	       const char *field, uint64_t max, uint64_t *v)
{
	return get_field(r, err, rec, field, max, 0, v);
}

/* An address: the thread's previous one plus a zigzag delta, modulo 2^64. */
static int get_va(struct tlbsim_trace_reader *r, struct tlbsim_error *err, struct rec *rec,
		  const char *field, uint64_t *va)
{
	struct native_reader *nr = r->priv;
	uint64_t z;
	int rc = get_field(r, err, rec, field, UINT64_MAX, 1, &z);

	if (rc < 0)
		return rc;
	*va = *nr->threads.cur + native_unzigzag(z);
	*nr->threads.cur = *va;
	return 0;
}

static int end_record(struct tlbsim_trace_reader *r, struct tlbsim_error *err, struct rec *rec)
{
	struct native_reader *nr = r->priv;
	struct trace_in *in = &r->in;
	uint64_t count;
	int rc = get(r, err, rec, "event count", UINT64_MAX, &count);

	if (rc < 0)
		return rc;
	if (count != r->nr_events)
		return bad(r, err, -TLBSIM_EPARSE, rec->start,
			   "end record: %" PRIu64 " events expected (its count), found %" PRIu64,
			   count, r->nr_events);
	in->pos = (size_t)(rec->p - in->buf);
	if (trace_in_avail(in) == 0 && (rc = trace_in_fill(in, err)) < 0)
		return rc;
	if (trace_in_avail(in))
		return bad(r, err, -TLBSIM_EPARSE, trace_in_offset(in),
			   "the end of the trace expected after the end record, found more bytes");
	nr->done = 1;
	return 0;
}

/* An event record's opcode: a kind, or a compact access, maybe with a tid. */
static int is_event_opcode(unsigned op)
{
	unsigned code = op & ~NATIVE_OP_TID;

	if (code >= NATIVE_OP_ACCESS)
		return code < NATIVE_OP_ACCESS_END;
	return trace_kind(code) != NULL;
}

static int decode_event(struct tlbsim_trace_reader *r, struct tlbsim_error *err, struct rec *rec,
			unsigned op, struct tlbsim_event *ev)
{
	struct native_reader *nr = r->priv;
	unsigned code = op & ~NATIVE_OP_TID;
	const struct trace_kind *k;
	uint64_t v;
	int rc, field;
	char why[200];

	ev->kind = code >= NATIVE_OP_ACCESS ? ((code >> 3) & 3) + TLBSIM_EV_LOAD : code;
	k = trace_kind(ev->kind);
	rec->what = k->name;
	if (op & NATIVE_OP_TID) {
		if ((rc = get(r, err, rec, "tid", UINT32_MAX, &v)) < 0)
			return rc;
		if ((rc = trace_native_threads_switch(&nr->threads, (uint32_t)v)) < 0)
			return bad(r, err, rc, rec->start, "thread %" PRIu64 ": too many threads",
				   v);
	}
	ev->tid = nr->threads.cur_tid;
	ev->cpu = nr->cpu;
	if (code >= NATIVE_OP_ACCESS) {
		ev->access.size = 1u << (code & 7);
		if ((rc = get_va(r, err, rec, "va", &ev->access.va)) < 0)
			return rc;
	} else {
		for (int i = 0; i < k->nr_fields; i++) {
			const struct trace_field *f = &k->fields[i];

			rc = f->type == TF_VA
				 ? get_va(r, err, rec, f->name, &v)
				 : get(r, err, rec, f->name, trace_field_width_max(f), &v);
			if (rc < 0)
				return rc;
			trace_field_set(ev, f, v);
		}
	}
	if (trace_event_check(ev, &field, why, sizeof(why)) < 0)
		return bad(r, err, -TLBSIM_EINVAL, rec->start, "%s", why);
	nr->ev_offset = rec->start;
	r->in.pos = (size_t)(rec->p - r->in.buf);
	return 1;
}

/* Bytes of a compact access record, at most: its opcode and a 64-bit varint. */
#define ACCESS_RECORD_MAX (1 + NATIVE_VARINT_MAX)

/* one_access() but the event: the opcode in *@op and the address in *@va. */
static inline const uint8_t *access_fields(const uint8_t *p, uint64_t *va, unsigned *op)
{
	const unsigned o = p[0];
	const uint8_t *q;
	uint64_t z, next;
	uint32_t size;

	if (o - NATIVE_OP_ACCESS >= NATIVE_OP_ACCESS_END - NATIVE_OP_ACCESS)
		return NULL;
	/* The one-byte delta is tested here as well as in
	 * native_varint_in_window(): the hit trace decoded about 8 % faster
	 * with it (perf_sim --decode, builds taking turns, 4 x 3 runs). */
	if (p[1] < 0x80) {
		z = p[1];
		q = p + 2;
	} else if (!(q = native_varint_in_window(p + 1, &z))) {
		return NULL;
	}
	size = 1u << (o & 7);
	next = *va + native_unzigzag(z);
	/* The last byte past the top of the address space; the first test
	 * (sizes are at most 128) keeps the common case to one compare. */
	if (__builtin_expect(next > UINT64_MAX - 127, 0) && next > UINT64_MAX - (size - 1))
		return NULL;
	*va = next;
	*op = o;
	return q;
}

/*
 * One compact access without a tid at @p, all ACCESS_RECORD_MAX bytes of
 * which may be read, of thread @tid (not TLBSIM_TID_NONE) whose previous
 * address is *@va, on @cpu, into @ev (already zeroed), decoded without the
 * field table and the error bookkeeping: nearly every record of a trace is
 * one, and decode_event() costs three times as much.  Returns the byte
 * after the record with *@va advanced, or NULL with nothing changed when
 * the record needs decode_event(): another opcode, a varint longer than
 * 64 bits, or an access past 2^64 (decode_event() reports the error).
 * Accepts exactly what decode_event() accepts.
 */
static inline const uint8_t *one_access(const uint8_t *p, uint64_t *va, uint32_t tid, uint16_t cpu,
					struct tlbsim_event *ev)
{
	unsigned op;
	const uint8_t *q = access_fields(p, va, &op);

	if (!q)
		return NULL;
	ev->kind = (uint8_t)(((op >> 3) & 3) + TLBSIM_EV_LOAD);
	ev->tid = tid;
	ev->cpu = cpu;
	ev->access.va = *va;
	ev->access.size = 1u << (op & 7);
	return q;
}

/*
 * Bytes a record must have left in @in's window to be decoded without a
 * refill: native_next() refills below NATIVE_RECORD_MAX while more input
 * is to come, so a record met there must wait for the refill (and any
 * error of it) exactly as one by one; at the end of the input, a whole
 * compact access.
 */
static inline size_t window_needed(const struct trace_in *in)
{
	return in->eof ? ACCESS_RECORD_MAX : NATIVE_RECORD_MAX;
}

_Static_assert(sizeof(struct tlbsim_event) == 48 && offsetof(struct tlbsim_event, access.va) == 8 &&
		       offsetof(struct tlbsim_event, access.size) == 16,
	       "access_run() writes an access event as six 64-bit words");

/*
 * The run of compact accesses at the window's position, into @ev[0, @max):
 * access_fields() in a loop, the window checked once per record and the
 * thread's address kept in a register.  Stops before the first record
 * one_access() would refuse and before the first one short of
 * window_needed(), so the records read and any error of the refill come at
 * exactly the same point as one by one.  Returns how many events it
 * decoded.
 *
 * Each event is the one one_access() writes into a zeroed event, stored as
 * 8-byte words: its first (kind, cpu, tid) and third (size) come from
 * a table of the same events (access_words()), whatever the byte order, so an
 * event costs five stores instead of a zeroing and five fields (eight: the
 * decoder's cost was its stores).
 */
static size_t access_run(struct native_reader *nr, struct trace_in *in, struct tlbsim_event *ev,
			 size_t max)
{
	const uint8_t *p = in->buf + in->pos, *end = in->buf + in->len, *safe, *q;
	const uint32_t tid = nr->threads.cur_tid;
	const uint16_t cpu = nr->cpu;
	const size_t need = window_needed(in);
	const uint64_t(*words)[2] = nr->words;
	struct tlbsim_event *d = ev, *const dend = ev + max;
	uint64_t va;
	unsigned op;

	if (tid == TLBSIM_TID_NONE || (size_t)(end - p) < need)
		return 0;
	if (tid != nr->words_tid || cpu != nr->words_cpu)
		access_words(nr, tid, cpu);
	va = *nr->threads.cur;
	safe = end - need; /* a record starting at or before it is whole */
	for (; d < dend && p <= safe; d++, p = q) {
		const uint64_t *w;

		if (!(q = access_fields(p, &va, &op)))
			break;
		w = words[op - NATIVE_OP_ACCESS];
		memcpy(d, &w[0], 8);
		memcpy((char *)d + 8, &va, 8);
		memcpy((char *)d + 16, &w[1], 8);
		memset((char *)d + 24, 0, 24);
	}
	*nr->threads.cur = va;
	in->pos = (size_t)(p - in->buf);
	return (size_t)(d - ev);
}

/* native_next() for every record but a compact access whole in the window. */
static __attribute__((noinline)) int next_record(struct tlbsim_trace_reader *r,
						 struct tlbsim_event *ev, struct tlbsim_error *err)
{
	struct native_reader *nr = r->priv;
	struct trace_in *in = &r->in;
	const uint8_t *q;
	struct rec rec;
	uint64_t v;
	unsigned op;
	int rc;

	while (!nr->done) {
		if (trace_in_avail(in) < NATIVE_RECORD_MAX && !in->eof &&
		    (rc = trace_in_fill(in, err)) < 0)
			return rc;
		/* After a refill, most records are compact accesses again;
		 * the last few of the input, and everything else, take the
		 * general path (which accepts the same accesses). */
		if (trace_in_avail(in) >= ACCESS_RECORD_MAX && nr->threads.cur_tid != TLBSIM_TID_NONE &&
		    (q = one_access(in->buf + in->pos, nr->threads.cur, nr->threads.cur_tid, nr->cpu,
				    ev))) {
			nr->ev_offset = trace_in_offset(in);
			in->pos = (size_t)(q - in->buf);
			return 1;
		}
		rec = (struct rec){trace_in_offset(in), in->buf + in->pos, in->buf + in->pos + 1,
				   in->buf + in->len, "record"};
		if (trace_in_avail(in) == 0)
			return bad(
			    r, err, -TLBSIM_ETRUNC, rec.start,
			    "an end record expected, found the end of the trace after %" PRIu64
			    " events",
			    r->nr_events);
		op = *rec.base;
		if (op == NATIVE_OP_END) {
			rec.what = "end";
			return end_record(r, err, &rec);
		}
		if (op == NATIVE_OP_SET_CPU) {
			rec.what = "set_cpu";
			if ((rc = get(r, err, &rec, "cpu", TLBSIM_CPU_ANY, &v)) < 0)
				return rc;
			nr->cpu = (uint16_t)v;
			in->pos = (size_t)(rec.p - in->buf);
			continue;
		}
		if (!is_event_opcode(op))
			return bad(
			    r, err, -TLBSIM_EPARSE, rec.start,
			    "a record opcode expected (events 0x01-0x%02x, accesses 0x40-0x57, "
			    "cpu 0x7f, end 0x00; +0x80 with a tid), found 0x%02x",
			    TLBSIM_EV_NR_KINDS - 1, op);
		return decode_event(r, err, &rec, op, ev);
	}
	return 0;
}

/*
 * One event: nearly always a compact access whole in the window, decoded
 * inline by one_access() (a window check, no loop, no saved registers);
 * anything else through next_record().
 */
static int native_next(struct tlbsim_trace_reader *r, struct tlbsim_event *ev,
		       struct tlbsim_error *err)
{
	struct native_reader *nr = r->priv;
	struct trace_in *in = &r->in;
	const uint8_t *q;

	if (__builtin_expect(nr->threads.cur_tid != TLBSIM_TID_NONE &&
				 trace_in_avail(in) >= window_needed(in),
			     1) &&
	    (q = one_access(in->buf + in->pos, nr->threads.cur, nr->threads.cur_tid, nr->cpu, ev))) {
		nr->ev_offset = trace_in_offset(in);
		in->pos = (size_t)(q - in->buf);
		return 1;
	}
	return next_record(r, ev, err);
}

/*
 * tlbsim_trace_next_batch(): runs of compact accesses in access_run(),
 * everything else (the window's refill, other records, set_cpu, the end
 * record, errors) through native_next(), one record at a time, with
 * @r->nr_events up to date as its messages quote it.
 */
static size_t native_next_batch(struct tlbsim_trace_reader *r, struct tlbsim_event *ev,
				size_t max)
{
	struct native_reader *nr = r->priv;
	struct trace_in *in = &r->in;
	size_t n = 0, k;
	int rc;

	while (n < max) {
		k = access_run(nr, in, ev + n, max - n);
		n += k;
		r->nr_events += k;
		if (n == max)
			break;
		memset(&ev[n], 0, sizeof(ev[n]));
		rc = native_next(r, &ev[n], &r->err);
		if (rc <= 0) {
			if (rc == 0)
				r->ended = 1;
			else
				r->failed = rc;
			break;
		}
		n++;
		r->nr_events++;
	}
	return n;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int native_open(struct tlbsim_trace_reader *r, struct tlbsim_error *err)
{
	struct trace_in *in = &r->in;
	struct native_reader *nr = calloc(1, sizeof(*nr));
	const uint8_t *h = in->buf;
	size_t n;
	int i;

	if (!nr || trace_native_threads_init(&nr->threads) < 0) {
		free(nr);
		return bad(r, err, -TLBSIM_ENOMEM, 0, "out of memory");
	}
	nr->cpu = TLBSIM_CPU_ANY;
	access_words(nr, TLBSIM_TID_NONE, nr->cpu);
	r->priv = nr;
	/* the first window holds at least 64 KiB or the whole trace */
	if (in->len < NATIVE_MAGIC_LEN || memcmp(h, NATIVE_MAGIC, NATIVE_MAGIC_LEN) != 0)
		return bad(r, err, -TLBSIM_EPARSE, 0, "magic \"TLBSIMTR\" expected, found \"%.*s\"",
			   (int)(in->len < NATIVE_MAGIC_LEN ? in->len : NATIVE_MAGIC_LEN),
			   (const char *)h);
	if (in->len < NATIVE_HEADER_FIXED)
		return bad(r, err, -TLBSIM_ETRUNC, in->len, "header cut off after %zu bytes",
			   in->len);
	r->info.version = (unsigned)h[8] | (unsigned)h[9] << 8;
	if (r->info.version != TLBSIM_TRACE_VERSION)
		return bad(r, err, -TLBSIM_ENOTSUP, 8, "version %d expected, found %u",
			   TLBSIM_TRACE_VERSION, r->info.version);
	r->info.isa = (enum tlbsim_isa)h[10];
	if (!trace_name_of(trace_isa_names, h[10]))
		return bad(r, err, -TLBSIM_EPARSE, 10,
			   "isa: 1 (x86-64) or 2 (arm64) expected, found %u", (unsigned)h[10]);
	r->info.page_shift = h[11];
	if (!trace_page_shift_ok(h[11]))
		return bad(r, err, -TLBSIM_EPARSE, 11,
			   "page_shift: 12, 14 or 16 expected, found %u", (unsigned)h[11]);
	r->info.nr_threads = le32(h + 12);
	n = (size_t)h[16] | (size_t)h[17] << 8;
	if (n >= sizeof(r->info.source))
		return bad(r, err, -TLBSIM_EPARSE, 16,
			   "source length: at most %zu expected, found %zu",
			   sizeof(r->info.source) - 1, n);
	if (in->len < NATIVE_HEADER_FIXED + n)
		return bad(r, err, -TLBSIM_ETRUNC, in->len,
			   "header cut off inside the source string");
	if ((i = trace_source_bad_char((const char *)h + NATIVE_HEADER_FIXED, n)) >= 0)
		return bad(r, err, -TLBSIM_EPARSE, NATIVE_HEADER_FIXED + (uint64_t)i,
			   "source: printable characters expected, found byte 0x%02x",
			   h[NATIVE_HEADER_FIXED + i]);
	memcpy(r->info.source, h + NATIVE_HEADER_FIXED, n);
	r->info.source[n] = '\0';
	in->pos = NATIVE_HEADER_FIXED + n;
	return 0;
}

static void native_position(const struct tlbsim_trace_reader *r, uint64_t *line, uint64_t *offset)
{
	const struct native_reader *nr = r->priv;

	*line = 0;
	*offset = nr->ev_offset;
}

static void native_close(struct tlbsim_trace_reader *r)
{
	struct native_reader *nr = r->priv;

	if (!nr)
		return;
	trace_native_threads_free(&nr->threads);
	free(nr);
	r->priv = NULL;
}

const struct trace_reader_ops trace_read_native = {
    .name = "binary",
    .format = TLBSIM_TRACE_BINARY,
    .summary = "native binary trace (traces/FORMAT.md), 2-4 bytes an access",
    .magic = NATIVE_MAGIC,
    .magic_len = NATIVE_MAGIC_LEN,
    .open = native_open,
    .next = native_next,
    .next_batch = native_next_batch,
    .position = native_position,
    .close = native_close,
};
