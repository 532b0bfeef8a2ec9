#!/usr/bin/env bash
# End-to-end regressions of the command line's rough edges a tester found
# (session of 2026-12-02): each check failed on the code before its fix.
#   rough_e2e.sh TLBSIM_BINARY SOURCE_DIR
bin=$1 src=$2
. "$(dirname "$0")/e2e_common.sh"
g="--machine generic-x86-64 --gen ctx-switch --param loops=3"

# (c) --json - without --quiet: standard output is the JSON alone (jq reads
# it), the tables go to standard error.
"$bin" run $g --json - >"$tmp/run.out" 2>"$tmp/run.err"; rc=$?
check "c: run --json - exits 0" test $rc -eq 0
check "c: run --json -: standard output is one JSON document" jq -e '.schema == "tlbsim-stats/1"' "$tmp/run.out" >/dev/null
check "c: ... and the table is on standard error" grep -q '^tlbsim run on generic-x86-64' "$tmp/run.err"
"$bin" compare $g --policies x86-stock,flush-all --json - >"$tmp/cmp.out" 2>"$tmp/cmp.err"; rc=$?
check "c: compare --json - exits 0" test $rc -eq 0
check "c: compare --json -: standard output is the JSON array alone" jq -e 'length == 2' "$tmp/cmp.out" >/dev/null
check "c: ... and the answer is on standard error" grep -q '^Fewest cycles on TLB coherence: ' "$tmp/cmp.err"
"$bin" run $g --json "$tmp/f.json" >"$tmp/f.out" 2>/dev/null
check "c: with --json FILE the table stays on standard output" grep -q '^tlbsim run on generic-x86-64' "$tmp/f.out"

# (d) --quiet means the same on run and compare: nothing on standard output
# (no tables), no progress or "running" lines; the JSON is still written.
"$bin" run $g --quiet --json "$tmp/q.json" >"$tmp/q.out" 2>"$tmp/q.err"
check "d: run --quiet prints nothing on standard output" test ! -s "$tmp/q.out"
check "d: ... nor on standard error" test ! -s "$tmp/q.err"
"$bin" compare $g --policies x86-stock,flush-all --quiet --json "$tmp/qc.json" >"$tmp/qc.out" 2>"$tmp/qc.err"; rc=$?
check "d: compare --quiet exits 0" test $rc -eq 0
check "d: compare --quiet prints nothing on standard output" test ! -s "$tmp/qc.out"
check "d: ... nor on standard error (no 'running' lines)" test ! -s "$tmp/qc.err"
check "d: ... and writes the JSON" jq -e 'length == 2' "$tmp/qc.json" >/dev/null
"$bin" compare $g --policies x86-stock,flush-all --quiet --json - >"$tmp/qj.out" 2>/dev/null
check "d: compare --quiet --json -: standard output is the JSON" jq -e 'length == 2' "$tmp/qj.out" >/dev/null

# (e) compare does not rank partial runs against complete ones.  Under
# --max-cycles 5250000, madvise-threads loops=2 on generic-x86-64 ends
# under x86-stock (5215708 cycles) and not under flush-all (5316893
# uncapped): flush-all is partial, and left out of the ranking.
"$bin" compare --machine generic-x86-64 --policies x86-stock,flush-all --gen madvise-threads \
  --param loops=2 --max-cycles 5250000 --json "$tmp/mix.json" >"$tmp/mix.txt" 2>/dev/null; rc=$?
check "e: a capped compare exits 0" test $rc -eq 0
check "e: ... the JSON has x86-stock complete and flush-all partial" \
  jq -e '[.[].partial] == [false, true]' "$tmp/mix.json" >/dev/null
check "e: ... the partial run is said not to be ranked" \
  grep -q '^\[partial\] flush-all stopped early (--max-events or --max-cycles): .* not ranked' "$tmp/mix.txt"
check "e: ... the answer ranks x86-stock alone" \
  grep -qx "Fewest cycles on TLB coherence: x86-stock, .* cycles (.*% of the cpus' non-idle cycles)\." "$tmp/mix.txt"
check "e: ... no ratio of the partial run to the complete one" \
  bash -c "grep -E '^simulated cycles ' '$tmp/mix.txt' | grep -Eq ' 5215708 +[0-9]+ +-\$'"
# Every run capped at the same --max-events: ranked together, over that part.
"$bin" compare --machine generic-x86-64 --policies x86-stock,flush-all --gen madvise-threads \
  --param loops=2 --max-events 200 >"$tmp/cap.txt" 2>/dev/null
check "e: runs capped alike are ranked together" \
  bash -c "grep -q '^\[partial\] x86-stock stopped at the --max-events or --max-cycles cap, as every run did' '$tmp/cap.txt' && grep -q '^Fewest cycles on TLB coherence: .*; .* as many' '$tmp/cap.txt'"
# SIGINT 2 s into a long run, one policy at a time: the run in progress is
# partial and not ranked; the one that never started is listed as not run;
# exit 130 as before.
timeout -s KILL 120 "$bin" compare --jobs 1 --machine generic-x86-64 --policies x86-stock,flush-all \
  --gen ctx-switch --param loops=100000000 --json "$tmp/int.json" >"$tmp/int.txt" 2>/dev/null &
pid=$!
sleep 2
kill -INT $pid
wait $pid; rc=$?
check "e: an interrupted compare exits 130" test $rc -eq 130
check "e: ... the interrupted run is partial, not ranked" \
  grep -q '^\[partial\] x86-stock stopped early (interrupted): .* not ranked' "$tmp/int.txt"
check "e: ... the policy that never started is listed as not run" \
  grep -qx '\[not run\] flush-all: interrupted before it started' "$tmp/int.txt"
check "e: ... and nothing is ranked" \
  bash -c "grep -q '^No ranking: no run covers the whole workload' '$tmp/int.txt' && ! grep -q '^Fewest cycles' '$tmp/int.txt'"
check "e: ... the JSON holds the one run made" jq -e 'length == 1 and .[0].partial' "$tmp/int.json" >/dev/null

check_summary
