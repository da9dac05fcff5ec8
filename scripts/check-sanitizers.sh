#!/usr/bin/env bash
# Builds the tests once more with AddressSanitizer and UndefinedBehaviorSanitizer in
# build-sanitize/ and runs the core tests and the ns-3 TestSuite under them.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${SANITIZE_BUILD_DIR:-$repo/build-sanitize}
bash "$repo/scripts/install-deps.sh"
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DALLREDUCE_SANITIZE=address,undefined \
    -DALLREDUCE_WITH_TORCH=OFF > /dev/null
fi
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target allreduce-core-tests allreduce-test-runner
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
"$build/test/allreduce-core-tests" --gtest_brief=1
"$build/test/allreduce-test-runner" --suite=allreduce
echo "sanitizers: OK"
