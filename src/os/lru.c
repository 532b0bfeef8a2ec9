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
 * The lock is a FIFO resource, like the broadcast engines
 * (fabric/fabric.h): a cpu arriving at its clock waits until it is free,
 * then holds it lru_page cycles per page.  One lock per NUMA node; a cpu
 * uses its own node's (pages are allocated node-locally).  A ticket or
 * queued spinlock serves waiters in order, hence FIFO.  The wait is spent
 * spinning with interrupts off (spin_lock_irqsave), so the cpu takes no
 * interrupt meanwhile: its clock jumps over the wait, counted as waiting.
 * Everything here runs in the serial phase.
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
	return os->lru ? 0 : -TLBSIM_ENOMEM;
}

void os_lru_fini(struct os *os)
{
	free(os->lru);
	os->lru = NULL;
	os->nr_lru = 0;
}

/* The node of @cpu: cores are numbered cluster-major (machine.h). */
static struct fab_server *lock_of(struct os *os, const struct hw_cpu *cpu)
{
	const struct tlbsim_topology *t = &os->m->topology;
	unsigned per_node = t->cores_per_cluster * t->clusters_per_node;

	return &os->lru[per_node ? (cpu->core->id / per_node) % os->nr_lru : 0];
}

/* @cpu takes the lock for @pages pages: waits its turn, then holds it. */
static void lru_lock(struct os *os, struct hw_cpu *cpu, uint64_t pages)
{
	struct eng_core *c = cpu->core;
	uint64_t hold = pages * os->m->costs.lru_page, wait;

	if (!hold)
		return;
	wait = fab_server_hold(lock_of(os, cpu), c->now, hold) - hold - c->now;
	c->now += wait;
	c->st.waiting += wait;
	os_cpu_of(cpu)->st.lru_wait_cycles += wait;
	hw_charge(cpu, hold);
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
