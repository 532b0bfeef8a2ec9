/* SPDX-License-Identifier: MIT */
/*
 * The kernel data that switches, flushes and faults fight over, as shared
 * cache lines of the line model (src/fabric/line.c; hw_line_access() in
 * src/hw/smp.h): which line each path touches, and how.
 *
 *   per mm         mm_cpumask (a line per 512 cpus), nr_active_mm,
 *                  mm->context.tlb_gen, mm->page_table_lock, the
 *                  mmap_lock's count (every down/up is an atomic on it)
 *   per table page its split PTE lock (Linux ptlock_ptr(), in the page's
 *                  struct ptdesc, so a reused frame keeps its line), and
 *                  for lockless faults the PTE's own line (8 PTEs a line)
 *   per VMA        its lock, which faults take instead of the mmap_lock
 *                  with per-VMA locks (os->per_vma_lock, Linux 6.4), by
 *                  the VMA's start (a split VMA's right part gets a new
 *                  line; the model does not merge VMAs)
 *   per NUMA node  the lruvec lock (lru.c)
 *   system         the ASID allocator's lock
 *
 * The OS model and the policies name a line; its cost comes from the
 * machine (topology.line, costs.atomic_rmw).  A lock is a line taken with
 * an atomic and then held for the work done under it: the next cpu waits
 * for the hold to end, then pays the line's transfer from the holder.
 *
 * Page-table locking (os->fault_lock, BACKGROUND.md section 2):
 *   split     a fault's PTE install and a syscall's PTE changes take the
 *             split lock of the PTE-table page (Linux since 2.6.10,
 *             pte_offset_map_lock()); a huge page's PMD entry the lock of
 *             its PMD page (split PMD locks)
 *   mm        everything takes mm->page_table_lock (Linux 2.6.8)
 *   lockless  a fault installs its PTE with a compare-and-exchange on the
 *             PTE's line, no lock (C. Lameter's 2004 fault fast path);
 *             syscalls' PTE changes take mm->page_table_lock as in `mm`
 * In every mode, a page-table page a fault links in takes
 * mm->page_table_lock (Linux __pte_alloc()/__pmd_alloc(): pmd_install()
 * under the PMD lock, folded here into the mm's lock).  A lock is held
 * pte_update cycles per PTE written.  Serial phase, except what the
 * policies touch from their IPI handlers (hw_line_access()).
 */
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "os/os.h"

/* Lines a chunk of os->line_chunk holds. */
#define TLINE_CHUNK 256u
/* Sub-lines of a table page's key, in its top byte (below it the frame
 * number + 1, whose low bits vary, as chk_map's hash wants): 0 the page's
 * split lock, 1 + i/8 the line of PTEs 8i..8i+7 (64-byte lines of 8-byte
 * PTEs). */
#define TLINE_SUB_SHIFT 56

const char *tlbsim_line_kind_name(unsigned kind)
{
	static const char *const names[] = {
#define LINE_NAME(name, text) text,
	    TLBSIM_LINE_KINDS(LINE_NAME)
#undef LINE_NAME
	};

	return kind < TLBSIM_LINE_NR_KINDS ? names[kind] : "unknown";
}

void os_lines_init(struct os *os)
{
	fab_line_init(&os->asid_line);
}

void os_lines_fini(struct os *os)
{
	uint64_t i;

	for (i = 0; i < os->nr_lines; i++)
		fab_line_fini(&os->line_chunk[i / TLINE_CHUNK][i % TLINE_CHUNK]);
	for (i = 0; i < (os->nr_lines + TLINE_CHUNK - 1) / TLINE_CHUNK; i++)
		free(os->line_chunk[i]);
	free(os->line_chunk);
	os->line_chunk = NULL;
	os->nr_lines = os->cap_chunks = 0;
	chk_map_fini(&os->tline_index);
	fab_line_fini(&os->asid_line);
}

