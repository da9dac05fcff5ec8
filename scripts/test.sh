#!/usr/bin/env bash
# Installs and builds what is missing, then runs the whole test suite under ctest: the
# GoogleTest core tests, the ns-3 TestSuite "allreduce" and the example checks.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$repo/build}
bash "$repo/scripts/build.sh"
cd "$build"
ctest --output-on-failure -j "${JOBS:-$(nproc)}"
