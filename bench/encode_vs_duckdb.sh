#!/usr/bin/env bash
# Parquet encode throughput: lakedump's ParquetWriter vs DuckDB's COPY ... TO parquet,
# on identical data (lakedump generates it, DuckDB loads lakedump's file into a TEMP
# table in memory first, then only the COPY is timed).
#
#   bench/encode_vs_duckdb.sh [BUILD_DIR] [RUNS]
# Env: LD_INTEROP_DIR (default tests/interop; needs node_modules with @duckdb/node-api),
#      TABLES ("wide vmart"), CODECS ("snappy zstd"), WIDE_ROWS (10000000), TMP (/tmp).
# Prints each measurement line, then ratios: rows/s (wall) and rows per CPU-second,
# lakedump / DuckDB, plus file sizes. Medians of RUNS runs (default 3), each side after one untimed
# warm-up run (the first file of a process pays its fresh buffers' page faults).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
build="${1:-$root/build}"
runs="${2:-3}"
interop="${LD_INTEROP_DIR:-$root/tests/interop}"
tmp="${TMP:-/tmp}"
bench="$build/bench/parquet_encode_bench"
[[ -x "$bench" ]] || { echo "build $bench first: cmake --build $build --target parquet_encode_bench" >&2; exit 2; }
[[ -d "$interop/node_modules/@duckdb/node-api" ]] || { echo "npm ci in $interop first" >&2; exit 2; }
interop="$(cd "$interop" && pwd)"  # node resolves require() paths against the script, not $PWD

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

for table in ${TABLES:-wide vmart}; do
  rows_arg=()
  [[ "$table" == wide ]] && rows_arg=(--rows="${WIDE_ROWS:-10000000}")
  for codec in ${CODECS:-snappy zstd}; do
    ld="$tmp/ld_${table}_${codec}.parquet"
    dd="$tmp/dd_${table}_${codec}.parquet"
    l1=$("$bench" --table="$table" "${rows_arg[@]}" --codec="$codec" --threads=1 --runs="$runs" --out="$ld")
    echo "$l1"
    l2=$("$bench" --table="$table" "${rows_arg[@]}" --codec="$codec" --threads=2 --runs="$runs" --out="$ld")
    echo "$l2"
    d1=$(node "$here/duckdb_copy.cjs" "$interop" "$ld" "$dd" "$codec" 1 "$runs")
    echo "$d1"
    awk -v t="$table" -v c="$codec" \
        -v lr="$(field rows_per_s "$l1")" -v lc="$(field rows_per_cpu_s "$l1")" \
        -v l2r="$(field rows_per_s "$l2")" -v l2c="$(field cpu_s "$l2")" -v l1c="$(field cpu_s "$l1")" \
        -v dr="$(field rows_per_s "$d1")" -v dc="$(field rows_per_cpu_s "$d1")" \
        -v lb="$(field bytes "$l1")" -v db="$(field bytes "$d1")" 'BEGIN {
      printf("RATIO table=%s codec=%s lakedump/duckdb rows_per_s=%.2fx rows_per_cpu_s=%.2fx " \
             "2threads/1thread wall=%.2fx cpu_cost=%.2fx size lakedump/duckdb=%.3f\n",
             t, c, lr / dr, lc / dc, l2r / lr, l2c / l1c, lb / db) }'
    rm -f "$dd"
  done
done
