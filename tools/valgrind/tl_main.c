/* SPDX-License-Identifier: MIT */
/*
 * tlbsim's valgrind tool: records a program's memory accesses, threads,
 * processes and memory syscalls straight into tlbsim's native binary trace
 * format (traces/FORMAT.md, "Binary format"), buffered, with the compact
 * encoding: an access is 2 to 4 bytes and costs one helper call, where
 * lackey formats a line of text.
 *
 *   VALGRIND_LIB=DIR valgrind --tool=tlbsim --tlbsim-dir=OUT [--fetches=no]
 *       [--switches=yes] --trace-children=yes PROGRAM ARGS...
 *
 * DIR holds this tool (tlbsim-amd64-linux) beside valgrind's own files
 * (vgpreload_core-amd64-linux.so, default.supp): `tlbsim record` sets it
 * up, see tools/valgrind/README.md.
 *
 * Processes.  Every process valgrind runs (the program, each fork, each
 * exec under --trace-children=yes) writes its own *part*, OUT/PID.SEQ, a
 * native trace of its events (SEQ tells apart the images one pid runs by
 * exec, and pids the kernel reuses).  Parts are written a buffer at a time
 * (a *chunk*); after each chunk the process appends one 16-byte record
 * (pid, seq, events, bytes; little-endian) to OUT/order, opened O_APPEND:
 * appends of whole records are atomic, so OUT/order is the order in which
 * the processes' chunks were written.  `tlbsim record` merges the parts in
 * that order into one trace afterwards (src/cli/record_merge.c), which also
 * holds back a child's chunks until its parent's fork event is out.
 *
 * Events, by the thread that performs them (Linux tids):
 *   proc_create PID PID   when a process image starts (the program, or an
 *                         exec: the merge ends the old image's threads);
 *   mmap                  every client mapping the image starts with (the
 *                         executable, ld.so, the stack and the reservation
 *                         it grows into, the vdso), then every syscall's;
 *   fetch/load/store      per instruction: its fetch, loads, stores, in
 *                         order (valgrind IR: loads, stores, guarded ones,
 *                         CAS, LL/SC, dirty helpers' memory effects);
 *   compute N insns       with --fetches=no: the instructions between
 *                         accesses, once 32 have gathered and before any
 *                         other event, so simulated time still passes;
 *   mmap, munmap, mprotect, madvise (DONTNEED, FREE), mremap, brk
 *                         on success (traces/linux_abi.h);
 *   thread_create T       clone with CLONE_THREAD, by the parent;
 *   fork C C              fork, vfork, clone without CLONE_THREAD, by the
 *                         parent; the child's part continues as tid C;
 *   wake T / sleep        happens-before edges, since on replay a process's
 *                         threads run concurrently, ordered by these only:
 *                         T blocked in a syscall (another thread ran before
 *                         it returned): `wake T` by the thread that ran
 *                         last (even one that just exited: a join), then
 *                         `sleep` by T, as the lackey reader does; T runs
 *                         after another thread changed the mappings (see
 *                         map_gen): `wake T` by a thread ordered after the
 *                         change; across processes, `wake PPID` before a
 *                         process's last exit and `sleep` after a wait4()
 *                         that reaped a child (the merge drops an edge whose
 *                         other end is not in the trace);
 *   switch                with --switches=yes only: thread T runs on host
 *                         cpu N (getcpu) whenever valgrind switches to it.
 *                         Off by default: valgrind runs one thread of a
 *                         process at a time, so the host's placement says
 *                         nothing of the program's parallelism, and a
 *                         switch pins a thread on replay;
 *   exit                  a thread's last event.
 *
 * The tool links only against valgrind's core (no libc); the format's
 * codecs and event numbers come from traces/native.h and tlbsim/event.h,
 * the Linux flag translation from traces/linux_abi.h, shared with the
 * library.
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

#include "linux_abi.h"
#include "native.h"

/* Core functions without a pub_tool_ declaration (pub_core_libcfile.h,
 * pub_core_syscall.h): move an fd out of the client's reach (and
 * close-on-exec), and a raw syscall. */
extern Int VG_(safe_fd)(Int oldfd);
extern SysRes VG_(do_syscall)(UWord sysno, RegWord, RegWord, RegWord, RegWord, RegWord, RegWord,
			      RegWord, RegWord);

