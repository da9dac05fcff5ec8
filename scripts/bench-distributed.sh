#!/usr/bin/env bash
# Benchmark of distributed runs (doc/allreduce.rst, "Distributed runs" in "Measured results"):
# each case once on one process in distributed mode (allreduce-packet --distributed: the same
# protocol and completion time, on ns-3's default simulator) and once per synchronizer on
# RANKS ranks (mpirun), in a release (-O3) ns-3 tree built with MPI; prints per run the
# completion time, whether it verified, per rank the events, Simulator::Run's wall time and
# events per second, peak resident memory, and the speedup (one process's Run wall time over
# the slowest rank's); with LARGEST=1 also the largest rank's peak memory over one process's.
#
#   bash scripts/bench-distributed.sh                       # the issue's cases, 2 ranks
#   RANKS=2 CASES="fattree:k=4@1MiB" bash scripts/bench-distributed.sh
#   LARGEST=1 bash scripts/bench-distributed.sh              # also fat-tree k=16 at 1 MiB
#   RANKS=4 CASES=" " LARGEST=1 bash scripts/bench-distributed.sh  # its memory per rank
#   BUILD_ONLY=1 bash scripts/bench-distributed.sh           # only (re)build the tree
#   NS3=3.37 bash scripts/bench-distributed.sh               # in ns-3.37
#   TARGETS="allreduce-packet allreduce-packet-table" BUILD_ONLY=1 ...  # more programs
#
# The tree ($ALLREDUCE_NS3_BENCH/ns-$NS3, default /var/cache/allreduce-bench/ns-3.48) holds
# the sources scripts/check-in-tree.sh unpacks or fetches for ns-3 $NS3 (3.48, the default, or
# 3.37), configured as release with only this module and mpi; a second run only rebuilds what
# changed. Results go to $OUT (default results/bench-distributed). Timings are of a loaded or
# idle machine as it is: run it alone.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench=${ALLREDUCE_NS3_BENCH:-/var/cache/allreduce-bench}
ci=${ALLREDUCE_NS3_CACHE:-/var/cache/allreduce-ci}
ranks=${RANKS:-2}
cases=${CASES:-"fattree:k=8@16MB bcube:n=8,k=1@16MB"}
mode=${MODE:-async}
out=${OUT:-$repo/results/bench-distributed}
ns3=${NS3:-3.48}
case $ns3 in
  3.48) tree=$ci/ns-3.48 ;;
  3.37) tree=$ci/ns3-3.37/ns-3.37 ;;
  *) echo "NS3 must be 3.48 or 3.37, got '$ns3'" >&2; exit 2 ;;
esac
src=$bench/ns-$ns3
targets=${TARGETS:-allreduce-packet}
mkdir -p "$out"
start=$(date +%s)
note() { echo "[$(( $(date +%s) - start )) s] $*" >&2; }

bash "$repo/scripts/install-deps.sh" dpkg-dev python3
if [ ! -f "$src/CMakeLists.txt" ]; then
  if [ ! -f "$tree/CMakeLists.txt" ]; then
    note "getting the ns-$ns3 sources (scripts/check-in-tree.sh does, then stops early)"
    ALLREDUCE_NS3_CACHE=$ci bash "$repo/scripts/check-in-tree.sh" "$ns3" --fetch-only
  fi
  note "copying the ns-$ns3 sources to $src"
  mkdir -p "$src"
  tar -C "$tree" --exclude=./build --exclude=./cmake-cache \
    --exclude=./contrib/allreduce -cf - . | tar -C "$src" -xf -
fi
note "copying what changed in the module to $src/contrib/allreduce"
bash "$repo/scripts/copy-module.sh" "$src/contrib/allreduce"
cd "$src"
if [ ! -f "$src/cmake-cache/CMakeCache.txt" ]; then
  note "./ns3 configure -d release --enable-mpi"
  ./ns3 configure -d release --enable-examples --disable-tests --disable-python-bindings \
    --enable-mpi --enable-modules "allreduce;mpi" --filter-module-examples-and-tests allreduce \
    > "$src/configure.log" 2>&1 || { cat "$src/configure.log"; exit 1; }
