/* SPDX-License-Identifier: MIT */
/*
 * Simulated translations per second through one core's MMU
 * (tlbsim_mmu_translate: L1 -> L2 -> walk with page-walk caches, counters),
 * on the generic x86-64 machine:
 *   hit path:    32 pages in random order, all resident in the L1 dTLB
 *   miss-heavy:  random pages over 1 GiB (262144 pages): most translations
 *                miss both TLB levels and walk, PWCs mostly hitting
 * Usage: bench_mmu_translate [MILLION_TRANSLATIONS]   (default 50)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hw/tlb.h" /* hw_splitmix64 */
#include "tlbsim/tlbsim.h"

#include "bench.h"

static double run(tlbsim_mmu *mmu, const uint64_t *va, unsigned n_va, uint64_t n, uint64_t *sink)
{
	struct tlbsim_xlate x;
	double t0 = bench_now();
	uint64_t i;

	for (i = 0; i < n; i++) {
		if (tlbsim_mmu_translate(mmu, va[i & (n_va - 1)], TLBSIM_ACCESS_LOAD, &x))
			abort();
		*sink += x.pa;
	}
	return n / (bench_now() - t0);
}

int main(int argc, char **argv)
{
	uint64_t n = (argc > 1 ? strtoull(argv[1], NULL, 10) : 50) * 1000000ull, sink = 0, rng = 1;
	const unsigned pages = 1u << 18, hot = 32, n_va = 1u << 20;
	struct tlbsim_machine *m = tlbsim_machine_create_default(TLBSIM_ISA_X86_64);
	tlbsim_physmem *pm = tlbsim_physmem_create(1u << 20);
	tlbsim_pgtable *pt = tlbsim_pgtable_create(pm, TLBSIM_ISA_X86_64, 4);
	tlbsim_mmu *mmu = tlbsim_mmu_create(m, pm);
	uint64_t *va = malloc(n_va * sizeof(*va));
	const uint64_t base = 0x10000000;
	double hit, miss;
	unsigned i;

	if (!m || !pm || !pt || !mmu || !va)
		return 1;
	for (i = 0; i < pages; i++) {
		uint64_t pfn;

		if (tlbsim_physmem_alloc(pm, TLBSIM_FRAME_DATA, &pfn) ||
		    tlbsim_pgtable_map(pt, base + ((uint64_t)i << 12), pfn, 12, TLBSIM_PROT_READ))
			return 1;
	}
	if (tlbsim_mmu_write_cr3(mmu, tlbsim_pgtable_root(pt), 1, false))
		return 1;
	for (i = 0; i < n_va; i++)
		va[i] = base + ((hw_splitmix64(&rng) % hot) << 12);
	hit = run(mmu, va, n_va, n, &sink);
	for (i = 0; i < n_va; i++)
		va[i] = base + ((hw_splitmix64(&rng) % pages) << 12);
	miss = run(mmu, va, n_va, n / 10, &sink);
	printf("hit path:   %.1f M translations/s (L1 dTLB %u entries, %u hot pages)\n", hit / 1e6,
	       m->l1d.entries, hot);
	printf("miss-heavy: %.1f M translations/s (%u pages over 1 GiB; walks %llu of %llu)\n",
	       miss / 1e6, pages, (unsigned long long)tlbsim_mmu_stats(mmu)->walks,
	       (unsigned long long)(n + n / 10));
	printf("(checksum %llu)\n", (unsigned long long)sink);
	tlbsim_mmu_destroy(mmu);
	tlbsim_pgtable_destroy(pt);
	tlbsim_physmem_destroy(pm);
	tlbsim_machine_free(m);
	free(va);
	return 0;
}
