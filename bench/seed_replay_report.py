#!/usr/bin/env python3
"""Summarises bench/seed_replay.sh's output: medians, the bound, ratios, a plot.

usage: seed_replay_report.py OUT_DIR [PART_SIZE]   (PART_SIZE like 5MiB)

bound(P) = max(encode time, bytes / (P x per-connection cap)) + one part's latency,
where one part's latency = RTT + min(part size, bytes) / per-connection cap and the
encode time is the median wall time of the same dump to a local folder. There is
no total link cap in these link models. Writes OUT_DIR/summary.tsv and, when
gnuplot is installed, OUT_DIR/seed_replay.svg; prints a Markdown table.
"""
import collections
import os
import shutil
import statistics
import subprocess
import sys

LINKS = {"near": (0.020, 40e6), "far": (0.060, 10e6)}  # RTT s, bytes/s per connection
VERTICA = {0: 6.9, 1: 2.5, 2: 2.0, 3: 1.8}


def parse_size(s):
    units = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "MB": 10**6, "KB": 10**3}
    for u, m in units.items():
        if s.endswith(u):
            return int(float(s[: -len(u)]) * m)
    return int(s)


def main():
    out = sys.argv[1]
    part = parse_size(sys.argv[2] if len(sys.argv) > 2 else "5MiB")
    enc = collections.defaultdict(list)
    size = {}
    enc_cpu = collections.defaultdict(list)
    for line in open(os.path.join(out, "encode.tsv")):
        f = line.split()
        enc[int(f[0])].append(float(f[1]))
        size[int(f[0])] = int(f[2])
        if len(f) > 3:
            enc_cpu[int(f[0])].append(float(f[3]))
    runs = collections.defaultdict(list)
    for line in open(os.path.join(out, "raw.tsv")):
        f = line.split()
        runs[(f[0], int(f[1]), int(f[2]))].append(float(f[4]))
    ps = sorted({k[2] for k in runs})
    combos = sorted({(k[0], k[1]) for k in runs}, key=lambda c: (c[1], list(LINKS).index(c[0])))

    summary = []
    print("| link | rows | file MB | encode s (CPU-s) | " + " | ".join(f"P={p}" for p in ps) +
          " | P=3 vs P=0 |")
    print("|---|---|---|---|" + "---|" * len(ps) + "---|")
    for link, rows in combos:
        rtt, cap = LINKS[link]
        e = statistics.median(enc[rows])
        ecpu = f" ({statistics.median(enc_cpu[rows]):.1f})" if enc_cpu[rows] else ""
        b = size[rows]
        cells = []
        med = {}
        for p in ps:
            t = statistics.median(runs[(link, rows, p)])
            med[p] = t
            if p == 0:
                bound = e + b / cap + rtt  # serial: encode, then every part in turn
            else:
                bound = max(e, b / (p * cap)) + rtt + min(part, b) / cap
            summary.append((link, rows, p, t, bound, t / bound, len(runs[(link, rows, p)])))
            cells.append(f"{t:.2f} ({t / bound:.2f})")
        speed = f"{med[0] / med[3]:.2f}x" if 0 in med and 3 in med else "-"
        print(f"| {link} | {rows:,} | {b / 1e6:.1f} | {e:.2f}{ecpu} | " + " | ".join(cells) +
              f" | {speed} |")
    print("| Vertica 24.1 (seed) | 300,000 | | | " +
          " | ".join(f"{VERTICA[p]:.1f}" if p in VERTICA else "" for p in ps) +
          f" | {VERTICA[0] / VERTICA[3]:.2f}x |")
    print()
    print("Cells: median wall seconds (time / bound). P=0's bound is the serial "
          "encode + bytes/cap + RTT.")

    with open(os.path.join(out, "summary.tsv"), "w") as f:
        f.write("link\trows\tP\tseconds\tbound\tratio\truns\n")
        for r in summary:
            f.write("%s\t%d\t%d\t%.3f\t%.3f\t%.3f\t%d\n" % r)

    if shutil.which("gnuplot") is None:
        return
    data = os.path.join(out, "plot.dat")
    with open(data, "w") as f:
        for link, rows in combos:
            f.write(f"# {link} {rows}\n")
            for r in summary:
                if r[0] == link and r[1] == rows:
                    f.write(f"{ps.index(r[2])} {r[3]:.3f} {r[4]:.3f}\n")
            f.write("\n\n")
        f.write("# vertica\n")
        for p in sorted(VERTICA):
            if p in ps:
                f.write(f"{ps.index(p)} {VERTICA[p]}\n")
    plots = []
    for i, (link, rows) in enumerate(combos):
        title = f"{link}, {rows // 1000}K rows"
        plots.append(f"'{data}' index {i} using 1:2 with linespoints lw 2 lc {i + 1} "
                     f"title '{title}'")
        plots.append(f"'{data}' index {i} using 1:3 with lines dt 2 lc {i + 1} "
                     f"title '{title}: bound'")
    plots.append(f"'{data}' index {len(combos)} using 1:2 with linespoints lw 2 lc rgb 'black' "
                 "pt 7 title 'Vertica 24.1, seed (300K rows)'")
    xtics = ", ".join(f'"{p}" {i}' for i, p in enumerate(ps))
    script = f"""
set terminal svg size 900,560 dynamic font 'sans,12'
set output '{os.path.join(out, "seed_replay.svg")}'
set title 'lakedump dump of store_orders_fact to radosgw through faultproxy'
set xlabel '--upload-parallelism P'
set ylabel 'wall seconds (log scale)'
set logscale y
set xtics ({xtics})
set grid
set key outside right
plot {", ".join(plots)}
"""
    subprocess.run(["gnuplot"], input=script.encode(), check=True)


if __name__ == "__main__":
    main()
