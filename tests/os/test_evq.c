/* SPDX-License-Identifier: MIT */
/*
 * Threads' event queues and their spill (src/os/evq.c): events come out
 * in the order they went in whether they stayed in the ring, were spilled
 * to chunks of compact records in memory, or went to the file; the first
 * 64 stay in the ring; nothing is spilled under the budget; chunks stay in
 * memory up to the byte cap, and where no file can be made or a write to
 * it fails (a full disk); records have the sizes worked out by hand; and a
 * whole simulation gives the same statistics, byte for byte, when every
 * queue spills.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "os/os.h"
#include "support/machines.h"
#include "tlbsim/trace.h"

static struct tlbsim_event access_ev(uint64_t i)
{
	struct tlbsim_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = TLBSIM_EV_LOAD;
	ev.tid = 1;
	ev.access.va = 0x10000000 + 8 * i;
	ev.access.size = 8;
	return ev;
}

/* Pops everything left in @q, checking each event is the next of @next. */
static void drain(struct os_evq *q, uint64_t *next)
{
	while (q->n) {
		assert_int_equal(q->idx[q->head], *next);
		assert_int_equal(q->ev[q->head].access.va, 0x10000000 + 8 * *next);
		os_evq_drop_head(q);
		(*next)++;
	}
	assert_int_equal(q->spilled, 0);
}

static void events_come_back_in_order_through_the_spill_file(void **state)
{
	struct os_spill sp;
	struct os_evq a, b;
	uint64_t i, na = 0, nb = 0;

	(void)state;
	os_spill_init(&sp);
	sp.budget = 0;	/* spill as soon as a queue holds 64 */
	sp.mem_cap = 0; /* every chunk to the file */
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	/* Two queues filled in turns, 10,000 events each, with indices
	 * 0..9999 in each (the order is all the check needs). */
	for (i = 0; i < 10000; i++) {
		struct tlbsim_event ev = access_ev(i);

		assert_int_equal(os_evq_push(&sp, &a, &ev, i), 0);
		assert_int_equal(os_evq_push(&sp, &b, &ev, i), 0);
	}
	/* Each keeps 64 in memory; of the other 9936, two whole chunks of
	 * 4096 went to the file and 9936 - 8192 = 1744 wait in the open
	 * chunk.  A chunk's first record is 6 bytes (its header, then the
	 * address 0x10000200 from 0, zigzag 0x20000400: a varint of 5
	 * bytes), every other 2 (the header, then the distance 8, zigzag 16:
	 * one byte): 6 + 4095 * 2 = 8196 bytes a chunk, 4 chunks. */
	assert_int_equal(a.n, 64);
	assert_int_equal(a.spilled, 9936);
	assert_int_equal(a.nr_chunks, 2);
	assert_int_equal(a.w.n, 1744);
	assert_int_equal(sp.written, 2 * 8192);
	assert_int_equal(sp.end, 4 * 8196);
	assert_int_equal(sp.kept, 0);
	assert_int_equal(os_evq_len(&a), 10000);
	/* One pop leaves 63 in memory: the oldest chunk comes back. */
	os_evq_drop_head(&a);
	na = 1;
	assert_int_equal(a.n, 63 + 4096);
	assert_int_equal(a.spilled, 9936 - 4096);
	/* Half of b, then more pushes to a behind its spilled events. */
	for (i = 0; i < 5000; i++) {
		assert_int_equal(b.idx[b.head], nb);
		os_evq_drop_head(&b);
		nb++;
	}
	for (i = 10000; i < 12000; i++) {
		struct tlbsim_event ev = access_ev(i);

		assert_int_equal(os_evq_push(&sp, &a, &ev, i), 0);
	}
	drain(&a, &na);
	drain(&b, &nb);
	assert_int_equal(na, 12000);
	assert_int_equal(nb, 10000);
	assert_int_equal(sp.error, 0);
	os_evq_free(&a);
	os_evq_free(&b);
	os_spill_fini(&sp);
}

/* os_evq_push_run() of events @from..@to (trace indices = i) in runs of
 * @run, as the refill routes them. */
/* A spill that takes every queue's events beyond its first 64 (budget 0),
 * and an empty queue @q. */
