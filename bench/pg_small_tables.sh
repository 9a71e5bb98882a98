#!/usr/bin/env bash
# PostgreSQL, 1000 small tables (issue 5): lakedump against pg_dump -Fd -j 1 and -j 2, same run,
# and lakedump serial (--table-parallelism 1) against parallel. Median of RUNS runs each, runs
# interleaved so machine noise hits every contender alike.
# Usage: bench/pg_small_tables.sh [BUILD_DIR] [RUNS]
#   Env: LD_BENCH_PG_DSN or LD_TEST_PG_DSN (keyword form or URI of a server we may create a
#   database `lakedump_small_bench` on); TABLES (default 1000), ROWS (default 100),
#   PARALLEL (lakedump's --table-parallelism for the parallel run, default: the number of cores, as lakedump's own default),
#   TABLE_FORMAT (lakedump's --table-format, default parquet; iceberg for issue 12's comparison).
set -euo pipefail
BUILD=${1:-build}
RUNS=${2:-3}
LD="$BUILD/lakedump"
TABLES=${TABLES:-1000}
ROWS=${ROWS:-100}
PARALLEL=${PARALLEL:-$(nproc)}
# shellcheck source=bench/_pg_lib.sh
. "$(dirname "$0")/_pg_lib.sh"
TABLE_FORMAT=${TABLE_FORMAT:-parquet}
command -v pg_dump >/dev/null || { echo "pg_dump not found (apt-get install postgresql-client-15)" >&2; exit 2; }
DB=lakedump_small_bench
BENCH_DSN=$(pg_db_dsn $DB)
bench_workdir pgsmall
pg_ensure_db $DB
pg_ensure_small_tables "$BENCH_DSN" "$TABLES" "$ROWS"

declare -A t
names=(pg_dump_j1 pg_dump_j2 lakedump_p1 "lakedump_p$PARALLEL")
for run in $(seq "$RUNS"); do
  rm -rf "${WORK:?}"/*
  t[pg_dump_j1]+=" $(secs "${PG_TOOLS}pg_dump" -d "$BENCH_DSN" -Fd -j 1 -f "$WORK/pgd1")"
  t[pg_dump_j2]+=" $(secs "${PG_TOOLS}pg_dump" -d "$BENCH_DSN" -Fd -j 2 -f "$WORK/pgd2")"
  t[lakedump_p1]+=" $(secs "$LD" dump "$BENCH_DSN" "$WORK/ld1" --table-parallelism 1 --table-format "$TABLE_FORMAT" --progress none)"
  t["lakedump_p$PARALLEL"]+=" $(secs "$LD" dump "$BENCH_DSN" "$WORK/ldp" --table-parallelism "$PARALLEL" --table-format "$TABLE_FORMAT" --progress none)"
  echo "run $run done"
done
echo "$TABLES tables x $ROWS rows, median of $RUNS (seconds):"
declare -A med
for n in "${names[@]}"; do
  # shellcheck disable=SC2086
  med[$n]=$(median ${t[$n]})
  printf '  %-14s %8s   (runs:%s)\n' "$n" "${med[$n]}" "${t[$n]}"
done
ratio() { python3 -c "print(f'{$1/$2:.2f}')"; }
echo "lakedump -j $PARALLEL vs pg_dump -j 2: $(ratio "${med[pg_dump_j2]}" "${med[lakedump_p$PARALLEL]}")x faster"
echo "lakedump -j $PARALLEL vs pg_dump -j 1: $(ratio "${med[pg_dump_j1]}" "${med[lakedump_p$PARALLEL]}")x faster"
echo "lakedump parallel vs serial: $(ratio "${med[lakedump_p1]}" "${med[lakedump_p$PARALLEL]}")x"
