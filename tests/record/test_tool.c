/* SPDX-License-Identifier: MIT */
/*
 * tlbsim record with tlbsim's own valgrind tool (tools/valgrind/tl_main.c,
 * src/cli/record_merge.c), end to end: tests/record/rec_prog.c, built with
 * the tests, forks, execs and runs threads, and the trace must show what
 * it is known to do (rec_prog.c's comment, the lengths of rec_prog.h), in
 * an order the program's own synchronisation forces.  The merge is also
 * tested alone on parts written by hand, where the order file's order and
 * the expected output are worked out below.  Skipped when the tool was not
 * built (no valgrind).
 */
#include <time.h>

#include "cli/cli_test.h"
#include "record/rec_prog.h"

struct trace {
	struct tlbsim_event *ev;
	size_t n;
};

static void load(const char *path, struct trace *t)
{
	tlbsim_trace_reader *r;
	struct tlbsim_error err;
	struct tlbsim_event ev;
	size_t cap = 0;
	int rc;

	t->ev = NULL;
	t->n = 0;
	tlbsim_error_clear(&err);
	if (tlbsim_trace_open(path, TLBSIM_TRACE_AUTO, &r, &err))
		fail_msg("%s: %s", path, err.text);
	while ((rc = tlbsim_trace_next(r, &ev, &err)) == 1) {
		if (t->n == cap) {
			cap = cap ? 2 * cap : 1 << 16;
			t->ev = realloc(t->ev, cap * sizeof(*t->ev));
			assert_non_null(t->ev);
		}
		t->ev[t->n++] = ev;
	}
	if (rc < 0)
		fail_msg("%s @%lld: %s", err.source, err.offset, err.text);
	tlbsim_trace_close(r);
}

/* The index of the first event at or after @from of @kind by @tid (0: any) passing @ok, or -1. */
static long find(const struct trace *t, size_t from, unsigned kind, uint32_t tid,
		 bool (*ok)(const struct tlbsim_event *))
{
	for (size_t i = from; i < t->n; i++)
		if (t->ev[i].kind == kind && (!tid || t->ev[i].tid == tid) &&
		    (!ok || ok(&t->ev[i])))
			return (long)i;
	return -1;
}

static size_t count(const struct trace *t, unsigned kind)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++)
		n += t->ev[i].kind == kind;
	return n;
}

/* Instructions as compute events (without fetches); not the tool's `compute 0 cycles` placeholders.
 */
static size_t insn_computes(const struct trace *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++)
		n += t->ev[i].kind == TLBSIM_EV_COMPUTE &&
		     t->ev[i].compute.unit == TLBSIM_COMPUTE_INSNS;
	return n;
}

static bool anon_rw(const struct tlbsim_event *e)
{
	return e->mmap.prot == (TLBSIM_PROT_READ | TLBSIM_PROT_WRITE) &&
	       e->mmap.flags == (TLBSIM_MAP_PRIVATE | TLBSIM_MAP_ANON);
}

static bool region_map(const struct tlbsim_event *e)
{
	return e->mmap.len == REGION_LEN && anon_rw(e);
}

static bool thread_map(const struct tlbsim_event *e)
{
	return e->mmap.len == THREAD_LEN && anon_rw(e);
}

static bool handoff_map(const struct tlbsim_event *e)
{
	return e->mmap.len == HANDOFF_LEN && anon_rw(e);
}

static bool exec_map(const struct tlbsim_event *e)
{
	return e->mmap.len == EXEC_LEN && anon_rw(e);
}

static bool tool_built(void)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/valgrind-lib/tlbsim-amd64-linux",
		 getenv("TLBSIM_BINARY_DIR") ? getenv("TLBSIM_BINARY_DIR") : "build");
	return access(path, X_OK) == 0;
}

static const char *rec_prog(void)
{
	static char path[1024];

	snprintf(path, sizeof(path), "%s/tests/rec_prog",
		 getenv("TLBSIM_BINARY_DIR") ? getenv("TLBSIM_BINARY_DIR") : "build");
	return path;
}