static void spill_start(struct os_spill *sp, struct os_evq *q)
{
	os_spill_init(sp);
	sp->budget = 0;
	memset(q, 0, sizeof(*q));
}

/* os_evq_push() of access_ev(i) for i in [@from, @to), one at a time. */
static void push_singles(struct os_spill *sp, struct os_evq *q, uint64_t from, uint64_t to)
{
	for (uint64_t i = from; i < to; i++) {
		struct tlbsim_event ev = access_ev(i);

		assert_int_equal(os_evq_push(sp, q, &ev, i), 0);
	}
}

static void push_runs(struct os_spill *sp, struct os_evq *q, uint64_t from, uint64_t to, uint32_t run)
{
	struct tlbsim_event ev[256];
	uint64_t i;
	uint32_t k, done;

	assert_true(run <= 256);
	for (i = from; i < to; i += k) {
		k = to - i < run ? (uint32_t)(to - i) : run;
		for (uint32_t j = 0; j < k; j++)
			ev[j] = access_ev(i + j);
		assert_int_equal(os_evq_push_run(sp, q, ev, i, k, &done), 0);
		assert_int_equal(done, k);
	}
}

static void runs_split_between_memory_and_the_file_as_single_pushes_do(void **state)
{
	struct os_spill sp;
	struct os_evq q;
	uint64_t next = 0;

	(void)state;
	os_spill_init(&sp);
	sp.budget = 100;
	sp.mem_cap = 0;
	memset(&q, 0, sizeof(q));
	/* Single pushes keep events in memory while the queue holds fewer
	 * than 64 or all queues fewer than the budget: the first 100; the
	 * other 9900 spill, two whole chunks of 4096 to the file and 1708
	 * in the open chunk.  Runs of 256 must split the same way, and give
	 * the same records: 6 + 4095 * 2 bytes a chunk (as above; the first
	 * address is 0x10000320, zigzag 0x20000640, also 5 bytes). */
	push_runs(&sp, &q, 0, 10000, 256);
	assert_int_equal(q.n, 100);
	assert_int_equal(q.spilled, 9900);
	assert_int_equal(q.nr_chunks, 2);
	assert_int_equal(q.w.n, 1708);
	assert_int_equal(q.w.bytes, 6 + 1707 * 2);
	assert_int_equal(sp.written, 8192);
	assert_int_equal(sp.end, 2 * 8196);
	assert_int_equal(sp.pushed, 100);
	assert_int_equal(sp.mem, 100);
	drain(&q, &next);
	assert_int_equal(next, 10000);
	os_evq_free(&q);
	os_spill_fini(&sp);
}

static void chunks_stay_in_memory_up_to_the_cap(void **state)
{
	struct os_spill sp;
	struct os_evq q;
	uint64_t next = 0;

	(void)state;
	os_spill_init(&sp);
	sp.budget = 0;
	sp.mem_cap = 8196 + 8195; /* one chunk of 8196 bytes fits, not two */
	memset(&q, 0, sizeof(q));
	/* 64 in the ring, then three chunks of 4096 (8196 bytes each, as
	 * above: each starts from address 0): the first stays in memory,
	 * the second and third would pass the cap and go to the file; 1 in
	 * the open chunk. */
	push_runs(&sp, &q, 0, 64 + 3 * 4096 + 1, 256);
	assert_int_equal(q.nr_chunks, 3);
	assert_non_null(q.chunks[q.chunk_head].buf);
	assert_null(q.chunks[q.chunk_head + 1].buf);
	assert_int_equal(sp.kept, 4096);
	assert_int_equal(sp.written, 8192);
	assert_int_equal(sp.mem_bytes, 8196);
	assert_int_equal(sp.end, 2 * 8196);
	/* Popping reads the first back and frees its bytes: a chunk
	 * completed now fits in memory again. */
	os_evq_drop_head(&q);
	next = 1;
	assert_int_equal(sp.mem_bytes, 0);
	push_runs(&sp, &q, 64 + 3 * 4096 + 1, 64 + 4 * 4096 + 1, 256);
	assert_int_equal(sp.kept, 8192);
	assert_int_equal(sp.written, 8192);
	assert_int_equal(sp.mem_bytes, 8196);
	drain(&q, &next);
	assert_int_equal(next, 64 + 4 * 4096 + 1);
	assert_int_equal(sp.mem_bytes, 0);
	assert_int_equal(sp.error, 0);
	os_evq_free(&q);
	os_spill_fini(&sp);
}

