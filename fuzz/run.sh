#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (build-fuzz/) and runs each for a bounded time over a
# copy of its seed corpus (fuzz/corpus/<target>/). Fails on the first crash, sanitizer report or
# escaped error; the reproducer is left in build-fuzz/findings/.
#   fuzz/run.sh [seconds per target, default 60]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
jobs="$(nproc 2>/dev/null || echo 2)"
mkdir -p build-fuzz
cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DPERFMODEL_FUZZ=ON \
  -DPERFMODEL_TESTS=OFF -DPERFMODEL_BENCH=OFF -DPERFMODEL_CUDA=OFF >build-fuzz/configure.log 2>&1 ||
  { cat build-fuzz/configure.log; exit 1; }
cmake --build build-fuzz -j "$jobs"
mkdir -p build-fuzz/findings
export ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for target in card model hf_config calibration measurements raw_calibration cli; do
  work="build-fuzz/corpus/$target"
  mkdir -p "$work"
  echo "fuzz: $target for ${seconds}s" >&2
  ./build-fuzz/fuzz/fuzz_"$target" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=4096 \
    -artifact_prefix="build-fuzz/findings/$target-" -print_final_stats=1 "$work" "fuzz/corpus/$target" \
    >"build-fuzz/$target.log" 2>&1 || { tail -40 "build-fuzz/$target.log"; echo "fuzz: $target FOUND A CRASH" >&2; exit 1; }
  grep -E "stat::number_of_executed_units|cov:" "build-fuzz/$target.log" | tail -1 >&2 || true
done
echo "fuzz: no crashes" >&2
