/* SPDX-License-Identifier: MIT */
/*
 * The OS model: address spaces (mm) with VMAs and radix page tables,
 * threads and processes, a scheduler, memory syscalls and page faults that
 * go through an mmu_gather, ASID/PCID allocation, RCU grace periods, and the
 * flush policy's hooks.  It follows Linux (mm/mmap.c, mm/memory.c,
 * mm/mmu_gather.c, mm/mprotect.c, mm/madvise.c, kernel/fork.c,
 * arch/x86/mm/tlb.c, arch/arm64/mm/context.c) in what it does, at the level
 * of detail that decides TLB behaviour and cost.
 *
 * Execution model (engine.h): a cpu runs its current thread's user events
 * (accesses, compute) in the parallel phase; anything that changes shared
 * state (a syscall, a fault, a context switch, reading more events) parks
 * the cpu and runs in the serial phase, in (time, cpu) order.  A syscall
 * whose flush makes the cpu wait (IPIs, DSB, TLBSYNC) leaves a
 * continuation that runs, again serially, when the wait is over: the pages
 * are freed only then.
 *
 * Internal to the library (prefix os_).
 */
#ifndef TLBSIM_OS_H
#define TLBSIM_OS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check/map.h"
#include "engine/engine.h"
#include "fabric/fabric.h"
#include "hw/pgtable_internal.h"
#include "hw/smp.h"
#include "tlbsim/event.h"
#include "tlbsim/machine.h"
#include "tlbsim/pgtable.h"
#include "tlbsim/policy.h"
#include "tlbsim/sim.h"
#include "tlbsim/stats.h"

struct os;
struct chk_oracle;

/* ---- address spaces ---------------------------------------------------- */

enum os_vma_flags {
	OS_VMA_SHARED = 1u << 0,
	OS_VMA_ANON = 1u << 1,
	OS_VMA_HUGE_2M = 1u << 2, /* hugetlbfs 2 MiB, or THP where aligned */
	OS_VMA_HUGE_1G = 1u << 3,
	OS_VMA_HEAP = 1u << 4, /* the brk area */
	OS_VMA_FILE = 1u << 5, /* MAP_SHARED of a file's page cache (MMAP_FILE) */
};

/* Bits of mm_cpumask in one 64-byte cache line, and lines per mask. */
#define OS_CPUMASK_LINE_BITS 512
#define OS_CPUMASK_LINES (TLBSIM_NR_CPUS / OS_CPUMASK_LINE_BITS)

/* A virtual memory area: [start, end), page-aligned, prot TLBSIM_PROT_*;
 * OS_VMA_FILE: it maps file @file from its page @pgoff (vm_pgoff). */
struct os_vma {
	uint64_t start, end;
	unsigned prot;
	unsigned flags;
	uint32_t file;
	uint64_t pgoff;
};

/**
 * struct os_mm_stats - per address space
 * @flushes: flush_range requests
 * @full_flushes: of them, requests for the whole address space
 *        (TLBSIM_FLUSH_ALL); a range a policy widens past its flush
 *        ceiling is not counted
 * @pages_freed: data pages freed after flushes
 * @tables_freed: page-table pages freed
 * @faults: page faults (demand, COW, spurious)
 * @cow_copies: pages copied on write after fork
 */
struct os_mm_stats {
	uint64_t flushes, full_flushes, pages_freed, tables_freed, faults, cow_copies;
};

/**
 * struct os_mm - an address space
 * @pub: what policies see (must stay first)
 * @pgt: its page tables
 * @vma: sorted, non-overlapping areas; @nr_vma of @cap_vma used
 * @mmap_base: next address handed out for a mapping without an address
 * @brk_start/@brk_end: the heap
 * @pid: the process
 * @dead: exit_mmap ran
 * @tlb_flush_pending: mmu_gathers of this mm between start and flush
 *        (Linux mm->tlb_flush_pending)
 * @lock_writer/@lock_readers: mmap_lock: 1 + the cpu holding it for
 *        writing (0: none), and the number of read holders (syscalls and
 *        faults)
 * @lock_wait/@lock_nr_wait/@lock_cap_wait: mmap_lock's wait list (Linux
 *        rwsem wait_list), oldest first: a cpu id each, OS_LOCK_WAIT_WRITE
 *        set for a writer (os/mmap_lock.c)
 * @lock_flush_base/@lock_flush_acq: the cycles this mm's write holders
 *        spent blocked on their flushes, over every write hold that ended;
 *        and the current writer's hw blocked_cycles when it took the lock
 *        (flush_lock_wait_cycles, os/mmap_lock.c)
 * @cpumask_line/@nr_active_line/@tlb_gen_line/@ptl_line/@mmap_line: the
 *        mm's shared lines (the line model, os/lines.c): mm_cpumask, one
 *        line per 512 cpus; nr_active_mm; mm->context.tlb_gen;
 *        mm->page_table_lock; the mmap_lock's count
 * @vma_line_index: VMA start (>> 12, + 1) -> the index of its per-VMA
 *        lock's line in os->line_chunk (os/lines.c)
 * @tlb_flush_batched: reclaim has cleared PTEs of this mm with their flush
 *        deferred into a batch that may not have run yet (Linux
 *        mm->tlb_flush_batched; flush_tlb_batched_pending(), reclaim.c)
 * @st: counters
 */
struct os_mm {
	struct tlbsim_mm pub;
	tlbsim_pgtable *pgt;
	struct os_vma *vma;
	unsigned nr_vma, cap_vma;
	uint64_t mmap_base;
	uint64_t brk_start, brk_end;
	uint32_t pid;
	bool dead;
	unsigned lock_writer;
	unsigned lock_readers;
	uint32_t *lock_wait;
	unsigned lock_nr_wait, lock_cap_wait;
	uint64_t lock_flush_base, lock_flush_acq;
	unsigned tlb_flush_pending;
	bool tlb_flush_batched;
	/* cpus whose struct os_cow names this mm (os_cow_busy()'s shortcut) */
	unsigned cow_pending;
	struct fab_line cpumask_line[OS_CPUMASK_LINES];
	struct fab_line nr_active_line, tlb_gen_line, ptl_line, mmap_line;
	struct chk_map vma_line_index;
	struct os_mm_stats st;
};

static inline struct os_mm *os_mm_of(struct tlbsim_mm *pub)
{
	return (struct os_mm *)pub;
}

/* ---- threads ------------------------------------------------------------ */

enum os_thread_state {
	OS_T_NEW = 0,	  /* events seen, not created yet */
	OS_T_RUNNABLE,	  /* on a runqueue */
	OS_T_RUNNING,	  /* current on its cpu */
	OS_T_SLEEPING,	  /* waits for a WAKE */
	OS_T_EXITED,
};

/* A chunk of a queue's spilled events: @n events in @bytes of the compact
 * records of evq.c, in memory at @buf (followed by zero padding), or in
 * the spill file from byte @off on when @buf is NULL; the first has trace
 * index @idx0, tid @tid and cpu @cpu. */
struct os_evq_chunk {
	uint64_t off, idx0;
	unsigned char *buf;
	uint32_t n, bytes, tid;
	uint16_t cpu;
};

