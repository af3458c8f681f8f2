#!/usr/bin/env python3
"""Write demo.cpel: a small CPEL file in the layout VPP's c2cpel writes.

CPEL tools are not packaged for Debian, so the bundled sample is written
here to the format's definition (big-endian, version 1; string table
"FileStrtab"; event and track definitions; one event section whose clock
field is ticks per second, 1e9, as VPP's tools write it). Deterministic:
running it again gives the same bytes.

    python3 testdata/cpel/make_demo.py testdata/cpel/demo.cpel
"""
import struct
import sys

strings = ["FileStrtab"]


def intern(s):
    off = sum(len(x) + 1 for x in strings)
    strings.append(s)
    return off


tracks = {0: intern("main thread"), 1: intern("workers 1"), 2: intern("workers 2")}
events = {
    1: (intern("dispatch"), intern("%s")),
    2: (intern("rx"), intern("%d packets")),
    3: (intern("tx"), intern("0x%08x")),
}
node_names = [intern(n) for n in ("ip4-input", "ip4-lookup", "ethernet-input", "interface-output")]

ev = []
t = 1_000_000_000            # 1 s after the clock's origin, in ns ticks
for i in range(300):
    track = i % 3
    code = (i % 3) + 1
    if code == 1:
        datum = node_names[i % len(node_names)]
    elif code == 2:
        datum = (i * 7) % 256
    else:
        datum = 0xC0DE0000 + i
    ev.append((t, track, code, datum))
    t += 1000 + (i * 37) % 5000


def name64(s):
    return s.encode().ljust(64, b"\0")


def section(kind, data):
    return struct.pack(">II", kind, len(data)) + data


def cpel_bytes(strings, events, tracks, ev):
    """The file: STRTAB of STRINGS, EVTDEF of EVENTS {code: (format
    offset, datum format offset)}, TRACKDEF of TRACKS {code: format
    offset}, one EVENTS section of EV [(ns, track, code, datum)]."""
    strtab = b"".join(s.encode() + b"\0" for s in strings)
    strtab += b"\0" * (-len(strtab) % 4)
    out = struct.pack(">BBHI", 1, 0, 4, 1700000000)
    out += section(1, strtab)
    out += section(3, name64("FileStrtab") + struct.pack(">I", len(events)) +
                   b"".join(struct.pack(">III", c, e, d) for c, (e, d) in sorted(events.items())))
    out += section(4, name64("FileStrtab") + struct.pack(">I", len(tracks)) +
                   b"".join(struct.pack(">II", c, o) for c, o in sorted(tracks.items())))
    out += section(5, name64("FileStrtab") + struct.pack(">II", len(ev), 1_000_000_000) +
                   b"".join(struct.pack(">IIIII", ts >> 32, ts & 0xFFFFFFFF, tr, c, d)
                            for ts, tr, c, d in ev))
    return out


if __name__ == "__main__":
    with open(sys.argv[1] if len(sys.argv) > 1 else "demo.cpel", "wb") as f:
        f.write(cpel_bytes(strings, events, tracks, ev))
