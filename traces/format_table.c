/* SPDX-License-Identifier: MIT */
/*
 * The built-in trace formats (Lua's stdlibs[]): a new reader or writer is
 * a new traces/read_<name>.c or write_<name>.c plus one line here, and, for
 * a new format, a value in enum tlbsim_trace_format (include/tlbsim/trace.h).
 * Readers with magic bytes are tried in this order for TLBSIM_TRACE_AUTO,
 * then the probes of those without.  ChampSim has neither: it is read only
 * when asked for by name.
 */
#include <stddef.h>

#include "trace_format.h"

const struct trace_reader_ops *const trace_readers[] = {
    &trace_read_native,
    &trace_read_text,
    &trace_read_insn,
    &trace_read_lackey,
    &trace_read_execlog,
    &trace_read_champsim,
    NULL,
};

const struct trace_writer_ops *const trace_writers[] = {
    &trace_write_native,
    &trace_write_text,
    NULL,
};
