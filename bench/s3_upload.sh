#!/usr/bin/env bash
# Raw S3 upload benchmark: lakedump's S3 store at upload parallelism 0..4 vs
# awscli (`aws s3 cp`), same file, same endpoint, same run; medians of 3.
#   usage: bench/s3_upload.sh BUILD_DIR [SIZE_MIB] [DELAY_MS] [CONN_RATE]
# Needs S3_ENDPOINT S3_ACCESS_KEY S3_SECRET_KEY S3_REGION S3_BUCKET (the env file
# written by scripts/start-radosgw, bluestore for benchmarks). With DELAY_MS > 0
# the traffic goes through tools/faultproxy with that one-way delay (and, with
# CONN_RATE such as 10MB, that bandwidth cap per connection and direction).
set -euo pipefail
BUILD=${1:?usage: $0 BUILD_DIR [SIZE_MIB] [DELAY_MS] [CONN_RATE]}
SIZE=${2:-96}
DELAY=${3:-0}
RATE=${4:-0}
: "${S3_ENDPOINT:?}" "${S3_ACCESS_KEY:?}" "${S3_SECRET_KEY:?}" "${S3_REGION:?}" "${S3_BUCKET:?}"
export AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$S3_SECRET_KEY
export AWS_REGION=$S3_REGION AWS_DEFAULT_REGION=$S3_REGION AWS_PAGER=
endpoint=$S3_ENDPOINT
work=$(mktemp -d)
proxy_pid=
cleanup() { [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
head -c $((SIZE << 20)) /dev/urandom >"$work/data.bin"
if [ "$DELAY" -gt 0 ]; then
  port=${endpoint##*:}
  "$BUILD/tools/faultproxy" --listen 0 --target "$port" --delay-ms "$DELAY" --conn-rate "$RATE" >"$work/proxy.out" &
  proxy_pid=$!
  for _ in $(seq 50); do grep -q listening "$work/proxy.out" 2>/dev/null && break; sleep 0.1; done
  endpoint="http://127.0.0.1:$(awk '/listening/ {print $3}' "$work/proxy.out")"
fi
export AWS_ENDPOINT_URL=$endpoint
echo "# $SIZE MiB object, endpoint $endpoint (one-way delay ${DELAY} ms, per-connection cap ${RATE}/s)"
for p in 0 1 2 3 4; do
  "$BUILD/bench/s3_upload_bench" "$work/data.bin" "s3://$S3_BUCKET/bench" "$p" 8 3 | tail -n1
done
times=()
for i in 1 2 3; do
  t0=$(date +%s.%N)
  /usr/bin/aws --endpoint-url "$endpoint" s3 cp --quiet "$work/data.bin" "s3://$S3_BUCKET/bench/aws.bin"
  t1=$(date +%s.%N)
  times+=("$(echo "$SIZE / ($t1 - $t0)" | bc -l)")
done
printf '%s\n' "${times[@]}" | sort -n | sed -n 2p | xargs printf 'median awscli s3 cp %.1f MiB/s\n'
