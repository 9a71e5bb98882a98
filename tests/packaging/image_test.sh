#!/usr/bin/env bash
# The runtime image of scripts/build-image, run as a user runs it (docs/deploy.md, "Container
# image"): built twice with the same SOURCE_DATE_EPOCH (the two digests must be equal), its
# config checked (entrypoint, non-root user), then inside it, as its user: lakedump --version, a
# demo SQLite database dumped, verified and listed, every library the binary links found, no -dev
# package; with LD_TEST_PG_DSN also a PostgreSQL dump (the image's pg_dump) loaded back with
# --trust-dump (its pg_restore). It runs the image with podman where podman can run containers,
# otherwise in a chroot of the image's root filesystem unpacked by umoci (as on the machines here).
#   usage: tests/packaging/image_test.sh [--build-dir DIR] [--once] [--image OCI_DIR:TAG]
#     --build-dir DIR  the build to put in the image (default: the quickstart's, scripts/build-image)
#     --once           build the image once (no reproducibility check)
#     --image L:TAG    test that image of an OCI layout instead of building one
# Slow (mmdebstrap installs a Debian root filesystem, twice): not in ctest. Root only.
set -euo pipefail
root_dir=$(cd "$(dirname "$0")/../.." && pwd)
build_args=()
once=0
given=
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_args=(--build-dir "$(cd "${2:?}" && pwd)"); shift ;;
    --once) once=1 ;;
    --image) given=${2:?}; shift ;;
    *) echo "usage: image_test.sh [--build-dir DIR] [--once] [--image OCI_DIR:TAG]" >&2; exit 2 ;;
  esac
  shift
