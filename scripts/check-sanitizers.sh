#!/usr/bin/env bash
# Builds the tests once more with AddressSanitizer and UndefinedBehaviorSanitizer in
# build-sanitize/ and runs the core tests and the ns-3 TestSuite under them.
# This build is also the build without COIN-OR CBC (-DALLREDUCE_WITH_CBC=OFF, as if
# coinor-libcbc-dev were missing): configuring must say that the optimal scheduler is off,
# and the tests check that asking for it says how to turn it on.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# ccache: the same sources compiled in another checkout (CI's fresh clone) hit the cache.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$repo} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
build=${SANITIZE_BUILD_DIR:-$repo/build-sanitize}
bash "$repo/scripts/install-deps.sh"
configure_log=$(cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Debug \
  -DALLREDUCE_SANITIZE=address,undefined -DALLREDUCE_WITH_TORCH=OFF -DALLREDUCE_WITH_CBC=OFF)
if ! grep -q "optimal scheduler is disabled" <<< "$configure_log"; then
  echo "check-sanitizers: configuring without CBC did not say the optimal scheduler is off" >&2
  exit 1
fi
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target allreduce-core-tests allreduce-test-runner
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# The core tests in GoogleTest shards, twice as many as there are cores, all at once beside the
# ns-3 TestSuite: under the sanitizers one process takes about fourteen minutes alone, and the
# tests are uneven (with one shard per core one took 610 s, the other 227 s). Each shard's
# output goes to its own log, printed when it fails.
shards=$((2 * ${JOBS:-$(nproc)}))
logs=$(mktemp -d)
pids=()
for ((i = 0; i < shards; ++i)); do
  GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i \
    "$build/test/allreduce-core-tests" --gtest_brief=1 > "$logs/shard-$i.log" 2>&1 &
  pids+=($!)
done
"$build/test/allreduce-test-runner" --suite=allreduce > "$logs/suite.log" 2>&1 &
pids+=($!)
failed=0
for ((i = 0; i < ${#pids[@]}; ++i)); do
  if ! wait "${pids[$i]}"; then
    failed=1
    if ((i < shards)); then log="$logs/shard-$i.log"; else log="$logs/suite.log"; fi
    echo "check-sanitizers: $(basename "$log" .log) failed:" >&2
    cat "$log" >&2
  fi
done
for ((i = 0; i < shards; ++i)); do tail -n 3 "$logs/shard-$i.log"; done
tail -n 3 "$logs/suite.log"
rm -rf "$logs"
if ((failed)); then exit 1; fi
echo "sanitizers: OK"
