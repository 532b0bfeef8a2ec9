/* SPDX-License-Identifier: MIT */
/*
 * The one event type every trace source produces and the OS model consumes:
 * memory accesses, compute, process and thread lifecycle, scheduling, memory
 * syscalls, and -- for kernel-level traces -- raw TLB maintenance and
 * page-table writes.
 *
 * Who performs an event:
 *   - user-level kinds (accesses, compute, lifecycle, scheduling, memory
 *     syscalls) are performed by thread @tid (never TLBSIM_TID_NONE);
 *     @cpu is TLBSIM_CPU_ANY unless the source knows the cpu;
 *   - SWITCH places thread @tid on cpu @cpu (both required);
 *   - PROC_CREATE and KTHREAD_CREATE may come from no thread at all
 *     (@tid == TLBSIM_TID_NONE);
 *   - kernel-level kinds (INVLPG .. TABLE_FREE, ERET .. TLBI_RANGE,
 *     COMMIT) are performed on cpu @cpu
 *     (required); @tid is the thread on whose behalf, or TLBSIM_TID_NONE.
 * tlbsim_event_validate() enforces these rules and the per-kind ones in the
 * comments below; every reader and writer applies it, so a consumer may
 * rely on them.
 *
 * The text rendering of an event (tlbsim_event_format()) is the line of the
 * text trace format; traces/FORMAT.md specifies it and the binary format.
 * Syscall semantics follow Linux (mm/mmap.c, mm/mprotect.c, mm/madvise.c,
 * mm/mremap.c); TLB maintenance follows the Intel SDM vol. 2 (INVLPG,
 * INVPCID), AMD APM vol. 3 (INVLPGB, TLBSYNC) and the Arm ARM (TLBI, DSB,
 * ISB; C6.2), as modelled in include/tlbsim/mmu.h.
 */
#ifndef TLBSIM_EVENT_H
#define TLBSIM_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tlbsim/export.h"
#include "tlbsim/mmu.h"
#include "tlbsim/pgtable.h"

