/* SPDX-License-Identifier: MIT */
/*
 * The event API (include/tlbsim/event.h): its size, the kind names, the
 * text rendering of events built field by field, and the validation rules
 * of the struct's comment, each case worked out from that comment.
 */
#include "trace_test.h"

#include "tlbsim/event.h"

static struct tlbsim_event blank(unsigned kind, uint32_t tid, uint16_t cpu)
{
	struct tlbsim_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = (uint8_t)kind;
	ev.tid = tid;
	ev.cpu = cpu;
	return ev;
}

static void an_event_fits_48_bytes(void **state)
{
	/* the bound; event_layout.c also checks it at compile time */
	assert_true(sizeof(struct tlbsim_event) <= 48);
}

static void every_kind_has_a_name_that_finds_it_back(void **state)
{
#define CHECK_KIND(name, val, text)                                                                \
	assert_string_equal(tlbsim_event_kind_name(val), text);                                    \
	assert_int_equal(tlbsim_event_kind_find(text), val);
	TLBSIM_EVENT_KINDS(CHECK_KIND)
#undef CHECK_KIND
	assert_string_equal(tlbsim_event_kind_name(0), "unknown");
	assert_string_equal(tlbsim_event_kind_name(TLBSIM_EV_NR_KINDS), "unknown");
	assert_int_equal(tlbsim_event_kind_find("lod"), TLBSIM_EV_NONE);
}

static void events_render_as_text_lines(void **state)
{
	struct tlbsim_event ev = blank(TLBSIM_EV_MMAP, 1, TLBSIM_CPU_ANY);
	char buf[TLBSIM_EVENT_LINE_MAX];

	ev.mmap.addr = 0x7f0000000000;
	ev.mmap.len = 0x400000;
	ev.mmap.prot = TLBSIM_PROT_READ | TLBSIM_PROT_WRITE;
	ev.mmap.flags = TLBSIM_MAP_PRIVATE | TLBSIM_MAP_ANON;
	/* the example line */
	assert_int_equal(tlbsim_event_format(&ev, buf, sizeof(buf)),
			 strlen("T1 mmap 0x7f0000000000 0x400000 rw- private,anon"));
	assert_string_equal(buf, "T1 mmap 0x7f0000000000 0x400000 rw- private,anon");

	ev = blank(TLBSIM_EV_TLBI, TLBSIM_TID_NONE, 2);
	ev.tlbi.op = TLBSIM_TLBI_VAE1;
	ev.tlbi.flags = TLBSIM_TLBI_IS;
	ev.tlbi.va = 0x1000;
	ev.tlbi.asid = 5;
	tlbsim_event_format(&ev, buf, sizeof(buf));
	assert_string_equal(buf, "cpu2 tlbi vae1is va=0x1000 asid=5");

	ev = blank(TLBSIM_EV_DSB, TLBSIM_TID_NONE, 0);
	ev.dsb.domain = TLBSIM_DSB_ISH;
	tlbsim_event_format(&ev, buf, sizeof(buf));
	assert_string_equal(buf, "cpu0 dsb ish");

	/* a short buffer still gets a NUL and the full length is returned */
	ev = blank(TLBSIM_EV_SWITCH, 12, 3);
	assert_int_equal(tlbsim_event_format(&ev, buf, 4), strlen("T12@cpu3 switch"));
	assert_string_equal(buf, "T12");
}

/* tlbsim_event_validate() fails with a text containing @why. */
static void expect_invalid(const struct tlbsim_event *ev, const char *why)
{
	char text[200];

	assert_int_equal(tlbsim_event_validate(ev, text, sizeof(text)), -TLBSIM_EINVAL);
	if (!strstr(text, why))
		fail_msg("'%s' lacks '%s'", text, why);
}

