/* SPDX-License-Identifier: MIT */
/*
 * Machine descriptions: ISA, cores, per-core TLB and page-walk-cache
 * geometry, page-table format, walker latencies.
 *
 * A machine is written in JSON (models/machines/ *.json; the format is
 * documented in models/README.md) and loaded with jansson.  Every unknown key,
 * wrong type or out-of-range value is an error naming the file, the JSON path
 * (e.g. "tlb.l2.ways") and the line and column.
 *
 * Page-table levels are numbered from the leaf up, the same for both ISAs:
 *   level 0: the last-level table (x86 PT, arm64 level 3), 4 KiB leaves;
 *   level 1: x86 PD   / arm64 level 2, entries cover 2 MiB (2M leaves here);
 *   level 2: x86 PDPT / arm64 level 1, entries cover 1 GiB (1G leaves here);
 *   level 3: x86 PML4 / arm64 level 0, entries cover 512 GiB;
 *   level 4: x86 PML5 (5-level paging only), entries cover 256 TiB.
 * A page-walk cache "at level k" caches non-leaf entries of level-k tables,
 * i.e. the frame of the level k-1 table below (Intel SDM vol. 3 4.10.3: the
 * PDE cache is the level-1 PWC, the PDPTE cache level 2, the PML4E cache
 * level 3; Arm calls these intermediate walk-cache entries).
 */
#ifndef TLBSIM_MACHINE_H
#define TLBSIM_MACHINE_H

#include <stddef.h>
#include <stdint.h>

#include "tlbsim/error.h"
#include "tlbsim/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Deepest page-table format modelled: x86-64 5-level paging. */
#define TLBSIM_MAX_PT_LEVELS 5
/* Bytes in a machine or structure name, including the NUL. */
#define TLBSIM_NAME_LEN 64

enum tlbsim_isa {
	TLBSIM_ISA_X86_64 = 1,
	TLBSIM_ISA_ARM64 = 2,
};

/* Replacement policy of a set-associative structure. */
enum tlbsim_repl {
	TLBSIM_REPL_LRU = 0,	/* true LRU, per-set age stamps */
	TLBSIM_REPL_PLRU = 1,	/* binary tree pseudo-LRU; ways must be a power of two */
	TLBSIM_REPL_RANDOM = 2, /* uniform victim from a per-structure splitmix64 stream */
};

/* Page sizes a TLB serves, as a bit mask. */
enum tlbsim_page_size_mask {
	TLBSIM_PS_4K = 1u << 0,
	TLBSIM_PS_2M = 1u << 1,
	TLBSIM_PS_1G = 1u << 2,
};

/**
 * struct tlbsim_cache_geom - geometry of one TLB or page-walk cache
 * @entries: number of entries; 0 means the structure is absent
 * @ways: associativity; @entries / @ways (the number of sets) must be a
 *        power of two; @ways == @entries is fully associative
 * @page_sizes: TLBSIM_PS_* mask of the page sizes a TLB holds (ignored for
 *              page-walk caches, which hold one level each)
 * @repl: replacement policy
 * @seed: seed of the random replacement stream (used only by RANDOM)
 * @latency_cycles: cycles charged for a lookup that hits, in core cycles
 */
struct tlbsim_cache_geom {
	unsigned entries;
	unsigned ways;
	unsigned page_sizes;
	enum tlbsim_repl repl;
	uint64_t seed;
	unsigned latency_cycles;
};

/**
 * struct tlbsim_topology - how cores are grouped, and the latency between two
 * cores by the closest group they share
 * @sockets: packages (>= 1)
 * @nodes_per_socket: NUMA nodes per socket (>= 1)
 * @clusters_per_node: core clusters per node: AMD CCX, Arm DSU cluster (>= 1)
 * @cores_per_cluster: cores per cluster (>= 1); the product of the four is
 *        the machine's core count.  Cores are numbered cluster-major: core i
 *        is in cluster i / cores_per_cluster, and so on up.
 * @lat_cluster: one-way core-to-core latency inside a cluster, cycles
 * @lat_node: between clusters of one node, cycles
 * @lat_socket: between nodes of one socket, cycles
 * @lat_remote: between sockets (over the socket link), cycles
 * @line_cluster/@line_node/@line_socket/@line_remote: the time a shared
 *        cache line (a lock, a counter the kernel updates atomically, an
 *        mm_cpumask word) takes to move from the core holding it to
 *        another core at that distance, cycles: what an atomic or a read
 *        of a line last written elsewhere pays (the line model,
 *        src/fabric/line.c; core-to-core CAS latencies, CALIBRATION.md
 *        section 2).  All 0 (the default): shared lines cost nothing.
 *        With a @matrix, lines still go by these levels.
 * @matrix: optional explicit one-way latencies, nr_cpus * nr_cpus cycles,
 *        row = sender; overrides the four levels; NULL when derived.
 *        Owned by the machine.
 *
 * Latencies are those of a cache-line transfer between the two cores (the
 * IPI's and acknowledgement's wire time; CALIBRATION.md section 2).
 */
