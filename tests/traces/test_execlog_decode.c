/* SPDX-License-Identifier: MIT */
/*
 * Encodings -> events, one row per instruction the instruction-trace
 * readers give meaning to.  Each row is one tlbsim-insn line (bytes in
 * memory order, or an A64 word "0x..." as the Arm ARM writes it) with the
 * register values the instruction reads, and the events expected, worked
 * out by hand from the source cited.  A64 system instructions: SYS is
 * 0xd5080000 | op1 << 16 | CRn << 12 | CRm << 8 | op2 << 5 | Rt and MSR
 * 0xd5000000 | 1 << 20 | (op0 - 2) << 19 | op1 << 16 | CRn << 12 | CRm << 8 |
 * op2 << 5 | Rt (Arm ARM C5.2.x, C6.2 "SYS", "MSR (register)").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tlbsim/trace.h"

#define ARM "tlbsim-insn 1 isa=arm64 page_shift=12 linear_map=0xffff000000000000\n"
#define X86 "tlbsim-insn 1 isa=x86-64 page_shift=12 linear_map=0xffff888000000000\n"
/* Every instruction is one instruction of compute first (FORMAT.md). */
#define C0 "T1@cpu0 compute 1 insns\n"

struct row {
	const char *source; /* where the expectation comes from */
	const char *header;
	const char *line;
	const char *want;    /* events, one a line */
	const char *unknown; /* the mnemonic counted, or NULL */
};

