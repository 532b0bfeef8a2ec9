/* SPDX-License-Identifier: MIT */
/*
 * Address spaces: VMAs, the memory syscalls, page faults, fork with
 * copy-on-write, and exit_mmap.  Each follows Linux in the order of its
 * page-table changes, flushes and frees:
 *   mmap           mm/mmap.c: a VMA only, pages come by demand faults
 *   munmap         unmap_region(): zap PTEs, free_pgtables(), then
 *                  tlb_finish_mmu(): flush, free pages and tables
 *   mprotect       change_protection(): rewrite PTEs, flush those whose
 *                  change needs it (x86 pte_needs_flush(): any change of
 *                  write, exec or user permission; arm64 every change)
 *   madvise        DONTNEED: zap_page_range_single(), tables stay;
 *                  FREE: madvise_free_pte_range() cleans PTEs, flushes
 *   mremap         move_page_tables(): PTEs move, old range flushed
 *   brk            grows the heap VMA or unmaps its tail
 *   fault          do_anonymous_page(), do_wp_page() (COW copy with
 *                  ptep_clear_flush(), or reuse), spurious faults
 *   fork           dup_mmap(): child shares pages read-only, parent
 *                  write-protected, flush_tlb_mm(parent)
 *   exit           exit_mmap(): a full-mm gather, every table freed
 */
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "check/oracle.h"
#include "hw/pgtable_internal.h"
#include "hw/pte.h"
#include "os/os.h"
#include "tlbsim/error.h"

#define PAGE_SIZE (1ull << TLBSIM_PAGE_SHIFT)
/* Where anonymous mappings without an address are placed, top-down
 * (x86-64 mmap_base below the stack; any canonical user VA will do). */
#define MMAP_BASE 0x7f0000000000ull

/* Highest user address + 1: free_pgtables' last ceiling (pgtable.c's
 * canonical user range). */
static uint64_t user_top(const struct os *os)
{
	if (os->m->isa == TLBSIM_ISA_ARM64)
		return 1ull << 48;
	return os->m->pt_levels == 5 ? 1ull << 56 : 1ull << 47;
}

static uint64_t page_align_up(uint64_t v, uint64_t size)
{
	return (v + size - 1) & ~(size - 1);
}

/* ---- VMAs ---------------------------------------------------------------- */

