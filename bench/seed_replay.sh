#!/usr/bin/env bash
# Seed-1 replay (issue 4): `lakedump dump` of the demo store_orders_fact table
# (300,000 rows, and a 10x variant) to radosgw through tools/faultproxy, with
# --upload-parallelism 0 1 2 3 4 8 16 under two WAN link models, beside
# Vertica's EXPORT TO PARQUET figures (6.9 s, 2.5 s, 2.0 s, 1.8 s at P = 0..3).
#   usage: bench/seed_replay.sh BUILD_DIR [OUT_DIR]
# Needs S3_ENDPOINT S3_ACCESS_KEY S3_SECRET_KEY S3_REGION S3_BUCKET (the env file
# of scripts/start-radosgw, OBJECTSTORE=bluestore for benchmarks).
# env: ROWS ("300000 3000000"), LINKS ("near far"), PS ("0 1 2 3 4 8 16"),
#      RUNS (3; median), RUNS_BIG (runs for the 10x table, default RUNS),
#      PART_SIZE (5MiB), SEED_CACHE (where the demo databases are kept, /tmp/lakedump-seed),
#      TABLE_FORMAT (parquet; iceberg adds each table's Iceberg metadata, docs/iceberg.md),
#      TABLES (the --tables glob dumped, store_orders_fact), SMALL_TABLES (the demo's
#      --small-tables; with TABLES='small_*' SMALL_TABLES=1000 this is the 1000-small-tables
#      figure of issue 12: run it once with TABLE_FORMAT=parquet and once with iceberg)
# Link models (faultproxy's --delay-ms is one-way, per direction):
#   near: RTT 20 ms (10 ms each way), 40 MB/s per connection and direction
#   far:  RTT 60 ms (30 ms each way), 10 MB/s per connection and direction
# No total link cap is set (the link cap of the bound is infinite).
# Writes OUT_DIR/raw.tsv (one line a run), OUT_DIR/encode.tsv, OUT_DIR/summary.tsv
# and prints the table (bench/seed_replay_report.py).
set -euo pipefail
BUILD=$(cd "${1:?usage: $0 BUILD_DIR [OUT_DIR]}" && pwd)
OUT=${2:-$(mktemp -d /tmp/seed-replay-XXXX)}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
: "${S3_ENDPOINT:?}" "${S3_ACCESS_KEY:?}" "${S3_SECRET_KEY:?}" "${S3_REGION:?}" "${S3_BUCKET:?}"
export AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$S3_SECRET_KEY
export AWS_REGION=$S3_REGION AWS_DEFAULT_REGION=$S3_REGION AWS_PAGER=
unset AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3 AWS_PROFILE
ROWS=${ROWS:-300000 3000000}
LINKS=${LINKS:-near far}
PS=${PS:-0 1 2 3 4 8 16}
RUNS=${RUNS:-3}
RUNS_BIG=${RUNS_BIG:-$RUNS}
PART_SIZE=${PART_SIZE:-5MiB}
SEED_CACHE=${SEED_CACHE:-/tmp/lakedump-seed}
TABLE_FORMAT=${TABLE_FORMAT:-parquet}
TABLES=${TABLES:-store_orders_fact}
SMALL_TABLES=${SMALL_TABLES:-}
LD=$BUILD/lakedump
mkdir -p "$SEED_CACHE"
work=$(mktemp -d)
proxy_pid=
cleanup() {
  if [ -n "$proxy_pid" ]; then kill "$proxy_pid" 2>/dev/null || true; wait "$proxy_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

now() { date +%s.%N; }
link_delay() { case $1 in near) echo 10 ;; far) echo 30 ;; esac; }
link_rate() { case $1 in near) echo 40MB ;; far) echo 10MB ;; esac; }

