#!/usr/bin/env bash
# The dump's added cost for the schema archive (issue 11): lakedump dump of TABLES small tables
# with the archive (default, pg_dump --schema-only runs beside the data) and without it
# (--schema-from lakedump), same run, interleaved, median of RUNS. The issue's bar: <= 5%.
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

with="" without=""
for run in $(seq "$RUNS"); do
  rm -rf "${WORK:?}"/*
  with+=" $(secs "$LD" dump "$BENCH_DSN" "$WORK/with" --table-parallelism "$PARALLEL" --progress none)"
  without+=" $(secs "$LD" dump "$BENCH_DSN" "$WORK/without" --table-parallelism "$PARALLEL" --progress none --schema-from lakedump)"
  echo "run $run done"
done
# shellcheck disable=SC2086
mw=$(median $with)
# shellcheck disable=SC2086
mo=$(median $without)
echo "$TABLES tables x $ROWS rows, -j $PARALLEL, median of $RUNS (seconds):"
printf '  %-22s %8s   (runs:%s)\n' "with the archive" "$mw" "$with" "without (lakedump)" "$mo" "$without"
echo "archive bytes: $(stat -c %s "$WORK/with/_schema/postgres.dump")"
python3 -c "print(f'added cost: {($mw / $mo - 1) * 100:+.1f}%')"
