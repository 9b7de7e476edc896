#!/usr/bin/env bash
# The module order of host/ (host/README.md): a file of a module includes
# only headers of its own module or of modules before it, and never
# internal.h (the tests' umbrella). Prints each violation; exit 1 if any.
set -euo pipefail
cd "$(dirname "$0")/../host"
order=(core device check ops run)
bad=0
for i in "${!order[@]}"; do
  mod=${order[$i]}
  allowed=" ${order[*]:0:$((i + 1))} "
  for f in "$mod"/*; do
    [ -f "$f" ] || continue
    while IFS= read -r line; do
      inc=${line#*\"}
      inc=${inc%%\"*}
      case $inc in
      internal.h)
        echo "$f: includes internal.h (tests only)"; bad=1 ;;
      */*)
        dep=${inc%%/*}
        if [[ $allowed != *" $dep "* ]]; then
          echo "$f: includes $inc, but $mod comes before $dep"; bad=1
        fi ;;
      esac
    done < <(grep -E '^#include "' "$f" || true)
  done
done
[ "$bad" = 0 ] && echo "host layers: ${order[*]}: ok"
exit "$bad"
