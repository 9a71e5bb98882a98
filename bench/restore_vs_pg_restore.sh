#!/usr/bin/env bash
# A whole-database restore (issue 11): lakedump load --trust-dump of a lakedump dump (schema
# archive + data) vs pg_restore --jobs 2 of a pg_dump -Fd --jobs 2 of the same database, each into
# a fresh database, runs interleaved, median of RUNS. The issue's bar: lakedump / pg_restore <= 1.0.
# The database (created once, lakedump_restore_bench): `orders`, ROWS rows (default 10,000,000)
# with 3 secondary indexes and a foreign key to `customers` (ROWS/100 rows), plus TABLES small
# tables (default 1000) of 100 rows each with a primary key.
# Usage: bench/restore_vs_pg_restore.sh [BUILD_DIR] [RUNS]
#   env: LD_BENCH_PG_DSN (or LD_TEST_PG_DSN), URI or keyword form;
#        ROWS, TABLES, JOBS (pg_restore --jobs and pg_dump --jobs, default 2),
#        PARALLEL (lakedump load -j, default: the number of cores)
set -euo pipefail
BUILD=${1:-build}
RUNS=${2:-3}
LD="$BUILD/lakedump"
ROWS=${ROWS:-10000000}
TABLES=${TABLES:-1000}
JOBS=${JOBS:-2}
PARALLEL=${PARALLEL:-$(nproc)}
# shellcheck source=bench/_pg_lib.sh
. "$(dirname "$0")/_pg_lib.sh"
SRC=$(pg_db_dsn lakedump_restore_bench)
DST=$(pg_db_dsn lakedump_restore_target)
bench_workdir restorebench
echo "rows: $ROWS, small tables: $TABLES, work dir: $WORK"

if [ "$(psql "$DSN" -Atc "SELECT count(*) FROM pg_database WHERE datname = 'lakedump_restore_bench'")" = 0 ] ||
   [ "$(psql "$SRC" -Atc "SELECT coalesce((SELECT reltuples::int8 FROM pg_class WHERE relname = 'orders'), -1)")" != "$ROWS" ]; then
  echo "creating the source database..."
  psql "$DSN" -qc "DROP DATABASE IF EXISTS lakedump_restore_bench" >/dev/null
  psql "$DSN" -qc "CREATE DATABASE lakedump_restore_bench" >/dev/null
  psql "$SRC" -q >/dev/null <<SQL
CREATE TABLE customers (id int8 PRIMARY KEY, name text NOT NULL);
INSERT INTO customers SELECT g, 'customer ' || g FROM generate_series(1, greatest($ROWS / 100, 1)) g;
CREATE TABLE orders (id int8 PRIMARY KEY, customer_id int8 NOT NULL REFERENCES customers(id),
  amount numeric(12,2), note text, created timestamptz NOT NULL);
INSERT INTO orders SELECT g, 1 + g % greatest($ROWS / 100, 1), g * 0.01, 'order ' || g,
  TIMESTAMPTZ '2024-01-01' + g * INTERVAL '1 second' FROM generate_series(1, $ROWS) g;
CREATE INDEX orders_customer ON orders (customer_id);
CREATE INDEX orders_created ON orders (created);
CREATE INDEX orders_note ON orders (note);
DO \$\$ BEGIN
  FOR i IN 1..$TABLES LOOP
    EXECUTE format('CREATE TABLE small_%s (id int8 PRIMARY KEY, name text, amount numeric(12,2))', i);
    EXECUTE format('INSERT INTO small_%s SELECT g, ''name '' || g, g * 1.25 FROM generate_series(1, 100) g', i);
  END LOOP;
END \$\$;
VACUUM ANALYZE;
SQL
fi

echo "dumping both ways (not timed)..."
"$LD" dump "$SRC" "$WORK/ld" --progress none >/dev/null
pg_dump -d "$SRC" -Fd --jobs "$JOBS" -f "$WORK/pgd"

fresh() {
  psql "$DSN" -qc "DROP DATABASE IF EXISTS lakedump_restore_target WITH (FORCE)" >/dev/null
  psql "$DSN" -qc "CREATE DATABASE lakedump_restore_target" >/dev/null
}
check() {  # the restored database has every row and index
  local got
  got=$(psql "$DST" -Atc "SELECT (SELECT count(*) FROM orders) || '/' || (SELECT count(*) FROM pg_indexes WHERE tablename = 'orders') || '/' || (SELECT count(*) FROM pg_constraint WHERE contype = 'f')")
  [ "$got" = "$ROWS/4/1" ] || { echo "restored database incomplete: $got (rows/indexes/fks)" >&2; exit 1; }
}

ld="" pg=""
for run in $(seq "$RUNS"); do
  fresh
  ld+=" $(secs "$LD" load "$WORK/ld" "$DST" --trust-dump --progress none -j "$PARALLEL" --restore-jobs "$JOBS")"
  check
  fresh
  pg+=" $(secs pg_restore --jobs "$JOBS" -d "$DST" "$WORK/pgd")"
  check
  echo "run $run done"
done
# shellcheck disable=SC2086
ml=$(median $ld)
# shellcheck disable=SC2086
mp=$(median $pg)
echo "restore, median of $RUNS (seconds):"
printf '  %-28s %8s   (runs:%s)\n' "lakedump load --trust-dump" "$ml" "$ld" "pg_restore --jobs $JOBS" "$mp" "$pg"
python3 -c "print(f'lakedump / pg_restore: {$ml / $mp:.2f}')"
