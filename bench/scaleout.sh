#!/usr/bin/env bash
# Scale-out simulated on one machine (issue 13, docs/scale-out.md): one PostgreSQL dump to
# radosgw by 1, 2 and 4 workers (--shards N), each worker's uploads through its own
# tools/faultproxy capped at a per-machine link (--total-rate, default 5MB/s), so that a worker
# is bound by its "NIC" as on separate machines. The database: one big table of BIG_ROWS rows
# (default 3,000,000) plus TABLES small tables (default 1000 x 100 rows). Prints the seconds of
# each run and the throughput of N workers over N times one worker's (the issue's bar: >= 0.85).
# Usage: bench/scaleout.sh [BUILD_DIR] [RUNS]
#   Env: LD_BENCH_PG_DSN or LD_TEST_PG_DSN (URI); S3_ENDPOINT S3_ACCESS_KEY S3_SECRET_KEY
#   S3_REGION S3_BUCKET (scripts/start-radosgw's env file); BIG_ROWS, TABLES, ROWS,
#   WORKERS ("1 2 4"), LINK (5MB), J (table parallelism per worker, 2), COORD_ARGS (more
#   arguments for the coordinator only, e.g. "--max-connections 32"); TRACE_DIR: each process
#   of each run writes a --trace there (N-R-coord.json, N-R-wI.json), and
#   bench/scaleout_timeline.py TRACE_DIR prints every run's phases on one time line; with
#   TRACE_DIR the machine's busy CPU is also sampled every 0.1 s (N-R-cpu.txt), so that the
#   time line gives the CPU the workers' units phase took (the bound of a run on these cores).
#   Each run's line on stderr also gives the machine's busy CPU-seconds over the run and how
#   many of them the S3 server (radosgw, ceph-*) and PostgreSQL took.
#   A small check that it runs: BIG_ROWS=20000 TABLES=20 bench/scaleout.sh build 1
set -euo pipefail
BUILD=${1:-build}
RUNS=${2:-1}
LD="$BUILD/lakedump"
BIG_ROWS=${BIG_ROWS:-3000000}
TABLES=${TABLES:-1000}
ROWS=${ROWS:-100}
LINK=${LINK:-5MB}
J=${J:-2}
: "${S3_ENDPOINT:?}" "${S3_ACCESS_KEY:?}" "${S3_SECRET_KEY:?}" "${S3_REGION:?}" "${S3_BUCKET:?}"
export AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$S3_SECRET_KEY AWS_REGION=$S3_REGION
# shellcheck source=bench/_pg_lib.sh
. "$(dirname "$0")/_pg_lib.sh"
DB=lakedump_scaleout_bench_${BIG_ROWS}_${TABLES}
BENCH_DSN=$(pg_db_dsn "$DB")
pg_ensure_db "$DB"
pg_ensure_small_tables "$BENCH_DSN" "$TABLES" "$ROWS"
if [ "$(psql "$BENCH_DSN" -Atc "SELECT count(*) FROM pg_tables WHERE tablename = 'big'")" = 0 ]; then
  echo "creating table big of $BIG_ROWS rows..."
  psql "$BENCH_DSN" -q >/dev/null <<SQL
CREATE TABLE big (id int8 PRIMARY KEY, customer int4, amount numeric(12,2), note text, created timestamptz);
INSERT INTO big SELECT g, g % 100000, (g % 10000) * 1.25, md5(g::text), TIMESTAMPTZ '2024-01-01' + g * INTERVAL '1 second'
  FROM generate_series(1, $BIG_ROWS) g;
ANALYZE big;
SQL
fi
bench_workdir scaleout