/* Rows without an unknown mnemonic leave it out (NULL). */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct row rows[] = {
    /* ---- AArch64 TLBI: SYS, CRn 8; Xt = ASID[63:48] | VA[55:12] ---- */
    {"Arm ARM C5.5 TLBI VAE1IS: op1 0 CRm 3 op2 1 -> d5088320", ARM,
     "cpu0 0x1000 0xd5088320 x0=0x00050007f0000001",
     C0 "cpu0 tlbi vae1is va=0x7f0000001000 asid=5\n"},
    {"TLBI VALE1IS: CRm 3 op2 5 -> d50883a0", ARM, "cpu0 0x1000 0xd50883a0 x0=0x0005000000000010",
     C0 "cpu0 tlbi vale1is va=0x10000 asid=5\n"},
    {"TLBI VAAE1: CRm 7 op2 3 -> d5088760; kernel VA: VA[55:12] = 0xff800000001, bit 55 copied up",
     ARM, "cpu0 0x1000 0xd5088760 x0=0x00000ff800000001",
     C0 "cpu0 tlbi vaae1 va=0xffff800000001000\n"},
    {"TLBI VAALE1OS (FEAT_TLBIOS): CRm 1 op2 7 -> d50881e0", ARM, "cpu0 0x1000 0xd50881e0 x0=2",
     C0 "cpu0 tlbi vaale1os va=0x2000\n"},
    {"TLBI ASIDE1IS: CRm 3 op2 2 -> d5088340", ARM, "cpu0 0x1000 0xd5088340 x0=0x0007000000000000",
     C0 "cpu0 tlbi aside1is asid=7\n"},
    {"TLBI VMALLE1IS: CRm 3 op2 0 Rt 31 -> d508831f", ARM, "cpu0 0x1000 0xd508831f",
     C0 "cpu0 tlbi vmalle1is\n"},
    {"TLBI VMALLE1ISNXS (FEAT_XS): CRn 9 -> d508931f", ARM, "cpu0 0x1000 0xd508931f",
     C0 "cpu0 tlbi vmalle1isnxs\n"},
    {"TLBI VAE1IS without the register value: unknown", ARM, "cpu0 0x1000 0xd5088320",
     C0 "cpu0 tlbi vae1is unknown\n"},
    {"TLBI ALLE1IS: op1 4 CRm 3 op2 4 -> d50c839f", ARM, "cpu0 0x1000 0xd50c839f",
     C0 "cpu0 tlbi alle1is\n"},
    {"TLBI VMALLS12E1IS: op1 4 CRm 3 op2 6 -> d50c83df", ARM, "cpu0 0x1000 0xd50c83df",
     C0 "cpu0 tlbi vmalls12e1is\n"},
    {"TLBI IPAS2E1IS: op1 4 CRm 0 op2 1 -> d50c8020; IPA[47:12] in [35:0]", ARM,
     "cpu0 0x1000 0xd50c8020 x0=0x80000", C0 "cpu0 tlbi ipas2e1is va=0x80000000\n"},
    {"TLBI IPAS2LE1: op1 4 CRm 4 op2 5 -> d50c84a0", ARM, "cpu0 0x1000 0xd50c84a0 x0=1",
     C0 "cpu0 tlbi ipas2le1 va=0x1000\n"},
    {"TLBI ALLE2: op1 4 CRm 7 op2 0 -> d50c871f", ARM, "cpu0 0x1000 0xd50c871f",
     C0 "cpu0 tlbi alle2\n"},
    {"TLBI VAE3IS: op1 6 CRm 3 op2 1 -> d50e8320", ARM, "cpu0 0x1000 0xd50e8320 x0=4",
     C0 "cpu0 tlbi vae3is va=0x4000\n"},
    /* ---- FEAT_TLBIRANGE: ASID[63:48] TG[47:46] SCALE[45:44] NUM[43:39] BaseADDR[36:0] ---- */
    {"TLBI RVAE1IS: CRm 2 op2 1 -> d5088220; TG 1 (4K), SCALE 0, NUM 23: 24*2 = 48 pages", ARM,
     "cpu0 0x1000 0xd5088220 x0=0x00054b8007f00000",
     C0 "cpu0 tlbi_range rvae1is 0x7f00000000 48 asid=5\n"},
    {"TLBI RVAALE1OS: CRm 5 op2 7 -> d50885e0; SCALE 1, NUM 31: 32*2^6 = 2048 pages", ARM,
     "cpu0 0x1000 0xd50885e0 x0=0x00005f8000000010", C0 "cpu0 tlbi_range rvaale1os 0x10000 2048\n"},
    {"TLBI RVALE1 with TG 3 (64K) on a 4K trace: counted, no event", ARM,
     "cpu0 0x1000 0xd50886a0 x0=0x0000c00000000000", C0, "tlbi range (granule not the page size)"},
    /* ---- barriers, ERET, system registers ---- */
    {"Arm ARM C6.2 DSB ISH: CRm 11 -> d5033b9f", ARM, "cpu0 0x1000 0xd5033b9f",
     C0 "cpu0 dsb ish\n"},
    {"DSB ISHST: CRm 10 -> d5033a9f", ARM, "cpu0 0x1000 0xd5033a9f", C0 "cpu0 dsb ishst\n"},
    {"DSB SY: CRm 15 -> d5033f9f", ARM, "cpu0 0x1000 0xd5033f9f", C0 "cpu0 dsb sy\n"},
    {"ISB -> d5033fdf", ARM, "cpu0 0x1000 0xd5033fdf", C0 "cpu0 isb\n"},
    {"ERET -> d69f03e0", ARM, "cpu0 0x1000 0xd69f03e0", C0 "cpu0 eret\n"},
    {"MSR TTBR0_EL1, x0 (op0 3 CRn 2 CRm 0 op2 0) -> d5182000; ASID[63:48], BADDR[47:1]", ARM,
     "cpu0 0x1000 0xd5182000 x0=0x002a00008a000000", C0 "cpu0 ttbr_write ttbr0 0x8a000 asid=42\n"},
    {"MSR TTBR1_EL1, x1 -> d5182021", ARM, "cpu0 0x1000 0xd5182021 x1=0x8b000",
     C0 "cpu0 ttbr_write ttbr1 0x8b\n"},
    {"MSR TTBR0_EL1 without the value: counted, no event", ARM, "cpu0 0x1000 0xd5182000", C0,
     "msr ttbr0_el1 (value unknown)"},
    {"MSR TCR_EL1 (op2 2) -> d5182040", ARM, "cpu0 0x1000 0xd5182040 x0=0x35b5503510",
     C0 "cpu0 sysreg_write tcr_el1 value=0x35b5503510\n"},
    {"MSR SCTLR_EL1 (CRn 1) -> d5181000, value unknown", ARM, "cpu0 0x1000 0xd5181000",
     C0 "cpu0 sysreg_write sctlr_el1 unknown\n"},
    {"MSR MAIR_EL1 (CRn 10 CRm 2) -> d518a200", ARM, "cpu0 0x1000 0xd518a200 x0=0x44ff",
     C0 "cpu0 sysreg_write mair_el1 value=0x44ff\n"},
    {"MSR VBAR_EL1 (CRn 12): not modelled, counted", ARM, "cpu0 0x1000 0xd518c000 x0=1", C0,
     "msr vbar_el1"},
    /* ---- DC: SYS CRn 7 ---- */
    {"DC CIVAC: op1 3 CRm 14 op2 1 -> d50b7e20", ARM, "cpu0 0x1000 0xd50b7e20 x0=0x1040",
     C0 "cpu0 dc civac va=0x1040\n"},
    {"DC IVAC: op1 0 CRm 6 op2 1 -> d5087620", ARM, "cpu0 0x1000 0xd5087620",
     C0 "cpu0 dc ivac unknown\n"},
    {"DC CISW: op1 0 CRm 14 op2 2 -> d5087e40 (set/way: no va)", ARM, "cpu0 0x1000 0xd5087e40 x0=5",
     C0 "cpu0 dc cisw\n"},
    {"DC ZVA: op1 3 CRm 4 op2 1 -> d50b7420", ARM, "cpu0 0x1000 0xd50b7420 x0=0x2000",
     C0 "cpu0 dc zva va=0x2000\n"},
    {"DC CVAP (FEAT_DPB): op1 3 CRm 12 op2 1 -> d50b7c20", ARM, "cpu0 0x1000 0xd50b7c20 x0=0x40",
     C0 "cpu0 dc cvap va=0x40\n"},
    {"DC CVADP (FEAT_DPB2): op1 3 CRm 13 op2 1 -> d50b7d20", ARM, "cpu0 0x1000 0xd50b7d20 x0=0x80",
     C0 "cpu0 dc cvadp va=0x80\n"},
    {"IC IALLUIS: SYS CRn 7 but not DC: counted", ARM, "cpu0 0x1000 0xd508711f", C0, "ic ialluis"},
    /* ---- loads and stores ---- */
    {"LDR X0, [X1] (f9400020): an 8-byte load by the cpu's pseudo-thread", ARM,
     "cpu0 0x1000 0xf9400020 r 0x7f0000000010", C0 "T1@cpu0 load 0x7f0000000010 8\n"},
    {"STRB W0, [X1] (39000020) outside the linear map: a 1-byte store", ARM,
     "cpu0 0x1000 0x39000020 w 0x7f0000000011", C0 "T1@cpu0 store 0x7f0000000011 1\n"},
    {"STR X2, [X1] (f9000022) into the linear map: phys_store of X2", ARM,
     "cpu0 0x1000 0xf9000022 w 0xffff000040001000 x2=0x4000000123f43",
     C0 "cpu0 phys_store 0x40001000 8 value=0x4000000123f43\n"},
    {"STP X1, X2, [X0] (a9000801): two stores, values X1 then X2", ARM,
     "cpu0 0x1000 0xa9000801 w 0xffff000040001000 w 0xffff000040001008 x1=7 x2=9",
     C0 "cpu0 phys_store 0x40001000 8 value=0x7\ncpu0 phys_store 0x40001008 8 value=0x9\n"},
    {"STR W3, [X1] (b9000023) without W3's value: unknown", ARM,
     "cpu0 0x1000 0xb9000023 w 0xffff000040001000", C0 "cpu0 phys_store 0x40001000 4 unknown\n"},
    {"an explicit w ADDR=VALUE wins over the register", ARM,
     "cpu0 0x1000 0xf9000022 w 0xffff000040001000=0x55 x2=1",
     C0 "cpu0 phys_store 0x40001000 8 value=0x55\n"},
    {"0xffffffff is no A64 instruction", ARM, "cpu0 0x1000 0xffffffff", C0, "(undecodable)"},
    /* ---- x86-64 ---- */
    {"Intel SDM vol. 2A INVLPG m: 0F 01 /7; [rdi] with rdi known", X86,
     "cpu0 0x1000 0f013f rdi=0x7f0000005000", C0 "cpu0 invlpg 0x7f0000005000\n"},
    {"INVLPG [rsp+8]: 0F 01 7C 24 08", X86, "cpu0 0x1000 0f017c2408 rsp=0x1000",
     C0 "cpu0 invlpg 0x1008\n"},
    {"INVLPG without the base register: counted", X86, "cpu0 0x1000 0f013f", C0,
     "invlpg (address unknown)"},
    {"INVPCID rax, [rdi]: 66 0F 38 82 /r; type 0, descriptor PCID 5 and address", X86,
     "cpu0 0x1000 660f388207 r 0x2000=5 r 0x2008=0x7f0000001000 rax=0",
     C0 "cpu0 invpcid 0 pcid=5 va=0x7f0000001000\n"},
    {"INVPCID type 2 needs no descriptor", X86, "cpu0 0x1000 660f388207 rax=2",
     C0 "cpu0 invpcid 2\n"},
    {"INVPCID type 1 without the descriptor: counted", X86, "cpu0 0x1000 660f388207 rax=1", C0,
     "invpcid (no descriptor)"},
    {"AMD APM vol. 3 INVLPGB 0F 01 FE: rAX VA|flags, ECX[15:0]+1 pages, ECX[31] 2M, EDX[27:16] "
     "PCID",
     X86, "cpu0 0x1000 0f01fe rax=0x7f0000000013 rcx=0x8000000f rdx=0x50000",
     C0 "cpu0 invlpgb 0x7f0000000000 16 21 pcid=5 flags=va,pcid,final_only\n"},
    {"INVLPGB with flags 0 (everything): va 0, 1 page, stride 12", X86,
     "cpu0 0x1000 0f01fe rax=0 rcx=0 rdx=0", C0 "cpu0 invlpgb 0x0 1 12\n"},
    {"INVLPGB without register values: counted", X86, "cpu0 0x1000 0f01fe", C0,
     "invlpgb (operands unknown)"},
    {"AMD APM vol. 3 TLBSYNC 0F 01 FF", X86, "cpu0 0x1000 0f01ff", C0 "cpu0 tlbsync\n"},
    {"SDM vol. 2B MOV CR3, rax: 0F 22 D8; pfn bits 51:12, PCID 11:0, bit 63 no-flush", X86,
     "cpu0 0x1000 0f22d8 rax=0x8000000012345005", C0 "cpu0 cr3_write 0x12345 pcid=5 noflush\n"},
    {"MOV CR4, rax: 0F 22 E0", X86, "cpu0 0x1000 0f22e0 rax=0x3706f0",
     C0 "cpu0 sysreg_write cr4 value=0x3706f0\n"},
    {"MOV CR0, rax: 0F 22 C0, value unknown", X86, "cpu0 0x1000 0f22c0",
     C0 "cpu0 sysreg_write cr0 unknown\n"},
    {"SDM vol. 3A Serializing Instructions: CPUID 0F A2", X86, "cpu0 0x1000 0fa2",
     C0 "cpu0 serialize\n"},
    {"IRETQ 48 CF (serializing)", X86, "cpu0 0x1000 48cf", C0 "cpu0 serialize\n"},
    {"WRMSR 0F 30 (serializing)", X86, "cpu0 0x1000 0f30", C0 "cpu0 serialize\n"},
    {"SERIALIZE 0F 01 E8 (Capstone 4 does not know it)", X86, "cpu0 0x1000 0f01e8",
     C0 "cpu0 serialize\n"},
    {"LFENCE 0F AE E8 is not serializing: plain", X86, "cpu0 0x1000 0faee8", C0},
    {"MOV [rdi], rsi (48 89 37) into the direct map: phys_store of rsi", X86,
     "cpu0 0x1000 488937 w 0xffff888040123008 rsi=0x8000000012345067",
     C0 "cpu0 phys_store 0x40123008 8 value=0x8000000012345067\n"},
    {"MOV qword [rdi], 0 (48 C7 07 imm32): the immediate", X86,
     "cpu0 0x1000 48c70700000000 w 0xffff888040123008", C0 "cpu0 phys_store 0x40123008 8\n"},
    {"XCHG [rdi], rsi (48 87 37): a load and a store of rsi", X86,
     "cpu0 0x1000 488737 r 0x7f0000000000 w 0x7f0000000000",
     C0 "T1@cpu0 load 0x7f0000000000 8\nT1@cpu0 store 0x7f0000000000 8\n"},
    {"PUSH rbp (55): an 8-byte stack store", X86, "cpu0 0x1000 55 w 0x7ffffffde000",
     C0 "T1@cpu0 store 0x7ffffffde000 8\n"},
};

