#!/usr/bin/env bash
# Where the schema archive's cost goes (issue 11): pg_dump --schema-only --format=custom of the
# schema_archive_cost.sh database (TABLES small tables, every 10th with an index, a view and a
# sequence) measured on its own, without lakedump:
#   1. RUNS times (and once more for an empty database: the part that does not depend on
#      the tables): its wall time, its own CPU (user + sys) and its server backend's CPU (the
#      postmaster's cutime + cstime, which collects each backend's CPU when it exits: nothing
#      else may use the server meanwhile; autovacuum is turned off for the run);
#   2. the same with the backend's JIT off (PGOPTIONS) and with GSSAPI encryption not tried
#      (PGGSSENCMODE=disable), to see whether either setting costs it anything;
#   3. what the dump no longer runs (pg_dump --version, pg_restore --list of the archive);
#   4. one run with log_min_duration_statement = 0: pg_dump's statements counted by kind, with
#      their server time (parse, plan, execute; logging on, so slower than in 1).
# Usage: bench/schema_archive_profile.sh [RUNS]
#   Env: LD_TEST_PG_DSN / LD_TEST_PG_DIR / LD_TEST_PG_BIN as scripts/start-postgres writes them
#   (its data directory's postmaster.pid and log/server.log are read, and ALTER SYSTEM is run
#   and reset on it: a throw-away server only); TABLES (default 1000), ROWS (default 100).
set -euo pipefail
RUNS=${1:-5}
TABLES=${TABLES:-1000}
ROWS=${ROWS:-100}
# shellcheck source=bench/_pg_lib.sh
. "$(dirname "$0")/_pg_lib.sh"
if [ -z "${LD_TEST_PG_DIR:-}" ] || [ ! -r "$LD_TEST_PG_DIR/data/postmaster.pid" ]; then
  echo "set LD_TEST_PG_DIR (scripts/start-postgres's env): the server's CPU is read from it" >&2
  exit 2
fi
PGBIN=${LD_TEST_PG_BIN:-/usr/lib/postgresql/15/bin}
DB=lakedump_schema_bench
BENCH_DSN=$(pg_db_dsn $DB)
bench_workdir schemaprofile
pg_ensure_db $DB
pg_ensure_small_tables "$BENCH_DSN" "$TABLES" "$ROWS" 1
PM_PID=$(head -1 "$LD_TEST_PG_DIR/data/postmaster.pid")
TCK=$(getconf CLK_TCK)
server_ticks() { awk '{print $16 + $17}' "/proc/$PM_PID/stat"; }
setting() { psql "$DSN" -qAtc "ALTER SYSTEM SET $1" -c "SELECT pg_reload_conf()" >/dev/null; }
setting "autovacuum = off"
trap 'psql "$DSN" -qAtc "ALTER SYSTEM RESET autovacuum" -c "ALTER SYSTEM RESET log_min_duration_statement" -c "ALTER SYSTEM RESET log_line_prefix" -c "SELECT pg_reload_conf()" >/dev/null; rm -rf "$WORK"' EXIT
sleep 1

# timed CMD...: "wall client_cpu server_cpu" of one run of CMD (stdout to $WORK/out).
timed() {
  local before after tf
  before=$(server_ticks)
  tf=$(mktemp)
  /usr/bin/time -o "$tf" -f "%e %U %S" "$@" >"$WORK/out"
  sleep 0.3  # the backend ends right after its client
  after=$(server_ticks)
  read -r e u s <"$tf"; rm -f "$tf"
  python3 -c "print(f'$e {$u + $s:.3f} {($after - $before) / $TCK:.3f}')"
}
# series LABEL CMD...: RUNS timed runs and their medians.
series() {
  local label=$1 walls="" clients="" servers=""
  shift
  for _ in $(seq "$RUNS"); do
    read -r w c s < <(timed "$@")
    walls+=" $w"; clients+=" $c"; servers+=" $s"
  done
  # shellcheck disable=SC2086
  printf '  %-34s wall %s  client CPU %s  server CPU %s   (runs: wall%s; client%s; server%s)\n' \
    "$label" "$(median $walls)" "$(median $clients)" "$(median $servers)" "$walls" "$clients" "$servers"
}

