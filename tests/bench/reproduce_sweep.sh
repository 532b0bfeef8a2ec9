#!/usr/bin/env bash
# The reproduction suite through a sweep (issue 31): every experiment,
# emitted at --scale as a sweep spec, run by `tlbsim sweep --local`, and
# tabled by --from-sweep, gives the table and the runs' statistics that
# running the suite directly gives (wall times aside); a sweep made at
# another --scale is refused.
#   reproduce_sweep.sh TLBSIM_REPRODUCE TLBSIM SOURCE_DIR
set -u
rep=$1 bin=$2 src=$3 scale=400
tmp=$(mktemp -d /tmp/tlbsim-reproduce-sweep.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
check() { local what=$1; shift; if ! "$@"; then echo "FAIL: $what"; fails=$((fails+1)); fi; }

cd "$src"
"$rep" --scale $scale --emit-sweep "$tmp/suite.json" 2>"$tmp/err"
check "--emit-sweep exits 0" test $? -eq 0 || cat "$tmp/err"
"$bin" sweep "$tmp/suite.json" -o "$tmp/suite" --local -j 2 2>"$tmp/err"
check "the suite's sweep runs" test $? -eq 0 || cat "$tmp/err"
"$rep" --quiet --scale $scale --from-sweep "$tmp/suite" --json "$tmp/from.json" >"$tmp/from.txt" 2>"$tmp/err"
check "--from-sweep exits 0" test $? -eq 0 || cat "$tmp/err"
"$rep" --quiet --scale $scale --json "$tmp/direct.json" >"$tmp/direct.txt" 2>/dev/null
check "the printed tables are the same" cmp "$tmp/from.txt" "$tmp/direct.txt"
check "the JSON tables and runs are the same" python3 - "$tmp/from.json" "$tmp/direct.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["table"] == b["table"] and len(a["table"]) >= 9, len(a["table"])
for x in (a, b):
    for e in x["experiments"]:
        for v in e["variants"]:
            for r in v["runs"]:
                r.pop("wall_seconds")
assert a["experiments"] == b["experiments"]
PY
"$rep" --quiet --scale 200 --from-sweep "$tmp/suite" --only 1 >/dev/null 2>"$tmp/err"
check "a sweep of another --scale is refused" test $? -eq 1
check "... saying so" grep -q "ran group '1' with another 'loops' (another --scale?)" "$tmp/err"
[ $fails -eq 0 ]
