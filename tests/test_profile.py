#!/usr/bin/python3
"""sql/chrome-profile.sql against the reference tools: the export is run
through the sqlite3 shell as a user runs it, then each profile is replayed
as speedscope 1.25's Chrome importer replays it (importFromChromeTimeline,
importFromChromeCPUProfile and its CallTreeProfileBuilder: the same IEEE
double arithmetic as JavaScript), giving the calls speedscope draws: name,
depth, start and end. Those are compared with

  - XRay (testdata/xray/fdr*.xray): `llvm-xray stack -all-stacks
    -stack-format=flame`'s calls and nanoseconds per stack, exactly, and
    `llvm-xray convert -output-format=trace_event`'s begin and end of every
    call (to its float rounding, 0.5 us);
  - CTF (testdata/ctf/spans, cyg-profile): babeltrace2's events paired per
    thread as the trace-event viewers pair "B" and "E" (an end closes the
    newest open span, an end with none open is left out): every span's
    name, depth, start from the trace's first span and duration to the
    nanosecond; spans open at the end of the trace end at the profile's end.

    /usr/bin/python3 tests/test_profile.py --so build/tracelite.so
"""
import argparse
import decimal
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TD = os.path.join(ROOT, "testdata")
failures = []


def fail(what, msg):
    failures.append("%s: %s" % (what, msg))


def export(so, trace, binary=None):
    args = ["sqlite3", "-batch", "-cmd", ".load " + so,
            "-cmd", ".parameter set @trace '%s'" % trace]
    if binary:
        args += ["-cmd", ".parameter set @binary '%s'" % binary]
    args += [":memory:", ".read " + os.path.join(ROOT, "sql", "chrome-profile.sql")]
    out = subprocess.run(args, check=True, capture_output=True, text=True)
    if out.stderr:
        raise RuntimeError(out.stderr)
    return out.stdout


def read_profiles(what, text):
    """The export's profiles as speedscope's importFromChromeTimeline
    gathers them: per id its nodes, samples, deltas (doubles, as JSON.parse
    gives them) and endTime; checks what Chrome's format and speedscope
    need of the events."""
    events = json.loads(text, parse_float=decimal.Decimal)
    first = events[0]
    if not all(k in first for k in ("pid", "tid", "ph", "cat")):
        fail(what, "the first event lacks pid, tid, ph or cat: %r" % first)
    names = {}
    prof = {}
    order = sorted(range(len(events)), key=lambda i: events[i]["ts"])  # stable, as Array.sort
    for i in order:
        e = events[i]
        key = "%s:%s" % (e["pid"], e["tid"])
        if e["name"] == "thread_name":
            names[key] = e["args"]["name"]
        elif e["name"] == "Profile":
            prof[e["id"]] = {"key": key, "tid": int(e["tid"]), "origin": e["ts"],
                             "start": float(e["args"]["data"]["startTime"]), "end": 0.0,
                             "nodes": [], "samples": [], "deltas": []}
        elif e["name"] == "ProfileChunk":
            p = prof.get(e["id"])
            if p is None:
                fail(what, "a chunk before its Profile: %s" % e["id"])
                continue
            d = e["args"]["data"]
            cp = d.get("cpuProfile", {})
            p["nodes"] += cp.get("nodes", [])
            p["samples"] += cp.get("samples", [])
            p["deltas"] += [float(x) for x in d.get("timeDeltas", [])]
            if "endTime" in d:
                p["end"] = float(d["endTime"])
    for pid, p in prof.items():
        seen = set()
        for n in p["nodes"]:
            if n["id"] in seen or ("parent" in n and n["parent"] not in seen):
                fail(what, "%s: node %s given twice or before its parent" % (pid, n["id"]))
            seen.add(n["id"])
        if len(p["samples"]) != len(p["deltas"]):
            fail(what, "%s: %d samples, %d deltas" % (pid, len(p["samples"]), len(p["deltas"])))
        p["name"] = names.get(p["key"])
    return prof