/* Bytes of a chunk: written when the buffer holds more than this. */
#define CHUNK_BYTES (256 * 1024)
/* Room past CHUNK_BYTES: a compute record and the longest record after it. */
#define BUF_SLACK (4 * NATIVE_RECORD_MAX)
/* Instructions gathered before a compute event (--fetches=no). */
#define COMPUTE_BATCH 32
/* Bytes of an OUT/order record: pid, seq, events, bytes (u32 each, LE). */
#define ORDER_RECORD 16

/* ---- options ------------------------------------------------------------- */

static const HChar *clo_dir;
static Bool clo_fetches = True;
static Bool clo_switches = False;

/* ---- the part being written ----------------------------------------------- */

static UChar *buf;
static UInt buf_len;
static UInt chunk_events;
static ULong part_events; /* in the part's chunks so far, for its end record */
static Int part_fd = -1, order_fd = -1;
static UInt part_pid, part_seq;

/* Instructions run since the last event (--fetches=no); IR adds to it. */
static ULong insns_pending;

/*
 * Per Linux tid, the last address written (the format's delta base, kept
 * per tid exactly as a reader keeps it for the whole part): open
 * addressing on tid, looked up only when the thread changes.
 */
struct last_va {
	UInt tid; /* 0: free */
	ULong va;
};
static struct last_va *lv;
static UInt lv_mask, lv_nr;

static UInt cur_tid; /* tid of the records being written; 0 = TLBSIM_TID_NONE */
/*
 * A thread's exit is written when the next record of another thread is,
 * so that a thread blocked until this one exited (pthread_join(): a futex
 * the kernel wakes at the exit, CLONE_CHILD_CLEARTID) can still get its
 * `wake` from it, before the `exit` (tl_post_syscall()).
 */
static UInt exit_pending;
static ULong cur_last;	 /* its last address, written back on a switch */
static Bool tid_pending; /* the next record carries the tid */

/* ---- valgrind threads -------------------------------------------------------- */

struct vthread {
	UInt lwpid;   /* Linux tid, 0 until it runs */
	Bool live;    /* created and not exited */
	ULong sys_at; /* run_seq when its syscall started */
	ULong seen;   /* map_gen its events from now on are ordered after */
};
static struct vthread *vth;  /* by valgrind ThreadId, VG_N_THREADS of them */
static ThreadId last_runner; /* the thread that ran client code last */
static ThreadId new_thread;  /* made by the clone() in progress; its tid comes with the result */
static ULong run_seq;	     /* counts changes of the running thread */
/*
 * Mapping changes made by a thread must happen, on replay, before the
 * accesses other threads make after them in valgrind's order: a thread
 * uses memory another mapped (glibc hands an arena or a stack from thread
 * to thread under a lock no syscall shows).  map_gen counts the changes
 * (successful mmap, munmap, mprotect, mremap, brk, madvise with an event);
 * a thread that runs when changes it has not seen were made first gets a
 * `wake` from a thread that has seen them all (publisher), and `sleep`s:
 * one edge per switch after changes, not per access.
 */
static ULong map_gen;
static ThreadId publisher;

/* ---- output ---------------------------------------------------------------- */

static void die(const HChar *what, const HChar *path, Int err)
{
	VG_(umsg)("tlbsim: %s %s failed (errno %d): recording cut\n", what, path, err);
	VG_(exit)(1);
}

static void write_all(Int fd, const void *p, UInt n, const HChar *what)
{
	const UChar *b = p;

	while (n) {
		Int w = VG_(write)(fd, b, (Int)n);

		if (w == -VKI_EINTR)
			continue;
		if (w <= 0)
			die(what, clo_dir, w < 0 ? -w : 0);
		b += w;
		n -= (UInt)w;
	}
}

static void emit_exit_pending(void);

/* Write the buffer as a chunk of the part, then its record in OUT/order. */
static void flush(void)
{
	UChar rec[ORDER_RECORD];
	UInt v[4] = {part_pid, part_seq, chunk_events, buf_len};

	if (exit_pending)
		emit_exit_pending();
	if (part_fd < 0 || (!buf_len && !chunk_events))
		return;
	write_all(part_fd, buf, buf_len, "writing a part in");
	for (Int i = 0; i < 4; i++)
		for (Int b = 0; b < 4; b++)
			rec[4 * i + b] = (UChar)(v[i] >> (8 * b));
	write_all(order_fd, rec, sizeof(rec), "appending to the order file in");
	part_events += chunk_events;
	buf_len = 0;
	chunk_events = 0;
}

