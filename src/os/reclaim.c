/* SPDX-License-Identifier: MIT */
/*
 * Page reclaim from another cpu, with the deferred, batched flush (Linux
 * mm/rmap.c: try_to_unmap_one() with TTU_BATCH_FLUSH, should_defer_flush(),
 * set_tlb_ubc_flush_pending(), try_to_unmap_flush(),
 * flush_tlb_batched_pending(); mm/vmscan.c shrink_folio_list() frees the
 * pages after try_to_unmap_flush()).  The arch parts:
 *   x86    arch/x86/include/asm/tlbflush.h arch_tlbbatch_should_defer()
 *          (defer only when another cpu is in mm_cpumask),
 *          arch_tlbbatch_add_pending() (inc_mm_tlb_gen(), the mm's
 *          mm_cpumask ORed into the batch's cpumask, unmapped_pages);
 *          arch/x86/mm/tlb.c arch_tlbbatch_flush(): with INVLPGB and pages
 *          unmapped, one INVLPGB of every non-global entry and a TLBSYNC
 *          (Linux 6.15, commit 0b7eb55cb706); otherwise flush_tlb_multi()
 *          to the batch's cpumask with a request naming no mm (each
 *          target flushes what it has loaded; lazy cpus are skipped, as
 *          should_flush_tlb() does for a request that frees no tables),
 *          and the local flush when this cpu is in it
 *   arm64  arch/arm64/include/asm/tlbflush.h (Linux 6.5, commit
 *          43b3dfdd0455): defer whenever more than one cpu is online;
 *          add_pending issues the TLBI VALE1IS at once without its DSB
 *          (__flush_tlb_page_nosync()), arch_tlbbatch_flush() is DSB ISH
 * The batch is the performing thread's (current->tlb_ubc).  Reclaim
 * takes no mmap_lock: it races with the syscalls of the mm's own threads,
 * which is why those call flush_tlb_batched_pending() (commit 3ea277194daa,
 * "mm, mprotect: flush TLB if potentially racing with a parallel reclaim
 * leaving stale TLB entries", Linux 4.13): a PTE that reclaim cleared is
 * not present to mprotect, munmap or madvise, which would otherwise return
 * without flushing while a stale entry survives.
 *
 * Not modelled: the rmap walk over every mm mapping a page (a page mapped
 * by more than one mm, shared after fork, is skipped), swap-out I/O and
 * the dirty-page flush (try_to_unmap_flush_dirty()), huge pages (skipped:
 * reclaim would split them).
 */
#include "bug.h"
#include "os/os.h"
#include "policies/policies.h"

#define PAGE_SIZE (1ull << TLBSIM_PAGE_SHIFT)

/* The key of @mm's page at @va in os->swapcache (never 0: mm ids start
 * at 1; user VAs are below 2^57, so 45 bits of page number). */
static uint64_t swapcache_key(const struct os_mm *mm, uint64_t va)
{
	return (uint64_t)mm->pub.id << 45 | va >> TLBSIM_PAGE_SHIFT;
}

bool os_swapcache_has(const struct os *os, struct os_mm *mm, uint64_t va)
{
	uint64_t pfn;

	return os->swapcache.n && chk_map_get(&os->swapcache, swapcache_key(mm, va), &pfn);
}

bool os_swapcache_take(struct os *os, struct os_mm *mm, uint64_t va, uint64_t *pfn)
{
	uint64_t key = swapcache_key(mm, va);

	if (!os->swapcache.n || !chk_map_get(&os->swapcache, key, pfn))
		return false;
	chk_map_del(&os->swapcache, key);
	os->st.reclaim_refaults++;
	return true;
}

/* Does the kernel use INVLPGB (X86_FEATURE_INVLPGB)?  Here: the policy
 * is the one that does. */
static bool uses_invlpgb(const struct os *os)
{
	for (unsigned s = 0; s < os->pol.nr; s++)
		if (os->pol.part[s] == &tlbsim_policy_x86_invlpgb)
			return true;
	return false;
}