/**
 * struct os_evq - a thread's events read and not yet run (src/os/evq.c)
 * @ev, @idx: the oldest events in memory, a ring of @cap (a power of two)
 *        from @head, @n of them, with each one's index in the trace (for
 *        the hazard oracle's reports and ordered replay)
 * @spilled: newer events as compact records: in @chunks (oldest first, a
 *        ring from @chunk_head), then in the open chunk @w, whose buffer
 *        has @w_cap bytes; @w_idx is its last event's index and @w_va
 *        its address bases (evq.c: two for data, one for fetches), which
 *        the next record is relative to
 * @sp: the spill state, once the queue has used it
 * @store: the records of the complete chunks kept in memory, oldest
 *        first, a ring of @store_cap bytes from @store_head to
 *        @store_tail (evq.c store_alloc()); @store_live of them
 */
struct os_evq {
	struct tlbsim_event *ev;
	uint64_t *idx;
	uint32_t head, n, cap;
	uint64_t spilled;
	struct os_evq_chunk *chunks;
	uint32_t chunk_head, nr_chunks, cap_chunks;
	struct os_evq_chunk w;
	size_t w_cap;
	uint64_t w_idx, w_va[3];
	struct os_spill *sp;
	unsigned char *rbuf; /* a chunk's records as read back from the file */
	size_t rbuf_cap;
	unsigned char *store;
	size_t store_cap, store_head, store_tail;
	uint32_t store_live;
};

/* Events a queue keeps in memory before spilling: os_horizon() (sim.c)
 * looks at up to 64 ahead. */
#define OS_EVQ_KEEP 64

/* Events queued in all: in memory and spilled. */
static inline uint64_t os_evq_len(const struct os_evq *q)
{
	return q->n + q->spilled;
}

/* Events the queues of all threads hold in memory before a queue spills
 * (48 + 8 bytes each: 3.5 MiB).  Rings grow to hold it at most. */
#define OS_SPILL_BUDGET (1ull << 16)

/* Bytes of spilled chunks kept in memory before chunks go to the spill
 * file (the recorded sample's peak, bench/perf/README.md, fits). */
#define OS_SPILL_MEM (128ull << 20)

/**
 * struct os_spill - where queues spill to (src/os/evq.c)
 * @fd: the file (-1: none yet); @tried: creating it was tried, in @dir
 * @end: bytes written
 * @budget: events in memory in all queues before they spill
 * @mem: events in memory now, as estimated before each read of the trace
 *        (sim.c: pushed to memory minus popped); counted up by pushes
 * @pushed: events pushed into memory, ever
 * @mem_cap: bytes of spilled chunks kept in memory before the file is used
 * @mem_bytes: bytes of spilled chunks in memory now (cpus reading chunks
 *        back in the parallel phase take theirs off)
 * @kept, @written: events spilled to chunks in memory and to the file, ever
 * @full: the errno of a failed write (0: none), with @full_why: chunks stay
 *        in memory from then on
 * @error: the errno of the first failed read back (0: none), with @why
 *        saying what failed: the run stops
 */
struct os_spill {
	int fd;
	bool tried;
	uint64_t end;
	uint64_t budget, mem, pushed;
	uint64_t mem_cap;
	_Atomic uint64_t mem_bytes;
	uint64_t kept, written;
	int full;
	char full_why[128];
	atomic_int error;
	char why[128];
	char dir[256];
};

/* Page frames an mmu_gather frees after its flush. */
struct os_pfns {
	uint64_t *pfn;
	unsigned n, cap;
};

/**
 * struct os_tlbbatch - a thread's deferred reclaim flush (Linux struct
 * tlbflush_unmap_batch, current->tlb_ubc; src/os/reclaim.c)
 * @flush_required: PTEs were cleared with their flush deferred
 * @cpumask: x86 arch_tlbflush_unmap_batch.cpumask: the union of the
 *        mm_cpumasks of the mms unmapped from
 * @unmapped_pages: x86 with INVLPGB: pages were unmapped from some mm,
 *        whether or not its mm_cpumask had cpus (commit 0b7eb55cb706)
 * @pages: the frames unmapped, freed once the batch is flushed
 *        (shrink_folio_list() frees after try_to_unmap_flush()), unless a
 *        fault mapped one again from the swap cache meanwhile; @keys: each
 *        one's key in os->swapcache (os_swapcache_key())
 */
struct os_tlbbatch {
	bool flush_required;
	struct tlbsim_cpumask cpumask;
	bool unmapped_pages;
	struct os_pfns pages, keys;
};

/* A memory syscall read and not yet returned (src/os/hb.c): [@start,
 * @end), of the event at trace index @idx >> 1; bit 0 of @idx: it takes
 * mmap_lock for writing (every memory syscall but madvise). */
struct os_hb_rec {
	uint64_t idx;
	uint64_t start, end;
};

/**
 * struct os_thread - a thread
 * @tid, @pid: ids from the trace
 * @mm: its address space (NULL until created)
 * @state: see enum os_thread_state
 * @cpu: the cpu it runs on or last ran on (-1: never ran)
 * @pinned: cpu it was placed on by a SWITCH event (-1: free)
 * @aff_first/@aff_count: the cpus an AFFINITY event allowed it,
 *        [@aff_first, + @aff_count) modulo the machine's (@aff_count 0:
 *        every cpu); inherited by the threads and processes it creates
 * @q: events read for it and not yet done
 * @compute_left: cycles left of the COMPUTE event at the head of @q
 * @wake_tokens: WAKEs that came before the SLEEP they end
 * @sleep_idx: trace index of the SLEEP it last went to sleep at
 * @rq_next: runqueue link
 * @events_done: events it has completed
 * @fault_retries: faults taken by the access at the head of @q (since
 *        its last page done, for an access that crosses pages)
 * @fault_waiting: the access at the head of @q faulted on a page whose
 *        copy-on-write another cpu is making (os_cow_busy()): its cpu
 *        parks for the serve each window until it is done, without
 *        translating the access again (os_step())
 * @split_off: bytes of the access at the head of @q whose pages are
 *        translated already: an access that crosses a 4 KiB boundary is
 *        translated a page at a time (translate_pages() in sim.c), and a
 *        fault on a later page is served and retried from that page
 * @kthread: a kernel thread: no mm of its own; @mm is the one it borrows
 *        (kthread_use_mm()) or NULL
 * @mmget: the borrowed @mm was taken with an mm_users reference
 *        (mmget_not_zero() before kthread_use_mm(), mmput() after)
 * @ubc: its reclaim batch (struct os_tlbbatch)
 * @hb: its memory syscalls read and not yet returned, oldest first, a
 *        ring of @hb_cap from @hb_head, @hb_n of them (src/os/hb.c);
 *        @hb_lo/@hb_hi bound their ranges; @hb_slot: its place in
 *        os->hb_threads (while @hb_n > 0); @hb_waiting: the syscall at
 *        the head of @q waits for an earlier one of another thread;
 *        @hb_clear: 1 + the index of a syscall at the head of @q that
 *        os_hb_blocker() found free to start, 0 for none (nothing can
 *        block it later: records are added in trace order, after it, and
 *        only leave), so its retries behind a held mmap_lock skip the look
 */
