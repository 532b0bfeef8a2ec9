/* SPDX-License-Identifier: MIT */
/*
 * The lruvec lock (lru_lock): every page a process maps goes on the LRU
 * lists, under a spinlock of its node's (and memcg's) lruvec.  Pages freed
 * by munmap, madvise(MADV_DONTNEED) or exit go back through
 * free_pages_and_swap_cache() -> folios_put_refs() / release_pages()
 * (Linux mm/swap.c), which takes the lock to take them off the LRU; new
 * anonymous pages from faults are put on the LRU through a per-cpu folio
 * batch (folio_add_lru() -> folio_batch_move_lru()), the lock taken once
 * per full batch of 15 (PAGEVEC_SIZE; Linux 6.10 raised the batch to 31).
 * With TLB shootdowns gone (INVLPGB), many threads freeing and faulting
 * pages contend on this lock instead (CALIBRATION.md 5.2).
 *
 * The lock is a shared line of the line model (os/lines.c, a FIFO
 * resource like the broadcast engines): a cpu arriving at its clock waits
 * until it is free, takes it with an atomic (the line's transfer from the
 * last holder, by their distance), then holds it lru_page cycles per page.
 * One lock per NUMA node; a cpu uses its own node's (pages are allocated
 * node-locally), so with NPS2 or NPS4 (AMD's NUMA nodes per socket,
 * topology.nodes_per_socket) cpus of different nodes do not contend.  A
 * ticket or queued spinlock serves waiters in order, hence FIFO.  The wait
 * is spent spinning with interrupts off (spin_lock_irqsave), so the cpu
 * takes no interrupt meanwhile: its clock jumps over the wait, counted as
 * waiting.  Everything here runs in the serial phase.
 *
 * lru_add_drain() (os->lru_add_drain, the kernels of the INVLPGB
 * measurements called it on every madvise/munmap zap; a separate patch
 * removed the call): the cpu's add batch goes onto the LRU at once, under
 * the lock, if it holds any page.
 */
#include <stdlib.h>

#include "os/os.h"
#include "tlbsim/error.h"

/* PAGEVEC_SIZE: pages a cpu's LRU add batch holds before it is moved onto
 * the LRU under the lock (Linux <= 6.9 include/linux/pagevec.h). */
#define LRU_BATCH 15u

static unsigned nr_nodes(const struct tlbsim_machine *m)
{
	unsigned n = m->topology.sockets * m->topology.nodes_per_socket;

	return n ? n : 1;
}

int os_lru_init(struct os *os)
{
	os->nr_lru = nr_nodes(os->m);
	os->lru = calloc(os->nr_lru, sizeof(*os->lru));
	if (!os->lru)
		return -TLBSIM_ENOMEM;
	for (unsigned i = 0; i < os->nr_lru; i++)
		fab_line_init(&os->lru[i]);
	return 0;
}

void os_lru_fini(struct os *os)
{
	for (unsigned i = 0; i < os->nr_lru; i++)
		fab_line_fini(&os->lru[i]);
	free(os->lru);
	os->lru = NULL;
	os->nr_lru = 0;
}

/* @cpu takes its node's lock for @pages pages: waits its turn, then holds
 * it.  lru_page 0: the lock is not modelled. */
static void lru_lock(struct os *os, struct hw_cpu *cpu, uint64_t pages)
{
	uint64_t hold = pages * os->m->costs.lru_page;

	if (!hold)
		return;
	os_line(os, cpu, TLBSIM_LINE_LRUVEC_LOCK,
		&os->lru[fab_node_of(os->m, cpu->id) % os->nr_lru], FAB_RMW, hold);
}

void os_lru_release(struct os *os, struct hw_cpu *cpu, uint64_t pages)
{
	if (pages)
		lru_lock(os, cpu, pages);
}

void os_lru_add(struct os *os, struct hw_cpu *cpu)
{
	struct os_cpu *oc = os_cpu_of(cpu);

	if (++oc->lru_batch < LRU_BATCH)
		return;
	oc->lru_batch = 0;
	lru_lock(os, cpu, LRU_BATCH);
}

void os_lru_drain(struct os *os, struct hw_cpu *cpu)
{
	struct os_cpu *oc = os_cpu_of(cpu);

	if (!oc->lru_batch)
		return;
	lru_lock(os, cpu, oc->lru_batch);
	oc->lru_batch = 0;
}
