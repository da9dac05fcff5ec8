#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang with AddressSanitizer and UndefinedBehaviorSanitizer)
# in build-fuzz/ and runs each for FUZZ_SECONDS (default 60) from its seed corpus in
# fuzz/corpus/<target>/. A crash, a sanitizer report, a leak, an input slower than 20 s or a
# process over 2 GiB fails the script, and the input that did it is left in build-fuzz/ as
# crash-*, leak-*, timeout-* or oom-* (libFuzzer's names) to replay: build-fuzz/fuzz-TARGET FILE.
# The seed corpus in the repository is not changed; what the fuzzer adds goes to build-fuzz/.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# ccache: the same sources compiled in another checkout (CI's fresh clone) hit the cache.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$repo} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
build=${FUZZ_BUILD_DIR:-$repo/build-fuzz}
seconds=${FUZZ_SECONDS:-60}
bash "$repo/scripts/install-deps.sh" clang libclang-rt-14-dev
launcher=()
if command -v ccache > /dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S "$repo/fuzz" -B "$build" -DCMAKE_CXX_COMPILER=clang++ "${launcher[@]}" > /dev/null
cmake --build "$build" -j "${JOBS:-$(nproc)}"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for target in topology-spec topology-file schedule-json msccl-xml job-trace aggregator-rounds; do
  work=$build/corpus/$target
  mkdir -p "$work"
  echo "== fuzz-$target for $seconds s (seeds: fuzz/corpus/$target, $(ls "$repo/fuzz/corpus/$target" | wc -l) files)"
  (cd "$build" && "./fuzz-$target" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
     -print_final_stats=1 "$work" "$repo/fuzz/corpus/$target" 2>&1 | tail -15)
  status=${PIPESTATUS[0]}
  if [ "$status" -ne 0 ]; then
    echo "check-fuzz: fuzz-$target found a problem (exit $status); the input is in $build" >&2
    exit 1
  fi
done
echo "fuzz: OK"