static Int open_safe(const HChar *path, Int flags, const HChar *what)
{
	SysRes r = VG_(open)(path, flags, 0644);

	if (sr_isError(r)) {
		if (sr_Err(r) == VKI_EEXIST && (flags & VKI_O_EXCL))
			return -2;
		die(what, path, (Int)sr_Err(r));
	}
	return VG_(safe_fd)((Int)sr_Res(r));
}

/* ---- per-tid delta bases -------------------------------------------------------- */

static UInt lv_slot(UInt tid)
{
	UInt i = (tid * 2654435761u) & lv_mask; /* Knuth's multiplicative hash */

	while (lv[i].tid && lv[i].tid != tid)
		i = (i + 1) & lv_mask;
	return i;
}

static ULong *lv_get(UInt tid)
{
	UInt i = lv_slot(tid);

	if (!lv[i].tid) {
		if (2 * (lv_nr + 1) > lv_mask + 1) {
			struct last_va *old = lv;
			UInt old_mask = lv_mask;

			lv_mask = 2 * lv_mask + 1;
			lv = VG_(calloc)("tlbsim.lv", lv_mask + 1, sizeof(*lv));
			for (UInt j = 0; j <= old_mask; j++)
				if (old[j].tid)
					lv[lv_slot(old[j].tid)] = old[j];
			VG_(free)(old);
			i = lv_slot(tid);
		}
		lv[i].tid = tid;
		lv[i].va = 0;
		lv_nr++;
	}
	return &lv[i].va;
}

static void lv_reset(void)
{
	if (lv)
		VG_(free)(lv);
	lv_mask = 63;
	lv_nr = 0;
	lv = VG_(calloc)("tlbsim.lv", lv_mask + 1, sizeof(*lv));
}

/* ---- records ----------------------------------------------------------------- */

static void emit_compute(void);

/* Events from now on are @tid's (0: none).  Pending instructions are the previous thread's. */
static void set_thread(UInt tid)
{
	if (exit_pending && tid != exit_pending)
		emit_exit_pending();
	if (tid == cur_tid)
		return;
	if (insns_pending)
		emit_compute();
	if (cur_tid)
		*lv_get(cur_tid) = cur_last;
	cur_tid = tid;
	cur_last = tid ? *lv_get(tid) : 0;
	tid_pending = True;
}

/* The opcode (with the tid when it changed) of a record at the end of the buffer. */
static inline UChar *rec_start(UChar op)
{
	UChar *p = buf + buf_len;

	if (LIKELY(!tid_pending)) {
		*p++ = op;
		return p;
	}
	*p++ = op | NATIVE_OP_TID;
	tid_pending = False;
	return native_put_varint(p, cur_tid);
}

static inline UChar *put_va(UChar *p, ULong va)
{
	p = native_put_varint(p, native_zigzag(va - cur_last));
	cur_last = va;
	return p;
}

static inline void rec_end(UChar *p)
{
	buf_len = (UInt)(p - buf);
	chunk_events++;
	if (UNLIKELY(buf_len > CHUNK_BYTES))
		flush();
}

/* A generic event: every field as a varint but those marked in @va_mask (zigzag deltas). */
static void emit(UInt kind, UInt nr, const ULong *f, UInt va_mask)
{
	UChar *p = rec_start((UChar)kind);

	for (UInt i = 0; i < nr; i++)
		p = (va_mask >> i & 1) ? put_va(p, f[i]) : native_put_varint(p, f[i]);
	rec_end(p);
}

static void emit_exit_pending(void)
{
	UInt tid = exit_pending;

	exit_pending = 0;
	set_thread(tid);
	emit(TLBSIM_EV_EXIT, 0, NULL, 0);
}

static void emit_compute(void)
{
	ULong f[2] = {insns_pending, TLBSIM_COMPUTE_INSNS};

	insns_pending = 0;
	emit(TLBSIM_EV_COMPUTE, 2, f, 0);
}

static void emit_mmap(ULong addr, ULong len, UInt prot, UInt flags)
{
	ULong f[4] = {addr, len, prot, flags};

	if (len)
		emit(TLBSIM_EV_MMAP, 4, f, 1);
}

/* ---- the helpers the instrumented code calls ------------------------------------ */

