#!/usr/bin/env bash
# The headline experiment: installs and builds what is missing, then runs allreduce-table: the
# seed paper's nine topologies x every scheduler, in rounds, against the lower bounds and the
# paper's numbers. Writes results/allreduce-table.{csv,json,png}.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$repo/build}
bash "$repo/scripts/build.sh" --target allreduce-table
mkdir -p "$repo/results"
"$build/examples/allreduce-table" --out="$repo/results/allreduce-table"
