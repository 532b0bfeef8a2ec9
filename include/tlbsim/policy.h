/* SPDX-License-Identifier: MIT */
/*
 * TLB-flush policies: who gets flushed, how, and when page-table pages are
 * freed.  A policy is one const struct of hooks (ChampSim's replacement
 * modules, SQLite's vfs); the OS model calls them at the points where Linux
 * calls switch_mm_irqs_off(), flush_tlb_mm_range(), flush_tlb_func() and
 * tlb_remove_table().  A hook sees the OS state through struct tlbsim_mm and
 * struct tlbsim_cpu, and acts only through the mechanisms of its context's
 * ops table, which its ISA offers (so a test can mock them).
 *
 * Concurrency rules, which keep results independent of the number of host
 * threads: switch_mm, flush_range and free_tables run in the serial phase
 * and may change any mm's fields; ipi_handler runs on the target cpu in
 * parallel with other cpus, may change its own struct tlbsim_cpu and
 * private data freely, and may change an mm only with the atomic cpumask
 * updates (tlbsim_cpumask_*_atomic) and atomic counter updates.
 *
 * What Linux's code writes or reads atomically in shared kernel data (the
 * mm_cpumask bit set in switch_mm, tlb_gen incremented by a flush,
 * nr_active_mm moved) a policy names with ops->touch_line(), so that the
 * cache-line transfers and the queueing behind other cpus' atomics are
 * charged (the line model, src/fabric/line.c); the policy never names a
 * cost.
 */
#ifndef TLBSIM_POLICY_H
#define TLBSIM_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tlbsim/cpumask.h"
#include "tlbsim/export.h"
#include "tlbsim/machine.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version of this interface; a policy sets .abi to it. */
#define TLBSIM_POLICY_ABI 1
/* @end of a flush of the whole address space (Linux TLB_FLUSH_ALL). */
#define TLBSIM_FLUSH_ALL UINT64_MAX
/* Policies that can be composed into one ("a+b"), at most. */
#define TLBSIM_POLICY_SLOTS 2

/**
 * struct tlbsim_mm - an address space as policies see it
 * @id: unique id, never reused (Linux mm->context.ctx_id)
 * @cpumask: mm_cpumask: cpus that may hold translations of this mm; the
 *        policy maintains it (x86) or ignores it (arm64)
 * @nr_active: cpus on which this is the active mm (arm64 nr_active_mm),
 *        maintained by policies that use it
 * @tlb_gen: flush generation: bumped by the OS before each flush_range
 *        (Linux inc_mm_tlb_gen()); a cpu that has flushed up to it is
 *        up to date
 * @asid: arm64: the mm's ASID in the current generation (valid while
 *        @asid_gen equals the allocator's); x86: unused
 * @asid_gen: arm64 ASID generation of @asid
 * @global_asid: x86: a global ASID (PCID) the same on every cpu, 0 = none
 *        (Linux mm->context.global_asid, INVLPGB policy)
 * @users: threads using the mm
 * @priv: per policy slot, the policy's private data (its .mm_priv_size
 *        bytes, zeroed at mm creation)
 */
struct tlbsim_mm {
	uint32_t id;
	struct tlbsim_cpumask cpumask;
	unsigned nr_active;
	uint64_t tlb_gen;
	uint16_t asid;
	uint64_t asid_gen;
	uint16_t global_asid;
	unsigned users;
	void *priv[TLBSIM_POLICY_SLOTS];
};

/*
 * The shared kernel cache lines of the line model, by kind: per mm, per
 * page-table page, per NUMA node, or one for the system.  Policies name
 * the per-mm kinds and TLBSIM_LINE_ASID_LOCK; the others are the OS
 * model's (faults, syscalls, the LRU).  Statistics are kept per kind
 * (docs/stats-schema.md, "lines").
 */