/* Pages of [@lo, @lo + @len) that @tid stored to between events @from and @to. */
static size_t pages_stored(const struct trace *t, size_t from, size_t to, uint32_t tid, uint64_t lo,
			   uint64_t len)
{
	uint8_t seen[64] = {0};
	size_t n = 0;

	assert_true(len / 4096 <= sizeof(seen));
	for (size_t i = from; i < to; i++) {
		const struct tlbsim_event *e = &t->ev[i];

		if (e->kind == TLBSIM_EV_STORE && e->tid == tid && e->access.va >= lo &&
		    e->access.va < lo + len && !seen[(e->access.va - lo) / 4096]++)
			n++;
	}
	return n;
}

/*
 * What rec_prog does, checked in the merged trace: parent P, its threads,
 * the forked child C before and after its exec.
 */
static void check_rec_prog(const struct trace *t, bool fetches)
{
	long mp, fk, ex0, pc, mc, ad, wk, sl, mr, um, th[NR_THREADS], tk, hm, hu;
	uint32_t P, C, K;
	uint64_t region;

	/* P is created first; the run makes two images (P, and C's exec), one
	 * fork and NR_THREADS threads; five threads end: P, its two, C before
	 * exec (ended by the exec) and C after it */
	assert_int_equal(t->ev[0].kind, TLBSIM_EV_PROC_CREATE);
	P = t->ev[0].proc_create.pid;
	assert_int_equal(t->ev[0].proc_create.tid, P);
	assert_int_equal(count(t, TLBSIM_EV_PROC_CREATE), 2);
	assert_int_equal(count(t, TLBSIM_EV_FORK), 1);
	assert_int_equal(count(t, TLBSIM_EV_THREAD_CREATE), 1 + NR_THREADS);
	assert_int_equal(count(t, TLBSIM_EV_EXIT), 4 + NR_THREADS);
	assert_int_equal(count(t, TLBSIM_EV_FETCH) > 0, fetches);
	assert_int_equal(insn_computes(t) > 0, !fetches);

	/* the taker K, made first, writes every page of the buffer P maps
	 * after it, and its writes come after a wake from P (the mapping
	 * published to it: no syscall of the program orders them) */
	tk = find(t, 0, TLBSIM_EV_THREAD_CREATE, P, NULL);
	assert_true(tk > 0);
	K = t->ev[tk].thread_create.tid;
	hm = find(t, (size_t)tk, TLBSIM_EV_MMAP, P, handoff_map);
	assert_true(hm > tk);
	hu = find(t, (size_t)hm, TLBSIM_EV_MUNMAP, P, NULL);
	assert_true(hu > hm);
	assert_int_equal(t->ev[hu].munmap.addr, t->ev[hm].mmap.addr);
	assert_int_equal(
	    pages_stored(t, (size_t)hm, (size_t)hu, K, t->ev[hm].mmap.addr, HANDOFF_LEN),
	    HANDOFF_LEN / 4096);
	{
		long w = find(t, (size_t)hm, TLBSIM_EV_WAKE, P, NULL);
		long first_store = -1;

		for (size_t i = (size_t)hm; i < (size_t)hu && first_store < 0; i++)
			if (t->ev[i].kind == TLBSIM_EV_STORE && t->ev[i].tid == K &&
			    t->ev[i].access.va >= t->ev[hm].mmap.addr &&
			    t->ev[i].access.va < t->ev[hm].mmap.addr + HANDOFF_LEN)
				first_store = (long)i;
		assert_true(w > hm && w < first_store);
		assert_int_equal(t->ev[w].wake.tid, K);
		assert_true(find(t, (size_t)w, TLBSIM_EV_SLEEP, K, NULL) < first_store);
	}

	/* P maps its region and writes every page of it before its threads */
	mp = find(t, (size_t)hu, TLBSIM_EV_MMAP, P, region_map);
	assert_true(mp > 0);
	region = t->ev[mp].mmap.addr;
	th[0] = find(t, (size_t)mp, TLBSIM_EV_THREAD_CREATE, P, NULL);
	assert_true(th[0] > mp);
	assert_int_equal(pages_stored(t, (size_t)mp, (size_t)th[0], P, region, REGION_LEN),
			 REGION_LEN / 4096);
	/* each thread maps THREAD_LEN, then unmaps it, then exits; the two are joined before the
	 * fork */
	fk = find(t, 0, TLBSIM_EV_FORK, P, NULL);
	for (int i = 0; i < NR_THREADS; i++) {
		uint32_t T;
		long m, u, x;

		if (i)
			th[i] = find(t, (size_t)th[i - 1] + 1, TLBSIM_EV_THREAD_CREATE, P, NULL);
		assert_true(th[i] > 0);
		T = t->ev[th[i]].thread_create.tid;
		assert_int_not_equal(T, P);
		m = find(t, (size_t)th[i], TLBSIM_EV_MMAP, T, thread_map);
		assert_true(m > th[i]);
		u = find(t, (size_t)m, TLBSIM_EV_MUNMAP, T, NULL);
		assert_true(u > m);
		assert_int_equal(t->ev[u].munmap.addr, t->ev[m].mmap.addr);
		assert_int_equal(t->ev[u].munmap.len, THREAD_LEN);
		x = find(t, (size_t)u, TLBSIM_EV_EXIT, T, NULL);
		assert_true(x > u && x < fk);
		assert_int_equal(
		    pages_stored(t, (size_t)m, (size_t)u, T, t->ev[m].mmap.addr, THREAD_LEN),
		    THREAD_LEN / 4096);
	}

	/* the fork, by P, of C; C mprotects the region, then its exec ends
	 * that image (its thread exits) and starts the new one */
	assert_true(fk > th[NR_THREADS - 1]);
	C = t->ev[fk].fork.pid;
	assert_int_equal(t->ev[fk].fork.tid, C);
	assert_int_not_equal(C, P);
	ex0 = find(t, (size_t)fk, TLBSIM_EV_MPROTECT, C, NULL);
	assert_true(ex0 > fk);
	assert_int_equal(t->ev[ex0].mprotect.addr, region);
	assert_int_equal(t->ev[ex0].mprotect.len, CHILD_PROT_LEN);
	assert_int_equal(t->ev[ex0].mprotect.prot, TLBSIM_PROT_READ);
	pc = find(t, 1, TLBSIM_EV_PROC_CREATE, 0, NULL);
	assert_true(pc > ex0);
	assert_int_equal(t->ev[pc].proc_create.pid, C);
	assert_int_equal(t->ev[pc].proc_create.tid, C);
	assert_true(find(t, (size_t)ex0, TLBSIM_EV_EXIT, C, NULL) < pc);

	/* the exec'd image maps, writes and madvises EXEC_LEN, wakes P, exits */
	mc = find(t, (size_t)pc, TLBSIM_EV_MMAP, C, exec_map);
	assert_true(mc > pc);
	ad = find(t, (size_t)mc, TLBSIM_EV_MADVISE, C, NULL);
	assert_true(ad > mc);
	assert_int_equal(t->ev[ad].madvise.addr, t->ev[mc].mmap.addr);
	assert_int_equal(t->ev[ad].madvise.len, EXEC_LEN);
	assert_int_equal(t->ev[ad].madvise.advice, TLBSIM_MADV_DONTNEED);
	assert_int_equal(pages_stored(t, (size_t)mc, (size_t)ad, C, t->ev[mc].mmap.addr, EXEC_LEN),
			 EXEC_LEN / 4096);
	wk = find(t, (size_t)ad, TLBSIM_EV_WAKE, C, NULL);
	assert_true(wk > ad);
	assert_int_equal(t->ev[wk].wake.tid, P);
	assert_int_equal(t->ev[wk + 1].kind, TLBSIM_EV_EXIT);
	assert_int_equal(t->ev[wk + 1].tid, C);

	/* P's waitpid() returns after that: sleep, then its mremap and munmap, and its exit ends
	 * the trace */
	sl = find(t, (size_t)wk, TLBSIM_EV_SLEEP, P, NULL);
	assert_true(sl > wk);
	mr = find(t, (size_t)fk, TLBSIM_EV_MREMAP, P, NULL);
	assert_true(mr > sl);
	assert_int_equal(t->ev[mr].mremap.old_addr, region);
	assert_int_equal(t->ev[mr].mremap.old_len, REGION_LEN);
	assert_int_equal(t->ev[mr].mremap.new_len, REMAP_LEN);
	assert_int_equal(t->ev[mr].mremap.flags, TLBSIM_MREMAP_MAYMOVE);
	um = find(t, (size_t)mr, TLBSIM_EV_MUNMAP, P, NULL);
	assert_true(um > mr);
	assert_int_equal(t->ev[um].munmap.addr, t->ev[mr].mremap.new_addr);
	assert_int_equal(t->ev[um].munmap.len, REMAP_LEN);
	assert_int_equal(t->ev[t->n - 1].kind, TLBSIM_EV_EXIT);
	assert_int_equal(t->ev[t->n - 1].tid, P);
}

