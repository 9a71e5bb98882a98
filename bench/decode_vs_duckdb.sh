#!/usr/bin/env bash
# Parquet decode throughput: lakedump's ParquetReader vs DuckDB reading the same file, both on
# one thread, on files written by lakedump and by DuckDB.
#
#   bench/decode_vs_duckdb.sh [BUILD_DIR] [RUNS]
# Env: LD_INTEROP_DIR (default tests/interop; needs node_modules with @duckdb/node-api),
#      WIDE_ROWS (10000000), VMART_ROWS (300000), CODEC (snappy), TMP (/tmp), KEEP=1 keeps the files.
# Files: wide (WIDE_ROWS rows, 9 columns: ints, doubles, strings, date, timestamp) and VMart
# store_orders_fact (VMART_ROWS, default 300000), written by lakedump's
# parquet_encode_bench; plus DuckDB's rewrite of the wide file (COPY ... TO parquet).
# lakedump: parquet_file_decode_bench (pread + footer + every page into RowBatches).
# DuckDB: SELECT count(*), sum(hash(COLUMNS(*))) FROM read_parquet(FILE) with SET threads=1
# (every value of every column decoded; see duckdb_scan.cjs for why this query).
# Prints each measurement line, then per file: rows/s (wall) and rows per CPU-second ratios,
# lakedump / DuckDB (> 1: lakedump faster). Medians of RUNS runs (default 3).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
build="${1:-$root/build}"
runs="${2:-3}"
interop="${LD_INTEROP_DIR:-$root/tests/interop}"
tmp="${TMP:-/tmp}"
codec="${CODEC:-snappy}"
enc="$build/bench/parquet_encode_bench"
dec="$build/bench/parquet_file_decode_bench"
for b in "$enc" "$dec"; do
  [[ -x "$b" ]] || { echo "build $b first: cmake --build $build --target $(basename "$b")" >&2; exit 2; }
done
[[ -d "$interop/node_modules/@duckdb/node-api" ]] || { echo "npm ci in $interop first" >&2; exit 2; }

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

wide="$tmp/ld_decode_wide_${codec}.parquet"
vmart="$tmp/ld_decode_vmart_${codec}.parquet"
duck="$tmp/dd_decode_wide_${codec}.parquet"
cleanup() { [[ "${KEEP:-0}" == 1 ]] || rm -f "$wide" "$vmart" "$duck"; }
trap cleanup EXIT
"$enc" --table=wide --rows="${WIDE_ROWS:-10000000}" --codec="$codec" --threads=1 --runs=1 \
  --out="$wide" >/dev/null
"$enc" --table=vmart --rows="${VMART_ROWS:-300000}" --codec="$codec" --threads=1 --runs=1 --out="$vmart" >/dev/null
node "$here/duckdb_copy.cjs" "$interop" "$wide" "$duck" "$codec" 1 1 >/dev/null

for spec in "lakedump-wide:$wide" "lakedump-vmart:$vmart" "duckdb-wide:$duck"; do
  label="${spec%%:*}"
  file="${spec#*:}"
  l=$("$dec" --file="$file" --runs="$runs" --label="$label")
  echo "$l"
  d=$(node "$here/duckdb_scan.cjs" "$interop" "$file" 1 "$runs" "$label")
  echo "$d"
  [[ "$(field rows "$l")" == "$(field rows "$d")" ]] || { echo "row counts differ for $label" >&2; exit 1; }
  awk -v f="$label" -v lr="$(field rows_per_s "$l")" -v lc="$(field rows_per_cpu_s "$l")" \
      -v dr="$(field rows_per_s "$d")" -v dc="$(field rows_per_cpu_s "$d")" 'BEGIN {
    printf("RATIO file=%s lakedump/duckdb rows_per_s=%.2fx rows_per_cpu_s=%.2fx " \
           "(lakedump %.2f M rows/s, DuckDB %.2f M rows/s)\n", f, lr / dr, lc / dc, lr / 1e6, dr / 1e6) }'
done