struct os_thread {
	uint32_t tid, pid;
	struct os_mm *mm;
	enum os_thread_state state;
	int cpu;
	int pinned;
	uint16_t aff_first, aff_count;
	struct os_evq q;
	uint64_t compute_left;
	unsigned wake_tokens;
	uint64_t sleep_idx;
	struct os_thread *rq_next;
	uint64_t events_done;
	unsigned fault_retries;
	uint32_t split_off;
	bool fault_waiting;
	bool kthread, mmget;
	struct os_tlbbatch ubc;
	struct os_hb_rec *hb;
	uint32_t hb_head, hb_n, hb_cap, hb_slot;
	uint64_t hb_lo, hb_hi, hb_clear;
	bool hb_waiting;
	/* The thread's life as read from the source, in trace order (the
	 * front end's input checks; the fields above follow execution). */
	bool r_created, r_exited;
	uint32_t r_pid;
	uint64_t r_created_at, r_exited_at; /* event indices */
};

/* ---- cpus --------------------------------------------------------------- */

/* Why a parked cpu needs the serial phase. */
enum os_park {
	OS_PARK_NONE = 0,
	OS_PARK_EVENT,	  /* the head event of the current thread */
	OS_PARK_REFILL,	  /* the current thread's queue is empty */
	OS_PARK_RESCHED,  /* time slice over, others are waiting */
	OS_PARK_CONT,	  /* a continuation after a wait */
};

/* Work to finish after the cpu's wait ends (serial phase). */
typedef void (*os_cont_fn)(struct os *os, struct hw_cpu *cpu);

/**
 * struct os_gather - Linux struct mmu_gather: what a syscall changed, to
 * flush once and free after the flush (mm/mmu_gather.c)
 * @mm: the address space
 * @start/@end: union of the ranges changed, bytes; @end == 0: nothing yet
 * @stride_shift: smallest page size changed (log2)
 * @freed_tables: page-table pages were unlinked
 * @fullmm: the whole address space goes (exit_mmap)
 * @call_start/@call_end: the range the syscall asked for (the start and
 *        end tlb_finish_mmu() took before Linux 5.13), set by munmap and
 *        madvise; 0, 0: none
 * @pages: data frames to free after the flush
 * @lru_pages: pages (folios: a huge page is one) among @pages, each taken
 *        off the LRU under the lru_lock when they are freed
 * @tables: table frames to free after the flush (via the policy)
 */
struct os_gather {
	struct os_mm *mm;
	uint64_t start, end;
	unsigned stride_shift;
	bool freed_tables;
	bool fullmm;
	uint64_t call_start, call_end;
	struct os_pfns pages;
	unsigned lru_pages;
	struct os_pfns tables;
};

/**
 * struct os_cpu_stats - per cpu
 * @context_switches: switches between threads
 * @mm_switches: of them, between address spaces (switch_mm)
 * @flushes_local/@flushes_ipi/@flushes_broadcast/@flushes_invlpgb/
 * @flushes_skipped: flush requests this cpu initiated, by how they were
 *        carried out (the strongest mechanism used)
 * @full_flushes: initiated requests for the whole address space
 *        (TLBSIM_FLUSH_ALL; "full_flush_requests" in the JSON)
 * @flush_cycles: busy cycles this cpu charged inside its own flush requests
 *        (the policy's flush_range: local flush instructions, IPI set-up
 *        and sends, TLBI/INVLPGB issue, DSB/TLBSYNC issue); the waits that
 *        follow are the hardware's blocked cycles, the receivers' share is
 *        stolen, so neither is counted twice
 * @syscalls: memory syscalls served
 * @faults: page faults taken
 * @segv: accesses outside any mapping or not permitted (counted, skipped)
 * @events: events completed on this cpu
 * @ignored: kernel-level events (in a thread's stream, or naming this cpu
 *        for no thread) and events the OS model refused: none applied
 * @bad_syscalls: syscalls whose range lies outside the user address space,
 *        is empty where Linux fails that (munmap, mmap, mremap), or starts
 *        off a page boundary (munmap, mprotect, madvise, mremap's old
 *        range): failed as Linux fails them, nothing changed (an empty,
 *        aligned mprotect or madvise succeeds: not counted)
 * @lru_wait_cycles: cycles spent waiting for the lru_lock held by another
 *        cpu (part of the core's waiting cycles)
 * @line: per kind of shared line (enum tlbsim_line_kind), what touching
 *        them cost this cpu (os/lines.c)
 * @mmap_lock_wait_cycles: cycles asleep on an mmap_lock's wait list until
 *        a release handed this cpu the lock (or it gave up), interrupts not
 *        included (part of the core's waiting cycles; os/mmap_lock.c)
 * @flush_lock_wait_cycles: of them, while the lock's write holders were
 *        blocked on their flushes (IPI acknowledgements, DSB, TLBSYNC)
 * @switch_line_cycles: cycles the policy's switch_mm and enter_lazy spent
 *        on shared lines (mm_cpumask, tlb_gen, nr_active_mm: transfers,
 *        waits, atomics), the bookkeeping that says which cpus a flush
 *        must reach
 */
struct os_cpu_stats {
	uint64_t context_switches, mm_switches;
	uint64_t flushes_local, flushes_ipi, flushes_broadcast, flushes_invlpgb, flushes_skipped;
	uint64_t full_flushes, syscalls, faults, segv, events, ignored, bad_syscalls;
	uint64_t flush_cycles;
	uint64_t lru_wait_cycles;
	struct tlbsim_line_stats line[TLBSIM_LINE_NR_KINDS];
	uint64_t mmap_lock_wait_cycles;
	uint64_t flush_lock_wait_cycles;
	uint64_t switch_line_cycles;
};

/**
 * struct os_ret - the ranges a syscall or fault in progress changes; when
 * it returns to user space the hazard oracle commits them
 * @n: ranges in use (0: nothing in progress)
 * @root: root table of the address space
 * @start/@end: the ranges, bytes
 */
struct os_ret {
	unsigned n;
	uint64_t root;
	uint64_t start[2], end[2];
};

/* An mremap moving PTEs (mm/mremap.c move_page_tables()): the old range
 * [@old_start, +@old_len) moves to [@new_start, +@new_len), the PTEs
 * below @end; done up to @va; @keep is the old VMA. */
struct os_mremap {
	struct os_mm *mm;
	uint64_t va, end, old_start, old_len, new_start, new_len;
	struct os_vma keep;
	bool dontunmap; /* MREMAP_DONTUNMAP: the old VMA stays, empty */
};

/* A copy-on-write fault waiting for its flush before the new page is
 * mapped (ptep_clear_flush(), then set_pte_at()). */
struct os_cow {
	struct os_mm *mm;
	uint64_t va, pfn;
	unsigned shift, prot;
};