/* Event @i of a copy loop: even ones load from A = 0x10000000, odd ones
 * store to B = 0x20000000, 8 bytes further every two events. */
static struct tlbsim_event copy_ev(uint64_t i)
{
	struct tlbsim_event ev = access_ev(i);

	ev.kind = i % 2 ? TLBSIM_EV_STORE : TLBSIM_EV_LOAD;
	ev.access.va = (i % 2 ? 0x20000000 : 0x10000000) + 8 * (i / 2);
	return ev;
}

static void two_regions_in_turn_take_two_bytes_an_access(void **state)
{
	struct os_spill sp;
	struct os_evq q;
	uint64_t i;

	(void)state;
	spill_start(&sp, &q);
	for (i = 0; i < 64 + 4096 + 1; i++) {
		struct tlbsim_event ev = copy_ev(i);

		assert_int_equal(os_evq_push(&sp, &q, &ev, i), 0);
	}
	/*
	 * The chunk starts at event 64 with both bases at 0.  64: A + 256,
	 * zigzag 0x20000200 (5 bytes), far from both: a new region.  65:
	 * B + 256, 0x10000000 from A + 256, zigzag 0x20000000 (5 bytes), far
	 * from both: a new region, A + 256 second.  66: A + 264 is 8 from
	 * the second base (zigzag 16, 1 byte): the bases swap.  Every later
	 * one likewise: 1 + 5, 1 + 5, then 4094 records of 1 + 1 bytes.  From
	 * the last address alone, each would take 1 + 5.
	 */
	assert_int_equal(q.nr_chunks, 1);
	assert_int_equal(q.chunks[q.chunk_head].bytes, 6 + 6 + 4094 * 2);
	for (i = 0; q.n; i++) {
		struct tlbsim_event want = copy_ev(i);

		assert_int_equal(q.idx[q.head], i);
		assert_memory_equal(&q.ev[q.head], &want, sizeof(want));
		os_evq_drop_head(&q);
	}
	assert_int_equal(i, 64 + 4096 + 1);
	assert_int_equal(sp.error, 0);
	os_evq_free(&q);
	os_spill_fini(&sp);
}

static void a_run_wraps_around_the_ring(void **state)
{
	struct os_spill sp;
	struct os_evq q;
	uint64_t next = 150;
	int i;

	(void)state;
	os_spill_init(&sp);
	memset(&q, 0, sizeof(q));
	push_runs(&sp, &q, 0, 200, 200);
	assert_int_equal(q.cap, 256); /* the first ring */
	for (i = 0; i < 150; i++)
		os_evq_drop_head(&q);
	/* 50 from slot 150 on: the next 200 fill slots 200..255, then 0..143. */
	push_runs(&sp, &q, 200, 400, 200);
	assert_int_equal(q.cap, 256);
	assert_int_equal(q.n, 250);
	assert_int_equal(q.idx[255], 255);
	assert_int_equal(q.idx[0], 256);
	assert_int_equal(q.idx[143], 399);
	drain(&q, &next);
	assert_int_equal(next, 400);
	os_evq_free(&q);
	os_spill_fini(&sp);
}

/*
 * A full ring that wraps grows in place (realloc): the events from @head
 * to the old end stay, the part that wrapped moves to just past the old
 * end.  After a_run_wraps_around_the_ring's state (head 150, events
 * 150..255 in slots 150..255 and 256..399 in slots 0..143), events
 * 400..405 fill slots 144..149; event 406 grows the ring to 512: slots
 * 0..149 (events 256..405) move to 256..405, and 406 goes to slot 406.
 */
