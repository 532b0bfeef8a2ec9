/* SPDX-License-Identifier: MIT */
/*
 * The multi-core hardware: one MMU per core, and the mechanisms a flush
 * policy may use, each charging the costs of the machine description:
 *
 *   local:    INVLPG, INVPCID, MOV CR3, full flush (x86); TLBI (non-IS),
 *             DSB, ISB (arm64)
 *   IPI:      multicast to a cpumask running a function on each target,
 *             the initiator spinning until the last acknowledgement
 *             (Linux smp_call_function_many(), flush_tlb_multi())
 *   arm64:    TLBI ...IS broadcast through the DVM engine; DSB ISH waits
 *             for every earlier broadcast of this core (Arm ARM: a TLBI is
 *             complete only at a later DSB on the issuing PE)
 *   AMD:      INVLPGB broadcast; TLBSYNC waits only for this core's
 *             earlier INVLPGBs (docs/hazard-rules.md rule 20)
 *
 * Everything here runs inside the engine's hooks: in a core's step or
 * delivery (parallel phase) it touches only that core; broadcasts are
 * spread by the fabric hook in the serial phase.
 */
#ifndef TLBSIM_HW_SMP_H
#define TLBSIM_HW_SMP_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/engine.h"
#include "fabric/fabric.h"
#include "tlbsim/cpumask.h"
#include "tlbsim/machine.h"
#include "tlbsim/mmu.h"
#include "tlbsim/pgtable.h"

struct hw_smp;
struct hw_cpu;

/* A function run on each IPI target (Linux's smp_call_func_t); it charges
 * its work through the hw_* mechanisms, which count as stolen cycles. */
typedef void (*hw_ipi_fn)(void *info, struct hw_smp *smp, struct hw_cpu *cpu);

/*
 * What a blocked core waits for; several at once when a caller issues
 * several mechanisms before the core can go on (IPIs, then INVLPGB +
 * TLBSYNC).  The core resumes when all are satisfied.
 */
enum hw_wait {
	HW_WAIT_IPI_ACKS = 0,
	HW_WAIT_DSB,
	HW_WAIT_TLBSYNC,
	HW_WAIT_NR
};

/**
 * struct hw_cpu_stats - mechanism counters of one core
 * @ipis_sent/@ipis_received: IPIs (one per target)
 * @shootdowns: multicasts initiated
 * @ipi_stolen_cycles: cycles taken from this core by IPI handlers
 * @ipi_send_cycles: cycles this core spent sending IPIs (set-up and one
 *        send per target)
 * @tlbi_bcast_sent/@tlbi_bcast_received: arm64 TLBI IS broadcasts
 * @bcast_stolen_cycles: cycles lost to received broadcasts (TLBI, INVLPGB)
 * @invlpgb_sent/@invlpgb_received: AMD INVLPGBs
 * @wait_cycles: by enum hw_wait, cycles from the start of a block until
 *        that condition was satisfied (interrupts taken meanwhile included)
 * @blocked_cycles: cycles BLOCKED on any of them, without the interrupts
 *        taken meanwhile (those are stolen): each cycle counts once, so
 *        this adds to the stolen cycles without overlap
 * @dsbs/@tlbsyncs: barriers executed
 */
struct hw_cpu_stats {
	uint64_t ipis_sent, ipis_received, shootdowns, ipi_stolen_cycles, ipi_send_cycles;
	uint64_t tlbi_bcast_sent, tlbi_bcast_received, bcast_stolen_cycles;
	uint64_t invlpgb_sent, invlpgb_received;
	uint64_t wait_cycles[HW_WAIT_NR];
	uint64_t blocked_cycles;
	uint64_t dsbs, tlbsyncs;
};

/**
 * struct hw_cpu - one core of the machine
 * @id: core id
 * @mmu: its MMU
 * @core: its engine record (clock, state, mailboxes)
 * @in_irq: inside an IPI handler: charges count as stolen
 * @acks_pending: IPI acknowledgements the core still waits for
 * @call: the function its current multicast runs on the targets (one
 *        multicast at a time per core, as Linux's per-cpu csd)
 * @tlbi_outstanding: broadcast TLBIs issued and not yet complete
 * @invlpgb_outstanding: INVLPGBs issued and not yet complete
 * @waiting_for: bit mask of enum hw_wait conditions a BLOCKED core waits for
 * @wait_start: when the current block began, cycles
 * @wait_stolen_start: the core's stolen cycles then
 * @st: counters
 * @priv: the owner's per-cpu state (the OS model's struct)
 */
