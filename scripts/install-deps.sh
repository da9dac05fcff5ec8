#!/usr/bin/env bash
# Installs the Debian 12 packages the module needs, and only those that are missing, so that a
# second run does nothing. Extra package names may be given as arguments. Run as root.
set -euo pipefail

packages=(
  # ns-3 and what its CMake config names (find_package(ns3) fails without them)
  libns3-dev ns3 libgsl-dev libsqlite3-dev libxml2-dev python3.11-dev
  # build tools
  cmake make g++ ccache
  # libraries
  libboost-dev nlohmann-json3-dev libtinyxml2-dev libtorch-dev coinor-libcbc-dev pkg-config
  # an optimized BLAS under LibTorch (the libblas.so.3 alternative): the build with threads,
  # whose calls from several threads are safe (drl sets it to one thread of its own)
  libopenblas0-pthread
  libmetis-dev
  # distributed runs: the in-tree build's ns-3 MPI module, and mpirun
  libopenmpi-dev openmpi-bin
  # tests, benchmarks and figures
  libgtest-dev libgmock-dev libbenchmark-dev gnuplot-nox
  "$@"
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "missing packages: ${missing[*]}; run this as root (or install them with apt-get)" >&2
  exit 1
fi
echo "== installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" > /tmp/allreduce-apt.log 2>&1 ||
  { tail -30 /tmp/allreduce-apt.log; exit 1; }
