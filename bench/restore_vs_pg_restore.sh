#!/usr/bin/env bash
# A whole-database restore (issue 11): lakedump load --trust-dump of a lakedump dump (schema
# archive + data) vs pg_restore --jobs 2 of a pg_dump -Fd --jobs 2 of the same database, each into
# a fresh database, runs interleaved (lakedump first in odd runs, pg_restore first in even ones),
# median of RUNS; the load average is printed before and after each run. The issue's bar:
# lakedump / pg_restore <= 1.0.
# The database (created once, lakedump_restore_bench): `orders`, ROWS rows (default 10,000,000)
# with 3 secondary indexes and a foreign key to `customers` (ROWS/100 rows), plus TABLES small
# tables (default 1000) of 100 rows each with a primary key. Kept between runs while it has about
# ROWS rows (the planner's estimate, within 1%) and TABLES small tables.
# SHAPE=schema instead (issue 31's schema-heavy case, lakedump_restore_bench_schema): 60 tables
# (40 MB of rows in all, each with a primary key, a secondary index and a foreign key to the
# previous one), 90 views (a third over other views), 6 materialized views, 60 plpgsql and SQL
# functions, 30 sequences, comments, and grants on every table, view, function and sequence to
# two roles (lakedump_bench_reader, lakedump_bench_writer; created once, cluster-wide).
# Usage: bench/restore_vs_pg_restore.sh [BUILD_DIR] [RUNS]
#   env: LD_BENCH_PG_DSN (or LD_TEST_PG_DSN), URI or keyword form;
#        ROWS, TABLES, JOBS (pg_restore --jobs and pg_dump --jobs, default 2),
#        PARALLEL (lakedump load -j, default: the number of cores), SHAPE (data | schema)
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
SHAPE=${SHAPE:-data}
DST=$(pg_db_dsn lakedump_restore_target)
bench_workdir restorebench

if [ "$SHAPE" = schema ]; then
SRC=$(pg_db_dsn lakedump_restore_bench_schema)
echo "schema-heavy database, work dir: $WORK"
if [ "$(psql "$DSN" -Atc "SELECT count(*) FROM pg_database WHERE datname = 'lakedump_restore_bench_schema'")" = 0 ]; then
  echo "creating the source database..."
  psql "$DSN" -qc "CREATE DATABASE lakedump_restore_bench_schema" >/dev/null
  psql "$SRC" -q >/dev/null <<'SQL'
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'lakedump_bench_reader') THEN
    CREATE ROLE lakedump_bench_reader; END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'lakedump_bench_writer') THEN
    CREATE ROLE lakedump_bench_writer; END IF;
END $$;
CREATE SCHEMA app;
DO $$ BEGIN
  FOR i IN 1..30 LOOP
    EXECUTE format('CREATE SEQUENCE app.seq_%s', i);
    EXECUTE format('SELECT setval(%L, %s)', 'app.seq_' || i, i * 1000);
  END LOOP;
  FOR i IN 1..60 LOOP
    EXECUTE format('CREATE TABLE app.t%s (id int8 PRIMARY KEY, parent int8 %s, name text NOT NULL, '
                   'amount numeric(12,2), created timestamptz NOT NULL DEFAULT now(), '
                   'tags text[], status text CHECK (status IN (''new'', ''done'')))',
                   i, CASE WHEN i > 1 THEN format('REFERENCES app.t%s(id)', i - 1) ELSE '' END);
    EXECUTE format('INSERT INTO app.t%s SELECT g, %s, ''name '' || g || repeat(''x'', 40), g * 1.25, '
                   'TIMESTAMPTZ ''2024-01-01'' + g * INTERVAL ''1 minute'', ARRAY[''a'', ''b'' || g], '
                   'CASE WHEN g %% 2 = 0 THEN ''new'' ELSE ''done'' END FROM generate_series(1, 5000) g',
                   i, CASE WHEN i > 1 THEN '1 + g % 5000' ELSE 'NULL' END);
    EXECUTE format('CREATE INDEX ON app.t%s (name)', i);
    EXECUTE format('COMMENT ON TABLE app.t%s IS %L', i, 'table ' || i);
    EXECUTE format('GRANT SELECT ON app.t%s TO lakedump_bench_reader', i);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE ON app.t%s TO lakedump_bench_writer', i);
    EXECUTE format('CREATE FUNCTION app.f%s(x int8) RETURNS numeric LANGUAGE sql STABLE AS '
                   '$f$SELECT coalesce(sum(amount), 0) FROM app.t%s WHERE id <= x$f$', i, i);
    EXECUTE format('CREATE FUNCTION app.g%s(x int8) RETURNS text LANGUAGE plpgsql AS '
                   '$f$BEGIN RETURN (SELECT name FROM app.t%s WHERE id = x); END$f$', i, i);
    EXECUTE format('GRANT EXECUTE ON FUNCTION app.f%s(int8), app.g%s(int8) TO lakedump_bench_reader', i, i);
  END LOOP;
  FOR i IN 1..90 LOOP
    IF i <= 60 THEN
      EXECUTE format('CREATE VIEW app.v%s AS SELECT t.id, t.name, t.amount, p.name AS parent_name '
                     'FROM app.t%s t LEFT JOIN app.t%s p ON p.id = t.parent WHERE t.status = ''new''',
                     i, i, greatest(i - 1, 1));
    ELSE
      EXECUTE format('CREATE VIEW app.v%s AS SELECT a.id, a.name, b.amount FROM app.v%s a '
                     'JOIN app.v%s b USING (id)', i, i - 60, i - 59);
    END IF;
    EXECUTE format('GRANT SELECT ON app.v%s TO lakedump_bench_reader', i);
    EXECUTE format('COMMENT ON VIEW app.v%s IS %L', i, 'view ' || i);
  END LOOP;
  FOR i IN 1..6 LOOP
    EXECUTE format('CREATE MATERIALIZED VIEW app.m%s AS SELECT status, count(*) AS n, sum(amount) AS total '
                   'FROM app.t%s GROUP BY status', i, i * 10);
    EXECUTE format('GRANT SELECT ON app.m%s TO lakedump_bench_reader', i);
  END LOOP;
  FOR i IN 1..30 LOOP
    EXECUTE format('GRANT USAGE ON SEQUENCE app.seq_%s TO lakedump_bench_writer', i);
  END LOOP;
