#!/usr/bin/env bash
# The headline experiment: installs and builds what is missing, then runs
#  - allreduce-table: the seed paper's nine topologies x every scheduler, in rounds, against the
#    lower bounds and the paper's numbers (results/allreduce-table.{csv,json,png});
#  - allreduce-packet-table: the same topologies x ps, ring, greedy, balanced run packet by
#    packet in ns-3 (barrier and async, each measured after a warm-up AllReduce on the same
#    connections), beside the flow-level prediction, every result verified exactly
#    (results/allreduce-packet-table.{csv,json,png});
#  - allreduce-dynamic: the same topologies x schedulers, each plan replayed and decided online
#    inside ns-3 with nothing perturbed, a link failing, late servers, background traffic and
#    slower links (results/allreduce-dynamic.{csv,json,png});
#  - allreduce-cluster: 50 jobs sharing fat-tree k=8, BCube(4,2) and Jellyfish(40 switches),
#    every placement x independent/joint scheduling x scheduler, at flow level
#    (results/allreduce-cluster.{csv,json,png}).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$repo/build}
bash "$repo/scripts/build.sh" --target allreduce-table allreduce-packet-table allreduce-dynamic allreduce-cluster
mkdir -p "$repo/results"
"$build/examples/allreduce-table" --out="$repo/results/allreduce-table"
echo
"$build/examples/allreduce-packet-table" --out="$repo/results/allreduce-packet-table"
echo
"$build/examples/allreduce-dynamic" --out="$repo/results/allreduce-dynamic"
echo
"$build/examples/allreduce-cluster" --out="$repo/results/allreduce-cluster"