/**
 * struct os_cpu - the OS's per-cpu state (hw_cpu->priv)
 * @pub: what policies see
 * @curr: the running thread, NULL when idle
 * @rq_head/@rq_tail/@rq_len: runnable threads waiting for this cpu
 * @slice_end: when the current thread's time slice ends, cycles
 * @park: why the cpu is parked
 * @cont: continuation after a wait, or NULL
 * @cont_then: what the gather's continuation runs after freeing, or NULL
 * @exit_then: what os_exit_mm() runs after the policy's exit_mm hook
 * @gather: the mmu_gather in progress
 * @flush_kind: mechanisms used by the flush in progress (OS_FK_* bits)
 * @ipi_info: the request this cpu's IPIs carry (read by the targets while
 *        it waits for their acknowledgements)
 * @arm64_flush_pending: arm64 ASID rollover: flush all at next switch
 * @rcu_qs_seq: quiescent states passed (context switch, idle, tick)
 * @ret: what the syscall or fault in progress changes (hazard oracle)
 * @cow: a copy-on-write fault's new page, mapped after the flush
 * @locked/@locked_write: the mm whose mmap_lock the syscall or fault in
 *        progress holds, and how (a fault: for reading, to its return,
 *        across its flush's wait too)
 * @lru_batch: faulted-in pages in this cpu's LRU add batch, not yet on the
 *        LRU (Linux's per-cpu cpu_fbatches.lru_add)
 * @fault_line/@fault_kind: the VMA's lock the fault in progress holds for
 *        reading with per-VMA locks (released, an atomic, at its return);
 *        NULL: none
 * @mmap_waiting: the mm on whose mmap_lock wait list this cpu is (it read
 *        the lock's count once, and sleeps until a release hands it the
 *        lock), or NULL
 * @mmap_granted: a release handed this cpu the mmap_lock (@locked) for the
 *        event at its thread's head, which has not run since
 * @mmap_wait_start/@mmap_wait_stolen/@mmap_wait_flush: when it joined the
 *        wait list, its core's stolen cycles then, and the mm's write
 *        holders' flush-blocked cycles then (os/mmap_lock.c)
 * @ptl: the page-table lock of the PTE changes being gathered: the lock's
 *        line and kind, and PTEs changed under it so far (os_ptl_add())
 * @mremap: an mremap's move in progress (mm.c)
 * @ptl_held: page-table pages whose PTE locks this cpu holds across the
 *        flush in progress (an mremap's old and new tables, Linux since
 *        eb66ae030829); released when the gather's frees are done
 * @trunc_file/@trunc_pgoff/@trunc_mm/@trunc_va: a TRUNCATE in progress:
 *        the file, its first page to go, the index in os->mms of the
 *        address space being zapped and the address its next VMA to zap
 *        ends above (src/os/truncate.c)
 * @reclaim_mm/@reclaim_va/@reclaim_end: a RECLAIM in progress whose
 *        immediate flush made the cpu wait: it goes on from @reclaim_va
 * @hb_thread/@hb_idx: the thread and trace index of the memory syscall in
 *        progress (src/os/hb.c; NULL: none)
 * @switch_from/@switch_until: x86: the last switch_mm to another mm ran
 *        from its read of next's tlb_gen (what choose_new_asid() decides
 *        by) to the publication of loaded_mm, after the CR3 write, cycles
 *        [from, until): the window in which Linux's cpu_tlbstate.loaded_mm
 *        is LOADED_MM_SWITCHING (arch/x86/mm/tlb.c switch_mm_irqs_off());
 *        a flush initiated meanwhile sees pub.switching (os_flush_range())
 * @st: counters
 */
struct os_cpu {
	struct tlbsim_cpu pub;
	struct os_thread *curr;
	struct os_thread *rq_head, *rq_tail;
	unsigned rq_len;
	uint64_t slice_end;
	enum os_park park;
	os_cont_fn cont;
	os_cont_fn cont_then;
	os_cont_fn exit_then;
	struct os_gather gather;
	unsigned flush_kind;
	struct tlbsim_flush_info ipi_info;
	bool arm64_flush_pending;
	uint64_t rcu_qs_seq;
	struct os_ret ret;
	struct os_cow cow;
	struct os_mm *locked;
	bool locked_write;
	unsigned lru_batch;
	struct fab_line *fault_line;
	enum tlbsim_line_kind fault_kind;
	struct os_mm *mmap_waiting;
	bool mmap_granted;
	uint64_t mmap_wait_start, mmap_wait_stolen, mmap_wait_flush;
	struct {
		struct fab_line *l;
		enum tlbsim_line_kind kind;
		uint64_t n;
	} ptl;
	struct os_mremap mremap;
	uint32_t trunc_file, trunc_mm;
	uint64_t trunc_pgoff, trunc_va;
	struct os_pfns ptl_held;
	struct os_mm *reclaim_mm;
	uint64_t reclaim_va, reclaim_end;
	struct os_thread *hb_thread;
	uint64_t hb_idx;
	uint64_t evq_popped; /* events this cpu popped off queues, ever */
	uint64_t switch_from, switch_until;
	bool in_switch; /* in the policy's switch_mm or enter_lazy */
	/* the line of os->tline_index this cpu found last, and its key (0:
	 * none): a cpu's faults and zaps that follow one another mostly stay
	 * in one table page, and a key keeps its line for good (os/lines.c) */
	uint64_t tline_key;
	struct fab_line *tline;
	/* the last-level table this cpu's last fault looked its page up in
	 * (hw_pgtable_lookup_hint(); os_mm_destroy() forgets its mm's) */
	struct hw_pgtable_memo pt_memo;
	struct os_cpu_stats st;
};

enum os_flush_kind {
	OS_FK_LOCAL = 1u << 0,
	OS_FK_IPI = 1u << 1,
	OS_FK_BROADCAST = 1u << 2,
	OS_FK_INVLPGB = 1u << 3,
};

/* ---- RCU ---------------------------------------------------------------- */

/* Table frames waiting for a grace period. */
struct os_rcu_batch {
	uint64_t *pfn;
	unsigned n;
	uint64_t start;			/* call_rcu time, cycles */
	struct tlbsim_cpumask waiting;	/* cpus that have not passed a QS since */
	uint64_t *qs_seq;		/* per cpu, rcu_qs_seq at call_rcu */
	struct os_rcu_batch *next;
};

/* ---- the policy, resolved ---------------------------------------------- */

/* A hook and the slot of the policy that provides it. */
struct os_hook {
	const struct tlbsim_policy *p;
	unsigned slot;
};

struct os_policy {
	const struct tlbsim_policy *part[TLBSIM_POLICY_SLOTS];
	void *state[TLBSIM_POLICY_SLOTS];
	unsigned nr;
	struct os_hook switch_mm, flush_range, ipi_handler, free_tables, exit_mm, enter_lazy;
	char name[128];
};

/* How page faults and PTE changes lock (tlbsim_sim_config.os_flags;
 * BACKGROUND.md section 2, last bullet; os/lines.c). */
