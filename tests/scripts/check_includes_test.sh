#!/usr/bin/env bash
# scripts/check-includes: passes on this checkout, passes on a small tree that keeps the rule,
# and fails (exit 1, naming the file and line) on each kind of upward or sideways include.
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
check="$here/scripts/check-includes"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$check" "$here" >/dev/null || fail "the checkout breaks its own rule: $("$check" "$here" 2>&1)"

make_tree() {
  rm -rf "$tmp/t"; mkdir -p "$tmp/t/src"/{base,table,format,store,source,lake,dump,load,cli}
  echo '#include "lakedump/status.h"' > "$tmp/t/src/base/status.h"
  echo '#include "base/status.h"' > "$tmp/t/src/table/schema.h"
  printf '#include "table/schema.h"\n#include <vector>\n' > "$tmp/t/src/format/writer.h"
  echo '#include "source/table_source.h"' > "$tmp/t/src/lake/manifest.h"
  printf '#include "lake/manifest.h"\n#include "format/writer.h"\n' > "$tmp/t/src/dump/export.cc"
  echo '#include "lake/manifest.h"' > "$tmp/t/src/load/load.cc"
  printf '#include "dump/export.h"\n#include "load/load.h"\n' > "$tmp/t/src/cli/main.cc"
}

make_tree
"$check" "$tmp/t" >/dev/null || fail "a tree that keeps the rule was refused"

expect_violation() {  # FILE INCLUDE
  make_tree
  echo "#include \"$2\"" >> "$tmp/t/src/$1"
  set +e
  out=$("$check" "$tmp/t" 2>&1)
  rc=$?
  set -e
  [ $rc -eq 1 ] || fail "$1 including $2: exit $rc, expected 1"
  grep -q "src/$1:[0-9]*: .* includes \"$2\"" <<<"$out" || fail "$1 including $2 not named: $out"
}
expect_violation load/load.cc dump/export.h        # load and dump never include each other
expect_violation dump/export.cc load/load.h
expect_violation lake/manifest.h dump/export.h      # lake is below dump and load
expect_violation base/status.h table/schema.h       # nothing goes up
expect_violation format/writer.h store/store.h      # format writes into a ByteSink
expect_violation table/schema.h lake/manifest.h
expect_violation dump/export.cc cli/main.h
echo "check_includes_test: ok"
