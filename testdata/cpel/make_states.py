#!/usr/bin/env python3
"""Write states.cpel: a CPEL file for the state queries of sql/ (latency
between a start and an end event per track, like VPP's cpelatency, and
state residency, like cpelstate), in the layout VPP's c2cpel writes
(big-endian, version 1, clock field in ticks per second: 1e9).

Four tracks ("worker 0".."worker 2", and "kernel idle" which cpelatency
and cpelstate leave out of their statistics); event codes 1 "run" (the
track gets the CPU: cpelstate's default state event, cpelatency's default
end event), 2 "ready" (cpelatency's default start event) and 3 "tick".
Deterministic (a fixed linear congruential sequence), with the cases the
tools' rules decide: a run before any ready, two readies before a run, an
event on a track without a definition (track 9).

    python3 testdata/cpel/make_states.py testdata/cpel/states.cpel
"""
import struct
import sys

strings = ["FileStrtab"]


def intern(s):
    off = sum(len(x) + 1 for x in strings)
    strings.append(s)
    return off


tracks = {0: intern("worker 0"), 1: intern("worker 1"), 2: intern("worker 2"), 3: intern("kernel idle")}
events = {1: (intern("run"), intern("%d")), 2: (intern("ready"), intern("%d")), 3: (intern("tick"), intern("%d"))}

seed = 12345


def rnd(n):
    global seed
    seed = (seed * 1103515245 + 12345) % 2**31
    return (seed >> 16) % n


ev = []
t = 5_000_000_000
ev.append((t, 1, 1, 0))            # run before any ready: no latency record
t += 700
ev.append((t, 2, 2, 0))            # two readies: the second one counts
t += 300
for i in range(400):
    track = rnd(4)
    code = (1, 2, 2, 3)[rnd(4)]
    ev.append((t, track, code, i))
    t += 50 + rnd(3000)
ev.append((t, 9, 1, 0))            # a track without a definition
t += 1000
ev.append((t, 0, 1, 0))

strtab = b"".join(s.encode() + b"\0" for s in strings)
strtab += b"\0" * (-len(strtab) % 4)


def name64(s):
    return s.encode().ljust(64, b"\0")


def section(kind, data):
    return struct.pack(">II", kind, len(data)) + data


out = struct.pack(">BBHI", 1, 0, 4, 1700000000)
out += section(1, strtab)
out += section(3, name64("FileStrtab") + struct.pack(">I", len(events)) +
               b"".join(struct.pack(">III", c, e, d) for c, (e, d) in sorted(events.items())))
out += section(4, name64("FileStrtab") + struct.pack(">I", len(tracks)) +
               b"".join(struct.pack(">II", c, o) for c, o in sorted(tracks.items())))
out += section(5, name64("FileStrtab") + struct.pack(">II", len(ev), 1_000_000_000) +
               b"".join(struct.pack(">IIIII", ts >> 32, ts & 0xFFFFFFFF, tr, c, d)
                        for ts, tr, c, d in ev))
with open(sys.argv[1] if len(sys.argv) > 1 else "states.cpel", "wb") as f:
    f.write(out)
