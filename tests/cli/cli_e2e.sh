#!/usr/bin/env bash
# End-to-end checks of the tlbsim command: exit statuses, messages, JSON
# output written atomically, and the generator -> trace -> run path.
#   cli_e2e.sh TLBSIM_BINARY SOURCE_DIR
bin=$1 src=$2
. "$(dirname "$0")/e2e_common.sh"

# --version, --help of every command, each with an example.
check "--version prints the version" bash -c "'$bin' --version | grep -q '^tlbsim [0-9]'"
for c in run compare gen list; do
  check "$c --help has an example" bash -c "'$bin' $c --help | grep -q 'example'"
done

# Usage and input errors: exit 2 and a message naming what was wrong.
"$bin" run --machine no-such-machine --gen mprotect-toggle 2>"$tmp/err"; rc=$?
check "unknown machine exits 2" test $rc -eq 2
check "unknown machine is named" grep -q "no machine named 'no-such-machine'" "$tmp/err"

printf 'tlbsim-trace 1 isa=x86-64 page_shift=12 threads=1\nproc_create 1 1\nT1 lod 0x1000 8\n' >"$tmp/bad.txt"
"$bin" run --machine generic-x86-64 --json "$tmp/out.json" "$tmp/bad.txt" 2>"$tmp/err"; rc=$?
check "bad trace exits 2" test $rc -eq 2
check "bad trace error names file and line" grep -q "bad.txt:3:" "$tmp/err"
check "no JSON left after a failed run" test ! -e "$tmp/out.json"
check "no temporary file left" bash -c "! ls '$tmp' | grep -q tmp"

# The OS model's front end: a thread made twice, an event after an exit
# (traces/FORMAT.md, "Threads and processes").
printf 'tlbsim-trace 1 isa=x86-64 page_shift=12\nproc_create 1 1\nT1 thread_create 2\nT1 thread_create 2\n' >"$tmp/dup.txt"
"$bin" run --machine generic-x86-64 --json "$tmp/dup.json" "$tmp/dup.txt" 2>"$tmp/err"; rc=$?
check "a thread made twice exits 2" test $rc -eq 2
check "a thread made twice names the trace and the event" \
  grep -q "dup.txt:4: event 2 (thread_create): thread 2 is alive (created at event 1)" "$tmp/err"
check "no JSON left after an input error of the OS model" test ! -e "$tmp/dup.json"
printf 'tlbsim-trace 1 isa=x86-64 page_shift=12\nproc_create 1 1\nT1 exit\nproc_create 1 1\nT1 exit\n' >"$tmp/reuse.txt"
check "a pid and tid used again after the exit run" "$bin" run --machine generic-x86-64 --quiet "$tmp/reuse.txt"

"$bin" run --machine generic-x86-64 --policy arm64-stock --gen mprotect-toggle 2>"$tmp/err"; rc=$?
check "policy of another ISA exits 2" test $rc -eq 2
check "policy error lists known ones" grep -q "known for x86-64: x86-stock" "$tmp/err"

"$bin" run --machine generic-x86-64 --gen mprotect-toggle --param nope=1 2>"$tmp/err"; rc=$?
check "unknown generator parameter exits 2" test $rc -eq 2
check "unknown parameter lists known ones" grep -q "known: procs" "$tmp/err"
"$bin" run --machine generic-x86-64 --gen madvise-threads --param loops=2,loops=3 2>"$tmp/err"; rc=$?
check "a generator parameter given twice exits 2" test $rc -eq 2
check "... and says which" grep -q "parameter 'loops' given twice" "$tmp/err"
: >"$tmp/empty.tlbt"
"$bin" run --machine generic-x86-64 "$tmp/empty.tlbt" 2>"$tmp/err"; rc=$?
check "an empty trace exits 2" test $rc -eq 2
check "... and says it is empty" grep -q "empty.tlbt:@0: a trace format expected (.*), found an empty input" "$tmp/err"