struct tlbsim_topology {
	unsigned sockets;
	unsigned nodes_per_socket;
	unsigned clusters_per_node;
	unsigned cores_per_cluster;
	unsigned lat_cluster;
	unsigned lat_node;
	unsigned lat_socket;
	unsigned lat_remote;
	unsigned line_cluster;
	unsigned line_node;
	unsigned line_socket;
	unsigned line_remote;
	uint32_t *matrix;
};

/**
 * struct tlbsim_costs - what mechanisms cost, cycles of the core that pays
 *
 * IPI shootdown (Linux smp_call_function_many() / flush_tlb_multi()):
 * @ipi_send: initiator, per multicast (csd setup, APIC/GIC write)
 * @ipi_send_per_target: initiator, per target
 * @ipi_entry: target, interrupt entry
 * @ipi_handler: target, the handler's own work without the TLB operation
 * @ipi_exit: target, interrupt exit
 *
 * Local TLB maintenance:
 * @invlpg: x86 INVLPG (CALIBRATION.md 3.2)
 * @invpcid: x86 INVPCID, any type
 * @cr3_write: x86 MOV to CR3
 * @flush_all: x86 CR4.PGE toggle; arm64 TLBI VMALLE1
 * @tlbi_local: arm64 non-broadcast TLBI, issue cost
 * @dsb: arm64 DSB with nothing outstanding
 * @isb: arm64 ISB
 *
 * arm64 broadcast TLBI (TLBI ...IS + DSB ISH), served by one system-wide
 * DVM engine in FIFO order (CALIBRATION.md 4.3-4.4):
 * @tlbi_issue: initiator, per TLBI IS
 * @dvm_service: cycles the DVM engine is busy per broadcast: k broadcasts
 *        at once finish k * @dvm_service apart (the contention term)
 * @tlbi_perform: from a broadcast's arrival at a core until performed there
 * @tlbi_receive: cycles each receiving core loses per broadcast, whatever
 *        ASID it names (CALIBRATION.md 4.7-4.8)
 *
 * AMD INVLPGB / TLBSYNC (CALIBRATION.md 5.5-5.7):
 * @invlpgb_issue: initiator, per INVLPGB
 * @invlpgb_service: broadcast engine occupancy per INVLPGB
 * @invlpgb_perform: from arrival until performed at a core
 * @invlpgb_receive: cycles each receiving core loses per INVLPGB
 * @invlpgb_max_pages: pages one INVLPGB may name (CPUID 8000_0008 EDX+1);
 *        0 means the machine has no INVLPGB
 * @tlbsync: TLBSYNC with nothing outstanding
 *
 * Operating system (the OS model charges these; CALIBRATION.md section 6):
 * @syscall: entry + exit of a system call
 * @page_fault: a page fault's entry, handling and exit, without zeroing
 * @page_copy: zeroing or copying one 4 KiB page (demand fault, COW)
 * @pte_update: per page-table entry a syscall changes or clears
 * @context_switch: the scheduler's switch, without switch_mm's TLB work
 * @switch_mm: switch_mm's bookkeeping, without the CR3/TTBR write
 * @call_rcu: one call_rcu() (RCU table free, per batch)
 * @lru_page: per page taken off or put on the LRU lists while holding the
 *        lruvec lock (Linux mm/swap.c: folios_put_refs() / release_pages()
 *        for pages a syscall frees, folio_batch_move_lru() for faulted-in
 *        pages, 15 at a time); the lock is one FIFO resource per NUMA node,
 *        so cpus freeing pages at once queue for it.  0: no lock modelled
 * @atomic_rmw: an atomic read-modify-write (x86 LOCK-prefixed
 *        instruction, arm64 LDADD/CAS or an LDXR/STXR loop) on a line the
 *        core already holds; a line held elsewhere adds its transfer
 *        (@topology.line_*).  Concurrent atomics on one line serialise:
 *        the line is a FIFO resource (src/fabric/line.c).  0: free
 * @rcu_grace_min: the shortest RCU grace period, cycles
 * @sched_slice: the scheduler's time slice, cycles
 */
