#!/usr/bin/env bash
# The .deb as a user gets it: cpack -G DEB in BUILD_DIR (its binary is already built), checks the
# package's Depends (runtime libraries from dpkg-shlibdeps, no -dev packages) and contents,
# installs it with apt-get, runs the installed /usr/bin/lakedump (--version, demo, dump, ls, the
# man page, the bash completion), then removes the package and checks that nothing is left.
#   usage: tests/packaging/deb_install_test.sh BUILD_DIR     (ctest: packaging_deb_install)
# Exits 77 (ctest: skipped, with the reason on stdout) when not root, without apt-get, or when a
# lakedump package or /usr/bin/lakedump is already there (it is not ours to replace).
set -euo pipefail
build=$(cd "${1:?usage: deb_install_test.sh BUILD_DIR}" && pwd)

skip() { echo "skipped: $*"; exit 77; }
fail() { echo "FAILED: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || skip "installing a .deb with apt-get needs root"
command -v apt-get >/dev/null 2>&1 || skip "no apt-get: not a Debian-like system"
command -v dpkg-shlibdeps >/dev/null 2>&1 || skip "no dpkg-shlibdeps (apt-get install dpkg-dev)"
if dpkg-query -W -f='${Status}' lakedump 2>/dev/null | grep -q 'ok installed'; then
  skip "a lakedump package is already installed; not replacing it"
fi
[ ! -e /usr/bin/lakedump ] || skip "/usr/bin/lakedump exists and is not from a lakedump package"

work=$(mktemp -d "${TMPDIR:-/tmp}/lakedump-deb.XXXXXX")
installed=0
cleanup() {
  if [ $installed = 1 ]; then
    apt-get remove -y -o DPkg::Lock::Timeout=120 lakedump >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "== cpack -G DEB"
(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg") >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; fail "cpack -G DEB"; }
debs=("$work"/pkg/lakedump_*.deb)
[ -f "${debs[0]}" ] || fail "cpack made no lakedump_*.deb"
deb=${debs[0]}
dpkg-deb -I "$deb"

echo "== Depends"
depends=$(dpkg-deb -f "$deb" Depends)
echo "$depends"
[ -n "$depends" ] || fail "the package has no Depends"
if grep -qE -- '-dev\b' <<<"$depends"; then fail "Depends names a -dev package: $depends"; fi
for lib in libc6 libpq5 libsqlite3-0 libcurl4 libzstd1 libsnappy1v5 libxxhash0; do
  grep -qE "(^|, )$lib( |,|$)" <<<"$depends" || fail "Depends lacks $lib: $depends"
done

echo "== contents"
contents=$(dpkg-deb -c "$deb")
for f in ./usr/bin/lakedump ./usr/share/man/man1/lakedump.1 \
         ./usr/share/bash-completion/completions/lakedump; do
  grep -qE " $f(\.gz)?$" <<<"$contents" || fail "the package lacks $f"
done

echo "== apt-get install"
installed=1
apt-get install -y -o DPkg::Lock::Timeout=120 --no-install-recommends "$deb" >"$work/apt.log" 2>&1 ||
  { cat "$work/apt.log"; fail "apt-get install $deb"; }

echo "== the installed binary"
/usr/bin/lakedump --version
cd "$work"
/usr/bin/lakedump demo x.sqlite --rows 3000
/usr/bin/lakedump dump x.sqlite "$work/dump" --progress none
/usr/bin/lakedump ls "$work/dump" | tail -n 1
[ -f "$work/dump/_manifest.json" ] || fail "the installed lakedump wrote no _manifest.json"
man_page=$(ls /usr/share/man/man1/lakedump.1*)
if [[ $man_page == *.gz ]]; then man_text=$(gzip -dc "$man_page"); else man_text=$(cat "$man_page"); fi
for cmd in demo dump load ls gc verify; do
  grep -q "^\.SS \"$cmd\"" <<<"$man_text" || fail "the man page has no section for $cmd"
done
bash -c '. /usr/share/bash-completion/completions/lakedump && complete -p lakedump' ||
  fail "the bash completion does not load"

echo "== apt-get remove"
apt-get remove -y -o DPkg::Lock::Timeout=120 lakedump >"$work/apt.log" 2>&1 ||
  { cat "$work/apt.log"; fail "apt-get remove lakedump"; }
installed=0
[ ! -e /usr/bin/lakedump ] || fail "/usr/bin/lakedump is still there after apt-get remove"
echo "ok: built, installed, ran and removed $(basename "$deb")"
