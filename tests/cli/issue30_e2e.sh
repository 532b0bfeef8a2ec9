#!/usr/bin/env bash
# End-to-end regressions of issue 30, what a new user trips on: each check
# failed on the code before its fix (84c81f8).
#   issue30_e2e.sh TLBSIM_BINARY SOURCE_DIR
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 passes=0 skips=0

check() { # description, then a command that must succeed
  local what=$1; shift
  if "$@"; then passes=$((passes+1)); else echo "FAIL: $what"; fails=$((fails+1)); fi
}
# Only the file named is in directory $1 (nothing stray, no temporary file).
only_file() { [ "$(ls -A "$1")" = "$2" ]; }
# A private mount namespace with a tiny tmpfs at $tmp/full, for full-disk
# checks; skipped where mount namespaces are not allowed.
mkdir -p "$tmp/full"
full_disk() { # kib, then a shell command run with $tmp/full mounted
  local kib=$1; shift
  unshare -m sh -c "mount -t tmpfs -o size=${kib}k none '$tmp/full' && $*"
}
can_mount=0
full_disk 4 true 2>/dev/null && can_mount=1

# 1. --plot: the path is never parsed as gnuplot script; only the target
# is left.
mkdir "$tmp/plot"
inj="a'; system('touch pwned'); set output 'b.svg"
(cd "$tmp/plot" && "$bin" compare --machine x86-16 --policies x86-stock --gen madvise-threads \
  --param loops=1 --quiet --plot "$inj" >/dev/null 2>&1)
check "1: --plot runs no command named in the path" test ! -e "$tmp/plot/pwned"
check "1: --plot writes the file named, whatever its characters" grep -q '</svg>' "$tmp/plot/$inj"
check "1: --plot leaves no other file" only_file "$tmp/plot" "$inj"
rm -f "$tmp/plot/"*
(cd "$tmp/plot" && "$bin" compare --machine x86-16 --policies x86-stock --gen madvise-threads \
  --param loops=1 --quiet --plot "it's.svg" >/dev/null 2>&1)
check "1: --plot \"it's.svg\" writes it's.svg" only_file "$tmp/plot" "it's.svg"
# Misleading: --plot on a full disk fails and leaves nothing, whether the
# target's disk or gnuplot's temporary directory is full.
if [ $can_mount = 1 ]; then
  full_disk 8 "cd '$tmp/full' && '$bin' compare --machine x86-16 --policies x86-stock --gen madvise-threads --param loops=1 --quiet --plot c.png >/dev/null 2>'$tmp/err'; echo \$? >'$tmp/rc'; ls -A >'$tmp/ls'"
  check "misleading: --plot onto a full disk exits 2" test "$(cat "$tmp/rc")" = 2
  check "... says why" grep -q "c.png: cannot write the chart" "$tmp/err"
  check "... and leaves no file" test ! -s "$tmp/ls"
  full_disk 8 "TMPDIR='$tmp/full' '$bin' compare --machine x86-16 --policies x86-stock --gen madvise-threads --param loops=1 --quiet --plot '$tmp/plot/d.svg' >/dev/null 2>'$tmp/err'; echo \$? >'$tmp/rc'; ls -A '$tmp/full' >'$tmp/ls'"
  check "misleading: the chart is drawn beside its target, whatever \$TMPDIR holds" \
    bash -c "test \$(cat '$tmp/rc') = 0 && grep -q '</svg>' '$tmp/plot/d.svg' && test ! -s '$tmp/ls'"
else
  skips=$((skips+1))
fi

# 3. A recorded 4-thread program doing mmap/mprotect/madvise/munmap rounds
# (tests/data/traces/native/mmap-rounds-4threads.c) never touched memory
# outside a mapping: 0 segv, and the same faults under every policy
# (before: segv 132/132/133/132, faults 15421/15421/15423/15439 under the
# four below), on 1 and 2 host threads.
rec=$src/tests/data/traces/native/mmap-rounds-4threads.tlbt.xz
for p in x86-stock x86-lazy-cpumask x86-invlpgb flush-all; do
  for t in 1 2; do
    "$bin" run --machine milan-36 --policy $p --threads $t --quiet --json "$tmp/rec-$p-$t.json" "$rec" 2>/dev/null
    jq -r '"\(.totals.segv) \(.totals.faults)"' "$tmp/rec-$p-$t.json" >>"$tmp/rec.txt" 2>/dev/null
  done
