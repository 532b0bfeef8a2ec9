/* SPDX-License-Identifier: MIT */
/*
 * The events of a syscall of a lackey log, made when its successful result
 * is read (lackey_syscall.c): mmap at the address it returned, mremap to
 * the address it returned, brk to the break it returned, clone() of a
 * thread as THREAD_CREATE of the tid it returned; and the reader's set of
 * mapped pages kept up to date (traces/FORMAT.md, "Syscalls").  Arguments
 * follow Linux's x86-64 ABI (include/uapi/asm-generic/mman-common.h,
 * linux/mman.h, linux/sched.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lackey.h"
#include "linux_abi.h"

/* [@addr, @addr + @len) in whole pages, as the kernel rounds it; false if empty or past 2^64. */
static bool pages(const struct lackey *lk, uint64_t addr, uint64_t len, uint64_t *first,
		  uint64_t *last)
{
	if (len == 0 || addr + len - 1 < addr)
		return false;
	*first = addr & ~(lk->page_size - 1);
	*last = (addr + len - 1) | (lk->page_size - 1);
	return true;
}

static int mapped_update(struct tlbsim_trace_reader *r, struct tlbsim_error *err, uint64_t addr,
			 uint64_t len, bool add, const char *at)
{
	struct lackey *lk = r->priv;
	uint64_t first, last;
	int rc = 0;

	if (pages(lk, addr, len, &first, &last))
		rc = add ? trace_ranges_add(&lk->mapped, first, last)
			 : trace_ranges_remove(&lk->mapped, first, last);
	return rc < 0 ? lk_bad(r, err, rc, at, "out of memory") : 0;
}

/* A successful call @c of thread @tid returned @val: its events. */
int lk_succeeded(struct tlbsim_trace_reader *r, struct tlbsim_error *err, const struct lk_call *c,
		 uint32_t tid, uint64_t val, const char *at)
{
	struct lackey *lk = r->priv;
	struct tlbsim_event *ev;
	uint64_t first, last;
	uint8_t advice = 0;
	int rc;

	/* mprotect and madvise fail on unmapped memory: success proves the range mapped. */
	if ((c->sys == LK_MPROTECT || c->sys == LK_MADVISE) &&
	    pages(lk, c->arg[0], c->arg[1], &first, &last) &&
	    (rc = lk_imply(r, err, tid, first, last, at)) < 0)
		return rc;
	if (c->sys == LK_MADVISE && !linux_madvise_advice(c->arg[2], &advice))
		return 0; /* other advice changes no page table */
	if (c->sys == LK_FORK ||
	    (c->sys == LK_CLONE && (~c->arg[0] & (L_CLONE_VM | L_CLONE_THREAD))))
		return lk_bad(
		    r, err, -TLBSIM_ENOTSUP, at,
		    "a new process (fork, vfork, or clone without CLONE_VM|CLONE_THREAD): "
		    "lackey does not say which process an access is from, so logs of "
		    "programs that fork are not supported");
	if (c->sys == LK_CLONE && (val == 0 || val > UINT32_MAX))
		return lk_bad(r, err, -TLBSIM_ERANGE, at, "clone(): a tid 1..2^32-1 expected");
	ev = lk_push(lk, 0, tid);
	if (!ev)
		return lk_bad(r, err, -TLBSIM_ENOMEM, at, "out of memory");
	switch (c->sys) {
	case LK_MMAP:
		ev->kind = TLBSIM_EV_MMAP;
		ev->mmap.addr = val;
		ev->mmap.len = c->arg[1];
		ev->mmap.prot = (uint8_t)(c->arg[2] & 7);
		ev->mmap.flags = linux_mmap_flags(c->arg[3]);
		break;
	case LK_MUNMAP:
		ev->kind = TLBSIM_EV_MUNMAP;
		ev->munmap.addr = c->arg[0];
		ev->munmap.len = c->arg[1];
		break;
	case LK_MPROTECT:
		ev->kind = TLBSIM_EV_MPROTECT;
		ev->mprotect.addr = c->arg[0];
		ev->mprotect.len = c->arg[1];
		ev->mprotect.prot = (uint8_t)(c->arg[2] & 7);
		break;
	case LK_MADVISE:
		ev->kind = TLBSIM_EV_MADVISE;
		ev->madvise.addr = c->arg[0];
		ev->madvise.len = c->arg[1];
		ev->madvise.advice = advice;
		break;
	case LK_MREMAP:
		ev->kind = TLBSIM_EV_MREMAP;
		ev->mremap.old_addr = c->arg[0];
		ev->mremap.old_len = c->arg[1];
		ev->mremap.new_len = c->arg[2];
		ev->mremap.new_addr = val;
		ev->mremap.flags = (uint8_t)(c->arg[3] & L_MREMAP_FLAGS);
		break;
	case LK_BRK:
		ev->kind = TLBSIM_EV_BRK;
		ev->brk.end = val;
		break;
	case LK_CLONE:
		ev->kind = TLBSIM_EV_THREAD_CREATE;
		ev->thread_create.tid = (uint32_t)val;
		break;
	}
	if ((rc = lk_check_last(r, err, at)) < 0)
		return rc;
	switch (c->sys) {
	case LK_MMAP:
		return mapped_update(r, err, val, c->arg[1], true, at);
	case LK_MUNMAP:
		return mapped_update(r, err, c->arg[0], c->arg[1], false, at);
	case LK_MREMAP:
		if (!(c->arg[3] & 4) &&
		    (rc = mapped_update(r, err, c->arg[0], c->arg[1], false, at)))
			return rc;
		return mapped_update(r, err, val, c->arg[2], true, at);
	case LK_BRK: {
		/* The heap is [start, end): the first brk names the start; the
		 * kernel maps and unmaps it in whole pages (mm/mmap.c, brk). */
		uint64_t old = lk->brk_end, pm = lk->page_size - 1;

		if (!lk->has_brk) {
			lk->has_brk = 1;
			lk->brk_start = lk->brk_end = val;
			return 0;
		}
		lk->brk_end = val < lk->brk_start ? lk->brk_start : val;
		if (lk->brk_end > old)
			return mapped_update(r, err, old, lk->brk_end - old, true, at);
		if (((lk->brk_end + pm) & ~pm) < ((old + pm) & ~pm) &&
		    trace_ranges_remove(&lk->mapped, (lk->brk_end + pm) & ~pm,
					((old + pm) & ~pm) - 1) < 0)
			return lk_bad(r, err, -TLBSIM_ENOMEM, at, "out of memory");
		return 0;
	}
	case LK_CLONE:
		if (lk->nr_clones == lk->cap_clones) {
			uint32_t cap = lk->cap_clones ? 2 * lk->cap_clones : 8;
			uint32_t *q = realloc(lk->clones, cap * sizeof(*q));

			if (!q)
				return lk_bad(r, err, -TLBSIM_ENOMEM, at, "out of memory");
			lk->clones = q;
			lk->cap_clones = cap;
		}
		lk->clones[lk->nr_clones++] = (uint32_t)val;
		return 0;
	}
	return 0;
}