static void a_wrapped_ring_grows_in_order(void **state)
{
	struct os_spill sp;
	struct os_evq q;
	uint64_t next = 150;
	int i;

	(void)state;
	os_spill_init(&sp);
	memset(&q, 0, sizeof(q));
	push_runs(&sp, &q, 0, 200, 200);
	for (i = 0; i < 150; i++)
		os_evq_drop_head(&q);
	push_runs(&sp, &q, 200, 400, 200);
	push_singles(&sp, &q, 400, 406);
	assert_int_equal(q.cap, 256);
	assert_int_equal(q.n, 256);
	push_singles(&sp, &q, 406, 410);
	assert_int_equal(q.cap, 512);
	assert_int_equal(q.head, 150);
	assert_int_equal(q.idx[255], 255);
	assert_int_equal(q.idx[256], 256);
	assert_int_equal(q.idx[405], 405);
	assert_int_equal(q.idx[406], 406);
	assert_int_equal(q.ev[300].access.va, 0x10000000 + 8 * 300);
	drain(&q, &next);
	assert_int_equal(next, 410);
	os_evq_free(&q);
	os_spill_fini(&sp);
}

/*
 * A ring grows to hold the budget at most.  Budget 256: 256 events fill
 * the first ring; the simulation's recount (sim.c refill()) then finds
 * only 156 in memory (100 run elsewhere): the 257th is under the budget
 * but the ring already holds 256, so it spills instead of doubling it.
 */
static void a_ring_grows_to_the_budget_at_most(void **state)
{
	struct os_spill sp;
	struct os_evq q;
	uint64_t next = 0;

	(void)state;
	os_spill_init(&sp);
	sp.budget = 256;
	memset(&q, 0, sizeof(q));
	push_singles(&sp, &q, 0, 256);
	assert_int_equal(q.cap, 256);
	sp.mem = 156;
	push_singles(&sp, &q, 256, 300);
	assert_int_equal(q.cap, 256);
	assert_int_equal(q.n, 256);
	assert_int_equal(q.spilled, 44);
	drain(&q, &next);
	assert_int_equal(next, 300);
	os_evq_free(&q);
	os_spill_fini(&sp);
}

/*
 * Chunks kept in memory share a ring of bytes per queue, reused once read
 * back.  access_ev() records: 2 bytes each (header; distance 8 from the
 * last address, zigzag 16), the first of a chunk 5 (its address from 0 is
 * a 4-byte varint): 8196 bytes a chunk, 8228 with the padding.  Budget 0:
 * the first 64 stay in the ring; 5 chunks go to the store (64 KiB, the
 * first size), one event to the open chunk.  A chunk is read back each
 * time the ring falls under 64 (after 1, 4097 and 8193 drops): 12288
 * drops read back 3, freeing [0, 24684).  Four more chunks: two fill 41140..57596; the third does
 * not fit before the end (7940 bytes left) and starts the ring again at
 * 0, the fourth follows at 8228: no growth, and the order is kept.
 */
static void chunks_in_memory_reuse_their_ring(void **state)
{
	struct os_spill sp;
	struct os_evq q;
	uint64_t next = 0, n1 = 64 + 5 * 4096 + 1;

	(void)state;
	spill_start(&sp, &q); /* under the byte cap: every chunk stays in memory */
	push_singles(&sp, &q, 0, n1);
	assert_int_equal(q.store_live, 5);
	assert_int_equal(q.store_cap, 65536);
	assert_int_equal(q.store_tail, 5 * 8228);
	for (uint64_t i = 0; i < 3 * 4096; i++, next++) {
		assert_int_equal(q.idx[q.head], next);
		os_evq_drop_head(&q);
	}
	assert_int_equal(q.store_live, 2);
	assert_int_equal(q.store_head, 3 * 8228);
	push_singles(&sp, &q, n1, n1 + 4 * 4096);
	assert_int_equal(q.store_live, 6);
	assert_int_equal(q.store_cap, 65536);
	assert_int_equal(q.store_tail, 2 * 8228);
	assert_ptr_equal(q.chunks[(q.chunk_head + 4) % q.cap_chunks].buf, q.store);
	drain(&q, &next);
	assert_int_equal(next, n1 + 4 * 4096);
	assert_int_equal(q.store_live, 0);
	os_evq_free(&q);
	os_spill_fini(&sp);
}

/* Event @i of the mix below: loads, stores, fetches and computes of tid 7
 * on cpu 2; an mmap every 1000th; every 700th of tid 8 on cpu 3; event
 * 3000 an access of 100,000 bytes. */
