#!/usr/bin/env bash
# Every public header compiles on its own, as C11 with -Wall -Wextra -Werror.
#   headers_compile_alone.sh INCLUDE_DIR CC
set -euo pipefail
inc=$1 cc=${2:-cc}
n=0
for h in "$inc"/tlbsim/*.h; do
  printf '#include "tlbsim/%s"\n' "$(basename "$h")" |
    "$cc" -std=c11 -Wall -Wextra -Werror -I"$inc" -fsyntax-only -x c - || { echo "FAIL: $h"; exit 1; }
  n=$((n+1))
done
echo "$n public headers compile alone"