done
check "3: a recorded program that never faulted has no segv, under any policy" \
  bash -c "[ \$(cut -d' ' -f1 '$tmp/rec.txt' | sort -u) = 0 ]"
check "3: its page faults do not depend on the policy or on --threads" \
  bash -c "[ \$(sort -u '$tmp/rec.txt' | wc -l) = 1 ] && [ \$(wc -l <'$tmp/rec.txt') = 8 ]"

# 4. Out of simulated memory is an error naming the event and the option,
# never accesses silently dropped; --memory sizes it.  page-faults with 2
# threads of 64 MiB needs 32768 data frames, more than --memory 64M's 16384.
"$bin" run --machine x86-16 --gen page-faults --param threads=2,size=64M,loops=1 --memory 64M \
  --quiet --json "$tmp/oom.json" 2>"$tmp/err"; rc=$?
check "4: running out of simulated memory exits 2" test $rc = 2
check "... naming the event, the frames and --memory" \
  grep -q "page-faults: event [0-9]*: out of simulated memory: a page fault at va 0x[0-9a-f]* needs a frame, and all 16384 (64.0 MiB) are in use .*--memory SIZE" "$tmp/err"
check "... and writes no JSON" test ! -e "$tmp/oom.json"
check "4: --memory 256M is enough" "$bin" run --machine x86-16 --gen page-faults \
  --param threads=2,size=64M,loops=1 --memory 256M --quiet --json "$tmp/mem.json"
check "... and the JSON says so, with the peak" \
  bash -c "jq -e '.memory.frames == 65536 and .memory.data_frames_peak == 32768' '$tmp/mem.json' >/dev/null"
"$bin" run --machine x86-16 --gen ctx-switch --memory 4097 2>"$tmp/err"; rc=$?
check "4: a malformed --memory exits 2 and says what it expects" \
  bash -c "test $rc = 2 && grep -q -- '--memory expects bytes of simulated physical memory' '$tmp/err'"

# 5. Standard output that cannot be written is an error (exit 2), as -o
# FILE is: a trace on "-", tables, listings, help.
"$bin" gen madvise-threads --format text -o - >/dev/full 2>"$tmp/err"; rc=$?
check "5: gen -o - onto /dev/full exits 2" test $rc = 2
check "... saying why, once" bash -c "grep -q 'standard output: cannot write: No space left on device' '$tmp/err' && [ \$(wc -l <'$tmp/err') = 1 ]"
for c in "run --machine x86-16 --gen ctx-switch --param loops=3" "list machines" "run --help" \
  "compare --machine x86-16 --policies x86-stock --gen ctx-switch --param loops=3"; do
  "$bin" $c >/dev/full 2>"$tmp/err"; rc=$?
  check "5: tlbsim $c onto /dev/full exits 2" bash -c "test $rc = 2 && grep -q 'standard output: cannot write' '$tmp/err'"
done
if [ $can_mount = 1 ]; then
  full_disk 16 "'$bin' gen madvise-threads --format text -o - >'$tmp/full/t.txt' 2>'$tmp/err'; echo \$? >'$tmp/rc'"
  check "5: gen -o - onto a full file system exits 2" test "$(cat "$tmp/rc")" = 2
else
  skips=$((skips+1))
fi

# 6. One JSON for a run, whatever is printed: --quiet or not, and compare's
# element for a policy is run's JSON for it (totals.cycles appeared only
# when the table was printed).
g="--machine x86-16 --gen madvise-threads --param loops=2"
"$bin" run $g --json "$tmp/j-table.json" >/dev/null 2>&1
"$bin" run $g --quiet --json "$tmp/j-quiet.json" 2>/dev/null
"$bin" compare $g --policies x86-stock --quiet --json "$tmp/j-cmp.json" >/dev/null 2>&1
check "6: the JSON is the same with and without --quiet" cmp -s "$tmp/j-table.json" "$tmp/j-quiet.json"
check "6: compare's JSON holds run's JSON" \
  cmp -s <(jq . "$tmp/j-quiet.json") <(jq '.[0]' "$tmp/j-cmp.json")