static struct tlbsim_event mixed_ev(uint64_t i)
{
	struct tlbsim_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.tid = i % 700 == 699 ? 8 : 7;
	ev.cpu = i % 700 == 699 ? 3 : 2;
	if (i % 1000 == 999) {
		ev.kind = TLBSIM_EV_MMAP;
		ev.mmap.addr = 0x40000000 + (i << 12);
		ev.mmap.len = 8192;
		ev.mmap.prot = 3;
		ev.mmap.flags = 2;
	} else if (i % 4 == 3) {
		ev.kind = TLBSIM_EV_COMPUTE;
		ev.compute.count = 1000000007ull * i;
		ev.compute.unit = (uint8_t)(i & 1);
	} else {
		ev.kind = (uint8_t)(TLBSIM_EV_LOAD + i % 4);
		ev.access.va = 0xffff800000000000ull + 64 * i;
		ev.access.size = i == 3000 ? 100000 : (uint32_t)(1 + i % 64);
	}
	return ev;
}

/* Trace index of event @i of the mix: steps of 3, with a jump of 2^40
 * after the 2000th (a gap of 6 bytes). */
static uint64_t mixed_idx(uint64_t i)
{
	return 3 * i + (i >= 2000 ? 1ull << 40 : 0);
}

/* Pushes events 0..4160 of the mix into @q, spilling from the 65th on. */
static void push_the_mix(struct os_spill *sp, struct os_evq *q)
{
	uint64_t i;

	for (i = 0; i < 64 + 4096 + 1; i++) {
		struct tlbsim_event ev = mixed_ev(i);

		assert_int_equal(os_evq_push(sp, q, &ev, mixed_idx(i)), 0);
	}
	/* 64 stay in memory; the next 4096 are one chunk, completed when
	 * the last one comes, which waits in the open chunk. */
	assert_int_equal(q->nr_chunks, 1);
	assert_int_equal(q->w.n, 1);
	/*
	 * The chunk's records, events 64..4159, tid 7 on cpu 2 as the first:
	 * - 9 whole (1 + 48 + 8 = 57 bytes): the mmaps 999, 1999, 2999 and
	 *   3999, and the events of another tid and cpu 699, 1399, 2099,
	 *   2799 and 3499 (all at i % 4 == 3);
	 * - the other 1015 of i % 4 == 3 are computes of 9 bytes: header,
	 *   gap 3, count 1000000007 * i (2^35 < 6.4e10 .. 4.2e12 < 2^42: a
	 *   varint of 6 bytes) and unit;
	 * - 3072 accesses (i % 4 < 3): header, gap 3 (1 byte), the size as a
	 *   varint of 1 byte unless a power of two (1 + i % 64 is 1 or 2 for
	 *   i % 64 == 0 or 1: 128 of them), and the distance from the previous
	 *   fetch for a fetch (i % 4 == 2: 256, zigzag 512) or from the previous
	 *   load or store for those (64 or 192, zigzag 128 or 384), 2 bytes
	 *   each: 128 * 4 + 2944 * 5 bytes;
	 * - but event 64, the first, has no gap byte (the gap is 1 from the
	 *   chunk's start) and its address from 0, 0xffff800000001000, is
	 *   zigzag 0xffffffffdfff, 7 bytes: +4; event 66, the first fetch, is
	 *   from 0 too, 0xffff800000001080, zigzag 0xffffffffdeff, 7 bytes:
	 *   +5; event 2000's gap of 2^40 + 3 takes 6 bytes: +5; event 3000's
	 *   size 100,000 takes 3: +2.
	 */
	assert_int_equal(sizeof(struct tlbsim_event), 48);
	assert_int_equal(q->chunks[q->chunk_head].bytes,
			 9 * 57 + 1015 * 9 + 128 * 4 + 2944 * 5 + 4 + 5 + 5 + 2);
}

/* Pops everything push_the_mix() pushed, checking each event comes back
 * byte for byte. */
static void pop_the_mix(struct os_spill *sp, struct os_evq *q)
{
	uint32_t n = 0;

	while (q->n) {
		struct tlbsim_event want = mixed_ev(n);

		assert_int_equal(q->idx[q->head], mixed_idx(n));
		assert_memory_equal(&q->ev[q->head], &want, sizeof(want));
		os_evq_drop_head(q);
		n++;
	}
	assert_int_equal(n, 64 + 4096 + 1);
	assert_int_equal(sp->error, 0);
}