/* A compact access: @op = 0x40 | (kind - 1) << 3 | log2(size). */
static VG_REGPARM(2) void h_access(UWord op, Addr a)
{
	if (UNLIKELY(insns_pending >= COMPUTE_BATCH))
		emit_compute();
	rec_end(put_va(rec_start((UChar)op), a));
}

/* An access of a size the compact form cannot hold (3, 6, 512 bytes ...). */
static VG_REGPARM(3) void h_access_n(UWord kind, Addr a, UWord size)
{
	ULong f[2] = {a, size};

	if (UNLIKELY(insns_pending >= COMPUTE_BATCH))
		emit_compute();
	emit((UInt)kind, 2, f, 1);
}

/* ---- instrumentation ---------------------------------------------------------- */

/* Add the instructions counted so far to insns_pending (inline IR: load, add, store). */
static void add_insns(IRSB *sb, UInt *n)
{
	IRTemp t1, t2;
	IRExpr *at = mkIRExpr_HWord((HWord)&insns_pending);

	if (!*n)
		return;
	t1 = newIRTemp(sb->tyenv, Ity_I64);
	t2 = newIRTemp(sb->tyenv, Ity_I64);
	addStmtToIRSB(sb, IRStmt_WrTmp(t1, IRExpr_Load(Iend_LE, Ity_I64, at)));
	addStmtToIRSB(sb, IRStmt_WrTmp(t2, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(t1),
							IRExpr_Const(IRConst_U64(*n)))));
	addStmtToIRSB(sb, IRStmt_Store(Iend_LE, at, IRExpr_RdTmp(t2)));
	*n = 0;
}

/* A call recording an access of @kind at @addr (an IR atom), taken when @guard (or NULL). */
static void add_access(IRSB *sb, UInt *n, UInt kind, IRExpr *addr, Int size, IRExpr *guard)
{
	IRDirty *di;

	if (size <= 0)
		return;
	add_insns(sb, n);
	if (size <= 128 && !(size & (size - 1))) {
		UWord op = NATIVE_OP_ACCESS | (kind - 1) << 3 | (UWord)__builtin_ctz((UInt)size);

		di = unsafeIRDirty_0_N(2, "tlbsim_access", VG_(fnptr_to_fnentry)(h_access),
				       mkIRExprVec_2(mkIRExpr_HWord(op), addr));
	} else {
		di = unsafeIRDirty_0_N(
		    3, "tlbsim_access_n", VG_(fnptr_to_fnentry)(h_access_n),
		    mkIRExprVec_3(mkIRExpr_HWord(kind), addr, mkIRExpr_HWord((HWord)size)));
	}
	if (guard)
		di->guard = guard;
	addStmtToIRSB(sb, IRStmt_Dirty(di));
}