k="--machine generic-arm64 --check --format insn $src/tests/data/traces/execlog/oracle-arm64-nodsb.insn"
"$bin" run $k --json "$tmp/k-table.json" >/dev/null 2>&1
"$bin" run $k --quiet --json "$tmp/k-quiet.json" 2>/dev/null
check "6: ... and for a kernel-level replay" cmp -s "$tmp/k-table.json" "$tmp/k-quiet.json"

# 7. Kernel-level replay tables read what the mode counts: in
# oracle-arm64-nodsb.insn, cpu 1 walks once (an L1 miss and L2 miss, then
# an L1 hit: 50.00% and 0.00%), cpu 0's TLBI VAE1IS reaches cpus 1, 2 and
# 3 (3 broadcasts in), and there are no OS flush requests or faults to
# print as zeros; the x86 replay sends one INVLPGB.
"$bin" run $k >"$tmp/k.txt" 2>/dev/null
check "7: the kernel replay's total row has the walk, the hit rates and 3 broadcasts in" \
  grep -Eq '^total +17025 +24 +50\.00 +0\.00 +0\.00 +1 +0 +1 +3 +0 +18900 +0 +2$' "$tmp/k.txt"
check "... and cpu 1's row the same walk" grep -Eq '^1 +17025 +6 +50\.00 +0\.00 +0\.00 +1 ' "$tmp/k.txt"
"$bin" run --machine milan-36 --check --format insn \
  "$src/tests/data/traces/execlog/oracle-x86-notlbsync.insn" >"$tmp/kx.txt" 2>/dev/null
check "7: the x86 replay shows its INVLPGB sent" \
  bash -c "awk '\$1 == \"total\" { print \$11 }' '$tmp/kx.txt' | grep -qx 1"
check "7: no column the replay does not count" bash -c "! grep -q 'faults' '$tmp/k.txt'"

# Misleading: where the hazard reports beyond the first 10 are.
h="--machine emag-32 --policy arm64-nr-active-mm --check --gen stencil-noise --param ni=64,nj=32,nk=32,iters=2"
"$bin" run $h >"$tmp/h.txt" 2>/dev/null
check "misleading: without --json the table does not send the reader to a JSON" \
  bash -c "grep -q '^  \.\.\. [0-9]* more not shown (--json OUT keeps them, up to 1000)$' '$tmp/h.txt' && ! grep -q 'in the JSON' '$tmp/h.txt'"
"$bin" run $h --json "$tmp/h.json" >"$tmp/h.txt" 2>/dev/null
check "... with --json it names the file" grep -q "more in $tmp/h.json (\"hazards\".\"reports\")" "$tmp/h.txt"

# Misleading: stencil-noise's timed cpu 40 on the 32 of emag-32 is folded
# with a warning; the README's example names cpus the machine has.
"$bin" run --machine emag-32 --gen stencil-noise --param ni=64,nj=32,nk=32,iters=2,cpu=40 --quiet 2>"$tmp/err"
check "misleading: folded switches are warned about" \
  grep -q "warning: arm64-stock: 1 switches folded" "$tmp/err"
"$bin" run --machine emag-32 --gen stencil-noise --param ni=64,nj=32,nk=32,iters=2 --quiet 2>"$tmp/err"
check "... and the README's parameters fold none" test ! -s "$tmp/err"
check "... which the README says" grep -q -- "--check --gen stencil-noise --param ni=64,nj=32,nk=32,iters=2" "$src/README.md"
# Friction: segv is in the table and on stderr.
printf 'tlbsim-trace 1 isa=x86-64 page_shift=12\nproc_create 1 1\nT1 load 0x1000 8\nT1 exit\n' >"$tmp/segv.txt"
"$bin" run --machine x86-16 "$tmp/segv.txt" >"$tmp/out" 2>"$tmp/err"
check "friction: a segv is in the run table" grep -q "^segv: 1 (accesses outside any mapping" "$tmp/out"
check "... and warned about on stderr" grep -q "warning: x86-stock: 1 segv" "$tmp/err"
"$bin" compare --machine x86-16 --policies x86-stock,flush-all "$tmp/segv.txt" >"$tmp/out" 2>/dev/null
check "... and in the compare table" grep -Eq "^segv +1 +1" "$tmp/out"
# Misleading: the footer of a capped run counts the events run, not those read ahead.
"$bin" run --machine x86-16 --gen ctx-switch --param loops=1000 --max-cycles 100000 >"$tmp/out"
check "misleading: a capped run's footer counts events run, and read" \
  grep -Eq "cycles at 3.00 GHz\), [0-9]+ events run on cpus of 4006 read \(the stop leaves some read unrun" "$tmp/out"