static void spilled_events_come_back_whole_from_the_file(void **state)
{
	struct os_spill sp;
	struct os_evq q;

	(void)state;
	spill_start(&sp, &q);
	sp.mem_cap = 0;
	push_the_mix(&sp, &q);
	assert_int_equal(sp.end, 24896);
	pop_the_mix(&sp, &q);
	assert_int_equal(sp.written, 4096);
	assert_int_equal(sp.kept, 0);
	os_evq_free(&q);
	os_spill_fini(&sp);
}

static void spilled_events_come_back_whole_from_memory(void **state)
{
	struct os_spill sp;
	struct os_evq q;

	(void)state;
	spill_start(&sp, &q);
	push_the_mix(&sp, &q);
	assert_int_equal(sp.mem_bytes, 24896);
	pop_the_mix(&sp, &q);
	assert_int_equal(sp.mem_bytes, 0);
	assert_int_equal(sp.kept, 4096);
	assert_int_equal(sp.written, 0);
	assert_false(sp.tried); /* no file was made */
	os_evq_free(&q);
	os_spill_fini(&sp);
}

/* A chunk damaged in the file fails its read back with EIO (the run then
 * stops with the spill error, sim.c), whatever the damage: a header no
 * record has, a varint running past the chunk's end, or a record cut. */
static void a_damaged_chunk_fails_its_read_back(void **state)
{
	static const unsigned char damage[][2] = {
	    {0xf3, 0x00}, /* a compute with size bits */
	    {0x84, 0x80}, /* a load whose varints go on past the end */
	    {0x0b, 0x00}, /* a whole event, with 1 of its 56 bytes */
	};
	unsigned d;

	(void)state;
	for (d = 0; d < sizeof(damage) / sizeof(damage[0]); d++) {
		struct os_spill sp;
		struct os_evq q;

		spill_start(&sp, &q);
		sp.mem_cap = 0;
		push_singles(&sp, &q, 0, 64 + 4097);
		assert_int_equal(sp.end, 8196);
		/* The last record (2 bytes, at 8194) becomes the damage. */
		assert_int_equal(pwrite(sp.fd, damage[d], 2, 8194), 2);
		os_evq_drop_head(&q);
		assert_int_equal(sp.error, EIO);
		assert_string_equal(sp.why, "read back from the file: Input/output error");
		os_evq_free(&q);
		os_spill_fini(&sp);
	}
}

/* The same damage in a chunk kept in memory says so. */
static void a_damaged_chunk_in_memory_fails_its_read_back(void **state)
{
	struct os_spill sp;
	struct os_evq q;

	(void)state;
	spill_start(&sp, &q);
	push_singles(&sp, &q, 0, 64 + 4097);
	assert_non_null(q.chunks[q.chunk_head].buf);
	q.chunks[q.chunk_head].buf[8194] = 0xf3; /* a compute with size bits */
	os_evq_drop_head(&q);
	assert_int_equal(sp.error, EIO);
	assert_string_equal(sp.why, "read back from memory: Input/output error");
	os_evq_free(&q);
	os_spill_fini(&sp);
}

static void nothing_spills_under_the_budget(void **state)
{
	struct os_spill sp;
	struct os_evq q;
	uint64_t next = 0;

	(void)state;
	os_spill_init(&sp);
	sp.budget = 1000;
	memset(&q, 0, sizeof(q));
	push_singles(&sp, &q, 0, 1000);
	assert_int_equal(q.n, 1000);
	assert_int_equal(q.spilled, 0);
	assert_false(sp.tried); /* no file was made */
	assert_int_equal(sp.fd, -1);
	drain(&q, &next);
	os_evq_free(&q);
	os_spill_fini(&sp);
}

