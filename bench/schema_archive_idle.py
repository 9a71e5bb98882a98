#!/usr/bin/env python3
"""Where a dump leaves the machine's cores idle, phase by phase (issue 11's bound).

The schema archive's pg_dump can only use idle core time that comes after the dump's snapshot
(it reads that snapshot) and before its commit (the manifest waits for it). This runs
`lakedump dump --trace` of the schema_archive_cost.sh database RUNS times without the archive
(--schema-from lakedump) and with it, alternating, samples /proc/stat every 5 ms meanwhile,
and splits each run's idle core-seconds over the phases of its trace (lease, snapshot, plan,
..., tables, sync, schema, manifest; "startup" is the process start before the trace began,
"exit" what follows the last phase). Meaningful on a quiet machine only: idle is the whole
machine's (idle + iowait ticks of every core), not the dump's.

Usage: bench/schema_archive_idle.py [BUILD_DIR] [RUNS]
Env: LD_BENCH_PG_DSN or LD_TEST_PG_DSN (the server holding database lakedump_schema_bench, as
bench/schema_archive_cost.sh or bench/schema_archive_profile.sh leave it); PARALLEL
(--table-parallelism, default: the number of cores).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
DSN = os.environ.get("LD_BENCH_PG_DSN") or os.environ.get("LD_TEST_PG_DSN")
if not DSN:
    sys.exit("set LD_BENCH_PG_DSN (or LD_TEST_PG_DSN); scripts/start-postgres starts one")
PARALLEL = os.environ.get("PARALLEL") or str(os.cpu_count())
TCK = os.sysconf("SC_CLK_TCK")


def bench_dsn(dsn: str) -> str:
    if dsn.startswith(("postgres://", "postgresql://")):
        base = dsn.split("?")[0]
        scheme, rest = base.split("://", 1)
        host = rest.split("/")[0]
        return f"{scheme}://{host}/lakedump_schema_bench"
    return dsn + " dbname=lakedump_schema_bench"


def idle_ticks() -> int:
    with open("/proc/stat") as f:
        fields = f.readline().split()
    return int(fields[4]) + int(fields[5])


def run_once(work: str, label: str, extra: list) -> dict:
    samples = []
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            samples.append((time.time(), idle_ticks()))
            time.sleep(0.005)

    sampler = threading.Thread(target=sample)
    dest = os.path.join(work, label)
    trace = dest + ".trace.json"
    sampler.start()
    time.sleep(0.05)
    launched = time.time()
    subprocess.run([os.path.join(BUILD, "lakedump"), "dump", bench_dsn(DSN), dest,
                    "--table-parallelism", PARALLEL, "--progress", "none", "--trace", trace]
                   + extra, check=True, stdout=subprocess.DEVNULL)
    ended = time.time()
    time.sleep(0.05)
    stop.set()
    sampler.join()

    def idle_at(t: float) -> float:  # cumulative idle ticks at time t, interpolated
        for (t0, v0), (t1, v1) in zip(samples, samples[1:]):
            if t0 <= t <= t1:
                return v0 + (v1 - v0) * ((t - t0) / (t1 - t0) if t1 > t0 else 0)
        return samples[-1][1] if t > samples[-1][0] else samples[0][1]

    with open(trace) as f:
        doc = json.load(f)
    origin = doc["otherData"]["origin_unix_us"] / 1e6
    phases = sorted((e["ts"] / 1e6 + origin, (e["ts"] + e["dur"]) / 1e6 + origin, e["name"])
                    for e in doc["traceEvents"] if e.get("cat") == "phase")
    windows = [(launched, origin, "startup")]
    for begin, end, name in phases:
        windows.append((windows[-1][1], end, name))  # a gap before a phase counts to it
    windows.append((windows[-1][1], ended, "exit"))
    out = {"wall": ended - launched, "windows": {}}
    for begin, end, name in windows:
        idle = (idle_at(end) - idle_at(begin)) / TCK
        out["windows"][name] = (end - begin, idle)
    capture = [e for e in doc["traceEvents"] if e.get("name") == "schema capture"]
    if capture:
        out["capture_end"] = (capture[0]["ts"] + capture[0]["dur"]) / 1e6 + origin - launched
    snapshot = [w for w in windows if w[2] == "snapshot"]
    out["idle_after_snapshot"] = (idle_at(ended) - idle_at(snapshot[0][1])) / TCK
    out["idle_total"] = (idle_at(ended) - idle_at(launched)) / TCK
    return out


def main():
    results = {"without": [], "with": []}
    with tempfile.TemporaryDirectory(prefix="lakedump-idle-") as work:
        for run in range(RUNS):
            order = ["with", "without"] if run % 2 == 0 else ["without", "with"]
            for label in order:
                extra = ["--schema-from", "lakedump"] if label == "without" else []
                results[label].append(run_once(work, f"{label}-{run}", extra))
    for label in ("without", "with"):
        rs = results[label]
        print(f"{label} the archive: wall median {statistics.median(r['wall'] for r in rs):.3f} s; "
              f"idle core-s total {statistics.median(r['idle_total'] for r in rs):.2f}, after the "
              f"snapshot {statistics.median(r['idle_after_snapshot'] for r in rs):.2f} (medians)")
        names = list(rs[0]["windows"])
        for name in names:
            durs = [r["windows"][name][0] for r in rs if name in r["windows"]]
            idles = [r["windows"][name][1] for r in rs if name in r["windows"]]
            print(f"  {name:24s} {statistics.median(durs):7.3f} s  idle {statistics.median(idles):5.2f} "
                  f"core-s   (idle per run: {' '.join(f'{i:.2f}' for i in idles)})")
        if any("capture_end" in r for r in rs):
            ends = [f"{r['capture_end']:.3f}" for r in rs if "capture_end" in r]
            print(f"  schema capture ended at (s after launch): {' '.join(ends)}")


main()
