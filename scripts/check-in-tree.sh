#!/usr/bin/env bash
# Builds the module inside an ns-3.37 source tree as contrib/allreduce (Debian's ns3 source
# package) the way an ns-3 user does (./ns3 configure, ./ns3 build), with ns-3's MPI module
# against Debian's OpenMPI, then runs its TestSuite with ns-3's ./test.py, the examples with
# ./ns3 run, and a distributed AllReduce on two ranks (mpirun).
# The source tree and its build are cached in $ALLREDUCE_NS3_CACHE (default
# /var/cache/allreduce-ci), so a second run is incremental. Run as root (apt-get).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${ALLREDUCE_NS3_CACHE:-/var/cache/allreduce-ci}
jobs=${JOBS:-$(nproc)}
src=$cache/ns3-3.37/ns-3.37

bash "$repo/scripts/install-deps.sh" dpkg-dev

if [ ! -f "$src/CMakeLists.txt" ]; then
  echo "== fetching the ns-3.37 source package"
  # apt-get source needs deb-src entries: derive them from the configured Debian sources.
  if [ ! -f /etc/apt/sources.list.d/allreduce-deb-src.sources ] &&
     ! grep -rqs '^\(Types:.*deb-src\|deb-src\)' /etc/apt/sources.list /etc/apt/sources.list.d; then
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
      sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
        > /etc/apt/sources.list.d/allreduce-deb-src.sources
    else
      sed -n 's/^deb /deb-src /p' /etc/apt/sources.list > /etc/apt/sources.list.d/allreduce-deb-src.list
    fi
  fi
  apt-get update -qq
  mkdir -p "$cache"
  rm -rf "$cache/ns3-3.37"
  (cd "$cache" && apt-get source -qq ns3 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
  test -f "$src/CMakeLists.txt" || { echo "ns-3.37 source not found in $cache" >&2; exit 1; }
fi
# scripts/bench-distributed.sh only needs the sources.
[ "${1:-}" = --fetch-only ] && exit 0

echo "== copying the module to $src/contrib/allreduce"
rm -rf "$src/contrib/allreduce"
mkdir -p "$src/contrib/allreduce"
(cd "$repo" && git ls-files -co --exclude-standard -z | tar --null -cf - -T -) |
  tar -xf - -C "$src/contrib/allreduce"

cd "$src"
echo "== ./ns3 configure: only the allreduce module and what it needs, with examples, tests, MPI"
# mpi: distributed runs (mpirun -np N allreduce-packet ...).
# csma too: ns-3.37's own src/test suites use CsmaHelper without checking that csma is enabled,
# so test-runner does not link without it.
# point-to-point-layout and topology-read for allreduce-your-network (ns-3 does not look for
# the modules a module's examples need).
./ns3 configure -d debug --enable-examples --enable-tests --disable-python-bindings --enable-mpi \
  --enable-modules "allreduce;csma;point-to-point-layout;topology-read;mpi" \
  --filter-module-examples-and-tests allreduce \
  > "$cache/configure.log" 2>&1 || { cat "$cache/configure.log"; exit 1; }
# In-tree parity: the module finds what the standalone build finds, so every scheduler works.
for found in "LibTorch .* found; learning parts enabled" "COIN-OR CBC .* found" \
             "ns-3's mpi module is enabled"; do
  grep -q "allreduce: $found" "$cache/configure.log" ||
    { cat "$cache/configure.log"; echo "in-tree configure did not say: $found" >&2; exit 1; }
done

echo "== ./ns3 build (this takes a while the first time; ccache makes later runs fast)"
./ns3 build -j "$jobs" > "$cache/build.log" 2>&1 || { tail -50 "$cache/build.log"; exit 1; }

echo "== ./test.py --suite=allreduce (ns-3's test runner)"
./test.py --no-build --suite=allreduce --verbose | tee "$cache/test.log"
# test.py colours its verdicts: compare without the colour codes.
sed 's/\x1b\[[0-9;]*m//g' "$cache/test.log" | grep -q "^\[1/1\] PASS: TestSuite allreduce" ||
  { echo "TestSuite allreduce did not pass" >&2; exit 1; }

# Every example as a user runs it in-tree, with small inputs (seconds each, in ns-3's debug
# build); drl with the shipped checkpoints, found from the module's own directory.
run() {
  echo "== ./ns3 run \"$1\""
  ./ns3 run --no-build "$1"
}
run "allreduce-simple --scheduler=drl"
run "allreduce-simple --scheduler=optimal"
run "allreduce-your-network --network=leaf-spine --routing=network-ecmp"
run "allreduce-your-network --network=inet:$src/contrib/allreduce/examples/two-pods.inet --routing=network"
run "allreduce-your-scheduler"
run "allreduce-traces --out=$cache/allreduce-traces"
# netanim (and the 500-odd files of wifi, lte, ... it needs) is not enabled here: the NetAnim
# option must say so clearly (the standalone build, with Debian's netanim, tests the traces).
echo "== ./ns3 run \"allreduce-simple --netanim=...\" (refused: no netanim in this ns-3 build)"
if ./ns3 run --no-build "allreduce-simple --topology=bcube:n=2,k=1 --netanim=$cache/bcube.xml" \
     > "$cache/netanim.log" 2>&1 || ! grep -q "has no NetAnim" "$cache/netanim.log"; then
  cat "$cache/netanim.log"; echo "allreduce-simple --netanim did not refuse clearly" >&2; exit 1
fi
run "dcn-topology --topology=bcube:n=3,k=1"
run "allreduce-rounds --topology=dcell:n=4,k=1 --scheduler=drl"
run "allreduce-packet --topology=bcube:n=3,k=1 --scheduler=greedy --mode=async --gradient-bytes=64KiB --out=$cache/allreduce-packet"
run "allreduce-table --schedulers=greedy --seeds=1 --aggregation=none --out=$cache/allreduce-table"
run "allreduce-packet-table --topologies=bcube:n=2,k=1 --schedulers=greedy,drl --gradient-bytes=64KiB --out=$cache/allreduce-packet-table"
run "allreduce-dynamic --topologies=bcube:n=2,k=1 --schedulers=greedy,drl --scenarios=none,link-down --gradient-bytes=64KiB --out=$cache/allreduce-dynamic"
run "allreduce-cluster --topology=bcube:n=3,k=1 --jobs=3 --sizes=2,4 --iterations=1 --gradient-bytes=64KiB --level=packet"
run "allreduce-train --topology=bcube:n=2,k=1 --iterations=1 --episodes=1 --out=$cache/allreduce-train"
bash "$repo/scripts/check-distributed.sh" "$src"
echo "in-tree build, TestSuite, examples and distributed runs: OK"