static void the_rules_of_the_struct_comment_are_enforced(void **state)
{
	struct tlbsim_event ev;

	ev = blank(TLBSIM_EV_SWITCH, 1, TLBSIM_CPU_ANY);
	expect_invalid(&ev, "switch: a cpu (cpu<n>) expected");
	ev = blank(TLBSIM_EV_LOAD, 1, TLBSIM_CPU_ANY);
	expect_invalid(&ev, "load size: 1..4294967295 expected, found 0");
	ev.access.size = 1;
	ev.access.va = UINT64_MAX; /* the last byte of the address space: fine */
	assert_int_equal(tlbsim_event_validate(&ev, NULL, 0), 0);
	ev.access.size = 2;
	expect_invalid(&ev, "access past 2^64");

	ev = blank(TLBSIM_EV_MPROTECT, 1, TLBSIM_CPU_ANY);
	ev.mprotect.prot = TLBSIM_PROT_USER;
	expect_invalid(&ev, "mprotect prot: known bits expected, found unknown bits 0x8");

	ev = blank(TLBSIM_EV_MMAP, 1, TLBSIM_CPU_ANY);
	ev.mmap.len = 0x1000;
	ev.mmap.flags = TLBSIM_MAP_PRIVATE | TLBSIM_MAP_HUGETLB | TLBSIM_MAP_THP;
	expect_invalid(&ev, "at most one of hugetlb, hugetlb1g, thp");

	/* Intel SDM vol. 2 INVPCID: type 1 takes a PCID but no address */
	ev = blank(TLBSIM_EV_INVPCID, TLBSIM_TID_NONE, 0);
	ev.invpcid.type = 1;
	ev.invpcid.pcid = 5;
	assert_int_equal(tlbsim_event_validate(&ev, NULL, 0), 0);
	ev.invpcid.va = 0x1000;
	expect_invalid(&ev, "invpcid type 1: no va expected");
	ev.invpcid.type = 4;
	expect_invalid(&ev, "invpcid type: 0..3 expected, found 4");
	ev.invpcid.type = 0;
	ev.invpcid.pcid = 4096;
	expect_invalid(&ev, "invpcid pcid: 0..4095 expected, found 4096");

	/* AMD APM INVLPGB: fields without their valid bit must be 0 */
	ev = blank(TLBSIM_EV_INVLPGB, TLBSIM_TID_NONE, 1);
	ev.invlpgb.nr_pages = 1;
	ev.invlpgb.stride_shift = 12;
	ev.invlpgb.asid = 3;
	expect_invalid(&ev, "invlpgb without flag asid: no asid expected");
	ev.invlpgb.flags = TLBSIM_INVLPGB_ASID;
	assert_int_equal(tlbsim_event_validate(&ev, NULL, 0), 0);
	ev.invlpgb.nr_pages = 65537;
	expect_invalid(&ev, "invlpgb nr_pages: 1..65536 expected, found 65537");

	/* Arm ARM C5.5: TLBI VAAE1 is for all ASIDs, ASIDE1 has no address */
	ev = blank(TLBSIM_EV_TLBI, TLBSIM_TID_NONE, 0);
	ev.tlbi.op = TLBSIM_TLBI_ASIDE1;
	ev.tlbi.va = 0x1000;
	expect_invalid(&ev, "tlbi aside1: no va expected");
	ev.tlbi.op = TLBSIM_TLBI_VAE1;
	ev.tlbi.flags = TLBSIM_TLBI_IS | TLBSIM_TLBI_OS;
	expect_invalid(&ev, "tlbi: one of is, os expected, found both");
	ev.tlbi.flags = TLBSIM_TLBI_OS;
	ev.tlbi.operand_unknown = 1;
	expect_invalid(&ev, "tlbi with unknown operand: no va or asid expected");
	ev.tlbi.op = TLBSIM_TLBI_NR_OPS;
	expect_invalid(&ev, "tlbi op: 0..15 expected, found 16");

	ev = blank(TLBSIM_EV_DSB, TLBSIM_TID_NONE, 0);
	ev.dsb.domain = 4; /* CRm 0b0100 is no DSB option (Arm ARM C6.2) */
	expect_invalid(&ev, "dsb domain: a known value expected, found 4");

	/* Arm ARM C5.5 TLBI RVAE1: pages = (NUM+1) * 2^(5*SCALE+1); 33 is odd, 48 = 24 * 2 */
	ev = blank(TLBSIM_EV_TLBI_RANGE, TLBSIM_TID_NONE, 0);
	ev.tlbi_range.nr_pages = 33;
	expect_invalid(&ev, "tlbi_range nr_pages: (NUM+1)*2^(5*SCALE+1)");
	ev.tlbi_range.nr_pages = 48;
	assert_int_equal(tlbsim_event_validate(&ev, NULL, 0), 0);
	/* 3 * 2^11 = 6144 = (2+1) * 2^(5*2+1): SCALE 2, NUM 2 */
	ev.tlbi_range.nr_pages = 6144;
	assert_int_equal(tlbsim_event_validate(&ev, NULL, 0), 0);
	ev.tlbi_range.op = TLBSIM_TLBI_RVAAE1;
	ev.tlbi_range.asid = 3;
	expect_invalid(&ev, "tlbi_range rvaae1: no asid expected");
	ev.tlbi_range.asid = 0;
	ev.tlbi_range.operand_unknown = 1;
	expect_invalid(&ev, "tlbi_range with unknown operand");
	ev = blank(TLBSIM_EV_PHYS_STORE, TLBSIM_TID_NONE, 0);
	ev.phys_store.size = 8;
	ev.phys_store.value = 1;
	ev.phys_store.unknown = 1;
	expect_invalid(&ev, "phys_store with unknown: no value expected");
	ev.phys_store.size = 0;
	expect_invalid(&ev, "phys_store size: 1..");
	/* Arm ARM C5.3: DC CISW operates by set/way, not by address */
	ev = blank(TLBSIM_EV_DC, TLBSIM_TID_NONE, 0);
	ev.dc.op = TLBSIM_DC_CISW;
	ev.dc.va = 0x1000;
	expect_invalid(&ev, "dc cisw: no va expected (set/way)");
	ev = blank(TLBSIM_EV_SYSREG_WRITE, TLBSIM_TID_NONE, 0);
	ev.sysreg_write.reg = 5;
	expect_invalid(&ev, "sysreg_write reg: a known value expected, found 5");

	ev = blank(TLBSIM_EV_NR_KINDS, 1, 0);
	expect_invalid(&ev, "a known event kind expected, found 50");
	/* 47: reserved for kinds of other issues, no name yet */
	ev = blank(47, 1, 0);
	expect_invalid(&ev, "a known event kind expected, found 47");
	/* commit (kernel level): a cpu, a range of at least one byte below 2^64 */
	ev = blank(TLBSIM_EV_COMMIT, TLBSIM_TID_NONE, 1);
	ev.commit.root_pfn = 0x10;
	ev.commit.va = UINT64_MAX - 0xfff;
	ev.commit.len = 0x2000;
	expect_invalid(&ev, "commit: range past 2^64");
	ev.commit.len = 0;
	expect_invalid(&ev, "commit len");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(an_event_fits_48_bytes),
	    cmocka_unit_test(every_kind_has_a_name_that_finds_it_back),
	    cmocka_unit_test(events_render_as_text_lines),
	    cmocka_unit_test(the_rules_of_the_struct_comment_are_enforced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
