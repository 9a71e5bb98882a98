#!/usr/bin/env bash
# The dump's added cost for the schema archive (issue 11): lakedump dump of TABLES small tables
# with the archive (default, pg_dump --schema-only runs beside the data) and without it
# (--schema-from lakedump), same run, interleaved, median of RUNS. The issue's bar: <= 5%.
# Each run also reports its CPU: lakedump's with its children (pg_dump, pg_restore --list), and,
# when LD_TEST_PG_DIR names the server's data directory's parent (scripts/start-postgres writes it
# in its env), the CPU of the server backends that ended meanwhile (the postmaster's cutime +
# cstime): on a 2-core machine a run cannot take less than (client + server CPU) / 2 seconds,
# which bounds the archive's added cost from below (docs/benchmarks.md).
# Usage: bench/schema_archive_cost.sh [BUILD_DIR] [RUNS]
#   Env: LD_BENCH_PG_DSN or LD_TEST_PG_DSN (URI or keyword string of a server we may create a
#   database `lakedump_schema_bench` on); TABLES (default 1000), ROWS (default 100),
#   PARALLEL (--table-parallelism, default: the number of cores).
set -euo pipefail
BUILD=${1:-build}
RUNS=${2:-5}
LD="$BUILD/lakedump"
TABLES=${TABLES:-1000}
ROWS=${ROWS:-100}
PARALLEL=${PARALLEL:-$(nproc)}
# shellcheck source=bench/_pg_lib.sh
. "$(dirname "$0")/_pg_lib.sh"
DB=lakedump_schema_bench
BENCH_DSN=$(pg_db_dsn $DB)
bench_workdir schemabench
pg_ensure_db $DB
pg_ensure_small_tables "$BENCH_DSN" "$TABLES" "$ROWS" 1

PM_PID=
if [ -n "${LD_TEST_PG_DIR:-}" ] && [ -r "$LD_TEST_PG_DIR/data/postmaster.pid" ]; then
  PM_PID=$(head -1 "$LD_TEST_PG_DIR/data/postmaster.pid")
fi
# timed CMD...: runs CMD; prints "wall client_cpu server_cpu" (server "-" when unknown).
timed() {
  local before=0 after tf out
  [ -n "$PM_PID" ] && before=$(awk '{print $16 + $17}' "/proc/$PM_PID/stat")
  tf=$(mktemp)
  /usr/bin/time -o "$tf" -f "%e %U %S" "$@" >/dev/null
  out=$(tail -1 "$tf"); rm -f "$tf"
  local server=-
  if [ -n "$PM_PID" ]; then
    sleep 0.2  # the backends end right after their client
    after=$(awk '{print $16 + $17}' "/proc/$PM_PID/stat")
    server=$(python3 -c "print(f'{($after - $before) / $(getconf CLK_TCK):.2f}')")
  fi
  read -r e u s <<<"$out"
  echo "$e $(python3 -c "print(f'{$u + $s:.2f}')") $server"
}

with="" without="" cpu_with="" cpu_without=""
for run in $(seq "$RUNS"); do
  rm -rf "${WORK:?}"/*
  read -r w c v < <(timed "$LD" dump "$BENCH_DSN" "$WORK/with" --table-parallelism "$PARALLEL" --progress none)
  with+=" $w"; cpu_with+=" $c+$v"
  read -r w c v < <(timed "$LD" dump "$BENCH_DSN" "$WORK/without" --table-parallelism "$PARALLEL" --progress none --schema-from lakedump)
  without+=" $w"; cpu_without+=" $c+$v"
  echo "run $run done"
done
# shellcheck disable=SC2086
mw=$(median $with)
# shellcheck disable=SC2086
mo=$(median $without)
echo "$TABLES tables x $ROWS rows, -j $PARALLEL, median of $RUNS (seconds):"
printf '  %-22s %8s   (runs:%s)\n' "with the archive" "$mw" "$with" "without (lakedump)" "$mo" "$without"
echo "CPU seconds per run, lakedump with pg_dump + server backends:"
echo "  with:   $cpu_with"
echo "  without:$cpu_without"
echo "archive bytes: $(stat -c %s "$WORK/with/_schema/postgres.dump")"
python3 -c "print(f'added cost: {($mw / $mo - 1) * 100:+.1f}%')"