/* Index of the first VMA whose end is above @va. */
static unsigned vma_index(const struct os_mm *mm, uint64_t va)
{
	unsigned lo = 0, hi = mm->nr_vma;

	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;

		if (mm->vma[mid].end <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct os_vma *os_vma_find(struct os_mm *mm, uint64_t va)
{
	unsigned i = vma_index(mm, va);

	if (i < mm->nr_vma && mm->vma[i].start <= va)
		return &mm->vma[i];
	return NULL;
}

static int vma_insert_at(struct os_mm *mm, unsigned i, const struct os_vma *v)
{
	if (mm->nr_vma == mm->cap_vma) {
		unsigned cap = mm->cap_vma ? 2 * mm->cap_vma : 16;
		struct os_vma *n = realloc(mm->vma, cap * sizeof(*n));

		if (!n)
			return -TLBSIM_ENOMEM;
		mm->vma = n;
		mm->cap_vma = cap;
	}
	memmove(&mm->vma[i + 1], &mm->vma[i], (mm->nr_vma - i) * sizeof(*v));
	mm->vma[i] = *v;
	mm->nr_vma++;
	return 0;
}

int os_vma_insert(struct os_mm *mm, uint64_t start, uint64_t end, unsigned prot, unsigned flags)
{
	struct os_vma v = {.start = start, .end = end, .prot = prot, .flags = flags};

	return vma_insert_at(mm, vma_index(mm, start), &v);
}

int os_vma_insert_copy(struct os_mm *mm, const struct os_vma *v)
{
	return vma_insert_at(mm, vma_index(mm, v->start), v);
}

/* Make @va a VMA boundary, splitting the VMA that straddles it. */
static int vma_split_at(struct os_mm *mm, uint64_t va)
{
	unsigned i = vma_index(mm, va);
	struct os_vma right;

	if (i == mm->nr_vma || mm->vma[i].start >= va)
		return 0;
	right = mm->vma[i];
	right.start = va;
	if (right.flags & OS_VMA_FILE)
		right.pgoff += (va - mm->vma[i].start) >> TLBSIM_PAGE_SHIFT;
	mm->vma[i].end = va;
	return vma_insert_at(mm, i + 1, &right);
}

/* VMAs [*first, *last) lie inside [start, end) after splitting at both. */
static int vma_range(struct os_mm *mm, uint64_t start, uint64_t end, unsigned *first, unsigned *last)
{
	int err = vma_split_at(mm, start);

	if (!err)
		err = vma_split_at(mm, end);
	if (err)
		return err;
	*first = vma_index(mm, start);
	*last = vma_index(mm, end);
	return 0;
}

/* ---- page frames ------------------------------------------------------- */

static int mapcount_grow(struct os *os, uint64_t pfn)
{
	uint64_t cap = os->mapcount_cap ? os->mapcount_cap : 4096;
	uint32_t *n;

	while (cap <= pfn)
		cap *= 2;
	n = realloc(os->mapcount, cap * sizeof(*n));
	if (!n)
		return -TLBSIM_ENOMEM;
	memset(n + os->mapcount_cap, 0, (cap - os->mapcount_cap) * sizeof(*n));
	os->mapcount = n;
	os->mapcount_cap = cap;
	return 0;
}

/* Map @pfn at @va, one more map count on its frames; the table the leaf
 * went into in *@table_pfn (NULL: not wanted).  @hint: where the fault's
 * lookup of @va stopped (hw_pgtable_map()), or NULL. */
static int map_page(struct os *os, struct os_mm *mm, uint64_t va, uint64_t pfn, unsigned shift,
		    unsigned prot, const struct hw_pgtable_hint *hint, uint64_t *table_pfn)
{
	uint64_t n = 1ull << (shift - TLBSIM_PAGE_SHIFT), i;
	int err;

	if (pfn + n > os->mapcount_cap && mapcount_grow(os, pfn + n))
		return -TLBSIM_ENOMEM;
	err = hw_pgtable_map(mm->pgt, va, pfn, shift, prot | TLBSIM_PROT_USER, hint, table_pfn);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		os->mapcount[pfn + i]++;
	return 0;
}

void os_free_frames(struct os *os, const uint64_t *pfns, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		BUG_ON(tlbsim_physmem_free(os->pm, pfns[i]) != 0, "freed frames were allocated");
}

/*
 * Drop one mapping of the page at @pfn (2^(shift-12) frames): frames no
 * longer mapped anywhere go to the gather, to be freed after the flush.
 * A page freed counts once for the LRU, huge or not (one folio).
 */
static void unref_page(struct os *os, struct os_gather *g, uint64_t pfn, unsigned shift)
{
	uint64_t n = 1ull << (shift - TLBSIM_PAGE_SHIFT), i;
	bool freed = false;

	for (i = 0; i < n; i++) {
		BUG_ON(!os->mapcount[pfn + i], "a mapped frame has a map count");
		if (--os->mapcount[pfn + i] == 0) {
			(void)os_gather_add_page(g, pfn + i);
			freed = true;
		}
	}
	if (freed)
		g->lru_pages++;
}

/*
 * The next present leaf at or after *@va and below @end: fills @cur and
 * returns the page's first address (the leaf may start before *@va for a
 * huge page); the caller continues from that address + the page size.
 * Returns false when none is left.  Empty tables are skipped whole.
 */
bool os_next_leaf(tlbsim_pgtable *pgt, uint64_t *va, uint64_t end, struct tlbsim_mapping *cur,
		  uint64_t *pstart)
{
	if (!hw_pgtable_next_leaf(pgt, va, end, cur))
		return false;
	*pstart = *va & ~((1ull << cur->size_shift) - 1);
	return true;
}

static uint64_t page_end(uint64_t pstart, const struct tlbsim_mapping *m)
{
	return pstart + (1ull << m->size_shift);
}

/*
 * Zap every present PTE in [start, end): the leaves go, their pages are
 * gathered; each table's run of PTEs is cleared under its page-table lock,
 * pte_update cycles a PTE (zap_pte_range()).  A huge page partly inside
 * the range is split the simple way: zapped whole (Linux would split the
 * PMD; traces rarely unmap part of one).
 */
static uint64_t zap_range(struct os *os, struct hw_cpu *cpu, struct os_mm *mm, struct os_gather *g,
			  uint64_t start, uint64_t end)
{
	struct hw_pgtable_range r = {.va = start, .end = end};
	struct tlbsim_mapping old;
	uint64_t pstart, zapped = 0;

	/* Nothing below but the clear changes a page table: the walk goes on
	 * in the table of the last leaf. */
	while (hw_pgtable_range_next(mm->pgt, &r, &old, &pstart)) {
		hw_pgtable_range_clear(mm->pgt, &r);
		os_ptl_add(os, cpu, mm, old.table_pfn);
		os_gather_add_range(g, pstart, page_end(pstart, &old), old.size_shift);
		unref_page(os, g, old.pfn, old.size_shift);
		zapped++;
	}
	os_ptl_flush(os, cpu);
	return zapped;
}

/* The gap around [start, end) that no VMA uses: free_pgtables' floor and
 * ceiling (mm/memory.c free_pgd_range()). */
static void vma_gap(const struct os_mm *mm, uint64_t top, uint64_t start, uint64_t end,
		    uint64_t *floor, uint64_t *ceiling)
{
	unsigned i = vma_index(mm, start);

	*floor = 0;
	*ceiling = top;
	if (i > 0)
		*floor = mm->vma[i - 1].end;
	/* vma_index(end) is the first VMA ending above @end. */
	i = vma_index(mm, end);
	if (i < mm->nr_vma)
		*ceiling = mm->vma[i].start > end ? mm->vma[i].start : end;
}

static void charge(struct hw_cpu *cpu, uint64_t cycles)
{
	hw_charge(cpu, cycles);
}

/* munmap's core, also used by MAP_FIXED over an old mapping and brk. */
static void unmap_region(struct os *os, struct hw_cpu *cpu, struct os_mm *mm, uint64_t start,
			 uint64_t end, bool free_tables)
{
	struct os_gather *g = &os_cpu_of(cpu)->gather;
	unsigned first, last;
	uint64_t zapped, floor, ceiling;

	if (vma_range(mm, start, end, &first, &last))
		return;
	if (os->lru_add_drain)
		os_lru_drain(os, cpu);
	/* zap_pte_range(): flush_tlb_batched_pending() first. */
	os_flush_batched_pending(os, g);
	zapped = zap_range(os, cpu, mm, g, start, end);
	(void)zapped;
	if (last > first) {
		memmove(&mm->vma[first], &mm->vma[last], (mm->nr_vma - last) * sizeof(*mm->vma));
		mm->nr_vma -= last - first;
	}
	if (free_tables) {
		vma_gap(mm, user_top(os), start, end, &floor, &ceiling);
		if (ceiling > floor &&
		    tlbsim_pgtable_free_tables(mm->pgt, floor, ceiling, os_gather_table_cb, g) < 0)
			BUG_ON(1, "free_pgtables gets a valid range");
	}
}

/* ---- syscalls ---------------------------------------------------------- */

static unsigned vma_flags_of(unsigned map_flags)
{
	unsigned f = 0;

	if (map_flags & TLBSIM_MAP_SHARED)
		f |= OS_VMA_SHARED;
	if (map_flags & TLBSIM_MAP_ANON)
		f |= OS_VMA_ANON;
	if (map_flags & (TLBSIM_MAP_HUGETLB | TLBSIM_MAP_THP))
		f |= OS_VMA_HUGE_2M;
	if (map_flags & TLBSIM_MAP_HUGETLB_1G)
		f |= OS_VMA_HUGE_1G;
	return f;
}

static uint64_t vma_align(unsigned vflags)
{
	if (vflags & OS_VMA_HUGE_1G)
		return 1ull << 30;
	if (vflags & OS_VMA_HUGE_2M)
		return 1ull << 21;
	return PAGE_SIZE;
}

static void sys_mmap(struct os *os, struct hw_cpu *cpu, struct os_mm *mm, uint64_t addr,
		     uint64_t len, unsigned prot, unsigned map_flags)
{
	unsigned vflags = vma_flags_of(map_flags);
	/* THP is a hint: the VMA keeps 4 KiB granularity. */
	uint64_t align = (map_flags & TLBSIM_MAP_THP) ? PAGE_SIZE : vma_align(vflags);
	uint64_t start, end;

	len = page_align_up(len, align);
	if (addr == 0) {
		mm->mmap_base = (mm->mmap_base - len) & ~(align - 1);
		addr = mm->mmap_base;
	}
	start = addr & ~(align - 1);
	end = start + len;
	/* A recorded trace names where the mapping went: anything still
	 * there was replaced (MAP_FIXED semantics). */
	if (os_vma_find(mm, start) || vma_index(mm, start) != vma_index(mm, end)) {
		os_gather_init(&os_cpu_of(cpu)->gather, mm, false);
		unmap_region(os, cpu, mm, start, end, true);
		(void)os_vma_insert(mm, start, end, prot, vflags);
		os_gather_finish(os, cpu, NULL);
		return;
	}
	(void)os_vma_insert(mm, start, end, prot, vflags);
}

/*
 * munmap (and brk shrinking, which is a munmap) hold mmap_lock for writing
 * only while the VMAs are detached, then downgrade it to reading for the
 * zap, free_pgtables() and the flush (Linux 4.20, dd2283f2605e "mm: mmap:
 * zap pages with read mmap_sem in munmap"; mm/mmap.c do_vmi_align_munmap()
 * mmap_write_downgrade()).  So madvise and faults elsewhere in the mm run
 * while this cpu waits for its shootdown; a fault in the detached range
 * finds no VMA, and free_pgtables()' floor and ceiling keep the tables a
 * neighbouring VMA uses.  (os_mmap_downgrade(): the waiting readers come
 * in then.)
 */
static void sys_munmap(struct os *os, struct hw_cpu *cpu, struct os_mm *mm, uint64_t addr,
		       uint64_t len)
{
	uint64_t start = addr & ~(PAGE_SIZE - 1), end = page_align_up(addr + len, PAGE_SIZE);

	os_gather_init(&os_cpu_of(cpu)->gather, mm, false);
	os_cpu_of(cpu)->gather.call_start = start;
	os_cpu_of(cpu)->gather.call_end = end;
	unmap_region(os, cpu, mm, start, end, true);
	os_mmap_downgrade(os, cpu, mm);
	os_gather_finish(os, cpu, NULL);
}

/*
 * x86 pte_needs_flush() (arch/x86/include/asm/tlbflush.h): no flush when
 * the old PTE was not present; otherwise a new frame, a present bit
 * cleared (PROT_NONE), or a change in
 * either direction of a pte_flags_need_flush() "flush_on_change" flag --
 * _PAGE_RW, _PAGE_NX, _PAGE_USER, _PAGE_GLOBAL among them -- needs one
 * (only clearing DIRTY/ACCESSED and software bits are treated apart).  So
 * mprotect(RO -> RW) flushes on x86 too.  arm64 has no pte_needs_flush():
 * it flushes every changed PTE.
 */
static bool prot_change_needs_flush(enum tlbsim_isa isa, unsigned old, unsigned new)
{
	const unsigned flush_on_change =
		TLBSIM_PROT_WRITE | TLBSIM_PROT_EXEC | TLBSIM_PROT_USER | TLBSIM_PROT_GLOBAL;

	if (isa != TLBSIM_ISA_X86_64)
		return old != new;
	/* READ stands for _PAGE_PRESENT: a protnone PTE is not present, so
	 * nothing can have cached it (no flush from it), and clearing it is
	 * pte_flags_need_flush()'s flush_on_clear. */
	if (!(old & TLBSIM_PROT_READ))
		return false;
	if (!(new & TLBSIM_PROT_READ))
		return true;
	return ((old ^ new) & flush_on_change) != 0;
}

/*
 * mprotect(): the VMAs of the range take @prot, their present leaves too.
 * A huge page partly inside the range changes whole, as zap_range() zaps
 * it whole (Linux splits a THP's PMD and refuses a hugetlb range not
 * aligned to the page size); its flush then has the huge page's stride.
 */
static void sys_mprotect(struct os *os, struct hw_cpu *cpu, struct os_mm *mm, uint64_t addr,
			 uint64_t len, unsigned prot)
{
	struct os_gather *g = &os_cpu_of(cpu)->gather;
	uint64_t start = addr & ~(PAGE_SIZE - 1), end = page_align_up(addr + len, PAGE_SIZE);
	unsigned first, last, i;
	uint64_t changed = 0;

	if (vma_range(mm, start, end, &first, &last))
		return;
	os_gather_init(g, mm, false);
	/* change_pte_range(): flush_tlb_batched_pending() first. */
	os_flush_batched_pending(os, g);
	for (i = first; i < last; i++) {
		struct os_vma *v = &mm->vma[i];
		struct hw_pgtable_range r = {.va = v->start, .end = v->end};
		struct tlbsim_mapping cur;
		uint64_t pstart;

		v->prot = prot;
		/* Only leaves change below: the walk goes on in the table of
		 * the last one. */
		while (hw_pgtable_range_next(mm->pgt, &r, &cur, &pstart)) {
			unsigned newprot = prot | TLBSIM_PROT_USER;

			/* PROT_NONE over part of a huge page only: the page
			 * changes whole (above), and a protnone leaf would
			 * refuse the part still readable; it stays readable
			 * (Linux splits the PMD first). */
			if (hw_prot_none(prot) && (pstart < v->start || page_end(pstart, &cur) > v->end))
				newprot |= TLBSIM_PROT_READ;
			/* A page still shared copy-on-write stays read-only. */
			if (!(v->flags & OS_VMA_SHARED) && os->mapcount[cur.pfn] > 1)
				newprot &= ~TLBSIM_PROT_WRITE;
			if ((cur.prot & ~TLBSIM_PROT_GLOBAL) != newprot) {
				hw_pgtable_range_protect(mm->pgt, &r, newprot);
				os_ptl_add(os, cpu, mm, cur.table_pfn);
				changed++;
				if (prot_change_needs_flush(os->m->isa, cur.prot, newprot))
					os_gather_add_range(g, pstart, page_end(pstart, &cur),
							    cur.size_shift);
			}
		}
	}
	(void)changed;
	os_ptl_flush(os, cpu);
	os_gather_finish(os, cpu, NULL);
}

static void sys_madvise(struct os *os, struct hw_cpu *cpu, struct os_mm *mm, uint64_t addr,
			uint64_t len, unsigned advice)
{
	struct os_gather *g = &os_cpu_of(cpu)->gather;
	uint64_t start = addr & ~(PAGE_SIZE - 1), end = page_align_up(addr + len, PAGE_SIZE);
	uint64_t n = 0;

	os_gather_init(g, mm, false);
	g->call_start = start;
	g->call_end = end;
	/* madvise_dontneed_free(): lru_add_drain() first, in the kernels
	 * that still had it (os->lru_add_drain). */
	if (os->lru_add_drain)
		os_lru_drain(os, cpu);
	/* zap_pte_range() and madvise_free_pte_range():
	 * flush_tlb_batched_pending() first. */
	os_flush_batched_pending(os, g);
	if (advice == TLBSIM_MADV_DONTNEED) {
		n = zap_range(os, cpu, mm, g, start, end);
	} else {
		/* MADV_FREE: each present private page is made clean; the
		 * rewrite needs the old (dirty) entries flushed.  Frames are
		 * reclaimed only under memory pressure, never here. */
		struct hw_pgtable_range r = {.va = start, .end = end};
		struct tlbsim_mapping cur;
		uint64_t pstart;

		while (hw_pgtable_range_next(mm->pgt, &r, &cur, &pstart)) {
			hw_pgtable_range_protect(mm->pgt, &r, cur.prot);
			os_ptl_add(os, cpu, mm, cur.table_pfn);
			os_gather_add_range(g, pstart, page_end(pstart, &cur), cur.size_shift);
			n++;
		}
		os_ptl_flush(os, cpu);
	}
	(void)n;
	os_gather_finish(os, cpu, NULL);
}

/*
 * move_ptes() of one extent, the old range's PTEs of one page-table page
 * (mm/mremap.c move_page_tables(): extents end at the old PMD boundary):
 * the old PTE lock, then the new one (spin_lock_nested()), each PTE
 * cleared at the old address and set at the new one with the same frame.
 * Linux since eb66ae030829 ("mremap: properly flush TLB before releasing
 * the page", 4.19) flushes the old range before dropping the locks, so
 * that nothing holding only the PTE lock (truncate's zap, reclaim) can
 * free the page while another cpu still translates the old address:
 * here both locks stay held (os_cpu.ptl_held) until the flush of the
 * gather has completed everywhere.  With mremap_late_flush (Linux before
 * it) they are dropped after each extent and the flush comes after the
 * whole move.
 */
static void move_extent(struct os *os, struct hw_cpu *cpu)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	struct os_mremap *r = &oc->mremap;
	struct os_gather *g = &oc->gather;
	struct os_mm *mm = r->mm;
	uint64_t ext_end = (r->va | ((1ull << 21) - 1)) + 1, pstart;
	struct tlbsim_mapping old, moved;

	if (ext_end > r->end)
		ext_end = r->end;
	while (os_next_leaf(mm->pgt, &r->va, ext_end, &old, &pstart)) {
		uint64_t to = r->new_start + (pstart - r->old_start);

		BUG_ON(tlbsim_pgtable_unmap(mm->pgt, pstart, NULL), "a found leaf can be unmapped");
		os_ptl_add(os, cpu, mm, old.table_pfn);
		os_gather_add_range(g, pstart, page_end(pstart, &old), old.size_shift);
		if (hw_pgtable_map(mm->pgt, to, old.pfn, old.size_shift, old.prot, NULL, NULL))
			unref_page(os, g, old.pfn, old.size_shift);
		else if (!os->mremap_late_flush &&
			 !tlbsim_pgtable_lookup(mm->pgt, to, &moved)) {
			(void)os_pfns_push(&oc->ptl_held, old.table_pfn);
			(void)os_pfns_push(&oc->ptl_held, moved.table_pfn);
		}
		r->va = page_end(pstart, &old);
	}
	os_ptl_flush(os, cpu);
	if (r->va < ext_end)
		r->va = ext_end;
}

/* The move, extent by extent; then the old range's VMA and tables go, the
 * new VMA comes, and the gather flushes the old range. */
static void mremap_move(struct os *os, struct hw_cpu *cpu)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	struct os_mremap *r = &oc->mremap;

	while (r->va < r->end) {
		move_extent(os, cpu);
		if (os->mremap_late_flush && r->va < r->end) {
			/* The extent's locks are dropped: other cpus' work
			 * that is due before this cpu's clock runs first
			 * (the serial phase goes in time order), as it runs
			 * meanwhile on a real machine. */
			BUG_ON(oc->cont, "one continuation at a time per cpu");
			oc->cont = mremap_move;
			eng_block(cpu->core, cpu->core->now);
			return;
		}
	}
	/* MREMAP_DONTUNMAP (Linux 5.7): the old VMA stays, its pages gone
	 * with the move (their PTEs cleared and flushed by it): the next
	 * access there faults as on a fresh mapping. */
	if (!r->dontunmap)
		unmap_region(os, cpu, r->mm, r->old_start, r->old_start + r->old_len, true);
	r->mm = NULL;
	os_gather_finish(os, cpu, NULL);
}

