#!/usr/bin/env python3
"""Plots bench/scaleout.sh's scaling curve as an SVG (no plotting library needed).

usage: bench/scaleout.sh build 3 | tee out.txt; bench/scaleout_plot.py out.txt docs/scale-out.svg

Reads the "workers N: ... (median S s)" lines, and draws N workers' throughput relative to one
worker's (median seconds of 1 worker / median seconds of N) against the ideal N and the
issue's bar 0.85 x N.
"""
import re
import sys


def main():
    text = open(sys.argv[1]).read()
    med = {int(n): float(s) for n, s in re.findall(r"^workers (\d+): .*\(median ([\d.]+) s\)", text, re.M)}
    if 1 not in med:
        sys.exit("scaleout_plot.py: no 'workers 1' median in " + sys.argv[1])
    ns = sorted(med)
    speed = {n: med[1] / med[n] for n in ns}
    top = max(ns)
    w, h, left, bottom, pad = 480, 320, 50, 40, 20
    ymax = max(top, max(speed.values())) * 1.1

    def x(n):
        return left + (n - 1) / max(top - 1, 1) * (w - left - pad)

    def y(v):
        return h - bottom - v / ymax * (h - bottom - pad)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<line x1="{left}" y1="{y(0)}" x2="{w - pad}" y2="{y(0)}" stroke="black"/>',
           f'<line x1="{left}" y1="{y(0)}" x2="{left}" y2="{pad}" stroke="black"/>']
    for n in ns:
        out.append(f'<text x="{x(n)}" y="{y(0) + 15}" text-anchor="middle">{n}</text>')
    for v in range(0, int(ymax) + 1):
        out.append(f'<text x="{left - 6}" y="{y(v) + 4}" text-anchor="end">{v}x</text>')
    out.append(f'<text x="{(left + w - pad) / 2}" y="{h - 5}" text-anchor="middle">workers</text>')

    def poly(points, style):
        pts = " ".join(f"{x(n):.1f},{y(v):.1f}" for n, v in points)
        return f'<polyline points="{pts}" fill="none" {style}/>'

    out.append(poly([(n, n) for n in ns], 'stroke="gray" stroke-dasharray="4,3"'))
    out.append(poly([(n, 0.85 * n) for n in ns], 'stroke="orange" stroke-dasharray="2,2"'))
    out.append(poly([(n, speed[n]) for n in ns], 'stroke="steelblue" stroke-width="2"'))
    for n in ns:
        out.append(f'<circle cx="{x(n):.1f}" cy="{y(speed[n]):.1f}" r="3" fill="steelblue"/>')
        out.append(f'<text x="{x(n) + 5:.1f}" y="{y(speed[n]) - 6:.1f}">{speed[n]:.2f}x ({med[n]:.1f} s)</text>')
    out.append(f'<text x="{left + 8}" y="{pad + 10}" fill="gray">ideal: N x one worker</text>')
    out.append(f'<text x="{left + 8}" y="{pad + 24}" fill="orange">bar: 0.85 x N</text>')
    out.append(f'<text x="{left + 8}" y="{pad + 38}" fill="steelblue">measured throughput</text>')
    out.append("</svg>")
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
