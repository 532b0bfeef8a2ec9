/* SPDX-License-Identifier: MIT */
/*
 * The instruction-trace readers: QEMU execlog lines (the format of
 * contrib/plugins/execlog.c: "CPU, 0xPC, 0xOPCODE, \"DISAS\"", accesses,
 * "REG -> 0xVALUE" changes), the tlbsim-insn form with event lines, errors
 * with line and column, and the hand-written unmap excerpts of
 * tests/data/traces/execlog decoding to the event sequences worked out in
 * their comments.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tlbsim/trace.h"

/* All events of @r as text lines; the reader's return code in *@rc. */
static void drain(tlbsim_trace_reader *r, char *out, size_t size, int *rc, struct tlbsim_error *err)
{
	struct tlbsim_event ev;
	char line[TLBSIM_EVENT_LINE_MAX];
	size_t len = 0;

	out[0] = '\0';
	while ((*rc = tlbsim_trace_next(r, &ev, err)) == 1) {
		tlbsim_event_format(&ev, line, sizeof(line));
		len += (size_t)snprintf(out + len, size - len, "%s\n", line);
	}
}

static void read_text(const char *text, const struct tlbsim_trace_opts *o, char *out, size_t size,
		      int *rc, struct tlbsim_error *err)
{
	tlbsim_trace_reader *r;

	tlbsim_error_clear(err);
	*rc = tlbsim_trace_open_mem_opts(text, strlen(text), "t", o, &r, err);
	if (*rc) {
		out[0] = '\0';
		return;
	}
	drain(r, out, size, rc, err);
	tlbsim_trace_close(r);
}

/*
 * Two vCPUs interleaved, as QEMU's plugin prints them (user mode: virtual
 * addresses).  cpu1's "x0 -> 0x..." is the value LDR left in x0, known
 * from then on: the TLBI on cpu1 reads it (ASID 2, VA 0x5000).  cpu0's
 * TLBI comes before any x0 of cpu0 is shown: unknown.
 */
static void execlog_lines_decode_with_register_values_per_cpu(void **state)
{
	static const char log[] =
	    "0, 0x400000, 0xf9400020, \"ldr x0, [x1]\", load, 0x7f0000001000\n"
	    "1, 0x400100, 0xf9400020, \"ldr x0, [x1]\", load, 0x7f0000002000, x0 -> "
	    "0x0002000000000005\n"
	    "0, 0x400004, 0xd5088320, \"tlbi vae1is, x0\"\n"
	    "1, 0x400104, 0xd5088320, \"tlbi vae1is, x0\"\n"
	    "1, 0x400108, 0xf9000022, \"str x2, [x1]\", store, 0x40001000, RAM\n";
	struct tlbsim_trace_opts o = {.format = TLBSIM_TRACE_AUTO, .isa = TLBSIM_ISA_ARM64};
	struct tlbsim_error err;
	char got[2048];
	int rc;

	(void)state;
	read_text(log, &o, got, sizeof(got), &rc, &err);
	assert_int_equal(rc, 0);
	/* the last line is system mode (", RAM"): the address is physical */
	assert_string_equal(got, "T1@cpu0 compute 1 insns\n"
				 "T1@cpu0 load 0x7f0000001000 8\n"
				 "T2@cpu1 compute 1 insns\n"
				 "T2@cpu1 load 0x7f0000002000 8\n"
				 "T1@cpu0 compute 1 insns\n"
				 "cpu0 tlbi vae1is unknown\n"
				 "T2@cpu1 compute 1 insns\n"
				 "cpu1 tlbi vae1is va=0x5000 asid=2\n"
				 "T2@cpu1 compute 1 insns\n"
				 "cpu1 phys_store 0x40001000 8 unknown\n");
}

static void execlog_needs_the_isa(void **state)
{
	static const char log[] = "0, 0x400000, 0xd503201f, \"nop\"\n";
	struct tlbsim_trace_opts o = {.format = TLBSIM_TRACE_EXECLOG};
	struct tlbsim_error err;
	char got[64];
	int rc;

	(void)state;
	read_text(log, &o, got, sizeof(got), &rc, &err);
	assert_int_equal(rc, -TLBSIM_EINVAL);
	assert_non_null(strstr(err.text, "--isa"));
}

struct bad_case {
	enum tlbsim_trace_format format;
	const char *text;
	int code, line, column;
	const char *says;
};

