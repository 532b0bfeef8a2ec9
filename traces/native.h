/* SPDX-License-Identifier: MIT */
/*
 * The native binary trace format's constants and codecs, shared by
 * read_native.c and write_native.c; traces/FORMAT.md ("Binary format") is
 * the specification.  Varints are LEB128 as in protobuf and DWARF; signed
 * address deltas are zigzag-encoded as in protobuf's sint64.
 *
 * Internal to traces/.
 */
#ifndef TLBSIM_TRACES_NATIVE_H
#define TLBSIM_TRACES_NATIVE_H

#include <stdint.h>

#include "event_layout.h"

#define NATIVE_MAGIC "TLBSIMTR"
#define NATIVE_MAGIC_LEN 8
/* magic 8, version 2, isa 1, page_shift 1, nr_threads 4, source length 2 */
#define NATIVE_HEADER_FIXED 18

/* Record opcodes: the first byte of every record. */
#define NATIVE_OP_END 0x00	  /* varint event count; the last record */
#define NATIVE_OP_TID 0x80	  /* flag on an event: a varint tid follows the opcode */
#define NATIVE_OP_ACCESS 0x40	  /* 0x40 | (kind - 1) << 3 | log2(size): compact access */
#define NATIVE_OP_ACCESS_END 0x58 /* first opcode past the compact accesses */
#define NATIVE_OP_SET_CPU 0x7f	  /* varint cpu of the events that follow */

/* Bytes of an LEB128 varint of 64 bits, at most: ceil(64 / 7). */
#define NATIVE_VARINT_MAX 10
/* Bytes of a record, at most: opcode, tid, every field a full varint. */
#define NATIVE_RECORD_MAX (1 + NATIVE_VARINT_MAX * (1 + TRACE_MAX_FIELDS))
/*
 * Distinct thread ids a trace may use: bounds the per-thread address table
 * (13 bytes a thread) so a corrupt trace cannot exhaust memory; Linux's
 * default pid_max is 2^22 (kernel/pid.c, PID_MAX_LIMIT on 64-bit).
 */
#define NATIVE_THREADS_MAX (1u << 22)

static inline uint8_t *native_put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/*
 * The varint at @p, all of whose NATIVE_VARINT_MAX bytes may be read: the
 * byte after it, or NULL for one longer than 64 bits.  Varints of one and
 * two bytes, most of a sequential stream's deltas and of the spilled event
 * records' (src/os/evq.c), are taken before the loop.
 */
static inline const uint8_t *native_varint_in_window(const uint8_t *p, uint64_t *out)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	if (*p < 0x80) { /* one byte: most deltas of a sequential stream */
		*out = *p;
		return p + 1;
	}
	if (p[1] < 0x80) { /* two: a stride or a jump within 8 KiB */
		*out = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
		return p + 2;
	}
	do {
		if (shift == 63 && *p > 1)
			return NULL;
		b = *p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	*out = v;
	return p;
}

/* Zigzag: 0, -1, 1, -2, ... -> 0, 1, 2, 3, ...; arithmetic modulo 2^64. */
static inline uint64_t native_zigzag(uint64_t delta)
{
	return (delta << 1) ^ (0 - (delta >> 63));
}

static inline uint64_t native_unzigzag(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

/*
 * The previous address of each thread, against which the next address of
 * that thread is delta-encoded: an open-addressing hash table on tid.
 */
struct native_threads {
	uint32_t *tids;
	uint64_t *last_va;
	uint8_t *used;
	uint32_t mask; /* capacity - 1; capacity is a power of two */
	uint32_t nr;
	uint32_t cur_tid;
	uint64_t *cur; /* &last_va[] of cur_tid */
};

/* Start with thread TLBSIM_TID_NONE current.  Returns 0 or -TLBSIM_ENOMEM. */
int trace_native_threads_init(struct native_threads *t);
void trace_native_threads_free(struct native_threads *t);
/*
 * Make @tid current, adding it (last address 0) when new.  Returns 0,
 * -TLBSIM_ENOMEM, or -TLBSIM_ERANGE past NATIVE_THREADS_MAX threads.
 */
int trace_native_threads_switch(struct native_threads *t, uint32_t tid);

#endif