#define TLBSIM_LINE_KINDS(X)                                                                       \
	X(MM_CPUMASK, "mm_cpumask")	      /* per mm: a line per 512 cpus of the mask */        \
	X(NR_ACTIVE_MM, "nr_active_mm")	      /* per mm: the arm64 skip's counter */               \
	X(TLB_GEN, "tlb_gen")		      /* per mm: mm->context.tlb_gen (and global_asid) */  \
	X(PAGE_TABLE_LOCK, "page_table_lock") /* per mm: mm->page_table_lock */                    \
	X(MMAP_LOCK, "mmap_lock")	      /* per mm: the mmap_lock rwsem's count */            \
	X(PTE_LOCK, "pte_lock")		      /* per page-table page: its split lock */            \
	X(PTE, "pte")			      /* per 8 PTEs: lockless faults' cmpxchg */           \
	X(LRUVEC_LOCK, "lruvec_lock")	      /* per NUMA node: the LRU lists' lock */             \
	X(VMA_LOCK, "vma_lock")		      /* per VMA: its lock (Linux 6.4 per-VMA locks) */    \
	X(ASID_LOCK, "asid_lock") /* system: x86 global_asid_lock, arm64 cpu_asid_lock */

enum tlbsim_line_kind {
#define TLBSIM_LINE_ENUM(name, text) TLBSIM_LINE_##name,
	TLBSIM_LINE_KINDS(TLBSIM_LINE_ENUM)
#undef TLBSIM_LINE_ENUM
	    TLBSIM_LINE_NR_KINDS
};

/* How touch_line() touches a line. */
enum tlbsim_line_access {
	TLBSIM_LINE_READ = 0,  /* a load (cpumask_test_cpu(), atomic_read()) */
	TLBSIM_LINE_WRITE = 1, /* a plain store (cpumask_setall()) */
	TLBSIM_LINE_RMW = 2,   /* an atomic (cpumask_set_cpu(), atomic_inc()), a lock taken */
};

/* touch_line()'s @cpu for every line of an mm_cpumask (a whole-mask read
 * such as for_each_cpu(), or cpumask_setall()). */
#define TLBSIM_LINE_ALL_CPUS UINT32_MAX

/* Dynamic PCIDs per cpu on x86 (Linux TLB_NR_DYN_ASIDS). */
#define TLBSIM_X86_DYN_ASIDS 6

/**
 * struct tlbsim_cpu - a cpu as policies see it
 * @id: cpu number
 * @loaded_mm: the mm whose tables are loaded (CR3/TTBR0), NULL for none
 *        (Linux cpu_tlbstate.loaded_mm, init_mm being NULL here)
 * @loaded_asid: x86: the dynamic slot 0..5 or the global ASID in use;
 *        arm64: the ASID in TTBR0
 * @is_lazy: running no user thread but keeping @loaded_mm (lazy TLB mode)
 * @ctxs: x86: per dynamic slot, which mm (its @id, 0 = none) and the
 *        tlb_gen this cpu has flushed it to (cpu_tlbstate.ctxs[])
 * @global_tlb_gen: x86: tlb_gen flushed to for a mm with a global ASID
 * @next_asid: x86: next dynamic slot to recycle
 * @priv: per policy slot, the policy's per-cpu data (.cpu_priv_size bytes)
 * @kthread: the task running is a kernel thread: @loaded_mm is borrowed
 *        (kthread_use_mm(), Linux kernel/kthread.c) when @is_lazy is
 *        false, kept lazily otherwise
 */
struct tlbsim_cpu {
	unsigned id;
	struct tlbsim_mm *loaded_mm;
	uint16_t loaded_asid;
	bool is_lazy;
	struct {
		uint32_t ctx_id;
		uint64_t tlb_gen;
	} ctxs[TLBSIM_X86_DYN_ASIDS];
	uint64_t global_tlb_gen;
	unsigned next_asid;
	void *priv[TLBSIM_POLICY_SLOTS];
	bool kthread;
};

/**
 * struct tlbsim_flush_info - one flush request (Linux struct flush_tlb_info)
 * @mm: the address space
 * @start: first virtual address, bytes, page-aligned
 * @end: last virtual address + 1, bytes, or TLBSIM_FLUSH_ALL
 * @stride_shift: log2 of the page size of the entries: 12, 21 or 30
 * @freed_tables: page-table pages were unlinked: walk caches must go too,
 *        and lazy cpus must not be skipped
 * @new_tlb_gen: @mm's tlb_gen after this request
 * @initiator: the cpu that requested it
 */
