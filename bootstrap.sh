#!/usr/bin/env bash
# One command to set up, build and run perfmodel on a fresh Debian 12 machine.
#   ./bootstrap.sh run    install what is missing, build, run the main job (a decode step)
#   ./bootstrap.sh test   install what is missing, build (with the CUDA backend when nvcc is
#                         there), run the test suite, then build and test again under
#                         AddressSanitizer + UndefinedBehaviorSanitizer
#   ./bootstrap.sh fuzz   install clang, build the libFuzzer targets and run each for a minute
#                         (fuzz/run.sh; fails on any crash)
set -euo pipefail
cd "$(dirname "$0")"
mode="${1:-run}"
jobs="$(nproc 2>/dev/null || echo 2)"

packages=(build-essential cmake libyaml-cpp-dev libboost-program-options-dev libeigen3-dev doctest-dev libbenchmark-dev nlohmann-json3-dev)
[ "$mode" = fuzz ] && packages+=(clang)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}" >&2
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi

build() {  # build <dir> <cmake args...>
  local dir="$1"; shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; exit 1; }
  cmake --build "$dir" -j "$jobs"
}

case "$mode" in
  run)
    build build -DPERFMODEL_TESTS=OFF
    ./build/tools/perfmodel/perfmodel decode --model llama2-7b --card a100 --ctx 2048
    ;;
  test)
    # PERFMODEL_TESTS is named: a cache left by `run` (OFF) would otherwise build no tests, and
    # --no-tests=error makes ctest fail instead of passing when it finds none (issue 14).
    build build -DPERFMODEL_TESTS=ON
    (cd build && ctest --no-tests=error --output-on-failure -j "$jobs")
    echo "bootstrap: sanitizer build (ASan + UBSan, CUDA off)" >&2
    build build-asan -DPERFMODEL_TESTS=ON -DPERFMODEL_SANITIZE=ON -DPERFMODEL_CUDA=OFF -DPERFMODEL_BENCH=OFF -DCMAKE_BUILD_TYPE=Debug
    (cd build-asan && ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 ctest --no-tests=error --output-on-failure -j "$jobs")
    ;;
  fuzz)
    fuzz/run.sh "${PERFMODEL_FUZZ_SECONDS:-60}"
    ;;
  *)
    echo "usage: ./bootstrap.sh run|test|fuzz" >&2
    exit 2
    ;;
esac