static void read_all(const char *text, char *out, size_t size, struct tlbsim_trace_stats *st,
		     struct tlbsim_trace_insn_count *cnt)
{
	tlbsim_trace_reader *r;
	struct tlbsim_error err;
	struct tlbsim_event ev;
	char line[TLBSIM_EVENT_LINE_MAX];
	size_t len = 0;
	int rc;

	tlbsim_error_clear(&err);
	rc = tlbsim_trace_open_mem(text, strlen(text), "row", TLBSIM_TRACE_AUTO, &r, &err);
	if (rc)
		fail_msg("open: %s", err.text);
	out[0] = '\0';
	while ((rc = tlbsim_trace_next(r, &ev, &err)) == 1) {
		tlbsim_event_format(&ev, line, sizeof(line));
		len += (size_t)snprintf(out + len, size - len, "%s\n", line);
	}
	if (rc)
		fail_msg("read: %s", err.text);
	tlbsim_trace_stats(r, st);
	memset(cnt, 0, sizeof(*cnt));
	tlbsim_trace_insn_counts(r, cnt, 1);
	tlbsim_trace_close(r);
}

static void every_listed_encoding_decodes_to_the_events_its_manual_gives(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char text[1024], got[1024];
		struct tlbsim_trace_stats st;
		struct tlbsim_trace_insn_count cnt;

		snprintf(text, sizeof(text), "%s%s\n", rows[i].header, rows[i].line);
		read_all(text, got, sizeof(got), &st, &cnt);
		if (strcmp(got, rows[i].want))
			fail_msg("row %zu (%s):\n got:\n%s want:\n%s", i, rows[i].source, got,
				 rows[i].want);
		assert_int_equal(st.insns, 1);
		assert_int_equal(st.unknown_insns, rows[i].unknown ? 1 : 0);
		if (rows[i].unknown && strcmp(cnt.mnemonic, rows[i].unknown))
			fail_msg("row %zu (%s): counted '%s', want '%s'", i, rows[i].source,
				 cnt.mnemonic, rows[i].unknown);
	}
}

