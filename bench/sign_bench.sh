#!/usr/bin/env bash
# The cost of signing a dump (issue 16): `dump` of one demo database with and without
# --sign-key-file (SHA-256 of every object on the way, plus one HMAC of the manifest), and
# `verify --require-signature` vs plain `verify` (which hashes every file with XXH64 either
# way); medians of RUNS runs, the two variants alternating (unsigned first in odd runs), each
# into a fresh destination (deleted, synced and left alone SETTLE seconds before the timer).
#
# Usage: bench/sign_bench.sh [BUILD_DIR] [WORK_DIR]
# Environment: RUNS=5, ROWS=300000 (demo --rows), BIG_ROWS=2000000 (demo --big-rows),
# SETTLE=1, DUMP_ARGS="" (extra dump options).
set -euo pipefail
BUILD=${1:-build}
WORK=${2:-$(mktemp -d /tmp/lakedump-sign-bench-XXXXXX)}
LD="$BUILD/lakedump"
RUNS=${RUNS:-5}
ROWS=${ROWS:-300000}
BIG_ROWS=${BIG_ROWS:-2000000}
SETTLE=${SETTLE:-1}
read -r -a EXTRA <<<"${DUMP_ARGS:-}"
mkdir -p "$WORK"
echo "work dir: $WORK  runs: $RUNS  demo: --rows $ROWS --big-rows $BIG_ROWS"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)  ($(nproc) cores)"
DB="$WORK/demo.sqlite"
[ -f "$DB" ] || "$LD" demo "$DB" --rows "$ROWS" --big-rows "$BIG_ROWS" >/dev/null
KEY="$WORK/key"
[ -f "$KEY" ] || head -c 32 /dev/urandom >"$KEY"
chmod 600 "$KEY"

fresh() { rm -rf "$1"; sync; sleep "$SETTLE"; }
# seconds CMD...: wall seconds of one run (output discarded).
seconds() {
  python3 - "$@" <<'PY'
import subprocess, sys, time
t = time.monotonic()
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(f"{time.monotonic() - t:.3f}")
PY
}
median() { python3 -c "import statistics,sys; print(f'{statistics.median(map(float, sys.argv[1:])):.3f}')" "$@"; }

plain=() signed=() vplain=() vsigned=()
for ((run = 1; run <= RUNS; run++)); do
  order="plain signed"
  ((run % 2 == 0)) && order="signed plain"
  for v in $order; do
    dest="$WORK/dump-$v"
    fresh "$dest"
    args=()
    [ "$v" = signed ] && args=(--sign-key-file "$KEY")
    t=$(seconds "$LD" dump "$DB" "$dest" --progress none "${args[@]}" "${EXTRA[@]}")
    if [ "$v" = signed ]; then
      signed+=("$t")
      vsigned+=("$(seconds "$LD" verify "$dest" --require-signature "$KEY")")
    else
      plain+=("$t")
      vplain+=("$(seconds "$LD" verify "$dest")")
    fi
  done
done
bytes=$(du -sb "$WORK/dump-signed" | cut -f1)
mp=$(median "${plain[@]}")
ms=$(median "${signed[@]}")
echo "dump bytes: $bytes"
echo "dump unsigned: median ${mp}s (runs ${plain[*]})"
echo "dump signed:   median ${ms}s (runs ${signed[*]})"
echo "signing cost:  $(python3 -c "print(f'{($ms - $mp):+.3f}s ({100 * ($ms / $mp - 1):+.1f}%)')")"
echo "verify plain:  median $(median "${vplain[@]}")s (runs ${vplain[*]})"
echo "verify --require-signature: median $(median "${vsigned[@]}")s (runs ${vsigned[*]})"
