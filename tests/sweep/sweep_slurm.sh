#!/usr/bin/env bash
# The sweep of tests/sweep/policies.json through a real Slurm (issue 31):
# the one-node cluster that the fixture slurm_cluster_start brought up
# (scripts/slurm-cluster, Debian's slurm-wlm and munge).  `tlbsim sweep
# --slurm` writes the job array and submits it with sbatch; once Slurm has
# run every task, `tlbsim merge` must give the same table, byte for byte,
# as `tlbsim sweep --local` on the same spec, every run the same JSON, and
# a run started alone with the manifest's arguments the same JSON again.
# Then two results are deleted and the sweep submitted again: the array
# holds those two tasks only, and the merged table is whole again.
#   sweep_slurm.sh TLBSIM SOURCE_DIR CLUSTER_DIR
set -u
bin=$(realpath "$1") src=$2 cluster=$3
export SLURM_CONF=$cluster/slurm.conf
tmp=$(mktemp -d /tmp/tlbsim-sweep-slurm.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0

check() { # description, then a command that must succeed
  local what=$1; shift
  if ! "$@"; then echo "FAIL: $what"; fails=$((fails+1)); fi
}

# The cluster's state, for a failure's report.
dump() {
  echo "---- squeue"; squeue 2>&1
  echo "---- sinfo"; sinfo 2>&1
  echo "---- $cluster/log/slurmctld.log (last 30 lines)"; tail -n 30 "$cluster/log/slurmctld.log"
  echo "---- $cluster/log/slurmd.log (last 30 lines)"; tail -n 30 "$cluster/log/slurmd.log"
}

# Wait for job $1 to leave the queue (5 minutes at most).
wait_job() {
  local i
  for i in $(seq 1500); do
    [ -z "$(squeue -h -j "$1" -o %i 2>/dev/null)" ] && return 0
    sleep 0.2
  done
  echo "FAIL: job $1 still queued after 5 minutes"; dump
  return 1
}

if ! sinfo -h -o %t | grep -qx idle; then
  echo "FAIL: the cluster of $SLURM_CONF has no idle node (fixture slurm_cluster_start)"; dump
  exit 1
fi
spec=$src/tests/sweep/policies.json
t0=$(date +%s.%N)
job=$("$bin" sweep "$spec" -o "$tmp/slurm" --slurm 2>"$tmp/err")
rc=$?
check "sweep --slurm exits 0" test $rc -eq 0
check "... and prints the job id" grep -Eqx '[0-9]+' <<<"$job"
[ $rc -eq 0 ] || { cat "$tmp/err"; dump; exit 1; }
# 2 machines x 2 core counts x 3 generators x the 2 policies of each ISA:
# 24 runs, numbered 0..23; the spec's max_parallel is 8.
check "the batch script is a 24-task array, 8 at a time" grep -qx '#SBATCH --array=0-23%8' "$tmp/slurm/sweep.sbatch"
check "... with the spec's time and memory" grep -qx '#SBATCH --mem=64M' "$tmp/slurm/sweep.sbatch"
wait_job "$job" || exit 1
t1=$(date +%s.%N)
echo "Slurm ran the 24-task array in $(awk "BEGIN { print $t1 - $t0 }") s"
check "Slurm wrote one output file per task" test "$(ls "$tmp/slurm/slurm" | grep -c "^${job}_[0-9]*\.out$")" -eq 24
check "every run has its JSON" test "$(ls "$tmp/slurm/runs" | grep -c '^[0-9]*\.json$')" -eq 24
check "no run failed" bash -c "! ls '$tmp/slurm/runs' | grep -q err"
"$bin" merge "$tmp/slurm" 2>"$tmp/err"
check "merge of the Slurm sweep exits 0 (complete)" test $? -eq 0 || cat "$tmp/err"

"$bin" sweep "$spec" -o "$tmp/local" --local -j 2 2>"$tmp/err"
check "sweep --local exits 0" test $? -eq 0 || cat "$tmp/err"
"$bin" merge "$tmp/local" 2>/dev/null
check "merge of the local sweep exits 0" test $? -eq 0
check "the merged CSV is the same under Slurm and locally" cmp "$tmp/slurm/merge.csv" "$tmp/local/merge.csv"
check "the merged JSON is the same under Slurm and locally" cmp "$tmp/slurm/merge.json" "$tmp/local/merge.json"
for i in $(seq 0 23); do
  cmp -s "$tmp/slurm/runs/$i.json" "$tmp/local/runs/$i.json" || { echo "FAIL: run $i differs"; fails=$((fails+1)); }
done
# arm64-stock broadcasts one TLBI per mprotect: 2 processes x (populate +
# 20 toggles x 2 mprotect) = 80, and a full flush at each exit (2): 82, on
# 2 cores and on 4 (tests/cli/cli_e2e.sh works the same count).
check "arm64-stock mprotect-toggle: 82 broadcasts on 2 and 4 cores" test "$(python3 -c '
import csv, sys
print(" ".join(r["cores"] + ":" + r["flushes_broadcast"] for r in csv.DictReader(open(sys.argv[1]))
               if r["workload"] == "mprotect-toggle" and r["policy"] == "arm64-stock"))' "$tmp/slurm/merge.csv")" = "2:82 4:82"

# Alone: run 7's arguments from the manifest, in the sweep directory, to
# another JSON.
mapfile -t args < <(python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))["runs"][7]["args"]
a[a.index("--json") + 1] = sys.argv[2]
print("\n".join(a))' "$tmp/slurm/manifest.json" "$tmp/alone.json")
(cd "$tmp/slurm" && "$bin" "${args[@]}")
check "run 7 alone gives the JSON it gave under Slurm" cmp "$tmp/alone.json" "$tmp/slurm/runs/7.json"

# Resume: two results gone; the array holds their two tasks only.
rm "$tmp/slurm/runs/3.json" "$tmp/slurm/runs/17.json"
"$bin" merge "$tmp/slurm" --plot none 2>"$tmp/err"
check "merge of an incomplete sweep exits 1" test $? -eq 1
check "... and names the runs missing" grep -q "2 not run (3 17)" "$tmp/err"
job2=$("$bin" sweep "$spec" -o "$tmp/slurm" --slurm 2>/dev/null)
check "the second submission prints a job id" grep -Eqx '[0-9]+' <<<"$job2"
check "the second array holds tasks 3 and 17" grep -qx '#SBATCH --array=3,17%8' "$tmp/slurm/sweep.sbatch"
wait_job "$job2" || exit 1
check "Slurm ran two tasks the second time" test "$(ls "$tmp/slurm/slurm" | grep -c "^${job2}_")" -eq 2
"$bin" merge "$tmp/slurm" 2>/dev/null
check "the resumed sweep merges complete" test $? -eq 0
check "... into the local sweep's table" cmp "$tmp/slurm/merge.json" "$tmp/local/merge.json"
echo "sweep_slurm: $(awk "BEGIN { print $(date +%s.%N) - $t0 }") s in all"
[ $fails -eq 0 ] || { dump; exit 1; }
