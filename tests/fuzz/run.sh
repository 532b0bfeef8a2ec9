#!/usr/bin/env bash
# Runs every libFuzzer harness built in BUILD (cmake -DTLBSIM_FUZZ=ON, target
# fuzz_all) for SECONDS each (default 60), starting from its seed corpus and
# regression inputs.  New inputs go to BUILD/fuzz-work/<name>/ (the checked-in
# corpus is left alone); a crash, leak, sanitizer report, hang (-timeout) or
# runaway allocation (-rss_limit_mb, -malloc_limit_mb) leaves its input in
# BUILD/fuzz-artifacts/ and fails the script.
#
# usage: [FUZZ_SEED=N] tests/fuzz/run.sh BUILD [SECONDS]
set -euo pipefail
build=${1:?usage: tests/fuzz/run.sh BUILD [SECONDS]}
secs=${2:-60}
src=$(cd "$(dirname "$0")" && pwd)
# A single input may take 10 s before it counts as a hang: the slowest seed
# (a 50 KB zstd trace through ASan) takes well under 1 s.  2 GiB of RSS, and
# no single allocation over 256 MiB: a reader streams through 64 KiB
# buffers, so anything bigger is a size taken from the input.
opts=(-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=256
      -print_final_stats=1 -detect_leaks=1)
# FUZZ_SEED: libFuzzer's random seed (default: a new one each run).  CI
# fixes it, so that a commit's CI explores the same inputs each time and a
# failure replays with the same seed; a run by hand without it explores
# anew.
[ -n "${FUZZ_SEED:-}" ] && opts+=(-seed="$FUZZ_SEED")
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
mkdir -p "$build/fuzz-artifacts"
status=0
for c in "$src"/fuzz_*.c; do
	name=$(basename "$c" .c)
	name=${name#fuzz_}
	bin="$build/tests/fuzz/fuzz_$name"
	[ -x "$bin" ] || { echo "fuzz: $bin not built (target fuzz_all)" >&2; exit 2; }
	work="$build/fuzz-work/$name"
	mkdir -p "$work"
	dirs=("$work" "$src/corpus/$name")
	[ -d "$src/regressions/$name" ] && dirs+=("$src/regressions/$name")
	echo "== fuzz_$name: ${secs}s"
	if ! "$bin" "${opts[@]}" -artifact_prefix="$build/fuzz-artifacts/$name-" "${dirs[@]}" \
		>"$build/fuzz-$name.log" 2>&1; then
		echo "fuzz_$name FAILED; its log, $build/fuzz-$name.log, ends:" >&2
		tail -n 60 "$build/fuzz-$name.log" >&2
		status=1
	fi
	grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' \
		"$build/fuzz-$name.log" | sed "s/^/  /" || true
done
exit $status