# gen -> trace -> run, and the same run straight from the generator: the
# statistics agree.
check "gen writes a trace" "$bin" gen mprotect-toggle --isa arm64 --param procs=2,loops=20,size=64K -o "$tmp/t.tlbt"
check "run on the trace" "$bin" run --machine generic-arm64 --quiet --json "$tmp/a.json" "$tmp/t.tlbt"
check "run on the generator" "$bin" run --machine generic-arm64 --quiet --json "$tmp/b.json" --gen mprotect-toggle --param procs=2,loops=20,size=64K
check "trace and generator give the same statistics" cmp -s "$tmp/a.json" "$tmp/b.json"
# procs=2 processes x (populate + 20 toggles x 2 mprotect) -> 80 broadcast flushes
# (arm64-stock: one per mprotect), plus the exits' full flushes (2).
check "the JSON has the expected broadcast count" bash -c "grep -q '\"flushes_broadcast\": 82' '$tmp/a.json'"
check "threads do not change the statistics" "$bin" run --machine generic-arm64 --quiet --threads 2 --json "$tmp/c.json" "$tmp/t.tlbt"
check "1 and 2 threads agree" cmp -s "$tmp/a.json" "$tmp/c.json"

# compare: a table with ratios, JSON array.
check "compare runs" bash -c "'$bin' compare --machine generic-arm64 --policies arm64-stock,arm64-nr-active-mm --json '$tmp/cmp.json' '$tmp/t.tlbt' >'$tmp/cmp.txt' 2>/dev/null"
check "compare prints ratios" grep -q "ratio" "$tmp/cmp.txt"
check "compare JSON holds 2 runs" bash -c "[ \$(grep -c '\"schema\": \"tlbsim-stats/1\"' '$tmp/cmp.json') -eq 2 ]"

# Regressions from the first review (fresh-eyes run of session 1).
H='tlbsim-trace 1 isa=x86-64 page_shift=12 threads=1'
{ printf '%s\n' "$H" 'proc_create 1 1'
  for i in $(seq 1 14); do printf 'T1 mmap 0x%x 0x1000 rw- private,anon\n' $((0x100000*i)); done
  echo 'T1 mmap 0xfffffffffffff000 0x1000 rw- private,anon'
  echo 'T1 munmap 0x0 0xffffffffffffffff'; echo 'T1 exit'; } >"$tmp/top.txt"
check "a mapping at the top of the address space fails as a syscall, no crash" \
  "$bin" run --machine generic-x86-64 --quiet --json "$tmp/top.json" "$tmp/top.txt"
check "both out-of-range syscalls are counted" grep -q '"bad_syscalls": 2' "$tmp/top.json"
"$bin" run --machine generic-x86-64 --policy x86-stock+x86-invlpgb --gen ctx-switch 2>"$tmp/err"; rc=$?
check "two flush policies do not compose" test $rc -eq 2
check "gen -o - pipes into run -" bash -c "'$bin' gen ctx-switch --param loops=3 -o - | '$bin' run --machine generic-x86-64 --quiet -"
"$bin" run --machine generic-x86-64 --gen ctx-switch --json "$tmp/no/dir/x.json" 2>"$tmp/err"; rc=$?
check "an unwritable --json fails before the run" test $rc -eq 2
"$bin" run --machine generic-x86-64 --gen ctx-switch --max-events -1 2>"$tmp/err"; rc=$?
check "a bad --max-events names the option" grep -q -- "--max-events expects" "$tmp/err"
"$bin" run --machine generic-x86-64 --gen ctx-switch --os fault_lock=pte 2>"$tmp/err"; rc=$?
check "a bad --os exits 2" test $rc -eq 2
check "... and names the value" grep -q -- "--os: byte 0 of 'fault_lock=pte': fault_lock is mm, split or lockless, found 'fault_lock=pte'" "$tmp/err"
check "--os options reach the statistics" bash -c "'$bin' run --machine milan-36 --gen madvise-threads --param threads=4,loops=1 --os fault_lock=mm,lru_add_drain=1 --quiet --json '$tmp/os.json' && grep -q '\"os_options\": \"fault_lock=mm,lru_add_drain=1,per_vma_lock=0,no_nested_flush=0\"' '$tmp/os.json'"
check "run prints where the shared lines cost" bash -c "'$bin' run --machine milan-36 --gen madvise-threads --param threads=4,loops=1 | grep -q '^mmap_lock '"
echo old >"$tmp/real.json"; ln -s real.json "$tmp/link.json"
check "--json writes through a symlink" "$bin" run --machine generic-x86-64 --gen ctx-switch --param loops=3 --quiet --json "$tmp/link.json"
check "the symlink stays a symlink" test -L "$tmp/link.json"
check "its target got the statistics" grep -q tlbsim-stats "$tmp/real.json"