/* Replays @path on generic-x86-64: every access lands in a mapping, every thread was made. */
static void replays_cleanly(const char *dir, const char *path)
{
	char json[600], cmd[4096], *text;
	size_t size;

	snprintf(json, sizeof(json), "%s/run.json", dir);
	snprintf(cmd, sizeof(cmd), "%s run --machine generic-x86-64 --quiet --json %s %s",
		 tlbsim_bin(), json, path);
	assert_int_equal(system(cmd), 0);
	text = read_all(json, &size);
	/* the startup mappings (executable, loader, stack) make every access valid */
	assert_non_null(strstr(text, "\"segv\": 0,"));
	assert_non_null(strstr(text, "\"unknown_thread_events\": 0,"));
	free(text);
}

static void rec_prog_forks_execs_and_runs_threads(void **state)
{
	char out[600];
	struct trace t;
	char *argv[] = {(char *)tlbsim_bin(), "record", "-o", out, "--", (char *)rec_prog(), NULL};

	if (!tool_built())
		skip();
	snprintf(out, sizeof(out), "%s/rec.tlbt.zst", (char *)*state);
	assert_int_equal(run(argv), 0);
	assert_false(has_file_starting(*state, "rec.tlbt.zst.")); /* no temporary, no parts left */
	load(out, &t);
	check_rec_prog(&t, true);
	free(t.ev);
	replays_cleanly(*state, out);
}