done
fail() { echo "FAILED: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "the image test runs as root (mmdebstrap, chroot)"

work=$(mktemp -d "${TMPDIR:-/tmp}/lakedump-image-test.XXXXXX")
chmod 755 "$work"
pg_db=
drop_pg() {
  if [ -n "$pg_db" ]; then
    for db in "$pg_db" "${pg_db}_copy"; do
      psql -q "$LD_TEST_PG_DSN" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
    done
  fi
  pg_db=
}
image=
cleanup() {
  drop_pg
  [ -z "$image" ] || podman rmi -f "$image" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
tag=test
started=$SECONDS
# One SOURCE_DATE_EPOCH for both builds (build-image's default, the commit time, could move
# between them).
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$root_dir" log -1 --format=%ct 2>/dev/null || date +%s)}

if [ -n "$given" ]; then
  cp -a "${given%:*}" "$work/oci"
  tag=${given##*:}
  digest=$(python3 -c 'import json,sys
print(next(m["digest"] for m in json.load(open(sys.argv[1]))["manifests"]
           if m.get("annotations", {}).get("org.opencontainers.image.ref.name") == sys.argv[2]))' \
           "$work/oci/index.json" "$tag")
else
  echo "== scripts/build-image"
  digest=$("$root_dir/scripts/build-image" "${build_args[@]}" --out "$work/oci" --tag $tag | tail -n1)
  echo "digest $digest ($((SECONDS - started)) s)"
fi
if [ $once = 0 ] && [ -z "$given" ]; then
  second=$SECONDS
  again=$("$root_dir/scripts/build-image" "${build_args[@]}" --out "$work/oci2" --tag $tag | tail -n1)
  echo "again  $again ($((SECONDS - second)) s)"
  [ "$digest" = "$again" ] || fail "two builds of the same inputs differ: $digest vs $again"
fi

echo "== the image's config"
config_id=$(python3 - "$work/oci" "$digest" <<'EOF'
import json, sys
layout, digest = sys.argv[1], sys.argv[2]
blob = lambda d: json.load(open("%s/blobs/%s" % (layout, d.replace(":", "/"))))
manifest = blob(digest)
config = blob(manifest["config"]["digest"])
c = config["config"]
print("user", c.get("User"), "entrypoint", c.get("Entrypoint"), "layers", len(manifest["layers"]),
      file=sys.stderr)
assert c.get("User") == "10001:10001", c.get("User")
assert c.get("Entrypoint") == ["/usr/bin/lakedump"], c.get("Entrypoint")
assert config["os"] == "linux" and config["created"].endswith("Z"), config
print(manifest["config"]["digest"].split(":")[1])
EOF
) || fail "the image's config"

echo "== unpacked (umoci unpack)"
umoci unpack --image "$work/oci:$tag" "$work/bundle" >/dev/null
rootfs=$work/bundle/rootfs
grep -q '^lakedump:x:10001:10001:' "$rootfs/etc/passwd" || fail "no user lakedump in /etc/passwd"
if chroot "$rootfs" ldd /usr/bin/lakedump | grep 'not found'; then fail "a library is missing"; fi
dev=$(chroot "$rootfs" dpkg-query -W -f='${Package}\n' | grep -E -- '-dev$' || true)
[ -z "$dev" ] || fail "the image holds -dev packages: $dev"

# in_image CMD...: lakedump CMD... as the image's user in its working directory (host network:
# the test PostgreSQL is on loopback). chroot: the unpacked root filesystem, in a mount namespace
# of its own for /proc and /dev (gone when the command ends). podman: the image itself.
podman_cmd=()
in_image() {
  if [ $runner = podman ]; then
    "${podman_cmd[@]}" -v "$home:/home/lakedump" "$image" "$@"
  else
    unshare --mount --propagation private sh -c '
      r=$1; shift
      mount -t proc proc "$r/proc" && mount --bind /dev "$r/dev" &&
      exec chroot --userspec=10001:10001 "$r" /usr/bin/env -i -C /home/lakedump \
        HOME=/home/lakedump PATH=/usr/sbin:/usr/bin:/sbin:/bin /usr/bin/lakedump "$@"
    ' sh "$rootfs" "$@"
  fi
}

# Podman 4.3 on the project's machines runs a container only with runc (crun refuses their
# hybrid cgroup layout) and with explicit limits (raising RLIMIT_NPROC to podman's default is
# not permitted there); elsewhere the first try, podman as it is, works.
find_podman() {
  command -v podman >/dev/null 2>&1 || { echo "no podman" >"$work/podman.err"; return 1; }
  # podman load of the layout as an oci-archive; its image id is the config's digest.
  tar -C "$work/oci" -cf "$work/oci.tar" .
  podman load -q -i "$work/oci.tar" >/dev/null 2>"$work/podman.err" || return 1
  image=$config_id
  local rt limits=(--ulimit "nofile=$(ulimit -Hn):$(ulimit -Hn)" --ulimit nproc=4096:4096)
  for rt in "" runc; do
    podman_cmd=(podman ${rt:+--runtime "$rt"} run --rm --network host "${limits[@]}")
    "${podman_cmd[@]}" "$image" --version >/dev/null 2>"$work/podman.err" && return 0
  done
  return 1
}

run_in_image() {
  echo "== lakedump in the image ($runner)"
  in_image --version | tee "$work/version"
  grep -q '^lakedump ' "$work/version" || fail "lakedump --version printed no version"
  in_image demo demo.sqlite --rows 2000
  in_image dump demo.sqlite ./dump --progress none
  in_image verify ./dump
  in_image ls ./dump | tee "$work/ls"
  grep -q 'customer_dimension' "$work/ls" || fail "ls of the dump made in the image lists no customer_dimension"
  [ -f "$home/dump/_manifest.json" ] || fail "no _manifest.json from the dump in the image"
  [ "$(stat -c %u "$home/dump/_manifest.json")" = 10001 ] || fail "the dump was not written as uid 10001"
  [ -n "${LD_TEST_PG_DSN:-}" ] || return 0
  echo "== PostgreSQL: the image's pg_dump and pg_restore ($runner)"
  pg_db=ld_image_${runner}_$$
  psql -q -v ON_ERROR_STOP=1 "$LD_TEST_PG_DSN" -c "CREATE DATABASE $pg_db" -c "CREATE DATABASE ${pg_db}_copy"
  local base=${LD_TEST_PG_DSN%/*}
  psql -q -v ON_ERROR_STOP=1 "$base/$pg_db" \
    -c "CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t SELECT g, md5(g::text) FROM generate_series(1, 500) g;
        CREATE VIEW v AS SELECT count(*) AS n FROM t"
  in_image dump "$base/$pg_db" ./pgdump --progress none
  [ -f "$home/pgdump/_schema/postgres.dump" ] || fail "the image's pg_dump wrote no schema archive"
  in_image load ./pgdump "$base/${pg_db}_copy" --trust-dump --progress none
  local n
  n=$(psql -tA "$base/${pg_db}_copy" -c "SELECT n FROM v")
  [ "$n" = 500 ] || fail "the view restored by the image's pg_restore counts $n rows, not 500"
  drop_pg
}

runners=(chroot)
runner=chroot home=$rootfs/home/lakedump run_in_image
if find_podman; then
  runners+=(podman)
  mkdir -p "$work/home" && chown 10001:10001 "$work/home"
  runner=podman home=$work/home run_in_image
else
  echo "podman cannot run the image here ($(tail -n1 "$work/podman.err")): the chroot run only"
fi
echo "ok: image $digest built and run (${runners[*]}) in $((SECONDS - started)) s"