static void without_a_place_for_the_file_chunks_stay_in_memory(void **state)
{
	const char *old = getenv("TMPDIR");
	char *saved = old ? strdup(old) : NULL;
	struct os_spill sp;
	struct os_evq q;
	uint64_t next = 0;

	(void)state;
	setenv("TMPDIR", "/nonexistent/tlbsim-test", 1);
	spill_start(&sp, &q);
	sp.mem_cap = 0;
	/* 64 in the ring; the first chunk of 4096 completes at the 4161st
	 * push, finds no file, and stays in memory; 840 in the open chunk. */
	push_singles(&sp, &q, 0, 5000);
	assert_true(sp.tried);
	assert_int_equal(sp.fd, -1);
	assert_int_equal(q.n, 64);
	assert_int_equal(q.nr_chunks, 1);
	assert_int_equal(q.w.n, 840);
	assert_int_equal(sp.kept, 4096);
	assert_int_equal(sp.mem_bytes, 8196);
	assert_int_equal(sp.written, 0);
	drain(&q, &next);
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	free(saved);
	os_evq_free(&q);
	os_spill_fini(&sp);
}

static void after_a_failed_write_chunks_stay_in_memory(void **state)
{
	struct os_spill sp;
	struct os_evq q, r;
	uint64_t i, next = 0;

	(void)state;
	os_spill_init(&sp);
	sp.budget = 0;
	/* A file open for reading only: pwrite() fails with EBADF, as a
	 * full disk fails with ENOSPC. */
	sp.fd = open("/dev/null", O_RDONLY);
	assert_true(sp.fd >= 0);
	sp.tried = true;
	memset(&q, 0, sizeof(q));
	memset(&r, 0, sizeof(r));
	sp.mem_cap = 0;
	/* 64 in memory, then 4096 fill the open chunk; the 4097th tries to
	 * write it, fails, and the chunk stays in memory: 904 are left in the
	 * open chunk, none in the file. */
	push_singles(&sp, &q, 0, 64 + 5000);
	assert_int_equal(sp.full, EBADF);
	assert_non_null(strstr(sp.full_why, "write: "));
	assert_int_equal(sp.error, 0);
	assert_int_equal(q.nr_chunks, 1);
	assert_int_equal(q.w.n, 904);
	assert_int_equal(sp.kept, 4096);
	assert_int_equal(sp.written, 0);
	assert_int_equal(sp.end, 0);
	/* A queue that completes a chunk afterwards keeps it in memory
	 * without trying the file again. */
	for (i = 0; i < 64 + 4097; i++) {
		struct tlbsim_event ev = access_ev(i);

		assert_int_equal(os_evq_push(&sp, &r, &ev, i), 0);
	}
	assert_int_equal(r.nr_chunks, 1);
	assert_int_equal(sp.kept, 8192);
	assert_int_equal(sp.mem_bytes, 2 * 8196);
	assert_int_equal(sp.written, 0);
	drain(&q, &next);
	assert_int_equal(next, 64 + 5000);
	next = 0;
	drain(&r, &next);
	assert_int_equal(sp.mem_bytes, 0);
	os_evq_free(&q);
	os_evq_free(&r);
	os_spill_fini(&sp);
}

static int reader_next(void *arg, struct tlbsim_event *ev, struct tlbsim_error *err)
{
	return tlbsim_trace_next(arg, ev, err);
}

/* Runs @text on a 2-cpu x86 machine with queues spilling beyond @budget
 * events, to memory up to @mem_cap bytes; returns the statistics JSON
 * (caller frees), with the events spilled to memory and to the file. */
static char *run(const char *text, uint64_t budget, uint64_t mem_cap, uint64_t *kept,
		 uint64_t *written, uint64_t *events)
{
	struct tlbsim_machine *m = test_machine(TLBSIM_ISA_X86_64, 2);
	struct tlbsim_sim_config cfg = {.machine = m, .threads = 1, .name = "drift.tlbt"};
	struct tlbsim_error err;
	tlbsim_trace_reader *r = NULL;
	tlbsim_sim *sim = NULL;
	struct os *os;
	char *json;
	unsigned c;

	tlbsim_error_clear(&err);
	assert_int_equal(tlbsim_trace_open_mem(text, strlen(text), "drift.tlbt", TLBSIM_TRACE_TEXT, &r,
					       &err),
			 0);
	assert_int_equal(tlbsim_sim_create(&cfg, &sim, &err), 0);
	os = os_of_sim(sim);
	os->spill.budget = budget;
	os->spill.mem_cap = mem_cap;
	assert_int_equal(tlbsim_sim_run(sim, reader_next, r, &err), 0);
	*kept = os->spill.kept;
	*written = os->spill.written;
	*events = 0;
	for (c = 0; c < m->nr_cpus; c++)
		*events += os->cpu[c].st.events;
	json = tlbsim_sim_stats_json(sim);
	assert_non_null(json);
	tlbsim_sim_destroy(sim);
	tlbsim_trace_close(r);
	tlbsim_machine_free(m);
	return json;
}