# ... and a complete run says why events read and run differ: the first
# proc_create (performed by no thread) runs as it is read.  ctx-switch
# loops=3.
"$bin" run --machine x86-16 --gen ctx-switch --param loops=3 --json "$tmp/cs.json" >"$tmp/out"
check "misleading: a complete run's footer explains events read vs run" \
  grep -Eq "events run on cpus of [0-9]+ read \(creations of processes by no thread run on no cpu\)$" "$tmp/out"
# Misleading: x86-invlpgb is refused on a machine without INVLPGB, and left
# out of compare's default list, saying so.
"$bin" run --machine x86-16 --policy x86-invlpgb --gen ctx-switch 2>"$tmp/err"; rc=$?
check "misleading: x86-invlpgb without INVLPGB exits 2" \
  bash -c "test $rc = 2 && grep -q 'policy x86-invlpgb needs INVLPGB, which machine x86-16 lacks' '$tmp/err'"
"$bin" compare --machine x86-16 --gen ctx-switch --param loops=3 >"$tmp/out" 2>"$tmp/err"
check "... and left out of compare's default list, saying so" \
  bash -c "grep -q 'x86-invlpgb left out' '$tmp/err' && ! grep -q invlpgb '$tmp/out'"
# Misleading: more than 16 --policies is an error, not a silent cut.
"$bin" compare --machine x86-16 --policies "$(printf 'x86-stock,%.0s' $(seq 17))" --gen ctx-switch 2>"$tmp/err"; rc=$?
check "misleading: 17 policies exit 2" bash -c "test $rc = 2 && grep -q 'at most 16 policies' '$tmp/err'"
# Friction: --machine or --policies twice is an error; compare checks the
# trace before it runs anything.
"$bin" run --machine x86-16 --machine milan-36 --gen ctx-switch 2>"$tmp/err"; rc=$?
check "friction: --machine twice exits 2" bash -c "test $rc = 2 && grep -q -- '--machine given twice' '$tmp/err'"
"$bin" compare --machine x86-16 --policies x86-stock --policies flush-all --gen ctx-switch 2>"$tmp/err"; rc=$?
check "friction: --policies twice exits 2" bash -c "test $rc = 2 && grep -q -- '--policies given twice' '$tmp/err'"
# Misleading: a policy named twice would run twice and rank against itself;
# an empty item (",,", a trailing comma) is a typo, not "skip".
"$bin" compare --machine x86-16 --policies x86-stock,flush-all,x86-stock --gen ctx-switch 2>"$tmp/err"; rc=$?
check "misleading: a policy named twice exits 2" bash -c "test $rc = 2 && grep -q \"'x86-stock' named twice (byte 20 of\" '$tmp/err'"
"$bin" compare --machine x86-16 --policies x86-stock,,flush-all --gen ctx-switch 2>"$tmp/err"; rc=$?
check "misleading: an empty policy name exits 2" bash -c "test $rc = 2 && grep -q 'empty name at byte 10 of' '$tmp/err'"
"$bin" run --machine x86-16 --gen ctx-switch --os lru_add_drain=1,,per_vma_lock=1 2>"$tmp/err"; rc=$?
check "misleading: an empty --os item exits 2" bash -c "test $rc = 2 && grep -q 'byte 16 of' '$tmp/err'"
# --os twice: the second list replaced the first without a word (a
# tester's finding); one list.
"$bin" run --machine x86-16 --os lru_add_drain=1 --os fault_lock=mm --gen ctx-switch 2>"$tmp/err"; rc=$?
check "friction: --os twice exits 2" bash -c "test $rc = 2 && grep -q -- '--os given twice' '$tmp/err'"
"$bin" compare --machine x86-16 --policies x86-stock "$tmp/nosuch.tlbt" 2>"$tmp/err"; rc=$?
check "friction: compare checks the trace before running" \
  bash -c "test $rc = 2 && ! grep -q running '$tmp/err' && grep -q 'nosuch.tlbt: cannot read' '$tmp/err'"

