#!/usr/bin/env bash
# Dump benchmarks (issue 3): table parallelism on 1000 small tables, end-to-end rows/s of
# store_orders_fact and big_table, peak RSS of the 10M-row dump.
# Usage: bench/dump_bench.sh [BUILD_DIR] [WORK_DIR]   (BIG_ROWS=10000000 by default)
set -euo pipefail
BUILD=${1:-build}
WORK=${2:-$(mktemp -d /tmp/lakedump-bench-XXXXXX)}
LD="$BUILD/lakedump"
BIG_ROWS=${BIG_ROWS:-10000000}
mkdir -p "$WORK"
echo "work dir: $WORK"

secs() { python3 - "$@" <<'PY'
import subprocess, sys, time
t = time.monotonic(); subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(f"{time.monotonic() - t:.3f}")
PY
}

# 1. 1000 small tables, --table-parallelism 1 vs 16.
[ -f "$WORK/small.sqlite" ] || "$LD" demo "$WORK/small.sqlite" --rows 1000 --small-tables 1000 >/dev/null
t1=$(secs "$LD" dump "$WORK/small.sqlite" "$WORK/small-p1" --table-parallelism 1 --progress none --if-exists overwrite)
t16=$(secs "$LD" dump "$WORK/small.sqlite" "$WORK/small-p16" --table-parallelism 16 --progress none --if-exists overwrite)
echo "1000 small tables: p=1 ${t1}s  p=16 ${t16}s  speedup $(python3 -c "print(round($t1/$t16, 2))")x"

# 2. store_orders_fact (300k rows) and big_table end to end, with peak RSS.
[ -f "$WORK/big.sqlite" ] || "$LD" demo "$WORK/big.sqlite" --rows 300000 --big-rows "$BIG_ROWS" >/dev/null
for table in store_orders_fact big_table; do
  /usr/bin/time -v "$LD" dump "$WORK/big.sqlite" "$WORK/$table" --tables "$table" --json \
      --progress none --if-exists overwrite >"$WORK/$table.json" 2>"$WORK/$table.time"
  rows=$(python3 -c "import json;print(json.load(open('$WORK/$table.json'))['rows'])")
  secs=$(python3 -c "import json;print(json.load(open('$WORK/$table.json'))['seconds'])")
  rss=$(awk -F: '/Maximum resident/ {print $2/1024}' "$WORK/$table.time")
  echo "$table: $rows rows in ${secs}s = $(python3 -c "print(int($rows/$secs))") rows/s, peak RSS ${rss} MiB"
done
echo "(encoder alone: see the parquet writer benchmark, bench/parquet_writer_bench)"