static void without_fetches_instructions_become_compute(void **state)
{
	char out[600];
	struct trace t;
	char *argv[] = {(char *)tlbsim_bin(), "record", "--fetches", "no",
			"--switches",	      "-o",	out,	     "--",
			(char *)rec_prog(),   NULL};
	uint64_t insns = 0;
	size_t switches = 0;

	if (!tool_built())
		skip();
	snprintf(out, sizeof(out), "%s/nofetch.tlbt", (char *)*state);
	assert_int_equal(run(argv), 0);
	load(out, &t);
	check_rec_prog(&t, false);
	for (size_t i = 0; i < t.n; i++) {
		/* instructions, or the tool's placeholders (FORMAT.md) that stayed 0 cycles */
		if (t.ev[i].kind == TLBSIM_EV_COMPUTE &&
		    t.ev[i].compute.unit == TLBSIM_COMPUTE_INSNS)
			insns += t.ev[i].compute.count;
		else if (t.ev[i].kind == TLBSIM_EV_COMPUTE)
			assert_int_equal(t.ev[i].compute.count, 0);
		if (t.ev[i].kind == TLBSIM_EV_SWITCH) {
			switches++;
			assert_true(t.ev[i].cpu < 4096); /* a host cpu (getcpu) */
		} else if (t.ev[i].kind == TLBSIM_EV_LOAD) {
			assert_int_equal(t.ev[i].cpu,
					 TLBSIM_CPU_ANY); /* the switch's cpu is not kept */
		}
	}
	/* ld.so alone runs tens of thousands of instructions per image */
	assert_true(insns > 20000);
	/* at least: each image's first thread, and every thread when it starts */
	assert_true(switches >= 3 + NR_THREADS);
	free(t.ev);
}

/* ---- the merge alone ----------------------------------------------------------- */

