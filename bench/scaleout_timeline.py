#!/usr/bin/env python3
"""Lays the traces of bench/scaleout.sh runs (TRACE_DIR=DIR) on one time line per run.

Usage: bench/scaleout_timeline.py DIR

For each run N-R (N workers, run R) prints, in seconds from the run's start (DIR/N-R-wall.txt,
written by scaleout.sh), when each process's phases began and ended: the coordinator's
("lease", "plan", "workers", "checks before commit", "manifest", ... and the shard spans
"write plan", "check report of shard I", "commit N tables": a shard's tables, committed as its
report comes in) and each worker's ("wait for plan", "join", "resolve units", "units",
"report"), then the run's end, and the coordinator's tail: from the last worker's end to the
coordinator's last span, with the table commits in it and its "checks before commit" and
"manifest" phases.
"""
import glob
import json
import os
import re
import sys


def spans(path, origin_wall):
    with open(path) as f:
        trace = json.load(f)
    origin = trace.get("otherData", {}).get("origin_unix_us")
    if origin is None:
        return []
    out = []
    for e in trace["traceEvents"]:
        if e.get("ph") != "X" or e.get("cat") not in ("phase", "shard"):
            continue
        begin = (origin + e["ts"]) / 1e6 - origin_wall
        out.append((begin, begin + e["dur"] / 1e6, e["name"]))
    return sorted(out)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    runs = sorted({re.sub(r"-wall\.txt$", "", os.path.basename(p))
                   for p in glob.glob(os.path.join(d, "*-wall.txt"))},
                  key=lambda t: tuple(int(x) for x in t.split("-")))
    for run in runs:
        with open(os.path.join(d, run + "-wall.txt")) as f:
            t0, t1 = (float(x) for x in f.read().split())
        n, r = run.split("-")
        print(f"# {n} workers, run {r}: {t1 - t0:.2f} s")
        procs = [("coordinator", os.path.join(d, run + "-coord.json"))]
        procs += [(f"worker {i}", os.path.join(d, f"{run}-w{i}.json")) for i in range(int(n))]
        workers_end = None
        coordinator = []
        for name, path in procs:
            if not os.path.exists(path):
                print(f"  {name}: no trace")
                continue
            found = spans(path, t0)
            for begin, end, what in found:
                print(f"  {name:12s} {begin:7.2f} {end:7.2f} {end - begin:7.2f}  {what}")
            if name == "coordinator":
                coordinator = found
            elif found:
                workers_end = max(workers_end or 0.0, max(e for _, e, _ in found))
        if coordinator and workers_end is not None:
            phase = {what: end - begin for begin, end, what in coordinator}
            end = max(e for _, e, _ in coordinator)
            # Table commits after the last worker ended ("table commits": older traces).
            commits = sum(max(0.0, e - max(b, workers_end)) for b, e, what in coordinator
                          if re.fullmatch(r"commit \d+ tables|table commits", what))
            parts = ", ".join([f"table commits {commits:.2f}"] +
                              [f"{p} {phase[p]:.2f}" for p in
                               ("checks before commit", "manifest") if p in phase])
            print(f"  tail: {end - workers_end:.2f} s from the last worker's end to the "
                  f"coordinator's last span ({parts})")


if __name__ == "__main__":
    main()