start_proxy() {  # LINK -> sets $endpoint, $proxy_pid
  local port=${S3_ENDPOINT##*:}
  "$BUILD/tools/faultproxy" --listen 0 --target "$port" --delay-ms "$(link_delay "$1")" \
    --conn-rate "$(link_rate "$1")" >"$work/proxy.out" 2>&1 &
  proxy_pid=$!
  for _ in $(seq 50); do grep -q listening "$work/proxy.out" 2>/dev/null && break; sleep 0.1; done
  endpoint="http://127.0.0.1:$(awk '/listening/ {print $3}' "$work/proxy.out")"
}
stop_proxy() { kill "$proxy_pid" 2>/dev/null || true; wait "$proxy_pid" 2>/dev/null || true; proxy_pid=; }

{
  echo "# $(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# lakedump $(git -C "$HERE/.." rev-parse --short HEAD 2>/dev/null || echo '?'), part size $PART_SIZE"
  echo "# --table-format $TABLE_FORMAT --tables '$TABLES'${SMALL_TABLES:+, demo --small-tables $SMALL_TABLES}"
} >"$OUT/machine.txt"

# 1. The demo databases (kept between runs: same seed, same data).
for rows in $ROWS; do
  db=$SEED_CACHE/demo_$rows${SMALL_TABLES:+_s$SMALL_TABLES}.sqlite
  [ -s "$db" ] || "$LD" demo "$db" --rows "$rows" ${SMALL_TABLES:+--small-tables "$SMALL_TABLES"} --force >/dev/null
done

# 2. Encode time: the same dump to a local folder (no upload), median of RUNS.
: >"$OUT/encode.tsv"
for rows in $ROWS; do
  db=$SEED_CACHE/demo_$rows${SMALL_TABLES:+_s$SMALL_TABLES}.sqlite
  "$LD" dump "$db" "$work/warm" --tables "$TABLES" --table-format "$TABLE_FORMAT" --progress none >/dev/null
  rm -rf "$work/warm"
  for i in $(seq "$RUNS"); do
    t0=$(now)
    /usr/bin/time -f '%U %S' -o "$work/cpu" \
      "$LD" dump "$db" "$work/local" --tables "$TABLES" --table-format "$TABLE_FORMAT" \
        --progress none >/dev/null
    t1=$(now)
    bytes=$(find "$work/local" -name '*.parquet' -printf '%s\n' | awk '{s += $1} END {print s}')
    rm -rf "$work/local"
    printf '%s\t%s\t%s\t%s\n' "$rows" "$(echo "$t1 - $t0" | bc -l)" "$bytes" \
      "$(awk '{print $1 + $2}' "$work/cpu")" >>"$OUT/encode.tsv"
  done
done

# 3. The grid, through the proxy.
: >"$OUT/raw.tsv"
for link in $LINKS; do
  start_proxy "$link"
  for rows in $ROWS; do
    db=$SEED_CACHE/demo_$rows${SMALL_TABLES:+_s$SMALL_TABLES}.sqlite
    runs=$RUNS
    [ "$rows" = "${ROWS##* }" ] && [ "$rows" != "${ROWS%% *}" ] && runs=$RUNS_BIG
    for p in $PS; do
      for i in $(seq "$runs"); do
        dest="s3://$S3_BUCKET/seed/$link/$rows/p$p-r$i-$$"
        t0=$(now)
        /usr/bin/time -f '%U %S' -o "$work/cpu" \
          "$LD" dump "$db" "$dest" --tables "$TABLES" --table-format "$TABLE_FORMAT" \
          --progress none --endpoint "$endpoint" \
          --upload-parallelism "$p" --part-size "$PART_SIZE" >"$work/dump.out" 2>&1 ||
          { cat "$work/dump.out" >&2; exit 1; }
        t1=$(now)
        secs=$(echo "$t1 - $t0" | bc -l)
        cpu=$(awk '{print $1 + $2}' "$work/cpu")
        printf '%s\t%s\t%s\t%s\t%.3f\t%s\t%s\n' "$link" "$rows" "$p" "$i" "$secs" "$cpu" \
          "$(cut -d' ' -f1 /proc/loadavg)" >>"$OUT/raw.tsv"
        printf '%s rows=%s P=%s run %s: %.2f s (%s CPU-s, load %s)\n' "$link" "$rows" "$p" "$i" \
          "$secs" "$cpu" "$(cut -d' ' -f1 /proc/loadavg)" >&2
      done
    done
  done
  stop_proxy
done

# Remove what the runs wrote (directly, not through the proxy).
/usr/bin/aws --endpoint-url "$S3_ENDPOINT" s3 rm --quiet --recursive "s3://$S3_BUCKET/seed/" || true

python3 "$HERE/seed_replay_report.py" "$OUT" "$PART_SIZE" | tee "$OUT/table.md"
