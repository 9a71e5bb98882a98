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
"manifest" phases. When the run's CPU samples are there (N-R-cpu.txt: "unix-seconds
busy-CPU-seconds" lines), also the machine's busy CPU-seconds over the workers' "units" window
(from the first worker's units to the last one's end) and what that window can therefore not
go under on this machine's cores.
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


def busy_between(path, origin_wall, begin, end):
    """The machine's busy CPU-seconds between run times begin and end (linear between samples),
    or None without samples around them."""
    samples = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2:
                samples.append((float(parts[0]) - origin_wall, float(parts[1])))

    def at(t):
        for (t0, c0), (t1, c1) in zip(samples, samples[1:]):
            if t0 <= t <= t1:
                return c0 + (c1 - c0) * (t - t0) / (t1 - t0) if t1 > t0 else c0
        return None

    a, b = at(begin), at(end)
    return None if a is None or b is None else b - a


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
        units = []  # (begin, end) of each worker's "units" phase
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
                units += [(b, e) for b, e, what in found if what == "units"]
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
        cpu = os.path.join(d, run + "-cpu.txt")
        if units and os.path.exists(cpu):
            begin, end = min(b for b, _ in units), max(e for _, e in units)
            busy = busy_between(cpu, t0, begin, end)
            if busy is not None:
                cores = os.cpu_count()
                print(f"  units window: {begin:.2f}-{end:.2f} s ({end - begin:.2f} s), machine "
                      f"busy {busy:.1f} CPU-s ({busy / (end - begin):.2f} of {cores} cores): "
                      f"on {cores} cores it cannot take under {busy / cores:.2f} s")


if __name__ == "__main__":
    main()