END $$;
GRANT USAGE ON SCHEMA app TO lakedump_bench_reader, lakedump_bench_writer;
VACUUM ANALYZE;
SQL
fi
else
SRC=$(pg_db_dsn lakedump_restore_bench)
echo "rows: $ROWS, small tables: $TABLES, work dir: $WORK"

if [ "$(psql "$DSN" -Atc "SELECT count(*) FROM pg_database WHERE datname = 'lakedump_restore_bench'")" = 0 ] ||
   [ "$(psql "$SRC" -Atc "SELECT coalesce((SELECT abs(reltuples::int8 - $ROWS) <= $ROWS / 100 FROM pg_class WHERE relname = 'orders'), false) AND (SELECT count(*) FROM pg_class WHERE relname LIKE 'small\_%' AND relkind = 'r') = $TABLES")" != t ]; then
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
fi

echo "dumping both ways (not timed)..."
"$LD" dump "$SRC" "$WORK/ld" --progress none >/dev/null
"${PG_TOOLS}pg_dump" -d "$SRC" -Fd --jobs "$JOBS" -f "$WORK/pgd"

fresh() {
  psql "$DSN" -qc "DROP DATABASE IF EXISTS lakedump_restore_target WITH (FORCE)" >/dev/null
  psql "$DSN" -qc "CREATE DATABASE lakedump_restore_target" >/dev/null
}
check() {  # the restored database has every row and index
  local got
  if [ "$SHAPE" = schema ]; then
    got=$(psql "$DST" -Atc "SELECT (SELECT count(*) FROM app.t60) || '/' || (SELECT count(*) FROM pg_views WHERE schemaname = 'app') || '/' || (SELECT count(*) FROM pg_constraint WHERE contype = 'f') || '/' || (SELECT sum(n) FROM app.m6)")
    [ "$got" = "5000/90/59/5000" ] || { echo "restored database incomplete: $got (rows/views/fks/matview)" >&2; exit 1; }
    return
  fi
  got=$(psql "$DST" -Atc "SELECT (SELECT count(*) FROM orders) || '/' || (SELECT count(*) FROM pg_indexes WHERE tablename = 'orders') || '/' || (SELECT count(*) FROM pg_constraint WHERE contype = 'f')")
  [ "$got" = "$ROWS/4/1" ] || { echo "restored database incomplete: $got (rows/indexes/fks)" >&2; exit 1; }
}

run_ld() {
  fresh
  ld+=" $(secs "$LD" load "$WORK/ld" "$DST" --trust-dump --progress none -j "$PARALLEL" --restore-jobs "$JOBS")"
  check
}
run_pg() {
  fresh
  pg+=" $(secs "${PG_TOOLS}pg_restore" --jobs "$JOBS" -d "$DST" "$WORK/pgd")"
  check
}
ld="" pg=""
echo "load before the runs:$(uptime | sed 's/.*load average://')"
for run in $(seq "$RUNS"); do
  # Alternating which goes first, so that neither always follows the other's cleanup.
  if [ $((run % 2)) = 1 ]; then run_ld; run_pg; else run_pg; run_ld; fi
  echo "run $run done (load:$(uptime | sed 's/.*load average://'))"
done
# shellcheck disable=SC2086
ml=$(median $ld)
# shellcheck disable=SC2086
mp=$(median $pg)
echo "restore, median of $RUNS (seconds):"
printf '  %-28s %8s   (runs:%s)\n' "lakedump load --trust-dump" "$ml" "$ld" "pg_restore --jobs $JOBS" "$mp" "$pg"
python3 -c "print(f'lakedump / pg_restore: {$ml / $mp:.2f}')"
