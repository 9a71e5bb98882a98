# Shared helpers for lakedump's scripts (sourced, not run).
# shellcheck shell=bash

LD_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() { echo "$(basename "$0"): error: $*" >&2; exit 1; }
note() { echo "$(basename "$0"): $*" >&2; }

# Run a command as root (directly when we are root, else through sudo).
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# True when something listens on 127.0.0.1:PORT (or any address on that port).
port_in_use() {
  local port=$1
  if command -v ss >/dev/null 2>&1; then
    [ -n "$(ss -Hltn "sport = :$port" 2>/dev/null)" ] && return 0
  fi
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
  return 1
}

# Print the first free TCP port >= $1 (at most 200 tries), skipping the ports given after it.
free_port() {
  local port=$1; shift
  local tries=0 skip
  while [ $tries -lt 200 ]; do
    local taken=0
    for skip in "$@"; do [ "$skip" = "$port" ] && taken=1; done
    if [ $taken = 0 ] && ! port_in_use "$port"; then echo "$port"; return 0; fi
    port=$((port + 1)); tries=$((tries + 1))
  done
  die "no free TCP port found from $1"
}
