#!/usr/bin/env bash
# Incremental dumps (issue 15, docs/incremental.md), two comparisons on one PostgreSQL:
#   1. a table of ROWS rows (default 10,000,000) of which 1% change: the time of an increment
#      against a full re-dump of the same table, side by side (the goal: the increment >= 20x
#      faster);
#   2. the change stream's decode rate: the increment's rows/s against pg_recvlogical reading
#      the same slot's changes (pgoutput, binary) to /dev/null.
# usage: bench/incremental.sh [ROWS]      (e.g. ROWS=100000 for a quick check that it runs)
# Env: LD_BENCH_PG_DSN or LD_TEST_PG_DSN (wal_level=logical), LAKEDUMP (default build/lakedump),
#      PG_BIN (default /usr/lib/postgresql/15/bin), RUNS (default 3).
# Prints one line per run and the medians; take figures on a quiet machine only.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/_pg_lib.sh
ROWS=${1:-10000000}
RUNS=${RUNS:-3}
LAKEDUMP=${LAKEDUMP:-build/lakedump}
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
[ -x "$LAKEDUMP" ] || { echo "no $LAKEDUMP: scripts/build first" >&2; exit 2; }
pg_slot_bench incremental ld_bench_incremental
CHANGED=$((ROWS / 100))
pg_ensure_big_table "$SRC" "$ROWS"
inc_times=() full_times=() lakedump_rates=() recv_rates=()
for run in $(seq "$RUNS"); do
  rm -rf "$WORK/inc" "$WORK/full"
  "$LAKEDUMP" dump "$SRC" "$WORK/inc" --incremental --progress none >/dev/null
  # 1% of the rows changed (updates spread over the table).
  psql "$SRC" -qc "UPDATE big SET amount = amount + 1 WHERE id % 100 = $run" >/dev/null
  # The same changes through pg_recvlogical first (its own slot, created before the update
  # would be too late: it gets one at the same point by copying lakedump's).
  slot=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['incremental']['slot'])" "$WORK/inc/_manifest.json")
  psql "$SRC" -Atc "SELECT pg_copy_logical_replication_slot('$slot', 'ld_bench_recv')" >/dev/null
  end=$(psql "$SRC" -Atc "SELECT pg_current_wal_insert_lsn()")
  recv=$(secs "$PG_BIN/pg_recvlogical" -d "$SRC" --slot ld_bench_recv --start --endpos "$end" \
           -o proto_version=1 -o publication_names="$slot" -o binary=true -f /dev/null --no-loop)
  inc=$(secs "$LAKEDUMP" dump "$SRC" "$WORK/inc" --incremental --progress none)
  full=$(secs "$LAKEDUMP" dump "$SRC" "$WORK/full" --tables public.big --progress none)
  rows=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['changes'])" "$WORK/inc/_increments/000001/_manifest.json")
  echo "run $run: $rows changes; increment ${inc}s, full re-dump ${full}s, pg_recvlogical ${recv}s"
  inc_times+=("$inc") full_times+=("$full")
  lakedump_rates+=("$(python3 -c "print($rows / $inc)")") recv_rates+=("$(python3 -c "print($rows / $recv)")")
  "$LAKEDUMP" gc "$WORK/inc" --drop-slot --source "$SRC" >/dev/null
  psql "$SRC" -Atc "SELECT pg_drop_replication_slot('ld_bench_recv')" >/dev/null
done
mi=$(median "${inc_times[@]}") mf=$(median "${full_times[@]}")
echo "rows=$ROWS changed=$CHANGED: increment ${mi}s, full re-dump ${mf}s ($(python3 -c "print(f'{$mf / $mi:.1f}')")x)"
echo "decode rate: lakedump increment $(median "${lakedump_rates[@]}") rows/s (whole run), pg_recvlogical $(median "${recv_rates[@]}") rows/s"
