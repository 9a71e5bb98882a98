#!/usr/bin/env python3
"""deploy/kubernetes: the manifests parse (python3-yaml), have the shape docs/scale-out.md
describes, and their commands run unchanged: the coordinator's and the workers' args from the
YAML, with only SOURCE and DEST replaced by the test PostgreSQL (a scratch database) and a
temporary folder, the workers given JOB_COMPLETION_INDEX as an Indexed Job gives it.
The pods run the image that scripts/build-image and the Dockerfile build (its name, its user),
as the IRSA-annotated service account; S3 keys only from the optional fallback Secret.

usage: kubernetes_manifests_test.py LAKEDUMP_BINARY
Exit 0 pass, 1 fail, 77 skipped (no python3-yaml; the run part also needs LD_TEST_PG_DSN).
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEPLOY = os.path.join(ROOT, "deploy", "kubernetes")

try:
    import yaml
except ImportError:
    print("python3-yaml is not installed: skipped")
    sys.exit(77)

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def containers(pod_template):
    return pod_template["spec"]["containers"]


def load(name):
    with open(os.path.join(DEPLOY, name)) as f:
        return [d for d in yaml.safe_load_all(f) if d]


def read(*path):
    with open(os.path.join(ROOT, *path)) as f:
        return f.read()


def pod_specs(jobs, jobset):
    specs = [(d["metadata"]["name"], d["spec"]["template"]["spec"]) for d in jobs]
    specs += [("JobSet " + r["name"], r["template"]["spec"]["template"]["spec"])
              for r in jobset["spec"]["replicatedJobs"]]
    return specs


def check_dockerfile(user):
    """The Dockerfile builds the image the manifests name: its packages, user and entrypoint."""
    docker = read("Dockerfile")
    froms = re.findall(r"^FROM (\S+)", docker, re.M)
    check(froms == ["debian:12", "debian:12-slim"], "Dockerfile: debian:12, then debian:12-slim")
    deps = set(re.search(r"PKGS=\((.*?)\)", read("scripts", "deps"), re.S).group(1).split())
    build_stage = docker.split("FROM debian:12-slim")[0]
    wanted = re.search(r"install -y --no-install-recommends(.*?)&&", build_stage, re.S).group(1)
    wanted = set(wanted.replace("\\", " ").split())
    check(wanted and wanted <= deps, "Dockerfile: builds with scripts/deps' packages: %s"
          % sorted(wanted - deps))
    check("deploy/image/runtime-packages" in docker.split("FROM debian:12-slim")[1],
          "Dockerfile: the runtime stage installs deploy/image/runtime-packages")
    runtime = [l for l in read("deploy", "image", "runtime-packages").split()
               if l and not l.startswith("#")]
    check(runtime and not any(p.endswith("-dev") for p in runtime), "runtime packages: no -dev")
    check(re.search(r"^USER %d:%d$" % (user, user), docker, re.M), "Dockerfile: USER %d" % user)
    check('ENTRYPOINT ["/usr/bin/lakedump"]' in docker, "Dockerfile: ENTRYPOINT lakedump")
    check("--config.user %d:%d" % (user, user) in read("scripts", "build-image"),
          "scripts/build-image: the same user")


def check_image_and_identity(jobs, jobset, db_secret):
    version = re.search(r"project\(lakedump VERSION ([0-9.]+)", read("CMakeLists.txt")).group(1)
    sa = load("serviceaccount.yaml")
    check(len(sa) == 1 and sa[0]["kind"] == "ServiceAccount", "serviceaccount.yaml: a ServiceAccount")
    arn = sa[0]["metadata"].get("annotations", {}).get("eks.amazonaws.com/role-arn", "")
    check(re.fullmatch(r"arn:aws:iam::\d{12}:role/[\w+=,.@-]+", arn), "IRSA role-arn: %r" % arn)
    keys = load("s3-static-keys-example.yaml")[0]
    check(keys["kind"] == "Secret" and {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}
          <= set(keys["stringData"]), "s3-static-keys-example.yaml: the fallback keys")
    user = None
    for name, spec in pod_specs(jobs, jobset):
        check(spec.get("serviceAccountName") == sa[0]["metadata"]["name"],
              name + ": runs as the service account")
        sc = spec.get("securityContext", {})
        check(sc.get("runAsNonRoot") is True and sc.get("runAsUser"), name + ": a non-root user")
        user = user or sc.get("runAsUser")
        c = spec["containers"][0]
        check(c["image"] == "lakedump:" + version, name + ": the image built here, lakedump:"
              + version)
        refs = [e["secretRef"] for e in c.get("envFrom", []) if "secretRef" in e]
        check({r["name"] for r in refs} == {db_secret["metadata"]["name"],
                                             keys["metadata"]["name"]}, name + ": the two Secrets")
        check(all(r.get("optional") is True for r in refs
                  if r["name"] == keys["metadata"]["name"]), name + ": S3 keys only as a fallback")
        if c.get("securityContext", {}).get("readOnlyRootFilesystem"):
            check(any(m["mountPath"] == "/tmp" for m in c.get("volumeMounts", [])),
                  name + ": a writable /tmp (TMPDIR) on a read-only root")
    check_dockerfile(user)


jobs = load("dump-job.yaml")
check(len(jobs) == 2 and all(d["kind"] == "Job" for d in jobs), "dump-job.yaml: two Jobs")
coord = next(d for d in jobs if d["metadata"]["name"] == "lakedump-coordinator")
workers = next(d for d in jobs if d["metadata"]["name"] == "lakedump-workers")
check(workers["spec"]["completionMode"] == "Indexed", "workers: an Indexed Job")
n = workers["spec"]["completions"]
check(workers["spec"]["parallelism"] == n, "workers: all indexes at once")
coord_args = containers(coord["spec"]["template"])[0]["args"]
worker_args = containers(workers["spec"]["template"])[0]["args"]
check(coord_args[coord_args.index("--shards") + 1] == str(n), "coordinator: --shards = completions")
check("--coordinate" in coord_args, "coordinator: --coordinate")
check(worker_args[worker_args.index("--shard") + 1] == "auto", "workers: --shard auto")
check(worker_args[:3] == coord_args[:3], "same SOURCE and DEST")
for d in jobs:
    c = containers(d["spec"]["template"])[0]
    check(any(e.get("secretRef", {}).get("name") == "lakedump-credentials"
              for e in c.get("envFrom", [])), d["metadata"]["name"] + ": credentials from the Secret")
    check("resources" in c, d["metadata"]["name"] + ": resources")
    check(not any("password" in a.lower() or "secret" in a.lower() for a in c["args"]),
          d["metadata"]["name"] + ": no credentials in the command")

jobset = load("dump-jobset.yaml")
check(len(jobset) == 1 and jobset[0]["kind"] == "JobSet", "dump-jobset.yaml: one JobSet")
rj = {r["name"]: r for r in jobset[0]["spec"]["replicatedJobs"]}
check(set(rj) == {"coordinator", "workers"}, "JobSet: coordinator and workers")
js_worker_args = containers(rj["workers"]["template"]["spec"]["template"])[0]["args"]
check(js_worker_args == worker_args, "JobSet workers: the same command as dump-job.yaml")
js_coord_args = containers(rj["coordinator"]["template"]["spec"]["template"])[0]["args"]
check(js_coord_args == coord_args, "JobSet coordinator: the same command as dump-job.yaml")
secret = load("secret-example.yaml")
check(secret[0]["kind"] == "Secret" and "PGPASSWORD" in secret[0]["stringData"], "the Secret")
check(not any(k.startswith("AWS_") for k in secret[0]["stringData"]),
      "the database Secret holds no S3 keys (they come from the service account's role)")
check_image_and_identity(jobs, jobset[0], secret[0])

binary = sys.argv[1]
dsn = os.environ.get("LD_TEST_PG_DSN")
if failures:
    sys.exit(1)
if not dsn:
    print("manifests parse; LD_TEST_PG_DSN is not set: the run is skipped")
    sys.exit(0)

db = "ld_k8s_%d" % os.getpid()


def psql(sql, database_dsn=dsn):
    subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", database_dsn, "-c", sql], check=True,
                   stdout=subprocess.DEVNULL)


psql("DROP DATABASE IF EXISTS %s" % db)
psql("CREATE DATABASE %s" % db)
try:
    base = dsn.rsplit("/", 1)[0] + "/" + db
    psql("CREATE TABLE big AS SELECT g AS id, md5(g::text) AS v FROM generate_series(1, 20000) g;"
         "CREATE TABLE small (id int); INSERT INTO small VALUES (1), (2), (3)", base)
    with tempfile.TemporaryDirectory() as tmp:
        dest = os.path.join(tmp, "dump")

        def run_args(args):
            return [binary] + [args[0], base, dest] + args[3:]

        # Index 7 of 4: the index came from JOB_COMPLETION_INDEX (bad usage, exit 2).
        env = dict(os.environ, JOB_COMPLETION_INDEX="7")
        r = subprocess.run(run_args(worker_args), env=env, capture_output=True, text=True)
        check(r.returncode == 2 and "out of range" in r.stderr, "index 7 of 4: exit 2 (%s)" % r.stderr)

        c = subprocess.Popen(run_args(coord_args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        ws = []
        for i in range(n):
            env = dict(os.environ, JOB_COMPLETION_INDEX=str(i))
            ws.append(subprocess.Popen(run_args(worker_args), env=env, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True))
        for i, w in enumerate(ws):
            out, err = w.communicate(timeout=300)
            check(w.returncode == 0, "worker %d: exit %d: %s" % (i, w.returncode, err))
        out, err = c.communicate(timeout=300)
        check(c.returncode == 0, "coordinator: exit %d: %s" % (c.returncode, err))
        if c.returncode == 0:
            with open(os.path.join(dest, "_manifest.json")) as f:
                m = json.load(f)
            rows = {t["table"]: t["rows"] for t in m["tables"]}
            check(rows == {"big": 20000, "small": 3}, "rows in the manifest: %s" % rows)
            check(m["options"].get("shards") == n, "the manifest records the shards")
finally:
    psql("DROP DATABASE IF EXISTS %s WITH (FORCE)" % db)

sys.exit(1 if failures else 0)