struct hw_cpu {
	unsigned id;
	tlbsim_mmu *mmu;
	struct eng_core *core;
	bool in_irq;
	unsigned acks_pending;
	struct {
		hw_ipi_fn fn;
		void *info;
	} call;
	unsigned tlbi_outstanding;
	unsigned invlpgb_outstanding;
	unsigned waiting_for;
	uint64_t wait_start;
	uint64_t wait_stolen_start;
	struct hw_cpu_stats st;
	void *priv;
};

/**
 * struct hw_smp - the machine's cores and broadcast engines
 * @m: machine description (borrowed)
 * @pm: physical memory (borrowed)
 * @eng: the engine the cores live in (borrowed)
 * @cpu: @m->nr_cpus cores
 * @dvm: the arm64 DVM broadcast engine
 * @invlpgb: the AMD INVLPGB broadcast engine
 */
struct hw_smp {
	const struct tlbsim_machine *m;
	tlbsim_physmem *pm;
	struct eng *eng;
	struct hw_cpu *cpu;
	struct fab_server dvm;
	struct fab_server invlpgb;
	/* The latencies from and to the core that broadcast last, by core
	 * (fab_latency_rows()); @lat_src is UINT_MAX before the first. */
	uint64_t *lat_to, *lat_from;
	unsigned lat_src;
};

/* Message kinds of the hardware, disjoint from the owner's (< HW_MSG_BASE). */
enum hw_msg_kind {
	HW_MSG_BASE = 0x1000,
	HW_MSG_IPI = HW_MSG_BASE,
	HW_MSG_IPI_ACK,
	HW_MSG_TLBI,	     /* to the fabric */
	HW_MSG_TLBI_PERFORM, /* fabric -> every core */
	HW_MSG_TLBI_DONE,    /* fabric -> issuer: complete everywhere */
	HW_MSG_INVLPGB,
	HW_MSG_INVLPGB_PERFORM,
	HW_MSG_INVLPGB_DONE,
	HW_MSG_LINE, /* to the fabric: a line access made in an IPI handler */
	HW_MSG_END
};

/* Set up one MMU per core of @m, bound to the engine's cores.  The engine
 * must have m->nr_cpus cores.  Returns 0 or -TLBSIM_ENOMEM. */
int hw_smp_init(struct hw_smp *smp, const struct tlbsim_machine *m, tlbsim_physmem *pm,
		struct eng *eng);
void hw_smp_fini(struct hw_smp *smp);

/* The engine window the machine allows: its smallest core-to-core latency
 * (at least 1 cycle; a one-core machine gets a long window). */
uint64_t hw_smp_window(const struct tlbsim_machine *m);
/*
 * Bytes hw_smp_init() allocates for @m's cores' TLBs and page-walk caches,
 * the part of a simulation that grows with the machine (cores x entries).
 */
uint64_t hw_smp_bytes(const struct tlbsim_machine *m);

/* Charge @cycles to @cpu: its own work, or stolen inside an IPI handler. */
void hw_charge(struct hw_cpu *cpu, uint64_t cycles);

/* Engine hooks: the owner forwards messages of kinds [HW_MSG_BASE,
 * HW_MSG_END) here.  deliver runs on the receiving core (parallel phase),
 * fabric in the serial phase. */
void hw_smp_deliver(struct hw_smp *smp, struct eng_core *c, const struct eng_msg *m);
void hw_smp_fabric(struct hw_smp *smp, const struct eng_msg *m);

/* ---- mechanisms ------------------------------------------------------ */

/*
 * IPI multicast: run @fn(@info) on every core of @targets (the caller
 * leaves itself out) and block until all have acknowledged; the caller may
 * issue more mechanisms before it returns to the engine, all waits then
 * overlap.  Costs:
 * ipi_send + ipi_send_per_target per target on the initiator, the k-th
 * target's IPI leaving after k + 1 per-target costs; each target pays
 * ipi_entry + ipi_handler + @fn's work, acknowledges (one-way latency
 * back), then pays ipi_exit.  Returns the number of targets.
 */
unsigned hw_smp_ipi_many(struct hw_smp *smp, struct hw_cpu *cpu, const struct tlbsim_cpumask *targets,
			 hw_ipi_fn fn, void *info);

/* Local TLB maintenance, on @cpu only, charging its cost. */
void hw_invlpg(struct hw_smp *smp, struct hw_cpu *cpu, uint64_t va);
void hw_invpcid(struct hw_smp *smp, struct hw_cpu *cpu, unsigned type, uint16_t pcid, uint64_t va);
void hw_write_cr3(struct hw_smp *smp, struct hw_cpu *cpu, uint64_t root_pfn, uint16_t pcid,
		  bool noflush);
void hw_flush_all(struct hw_smp *smp, struct hw_cpu *cpu);
void hw_tlbi_local(struct hw_smp *smp, struct hw_cpu *cpu, enum tlbsim_tlbi_op op, uint64_t va,
		   uint16_t asid);
