#!/usr/bin/env bash
# Distributed runs in an ns-3 source tree built with the module and ns-3's MPI module
# (scripts/check-in-tree.sh passes the tree): the same AllReduce on two and three ranks
# (mpirun) and in distributed mode on one process verifies exactly, in barrier and async mode,
# with both synchronizers and two partitions, also with late servers, and finishes at the same
# simulated time to the nanosecond (doc/allreduce.rst, "Distributed runs"); and what a
# distributed run cannot honour is refused, saying so.
#   bash scripts/check-distributed.sh NS3_SOURCE_TREE
set -euo pipefail
src=${1:?"give the ns-3 source tree (built with --enable-mpi)"}
cd "$src"
# As root in CI; --oversubscribe: as many ranks as asked, whatever the cores.
mpirun=(mpirun --allow-run-as-root --oversubscribe)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# $1: ranks (1: one process, --distributed); the rest: allreduce-packet's options.
packet() {
  local ranks=$1; shift
  if [ "$ranks" = 1 ]; then
    ./ns3 run --no-build "allreduce-packet $* --distributed --format=json --out=$out/p"
  else
    ./ns3 run --no-build "allreduce-packet $* --format=json --out=$out/p" \
      --command-template="${mpirun[*]} -np $ranks %s"
  fi
}

# Reads the JSON report: completion time, verified, ranks.
summary() {
  python3 -c 'import json,sys; d=json.load(sys.stdin)
print(d["completion_time_s"], d["verified"], len(d["ranks"]), d["distributed"]["cut_links"])'
}

spec="--topology=fattree:k=4 --scheduler=balanced --gradient-bytes=256KiB"
for mode in barrier async; do
  one=$(packet 1 "$spec --mode=$mode" | summary)
  echo "== one process, distributed, $mode: $one (completion, verified, ranks, cut links)"
  read -r t1 v1 _ _ <<< "$one"
  for run in "2 --synchronizer=granted-time-window" "2 --synchronizer=null-message" \
             "3 --synchronizer=granted-time-window --partition=metis"; do
    read -r ranks options <<< "$run"
    many=$(packet "$ranks" "$spec --mode=$mode $options" | summary)
    echo "== $ranks ranks, $options, $mode: $many"
    read -r t2 v2 r2 c2 <<< "$many"
    if [ "$v1" != True ] || [ "$v2" != True ] || [ "$r2" != "$ranks" ] || [ "$c2" = 0 ] ||
       [ "$t1" != "$t2" ]; then
      echo "$ranks ranks ($options, $mode) did not verify, or did not finish at the" \
        "one-process time $t1 s" >&2
      exit 1
    fi
  done
done

# Late servers: each rank draws the same ones; only a late server's own rank holds it back.
late="--topology=bcube:n=3,k=1 --scheduler=greedy --gradient-bytes=256KiB --mode=async"
late="$late --stragglers=3:100us"
one=$(packet 1 "$late" | summary)
many=$(packet 2 "$late --synchronizer=null-message" | summary)
echo "== stragglers, one process: $one; two ranks, null-message: $many"
read -r t1 v1 _ _ <<< "$one"
read -r t2 v2 _ _ <<< "$many"
if [ "$v1" != True ] || [ "$v2" != True ] || [ "$t1" != "$t2" ]; then
  echo "with stragglers, two ranks did not verify or finish at the one-process time $t1 s" >&2
  exit 1
fi

# $1: ranks; $2: words the error must hold; the rest: allreduce-packet's options.
refused() {
  local ranks=$1 words=$2; shift 2
  if packet "$ranks" "$*" > "$out/refused.log" 2>&1 || ! grep -q "$words" "$out/refused.log"; then
    cat "$out/refused.log"; echo "not refused with '$words': $*" >&2; exit 1
  fi
  echo "== refused ($ranks ranks, $*): $words"
}
refused 2 "but has no delay" "$spec --delay=0us"
refused 4 "every rank needs a node of its own" "--topology=bcube:n=2,k=0"
refused 3 "fewer than the 3 ranks" "--topology=bcube:n=2,k=1 --partition=groups"
refused 2 "cannot honour --loss" "$spec --loss=0.01"
if ./ns3 run --no-build "allreduce-packet-table --topologies=bcube:n=2,k=1" \
     --command-template="${mpirun[*]} -np 2 %s" > "$out/table.log" 2>&1 ||
   ! grep -q "runs on one process" "$out/table.log"; then
  cat "$out/table.log"; echo "allreduce-packet-table under mpirun was not refused" >&2; exit 1
fi
echo "distributed runs: OK"
