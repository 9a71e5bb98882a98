#!/usr/bin/env bash
# Load into PostgreSQL (issue 6): lakedump load of a dumped table vs pg_restore of a pg_dump -Fd
# of the same table, in the same run, each into a fresh database, median of 3.
# The table: ROWS rows (default 10,000,000) of int8 (primary key), float8, numeric(12,2),
# text of ~20 chars, date, timestamptz. Created once in database lakedump_load_bench.
# Usage: bench/load_vs_pg_restore.sh [BUILD_DIR] [WORK_DIR]
#   env: LD_BENCH_PG_DSN (or LD_TEST_PG_DSN) = postgresql://user@host:port/anydb
#        ROWS, FILE_SIZE (lakedump dump --file-size, default 64MiB: several files), RUNS (3)
set -euo pipefail
BUILD=${1:-build}
WORK=${2:-$(mktemp -d /tmp/lakedump-loadbench-XXXXXX)}
LD="$BUILD/lakedump"
ROWS=${ROWS:-10000000}
FILE_SIZE=${FILE_SIZE:-64MiB}
RUNS=${RUNS:-3}
# shellcheck source=bench/_pg_lib.sh
. "$(dirname "$0")/_pg_lib.sh"  # DSN, PG_TOOLS, pg_db_dsn, secs, median
url() { pg_db_dsn "$1"; }
SRC=$(url lakedump_load_bench)
DST=$(url lakedump_load_target)
mkdir -p "$WORK"
echo "work dir: $WORK, rows: $ROWS"

psql_q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

# The source table, made once per row count.
psql_q "$(url postgres)" -tAc "SELECT 1 FROM pg_database WHERE datname = 'lakedump_load_bench'" \
  | grep -q 1 || psql_q "$(url postgres)" -c "CREATE DATABASE lakedump_load_bench"
have=$(psql_q "$SRC" -tAc "SELECT coalesce((SELECT count(*) FROM load_bench.t), -1)" 2>/dev/null || echo -1)
if [ "$have" != "$ROWS" ]; then
  echo "creating load_bench.t ($ROWS rows)..."
  psql_q "$SRC" <<SQL
DROP SCHEMA IF EXISTS load_bench CASCADE;
CREATE SCHEMA load_bench;
CREATE TABLE load_bench.t (id int8 PRIMARY KEY, f float8, n numeric(12,2), s text, d date,
                           ts timestamptz);
INSERT INTO load_bench.t
SELECT g, g * 1.000001, (g % 100000000) / 100.0, md5(g::text)::varchar(20),
       DATE '2000-01-01' + (g % 9000), TIMESTAMPTZ '2020-01-01 00:00:00+00' + g * INTERVAL '1 second'
FROM generate_series(1, $ROWS) g;
VACUUM ANALYZE load_bench.t;
SQL
fi

rm -rf "$WORK/ld" "$WORK/pgd"
"$LD" dump "$SRC" "$WORK/ld" --tables 'load_bench.t' --file-size "$FILE_SIZE" --progress none \
  --if-exists overwrite >/dev/null
"${PG_TOOLS}pg_dump" -Fd -f "$WORK/pgd" -t load_bench.t "$SRC"
echo "lakedump dump: $(find "$WORK/ld" -name '*.parquet' | wc -l) files, $(du -sh "$WORK/ld" | cut -f1);" \
     "pg_dump -Fd: $(du -sh "$WORK/pgd" | cut -f1)"

if "$LD" --help | grep -qE "^  load +"; then
  LOAD=("$LD" load "$WORK/ld" "$DST" --if-exists replace --progress none)
  echo "loader: lakedump load"
else
  LOAD=("$BUILD/bench/pg_load_bench" "$WORK/ld" "$DST" 2)
  echo "loader: bench/pg_load_bench (PostgresTarget, 2 files at once; lakedump load not built)"
fi
fresh_target() {
  psql_q "$(url postgres)" -c "DROP DATABASE IF EXISTS lakedump_load_target WITH (FORCE)" \
    -c "CREATE DATABASE lakedump_load_target"
}

ld_times=() pr_times=()
for i in $(seq "$RUNS"); do
  fresh_target
  ld_times+=("$(secs "${LOAD[@]}")")
  test "$(psql_q "$DST" -tAc 'SELECT count(*) FROM load_bench.t')" = "$ROWS"
  fresh_target
  # pg_dump -t does not dump the table's schema: create it (lakedump load creates it itself).
  psql_q "$DST" -c "CREATE SCHEMA load_bench"
  pr_times+=("$(secs "${PG_TOOLS}pg_restore" -d "$DST" "$WORK/pgd")")
  test "$(psql_q "$DST" -tAc 'SELECT count(*) FROM load_bench.t')" = "$ROWS"
  echo "run $i: lakedump ${ld_times[-1]}s, pg_restore ${pr_times[-1]}s"
done
ld=$(median "${ld_times[@]}")
pr=$(median "${pr_times[@]}")
echo "median of $RUNS: lakedump load ${ld}s ($(python3 -c "print(int($ROWS/$ld))") rows/s)," \
     "pg_restore ${pr}s; pg_restore/lakedump = $(python3 -c "print(round($pr/$ld, 2))")x"
psql_q "$(url postgres)" -c "DROP DATABASE IF EXISTS lakedump_load_target WITH (FORCE)"
