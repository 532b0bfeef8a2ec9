/* SPDX-License-Identifier: MIT */
/*
 * A small experiment linked against the installed libtlbsim: load a machine
 * description, map a buffer of 4 KiB pages into a fresh address space, walk
 * it with a stride twice, and print the MMU's counters as JSON.
 *
 *   experiment MACHINE.json [NR_PAGES] [STRIDE_PAGES]
 *
 * It uses only the public headers (include/tlbsim/), so it is also the
 * smallest example of the library's API.
 */
#include <stdio.h>
#include <stdlib.h>

#include <tlbsim/tlbsim.h>

int main(int argc, char **argv)
{
	struct tlbsim_machine *m = NULL;
	struct tlbsim_error err;
	tlbsim_physmem *pm = NULL;
	tlbsim_pgtable *pt = NULL;
	tlbsim_mmu *mmu = NULL;
	unsigned long nr_pages = argc > 2 ? strtoul(argv[2], NULL, 0) : 4096;
	unsigned long stride = argc > 3 ? strtoul(argv[3], NULL, 0) : 1;
	const uint64_t base = 0x10000000; /* 256 MiB, page-aligned */
	unsigned long i, pass;
	int rc = 1;
	char *json;

	if (argc < 2 || nr_pages == 0 || stride == 0) {
		fprintf(stderr, "usage: %s MACHINE.json [NR_PAGES] [STRIDE_PAGES]\n", argv[0]);
		return 2;
	}
	tlbsim_error_clear(&err);
	if (tlbsim_machine_load_file(argv[1], &m, &err)) {
		char msg[1024];

		tlbsim_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "%s\n", msg);
		return 2;
	}
	pm = tlbsim_physmem_create(1u << 24);
	pt = pm ? tlbsim_pgtable_create(pm, m->isa, m->pt_levels) : NULL;
	mmu = pt ? tlbsim_mmu_create(m, pm) : NULL;
	if (!mmu)
		goto out;
	for (i = 0; i < nr_pages; i++) {
		uint64_t pfn;

		if (tlbsim_physmem_alloc(pm, TLBSIM_FRAME_DATA, &pfn) ||
		    tlbsim_pgtable_map(pt, base + (i << 12), pfn, 12,
				       TLBSIM_PROT_READ | TLBSIM_PROT_WRITE | TLBSIM_PROT_USER))
			goto out;
	}
	if ((m->isa == TLBSIM_ISA_X86_64 ? tlbsim_mmu_write_cr3(mmu, tlbsim_pgtable_root(pt), 1, false)
					 : tlbsim_mmu_write_ttbr0(mmu, tlbsim_pgtable_root(pt), 1)))
		goto out;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < nr_pages; i += stride) {
			struct tlbsim_xlate x;

			if (tlbsim_mmu_translate(mmu, base + (i << 12), TLBSIM_ACCESS_LOAD, &x))
				goto out;
		}
	json = tlbsim_mmu_stats_json(tlbsim_mmu_stats(mmu));
	if (!json)
		goto out;
	printf("{\"machine\": \"%s\", \"isa\": \"%s\", \"pages\": %lu, \"stride\": %lu,\n \"mmu\": %s}\n",
	       m->name, tlbsim_isa_name(m->isa), nr_pages, stride, json);
	free(json);
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "experiment failed\n");
	tlbsim_mmu_destroy(mmu);
	tlbsim_pgtable_destroy(pt);
	tlbsim_physmem_destroy(pm);
	tlbsim_machine_free(m);
	return rc;
}
