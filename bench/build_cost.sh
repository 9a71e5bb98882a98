#!/usr/bin/env bash
# The compile cost of quickstart's build (issue 14): configures BUILD_DIR afresh the way
# scripts/quickstart does (Release, lakedump_cli only, no tests, benchmarks or tools, no ccache),
# builds it with every compiler call timed, and prints the total compile CPU (user + sys seconds
# summed over the calls: unlike wall time, it hardly depends on what else runs on the machine)
# and the TOP most expensive translation units.
#
# Usage: bench/build_cost.sh [BUILD_DIR] [-- EXTRA_CMAKE_ARGS...]
#   e.g. bench/build_cost.sh build-cost -- -DLAKEDUMP_PCH=OFF
# Environment: JOBS=2 (build parallelism), TOP=15, TARGET=lakedump_cli.
# Leaves BUILD_DIR/compile-times.txt: "user sys wall max-rss-KB object" per compiler call.
set -euo pipefail
if [ "${1:-}" = --exec ]; then
  # The compiler launcher: run the compile, append its times to $BUILD_COST_LOG.
  shift
  out=?
  prev=
  for a in "$@"; do
    [ "$prev" = -o ] && out=$a
    prev=$a
  done
  t=$(mktemp)
  rc=0
  /usr/bin/time -f "%U %S %e %M" -o "$t" "$@" || rc=$?
  echo "$(tail -n1 "$t") $out" >>"${BUILD_COST_LOG:?}"
  rm -f "$t"
  exit $rc
fi
cd "$(dirname "$0")/.."
BUILD=${1:-build-cost}
shift || true
[ "${1:-}" = -- ] && shift
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
rm -rf "${BUILD:?}"
mkdir -p "$BUILD"
log=$(cd "$BUILD" && pwd)/compile-times.txt
self=$(pwd)/bench/build_cost.sh
launcher="env;BUILD_COST_LOG=$log;$self;--exec"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLAKEDUMP_WERROR=OFF \
  -DLAKEDUMP_BUILD_TESTS=OFF -DLAKEDUMP_BUILD_BENCH=OFF -DLAKEDUMP_BUILD_TOOLS=OFF \
  -DCMAKE_CXX_COMPILER_LAUNCHER="$launcher" -DCMAKE_C_COMPILER_LAUNCHER="$launcher" "$@" >/dev/null
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)  ($(nproc) cores)"
started=$(date +%s)
cmake --build "$BUILD" --parallel "${JOBS:-2}" --target "${TARGET:-lakedump_cli}" >/dev/null
echo "build wall: $(($(date +%s) - started)) s (depends on the machine's load; the CPU below less so)"
awk '{u += $1; s += $2; n++} END {printf "compile CPU: %.1f s (user %.1f + sys %.1f) over %d compiler calls\n", u + s, u, s, n}' "$log"
echo "most expensive (user+sys s, object):"
awk '{printf "%7.2f  %s\n", $1 + $2, $5}' "$log" | sort -rn | head -n "${TOP:-15}"
