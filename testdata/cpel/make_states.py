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
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_demo import cpel_bytes  # noqa: E402  (the same writer)

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

with open(sys.argv[1] if len(sys.argv) > 1 else "states.cpel", "wb") as f:
    f.write(cpel_bytes(strings, events, tracks, ev))
