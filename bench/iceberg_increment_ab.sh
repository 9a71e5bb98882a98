#!/usr/bin/env bash
# Two builds' Iceberg increments on the same changes (issue 33; docs/performance.md, "Iceberg
# increments against plain increments"): one source table of ROWS rows, a plain incremental
# lake and two Iceberg lakes, A incremented by build OLD and B by build NEW. Each round updates
# 1% of the rows (spread over the table), takes a CHECKPOINT (so that each increment decodes
# its own round's WAL only: bench/incremental_iceberg.sh, CHECKPOINT=1), then the plain
# increment and both Iceberg ones, A and B alternating which goes first. Prints each round's
# wall and CPU seconds (lakedump's user + system) and the medians; CPU is what a shared machine
# disturbs least.
# usage: bench/iceberg_increment_ab.sh OLD NEW [ROWS [ROUNDS]]   (defaults 10000000, 9)
# Env: LD_BENCH_PG_DSN or LD_TEST_PG_DSN (wal_level=logical), BENCH_DB (default
#      ld_bench_iceberg_ab). The table is made afresh, its rows in key order.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/_pg_lib.sh
[ $# -ge 2 ] || { echo "usage: $0 OLD NEW [ROWS [ROUNDS]]" >&2; exit 2; }
OLD=$1 NEW=$2 ROWS=${3:-10000000} ROUNDS=${4:-9}
ab_builds "$OLD" "$NEW"
pg_slot_bench iceberg-ab "${BENCH_DB:-ld_bench_iceberg_ab}"
psql "$SRC" -qc "DROP TABLE IF EXISTS big" >/dev/null
pg_ensure_big_table "$SRC" "$ROWS"
"$NEW" dump "$SRC" "$WORK/plain" --tables public.big --incremental --progress none >/dev/null
"$OLD" dump "$SRC" "$WORK/a" --tables public.big --incremental --table-format iceberg --progress none >/dev/null
"$NEW" dump "$SRC" "$WORK/b" --tables public.big --incremental --table-format iceberg --progress none >/dev/null
run() {  # BIN DEST: "wall cpu"
  local t
  t=$(secs /usr/bin/time -f "%U %S" -o "$WORK/t" "$1" dump "$SRC" "$2" --incremental --progress none)
  echo "$t $(tail -1 "$WORK/t" | awk '{printf "%.2f", $1 + $2}')"
}
aw_all=() ac_all=() bw_all=() bc_all=() pw_all=()
for round in $(seq "$ROUNDS"); do
  psql "$SRC" -qc "UPDATE big SET amount = amount + 1 WHERE id % 100 = $((round % 100))" >/dev/null
  psql "$SRC" -qc "CHECKPOINT" >/dev/null
  read -r pw pc < <(run "$NEW" "$WORK/plain")
  if [ $((round % 2)) = 1 ]; then
    read -r aw ac < <(run "$OLD" "$WORK/a"); read -r bw bc < <(run "$NEW" "$WORK/b")
  else
    read -r bw bc < <(run "$NEW" "$WORK/b"); read -r aw ac < <(run "$OLD" "$WORK/a")
  fi
  echo "round $round: plain ${pw}s (${pc}s CPU), A ${aw}s (${ac}s CPU), B ${bw}s (${bc}s CPU)"
  pw_all+=("$pw") aw_all+=("$aw") ac_all+=("$ac") bw_all+=("$bw") bc_all+=("$bc")
done
echo "medians over $ROUNDS rounds: plain $(median "${pw_all[@]}")s; A (OLD) $(median "${aw_all[@]}")s," \
  "CPU $(median "${ac_all[@]}")s; B (NEW) $(median "${bw_all[@]}")s, CPU $(median "${bc_all[@]}")s"
