#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, then builds the example
# experiment against it twice, with find_package(tlbsim) and with
# pkg-config, and runs both on a shipped machine.
#   install_and_build_example.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
machine="$tmp/prefix/share/tlbsim/models/machines/generic-x86-64.json"
test -f "$machine"

cmake -S "$src/examples/experiment" -B "$tmp/exp" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/exp" >/dev/null
out=$(LD_LIBRARY_PATH="$tmp/prefix/lib" "$tmp/exp/experiment" "$machine" 512 1)
# 512 pages, two passes: the first pass walks every page; the default
# generic x86-64 L2 TLB (1536 entries) holds all 512, so the second pass
# has no walk at all: 512 walks in total.
grep -q '"walks": 512' <<<"$out" || { echo "unexpected output (find_package build):"; echo "$out"; exit 1; }
# --policy-demo registers a policy of its own with the installed library
# and simulates with it: its munmap and the process's exit_mmap are its
# 2 flush requests.
out=$(LD_LIBRARY_PATH="$tmp/prefix/lib" "$tmp/exp/experiment" --policy-demo "$machine")
grep -q '"policy": "demo-ipi-mask"' <<<"$out" && grep -q '"demo_policy_flushes": 2' <<<"$out" ||
  { echo "unexpected output (--policy-demo):"; echo "$out"; exit 1; }

# --stats reads the statistics through tlbsim_sim_stats() and friends, the
# machine given by name (found by the installed library): the demo's 16
# stores fault, and its munmap and exit_mmap are one shootdown each.
out=$(LD_LIBRARY_PATH="$tmp/prefix/lib" "$tmp/exp/experiment" --stats generic-x86-64)
grep -q '^machine generic-x86-64 (x86-64, 4 cpus at 3.00 GHz), policy x86-stock$' <<<"$out" &&
  awk '$1 == "all" && $5 == 16 && $6 == 2 { ok = 1 } END { exit !ok }' <<<"$out" ||
  { echo "unexpected output (--stats):"; echo "$out"; exit 1; }

libdir=$(ls -d "$tmp"/prefix/lib*/pkgconfig | head -n 1)
cc -std=c11 -o "$tmp/exp-pc" "$src/examples/experiment/experiment.c" \
  $(PKG_CONFIG_PATH="$libdir" pkg-config --define-variable=prefix="$tmp/prefix" --cflags --libs tlbsim)
out=$(LD_LIBRARY_PATH="$(dirname "$libdir")" "$tmp/exp-pc" "$machine" 512 1)
grep -q '"walks": 512' <<<"$out" || { echo "unexpected output (pkg-config build):"; echo "$out"; exit 1; }

# Issue 30: the install is relocatable.  Moved to another prefix, the
# binary lists the models beside it (found relative to itself, before the
# source tree), and the .pc gives the prefix it is in (not the configured
# /usr/local).
mv "$tmp/prefix" "$tmp/moved"
list=$("$tmp/moved/bin/tlbsim" list machines)
grep -q "generic-x86-64 .*$tmp/moved/bin/../share/tlbsim/models/machines/generic-x86-64.json" <<<"$list" ||
  { echo "the moved install does not find its models:"; echo "$list"; exit 1; }
pcdir=$(ls -d "$tmp"/moved/lib*/pkgconfig | head -n 1)
pfx=$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=prefix tlbsim)
[ "$(cd "$pfx" && pwd)" = "$tmp/moved" ] || { echo "tlbsim.pc's prefix is $pfx, not $tmp/moved"; exit 1; }
echo "example experiment built and ran with find_package and with pkg-config; the install moves"

# The valgrind tool is installed beside valgrind's own files, and the
# installed tlbsim, moved, finds it relative to itself and records with it
# (issue 28), when the build made it.
if [ -x "$build/valgrind-lib/tlbsim-amd64-linux" ]; then
  vg="$tmp/moved/libexec/tlbsim/valgrind"
  test -x "$vg/tlbsim-amd64-linux" || { echo "the tool is not installed in $vg"; exit 1; }
  ls "$vg"/vgpreload_core-*.so >/dev/null || { echo "valgrind's files are not beside the tool"; exit 1; }
  "$tmp/moved/bin/tlbsim" record -o "$tmp/true.tlbt" -- /bin/true 2>"$tmp/rec.txt" ||
    { echo "the installed tlbsim could not record:"; cat "$tmp/rec.txt"; exit 1; }
  grep -q 'of 1 process images' "$tmp/rec.txt" || { echo "unexpected recording:"; cat "$tmp/rec.txt"; exit 1; }
  echo "the installed tlbsim recorded /bin/true with the installed valgrind tool"
fi
