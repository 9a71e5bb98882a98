#!/usr/bin/env bash
# Issue 33's figures: an Iceberg increment (`dump --incremental --table-format iceberg`)
# against the plain increment of the same changes, side by side, and the key index's size
# against the table's data:
#   - one source table of ROWS rows (default 10,000,000); two incremental bases of it, one
#     plain, one Iceberg (each with its own slot, so both slots get the same changes);
#   - ROUNDS rounds (default 5): 1% of the rows updated (spread over the table), then both
#     increments, alternating which goes first; each round's times and their ratio;
#   - the medians and the median ratio (the bound: Iceberg at most 1.5x the plain);
#   - the last key index's size against the table's data files (the bound: at most 10%);
#   - with CHURN=N, N rounds of the same updates first, both increments taken but not timed
#     (the key index fragmented as a table's months of increments leave it), and with
#     COMPACT=1 then `lakedump compact` of the Iceberg lake (timed), so that the rounds after
#     it show what compaction gives back;
#   - with CHECKPOINT=1, a CHECKPOINT after each timed round's UPDATE: it logs the running
#     transactions, so that each increment decodes its own round's WAL only; without it an
#     increment also decodes again the WAL since the slot's restart point, the last time the
#     server logged them (every 15 s when WAL is written), which moves from round to round;
#   - the two bases' times, and the key index the Iceberg base wrote with its snapshot;
#   - each increment's peak RSS (/usr/bin/time), which should not grow with ROWS, and lakedump's
#     CPU seconds (user + system; the server's decoding of the slot is not in them), which a
#     busy machine disturbs less than the wall times.
# usage: bench/incremental_iceberg.sh [ROWS]   (e.g. ROWS=100000 for a quick check that it runs)
# Env: LD_BENCH_PG_DSN or LD_TEST_PG_DSN (wal_level=logical), LAKEDUMP (default build/lakedump),
#      ROUNDS (default 5), CHURN, COMPACT and CHECKPOINT (above), BENCH_DB (the database, default ld_bench_incremental, as
#      incremental.sh), FRESH=1 (make the table again first). Take figures on a quiet machine only.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/_pg_lib.sh
ROWS=${1:-10000000}
ROUNDS=${ROUNDS:-5}
LAKEDUMP=${LAKEDUMP:-build/lakedump}
[ -x "$LAKEDUMP" ] || { echo "no $LAKEDUMP: scripts/build first" >&2; exit 2; }
pg_slot_bench incremental-iceberg "${BENCH_DB:-ld_bench_incremental}"
# FRESH=1: the table made again, its rows in key order on disk (else kept when its row estimate
# matches, and after earlier rounds its rows are out of key order: a harder key index).
[ "${FRESH:-0}" = 1 ] && psql "$SRC" -qc "DROP TABLE IF EXISTS big" >/dev/null
pg_ensure_big_table "$SRC" "$ROWS"
base_plain=$(secs "$LAKEDUMP" dump "$SRC" "$WORK/plain" --tables public.big --incremental --progress none)
base_iceberg=$(secs "$LAKEDUMP" dump "$SRC" "$WORK/iceberg" --tables public.big --incremental \
  --table-format iceberg --progress none)
# run_increment DEST: the increment's seconds, peak RSS (KiB) and lakedump's CPU seconds
# (user + system; the server's decoding of the slot is not in them), space-separated.
run_increment() {
  local t
  t=$(secs /usr/bin/time -f "%M %U %S" -o "$WORK/rss" "$LAKEDUMP" dump "$SRC" "$1" --incremental --progress none)
  echo "$t $(tail -1 "$WORK/rss" | awk '{printf "%d %.2f", $1, $2 + $3}')"
}
index_size() {  # the current snapshot's key index, in bytes
  python3 - "$WORK/iceberg/public/big/metadata" <<'PY'
import json, os, sys
meta = sys.argv[1]
hint = open(os.path.join(meta, "version-hint.text")).read().strip()
m = json.load(open(os.path.join(meta, f"v{hint}.metadata.json")))
cur = next(s for s in m["snapshots"] if s["snapshot-id"] == m["current-snapshot-id"])
print(os.path.getsize(os.path.join(meta, cur["summary"]["lakedump.key-index"])))
PY
}
base_index=$(index_size 2>/dev/null || echo none)
echo "bases: plain ${base_plain}s, Iceberg ${base_iceberg}s (its key index: $base_index bytes)"
CHURN=${CHURN:-0}
for round in $(seq "$CHURN"); do
  psql "$SRC" -qc "UPDATE big SET amount = amount + 1 WHERE id % 100 = $((round % 100))" >/dev/null
  "$LAKEDUMP" dump "$SRC" "$WORK/plain" --incremental --progress none >/dev/null
  "$LAKEDUMP" dump "$SRC" "$WORK/iceberg" --incremental --progress none >/dev/null
