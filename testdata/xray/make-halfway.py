#!/usr/bin/python3
"""Write halfway.xray: a basic-mode (version 3) XRay log, cycle frequency
1 GHz (cycles are ns), whose calls last durations that llvm-xray account
prints half-way between two microseconds (8500 ns, 9500 ns, ...), so that
its rounding (C's printf of the double) is tested. The reference is
`llvm-xray account halfway.xray` (halfway.account.txt).

    cd testdata/xray && /usr/bin/python3 make-halfway.py
"""
import struct
import subprocess

# function id -> durations (ns) of its calls, one after the other
CALLS = {
    1: [8500],                  # every column 8500 ns
    2: [9500],
    3: [10500],
    4: [1500, 7000],            # sum 8500
    5: [500, 2500, 3500, 4500, 5500, 6500, 7500, 8500, 9500, 123500],
    6: [232530429687500],       # a binary fraction: exact half, to even
}
hdr = struct.pack("<HHIQ16x", 3, 0, 3, 1000000000)   # version 3, basic, constant+nonstop TSC
recs = []
tsc = 1000
for fid, durs in CALLS.items():
    for d in durs:
        recs.append(struct.pack("<HBBiQII8x", 0, 0, 0, fid, tsc, 100, 100))
        recs.append(struct.pack("<HBBiQII8x", 0, 0, 1, fid, tsc + d, 100, 100))
        tsc += d + 1000
with open("halfway.xray", "wb") as f:
    f.write(hdr + b"".join(recs))
with open("halfway.account.txt", "w") as f:
    subprocess.run(["llvm-xray", "account", "halfway.xray"], stdout=f, check=True)
