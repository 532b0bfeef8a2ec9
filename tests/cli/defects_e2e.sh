#!/usr/bin/env bash
# End-to-end regressions of the defects a tester found on 2026-12-06, each
# a run that exited 0 with statistics that could not be right; every check
# failed on the code before its fix.
#   defects_e2e.sh TLBSIM_BINARY SOURCE_DIR
bin=$1 src=$2
. "$(dirname "$0")/e2e_common.sh"
hdr='tlbsim-trace 1 isa=x86-64 page_shift=12'

# D1: an access's size counts.  8 bytes at the last 4 of a page touch the
# next page too: 2 faults (and 2 walks each); with the second page not
# mapped, the second fault is a SIGSEGV.
printf '%s\nproc_create 1 1\nT1 mmap 0x10000000 0x2000 rw- private,anon\nT1 store 0x10000ffc 8\nT1 exit\n' \
  "$hdr" >"$tmp/split.txt"
"$bin" run --machine generic-x86-64 "$tmp/split.txt" --json "$tmp/split.json" >/dev/null; rc=$?
check "D1: a store across a page boundary runs" test $rc -eq 0
check "D1: ... and faults in both pages" jq -e '.totals.faults == 2 and .totals.walks == 4 and .totals.segv == 0' "$tmp/split.json" >/dev/null
sed 's/0x2000 rw-/0x1000 rw-/' "$tmp/split.txt" >"$tmp/past.txt"
"$bin" run --machine generic-x86-64 "$tmp/past.txt" --json "$tmp/past.json" >/dev/null
check "D1: a store past the end of its mapping is a SIGSEGV" jq -e '.totals.faults == 2 and .totals.segv == 1' "$tmp/past.json" >/dev/null

# D2: a trace of 64 KiB pages is refused (the simulator models 4 KiB
# pages), naming the file and the header's page_shift; no JSON is left.
printf 'tlbsim-trace 1 isa=arm64 page_shift=16\nproc_create 1 1\nT1 mmap 0x10000000 0x10000 rw- private,anon\nT1 store 0x10000000 8\nT1 exit\n' \
  >"$tmp/p16.txt"
"$bin" run --machine generic-arm64 "$tmp/p16.txt" --json "$tmp/p16.json" >/dev/null 2>"$tmp/p16.err"; rc=$?
check "D2: run refuses page_shift=16 (exit 2)" test $rc -eq 2
check "D2: ... naming the file and the page size" grep -q "p16.txt: the trace's header says page_shift=16 (64 KiB pages)" "$tmp/p16.err"
check "D2: ... and writes no JSON" test ! -e "$tmp/p16.json"
"$bin" compare --machine generic-arm64 --policies arm64-stock,arm64-nr-active-mm "$tmp/p16.txt" >"$tmp/c16.out" 2>&1; rc=$?
check "D2: compare refuses it too" test $rc -eq 2
check "D2: ... once, before any policy runs" \
  bash -c "test \$(grep -c 'page_shift=16' '$tmp/c16.out') = 1 && ! grep -q running '$tmp/c16.out'"
sed 's/page_shift=12/page_shift=14/' "$src/tests/hazards/22-arm64-local-tlbi-smp-stale.tlbt" >"$tmp/s14.tlbt"
"$bin" check "$tmp/s14.tlbt" >"$tmp/s14.out" 2>&1; rc=$?
check "D2: check refuses a scenario of 16 KiB pages" test $rc -eq 2
check "D2: ... at its header line" grep -q "s14.tlbt:1: page_shift=14" "$tmp/s14.out"

# D4: mprotect and madvise of length 0 succeed (Linux returns 0): syscalls,
# not bad ones.
printf '%s\nproc_create 1 1\nT1 mmap 0x10000000 0x2000 rw- private,anon\nT1 mprotect 0x10000000 0 r--\nT1 madvise 0x10000000 0 free\nT1 exit\n' \
  "$hdr" >"$tmp/empty.txt"
"$bin" run --machine generic-x86-64 "$tmp/empty.txt" --json "$tmp/empty.json" >/dev/null
check "D4: empty mprotect and madvise are not bad syscalls" jq -e '.totals.syscalls == 3 and .totals.bad_syscalls == 0' "$tmp/empty.json" >/dev/null

# ... and wait for nothing: with another thread's munmap holding the
# mmap_lock, the empty mprotect neither waits for the lock nor is ordered
# behind the munmap (the second tester's case).
printf '%s\nproc_create 1 1\nT1 mmap 0x40000000 0x4000000 rw- private,anon\nT1 thread_create 2\nT1 store 0x40000000 0x4000000\nT1 munmap 0x40000000 0x4000000\nT2 compute 39000000 cycles\nT2 mprotect 0x40000000 0 r--\nT2 exit\nT1 exit\n' \
  "$hdr" >"$tmp/nowait.txt"
"$bin" run --machine generic-x86-64 "$tmp/nowait.txt" --json "$tmp/nowait.json" >/dev/null
check "D4: an empty mprotect does not wait for the mmap_lock" jq -e '[.per_cpu[].mmap_lock_wait_cycles] | add == 0' "$tmp/nowait.json" >/dev/null

check_summary