/* @fn on every line of @mm (its VMAs' are in os->line_chunk). */
static void mm_lines(struct os_mm *mm, void (*fn)(struct fab_line *l))
{
	for (unsigned i = 0; i < OS_CPUMASK_LINES; i++)
		fn(&mm->cpumask_line[i]);
	fn(&mm->nr_active_line);
	fn(&mm->tlb_gen_line);
	fn(&mm->ptl_line);
	fn(&mm->mmap_line);
}

void os_mm_lines_init(struct os_mm *mm)
{
	mm_lines(mm, fab_line_init);
}

void os_mm_lines_fini(struct os_mm *mm)
{
	mm_lines(mm, fab_line_fini);
}

void os_line(struct os *os, struct hw_cpu *cpu, enum tlbsim_line_kind kind, struct fab_line *l,
	     enum fab_op op, uint64_t hold)
{
	struct tlbsim_line_stats *st = &os_cpu_of(cpu)->st.line[kind];
	uint64_t busy = op == FAB_RMW ? os->m->costs.atomic_rmw + hold : 0;
	uint64_t now = cpu->core->now;
	struct fab_cost c;

	BUG_ON(hold && op != FAB_RMW, "a lock is taken with an atomic");
	hw_line_access(&os->smp, cpu, l, op, busy, &c);
	st->accesses++;
	st->transfers += c.transfer != 0;
	st->transfer_cycles += c.transfer;
	st->wait_cycles += c.start - now;
	st->hold_cycles += hold;
	if (kind == TLBSIM_LINE_LRUVEC_LOCK)
		os_cpu_of(cpu)->st.lru_wait_cycles += c.start - now;
	if (os_cpu_of(cpu)->in_switch)
		os_cpu_of(cpu)->st.switch_line_cycles += c.done - now;
}

struct fab_line *os_mm_line(struct os_mm *mm, enum tlbsim_line_kind kind, unsigned cpu)
{
	switch (kind) {
	case TLBSIM_LINE_MM_CPUMASK:
		return &mm->cpumask_line[cpu / OS_CPUMASK_LINE_BITS];
	case TLBSIM_LINE_NR_ACTIVE_MM:
		return &mm->nr_active_line;
	case TLBSIM_LINE_TLB_GEN:
		return &mm->tlb_gen_line;
	case TLBSIM_LINE_PAGE_TABLE_LOCK:
		return &mm->ptl_line;
	case TLBSIM_LINE_MMAP_LOCK:
		return &mm->mmap_line;
	default:
		return NULL;
	}
}

/* The line of @key in @index, made on first use (keys never 0); NULL
 * when out of memory (the access is then not charged). */
static struct fab_line *keyed_line(struct os *os, struct chk_map *index, uint64_t key)
{
	struct fab_line *l;
	uint64_t i;

	if (chk_map_get(index, key, &i))
		return &os->line_chunk[i / TLINE_CHUNK][i % TLINE_CHUNK];
	i = os->nr_lines;
	if (i % TLINE_CHUNK == 0) {
		uint64_t c = i / TLINE_CHUNK;

		if (c == os->cap_chunks) {
			uint64_t cap = os->cap_chunks ? 2 * os->cap_chunks : 16;
			struct fab_line **n = realloc(os->line_chunk, cap * sizeof(*n));

			if (!n)
				return NULL;
			os->line_chunk = n;
			os->cap_chunks = cap;
		}
		os->line_chunk[c] = malloc(TLINE_CHUNK * sizeof(struct fab_line));
		if (!os->line_chunk[c])
			return NULL;
	}
	if (chk_map_put(index, key, i)) {
		if (i % TLINE_CHUNK == 0) {
			free(os->line_chunk[i / TLINE_CHUNK]);
			os->line_chunk[i / TLINE_CHUNK] = NULL;
		}
		return NULL;
	}
	os->nr_lines++;
	l = &os->line_chunk[i / TLINE_CHUNK][i % TLINE_CHUNK];
	fab_line_init(l);
	return l;
}

/* The line @sub of the page-table page in frame @pfn, for @oc. */
static struct fab_line *table_line(struct os *os, struct os_cpu *oc, uint64_t pfn, unsigned sub)
{
	uint64_t key = (pfn + 1) | (uint64_t)sub << TLINE_SUB_SHIFT;
	struct fab_line *l;

