#!/usr/bin/env bash
# Issue 33's read figure (docs/performance.md): reading an Iceberg table after 10 increments
# costs at most 2x reading it after `lakedump compact`. A table of ROWS rows (default
# 1,000,000: bench/_pg_lib.sh's `big`) is dumped as an incremental Iceberg base, then 10
# increments each update 1% of its rows (spread over the table: every increment adds a data
# file and a position delete file); then `lakedump compact`. The snapshot before the compaction
# (read by its id: time travel) and the compacted one are read whole in turn, RUNS rounds, by
# two readers lakedump did not write (tests/interop/iceberg_read_bench.mjs): icebird (every row
# materialised) and DuckDB merge-on-read (data files ANTI JOIN position deletes, every value
# hashed, one thread). Checks that both read the same rows and values, prints the medians and
# the ratios.
# usage: bench/iceberg_compact_read.sh [ROWS]      (e.g. 100000 to check that it runs)
# Env: LD_BENCH_PG_DSN or LD_TEST_PG_DSN (wal_level=logical), LAKEDUMP (default build/lakedump),
#      INCREMENTS (10), RUNS (5), INTEROP (tests/interop, with node_modules), BENCH_DB (the
#      database, default ld_bench_iceberg_compact).
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
DB=${BENCH_DB:-ld_bench_iceberg_compact}
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
compact=$(secs "$LAKEDUMP" compact "$DEST")
# The snapshot before the compaction stays readable (time travel): both are read in every
# round, interleaved.
before=$(python3 -c '
import json, sys
d = sys.argv[1] + "/public/big/metadata/"
m = json.load(open(d + "v" + open(d + "version-hint.text").read() + ".metadata.json"))
cur = [s for s in m["snapshots"] if s["snapshot-id"] == m["current-snapshot-id"]][0]
assert cur["summary"]["operation"] == "replace"
print(cur["parent-snapshot-id"])' "$DEST")
echo "lakedump compact: ${compact}s; reading the snapshot before it ($before) and after, $RUNS rounds"
node "$INTEROP/iceberg_read_bench.mjs" "$TABLE" "$RUNS" "before=$before" after=current | tee "$WORK/reads.json"
python3 - "$WORK/reads.json" "$ROWS" "$INCREMENTS" "$RUNS" <<'PY'
import json, statistics, sys
reads = json.load(open(sys.argv[1]))
before, after = reads["before"], reads["after"]
rows, increments, runs = sys.argv[2:5]
assert before["rows"] == after["rows"] == before["duckdb_rows"] == after["duckdb_rows"], "row counts differ"
assert before["duckdb_hash"] == after["duckdb_hash"], "the values differ after compact"
print(f"rows={rows}, {increments} increments of 1% updates, median of {runs} interleaved reads; "
      f"the same {before['rows']} rows and values before and after")
print(f"before: {before['data_files']} data files, {before['delete_files']} delete files; "
      f"after: {after['data_files']} data files, {after['delete_files']} delete files")
for reader in ("icebird", "duckdb"):
    b, a = statistics.median(before[reader]), statistics.median(after[reader])
    print(f"{reader:8} after {increments} increments {b:.3f}s, after compact {a:.3f}s: ratio {b / a:.2f} (bound 2)")
PY
