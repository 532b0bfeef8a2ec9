/* SPDX-License-Identifier: MIT */
/*
 * ftruncate() of a file mapped MAP_SHARED: a zap that holds no mmap_lock
 * (Linux mm/truncate.c truncate_pagecache() -> mm/memory.c
 * unmap_mapping_range(): for every VMA of the file's i_mmap tree,
 * zap_page_range_single(), which takes its own mmu_gather and the PTE
 * locks only; then truncate_inode_pages() drops the pages from the page
 * cache, which frees them).  It therefore runs beside the syscalls and
 * faults of the processes that map the file: it waits only for a PTE
 * lock another cpu holds across its flush (an mremap moving the pages,
 * os_cpu.ptl_held), and its gather, in flight while it waits for its
 * flush, is what another gather of the mm sees as nested
 * (mm_tlb_flush_nested() in tlb_finish_mmu()).
 *
 * One VMA at a time, each with its own gather and flush (Linux's
 * zap_page_range_single() per VMA of the i_mmap tree); the pages are
 * dropped after the last.
 */
#include "bug.h"
#include "os/os.h"

#define PAGE_SIZE (1ull << TLBSIM_PAGE_SHIFT)

/* The part of @v holding pages of its file from @pgoff on: [*s, *e). */
static bool vma_part(const struct os_vma *v, uint32_t file, uint64_t pgoff, uint64_t *s,
		     uint64_t *e)
{
	uint64_t pages = (v->end - v->start) >> TLBSIM_PAGE_SHIFT;

	if (!(v->flags & OS_VMA_FILE) || v->file != file || v->pgoff + pages <= pgoff)
		return false;
	*s = v->start + (pgoff > v->pgoff ? (pgoff - v->pgoff) << TLBSIM_PAGE_SHIFT : 0);
	*e = v->end;
	return true;
}

static uint64_t first_pgoff(const struct tlbsim_event *ev)
{
	/* truncate_pagecache(): holebegin = round_up(newsize, PAGE_SIZE) */
	return (ev->truncate.size + PAGE_SIZE - 1) >> TLBSIM_PAGE_SHIFT;
}

bool os_truncate_must_wait(struct os *os, struct hw_cpu *cpu, const struct tlbsim_event *ev)
{
	for (uint32_t m = 0; m < os->nr_mms; m++) {
		struct os_mm *mm = os->mms[m];

		for (unsigned i = 0; !mm->dead && i < mm->nr_vma; i++) {
			struct tlbsim_mapping cur;
			uint64_t s, e, pstart;

			if (!vma_part(&mm->vma[i], ev->truncate.file, first_pgoff(ev), &s, &e))
				continue;
			while (os_next_leaf(mm->pgt, &s, e, &cur, &pstart)) {
				if (os_ptl_held_elsewhere(os, cpu, cur.table_pfn))
					return true;
				s = pstart + (1ull << cur.size_shift);
			}
		}
	}
	return false;
}

/* truncate_inode_pages(): the pages from the first one on leave the page
 * cache; those mapped nowhere now are freed. */
static void drop_pages(struct os *os, struct hw_cpu *cpu)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	uint64_t pages, pfn, freed = 0;

	if (!chk_map_get(&os->file_pages, oc->trunc_file, &pages))
		return;
	for (uint64_t p = oc->trunc_pgoff; p < pages; p++)
		if (os_pagecache_drop(os, oc->trunc_file, p, &pfn)) {
			os_free_frames(os, &pfn, 1);
			freed++;
		}
	if (oc->trunc_pgoff < pages)
		(void)chk_map_put(&os->file_pages, oc->trunc_file, oc->trunc_pgoff);
	os_lru_release(os, cpu, freed);
}

/* The next VMA mapping the file, in address-space order then address
 * order: zap its part with a gather of its own (zap_page_range_single()
 * per VMA), flush; then this again, after the frees. */
static void truncate_next(struct os *os, struct hw_cpu *cpu)
{
	struct os_cpu *oc = os_cpu_of(cpu);

	for (; oc->trunc_mm < os->nr_mms; oc->trunc_mm++, oc->trunc_va = 0) {
		struct os_mm *mm = os->mms[oc->trunc_mm];

		for (unsigned i = 0; !mm->dead && i < mm->nr_vma; i++) {
			uint64_t s, e;

			if (mm->vma[i].end <= oc->trunc_va ||
			    !vma_part(&mm->vma[i], oc->trunc_file, oc->trunc_pgoff, &s, &e))
				continue;
			oc->trunc_va = e;
			os_gather_init(&oc->gather, mm, false);
			os_flush_batched_pending(os, &oc->gather);
			oc->gather.call_start = s;
			oc->gather.call_end = e;
			os_zap_range(os, cpu, mm, s, e);
			os_gather_finish(os, cpu, truncate_next);
			return;
		}
	}
	drop_pages(os, cpu);
}

void os_truncate(struct os *os, struct hw_cpu *cpu, const struct tlbsim_event *ev)
{
	struct os_cpu *oc = os_cpu_of(cpu);

	hw_charge(cpu, os->m->costs.syscall);
	oc->st.syscalls++;
	oc->trunc_file = ev->truncate.file;
	oc->trunc_pgoff = first_pgoff(ev);
	oc->trunc_mm = 0;
	oc->trunc_va = 0;
	truncate_next(os, cpu);
}
