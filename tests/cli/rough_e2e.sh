#!/usr/bin/env bash
# End-to-end regressions of the command line's rough edges a tester found
# (session of 2026-12-02): each check failed on the code before its fix.
#   rough_e2e.sh TLBSIM_BINARY SOURCE_DIR
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 passes=0

check() { # description, then a command that must succeed
  local what=$1; shift
  if "$@"; then passes=$((passes+1)); else echo "FAIL: $what" >&2; fails=$((fails+1)); fi
}
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

echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