def replay(what, p):
    """importFromChromeCPUProfile on one profile, then the calls its
    CallTreeProfileBuilder draws (a frame entered and left at one time has
    no width and is not drawn): [(stack of names, start, end)], times in
    microseconds as doubles."""
    nodes = {n["id"]: n for n in p["nodes"]}
    samples, deltas = p["samples"], p["deltas"]
    ids, times = [], []
    elapsed = deltas[0] if deltas else 0.0
    last_valid = [elapsed]

    def push(node_id):      # a time never before the last one pushed
        ids.append(node_id)
        last_valid[0] = max(last_valid[0], elapsed)
        times.append(last_valid[0])

    last_id = None
    for i, node_id in enumerate(samples):
        if node_id != last_id:
            push(node_id)
        if i == len(samples) - 1:
            if last_id is not None:
                push(last_id)
        else:
            elapsed += deltas[i + 1]
            last_id = node_id

    def parent(n):
        return nodes.get(n["parent"]) if "parent" in n else None

    def ignored(n):
        return n["callFrame"]["functionName"] in ("(root)", "(idle)")

    calls = []
    stack = []          # [(node, entered at)]
    last_value = 0.0

    def leave(value):
        nonlocal last_value
        if value < last_value:
            fail(what, "a frame left at %r after %r" % (value, last_value))
        n, t0 = stack.pop()
        if value > t0:
            calls.append((tuple(x["callFrame"]["functionName"] for x, _ in stack)
                          + (n["callFrame"]["functionName"],), t0, value))
        last_value = value

    for value, node_id in zip(times, ids):
        node = nodes.get(node_id)
        if node is None:
            continue
        top = node
        on = [x for x, _ in stack]
        while top is not None and not any(top is x for x in on):
            top = parent(top)
        while stack and stack[-1][0] is not top:
            leave(value)
        opening = []
        n = node
        while n is not None and n is not top and not ignored(n):
            opening.append(n)
            n = parent(n)
        for n in reversed(opening):
            if value < last_value:
                fail(what, "a frame entered at %r after %r" % (value, last_value))
            stack.append((n, value))
            last_value = value
    while stack:
        leave(times[-1])
    return calls


def ns(us):
    return round(us * 1000)


def check_xray(so, name, binary):
    what = "xray/" + name
    prof = read_profiles(what, export(so, os.path.join(TD, "xray", name + ".xray"),
                                      os.path.join(TD, "xray", binary)))
    got = {}            # "thread_T;a;b;" -> [count, ns]
    mine = []
    for p in prof.values():
        for stack, t0, t1 in replay(what, p):
            k = "thread_%d;%s;" % (p["tid"], ";".join(stack))
            c = got.setdefault(k, [0, 0])
            c[0] += 1
            c[1] += ns(t1) - ns(t0)
            mine.append((p["tid"], stack[-1], len(stack) - 1,
                         decimal.Decimal(p["origin"]) + decimal.Decimal(ns(t0)) / 1000,
                         decimal.Decimal(p["origin"]) + decimal.Decimal(ns(t1)) / 1000))
    for b, kind in enumerate(("count", "time")):
        want = {}
        with open(os.path.join(TD, "xray", "%s.flame-%s.txt" % (name, kind))) as f:
            for line in f:
                k, v = line.rstrip("\n").rsplit(" ", 1)
                want[k] = int(v)
        if set(want) != set(got):
            fail(what, "stacks differ from llvm-xray stack's: %s" % sorted(set(want) ^ set(got))[:4])
        for k in want:
            if k in got and got[k][b] != want[k]:
                fail(what, "%s: %d %s, llvm-xray stack %d" % (k, got[k][b], kind, want[k]))
    # every call's begin and end against llvm-xray convert's trace events
    with open(os.path.join(TD, "xray", name + ".trace_event.json")) as f:
        ev = json.load(f)["traceEvents"]
    ref, open_ = [], {}
    for i, e in enumerate(ev):
        tid = int(e["tid"])
        st = open_.setdefault(tid, [])
        if e["ph"] == "B":
            st.append((e["name"], decimal.Decimal(e["ts"]), i))
        elif e["ph"] == "E":
            n, t0, i0 = st.pop()
            ref.append((tid, n, len(st), t0, decimal.Decimal(e["ts"]), i0))
    # llvm-xray's times are rounded (0.25 us): its calls in the order it
    # begins them, each thread's in time order
    mine.sort(key=lambda c: (c[0], c[3], c[2]))
    ref.sort(key=lambda c: (c[0], c[5]))
    if len(mine) != len(ref):
        fail(what, "%d calls drawn, llvm-xray convert has %d" % (len(mine), len(ref)))
    for g, w in zip(mine, ref):
        if g[:3] != w[:3] or abs(g[3] - w[3]) > decimal.Decimal("0.5") \
           or abs(g[4] - w[4]) > decimal.Decimal("0.5"):
            fail(what, "call %r, llvm-xray convert %r" % (g, w))
            break
    return len(mine)


