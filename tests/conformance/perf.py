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
