#!/usr/bin/env bash
# End-to-end checks of tlbsim sweep and tlbsim merge on this machine
# (issue 31; the Slurm half is sweep_slurm.sh): the spec's expansion and
# its errors, --local with failures kept and resumed, the manifest's
# arguments giving the same statistics alone, --task, the batch script of
# --slurm --no-submit, an interrupted sweep, and the merged table.
#   sweep_e2e.sh TLBSIM SOURCE_DIR
set -u
bin=$(realpath "$1") src=$2
tmp=$(mktemp -d /tmp/tlbsim-sweep-e2e.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0

check() { # description, then a command that must succeed
  local what=$1; shift
  if ! "$@"; then echo "FAIL: $what"; fails=$((fails+1)); fi
}
# py 'python statements' ARGS...: a check written in Python.
py() { python3 -c "$@"; }

check "sweep --help has an example" bash -c "'$bin' sweep --help | grep -q example"
check "merge --help has an example" bash -c "'$bin' merge --help | grep -q example"
"$bin" sweep "$src/tests/sweep/policies.json" 2>"$tmp/err"
check "sweep without -o exits 2" test $? -eq 2
check "... and asks for it" grep -q -- "-o DIR is required" "$tmp/err"
# -o under directories that do not exist yet (the README's out/study on a
# fresh tree: a tester's finding) makes them; one under a file cannot.
"$bin" sweep "$src/tests/sweep/policies.json" -o "$tmp/new/out/study" --local -j 2 >/dev/null 2>&1
check "sweep -o makes the missing directories above DIR" test -f "$tmp/new/out/study/manifest.json"
: >"$tmp/afile"
"$bin" sweep "$src/tests/sweep/policies.json" -o "$tmp/afile/study" --local 2>"$tmp/err"
check "sweep -o under a file exits 2" test $? -eq 2
check "... naming it" grep -q "afile/study" "$tmp/err"

# ---- errors in a spec: file:line:col, exit 2, nothing written -------------
mkdir "$tmp/spec"
bad() { # description, spec text, message (grep -F)
  printf '%s\n' "$2" >"$tmp/spec/bad.json"
  "$bin" sweep "$tmp/spec/bad.json" -o "$tmp/bad" --local 2>"$tmp/err"
  local rc=$?
  check "$1: exits 2" test $rc -eq 2
  check "$1: says where and why" grep -qF "$3" "$tmp/err" || cat "$tmp/err"
  check "$1: writes nothing" test ! -e "$tmp/bad"
}
G='"workloads": [{"gen": "mprotect-toggle"}]'
bad "an unknown key" "{\"machines\": [\"generic-x86-64\"], \"policies\": [\"x86-stock\"], $G,
 \"seed\": [1]}" 'bad.json:2:2: unknown key "seed"'
bad "an unknown policy" "{\"machines\": [\"generic-x86-64\"],
 \"policies\": [\"x86-stock\", \"x86-stok\"], $G}" "bad.json:2:28: policy 'x86-stok' on generic-x86-64: unknown policy 'x86-stok'"
bad "a policy no machine takes" "{\"machines\": [\"generic-x86-64\"],
 \"policies\": [\"arm64-stock\"], $G}" "bad.json:2:15: policy 'arm64-stock' runs on none of the machines"
# Milan's 6 CCXs cannot hold 7 cores (models/README.md: the product must be cores).
bad "an override the machine refuses" "{\"machines\": [\"milan-36\"], \"overrides\": {\"cores\": [12, 7]},
 \"policies\": [\"x86-stock\"], $G}" "bad.json:1:15: machine 'milan-36' with the overrides {\"cores\":7}: topology: cores = 7 is not a multiple"
bad "an unknown generator parameter" "{\"machines\": [\"generic-x86-64\"], \"policies\": [\"x86-stock\"],
 \"workloads\": [{\"gen\": \"mprotect-toggle\", \"params\": {\"procz\": [1, 2]}}]}" "bad.json:2:16: generator 'mprotect-toggle' (procz=1): unknown parameter 'procz'"
bad "an exclusion of no column" "{\"machines\": [\"generic-x86-64\"], \"policies\": [\"x86-stock\"], $G,
 \"exclude\": [{\"cores\": 4}]}" "bad.json:2:24: 'cores' is no column of these runs"
bad "a missing trace" "{\"machines\": [\"generic-x86-64\"], \"policies\": [\"x86-stock\"],
 \"workloads\": [{\"trace\": \"no-such.tlbt\"}]}" "bad.json:2:26: $tmp/spec/no-such.tlbt: No such file"
bad "a seed among the parameters" "{\"machines\": [\"generic-x86-64\"], \"policies\": [\"x86-stock\"],
 \"workloads\": [{\"gen\": \"mprotect-toggle\", \"params\": {\"seed\": 3}}]}" "the seed is an axis of its own"

# ---- a sweep with groups, overrides, seeds, a trace, failures -------------
"$bin" gen mprotect-toggle --isa x86-64 --param procs=1,loops=5 -o "$tmp/spec/t.tlbt" 2>/dev/null
# A trace that opens but fails at its fourth line: thread 2 made twice.
printf 'tlbsim-trace 1 isa=x86-64 page_shift=12\nproc_create 1 1\nT1 thread_create 2\nT1 thread_create 2\n' >"$tmp/spec/dup.txt"
cat >"$tmp/spec/sweep.json" <<'EOF'
{
  "name": "e2e",
  "groups": [
    {"label": "plain", "machines": ["generic-x86-64"], "seeds": [1, 2],
     "workloads": [{"gen": "mprotect-toggle", "params": {"procs": [1, 2], "loops": 10}},
                   {"trace": "t.tlbt", "label": "trace"},
                   {"trace": "dup.txt", "label": "dup"}]},
    {"label": "cores", "machines": ["emag-32"], "overrides": {"cores": [4, 8]},
     "policies": ["arm64-stock", "arm64-nr-active-mm"],
     "workloads": [{"gen": "mprotect-toggle", "params": {"procs": 2, "loops": 10}}],
     "exclude": [{"cores": 8, "policy": "arm64-nr*"}]}
  ],
  "policies": ["x86-stock", "x86-lazy-cpumask"],
  "merge": {"metrics": ["cycles", "flushes_ipi", "flushes_broadcast", "totals.walks"]}
}
EOF
# Runs, worked out by hand: plain: (2 procs x 2 seeds + trace + dup) x 2
# policies = 12 (ids 0-11; dup is 10, 11); cores: 2 core counts x 2
# policies - 1 excluded = 3 (ids 12-14).
cd "$tmp"
"$bin" sweep spec/sweep.json -o out --local -j 2 2>"$tmp/err"
check "a sweep with failed runs exits 1" test $? -eq 1
check "15 runs in the manifest" py 'import json,sys; assert len(json.load(open(sys.argv[1]))["runs"]) == 15' out/manifest.json
check "the columns: group, machine, overrides, workload, parameters, seed, policy" py '
import json, sys
a = json.load(open(sys.argv[1]))["axes"]
assert a == ["group", "machine", "cores", "workload", "procs", "loops", "seed", "policy"], a' out/manifest.json
check "13 runs wrote their JSON" test "$(ls out/runs | grep -c '\.json$')" -eq 13
check "the two dup runs (10, 11) kept their stderr" test -s out/runs/10.err -a -s out/runs/11.err
check "... which says why" grep -q "thread 2 is alive" out/runs/10.err
check "... and is reported" grep -q "run 10 failed" "$tmp/err"
check "no temporary file is left in runs/" bash -c "! ls out/runs | grep -vqE '^[0-9]+\.(json|err)$'"
check "the exclusion took cores=8 under arm64-nr-active-mm out" py '
import json, sys
r = [x["axes"] for x in json.load(open(sys.argv[1]))["runs"] if x["axes"].get("cores") == 8]
assert [x["policy"] for x in r] == ["arm64-stock"], r' out/manifest.json
# cores alone: eMAG's one cluster of 32 becomes one of 4 (sweep_spec.c derive()).
check "the derived machine has 4 cores in one cluster" py '
import json, sys
m = json.load(open(sys.argv[1]))
assert m["name"] == "emag-32+cores=4" and m["cores"] == 4, m
assert "cores_per_cluster" not in m["topology"] and m["topology"]["clusters_per_node"] == 1' out/machines/emag-32+cores=4.json
check "... and its runs simulate 4 cpus" py 'import json,sys; assert json.load(open(sys.argv[1]))["cpus"] == 4' out/runs/12.json
# Alone: the same statistics from tlbsim run by name, without the sweep.
"$bin" run --machine generic-x86-64 --policy x86-lazy-cpumask --gen mprotect-toggle \
  --param procs=2,loops=10,seed=2 --quiet --json "$tmp/alone.json"
check "run 7 (procs 2, seed 2, lazy) is tlbsim run by name" cmp "$tmp/alone.json" out/runs/7.json
"$bin" run --machine generic-x86-64 --policy x86-stock --quiet --json "$tmp/alone-t.json" spec/t.tlbt
check "run 8 (the trace, stock) is tlbsim run on the trace" cmp "$tmp/alone-t.json" out/runs/8.json

"$bin" merge out 2>"$tmp/err"
check "merging a sweep with failures exits 1" test $? -eq 1
check "... says what failed" grep -q "2 failed" "$tmp/err"
check "... naming the error" grep -q "run 10: .*thread 2 is alive" "$tmp/err"
check "one chart per metric" test -s out/plots/cycles.svg -a -s out/plots/flushes_ipi.svg -a -s out/plots/totals.walks.svg
check "the CSV: header, 15 rows, failures marked, ratios to the baseline" py '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 15
assert list(rows[0])[:9] == ["id", "group", "machine", "cores", "workload", "procs", "loops", "seed", "policy"]
assert [r["id"] for r in rows if r["status"] == "failed"] == ["10", "11"]
by = {(r["group"], r["cores"], r["workload"], r["procs"], r["seed"], r["policy"]): r for r in rows}
for r in rows:
    if r["status"] != "ok":
        assert r["cycles"] == "" and r["cycles_ratio"] == ""
        continue
    base = by[(r["group"], r["cores"], r["workload"], r["procs"], r["seed"], r["baseline"])]
    assert r["baseline"] == ("arm64-stock" if r["group"] == "cores" else "x86-stock"), r
    assert abs(float(r["cycles_ratio"]) - int(r["cycles"]) / int(base["cycles"])) < 1e-9, r
# mprotect-toggle on arm64-stock: one broadcast per mprotect, 2 procs x
# 10 toggles x 2 = 40, and a full flush at each exit: 42 (cli_e2e.sh works
# the same count for 20 toggles: 82).
assert rows[12]["flushes_broadcast"] == "42", rows[12]
' out/merge.csv
check "the JSON lists the failed runs" py '
import json, sys
m = json.load(open(sys.argv[1]))
assert m["complete"] is False and m["missing"] == [] and [f["id"] for f in m["failed"]] == [10, 11], m["failed"]' out/merge.json

"$bin" merge out --baseline x86-stok 2>"$tmp/err"
check "a --baseline of no policy of the sweep exits 2" test $? -eq 2
check "... saying so" grep -q "x86-stok is none of the sweep's policies" "$tmp/err"
"$bin" merge out --baseline x86-lazy-cpumask,arm64-nr-active-mm --plot none 2>/dev/null
# cores=8 has no arm64-nr-active-mm run (excluded): no baseline, no ratio.
check "--baseline picks each group's first listed policy" py '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["baseline"] for r in rows[:2]] == ["x86-lazy-cpumask"] * 2
assert rows[1]["cycles_ratio"] == "1" and rows[13]["cycles_ratio"] == "1", rows[13]
assert rows[14]["cores"] == "8" and rows[14]["baseline"] == "" and rows[14]["cycles_ratio"] == ""
assert abs(float(rows[0]["cycles_ratio"]) - int(rows[0]["cycles"]) / int(rows[1]["cycles"])) < 1e-9' out/merge.csv

# Resume: only the two failed runs run again (and fail again).
before=$(stat -c %Y.%y out/runs/0.json)
"$bin" sweep spec/sweep.json -o out --local 2>"$tmp/err"
check "resuming exits 1 again" test $? -eq 1
check "... saying 13 were done and 2 had failed" grep -q "15 runs, 13 done, 2 failed before" "$tmp/err"
check "... and leaves the runs done alone" test "$before" = "$(stat -c %Y.%y out/runs/0.json)"
check "... and runs no other" test "$(grep -c 'failed:' "$tmp/err")" -eq 2
rm out/runs/3.json
"$bin" sweep spec/sweep.json -o out --local 2>/dev/null
check "a deleted result is made again, the same" cmp -s out/runs/3.json <("$bin" run --machine generic-x86-64 \
  --policy x86-lazy-cpumask --gen mprotect-toggle --param procs=1,loops=10,seed=2 --quiet --json -)

# The same sweep with -j 1 merges to the same table.
"$bin" sweep spec/sweep.json -o out1 --local -j 1 2>/dev/null
"$bin" merge out1 2>/dev/null
"$bin" merge out 2>/dev/null
check "-j 1 and -j 2 give the same merged JSON" cmp out/merge.json out1/merge.json
check "... and CSV" cmp out/merge.csv out1/merge.csv

# A directory is one sweep.
sed 's/"loops": 10}},/"loops": 11}},/' spec/sweep.json >spec/other.json
"$bin" sweep spec/other.json -o out --local 2>"$tmp/err"
check "another spec into the same directory exits 2" test $? -eq 2
check "... saying so" grep -q "out holds another sweep" "$tmp/err"
mkdir full && touch full/x
"$bin" sweep spec/sweep.json -o full 2>"$tmp/err"
check "a directory of other files is refused" test $? -eq 2
check "... saying so" grep -q "no sweep directory" "$tmp/err"

# ---- --slurm --no-submit: the batch script ---------------------------------
"$bin" sweep spec/sweep.json -o out --slurm --no-submit --time 0:10:00 --mem 1G \
  --max-parallel 3 --runs-per-task 4 >/dev/null 2>&1
check "--slurm --no-submit exits 0" test $? -eq 0
# Runs 10 and 11 are left: both in task 2 (runs 8-11).
check "the array holds the task of the runs left" grep -qx '#SBATCH --array=2%3' out/sweep.sbatch
check "... time and memory as given" bash -c "grep -qx '#SBATCH --time=0:10:00' out/sweep.sbatch && grep -qx '#SBATCH --mem=1G' out/sweep.sbatch"
check "... output into DIR/slurm" grep -qx "#SBATCH --output=$tmp/out/slurm/%A_%a.out" out/sweep.sbatch
check "... each task runs tlbsim sweep --task" grep -q "^exec '$bin' sweep --task \"\$SLURM_ARRAY_TASK_ID\" --runs-per-task 4 -o '$tmp/out'\$" out/sweep.sbatch

# Nothing from the spec or the flags becomes a line of the script.
printf '{"name": "a\\nrm -rf /", "machines": ["generic-x86-64"], "policies": ["x86-stock"], %s}\n' \
  '"workloads": [{"gen": "mprotect-toggle"}]' >spec/inj.json
"$bin" sweep spec/inj.json -o inj --slurm --no-submit >/dev/null 2>&1
check "a name with a line end is written as one word" bash -c \
  "grep -qx '#SBATCH --job-name=tlbsim-a_rm_-rf__' inj/sweep.sbatch && ! grep -q '^rm' inj/sweep.sbatch"
"$bin" sweep spec/inj.json -o inj --slurm --no-submit --time $'5\ntouch /tmp/x' 2>"$tmp/err"
check "a flag with a line end exits 2" test $? -eq 2
check "... saying what a Slurm value may hold" grep -q "expected a Slurm value without blanks" "$tmp/err"

# ---- --task: the runs of one array task -----------------------------------
"$bin" sweep spec/sweep.json -o tasks 2>/dev/null
check "without --local or --slurm only the manifest is written" test -s tasks/manifest.json -a -z "$(ls tasks/runs)"
"$bin" sweep --task 1 --runs-per-task 2 -o tasks 2>/dev/null
check "--task 1 of 2 runs each runs runs 2 and 3" test "$(ls tasks/runs | tr '\n' ' ')" = "2.json 3.json "
"$bin" sweep --task 15 -o tasks 2>"$tmp/err"
check "--task beyond the manifest exits 2" test $? -eq 2

# ---- interrupted: no partial statistics are kept ---------------------------
cat >spec/slow.json <<'EOF'
{"machines": ["generic-x86-64"], "policies": ["x86-stock", "x86-lazy-cpumask"],
 "workloads": [{"gen": "madvise-threads", "params": {"threads": 2, "loops": 100000}}]}
EOF
"$bin" sweep spec/slow.json -o slow --local -j 2 2>"$tmp/err" &
pid=$!
for i in $(seq 100); do [ "$(ls slow/runs 2>/dev/null | wc -l)" -ge 2 ] && break; sleep 0.05; done
sleep 0.3
kill -INT $pid
wait $pid
check "an interrupted sweep exits 130" test $? -eq 130
check "... keeps no statistics of its interrupted runs" test -z "$(ls slow/runs | grep json)"
check "... and says they were interrupted" grep -q "interrupted" slow/runs/0.err
"$bin" merge slow --plot none 2>"$tmp/err"
check "merging it lists the two runs failed" grep -q "2 failed" "$tmp/err"

cd /
[ $fails -eq 0 ] || exit 1