/* The cpumask lines of @mm, read whole (cpumask_or(), cpumask_any_but()). */
static void read_cpumask(struct os *os, struct hw_cpu *cpu, struct os_mm *mm)
{
	for (unsigned i = 0; i <= (os->m->nr_cpus - 1) / OS_CPUMASK_LINE_BITS; i++)
		os_line(os, cpu, TLBSIM_LINE_MM_CPUMASK, &mm->cpumask_line[i], FAB_READ, 0);
}

/* arch_tlbbatch_should_defer(). */
static bool should_defer_flush(struct os *os, struct hw_cpu *cpu, struct os_mm *mm)
{
	if (os->m->isa == TLBSIM_ISA_ARM64)
		return os->m->nr_cpus > 1;
	read_cpumask(os, cpu, mm);
	return tlbsim_cpumask_any_but(&mm->pub.cpumask, cpu->id, os->m->nr_cpus);
}

/* set_tlb_ubc_flush_pending() -> arch_tlbbatch_add_pending(). */
static void add_pending(struct os *os, struct hw_cpu *cpu, struct os_tlbbatch *b, struct os_mm *mm,
			uint64_t va)
{
	if (os->m->isa == TLBSIM_ISA_ARM64) {
		/* __flush_tlb_page_nosync(): DSB ISHST, TLBI VALE1IS; the DSB
		 * ISH that completes it waits for arch_tlbbatch_flush(). */
		hw_charge(cpu, os->m->costs.dsb);
		hw_tlbi_is(&os->smp, cpu, TLBSIM_TLBI_VALE1, va, mm->pub.asid);
	} else if (os->reclaim_cpumask_only && mm->pub.global_asid) {
		/* Mutation reclaim_cpumask_only: the INVLPGB series' targeted
		 * tlbbatch ("x86/mm: do targeted broadcast flushing from
		 * tlbbatch code", before 0b7eb55cb706): a global ASID's page
		 * gets its INVLPGB now, not waited for, and the mm's cpus stay
		 * out of the batch's cpumask. */
		hw_invlpgb(&os->smp, cpu, va, 1, TLBSIM_PAGE_SHIFT, mm->pub.global_asid,
			   TLBSIM_INVLPGB_VA | TLBSIM_INVLPGB_PCID | TLBSIM_INVLPGB_FINAL_ONLY);
		b->unmapped_pages = true;
	} else {
		/* inc_mm_tlb_gen(): a cpu that skipped the flush (lazy, or
		 * switched away) catches up when it loads the mm again. */
		os_line(os, cpu, TLBSIM_LINE_TLB_GEN, &mm->tlb_gen_line, FAB_RMW, 0);
		mm->pub.tlb_gen++;
		unsigned c;

		tlbsim_for_each_cpu(c, &mm->pub.cpumask) tlbsim_cpumask_set(&b->cpumask, c);
		b->unmapped_pages = true;
	}
	b->flush_required = true;
	/* mm->tlb_flush_batched, set after the PTE was cleared. */
	mm->tlb_flush_batched = true;
}

/* Unmap the pages of [cpu's reclaim_va, reclaim_end) of its reclaim_mm;
 * stops early when an immediate flush makes the cpu wait (it goes on in a
 * continuation). */
