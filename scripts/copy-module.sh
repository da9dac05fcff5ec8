#!/usr/bin/env bash
# Copies the module (the files git tracks or would track) to DEST, an ns-3 tree's
# contrib/allreduce, for an incremental build there: a file is written only when its content
# differs, with the time of now, so that make rebuilds exactly what changed. (tar keeps each
# file's own time, which can be older than the objects an earlier copy was built into, so that
# make would not see the change.) Files that left the module leave DEST.
#
#   bash scripts/copy-module.sh /path/to/ns-3.48/contrib/allreduce
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# = 1 ] || { echo "usage: $0 DEST (an ns-3 tree's contrib/allreduce)" >&2; exit 2; }
dest=$1
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
(cd "$repo" && git ls-files -co --exclude-standard -z | tar --null -cf - -T -) |
  tar -xf - -C "$stage"
mkdir -p "$dest"
changed=0
while IFS= read -r -d '' f; do
  if ! cmp -s "$stage/$f" "$dest/$f"; then
    mkdir -p "$(dirname "$dest/$f")"
    cp "$stage/$f" "$dest/$f"
    changed=$((changed + 1))
  fi
done < <(cd "$stage" && find . -type f -print0)
gone=0
while IFS= read -r -d '' f; do
  if [ ! -e "$stage/$f" ]; then
    rm -f "$dest/$f"
    gone=$((gone + 1))
  fi
done < <(cd "$dest" && find . -type f -print0)
echo "copied $changed changed files to $dest, removed $gone" >&2
