#!/usr/bin/env bash
# Two builds' `lakedump compact` of the same churned Iceberg table (issue 33; docs/performance.md,
# "Iceberg increments against plain increments"): a table of ROWS rows dumped as an incremental
# Iceberg base, CHURN increments of 1% updates (by NEW), then the lake copied afresh (in place:
# an Iceberg table's metadata names its location) and compacted RUNS times by each build in
# turn. Prints each run's wall seconds, CPU, peak RSS and compact's own line.
# usage: bench/iceberg_compact_ab.sh OLD NEW [ROWS [CHURN [RUNS]]]   (defaults 10000000, 30, 3)
# Env: LD_BENCH_PG_DSN or LD_TEST_PG_DSN (wal_level=logical), BENCH_DB (default
#      ld_bench_compact_ab).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/_pg_lib.sh
[ $# -ge 2 ] || { echo "usage: $0 OLD NEW [ROWS [CHURN [RUNS]]]" >&2; exit 2; }
OLD=$1 NEW=$2 ROWS=${3:-10000000} CHURN=${4:-30} RUNS=${5:-3}
ab_builds "$OLD" "$NEW"
pg_slot_bench compact-ab "${BENCH_DB:-ld_bench_compact_ab}"
psql "$SRC" -qc "DROP TABLE IF EXISTS big" >/dev/null
pg_ensure_big_table "$SRC" "$ROWS"
"$NEW" dump "$SRC" "$WORK/lake" --tables public.big --incremental --table-format iceberg --progress none >/dev/null
for round in $(seq "$CHURN"); do
  psql "$SRC" -qc "UPDATE big SET amount = amount + 1 WHERE id % 100 = $((round % 100))" >/dev/null
  "$NEW" dump "$SRC" "$WORK/lake" --incremental --progress none >/dev/null
done
mv "$WORK/lake" "$WORK/pristine"
for run in $(seq "$RUNS"); do
  for which in OLD NEW; do
    bin=$OLD; [ "$which" = NEW ] && bin=$NEW
    rm -rf "$WORK/lake"; cp -a "$WORK/pristine" "$WORK/lake"; sync
    /usr/bin/time -f "%e s, CPU %U + %S s, peak RSS %M KiB" -o "$WORK/t" "$bin" compact "$WORK/lake" >"$WORK/out"
    echo "run $run $which: $(cat "$WORK/t") | $(grep -v 'tables compacted' "$WORK/out")"
  done
done
