#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang with AddressSanitizer and UndefinedBehaviorSanitizer)
# in build-fuzz/ and runs each for FUZZ_SECONDS (default 60) from its seed corpus in
# fuzz/corpus/<target>/, JOBS (default: the cores) at a time. A crash, a sanitizer report, a leak, an input slower than 20 s or a
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
targets=(topology-spec topology-file router-file schedule-json msccl-xml job-trace aggregator-rounds)
# Each fuzzer is one single-threaded process: JOBS of them run at a time, each into its own log.
jobs=${JOBS:-$(nproc)}
mkdir -p "$build/logs"
fuzz() {
  local target=$1 work=$build/corpus/$1
  mkdir -p "$work"
  (cd "$build" && "./fuzz-$target" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
     -print_final_stats=1 "$work" "$repo/fuzz/corpus/$target") > "$build/logs/$target.log" 2>&1
}
failed=0
for ((i = 0; i < ${#targets[@]}; i += jobs)); do
  batch=("${targets[@]:i:jobs}")
  pids=()
  for target in "${batch[@]}"; do
    echo "== fuzz-$target for $seconds s (seeds: fuzz/corpus/$target, $(ls "$repo/fuzz/corpus/$target" | wc -l) files)"
    fuzz "$target" &
    pids+=($!)
  done
  for j in "${!batch[@]}"; do
    target=${batch[$j]}
    if wait "${pids[$j]}"; then
      echo "== fuzz-$target:"; tail -n 15 "$build/logs/$target.log"
    else
      failed=1
      tail -n 60 "$build/logs/$target.log"
      echo "check-fuzz: fuzz-$target found a problem; the input is in $build" >&2
    fi
  done
done
if ((failed)); then exit 1; fi
echo "fuzz: OK"
