/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: the instruction-trace readers (traces/read_execlog.c,
 * Capstone decoding in traces/insn_decode.c, events in traces/insn_events.c;
 * formats in traces/FORMAT.md, "Instruction traces") on arbitrary bytes,
 * opened as `tlbsim run --format execlog|insn` opens them
 * (src/cli/cmd_run.c: the ISA from --isa or the machine).  An input that
 * starts as an insn trace ("tlbsim-insn ") is read as one, with the header's
 * ISA; anything else is read as an execlog trace twice, once for each ISA
 * (the same bytes decode differently), arm64 with a linear map so that
 * stores into it become phys_store events.  Seeds: corpus/insn/.
 */
#include "fuzz.h"

/* Linux's arm64 PAGE_OFFSET with 48-bit VAs (Documentation/arch/arm64/memory.rst). */
#define ARM64_LINEAR_MAP UINT64_C(0xffff000000000000)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char magic[] = "tlbsim-insn ";
	struct tlbsim_trace_opts opts = {0};

	if (size >= sizeof(magic) - 1 && !memcmp(data, magic, sizeof(magic) - 1)) {
		opts.format = TLBSIM_TRACE_INSN;
		return fuzz_read_trace_opts(data, size, &opts);
	}
	opts.format = TLBSIM_TRACE_EXECLOG;
	opts.isa = TLBSIM_ISA_ARM64;
	opts.has_linear_map = 1;
	opts.linear_map = ARM64_LINEAR_MAP;
	fuzz_read_trace_opts(data, size, &opts);
	opts.isa = TLBSIM_ISA_X86_64;
	opts.has_linear_map = 0;
	return fuzz_read_trace_opts(data, size, &opts);
}