/*
 * Thread 1 maps 64 KiB and starts thread 2; thread 2 loads 20,000 times,
 * then thread 1 loads 20,000 times and both exit: when thread 1 first runs
 * dry, its next event lies 20,000 events ahead, behind all of thread 2's,
 * which queue up (and spill, with a budget of 0).  Events run on the cpus:
 * mmap, thread_create, 20,000 + 20,000 loads, 2 exits = 40,004 (the
 * proc_create of no thread runs at no cpu).
 */
static void a_simulation_gives_the_same_statistics_when_queues_spill(void **state)
{
	size_t cap = 64 * 40100, len = 0;
	char *text = malloc(cap);
	char *in_ring, *in_chunks, *in_file;
	uint64_t k0, k1, k2, w0, w1, w2, e0, e1, e2;
	int i;

	(void)state;
	assert_non_null(text);
	len += (size_t)snprintf(text + len, cap - len,
				"tlbsim-trace 1 isa=x86-64 page_shift=12\nproc_create 1 1\n"
				"T1 mmap 0x10000000 0x10000 rw- private,anon\nT1 thread_create 2\n");
	for (i = 0; i < 20000; i++)
		len += (size_t)snprintf(text + len, cap - len, "T2 load 0x%x 8\n",
					0x10000000 + (i * 8) % 0x10000);
	for (i = 0; i < 20000; i++)
		len += (size_t)snprintf(text + len, cap - len, "T1 load 0x%x 8\n",
					0x10000000 + (i * 8) % 0x10000);
	len += (size_t)snprintf(text + len, cap - len, "T2 exit\nT1 exit\n");
	in_ring = run(text, OS_SPILL_BUDGET, OS_SPILL_MEM, &k0, &w0, &e0);
	in_chunks = run(text, 0, OS_SPILL_MEM, &k1, &w1, &e1);
	in_file = run(text, 0, 0, &k2, &w2, &e2);
	assert_int_equal(k0 + w0, 0);
	assert_true(k1 >= 4096);
	assert_int_equal(w1, 0);
	assert_int_equal(k2, 0);
	assert_true(w2 >= 4096);
	assert_int_equal(e0, 40004);
	assert_int_equal(e1, 40004);
	assert_int_equal(e2, 40004);
	assert_string_equal(in_ring, in_chunks);
	assert_string_equal(in_ring, in_file);
	free(in_ring);
	free(in_chunks);
	free(in_file);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(events_come_back_in_order_through_the_spill_file),
	    cmocka_unit_test(runs_split_between_memory_and_the_file_as_single_pushes_do),
	    cmocka_unit_test(chunks_stay_in_memory_up_to_the_cap),
	    cmocka_unit_test(two_regions_in_turn_take_two_bytes_an_access),
	    cmocka_unit_test(a_run_wraps_around_the_ring),
	    cmocka_unit_test(a_wrapped_ring_grows_in_order),
	    cmocka_unit_test(a_ring_grows_to_the_budget_at_most),
	    cmocka_unit_test(chunks_in_memory_reuse_their_ring),
	    cmocka_unit_test(spilled_events_come_back_whole_from_the_file),
	    cmocka_unit_test(spilled_events_come_back_whole_from_memory),
	    cmocka_unit_test(a_damaged_chunk_fails_its_read_back),
	    cmocka_unit_test(a_damaged_chunk_in_memory_fails_its_read_back),
	    cmocka_unit_test(nothing_spills_under_the_budget),
	    cmocka_unit_test(without_a_place_for_the_file_chunks_stay_in_memory),
	    cmocka_unit_test(after_a_failed_write_chunks_stay_in_memory),
	    cmocka_unit_test(a_simulation_gives_the_same_statistics_when_queues_spill),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
