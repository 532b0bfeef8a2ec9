/* SPDX-License-Identifier: MIT */
/*
 * mmu_gather: a syscall's PTE changes are batched, flushed once, and only
 * then are the data pages and page-table pages freed (Linux
 * mm/mmu_gather.c: tlb_gather_mmu(), __tlb_adjust_range(),
 * tlb_remove_page(), free_pgtables() setting freed_tables, tlb_finish_mmu()
 * -> tlb_flush_mmu(): flush, then free).  The table pages go to the
 * policy's table-free strategy (immediate, or after an RCU grace period).
 * The data pages leave the LRU under the lru_lock (os/lru.c); the table
 * pages were never on it.
 */
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "os/os.h"
#include "tlbsim/error.h"

int os_pfns_push(struct os_pfns *p, uint64_t pfn)
{
	if (p->n == p->cap) {
		unsigned cap = p->cap ? 2 * p->cap : 64;
		uint64_t *n = realloc(p->pfn, cap * sizeof(*n));

		if (!n)
			return -TLBSIM_ENOMEM;
		p->pfn = n;
		p->cap = cap;
	}
	p->pfn[p->n++] = pfn;
	return 0;
}

void os_pfns_free(struct os_pfns *p)
{
	free(p->pfn);
	memset(p, 0, sizeof(*p));
}

void os_gather_init(struct os_gather *g, struct os_mm *mm, bool fullmm)
{
	g->mm = mm;
	g->start = 0;
	g->end = 0;
	g->stride_shift = 30;
	g->freed_tables = false;
	g->fullmm = fullmm;
	g->call_start = g->call_end = 0;
	g->pages.n = 0;
	g->lru_pages = 0;
	g->tables.n = 0;
	/* inc_tlb_flush_pending() (tlb_gather_mmu()); dropped after the
	 * flush, in gather_free(). */
	mm->tlb_flush_pending++;
}

void os_gather_add_range(struct os_gather *g, uint64_t start, uint64_t end, unsigned shift)
{
	if (g->end == 0) {
		g->start = start;
		g->end = end;
	} else {
		if (start < g->start)
			g->start = start;
		if (end > g->end)
			g->end = end;
	}
	/* The flush must use the smallest page size changed (Linux
	 * tlb_change_page_size() flushes when it changes; one stride is
	 * enough for us as the range is flushed once). */
	if (shift < g->stride_shift)
		g->stride_shift = shift;
}

int os_gather_add_page(struct os_gather *g, uint64_t pfn)
{
	return os_pfns_push(&g->pages, pfn);
}

void os_gather_table_cb(void *arg, uint64_t pfn, unsigned level, uint64_t va)
{
	struct os_gather *g = arg;

	(void)level;
	(void)va;
	g->freed_tables = true;
	/* Out of host memory here would leak one simulated frame; the run
	 * goes on (the frame just stays allocated). */
	(void)os_pfns_push(&g->tables, pfn);
}

/* After the flush has completed everywhere: free what the gather holds. */
static void gather_free(struct os *os, struct hw_cpu *cpu)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	struct os_gather *g = &oc->gather;
	os_cont_fn then = oc->cont_then;

	oc->cont_then = NULL;
	os_free_frames(os, g->pages.pfn, g->pages.n);
	g->mm->st.pages_freed += g->pages.n;
	os_lru_release(os, cpu, g->lru_pages);
	if (g->tables.n) {
		struct tlbsim_pctx ctx;

		g->mm->st.tables_freed += g->tables.n;
		if (os->pol.free_tables.p) {
			os_pctx(os, cpu, &os->pol.free_tables, &ctx);
			os->pol.free_tables.p->free_tables(&ctx, &g->mm->pub, g->tables.pfn,
							   g->tables.n);
		} else {
			os_free_frames(os, g->tables.pfn, g->tables.n);
		}
	}
	g->pages.n = 0;
	g->lru_pages = 0;
	g->tables.n = 0;
	g->end = 0;
	/* The PTE locks held across the flush (an mremap's) are dropped. */
	oc->ptl_held.n = 0;
	g->mm->tlb_flush_pending--;
	if (then)
		then(os, cpu);
}

void os_gather_finish(struct os *os, struct hw_cpu *cpu, os_cont_fn then)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	struct os_gather *g = &oc->gather;

	BUG_ON(oc->cont, "one continuation at a time per cpu");
	oc->cont_then = then;
	if (!g->fullmm && g->mm->tlb_flush_pending > 1 && !os->no_nested_flush) {
		/* tlb_finish_mmu(): another gather of this mm is in flight and
		 * may have cleared PTEs this one found empty (two madvise
		 * (MADV_DONTNEED) of one range): flush the whole mm before
		 * returning (mm_tlb_flush_nested(), Linux 4.15, commit
		 * 99baac21e458 "mm: fix MADV_[FREE|DONTNEED] TLB flush miss
		 * problem"); since 7a30df49f63a "mm: mmu_gather: remove
		 * __tlb_reset_range() for force flush" (Linux 5.2) a fullmm
		 * flush with freed_tables. */
		if (os->nested_reset_range) {
			/* Mutation nested_reset_range (Linux 4.20-5.1):
			 * __tlb_reset_range() then __tlb_adjust_range(start,
			 * end): the range this gather was finished for, at
			 * the smallest stride, and freed_tables dropped, so
			 * arm64 invalidates the last level only although
			 * munmap (under the read lock since 4.20) may have
			 * freed page tables. */
			if (g->call_end) {
				g->start = g->call_start;
				g->end = g->call_end;
			}
			g->stride_shift = 12;
			g->freed_tables = false;
		} else {
			g->start = 0;
			g->end = TLBSIM_FLUSH_ALL;
			g->stride_shift = 12;
			g->freed_tables = true;
		}
	}
	if (g->end || g->fullmm) {
		uint64_t start = g->fullmm ? 0 : g->start;
		uint64_t end = g->fullmm ? TLBSIM_FLUSH_ALL : g->end;

		os_flush_range(os, cpu, g->mm, start, end, g->fullmm ? 12 : g->stride_shift,
			       g->freed_tables || g->fullmm);
	}
	/* Free only once every cpu has dropped the translations: now, or
	 * when the wait the flush started is over. */
	if (cpu->core->state == ENG_BLOCKED)
		oc->cont = gather_free;
	else
		gather_free(os, cpu);
}