static void sys_mremap(struct os *os, struct hw_cpu *cpu, struct os_mm *mm,
		       const struct tlbsim_event *ev)
{
	uint64_t old_start = ev->mremap.old_addr & ~(PAGE_SIZE - 1);
	uint64_t old_len = page_align_up(ev->mremap.old_len, PAGE_SIZE);
	uint64_t new_len = page_align_up(ev->mremap.new_len, PAGE_SIZE);
	uint64_t new_start = ev->mremap.new_addr & ~(PAGE_SIZE - 1);
	struct os_cpu *oc = os_cpu_of(cpu);
	struct os_gather *g = &oc->gather;
	struct os_vma *v = os_vma_find(mm, old_start);
	struct os_vma keep;

	if (!v) {
		oc->st.segv++;
		return;
	}
	keep = *v;
	if (keep.flags & OS_VMA_FILE)
		keep.pgoff += (old_start - v->start) >> TLBSIM_PAGE_SHIFT;
	if (new_start == old_start) {
		if (new_len < old_len) {
			sys_munmap(os, cpu, mm, old_start + new_len, old_len - new_len);
		} else if (new_len > old_len) {
			/* Grow in place: the VMA's end moves, nothing else. */
			unsigned first, last;

			if (!vma_range(mm, old_start, old_start + old_len, &first, &last) &&
			    last > first)
				mm->vma[last - 1].end = old_start + new_len;
		}
		return;
	}
	/* Move: a new VMA, every present PTE relinked to the new address
	 * with the same frame, the old range flushed and unmapped. */
	os_gather_init(g, mm, false);
	os_flush_batched_pending(os, g);
	if (os_vma_find(mm, new_start))
		unmap_region(os, cpu, mm, new_start, new_start + new_len, false);
	/* copy_vma() first: the new VMA is there (for the rmap walks of
	 * reclaim and truncate) while the PTEs move. */
	keep.start = new_start;
	keep.end = new_start + new_len;
	(void)os_vma_insert_copy(mm, &keep);
	oc->mremap = (struct os_mremap){.mm = mm, .va = old_start,
					.end = old_start + (old_len < new_len ? old_len : new_len),
					.old_start = old_start, .old_len = old_len,
					.new_start = new_start, .new_len = new_len, .keep = keep,
					.dontunmap = ev->mremap.flags & TLBSIM_MREMAP_DONTUNMAP};
	mremap_move(os, cpu);
}