/* The cache: the same encoding again gives the same events (second decode from the cache). */
static void a_repeated_encoding_decodes_the_same_from_the_cache(void **state)
{
	char got[2048];
	struct tlbsim_trace_stats st;
	struct tlbsim_trace_insn_count cnt;

	(void)state;
	read_all(ARM "cpu0 0x1000 0xd5088320 x0=1\ncpu1 0x1000 0xd5088320 x0=2\n", got, sizeof(got),
		 &st, &cnt);
	assert_string_equal(got, C0 "cpu0 tlbi vae1is va=0x1000\n"
				    "T2@cpu1 compute 1 insns\ncpu1 tlbi vae1is va=0x2000\n");
}

/* Plain instructions of one cpu coalesce into one compute, cut at a cpu change. */
static void plain_instructions_coalesce_per_cpu_run(void **state)
{
	char got[2048];
	struct tlbsim_trace_stats st;
	struct tlbsim_trace_insn_count cnt;

	(void)state;
	/* mov x0, #0 (d2800000) x3 on cpu0, x2 on cpu1, x1 on cpu0: 3, 2, 1 */
	read_all(ARM "cpu0 0 0xd2800000\ncpu0 4 0xd2800000\ncpu0 8 0xd2800000\n"
		     "cpu1 0 0xd2800000\ncpu1 4 0xd2800000\ncpu0 12 0xd2800000\n",
		 got, sizeof(got), &st, &cnt);
	assert_string_equal(got, "T1@cpu0 compute 3 insns\nT2@cpu1 compute 2 insns\n"
				 "T1@cpu0 compute 1 insns\n");
	assert_int_equal(st.insns, 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_listed_encoding_decodes_to_the_events_its_manual_gives),
	    cmocka_unit_test(a_repeated_encoding_decodes_the_same_from_the_cache),
	    cmocka_unit_test(plain_instructions_coalesce_per_cpu_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
