#!/usr/bin/env bash
# Seed 2 replayed where parallelism pays (issue 14): TABLES small PostgreSQL tables (default
# 1000 x 100 rows, the database of bench/pg_small_tables.sh) dumped to radosgw through the "near"
# link model (tools/faultproxy --delay-ms 10 --conn-rate 40MB: RTT 20 ms, 40 MB/s per connection),
# --table-parallelism 1 against P (default 16), alternating (p1 first in odd runs), each run into
# a fresh prefix; median of RUNS. The issue's bar: P at least 8x faster than 1.
# Usage: bench/pg_small_tables_s3.sh [BUILD_DIR] [RUNS]
#   Env: LD_BENCH_PG_DSN or LD_TEST_PG_DSN (URI); S3_ENDPOINT S3_ACCESS_KEY S3_SECRET_KEY
#   S3_REGION S3_BUCKET (scripts/start-radosgw's env file); TABLES, ROWS, P (16),
#   DELAY_MS (10), CONN_RATE (40MB).
set -euo pipefail
BUILD=${1:-build}
RUNS=${2:-3}
LD="$BUILD/lakedump"
TABLES=${TABLES:-1000}
ROWS=${ROWS:-100}
P=${P:-16}
: "${S3_ENDPOINT:?}" "${S3_ACCESS_KEY:?}" "${S3_SECRET_KEY:?}" "${S3_REGION:?}" "${S3_BUCKET:?}"
export AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$S3_SECRET_KEY AWS_REGION=$S3_REGION
# shellcheck source=bench/_pg_lib.sh
. "$(dirname "$0")/_pg_lib.sh"
DB=lakedump_small_bench  # the database of bench/pg_small_tables.sh
BENCH_DSN=$(pg_db_dsn $DB)
pg_ensure_db $DB
pg_ensure_small_tables "$BENCH_DSN" "$TABLES" "$ROWS"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$BUILD/tools/faultproxy" --listen "$port" --target "${S3_ENDPOINT##*:}" \
  --delay-ms "${DELAY_MS:-10}" --conn-rate "${CONN_RATE:-40MB}" >/dev/null 2>&1 &
proxy=$!
trap 'kill $proxy 2>/dev/null || true' EXIT
sleep 0.5
NEAR=http://127.0.0.1:$port

dump() {  # dump PARALLELISM PREFIX
  secs "$LD" dump "$BENCH_DSN" "s3://$S3_BUCKET/$2" --endpoint "$NEAR" --region "$S3_REGION" \
    --table-parallelism "$1" --progress none
}
echo "# $(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $TABLES tables x $ROWS rows; near link: RTT $((2 * ${DELAY_MS:-10})) ms, ${CONN_RATE:-40MB}/s per connection"
t1="" tp=""
stamp=$(date +%s)
for run in $(seq "$RUNS"); do
  if [ $((run % 2)) = 1 ]; then
    t1+=" $(dump 1 "bench-small-$stamp/p1-$run")"; tp+=" $(dump "$P" "bench-small-$stamp/p$P-$run")"
  else
    tp+=" $(dump "$P" "bench-small-$stamp/p$P-$run")"; t1+=" $(dump 1 "bench-small-$stamp/p1-$run")"
  fi
  echo "run $run: p1$t1 | p$P$tp"
done
# shellcheck disable=SC2086 # the run lists split into numbers
m1=$(median $t1) mp=$(median $tp)
echo "median of $RUNS (seconds): --table-parallelism 1: $m1 (runs:$t1); --table-parallelism $P: $mp (runs:$tp)"
echo "p$P vs p1: $(python3 -c "print(f'{$m1/$mp:.2f}')")x faster (bar: 8x)"
