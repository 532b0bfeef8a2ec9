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

echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