# Caps (issue 10): a run stops at --max-events / --max-cycles with exit 0 and
# the statistics marked partial; without caps it is not partial.
# ctx-switch with loops=1000 is 4006 events (traces/gen_ctx_switch.c's
# totals: 1 PROC_CREATE + 2 SWITCH + 1 THREAD_CREATE + 2x1000 WAKE +
# 2x1000 SLEEP + 2 EXIT), so a cap of 100 events stops it.
check "--max-events runs" "$bin" run --machine generic-x86-64 --gen ctx-switch --param loops=1000 --quiet --max-events 100 --json "$tmp/cap.json"
check "--max-events marks the statistics partial" grep -q '"partial": true' "$tmp/cap.json"
check "--max-events reads exactly the cap" grep -q '"events_read": 100,' "$tmp/cap.json"
check "an uncapped run" "$bin" run --machine generic-x86-64 --gen ctx-switch --param loops=1000 --quiet --json "$tmp/full.json"
check "an uncapped run is not partial" grep -q '"partial": false' "$tmp/full.json"
check "an uncapped run reads every event" grep -q '"events_read": 4006,' "$tmp/full.json"
check "--max-cycles runs" "$bin" run --machine generic-x86-64 --gen ctx-switch --param loops=1000 --quiet --max-cycles 100000 --json "$tmp/capc.json"
check "--max-cycles marks the statistics partial" grep -q '"partial": true' "$tmp/capc.json"
top_cycles() { sed -n 's/^  "cycles": \([0-9]*\),$/\1/p' "$1"; }
check "--max-cycles stops before the uncapped run's end" test "$(top_cycles "$tmp/capc.json")" -lt "$(top_cycles "$tmp/full.json")"
# Reading is bounded (flat memory): munmap-churn with one worker, touch=1 and
# loops=80 emits about 2.6 M events (32,770 a loop), and its main thread's
# last event, its exit, is the very last.  prime() reads the proc_create
# (1); the main thread's refill has its thread_create and sleep after 3
# events and stops at the budget, 256 x 4096 = 1,048,576 events; within
# 100,000 cycles the worker, whose first touches each fault (>= 3000
# cycles), never runs dry: 1,048,577 read, not the whole stream.
check "a main thread's far exit does not pull the whole stream in" "$bin" run --machine x86-16 --gen munmap-churn --param threads=1,loops=80,touch=1 --quiet --max-cycles 100000 --json "$tmp/far.json"
check "... it reads 1 + 256 x 4096 events" grep -q '"events_read": 1048577,' "$tmp/far.json"
check "compare marks a capped run partial" bash -c "'$bin' compare --machine generic-x86-64 --policies x86-stock,flush-all --gen ctx-switch --param loops=1000 --max-events 100 2>/dev/null | grep -q '^\[partial\] x86-stock'"

# A machine at models/README.md's maxima (4096 cores, 7 structures of 65536
# entries) is refused before any allocation, not after minutes of paging.
# Per entry: struct hw_tlb_entry is 3x8 + 2 + 3x1 = 29 bytes, padded to 32,
# plus its 1-byte fingerprint and an 8-byte LRU stamp = 41; per structure
# (one set of 65536 ways) 65536 x 41 + 4 (the set's count of valid entries)
# + 8192 (the asid_seen bitmap, 65536 bits) = 2695172 bytes; per core x7 =
# 18866204 bytes = 18424 KiB; x4096 cores = 73696 MiB.  Only
# meaningful on a host with less memory than that (CI's has far less).
mem_mib=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo)
if [ "$mem_mib" -lt 73696 ]; then
  timeout 20 "$bin" run --machine "$src/tests/data/machines/huge/at_documented_maxima.json" --gen ctx-switch --param loops=1 2>"$tmp/err"; rc=$?
  check "a machine too big for the host exits 2 at once" test $rc -eq 2
  check "its message gives the memory needed" grep -q "need 73696 MiB (4096 cores x 18424 KiB)" "$tmp/err"
