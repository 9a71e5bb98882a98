#!/usr/bin/env bash
# Issue 33's read figure (docs/performance.md): reading an Iceberg table after 10 increments
# costs at most 2x reading it after `lakedump compact`. A table of ROWS rows (default
# 1,000,000: bench/_pg_lib.sh's `big`) is dumped as an incremental Iceberg base, then 10
# increments each update 1% of its rows (spread over the table: every increment adds a data
# file and a position delete file); the table is read whole RUNS times, then compacted and read
# RUNS times again, by two readers lakedump did not write (tests/interop/iceberg_read_bench.mjs):
# icebird (every row materialised) and DuckDB merge-on-read (data files ANTI JOIN position
# deletes, every value hashed, one thread). Prints each read, the medians and the ratios.
# usage: bench/iceberg_compact_read.sh [ROWS]      (e.g. 100000 to check that it runs)
# Env: LD_BENCH_PG_DSN or LD_TEST_PG_DSN (wal_level=logical), LAKEDUMP (default build/lakedump),
#      INCREMENTS (10), RUNS (5), INTEROP (tests/interop, with node_modules).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/_pg_lib.sh
ROWS=${1:-1000000}
INCREMENTS=${INCREMENTS:-10}
RUNS=${RUNS:-5}
LAKEDUMP=${LAKEDUMP:-build/lakedump}
INTEROP=${INTEROP:-tests/interop}
[ -x "$LAKEDUMP" ] || { echo "no $LAKEDUMP: scripts/build first" >&2; exit 2; }
[ -d "$INTEROP/node_modules" ] || { echo "no $INTEROP/node_modules: (cd $INTEROP && npm ci)" >&2; exit 2; }
[ "$(psql "$DSN" -Atc 'SHOW wal_level')" = logical ] || { echo "the server needs wal_level=logical" >&2; exit 2; }
bench_workdir iceberg-compact
DB=ld_bench_iceberg_compact
pg_ensure_db $DB
SRC=$(pg_db_dsn $DB)
pg_ensure_big_table "$SRC" "$ROWS"
DEST=$WORK/dest
drop_slot() { "$LAKEDUMP" gc "$DEST" --drop-slot --source "$SRC" >/dev/null 2>&1 || true; rm -rf "$WORK"; }
trap drop_slot EXIT
"$LAKEDUMP" dump "$SRC" "$DEST" --incremental --table-format iceberg --progress none >/dev/null
for i in $(seq "$INCREMENTS"); do
  psql "$SRC" -qc "UPDATE big SET amount = amount + 1 WHERE id % 100 = $((i % 100))" >/dev/null
  "$LAKEDUMP" dump "$SRC" "$DEST" --incremental --table-format iceberg --progress none >/dev/null
done
TABLE="file://$DEST/public/big"
read_table() {  # $1: label; prints the bench's JSON line and appends it to $WORK/$1.json
  node "$INTEROP/iceberg_read_bench.mjs" "$TABLE" "$RUNS" | tee "$WORK/$1.json"
}
echo "== after $INCREMENTS increments of 1% updates"; read_table before
compact=$(secs "$LAKEDUMP" compact "$DEST")
echo "== lakedump compact: ${compact}s"; read_table after
python3 - "$WORK/before.json" "$WORK/after.json" "$ROWS" "$INCREMENTS" "$RUNS" <<'PY'
import json, statistics, sys
before, after = (json.load(open(p)) for p in sys.argv[1:3])
rows, increments, runs = sys.argv[3:6]
assert before["rows"] == after["rows"] == before["duckdb_rows"] == after["duckdb_rows"], "row counts differ"
assert before["duckdb_hash"] == after["duckdb_hash"], "the values differ after compact"
print(f"rows={rows}, {increments} increments of 1% updates, median of {runs} reads")
print(f"before: {before['data_files']} data files, {before['delete_files']} delete files; "
      f"after: {after['data_files']} data files, {after['delete_files']} delete files")
for reader in ("icebird", "duckdb"):
    b, a = statistics.median(before[reader]), statistics.median(after[reader])
    print(f"{reader:8} after {increments} increments {b:.3f}s, after compact {a:.3f}s: ratio {b / a:.2f} (bound 2)")
PY
