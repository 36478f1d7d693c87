#!/usr/bin/env bash
# Checks the dependency order of src/cpuft's folders that docs/ARCHITECTURE.md states (its line
# "Dependency order: a < b < ..."): a file of a folder may include only headers of its own folder and of
# folders before it. Also fails when a folder of src/cpuft is missing from the order, so that a new one
# is placed in it. Run by CTest (test "layering"); usage: check-layering.sh [REPO_ROOT].
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
doc="$root/docs/ARCHITECTURE.md"
line=$(grep -m1 '^Dependency order: ' "$doc" || true)
if [[ -z $line ]]; then
  echo "check-layering: $doc: no line 'Dependency order: a < b < ...', expected one" >&2
  exit 1
fi
read -r -a order <<< "$(sed -e 's/^Dependency order: *//' -e 's/[`.]//g' -e 's/ *< */ /g' <<< "$line")"
declare -A rank
for i in "${!order[@]}"; do rank[${order[$i]}]=$i; done

status=0
for dir in "$root"/src/cpuft/*/; do
  folder=$(basename "$dir")
  if [[ -z ${rank[$folder]+set} ]]; then
    echo "check-layering: src/cpuft/$folder/ is not in docs/ARCHITECTURE.md's dependency order" >&2
    status=1
    continue
  fi
  # Every #include "cpuft/<other>/..." of this folder's files, as file:line:other.
  while IFS=: read -r file lineno other; do
    if [[ -z ${rank[$other]+set} ]]; then
      echo "check-layering: ${file#"$root"/}:$lineno includes cpuft/$other/, a folder not in the order" >&2
      status=1
    elif (( rank[$other] > rank[$folder] )); then
      echo "check-layering: ${file#"$root"/}:$lineno: $folder/ includes $other/, which comes after it" >&2
      status=1
    fi
  done < <(grep -rnoE '^#include "cpuft/[a-z_0-9]+/' "$dir" | sed -E 's|#include "cpuft/([a-z_0-9]+)/$|\1|')
done
if (( status == 0 )); then echo "check-layering: ${#order[@]} folders, no include against the order"; fi
exit $status
