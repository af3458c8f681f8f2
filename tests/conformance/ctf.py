"""CTF conformance: the peer CTF traces against babeltrace2 and the MANIFESTs.

- babeltrace, barectf, Trace Compass (CTF 1.8): every trace babeltrace2
  reads is read by tracelite with the same events: per timestamp the same
  multiset of (name, text) lines, `text` being what `babeltrace2
  --clock-seconds --no-delta` prints after "<event name>: ", and `ts` the
  [seconds.nanoseconds] it prints. babeltrace2 runs here, at conformance
  time; without it these traces are skipped.
- babeltrace's fail traces must give an SQL error; where babeltrace2 prints
  events before failing, the same events must come first.
- Traces babeltrace2 2.0.4 cannot read (Trace Compass's MANIFEST says
  which): the event count the MANIFEST gives (Trace Compass counts the
  discarded events too, so events + discarded must equal it).
- yactfr's CTF 1 cases: each `metadata` + `stream` pair (the expect.txt
  beside them is not a stream) read from a temporary directory; pass cases
  give the events of expect.txt (event class names, and every integer,
  float and string of the contexts and payload in order), fail cases an
  error after the events expect.txt lists before its error.
- CTF 2 traces are skipped: tracelite reads CTF 1.8 only so far.
"""
import collections
import json
import os
import re
import shutil
import subprocess
import tempfile

CTF = "ctf"


def is_ctf2(dirpath):
    with open(os.path.join(dirpath, "metadata"), "rb") as f:
        return f.read(1) == b"\x1e"


def trace_dirs(root):
    """Directories holding a metadata file, not below another such one."""
    out = []
    for dirpath, dirnames, files in os.walk(root):
        dirnames.sort()
        if "metadata" in files:
            out.append(dirpath)
            dirnames[:] = []
    return sorted(out)


def ours(db, path):
    return [(r[0], r[1], r[2] if r[2] is not None else "") for r in db.execute(
        "SELECT ts, name, text FROM events(?)", (path,))]


def bt2(paths, names):
    """babeltrace2's events as (ts, name, text); the return code; stderr."""
    proc = subprocess.run(["babeltrace2", "--clock-seconds", "--no-delta"] + list(paths),
                          capture_output=True)
    out = proc.stdout.decode("utf-8", "surrogateescape")
    rows = []
    by_len = sorted(names, key=len, reverse=True)
    for line in out.splitlines():
        ts = None
        m = re.match(r"\[(-?\d+)\.(\d{9})\] ", line)
        if m:
            sec, ns = int(m.group(1)), int(m.group(2))
            ts = sec * 10**9 + ns if sec >= 0 else sec * 10**9 - ns
            line = line[m.end():]
        # The event name follows the optional trace/loglevel fields: the
        # earliest known name that is followed by ": ".
        best = None
        for n in by_len:
            pos = 0 if line.startswith(n + ": ") else line.find(" " + n + ": ")
            if pos < 0:
                continue
            if pos > 0:
                pos += 1
            if best is None or pos < best[0]:
                best = (pos, n)
        if best is None:
            rows.append((ts, "?", line))
            continue
        rows.append((ts, best[1], line[best[0] + len(best[1]) + 2:]))
    return rows, proc.returncode, proc.stderr.decode("utf-8", "replace")


STALE = re.compile(r'= ""')


def compare(got, ref):
    """None when equal per timestamp; else a description of the first difference.
    babeltrace2 2.0.4 prints a stale value for an empty string field; a line
    of ours with `= ""` where babeltrace2 has a string is counted, not failed."""
    gg = collections.defaultdict(collections.Counter)
    rg = collections.defaultdict(collections.Counter)
    for ts, n, t in got:
        gg[ts][(n, t)] += 1
    for ts, n, t in ref:
        rg[ts][(n, t)] += 1
    stale = 0
    for ts in sorted(set(gg) | set(rg), key=lambda x: (x is not None, x or 0)):
        a, b = gg[ts], rg[ts]
        if a == b:
            continue
        extra, missing = list((a - b).elements()), list((b - a).elements())
        if len(extra) == len(missing):
            ok = True
            for (n1, t1), (n2, t2) in zip(sorted(extra), sorted(missing)):
                pat = "^" + re.escape(t1).replace(re.escape('= ""'), '= "(?:[^"\\\\]|\\\\.)*"') + "$"
                if n1 != n2 or '= ""' not in t1 or not re.match(pat, t2):
                    ok = False
                    break
            if ok:
                stale += len(extra)
                continue
        return "at ts %s: ours %r, babeltrace2 %r" % (ts, extra[:1], missing[:1]), stale
    return None, stale