DUMP=("$PGBIN/pg_dump" --schema-only --format=custom --no-password "--dbname=$BENCH_DSN")
echo "pg_dump $("$PGBIN/pg_dump" --version | awk '{print $3}') of $TABLES tables, median of $RUNS (seconds):"
series "pg_dump --schema-only -Fc" "${DUMP[@]}"
# What it costs whatever the tables: the same of a database with none (its catalogs' built-in
# types, operators, collations... are read and sorted all the same).
pg_ensure_db lakedump_schema_empty
series "  of an empty database" "$PGBIN/pg_dump" --schema-only --format=custom --no-password \
  "--dbname=$(pg_db_dsn lakedump_schema_empty)"
series "  with PGOPTIONS='-c jit=off'" env PGOPTIONS="-c jit=off" "${DUMP[@]}"
series "  with PGGSSENCMODE=disable" env PGGSSENCMODE=disable "${DUMP[@]}"
"${DUMP[@]}" >"$WORK/archive.dump"
echo "archive: $(stat -c %s "$WORK/archive.dump") bytes, $("$PGBIN/pg_restore" --list "$WORK/archive.dump" | grep -vc '^;') entries listed"
echo "what the dump no longer runs:"
series "pg_dump --version" "$PGBIN/pg_dump" --version
series "pg_restore --list" "$PGBIN/pg_restore" --list "$WORK/archive.dump"

# The statements, from the server's log.
LOG="$LD_TEST_PG_DIR/log/server.log"
setting "log_line_prefix = '%a|%p|'"
setting "log_min_duration_statement = 0"
sleep 0.5
start=$(stat -c %s "$LOG")
"${DUMP[@]}" >/dev/null
sleep 0.5
setting "log_min_duration_statement = -1"
tail -c +"$((start + 1))" "$LOG" >"$WORK/statements.log"
python3 - "$WORK/statements.log" <<'PY'
import re, sys, collections
text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
# One record per "duration: X ms  statement: ..." (statements span lines until the next record).
records = re.split(r"\n(?=[^|\n]*\|\d+\|)", text)
kinds = collections.OrderedDict()
total_ms, n = 0.0, 0
for r in records:
    m = re.match(r"([^|]*)\|\d+\|\S+:\s+duration: ([\d.]+) ms\s+(?:statement|execute [^:]*): (.*)", r, re.S)
    if not m or m.group(1) != "pg_dump":
        continue
    ms, sql = float(m.group(2)), " ".join(m.group(3).split())
    up = sql.upper()
    if up.startswith("LOCK TABLE"): kind = "LOCK TABLE (one per table)"
    elif up.startswith("EXECUTE"): kind = "EXECUTE " + sql.split()[1].split("(")[0]
    elif up.startswith("PREPARE"): kind = "PREPARE " + sql.split()[1].split("(")[0]
    elif up.startswith(("SET ", "BEGIN", "COMMIT", "ROLLBACK", "RESET")): kind = "SET/BEGIN/COMMIT"
    elif "PG_SEQUENCE" in up and "SEQRELID" in up: kind = "SELECT a sequence's parameters (one each)"
    elif "PG_GET_VIEWDEF" in up: kind = "SELECT a view's definition (one each)"
    elif "PG_GET_INDEXDEF" in up: kind = "the indexes of every table (pg_get_indexdef...)"
    elif "PG_CATALOG.PG_ATTRIBUTE A ON (SRC.TBLOID" in up: kind = "the columns of every table"
    else:
        depth, main = 0, sql[:40]  # the outermost FROM's first table
        for i, ch in enumerate(sql):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and up[i:i + 6] == " FROM ":
                main = sql[i + 6:].split()[0]
                break
        kind = "SELECT ... FROM " + main
    c = kinds.setdefault(kind, [0, 0.0])
    c[0] += 1; c[1] += ms; total_ms += ms; n += 1
print(f"pg_dump's statements (logged, server time incl. parse/plan): {n}, {total_ms:.1f} ms")
for kind, (count, ms) in sorted(kinds.items(), key=lambda kv: -kv[1][1]):
    print(f"  {count:5d}  {ms:8.1f} ms  {kind}")
PY
