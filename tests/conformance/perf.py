"""perf.data conformance: counts against perf's own report on the peer files.

Each peer folder's MANIFEST.md has a table of what `perf report --stats`
(perf 6.1) says: TOTAL records, SAMPLE records and COMPRESSED containers.
Where perf read the file (rc 0, no error), tracelite must give the same
SAMPLE count and the same TOTAL (its rows plus the containers, which are
not rows). Where perf could not read it, the MANIFEST's other expectations
(from the peer project's own tests) are used, listed in SPECIAL below.
"""
import os
import re
import shutil
import subprocess

# path relative to peer/perf -> (kind, expected), from the MANIFESTs' text
SPECIAL = {
    "LinuxTracepoints/TestOutput/perf.data": ("samples", 539),
    "LinuxTracepoints/TestOutput/pipe.data": ("samples", 551),
    "linux-perf-data/tests/fixtures/sleep.data": ("some_samples", None),
    "linux-perf-data/tests/fixtures/sleep.compressed.data": ("some_samples", None),
    "linux-perf-data/tests/fixtures/sleep.compressed.pipe.data": ("some_samples", None),
    "linux-perf-data/tests/fixtures/sleep.compressed2.data": ("some_samples", None),
    "linux-perf-data/tests/fixtures/sleep.compressed2.pipe.data": ("records_samples", (100, 1)),
    "linux-perf-data/tests/fixtures/fibo.compressed2.pipe.data": ("records_samples", (1000, 500)),
    "hotspot/tests/integrationtests/file_content/perf.data.broken.gz": ("reject", "not a trace"),
    "hotspot/tests/integrationtests/file_content/perf.data.true.v2.gz": ("reject", "not a trace"),
    "hotspot/tests/integrationtests/perf.data.PerfFormatLost": ("some_samples", None),
    "perfparser/tests/auto/perfdata/cpp-inlining/cpp-inlining.perf.data": ("some_samples", None),
    "perfparser/tests/auto/perfdata/probe.data.stream": ("samples", 1),
    "perf_data_converter/src/quipper/testdata/perf.data.piped.corrupted.zero_size_sample-3.2": ("error", "less than its 8-byte header"),
    "perf_data_converter/src/quipper/testdata/perf.data.piped.intel_pt-4.14": ("samples_at_least", 0),
}

ROW = re.compile(r"^\|\s*(\S+)\s*\|\s*(\d+)\s*\|\s*(\S+)\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|\s*(.*?)\s*\|\s*$")


def manifest_rows(folder):
    rows = {}
    with open(os.path.join(folder, "MANIFEST.md")) as f:
        for line in f:
            m = ROW.match(line)
            if m:
                rows[m.group(1)] = dict(rc=int(m.group(2)), total=m.group(3), samples=int(m.group(4)),
                                        compressed=int(m.group(5)), error=m.group(7))
    return rows


def counts(db, path):
    samples = db.execute("SELECT count(*) FROM events(?) WHERE type = 'SAMPLE'", (path,)).fetchone()[0]
    total = db.execute("SELECT count(*) FROM events(?)", (path,)).fetchone()[0]
    return samples, total


SECTION = re.compile(r"^# Samples: (\d+)\S*\s+of events? '([^']*)'")
CPU_ROW = re.compile(r"^\s+[\d.]+%\s+(\d+)\s+(-?\d+)\s*$")


def perf_breakdown(path):
    """Samples per event name and CPU, as perf report -n --sort cpu prints (-1: no CPU)
    them, and the first and last sample time perf script prints (ns), or
    None where perf cannot print them."""
    try:
        out = subprocess.run(["perf", "report", "-f", "-i", path, "-n", "--sort", "cpu", "--stdio",
                              "--no-children", "--no-branch-stack", "--no-itrace", "--no-group"],
                             capture_output=True, text=True, timeout=120).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None, None
    per = {}
    event = None
    for line in out.splitlines():
        m = SECTION.match(line)
        if m:
            event = m.group(2)
            continue
        m = CPU_ROW.match(line)
        if m and event is not None:
            key = (event, int(m.group(2)))
            per[key] = per.get(key, 0) + int(m.group(1))
    span = None
    try:
        r = subprocess.run(["perf", "script", "-f", "-i", path, "-F", "time", "--ns"],
                           capture_output=True, text=True, timeout=120)
        times = [line.strip().rstrip(":") for line in r.stdout.splitlines() if line.strip()]
        if r.returncode == 0 and times:
            ns = [int(t.split(".")[0]) * 1000000000 + int(t.split(".")[1]) for t in times]
            span = (min(ns), max(ns))
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
        span = None
    return per, span


def ours_breakdown(db, path):
    per = {}
    for name, cpu, n in db.execute("SELECT name, ifnull(cpu, -1), count(*) FROM events(?) "
                                   "WHERE type = 'SAMPLE' GROUP BY 1, 2", (path,)):
        per[(name, cpu)] = n
    span = db.execute("SELECT min(ts), max(ts) FROM events(?) WHERE type = 'SAMPLE'", (path,)).fetchone()
    return per, span


