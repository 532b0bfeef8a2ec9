# Sourced by the CLI's end-to-end scripts (tests/cli/*_e2e.sh): a temporary
# directory $tmp removed at exit, and check(), which counts a command that
# must succeed, printing FAIL and its description (on stderr) when not.
# The script ends with check_summary.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 passes=0

check() { # description, then a command that must succeed
  local what=$1; shift
  if "$@"; then passes=$((passes+1)); else echo "FAIL: $what" >&2; fails=$((fails+1)); fi
}

check_summary() { # the counts; the script's status: 0 when nothing failed
  echo "$passes passed, $fails failed"
  [ $fails -eq 0 ]
}
