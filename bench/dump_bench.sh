#!/usr/bin/env bash
# Dump benchmarks (issue 3), medians of RUNS runs:
#  1. 1000 small tables, --table-parallelism 1 vs 16 (the two alternate, p=1 first in odd runs);
#  2. store_orders_fact (300K rows) and big_table (BIG_ROWS rows) end to end, with peak RSS,
#     beside the SQLite read alone and the Parquet encoder alone for the same table
#     (build/bench/dump_stages_bench), so the report can say where the time goes.
# Every run dumps into a fresh destination; the previous run's folder is deleted, the page
# cache's dirty data written back (sync) and the disk left alone for SETTLE seconds BEFORE
# the timer starts, so the timing is the dump's, not the deletion's (ext4 pays for recently
# deleted inodes in the next create).
#
# Usage: bench/dump_bench.sh [BUILD_DIR] [WORK_DIR]
# Environment: RUNS=3, BIG_ROWS=10000000, SETTLE=1 (seconds), DUMP_ARGS="" (extra dump options,
# e.g. "--split-size 0"), SKIP_SMALL=1 / SKIP_BIG=1, STAGE_RUNS=RUNS.
set -euo pipefail
BUILD=${1:-build}
WORK=${2:-$(mktemp -d /tmp/lakedump-bench-XXXXXX)}
LD="$BUILD/lakedump"
STAGES="$BUILD/bench/dump_stages_bench"
RUNS=${RUNS:-3}
STAGE_RUNS=${STAGE_RUNS:-$RUNS}
BIG_ROWS=${BIG_ROWS:-10000000}
SETTLE=${SETTLE:-1}
read -r -a EXTRA <<<"${DUMP_ARGS:-}"
mkdir -p "$WORK"
echo "work dir: $WORK  runs: $RUNS  extra dump args: ${DUMP_ARGS:-none}"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)  ($(nproc) cores)"

# Fresh destination, outside the timing.
fresh() {
  rm -rf "$1"
  sync
  sleep "$SETTLE"
}

# run_dump OUT_PREFIX ARGS...: times one dump (wall seconds on stdout's last line) under
# /usr/bin/time -v (peak RSS in OUT_PREFIX.time).
run_dump() {
  local out=$1
  shift
  python3 - "$out" "$@" <<'PY'
import subprocess, sys, time
out = sys.argv[1]
with open(out + ".json", "w") as j, open(out + ".time", "w") as e:
    t = time.monotonic()
    subprocess.run(["/usr/bin/time", "-v"] + sys.argv[2:], check=True, stdout=j, stderr=e)
    print(f"{time.monotonic() - t:.3f}")
PY
}

median() { python3 -c "import statistics,sys; print(f'{statistics.median(map(float, sys.argv[1:])):.3f}')" "$@"; }
rss_mib() { awk -F: '/Maximum resident/ {printf "%.0f", $2/1024}' "$1"; }
cpu_s() { awk -F: '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$1"; }

# 1. 1000 small tables, --table-parallelism 1 vs 16.
if [ -z "${SKIP_SMALL:-}" ]; then
  [ -f "$WORK/small.sqlite" ] || "$LD" demo "$WORK/small.sqlite" --rows 1000 --small-tables 1000 >/dev/null
  p1=() p16=() c1=() c16=()
  for ((run = 1; run <= RUNS; run++)); do
    order="1 16"
    ((run % 2 == 0)) && order="16 1"
    for p in $order; do
      dest="$WORK/small-p$p"
      fresh "$dest"
      t=$(run_dump "$WORK/small-p$p" "$LD" dump "$WORK/small.sqlite" "$dest" --table-parallelism "$p" \
            --progress none --json "${EXTRA[@]}")
      if [ "$p" = 1 ]; then p1+=("$t"); c1+=("$(cpu_s "$WORK/small-p$p.time")"); else p16+=("$t"); c16+=("$(cpu_s "$WORK/small-p$p.time")"); fi
    done
  done
  m1=$(median "${p1[@]}")
  m16=$(median "${p16[@]}")
  echo "1000 small tables: p=1 median ${m1}s (runs ${p1[*]}; CPU ${c1[*]} s)"
  echo "                   p=16 median ${m16}s (runs ${p16[*]}; CPU ${c16[*]} s)"
  echo "                   speedup $(python3 -c "print(round($m1/$m16, 2))")x"
fi

# 2. store_orders_fact and big_table end to end vs the read alone and the encoder alone.
if [ -z "${SKIP_BIG:-}" ]; then
  [ -f "$WORK/big.sqlite" ] || "$LD" demo "$WORK/big.sqlite" --rows 300000 --big-rows "$BIG_ROWS" >/dev/null
  for table in store_orders_fact big_table; do
    times=() rss=() cpus=()
    for ((run = 1; run <= RUNS; run++)); do
      dest="$WORK/$table"
      fresh "$dest"
      times+=("$(run_dump "$WORK/$table" "$LD" dump "$WORK/big.sqlite" "$dest" --tables "$table" \
                --json --progress none "${EXTRA[@]}")")
      rss+=("$(rss_mib "$WORK/$table.time")")
      cpus+=("$(cpu_s "$WORK/$table.time")")
    done
    rows=$(python3 -c "import json;print(json.load(open('$WORK/$table.json'))['rows'])")
    files=$(python3 -c "import json;print(json.load(open('$WORK/$table.json')).get('files', '?'))")
    m=$(median "${times[@]}")
    echo "$table: $rows rows, $files files: end to end median ${m}s = $(python3 -c "print(int($rows/$m))") rows/s" \
         "(runs ${times[*]} s; CPU ${cpus[*]} s; peak RSS ${rss[*]} MiB)"
    if [ -x "$STAGES" ]; then
      stage_out=$("$STAGES" --db="$WORK/big.sqlite" --table="$table" --runs="$STAGE_RUNS")
      echo "$stage_out" | sed 's/^/  /'
      python3 - "$m" "$rows" <<PY
import sys
m, rows = float(sys.argv[1]), int(sys.argv[2])
st = {}
for line in """$stage_out""".splitlines():
    kv = dict(p.split("=", 1) for p in line.split())
    st[kv["stage"]] = kv
enc, rd = float(st["encode"]["median_s"]), float(st["read"]["median_s"])
enc_first = float(st["encode"]["first_s"])
scale = rows / int(st["encode"]["rows"])  # the encoder alone, scaled to the table's rows
enc_s, enc_first_s = enc * scale, enc_first * scale
print(f"  end to end {m:.3f}s vs encoder alone {enc_s:.3f}s (median): {100 * (m / enc_s - 1):+.0f}%; "
      f"vs its first (cold) run {enc_first_s:.3f}s: {100 * (m / enc_first_s - 1):+.0f}% "
      f"(read alone {rd:.3f}s; read + encode in series {rd + enc_s:.3f}s)")
PY
    else
      echo "  ($STAGES missing: build the benchmarks for the read-alone and encoder-alone rates)"
    fi
  done
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
