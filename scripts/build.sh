#!/usr/bin/env bash
# Installs what is missing, then configures (first time) and builds the module standalone in
# build/ (or $BUILD_DIR) against Debian's ns-3. A second run is incremental. Extra arguments go
# to the build (e.g. a target name).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# ccache: the same sources compiled in another checkout (CI's fresh clone) hit the cache.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$repo} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
build=${BUILD_DIR:-$repo/build}
bash "$repo/scripts/install-deps.sh"
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${CMAKE_ARGS:-}
fi
cmake --build "$build" -j "${JOBS:-$(nproc)}" "$@"