fi

# Absurd sizes in traces (issue 10): a header declaring 2^32-1 threads is
# advisory (FORMAT.md) and allocates nothing; tids near 2^32 are sparse keys;
# an invlpgb of 2^32-1 pages is refused naming the field and the range
# (CPUID 8000_0008h EDX: at most 65536 pages, FORMAT.md).
printf '%s\n' 'tlbsim-trace 1 isa=x86-64 page_shift=12 threads=4294967295' 'proc_create 1 1' \
  'T1 mmap 0x1000 0x1000 rw- private,anon' 'T1 load 0x1000 8' 'T1 exit' >"$tmp/lim1.txt"
check "a header with 2^32-1 threads runs" "$bin" run --machine generic-x86-64 --quiet "$tmp/lim1.txt"
printf '%s\n' "$H" 'proc_create 4294967294 4294967294' 'T4294967294 thread_create 4294967293' \
  'T4294967293 exit' 'T4294967294 exit' >"$tmp/lim2.txt"
check "tids near 2^32 run" "$bin" run --machine generic-x86-64 --quiet "$tmp/lim2.txt"
printf '%s\n' "$H" 'proc_create 1 1' 'cpu1 invlpgb 0x0 4294967295 12 pcid=5 flags=va,pcid' 'T1 exit' >"$tmp/lim3.txt"
"$bin" run --machine milan-36 --quiet "$tmp/lim3.txt" 2>"$tmp/err"; rc=$?
check "an invlpgb of 2^32-1 pages exits 2" test $rc -eq 2
check "its message names line, column and range" grep -q "lim3.txt:3:18: invlpgb nr_pages: 1..65536 expected, found 4294967295" "$tmp/err"

# Signals (issue 10): SIGINT or SIGTERM stops a long run at the next window;
# the statistics so far are written, marked partial, and tlbsim exits 130.
# The run would take minutes (4e8 events at about 1e6 a second); timeout(1)
# kills it after 120 s if the signal is ignored.  2 s is ample for the
# handler to be installed, even under the sanitizers.
for sig in INT TERM; do
  rm -f "$tmp"/sig.json*
  timeout -s KILL 120 "$bin" run --machine generic-x86-64 --gen ctx-switch --param loops=100000000 --quiet --threads 2 --json "$tmp/sig.json" &
  pid=$!
  sleep 2
  kill -$sig $pid
  wait $pid; rc=$?
  check "SIG$sig exits 130" test $rc -eq 130
  check "SIG$sig writes the statistics so far" test -s "$tmp/sig.json"
  check "SIG$sig marks them partial" grep -q '"partial": true' "$tmp/sig.json"
  check "SIG$sig leaves no temporary file" bash -c "! ls -a '$tmp' | grep -q '\.tmp\.'"
done
# A trace of another ISA is refused, naming the conversion; a user-level
# trace retargeted runs there; a kernel-level one cannot be retargeted.
"$bin" gen munmap-churn --param threads=4,size=256K,loops=2 -o "$tmp/x86.tlbt" >/dev/null 2>&1
"$bin" run --machine emag-32 --quiet "$tmp/x86.tlbt" 2>"$tmp/err"; rc=$?
check "a trace of another ISA exits 2" test $rc -eq 2
check "... and offers --retarget" grep -q "tlbsim convert --retarget arm64" "$tmp/err"
check "convert --retarget arm64 writes an arm64 trace" "$bin" convert --retarget arm64 "$tmp/x86.tlbt" "$tmp/arm.tlbt"
check "... which the arm64 machine replays" "$bin" run --machine emag-32 --policy arm64-stock --quiet --json "$tmp/arm.json" "$tmp/arm.tlbt"
check "... flushing with TLBI broadcasts" bash -c "grep -q '\"tlbi_broadcasts_sent\": [1-9]' '$tmp/arm.json'"
printf 'tlbsim-trace 1 isa=x86-64 page_shift=12\nproc_create 1 1\ncpu0 invlpg 0x1000\n' >"$tmp/k.txt"
"$bin" convert --retarget arm64 "$tmp/k.txt" "$tmp/k2.txt" 2>"$tmp/err"; rc=$?
check "a kernel-level trace cannot be retargeted (exit 2)" test $rc -eq 2
check "... the message names its line and the event" grep -q "k.txt:3: event 1 (invlpg)" "$tmp/err"
check "... and nothing is left" test ! -e "$tmp/k2.txt"