static void sys_brk(struct os *os, struct hw_cpu *cpu, struct os_mm *mm, uint64_t end)
{
	end = page_align_up(end, PAGE_SIZE);
	if (!mm->brk_start) {
		/* The first brk names the initial break. */
		mm->brk_start = mm->brk_end = end;
		return;
	}
	if (end > mm->brk_end) {
		struct os_vma *v = mm->brk_end > mm->brk_start ? os_vma_find(mm, mm->brk_end - 1) : NULL;

		if (v && (v->flags & OS_VMA_HEAP))
			v->end = end;
		else
			(void)os_vma_insert(mm, mm->brk_end, end,
					    TLBSIM_PROT_READ | TLBSIM_PROT_WRITE,
					    OS_VMA_HEAP | OS_VMA_ANON);
	} else if (end < mm->brk_end && end >= mm->brk_start) {
		sys_munmap(os, cpu, mm, end, mm->brk_end - end);
	}
	mm->brk_end = end < mm->brk_start ? mm->brk_start : end;
}

/* Is [addr, addr + len) a non-empty range of the user address space?
 * (Linux fails such calls with -EINVAL/-ENOMEM: the traced program saw an
 * error and nothing changed.) */
static bool user_range(const struct os *os, uint64_t addr, uint64_t len)
{
	uint64_t top = user_top(os);

	return len && addr < top && len <= top - addr;
}

static bool syscall_ok(const struct os *os, const struct os_mm *mm, const struct tlbsim_event *ev)
{
	switch (ev->kind) {
	case TLBSIM_EV_MMAP:
		if (!ev->mmap.addr)
			return ev->mmap.len && ev->mmap.len <= mm->mmap_base / 2;
		/* Room for the alignment of a huge mapping too. */
		return user_range(os, ev->mmap.addr, ev->mmap.len) &&
		       ev->mmap.len <= user_top(os) - ev->mmap.addr - (1ull << 30);
	/* A start not page-aligned is -EINVAL: munmap's __do_munmap(),
	 * mprotect's do_mprotect_pkey(), madvise's do_madvise(), mremap's
	 * old address. */
	case TLBSIM_EV_MUNMAP:
		return !(ev->munmap.addr & (PAGE_SIZE - 1)) &&
		       user_range(os, ev->munmap.addr, ev->munmap.len);
	case TLBSIM_EV_MPROTECT:
		return !(ev->mprotect.addr & (PAGE_SIZE - 1)) &&
		       user_range(os, ev->mprotect.addr, ev->mprotect.len);
	case TLBSIM_EV_MADVISE:
		return !(ev->madvise.addr & (PAGE_SIZE - 1)) &&
		       user_range(os, ev->madvise.addr, ev->madvise.len);
	case TLBSIM_EV_MREMAP:
		/* MREMAP_DONTUNMAP needs MREMAP_MAYMOVE and the same length
		 * (mm/mremap.c), and a move. */
		if ((ev->mremap.flags & TLBSIM_MREMAP_DONTUNMAP) &&
		    (!(ev->mremap.flags & TLBSIM_MREMAP_MAYMOVE) ||
		     ev->mremap.old_len != ev->mremap.new_len ||
		     ev->mremap.old_addr == ev->mremap.new_addr))
			return false;
		return !(ev->mremap.old_addr & (PAGE_SIZE - 1)) &&
		       user_range(os, ev->mremap.old_addr, ev->mremap.old_len) &&
		       user_range(os, ev->mremap.new_addr, ev->mremap.new_len);
	case TLBSIM_EV_BRK:
		return ev->brk.end < user_top(os);
	default:
		return false;
	}
}

