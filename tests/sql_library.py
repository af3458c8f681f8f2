#!/usr/bin/python3
"""The sql/ library's tests: every sql/*.sql file is run the way a user runs
it, through the sqlite3 shell (`.load`, `.parameter set`, `.read`), on the
test traces in testdata/, and its numbers are compared with what the
reference tool printed for the same trace (stored beside the trace with the
script that made it: testdata/*/sql-refs.sh, record.sh).

    /usr/bin/python3 tests/sql_library.py --so build/tracelite.so

Exits 1 when a number differs, a file fails, or a sql/ file has no check.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TD = os.path.join(ROOT, "testdata")
# files another part of the library tests on its own
OTHER_TESTS = ("chrome-", "speedscope-")

CHECKS = {}          # sql file name -> check function
failures = []
SO = None


def check(name):
    def deco(fn):
        CHECKS[name] = fn
        return fn
    return deco


def fail(name, msg):
    failures.append("%s: %s" % (name, msg))


def run(name, sep="|", **params):
    """Rows of sql/NAME as the shell prints them (-list mode, SEP between
    columns), each a list of strings."""
    cmd = ["sqlite3", "-batch", "-bail", "-separator", sep, "-cmd", ".load " + SO]
    for k, v in params.items():
        if v is not None:
            cmd += ["-cmd", ".parameter set @%s '%s'" % (k, v.replace("'", "''"))]
    cmd += [":memory:", ".read " + os.path.join(ROOT, "sql", name)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0 or p.stderr:
        raise RuntimeError("sqlite3 failed (%d): %s" % (p.returncode, p.stderr.strip()))
    return [line.split(sep) for line in p.stdout.splitlines()]


def text(path):
    """The file testdata/PATH, or PATH.xz decompressed when only it is there."""
    full = os.path.join(TD, path)
    if not os.path.exists(full) and os.path.exists(full + ".xz"):
        import lzma
        with lzma.open(full + ".xz", "rt", encoding="utf-8", errors="replace") as f:
            return f.read()
    with open(full, encoding="utf-8", errors="replace") as f:
        return f.read()


def equal(name, what, got, want):
    if got != want:
        fail(name, "%s differ:\n  sql: %r\n  ref: %r" % (what, got, want))


# ---------------------------------------------------------------- perf

PERF = "perf/"
SYM_OPTS = 'symfs="%s" kallsyms="%s" buildid_dir="%s"' % (
    TD + "/perf/sym/symfs", TD + "/perf/sym/kallsyms", TD + "/perf/sym/no-cache")

# no file to name addresses from, as perf was run for the references
# (--symfs=/nonexistent --kallsyms=no-kallsyms, an empty file): addresses as
# perf lists them
NOSYM_OPTS = 'symfs="/nonexistent" kallsyms="%s" buildid_dir="/nonexistent"' % (TD + "/perf/no-kallsyms")

CXX_OPTS = 'symfs="%s" kallsyms="%s" buildid_dir="%s"' % (
    TD + "/perf/cxx/symfs", TD + "/perf/cxx/kallsyms", TD + "/perf/cxx/no-cache")

DWARF_OPTS = 'symfs="%s" kallsyms="%s" buildid_dir="%s"' % (
    TD + "/perf/dwarf/symfs", TD + "/perf/dwarf/kallsyms", TD + "/perf/dwarf/no-cache")


def perf_report(path):
    """perf report --stdio -n: {event: [(overhead, samples, key)]} and
    {event: total samples}."""
    rows, totals, event = {}, {}, None
    for line in text(path).splitlines():
        m = re.match(r"# Samples: (\d+)([KMG]?)\s+of event '(.*)'", line)
        if m:
            event = m.group(3)
            # perf abbreviates large counts (4K): then only the rows count
            totals[event] = None if m.group(2) else int(m.group(1))
            rows[event] = []
            continue
        m = re.match(r"\s+(\d+\.\d\d%)\s+(\d+)\s+(.*?)\s*$", line)
        if m and event is not None:
            rows[event].append((m.group(1), int(m.group(2)), m.group(3)))
    return rows, totals


def check_report(name, trace, ref, key, opts=None, refkey=lambda k: k):
    """Rows (event, samples, period, overhead, key...) against perf report.
    KEY turns a query row's key columns into perf's key text."""
    want, totals = perf_report(ref)
    want = {ev: [(p, n, refkey(k)) for p, n, k in lines] for ev, lines in want.items()}
    got = run(name, trace=TD + "/" + trace, options=opts)
    gotd, sums = {}, {}
    for r in got:
        gotd.setdefault(r[0], []).append((r[3], int(r[1]), key(r[4:])))
        sums[r[0]] = sums.get(r[0], 0) + int(r[1])
    equal(name, trace + " events", sorted(gotd), sorted(want))
    for ev, lines in want.items():
        if totals[ev] is not None:
            equal(name, "%s %s samples" % (trace, ev), sums.get(ev), totals[ev])
        equal(name, "%s %s rows" % (trace, ev), sorted(gotd.get(ev, [])), sorted(lines))
    return len(got)


@check("perf_report_sym.sql")
def _():
    # perf lists each unresolved user address as "[.] 0x<offset in the file>"
    n = check_report("perf_report_sym.sql", "perf/sym/sym.data", "perf/sym/sym.report.txt",
                     lambda k: k[0], SYM_OPTS)
    # demangled C++ names, PLT stubs (NAME@plt)
    for t in ("cxx", "plt"):
        n += check_report("perf_report_sym.sql", "perf/cxx/%s.data" % t, "perf/cxx/%s.report.txt" % t,
                          lambda k: k[0], CXX_OPTS)
    # --call-graph dwarf (registers and stack copies), C and C++ at -O0/-O2
    for t in ("c-O0", "c-O2", "cxx-O0", "cxx-O2"):
        n += check_report("perf_report_sym.sql", "perf/dwarf/%s.data" % t, "perf/dwarf/%s.report.txt" % t,
                          lambda k: k[0], DWARF_OPTS)
    # recorded without -g: the sample's own ip, user and kernel addresses
    # perf cannot name listed by their offset in the file or their value
    return n + check_report("perf_report_sym.sql", "perf/threads-inherit.data",
                            "perf/threads-inherit.report-sym.txt", lambda k: k[0], NOSYM_OPTS)


@check("perf_report_dso.sql")
def _():
    n = check_report("perf_report_dso.sql", "perf/sym/sym.data", "perf/sym/sym.report-dso.txt",
                     lambda k: k[0], SYM_OPTS)
    # recorded without -g
    return n + check_report("perf_report_dso.sql", "perf/threads-inherit.data",
                            "perf/threads-inherit.report-dso.txt", lambda k: k[0], NOSYM_OPTS)


@check("perf_report_comm.sql")
def _():
    n = check_report("perf_report_comm.sql", "perf/sched.data", "perf/sched.report-comm.txt", lambda k: k[0])
    n += check_report("perf_report_comm.sql", "perf/lost.data", "perf/lost.report-comm.txt", lambda k: k[0])
    # threads named after the thread that made them
    return n + check_report("perf_report_comm.sql", "perf/threads-inherit.data",
                            "perf/threads-inherit.report-comm.txt", lambda k: k[0])


@check("perf_report_thread.sql")
def _():
    n = check_report("perf_report_thread.sql", "perf/sched.data", "perf/sched.report-pid.txt",
                     lambda k: "%s:%s" % (k[0], k[1]))
    return n + check_report("perf_report_thread.sql", "perf/threads-inherit.data",
                            "perf/threads-inherit.report-pid.txt", lambda k: "%s:%s" % (k[0], k[1]))


@check("perf_report_cpu.sql")
def _():
    # perf pads the CPU with zeros to the column's width
    n = check_report("perf_report_cpu.sql", "perf/sched.data", "perf/sched.report-cpu.txt",
                     lambda k: int(k[0]), refkey=int)
    return n + check_report("perf_report_cpu.sql", "perf/multi.data", "perf/multi.report-cpu.txt",
                            lambda k: int(k[0]), refkey=int)


def timehist_lines(trace="sched"):
    """perf sched timehist: (time, cpu, task, wait, sch delay, run) per switch."""
    out = []
    for line in text("perf/%s.timehist.txt" % trace).splitlines():
        f = line.split()
        if len(f) >= 6 and re.match(r"\d+\.\d{6}$", f[0]):
            out.append(f[:6])
    return out


def timehist_ref(path):
    """perf sched timehist output at testdata/PATH: the lines as above."""
    return [f[:6] for f in (line.split() for line in text(path).splitlines())
            if len(f) >= 6 and re.match(r"\d+\.\d{6}$", f[0])]


@check("sched_timehist.sql")
def _():
    n = 0
    for trace, ref in (("perf/sched.data", "perf/sched.timehist.txt"),
                       ("perf/wakeup.data", "perf/wakeup.timehist.txt"),
                       ("sched/sched.data", "sched/sched.timehist.txt"),
                       ("sched/tp.data", "sched/tp.timehist.txt")):
        got = [r[:6] for r in run("sched_timehist.sql", trace=TD + "/" + trace)]
        want = timehist_ref(ref)
        if len(want) < 10:
            fail("sched_timehist.sql", "%s: reference has %d lines" % (ref, len(want)))
        equal("sched_timehist.sql", trace + " timehist lines", got, want)
        n += len(got)
    return n


@check("sched_runtime.sql")
def _():
    name = "sched_runtime.sql"
    n = 0
    for trace, ref in (("perf/sched.data", "perf/sched.timehist-summary.txt"),
                       ("sched/sched.data", "sched/sched.runtime.txt"),
                       ("sched/tp.data", "sched/tp.runtime.txt")):
        got = run(name, trace=TD + "/" + trace)
        want = {}
        for line in text(ref).splitlines():
            f = line.split()
            if len(f) == 9 and re.match(r".*\[[\d/]+\]$", f[0]):
                want[f[0]] = [f[2], f[3], f[4], f[5], f[6]]
        equal(name, trace + " task runtimes", {r[0]: r[1:6] for r in got}, want)
        n += len(got)
    return n


def latency_lines(path):
    """perf sched latency: [task, runtime, switches, avg, max, max start, max end]."""
    out = []
    for line in text(path).splitlines():
        m = re.match(r"\s+(\S.*?)\s+\|\s+([\d.]+) ms \|\s+(\d+) \| avg:\s+([\d.]+) ms \| max:\s+([\d.]+) ms"
                     r" \| max start:\s+([\d.]+) s \| max end:\s+([\d.]+) s", line)
        if m:
            out.append(list(m.groups()))
    return out


@check("sched_latency.sql")
def _():
    name = "sched_latency.sql"
    n = 0
    # per task name (perf sched latency), per thread (-p: @pids)
    for trace, ref, pids in (("sched", "latency", None), ("tp", "latency", None),
                             ("sched", "latency-p", "1"), ("tp", "latency-p", "1")):
        want = latency_lines("sched/%s.%s.txt" % (trace, ref))
        # perf names a thread no COMM record named ":TID" (the model names
        # it from the events' comm fields): those are left out
        unnamed = [w for w in want if w[0].startswith(":")]
        want = [w for w in want if not w[0].startswith(":")]
        got = run(name, trace=TD + "/sched/%s.data" % trace, pids=pids)
        tasks = set(w[0] for w in want)
        extra = [g for g in got if g[0] not in tasks]
        got = [g for g in got if g[0] in tasks]
        if len(want) < 10:
            fail(name, "%s: reference has %d lines" % (trace, len(want)))
        equal(name, trace + " latency lines", got, want)
        if sum(int(g[2]) for g in extra) != sum(int(u[2]) for u in unnamed):
            fail(name, "%s: tasks perf does not name: %r, perf: %r" % (trace, extra, unnamed))
        n += len(got)
    return n


def peer_dir():
    """The peer traces (TL_PEER_DIR, else ../shared/peer-traces), or None."""
    d = os.environ.get("TL_PEER_DIR") or os.path.join(ROOT, "..", "shared", "peer-traces")
    return d if os.path.isdir(d) else None


# LTTng kernel traces among the peer traces, with lttng-analyses' outputs
# in testdata/sched/peer/ (testdata/sched/peer-refs.sh; bug446190, of
# lttng-modules 2.5, through a link named kernel, as the tool needs)
LTTNG_KERNEL = (("flipping-endianness", "ctf/tracecompass-test-traces/flipping-endianness"),
                ("tracefile-rotation", "ctf/babeltrace/ctf-traces/succeed/lttng-tracefile-rotation/kernel"),
                ("bug446190", "ctf/tracecompass-test-traces/bug446190"))
# and a written one (testdata/sched/lttng-syscalls/write.py, refs.sh)
SYNTH = "lttng-syscalls"


def lttng_kernel(name, tool):
    """(trace name, its path, the reference file of lttng-TOOL) of the LTTng
    kernel traces: the written one, and the peer traces when there."""
    out = [(SYNTH, os.path.join(TD, "sched", SYNTH, "kernel"), "sched/%s/%s.txt" % (SYNTH, tool))]
    peer = peer_dir()
    if peer is None:
        print("%s: peer traces skipped: none (TL_PEER_DIR) to compare with lttng-%s" % (name, tool))
    else:
        out += [(ref, os.path.join(peer, path), "sched/peer/%s.%s.txt" % (ref, tool))
                for ref, path in LTTNG_KERNEL]
    return out


@check("cputop.sql")
def _():
    name = "cputop.sql"
    n = 0
    for ref, path, reffile in lttng_kernel(name, "cputop"):
        got = run(name, trace=path)
        want_tid, want_cpu = {}, {}
        for line in text(reffile).splitlines():
            m = re.search(r"([\d.]+) %\s+(.*?) \((\d+)\)\s+\d+\s+\[", line)
            # (lttng-cputop lists the idle task, tid 0, when a CPU's first
            # switch leaves it: from the trace's start to that switch; the
            # file leaves the idle task out)
            if m and m.group(3) != "0":
                want_tid[m.group(3)] = (m.group(1), m.group(2).strip())
            m = re.search(r"([\d.]+) % CPU (\d+)$", line)
            if m:
                want_cpu[m.group(2)] = m.group(1)
        got_tid = {}
        for kind, what, pct, busy in got:
            if kind == "tid":
                m = re.match(r"(.*) \((\d+)\)$", what)
                got_tid[m.group(2)] = (pct, m.group(1))
            elif pct != want_cpu.get(what[4:]):
                fail(name, "%s: %s: %s%%, lttng-cputop %s%%" % (ref, what, pct, want_cpu.get(what[4:])))
        equal(name, ref + " thread shares", {k: v[0] for k, v in got_tid.items()},
              {k: v[0] for k, v in want_tid.items()})
        # names where lttng-cputop knows one
        equal(name, ref + " thread names", {k: v[1] for k, v in got_tid.items() if want_tid.get(k, ("", ""))[1]},
              {k: v[1] for k, v in want_tid.items() if v[1]})
        n += len(got)
    return n


@check("syscall_stats.sql")
def _():
    name = "syscall_stats.sql"
    n = 0
    # (syscalls-lost: records lost, exits without their entries)
    for trace in ("trace", "syscalls-lost"):
        want, cur = {}, None
        for line in text("sched/%s.summary.txt" % trace).splitlines():
            m = re.match(r"\s+(.*) \((\d+)\), (\d+) events, ([\d.]+)%", line)
            if m:
                cur = ("%s (%s)" % (m.group(1), m.group(2)), m.group(3), m.group(4))
                continue
            m = re.match(r"\s+(\w+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)%", line)
            if m and cur:
                want[(cur[0], m.group(1))] = [cur[1], cur[2]] + list(m.groups()[1:])
        got = {(r[0], r[3]): [r[1], r[2]] + r[4:] for r in run(name, trace=TD + "/sched/%s.data" % trace)}
        if len(want) < 50:
            fail(name, "%s: reference has %d lines" % (trace, len(want)))
        equal(name, trace + ": perf trace -s lines", got, want)
        n += len(got)
    # LTTng: the written trace (its thread 300 runs bash, execs ls, then its
    # first call ends: lttng-analyses renames a thread at its next switch
    # in, the model at the exec) and bug446190 (lttng-modules 2.5: sys_NAME
    # and exit_syscall), the only peer trace with system call events
    for ref, path, reffile in lttng_kernel(name, "syscallstats"):
        if ref in (SYNTH, "bug446190"):
            n += check_syscallstats(name, reffile, path, {"300": "ls"} if ref == SYNTH else {})
    return n


def lttng_syscallstats(path):
    """lttng-syscallstats' per-TID tables: {(tid, call): [count, errors,
    min, avg, max, stdev]} (times in usec as printed, stdev None for '?')
    and {tid: comm}. The return values' counts are each one more than the
    calls (lttng-analyses starts each at 1 and adds 1), so a call's errors
    are its non-success counts less one each."""
    calls, comms, tid = {}, {}, None
    for line in text(path).splitlines():
        m = re.match(r"(.*) \((?:\d+|\?), TID: (\d+)\)\s+Count", line)
        if m:
            tid = m.group(2)
            comms[tid] = m.group(1)
            continue
        m = re.match(r" - (\S+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+|\?)\s+(\{.*\})\s*$", line)
        if m and tid:
            rets = {k: int(v) - 1 for k, v in re.findall(r"'([^']*)': (\d+)", m.group(7))}
            if sum(rets.values()) != int(m.group(2)):
                raise RuntimeError("%s: return values do not add up: %s" % (path, line))
            calls[(tid, m.group(1))] = [int(m.group(2)), sum(v for k, v in rets.items() if k != "success"),
                                        m.group(3), m.group(4), m.group(5),
                                        None if m.group(6) == "?" else m.group(6)]
    return calls, comms


def ms_matches(got, us):
    """Is GOT (msec, 3 places) the value US (usec, as lttng-analyses printed
    it, to 1 ns) rounded? Either neighbour of a value within 0.5 ns of a
    half (printf rounds the double, lttng-analyses rounded already)."""
    from decimal import Decimal, ROUND_FLOOR
    x = Decimal(us) / 1000
    lo = x.quantize(Decimal("0.001"), rounding=ROUND_FLOOR)
    near = abs(x - lo - Decimal("0.0005")) <= Decimal("0.0000005")
    want = [lo, lo + Decimal("0.001")] if near else [x.quantize(Decimal("0.001"))]
    return Decimal(got) in want


def check_syscallstats(name, ref, path, renamed):
    """sql/syscall_stats.sql on the LTTng kernel trace PATH against
    lttng-syscallstats' output REF: every call's count, errors, min, avg
    and max, and its relative standard deviation of the mean (perf's
    column) from lttng's standard deviation, within what their rounding
    allows; each thread's name (RENAMED: {tid: the name the file gives}
    where the two differ)."""
    want, comms = lttng_syscallstats(ref)
    comms.update(renamed)
    got = {}
    for r in run(name, trace=path):
        m = re.match(r"(.*) \((\d+)\)$", r[0])
        got[(m.group(2), r[3])] = r
    equal(name, ref + " calls: sql only, lttng-syscallstats only",
          (sorted(set(got) - set(want)), sorted(set(want) - set(got))), ([], []))
    for k in sorted(set(got) & set(want)):
        g, w = got[k], want[k]
        ok = [int(g[4]), int(g[5])] == w[:2] and all(ms_matches(g[i], w[j]) for i, j in ((7, 2), (8, 3), (9, 4)))
        if ok and w[5] is not None:
            # perf's stddev: 100 * (stdev / sqrt(n)) / avg, from lttng's
            # values, each within half a ns
            n, sd, av = w[0], float(w[5]), float(w[3])
            lo = 100 * max(sd - 0.0005, 0) / n ** 0.5 / (av + 0.0005)
            hi = 100 * (sd + 0.0005) / n ** 0.5 / max(av - 0.0005, 1e-9)
            ok = lo - 0.005 <= float(g[10]) <= hi + 0.005
        elif ok and w[0] == 1:
            ok = g[10] == "0.00"
        if not ok:
            fail(name, "%s: %s: sql %r, lttng-syscallstats %r" % (ref, k, g, w))
    equal(name, ref + " thread names", {k[0]: got[k][0].rsplit(" (", 1)[0] for k in got},
          {k[0]: comms[k[0]] for k in want})
    if len(want) < 10:
        fail(name, "%s: reference has %d calls" % (ref, len(want)))
    return len(got)


@check("sched_stats.sql")
def _():
    name = "sched_stats.sql"
    n = 0
    for ref, path, reffile in lttng_kernel(name, "schedstats"):
        want = {}
        for line in text(reffile).splitlines():
            m = re.match(r"(.*?) \((\d+)\)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.?]+)", line)
            if m:
                want[m.group(2)] = [m.group(1).strip()] + list(m.groups()[2:])
        got = {}
        for r in run(name, trace=path):
            m = re.match(r"(.*) \((\d+)\)$", r[0])
            got[m.group(2)] = [m.group(1)] + r[1:]
        if ref == "tracefile-rotation" and len(want) < 100:
            fail(name, "%s: reference has %d threads" % (ref, len(want)))
        # (flipping-endianness has no wakeup events: neither lists a thread)
        equal(name, ref + " per-TID latencies", got, want)
        n += len(got)
    return n


@check("irq_stats.sql")
def _():
    name = "irq_stats.sql"
    n = 0
    for ref, path, reffile in lttng_kernel(name, "irqstats"):
        want, kind = [], "hard"
        for line in text(reffile).splitlines():
            if line.startswith("Soft IRQ"):
                kind = "soft"
            m = re.match(r"(\d+):\s+<(.*?)>\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.?]+)", line)
            if m:
                want.append([kind] + list(m.groups()))
        got = run(name, trace=path)
        equal(name, ref + " hard IRQs", [r for r in got if r[0] == "hard"], [w for w in want if w[0] == "hard"])
        # softirqs: lttng-irqstats names the vector (<TIMER_SOFTIRQ>), the
        # file gives its number; their durations (not the raise latencies)
        equal(name, ref + " softirqs", [r[:2] + r[3:] for r in got if r[0] == "soft"],
              [w[:2] + w[3:] for w in want if w[0] == "soft"])
        n += len(got)
    return n


def perf_stats(path):
    """perf report --stats: {(section, record type): count}; section is
    None for the aggregated stats, else the event name."""
    out, sect = {}, None
    for line in text(path).splitlines():
        m = re.match(r"(\S.*) stats:$", line)
        if m:
            sect = None if m.group(1) == "Aggregated" else m.group(1)
            continue
        m = re.match(r"\s+(\S+) events:\s+(\d+)", line)
        if m:
            out[(sect, m.group(1))] = int(m.group(2))
    return out


@check("perf_tracepoints.sql")
def _():
    name = "perf_tracepoints.sql"
    got = run(name, trace=TD + "/perf/sched.data")
    st = perf_stats("perf/sched.stats.txt")
    want = {k[0]: v for k, v in st.items() if k[0] and k[1] == "SAMPLE"}
    equal(name, "sched.data samples per tracepoint", {r[0]: int(r[1]) for r in got}, want)
    # each event's count, first and last time: its lines of perf script --ns -F time,event
    for ref in ("sched", "wakeup"):
        ev = {}
        for line in text("perf/%s.times.txt" % ref).splitlines():
            m = re.match(r"\s*(\d+)\.(\d{9}):\s+(\S+):", line)
            if m:
                ts = int(m.group(1)) * 10**9 + int(m.group(2))
                n, lo, hi = ev.get(m.group(3), (0, ts, ts))
                ev[m.group(3)] = (n + 1, min(lo, ts), max(hi, ts))
        rows = got if ref == "sched" else run(name, trace=TD + "/perf/%s.data" % ref)
        equal(name, ref + ".data samples, first and last time",
              {r[0]: (int(r[1]), int(r[2]), int(r[3])) for r in rows}, ev)
    # a trace of cpu-clock alone has no tracepoint
    equal(name, "lost.data tracepoints", run(name, trace=TD + "/perf/lost.data"), [])
    return len(got)


@check("perf_lost.sql")
def _():
    name = "perf_lost.sql"
    got = run(name, trace=TD + "/perf/lost.data")
    st = perf_stats("perf/lost.stats.txt")
    lost = [r for r in got if r[0] == "LOST"]
    equal(name, "LOST records", sum(int(r[3]) for r in lost), st[(None, "LOST")])
    # each LOST record as perf script prints it: "... PERF_RECORD_LOST lost 9"
    per_record = [int(x) for x in re.findall(r"PERF_RECORD_LOST lost (\d+)", text("perf/lost.lost.txt"))]
    equal(name, "samples lost in LOST records", sum(int(r[4]) for r in lost), sum(per_record))
    equal(name, "LOST events", sorted(set(r[1] for r in lost)), ["cpu-clock"])
    ls = [r for r in got if r[0] == "LOST_SAMPLES"]
    want = sum(v for k, v in st.items() if k[0] and k[1] == "LOST_SAMPLES")
    equal(name, "LOST_SAMPLES", sum(int(r[4]) for r in ls), want)
    # nothing lost: no rows, and perf counts no LOST record
    equal(name, "sched.data", run(name, trace=TD + "/perf/sched.data"), [])
    equal(name, "sched.data stats", perf_stats("perf/sched.stats.txt").get((None, "LOST")), None)
    return len(got)


@check("perf_folded.sql")
def _():
    name = "perf_folded.sql"
    n = 0
    # lost.data with sym/'s files too: its libc and kernel frames named (or
    # not) from files that hold nothing for them, the same on every machine
    for trace, ref, opts in (("perf/sym/sym.data", "perf/sym/sym.folded.txt", SYM_OPTS),
                             ("perf/lost.data", "perf/lost.folded.txt", SYM_OPTS),
                             ("perf/sched.data", "perf/sched.folded.txt", None)):
        got = [" ".join(r) for r in run(name, sep=" ", trace=TD + "/" + trace, options=opts)]
        equal(name, trace + " folded stacks", got, text(ref).splitlines())
        n += len(got)
    return n


def perf_stat_report(path):
    """perf stat report: [event, counts, unit, metric, metric unit] per
    counter line, then the elapsed seconds."""
    rows = []
    for line in text(path).splitlines():
        m = re.match(r"\s+([\d.]+)\s+(msec )?\s*(\S+)\s+#\s+([\d.]+) (.+?)\s*$", line)
        if m:
            rows.append([m.group(3), m.group(1), (m.group(2) or "").strip(), m.group(4), m.group(5)])
            continue
        m = re.match(r"\s+([\d.]+) seconds time elapsed", line)
        if m:
            rows.append(["seconds time elapsed", m.group(1), "", "", ""])
    return rows


@check("perf_stat.sql")
def _():
    name = "perf_stat.sql"
    n = 0
    for t in ("stat", "stat-a"):
        got = [r[:5] for r in run(name, trace=TD + "/perf/stat/%s.data" % t)]
        want = perf_stat_report("perf/stat/%s.report.txt" % t)
        if len(want) < 4:
            fail(name, "%s.report.txt: too few counters read" % t)
        equal(name, "%s.data counters" % t, got, want)
        n += len(got)
    return n


# ---------------------------------------------------------------- flame graphs

SVG = "{http://www.w3.org/2000/svg}"
FG_WIDTH = 1180.0           # the frames' width in the SVG (1200 px less margins)


def svg_frames(name, svg):
    """The frames of a flamegraph() SVG as {(depth, name): [value, ...]},
    checking that each frame is as wide as its value."""
    root = ET.fromstring(svg)
    frames = [g for g in root.iter(SVG + "g") if g.find(SVG + "rect") is not None]
    ys = [float(g.find(SVG + "rect").get("y")) for g in frames]
    base, total = max(ys), None
    out = {}
    for g, y in zip(frames, ys):
        m = re.match(r"(.*) \(([0-9.e+]+), [0-9.]+%\)$", g.find(SVG + "title").text)
        v = float(m.group(2))
        if total is None:
            total = v                   # the root, "all", comes first
        w = float(g.find(SVG + "rect").get("width"))
        if abs(w - v * FG_WIDTH / total) > 0.01:
            fail(name, "frame %s: %.2f px wide for %g of %g" % (m.group(1), w, v, total))
        out.setdefault((int(round((base - y) / 16)), m.group(1)), []).append(v)
    return {k: sorted(v) for k, v in out.items()}


def folded_frames(stacks):
    """What flamegraph.pl draws for {folded stack: value}: each prefix's
    summed value as {(depth, name): [value, ...]}, with the root "all",
    frames narrower than 0.1 px left out."""
    sums = {}
    for st, v in stacks.items():
        parts = [p for p in st.split(";") if p]
        for i in range(len(parts) + 1):
            key = tuple(parts[:i])
            sums[key] = sums.get(key, 0) + v
    total = sums[()]
    out = {}
    for key, v in sums.items():
        if v * FG_WIDTH / total >= 0.1:
            out.setdefault((len(key), key[-1] if key else "all"), []).append(float(v))
    return {k: sorted(v) for k, v in out.items()}


@check("flamegraph_perf.sql")
def _():
    name = "flamegraph_perf.sql"
    # perf script | stackcollapse-perf.pl of lost.data, drawn
    want = {}
    for line in text("perf/lost.folded.txt").splitlines():
        st, v = line.rsplit(" ", 1)
        want[st] = want.get(st, 0) + int(v)
    svg = "\n".join(r[0] for r in run(name, sep="\x01", trace=TD + "/perf/lost.data",
                                      options=SYM_OPTS, title="lost <1>"))
    got = svg_frames(name, svg)
    equal(name, "lost.data frames", got, folded_frames(want))
    if 'text-anchor="middle">lost &lt;1&gt;</text>' not in svg:
        fail(name, "@title not in the picture")
    return len(got)


# ---------------------------------------------------------------- XRay

XRAY_LOGS = (("fdr", "app.map.elf"), ("basic", "app.map.elf"), ("fdr-O2", "app-O2.map.elf"),
             ("names-fdr", "names.map.elf"), ("names-basic", "names.map.elf"))


def xray_flame(path):
    """llvm-xray stack -stack-format=flame: {stack: value}, the stack
    without llvm-xray's closing ';'. Two paths of different functions with
    the same names (a destructor's D0 and D1) are two lines there and one
    stack here: their values are summed, as flamegraph.pl sums them."""
    out = {}
    for line in text(path).splitlines():
        m = re.match(r"(.*);? (\d+)$", line)
        if m:
            k = m.group(1).rstrip(";")
            out[k] = out.get(k, 0) + int(m.group(2))
    return out


@check("flamegraph_xray.sql")
def _():
    name = "flamegraph_xray.sql"
    n = 0
    for log, binary in XRAY_LOGS:
        for agg in ("time", "count"):
            svg = "\n".join(r[0] for r in run(name, sep="\x01", trace=TD + "/xray/%s.xray" % log,
                                              binary=TD + "/xray/" + binary, value=agg))
            got = svg_frames(name, svg)
            t = xray_flame("xray/%s.flame-%s.txt" % (log, agg))
            if agg == "time":
                # llvm-xray's times hold the callees': drawn from the self
                # times; a stack whose calls never returned (time 0) has
                # none of its own, and its finished callees still count
                t = {st: max(0, v - sum(t[k] for k in t if k.startswith(st + ";") and ";" not in k[len(st) + 1:]))
                     for st, v in t.items()}
            equal(name, "%s %s frames" % (log, agg), got, folded_frames(t))
            n += len(got)
    return n


@check("xray_account.sql")
def _():
    name = "xray_account.sql"
    n = 0
    for log in ("fdr", "basic", "fdr-O2", "fdr-default", "basic-default", "names-fdr", "names-basic"):
        binary = {"fdr-O2": "app-O2.map.elf", "names-fdr": "names.map.elf",
                  "names-basic": "names.map.elf"}.get(log, "app.map.elf")
        want = []
        for line in text("xray/%s.account.txt" % log).splitlines():
            # "funcid count [min, med, 90p, 99p, max] sum <file>:<line>:<col>: name"
            m = re.match(r"\s*(\d+)\s+(\d+)\s+\[\s*([^,]+),\s*([^,]+),\s*([^,]+),\s*([^,]+),\s*([^\]]+)\]"
                         r"\s+(\S+)\s+\S+:\d+:\d+: (.*?)\s*$", line)
            if m:
                want.append([x.strip() for x in m.groups()])
        if len(want) < 3:
            fail(name, "%s: reference has %d functions" % (log, len(want)))
        got = run(name, trace=TD + "/xray/%s.xray" % log, binary=TD + "/xray/" + binary)
        equal(name, log + " account", got, want)
        # without the binary: the same numbers, no names
        got = run(name, trace=TD + "/xray/%s.xray" % log)
        equal(name, log + " account without names", got, [w[:8] + [""] for w in want])
        n += len(got)
    # durations half-way between two printed values (make-halfway.py):
    # llvm-xray rounds the double, 8500 ns to 0.000008
    want = []
    for line in text("xray/halfway.account.txt").splitlines():
        m = re.match(r"\s*(\d+)\s+(\d+)\s+\[\s*([^,]+),\s*([^,]+),\s*([^,]+),\s*([^,]+),\s*([^\]]+)\]"
                     r"\s+(\S+)\s+\(unknown\): #\d+$", line)
        if m:
            want.append([x.strip() for x in m.groups()] + [""])
    if len(want) != 6:
        fail(name, "halfway: reference has %d functions" % len(want))
    got = run(name, trace=TD + "/xray/halfway.xray")
    equal(name, "halfway account", got, want)
    return n + len(got)


@check("xray_folded.sql")
def _():
    name = "xray_folded.sql"
    n = 0
    for log, binary in XRAY_LOGS:
        for agg in ("time", "count"):
            got = run(name, trace=TD + "/xray/%s.xray" % log, binary=TD + "/xray/" + binary, value=agg)
            equal(name, "%s %s" % (log, agg), {r[0]: int(r[1]) for r in got},
                  xray_flame("xray/%s.flame-%s.txt" % (log, agg)))
            n += len(got)
        # self time: each stack's time less its callees' (from llvm-xray's times)
        t = xray_flame("xray/%s.flame-time.txt" % log)
        want = {}
        for st, v in t.items():
            kids = [k for k in t if k.startswith(st + ";") and ";" not in k[len(st) + 1:]]
            want[st] = v - sum(t[k] for k in kids)
        got = run(name, trace=TD + "/xray/%s.xray" % log, binary=TD + "/xray/" + binary, value="self")
        equal(name, log + " self", {r[0]: int(r[1]) for r in got}, want)
        # without the binary: function ids
        got = run(name, trace=TD + "/xray/%s.xray" % log)
        if not got or not all(re.match(r"thread_\d+(;#\d+)+$", r[0]) for r in got):
            fail(name, "%s: stacks without the binary are not thread;#id;...: %r" % (log, got[:3]))
        n += len(got)
    return n


@check("xray_stacks.sql")
def _():
    name = "xray_stacks.sql"
    n = 0
    for log, binary in XRAY_LOGS:
        got = run(name, trace=TD + "/xray/%s.xray" % log, binary=TD + "/xray/" + binary)
        equal(name, log + " calls", {r[0]: int(r[2]) for r in got}, xray_flame("xray/%s.stacks-count.txt" % log))
        equal(name, log + " total", {r[0]: int(r[4]) for r in got}, xray_flame("xray/%s.stacks-time.txt" % log))
        equal(name, log + " depth", [int(r[1]) for r in got], [r[0].count(";") for r in got])
        n += len(got)
    return n


# ---------------------------------------------------------------- CTF

@check("ctf_event_rates.sql")
def _():
    """Counted from babeltrace2's output: "[sec.ns] name: { cpu_id = N }, ..."."""
    name = "ctf_event_rates.sql"
    n = 0
    for t in ("ust-multi", "ust-types", "ust-pid"):
        want = {}
        for line in text("ctf/%s.bt2.txt" % t).splitlines():
            m = re.match(r"\[(\d+)\.\d{9}\] (\S+): \{ cpu_id = (\d+) \}", line)
            if not m:
                fail(name, "%s: unexpected babeltrace2 line %r" % (t, line[:80]))
                continue
            k = (int(m.group(1)), m.group(2), int(m.group(3)))
            want[k] = want.get(k, 0) + 1
        got = run(name, trace=TD + "/ctf/" + t)
        equal(name, t + " rates", {(int(r[0]), r[1], int(r[2])): int(r[3]) for r in got}, want)
        n += len(got)
    return n


@check("ctf_discarded.sql")
def _():
    name = "ctf_discarded.sql"
    n = 0
    for t, nWant in (("ust-discard", 5), ("ust-multi", 0)):
        want = []
        for line in text("ctf/%s.discarded.txt" % t).splitlines():
            m = re.match(r'WARNING: Tracer discarded (\d+) events between \[(\d+)\.(\d{9})\] and '
                         r'\[(\d+)\.(\d{9})\] in trace .* within stream "%s/([^"]*)" '
                         r'\(stream class ID: (\d+), stream ID: (\d+)\)' % t, line)
            if not m:
                fail(name, "%s: unexpected babeltrace2 warning %r" % (t, line[:100]))
                continue
            g = m.groups()
            want.append((g[5], int(g[6]), int(g[7]), int(g[0]),
                         int(g[1]) * 10**9 + int(g[2]), int(g[3]) * 10**9 + int(g[4])))
        equal(name, t + " warnings", len(want), nWant)
        got = run(name, trace=TD + "/ctf/" + t)
        equal(name, t + " discarded", sorted((r[0], int(r[1]), int(r[2]), int(r[4]), int(r[6]), int(r[7])) for r in got),
              sorted(want))
        totals = {}
        for w in want:
            totals[w[0]] = totals.get(w[0], 0) + w[3]
        equal(name, t + " stream totals", {r[0]: int(r[8]) for r in got}, totals)
        n += len(got)
    return n


@check("ctf_busiest_packets.sql")
def _():
    name = "ctf_busiest_packets.sql"
    n = 0
    for t in ("ust-discard", "ust-multi"):
        want = []
        for line in text("ctf/%s.packets.txt" % t).splitlines():
            f = [int(x) for x in line.split()]
            want.append((f[1], f[2], f[3], f[4], f[5]))
        got = run(name, trace=TD + "/ctf/" + t, limit="1000")
        equal(name, t + " packets", sorted((int(r[2]), int(r[3]), int(r[6]), int(r[7]), int(r[5])) for r in got),
              sorted(want))
        equal(name, t + " order", [int(r[5]) for r in got], sorted((w[4] for w in want), reverse=True))
        # @limit
        equal(name, t + " limit", len(run(name, trace=TD + "/ctf/" + t, limit="3")), 3)
        n += len(got)
    return n


# ---------------------------------------------------------------- CPEL

def cpel_ref(path):
    """cpelatency/cpelstate's table lines ("%-20s %10.3f +- %10.3f%12.3f%8d"),
    in their order: [track, n, mean, stdev, total]."""
    out = []
    for line in text(path).splitlines():
        m = re.match(r"(.*?)\s+(\d+\.\d{3}) \+-\s+(\d+\.\d{3})\s+(\d+\.\d{3})\s+(\d+)$", line)
        if m:
            out.append([m.group(1), m.group(5), m.group(2), m.group(3), m.group(4)])
    return out


def check_cpel(name, cases):
    n = 0
    for trace, params, ref in cases:
        want = cpel_ref("cpel/" + ref)
        if not want:
            fail(name, ref + ": no lines")
        got = run(name, trace=TD + "/cpel/" + trace, **params)
        # tracks without a definition (named by their number) are rows here
        # and left out by the tools
        got = [r[:5] for r in got if not re.match(r"\d+$", r[0])]
        equal(name, "%s %r" % (trace, params), got, want)
        n += len(got)
    return n


@check("cpel_latency.sql")
def _():
    return check_cpel("cpel_latency.sql", (
        ("states.cpel", {}, "states.latency-2-1.txt"),
        ("states.cpel", {"start": "3", "end": "1"}, "states.latency-3-1.txt")))


@check("cpel_state.sql")
def _():
    name = "cpel_state.sql"
    n = check_cpel(name, (
        ("states.cpel", {}, "states.state-1.txt"),
        ("states.cpel", {"code": "3"}, "states.state-3.txt"),
        ("states.cpel", {"kernel": "1"}, "states.state-1-kernel.txt"),
        ("demo.cpel", {"code": "2"}, "demo.state-2.txt")))
    undefined = [r for r in run(name, trace=TD + "/cpel/states.cpel") if r[0] == "9"]
    equal(name, "the undefined track", [r[1] for r in undefined], ["1"])
    return n


# ---------------------------------------------------------------- main

def main():
    global SO
    ap = argparse.ArgumentParser()
    ap.add_argument("--so", required=True, help="the built tracelite.so")
    ap.add_argument("only", nargs="*", help="sql/ files to check (default: all)")
    a = ap.parse_args()
    if shutil.which("sqlite3") is None:
        print("sql library: the sqlite3 shell is not installed (Debian: apt-get install sqlite3)")
        return 1
    SO = os.path.abspath(a.so)
    if SO.endswith(".so"):
        SO = SO[:-3]
    files = sorted(os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "sql", "*.sql")))
    files = [f for f in files if not f.startswith(OTHER_TESTS)]
    for f in files:
        if f not in CHECKS:
            fail(f, "no check in tests/sql_library.py")
    nRows = 0
    for f in files:
        if a.only and f not in a.only:
            continue
        if f not in CHECKS:
            continue
        try:
            nRows += CHECKS[f]()
        except (RuntimeError, OSError, KeyError, ValueError, IndexError, subprocess.TimeoutExpired) as e:
            fail(f, "%s: %s" % (type(e).__name__, e))
    for msg in failures:
        print("FAIL " + msg)
    print("sql library: %d files, %d result rows compared, %d failed" % (len(files), nRows, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