static void write_part(const char *dir, const char *name, const char *text)
{
	char path[1024], txt[1024];
	tlbsim_trace_reader *r;
	tlbsim_trace_writer *w;
	struct tlbsim_trace_info info;
	struct tlbsim_event ev;

	snprintf(txt, sizeof(txt), "%s/%s.txt", dir, name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	write_text_file(txt, text);
	assert_int_equal(tlbsim_trace_open(txt, TLBSIM_TRACE_AUTO, &r, NULL), 0);
	info = *tlbsim_trace_info(r);
	assert_int_equal(tlbsim_trace_writer_open(path, TLBSIM_TRACE_BINARY, TLBSIM_COMPRESS_NONE,
						  &info, &w, NULL),
			 0);
	while (tlbsim_trace_next(r, &ev, NULL) == 1)
		assert_int_equal(tlbsim_trace_writer_write(w, &ev, NULL), 0);
	assert_int_equal(tlbsim_trace_writer_close(w, NULL), 0);
	tlbsim_trace_close(r);
	unlink(txt);
}

static void order(FILE *f, uint32_t pid, uint32_t seq, uint32_t events)
{
	uint32_t rec[4] = {pid, seq, events, 0}; /* little-endian host (x86-64) */

	assert_int_equal(fwrite(rec, sizeof(rec), 1, f), 1);
}

/*
 * Parts: 10.0 the parent (creates itself, a thread 11 that blocks and is
 * woken, forks 20, waits for it, exits); 20.0 the child until its exec;
 * 20.1 the exec'd image.  The order file lists the child's first chunk
 * *before* the parent's chunk holding the fork (the child wrote first),
 * which the merge must hold back.
 */
static void merge_keeps_the_lifecycle_rules(void **state)
{
	const char *dir = *state;
	char parts[600], out[600], path[1024];
	char **lines;
	size_t n;
	FILE *f;

	snprintf(parts, sizeof(parts), "%s/parts", dir);
	mkdir(parts, 0755);
	write_part(parts, "10.0",
		   "tlbsim-trace 1 isa=x86-64 page_shift=12\n"
		   "proc_create 10 10\n" /* chunk 1: 3 events */
		   "T10 mmap 0x10000 0x1000 rw- private,anon\n"
		   "T10 thread_create 11\n"
		   "T11 wake 10\n" /* chunk 2: 3 events */
		   "T10 sleep\n"
		   "T10 fork 20 20\n"
		   "T10 sleep\n" /* chunk 3: 3 events: after wait4 */
		   "T10 sleep\n" /* no wake allows this one */
		   "T10 exit\n");
	write_part(parts, "20.0",
		   "tlbsim-trace 1 isa=x86-64 page_shift=12\n"
		   "T20 store 0x10000 8\n" /* 2 events: before the exec */
		   "T20 mprotect 0x10000 0x1000 r--\n");
	write_part(parts, "20.1",
		   "tlbsim-trace 1 isa=x86-64 page_shift=12\n"
		   "proc_create 20 20\n" /* 4 events */
		   "T20 wake 10\n"
		   "T20 wake 999\n" /* the recording's parent: not traced */
		   "T20 exit\n");
	snprintf(path, sizeof(path), "%s/order", parts);
	f = fopen(path, "wb");
	assert_non_null(f);
	order(f, 10, 0, 3);
	order(f, 20, 0, 2); /* before its fork */
	order(f, 10, 0, 3);
	order(f, 20, 1, 4);
	order(f, 10, 0, 3);
	fclose(f);

	snprintf(out, sizeof(out), "%s/merged.txt", dir);
	char *argv[] = {
	    (char *)tlbsim_bin(), "record", "-o", out, "--format", "text", "--merge", parts, NULL};
	assert_int_equal(run(argv), 0);
	lines = trace_lines(out, &n);
	const char *want[] = {
	    "proc_create 10 10", "T10 mmap 0x10000 0x1000 rw- private,anon", "T10 thread_create 11",
	    "T11 wake 10", "T10 sleep", "T10 fork 20 20",
	    /* the child's held-back chunk, right after the fork's */
	    "T20 store 0x10000 8", "T20 mprotect 0x10000 0x1000 r--",
	    /* the exec: the old image's thread ends first */
	    "T20 exit", "proc_create 20 20", "T20 wake 10", "T20 exit",
	    /* wake 999 dropped; the first sleep takes 20's wake, the second none: dropped */
	    "T10 sleep", "T10 exit"};
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++)
		assert_string_equal(lines[i], want[i]);
	free_lines(lines, n);
}