static IRSB *tl_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
			   const VexGuestExtents *vge, const VexArchInfo *archinfo_host,
			   IRType gWordTy, IRType hWordTy)
{
	IRSB *sb = deepCopyIRSBExceptStmts(in);
	IRTypeEnv *te = in->tyenv;
	UInt n = 0; /* instructions not yet added to insns_pending */
	Int i = 0;

	if (gWordTy != hWordTy)
		VG_(tool_panic)("tlbsim: host and guest word sizes differ");
	/* The preamble before the first IMark is not guest code. */
	for (; i < in->stmts_used && in->stmts[i]->tag != Ist_IMark; i++)
		addStmtToIRSB(sb, in->stmts[i]);
	for (; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		if (!st || st->tag == Ist_NoOp)
			continue;
		switch (st->tag) {
		case Ist_IMark:
			if (clo_fetches)
				add_access(sb, &n, TLBSIM_EV_FETCH,
					   mkIRExpr_HWord((HWord)st->Ist.IMark.addr),
					   (Int)st->Ist.IMark.len, NULL);
			else
				n++;
			break;
		case Ist_WrTmp:
			if (st->Ist.WrTmp.data->tag == Iex_Load) {
				IRExpr *e = st->Ist.WrTmp.data;

				add_access(sb, &n, TLBSIM_EV_LOAD, e->Iex.Load.addr,
					   sizeofIRType(e->Iex.Load.ty), NULL);
			}
			break;
		case Ist_Store:
			add_access(sb, &n, TLBSIM_EV_STORE, st->Ist.Store.addr,
				   sizeofIRType(typeOfIRExpr(te, st->Ist.Store.data)), NULL);
			break;
		case Ist_StoreG: {
			IRStoreG *g = st->Ist.StoreG.details;

			add_access(sb, &n, TLBSIM_EV_STORE, g->addr,
				   sizeofIRType(typeOfIRExpr(te, g->data)), g->guard);
			break;
		}
		case Ist_LoadG: {
			IRLoadG *g = st->Ist.LoadG.details;
			IRType res, arg;

			typeOfIRLoadGOp(g->cvt, &res, &arg);
			add_access(sb, &n, TLBSIM_EV_LOAD, g->addr, sizeofIRType(arg), g->guard);
			break;
		}
		case Ist_Dirty: {
			IRDirty *d = st->Ist.Dirty.details;

			if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
				add_access(sb, &n, TLBSIM_EV_LOAD, d->mAddr, d->mSize, NULL);
			if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
				add_access(sb, &n, TLBSIM_EV_STORE, d->mAddr, d->mSize, NULL);
			break;
		}
		case Ist_CAS: {
			IRCAS *c = st->Ist.CAS.details;
			Int size = sizeofIRType(typeOfIRExpr(te, c->dataLo)) * (c->dataHi ? 2 : 1);

			add_access(sb, &n, TLBSIM_EV_LOAD, c->addr, size, NULL);
			add_access(sb, &n, TLBSIM_EV_STORE, c->addr, size, NULL);
			break;
		}
		case Ist_LLSC:
			if (!st->Ist.LLSC.storedata)
				add_access(sb, &n, TLBSIM_EV_LOAD, st->Ist.LLSC.addr,
					   sizeofIRType(typeOfIRTemp(te, st->Ist.LLSC.result)),
					   NULL);
			else
				add_access(sb, &n, TLBSIM_EV_STORE, st->Ist.LLSC.addr,
					   sizeofIRType(typeOfIRExpr(te, st->Ist.LLSC.storedata)),
					   NULL);
			break;
		case Ist_Exit:
			add_insns(sb, &n); /* a side exit leaves the instructions so far */
			break;
		default:
			break;
		}
		addStmtToIRSB(sb, st);
	}
	add_insns(sb, &n);
	return sb;
}

/* ---- processes ------------------------------------------------------------------- */

/* Start a new part for this process: OUT/PID.SEQ with the first free SEQ. */
static void part_open(void)
{
	HChar path[4096];
	UChar *p;
	Int fd = -2;

	part_pid = (UInt)VG_(getpid)();
	for (part_seq = 0; fd == -2; part_seq++) {
		VG_(snprintf)(path, sizeof(path), "%s/%u.%u", clo_dir, part_pid, part_seq);
		fd = open_safe(path, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_EXCL, "creating");
	}
	part_seq--;
	part_fd = fd;
	buf_len = 0;
	chunk_events = 0;
	part_events = 0;
	lv_reset();
	cur_tid = 0;
	cur_last = 0;
	tid_pending = False;
	insns_pending = 0;
	exit_pending = 0;
	/* The header (FORMAT.md): magic, version 1, x86-64, 4 KiB pages, threads unknown, no
	 * source. */
	p = buf;
	VG_(memcpy)(p, NATIVE_MAGIC, NATIVE_MAGIC_LEN);
	p += NATIVE_MAGIC_LEN;
	*p++ = 1;
	*p++ = 0;
	*p++ = TLBSIM_ISA_X86_64;
	*p++ = 12;
	for (Int i = 0; i < 6; i++)
		*p++ = 0;
	buf_len = (UInt)(p - buf);
}

/*
 * The client mappings an image starts with, each segment once (valgrind
 * also reports its signal-return trampoline inside a page it reported):
 * the main stack with the reservation below it, into which it grows as
 * Linux's stack VMA does; not the page valgrind keeps at the initial break
 * (with a reservation above it), as Linux maps the heap only when brk()
 * grows it.
 */
#define STARTUP_SEGS 64
static Addr startup_seen[STARTUP_SEGS];
static UInt nr_startup_seen;