unsigned os_syscall_ranges(const struct tlbsim_event *ev, uint64_t brk_end, uint64_t start[2],
			   uint64_t end[2])
{
	switch (ev->kind) {
	case TLBSIM_EV_MMAP: /* MAP_FIXED replaces what was there */
		start[0] = ev->mmap.addr;
		end[0] = ev->mmap.addr + ev->mmap.len;
		return 1;
	case TLBSIM_EV_MUNMAP:
		start[0] = ev->munmap.addr;
		end[0] = ev->munmap.addr + ev->munmap.len;
		return 1;
	case TLBSIM_EV_MPROTECT:
		start[0] = ev->mprotect.addr;
		end[0] = ev->mprotect.addr + ev->mprotect.len;
		return 1;
	case TLBSIM_EV_MADVISE:
		start[0] = ev->madvise.addr;
		end[0] = ev->madvise.addr + ev->madvise.len;
		return 1;
	case TLBSIM_EV_MREMAP:
		start[0] = ev->mremap.old_addr;
		end[0] = ev->mremap.old_addr + ev->mremap.old_len;
		start[1] = ev->mremap.new_addr;
		end[1] = ev->mremap.new_addr + ev->mremap.new_len;
		return 2;
	case TLBSIM_EV_BRK:
		start[0] = ev->brk.end < brk_end ? ev->brk.end : brk_end;
		end[0] = ev->brk.end < brk_end ? brk_end : ev->brk.end;
		return 1;
	default:
		return 0;
	}
}

/* What a syscall changes, for the hazard oracle's commit at its return. */
static void ret_ranges(struct os_ret *r, const struct os_mm *mm, const struct tlbsim_event *ev)
{
	r->root = tlbsim_pgtable_root(mm->pgt);
	r->n = os_syscall_ranges(ev, mm->brk_end, r->start, r->end);
}

bool os_cow_busy(struct os *os, const struct hw_cpu *cpu, const struct os_mm *mm,
		 const struct tlbsim_event *ev)
{
	uint64_t start, end;
	struct os_ret r;

	if (!mm->cow_pending)
		return false;
	if (tlbsim_event_is_access(ev->kind)) {
		start = ev->access.va;
		end = start + 1;
	} else {
		ret_ranges(&r, mm, ev);
		if (!r.n)
			return false;
		start = r.start[0];
		end = r.end[0];
	}
	for (unsigned i = 0; i < os->m->nr_cpus; i++) {
		const struct os_cow *c = &os->cpu[i].cow;

		if (i != cpu->id && c->mm == mm && c->va < end &&
		    start < c->va + (1ull << c->shift))
			return true;
	}
	return false;
}

void os_kernel_exit(struct os *os, struct hw_cpu *cpu)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	unsigned i;

	if (oc->cont)
		return;
	os_hb_done(os, cpu);
	os_mmap_unlock(os, cpu);
	if (oc->fault_line) {
		os_line(os, cpu, oc->fault_kind, oc->fault_line, FAB_RMW, 0);
		oc->fault_line = NULL;
	}
	if (!os->oracle || !oc->ret.n)
		return;
	for (i = 0; i < oc->ret.n; i++)
		chk_syscall_return(os->oracle, cpu->id, oc->ret.root, oc->ret.start[i], oc->ret.end[i]);
	oc->ret.n = 0;
}

bool os_syscall_is_empty(const struct tlbsim_event *ev)
{
	return (ev->kind == TLBSIM_EV_MPROTECT && !ev->mprotect.len) ||
	       (ev->kind == TLBSIM_EV_MADVISE && !ev->madvise.len);
}

void os_syscall(struct os *os, struct hw_cpu *cpu, const struct tlbsim_event *ev)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	struct os_mm *mm = oc->curr->mm;

	charge(cpu, os->m->costs.syscall);
	oc->st.syscalls++;
	if (os_syscall_is_empty(ev)) {
		/* Length 0: -EINVAL for a start not page-aligned, else 0 and
		 * nothing done (Linux do_mprotect_pkey(), do_madvise(): both
		 * checks come before the mmap_lock and any VMA). */
		uint64_t addr = ev->kind == TLBSIM_EV_MPROTECT ? ev->mprotect.addr : ev->madvise.addr;

		oc->st.bad_syscalls += (addr & (PAGE_SIZE - 1)) != 0;
		os_kernel_exit(os, cpu);
		return;
	}
	if (!syscall_ok(os, mm, ev)) {
		oc->st.bad_syscalls++;
		os_kernel_exit(os, cpu);
		return;
	}
	if (os->oracle)
		ret_ranges(&oc->ret, mm, ev);
	switch (ev->kind) {
	case TLBSIM_EV_MMAP:
		sys_mmap(os, cpu, mm, ev->mmap.addr, ev->mmap.len, ev->mmap.prot, ev->mmap.flags);
		break;
	case TLBSIM_EV_MUNMAP:
		sys_munmap(os, cpu, mm, ev->munmap.addr, ev->munmap.len);
		break;
	case TLBSIM_EV_MPROTECT:
		sys_mprotect(os, cpu, mm, ev->mprotect.addr, ev->mprotect.len, ev->mprotect.prot);
		break;
	case TLBSIM_EV_MADVISE:
		sys_madvise(os, cpu, mm, ev->madvise.addr, ev->madvise.len, ev->madvise.advice);
		break;
	case TLBSIM_EV_MREMAP:
		sys_mremap(os, cpu, mm, ev);
		break;
	case TLBSIM_EV_BRK:
		sys_brk(os, cpu, mm, ev->brk.end);
		break;
	default:
		BUG_ON(1, "memory syscalls only");
	}
	os_kernel_exit(os, cpu);
}

/* ---- shared file mappings ------------------------------------------------ */

/* The page cache's key of page @pgoff of @file (files and pages below
 * 2^20 and 2^43; never 0). */
static uint64_t pagecache_key(uint32_t file, uint64_t pgoff)
{
	return (uint64_t)file << 43 | (pgoff & ((1ull << 43) - 1));
}

int os_pagecache_get(struct os *os, const struct os_vma *v, uint64_t va, uint64_t *pfn)
{
	uint64_t pgoff = v->pgoff + ((va - v->start) >> TLBSIM_PAGE_SHIFT), pages;

	if (chk_map_get(&os->pagecache, pagecache_key(v->file, pgoff), pfn))
		return 0;
	if (tlbsim_physmem_alloc(os->pm, TLBSIM_FRAME_DATA, pfn))
		return -TLBSIM_ENOMEM;
	if ((*pfn >= os->mapcount_cap && mapcount_grow(os, *pfn + 1)) ||
	    chk_map_put(&os->pagecache, pagecache_key(v->file, pgoff), *pfn)) {
		BUG_ON(tlbsim_physmem_free(os->pm, *pfn), "free an unused frame");
		return -TLBSIM_ENOMEM;
	}
	/* The page cache's own reference: munmap and exit never free it. */
	os->mapcount[*pfn]++;
	if (!chk_map_get(&os->file_pages, v->file, &pages) || pages <= pgoff)
		(void)chk_map_put(&os->file_pages, v->file, pgoff + 1);
	return 0;
}