struct tlbsim_flush_info {
	struct tlbsim_mm *mm;
	uint64_t start;
	uint64_t end;
	unsigned stride_shift;
	bool freed_tables;
	uint64_t new_tlb_gen;
	unsigned initiator;
};

struct tlbsim_policy_ops;

/**
 * struct tlbsim_pctx - the context of one hook call
 * @ops: the mechanisms (mockable)
 * @os: the OS model, opaque; pass to nothing but @ops
 * @cpu: the cpu running the hook
 * @machine: the machine (borrowed)
 * @slot: this policy's slot in the composition, to index ->priv[]
 * @state: the policy-global state its init() returned, or NULL
 */
struct tlbsim_pctx {
	const struct tlbsim_policy_ops *ops;
	void *os;
	struct tlbsim_cpu *cpu;
	const struct tlbsim_machine *machine;
	unsigned slot;
	void *state;
};

/**
 * struct tlbsim_policy_ops - mechanisms a hook may use; each charges the
 * machine's costs to ctx->cpu.  Those marked "waits" make the cpu wait
 * (after the hook returns) until their work is complete everywhere; the OS
 * frees pages only after that.
 *
 * @load_mm: make @next the loaded mm of this cpu: choose its ASID, flush
 *      the ASID if its tlb_gen is behind, write CR3/TTBR0 (x86: Linux
 *      switch_mm_irqs_off() after the cpumask update, choose_new_asid(),
 *      load_new_mm_cr3(); arm64: check_and_switch_context()).  Updates
 *      @cpu->loaded_mm/loaded_asid/ctxs and clears is_lazy.  Does not touch
 *      cpumasks or nr_active.
 * @leave_mm: x86: switch this cpu to the kernel's own page tables
 *      (init_mm), dropping its loaded mm; what a lazy cpu does when a flush
 *      that frees page tables reaches it (Linux flush_tlb_func() ->
 *      switch_mm_irqs_off(NULL, &init_mm)).  Leaves cpumasks alone.
 * @local_flush: make this cpu hold no stale entry of @info->mm: the range
 *      page by page (x86 INVLPG; arm64 TLBI VALE1/VAE1 as freed_tables
 *      says, then DSB NSH) or, for TLBSIM_FLUSH_ALL, the whole ASID (x86 CR3
 *      reload without the no-flush bit; arm64 TLBI ASIDE1).  x86 acts only
 *      if @info->mm is loaded (a PCID slot of another mm is brought up to
 *      date by its tlb_gen at switch-in); arm64 acts on the mm's ASID
 *      whether loaded or not, one TLBI ASIDE1 for 512 pages or more
 *      (MAX_TLBI_OPS).  No other ceiling is applied here, and the cpu's
 *      flushed tlb_gen is the policy's to update.
 * @send_ipi: run the policy's ipi_handler(@info) on every cpu of @targets
 *      (this cpu excluded); waits for the acknowledgements.
 * @tlbi_broadcast: arm64 __flush_tlb_range(): DSB ISHST; one TLBI
 *      VAE1IS/VALE1IS per page (last level unless freed_tables) or one
 *      ASIDE1IS for TLBSIM_FLUSH_ALL or 512 pages or more (MAX_TLBI_OPS,
 *      CALIBRATION.md 3.10); DSB ISH.  Waits.
 * @invlpgb: AMD INVLPGB for @info's range in PCID @pcid, in chunks of the
 *      machine's invlpgb_max_pages, final-translation-only unless
 *      freed_tables (Linux invlpgb_flush_user_nr_nosync()); FLUSH_ALL names
 *      the whole PCID.  Does not wait: follow with @tlbsync.
 * @tlbsync: AMD TLBSYNC: waits for this cpu's INVLPGBs.
 * @dsb: arm64 DSB ISH: waits for this cpu's broadcast TLBIs; also what
 *      completes walks in flight for a context the cpu switched away from
 *      (docs/hazard-rules.md rule 9 and BACKGROUND 2(b)).
 * @free_tables: free page-table frames now (after the flush).
 * @call_rcu_free_tables: free them after an RCU grace period; one
 *      call_rcu per call (its cost is charged here).
 * @global_asid_alloc: x86: take a global ASID (PCID) from the pool;
 *      returns 0 or -TLBSIM_EBUSY when the pool is empty
 * @global_asid_free: return it (it becomes reusable only after the pool's
 *      next reset, as Linux's reset_global_asid_space())
 * @global_asids_free: how many are left in the pool
 * @nr_cpus: cpus of the machine
 * @cpu: another cpu's state (read only outside its own ipi_handler)
 * @touch_line: this cpu reads, writes or atomically updates (@how) the
 *      shared line of kind @kind (per mm: @mm; TLBSIM_LINE_ASID_LOCK: @mm
 *      NULL); for TLBSIM_LINE_MM_CPUMASK @cpu picks the line holding that
 *      cpu's bit, TLBSIM_LINE_ALL_CPUS every line of the mask.  Charges
 *      the transfer from the cpu that last wrote the line and the wait
 *      behind other cpus' atomics on it (the line model, src/fabric/line.c;
 *      costs from the machine's topology.line and costs.atomic_rmw).  The
 *      OS model's own kinds (PTE_LOCK, PTE, LRUVEC_LOCK, VMA_LOCK) are
 *      ignored here.
 *      In an ipi_handler the line's new state takes effect at the window's
 *      end (hw_line_access(), src/hw/smp.h).
 */
