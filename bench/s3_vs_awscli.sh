#!/usr/bin/env bash
# Raw upload of one object (1 GiB by default), same file, same endpoint, same run:
# lakedump's S3 store (bench/s3_upload_bench) vs awscli classic (`aws s3 cp`,
# max_concurrent_requests = P) and awscli's CRT client, directly and through the
# "near" link model (tools/faultproxy: 10 ms one-way delay = RTT 20 ms, 40 MB/s per
# connection). Throughput (MiB/s, wall) and client CPU-seconds per GiB; medians of RUNS.
#   usage: bench/s3_vs_awscli.sh BUILD_DIR [SIZE_MIB]
# Needs S3_ENDPOINT S3_ACCESS_KEY S3_SECRET_KEY S3_REGION S3_BUCKET (scripts/start-radosgw's env
# file, bluestore, MEMSTORE_GB=16: 4 GiB fills up with the 1 GiB objects). awscli's CRT client ignores the endpoint's port and connects to port 80, so
# radosgw must also listen on 127.0.0.1:80 (start it with
#   EXTRA_CONF=$'[client.rgw]\nrgw frontends = beast endpoint=127.0.0.1:PORT endpoint=127.0.0.1:80'
# ); through the proxy CRT goes to a faultproxy on 127.0.0.2:80. Without port 80 CRT is skipped.
# env: PS ("4 8"), RUNS (3), PART_MIB (8: awscli's default multipart_chunksize), LINKS ("direct near"),
#      CHECKSUMS ("none md5": lakedump's default -- SigV4's payload SHA-256 over http, nothing over
#      https -- then with --s3-content-md5, the old default; add crc32c for --s3-checksum crc32c).
#      Rows are labelled lakedump, lakedump+md5, lakedump+crc32c.
# CPU: ours is getrusage of the upload loop inside s3_upload_bench (file already in memory);
# awscli's is /usr/bin/time's user+sys of the whole `aws` process (Python start-up included,
# about 0.5 CPU-s; reported separately as "aws --version" CPU).
set -euo pipefail
BUILD=$(cd "${1:?usage: $0 BUILD_DIR [SIZE_MIB]}" && pwd)
SIZE=${2:-1024}
PS=${PS:-4 8}
RUNS=${RUNS:-3}
PART_MIB=${PART_MIB:-8}
CHECKSUMS=${CHECKSUMS:-none md5}
LINKS=${LINKS:-direct near}
: "${S3_ENDPOINT:?}" "${S3_ACCESS_KEY:?}" "${S3_SECRET_KEY:?}" "${S3_REGION:?}" "${S3_BUCKET:?}"
export AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$S3_SECRET_KEY
export AWS_REGION=$S3_REGION AWS_DEFAULT_REGION=$S3_REGION AWS_PAGER=
unset AWS_ENDPOINT_URL_S3 AWS_PROFILE
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
export AWS_CONFIG_FILE=$work/aws.cfg AWS_SHARED_CREDENTIALS_FILE=$work/aws.credentials
: >"$AWS_SHARED_CREDENTIALS_FILE"
head -c $((SIZE << 20)) /dev/urandom >"$work/data.bin"
port=${S3_ENDPOINT##*:}
have_crt=0
curl -s -o /dev/null http://127.0.0.1:80/ && have_crt=1

start_proxy() {  # ADDR PORT -> sets $proxy_port ("" when it could not listen)
  "$BUILD/tools/faultproxy" --listen-addr "$1" --listen "$2" --target "$port" --delay-ms 10 \
    --conn-rate 40MB >"$work/proxy-$1.out" 2>&1 &
  pids+=($!)
  for _ in $(seq 50); do grep -q listening "$work/proxy-$1.out" 2>/dev/null && break; sleep 0.1; done
  proxy_port=$(awk '/listening/ {print $3}' "$work/proxy-$1.out")
}
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

# One `aws s3 cp` per run: prints "MiB/s cpu-s/GiB".
aws_runs() {  # ENDPOINT CONFIG_TEXT
  printf '[default]\n%s\n' "$2" >"$AWS_CONFIG_FILE"
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f '%e %U %S' -o "$work/time" \
      /usr/bin/aws --endpoint-url "$1" s3 cp --quiet "$work/data.bin" "s3://$S3_BUCKET/bench/aws.bin"
    awk -v size="$SIZE" '{printf "%.2f %.2f\n", size / $1, ($2 + $3) / (size / 1024)}' "$work/time"
  done
}
report() {  # LINK CLIENT P  (reads "MiB/s cpu" lines)
  local lines; lines=$(cat)
  printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$(cut -d' ' -f1 <<<"$lines" | median)" \
    "$(cut -d' ' -f2 <<<"$lines" | median)" | tee -a "$work/results.tsv"
}

{
  echo "# $(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); ${SIZE} MiB object, ${PART_MIB} MiB parts, $RUNS runs"
  printf '[default]\n' >"$AWS_CONFIG_FILE"
  /usr/bin/time -f '# aws --version: %e s wall, %U+%S CPU-s' /usr/bin/aws --version 2>&1
}
: >"$work/results.tsv"
printf 'link\tclient\tP\tMiB/s\tCPU-s/GiB\n'
for link in $LINKS; do
  endpoint=$S3_ENDPOINT crt_endpoint=http://127.0.0.1
  if [ "$link" = near ]; then
    start_proxy 127.0.0.1 0
    endpoint=http://127.0.0.1:$proxy_port
    crt_endpoint=
    if [ "$have_crt" = 1 ]; then
      start_proxy 127.0.0.2 80
      [ "$proxy_port" = 80 ] && crt_endpoint=http://127.0.0.2
    fi
  fi
  for p in $PS; do
    for checksum in $CHECKSUMS; do
      label=lakedump
      [ "$checksum" = none ] || label=lakedump+$checksum
      AWS_ENDPOINT_URL=$endpoint "$BUILD/bench/s3_upload_bench" "$work/data.bin" \
        "s3://$S3_BUCKET/bench" "$p" "$PART_MIB" "$RUNS" "$checksum" |
        awk '/^run/ {print $5, $8 + 0}' | report "$link" "$label" "$p"
    done
    aws_runs "$endpoint" "s3 =
  max_concurrent_requests = $p
  multipart_chunksize = ${PART_MIB}MB
  multipart_threshold = ${PART_MIB}MB" | report "$link" awscli-classic "$p"
  done
  if [ "$have_crt" = 1 ] && [ -n "$crt_endpoint" ]; then
    aws_runs "$crt_endpoint" "s3 =
  preferred_transfer_client = crt" | report "$link" awscli-crt -
  else
    echo "# $link: awscli CRT skipped (nothing on port 80)"
  fi
done