def check_with_bt2(make_db, rel, paths, dbpath):
    db = make_db()
    try:
        names = [r[0] for r in db.execute("SELECT DISTINCT name FROM event_types(?)", (dbpath,))]
    except Exception as e:
        names = []
        our_err = str(e)
    else:
        our_err = None
    ref, rc, err = bt2(paths, names)
    if rc != 0:
        return None, ref, err
    if our_err:
        return (rel, False, "error: %s" % our_err), ref, err
    try:
        got = ours(db, dbpath)
    except Exception as e:
        return (rel, False, "error: %s" % e), ref, err
    diff, stale = compare(got, ref)
    if diff:
        return (rel, False, "%d events vs babeltrace2's %d; %s" % (len(got), len(ref), diff)), ref, err
    note = "; %d empty strings where babeltrace2 repeats an earlier value" % stale if stale else ""
    ncpu = len({r[0] for r in db.execute("SELECT cpu FROM events(?)", (dbpath,))})
    return (rel, True, "%d events (%d cpus) equal babeltrace2's lines%s" % (len(got), ncpu, note)), ref, err


def rows_then_error(db, sql, path, nbefore):
    """The first nbefore rows (asked for with LIMIT, so the error after them
    is not reached), and the error the whole query gives (None if none).
    Python's sqlite3 steps one row ahead, so a plain loop would see the
    error one row early."""
    rows = []
    try:
        rows = db.execute("SELECT * FROM (%s) LIMIT ?" % sql, (path, nbefore)).fetchall()
    except Exception as e:
        return rows, str(e)
    try:
        db.execute("SELECT count(*) FROM (%s)" % sql, (path,)).fetchall()
    except Exception as e:
        return rows, str(e)
    return rows, None


def expect_error(make_db, rel, path, nbefore=0):
    db = make_db()
    rows, err = rows_then_error(db, "SELECT ts, name, text FROM events(?)", path, nbefore)
    if err is None:
        n = db.execute("SELECT count(*) FROM events(?)", (path,)).fetchone()[0]
        return rel, False, "read %d events without an error; babeltrace2 rejects this trace" % n
    if len(rows) != nbefore:
        return rel, False, "error after %d events, expected %d: %s" % (len(rows), nbefore, err)
    return rel, True, "%d events then an error, as babeltrace2: %s" % (len(rows), err[:120])


def manifest_counts(path):
    """Trace Compass MANIFEST table: trace name -> the expected event count."""
    out = {}
    with open(path) as f:
        for line in f:
            cells = [c.strip() for c in line.split("|")]
            if len(cells) > 4 and re.match(r"^\d+", cells[3]):
                out[cells[1]] = int(re.match(r"^(\d+)", cells[3]).group(1))
    return out


