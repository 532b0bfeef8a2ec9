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
 *                         `sleep` by T, as the lackey reader does; after a
 *                         thread changes the mappings, `wake` of every other
 *                         thread, which `sleep`s when it next runs (see
 *                         changed()); across processes, `wake PPID` before a
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

/* Pages a thread remembers having checked (a power of two). */
#define VC_SLOTS 64

struct vthread {
	UInt lwpid;	     /* Linux tid, 0 until it runs */
	Bool live;	     /* created and not exited */
	ULong sys_at;	     /* run_seq when its syscall started */
	ULong *synced;	     /* by ThreadId: the last change of that thread it is ordered after */
	struct change *last; /* its own last mapping change */
	struct vcache {
		Addr page;
		ULong gen;
	} vc[VC_SLOTS]; /* pages it used since map_gen last changed: no new dependency */
};
static struct vthread *vth;  /* by valgrind ThreadId, VG_N_THREADS of them */
static ThreadId last_runner; /* the thread that ran client code last */
static ThreadId new_thread;  /* made by the clone() in progress; its tid comes with the result */
static ULong run_seq;	     /* counts changes of the running thread */
/*
 * Mapping changes and the threads that depend on them.  On replay the
 * threads of a process run concurrently, ordered only by wake/sleep
 * edges; but a thread may use memory another thread mapped (glibc hands
 * arenas and stacks from thread to thread under locks no syscall shows),
 * or map at an address another just unmapped, and replayed before that
 * change it would find no mapping, or lose its own.  So right after each
 * change (a successful mmap, munmap, mprotect, mremap, brk, madvise with
 * an event) its thread writes a placeholder per other live thread, an
 * event that does nothing (`compute 0 cycles`, 6 bytes with a long
 * varint), and the pages it changed remember the change (chg[]).  When a
 * thread first touches such a page, or names it in a syscall, its
 * placeholder in that change is rewritten in place, in the buffer or in
 * the part file, into `wake THREAD` of the same 6 bytes, and the thread
 * `sleep`s: its events come after that change only, and threads that do
 * not touch each other's changed memory never wait for each other.
 * Changes of one thread are in its program order, so being after one is
 * being after all its earlier ones (vthread.synced); a thread made by
 * clone() starts where its creator is (see sync_with() for the changes it
 * has no placeholder in).  Each thread keeps the pages it checked
 * since the last change anywhere (vthread.vc), so the check is a compare
 * per access, and nothing at all while a process has one thread.
 */
struct change {
	ULong gen;   /* its number (map_gen) */
	ThreadId by; /* the thread that made it */
	UInt refs;   /* chg[] entries and vthread.last pointing at it */
	UInt nr;
	struct slot {
		ThreadId t;
		Bool used;
		ULong off; /* the placeholder's byte offset in the part */
	} * slot;
};
struct chg {
	Addr start, end; /* page-aligned [start, end) */
	struct change *c;
	ULong users; /* threads (bit ThreadId % 64) that used it since that change */
};
static struct chg *chg; /* sorted by start, not overlapping */
static UInt nr_chg, cap_chg;
static ULong part_written; /* bytes of the part written out so far */
static void change_put(struct change *c);
static struct change *new_change(ThreadId tid);
static void sync_with(ThreadId b, struct change *c);
static ULong map_gen;	       /* changes so far */
static UInt nr_live;	       /* live threads: with one, nothing depends */
static Addr brk_cur;	       /* the break, for the range a brk changes */
static struct vthread *cur_vt; /* the running thread's, for the access helpers */
static ThreadId cur_vtid;

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
	part_written += buf_len;
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

static void dep_slow(Addr a);

/* Does the access at @a depend on another thread's mapping change? (see chg) */
static inline void dep_check(Addr a)
{
	if (UNLIKELY(nr_live > 1)) {
		struct vcache *c = &cur_vt->vc[(a >> 12) & (VC_SLOTS - 1)];

		if (UNLIKELY(c->page != a >> 12 || c->gen != map_gen))
			dep_slow(a);
	}
}