def bt2_spans(path):
    """babeltrace2's events paired per thread: [(tid, name, depth, start,
    end or None)], times in ns."""
    spans, stacks = [], {}
    rx = re.compile(r"\[(\d+)\.(\d+)\] (\S+): .*?vtid = (\d+)")
    with open(path) as f:
        for line in f:
            m = rx.match(line)
            t = int(m.group(1)) * 1000000000 + int(m.group(2))
            name, tid = m.group(3), int(m.group(4))
            st = stacks.setdefault(tid, [])
            if name.startswith("syscall_entry_") or name.endswith(("_entry", "_begin")):
                if name.endswith(":func_entry"):
                    fn = "%#x" % int(re.search(r"addr = (0x[0-9A-Fa-f]+|\d+)", line).group(1), 0)
                elif name.startswith("syscall_entry_"):
                    fn = name[len("syscall_entry_"):]
                else:
                    fn = name[:-6]
                spans.append([tid, fn, len(st), t, None])
                st.append(len(spans) - 1)
            elif name.startswith("syscall_exit_") or name.endswith(("_exit", "_end")):
                if st:
                    spans[st.pop()][4] = t
    return spans


def check_ctf(so, name):
    what = "ctf/" + name
    prof = read_profiles(what, export(so, os.path.join(TD, "ctf", name, "trace")))
    got = []
    for p in prof.values():
        end = ns(p["end"] - p["start"])
        for stack, t0, t1 in replay(what, p):
            got.append([p["tid"], stack[-1], len(stack) - 1, ns(t0),
                        None if ns(t1) == end else ns(t1)])
    want = bt2_spans(os.path.join(TD, "ctf", name, "trace.bt2.txt"))
    if not any(w[4] is None for w in want):
        fail(what, "the trace has no span open at its end")
    g0, w0 = min(g[3] for g in got), min(w[3] for w in want)
    key = lambda s: (s[0], s[3], s[2])
    got = sorted(([g[0], g[1], g[2], g[3] - g0, None if g[4] is None else g[4] - g[3]] for g in got), key=key)
    want = sorted(([w[0], w[1], w[2], w[3] - w0, None if w[4] is None else w[4] - w[3]] for w in want), key=key)
    if len(got) != len(want):
        fail(what, "%d spans drawn, babeltrace2's events pair into %d" % (len(got), len(want)))
    for g, w in zip(got, want):
        if g[0] != w[0] or g[1].lower() != w[1].lower() or g[2:] != w[2:]:
            fail(what, "span (tid, name, depth, start, duration) %r, babeltrace2 %r" % (g, w))
            break
    return len(got)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--so", default="build/tracelite.so")
    so = os.path.abspath(ap.parse_args().so)
    so = so[:-3] if so.endswith(".so") else so
    if not shutil.which("sqlite3"):
        print("test_profile: SKIPPED: the sqlite3 shell is not installed")
        return 0
    n = 0
    for name, binary in (("fdr", "app.map.elf"), ("fdr-O2", "app-O2.map.elf")):
        n += check_xray(so, name, binary)
    for name in ("spans", "cyg-profile"):
        n += check_ctf(so, name)
    for f in failures:
        print("FAIL", f)
    if failures:
        return 1
    print("test_profile: ok (%d calls and spans replayed as speedscope)" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