#ifdef __cplusplus
extern "C" {
#endif

/* @cpu of an event whose cpu is not specified. */
#define TLBSIM_CPU_ANY 0xffffu
/* @tid of an event no thread performs (Linux's pid 0 is no user thread). */
#define TLBSIM_TID_NONE 0u
/* Bytes that always hold tlbsim_event_format()'s output, NUL included. */
#define TLBSIM_EVENT_LINE_MAX 256
/* The longest COMPUTE event: 2^40 cycles or instructions (about six
 * minutes at 3 GHz).  A larger count is an input error
 * (tlbsim_event_validate()): the OS model wakes every time slice, so a
 * count near 2^64 would take the engine years of windows to play. */
#define TLBSIM_COMPUTE_MAX (1ull << 40)

/*
 * The single list of event kinds: X(NAME, value, "text name").  The values
 * are frozen: the binary trace format stores them (traces/FORMAT.md), so a
 * new kind takes a new value below 64 and nothing is ever renumbered.
 */
#define TLBSIM_EVENT_KINDS(X)                                                                      \
	X(LOAD, 1, "load")                                                                         \
	X(STORE, 2, "store")                                                                       \
	X(FETCH, 3, "fetch")                                                                       \
	X(COMPUTE, 4, "compute")                                                                   \
	X(PROC_CREATE, 5, "proc_create")                                                           \
	X(THREAD_CREATE, 6, "thread_create")                                                       \
	X(FORK, 7, "fork")                                                                         \
	X(EXIT, 8, "exit")                                                                         \
	X(SWITCH, 9, "switch")                                                                     \
	X(SLEEP, 10, "sleep")                                                                      \
	X(WAKE, 11, "wake")                                                                        \
	X(YIELD, 12, "yield")                                                                      \
	X(MMAP, 13, "mmap")                                                                        \
	X(MUNMAP, 14, "munmap")                                                                    \
	X(MPROTECT, 15, "mprotect")                                                                \
	X(MADVISE, 16, "madvise")                                                                  \
	X(MREMAP, 17, "mremap")                                                                    \
	X(BRK, 18, "brk")                                                                          \
	X(INVLPG, 19, "invlpg")                                                                    \
	X(INVPCID, 20, "invpcid")                                                                  \
	X(INVLPGB, 21, "invlpgb")                                                                  \
	X(TLBSYNC, 22, "tlbsync")                                                                  \
	X(TLBI, 23, "tlbi")                                                                        \
	X(DSB, 24, "dsb")                                                                          \
	X(ISB, 25, "isb")                                                                          \
	X(CR3_WRITE, 26, "cr3_write")                                                              \
	X(TTBR_WRITE, 27, "ttbr_write")                                                            \
	X(PTE_WRITE, 28, "pte_write")                                                              \
	X(TABLE_ALLOC, 29, "table_alloc")                                                          \
	X(TABLE_FREE, 30, "table_free")                                                            \
	X(ERET, 31, "eret")                                                                        \
	X(SYSREG_WRITE, 32, "sysreg_write")                                                        \
	X(SERIALIZE, 33, "serialize")                                                              \
	X(DC, 34, "dc")                                                                            \
	X(PHYS_STORE, 35, "phys_store")                                                            \
	X(TLBI_RANGE, 36, "tlbi_range")                                                            \
	X(DMB, 37, "dmb")                                                                          \
	X(KTHREAD_CREATE, 38, "kthread_create")                                                    \
	X(KTHREAD_USE_MM, 39, "kthread_use_mm")                                                    \
	X(KTHREAD_UNUSE_MM, 40, "kthread_unuse_mm")                                                \
	X(EXEC, 41, "exec")                                                                        \
	X(AFFINITY, 42, "affinity")                                                                \
	X(RECLAIM, 43, "reclaim")                                                                  \
	X(RECLAIM_FLUSH, 44, "reclaim_flush")                                                      \
	X(MMAP_FILE, 45, "mmap_file")                                                              \
	X(TRUNCATE, 46, "truncate")                                                                \
	X(COMMIT, 48, "commit")                                                                    \
	X(GUP_FAST, 49, "gup_fast")

enum tlbsim_event_kind {
	TLBSIM_EV_NONE = 0, /* never a valid event */
#define TLBSIM_EVENT_ENUM(name, val, text) TLBSIM_EV_##name = (val),
	TLBSIM_EVENT_KINDS(TLBSIM_EVENT_ENUM)
#undef TLBSIM_EVENT_ENUM
	    TLBSIM_EV_NR_KINDS /* one past the largest value */
};

/* COMPUTE: what @count counts. */
enum tlbsim_compute_unit {
	TLBSIM_COMPUTE_CYCLES = 0, /* core cycles */
	TLBSIM_COMPUTE_INSNS = 1,  /* retired instructions */
};

/* MMAP flags (Linux mman.h MAP_*); exactly one of SHARED and PRIVATE. */
enum tlbsim_mmap_flags {
	TLBSIM_MAP_SHARED = 1u << 0,
	TLBSIM_MAP_PRIVATE = 1u << 1,
	TLBSIM_MAP_ANON = 1u << 2,	 /* not file-backed */
	TLBSIM_MAP_FIXED = 1u << 3,	 /* replaces what was mapped at @addr */
	TLBSIM_MAP_HUGETLB = 1u << 4,	 /* MAP_HUGETLB: 2 MiB hugetlbfs pages */
	TLBSIM_MAP_HUGETLB_1G = 1u << 5, /* MAP_HUGETLB | MAP_HUGE_1GB */
	TLBSIM_MAP_THP = 1u << 6,	 /* madvise(MADV_HUGEPAGE) hint: THP may back it */
};

/* MADVISE advice (Linux mm/madvise.c): both zap the range's PTEs. */
enum tlbsim_madvise_advice {
	TLBSIM_MADV_DONTNEED = 0, /* pages are dropped now */
	TLBSIM_MADV_FREE = 1,	  /* pages may be dropped lazily (clean anonymous only) */
};

/* MREMAP flags (Linux mman.h MREMAP_*). */
enum tlbsim_mremap_flags {
	TLBSIM_MREMAP_MAYMOVE = 1u << 0,
	TLBSIM_MREMAP_FIXED = 1u << 1,
	TLBSIM_MREMAP_DONTUNMAP = 1u << 2,
};

/* INVLPGB flags: enum tlbsim_invlpgb_flags in tlbsim/mmu.h. */

/* TLBI flags: the suffixes of the mnemonic (Arm ARM C5.5, TLBI). */
enum tlbsim_tlbi_flags {
	TLBSIM_TLBI_IS = 1u << 0,  /* ...IS: broadcast to the Inner Shareable domain */
	TLBSIM_TLBI_OS = 1u << 1,  /* ...OS: broadcast to the Outer Shareable domain */
	TLBSIM_TLBI_NXS = 1u << 2, /* ...nXS (FEAT_XS) */
};

/* DSB option; the values are the instruction's CRm field (Arm ARM C6.2 DSB). */
enum tlbsim_dsb_domain {
	TLBSIM_DSB_OSHLD = 1,
	TLBSIM_DSB_OSHST = 2,
	TLBSIM_DSB_OSH = 3,
	TLBSIM_DSB_NSHLD = 5,
	TLBSIM_DSB_NSHST = 6,
	TLBSIM_DSB_NSH = 7,
	TLBSIM_DSB_ISHLD = 9,
	TLBSIM_DSB_ISHST = 10,
	TLBSIM_DSB_ISH = 11,
	TLBSIM_DSB_LD = 13,
	TLBSIM_DSB_ST = 14,
	TLBSIM_DSB_SY = 15,
};

/* SYSREG_WRITE: the register written (Arm ARM D19; Intel SDM vol. 3 2.5). */
enum tlbsim_sysreg {
	TLBSIM_SYSREG_TCR_EL1 = 0,   /* MSR TCR_EL1: translation control */
	TLBSIM_SYSREG_SCTLR_EL1 = 1, /* MSR SCTLR_EL1: M bit enables the MMU */
	TLBSIM_SYSREG_MAIR_EL1 = 2,  /* MSR MAIR_EL1: memory attributes */
	TLBSIM_SYSREG_CR4 = 3,	     /* MOV to CR4: PGE, PCIDE, ... */
	TLBSIM_SYSREG_CR0 = 4,	     /* MOV to CR0: PG */
};

/*
 * DC: the AArch64 data-cache maintenance operation (Arm ARM C5.3, "DC";
 * the SYS encodings op1:CRn=7:CRm:op2).  By-VA operations take @va, by
 * set/way ones (ISW, CSW, CISW) a set/way operand, which is not kept.
 */
enum tlbsim_dc_op {
	TLBSIM_DC_IVAC = 0,  /* invalidate by VA to the point of coherency */
	TLBSIM_DC_ISW = 1,   /* invalidate by set/way */
	TLBSIM_DC_CSW = 2,   /* clean by set/way */
	TLBSIM_DC_CISW = 3,  /* clean and invalidate by set/way */
	TLBSIM_DC_ZVA = 4,   /* zero a block by VA */
	TLBSIM_DC_CVAC = 5,  /* clean by VA to the point of coherency */
	TLBSIM_DC_CVAU = 6,  /* clean by VA to the point of unification */
	TLBSIM_DC_CIVAC = 7, /* clean and invalidate by VA to the PoC */
	TLBSIM_DC_CVAP = 8,  /* clean by VA to the point of persistence (FEAT_DPB) */
	TLBSIM_DC_CVADP = 9, /* clean by VA to the point of deep persistence (FEAT_DPB2) */
};

/* TLBI_RANGE operations: enum tlbsim_tlbi_range_op in tlbsim/mmu.h. */

/**
 * struct tlbsim_event - one trace event, fixed size (48 bytes at most)
 * @kind: enum tlbsim_event_kind
 * @cpu: cpu the event is performed on, or TLBSIM_CPU_ANY
 * @tid: thread that performs it, or TLBSIM_TID_NONE (see the file comment)
 *
 * The payload, by kind (addresses are virtual, in bytes; "pfn" are 4 KiB
 * physical frame numbers; every field not listed for a kind is 0):
 *
 * LOAD, STORE, FETCH - @access: @va, @size in bytes (>= 1); the access must
 *     not run past 2^64.
 * COMPUTE - @compute: @count of cycles or instructions spent before the
 *     thread's next event, at most TLBSIM_COMPUTE_MAX; @unit is enum
 *     tlbsim_compute_unit.
 * PROC_CREATE - @proc_create: a new process @pid (>= 1) whose first thread
 *     is @tid (>= 1), with an empty address space.
 * THREAD_CREATE - @thread_create: thread @tid (>= 1) starts in the process
 *     of the performing thread (clone(CLONE_VM)).
 * FORK - @fork: child process @pid with first thread @tid; the performing
 *     thread is the parent; the child's address space is a copy-on-write
 *     copy (Linux dup_mmap()).
 * EXIT - no payload: the performing thread exits; its process ends with its
 *     last thread.
 * SWITCH - no payload: thread @tid runs on cpu @cpu from now on (explicit
 *     placement: the OS model's scheduler does not move it).
 * SLEEP, YIELD - no payload: the performing thread blocks, or yields its
 *     cpu.
 * WAKE - @wake: thread @tid becomes runnable.
 * MMAP - @mmap: [@addr, @addr + @len) is mapped (@addr is where the mapping
 *     went, as a recorded trace saw it); @len >= 1; @prot is enum
 *     tlbsim_prot READ/WRITE/EXEC bits only; @flags is enum
 *     tlbsim_mmap_flags with exactly one of SHARED/PRIVATE and at most one
 *     of HUGETLB/HUGETLB_1G/THP.
 * MUNMAP - @munmap: [@addr, @addr + @len) is unmapped.
 * MPROTECT - @mprotect: the range gets @prot (as for MMAP).
 * MADVISE - @madvise: the range gets @advice, enum tlbsim_madvise_advice.
 * MREMAP - @mremap: [@old_addr, +@old_len) moves or resizes to
 *     [@new_addr, +@new_len) (@new_addr is where it went); @flags is enum
 *     tlbsim_mremap_flags.
 * BRK - @brk: the program break (end of the heap) moves to @end.
 * INVLPG - @invlpg: invalidate @va in the current PCID (Intel SDM vol. 2).
 * INVPCID - @invpcid: @type 0..3; type 0 uses @pcid and @va, type 1 @pcid
 *     only, types 2 and 3 neither (Intel SDM vol. 2 INVPCID).
 * INVLPGB - @invlpgb: broadcast invalidation of @nr_pages (1..65536) pages
 *     of 2^@stride_shift bytes (12 or 21) from @va, in @pcid (0..4095) and
 *     @asid, as @flags (enum tlbsim_invlpgb_flags) say which are valid; a
 *     field whose valid flag is clear must be 0 (and @nr_pages 1).
 * TLBSYNC - no payload: wait until this cpu's INVLPGBs have completed.
 * TLBI - @tlbi: @op is enum tlbsim_tlbi_op, @flags enum tlbsim_tlbi_flags
 *     (not both IS and OS); @va for the by-VA ops (VAE1, VALE1, VAAE1,
 *     VAALE1, VAE2, VALE2, VAE3, VALE3) and the IPA for IPAS2E1/IPAS2LE1,
 *     @asid for VAE1/VALE1/ASIDE1, else 0; @operand_unknown = 1 when the trace saw
 *     the instruction but not its register operand (then @va = @asid = 0).
 * DSB - @dsb: @domain is enum tlbsim_dsb_domain.
 * DMB - @dsb: @domain as for DSB (the same CRm encoding, Arm ARM C6.2 DMB);
 *     it orders explicit accesses only, never TLB maintenance or walks.
 * ISB - no payload.
 * CR3_WRITE - @cr3_write: MOV to CR3 with root table @root_pfn, @pcid
 *     (0..4095) and @noflush (0/1, bit 63 of the operand).
 * TTBR_WRITE - @ttbr_write: MSR TTBR@which_EL1 (@which 0 or 1) with root
 *     table @root_pfn and @asid.
 * PTE_WRITE - @pte_write: descriptor @index (0..511) of the table in frame
 *     @table_pfn becomes @value, raw, in the ISA's format.
 * TABLE_ALLOC - @table_alloc: frame @pfn becomes a page table of @level
 *     (0..4, numbered as in machine.h: 0 is the last level).
 * TABLE_FREE - @table_free: page-table frame @pfn is freed.
 * ERET - no payload: an Arm exception return (context-synchronising, Arm
 *     ARM D1.9; docs/hazard-rules.md rule 9 and test 22).
 * SYSREG_WRITE - @sysreg_write: register @reg (enum tlbsim_sysreg) gets
 *     @value; @unknown = 1 when the trace saw the write but not the value
 *     (then @value = 0).  Arm writes take effect at the next
 *     context-synchronising event (docs/hazard-rules.md rule 9); x86 MOV to CR0/CR4
 *     is serializing and may invalidate (rule 17).
 * SERIALIZE - no payload: an x86 serializing instruction that has no event
 *     of its own (CPUID, IRET, WRMSR, SERIALIZE, ...; Intel SDM vol. 3A
 *     "Serializing Instructions"; docs/hazard-rules.md rule 18).  INVLPG, INVPCID,
 *     MOV to CR0/CR3/CR4 are serializing too but appear as their own kinds.
 * DC - @dc: operation @op (enum tlbsim_dc_op) on @va (by-VA operations;
 *     0 for set/way ones); @unknown = 1 when the register was not seen
 *     (then @va = 0).
 * PHYS_STORE - @phys_store: the cpu stores @size bytes (>= 1) to physical
 *     address @pa, through the kernel's linear map; @value is the value
 *     stored (the low 64 bits), or @unknown = 1 when the trace does not
 *     say (then @value = 0).  A store to a page-table frame is a PTE write.
 * TLBI_RANGE - @tlbi_range: FEAT_TLBIRANGE @op (enum
 *     tlbsim_tlbi_range_op) with @flags (enum tlbsim_tlbi_flags, not both
 *     IS and OS) over @nr_pages pages of the trace's page size from @va:
 *     @nr_pages = (NUM + 1) * 2^(5 * SCALE + 1), NUM 0..31, SCALE 0..3;
 *     @asid for RVAE1/RVALE1, else 0; @operand_unknown = 1 when the
 *     register was not seen (then @va = @nr_pages = @asid = 0).
 * KTHREAD_CREATE - @kthread_create: a kernel thread @tid (>= 1) starts: it
 *     has no address space of its own and runs on the last one loaded,
 *     lazily (an I/O worker, a vhost thread; Linux kthread_create()).
 * KTHREAD_USE_MM - @kthread_use_mm: the performing kernel thread borrows
 *     the address space of process @pid (>= 1) (Linux kthread_use_mm(),
 *     use_mm() before 5.8): its accesses go through it until
 *     KTHREAD_UNUSE_MM.  @mmget = 1: the caller took an mm_users
 *     reference first (mmget_not_zero()) and drops it after unuse (mmput());
 *     0: it took none, so the process's exit tears the mm down under it.
 * KTHREAD_UNUSE_MM - no payload: the performing kernel thread stops using
 *     the mm it borrowed (kthread_unuse_mm()), keeping it loaded lazily.
 * RECLAIM - @reclaim: page reclaim on the performing thread's cpu (kswapd,
 *     or a task in direct reclaim) unmaps the pages of process @pid (>= 1)
 *     present in [@addr, @addr + @len) (@len >= 1), with the flush
 *     deferred into the thread's batch (Linux mm/rmap.c try_to_unmap_one()
 *     with TTU_BATCH_FLUSH); the pages are freed at the batch's flush.
 * RECLAIM_FLUSH - no payload: the performing thread flushes its reclaim
 *     batch and frees its pages (try_to_unmap_flush(), then
 *     shrink_folio_list()'s free); a batch still pending is also flushed
 *     before the thread's next event of another kind.
 * MMAP_FILE - @mmap_file: [@addr, @addr + @len) (@len >= 1) maps file
 *     @file (>= 1, an id) from its page @pgoff, MAP_SHARED, with @prot as
 *     for MMAP: the pages are the file's page-cache pages, shared by every
 *     mapping of the file.
 * TRUNCATE - @truncate: ftruncate() of file @file (>= 1) to @size bytes:
 *     every mapping of its pages from @size on (rounded up to a page) is
 *     zapped, under the PTE locks only (Linux unmap_mapping_range()), then
 *     the pages leave the page cache (truncate_inode_pages()).
 * GUP_FAST - @gup_fast: the performing thread, in the kernel (an
 *     O_DIRECT read, io_uring, a futex), pins the pages of [@va, @va +
 *     @len) (@len >= 1) of its address space with Linux's lockless
 *     software walker (mm/gup.c gup_fast(): interrupts off, no mmap_lock,
 *     no page-table lock): it reads the page tables like a hardware walk
 *     and holds them for the walk's length; a table free must wait for it
 *     (an IPI, which it takes only with interrupts back on, or an RCU grace
 *     period).  The range must not run past 2^64.
 * COMMIT - @commit: the kernel declares its change to the translations of
 *     [@va, @va + @len) (@len >= 1) of the address space whose root table
 *     is frame @root_pfn done, as a syscall's return to user space does in
 *     the OS model: from then on no cpu may use a translation of the range
 *     older than the change (the hazard oracle's stale use).  A
 *     kernel-level sequence (a hand-written scenario, a recorded kernel
 *     path) claims "this PTE change is complete" with it; the range must
 *     not run past 2^64.  The OS model ignores it (ignored_events), in a
 *     thread's stream or not.
 *
 * EXEC - no payload: the performing thread's process replaces its address
 *     space with a new, empty one and goes on with its pid and tid
 *     (execve(): exec_mmap() switches to the new mm, then mmput() of the
 *     old one tears it down if nothing else uses it).  The process must
 *     have no other live thread by then (trace order): Linux's de_thread()
 *     ends them, a trace writes their exits first.
 * AFFINITY - @affinity: the performing thread may run on cpus [@first,
 *     @first + @count) only (@count >= 1; sched_setaffinity(), taskset
 *     -c FIRST-LAST), placed among them by the OS's scheduler; threads
 *     and processes it creates afterwards inherit the set (Linux copies
 *     cpus_mask over clone() and fork()).  Unlike SWITCH, which places
 *     one thread on one cpu, it leaves the choice to the scheduler.
 *
 * Readers zero the whole struct before filling it, so events compare equal
 * with memcmp() when built the same way.
 */
struct tlbsim_event {
	uint8_t kind;
	uint16_t cpu;
	uint32_t tid;
	union {
		struct {
			uint64_t va;
			uint32_t size;
		} access;
		struct {
			uint64_t count;
			uint8_t unit;
		} compute;
		struct {
			uint32_t pid;
			uint32_t tid;
		} proc_create;
		struct {
			uint32_t tid;
		} thread_create;
		struct {
			uint32_t pid;
			uint32_t tid;
		} fork;
		struct {
			uint32_t tid;
		} wake;
		struct {
			uint64_t addr;
			uint64_t len;
			uint8_t prot;
			uint8_t flags;
		} mmap;
		struct {
			uint64_t addr;
			uint64_t len;
		} munmap;
		struct {
			uint64_t addr;
			uint64_t len;
			uint8_t prot;
		} mprotect;
		struct {
			uint64_t addr;
			uint64_t len;
			uint8_t advice;
		} madvise;
		struct {
			uint64_t old_addr;
			uint64_t old_len;
			uint64_t new_len;
			uint64_t new_addr;
			uint8_t flags;
		} mremap;
		struct {
			uint64_t end;
		} brk;
		struct {
			uint64_t va;
		} invlpg;
		struct {
			uint64_t va;
			uint16_t pcid;
			uint8_t type;
		} invpcid;
		struct {
			uint64_t va;
			uint32_t nr_pages;
			uint16_t pcid;
			uint16_t asid;
			uint8_t stride_shift;
			uint8_t flags;
		} invlpgb;
		struct {
			uint64_t va;
			uint16_t asid;
			uint8_t op;
			uint8_t flags;
			uint8_t operand_unknown;
		} tlbi;
		struct {
			uint8_t domain;
		} dsb;
		struct {
			uint64_t root_pfn;
			uint16_t pcid;
			uint8_t noflush;
		} cr3_write;
		struct {
			uint64_t root_pfn;
			uint16_t asid;
			uint8_t which;
		} ttbr_write;
		struct {
			uint64_t table_pfn;
			uint64_t value;
			uint16_t index;
		} pte_write;
		struct {
			uint64_t pfn;
			uint8_t level;
		} table_alloc;
		struct {
			uint64_t pfn;
		} table_free;
		struct {
			uint64_t value;
			uint8_t reg;
			uint8_t unknown;
		} sysreg_write;
		struct {
			uint64_t va;
			uint8_t op;
			uint8_t unknown;
		} dc;
		struct {
			uint64_t pa;
			uint64_t value;
			uint32_t size;
			uint8_t unknown;
		} phys_store;
		struct {
			uint64_t va;
			uint32_t nr_pages;
			uint16_t asid;
			uint8_t op;
			uint8_t flags;
			uint8_t operand_unknown;
		} tlbi_range;
		struct {
			uint32_t tid;
		} kthread_create;
		struct {
			uint32_t pid;
			uint8_t mmget;
		} kthread_use_mm;
		struct {
			uint16_t first;
			uint16_t count;
		} affinity;
		struct {
			uint64_t addr;
			uint64_t len;
			uint32_t pid;
		} reclaim;
		struct {
			uint64_t addr;
			uint64_t len;
			uint64_t pgoff;
			uint32_t file;
			uint8_t prot;
		} mmap_file;
		struct {
			uint64_t size;
			uint32_t file;
		} truncate;
		struct {
			uint64_t root_pfn;
			uint64_t va;
			uint64_t len;
		} commit;
		struct {
			uint64_t va;
			uint64_t len;
		} gup_fast;
	};
};

/**
 * tlbsim_event_kind_name() - the text name of an event kind
 * @kind: a value of enum tlbsim_event_kind
 *
 * Returns: a static string such as "load" or "tlbi" (the word of the text
 * format), or "unknown" for any other value.
 */
TLBSIM_API const char *tlbsim_event_kind_name(unsigned kind);

/**
 * tlbsim_event_is_access() - is @kind a memory access (a translation)?
 * @kind: a value of enum tlbsim_event_kind
 *
 * Returns: true for TLBSIM_EV_LOAD, TLBSIM_EV_STORE and TLBSIM_EV_FETCH,
 * the events the OS model translates through the MMU; false otherwise.
 */
static inline bool tlbsim_event_is_access(unsigned kind)
{
	/* LOAD, STORE and FETCH are 1, 2 and 3 (traces/FORMAT.md). */
	return kind - TLBSIM_EV_LOAD <= TLBSIM_EV_FETCH - TLBSIM_EV_LOAD;
}

/**
 * tlbsim_event_access() - the MMU access an access event makes
 * @kind: TLBSIM_EV_LOAD, TLBSIM_EV_STORE or TLBSIM_EV_FETCH
 *
 * Returns: TLBSIM_ACCESS_STORE for a store, TLBSIM_ACCESS_FETCH for a
 * fetch, TLBSIM_ACCESS_LOAD otherwise (tlbsim_mmu_translate()'s argument).
 */
static inline enum tlbsim_access tlbsim_event_access(unsigned kind)
{
	/* Without a branch for an access (the kinds and the accesses are in
	 * the same order): loads and stores mix unpredictably. */
	return tlbsim_event_is_access(kind) ? (enum tlbsim_access)(kind - TLBSIM_EV_LOAD)
					     : TLBSIM_ACCESS_LOAD;
}

/**
 * tlbsim_event_kind_find() - the event kind of a text name
 * @name: a name such as "mmap" (borrowed)
 *
 * Returns: the kind, or TLBSIM_EV_NONE when no kind has that name.
 */
TLBSIM_API enum tlbsim_event_kind tlbsim_event_kind_find(const char *name);

/**
 * tlbsim_event_format() - render an event as one line of the text format
 * @ev: the event (borrowed)
 * @buf: destination, always NUL-terminated when @size > 0; no newline
 * @size: size of @buf in bytes; TLBSIM_EVENT_LINE_MAX always suffices
 *
 * For example "T1 load 0x7f0000001000 8" or "cpu2 tlbi vae1is va=0x1000
 * asid=5" (traces/FORMAT.md).  A valid event renders to a line the text
 * reader parses back to the same event; an invalid one renders its raw
 * fields, for diagnostics.
 *
 * Returns: the number of characters the full line needs, excluding the NUL
 * (as snprintf).
 */
TLBSIM_API int tlbsim_event_format(const struct tlbsim_event *ev, char *buf, size_t size);

/**
 * tlbsim_event_validate() - check an event against the rules of its kind
 * @ev: the event (borrowed)
 * @why: receives, on failure, what was expected and found; may be NULL
 * @size: size of @why in bytes
 *
 * The rules are those of struct tlbsim_event's comment: who performs it,
 * value ranges, known flag bits, operands a mode does not use being 0,
 * ranges not running past 2^64.  Readers reject and writers refuse invalid
 * events, so the OS model may rely on them.
 *
 * Returns: 0, or -TLBSIM_EINVAL.
 */
TLBSIM_API int tlbsim_event_validate(const struct tlbsim_event *ev, char *why, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* TLBSIM_EVENT_H */
