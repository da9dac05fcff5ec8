#!/usr/bin/env bash
# Builds the module inside an ns-3 source tree as contrib/allreduce, the way an ns-3 user does
# (./ns3 configure, ./ns3 build), with ns-3's MPI module against Debian's OpenMPI; checks that
# no object read an ns-3 header from outside the tree; then runs the TestSuite with ns-3's
# ./test.py, the examples with ./ns3 run, and distributed AllReduces on two and three ranks
# (scripts/check-distributed.sh). Run as root (apt-get).
#
#   bash scripts/check-in-tree.sh [3.48|3.37] [--fetch-only]
#
#   3.48  (the default; CI's in-tree stage) the ns-3.48 release from ns-3.48.tar.xz: the file
#         ALLREDUCE_NS3_TARBALL names, or else ../shared/ns-3.48.tar.xz beside the repository
#         (machines here reach no internet, so nothing is downloaded)
#   3.37  Debian 12's ns-3.37 source package (apt-get source ns3; deb-src entries are added)
#   --fetch-only  unpack or fetch the source tree, then stop (scripts/bench-distributed.sh)
#
# ALLREDUCE_NS3_TREE=DIR uses any other ns-3 source tree instead, as it is (the module is copied
# into its contrib/). The trees and their builds are kept in $ALLREDUCE_NS3_CACHE (default
# /var/cache/allreduce-ci), so a second run is incremental.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${ALLREDUCE_NS3_CACHE:-/var/cache/allreduce-ci}
jobs=${JOBS:-$(nproc)}
version=3.48
fetch_only=0
for arg in "$@"; do
  case $arg in
    3.48|3.37) version=$arg ;;
    --fetch-only) fetch_only=1 ;;
    *) echo "usage: bash scripts/check-in-tree.sh [3.48|3.37] [--fetch-only] (got '$arg')" >&2
       exit 2 ;;
  esac
done

bash "$repo/scripts/install-deps.sh" dpkg-dev

# Debian's ns-3.37 source package, in $cache/ns3-3.37/ns-3.37.
fetch_ns3_337() {
  src=$cache/ns3-3.37/ns-3.37
  [ -f "$src/CMakeLists.txt" ] && return
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
}

# The ns-3.48 release tarball, unpacked in $cache/ns-3.48.
fetch_ns3_348() {
  src=$cache/ns-3.48
  [ -f "$src/CMakeLists.txt" ] && return
  local tarball=${ALLREDUCE_NS3_TARBALL:-$repo/../shared/ns-3.48.tar.xz}
  if [ ! -f "$tarball" ]; then
    echo "ns-3.48's source not found at $tarball: set ALLREDUCE_NS3_TARBALL to the release" \
      "(ns-3.48.tar.xz from nsnam.org), or ALLREDUCE_NS3_TREE to an ns-3 source tree" >&2
    exit 1
  fi
  echo "== unpacking $tarball"
  rm -rf "$src" "$cache/unpack"
  mkdir -p "$cache/unpack"
  tar -xJf "$tarball" -C "$cache/unpack"
  mv "$cache/unpack"/ns-3.48 "$src"
  rmdir "$cache/unpack"
  test -f "$src/CMakeLists.txt" || { echo "$tarball holds no ns-3.48/CMakeLists.txt" >&2; exit 1; }
}

if [ -n "${ALLREDUCE_NS3_TREE:-}" ]; then
  src=$(cd "$ALLREDUCE_NS3_TREE" && pwd)
  test -x "$src/ns3" ||
    { echo "ALLREDUCE_NS3_TREE=$src is no ns-3 source tree (no ./ns3)" >&2; exit 1; }
else
  "fetch_ns3_${version/./}"
fi
[ "$fetch_only" = 1 ] && exit 0
echo "== ns-3 $(cat "$src/VERSION") in $src"
mkdir -p "$cache" # the logs and the examples' outputs

echo "== copying what changed in the module to $src/contrib/allreduce"
bash "$repo/scripts/copy-module.sh" "$src/contrib/allreduce"