static void reclaim_walk(struct os *os, struct hw_cpu *cpu)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	struct os_tlbbatch *b = &oc->curr->ubc;
	struct os_mm *mm = oc->reclaim_mm;
	struct tlbsim_mapping cur;
	uint64_t va = oc->reclaim_va, pstart;

	while (os_next_leaf(mm->pgt, &va, oc->reclaim_end, &cur, &pstart)) {
		uint64_t next = pstart + (1ull << cur.size_shift);

		if (cur.size_shift != TLBSIM_PAGE_SHIFT || os->mapcount[cur.pfn] > 1) {
			va = next;
			continue;
		}
		/* page_vma_mapped_walk() takes the PTE lock; then
		 * ptep_get_and_clear() or ptep_clear_flush(). */
		BUG_ON(tlbsim_pgtable_unmap(mm->pgt, pstart, NULL), "a found leaf can be unmapped");
		os_ptl_add(os, cpu, mm, cur.table_pfn);
		BUG_ON(--os->mapcount[cur.pfn], "a reclaimed page was mapped once");
		/* add_to_swap(): the folio stays in the swap cache until it
		 * is freed; a fault meanwhile maps it again. */
		(void)os_pfns_push(&b->pages, cur.pfn);
		(void)os_pfns_push(&b->keys, swapcache_key(mm, pstart));
		(void)chk_map_put(&os->swapcache, swapcache_key(mm, pstart), cur.pfn);
		os->st.reclaimed++;
		va = next;
		if (should_defer_flush(os, cpu, mm)) {
			add_pending(os, cpu, b, mm, pstart);
			continue;
		}
		/* flush_tlb_page(): no other cpu has the mm, so this waits
		 * only for an INVLPGB of a global ASID. */
		os_ptl_flush(os, cpu);
		os_flush_range(os, cpu, mm, pstart, next, TLBSIM_PAGE_SHIFT, false);
		if (cpu->core->state == ENG_BLOCKED) {
			oc->reclaim_va = va;
			BUG_ON(oc->cont, "one continuation at a time per cpu");
			oc->cont = reclaim_walk;
			return;
		}
	}
	os_ptl_flush(os, cpu);
	oc->reclaim_mm = NULL;
}

bool os_reclaim_must_wait(struct os *os, struct hw_cpu *cpu, const struct tlbsim_event *ev)
{
	struct os_mm *mm = os_mm_of_pid(os, ev->reclaim.pid);
	uint64_t va = ev->reclaim.addr & ~(PAGE_SIZE - 1), end = ev->reclaim.addr + ev->reclaim.len;
	struct tlbsim_mapping cur;
	uint64_t pstart;

	if (!mm)
		return false;
	if (end < ev->reclaim.addr)
		end = UINT64_MAX;
	while (os_next_leaf(mm->pgt, &va, end, &cur, &pstart)) {
		/* page_vma_mapped_walk() spins on the PTE lock. */
		if (os_ptl_held_elsewhere(os, cpu, cur.table_pfn))
			return true;
		va = pstart + (1ull << cur.size_shift);
	}
	return false;
}

void os_reclaim(struct os *os, struct hw_cpu *cpu, struct os_thread *t,
		const struct tlbsim_event *ev)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	struct os_mm *mm = os_mm_of_pid(os, ev->reclaim.pid);

	BUG_ON(oc->curr != t, "reclaim runs as the cpu's current thread");
	if (!mm) {
		oc->st.ignored++;
		return;
	}
	oc->reclaim_mm = mm;
	oc->reclaim_va = ev->reclaim.addr & ~(PAGE_SIZE - 1);
	oc->reclaim_end = ev->reclaim.addr + ev->reclaim.len;
	if (oc->reclaim_end < ev->reclaim.addr)
		oc->reclaim_end = UINT64_MAX;
	reclaim_walk(os, cpu);
}

/* The batch's flush is complete everywhere: free its pages but those a
 * fault took back out of the swap cache (__remove_mapping() fails on a
 * mapped folio). */
static void reclaim_free(struct os *os, struct hw_cpu *cpu)
{
	struct os_tlbbatch *b = &os_cpu_of(cpu)->curr->ubc;
	uint64_t freed = 0, pfn;

	for (unsigned i = 0; i < b->pages.n; i++) {
		if (!chk_map_get(&os->swapcache, b->keys.pfn[i], &pfn) || pfn != b->pages.pfn[i])
			continue;
		chk_map_del(&os->swapcache, b->keys.pfn[i]);
		os_free_frames(os, &pfn, 1);
		freed++;
	}
	os_lru_release(os, cpu, freed);
	b->pages.n = 0;
	b->keys.n = 0;
}