# compare runs its policies at once (issue 28): independent simulations, so
# the statistics are those of one at a time, byte for byte, also with the
# cores on 2 host threads each.
"$bin" compare --jobs 1 --quiet --machine milan-36 --gen madvise-threads --param threads=4,loops=3 --json "$tmp/j1.json" >/dev/null 2>&1
"$bin" compare --jobs 4 --machine milan-36 --gen madvise-threads --param threads=4,loops=3 --json "$tmp/j4.json" >"$tmp/j4.txt" 2>/dev/null
"$bin" compare --jobs 2 --threads 2 --quiet --machine milan-36 --gen madvise-threads --param threads=4,loops=3 --json "$tmp/j2.json" >/dev/null 2>&1
check "compare --jobs 4 gives the statistics of --jobs 1" cmp "$tmp/j1.json" "$tmp/j4.json"
check "compare --jobs 2 --threads 2 too" cmp "$tmp/j1.json" "$tmp/j2.json"
check "compare: every x86 policy ran" bash -c "[ \$(grep -c '\"schema\": \"tlbsim-stats/1\"' '$tmp/j4.json') -eq 4 ]"
check "compare leads with the answer" bash -c "sed -n 2p '$tmp/j4.txt' | grep -q '^Fewest cycles on TLB coherence: '"
# The chart: a path with quote and shell characters is a file name, never script.
if command -v gnuplot >/dev/null; then
  odd="$tmp/a'b\"c\$(touch owned)\\.svg"
  check "compare --plot draws an SVG at an odd path" bash -c "cd '$tmp' && '$bin' compare --quiet --machine milan-36 --policies x86-stock,x86-invlpgb --gen madvise-threads --param threads=4,loops=2 --plot \"\$0\" >/dev/null" "$odd"
  check "... which is an SVG" grep -q '<svg' "$odd"
  check "... and the path ran nothing" test ! -e "$tmp/owned"
  check "... with the coherence kinds in its legend" grep -q 'walks after flushes' "$odd"
fi

# compare, stopped by SIGINT 2 s into a long run of two policies, JOBS at
# a time: sets rc, the output in sig.txt and sig.json.
interrupt_compare() {
  rm -f "$tmp"/sig.json*
  timeout -s KILL 120 "$bin" compare --jobs "$1" --machine generic-x86-64 --policies x86-stock,flush-all --gen ctx-switch --param loops=100000000 --json "$tmp/sig.json" >"$tmp/sig.txt" 2>&1 &
  pid=$!
  sleep 2
  kill -INT $pid
  wait $pid; rc=$?
}
# One at a time: the run in progress is stopped, later ones do not start.
interrupt_compare 1
check "compare: SIGINT exits 130" test $rc -eq 130
check "compare: the stopped run is marked partial" grep -q '^\[partial\] x86-stock' "$tmp/sig.txt"
check "compare: later policies do not run" bash -c "! grep -q 'running flush-all' '$tmp/sig.txt'"
check "compare: the JSON holds the one partial run" bash -c "[ \$(grep -c '\"partial\": true' '$tmp/sig.json') -eq 1 ]"
check "compare: SIGINT leaves no temporary file" bash -c "! ls -a '$tmp' | grep -q '\.tmp\.'"
# Two at once: both are stopped, both partial.
interrupt_compare 2
check "compare --jobs 2: SIGINT exits 130" test $rc -eq 130
check "compare --jobs 2: both runs are stopped and marked partial" bash -c "[ \$(grep -c '\"partial\": true' '$tmp/sig.json') -eq 2 ]"

