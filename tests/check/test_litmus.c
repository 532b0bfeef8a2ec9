/* SPDX-License-Identifier: MIT */
/*
 * Litmus tests in herd7's format (src/check/litmus_parse.c,
 * src/check/litmus_model.c, docs/litmus.md): a construct outside the subset
 * is an error at its line, never a verdict; FEAT_ETS2 is per cpu; faults
 * are outcomes (of the walk, of an EL0 access to a page table, handled
 * faults re-run once); BBM warnings sit beside the verdict.  Each expected
 * verdict is worked out from the rule it cites (HAZARD-RULES.md, herd's
 * aarch64.cat), not taken from the tool.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check/litmus.h"
#include "tlbsim/check.h"

/* Parse and judge @text; the verdict in @res, the error in @err. */
static int judge(const char *text, const struct tlbsim_cpumask *ets2,
		 struct tlbsim_litmus_result *res, struct tlbsim_error *err)
{
	struct lit_test *t = malloc(sizeof(*t));
	struct tlbsim_litmus_opts opts = {.ets2 = ets2};
	int rc;

	assert_non_null(t);
	tlbsim_error_clear(err);
	rc = chk_lit_parse_text("t.litmus", text, strlen(text), t, err);
	if (!rc)
		rc = chk_lit_check(t, &opts, res, err);
	free(t);
	return rc;
}

static void expect_error(const char *text, int line, const char *what)
{
	struct tlbsim_litmus_result res;
	struct tlbsim_error err;

	assert_int_equal(judge(text, NULL, &res, &err), -TLBSIM_EPARSE);
	assert_string_equal(err.source, "t.litmus");
	assert_int_equal(err.line, line);
	if (!strstr(err.text, what))
		fail_msg("'%s' lacks '%s'", err.text, what);
}

static void unsupported_constructs_name_their_line(void **state)
{
	(void)state;
	/* Hardware AF/DB management (herd TTHM) changes every store's events. */
	expect_error("AArch64 T\nTTHM=HA\n{\n}\n P0 ;\n NOP ;\nexists (0:X0=0)\n", 2,
		     "FEAT_HAFDBS");
	/* An instruction outside the subset: line 6. */
	expect_error("AArch64 T\n{\n0:X1=x;\n}\n P0 ;\n LDXR W0,[X1] ;\nexists (0:X0=0)\n", 6,
		     "'LDXR' is not modelled");
	/* A TLBI by ASID: herd's format has no ASIDs. */
	expect_error("AArch64 T\n{\n}\n P0 ;\n TLBI ASIDE1IS,X1 ;\nexists (0:X0=0)\n", 5,
		     "not modelled");
	/* A fault handler thread. */
	expect_error("AArch64 T\n{\n}\n P0 | P0.F ;\n NOP | NOP ;\nexists (0:X0=0)\n", 4,
		     "fault handlers");
	/* A loop. */
	expect_error("AArch64 T\n{\n}\n P0 ;\n L0: NOP ;\n B L0 ;\nexists (0:X0=0)\n", 6,
		     "backward branch");
	/* A comment never closed, opened on line 2. */
	expect_error("AArch64 T\n(* oops\n{\n}\n", 2, "never closed");
	/* No condition. */
	expect_error("AArch64 T\n{\n}\n P0 ;\n NOP ;\n", 5, "final condition");
	/* A descriptor field that is not modelled (memory attributes). */
	expect_error(
	    "AArch64 T\n{\npte_x=(oa:phy_x,attrs:Device);\n}\n P0 ;\n NOP ;\nexists (true)\n", 3,
	    "not modelled");
	/* A fault on a label no instruction has. */
	expect_error("AArch64 T\n{\n}\n P0 ;\n NOP ;\nexists (fault(P0:L9,x))\n", 6, "label 'L9'");
}

/* HAZARD-RULES test 13 (coRR-pte6): the DSB after P0's TLBI orders P0's
 * later walk only if P0 has FEAT_ETS2 (rule 7; aarch64hwreqs.cat DSB-ob):
 * ETS2 on P1, the writer, changes nothing. */
static const char corr_pte6[] = "AArch64 coRR-pte6\n"
				"{\ny=1;\n0:X3=x;\n1:X1=pte_x; 1:X2=(oa:phy_y);\n}\n"
				" P0              | P1          ;\n"
				" LDR W5,[X3]     | STR X2,[X1] ;\n"
				" DSB ISH         |             ;\n"
				" LSR X9,X3,#12   |             ;\n"
				" TLBI VAAE1IS,X9 |             ;\n"
				" DSB ISH         |             ;\n"
				" LDR W6,[X3]     |             ;\n"
				"exists (0:X5=1 /\\ 0:X6=0)\n";

static void ets2_is_per_cpu(void **state)
{
	struct tlbsim_litmus_result res;
	struct tlbsim_error err;
	struct tlbsim_cpumask p0 = {0}, p1 = {0};

	(void)state;
	tlbsim_cpumask_set(&p0, 0);
	tlbsim_cpumask_set(&p1, 1);
	assert_int_equal(judge(corr_pte6, NULL, &res, &err), 0);
	assert_string_equal(res.verdict, "Allowed");
	/* P1 changes a valid output address without a break: the flag. */
	assert_true(res.bbm_warning);
	assert_int_equal(judge(corr_pte6, &p0, &res, &err), 0);
	assert_string_equal(res.verdict, "Forbidden");
	assert_true(res.bbm_warning);
	assert_int_equal(judge(corr_pte6, &p1, &res, &err), 0);
	assert_string_equal(res.verdict, "Allowed");
}

