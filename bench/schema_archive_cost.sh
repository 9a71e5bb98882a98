#!/usr/bin/env bash
# The dump's added cost for the schema archive (issue 11): lakedump dump of TABLES small tables
# with the archive (default, pg_dump --schema-only runs beside the data) and without it
# (--schema-from lakedump), same run, interleaved, median of RUNS. The issue's bar: <= 5%.
# Each run also reports its CPU: lakedump's with its child (pg_dump), and,
# when LD_TEST_PG_DIR names the server's data directory's parent (scripts/start-postgres writes it
# in its env), the CPU of the server backends that ended meanwhile (the postmaster's cutime +
# cstime): on a 2-core machine a run cannot take less than (client + server CPU) / 2 seconds,
# which bounds the archive's added cost from below (docs/performance.md, "Schema archive cost").
# Every run writes a folder of its own and nothing is deleted until the end: ext4 skips the
# inodes freed in the last 30 s on every file it creates (fs/ext4/ialloc.c recently_deleted),
# so a run right after `rm -rf` of a 2000-file dump pays up to 0.5 CPU-s of kernel time that
# its partner does not (the earlier rounds deleted before the "with" run only). For the same
# reason the script waits SETTLE seconds (default 31) before its first run, and the order
# alternates (with first in odd rounds, without first in even ones).
# Usage: bench/schema_archive_cost.sh [BUILD_DIR] [RUNS]
#   Env: LD_BENCH_PG_DSN or LD_TEST_PG_DSN (URI or keyword string of a server we may create a
#   database `lakedump_schema_bench` on); TABLES (default 1000), ROWS (default 100),
#   PARALLEL (--table-parallelism, default: the number of cores).
#   bench/schema_archive_profile.sh measures pg_dump alone, bench/schema_archive_idle.py where the
#   plain dump leaves cores idle (the bound in docs/performance.md, "Schema archive cost").
#   `lakedump dump --trace FILE` shows where the schema capture ends against the tables (the
#   "schema capture" span, and the "schema" phase: how long the commit waited for it).
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
# The machine's idle + iowait ticks so far (every core), from /proc/stat.
idle_ticks() { awk '/^cpu /{print $5 + $6; exit}' /proc/stat; }
# timed CMD...: runs CMD; prints "wall client_cpu server_cpu idle" (server "-" when unknown;
# idle: the core-seconds no process used during the run, which on a quiet machine is what
# the dump left for pg_dump to use).
timed() {
  local before=0 after tf out idle0 idle1
  [ -n "$PM_PID" ] && before=$(awk '{print $16 + $17}' "/proc/$PM_PID/stat")
  tf=$(mktemp)
  idle0=$(idle_ticks)
  /usr/bin/time -o "$tf" -f "%e %U %S" "$@" >/dev/null
  idle1=$(idle_ticks)
  out=$(tail -1 "$tf"); rm -f "$tf"
  local server=-
  if [ -n "$PM_PID" ]; then
    sleep 0.2  # the backends end right after their client
    after=$(awk '{print $16 + $17}' "/proc/$PM_PID/stat")
    server=$(python3 -c "print(f'{($after - $before) / $(getconf CLK_TCK):.2f}')")
  fi
  read -r e u s <<<"$out"
  echo "$e $(python3 -c "print(f'{$u + $s:.2f}')") $server $(python3 -c "print(f'{($idle1 - $idle0) / $(getconf CLK_TCK):.2f}')")"
}

with="" without="" cpu_with="" cpu_without="" idle_with="" idle_without=""
run_with() {
  read -r w c v i < <(timed "$LD" dump "$BENCH_DSN" "$WORK/with-$1" --table-parallelism "$PARALLEL" --progress none)
  with+=" $w"; cpu_with+=" $c+$v"; idle_with+=" $i"
}
run_without() {
  read -r w c v i < <(timed "$LD" dump "$BENCH_DSN" "$WORK/without-$1" --table-parallelism "$PARALLEL" --progress none --schema-from lakedump)
  without+=" $w"; cpu_without+=" $c+$v"; idle_without+=" $i"
}
sleep "${SETTLE:-31}"
for run in $(seq "$RUNS"); do
  if [ $((run % 2)) = 1 ]; then run_with "$run"; run_without "$run"; else run_without "$run"; run_with "$run"; fi
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
echo "idle core-seconds of the machine during each run (quiet machine: what the dump left unused):"
echo "  with:   $idle_with"
echo "  without:$idle_without"
echo "archive bytes: $(stat -c %s "$WORK/with-1/_schema/postgres.dump")"
python3 -c "print(f'added cost: {($mw / $mo - 1) * 100:+.1f}%')"