def run_babeltrace(make_db, peer, have_bt2):
    root = os.path.join(peer, CTF, "babeltrace", "ctf-traces")
    for d in trace_dirs(root):
        rel = os.path.relpath(d, peer)
        sub = os.path.relpath(d, root).split(os.sep)
        if sub[0] == "deterministic-ordering":
            continue
        if sub[0] == "fail":
            name = sub[1]
            if name == "invalid-packet-size":
                # babeltrace2 refuses it; its last packet's content is whole,
                # only the padding after it is missing from the file.
                db = make_db()
                top = os.path.join(root, "fail", name)
                n = db.execute("SELECT count(*) FROM events(?)", (top,)).fetchone()[0]
                w = [r[0] for r in db.execute("SELECT message FROM trace_warnings(?)", (top,))]
                ok = n > 0 and any("file ends" in x for x in w)
                yield rel, ok, ("babeltrace2 refuses it; tracelite reads its %d complete events "
                                "and warns: %s" % (n, w[0] if w else "(no warning)"))
                continue
            if name == "valid-events-then-invalid-events":
                top = os.path.join(root, "fail", name)
                if have_bt2:
                    ref, _, _ = bt2([top], ["event"])
                    yield expect_error(make_db, rel, top, len(ref))
                else:
                    yield expect_error(make_db, rel, top, 2)
                continue
            yield expect_error(make_db, rel, os.path.join(root, "fail", name))
            continue
        if not have_bt2:
            yield rel, None, "babeltrace2 is not installed"
            continue
        res, _, err = check_with_bt2(make_db, rel, [d], d)
        if res is not None:
            yield res
            continue
        # babeltrace2 2.0.4 fails here; babeltrace's own test then holds the
        # expected output (its details format), which we compare by count.
        exp = os.path.join(peer, CTF, "babeltrace", "expect", "plugins", "src.ctf.fs", "succeed",
                           "trace-%s.expect" % sub[-1])
        if os.path.exists(exp):
            want = sum(1 for line in open(exp) if line.startswith("Event ") or " Event `" in line)
            n = make_db().execute("SELECT count(*) FROM events(?)", (d,)).fetchone()[0]
            yield rel, n == want, ("babeltrace2 2.0.4 fails (%s); babeltrace's expected output has %d "
                                   "events, we read %d" % (err.strip().splitlines()[-1][-60:], want, n))
        else:
            yield rel, False, "babeltrace2 failed here: %s" % err.strip().splitlines()[-1:]
    # Two traces read together (babeltrace's deterministic-ordering test).
    det = os.path.join(root, "deterministic-ordering")
    if os.path.isdir(det):
        for pair, ok_expected in ((("b-not-corrupted", "c-corrupted"), True),
                                  (("a-corrupted", "b-not-corrupted"), False)):
            rel = os.path.relpath(det, peer) + "/" + "+".join(pair)
            tmp = tempfile.mkdtemp(prefix="tl-ctf-")
            try:
                for p in pair:
                    os.symlink(os.path.abspath(os.path.join(det, p)), os.path.join(tmp, p))
                if not ok_expected:
                    yield expect_error(make_db, rel, tmp, 0)
                elif have_bt2:
                    res, _, err = check_with_bt2(make_db, rel, [os.path.join(det, p) for p in pair], tmp)
                    yield res if res else (rel, False, "babeltrace2 failed: %s" % err[-200:])
            finally:
                shutil.rmtree(tmp)


TWIN_SQL = ("SELECT ts, cpu, name, args, text FROM events(?) ORDER BY ts, cpu, name, args")


def ctf2_twin(make_db, peer, rel, d, root):
    """A CTF 2 trace made from a CTF 1.8 one (Trace Compass's CTF2-7.0-NAME
    from babeltrace's succeed/NAME): the same rows, value for value. The
    one without a twin (CTF2-vl-ints, yactfr's pass-vl-ints) must give
    expect.txt's values."""
    name = os.path.basename(d)
    db = make_db()
    try:
        got = db.execute(TWIN_SQL, (d,)).fetchall()
    except Exception as e:
        return rel, False, "error: %s" % e
    if name.startswith("CTF2-7.0-"):
        twin = os.path.join(peer, CTF, "babeltrace", "ctf-traces", "succeed", name[len("CTF2-7.0-"):])
        if not os.path.isdir(twin):
            return rel, None, "no CTF 1.8 twin in the peer traces"
        want = db.execute(TWIN_SQL, (twin,)).fetchall()
        same_data = all(
            os.path.exists(os.path.join(twin, f)) and
            open(os.path.join(d, f), "rb").read() == open(os.path.join(twin, f), "rb").read()
            for f in os.listdir(d) if f != "metadata" and os.path.isfile(os.path.join(d, f)))
        if not same_data:
            # the data stream files differ (debug-info's conversion changed a
            # path string): time, CPU and event names must still agree
            got = [r[:3] for r in got]
            want = [r[:3] for r in want]
        et_sql = "SELECT name, args ->> '$.loglevel' FROM event_types(?) ORDER BY 1, 2"
        if db.execute(et_sql, (d,)).fetchall() != db.execute(et_sql, (twin,)).fetchall():
            return rel, False, "event classes (names, log levels) differ from the CTF 1.8 twin's"
        if got != want:
            bad = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
            return rel, False, "%d rows, the CTF 1.8 twin %d; row %d: %r vs %r" % (
                len(got), len(want), bad, got[bad] if bad < len(got) else None,
                want[bad] if bad < len(want) else None)
        return rel, True, "%d rows equal the CTF 1.8 twin's (%s)" % (
            len(got), "ts, cpu, name, args, text" if same_data else "ts, cpu, name: the data files differ")
    exp_dir = os.path.join(peer, CTF, "yactfr", "ctf-2", "pass-" + name[len("CTF2-"):])
    if os.path.exists(os.path.join(exp_dir, "expect.txt")):
        want, _ = yactfr_expect(os.path.join(exp_dir, "expect.txt"), name)
        exp = [(e["name"], e[5] + e[4] + e[3]) for e in want]
        ours = []
        for row in got:
            vals = []
            flatten(json.loads(row[3]), vals)
            ours.append((row[2], vals))
        ok = len(ours) == len(exp) and all(same_event(g, e) for g, e in zip(ours, exp))
        return rel, ok, "%d events, values %s yactfr's expect.txt" % (len(ours), "equal" if ok else "differ from")
    return rel, None, "no reference for this CTF 2 trace"