# Friction: gen stops at SIGINT and leaves no FILE.tmp.XXXXXX (a trace
# of 4e8 events would take minutes; 1 s is ample to start writing).
mkdir "$tmp/sig"
"$bin" gen mprotect-toggle --param procs=1,loops=100000000 -o "$tmp/sig/t.tlbt" 2>"$tmp/err" &
pid=$!; sleep 1; kill -INT $pid; wait $pid; rc=$?
check "friction: gen exits 130 at SIGINT" test $rc = 130
check "... and leaves nothing behind" test -z "$(ls -A "$tmp/sig")"

# Friction: "-" is standard output for convert too (it wrote a file named
# "-"), and an output's name says its format and compression unless --to
# or --compress say otherwise, with a warning (convert X out.txt wrote
# zstd binary).  Magic numbers: zstd 28 b5 2f fd (RFC 8878 3.1.1), xz fd
# 37 7a 58 5a 00 (xz file format 2.1.1.1), binary TLBSIMTR (FORMAT.md).
mkdir "$tmp/conv" && (
  cd "$tmp/conv" || exit 1
  "$bin" gen madvise-threads --param loops=1 -o in.tlbt 2>/dev/null
  "$bin" convert in.tlbt - >out 2>err
  "$bin" convert in.tlbt o.txt >/dev/null 2>err-txt
  "$bin" convert in.tlbt o.txt.xz >/dev/null 2>&1
  "$bin" convert in.tlbt b.txt --to binary >/dev/null 2>err-bin
  "$bin" convert in.tlbt o2.tlbt.zst --compress xz >/dev/null 2>err-xz
  "$bin" gen madvise-threads --param loops=1 -o g.txt 2>/dev/null
  "$bin" convert in.tlbt o.gz >/dev/null 2>err-gz; echo $? >rc-gz
)
c=$tmp/conv
check "friction: convert IN - writes no file named -" test ! -e "$c/-"
check "... but the trace, as text, on standard output" \
  bash -c "head -1 '$c/out' | grep -q '^tlbsim-trace 1 isa=x86-64' && grep -q '^T2 madvise 0x' '$c/out'"
check "... with its summary on stderr" grep -q "^-: [0-9]* events in" "$c/err"
check "... and it reads back as the same events" \
  bash -c "'$bin' convert '$c/out' '$c/back.txt' >/dev/null && cmp -s '$c/out' '$c/back.txt'"
check "friction: convert X out.txt writes uncompressed text" \
  bash -c "head -c 13 '$c/o.txt' | grep -q '^tlbsim-trace ' && test ! -s '$c/err-txt'"
check "... out.txt.xz xz-compressed text" \
  bash -c "[ \"\$(head -c 6 '$c/o.txt.xz' | od -An -tx1 | tr -d ' ')\" = fd377a585a00 ] && xz -dc '$c/o.txt.xz' | head -c 13 | grep -q '^tlbsim-trace '"
check "... --to binary wins over .txt, with a warning" \
  bash -c "head -c 8 '$c/b.txt' | grep -q TLBSIMTR && grep -q 'warning: b.txt: the name says text, but --to binary writes binary' '$c/err-bin'"
check "... --compress xz wins over .zst, with a warning" \
  bash -c "[ \"\$(head -c 6 '$c/o2.tlbt.zst' | od -An -tx1 | tr -d ' ')\" = fd377a585a00 ] && grep -q 'the name says zstd, but --compress xz writes xz' '$c/err-xz'"
check "... gen -o g.txt writes text too" bash -c "head -c 13 '$c/g.txt' | grep -q '^tlbsim-trace '"
check "... a .gz name is refused (tlbsim writes no gzip)" \
  bash -c "[ \$(cat '$c/rc-gz') = 2 ] && grep -q 'o.gz: tlbsim writes zstd (.zst) or xz (.xz), not gzip' '$c/err-gz' && test ! -e '$c/o.gz'"

# Friction: list generators shows ranges, units, K/M/G suffixes and the
# seed, in columns that long names (stencil-noise's noise_compute) do not
# push out.  madvise-threads' size: default 1 MiB = 1M, range 1..2^32 = 4G
# bytes (traces/gen_madvise_threads.c); small-free's max 64 KiB = 64K.
"$bin" list generators >"$tmp/gens" 2>&1
check "friction: list generators shows a size with its suffix, range and unit" \
  grep -Eq '^      size +1M +1\.\.4G +bytes +bytes each thread maps per round$' "$tmp/gens"