/* A part shorter than the order file says: an error naming the part, exit 2. */
static void merge_of_a_cut_part_fails_naming_it(void **state)
{
	char parts[600], out[600], path[1024], cmd[4096];
	FILE *f;

	snprintf(parts, sizeof(parts), "%s/parts", (char *)*state);
	mkdir(parts, 0755);
	write_part(parts, "7.0",
		   "tlbsim-trace 1 isa=x86-64 page_shift=12\nproc_create 7 7\nT7 exit\n");
	snprintf(path, sizeof(path), "%s/order", parts);
	f = fopen(path, "wb");
	order(f, 7, 0, 5);
	fclose(f);
	snprintf(out, sizeof(out), "%s/m.tlbt", (char *)*state);
	snprintf(cmd, sizeof(cmd), "%s record -o %s --merge %s 2>%s/err.txt", tlbsim_bin(), out,
		 parts, (char *)*state);
	assert_int_equal(WEXITSTATUS(system(cmd)), 2);
	snprintf(path, sizeof(path), "%s/err.txt", (char *)*state);
	{
		size_t size;
		char *text = read_all(path, &size);

		assert_non_null(strstr(text, "/7.0"));
		free(text);
	}
}

/* ---- stopping ------------------------------------------------------------------- */

/*
 * A shell that forks a child shell, each running sleep, all ignoring
 * SIGINT and SIGTERM (ignored signals stay ignored across exec): after
 * SIGINT, SIGTERM and SIGKILL 2 s apart, every process of the run is gone
 * (they are in tlbsim's process group), and the trace of what was recorded
 * is valid.
 */
static void stopping_reaches_every_process(void **state)
{
	char out[600];
	char *argv[] = {(char *)tlbsim_bin(),
			"record",
			"-o",
			out,
			"--",
			"/bin/sh",
			"-c",
			"trap '' INT TERM; sh -c 'sleep 60' & sleep 60; wait",
			NULL};
	uint32_t pids[16];
	size_t nr = 0;
	struct trace t;
	pid_t pid;

	if (!tool_built())
		skip();
	snprintf(out, sizeof(out), "%s/stop.tlbt", (char *)*state);
	pid = spawn(argv, 1);
	sleep(4); /* valgrind starts the shells and both sleeps */
	kill(pid, SIGINT);
	assert_int_equal(wait_status(pid), 130);
	assert_false(has_file_starting(*state, "stop.tlbt."));
	load(out, &t);
	assert_int_equal(t.ev[0].kind, TLBSIM_EV_PROC_CREATE);
	for (size_t i = 0; i < t.n && nr < 16; i++)
		if (t.ev[i].kind == TLBSIM_EV_FORK)
			pids[nr++] = t.ev[i].fork.pid;
	pids[nr++] = t.ev[0].proc_create.pid;
	free(t.ev);
	assert_true(nr >= 3); /* the shells forked the child shell and the sleeps */
	for (size_t i = 0; i < nr; i++) {
		int tries = 0;

		/* killed; a zombie until its new parent reaps it */
		while (kill((pid_t)pids[i], 0) == 0 && tries++ < 50)
			nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
		assert_int_equal(kill((pid_t)pids[i], 0), -1);
	}
}

static void usage_errors_exit_with_2(void **state)
{
	char *bad_via[] = {(char *)tlbsim_bin(), "record", "--via", "pin", "-o", "x.tlbt", "--",
			   "/bin/true",		 NULL};
	char *bad_fetches[] = {
	    (char *)tlbsim_bin(), "record", "--fetches", "maybe", "-o", "x.tlbt", "--",
	    "/bin/true",	  NULL};
	char *lackey_nofetch[] = {(char *)tlbsim_bin(),
				  "record",
				  "--via",
				  "lackey",
				  "--fetches",
				  "no",
				  "-o",
				  "x.tlbt",
				  "--",
				  "/bin/true",
				  NULL};

	(void)state;
	assert_int_equal(wait_status(spawn(bad_via, 1)), 2);
	assert_int_equal(wait_status(spawn(bad_fetches, 1)), 2);
	assert_int_equal(wait_status(spawn(lackey_nofetch, 1)), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(rec_prog_forks_execs_and_runs_threads, tmpdir_setup,
					    tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(without_fetches_instructions_become_compute,
					    tmpdir_setup, tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(merge_keeps_the_lifecycle_rules, tmpdir_setup,
					    tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(merge_of_a_cut_part_fails_naming_it, tmpdir_setup,
					    tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(stopping_reaches_every_process, tmpdir_setup,
					    tmpdir_teardown),
	    cmocka_unit_test(usage_errors_exit_with_2),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
