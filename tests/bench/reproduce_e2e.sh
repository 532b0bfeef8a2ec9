#!/usr/bin/env bash
# End-to-end test of the reproduction runner (issue 9): a tiny experiment
# at --scale 4 (loops 40 -> 10) writes a JSON whose table has one row per
# metric, with the published figures carried over and the ratio the
# baseline's value over the policy's; a bad experiment file fails with a
# message naming it and leaves no JSON.  Input errors (an empty directory,
# an unknown --only id, an unknown generator, policy or machine, a bad
# parameter, an unwritable --json, ...) are found before any experiment
# runs, and their messages name the file and the key.
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

# Variants of tiny.json: mk NAME 'python statements on d' writes $tmp/NAME.json.
mk() {
  python3 - "$src/tests/data/reproduce/tiny.json" "$tmp/$1.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}
# run ARGS...: the runner at --scale 40 into $tmp/o.json; sets rc, leaves
# stderr in $tmp/err (progress lines "[ID] ..." included: no --quiet).
run() {
  rm -f "$tmp/o.json"
  "$bin" --scale 40 --json "$tmp/o.json" "$@" >/dev/null 2>"$tmp/err"
  rc=$?
}
# A bad file is reported before the first run starts, naming it and why.
bad_file() { # description, file name, message (grep -E)
  run "$tmp/$2.json"
  check "$1: exits 1" test $rc -eq 1
  check "$1: names $2.json and says why" grep -Eq "^reproduce: $tmp/$2.json: $3" "$tmp/err"
  check "$1: no simulation ran" bash -c "! grep -q '^\[' '$tmp/err'"
  check "$1: no JSON" test ! -e "$tmp/o.json"
}

mkdir "$tmp/empty"; touch "$tmp/empty/notes.txt"
run "$tmp/empty"
check "a directory without experiments exits 2" test $rc -eq 2
check "its error names the directory" grep -q "reproduce: $tmp/empty: no \*.json experiment files" "$tmp/err"
check "and writes no JSON" test ! -e "$tmp/o.json"

run --only t1,zz "$src/tests/data/reproduce/tiny.json"
check "--only with an unknown id exits 2" test $rc -eq 2
check "its error names the id" grep -q "reproduce: --only: no experiment has the id 'zz' (ids: t1)" "$tmp/err"
check "and nothing ran" bash -c "! grep -q '^\[' '$tmp/err' && test ! -e '$tmp/o.json'"

mk gen 'd["generator"] = "nosuch"'
bad_file "an unknown generator" gen "top level: generator 'nosuch' .*unknown generator"
mk param 'd["params"]["nosuch"] = 1'
bad_file "an unknown generator parameter" param "top level: generator 'mprotect-toggle' .*nosuch"
mk pol 'd["policies"][1] = "nosuch"; del d["metrics"][0]["published"]'
bad_file "an unknown policy" pol "policies\[1\]: 'nosuch' on generic-arm64"
mk isa 'd["policies"][1] = "x86-stock"; del d["metrics"][0]["published"]'
bad_file "a policy of another ISA" isa "policies\[1\]: 'x86-stock' on generic-arm64"
mk machine 'd["machine"] = "nosuch"'
bad_file "an unknown machine" machine "top level: machine 'nosuch'"
mk scale 'd["scale"] = ["nosuch"]'
bad_file "a scale naming no parameter" scale "scale\[0\]: 'nosuch' is not a whole-number parameter"
mk ops 'd["metrics"][1]["ops"] = ["procs", "nosuch"]'
bad_file "a rate's ops naming no parameter" ops "metrics\[1\]\.ops: 'nosuch' is not a whole-number parameter"
mk one 'd["policies"] = d["policies"][:1]; del d["metrics"][0]["published"]'
bad_file "a single policy" one "'policies' must list 2 to .*at least two policies expected"

run "$tmp/nosuchfile.json"
check "a missing file: the OS error, no -1:-1" grep -q "^reproduce: $tmp/nosuchfile.json: cannot open: No such file or directory$" "$tmp/err"

"$bin" --scale 40 --json "$tmp/nosuchdir/o.json" "$src/tests/data/reproduce/tiny.json" >/dev/null 2>"$tmp/err"
rc=$?
check "an unwritable --json exits 2" test $rc -eq 2
check "before any run, naming the directory" bash -c "grep -q 'reproduce: --json $tmp/nosuchdir/o.json: cannot write into $tmp/nosuchdir' '$tmp/err' && ! grep -q '^\[' '$tmp/err'"

mkdir "$tmp/dup"
mk dup/a 'pass'; mk dup/b 'd["title"] = "the same id"'
run "$tmp/dup"
check "a duplicate id exits 1" test $rc -eq 1
check "its error names both files" grep -q "^reproduce: $tmp/dup/b.json: id 't1' is also the id of $tmp/dup/a.json" "$tmp/err"

# good, bad, good: the good ones run, the bad one is listed in the JSON.
mkdir "$tmp/gbg"
mk gbg/a 'd["id"] = "a"'; mk gbg/b 'd["generator"] = "nosuch"'; mk gbg/c 'd["id"] = "c"'
run "$tmp/gbg"
check "good, bad, good exits 1" test $rc -eq 1
check "the bad file is reported before the first run" bash -c "head -1 '$tmp/err' | grep -q 'gbg/b.json'"
check "JSON: the good ones ran, the bad one is in failed_files" python3 - "$tmp/o.json" "$tmp/gbg/b.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["experiments_run"] == 2 and r["failures"] == 1, r
assert [e["id"] for e in r["experiments"]] == ["a", "c"], r["experiments"]
f = r["failed_files"]
assert len(f) == 1 and f[0]["file"] == sys.argv[2], f
assert "unknown generator" in f[0]["message"], f
PY

[ $fails -eq 0 ] || { cat "$tmp/err"; exit 1; }
echo "reproduce_e2e: all checks passed"
