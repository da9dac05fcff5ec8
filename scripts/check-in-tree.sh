#!/usr/bin/env bash
# Builds the module inside an ns-3.37 source tree as contrib/allreduce (Debian's ns3 source
# package), then runs its ns-3 TestSuite with ns-3's own test-runner and a few examples.
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

echo "== copying the module to $src/contrib/allreduce"
rm -rf "$src/contrib/allreduce"
mkdir -p "$src/contrib/allreduce"
(cd "$repo" && git ls-files -co --exclude-standard -z | tar --null -cf - -T -) |
  tar -xf - -C "$src/contrib/allreduce"

echo "== configuring ns-3.37 with only the allreduce module and what it needs"
# csma too: ns-3.37's own src/test suites use CsmaHelper without checking that csma is enabled,
# so test-runner does not link without it.
build=$cache/ns3-build
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=debug \
  "-DNS3_ENABLED_MODULES=allreduce;csma" -DNS3_EXAMPLES=ON -DNS3_TESTS=ON \
  -DNS3_FILTER_MODULE_EXAMPLES_AND_TESTS=allreduce -DNS3_PYTHON_BINDINGS=OFF > "$cache/configure.log" ||
  { cat "$cache/configure.log"; exit 1; }
grep -q 'allreduce' "$cache/configure.log" || { cat "$cache/configure.log"; exit 1; }

echo "== building (this takes a while the first time; ccache makes later runs fast)"
cmake --build "$build" -j "$jobs" > "$cache/build.log" 2>&1 || { tail -50 "$cache/build.log"; exit 1; }

runner=$(find "$src/build/utils" -name 'ns3.37-test-runner*' -type f | head -1)
example=$(find "$src/build/contrib/allreduce/examples" -name 'ns3.37-dcn-topology*' -type f | head -1)
rounds=$(find "$src/build/contrib/allreduce/examples" -name 'ns3.37-allreduce-rounds*' -type f | head -1)
test -x "$runner" || { echo "ns-3 test-runner was not built" >&2; exit 1; }
test -x "$example" || { echo "dcn-topology example was not built in-tree" >&2; exit 1; }
packet=$(find "$src/build/contrib/allreduce/examples" -name 'ns3.37-allreduce-packet-*' -type f ! -name '*table*' | head -1)
test -x "$rounds" || { echo "allreduce-rounds example was not built in-tree" >&2; exit 1; }
test -x "$packet" || { echo "allreduce-packet example was not built in-tree" >&2; exit 1; }
first=$(find "$src/build/contrib/allreduce/examples" -name 'ns3.37-allreduce-simple*' -type f | head -1)
test -x "$first" || { echo "allreduce-simple example was not built in-tree" >&2; exit 1; }

echo "== ns-3 test-runner --suite=allreduce (in-tree)"
"$runner" --suite=allreduce --verbose
echo "== allreduce-simple (in-tree: the module alone, as a user's script)"
"$first"
echo "== dcn-topology (in-tree)"
"$example" --topology=bcube:n=3,k=1
echo "== allreduce-rounds (in-tree)"
"$rounds" --topology=bcube:n=3,k=1 --scheduler=balanced
echo "== allreduce-packet (in-tree)"
"$packet" --topology=bcube:n=3,k=1 --scheduler=greedy --mode=async --gradient-bytes=64KiB \
  --out="$cache/allreduce-packet"
echo "in-tree build and TestSuite: OK"
