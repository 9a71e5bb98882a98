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
DSN=${LD_BENCH_PG_DSN:-${LD_TEST_PG_DSN:?set LD_BENCH_PG_DSN or LD_TEST_PG_DSN (URI form)}}
: "${S3_ENDPOINT:?}" "${S3_ACCESS_KEY:?}" "${S3_SECRET_KEY:?}" "${S3_REGION:?}" "${S3_BUCKET:?}"
export AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$S3_SECRET_KEY AWS_REGION=$S3_REGION
DB=lakedump_small_bench
BENCH_DSN="${DSN%%\?*}"
BENCH_DSN="${BENCH_DSN%/*}/$DB"

# The database: the same as bench/pg_small_tables.sh's (created here when missing).
if [ "$(psql "$DSN" -Atc "SELECT count(*) FROM pg_database WHERE datname = '$DB'")" = 0 ]; then
  psql "$DSN" -qc "CREATE DATABASE $DB" >/dev/null
fi
have=$(psql "$BENCH_DSN" -Atc "SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'small_%'")
if [ "$have" != "$TABLES" ]; then
  echo "creating $TABLES tables of $ROWS rows..."
  psql "$BENCH_DSN" -q >/dev/null <<SQL
DROP SCHEMA public CASCADE; CREATE SCHEMA public;
DO \$\$ BEGIN
  FOR i IN 1..$TABLES LOOP
    EXECUTE format('CREATE TABLE small_%s (id int8 PRIMARY KEY, name text, amount numeric(12,2), created timestamptz)', i);
    EXECUTE format('INSERT INTO small_%s SELECT g, ''name '' || g, g * 1.25, TIMESTAMPTZ ''2024-01-01'' + g * INTERVAL ''1 minute'' FROM generate_series(1, $ROWS) g', i);
  END LOOP;
END \$\$;
ANALYZE;
SQL
fi

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$BUILD/tools/faultproxy" --listen "$port" --target "${S3_ENDPOINT##*:}" \
  --delay-ms "${DELAY_MS:-10}" --conn-rate "${CONN_RATE:-40MB}" >/dev/null 2>&1 &
proxy=$!
trap 'kill $proxy 2>/dev/null || true' EXIT
sleep 0.5
NEAR=http://127.0.0.1:$port

secs() { python3 - "$@" <<'PY'
import subprocess, sys, time
t = time.monotonic(); subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(f"{time.monotonic() - t:.3f}")
PY
}
median() { python3 -c "import statistics,sys; print(f'{statistics.median(map(float, sys.argv[1:])):.3f}')" "$@"; }
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
m1=$(median $t1) mp=$(median $tp)
echo "median of $RUNS (seconds): --table-parallelism 1: $m1 (runs:$t1); --table-parallelism $P: $mp (runs:$tp)"
echo "p$P vs p1: $(python3 -c "print(f'{$m1/$mp:.2f}')")x faster (bar: 8x)"