def run_simple(make_db, peer, origin, have_bt2):
    root = os.path.join(peer, CTF, origin)
    if not os.path.isdir(root):
        return
    counts = {}
    if os.path.exists(os.path.join(root, "MANIFEST.md")):
        counts = manifest_counts(os.path.join(root, "MANIFEST.md"))
    for d in trace_dirs(root):
        rel = os.path.relpath(d, peer)
        if is_ctf2(d):
            yield ctf2_twin(make_db, peer, rel, d, root)
            continue
        if not have_bt2:
            yield rel, None, "babeltrace2 is not installed"
            continue
        res, ref, err = check_with_bt2(make_db, rel, [d], d)
        if res is not None:
            yield res
            continue
        # babeltrace2 fails on it: the MANIFEST's count (events + discarded).
        name = os.path.relpath(d, root).split(os.sep)[0]
        want = counts.get(name)
        db = make_db()
        try:
            n = db.execute("SELECT count(*) FROM events(?)", (d,)).fetchone()[0]
            disc = db.execute("SELECT coalesce(sum(discarded), 0) FROM packets(?)", (d,)).fetchone()[0]
        except Exception as e:
            yield rel, False, "babeltrace2 fails and so do we: %s" % e
            continue
        if want is None:
            yield rel, False, "babeltrace2 fails (%s) and the MANIFEST gives no count" % err.strip()[-120:]
        elif n == want or n + disc == want:
            yield rel, True, ("babeltrace2 2.0.4 fails on it; %d events + %d discarded = the MANIFEST's %d"
                              % (n, disc, want))
        else:
            yield rel, False, "%d events + %d discarded, the MANIFEST says %d" % (n, disc, want)


def yactfr_expect(path, case=""):
    """Per event record of expect.txt: (class name, leaf values in the order
    payload, event context, stream event context); and the error line.
    Strings are decoded by the encoding the case's name says (utf-16le, ...);
    BLOBs are their bytes in hex; booleans True/False; bit maps their value."""
    events, cur, scope, stack, err = [], None, None, [], None
    strbuf = None
    blob = None
    enc = "utf-8"
    for e in ("utf-16be", "utf-16le", "utf-32be", "utf-32le"):
        if e in case:
            enc = e
    for raw in open(path, encoding="utf-8", errors="surrogateescape"):
        line = raw.rstrip("\n")
        m = re.match(r"^\s*\d+\s+(.*)$", line)
        if not m:
            err = line.strip()
            continue
        el = m.group(1).strip()
        if el == "ER {":
            cur = {"name": None, 3: [], 4: [], 5: []}
            stack.append("ER")
            continue
        if el.endswith("{"):
            tag = el[:-1].strip()
            if tag.startswith("SC:"):
                scope = int(tag[3:])
            if re.match(r"^(NTS|SLS|DLS)\b", tag):
                strbuf = b""
            if re.match(r"^(SLB|DLB)\b", tag):
                blob = ""
            stack.append(tag)
            continue
        if el == "}":
            tag = stack.pop() if stack else ""
            if tag == "ER":
                events.append(cur)
                cur = None
            elif re.match(r"^(NTS|SLS|DLS)\b", tag) and cur is not None and scope in (3, 4, 5):
                w = {"utf-8": 1, "utf-16be": 2, "utf-16le": 2, "utf-32be": 4, "utf-32le": 4}[enc]
                units = [strbuf[k:k + w] for k in range(0, len(strbuf) - w + 1, w)]
                if bytes(w) in units:
                    units = units[:units.index(bytes(w))]
                cur[scope].append(b"".join(units).decode(enc, "surrogateescape"))
                strbuf = None
            elif re.match(r"^(SLB|DLB)\b", tag):
                if cur is not None and scope in (3, 4, 5):
                    cur[scope].append(blob)
                blob = None
            elif tag.startswith("SC:"):
                scope = None
            continue
        if el.startswith("ERI:") and cur is not None:
            cur["name"] = el.split(":#", 1)[1] if ":#" in el else None
            continue
        if el.startswith("RD:") and blob is not None:
            blob += el.split(":", 2)[2]
            continue
        if el.startswith("RD:") and strbuf is not None:
            data = el.split(":", 2)[2]
            strbuf += re.sub(rb"\$([0-9A-Fa-f]{2})", lambda mm: bytes([int(mm.group(1), 16)]),
                             data.encode("utf-8", "surrogateescape"))
            continue
        if cur is not None and scope in (3, 4, 5):
            m3 = re.match(r"^FLB:(?:.*:)?(true|false)$", el)
            if m3:
                cur[scope].append(m3.group(1) == "true")
                continue
            m3 = re.match(r"^FLBM:(?:.*:)?(\d+):[^:]*$", el)
            if m3:
                cur[scope].append(int(m3.group(1)))
                continue
        m2 = re.match(r"^(FLUI|FLSI|FLFPN|VLUI|VLSI|FLBA):(?:.*:)?(-?[0-9.e+naif-]+)$", el)
        if m2 and cur is not None and scope in (3, 4, 5):
            v = m2.group(2)
            cur[scope].append(float(v) if m2.group(1) == "FLFPN" else int(v))
    return events, err


