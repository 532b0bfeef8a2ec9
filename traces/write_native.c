/* SPDX-License-Identifier: MIT */
/*
 * Writer of the native binary trace format (traces/FORMAT.md, "Binary
 * format"), tuned for long runs of accesses by a few interleaved threads:
 * the tid is written only when it changes, the cpu only when it changes,
 * and each address as the zigzag varint of its distance from the same
 * thread's previous address, so a sequential access costs 2 bytes and one
 * within 1 MiB of the last at most 4.
 */
#include <stdlib.h>
#include <string.h>

#include "native.h"
#include "trace_format.h"

struct native_writer {
	struct native_threads threads;
	uint16_t cpu;
};

/* log2(@size) for the sizes a compact access can hold (1 .. 128), or -1. */
static int compact_size_log2(uint32_t size)
{
	if (size == 0 || size > 128 || (size & (size - 1)))
		return -1;
	return __builtin_ctz(size);
}

static uint8_t *put_va(struct native_writer *nw, uint8_t *p, uint64_t va)
{
	p = native_put_varint(p, native_zigzag(va - *nw->threads.cur));
	*nw->threads.cur = va;
	return p;
}

static int native_write(struct tlbsim_trace_writer *w, const struct tlbsim_event *ev)
{
	struct native_writer *nw = w->priv;
	const struct trace_kind *k = trace_kind(ev->kind);
	uint8_t *p = trace_out_reserve(&w->out, NATIVE_RECORD_MAX + 1 + NATIVE_VARINT_MAX);
	uint8_t tid_flag = 0;
	int log2, rc;

	if (!p)
		return w->out.err.code;
	if (ev->cpu != nw->cpu) {
		*p++ = NATIVE_OP_SET_CPU;
		p = native_put_varint(p, ev->cpu);
		nw->cpu = ev->cpu;
	}
	if (ev->tid != nw->threads.cur_tid) {
		rc = trace_native_threads_switch(&nw->threads, ev->tid);
		if (rc < 0)
			return err_set(&w->out.err, rc, w->out.path, -1, -1, -1, NULL,
				       "cannot track thread %u", (unsigned)ev->tid);
		tid_flag = NATIVE_OP_TID;
	}
	log2 = ev->kind <= TLBSIM_EV_FETCH ? compact_size_log2(ev->access.size) : -1;
	if (log2 >= 0) {
		*p++ = (uint8_t)(tid_flag | NATIVE_OP_ACCESS | (ev->kind - 1) << 3 | log2);
		if (tid_flag)
			p = native_put_varint(p, ev->tid);
		p = put_va(nw, p, ev->access.va);
	} else {
		*p++ = (uint8_t)(tid_flag | ev->kind);
		if (tid_flag)
			p = native_put_varint(p, ev->tid);
		for (int i = 0; i < k->nr_fields; i++) {
			if (k->fields[i].type == TF_VA)
				p = put_va(nw, p, trace_field_get(ev, &k->fields[i]));
			else
				p = native_put_varint(p, trace_field_get(ev, &k->fields[i]));
		}
	}
	w->out.len = (size_t)(p - w->out.buf);
	return 0;
}

static int native_open(struct tlbsim_trace_writer *w, struct tlbsim_error *err)
{
	struct native_writer *nw = calloc(1, sizeof(*nw));
	size_t n = strlen(w->info.source);
	uint8_t h[NATIVE_HEADER_FIXED];
	int rc;

	if (!nw || trace_native_threads_init(&nw->threads) < 0) {
		free(nw);
		return err_set(err, -TLBSIM_ENOMEM, w->out.path, -1, -1, -1, NULL, "out of memory");
	}
	nw->cpu = TLBSIM_CPU_ANY;
	w->priv = nw;
	/* little-endian fixed fields, FORMAT.md "Header" */
	memcpy(h, NATIVE_MAGIC, NATIVE_MAGIC_LEN);
	h[8] = TLBSIM_TRACE_VERSION & 0xff;
	h[9] = TLBSIM_TRACE_VERSION >> 8;
	h[10] = (uint8_t)w->info.isa;
	h[11] = (uint8_t)w->info.page_shift;
	for (int i = 0; i < 4; i++)
		h[12 + i] = (uint8_t)(w->info.nr_threads >> (8 * i));
	h[16] = (uint8_t)(n & 0xff);
	h[17] = (uint8_t)(n >> 8);
	rc = trace_out_write(&w->out, h, sizeof(h));
	if (rc == 0)
		rc = trace_out_write(&w->out, w->info.source, n);
	if (rc < 0 && err && !err->code)
		*err = w->out.err;
	return rc;
}

/* The end record: its count lets a reader tell a whole trace from a cut one. */
static int native_finish(struct tlbsim_trace_writer *w)
{
	uint8_t rec[1 + NATIVE_VARINT_MAX];
	uint8_t *p = rec;

	*p++ = NATIVE_OP_END;
	p = native_put_varint(p, w->nr_events);
	return trace_out_write(&w->out, rec, (size_t)(p - rec));
}

static void native_close(struct tlbsim_trace_writer *w)
{
	struct native_writer *nw = w->priv;

	if (!nw)
		return;
	trace_native_threads_free(&nw->threads);
	free(nw);
	w->priv = NULL;
}

const struct trace_writer_ops trace_write_native = {
    .name = "binary",
    .format = TLBSIM_TRACE_BINARY,
    .open = native_open,
    .write = native_write,
    .finish = native_finish,
    .close = native_close,
};
