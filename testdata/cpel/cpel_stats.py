#!/usr/bin/env python3
"""The statistics of VPP's cpelatency and cpelstate, computed from a CPEL
file's bytes, to check the sql/ library's cpel_latency.sql and
cpel_state.sql. VPP's tools are not packaged for Debian: this script
reads the file by the format's definition (big-endian; sections STRTAB,
EVTDEF, TRACKDEF, EVENTS) and applies the tools' rules as their source
states them (VPP src/tools/perftool/cpelatency.c, cpelstate.c):

  latency (cpelatency): events taken in file order; a start event marks
    its track's start time (a later start replaces it); an end event on a
    track with a start time adds end - start to the track and clears it.
    (With track definitions cpelatency looks the track up by the datum
    string, "pid:N tid:M" in the logs it was written for; here, as it does
    without track definitions, by the event's track.)
  state (cpelstate): events taken in file order; each state event ends
    the interval begun by the previous one, which belongs to the previous
    one's track, and begins a new one on its own track.

  Per defined track with a nonzero mean, skipping names that begin with
  "kernel ": mean, unbiased standard deviation and total in microseconds
  (ticks / (clock / 1e6)) and the count, printed as the tools print them,
  "%-20s %10.3f +- %10.3f%12.3f%8d", sorted by total time, most first.

    python3 cpel_stats.py [-k] latency FILE [START END]
    python3 cpel_stats.py [-k] state FILE [CODE]

  -k keeps the "kernel " tracks (the tools' --kernel-included).
"""
import math
import struct
import sys


def read(path):
    b = open(path, "rb").read()
    ver, _, nsec, _ = struct.unpack_from(">BBHI", b, 0)
    assert ver == 1, "big-endian version 1 only"
    off, strtabs, tracks, events, clock = 8, {}, {}, [], None
    sections = []
    for _ in range(nsec):
        kind, n = struct.unpack_from(">II", b, off)
        sections.append((kind, b[off + 8:off + 8 + n]))
        off += 8 + n
    for kind, d in sections:
        if kind == 1:
            strtabs[d.split(b"\0", 1)[0]] = d
    for kind, d in sections:
        name = d[:64].split(b"\0", 1)[0]
        if kind == 4:
            st = strtabs[name]
            (n,) = struct.unpack_from(">I", d, 64)
            for i in range(n):
                code, fmt = struct.unpack_from(">II", d, 68 + 8 * i)
                if code not in tracks:
                    tracks[code] = st[fmt:].split(b"\0", 1)[0].decode()
        elif kind == 5:
            n, clock = struct.unpack_from(">II", d, 64)
            for i in range(n):
                t0, t1, track, code, datum = struct.unpack_from(">IIIII", d, 72 + 20 * i)
                events.append(((t0 << 32) | t1, track, code))
    return tracks, events, clock


def report(tracks, per, clock, kernel):
    tpu = clock / 1e6
    rows = []
    for code, name in tracks.items():
        v = per.get(code, [])
        total = float(sum(v))
        mean = total / len(v) if v else 0.0
        if mean == 0.0 or (name.startswith("kernel ") and not kernel):
            continue
        var = sum((x - mean) ** 2 for x in v)
        if len(v) > 1:
            var /= len(v) - 1
        rows.append((total, "%-20s %10.3f +- %10.3f%12.3f%8d" % (name, mean / tpu, math.sqrt(var) / tpu, total / tpu, len(v))))
    rows.sort(key=lambda r: -r[0])
    for _, line in rows:
        print(line)


def main():
    args = sys.argv[1:]
    kernel = args[0] == "-k"
    if kernel:
        args = args[1:]
    mode, path = args[0], args[1]
    tracks, events, clock = read(path)
    per = {}
    if mode == "latency":
        start, end = (int(args[2]), int(args[3])) if len(args) > 3 else (2, 1)
        began = {}
        for ts, track, code in events:
            if code == start:
                began[track] = ts
            elif code == end and began.get(track):
                per.setdefault(track, []).append(ts - began.pop(track))
    else:
        state = int(args[2]) if len(args) > 2 else 1
        prev = None
        for ts, track, code in events:
            if code == state:
                if prev is not None:
                    per.setdefault(prev[1], []).append(ts - prev[0])
                prev = (ts, track)
    report(tracks, per, clock, kernel)


if __name__ == "__main__":
    main()