done
[ "$CHURN" = 0 ] || echo "churn: $CHURN rounds taken untimed; key index $(index_size) bytes"
if [ "${COMPACT:-0}" = 1 ]; then
  t=$(secs "$LAKEDUMP" compact "$WORK/iceberg")
  echo "lakedump compact: ${t}s; key index $(index_size) bytes"
fi
plain_times=() iceberg_times=() ratios=() plain_rss=() iceberg_rss=() plain_cpu=() iceberg_cpu=()
for round in $(seq $((CHURN + 1)) $((CHURN + ROUNDS))); do
  psql "$SRC" -qc "UPDATE big SET amount = amount + 1 WHERE id % 100 = $((round % 100))" >/dev/null
  [ "${CHECKPOINT:-0}" = 1 ] && psql "$SRC" -qc "CHECKPOINT" >/dev/null
  if [ $((round % 2)) = 1 ]; then
    read -r plain prss pcpu < <(run_increment "$WORK/plain")
    read -r iceberg irss icpu < <(run_increment "$WORK/iceberg")
  else
    read -r iceberg irss icpu < <(run_increment "$WORK/iceberg")
    read -r plain prss pcpu < <(run_increment "$WORK/plain")
  fi
  ratio=$(python3 -c "print(f'{$iceberg / $plain:.2f}')")
  echo "round $round: plain increment ${plain}s (peak RSS $((prss / 1024)) MiB)," \
    "Iceberg increment ${iceberg}s (peak RSS $((irss / 1024)) MiB): ${ratio}x;" \
    "lakedump CPU plain ${pcpu}s, Iceberg ${icpu}s"
  plain_times+=("$plain") iceberg_times+=("$iceberg") ratios+=("$ratio")
  plain_rss+=("$prss") iceberg_rss+=("$irss") plain_cpu+=("$pcpu") iceberg_cpu+=("$icpu")
done
echo "rows=$ROWS changed=$((ROWS / 100)) per round, $ROUNDS rounds: plain $(median "${plain_times[@]}")s," \
  "Iceberg $(median "${iceberg_times[@]}")s, median ratio $(median "${ratios[@]}")x (bound 1.5x);" \
  "peak RSS medians: plain $(median "${plain_rss[@]}") KiB, Iceberg $(median "${iceberg_rss[@]}") KiB;" \
  "lakedump CPU medians: plain $(median "${plain_cpu[@]}")s, Iceberg $(median "${iceberg_cpu[@]}")s"
python3 - "$WORK/iceberg/public/big" <<'PY'
import glob, json, os, sys
table = sys.argv[1]
meta = os.path.join(table, "metadata")
hint = open(os.path.join(meta, "version-hint.text")).read().strip()
m = json.load(open(os.path.join(meta, f"v{hint}.metadata.json")))
cur = next(s for s in m["snapshots"] if s["snapshot-id"] == m["current-snapshot-id"])
index = os.path.getsize(os.path.join(meta, cur["summary"]["lakedump.key-index"]))
data = int(cur["summary"]["total-files-size"])
base = sum(os.path.getsize(f) for f in glob.glob(os.path.join(table, "*.parquet"))
           if "/inc-" not in f)
print(f"key index {index} bytes; live data files {data} bytes ({index / data:.1%}); "
      f"the base's data files {base} bytes ({index / base:.1%}) (bound 10%)")
PY