def flatten(v, out):
    if isinstance(v, dict):
        if set(v) == {"label", "value"}:
            flatten(v["value"], out)
        else:
            for x in v.values():
                flatten(x, out)
    elif isinstance(v, list):
        for x in v:
            flatten(x, out)
    elif v is None:
        pass                    # an optional that is not there: expect.txt shows nothing
    elif isinstance(v, str) and re.match(r"^\d{19,20}$", v):
        out.append(int(v))
    else:
        out.append(v)


def same_event(g, e):
    """Our (name, values) against expect.txt's; floats as yactfr prints them (%g)."""
    if g[0] != e[0] or len(g[1]) != len(e[1]):
        return False
    for a, b in zip(g[1], e[1]):
        if isinstance(b, float) and isinstance(a, (int, float)):
            if float("%g" % a) != b:
                return False
        elif a != b:
            return False
    return True


def run_yactfr(make_db, peer):
    root = os.path.join(peer, CTF, "yactfr")
    for ver in ("ctf-1", "ctf-2", "ctf-2/auto-translated"):
        base = os.path.join(root, ver)
        if not os.path.isdir(base):
            continue
        for case in sorted(os.listdir(base)):
            d = os.path.join(base, case)
            rel = os.path.relpath(d, peer)
            if not os.path.exists(os.path.join(d, "metadata")):
                continue
            want, errline = yactfr_expect(os.path.join(d, "expect.txt"), case)
            tmp = tempfile.mkdtemp(prefix="tl-yactfr-")
            try:
                for f in ("metadata", "stream"):
                    os.symlink(os.path.abspath(os.path.join(d, f)), os.path.join(tmp, f))
                db = make_db()
                exp = [(e["name"], e[5] + e[4] + e[3]) for e in want]
                rows, error = rows_then_error(db, "SELECT name, args FROM events(?)", tmp,
                                              len(exp) if case.startswith("fail-") else 1 << 40)
                got = []
                for name, args in rows:
                    vals = []
                    flatten(json.loads(args), vals)
                    got.append((name, vals))
                if case.startswith("fail-"):
                    if error is None:
                        yield rel, False, "read %d events without an error; yactfr: %s" % (len(got), errline)
                    elif len(got) != len(exp) or not all(same_event(g, e) for g, e in zip(got, exp)):
                        yield rel, False, "events before the error differ: %r vs %r" % (got[:3], exp[:3])
                    else:
                        yield rel, True, "%d events then an error, as yactfr (%s)" % (len(got), error[:100])
                    continue
                if error is not None:
                    yield rel, False, "error: %s" % error
                elif len(got) != len(exp):
                    yield rel, False, "%d events, expect.txt has %d" % (len(got), len(exp))
                else:
                    bad = next((i for i, (g, e) in enumerate(zip(got, exp)) if not same_event(g, e)), None)
                    if bad is None:
                        yield rel, True, "%d events, names and %d values equal expect.txt" % (
                            len(got), sum(len(e[1]) for e in exp))
                    else:
                        yield rel, False, "event %d: ours %r, expect.txt %r" % (bad, got[bad], exp[bad])
            finally:
                shutil.rmtree(tmp)


def run(make_db, peer):
    if not os.path.isdir(os.path.join(peer, CTF)):
        return
    have_bt2 = shutil.which("babeltrace2") is not None
    yield from run_babeltrace(make_db, peer, have_bt2)
    yield from run_simple(make_db, peer, "barectf", have_bt2)
    yield from run_simple(make_db, peer, "tracecompass-test-traces", have_bt2)
    yield from run_yactfr(make_db, peer)
