"""CPEL conformance: every .cpel under peer-traces/cpel against cpeldump.

cpeldump prints one line per event:
    HHH:MM:SS:mmm:uuu <track padded> <event padded> <datum>
with the time relative to the first event in microseconds (ticks divided by
ticks-per-microsecond, truncated), the track and event columns left-aligned
to the widest track/event *format string* (at least 5), each followed by a
space. The lines are rebuilt from tracelite's events, tracks and event_types
tables and compared whole.
"""
import lzma
import os


def cpeldump_lines(db, path):
    tracks = {r[0]: (r[1], r[2]) for r in db.execute(
        "SELECT id, name, args ->> '$.format' FROM tracks(?)", (path,))}
    evfmts = [r[0] for r in db.execute("SELECT format FROM event_types(?)", (path,))]
    wtrack = max([5] + [len(f) for _, f in tracks.values() if f is not None])
    wevent = max([5] + [len(f) for f in evfmts])
    lines = []
    first = None
    for ts, track, name, text, value in db.execute(
            "SELECT ts, track, name, text, value FROM events(?)", (path,)):
        us = ts // 1000
        if first is None:
            first = us
        d = us - first
        h, d = divmod(d, 3600 * 1000000)
        m, d = divmod(d, 60 * 1000000)
        s, d = divmod(d, 1000000)
        ms, u = divmod(d, 1000)
        tname = tracks[track][0] if track in tracks else str(track)
        lines.append("%03d:%02d:%02d:%03d:%03d %-*s %-*s %s" % (
            h, m, s, ms, u, wtrack, tname, wevent, name, text if text is not None else ""))
    return lines


def run(make_db, peer):
    root = os.path.join(peer, "cpel")
    for dirpath, _, files in sorted(os.walk(root)):
        for f in sorted(files):
            if not f.endswith(".cpel"):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, peer)
            ref = None
            for cand in (path + ".cpeldump.txt", path + ".cpeldump.txt.xz"):
                if os.path.exists(cand):
                    opener = lzma.open if cand.endswith(".xz") else open
                    with opener(cand, "rt") as fh:
                        ref = fh.read().splitlines()
                    break
            if ref is None:
                yield rel, False, "no cpeldump output beside it"
                continue
            db = make_db()
            try:
                got = cpeldump_lines(db, path)
            except Exception as e:  # an SQL error is a failure, reported
                yield rel, False, "error: %s" % e
                continue
            per_track = db.execute(
                "SELECT count(*) FROM tracks(?) WHERE events > 0", (path,)).fetchone()[0]
            if got == ref:
                yield rel, True, "%d events, %d tracks, every line equal" % (len(got), per_track)
            else:
                n = next((i for i, (a, b) in enumerate(zip(got, ref)) if a != b),
                         min(len(got), len(ref)))
                yield rel, False, "line %d differs (rows %d vs %d): ours %r, cpeldump %r" % (
                    n + 1, len(got), len(ref), got[n] if n < len(got) else None,
                    ref[n] if n < len(ref) else None)