check "... values' syntax: K, M and G suffixes" grep -q "optional K, M or G suffix" "$tmp/gens"
check "... a seed row for each generator" \
  bash -c "[ \$(grep -c '^      seed  ' '$tmp/gens') = \$(grep -c '^  [a-z-]*: ' '$tmp/gens') ]"
check "... saying which draw random numbers (short-procs, small-free)" \
  bash -c "[ \$(grep '^      seed  ' '$tmp/gens' | grep -c 'of its random numbers') = 2 ]"
check "... every parameter's default in one column, noise_compute's too" \
  bash -c "grep -q '^      noise_compute  ' '$tmp/gens' && [ \$(awk '/^      [a-z_]+ +[0-9]/ { match(\$0, /^      [a-z_]+ +/); print RLENGTH }' '$tmp/gens' | sort -u | wc -l) = 1 ]"
# A generator's notes (struct tlbsim_generator.notes) come right under its
# "(models)" line, before the parameters; kthread-mm and madvise-threads
# are the two that have them (traces/gen_kthread_mm.c,
# traces/gen_madvise_threads.c); filled to 79 columns, continuation lines
# under the first word (11 spaces).
check "... madvise-threads' notes under its line, before its parameters" \
  bash -c "grep -A3 '^  madvise-threads: ' '$tmp/gens' | sed -n 3p | grep -q '^    notes: Only the benchmark'"
check "... kthread-mm's too, and no other generator has notes" \
  bash -c "grep -A2 '^  kthread-mm: ' '$tmp/gens' | sed -n 3p | grep -q '^    notes: The process and the worker hand off' && [ \$(grep -c '^    notes: ' '$tmp/gens') = 2 ]"
check "... notes lines fit in 79 columns" \
  awk '(/^    notes: / || /^           [^ ]/) && length > 79 { bad = 1 } END { exit bad }' "$tmp/gens"

# Friction: tlbsim.h is the whole public API (trace.h and check.h were missing).
printf '#include <tlbsim/tlbsim.h>\nint main(void) { tlbsim_trace_reader *r = 0; struct tlbsim_replay_config c = {0}; (void)r; (void)c; return 0; }\n' >"$tmp/all.c"
check "friction: tlbsim.h declares the trace and replay APIs" cc -std=c11 -fsyntax-only -I "$src/include" "$tmp/all.c"

# Friction: a progress line on a terminal (script(1) gives a pty), one
# piece of code for every command (src/report/progress.c), drawn here from
# the start (TLBSIM_PROGRESS_DELAY=0; a second by default) each 65536
# events: gen's 800 K events (loops=200: 4 threads x 200 rounds x 256
# pages x 4 events) give lines.  Not with --quiet, not when stderr is no
# terminal.
if command -v script >/dev/null; then
  export TLBSIM_PROGRESS_DELAY=0
  gen="'$bin' gen madvise-threads --param loops=200 -o - >/dev/null"
  script -qec "$gen" /dev/null >"$tmp/tty-gen" 2>&1
  check "friction: gen on a terminal draws a progress line (events, rate, time)" \
    grep -aEq $'\r\033\\[Kmadvise-threads: [0-9.]+ (M )?events, [0-9.]+ M events/s, [0-9]+ s' "$tmp/tty-gen"
  script -qec "$gen --quiet" /dev/null >"$tmp/tty-quiet" 2>&1
  check "... not with --quiet" bash -c "! grep -aq 'events/s' '$tmp/tty-quiet'"
  "$bin" gen madvise-threads --param loops=200 -o - 2>"$tmp/notty" >/dev/null
  check "... nor when stderr is no terminal" test ! -s "$tmp/notty"
  run="'$bin' run --machine x86-16 --policy x86-stock --gen madvise-threads --param loops=20,size=4M --json '$tmp/p.json' >/dev/null"
  script -qec "$run" /dev/null >"$tmp/tty-run" 2>&1
  check "... run's line has the simulated time" \
    grep -aEq 'madvise-threads: [0-9.]+ (M )?events, [0-9.]+ M events/s, simulated [0-9.e+-]+ s' "$tmp/tty-run"
  unset TLBSIM_PROGRESS_DELAY
else
  echo "SKIP: progress lines (no script(1))"
  skips=$((skips+1))
fi

echo "$passes passed, $fails failed, $skips skipped"
[ $fails -eq 0 ]
