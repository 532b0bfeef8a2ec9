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
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_machine_load_file(const char *path,
							  struct tlbsim_machine **out,
							  struct tlbsim_error *err);

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
TLBSIM_API TLBSIM_MUST_CHECK struct tlbsim_machine *tlbsim_machine_create_default(enum tlbsim_isa isa);

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
 * tlbsim_machine_free() - release a machine
 * @m: a machine from a loader, or NULL (then nothing happens)
 */
TLBSIM_API void tlbsim_machine_free(struct tlbsim_machine *m);

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