bool os_pagecache_drop(struct os *os, uint32_t file, uint64_t pgoff, uint64_t *pfn)
{
	uint64_t key = pagecache_key(file, pgoff);

	if (!chk_map_get(&os->pagecache, key, pfn))
		return false;
	chk_map_del(&os->pagecache, key);
	BUG_ON(!os->mapcount[*pfn], "a cached page holds the cache's reference");
	return --os->mapcount[*pfn] == 0;
}

/* mmap(MAP_SHARED) of a file: a VMA only, as sys_mmap(); anything there
 * is replaced. */
void os_mmap_file(struct os *os, struct hw_cpu *cpu, struct os_mm *mm,
		  const struct tlbsim_event *ev)
{
	uint64_t start = ev->mmap_file.addr & ~(PAGE_SIZE - 1);
	uint64_t end = page_align_up(ev->mmap_file.addr + ev->mmap_file.len, PAGE_SIZE);
	struct os_vma v = {.start = start,
			   .end = end,
			   .prot = ev->mmap_file.prot,
			   .flags = OS_VMA_SHARED | OS_VMA_FILE,
			   .file = ev->mmap_file.file,
			   .pgoff = ev->mmap_file.pgoff};

	charge(cpu, os->m->costs.syscall);
	os_cpu_of(cpu)->st.syscalls++;
	if (!user_range(os, start, end - start)) {
		os_cpu_of(cpu)->st.bad_syscalls++;
		os_kernel_exit(os, cpu);
		return;
	}
	if (os->oracle)
		os_cpu_of(cpu)->ret = (struct os_ret){
		    .n = 1, .root = tlbsim_pgtable_root(mm->pgt), .start = {start}, .end = {end}};
	if (os_vma_find(mm, start) || vma_index(mm, start) != vma_index(mm, end)) {
		os_gather_init(&os_cpu_of(cpu)->gather, mm, false);
		unmap_region(os, cpu, mm, start, end, true);
		(void)os_vma_insert_copy(mm, &v);
		os_gather_finish(os, cpu, NULL);
	} else {
		(void)os_vma_insert_copy(mm, &v);
	}
	os_kernel_exit(os, cpu);
}

/* ---- faults -------------------------------------------------------------- */

static unsigned access_prot(enum tlbsim_access access)
{
	return access == TLBSIM_ACCESS_STORE	? TLBSIM_PROT_WRITE
	       : access == TLBSIM_ACCESS_FETCH ? TLBSIM_PROT_EXEC
					       : TLBSIM_PROT_READ;
}

/* A new zeroed page for @va in @v: a huge page where the VMA asks and the
 * aligned block fits, else 4 KiB (do_anonymous_page, do_huge_pmd_anonymous_page). */
static int demand_page(struct os *os, struct hw_cpu *cpu, struct os_mm *mm, struct os_vma *v,
		       uint64_t va, const struct hw_pgtable_hint *hint)
{
	unsigned shift = 12;
	uint64_t pfn, tables, table;
	int err;

	if (v->flags & OS_VMA_FILE) {
		/* filemap_fault(): the page-cache page, mapped shared. */
		if (os_pagecache_get(os, v, va, &pfn)) {
			os_out_of_memory(os, "a page fault's page-cache page", va);
			return -TLBSIM_ENOMEM;
		}
		tables = tlbsim_pgtable_nr_tables(mm->pgt);
		if ((err = map_page(os, mm, va & ~(PAGE_SIZE - 1), pfn, shift, v->prot, hint,
				    &table)))
			return err;
		os_fault_install(os, cpu, mm, va, shift, table,
				 tlbsim_pgtable_nr_tables(mm->pgt) - tables);
		return 0;
	}

	if (v->flags & (OS_VMA_HUGE_2M | OS_VMA_HUGE_1G)) {
		unsigned s = (v->flags & OS_VMA_HUGE_1G) ? 30 : 21;
		uint64_t base = va & ~((1ull << s) - 1);

		if (base >= v->start && base + (1ull << s) <= v->end &&
		    !tlbsim_physmem_alloc_block(os->pm, s - TLBSIM_PAGE_SHIFT, &pfn)) {
			tables = tlbsim_pgtable_nr_tables(mm->pgt);
			if (!map_page(os, mm, base, pfn, s, v->prot, hint, &table)) {
				/* Zeroing the whole huge page, then the PMD entry
				 * under its lock. */
				charge(cpu, (uint64_t)os->m->costs.page_copy << (s - 12));
				os_fault_install(os, cpu, mm, base, s, table,
						 tlbsim_pgtable_nr_tables(mm->pgt) - tables);
				os_lru_add(os, cpu);
				return 0;
			}
			/* A 4 KiB table is in the way (THP after small
			 * pages): give the block back, fall back. */
			for (uint64_t i = 0; i < (1ull << (s - 12)); i++)
				BUG_ON(tlbsim_physmem_free(os->pm, pfn + i), "free an unused block");
		}
	}
	if (os_swapcache_take(os, mm, va & ~(PAGE_SIZE - 1), &pfn)) {
		/* do_swap_page(): the folio reclaim unmapped is still in the
		 * swap cache; it is mapped again, as it is (no zeroing). */
		tables = tlbsim_pgtable_nr_tables(mm->pgt);
		if (!map_page(os, mm, va & ~(PAGE_SIZE - 1), pfn, shift, v->prot, hint, &table)) {
			os_fault_install(os, cpu, mm, va, shift, table,
					 tlbsim_pgtable_nr_tables(mm->pgt) - tables);
			return 0;
		}
		BUG_ON(tlbsim_physmem_free(os->pm, pfn), "free a swap-cache page that cannot map");
		return -TLBSIM_ENOMEM;
	}
	if (tlbsim_physmem_alloc(os->pm, TLBSIM_FRAME_DATA, &pfn)) {
		os_out_of_memory(os, "a page fault", va);
		return -TLBSIM_ENOMEM;
	}
	tables = tlbsim_pgtable_nr_tables(mm->pgt);
	if ((err = map_page(os, mm, va & ~(PAGE_SIZE - 1), pfn, shift, v->prot, hint, &table))) {
		BUG_ON(tlbsim_physmem_free(os->pm, pfn), "free an unused frame");
		if (err == -TLBSIM_ENOMEM)
			os_out_of_memory(os, "a page fault's page table", va);
		return err;
	}
	/* The page is zeroed before the PTE lock is taken (do_anonymous_page()). */
	charge(cpu, os->m->costs.page_copy);
	os_fault_install(os, cpu, mm, va, shift, table, tlbsim_pgtable_nr_tables(mm->pgt) - tables);
	/* do_anonymous_page() -> folio_add_lru_vma() */
	os_lru_add(os, cpu);
	return 0;
}

/*
 * The shared zero page (Linux ZERO_PAGE(), mm/memory.c do_anonymous_page()):
 * a read fault on private anonymous memory maps it read-only instead of a
 * new page, without zeroing anything or touching the LRU; a later write
 * faults and copies it (wp_page_copy(), with the flush of the read-only
 * translation first).  Its frame is allocated at the first such fault and
 * holds one map count for the kernel, so no unmap ever frees it.  Returns
 * false when memory is out.
 */