/* A compact access: @op = 0x40 | (kind - 1) << 3 | log2(size). */
static VG_REGPARM(2) void h_access(UWord op, Addr a)
{
	dep_check(a);
	if (UNLIKELY(insns_pending >= COMPUTE_BATCH))
		emit_compute();
	rec_end(put_va(rec_start((UChar)op), a));
}

/* An access of a size the compact form cannot hold (3, 6, 512 bytes ...). */
static VG_REGPARM(3) void h_access_n(UWord kind, Addr a, UWord size)
{
	ULong f[2] = {a, size};

	dep_check(a);
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
	part_written = 0;
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
	nr_live = 1;
	cur_vt = &vth[1];
	cur_vtid = 1;
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
	nr_live = 1;
	nr_chg = 0; /* the changes' memory is the parent's copy: left as it is */
	for (UInt i = 0; i < VG_N_THREADS; i++) {
		vth[i].synced = NULL;
		vth[i].last = NULL;
	}
	cur_vt = &vth[tid];
	cur_vtid = tid;
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
	nr_live--;
	if (!vth[tid].lwpid)
		return;
	for (UInt i = 1; i < VG_N_THREADS; i++)
		others += vth[i].live && vth[i].lwpid;
	if (exit_pending)
		emit_exit_pending();
	if (others) {
		/* the exit is a point others may have to be after (after_the_gone()) */
		map_gen++;
		new_change(tid);
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
	/* valgrind reuses the slot of a thread gone: its exit point first */
	if (!vth[child].live && vth[child].last && parent != child)
		sync_with(parent, vth[child].last);
	vth[child].lwpid = 0;
	vth[child].live = True;
	if (vth[child].synced)
		VG_(memset)(vth[child].synced, 0, VG_N_THREADS * sizeof(ULong));
	change_put(vth[child].last);
	vth[child].last = NULL;
	VG_(memset)(vth[child].vc, 0, sizeof(vth[child].vc));
	nr_live++;
	new_thread = child;
}

static void tl_thread_exit(ThreadId tid)
{
	thread_gone(tid);
}

static void change_put(struct change *c)
{
	if (c && !--c->refs) {
		VG_(free)(c->slot);
		VG_(free)(c);
	}
}

static ULong synced_of(ThreadId b, ThreadId a)
{
	return vth[b].synced ? vth[b].synced[a] : 0;
}

static void set_synced(ThreadId b, ThreadId a, ULong gen)
{
	if (!vth[b].synced)
		vth[b].synced = VG_(calloc)("tlbsim.synced", VG_N_THREADS, sizeof(ULong));
	if (vth[b].synced[a] < gen)
		vth[b].synced[a] = gen;
}

/* A placeholder of the current thread: `compute 0 cycles`, 6 bytes (FORMAT.md accepts long
 * varints). */
static ULong emit_placeholder(void)
{
	static const UChar ph[6] = {TLBSIM_EV_COMPUTE,	  0x80, 0x80, 0x80, 0x00,
				    TLBSIM_COMPUTE_CYCLES};
	ULong off;

	tl_assert(!tid_pending);
	off = part_written + buf_len;
	VG_(memcpy)(buf + buf_len, ph, sizeof(ph));
	rec_end(buf + buf_len + sizeof(ph));
	return off;
}

/* The placeholder at @off becomes `wake @tid`, 6 bytes too (a 5-byte varint). */
static void patch_wake(ULong off, UInt tid)
{
	UChar w[6] = {TLBSIM_EV_WAKE,
		      (UChar)(0x80 | (tid & 0x7f)),
		      (UChar)(0x80 | ((tid >> 7) & 0x7f)),
		      (UChar)(0x80 | ((tid >> 14) & 0x7f)),
		      (UChar)(0x80 | ((tid >> 21) & 0x7f)),
		      (UChar)((tid >> 28) & 0x7f)};

	if (off >= part_written) {
		VG_(memcpy)(buf + (off - part_written), w, sizeof(w));
		return;
	}
	if (VG_(lseek)(part_fd, (Off64T)off, VKI_SEEK_SET) < 0)
		die("seeking in a part in", clo_dir, 0);
	write_all(part_fd, w, sizeof(w), "rewriting a part in");
	if (VG_(lseek)(part_fd, (Off64T)part_written, VKI_SEEK_SET) < 0)
		die("seeking in a part in", clo_dir, 0);
}

/*
 * @b's next events after change @c: its placeholder there becomes a wake,
 * and @b sleeps.  A thread made after @c has none: the wake is then sent
 * from where @c's thread is now (later than needed; it is rare: a thread
 * made after a change by another thread it was not put after), or, that
 * thread gone, cannot be (nothing else is ordered after it).
 */
static void sync_with(ThreadId b, struct change *c)
{
	ULong f[1] = {vth[b].lwpid};
	Bool woken = False;

	if (!c || c->by == b || c->gen <= synced_of(b, c->by))
		return;
	for (UInt i = 0; i < c->nr && !woken; i++)
		if (c->slot[i].t == b && !c->slot[i].used) {
			c->slot[i].used = True;
			patch_wake(c->slot[i].off, vth[b].lwpid);
			woken = True;
		}
	if (!woken && vth[c->by].lwpid && (vth[c->by].live || exit_pending == vth[c->by].lwpid)) {
		set_thread(vth[c->by].lwpid);
		emit(TLBSIM_EV_WAKE, 1, f, 0);
		woken = True;
	}
	if (woken) {
		set_thread(vth[b].lwpid);
		emit(TLBSIM_EV_SLEEP, 0, NULL, 0);
	}
	set_synced(b, c->by, c->gen);
}

/* The first change whose range ends above @a (binary search). */
static UInt chg_lower(Addr a)
{
	UInt lo = 0, hi = nr_chg;

	while (lo < hi) {
		UInt mid = (lo + hi) / 2;

		if (chg[mid].end <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* [@s, @e) was changed by change @c: it replaces what the pages remembered. */
static void chg_set(Addr s, Addr e, struct change *c)
{
	UInt i = chg_lower(s), j = i, n;
	struct chg *nc, head = {0}, tail = {0};
	Bool has_head = False, has_tail = False;

	if (s >= e)
		return;
	while (j < nr_chg && chg[j].start < e) /* [i, j): what [s, e) overlaps */
		j++;
	if (i < j && chg[i].start < s) {
		head = chg[i];
		head.end = s;
		head.c->refs++;
		has_head = True;
	}
	if (i < j && chg[j - 1].end > e) {
		tail = chg[j - 1];
		tail.start = e;
		tail.c->refs++;
		has_tail = True;
	}
	for (UInt k = i; k < j; k++)
		change_put(chg[k].c);
	n = nr_chg - (j - i) + 1 + has_head + has_tail;
	if (n > cap_chg) {
		cap_chg = 2 * n + 16;
		nc = VG_(malloc)("tlbsim.chg", cap_chg * sizeof(*nc));
		if (chg) {
			VG_(memcpy)(nc, chg, nr_chg * sizeof(*nc));
			VG_(free)(chg);
		}
		chg = nc;
	}
	VG_(memmove)(chg + i + 1 + has_head + has_tail, chg + j, (nr_chg - j) * sizeof(*chg));
	if (has_head)
		chg[i++] = head;
	c->refs++;
	chg[i++] = (struct chg){.start = s, .end = e, .c = c};
	if (has_tail)
		chg[i] = tail;
	nr_chg = n;
}

/* @tid's next events after the changes of [@s, @e) by other threads. */
static void sync_range(ThreadId tid, Addr s, Addr e)
{
	for (UInt i = chg_lower(s); i < nr_chg && chg[i].start < e; i++)
		sync_with(tid, chg[i].c);
}

static void dep_slow(Addr a)
{
	struct vcache *c = &cur_vt->vc[(a >> 12) & (VC_SLOTS - 1)];

	UInt i = chg_lower(a);

	sync_range(cur_vtid, a, a + 1);
	if (i < nr_chg && chg[i].start <= a)
		chg[i].users |= 1ull << (cur_vtid & 63);
	c->page = a >> 12;
	c->gen = map_gen;
}

/*
 * @tid is about to unmap, protect or drop [@a, @a + @len): after the other
 * threads' uses of it (a use is not a change: no placeholder marks it, so
 * the wake comes from where a live user is now; a user gone, from its exit).
 */
static void dep_uses(ThreadId tid, Addr a, SizeT len)
{
	ULong users = 0, f[1] = {vth[tid].lwpid};
	Addr e = a + len;

	if (nr_live <= 1 && !nr_chg)
		return;
	for (UInt i = chg_lower(a & ~(Addr)0xfff); i < nr_chg && chg[i].start < e; i++)
		users |= chg[i].users;
	users &= ~(1ull << (tid & 63));
	if (!users)
		return;
	for (UInt i = 1; i < VG_N_THREADS; i++) {
		if (i == tid || !(users >> (i & 63) & 1) || !vth[i].lwpid)
			continue;
		if (vth[i].live || exit_pending == vth[i].lwpid) {
			set_thread(vth[i].lwpid);
			emit(TLBSIM_EV_WAKE, 1, f, 0);
			set_thread(vth[tid].lwpid);
			emit(TLBSIM_EV_SLEEP, 0, NULL, 0);
			if (vth[i].last)
				set_synced(tid, i, vth[i].last->gen);
		} else if (vth[i].last) {
			sync_with(tid, vth[i].last);
		}
	}
}

/* A syscall of @tid on [@a, @a + @len): after the changes there it depends on. */
static void dep_range(ThreadId tid, Addr a, SizeT len)
{
	if (nr_live > 1)
		sync_range(tid, a & ~(Addr)0xfff, a + len);
}

/* A change by @tid now (its last): a placeholder for each other live thread. */
static struct change *new_change(ThreadId tid)
{
	struct change *c = VG_(calloc)("tlbsim.change", 1, sizeof(*c));
	UInt n = 0;

	c->gen = map_gen;
	c->by = tid;
	c->slot = VG_(calloc)("tlbsim.slots", nr_live + 1, sizeof(*c->slot));
	set_thread(vth[tid].lwpid);
	for (UInt i = 1; i < VG_N_THREADS && n <= nr_live; i++)
		if (i != tid && vth[i].live && vth[i].lwpid) {
			c->slot[n].t = i;
			c->slot[n].off = emit_placeholder();
			n++;
		}
	c->nr = n;
	c->refs++;
	change_put(vth[tid].last);
	vth[tid].last = c;
	return c;
}

/* @tid changed [@a, @a + @len) (and [@a2, @a2 + @len2)): placeholders, and the pages remember it.
 */
static void changed(ThreadId tid, Addr a, SizeT len, Addr a2, SizeT len2)
{
	struct change *c;

	map_gen++;	     /* every thread's page cache is stale */
	c = new_change(tid); /* without another thread, no placeholder */
	chg_set(a & ~(Addr)0xfff, (a + len + 0xfff) & ~(Addr)0xfff, c);
	if (len2)
		chg_set(a2 & ~(Addr)0xfff, (a2 + len2 + 0xfff) & ~(Addr)0xfff, c);
}

/*
 * @tid is about to make a thread: first after the exit of every thread
 * gone since it was last ordered after it (their exit placeholders), so
 * that the new thread, which starts where @tid is, can use what they
 * mapped (glibc gives an exited thread's arena to the next).
 */
static void after_the_gone(ThreadId tid)
{
	for (UInt i = 1; i < VG_N_THREADS; i++)
		if (i != tid && !vth[i].live && vth[i].last)
			sync_with(tid, vth[i].last);
}

/* @b was woken by @w at @w's current point: it is after everything @w is after. */
static void inherit(ThreadId b, ThreadId w)
{
	if (vth[w].synced)
		for (UInt i = 1; i < VG_N_THREADS; i++)
			if (vth[w].synced[i])
				set_synced(b, i, vth[w].synced[i]);
	if (vth[w].last)
		set_synced(b, w, vth[w].last->gen);
}

static void tl_start_client_code(ThreadId tid, ULong blocks)
{
	struct vthread *t = &vth[tid];

	if (!t->lwpid)
		t->lwpid = (UInt)VG_(gettid)();
	cur_vt = t;
	cur_vtid = tid;
	if (tid == last_runner && t->lwpid == cur_tid)
		return;
	if (tid != last_runner)
		run_seq++;
	last_runner = tid;
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

/*
 * The event of a successful syscall of @tid on the range f[0], f[1] (its
 * first field an address, the only one): after what it depends on, then a
 * change the other threads learn of.  A zero length makes no event.
 */
static void range_event(ThreadId tid, UInt kind, const ULong *f, UInt nr)
{
	if (!f[1])
		return;
	dep_range(tid, f[0], f[1]);
	dep_uses(tid, f[0], f[1]);
	emit(kind, nr, f, 1);
	changed(tid, f[0], f[1], 0, 0);
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
		inherit(tid, w);
	}
	set_thread(t->lwpid);
	if (sr_isError(res))
		return;
	switch (nr) {
	case __NR_mmap: /* MAP_FIXED may replace what another thread mapped */
		f[0] = v;
		f[1] = args[1];
		f[2] = args[2] & 7;
		f[3] = linux_mmap_flags(args[3]);
		range_event(tid, TLBSIM_EV_MMAP, f, 4);
		break;
	case __NR_munmap:
		f[0] = args[0];
		f[1] = args[1];
		range_event(tid, TLBSIM_EV_MUNMAP, f, 2);
		break;
	case __NR_mprotect:
		f[0] = args[0];
		f[1] = args[1];
		f[2] = args[2] & 7;
		range_event(tid, TLBSIM_EV_MPROTECT, f, 3);
		break;
	case __NR_madvise:
		f[0] = args[0];
		f[1] = args[1];
		if (linux_madvise_advice(args[2], &advice)) {
			f[2] = advice;
			range_event(tid, TLBSIM_EV_MADVISE, f, 3);
		}
		break;
	case __NR_mremap:
		f[0] = args[0];
		f[1] = args[1];
		f[2] = args[2];
		f[3] = v;
		f[4] = args[3] & L_MREMAP_FLAGS;
		if (args[2]) {
			dep_range(tid, args[0], args[1]);
			dep_range(tid, v, args[2]);
			dep_uses(tid, args[0], args[1]);
			emit(TLBSIM_EV_MREMAP, 5, f, 1 | 8); /* old_addr and new_addr are va */
			changed(tid, args[0], args[1], v, args[2]);
		}
		break;
	case __NR_brk: {
		/* the heap between the old break and the new one changes */
		Addr lo = brk_cur < v ? brk_cur : v, hi = brk_cur < v ? v : brk_cur;

		f[0] = v;
		if (brk_cur) {
			dep_range(tid, lo, hi - lo);
			if (v < brk_cur)
				dep_uses(tid, lo, hi - lo);
		}
		emit(TLBSIM_EV_BRK, 1, f, 1);
		if (brk_cur && hi > lo)
			changed(tid, lo, hi - lo, 0, 0);
		brk_cur = v;
		break;
	}
	case __NR_clone:
		if (!v) /* the child of a fork sees 0 */
			break;
		f[0] = v;
		f[1] = v;
		if (args[0] & L_CLONE_THREAD) {
			/* known now even if the thread never runs before it exits */
			if (new_thread && !vth[new_thread].lwpid)
				vth[new_thread].lwpid = (UInt)v;
			/* the new thread starts where its creator is */
			if (nr_live > 1)
				after_the_gone(tid);
			if (new_thread)
				inherit(new_thread, tid);
			new_thread = 0;
			set_thread(t->lwpid);
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