fi
for target in $targets; do
  note "./ns3 build $target (release)"
  # CMake directly: ./ns3 caps its jobs at the cores less one.
  cmake --build cmake-cache -j "$(nproc)" --target "$target" > "$src/build.log" 2>&1 ||
    { tail -40 "$src/build.log"; exit 1; }
done
[ "${BUILD_ONLY:-0}" = 1 ] && { note "built (BUILD_ONLY=1)"; exit 0; }

mpirun=(mpirun --allow-run-as-root --oversubscribe --bind-to none)
# $1: label; $2: ranks (1: one process); the rest: allreduce-packet's options. Prints the line.
run() {
  local label=$1 n=$2; shift 2
  local json=$out/$label.json
  note "running $label: $n rank(s): $*"
  if [ "$n" = 1 ]; then
    ./ns3 run --no-build "allreduce-packet $* --distributed --format=json --out=$out/p" \
      > "$json"
  else
    ./ns3 run --no-build "allreduce-packet $* --format=json --out=$out/p" \
      --command-template="${mpirun[*]} -np $n %s" > "$json"
  fi
  python3 - "$json" "$label" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ranks = d["ranks"]
slowest = max(r["wall_s"] for r in ranks)
print("%s | %.6f ms | %s | %s | %.1f s | %s | %s" % (
    sys.argv[2], d["completion_time_s"] * 1e3, d["verified"],
    " / ".join("%.2f M" % (r["events"] / 1e6) for r in ranks), slowest,
    " / ".join("%.0f k" % (r["events_per_s"] / 1e3) for r in ranks),
    " / ".join("%.0f MiB" % (r["peak_rss_bytes"] / 2**20) for r in ranks)))
EOF
}

echo "case | completion | verified | events per rank | Run wall (slowest rank) | events/s per rank | peak memory per rank"
for c in $cases; do
  topo=${c%@*}; bytes=${c#*@}
  spec="--topology=$topo --scheduler=balanced --mode=$mode --gradient-bytes=$bytes"
  name=$(echo "$topo-$bytes" | tr ':,=' '_-_')
  run "$name-1" 1 "$spec"
  for sync in granted-time-window null-message; do
    run "$name-$ranks-$sync" "$ranks" "$spec --synchronizer=$sync"
  done
  python3 - "$out/$name-1.json" "$out/$name-$ranks-granted-time-window.json" \
    "$out/$name-$ranks-null-message.json" <<'EOF'
import json, sys
one, gtw, nm = (json.load(open(f)) for f in sys.argv[1:])
base = one["ranks"][0]["wall_s"]
for label, d in (("granted-time-window", gtw), ("null-message", nm)):
    same = d["completion_time_s"] == one["completion_time_s"]
    print("  speedup %s: %.2f (one process %.1f s, slowest rank %.1f s); same completion: %s"
          % (label, base / max(r["wall_s"] for r in d["ranks"]), base,
             max(r["wall_s"] for r in d["ranks"]), same))
EOF
done
if [ "${LARGEST:-0}" = 1 ]; then
  spec="--topology=fattree:k=16 --scheduler=ring --mode=$mode --gradient-bytes=1MiB"
  run "fattree_k_16-1MiB-1" 1 "$spec"
  run "fattree_k_16-1MiB-$ranks" "$ranks" "$spec"
  python3 - "$out/fattree_k_16-1MiB-1.json" "$out/fattree_k_16-1MiB-$ranks.json" <<'EOF'
import json, sys
one, many = (json.load(open(f)) for f in sys.argv[1:])
base = one["ranks"][0]["peak_rss_bytes"]
top = max(r["peak_rss_bytes"] for r in many["ranks"])
print("  largest rank's peak memory / one process's: %.2f (%.0f / %.0f MiB); same completion: %s"
      % (top / base, top / 2**20, base / 2**20,
         many["completion_time_s"] == one["completion_time_s"]))
EOF
fi
note "done"