def run(make_db, peer):
    root = os.path.join(peer, "perf")
    for origin in sorted(os.listdir(root)):
        folder = os.path.join(root, origin)
        if not os.path.isdir(folder):
            continue
        for rel, exp in sorted(manifest_rows(folder).items()):
            path = os.path.join(folder, rel)
            name = "perf/%s/%s" % (origin, rel)
            key = "%s/%s" % (origin, rel)
            if not os.path.exists(path):
                yield name, False, "missing file"
                continue
            db = make_db()
            special = SPECIAL.get(key)
            try:
                samples, total = counts(db, path)
                err = None
            except Exception as e:  # an SQL error is reported, not raised
                samples = total = None
                err = str(e)
            if special is None:
                if exp["rc"] != 0 or exp["error"] or exp["total"] == "?":
                    yield name, False, "no expectation for a file perf could not read (%s); got %s" % (
                        exp["error"], err or "%d samples" % samples)
                elif err:
                    yield name, False, "error: %s" % err
                else:
                    want_total = int(exp["total"])
                    ok = samples == exp["samples"] and total + exp["compressed"] == want_total
                    yield name, ok, "SAMPLE %d (perf %d), records %d + %d containers (perf TOTAL %d)" % (
                        samples, exp["samples"], total, exp["compressed"], want_total)
                    if samples:
                        yield breakdown_check(db, path, name)
                    yield header_check(db, path, name)
                continue
            kind, want = special
            if kind == "reject":
                ok = err is not None and want in err
                yield name, ok, "rejected: %s" % err if err else "read, but should be rejected"
            elif kind == "error":
                ok = err is not None and want in err
                yield name, ok, "error: %s" % err if err else "no error, %d samples" % samples
            elif err:
                yield name, False, "error: %s" % err
            elif kind == "samples":
                yield name, samples == want, "SAMPLE %d (peer expects %d)" % (samples, want)
            elif kind == "samples_at_least":
                yield name, samples >= want, "SAMPLE %d, %d records (perf 6.1 cannot read it)" % (samples, total)
            elif kind == "some_samples":
                yield name, samples > 0, "SAMPLE %d, %d records (peer expects samples)" % (samples, total)
            elif kind == "records_samples":
                ok = total >= want[0] and samples >= want[1]
                yield name, ok, "%d records, %d samples (peer expects >= %d, >= %d)" % (total, samples, want[0], want[1])


def breakdown_check(db, path, name):
    """Per event and CPU sample counts and the sample time span, against perf
    run now (perf report -n --sort cpu, perf script -F time); a skip when
    perf is not installed."""
    label = name + " [per event+cpu, ts span]"
    if shutil.which("perf") is None:
        return label, None, "skipped: perf is not installed"
    want, want_span = perf_breakdown(path)
    if not want:
        return label, None, "skipped: perf report printed no per-CPU table"
    got, got_span = ours_breakdown(db, path)
    if got != want:
        diff = sorted(set(got.items()) ^ set(want.items()))[:4]
        return label, False, "samples per (event, cpu) differ: %s" % diff
    if want_span is not None and tuple(got_span) != want_span:
        return label, False, "sample ts span %s, perf script %s" % (tuple(got_span), want_span)
    return label, True, "%d (event, cpu) counts equal perf report's%s" % (
        len(want), ", ts span equals perf script's" if want_span else "")


# perf report --header-only labels -> the perf_features query giving the same text
HEADER_MAP = [
    ("hostname", "SELECT value FROM perf_features(?) WHERE name = 'HOSTNAME'"),
    ("os release", "SELECT value FROM perf_features(?) WHERE name = 'OSRELEASE'"),
    ("perf version", "SELECT value FROM perf_features(?) WHERE name = 'VERSION'"),
    ("arch", "SELECT value FROM perf_features(?) WHERE name = 'ARCH'"),
    ("nrcpus online", "SELECT value ->> '$.online' FROM perf_features(?) WHERE name = 'NRCPUS'"),
    ("nrcpus avail", "SELECT value ->> '$.avail' FROM perf_features(?) WHERE name = 'NRCPUS'"),
    ("cpudesc", "SELECT value FROM perf_features(?) WHERE name = 'CPUDESC'"),
    ("cpuid", "SELECT value FROM perf_features(?) WHERE name = 'CPUID'"),
    ("total memory", "SELECT value FROM perf_features(?) WHERE name = 'TOTAL_MEM'"),
    ("cmdline", "SELECT value FROM perf_features(?) WHERE name = 'CMDLINE'"),
    ("pmu mappings", "SELECT value FROM perf_features(?) WHERE name = 'PMU_MAPPINGS'"),
]


def header_check(db, path, name):
    """The text features against perf report --header-only run now."""
    label = name + " [header features]"
    if shutil.which("perf") is None:
        return label, None, "skipped: perf is not installed"
    try:
        out = subprocess.run(["perf", "report", "-f", "-i", path, "--header-only"],
                             capture_output=True, text=True, timeout=120).stdout
    except (OSError, subprocess.TimeoutExpired):
        return label, None, "skipped: perf report --header-only did not finish"
    checked = 0
    for line in out.splitlines():
        line = line.rstrip(" \n")
        for key, sql in HEADER_MAP:
            for sep in (" : ", ": "):
                prefix = "# " + key + sep
                if line.startswith(prefix):
                    want = line[len(prefix):]
                    row = db.execute(sql, (path,)).fetchone()
                    got = None if row is None else row[0]
                    if want == "(null)" and not got:
                        # perf could not read this section (it is empty) and
                        # stops reading the features after it: what it prints
                        # from here on is not the file's
                        return label, True, ("%d text features equal perf report --header-only's; perf stops "
                                             "at the empty %s section" % (checked, key))
                    if got is None or str(got) != want:
                        return label, False, "%s is %r, perf says %r" % (key, got, want)
                    checked += 1
                    break
    if checked == 0:
        return label, None, "skipped: perf printed none of the text features"
    return label, True, "%d text features equal perf report --header-only's" % checked
