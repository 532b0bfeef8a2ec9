#!/usr/bin/env bash
# End-to-end test of the reproduction runner (issue 9): a tiny experiment
# at --scale 4 (loops 40 -> 10) writes a JSON whose table has one row per
# metric, with the published figures carried over and the ratio the
# baseline's value over the policy's; a bad experiment file fails with a
# message naming it and leaves no JSON.
#   reproduce_e2e.sh TLBSIM_REPRODUCE SOURCE_DIR
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

check() { # description, then a command that must succeed
  local what=$1; shift
  if ! "$@"; then echo "FAIL: $what"; fails=$((fails+1)); fi
}

"$bin" --quiet --scale 4 --json "$tmp/out.json" "$src/tests/data/reproduce/tiny.json" >"$tmp/table" 2>"$tmp/err"
rc=$?
check "tiny experiment exits 0" test $rc -eq 0
check "the printed table has the experiment's two rows" test "$(grep -c '^t1 ' "$tmp/table")" -eq 2
check "no temporary file left" bash -c "! ls '$tmp' | grep -q tmp"
# The rate is ops / seconds with ops = procs x loops x 2 = 2 x 10 x 2 = 40
# (loops 40 scaled by 4); the ratio of a time is baseline / value.
check "JSON table: rows, scaled params, published figures, ratios" python3 - "$tmp/out.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t = r["table"]
assert r["schema"] == "tlbsim-reproduce/1" and r["scale"] == 4 and r["failures"] == 0, r
assert len(t) == 2, t
sec, rate = t
assert sec["experiment"] == "t1" and sec["metric"] == "seconds", sec
assert sec["baseline"] == "arm64-stock" and sec["policy"] == "arm64-nr-active-mm", sec
assert "loops=10" in sec["params"], sec["params"]
assert sec["published_baseline"] == 2.0 and sec["published_value"] == 1.0, sec
assert sec["kind"] == "prediction"
assert abs(sec["ratio"] - sec["baseline_value"] / sec["value"]) < 1e-9 * sec["ratio"], sec
runs = r["experiments"][0]["variants"][0]["runs"]
assert [x["policy"] for x in runs] == ["arm64-stock", "arm64-nr-active-mm"]
for x, v in zip(runs, (rate["baseline_value"], rate["value"])):
    assert abs(v - 40 / x["seconds"]) < 1e-9 * v, (v, x["seconds"])
assert rate["published_value"] is None and rate["published_ratio"] is None
PY

"$bin" --quiet --json "$tmp/bad.json" "$src/tests/data/reproduce/bad_metric.json" >/dev/null 2>"$tmp/err"
rc=$?
check "a bad experiment file exits 1" test $rc -eq 1
check "its error names the file and the metric" grep -q "bad_metric.json: metrics\[0\]: unknown metric 'speed'" "$tmp/err"

"$bin" --scale 0.5 "$src/tests/data/reproduce/tiny.json" >/dev/null 2>"$tmp/err"
rc=$?
check "--scale below 1 is a usage error" test $rc -eq 2

[ $fails -eq 0 ] || { cat "$tmp/err"; exit 1; }
echo "reproduce_e2e: all checks passed"