enum os_fault_lock {
	OS_FAULT_LOCK_SPLIT = 0, /* a lock per PTE-table page (Linux's split PTE locks) */
	OS_FAULT_LOCK_MM,	 /* mm->page_table_lock for everything (Linux 2.6.8) */
	OS_FAULT_LOCKLESS,	 /* faults cmpxchg their PTE; the rest as MM (2004) */
};

/* ---- the whole OS -------------------------------------------------------- */

/**
 * struct os_stats - global counters
 * @events_read: events taken from the source
 * @unknown_thread_events: events of threads that were never created
 * @asid_rollovers: arm64 ASID generation rollovers
 * @global_asid_resets: x86 global ASID pool resets
 * @rcu_batches/@rcu_tables_freed: RCU table free
 * @switches_folded: SWITCH events naming a cpu the machine lacks, folded
 *        onto cpu % nr_cpus
 * @reclaimed/@reclaim_refaults: pages page reclaim unmapped (RECLAIM) and,
 *        of them, those a fault mapped again from the swap cache before the
 *        batch's flush freed them
 * @syscall_order_waits: memory syscalls that waited for an earlier one
 *        (trace order) of another thread on an overlapping range to return
 *        (src/os/hb.c)
 */
struct os_stats {
	uint64_t events_read, unknown_thread_events, asid_rollovers, global_asid_resets;
	uint64_t switches_folded, syscall_order_waits;
	uint64_t rcu_batches, rcu_tables_freed;
	uint64_t reclaimed, reclaim_refaults;
};

struct os {
	const struct tlbsim_machine *m;
	tlbsim_physmem *pm;
	struct eng eng;
	struct hw_smp smp;
	struct os_cpu *cpu;
	struct os_policy pol;
	struct tlbsim_policy_ops ops;

	/* threads by tid (open addressing), and all mms; @last_thread is the
	 * one os_thread_get() found last (threads live until the end, a
	 * reused tid's earlier incarnation in @retired: the pointer stays
	 * valid; os_thread_renew() points it at the new one), since a trace's events come in runs of one
	 * thread */
	struct os_thread **threads;
	uint32_t threads_cap, nr_threads;
	struct os_thread *last_thread;
	/* Earlier incarnations of reused tids, oldest first (os_thread_renew()). */
	struct os_thread **retired;
	uint32_t nr_retired, cap_retired;
	struct chk_map pid_live; /* pid -> threads alive in trace order (route()) */
	/* threads with memory syscalls read and not yet returned (hb.c) */
	struct os_thread **hb_threads;
	uint32_t nr_hb_threads, cap_hb_threads;
	struct os_mm **mms;
	uint32_t nr_mms, cap_mms;
	uint32_t next_mm_id;

	/* the latest end of a cpu's switch_mm window (os_cpu.switch_until),
	 * and whether some cpu's pub.switching is set: os_flush_range()
	 * looks at the cpus only then */
	uint64_t switch_window_end;
	bool switching_shown;

	/* the kernel's own page tables (init_mm), loaded by leave_mm */
	tlbsim_pgtable *init_pgt;

	/* page sharing after fork: map count per data frame */
	uint32_t *mapcount;
	uint64_t mapcount_cap;
	/* the shared zero page (mm.c zero_page()): read faults on anonymous
	 * memory map it; allocated at the first such fault, never freed */
	uint64_t zero_pfn;
	bool has_zero_page;

	/* arm64 ASIDs: generation and bitmap of ASIDs used in it */
	uint64_t asid_gen;
	uint64_t *asid_map;
	uint32_t asid_next;

	/* x86 global ASIDs: pool [TLBSIM_X86_DYN_ASIDS, 2^bits - 2] */
	uint8_t *gasid_used;	/* 1 in use, 2 freed but not reusable */
	uint32_t gasid_next, gasid_avail;

	/* RCU */
	struct os_rcu_batch *rcu_head;

	/* pages reclaim unmapped and has not freed yet, by
	 * os_swapcache_key(): a fault finds them there and maps them again
	 * (do_swap_page() finding the folio in the swap cache) */
	struct chk_map swapcache;
	/* the page cache of the files MMAP_FILE maps: os_pagecache_key()
	 * -> frame (which holds one map count for the cache), and per file
	 * one past its highest page cached (file -> pages) */
	struct chk_map pagecache, file_pages;

	/* the lruvec locks, one per NUMA node (src/os/lru.c) */
	struct fab_line *lru;
	unsigned nr_lru;

	/* the lines made as they are first used (os/lines.c), in chunks that
	 * never move (a gathered PTE lock keeps a pointer to its line): those
	 * of page-table pages, by frame and sub-line in @tline_index, and the
	 * VMAs' locks (os_mm.vma_line_index) */
	struct chk_map tline_index;
	struct fab_line **line_chunk;
	uint64_t nr_lines, cap_chunks;
	/* the system-wide ASID allocator's lock (x86 global_asid_lock,
	 * arm64 cpu_asid_lock) */
	struct fab_line asid_line;
	/* OS-model options (tlbsim_sim_config.os_flags, as given in
	 * @os_flags) */
	unsigned os_flags;
	enum os_fault_lock fault_lock;
	bool lru_add_drain;
	bool per_vma_lock;
	/* mutations that bring back historical kernel bugs (TLBSIM_OS_*) */
	bool no_batched_pending, reclaim_cpumask_only, mremap_late_flush, nested_reset_range;

	/* the event source: tlbsim_sim_run()'s one at a time, or
	 * tlbsim_sim_run_batch()'s into @batch (@batch_pos of @batch_n used) */
	tlbsim_event_source_fn next;
	tlbsim_event_batch_fn next_batch;
	void *next_arg;
	struct tlbsim_event *batch;
	uint32_t batch_n, batch_pos;
	bool source_ended;
	int source_error;
	struct os_spill spill; /* where event queues go beyond memory */
	struct tlbsim_error *err;
	char source_name[256]; /* for error reports (tlbsim_sim_config.name) */

	uint64_t max_events;
	uint64_t max_cycles;
	long long serving; /* the event os_serve() serves (trace index), or -1 */
	bool stopped_early;
	struct os_stats st;

	/* the hazard oracle (NULL: not checking) and ordered replay: an
	 * event may start only once every earlier one (trace order) has */
	struct chk_oracle *oracle;
	bool no_nested_flush;
	bool ordered;
	uint64_t issued;	 /* every event before this index has started */
	uint64_t issue_time;	 /* when the last one started, cycles */
	uint64_t *ord_started;	 /* bit per event index */
	uint64_t ord_cap;	 /* bits in @ord_started */
	struct os_thread **ord_thread; /* each event's thread (NULL: none) */
	uint64_t ord_thread_cap;
	uint64_t stalls;
	/* the run stopped because the events' order cannot be kept (an
	 * ordered replay stuck on a thread that sleeps with only a later
	 * wake, was never created or never runs; a memory syscall waiting
	 * for one that cannot return): exploration skips such orders */
	bool order_impossible;
};

static inline struct os_cpu *os_cpu_of(struct hw_cpu *cpu)
{
	return cpu->priv;
}

static inline struct os *container_of_smp(struct hw_smp *smp)
{
	return (struct os *)((char *)smp - offsetof(struct os, smp));
}