static bool zero_page(struct os *os, uint64_t *pfn)
{
	if (!os->has_zero_page) {
		if (tlbsim_physmem_alloc(os->pm, TLBSIM_FRAME_DATA, &os->zero_pfn))
			return false;
		if (os->zero_pfn >= os->mapcount_cap && mapcount_grow(os, os->zero_pfn + 1)) {
			BUG_ON(tlbsim_physmem_free(os->pm, os->zero_pfn), "free an unused frame");
			return false;
		}
		os->mapcount[os->zero_pfn] = 1;
		os->has_zero_page = true;
	}
	*pfn = os->zero_pfn;
	return true;
}

/* A read fault on an absent PTE of @v at @va: the zero page, for private
 * anonymous memory in 4 KiB pages (a huge page's read fault allocates, as
 * THP without the huge zero page does); -1 when it does not apply. */
static int zero_fault(struct os *os, struct hw_cpu *cpu, struct os_mm *mm, struct os_vma *v,
		      uint64_t va, const struct hw_pgtable_hint *hint)
{
	uint64_t pfn, tables, table;

	if ((v->flags & (OS_VMA_SHARED | OS_VMA_HUGE_2M | OS_VMA_HUGE_1G)) ||
	    !(v->flags & OS_VMA_ANON) || os_swapcache_has(os, mm, va & ~(PAGE_SIZE - 1)))
		return -1;
	if (!zero_page(os, &pfn)) {
		os_out_of_memory(os, "a page fault (the zero page)", va);
		return -TLBSIM_ENOMEM;
	}
	tables = tlbsim_pgtable_nr_tables(mm->pgt);
	if (map_page(os, mm, va & ~(PAGE_SIZE - 1), pfn, 12, v->prot & ~TLBSIM_PROT_WRITE, hint,
		     &table)) {
		os_out_of_memory(os, "a page fault's page table", va);
		return -TLBSIM_ENOMEM;
	}
	/* set_pte_at() under the PTE lock, as any fault that installs one */
	os_fault_install(os, cpu, mm, va, 12, table, tlbsim_pgtable_nr_tables(mm->pgt) - tables);
	return 0;
}

/* The second half of a copy-on-write fault: map the private copy (from
 * @hint: where the old PTE was cleared, when no table can have been
 * unlinked since; else NULL).  If the page tables cannot take it, the
 * access faults again (and demand-pages). */
static void cow_map_at(struct os *os, struct hw_cpu *cpu, const struct hw_pgtable_hint *hint)
{
	struct os_cow *c = &os_cpu_of(cpu)->cow;
	uint64_t table;

	if (map_page(os, c->mm, c->va, c->pfn, c->shift, c->prot, hint, &table)) {
		uint64_t i;

		for (i = 0; i < 1ull << (c->shift - TLBSIM_PAGE_SHIFT); i++)
			BUG_ON(tlbsim_physmem_free(os->pm, c->pfn + i), "free an unused copy");
		hw_charge(cpu, os->m->costs.pte_update);
	} else {
		/* set_pte_at() of the copy under the PTE lock (held, in Linux,
		 * across the flush too; here only for the store). */
		os_fault_install(os, cpu, c->mm, c->va, c->shift, table, 0);
	}
	c->mm->cow_pending--;
	c->mm = NULL;
}

/* cow_map_at() as the continuation after the flush's wait: other cpus ran
 * meanwhile. */
static void cow_map(struct os *os, struct hw_cpu *cpu)
{
	cow_map_at(os, cpu, NULL);
}

bool os_fault(struct os *os, struct hw_cpu *cpu, struct os_mm *mm, uint64_t va,
	      enum tlbsim_access access)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	struct os_vma *v = os_vma_find(mm, va);
	unsigned need = access_prot(access);
	struct tlbsim_mapping cur;
	struct hw_pgtable_hint hint;
	/* page_fault includes the PTE's store, which a fault that installs
	 * or changes a PTE makes under its page-table lock (pte_update
	 * cycles, os_fault_install()); the others pay it here. */
	uint64_t pte = os->m->costs.pte_update < os->m->costs.page_fault ? os->m->costs.pte_update
									 : os->m->costs.page_fault;

	charge(cpu, os->m->costs.page_fault - pte);
	oc->st.faults++;
	mm->st.faults++;
	if (v && os->per_vma_lock && !oc->fault_line && oc->locked != mm) {
		/* lock_vma_under_rcu(): vma_start_read(), an atomic on the
		 * VMA's lock; vma_end_read() at the fault's return. */
		oc->fault_line = os_vma_line(os, mm, v->start);
		oc->fault_kind = TLBSIM_LINE_VMA_LOCK;
		if (oc->fault_line)
			os_line(os, cpu, TLBSIM_LINE_VMA_LOCK, oc->fault_line, FAB_RMW, 0);
	}
	if (!v || (v->prot & need) != need) {
		charge(cpu, pte);
		oc->st.segv++;
		return false;
	}
	/* Nothing below unlinks a table before the page is mapped: the map
	 * goes on from where the lookup's walk stopped. */
	if (hw_pgtable_lookup_hint(mm->pgt, va, &cur, &hint, &oc->pt_memo)) {
		int rc = access == TLBSIM_ACCESS_STORE ? -1 : zero_fault(os, cpu, mm, v, va, &hint);

		if (rc < 0 && rc != -TLBSIM_ENOMEM)
			rc = demand_page(os, cpu, mm, v, va, &hint);
		if (rc == 0)
			return true;
		charge(cpu, pte);
		return false;
	}
	if ((cur.prot & need) == need) {
		charge(cpu, pte);
		return true; /* spurious: a stale entry, already dropped */
	}
	if (access == TLBSIM_ACCESS_STORE && !(v->flags & OS_VMA_SHARED)) {
		unsigned order = cur.size_shift - TLBSIM_PAGE_SHIFT;
		uint64_t size = 1ull << cur.size_shift, page = va & ~(size - 1), i;

		if (os->mapcount[cur.pfn] > 1) {
			/* wp_page_copy(): a private copy; the old translation
			 * is cleared and flushed before the new one is set
			 * (ptep_clear_flush()).  A huge page is copied whole,
			 * as hugetlb_wp() does (a THP would be split and
			 * copied 4 KiB at a time; not modelled). */
			uint64_t pfn;

			if (order ? tlbsim_physmem_alloc_block(os->pm, order, &pfn)
				  : tlbsim_physmem_alloc(os->pm, TLBSIM_FRAME_DATA, &pfn)) {
				os_out_of_memory(os, "a copy-on-write fault", va);
				charge(cpu, pte);
				return false;
			}
			/* The leaf just looked at (ptep_clear_flush()'s clear). */
			hw_pgtable_clear_found(mm->pgt, page, &cur, &hint);
			for (i = 0; i < (1ull << order); i++)
				os->mapcount[cur.pfn + i]--;
			charge(cpu, (uint64_t)os->m->costs.page_copy << order);
			/* wp_page_copy() -> folio_add_lru_vma() */
			os_lru_add(os, cpu);
			mm->st.cow_copies++;
			if (os->oracle) {
				oc->ret = (struct os_ret){.n = 1, .root = tlbsim_pgtable_root(mm->pgt)};
				oc->ret.start[0] = page;
				oc->ret.end[0] = page + size;
			}
			/* Break before make: the new page is mapped once the old
			 * translation is flushed everywhere (now, or after the
			 * flush's wait). */
			oc->cow = (struct os_cow){.mm = mm, .va = page, .pfn = pfn,
						  .shift = cur.size_shift, .prot = v->prot};
			mm->cow_pending++;
			os_flush_range(os, cpu, mm, page, page + size, cur.size_shift, false);
			if (cpu->core->state == ENG_BLOCKED) {
				BUG_ON(oc->cont, "one continuation at a time per cpu");
				oc->cont = cow_map;
				return true;
			}
			/* The flush unlinked no table: the copy goes where the
			 * old PTE was. */
			cow_map_at(os, cpu, &hint);
			return true;
		}
		/* wp_page_reuse(): the only user: make it writable; an
		 * upgrade needs no flush. */
		BUG_ON(tlbsim_pgtable_protect(mm->pgt, page, v->prot | TLBSIM_PROT_USER), "reuse");
		os_ptl_add(os, cpu, mm, cur.table_pfn);
		os_ptl_flush(os, cpu);
		return true;
	}
	charge(cpu, pte);
	oc->st.segv++;
	return false;
}