static void tl_new_mem_startup(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di_handle)
{
	NSegment const *seg = VG_(am_find_nsegment)(a), *next;
	UInt prot = (rr ? TLBSIM_PROT_READ : 0) | (ww ? TLBSIM_PROT_WRITE : 0) |
		    (xx ? TLBSIM_PROT_EXEC : 0);
	UInt flags = TLBSIM_MAP_PRIVATE | TLBSIM_MAP_FIXED;
	Addr end;

	if (!seg || !(seg->kind & (SkAnonC | SkFileC | SkShmC)))
		return;
	for (UInt i = 0; i < nr_startup_seen; i++)
		if (startup_seen[i] == seg->start)
			return;
	if (nr_startup_seen < STARTUP_SEGS)
		startup_seen[nr_startup_seen++] = seg->start;
	a = seg->start;
	end = seg->end;
	if (seg->kind == SkAnonC) {
		flags |= TLBSIM_MAP_ANON;
		next = VG_(am_find_nsegment)(end + 1);
		if (next && next->kind == SkResvn && next->smode == SmLower)
			return; /* the initial break */
		next = a ? VG_(am_find_nsegment)(a - 1) : NULL;
		if (next && next->kind == SkResvn && next->smode == SmUpper)
			a = next->start; /* the main stack's room to grow */
	}
	if (seg->kind == SkShmC)
		flags = TLBSIM_MAP_SHARED | TLBSIM_MAP_FIXED;
	set_thread(part_pid);
	emit_mmap(a, end - a + 1, prot, flags);
}

static void tl_post_clo_init(void)
{
	if (!clo_dir || clo_dir[0] != '/') {
		VG_(fmsg_bad_option)("--tlbsim-dir", "an absolute directory expected\n");
	}
	buf = VG_(malloc)("tlbsim.buf", CHUNK_BYTES + BUF_SLACK);
	vth = VG_(calloc)("tlbsim.threads", VG_N_THREADS, sizeof(*vth));
	{
		HChar path[4096];

		VG_(snprintf)(path, sizeof(path), "%s/order", clo_dir);
		order_fd = open_safe(path, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_APPEND, "opening");
	}
	part_open();
	vth[1].lwpid = part_pid;
	vth[1].live = True;
	last_runner = 1;
	{
		ULong f[2] = {part_pid, part_pid};

		set_thread(0); /* proc_create is performed by no thread */
		emit(TLBSIM_EV_PROC_CREATE, 2, f, 0);
	}
}

static void tl_fork_pre(ThreadId tid)
{
	if (insns_pending)
		emit_compute();
	flush();
}

/* The child of a fork: a part of its own; only the forking thread lives on. */
static void tl_fork_child(ThreadId tid)
{
	VG_(close)(part_fd);
	part_open();
	for (UInt i = 0; i < VG_N_THREADS; i++)
		vth[i].live = False;
	vth[tid].lwpid = (UInt)VG_(gettid)();
	vth[tid].live = True;
	vth[tid].seen = map_gen = 0;
	publisher = tid;
	last_runner = tid;
	set_thread(vth[tid].lwpid);
}

/*
 * Thread @tid's exit.  Before the last of the process: `wake PPID`, as
 * the parent's wait4() returns only after it.
 */
static void thread_gone(ThreadId tid)
{
	UInt others = 0;

	if (!vth[tid].live)
		return;
	vth[tid].live = False;
	if (!vth[tid].lwpid)
		return;
	for (UInt i = 1; i < VG_N_THREADS; i++)
		others += vth[i].live && vth[i].lwpid;
	if (exit_pending)
		emit_exit_pending();
	if (others) {
		exit_pending = vth[tid].lwpid;
		return;
	}
	{
		ULong f[1] = {(ULong)VG_(getppid)()};

		set_thread(vth[tid].lwpid);
		emit(TLBSIM_EV_WAKE, 1, f, 0);
		emit(TLBSIM_EV_EXIT, 0, NULL, 0);
	}
}

static void tl_fini(Int exitcode)
{
	ThreadId t = last_runner;

	for (UInt i = 1; i < VG_N_THREADS; i++)
		if (i != t)
			thread_gone(i);
	if (t)
		thread_gone(t);
	flush();
	/* The end record makes the part a whole trace by itself (an image
	 * that execs has none): the merge reads only what OUT/order counts. */
	{
		UChar end[1 + NATIVE_VARINT_MAX], *p = end;

		*p++ = NATIVE_OP_END;
		p = native_put_varint(p, part_events);
		write_all(part_fd, end, (UInt)(p - end), "writing a part in");
	}
	VG_(close)(part_fd);
	VG_(close)(order_fd);
	part_fd = order_fd = -1;
}