proxies=()
trap 'for p in "${proxies[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"' EXIT
# One capped link per worker slot (the coordinator uploads only metadata: its own link too).
# Started in this shell (not in a command substitution), so that the trap can stop them.
max=0
for n in ${WORKERS:-1 2 4}; do [ "$n" -gt "$max" ] && max=$n; done
links=()
for _ in $(seq 0 "$max"); do
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$BUILD/tools/faultproxy" --listen "$port" --target "${S3_ENDPOINT##*:}" \
    --total-rate "$LINK" >/dev/null 2>&1 &
  proxies+=($!)
  links+=("http://127.0.0.1:$port")
done
sleep 0.5

# Busy CPU-seconds of the whole machine since boot (/proc/stat: user, nice, system, irq, softirq).
busy_cpu_seconds() {
  awk -v hz="$(getconf CLK_TCK)" '/^cpu / {print ($2 + $3 + $4 + $7 + $8) / hz}' /proc/stat
}

# CPU-seconds so far of the S3 server (radosgw and its ceph daemons) and of PostgreSQL (its
# processes, with the reaped backends' time through the postmaster's cutime), "S3 PG".
server_cpu_seconds() {
  python3 - <<'PY'
import os
hz = os.sysconf("SC_CLK_TCK")
s3 = pg = 0.0
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except OSError:
        continue
    comm = stat[stat.index("(") + 1:stat.rindex(")")]
    f = stat[stat.rindex(")") + 2:].split()
    own, children = int(f[11]) + int(f[12]), int(f[13]) + int(f[14])
    if comm == "radosgw" or comm.startswith("ceph-"):
        s3 += own / hz
    elif comm == "postgres":
        pg += (own + children) / hz
print(f"{s3:.2f} {pg:.2f}")
PY
}

# run N PREFIX TAG: coordinator + N workers, each through its own link; prints wall seconds.
# TAG names the run's traces (TRACE_DIR).
run() {
  local n=$1 prefix=$2 t0 t1 pids=() rc=0
  local common=("$BENCH_DSN" "s3://$S3_BUCKET/$prefix" --region "$S3_REGION" --progress none
                --schema-from lakedump)
  local trace_coord=() trace_w=() busy0 busy1 servers0 servers1 sampler=
  if [ -n "${TRACE_DIR:-}" ]; then
    # "unix-seconds busy-CPU-seconds" every 0.1 s (one process reading /proc/stat).
    python3 -c '
import os, sys, time
hz = os.sysconf("SC_CLK_TCK")
while True:
    f = open("/proc/stat").readline().split()
    print(f"{time.time():.3f} {(int(f[1]) + int(f[2]) + int(f[3]) + int(f[6]) + int(f[7])) / hz:.2f}", flush=True)
    time.sleep(0.1)' >"$TRACE_DIR/$3-cpu.txt" &
    sampler=$!
  fi
  busy0=$(busy_cpu_seconds)
  servers0=$(server_cpu_seconds)
  t0=$(date +%s.%N)
  [ -n "${TRACE_DIR:-}" ] && trace_coord=(--trace "$TRACE_DIR/$3-coord.json")
  # shellcheck disable=SC2086
  "$LD" dump "${common[@]}" --endpoint "${links[0]}" --shards "$n" --coordinate \
    "${trace_coord[@]}" ${COORD_ARGS:-} >"$WORK/coord.out" 2>&1 &
  local coord=$!
  for i in $(seq 0 $((n - 1))); do
    [ -n "${TRACE_DIR:-}" ] && trace_w=(--trace "$TRACE_DIR/$3-w$i.json")
    "$LD" dump "${common[@]}" --endpoint "${links[$((i + 1))]}" --shards "$n" --shard "$i" \
      -j "$J" "${trace_w[@]}" >"$WORK/w$i.out" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  wait "$coord" || rc=1
  t1=$(date +%s.%N)
  [ -n "$sampler" ] && kill "$sampler" 2>/dev/null
  busy1=$(busy_cpu_seconds)
  servers1=$(server_cpu_seconds)
  [ $rc = 0 ] || { cat "$WORK"/*.out >&2; echo "run with $n workers failed" >&2; exit 1; }
  [ -n "${TRACE_DIR:-}" ] && echo "$t0 $t1" >"$TRACE_DIR/$3-wall.txt"
  # The whole machine's busy CPU over the run (every process: lakedump, PostgreSQL,
  # radosgw, the proxies), to stderr: on 2 cores, busy / 2 is a floor for the wall time.
  # Of it, the S3 server's and PostgreSQL's (on separate machines in a real scale-out).
  python3 -c "
s3 = ${servers1% *} - ${servers0% *}; pg = ${servers1#* } - ${servers0#* }
print(f'  {$n} workers: {$t1 - $t0:.3f} s wall, machine busy {$busy1 - $busy0:.1f} CPU-s (floor on $(nproc) cores: {($busy1 - $busy0) / $(nproc):.1f} s), of which S3 server {s3:.1f}, PostgreSQL {pg:.1f}')" >&2
  python3 -c "print(f'{$t1 - $t0:.3f}')"
}

bytes=$(psql "$BENCH_DSN" -Atc "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'")
echo "# $(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); big: $BIG_ROWS rows + $TABLES x $ROWS rows ($((bytes / 1048576)) MiB of heap); link $LINK per worker; -j $J"
declare -A med
for n in ${WORKERS:-1 2 4}; do
  times=()
  for r in $(seq "$RUNS"); do
    times+=("$(run "$n" "scaleout-bench-$$-$n-$r" "$n-$r")")
    # Not timed: the run's objects go, so that repeated runs do not fill the store.
    aws --endpoint-url "$S3_ENDPOINT" s3 rm --recursive --quiet "s3://$S3_BUCKET/scaleout-bench-$$-$n-$r/"
  done
  med[$n]=$(median "${times[@]}")
  echo "workers $n: ${times[*]} s (median ${med[$n]} s)"
done
one=${med[1]:-}
if [ -n "$one" ]; then
  for n in ${WORKERS:-1 2 4}; do
    python3 -c "n=$n; t1=$one; tn=${med[$n]}; print(f'workers {n}: throughput {t1/tn:.2f}x one worker, {t1/tn/n:.2f} of {n}x (bar: 0.85)')"
  done
fi