static inline struct hw_cpu *os_hw(struct os *os, unsigned id)
{
	return &os->smp.cpu[id];
}

/* ---- across files -------------------------------------------------------- */

/* mm.c: address spaces, syscalls, faults */
/* The ranges memory syscall @ev names, [start[i], end[i]) for i below the
 * count returned (0 for another kind, 2 for mremap); a brk's is between
 * @brk_end (the break before it) and its new end. */
unsigned os_syscall_ranges(const struct tlbsim_event *ev, uint64_t brk_end, uint64_t start[2],
			   uint64_t end[2]);
struct os_mm *os_mm_create(struct os *os, uint32_t pid);
void os_mm_destroy(struct os *os, struct os_mm *mm);
int os_vma_insert(struct os_mm *mm, uint64_t start, uint64_t end, unsigned prot, unsigned flags);
/* Insert a copy of @v (its file and page offset too). */
int os_vma_insert_copy(struct os_mm *mm, const struct os_vma *v);
struct os_vma *os_vma_find(struct os_mm *mm, uint64_t va);
/* An mprotect or madvise of length 0: it returns at once, before any lock
 * (os_syscall()), so nothing orders or waits it. */
bool os_syscall_is_empty(const struct tlbsim_event *ev);
void os_syscall(struct os *os, struct hw_cpu *cpu, const struct tlbsim_event *ev);
/* ---- mmap_lock (os/mmap_lock.c) ---- */

/* In struct os_mm's lock_wait: the waiter wants the lock for writing. */
#define OS_LOCK_WAIT_WRITE (1u << 31)

/* May @cpu's syscall @ev (or a fault, @ev NULL) take @mm's mmap_lock now?
 * Takes it if so (Linux: mmap, munmap, mremap, brk and mprotect write,
 * madvise and faults read); else @cpu joins the lock's wait list (once)
 * and the caller blocks it with os_mmap_wait().  True also when @cpu
 * already holds the lock (a release handed it over). */
bool os_mmap_lock(struct os *os, struct hw_cpu *cpu, struct os_mm *mm, const struct tlbsim_event *ev);
/* Block @cpu, on @mm's wait list since os_mmap_lock(), until a release
 * hands it the lock (or its time slice ends with threads waiting for the
 * cpu: os_mmap_give_up()). */
void os_mmap_wait(struct os *os, struct hw_cpu *cpu);
/* @cpu leaves the wait list it is on without the lock (its thread is
 * preempted); a no-op when it is on none. */
void os_mmap_give_up(struct os *os, struct hw_cpu *cpu);
/* A thread joined the runqueue of @cpu: if it sleeps on a wait list with
 * no deadline, it now wakes at its slice's end to let the thread run. */
void os_mmap_rq_changed(struct os *os, struct hw_cpu *cpu);
/* up_read()/up_write() of the mmap_lock @cpu holds, at its clock: the
 * count's atomic, then the wait list's head is handed the lock. */
void os_mmap_unlock(struct os *os, struct hw_cpu *cpu);
/* downgrade_write() of the mmap_lock @cpu holds for writing on @mm. */
void os_mmap_downgrade(struct os *os, struct hw_cpu *cpu, struct os_mm *mm);
/* Does another cpu's copy-on-write fault hold the PTE lock of a page that
 * @cpu's access or syscall @ev in @mm needs?  Linux holds it from
 * ptep_clear_flush() to set_pte_at() of the copy, so a zap or fault of
 * that page waits for the COW's flush (mm/memory.c wp_page_copy()). */
bool os_cow_busy(struct os *os, const struct hw_cpu *cpu, const struct os_mm *mm,
		 const struct tlbsim_event *ev);
/* The syscall or fault of @cpu returns to user space (once its waits are
 * over): the hazard oracle commits what it changed. */
void os_kernel_exit(struct os *os, struct hw_cpu *cpu);
/* Returns true if the access can be retried, false if it is to be skipped. */
bool os_fault(struct os *os, struct hw_cpu *cpu, struct os_mm *mm, uint64_t va,
	      enum tlbsim_access access);
struct os_mm *os_fork_mm(struct os *os, struct hw_cpu *cpu, struct os_mm *parent, uint32_t pid);
/* The next present leaf of @pgt at or after *@va and below @end: fills
 * @cur and *@pstart (the page's first address); false when none is left. */
bool os_next_leaf(tlbsim_pgtable *pgt, uint64_t *va, uint64_t end, struct tlbsim_mapping *cur,
		  uint64_t *pstart);

/* exit_mmap() then destroy_context() (the policy's exit_mm hook), then
 * @then, once the flush's wait is over. */
void os_exit_mm(struct os *os, struct hw_cpu *cpu, struct os_mm *mm, os_cont_fn then);

/* gather.c: mmu_gather */
void os_gather_init(struct os_gather *g, struct os_mm *mm, bool fullmm);
void os_gather_add_range(struct os_gather *g, uint64_t start, uint64_t end, unsigned shift);
int os_gather_add_page(struct os_gather *g, uint64_t pfn);
void os_gather_table_cb(void *arg, uint64_t pfn, unsigned level, uint64_t va);
/* Flush what @cpu's gather holds; the frees follow when the wait is over,
 * then @then (may be NULL) runs. */
void os_gather_finish(struct os *os, struct hw_cpu *cpu, os_cont_fn then);
void os_pfns_free(struct os_pfns *p);
int os_pfns_push(struct os_pfns *p, uint64_t pfn);
/* flush_tlb_batched_pending(): called by mprotect, munmap, madvise and
 * mremap on @mm before they change its PTEs; if reclaim left a deferred
 * flush of @mm pending, @g's flush becomes one of the whole mm
 * (reclaim.c). */
void os_flush_batched_pending(struct os *os, struct os_gather *g);

/* truncate.c: shared file mappings and their truncation */
void os_mmap_file(struct os *os, struct hw_cpu *cpu, struct os_mm *mm,
		  const struct tlbsim_event *ev);
/* The frame of @v's page at @va, from the page cache (allocated and
 * cached at the first fault): 0, or -TLBSIM_ENOMEM. */
int os_pagecache_get(struct os *os, const struct os_vma *v, uint64_t va, uint64_t *pfn);
/* Page @pgoff of @file leaves the page cache: true if that dropped its
 * frame's last reference (*@pfn is then to be freed); false if it was not
 * cached or is still mapped. */
bool os_pagecache_drop(struct os *os, uint32_t file, uint64_t pgoff, uint64_t *pfn);
/* Must TRUNCATE @ev wait for a PTE lock another cpu holds? */
bool os_truncate_must_wait(struct os *os, struct hw_cpu *cpu, const struct tlbsim_event *ev);
void os_truncate(struct os *os, struct hw_cpu *cpu, const struct tlbsim_event *ev);
/* zap_page_range_single() of [start, end) of @mm into @cpu's gather. */
void os_zap_range(struct os *os, struct hw_cpu *cpu, struct os_mm *mm, uint64_t start,
		  uint64_t end);