/* ---- threads -------------------------------------------------------------------- */

static void tl_thread_create(ThreadId parent, ThreadId child)
{
	vth[child].lwpid = 0;
	vth[child].live = True;
	vth[child].seen = 0;
	new_thread = child;
}

static void tl_thread_exit(ThreadId tid)
{
	thread_gone(tid);
}

/* Can @w still perform an event (a live thread, or one whose exit is not written yet)? */
static Bool can_act(ThreadId w)
{
	return w && vth[w].lwpid && (vth[w].live || exit_pending == vth[w].lwpid);
}

/* Order @tid's next events after every mapping change so far. */
static void publish(ThreadId tid)
{
	struct vthread *t = &vth[tid];
	ULong f[1] = {t->lwpid};

	if (t->seen >= map_gen)
		return;
	if (publisher != tid && can_act(publisher)) {
		set_thread(vth[publisher].lwpid);
		emit(TLBSIM_EV_WAKE, 1, f, 0);
		set_thread(t->lwpid);
		emit(TLBSIM_EV_SLEEP, 0, NULL, 0);
	}
	t->seen = map_gen;
	publisher = tid;
}

static void tl_start_client_code(ThreadId tid, ULong blocks)
{
	struct vthread *t = &vth[tid];

	if (!t->lwpid)
		t->lwpid = (UInt)VG_(gettid)();
	if (tid == last_runner && t->lwpid == cur_tid && t->seen >= map_gen)
		return;
	if (tid != last_runner)
		run_seq++;
	last_runner = tid;
	publish(tid);
	set_thread(t->lwpid);
	if (clo_switches) {
		UInt cpu = 0;
		SysRes r = VG_(do_syscall)(__NR_getcpu, (RegWord)&cpu, 0, 0, 0, 0, 0, 0, 0);
		UChar *p;

		if (sr_isError(r) || cpu >= TLBSIM_CPU_ANY)
			return;
		p = buf + buf_len;
		*p++ = NATIVE_OP_SET_CPU;
		p = native_put_varint(p, cpu);
		buf_len = (UInt)(p - buf);
		emit(TLBSIM_EV_SWITCH, 0, NULL, 0);
		p = buf + buf_len;
		*p++ = NATIVE_OP_SET_CPU;
		p = native_put_varint(p, TLBSIM_CPU_ANY);
		buf_len = (UInt)(p - buf);
	}
}

/* ---- syscalls ------------------------------------------------------------------ */

static void tl_pre_syscall(ThreadId tid, UInt nr, UWord *args, UInt nargs)
{
	vth[tid].sys_at = run_seq;
	if (vth[tid].lwpid)
		set_thread(vth[tid].lwpid);
	if (insns_pending)
		emit_compute();
	/* An exec that succeeds ends this image: its events must be out. */
	if (nr == __NR_execve || nr == __NR_execveat)
		flush();
}