struct tlbsim_costs {
	unsigned ipi_send, ipi_send_per_target, ipi_entry, ipi_handler, ipi_exit;
	unsigned invlpg, invpcid, cr3_write, flush_all;
	unsigned tlbi_local, dsb, isb;
	unsigned tlbi_issue, dvm_service, tlbi_perform, tlbi_receive;
	unsigned invlpgb_issue, invlpgb_service, invlpgb_perform, invlpgb_receive;
	unsigned invlpgb_max_pages, tlbsync;
	unsigned syscall, page_fault, page_copy, pte_update;
	unsigned context_switch, switch_mm, call_rcu, lru_page, atomic_rmw;
	uint64_t rcu_grace_min, sched_slice;
};

/**
 * struct tlbsim_machine - a loaded machine description
 * @name: the "name" key, or the file's base name without ".json" when absent
 * @isa: instruction-set architecture
 * @nr_cpus: number of cores (1..4096)
 * @freq_ghz: core clock in GHz, to convert cycles to seconds in reports
 * @pt_levels: page-table depth: 4 or 5 (x86-64), 4 (arm64, 4 KiB granule)
 * @l1i: per-core L1 instruction TLB
 * @l1d: per-core L1 data TLB
 * @l2: per-core unified second-level TLB (x86 STLB), may be absent
 * @pwc: page-walk caches per level (see the level numbering above);
 *       @pwc[0] is unused (leaves are cached by the TLBs)
 * @pte_latency_cycles: cycles for the walker to read one descriptor from a
 *       table at each level (index = level), i.e. the data-cache latency of
 *       the level holding the table (CALIBRATION.md 7.12)
 * @asid_bits: width of the ASID (arm64, 8 or 16) or PCID (x86, 12) tag;
 *       0 means the machine has no tags (every context switch flushes)
 * @topology: sockets, nodes, clusters and the latencies between cores
 * @costs: cycles charged by each mechanism
 *
 * Owned by whoever loaded it; release with tlbsim_machine_free().
 */
struct tlbsim_machine {
	char name[TLBSIM_NAME_LEN];
	enum tlbsim_isa isa;
	unsigned nr_cpus;
	double freq_ghz;
	unsigned pt_levels;
	struct tlbsim_cache_geom l1i;
	struct tlbsim_cache_geom l1d;
	struct tlbsim_cache_geom l2;
	struct tlbsim_cache_geom pwc[TLBSIM_MAX_PT_LEVELS];
	unsigned pte_latency_cycles[TLBSIM_MAX_PT_LEVELS];
	unsigned asid_bits;
	struct tlbsim_topology topology;
	struct tlbsim_costs costs;
};

/**
 * tlbsim_machine_load_file() - load and validate a machine description
 * @path: path of a JSON file (borrowed)
 * @out: on success, receives a new machine owned by the caller
 * @err: error report (caller-owned), or NULL; names @path, the JSON path of
 *       the offending value, and its line and column
 *
 * Omitted keys take the defaults documented in models/README.md.  On
 * failure *@out is set to NULL.
 *
 * Returns: 0; -TLBSIM_ENOENT or -TLBSIM_EIO if the file cannot be read;
 * -TLBSIM_EPARSE for malformed JSON, unknown keys or wrong types;
 * -TLBSIM_ERANGE for out-of-range values; -TLBSIM_ENOMEM; -TLBSIM_EINVAL
 * if @path or @out is NULL.
 */
TLBSIM_API TLBSIM_MUST_CHECK int
tlbsim_machine_load_file(const char *path, struct tlbsim_machine **out, struct tlbsim_error *err);

/**
 * tlbsim_machine_load_string() - load a machine description from memory
 * @json: NUL-terminated JSON text (borrowed)
 * @source: name to report in errors, e.g. "<string>" (borrowed); NULL
 *          means "<string>".  Its base name is the default @name.
 * @out: on success, receives a new machine owned by the caller
 * @err: error report, or NULL
 *
 * Returns: as tlbsim_machine_load_file().
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_machine_load_string(const char *json, const char *source,
							    struct tlbsim_machine **out,
							    struct tlbsim_error *err);

/**
 * tlbsim_machine_create_default() - a machine with every documented default
 * @isa: TLBSIM_ISA_X86_64 or TLBSIM_ISA_ARM64
 *
 * The defaults are those of models/README.md (an x86-64 or arm64 core of
 * about 2020, one core).  Useful for experiments that set fields directly.
 *
 * Returns: a new machine owned by the caller, or NULL for an unknown @isa or
 * when out of memory.
 */
