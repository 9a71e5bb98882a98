#!/usr/bin/env bash
# The cost of the trust checks on increments (issue 29): two builds side by side on the same
# change. A table of ROWS rows (default 10,000,000, bench/incremental.sh's table `big`) gets a
# signed incremental base from each build, loaded into a replica database of its own; then, RUNS
# times, 1% of the rows change once and BOTH builds take that increment (A first in odd runs, B
# first in even runs), each signed, then each replica applies it with
# `load --if-exists append --from N --require-signature KEY`. Prints each run and the medians of
# the increment's dump and load seconds per build, and the ratios B/A.
# Usage: bench/increment_trust_ab.sh BUILD_A BUILD_B [ROWS] [RUNS]
#   Env: LD_BENCH_PG_DSN or LD_TEST_PG_DSN (wal_level=logical).
# Take figures on a quiet machine only.
set -euo pipefail
A=$(cd "${1:?usage: $0 BUILD_A BUILD_B [ROWS] [RUNS]}" && pwd)
B=$(cd "${2:?usage: $0 BUILD_A BUILD_B [ROWS] [RUNS]}" && pwd)
ROWS=${3:-10000000}
RUNS=${4:-5}
cd "$(dirname "$0")/.."
. bench/_pg_lib.sh
export PGOPTIONS="-c client_min_messages=warning"
[ "$(psql "$DSN" -Atc 'SHOW wal_level')" = logical ] || { echo "the server needs wal_level=logical" >&2; exit 2; }
bench_workdir increment-trust
DB=ld_bench_incremental
pg_ensure_db $DB
SRC=$(pg_db_dsn $DB)
pg_ensure_big_table "$SRC" "$ROWS"
KEY="$WORK/key"
head -c 32 /dev/urandom >"$KEY"
chmod 600 "$KEY"
declare -A BUILD=([a]=$A [b]=$B) INC=() LOAD=()
cleanup() {
  for v in a b; do
    [ -f "$WORK/$v/_manifest.json" ] && "${BUILD[$v]}/lakedump" gc "$WORK/$v" --drop-slot --source "$SRC" >/dev/null 2>&1 || true
    psql "$DSN" -qc "DROP DATABASE IF EXISTS ld_bench_replica_$v" >/dev/null 2>&1 || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

for v in a b; do
  bin=${BUILD[$v]}/lakedump
  psql "$DSN" -qc "DROP DATABASE IF EXISTS ld_bench_replica_$v" >/dev/null
  psql "$DSN" -qc "CREATE DATABASE ld_bench_replica_$v" >/dev/null
  echo "build $v: signed base and its load..."
  "$bin" dump "$SRC" "$WORK/$v" --incremental --sign-key-file "$KEY" --progress none >/dev/null
  "$bin" load "$WORK/$v" "$(pg_db_dsn ld_bench_replica_$v)" --require-signature "$KEY" --progress none >/dev/null
done

for run in $(seq "$RUNS"); do
  psql "$SRC" -qc "UPDATE big SET amount = amount + 1 WHERE id % 100 = $((run % 100))" >/dev/null
  order="a b"; [ $((run % 2)) = 0 ] && order="b a"
  line="run $run:"
  for v in $order; do
    bin=${BUILD[$v]}/lakedump
    t=$(secs "$bin" dump "$SRC" "$WORK/$v" --incremental --sign-key-file "$KEY" --progress none)
    l=$(secs "$bin" load "$WORK/$v" "$(pg_db_dsn ld_bench_replica_$v)" --if-exists append --from "$run" \
          --require-signature "$KEY" --progress none)
    INC[$v]+=" $t" LOAD[$v]+=" $l"
    line="$line $v increment ${t}s load ${l}s;"
  done
  echo "$line"
done
# shellcheck disable=SC2086
ia=$(median ${INC[a]}) ib=$(median ${INC[b]}) la=$(median ${LOAD[a]}) lb=$(median ${LOAD[b]})
echo "rows=$ROWS changed=$((ROWS / 100)) runs=$RUNS"
echo "increment dump: A ${ia}s, B ${ib}s, B/A $(python3 -c "print(f'{$ib / $ia:.3f}')")"
echo "increment load: A ${la}s, B ${lb}s, B/A $(python3 -c "print(f'{$lb / $la:.3f}')")"
echo "both:           A $(python3 -c "print(f'{$ia + $la:.3f}')")s, B $(python3 -c "print(f'{$ib + $lb:.3f}')")s, B/A $(python3 -c "print(f'{($ib + $lb) / ($ia + $la):.3f}')")"