static void tl_post_syscall(ThreadId tid, UInt nr, UWord *args, UInt nargs, SysRes res)
{
	struct vthread *t = &vth[tid];
	ThreadId w = last_runner;
	ULong v = sr_Res(res), f[5];
	uint8_t advice;

	if (!t->lwpid)
		return;
	/* Another thread ran while this one was in the syscall: it blocked.
	 * The thread that ran may just have exited (its exit woke this one). */
	if (t->sys_at != run_seq && w != tid && vth[w].lwpid &&
	    (vth[w].live || exit_pending == vth[w].lwpid)) {
		f[0] = t->lwpid;
		set_thread(vth[w].lwpid);
		emit(TLBSIM_EV_WAKE, 1, f, 0);
		set_thread(t->lwpid);
		emit(TLBSIM_EV_SLEEP, 0, NULL, 0);
		if (vth[w].seen > t->seen)
			t->seen = vth[w].seen;
	}
	publish(tid);
	set_thread(t->lwpid);
	if (sr_isError(res))
		return;
	if (nr == __NR_mmap || nr == __NR_munmap || nr == __NR_mprotect || nr == __NR_mremap ||
	    nr == __NR_brk || (nr == __NR_madvise && linux_madvise_advice(args[2], &advice))) {
		t->seen = ++map_gen;
		publisher = tid;
	}
	switch (nr) {
	case __NR_mmap:
		emit_mmap(v, args[1], (UInt)(args[2] & 7), linux_mmap_flags(args[3]));
		break;
	case __NR_munmap:
		f[0] = args[0];
		f[1] = args[1];
		if (args[1])
			emit(TLBSIM_EV_MUNMAP, 2, f, 1);
		break;
	case __NR_mprotect:
		f[0] = args[0];
		f[1] = args[1];
		f[2] = args[2] & 7;
		emit(TLBSIM_EV_MPROTECT, 3, f, 1);
		break;
	case __NR_madvise:
		f[0] = args[0];
		f[1] = args[1];
		if (linux_madvise_advice(args[2], &advice)) {
			f[2] = advice;
			emit(TLBSIM_EV_MADVISE, 3, f, 1);
		}
		break;
	case __NR_mremap:
		f[0] = args[0];
		f[1] = args[1];
		f[2] = args[2];
		f[3] = v;
		f[4] = args[3] & L_MREMAP_FLAGS;
		if (args[2])
			emit(TLBSIM_EV_MREMAP, 5, f, 1 | 8); /* old_addr and new_addr are va */
		break;
	case __NR_brk:
		f[0] = v;
		emit(TLBSIM_EV_BRK, 1, f, 1);
		break;
	case __NR_clone:
		if (!v) /* the child of a fork sees 0 */
			break;
		f[0] = v;
		f[1] = v;
		if (args[0] & L_CLONE_THREAD) {
			/* known now even if the thread never runs before it exits */
			if (new_thread && !vth[new_thread].lwpid)
				vth[new_thread].lwpid = (UInt)v;
			/* it starts after its creator's events so far (thread_create) */
			if (new_thread)
				vth[new_thread].seen = t->seen;
			new_thread = 0;
			emit(TLBSIM_EV_THREAD_CREATE, 1, f, 0);
		} else {
			emit(TLBSIM_EV_FORK, 2, f, 0);
			flush(); /* the child's chunks wait for this one */
		}
		break;
	case __NR_fork:
	case __NR_vfork: /* valgrind runs vfork as fork */
		if (!v)
			break;
		f[0] = v;
		f[1] = v;
		emit(TLBSIM_EV_FORK, 2, f, 0);
		flush();
		break;
	case __NR_wait4:
		if ((Word)v > 0) /* reaped a child: after its wake (tl_fini) */
			emit(TLBSIM_EV_SLEEP, 0, NULL, 0);
		break;
	default:
		break;
	}
}

/* ---- options and registration ---------------------------------------------------- */

static Bool tl_process_cmd_line_option(const HChar *arg)
{
	if VG_STR_CLO (arg, "--tlbsim-dir", clo_dir) {
	} else if VG_BOOL_CLO (arg, "--fetches", clo_fetches) {
	} else if VG_BOOL_CLO (arg, "--switches", clo_switches) {
	} else
		return False;
	return True;
}

static void tl_print_usage(void)
{
	VG_(printf)
	("    --tlbsim-dir=DIR          where the parts and the order file go "
	 "(absolute; required)\n"
	 "    --fetches=yes|no          record instruction fetches [yes]\n"
	 "    --switches=yes|no         record thread switches with the host cpu [no]\n");
}

static void tl_print_debug_usage(void)
{
	VG_(printf)("    (none)\n");
}

static void tl_pre_clo_init(void)
{
	VG_(details_name)("tlbsim");
	VG_(details_version)(NULL);
	VG_(details_description)("records memory accesses, threads and processes for tlbsim");
	VG_(details_copyright_author)("tlbsim contributors; MIT licence");
	VG_(details_bug_reports_to)(VG_BUGS_TO);
	VG_(details_avg_translation_sizeB)(275);
	VG_(basic_tool_funcs)(tl_post_clo_init, tl_instrument, tl_fini);
	VG_(needs_command_line_options)
	(tl_process_cmd_line_option, tl_print_usage, tl_print_debug_usage);
	VG_(needs_syscall_wrapper)(tl_pre_syscall, tl_post_syscall);
	VG_(track_new_mem_startup)(tl_new_mem_startup);
	VG_(track_pre_thread_ll_create)(tl_thread_create);
	VG_(track_pre_thread_ll_exit)(tl_thread_exit);
	VG_(track_start_client_code)(tl_start_client_code);
	VG_(atfork)(tl_fork_pre, NULL, tl_fork_child);
}

VG_DETERMINE_INTERFACE_VERSION(tl_pre_clo_init)