TLBSIM_API TLBSIM_MUST_CHECK struct tlbsim_machine *
tlbsim_machine_create_default(enum tlbsim_isa isa);

/**
 * tlbsim_machine_validate() - check a machine's fields for consistency
 * @m: the machine (borrowed)
 * @err: error report, or NULL; @path names the first bad field
 *
 * Runs the checks that the loaders run (for machines built in code).
 *
 * Returns: 0, or -TLBSIM_ERANGE naming the first bad field (line and
 * column unknown: -1); -TLBSIM_EINVAL if @m is NULL.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_machine_validate(const struct tlbsim_machine *m,
							 struct tlbsim_error *err);

/**
 * tlbsim_machine_dup() - a deep copy of a machine
 * @m: the machine (borrowed), or NULL
 *
 * Copies the latency matrix too, so that each machine owns its own: a plain
 * struct copy (*a = *b) of a machine with a matrix shares it, and freeing
 * both then frees it twice.
 *
 * Returns: a new machine owned by the caller; NULL if @m is NULL or when out
 * of memory.
 */
TLBSIM_API TLBSIM_MUST_CHECK struct tlbsim_machine *
tlbsim_machine_dup(const struct tlbsim_machine *m);

/**
 * tlbsim_machine_free() - release a machine and the matrix it owns
 * @m: a machine from a loader, tlbsim_machine_create_default() or
 *     tlbsim_machine_dup(), or NULL (then nothing happens)
 */
TLBSIM_API void tlbsim_machine_free(struct tlbsim_machine *m);

/**
 * tlbsim_machine_find() - load a machine by name or path
 * @name: a path (contains '/' or ends in ".json"), or a name such as
 *        "emag-32" looked up as machines/NAME.json in $TLBSIM_MODELS, the
 *        installed share/tlbsim/models relative to the executable and to
 *        libtlbsim.so (an install moved to another prefix), the source
 *        tree's models/, then the configured prefix's share/tlbsim/models
 * @out: on success, receives a new machine owned by the caller
 * @err: error report, or NULL
 *
 * Returns: as tlbsim_machine_load_file(); -TLBSIM_ENOENT naming the
 * directories searched when no such machine exists.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_machine_find(const char *name, struct tlbsim_machine **out,
						     struct tlbsim_error *err);

/**
 * tlbsim_machine_path() - the file tlbsim_machine_find() would load for @name
 * @name: a path (contains '/' or ends in ".json"): copied as it is, not
 *        checked; or a name, looked up as tlbsim_machine_find() does
 * @buf: receives the path, NUL-terminated
 * @len: size of @buf, bytes
 * @err: error report, or NULL
 *
 * For tools that copy or derive a machine description (tlbsim sweep's
 * machine overrides) rather than load it.
 *
 * Returns: 0; -TLBSIM_ENOENT naming the directories searched when no
 * such machine exists; -TLBSIM_ERANGE if the path does not fit @len;
 * -TLBSIM_EINVAL for a NULL argument or @len 0.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_machine_path(const char *name, char *buf, size_t len,
						     struct tlbsim_error *err);

/**
 * tlbsim_machine_list() - every machine description that can be found
 * @fn: called with each name and its file path, sorted by name; a name
 *      found in several directories is given once, from the first
 * @arg: passed to @fn
 *
 * Returns: the number of machines listed.
 */
TLBSIM_API int tlbsim_machine_list(void (*fn)(void *arg, const char *name, const char *path),
				   void *arg);

/**
 * tlbsim_machine_latency() - one-way latency from one core to another
 * @m: the machine (borrowed)
 * @from: sending core, < nr_cpus
 * @to: receiving core, < nr_cpus
 *
 * From the explicit matrix if given, else by the closest group the two
 * cores share (cluster, node, socket, or none).  0 when @from == @to.
 *
 * Returns: cycles.
 */
TLBSIM_API uint64_t tlbsim_machine_latency(const struct tlbsim_machine *m, unsigned from,
					   unsigned to);

/**
 * tlbsim_isa_name() - "x86-64" or "arm64"
 * @isa: the ISA
 *
 * Returns: a static string; "unknown" for an invalid value.
 */
TLBSIM_API const char *tlbsim_isa_name(enum tlbsim_isa isa);

#ifdef __cplusplus
}
#endif

#endif /* TLBSIM_MACHINE_H */