void hw_write_ttbr0(struct hw_smp *smp, struct hw_cpu *cpu, uint64_t root_pfn, uint16_t asid);
void hw_isb(struct hw_smp *smp, struct hw_cpu *cpu);
/* arm64 DSB NSH: completes this core's local TLBIs (no wait). */
void hw_dsb_local(struct hw_smp *smp, struct hw_cpu *cpu);

/*
 * arm64 TLBI ...IS: issue a broadcast (tlbi_issue cycles).  It reaches the
 * DVM engine at once; when served (dvm_service each, FIFO), it travels to
 * every core (one-way latency), is performed there tlbi_perform later (each
 * receiver losing tlbi_receive cycles), and the issuer learns of the last
 * one a one-way latency after.  Complete only at the issuer's next DSB.
 */
void hw_tlbi_is(struct hw_smp *smp, struct hw_cpu *cpu, enum tlbsim_tlbi_op op, uint64_t va,
		uint16_t asid);

/* arm64 DSB (ISH): dsb cycles, then block until every earlier TLBI IS of
 * this core is complete everywhere. */
void hw_dsb(struct hw_smp *smp, struct hw_cpu *cpu);

/* AMD INVLPGB: issue (invlpgb_issue cycles); served by the INVLPGB engine
 * as TLBI IS by the DVM engine.  @nr_pages is capped by the caller at
 * invlpgb_max_pages. */
void hw_invlpgb(struct hw_smp *smp, struct hw_cpu *cpu, uint64_t va, unsigned nr_pages,
		unsigned stride_shift, uint16_t pcid, unsigned flags);

/* AMD TLBSYNC: tlbsync cycles, then block until this core's earlier
 * INVLPGBs are complete everywhere (other cores' are not waited for). */
void hw_tlbsync(struct hw_smp *smp, struct hw_cpu *cpu);

/*
 * AMD TLBSYNC by a task that was migrated from @cpu to @on after its
 * INVLPGBs (which Linux forbids: __tlbsync() calls cant_migrate(),
 * arch/x86/include/asm/tlb.h): the instruction runs on @on, so it waits
 * only for @on's own INVLPGBs; @cpu's stay outstanding.  The task's time
 * (tlbsync cycles) is charged to @cpu, whose clock it runs on here; @on's
 * own outstanding INVLPGBs, if any, are not waited for (the mutation's
 * point is the issuer's, which never are).  A mutation's mechanism.
 */
void hw_tlbsync_migrated(struct hw_smp *smp, struct hw_cpu *cpu, struct hw_cpu *on);

/*
 * A lockless software page-table walk on @cpu (Linux mm/gup.c gup_fast():
 * local_irq_save(), a walk of each page of [@va, @va + @len) from the root
 * down, local_irq_restore()): each page's walk reads one descriptor per
 * level it goes through, at the machine's pte_latency for that level, and
 * a missing entry ends that page's walk (gup_fast() then leaves the page to
 * the slow path).  Charged to @cpu as its own work; it reports the walk and
 * its time window to the observer, and, interrupts being off, an IPI that
 * arrives meanwhile is taken after it (the engine delivers it at the cpu's
 * clock).  Returns the pages found mapped.
 */
uint64_t hw_sw_walk(struct hw_smp *smp, struct hw_cpu *cpu, const tlbsim_pgtable *pgt, uint64_t va,
		    uint64_t len);

/*
 * @cpu touches the shared line @l (@op) at its clock; @busy: cycles it
 * keeps the line after the transfer (the atomic's own cost, and a lock's
 * hold: fab_line_cost()).  Charges the wait as waiting (stolen inside an
 * IPI handler) and the transfer and @busy as the cpu's own work (stolen
 * inside a handler); @c receives the cost.
 *
 * Determinism: outside an IPI handler the call is in the serial phase
 * and the line changes at once.  An IPI handler runs in the parallel
 * phase, beside other cpus' handlers that may touch the same line: it is
 * charged by the line as the last serial phase left it (a rule computable
 * on the receiving core alone), and the access itself is sent to the
 * fabric, which applies it at the window's end in (time, cpu, sequence)
 * order.  Two handlers touching one line within one window (shorter than
 * any core-to-core latency) are thus not queued behind each other; the
 * next access after the window sees both.
 */
void hw_line_access(struct hw_smp *smp, struct hw_cpu *cpu, struct fab_line *l, enum fab_op op,
		    uint64_t busy, struct fab_cost *c);

/* Is @cpu blocked in one of the waits above? */
static inline bool hw_is_waiting(const struct hw_cpu *cpu)
{
	return cpu->waiting_for != 0;
}

#endif /* TLBSIM_HW_SMP_H */
