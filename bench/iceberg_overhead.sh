#!/usr/bin/env bash
# Issue 12's figures: the time of an Iceberg dump (--table-format iceberg) against the plain
# dump's, to radosgw through the "near" link model (tools/faultproxy, RTT 20 ms):
#   small: 1000 small tables (demo --small-tables 1000, --tables 'small_*'), bound 1.3x
#   seed:  the seed replay's 300,000-row store_orders_fact, bound 1.1x
# Each case is bench/seed_replay.sh run once per table format (same demo database, same link,
# same upload parallelism); this prints each case's medians and their ratio beside the bound.
#   usage: bench/iceberg_overhead.sh BUILD_DIR [OUT_DIR]
# Needs what seed_replay.sh needs (S3_ENDPOINT S3_ACCESS_KEY S3_SECRET_KEY S3_REGION S3_BUCKET;
# OBJECTSTORE=bluestore for figures). env: CASES ("small seed"), SMALL_TABLES (1000),
# ROWS (300000), P (upload parallelism, 4), RUNS (3; median), SEED_CACHE (seed_replay.sh's).
# Check it on a small size with e.g. SMALL_TABLES=20 ROWS=3000 RUNS=1 (no figure).
set -euo pipefail
BUILD=$(cd "${1:?usage: $0 BUILD_DIR [OUT_DIR]}" && pwd)
OUT=${2:-$(mktemp -d /tmp/iceberg-overhead-XXXX)}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
CASES=${CASES:-small seed}
SMALL_TABLES=${SMALL_TABLES:-1000}
ROWS=${ROWS:-300000}
P=${P:-4}
RUNS=${RUNS:-3}

median() {  # the median of column 5 (seconds) of a seed_replay raw.tsv
  sort -t$'\t' -k5,5g "$1" | awk -F'\t' '{v[NR] = $5} END {
    if (NR == 0) exit 1
    print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

printf 'case\tparquet s\ticeberg s\tratio\tbound\n' >"$OUT/summary.tsv"
for case in $CASES; do
  case $case in
    small) tables='small_*'; small=$SMALL_TABLES; rows=$(( ${ROWS%% *} < 3000 ? ${ROWS%% *} : 3000 )); bound=1.3 ;;
    seed) tables=store_orders_fact; small=; rows=${ROWS%% *}; bound=1.1 ;;
    *) echo "unknown case $case (small, seed)" >&2; exit 2 ;;
  esac
  for format in parquet iceberg; do
    echo "== $case, --table-format $format" >&2
    TABLE_FORMAT=$format TABLES=$tables SMALL_TABLES=$small ROWS=$rows LINKS=near PS=$P \
      RUNS=$RUNS "$HERE/seed_replay.sh" "$BUILD" "$OUT/$case-$format" >/dev/null
  done
  plain=$(median "$OUT/$case-parquet/raw.tsv")
  ice=$(median "$OUT/$case-iceberg/raw.tsv")
  printf '%s\t%.2f\t%.2f\t%.3f\t%s\n' "$case" "$plain" "$ice" "$(echo "$ice / $plain" | bc -l)" \
    "$bound" >>"$OUT/summary.tsv"
done
{
  head -n 2 "$OUT/$(ls "$OUT" | grep -m1 -- -parquet)/machine.txt" 2>/dev/null || true
  echo "# near link, --upload-parallelism $P, median of $RUNS"
  column -t -s$'\t' "$OUT/summary.tsv"
} | tee "$OUT/table.txt"