	if (key == oc->tline_key)
		return oc->tline;
	l = keyed_line(os, &os->tline_index, key);
	if (l) {
		oc->tline_key = key;
		oc->tline = l;
	}
	return l;
}

struct fab_line *os_vma_line(struct os *os, struct os_mm *mm, uint64_t start)
{
	return keyed_line(os, &mm->vma_line_index, (start >> 12) + 1);
}

void os_ptl_flush(struct os *os, struct hw_cpu *cpu)
{
	struct os_cpu *oc = os_cpu_of(cpu);

	if (oc->ptl.n && oc->ptl.l)
		os_line(os, cpu, oc->ptl.kind, oc->ptl.l, FAB_RMW,
			oc->ptl.n * os->m->costs.pte_update);
	else if (oc->ptl.n)
		hw_charge(cpu, oc->ptl.n * os->m->costs.pte_update); /* no line: out of memory */
	oc->ptl.l = NULL;
	oc->ptl.n = 0;
}

void os_ptl_add(struct os *os, struct hw_cpu *cpu, struct os_mm *mm, uint64_t table_pfn)
{
	struct os_cpu *oc = os_cpu_of(cpu);
	bool split = os->fault_lock == OS_FAULT_LOCK_SPLIT;
	struct fab_line *l = split ? table_line(os, oc, table_pfn, 0) : &mm->ptl_line;

	if (l != oc->ptl.l || !l) {
		os_ptl_flush(os, cpu);
		oc->ptl.l = l;
		oc->ptl.kind = split ? TLBSIM_LINE_PTE_LOCK : TLBSIM_LINE_PAGE_TABLE_LOCK;
	}
	oc->ptl.n++;
}

void os_fault_install(struct os *os, struct hw_cpu *cpu, struct os_mm *mm, uint64_t va,
		      unsigned shift, uint64_t table_pfn, uint64_t tables_added)
{
	struct fab_line *l;

	if (tables_added)
		os_line(os, cpu, TLBSIM_LINE_PAGE_TABLE_LOCK, &mm->ptl_line, FAB_RMW,
			tables_added * os->m->costs.pte_update);
	if (os->fault_lock != OS_FAULT_LOCKLESS) {
		struct os_cpu *oc = os_cpu_of(cpu);
		bool split = os->fault_lock == OS_FAULT_LOCK_SPLIT;

		if (oc->ptl.n) {
			os_ptl_add(os, cpu, mm, table_pfn);
			os_ptl_flush(os, cpu);
			return;
		}
		/* Nothing gathered (a fault's usual case): os_ptl_add() and
		 * os_ptl_flush() of its one PTE, the lock taken at once. */
		l = split ? table_line(os, oc, table_pfn, 0) : &mm->ptl_line;
		if (l)
			os_line(os, cpu, split ? TLBSIM_LINE_PTE_LOCK : TLBSIM_LINE_PAGE_TABLE_LOCK,
				l, FAB_RMW, os->m->costs.pte_update);
		else
			hw_charge(cpu, os->m->costs.pte_update); /* no line: out of memory */
		oc->ptl.l = NULL;
		return;
	}
	/* The 2004 fast path: set_pte with cmpxchg if the PTE is still none;
	 * the PTE's line is the only one the fault writes. */
	l = table_line(os, os_cpu_of(cpu), table_pfn, 1 + (unsigned)((va >> shift) % 512) / 8);
	if (l)
		os_line(os, cpu, TLBSIM_LINE_PTE, l, FAB_RMW, 0);
	hw_charge(cpu, os->m->costs.pte_update);
}

bool os_ptl_held_elsewhere(const struct os *os, const struct hw_cpu *cpu, uint64_t table_pfn)
{
	for (unsigned c = 0; c < os->m->nr_cpus; c++) {
		const struct os_pfns *h = &os->cpu[c].ptl_held;

		for (unsigned i = 0; c != cpu->id && i < h->n; i++)
			if (h->pfn[i] == table_pfn)
				return true;
	}
	return false;
}
