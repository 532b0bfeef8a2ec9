/* SPDX-License-Identifier: MIT */
/*
 * Linux's x86-64 memory-syscall ABI as tlbsim's events see it: the flag
 * values of include/uapi/asm-generic/mman-common.h, linux/mman.h and
 * linux/sched.h, and their translation into an event's fields.  Shared by
 * the lackey log reader (lackey_sysevents.c) and tlbsim's valgrind tool
 * (tools/valgrind/), which cannot link the library: freestanding,
 * header-only.
 *
 * Internal to traces/ and tools/.
 */
#ifndef TLBSIM_TRACES_LINUX_ABI_H
#define TLBSIM_TRACES_LINUX_ABI_H

#include <stdint.h>

#include "tlbsim/event.h"

#define L_MAP_SHARED 0x01
#define L_MAP_TYPE 0x03 /* SHARED, PRIVATE or SHARED_VALIDATE */
#define L_MAP_FIXED 0x10
#define L_MAP_ANONYMOUS 0x20
#define L_MAP_HUGETLB 0x40000
#define L_MAP_HUGE_SHIFT 26
#define L_MADV_DONTNEED 4
#define L_MADV_FREE 8
#define L_MREMAP_FLAGS 7 /* MAYMOVE 1, FIXED 2, DONTUNMAP 4: the event's bits */
#define L_CLONE_VM 0x100
#define L_CLONE_THREAD 0x10000

/* An mmap's flags argument as the event's TLBSIM_MAP_* bits. */
static inline uint8_t linux_mmap_flags(uint64_t f)
{
	uint8_t fl = (f & L_MAP_TYPE) == L_MAP_SHARED || (f & L_MAP_TYPE) == L_MAP_TYPE
			 ? TLBSIM_MAP_SHARED
			 : TLBSIM_MAP_PRIVATE;

	if (f & L_MAP_ANONYMOUS)
		fl |= TLBSIM_MAP_ANON;
	if (f & L_MAP_FIXED)
		fl |= TLBSIM_MAP_FIXED;
	if (f & L_MAP_HUGETLB) /* MAP_HUGE_1GB is 30 << MAP_HUGE_SHIFT; 0 means the default 2 MiB */
		fl |= ((f >> L_MAP_HUGE_SHIFT) & 0x3f) == 30 ? TLBSIM_MAP_HUGETLB_1G
							     : TLBSIM_MAP_HUGETLB;
	return fl;
}

/*
 * madvise advice that changes page tables: 1 with the event's advice in
 * *@out (MADV_DONTNEED, MADV_FREE), 0 for any other (no event).
 */
static inline int linux_madvise_advice(uint64_t advice, uint8_t *out)
{
	if (advice == L_MADV_DONTNEED)
		*out = TLBSIM_MADV_DONTNEED;
	else if (advice == L_MADV_FREE)
		*out = TLBSIM_MADV_FREE;
	else
		return 0;
	return 1;
}

#endif
