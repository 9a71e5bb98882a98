# shellcheck shell=bash
# Sourced by the PostgreSQL benchmarks (pg_small_tables.sh, schema_archive_cost.sh, incremental.sh,
# load_vs_pg_restore.sh, restore_vs_pg_restore.sh, pg_small_tables_s3.sh): the server to use, a
# work dir, the timing
# helpers and the small-tables database.
# Sets DSN from LD_BENCH_PG_DSN or LD_TEST_PG_DSN (URI or keyword form; exits 2 without one)
# and defines:
#   pg_db_dsn NAME     the DSN of database NAME on that server
#   pg_ensure_db NAME  creates database NAME unless it exists
#   bench_workdir TAG  sets WORK to a new temp dir, removed when the script exits
#   secs CMD...        runs CMD (its stdout dropped, fails the script if CMD fails) and prints
#                      its wall-clock seconds
#   median X...        the median of the numbers, 3 decimals
#   pg_drop_idle_slots DB_DSN DB  drops database DB's replication slots that no one holds (the
#                      incremental benchmarks' own, left by an earlier run)
#   pg_slot_bench TAG DB  the incremental benchmarks' start: refuses a server without
#                      wal_level=logical, sets WORK (bench_workdir TAG), makes database DB,
#                      sets SRC to its DSN, and drops DB's idle slots now and when the script
#                      exits (with WORK)
#   ab_builds OLD NEW  exits 2 unless both builds' binaries are executables
#   PG_TOOLS           the directory of the server's major version's client tools
#                      (/usr/lib/postgresql/N/bin, the binaries lakedump itself runs), when
#                      it exists; else empty (the tools from PATH). On Debian, pg_dump and
#                      pg_restore on PATH are the perl pg_wrapper, which costs about 0.05 s
#                      a start: a peer run through it would be slower than the same binary.
DSN=${LD_BENCH_PG_DSN:-${LD_TEST_PG_DSN:-}}
[ -n "$DSN" ] || { echo "set LD_BENCH_PG_DSN (or LD_TEST_PG_DSN); scripts/start-postgres starts one" >&2; exit 2; }
command -v psql >/dev/null || { echo "psql not found (apt-get install postgresql-client-15)" >&2; exit 2; }

PG_TOOLS=/usr/lib/postgresql/$(psql "$DSN" -Atc "SELECT current_setting('server_version_num')::int / 10000")/bin/
[ -x "${PG_TOOLS}pg_restore" ] || PG_TOOLS=

pg_db_dsn() {
  case "$DSN" in
    postgres://*|postgresql://*)
      local base=${DSN%%\?*}
      [[ ${base#*://} == */* ]] && base=${base%/*}
      echo "$base/$1" ;;
    *) echo "$DSN dbname=$1" ;;
  esac
}

pg_ensure_db() {
  if [ "$(psql "$DSN" -Atc "SELECT count(*) FROM pg_database WHERE datname = '$1'")" = 0 ]; then
    psql "$DSN" -qc "CREATE DATABASE $1" >/dev/null
  fi
}

bench_workdir() {
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/lakedump-$1-XXXXXX")
  # shellcheck disable=SC2064
  trap "rm -rf '$WORK'" EXIT
}

secs() { python3 - "$@" <<'PY'
import subprocess, sys, time
t = time.monotonic(); subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(f"{time.monotonic() - t:.3f}")
PY
}

pg_drop_idle_slots() {
  psql "$1" -Atc "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE database = '$2' AND NOT active" >/dev/null
}

pg_slot_bench() {
  [ "$(psql "$DSN" -Atc 'SHOW wal_level')" = logical ] || { echo "the server needs wal_level=logical" >&2; exit 2; }
  bench_workdir "$1"
  DB=$2
  pg_ensure_db "$DB"
  SRC=$(pg_db_dsn "$DB")
  trap 'pg_drop_idle_slots "$SRC" "$DB"; rm -rf "$WORK"' EXIT
  pg_drop_idle_slots "$SRC" "$DB"
}

ab_builds() {
  local b
  for b in "$@"; do [ -x "$b" ] || { echo "no $b" >&2; exit 2; }; done
}

median() { python3 -c "import statistics,sys; print(f'{statistics.median(map(float, sys.argv[1:])):.3f}')" "$@"; }

# pg_ensure_big_table DB_DSN ROWS: makes table `big` (id int8 PRIMARY KEY, name, amount,
# created) hold ROWS rows, recreating it when its row estimate differs (the incremental
# benchmarks' table).
pg_ensure_big_table() {
  local dsn=$1 rows=$2
  [ "$(psql "$dsn" -Atc "SELECT coalesce((SELECT reltuples::int8 FROM pg_class WHERE relname = 'big'), -1)")" = "$rows" ] && return 0
  echo "creating table big of $rows rows..."
  psql "$dsn" -q >/dev/null <<SQL
DROP TABLE IF EXISTS big;
CREATE TABLE big (id int8 PRIMARY KEY, name text, amount numeric(12,2), created timestamptz);
INSERT INTO big SELECT g, 'name ' || g, g * 1.25, TIMESTAMPTZ '2024-01-01' + g * INTERVAL '1 second'
  FROM generate_series(1, $rows) g;
ANALYZE big;
SQL
}

# pg_ensure_small_tables DB_DSN TABLES ROWS [EXTRAS]: makes public hold exactly TABLES tables
# small_1..small_TABLES of ROWS rows each (id int8 PRIMARY KEY, name, amount, created),
# recreating the schema when the count differs. EXTRAS=1: every 10th table also gets an
# index, a view and a sequence (schema objects for the archive to carry).
pg_ensure_small_tables() {
  local dsn=$1 tables=$2 rows=$3 extras=${4:-0} have
  have=$(psql "$dsn" -Atc "SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'small_%'")
  [ "$have" = "$tables" ] && return 0
  echo "creating $tables tables of $rows rows..."
  psql "$dsn" -q >/dev/null <<SQL
DROP SCHEMA public CASCADE; CREATE SCHEMA public;
DO \$\$ BEGIN
  FOR i IN 1..$tables LOOP
    EXECUTE format('CREATE TABLE small_%s (id int8 PRIMARY KEY, name text, amount numeric(12,2), created timestamptz)', i);
    EXECUTE format('INSERT INTO small_%s SELECT g, ''name '' || g, g * 1.25, TIMESTAMPTZ ''2024-01-01'' + g * INTERVAL ''1 minute'' FROM generate_series(1, $rows) g', i);
    IF $extras = 1 AND i % 10 = 0 THEN
      EXECUTE format('CREATE INDEX small_%s_name ON small_%s (name)', i, i);
      EXECUTE format('CREATE VIEW small_%s_v AS SELECT id, name FROM small_%s', i, i);
      EXECUTE format('CREATE SEQUENCE small_%s_seq', i);
    END IF;
  END LOOP;
END \$\$;
ANALYZE;
SQL
}