/* ---- fork and exit --------------------------------------------------------- */

struct os_mm *os_fork_mm(struct os *os, struct hw_cpu *cpu, struct os_mm *parent, uint32_t pid)
{
	struct os_mm *child = os_mm_create(os, pid);
	uint64_t copied = 0;
	unsigned i;

	if (!child)
		return NULL;
	child->mmap_base = parent->mmap_base;
	child->brk_start = parent->brk_start;
	child->brk_end = parent->brk_end;
	for (i = 0; i < parent->nr_vma; i++) {
		struct os_vma *v = &parent->vma[i];
		struct hw_pgtable_range r = {.va = v->start, .end = v->end};
		struct tlbsim_mapping cur;
		uint64_t pstart;

		(void)os_vma_insert_copy(child, v);
		/* Only the parent's leaves change (the child's tables are
		 * others): the walk goes on in the table of the last one. */
		while (hw_pgtable_range_next(parent->pgt, &r, &cur, &pstart)) {
			unsigned prot = cur.prot & ~TLBSIM_PROT_GLOBAL;

			/* copy_present_pte(): private writable pages become
			 * read-only on both sides. */
			if (!(v->flags & OS_VMA_SHARED) && (prot & TLBSIM_PROT_WRITE)) {
				prot &= ~TLBSIM_PROT_WRITE;
				hw_pgtable_range_protect(parent->pgt, &r, prot);
			}
			/* copy_pte_range() under the parent's PTE lock. */
			int e = map_page(os, child, pstart, cur.pfn, cur.size_shift, prot, NULL, NULL);

			if (!e) {
				os_ptl_add(os, cpu, parent, cur.table_pfn);
				copied++;
			} else if (e == -TLBSIM_ENOMEM) {
				os_out_of_memory(os, "fork's copy of the page tables", pstart);
			}
		}
	}
	os_ptl_flush(os, cpu);
	/* dup_mmap() ends with flush_tlb_mm(oldmm): the parent's writable
	 * entries are stale now; fork's return commits that. */
	if (os->oracle)
		os_cpu_of(cpu)->ret = (struct os_ret){.n = 1, .root = tlbsim_pgtable_root(parent->pgt),
						      .end = {UINT64_MAX}};
	if (copied)
		os_flush_range(os, cpu, parent, 0, TLBSIM_FLUSH_ALL, 12, false);
	return child;
}

/*
 * destroy_context(): once exit_mmap()'s flush is complete and its pages and
 * tables are freed, the policy releases what the mm held (a global ASID);
 * then the caller's continuation.
 */
static void exit_mm_done(struct os *os, struct hw_cpu *cpu)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	os_cont_fn then = oc->exit_then;
	struct tlbsim_pctx ctx;

	oc->exit_then = NULL;
	if (os->pol.exit_mm.p) {
		os_pctx(os, cpu, &os->pol.exit_mm, &ctx);
		os->pol.exit_mm.p->exit_mm(&ctx, &oc->gather.mm->pub);
	}
	if (then)
		then(os, cpu);
}

void os_exit_mm(struct os *os, struct hw_cpu *cpu, struct os_mm *mm, os_cont_fn then)
{
	struct os_gather *g = &os_cpu_of(cpu)->gather;
	uint64_t zapped = 0;
	unsigned i;

	os_gather_init(g, mm, true);
	for (i = 0; i < mm->nr_vma; i++)
		zapped += zap_range(os, cpu, mm, g, mm->vma[i].start, mm->vma[i].end);
	(void)zapped;
	mm->nr_vma = 0;
	if (tlbsim_pgtable_free_tables(mm->pgt, 0, user_top(os), os_gather_table_cb, g) < 0)
		BUG_ON(1, "free_pgtables gets a valid range");
	mm->dead = true;
	os_cpu_of(cpu)->exit_then = then;
	os_gather_finish(os, cpu, exit_mm_done);
}

/* ---- life cycle -------------------------------------------------------------- */

struct os_mm *os_mm_create(struct os *os, uint32_t pid)
{
	struct os_mm *mm;
	unsigned s;

	if (os->nr_mms == os->cap_mms) {
		uint32_t cap = os->cap_mms ? 2 * os->cap_mms : 16;
		struct os_mm **n = realloc(os->mms, cap * sizeof(*n));

		if (!n)
			return NULL;
		os->mms = n;
		os->cap_mms = cap;
	}
	mm = calloc(1, sizeof(*mm));
	if (!mm)
		return NULL;
	mm->pgt = tlbsim_pgtable_create(os->pm, os->m->isa, os->m->pt_levels);
	if (!mm->pgt) {
		free(mm);
		return NULL;
	}
	for (s = 0; s < os->pol.nr; s++) {
		if (!os->pol.part[s]->mm_priv_size)
			continue;
		mm->pub.priv[s] = calloc(1, os->pol.part[s]->mm_priv_size);
		if (!mm->pub.priv[s]) {
			os_mm_destroy(os, mm);
			return NULL;
		}
	}
	os_mm_lines_init(mm);
	mm->pub.id = ++os->next_mm_id;
	if (os->oracle)
		chk_root_owner(os->oracle, tlbsim_pgtable_root(mm->pgt), mm->pub.id);
	mm->pid = pid;
	mm->mmap_base = MMAP_BASE;
	os->mms[os->nr_mms++] = mm;
	return mm;
}

void os_mm_destroy(struct os *os, struct os_mm *mm)
{
	unsigned s;

	if (!mm)
		return;
	for (s = 0; os->cpu && s < os->m->nr_cpus; s++)
		if (os->cpu[s].pt_memo.pt == mm->pgt)
			os->cpu[s].pt_memo = (struct hw_pgtable_memo){0};
	tlbsim_pgtable_destroy(mm->pgt);
	free(mm->lock_wait);
	os_mm_lines_fini(mm);
	chk_map_fini(&mm->vma_line_index);
	for (s = 0; s < TLBSIM_POLICY_SLOTS; s++)
		free(mm->pub.priv[s]);
	free(mm->vma);
	free(mm);
}

void os_zap_range(struct os *os, struct hw_cpu *cpu, struct os_mm *mm, uint64_t start, uint64_t end)
{
	(void)zap_range(os, cpu, mm, &os_cpu_of(cpu)->gather, start, end);
}