struct tlbsim_policy_ops {
	void (*load_mm)(struct tlbsim_pctx *ctx, struct tlbsim_mm *next);
	void (*leave_mm)(struct tlbsim_pctx *ctx);
	void (*local_flush)(struct tlbsim_pctx *ctx, const struct tlbsim_flush_info *info);
	void (*send_ipi)(struct tlbsim_pctx *ctx, const struct tlbsim_cpumask *targets,
			 const struct tlbsim_flush_info *info);
	void (*tlbi_broadcast)(struct tlbsim_pctx *ctx, const struct tlbsim_flush_info *info);
	void (*invlpgb)(struct tlbsim_pctx *ctx, const struct tlbsim_flush_info *info, uint16_t pcid);
	void (*tlbsync)(struct tlbsim_pctx *ctx);
	void (*dsb)(struct tlbsim_pctx *ctx);
	void (*free_tables)(struct tlbsim_pctx *ctx, struct tlbsim_mm *mm, const uint64_t *pfns,
			    unsigned n);
	void (*call_rcu_free_tables)(struct tlbsim_pctx *ctx, struct tlbsim_mm *mm,
				     const uint64_t *pfns, unsigned n);
	int (*global_asid_alloc)(struct tlbsim_pctx *ctx, uint16_t *asid);
	void (*global_asid_free)(struct tlbsim_pctx *ctx, uint16_t asid);
	unsigned (*global_asids_free)(struct tlbsim_pctx *ctx);
	unsigned (*nr_cpus)(struct tlbsim_pctx *ctx);
	struct tlbsim_cpu *(*cpu)(struct tlbsim_pctx *ctx, unsigned id);
	void (*touch_line)(struct tlbsim_pctx *ctx, struct tlbsim_mm *mm,
			   enum tlbsim_line_kind kind, unsigned cpu, enum tlbsim_line_access how);
};