/* reclaim.c: page reclaim with a deferred, batched flush */
/* @cpu's thread @t serves RECLAIM @ev: unmaps the pages, defers flushes. */
void os_reclaim(struct os *os, struct hw_cpu *cpu, struct os_thread *t,
		const struct tlbsim_event *ev);
/* Must RECLAIM @ev wait: a page of it is in a page-table page whose PTE
 * lock another cpu holds across its flush? */
bool os_reclaim_must_wait(struct os *os, struct hw_cpu *cpu, const struct tlbsim_event *ev);
/* try_to_unmap_flush() of @t's batch, then its pages are freed (now or
 * after the wait); nothing when the batch is empty. */
void os_reclaim_flush(struct os *os, struct hw_cpu *cpu, struct os_thread *t);
/* A fault of @mm at @va finds the page reclaim unmapped there and has
 * not freed yet: its frame, taken out of the swap cache; false if none. */
bool os_swapcache_take(struct os *os, struct os_mm *mm, uint64_t va, uint64_t *pfn);
/* Whether the page at @va of @mm is in the swap cache (its PTE, in Linux,
 * a swap entry: a fault there is do_swap_page(), not the zero page). */
bool os_swapcache_has(const struct os *os, struct os_mm *mm, uint64_t va);
static inline bool os_reclaim_pending(const struct os_thread *t)
{
	return t->ubc.flush_required || t->ubc.pages.n;
}

/* sched.c: threads and scheduling */
/* The live (not torn down) address space of process @pid, the newest if
 * the pid was reused; NULL if none. */
struct os_mm *os_mm_of_pid(struct os *os, uint32_t pid);
struct os_thread *os_thread_get_slow(struct os *os, uint32_t tid, bool create);
/* The thread of @tid (made, as OS_T_NEW, if @create and none exists), or
 * NULL; the one found last is checked first (@last_thread). */
static inline struct os_thread *os_thread_get(struct os *os, uint32_t tid, bool create)
{
	if (os->last_thread && os->last_thread->tid == tid)
		return os->last_thread;
	return os_thread_get_slow(os, tid, create);
}
/* Thread @tid (NEW, or a retired incarnation not started) becomes a kernel
 * thread; NULL if it exists already. */
struct os_thread *os_kthread_new(struct os *os, uint32_t tid);
/* Bind thread @tid (NEW) to process @pid and @mm; NULL if it exists already. */
struct os_thread *os_thread_new(struct os *os, uint32_t tid, uint32_t pid, struct os_mm *mm);
/* Give the not yet started @t (NULL: nothing) its process; NULL unless @t is new. */
struct os_thread *os_thread_bind(struct os *os, struct os_thread *t, uint32_t pid, struct os_mm *mm);
/* A fresh thread of @old's tid in @old's place (a tid reused after its exit). */
struct os_thread *os_thread_renew(struct os *os, struct os_thread *old);
void os_thread_start(struct os *os, struct hw_cpu *waker, struct os_thread *t);
void os_sched_event(struct os *os, struct hw_cpu *cpu, const struct tlbsim_event *ev);
void os_schedule(struct os *os, struct hw_cpu *cpu);
/* The current thread goes to the back of the runqueue if others wait. */
void os_preempt(struct os *os, struct hw_cpu *cpu);
void os_thread_exit(struct os *os, struct hw_cpu *cpu, struct os_thread *t);
static inline uint64_t os_evq_head_idx(const struct os_thread *t)
{
	return t->q.idx[t->q.head];
}
static inline struct tlbsim_event *os_evq_head(struct os_thread *t)
{
	return t->q.n ? &t->q.ev[t->q.head] : NULL;
}

/* evq.c: event queues and the spill file */
void os_spill_init(struct os_spill *sp);
void os_spill_fini(struct os_spill *sp);
/* Appends @ev (trace index @idx) to @q; 0, or -TLBSIM_ENOMEM (a failed
 * spill write is not an error: the events stay in memory). */
int os_evq_push(struct os_spill *sp, struct os_evq *q, const struct tlbsim_event *ev, uint64_t idx);
/* os_evq_push() of @k events @ev[0..k) (trace indices from @idx on), one
 * after the other, in bulk where they stay in the ring or go to the open
 * chunk: 0, or the error of the event *@done (those before it are
 * queued); *@done is @k on success. */
int os_evq_push_run(struct os_spill *sp, struct os_evq *q, const struct tlbsim_event *ev,
		    uint64_t idx, uint32_t k, uint32_t *done);
/* Appends @ev to @q's ring, which has room. */
static inline void os_evq_ring_put(struct os_spill *sp, struct os_evq *q,
				   const struct tlbsim_event *ev, uint64_t idx)
{
	uint32_t at = (q->head + q->n) & (q->cap - 1);

	q->ev[at] = *ev;
	q->idx[at] = idx;
	q->n++;
	sp->mem++;
	sp->pushed++;
}
/* os_evq_push() when it takes no allocation and no spilling: true if it
 * queued @ev. */
static inline bool os_evq_push_fast(struct os_spill *sp, struct os_evq *q,
				    const struct tlbsim_event *ev, uint64_t idx)
{
	if (q->spilled || q->n == q->cap || (q->n >= OS_EVQ_KEEP && sp->mem >= sp->budget))
		return false;
	os_evq_ring_put(sp, q, ev, idx);
	return true;
}
/* Reads spilled events back into memory (evq.c). */
void os_evq_unspill(struct os_evq *q);
/* Drops the @k oldest events (in memory: @k <= @q->n), reading spilled
 * events back when fewer than OS_EVQ_KEEP are left in memory. */
static inline void os_evq_drop(struct os_evq *q, uint32_t k)
{
	q->head = (q->head + k) & (q->cap - 1);
	q->n -= k;
	if (q->spilled && q->n < OS_EVQ_KEEP)
		os_evq_unspill(q);
}
static inline void os_evq_drop_head(struct os_evq *q)
{
	os_evq_drop(q, 1);
}
void os_evq_free(struct os_evq *q);
/* @t's @k oldest events are done, on @oc (which counts them for
 * os_spill.mem). */
static inline void os_evq_pop_n(struct os_cpu *oc, struct os_thread *t, uint32_t k)
{
	os_evq_drop(&t->q, k);
	oc->evq_popped += k;
	t->compute_left = 0;
	t->events_done += k;
}
static inline void os_evq_pop(struct os_cpu *oc, struct os_thread *t)
{
	os_evq_pop_n(oc, t, 1);
}

/* context.c: switch_mm core, ASIDs */
void os_load_mm(struct tlbsim_pctx *ctx, struct tlbsim_mm *next);
void os_switch_mm(struct os *os, struct hw_cpu *cpu, struct os_mm *next);
/* The cpu stops running user threads but keeps its mm loaded: @to_idle,
 * it switches to its idle task (the policy's enter_lazy hook runs);
 * otherwise a dying task drops its mm (Linux exit_mm()). */
void os_enter_lazy(struct os *os, struct hw_cpu *cpu, bool to_idle);