cd "$src"
echo "== ./ns3 configure: only the allreduce module and what it needs, with examples, tests, MPI"
# mpi: distributed runs (mpirun -np N allreduce-packet ...).
# csma too: ns-3's own src/test suites use CsmaHelper without checking that csma is enabled,
# so test-runner does not link without it.
# point-to-point-layout for allreduce-your-network (ns-3 does not look for the modules a
# module's examples need; router files are read by the module, not by topology-read).
./ns3 configure -d debug --enable-examples --enable-tests --disable-python-bindings --enable-mpi \
  --enable-modules "allreduce;csma;point-to-point-layout;mpi" \
  --filter-module-examples-and-tests allreduce \
  > "$cache/configure.log" 2>&1 || { cat "$cache/configure.log"; exit 1; }
# In-tree parity: the module finds what the standalone build finds, so every scheduler works;
# and the configure step warns of nothing in the module (./ns3 runs CMake with
# --warn-uninitialized).
for found in "ns-3 $(cat VERSION) (ALLREDUCE_NS3_VERSION=" \
             "LibTorch .* found: learning parts enabled" "COIN-OR CBC .* found" \
             "ns-3's mpi module is enabled"; do
  grep -q "allreduce: $found" "$cache/configure.log" ||
    { cat "$cache/configure.log"; echo "in-tree configure did not say: $found" >&2; exit 1; }
done
if grep -A3 "CMake Warning" "$cache/configure.log" | grep -q "contrib/allreduce"; then
  grep -A6 "CMake Warning" "$cache/configure.log"
  echo "in-tree configure warned in the module's CMake files" >&2; exit 1
fi

echo "== building (as ./ns3 build does; a while the first time, ccache makes later runs fast)"
# CMake's build of ./ns3's configuration, as ./ns3 build runs it, but with every core: ./ns3
# (3.37 and 3.48) caps its jobs at the cores less one, which on two cores halves the speed.
cmake --build cmake-cache -j "$jobs" > "$cache/build.log" 2>&1 ||
  { tail -50 "$cache/build.log"; exit 1; }
# ns-3's debug build makes warnings errors; one that is not (a #warning, a linker note) is
# still one too many.
if grep -n "warning:" "$cache/build.log" | grep "allreduce"; then
  echo "the module's build printed warnings" >&2; exit 1
fi

echo "== every ns-3 header an object read is this tree's"
# A header this tree lacks would otherwise be found in /usr/include/ns3 when Debian's ns-3 is
# installed (as ipv4-global-routing.h, gone in 3.47), silently mixing two versions. The
# compiler's dependency lists name every header read: Ninja keeps them in its log, Make in
# the .d files beside the objects.
if [ -f cmake-cache/build.ninja ]; then
  deps=$(ninja -C cmake-cache -t deps)
else
  deps=$(find cmake-cache -name '*.o.d' -exec cat {} +)
fi
outside=$(grep -oE '[^[:space:]]*/ns3/[^[:space:]/]+\.h' <<< "$deps" | grep -v "^$src/" |
          sort -u || true)
if [ -n "$outside" ]; then
  echo "$outside"
  echo "objects of this ns-3 tree read the ns-3 headers above from outside it" >&2; exit 1
fi

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
# ns-3's own Rocketfuel sample, as its topology-read documents the format.
run "allreduce-your-network --network=rocketfuel:$src/src/topology-read/examples/RocketFuel_sample_4755.r0.cch_maps.txt"
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
run "allreduce-packet --topology=bcube:n=3,k=1 --scheduler=greedy --transport=rdma --gradient-bytes=64KiB --out=$cache/allreduce-packet-rdma"
run "allreduce-table --schedulers=greedy --seeds=1 --aggregation=none --out=$cache/allreduce-table"
run "allreduce-packet-table --topologies=bcube:n=2,k=1 --schedulers=greedy,drl --gradient-bytes=64KiB --out=$cache/allreduce-packet-table"
run "allreduce-dynamic --topologies=bcube:n=2,k=1 --schedulers=greedy,drl --scenarios=none,link-down --gradient-bytes=64KiB --out=$cache/allreduce-dynamic"
run "allreduce-cluster --topology=bcube:n=3,k=1 --jobs=3 --sizes=2,4 --iterations=1 --gradient-bytes=64KiB --level=packet"
rm -rf "$cache/allreduce-train" # a new run does not overwrite an old one
run "allreduce-train --topology=bcube:n=2,k=1 --iterations=1 --episodes=1 --out=$cache/allreduce-train"
bash "$repo/scripts/check-distributed.sh" "$src"
echo "in-tree build (ns-3 $(cat VERSION)), TestSuite, examples and distributed runs: OK"