/**
 * struct tlbsim_policy - a flush policy or a table-free strategy
 * @name: the name users type, e.g. "x86-stock"
 * @summary: one line
 * @source: what it models, e.g. "Linux arch/x86/mm/tlb.c (v6.8)"
 * @abi: TLBSIM_POLICY_ABI
 * @isa_mask: ISAs it supports: bit (1 << enum tlbsim_isa)
 * @mm_priv_size: bytes of per-mm private data (mm->priv[slot])
 * @cpu_priv_size: bytes of per-cpu private data (cpu->priv[slot])
 * @init: parse "key=value,..." parameters given after ':' in the name;
 *      NULL: the policy takes none.  Returns 0 or a negative TLBSIM_E*.
 *      @state receives a policy-global state (freed with free()) or NULL.
 * @switch_mm: the cpu switches from @prev (may be NULL) to @next, or
 *      @next == @prev leaving lazy mode.  NULL: load_mm only.
 * @flush_range: flush @info on every cpu that needs it.  NULL: the
 *      composed partner's; a policy alone must have one.
 * @ipi_handler: on a target of send_ipi.  NULL: local_flush.
 * @free_tables: table pages unlinked by the flush just completed.  NULL:
 *      free them at once (ops->free_tables).
 * @exit_mm: the address space's last thread has exited and its pages are
 *      gone (Linux destroy_context()); NULL: nothing to do.
 * @enter_lazy: the cpu has nothing to run and goes idle keeping @mm loaded
 *      (Linux enter_lazy_tlb() on the switch to the idle task); it leaves
 *      lazy mode through switch_mm.  NULL: nothing to do.
 *
 * Hooks may be NULL as stated.  In a composition "a+b", each non-NULL hook
 * of b replaces a's (a table-free strategy such as rcu-table-free has only
 * free_tables).
 */
struct tlbsim_policy {
	const char *name;
	const char *summary;
	const char *source;
	unsigned abi;
	unsigned isa_mask;
	size_t mm_priv_size;
	size_t cpu_priv_size;
	int (*init)(const char *params, void **state);
	void (*switch_mm)(struct tlbsim_pctx *ctx, struct tlbsim_mm *prev, struct tlbsim_mm *next);
	void (*flush_range)(struct tlbsim_pctx *ctx, const struct tlbsim_flush_info *info);
	void (*ipi_handler)(struct tlbsim_pctx *ctx, const struct tlbsim_flush_info *info);
	void (*free_tables)(struct tlbsim_pctx *ctx, struct tlbsim_mm *mm, const uint64_t *pfns,
			    unsigned n);
	void (*exit_mm)(struct tlbsim_pctx *ctx, struct tlbsim_mm *mm);
	void (*enter_lazy)(struct tlbsim_pctx *ctx, struct tlbsim_mm *mm);
};

/**
 * tlbsim_line_kind_name() - the name of a line kind, as in the statistics
 * @kind: a value of enum tlbsim_line_kind
 *
 * Returns: a static string such as "mm_cpumask", or "unknown".
 */
TLBSIM_API const char *tlbsim_line_kind_name(unsigned kind);

/* Bit of @isa for .isa_mask. */
#define TLBSIM_ISA_BIT(isa) (1u << (isa))

/**
 * tlbsim_policy_find() - a registered policy by name
 * @name: e.g. "x86-stock"; NULL gives the default for @isa
 * @isa: the machine's ISA (picks the default)
 *
 * Only single names; compositions ("a+b") and parameters (":k=v") are
 * resolved by tlbsim_sim_create().
 *
 * Returns: the policy (static or registered, never freed), or NULL.
 */
TLBSIM_API const struct tlbsim_policy *tlbsim_policy_find(const char *name, enum tlbsim_isa isa);

/**
 * tlbsim_policy_register() - add a policy from outside the library
 * @p: the policy; borrowed for the life of the process
 *
 * Not thread-safe: register before creating simulations (sqlite3_vfs_register()).
 *
 * Returns: 0; -TLBSIM_EINVAL for a NULL name, a wrong .abi or a policy
 * with no hook at all; -TLBSIM_EEXIST if the name is taken; -TLBSIM_ENOMEM.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_policy_register(const struct tlbsim_policy *p);

/**
 * tlbsim_policy_at() - the @i-th policy, built-ins first, for listings
 * @i: index from 0
 *
 * Returns: the policy, or NULL past the last.
 */
TLBSIM_API const struct tlbsim_policy *tlbsim_policy_at(unsigned i);

#ifdef __cplusplus
}
#endif

#endif /* TLBSIM_POLICY_H */
