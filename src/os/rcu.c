/* SPDX-License-Identifier: MIT */
/*
 * RCU for page-table freeing (MMU_GATHER_RCU_TABLE_FREE,
 * mm/mmu_gather.c tlb_remove_table() -> call_rcu()): a batch of table
 * pages is freed only after a grace period, i.e. once every cpu that was
 * not idle when call_rcu() ran has passed a quiescent state: a context
 * switch, entering idle, or a scheduler tick in user mode (non-preemptible
 * RCU; kernel/rcu/tree.c rcu_sched_clock_irq()).  Idle cpus are in an
 * extended quiescent state and do not hold a grace period up.  A grace
 * period also lasts at least the machine's rcu_grace_min cycles.
 */
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "os/os.h"

void os_rcu_qs(struct os *os, struct hw_cpu *cpu)
{
	(void)os;
	os_cpu_of(cpu)->rcu_qs_seq++;
}

void os_rcu_call(struct os *os, struct hw_cpu *cpu, const uint64_t *pfns, unsigned n)
{
	struct os_rcu_batch *b, **tail;
	unsigned i;

	hw_charge(cpu, os->m->costs.call_rcu);
	b = calloc(1, sizeof(*b));
	if (b) {
		b->pfn = malloc(n * sizeof(*b->pfn));
		b->qs_seq = malloc(os->m->nr_cpus * sizeof(*b->qs_seq));
	}
	if (!b || !b->pfn || !b->qs_seq) {
		/* No host memory to defer: free at once, which is what
		 * Linux's tlb_remove_table_one() falls back to (after an
		 * IPI to every cpu, which this flush has already done). */
		if (b) {
			free(b->pfn);
			free(b->qs_seq);
			free(b);
		}
		os_free_frames(os, pfns, n);
		return;
	}
	memcpy(b->pfn, pfns, n * sizeof(*pfns));
	b->n = n;
	b->start = cpu->core->now;
	for (i = 0; i < os->m->nr_cpus; i++) {
		b->qs_seq[i] = os->cpu[i].rcu_qs_seq;
		/* The caller is in a syscall: not quiescent either. */
		if (os->cpu[i].curr || i == cpu->id)
			tlbsim_cpumask_set(&b->waiting, i);
	}
	for (tail = &os->rcu_head; *tail; tail = &(*tail)->next)
		;
	*tail = b;
	os->st.rcu_batches++;
}

/* Serial phase: end the grace periods that are over, free their pages. */
void os_rcu_advance(struct os *os, uint64_t now)
{
	struct os_rcu_batch **pb = &os->rcu_head;

	while (*pb) {
		struct os_rcu_batch *b = *pb;
		unsigned c;

		tlbsim_for_each_cpu_below(c, &b->waiting, os->m->nr_cpus) {
			if (!os->cpu[c].curr || os->cpu[c].rcu_qs_seq != b->qs_seq[c])
				tlbsim_cpumask_clear(&b->waiting, c);
		}
		if (tlbsim_cpumask_any_but(&b->waiting, TLBSIM_NR_CPUS, os->m->nr_cpus) ||
		    now < b->start + os->m->costs.rcu_grace_min) {
			pb = &b->next;
			continue;
		}
		os_free_frames(os, b->pfn, b->n);
		os->st.rcu_tables_freed += b->n;
		*pb = b->next;
		free(b->pfn);
		free(b->qs_seq);
		free(b);
	}
}

void os_rcu_fini(struct os *os)
{
	while (os->rcu_head) {
		struct os_rcu_batch *b = os->rcu_head;

		os->rcu_head = b->next;
		free(b->pfn);
		free(b->qs_seq);
		free(b);
	}
}