static void malformed_lines_fail_with_line_and_column(void **state)
{
	/* columns counted by hand, 1-based bytes */
	static const struct bad_case cases[] = {
	    {TLBSIM_TRACE_EXECLOG, "0, 0x400000, 0xzz, \"x\"\n", -TLBSIM_EPARSE, 1, 14,
	     "0x<opcode>"},
	    {TLBSIM_TRACE_EXECLOG, "0, 0x400000, 0xd503201f, \"nop\", load, 0xq\n", -TLBSIM_EPARSE,
	     1, 39, "access address"},
	    {TLBSIM_TRACE_EXECLOG, "70000, 0x400000, 0xd503201f, \"nop\"\n", -TLBSIM_ERANGE, 1, 1,
	     "below 65535"},
	    /* a last line cut inside the quoted disassembly */
	    {TLBSIM_TRACE_EXECLOG, "0, 0x400000, 0xd503201f, \"nop\"\n0, 0x400004, 0xd5",
	     -TLBSIM_ETRUNC, 2, 18, "truncated"},
	    {TLBSIM_TRACE_INSN, "tlbsim-insn 1 isa=arm64\ncpu0 0x1000 d50g\n", -TLBSIM_EPARSE, 2,
	     15, "hex digit"},
	    {TLBSIM_TRACE_INSN, "tlbsim-insn 1 isa=arm64\ncpuX 0x1000 1f2003d5\n", -TLBSIM_EPARSE,
	     2, 1, "cpu<n>"},
	    {TLBSIM_TRACE_INSN, "tlbsim-insn 1 isa=arm64\ncpu70000 0x1000 1f2003d5\n",
	     -TLBSIM_EPARSE, 2, 1, "cpu<n>"},
	    {TLBSIM_TRACE_INSN, "tlbsim-insn 1 isa=arm64\ncpu0 0x1000 1f2003d5 r\n", -TLBSIM_EPARSE,
	     2, 23, "an address after 'r'"},
	    {TLBSIM_TRACE_INSN, "tlbsim-insn 1 isa=arm64\ncpu0 0x1000 1f2003d5 q9=1\n",
	     -TLBSIM_EPARSE, 2, 22, "register name"},
	    {TLBSIM_TRACE_INSN, "tlbsim-insn 1\n", -TLBSIM_EPARSE, 1, 14, "isa="},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tlbsim_trace_opts o = {.format = cases[i].format, .isa = TLBSIM_ISA_ARM64};
		struct tlbsim_error err;
		char got[1024];
		int rc;

		read_text(cases[i].text, &o, got, sizeof(got), &rc, &err);
		if (rc != cases[i].code || err.line != cases[i].line ||
		    err.column != cases[i].column || !strstr(err.text, cases[i].says))
			fail_msg("case %zu: got %d at %d:%d '%s'", i, rc, err.line, err.column,
				 err.text);
	}
}

/* The excerpts' expected sequences, worked out from their comments line by line. */
static const char arm64_head[] = "T2@cpu1 compute 1 insns\n"
				 "T2@cpu1 load 0x7f0000001000 8\n"
				 /* mov, add, str: three instructions of cpu0 */
				 "T1@cpu0 compute 3 insns\n"
				 /* PTE 1 of frame 0x40123: PA 0x40123008, XZR: value 0 */
				 "cpu0 phys_store 0x40123008 8\n"
				 "T1@cpu0 compute 1 insns\n"
				 "cpu0 dsb ishst\n"
				 "T1@cpu0 compute 1 insns\n"
				 /* x0 = 5 << 48 | 0x7f0000001000 >> 12 */
				 "cpu0 tlbi vae1is va=0x7f0000001000 asid=5\n";
static const char arm64_dsb[] = "T1@cpu0 compute 1 insns\n"
				"cpu0 dsb ish\n";
static const char arm64_tail[] = "cpu0 table_free 0x40123\n"
				 "cpu0 table_alloc 0x40123 0\n"
				 "T2@cpu1 compute 1 insns\n"
				 "T2@cpu1 load 0x7f0000001000 8\n";
static const char x86_head[] = "T2@cpu1 compute 1 insns\n"
			       "T2@cpu1 load 0x7f0000001000 8\n"
			       "T1@cpu0 compute 1 insns\n"
			       "cpu0 phys_store 0x40123008 8\n"
			       "T1@cpu0 compute 1 insns\n"
			       /* rax = VA | VA(1) | PCID(2), ecx 0: 1 page, edx[27:16] = 5 */
			       "cpu0 invlpgb 0x7f0000001000 1 12 pcid=5 flags=va,pcid\n";
static const char x86_sync[] = "T1@cpu0 compute 1 insns\n"
			       "cpu0 tlbsync\n";
static const char x86_tail[] = "cpu0 table_free 0x40123\n"
			       "T2@cpu1 compute 1 insns\n"
			       "T2@cpu1 load 0x7f0000001000 8\n";

static void excerpt(const char *name, const char *a, const char *b, const char *c)
{
	char path[256], got[4096], want[4096];
	tlbsim_trace_reader *r;
	struct tlbsim_error err;
	struct tlbsim_trace_stats st;
	int rc;

	snprintf(path, sizeof(path), "tests/data/traces/execlog/%s", name);
	snprintf(want, sizeof(want), "%s%s%s", a, b, c);
	tlbsim_error_clear(&err);
	/* auto: the "tlbsim-insn " header is the magic */
	assert_int_equal(tlbsim_trace_open(path, TLBSIM_TRACE_AUTO, &r, &err), 0);
	assert_int_equal(tlbsim_trace_info(r)->format, TLBSIM_TRACE_INSN);
	drain(r, got, sizeof(got), &rc, &err);
	assert_int_equal(rc, 0);
	assert_string_equal(got, want);
	tlbsim_trace_stats(r, &st);
	assert_int_equal(st.unknown_insns, 0);
	tlbsim_trace_close(r);
}

static void unmap_excerpts_decode_to_their_event_sequences(void **state)
{
	(void)state;
	excerpt("unmap-arm64-safe", arm64_head, arm64_dsb, arm64_tail);
	excerpt("unmap-arm64-nodsb", arm64_head, "", arm64_tail);
	excerpt("unmap-x86-safe", x86_head, x86_sync, x86_tail);
	excerpt("unmap-x86-notlbsync", x86_head, "", x86_tail);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(execlog_lines_decode_with_register_values_per_cpu),
	    cmocka_unit_test(execlog_needs_the_isa),
	    cmocka_unit_test(malformed_lines_fail_with_line_and_column),
	    cmocka_unit_test(unmap_excerpts_decode_to_their_event_sequences),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