# The hazard oracle (issues 6, 7, 8).
ex="$src/tests/data/traces/execlog"
check "run --check: the arm64 unmap with TLBI+DSB is safe (exit 0)" "$bin" run --machine generic-arm64 --check --format insn --quiet "$ex/oracle-arm64-safe.insn"
"$bin" run --machine generic-arm64 --check --format insn --json "$tmp/o.json" "$ex/oracle-arm64-nodsb.insn" >"$tmp/o.txt" 2>&1; rc=$?
check "run --check: without the second DSB, exit 1" test $rc -eq 1
check "run --check: ... reports the frame reused before the DSB" grep -q '"kind": "incomplete_maintenance"' "$tmp/o.json"
check "run --check: ... and lists it after the table" grep -q '^  incomplete_maintenance: event' "$tmp/o.txt"
check "run --check: the x86 unmap with INVLPGB+TLBSYNC is safe" "$bin" run --machine milan-36 --check --format insn --quiet "$ex/oracle-x86-safe.insn"
"$bin" run --machine milan-36 --check --format insn --quiet "$ex/oracle-x86-notlbsync.insn"; rc=$?
check "run --check: without TLBSYNC, exit 1" test $rc -eq 1
"$bin" run --machine generic-arm64 --format insn --quiet "$ex/oracle-arm64-nodsb.insn"; rc=$?
check "run without --check: the same trace exits 0" test $rc -eq 0
check "run --check: a shipped policy on a generator is hazard-free" "$bin" run --machine emag-32 --policy arm64-stock --check --quiet --gen madvise-threads --param threads=4,loops=2
printf 'tlbsim-trace 1 isa=x86-64 page_shift=12\nproc_create 1 1\nT1 thread_create 2\nT1@cpu0 switch\nT2@cpu1 switch\nT1 mmap 0x10000000 0x1000 rw- private,anon\nT1 store 0x10000000 8\nT2 load 0x10000000 8\nT2 compute 100000 cycles\nT1 munmap 0x10000000 0x1000\nT2 load 0x10000000 8\n' >"$tmp/ack.tlbt"
check "run --check: x86-stock on the munmap trace is safe" "$bin" run --machine x86-16 --policy x86-stock --check --quiet "$tmp/ack.tlbt"
"$bin" run --machine x86-16 --policy x86-stock:ack_early=1 --check --json "$tmp/ack.json" --quiet "$tmp/ack.tlbt"; rc=$?
check "run --check: a policy that acknowledges IPIs before flushing exits 1" test $rc -eq 1
check "run --check: ... with a stale use by cpu 1 at event 9" python3 -c "import json,sys; r=json.load(open('$tmp/ack.json'))['hazards']['reports']; sys.exit(not any(x['kind']=='stale_use' and x['cpu']==1 and x['event']==9 for x in r))"
printf 'tlbsim-trace 1 isa=arm64 page_shift=12\n#@ machine generic-arm64\n#@ bogus 1\n' >"$tmp/bad.tlbt"
"$bin" check "$tmp/bad.tlbt" >/dev/null 2>"$tmp/bad.err"; rc=$?
check "check: an unknown directive exits 2" test $rc -eq 2
check "check: ... naming the line" grep -q 'bad.tlbt:3' "$tmp/bad.err"
printf 'tlbsim-trace 1 isa=arm64 page_shift=12\n#@ machine generic-arm64\n#@ mode kernel\n#@ expect stale_use@1\ncpu0 table_alloc 0x10 3\ncpu0 table_alloc 0x11 2\n' >"$tmp/fail.tlbt"
"$bin" check "$tmp/fail.tlbt" >"$tmp/fail.txt" 2>&1; rc=$?
check "check: a scenario whose verdict differs exits 1" test $rc -eq 1
check "check: ... and says FAIL with what it found" grep -q '^FAIL .*found' "$tmp/fail.txt"
# Scenario 21 with the nested-flush rule kept: its file order is still
# safe, but no interleaving reaches a hazard, so only the exploration fails.
sed 's/^#@ os no_nested_flush/# (nested-flush rule kept)/' "$src/tests/hazards/21-madvise-dontneed-race.tlbt" >"$tmp/nested.tlbt"
"$bin" check --explore "$tmp/nested.tlbt" >"$tmp/nested.txt" 2>&1; rc=$?
check "check: a failed exploration exits 1" test $rc -eq 1
check "check: ... and the FAIL line says the exploration failed" grep -q '^FAIL .*explore: expected hazard, 0 of 35 orders reach one' "$tmp/nested.txt"
printf 'tlbsim-trace 1 isa=x86-64 page_shift=12\n#@ machine generic-x86-64\n#@ mode os\n#@ expect safe\n#@ mode kernel\nproc_create 1 1\n' >"$tmp/dup.tlbt"
"$bin" check "$tmp/dup.tlbt" >/dev/null 2>"$tmp/dup.err"; rc=$?
check "check: a second mode directive exits 2" test $rc -eq 2
check "check: ... naming both lines" grep -q "dup.tlbt:5:4: a second '#@ mode' directive; the first is on line 3" "$tmp/dup.err"
printf 'tlbsim-trace 1 isa=x86-64 page_shift=12\n#@ machine no-such-machine\n#@ expect safe\nproc_create 1 1\n' >"$tmp/nomach.tlbt"
"$bin" check "$tmp/nomach.tlbt" >/dev/null 2>"$tmp/nomach.err"; rc=$?
check "check: an unknown machine exits 2" test $rc -eq 2
check "check: ... at its directive's line" grep -q "nomach.tlbt:2:12: machine: no machine named 'no-such-machine'" "$tmp/nomach.err"
: >"$tmp/empty.tlbt"
"$bin" check "$tmp/empty.tlbt" >/dev/null 2>"$tmp/empty.err"; rc=$?
check "check: an empty scenario exits 2" test $rc -eq 2
check "check: ... saying it is empty" grep -q "empty.tlbt:1:1: the scenario is empty" "$tmp/empty.err"
check "check --help has an example" bash -c "'$bin' check --help | grep -q example"

