#!/usr/bin/env bash
# The two seed experiments with two builds side by side (a restructuring's before and after):
# each run dumps once with BUILD_A and once with BUILD_B (A first in odd runs, B first in even
# runs), each into a fresh prefix, so that both see the same machine drift; medians of RUNS and
# the ratio B/A of the medians.
#   seed1: the demo's store_orders_fact (300,000 rows, SQLite) to radosgw through the "near"
#          link model (tools/faultproxy: RTT 20 ms, 40 MB/s per connection), --upload-parallelism
#          P1 (3) and --part-size 5MiB: Vertica's ObjStoreUploadParallelism seed.
#   seed2: TABLES small PostgreSQL tables (1000 x 100 rows, bench/pg_small_tables.sh's database)
#          to radosgw through the same link, --table-parallelism P2 (16): Hive's REPL DUMP seed.
# Usage: bench/ab_builds.sh BUILD_A BUILD_B [seed1|seed2|both] [RUNS]
#   Env: S3_ENDPOINT S3_ACCESS_KEY S3_SECRET_KEY S3_REGION S3_BUCKET (scripts/start-radosgw's
#   env file); for seed2 LD_BENCH_PG_DSN or LD_TEST_PG_DSN; P1 (3), P2 (16), TABLES (1000),
#   ROWS (100), SEED_CACHE (/tmp/lakedump-seed).
set -euo pipefail
A=$(cd "${1:?usage: $0 BUILD_A BUILD_B [seed1|seed2|both] [RUNS]}" && pwd)
B=$(cd "${2:?usage: $0 BUILD_A BUILD_B [seed1|seed2|both] [RUNS]}" && pwd)
WHICH=${3:-both}
RUNS=${4:-5}
: "${S3_ENDPOINT:?}" "${S3_ACCESS_KEY:?}" "${S3_SECRET_KEY:?}" "${S3_REGION:?}" "${S3_BUCKET:?}"
export AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$S3_SECRET_KEY AWS_REGION=$S3_REGION
export AWS_DEFAULT_REGION=$S3_REGION AWS_PAGER=
unset AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3 AWS_PROFILE
# shellcheck source=bench/_pg_lib.sh
. "$(dirname "$0")/_pg_lib.sh"
SEED_CACHE=${SEED_CACHE:-/tmp/lakedump-seed}
mkdir -p "$SEED_CACHE"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$B/tools/faultproxy" --listen "$port" --target "${S3_ENDPOINT##*:}" --delay-ms 10 \
  --conn-rate 40MB >/dev/null 2>&1 &
proxy=$!
trap 'kill $proxy 2>/dev/null || true' EXIT
sleep 0.5
NEAR=http://127.0.0.1:$port
stamp=$(date +%s)

pair() {  # pair NAME RUN DUMP_FUNCTION: prints "a b" seconds for this run
  local a b
  if [ $(($2 % 2)) = 1 ]; then
    a=$($3 "$A" "ab-$stamp/$1/a-$2"); b=$($3 "$B" "ab-$stamp/$1/b-$2")
  else
    b=$($3 "$B" "ab-$stamp/$1/b-$2"); a=$($3 "$A" "ab-$stamp/$1/a-$2")
  fi
  echo "$a $b"
}
report() {  # report NAME "A runs" "B runs"
  local ma mb
  # shellcheck disable=SC2086 # the run lists split into numbers
  ma=$(median $2) mb=$(median $3)
  echo "$1: median of $RUNS (s): A $ma (runs:$2) | B $mb (runs:$3) | B/A $(python3 -c "print(f'{$mb/$ma:.3f}')")"
}

seed1_dump() {  # BUILD PREFIX
  secs "$1/lakedump" dump "$SEED_CACHE/demo_300000.sqlite" "s3://$S3_BUCKET/$2" \
    --tables store_orders_fact --progress none --endpoint "$NEAR" \
    --upload-parallelism "${P1:-3}" --part-size 5MiB
}
seed2_dump() {  # BUILD PREFIX
  secs "$1/lakedump" dump "$BENCH_DSN" "s3://$S3_BUCKET/$2" --endpoint "$NEAR" \
    --region "$S3_REGION" --table-parallelism "${P2:-16}" --progress none
}

echo "# $(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# A: $A ($("$A/lakedump" --version 2>&1 | head -1)); B: $B ($("$B/lakedump" --version 2>&1 | head -1))"
seed() {  # seed NAME LABEL DUMP_FUNCTION: RUNS pairs, then the medians and the ratio
  local ta="" tb="" a b run
  for run in $(seq "$RUNS"); do
    read -r a b <<<"$(pair "$1" "$run" "$3")"
    ta+=" $a" tb+=" $b"
    echo "$1 run $run: A $a B $b" >&2
  done
  report "$1 ($2)" "$ta" "$tb"
}

if [ "$WHICH" = seed1 ] || [ "$WHICH" = both ]; then
  [ -s "$SEED_CACHE/demo_300000.sqlite" ] ||
    "$B/lakedump" demo "$SEED_CACHE/demo_300000.sqlite" --rows 300000 --force >/dev/null
  seed seed1 "300,000 rows, near link, P=${P1:-3}" seed1_dump
fi
if [ "$WHICH" = seed2 ] || [ "$WHICH" = both ]; then
  DB=lakedump_small_bench
  BENCH_DSN=$(pg_db_dsn $DB)
  pg_ensure_db $DB
  pg_ensure_small_tables "$BENCH_DSN" "${TABLES:-1000}" "${ROWS:-100}"
  seed seed2 "${TABLES:-1000} tables x ${ROWS:-100} rows, near link, -j${P2:-16}" seed2_dump
fi
/usr/bin/aws --endpoint-url "$S3_ENDPOINT" s3 rm --quiet --recursive "s3://$S3_BUCKET/ab-$stamp/" || true