/* herd check_ptw: an EL0 thread's direct access to a page-table entry
 * takes a Permission fault; under -variant fatal the thread stops there, so
 * the register it would have loaded keeps its initial 7. */
static void el0_access_to_a_pte_faults(void **state)
{
	struct tlbsim_litmus_result res;
	struct tlbsim_error err;

	(void)state;
	assert_int_equal(judge("AArch64 T\nEL0=P0\n{\n0:X2=pte_x; 0:X1=7;\n}\n P0 ;\n"
			       " L0:LDR X1,[X2] ;\n"
			       "forall (fault(P0:L0,MMU:Permission) \\/ fault(P0:L0)) \n",
			       NULL, &res, &err),
			 -TLBSIM_EPARSE);
	assert_int_equal(judge("AArch64 T\nEL0=P0\n{\n0:X2=pte_x; 0:X1=7;\n}\n P0 ;\n"
			       " L0:LDR X1,[X2] ;\n forall (fault(P0:L0) /\\ 0:X1=7)\n",
			       NULL, &res, &err),
			 0);
	assert_string_equal(res.verdict, "Required");
}

/* Variant=handled: the faulting instruction runs again after the handler;
 * here the PTE is made valid by P1, so the only executions kept are those
 * whose second walk sees the valid entry: the load returns 5 (x's value)
 * whenever it faulted first. */
static void handled_faults_run_again(void **state)
{
	struct tlbsim_litmus_result res;
	struct tlbsim_error err;

	(void)state;
	assert_int_equal(judge("AArch64 T\nVariant=handled\n{\nx=5;\npte_x=(oa:phy_x,valid:0);\n"
			       "0:X3=x; 1:X1=pte_x; 1:X2=(oa:phy_x);\n}\n"
			       " P0             | P1          ;\n"
			       " L0:LDR W4,[X3] | STR X2,[X1] ;\n"
			       "forall (~fault(P0:L0,x) \\/ 0:X4=5)\n",
			       NULL, &res, &err),
			 0);
	assert_string_equal(res.verdict, "Required");
	assert_true(res.complete);
	/* Some execution faulted first (the walk before P1's store). */
	assert_int_equal(judge("AArch64 T\nVariant=handled\n{\nx=5;\npte_x=(oa:phy_x,valid:0);\n"
			       "0:X3=x; 1:X1=pte_x; 1:X2=(oa:phy_x);\n}\n"
			       " P0             | P1          ;\n"
			       " L0:LDR W4,[X3] | STR X2,[X1] ;\n"
			       "exists (fault(P0:L0,x,MMU:Translation))\n",
			       NULL, &res, &err),
			 0);
	assert_string_equal(res.verdict, "Allowed");
}

/* HAZARD-RULES rule 6: DMB does not order a store before a TLBI (bob has no
 * TLBI target); MP+dmb.st+dsb.st-tlbi-dsb-isb is Allowed, its DSB LD form
 * Forbidden (test 12) -- and a DMB in place of the DSB LD leaves it Allowed. */
static void dmb_does_not_order_a_tlbi(void **state)
{
	struct tlbsim_litmus_result res;
	struct tlbsim_error err;
	char text[1024];
	const char *fmt = "AArch64 T\n{\n0:X1=pte_x; 0:X2=(oa:phy_x,valid:0); 0:X4=y;\n"
			  "1:X3=x; 1:X4=y;\n}\n"
			  " P0          | P1              ;\n"
			  " STR X2,[X1] | LDR W5,[X4]     ;\n"
			  " DMB ST      | %s          ;\n"
			  " MOV W7,#1   | LSR X9,X3,#12   ;\n"
			  " STR W7,[X4] | TLBI VAAE1IS,X9 ;\n"
			  "             | DSB ISH         ;\n"
			  "             | ISB             ;\n"
			  "             | L0:LDR W6,[X3]  ;\n"
			  "exists (1:X5=1 /\\ ~fault(P1:L0,x))\n";

	(void)state;
	snprintf(text, sizeof(text), fmt, "DSB LD");
	assert_int_equal(judge(text, NULL, &res, &err), 0);
	assert_string_equal(res.verdict, "Forbidden");
	snprintf(text, sizeof(text), fmt, "DMB LD");
	assert_int_equal(judge(text, NULL, &res, &err), 0);
	assert_string_equal(res.verdict, "Allowed");
	snprintf(text, sizeof(text), fmt, "DMB SY");
	assert_int_equal(judge(text, NULL, &res, &err), 0);
	assert_string_equal(res.verdict, "Allowed");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(unsupported_constructs_name_their_line),
	    cmocka_unit_test(ets2_is_per_cpu),
	    cmocka_unit_test(el0_access_to_a_pte_faults),
	    cmocka_unit_test(handled_faults_run_again),
	    cmocka_unit_test(dmb_does_not_order_a_tlbi),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
