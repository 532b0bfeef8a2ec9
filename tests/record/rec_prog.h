/* SPDX-License-Identifier: MIT */
/* What tests/record/rec_prog.c does, shared with the test that checks its trace. */
#ifndef TLBSIM_TESTS_REC_PROG_H
#define TLBSIM_TESTS_REC_PROG_H

#define NR_THREADS 2
#define HANDOFF_LEN (13 * 4096ul)    /* mapped by the parent, written by its taker thread */
#define REGION_LEN (37 * 4096ul)    /* mapped and written by the parent */
#define THREAD_LEN (23 * 4096ul)    /* by each thread, then unmapped */
#define CHILD_PROT_LEN (5 * 4096ul) /* mprotected read-only by the child */
#define EXEC_LEN (29 * 4096ul)	    /* mapped, written, madvised by the exec'd image */
#define REMAP_LEN (41 * 4096ul)	    /* the parent's region after mremap */

#endif
