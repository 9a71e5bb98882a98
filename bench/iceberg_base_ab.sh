#!/usr/bin/env bash
# An incremental Iceberg base (`dump --incremental --table-format iceberg`) by two builds, side
# by side: its wall time and peak RSS (/usr/bin/time), medians over RUNS runs alternating the
# builds, and the ratio NEW/OLD. Since session 23 a base writes each followed table's key index
# with its snapshot (docs/iceberg.md, "Increments"); this is that index's cost, and its memory,
# which is bounded by one index's sort (16 MiB) however many tables finish at once.
#   - SHAPE=big (default): table `big` of ROWS rows (default 10,000,000; int8 key, in key order);
#   - SHAPE=text: TABLES tables (default 8) of ROWS rows (default 500,000) keyed by a text column
#     in no order (md5), so that each index is one run per row and its sort fills its 16 MiB
#     and spills.
# usage: bench/iceberg_base_ab.sh OLD_LAKEDUMP NEW_LAKEDUMP [RUNS]
# Env: LD_BENCH_PG_DSN or LD_TEST_PG_DSN (wal_level=logical), SHAPE, ROWS, TABLES, BENCH_DB
#      (default ld_bench_iceberg_base). Take figures on a quiet machine only.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/_pg_lib.sh
OLD=${1:?usage: bench/iceberg_base_ab.sh OLD_LAKEDUMP NEW_LAKEDUMP [RUNS]}
NEW=${2:?usage: bench/iceberg_base_ab.sh OLD_LAKEDUMP NEW_LAKEDUMP [RUNS]}
RUNS=${3:-5}
SHAPE=${SHAPE:-big}
ab_builds "$OLD" "$NEW"
pg_slot_bench iceberg-base "${BENCH_DB:-ld_bench_iceberg_base}"
if [ "$SHAPE" = big ]; then
  ROWS=${ROWS:-10000000}
  pg_ensure_big_table "$SRC" "$ROWS"
  tables=public.big
else
  ROWS=${ROWS:-500000} TABLES=${TABLES:-8}
  have=$(psql "$SRC" -Atc "SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'tk_%'")
  if [ "$have" != "$TABLES" ] || [ "$(psql "$SRC" -Atc "SELECT coalesce((SELECT reltuples::int8 FROM pg_class WHERE relname = 'tk_1'), -1)")" != "$ROWS" ]; then
    echo "creating $TABLES tables of $ROWS rows keyed by text..."
    psql "$SRC" -q >/dev/null <<SQL
DROP SCHEMA public CASCADE; CREATE SCHEMA public;
DO \$\$ BEGIN
  FOR i IN 1..$TABLES LOOP
    EXECUTE format('CREATE TABLE tk_%s (k text PRIMARY KEY, v int8)', i);
    EXECUTE format('INSERT INTO tk_%s SELECT md5(g::text || %L), g FROM generate_series(1, $ROWS) g', i, i);
  END LOOP;
END \$\$;
ANALYZE;
SQL
  fi
  tables='public.tk_*'
fi
# run_base LAKEDUMP: "seconds peak-RSS-KiB" of one base into a fresh folder.
run_base() {
  rm -rf "$WORK/lake"
  pg_drop_idle_slots "$SRC" "$DB"
  local t
  t=$(secs /usr/bin/time -f "%M" -o "$WORK/rss" "$1" dump "$SRC" "$WORK/lake" --tables "$tables" \
        --incremental --table-format iceberg --progress none)
  echo "$t $(tail -1 "$WORK/rss")"
}
old_t=() new_t=() old_m=() new_m=() ratios=()
for i in $(seq "$RUNS"); do
  if [ $((i % 2)) = 1 ]; then o=$(run_base "$OLD"); n=$(run_base "$NEW"); else n=$(run_base "$NEW"); o=$(run_base "$OLD"); fi
  read -r ot om <<<"$o"; read -r nt nm <<<"$n"
  old_t+=("$ot") new_t+=("$nt") old_m+=("$om") new_m+=("$nm")
  ratios+=("$(python3 -c "print(f'{$nt / $ot:.3f}')")")
  echo "run $i: old ${ot}s ($((om / 1024)) MiB), new ${nt}s ($((nm / 1024)) MiB): ${ratios[-1]}x"
done
echo "shape=$SHAPE rows=$ROWS ${TABLES:+tables=$TABLES }runs=$RUNS: old $(median "${old_t[@]}")s, new $(median "${new_t[@]}")s, median ratio $(median "${ratios[@]}")x; peak RSS medians old $(median "${old_m[@]}") KiB, new $(median "${new_m[@]}") KiB"
