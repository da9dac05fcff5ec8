#!/usr/bin/env bash
# The headline experiment: installs and builds what is missing, then describes the nine
# topologies the seed paper evaluates as a table and draws them in results/topologies.png.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$repo/build}
bash "$repo/scripts/build.sh" --target dcn-topology
mkdir -p "$repo/results"
"$build/examples/dcn-topology" --paper --plot="$repo/results/topologies"
"$build/examples/dcn-topology" --paper --format=json > "$repo/results/topologies.json"
echo "table as JSON: $repo/results/topologies.json"
