/* SPDX-License-Identifier: MIT */
/*
 * Process templates: a recorded process (a trace of one program's run, as
 * `tlbsim record` writes it) to be started many times in one simulation,
 * each copy a process of its own: its own pid, tids and address space,
 * placed by the OS model's scheduler.  A generator that takes templates
 * (the `spawn` generator: shells forking and exec'ing the recording, in
 * sequence and in parallel; traces/GENERATORS.md) renames each copy's
 * threads as it goes; docs/templates.md describes the feature.
 *
 * A template is read whole and kept decompressed in memory (the native
 * binary format, about 5 bytes an event: 8 MB for GNU sort's 1.67 M); each
 * copy reads it with a reader of its own (128 KiB of buffers), so copies
 * at once cost little.  It is never changed once loaded: one template may
 * serve several generators at once.
 */
#ifndef TLBSIM_TEMPLATE_H
#define TLBSIM_TEMPLATE_H

#include <stdint.h>

#include "tlbsim/error.h"
#include "tlbsim/export.h"
#include "tlbsim/machine.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tlbsim_template tlbsim_template;

/**
 * struct tlbsim_template_info - what a loaded template holds
 * @events: its events, the recording's proc_create excepted (a copy's
 *        process is created by whoever starts it: a fork and an exec)
 * @threads: threads of the process, the first one included
 * @pid: the recorded pid, @tid the recorded first thread's tid
 * @isa: the ISA of the recording; a template replays on a machine of
 *        either ISA, since its events are user-level (addresses, syscalls,
 *        threads), which both ISAs model alike with 4 KiB pages
 * @accesses, @syscalls: of @events, the loads, stores and fetches, and the
 *        memory syscalls (mmap, munmap, mprotect, madvise, mremap, brk)
 */
struct tlbsim_template_info {
	uint64_t events;
	unsigned threads;
	uint32_t pid, tid;
	enum tlbsim_isa isa;
	uint64_t accesses, syscalls;
};

/**
 * tlbsim_template_load() - read a recorded process to start many times
 * @path: a tlbsim binary trace (traces/FORMAT.md), compressed or not
 *        (borrowed; its name is kept for error reports)
 * @out: receives the template, owned by the caller (tlbsim_template_destroy())
 * @err: error report, or NULL: names @path, and the event at fault with its
 *        byte offset in the decompressed trace
 *
 * The trace must be one process: an optional first proc_create, then the
 * events of its first thread and of the threads it creates (thread_create),
 * each of which exits, the last exit ending the trace.  Its events must be
 * user-level and leave placement to the scheduler: accesses, compute,
 * thread_create, exit, sleep, wake (of its own threads), yield, affinity
 * and the memory syscalls.  A fork, an exec, another proc_create, a switch
 * (a pin to one cpu) and kernel-level events are refused: a copy is one
 * process started by someone else.
 *
 * Returns: 0; -TLBSIM_ENOENT or -TLBSIM_EIO when @path cannot be read;
 * -TLBSIM_EPARSE when it is not a trace or a corrupt one; -TLBSIM_EINVAL
 * when it is not a binary trace (convert a text one with `tlbsim convert
 * --to binary`) or breaks the rules above; -TLBSIM_ENOMEM.
 */
TLBSIM_API TLBSIM_MUST_CHECK int tlbsim_template_load(const char *path, tlbsim_template **out,
						      struct tlbsim_error *err);

/**
 * tlbsim_template_info() - what a template holds
 * @t: the template (borrowed)
 *
 * Returns: a pointer into @t, valid while it lives.
 */
TLBSIM_API const struct tlbsim_template_info *tlbsim_template_info(const tlbsim_template *t);

/**
 * tlbsim_template_name() - the path a template was loaded from
 * @t: the template (borrowed)
 *
 * Returns: a string owned by @t.
 */
TLBSIM_API const char *tlbsim_template_name(const tlbsim_template *t);

/**
 * tlbsim_template_destroy() - release a template
 * @t: the template, or NULL; no generator may still use it
 */
TLBSIM_API void tlbsim_template_destroy(tlbsim_template *t);

#ifdef __cplusplus
}
#endif

#endif /* TLBSIM_TEMPLATE_H */