# Every shipped generator sample runs to the end on a machine of its ISA.
for f in "$src"/traces/samples/gen-*.tlbt.zst; do
  case $f in *mprotect-toggle*|*stencil-noise*) m=emag-32 ;; *) m=milan-36 ;; esac
  check "sample $(basename "$f") runs" "$bin" run --machine $m --quiet "$f"
done

# A recorded process started many times (docs/templates.md): 2 shells x 2
# copies of the shipped sort recording on the arm64 eMAG (an x86-64
# recording: its user-level events replay on either ISA).  Address spaces:
# the script, 2 subshells, and a fork copy and an exec'd image per copy:
# 1 + 2 + 4 x 2 = 11; sort takes 306 faults in each image.
sort_tpl="$src/traces/samples/sort.tlbt.xz"
"$bin" run --machine emag-32 --gen spawn --template "$sort_tpl" \
  --param shells=2,runs=2,shell_pages=8,shell_writes=2,child_writes=2 --quiet --json "$tmp/spawn.json"; rc=$?
check "run --gen spawn --template: 2 x 2 copies of sort run" test $rc -eq 0
check "... in 11 address spaces, no segv" python3 -c "import json,sys; s=json.load(open('$tmp/spawn.json')); sys.exit(not (s['os']['address_spaces'] == 11 and s['totals']['segv'] == 0 and s['totals']['faults'] >= 4 * 306))"
"$bin" run --machine emag-32 --gen spawn --param shells=2 --quiet 2>"$tmp/notpl.err"; rc=$?
check "run --gen spawn without --template exits 2" test $rc -eq 2
check "... saying how to give one" grep -q "spawn runs 1 process template (tlbsim run --template FILE), 0 given" "$tmp/notpl.err"
"$bin" run --machine emag-32 --gen spawn --template "$src/tests/data/traces/all_kinds.txt" --quiet 2>"$tmp/badtpl.err"; rc=$?
check "a text trace as template exits 2" test $rc -eq 2
check "... naming the conversion" grep -q "tlbsim convert --to binary" "$tmp/badtpl.err"
"$bin" run --machine emag-32 --gen mprotect-toggle --template "$sort_tpl" --quiet 2>"$tmp/extratpl.err"; rc=$?
check "a template for a generator that runs none exits 2" test $rc -eq 2
"$bin" run --machine emag-32 --template "$sort_tpl" "$sort_tpl" --quiet 2>/dev/null; rc=$?
check "--template without --gen exits 2" test $rc -eq 2

check_summary