/* x86 arch_tlbbatch_flush(). */
static void tlbbatch_flush_x86(struct os *os, struct hw_cpu *cpu, struct os_tlbbatch *b)
{
	struct tlbsim_cpumask others = b->cpumask, targets;
	bool local = tlbsim_cpumask_test(&b->cpumask, cpu->id);
	bool pages = b->unmapped_pages;

	/* Mutation reclaim_cpumask_only: the broadcast and its TLBSYNC only
	 * when the batch's cpumask has cpus, which the targeted INVLPGBs of
	 * add_pending() left it without: they are never waited for (what
	 * 0b7eb55cb706 rules out: every mm unmapped from must count). */
	if (os->reclaim_cpumask_only &&
	    !tlbsim_cpumask_any_but(&b->cpumask, TLBSIM_NR_CPUS, os->m->nr_cpus)) {
		b->unmapped_pages = false;
		return;
	}
	tlbsim_cpumask_clear(&others, cpu->id);
	if (uses_invlpgb(os) && pages) {
		/* invlpgb_flush_all_nonglobals(): every PCID's non-global
		 * entries, then TLBSYNC. */
		os_cpu_of(cpu)->flush_kind |= OS_FK_INVLPGB;
		hw_invlpgb(&os->smp, cpu, 0, 1, TLBSIM_PAGE_SHIFT, 0, 0);
		hw_tlbsync(&os->smp, cpu);
	} else if (tlbsim_cpumask_any_but(&others, TLBSIM_NR_CPUS, os->m->nr_cpus)) {
		/* flush_tlb_multi(): should_flush_tlb() skips lazy cpus (the
		 * request frees no tables; their tlb_gen is behind). */
		unsigned c;

		tlbsim_cpumask_zero(&targets);
		tlbsim_for_each_cpu(c, &others) if (!os->cpu[c].pub.is_lazy)
		    tlbsim_cpumask_set(&targets, c);
		os_flush_loaded_mms(os, cpu, &targets);
		if (local)
			os_flush_loaded_mm_local(os, cpu);
	} else if (local) {
		os_flush_loaded_mm_local(os, cpu);
	}
	tlbsim_cpumask_zero(&b->cpumask);
	b->unmapped_pages = false;
}

void os_reclaim_flush(struct os *os, struct hw_cpu *cpu, struct os_thread *t)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	struct os_tlbbatch *b = &t->ubc;

	BUG_ON(oc->curr != t, "the batch is flushed by its thread");
	if (b->flush_required) {
		if (os->m->isa == TLBSIM_ISA_ARM64)
			hw_dsb(&os->smp, cpu); /* dsb(ish): the TLBIs of add_pending */
		else
			tlbbatch_flush_x86(os, cpu, b);
		b->flush_required = false;
	}
	if (cpu->core->state == ENG_BLOCKED) {
		BUG_ON(oc->cont, "one continuation at a time per cpu");
		oc->cont = reclaim_free;
		return;
	}
	reclaim_free(os, cpu);
}

void os_flush_batched_pending(struct os *os, struct os_gather *g)
{
	struct os_mm *mm = g->mm;

	if (!mm->tlb_flush_batched || os->no_batched_pending)
		return;
	/* flush_tlb_mm(mm), merged into this syscall's one flush: the model
	 * flushes a syscall once, before it returns and before its frees, so
	 * the entries reclaim left are gone by then as in Linux (where the
	 * flush runs under the PTE lock, before the PTEs change).  x86
	 * flush_tlb_mm() passes freed_tables = true; arm64's is TLBI
	 * ASIDE1IS, every level. */
	mm->tlb_flush_batched = false;
	g->start = 0;
	g->end = TLBSIM_FLUSH_ALL;
	g->stride_shift = TLBSIM_PAGE_SHIFT;
	g->freed_tables = true;
}
