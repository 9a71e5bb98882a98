# shellcheck shell=bash
# Sourced by the PostgreSQL benchmarks (pg_small_tables.sh, schema_archive_cost.sh,
# restore_vs_pg_restore.sh): the server to use, a work dir and the timing helpers.
# Sets DSN from LD_BENCH_PG_DSN or LD_TEST_PG_DSN (URI or keyword form; exits 2 without one)
# and defines:
#   pg_db_dsn NAME     the DSN of database NAME on that server
#   pg_ensure_db NAME  creates database NAME unless it exists
#   bench_workdir TAG  sets WORK to a new temp dir, removed when the script exits
#   secs CMD...        runs CMD (its stdout dropped, fails the script if CMD fails) and prints
#                      its wall-clock seconds
#   median X...        the median of the numbers, 3 decimals
DSN=${LD_BENCH_PG_DSN:-${LD_TEST_PG_DSN:-}}
[ -n "$DSN" ] || { echo "set LD_BENCH_PG_DSN (or LD_TEST_PG_DSN); scripts/start-postgres starts one" >&2; exit 2; }
command -v psql >/dev/null || { echo "psql not found (apt-get install postgresql-client-15)" >&2; exit 2; }

pg_db_dsn() {
  case "$DSN" in
    postgres://*|postgresql://*)
      local base=${DSN%%\?*}
      [[ ${base#*://} == */* ]] && base=${base%/*}
      echo "$base/$1" ;;
    *) echo "$DSN dbname=$1" ;;
  esac
}

pg_ensure_db() {
  if [ "$(psql "$DSN" -Atc "SELECT count(*) FROM pg_database WHERE datname = '$1'")" = 0 ]; then
    psql "$DSN" -qc "CREATE DATABASE $1" >/dev/null
  fi
}

bench_workdir() {
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/lakedump-$1-XXXXXX")
  # shellcheck disable=SC2064
  trap "rm -rf '$WORK'" EXIT
}

secs() { python3 - "$@" <<'PY'
import subprocess, sys, time
t = time.monotonic(); subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(f"{time.monotonic() - t:.3f}")
PY
}

median() { python3 -c "import statistics,sys; print(f'{statistics.median(map(float, sys.argv[1:])):.3f}')" "$@"; }
