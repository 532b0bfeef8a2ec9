#!/usr/bin/env bash
# The layers of DESIGN.md include their own layer or lower, never higher:
# the hardware reports to observers (src/hw/observe.h) and never includes
# the hazard oracle, the OS model or a policy; policies see only the public
# headers.  Each folder lists the folders of src/ it may include from
# (tlbsim/ is the public API, open to all).
#   layers_include_down.sh SOURCE_DIR
set -euo pipefail
src=$1
declare -A allowed=(
  [src/engine]="engine"
  [src/fabric]="fabric engine"
  [src/hw]="hw fabric engine"
  [src/config]="config"
  [src/report]="report"
  [policies]="policies"
)
bad=0
for dir in "${!allowed[@]}"; do
  while IFS=: read -r file line inc; do
    top=${inc%%/*}
    case " ${allowed[$dir]} tlbsim " in
      *" $top "*) ;;
      *) echo "$file:$line: $dir may not include \"$inc\" (allowed: ${allowed[$dir]}, tlbsim)"; bad=1 ;;
    esac
  done < <(cd "$src" && grep -rnoE '^#include "[a-z_]+/[^"]+"' "$dir" | sed -E 's/#include "([^"]+)"/\1/')
done
[ $bad -eq 0 ] && echo "every layer includes its own or lower layers only"
exit $bad