/* mech.c: the policy ops, and the flush entry point */
/* flush_tlb_multi() with a request that names no mm (Linux info->mm ==
 * NULL, arch_tlbbatch_flush()): each cpu of @targets but @cpu flushes the
 * whole of the mm it has loaded, through the policy's IPI handler; waits
 * for the acknowledgements. */
void os_flush_loaded_mms(struct os *os, struct hw_cpu *cpu, const struct tlbsim_cpumask *targets);
/* The same on @cpu itself, at once. */
void os_flush_loaded_mm_local(struct os *os, struct hw_cpu *cpu);
void os_ops_init(struct tlbsim_policy_ops *ops);
void os_pctx(struct os *os, struct hw_cpu *cpu, const struct os_hook *h, struct tlbsim_pctx *ctx);
void os_flush_range(struct os *os, struct hw_cpu *cpu, struct os_mm *mm, uint64_t start,
		    uint64_t end, unsigned stride_shift, bool freed_tables);
void os_free_frames(struct os *os, const uint64_t *pfns, unsigned n);
int os_gasid_init(struct os *os);

/* hb.c: the trace's order of memory syscalls on overlapping ranges */
static inline bool os_is_mem_syscall(unsigned kind)
{
	return kind >= TLBSIM_EV_MMAP && kind <= TLBSIM_EV_BRK;
}
/* Memory syscall @ev (trace index @idx) of @t was read: 0 or -TLBSIM_ENOMEM. */
int os_hb_add(struct os *os, struct os_thread *t, const struct tlbsim_event *ev, uint64_t idx);
/* The thread whose earlier memory syscall @ev of @t (index @idx) must
 * wait for, or NULL when it may start. */
struct os_thread *os_hb_blocker(struct os *os, const struct os_thread *t,
				const struct tlbsim_event *ev, uint64_t idx);
/* @cpu starts @t's memory syscall of index @idx. */
void os_hb_start(struct os *os, struct hw_cpu *cpu, struct os_thread *t, uint64_t idx);
/* @cpu's syscall in progress returns (os_kernel_exit()). */
void os_hb_done(struct os *os, struct hw_cpu *cpu);
/* Is every cpu idle or running a thread whose memory syscall waits for an
 * earlier one (os_hb_blocker()), with nothing else to run?  Then nothing
 * can ever return. */
bool os_hb_stuck(struct os *os);
void os_hb_fini(struct os *os);

/* lru.c: the lruvec lock (lru_lock) */
int os_lru_init(struct os *os);
void os_lru_fini(struct os *os);
/* @cpu frees @pages pages that were on the LRU (release_pages()). */
void os_lru_release(struct os *os, struct hw_cpu *cpu, uint64_t pages);
/* A fault of @cpu put a new page on its LRU add batch (folio_add_lru()). */
void os_lru_add(struct os *os, struct hw_cpu *cpu);
/* lru_add_drain(): @cpu's batch goes onto the LRU now, if it holds any. */
void os_lru_drain(struct os *os, struct hw_cpu *cpu);

/* lines.c: the shared kernel lines (the line model, src/fabric/line.c) */
void os_lines_init(struct os *os);
void os_lines_fini(struct os *os);
void os_mm_lines_init(struct os_mm *mm);
void os_mm_lines_fini(struct os_mm *mm);
/* @cpu touches line @l of kind @kind (@op); a lock (FAB_RMW) is then held
 * @hold more cycles, the work done under it, charged as busy here. */
void os_line(struct os *os, struct hw_cpu *cpu, enum tlbsim_line_kind kind, struct fab_line *l,
	     enum fab_op op, uint64_t hold);
/* The line of @mm of kind @kind (for MM_CPUMASK, the one holding @cpu's
 * bit), or NULL for a kind that is not per mm. */
struct fab_line *os_mm_line(struct os_mm *mm, enum tlbsim_line_kind kind, unsigned cpu);
/* A PTE change of @cpu in the page-table page @table_pfn of @mm is done
 * under its page-table lock: the split PTE lock of that page, or
 * mm->page_table_lock (os->fault_lock).  Consecutive changes under one
 * lock are batched into one hold of pte_update cycles each, taken at
 * os_ptl_flush() (Linux holds the PTE lock across a table's run of PTEs:
 * zap_pte_range(), change_pte_range()). */
void os_ptl_add(struct os *os, struct hw_cpu *cpu, struct os_mm *mm, uint64_t table_pfn);
void os_ptl_flush(struct os *os, struct hw_cpu *cpu);
/* Does a cpu other than @cpu hold the PTE lock of table @table_pfn across
 * its flush (os_cpu.ptl_held)?  Then a path that needs it waits. */
bool os_ptl_held_elsewhere(const struct os *os, const struct hw_cpu *cpu, uint64_t table_pfn);
/* The lock of the VMA starting at @start of @mm (Linux 6.4 per-VMA locks),
 * or NULL when out of memory. */
struct fab_line *os_vma_line(struct os *os, struct os_mm *mm, uint64_t start);
/* A fault installs one PTE, at @va of @mm, after its page (2^@shift
 * bytes) was mapped into the page-table page @table_pfn: under the PTE
 * lock or page_table_lock, or by cmpxchg on the PTE (os->fault_lock);
 * @tables_added: page-table pages the mapping linked in, each under
 * mm->page_table_lock. */
void os_fault_install(struct os *os, struct hw_cpu *cpu, struct os_mm *mm, uint64_t va,
		      unsigned shift, uint64_t table_pfn, uint64_t tables_added);

/* rcu.c */
void os_rcu_call(struct os *os, struct hw_cpu *cpu, const uint64_t *pfns, unsigned n);
void os_rcu_qs(struct os *os, struct hw_cpu *cpu);
void os_rcu_advance(struct os *os, uint64_t now);
void os_rcu_fini(struct os *os);

/* policy_table.c */
int os_policy_resolve(struct os_policy *pol, const char *spec, enum tlbsim_isa isa,
		      struct tlbsim_error *err);
void os_policy_fini(struct os_policy *pol);
/* -TLBSIM_ENOTSUP when @pol needs a feature machine @m lacks (INVLPGB). */
int os_policy_check_machine(const struct os_policy *pol, const struct tlbsim_machine *m,
			    struct tlbsim_error *err);

/* sim.c: the run stops with an error: @what (a page fault, fork's copy of
 * the page tables ...) at @va needs a frame that simulated memory (or the
 * host) cannot give; the message names the event served (os->serving). */
void os_out_of_memory(struct os *os, const char *what, uint64_t va);

/* sim.c: the OS inside a simulation (tests inspect it) */
struct os *os_of_sim(tlbsim_sim *sim);

/* stats.c */
char *os_stats_json(const struct os *os);
/* The values of the JSON (stats.c), for tlbsim_sim_stats() and _cpu_stats(). */
void os_run_stats(const struct os *os, struct tlbsim_stats *st);
/* @cpu: a cpu, or TLBSIM_STATS_TOTAL for the totals. */
void os_cpu_stats(const struct os *os, unsigned cpu, struct tlbsim_cpu_stats *st);
void os_line_stats(const struct os *os, unsigned cpu, unsigned kind, struct tlbsim_line_stats *st);

#endif /* TLBSIM_OS_H */
