#!/usr/bin/env bash
# `cmake --install` after a build of the binary alone: into a DESTDIR, then the installed
# bin/lakedump runs, the man page has a section per command and the bash completion loads.
#   usage: tests/packaging/install_test.sh BUILD_DIR [--as-built]
#     (default)   first puts BUILD_DIR back where a build of only the binary leaves it: the
#                 generated man page and completion removed, then `cmake --build BUILD_DIR
#                 --target lakedump` (Ninja; lakedump_cli with another generator) must make them
#                 (ctest: packaging_install, on the main build directory)
#     --as-built  installs BUILD_DIR as it is (scripts/test: the quickstart's build, which built
#                 only the lakedump_cli target)
# Cheap: the binary is up to date, so the build only runs lakedump_docgen twice.
set -euo pipefail
build=$(cd "${1:?usage: install_test.sh BUILD_DIR [--as-built]}" && pwd)
as_built=0
[ "${2:-}" = --as-built ] && as_built=1

fail() { echo "FAILED: $*" >&2; exit 1; }
[ -f "$build/CMakeCache.txt" ] || fail "$build is not a configured build directory"

work=$(mktemp -d "${TMPDIR:-/tmp}/lakedump-install.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ $as_built = 0 ]; then
  echo "== a build of the binary alone"
  rm -f "$build/lakedump.1" "$build/lakedump.1.gz" "$build/lakedump.bash-completion"
  target=lakedump_cli
  # Ninja builds a target named after its file too: `--target lakedump`, as a user types it.
  grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$build/CMakeCache.txt" && target=lakedump
  cmake --build "$build" --target "$target" >"$work/build.log" 2>&1 ||
    { cat "$work/build.log"; fail "cmake --build --target $target"; }
fi

echo "== cmake --install into a DESTDIR"
root=$work/root
DESTDIR=$root cmake --install "$build" --prefix /usr >"$work/install.log" 2>&1 ||
  { cat "$work/install.log"; fail "cmake --install $build"; }
cat "$work/install.log"

"$root/usr/bin/lakedump" --version || fail "the installed binary does not run"
man_page=$(ls "$root"/usr/share/man/man1/lakedump.1* 2>/dev/null | head -n1)
[ -n "$man_page" ] || fail "no man page installed under usr/share/man/man1"
if [[ $man_page == *.gz ]]; then man_text=$(gzip -dc "$man_page"); else man_text=$(cat "$man_page"); fi
for cmd in demo dump load ls gc verify; do
  grep -q "^\.SS \"$cmd\"" <<<"$man_text" || fail "the man page has no section for $cmd"
done
completion=$root/usr/share/bash-completion/completions/lakedump
[ -f "$completion" ] || fail "no bash completion installed"
bash -c ". '$completion' && complete -p lakedump" || fail "the bash completion does not load"
echo "ok: installed from $build: bin/lakedump, $(basename "$man_page"), the bash completion"
