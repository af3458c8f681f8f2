#!/usr/bin/env python3
"""bench.py: times tracelite queries and the peer tools' commands side by side
on the same recorded traces and prints one table.

Every command runs once to warm the page cache, then --runs times, in turn
with the command it is compared with (a, b, a, b, ...); a row that compares
two of our own queries (both well under a second) runs --self-runs times, as
its ratio stands on two noisy medians rather than one; before each run the
trace files the command names are read once more, untimed: this machine's
kernel may page out file pages it has not seen used for a while, and the
goals are for a warm page cache. The table shows the
median wall time (min-max), the ratio peer/tracelite, the goal, and
the peak RSS of each side (the kernel's maxrss of the process). For tracelite
it also shows the peak anonymous memory (RssAnon, sampled every 2 ms): RSS
counts the trace's pages mapped from the page cache, which grow with the
trace and are not ours to free; RssAnon is what the process allocated. A
peer that fails is shown as failed in its row; the run goes on. Paths come
from record.sh's output. --only limits the rows to some groups (ctf, perf,
cookbook, sched, xray, small, scale); sched times the sql/ sched files
against perf sched and perf trace -s on the tracepoint recording
(--perf-tp), and compares every line of perf trace -s's summary with
syscall_stats.sql's; cookbook times the sql/ library's perf files against
the perf commands they answer like and compares their top rows. The scale
group times the same queries on the small and the full recordings
(--scale-small names the small ones) in a second table.
Standard library only.
"""
import argparse, os, re, statistics, subprocess, sys, tempfile, threading, time

SQLITE = "/usr/bin/sqlite3"   # Debian's sqlite3 (3.40): the one the goals assume
TIME = "/usr/bin/time"


class Failed(Exception):
    pass


def rss_anon(pid):
    """RssAnon of a running process in KiB, or 0."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def trace_files(argv):
    """The files argv names (whole words, quoted paths, key=path values, and
    the files below a named directory), for warm()."""
    files = []
    for word in argv:
        for tok in re.split(r"[\s'\"=,()]+", word):
            if tok in ("", ".", "/") or not os.path.exists(tok):
                continue
            if os.path.isdir(tok):
                for d, _, names in os.walk(tok):
                    files.extend(os.path.join(d, n) for n in names)
            elif os.path.isfile(tok):
                files.append(tok)
    return files


_warm_files = {}


def warm(argv):
    """Read the trace files argv names (untimed): pages the kernel dropped
    since the last run come back into the page cache."""
    key = tuple(argv)
    if key not in _warm_files:
        _warm_files[key] = trace_files(argv)
    for path in _warm_files[key]:
        try:
            with open(path, "rb", buffering=0) as f:
                while f.read(4 << 20):
                    pass
        except OSError:
            pass


def run_once(argv, out=subprocess.DEVNULL):
    """Run argv (its trace files read first, untimed); return (seconds, peak
    RSS KiB, peak RssAnon KiB, stdout)."""
    warm(argv)
    with tempfile.TemporaryFile("w+") as err, tempfile.TemporaryFile("w+") as outf:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdout=outf if out == subprocess.PIPE else out, stderr=err)
        # the peak RssAnon sampled every 2 ms beside a wait that returns as
        # the command ends (a wait polled between samples counted up to a
        # sample's interval more than the command took); the command is
        # reaped only once sampling stopped, so its pid is not reused
        done, anon = threading.Event(), [0]

        def sample():
            while not done.wait(0.002):
                anon[0] = max(anon[0], rss_anon(p.pid))
        sampler = threading.Thread(target=sample)
        sampler.start()
        os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
        dt = time.perf_counter() - t0
        done.set()
        sampler.join()
        anon = anon[0]
        pid, status, ru = os.wait4(p.pid, 0)
        code = os.waitstatus_to_exitcode(status)
        p.returncode = code
        if code != 0:
            err.seek(0)
            lines = [l for l in err.read().splitlines() if l.strip()]
            raise Failed("exit %d: %s" % (code, lines[-1][:60] if lines else ""))
        outf.seek(0)
        # the start only: the log keeps 12 lines, and holding a peer's whole
        # output (GBs for perf script) here would make every later child
        # inherit this process's size as its starting peak RSS
        text = outf.read(1 << 16) if out == subprocess.PIPE else None
    return dt, ru.ru_maxrss, anon, text


_cache = {}


def summary(samples):
    """(median s, min s, max s, peak RSS KiB, peak RssAnon KiB) of run_once() results."""
    ts = sorted(s[0] for s in samples)
    return (statistics.median(ts), ts[0], ts[-1], max(s[1] for s in samples),
            max(s[2] for s in samples))


def warm_up(argv, log):
    """The warm-up run: its output goes to the log. True if it ran."""
    try:
        out = run_once(argv, subprocess.PIPE)[3]
        log.write("$ %s\n%s\n" % (" ".join(argv), "\n".join(out.splitlines()[:12])))
        return True
    except Failed as e:
        log.write("$ %s\nFAILED %s\n" % (" ".join(argv), e))
        _cache[tuple(argv)] = e
        return False


def measure(argv, runs, log):
    """Warm-up run, then runs timed runs."""
    key = tuple(argv)
    if key not in _cache and warm_up(argv, log):
        try:
            _cache[key] = summary([run_once(argv) for _ in range(runs)])
        except Failed as e:
            log.write("$ %s\nFAILED %s\n" % (" ".join(argv), e))
            _cache[key] = e
    return _cache[key]


def measure_pair(a, b, runs, log):
    """Two commands timed in turn, run by run (a, b, a, b, ...), after a
    warm-up of each: the machine's slower and faster spells then fall on both
    alike, and their ratio is what it would be on a quiet machine. Returns
    the measure() tuples of a and b (each also kept as its command's)."""
    key = ("pair", tuple(a), tuple(b))
    if key not in _cache:
        okA, okB = warm_up(a, log), warm_up(b, log)
        if okA and okB:
            samples = {tuple(a): [], tuple(b): []}
            for _ in range(runs):
                for argv in (a, b):
                    k = tuple(argv)
                    if isinstance(samples[k], Failed):
                        continue
                    try:
                        samples[k].append(run_once(argv))
                    except Failed as e:
                        log.write("$ %s\nFAILED %s\n" % (" ".join(argv), e))
                        samples[k] = e
            for k, v in samples.items():
                _cache[k] = v if isinstance(v, Failed) else summary(v)
        _cache[key] = (measure(a, runs, log), measure(b, runs, log))
    return _cache[key]


def sql(so, query):
    return [SQLITE, ":memory:", ".load " + so, query]


def measure_second(so, first, query, runs, log, repeat=20):
    """Time query after first in the same process (the index built and cached
    by first): the mean of the sqlite3 shell's .timer wall times ("real", in
    ms steps) of repeat runs of query. The shell reads the script on stdin
    (.timer is ignored for statements given as arguments). Returns the
    measure() tuple; the RSS is the whole process's (its anonymous part is
    not sampled: None)."""
    script = ".load %s\n%s;\n.timer on\n%s" % (so, first, (query + ";\n") * repeat)
    key = ("second", script)
    if key not in _cache:
        try:
            samples = []
            for i in range(runs + 1):
                warm([script])
                with tempfile.TemporaryFile("w+") as f:
                    f.write(script)
                    f.seek(0)
                    with tempfile.NamedTemporaryFile("r") as rss:
                        p = subprocess.run([TIME, "-f", "%M", "-o", rss.name, SQLITE, ":memory:"],
                                           stdin=f, capture_output=True, text=True)
                        if p.returncode != 0:
                            raise Failed("exit %d" % p.returncode)
                        kib = int(rss.read().split()[-1])
                out = p.stdout
                real = [float(l.split()[3]) for l in out.splitlines() if l.startswith("Run Time: real")]
                if len(real) != repeat:
                    raise Failed("no .timer output")
                if i == 0:
                    log.write("$ sqlite3 :memory: <<EOF\n%sEOF\n%s\n" % (script[:400], "\n".join(out.splitlines()[:12])))
                else:
                    samples.append((sum(real) / repeat, kib))
            ts = sorted(s[0] for s in samples)
            _cache[key] = (statistics.median(ts), ts[0], ts[-1], max(s[1] for s in samples), None)
        except Failed as e:
            log.write("$ sqlite3 :memory: <<EOF\n%sEOF\nFAILED %s\n" % (script[:400], e))
            _cache[key] = e
    return _cache[key]


SQL_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "sql")


def sql_file(so, name, trace, options, sep="|"):
    """The sqlite3 shell reading sql/NAME with @trace and @options set."""
    return [SQLITE, "-batch", "-separator", sep, "-cmd", ".load " + so,
            "-cmd", ".parameter set @trace '%s'" % trace, "-cmd", ".parameter set @options '%s'" % options,
            ":memory:", ".read " + os.path.join(SQL_DIR, name)]


def top_rows(name, tl, peer, n=5):
    """The n first rows of a cookbook file and of its perf command, as
    (samples, key) (folded stacks: (value, stack)); None if either failed."""
    try:
        ours = subprocess.run(tl, capture_output=True, text=True, check=True).stdout.splitlines()
        out = subprocess.run(peer, capture_output=True, text=True, check=True)
        # (perf trace -s writes its summary to stderr)
        theirs = (out.stderr if name == "syscall_stats.sql" else out.stdout).splitlines()
    except (subprocess.CalledProcessError, OSError):
        return None
    if name == "syscall_stats.sql":
        # every line of the summary: (thread, events, %, call, calls,
        # errors, total, min, avg, max, stddev), the lines perf prints that
        # differ from ours (and ours that differ from perf's), up to n each
        b, cur = set(), None
        for line in theirs:
            m = re.match(r"\s+(.*) \((\d+)\), (\d+) events, ([\d.]+)%", line)
            if m:
                cur = ("%s (%s)" % (m.group(1), m.group(2)), m.group(3), m.group(4))
                continue
            m = re.match(r"\s+(\w+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)%",
                         line)
            if m and cur:
                b.add(cur + m.groups())
        a = set(tuple(r.split("|")) for r in ours if r.count("|") == 10)
        if not a or not b:
            return None
        return sorted(a - b)[:n] + [len(a)], sorted(b - a)[:n] + [len(b)]
    if name == "perf_folded.sql":
        top = lambda lines: sorted(((int(l.rsplit(" ", 1)[1]), l.rsplit(" ", 1)[0]) for l in lines if " " in l),
                                   reverse=True)[:n]
        return top(ours), top(theirs)
    if name == "perf_tracepoints.sql":
        # per event: its SAMPLE count, perf report --stats's "SAMPLE events"
        a = sorted((int(r.split("|")[1]), r.split("|")[0]) for r in ours if r.count("|") >= 1)[::-1][:n]
        b, ev = [], None
        for line in theirs:
            m = re.match(r"(\S+) stats:$", line)
            if m:
                ev = m.group(1) if m.group(1) != "Aggregated" else None   # the file's total
            m = re.match(r"\s+SAMPLE events:\s+(\d+)", line)
            if m and ev:
                b.append((int(m.group(1)), ev))
        return a, sorted(b, reverse=True)[:n]
    if name == "perf_lost.sql":
        # the LOST records in all (--stats' aggregated "LOST events") and the
        # samples each event lost (its section's "LOST_SAMPLES events"):
        # every entry, a few per event (the LOST count would not be in the top)
        a, b, ev = {}, {}, None
        for r in ours:
            f = r.split("|")
            if len(f) >= 5:
                key, v = ("LOST", int(f[3])) if f[0] == "LOST" else (f[1], int(f[4]))
                a[key] = a.get(key, 0) + v
        for line in theirs:
            m = re.match(r"(\S+) stats:$", line)
            if m:
                ev = m.group(1)
            m = re.match(r"\s+(LOST|LOST_SAMPLES) events:\s+(\d+)", line)
            if m and ev and (ev == "Aggregated") == (m.group(1) == "LOST"):
                b["LOST" if ev == "Aggregated" else ev] = int(m.group(2))
        top = lambda d: sorted(((v, k) for k, v in d.items()), reverse=True)
        return top(a), top(b)
    a = []
    for r in ours[:n]:
        f = r.split("|")
        a.append((int(f[1]), ":".join(f[4:]) if name == "perf_report_thread.sql" else f[4]))
    b = []
    for line in theirs:
        m = re.match(r"\s+\d+\.\d\d%\s+(\d+)\s+(.*?)\s*$", line)
        if m and len(b) < n:
            key = m.group(2)
            if name == "perf_report_cpu.sql" and key.isdigit():
                key = str(int(key))           # perf prints the CPU as 003
            b.append((int(m.group(1)), key))
    return a, b


def sql_value(so, query):
    out = subprocess.run(sql(so, query), capture_output=True, text=True, check=True).stdout
    return [int(v) for v in out.split("|")]


def fmt(m):
    if isinstance(m, Exception):
        return "failed"
    med, lo, hi = m[:3]
    return "%.3f s (%.3f-%.3f)" % (med, lo, hi) if med >= 0.1 else \
           "%.1f ms (%.1f-%.1f)" % (med * 1e3, lo * 1e3, hi * 1e3)


def print_table(table):
    w = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    for i, r in enumerate(table):
        print(" | ".join(c.ljust(w[j]) for j, c in enumerate(r)).rstrip())
        if i == 0:
            print("-+-".join("-" * x for x in w))


def scale(so, small, full, runs, log):
    """Part 3 of the goals: the same queries on the small and the full
    recording (10x the events). A window holding as many events (1% of the small
    trace's, from each trace's middle event on) should cost the same on
    both; a full scan's allocated memory (RssAnon) should not grow with the
    trace, nor should its peak RSS (mapped pages included). small and full
    map a format to (trace, table query prefix)."""
    head = ("scale: small vs full trace", "small trace", "full trace", "full/small",
            "anon small MiB", "anon full MiB", "RSS small MiB", "RSS full MiB")
    table = [head]
    mib = lambda m, i=4: "-" if isinstance(m, Exception) or m[i] is None else "%.1f" % (m[i] / 1024)
    for fmt_name, typ in (("CTF", ""), ("perf", " AND type='SAMPLE'"), ("XRay", "")):
        if fmt_name not in small or fmt_name not in full:
            continue
        S, F = "'%s'" % small[fmt_name], "'%s'" % full[fmt_name]
        where = typ[5:] if typ else "1"
        span = lambda T: sql_value(so, "SELECT min(ts), max(ts) FROM events(%s) WHERE %s" % (T, where))
        # the same number of events in both windows, from the middle event
        # on: the full trace may be denser in time than the small one, events
        # come in bursts, and a window's cost is its events
        count = lambda T: sql_value(so, "SELECT count(*) FROM events(%s) WHERE %s" % (T, where))[0]
        at = lambda T, k: sql_value(so, "SELECT ts FROM events(%s) WHERE %s ORDER BY ts LIMIT 1 OFFSET %d"
                                    % (T, where, k))[0]
        # (XRay's events have no ts order of their own to skip through: there
        # the window is 1% of the small trace's span, as wide on both)
        nS = count(S)
        qs = {}
        for T in (S, F):
            if fmt_name == "XRay":
                lo, hi = span(S)
                a, b = span(T)
                lo, hi = a + (b - a) // 2, a + (b - a) // 2 + (hi - lo) // 100
            else:
                mid = count(T) // 2
                lo, hi = at(T, mid), at(T, mid + nS // 100)
            qs[T] = "SELECT count(*) FROM events(%s) WHERE ts BETWEEN %d AND %d%s" % (T, lo, hi, typ)
        tag = "%s window, 1%% of the small trace's %s" % (fmt_name, "span" if fmt_name == "XRay" else "events")
        # no format has an index on disk: the first query of a process walks
        # the file to build one (kept for later queries), so that part grows
        # with the file by nature; the walk alone (no row is rowid -1) is a
        # row of its own
        walk = lambda T: "SELECT count(*) FROM events(%s) WHERE rowid = -1" % T
        pair = [measure(sql(so, walk(T)), runs, log) for T in (S, F)]
        table.append(scale_row(fmt_name + " index walk alone (fresh process)", pair, mib))
        pair = [measure(sql(so, qs[T]), runs, log) for T in (S, F)]
        table.append(scale_row(tag + ", first query (builds the index)", pair, mib))
        pair = [measure_second(so, walk(T), qs[T], runs, log) for T in (S, F)]
        table.append(scale_row(tag + ", index built", pair, mib))
        pair = [measure(sql(so, "SELECT count(*) FROM events(%s)" % T), runs, log) for T in (S, F)]
        table.append(scale_row(fmt_name + " full scan count(*)", pair, mib))
    print()
    print_table(table)


def scale_row(tag, pair, mib):
    ok = not any(isinstance(m, Exception) for m in pair)
    return (tag, fmt(pair[0]), fmt(pair[1]), "%.2fx" % (pair[1][0] / pair[0][0]) if ok else "-",
            mib(pair[0]), mib(pair[1]), mib(pair[0], 3), mib(pair[1], 3))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--so", default="./tracelite")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--self-runs", type=int, default=11,
                    help="runs of the rows comparing two tracelite queries")
    ap.add_argument("--log", required=True)
    ap.add_argument("--only", default="", help="comma-separated groups: ctf, perf, cookbook, sched, xray, small, scale")
    ap.add_argument("--perf-tp", default="", help="a perf.data of sched and raw_syscalls tracepoints")
    ap.add_argument("--small", required=True, help="a small perf.data")
    ap.add_argument("--scale-small", default="",
                    help="the small recordings for the scale table: CTF=dir,perf=file,XRay=file")
    for k in ("ctf", "perf", "perfz", "xray", "xray-bin"):
        ap.add_argument("--" + k, required=True)
    ap.add_argument("--perf-dwarf", default="", help="a perf.data recorded with --call-graph dwarf")
    a = ap.parse_args()
    so, runs = os.path.abspath(a.so), max(a.runs, 5)
    self_runs = max(a.self_runs, runs)
    only = [g for g in a.only.split(",") if g]
    on = lambda g: not only or g in only
    rows = []   # (goal text, tracelite argv, peer argv | ("self", argv) | None, goal ratio)

    if on("ctf"):
        # CTF: counts, a 1% window at 50% and 98% of the span, one CPU
        T = "'%s'" % a.ctf
        bt_count = ["babeltrace2", a.ctf, "-c", "sink.utils.counter"]
        full = sql(so, "SELECT count(*) FROM events(%s)" % T)
        rows.append(("CTF count(*)", full, bt_count, 8))
        rows.append(("CTF count by name", sql(so, "SELECT name, count(*) FROM events(%s) GROUP BY name" % T), bt_count, 5))
        # the span of the events (packets may end long after their last event)
        lo, hi = sql_value(so, "SELECT min(ts), max(ts) FROM events(%s)" % T)
        for pos in (50, 98):
            b = lo + (hi - lo) * pos // 100
            e = b + (hi - lo) // 100
            s = lambda ns: "%d.%09d" % divmod(ns, 10**9)
            q = sql(so, "SELECT count(*) FROM events(%s) WHERE ts BETWEEN %d AND %d" % (T, b, e))
            rows.append(("CTF 1%% window at %d%%" % pos, q,
                         bt_count[:2] + ["--begin=" + s(b), "--end=" + s(e)] + bt_count[2:], 50))
            rows.append(("  same, vs own full scan (<=3%)", q, ("self", full), 100 / 3))
        rows.append(("CTF cpu = 1, vs own full scan (<=60%)",
                     sql(so, "SELECT count(*) FROM events(%s) WHERE cpu = 1" % T), ("self", full), 100 / 60))

    if on("perf"):
        # perf: sample counts (plain and -z), per-CPU sums, a window, one CPU, top symbols
        for label, path, goal in (("perf", a.perf, 1), ("perf -z", a.perfz, 1.5)):
            rows.append((label + " count samples",
                         sql(so, "SELECT count(*) FROM events('%s') WHERE type='SAMPLE'" % path),
                         ["perf", "report", "-i", path, "--stats"], goal))
        P = "'%s'" % a.perf
        rows.append(("perf per-CPU count, sum(period)",
                     sql(so, "SELECT cpu, count(*), sum(value) FROM events(%s) WHERE type='SAMPLE' GROUP BY cpu" % P),
                     ["sh", "-c", "perf script -i '%s' -F time,cpu,ip -G | wc -l" % a.perf], 5))
        lo, hi = sql_value(so, "SELECT min(ts), max(ts) FROM events(%s) WHERE type='SAMPLE'" % P)
        b_us = (lo + (hi - lo) // 2) // 1000
        e_us = b_us + (hi - lo) // 100 // 1000
        us = lambda v: "%d.%06d" % divmod(v, 10**6)
        win = "SELECT count(*) FROM events(%s) WHERE type='SAMPLE' AND ts BETWEEN %d AND %d" \
            % (P, b_us * 1000, e_us * 1000 + 999)
        win_peer = ["perf", "script", "-i", a.perf, "--time", "%s,%s" % (us(b_us), us(e_us))]
        rows.append(("perf 1% window at 50%, first query", sql(so, win), win_peer, None))
        # the goal: once the index is built (a first query in the same
        # process builds it); only the second query is timed, by sqlite3's .timer
        rows.append(("perf 1% window at 50%, index built",
                     ("second", "SELECT count(*) FROM events(%s) WHERE rowid = -1" % P, win),
                     win_peer, 20))
        rows.append(("perf cpu = 1",
                     sql(so, "SELECT count(*) FROM events(%s) WHERE type='SAMPLE' AND cpu = 1" % P),
                     ["perf", "script", "-i", a.perf, "-C", "1"], 20))
        rows.append(("perf top 10 symbols",
                     sql(so, "SELECT symbol, count(*) FROM callchains(%s) WHERE depth = 0 "
                             "GROUP BY 1 ORDER BY 2 DESC LIMIT 10" % P),
                     ["perf", "report", "-i", a.perf, "--no-children", "-g", "none", "--sort", "sym", "--stdio"], 1))

    cookbook = []   # (sql file, tracelite argv, perf argv, key of a perf line) whose top rows are compared
    if on("cookbook"):
        # the sql/ library's perf files against the perf commands they answer
        # like, as a user runs them: no options (kernel symbols found as
        # perf finds them: the recorded kernel's, the top rows compared)
        opts = ""
        report = ["perf", "report", "-i", a.perf, "--no-children", "-g", "none", "-n", "--stdio"]
        for f, sort, goal in (("perf_report_sym.sql", "sym", 1), ("perf_report_dso.sql", "dso", 1),
                              ("perf_report_comm.sql", "comm", 1), ("perf_report_thread.sql", "pid", 1),
                              ("perf_report_cpu.sql", "cpu", 1)):
            tl = sql_file(so, f, a.perf, opts)
            rows.append(("cookbook %s" % f, tl, report + ["--sort", sort], goal))
            cookbook.append((f, tl, report + ["--sort", sort]))
        # --call-graph dwarf: the same symbols of the samples' own addresses
        # (the user stacks are not needed for them, on either side)
        if a.perf_dwarf:
            report_d = ["perf", "report", "-i", a.perf_dwarf, "--no-children", "-g", "none", "-n", "--stdio"]
            tl = sql_file(so, "perf_report_sym.sql", a.perf_dwarf, opts)
            rows.append(("cookbook perf_report_sym.sql, dwarf", tl, report_d + ["--sort", "sym"], 2))
            cookbook.append(("perf_report_sym.sql, dwarf", tl, report_d + ["--sort", "sym"]))
        # folded stacks: perf script through stackcollapse-perf.pl (FlameGraph,
        # STACKCOLLAPSE=its path), else through perf's own stackcollapse report
        # (other names and sample counts: timed, not compared)
        sc = os.environ.get("STACKCOLLAPSE", "")
        fold = ["sh", "-c", "perf script -i '%s' 2>/dev/null | LC_ALL=C perl '%s'" % (a.perf, sc)] if sc else \
            ["sh", "-c", "perf script report stackcollapse -i '%s' 2>/dev/null" % a.perf]
        tl = sql_file(so, "perf_folded.sql", a.perf, opts, sep=" ")
        rows.append(("cookbook perf_folded.sql", tl, fold, 1))
        if sc:
            cookbook.append(("perf_folded.sql", tl, fold))
        # perf stat's counters: a small perf stat record file made here
        # (perf stat files hold one record per counter, CPU and thread)
        stat = os.path.join(tempfile.mkdtemp(prefix="tracelite-stat-"), "stat.data")
        if subprocess.run(["perf", "stat", "record", "-a", "-o", stat, "-e",
                           "task-clock,context-switches,cpu-migrations,page-faults", "--", "sleep", "0.2"],
                          capture_output=True).returncode == 0:
            rows.append(("cookbook perf_stat.sql", sql_file(so, "perf_stat.sql", stat, ""),
                         ["perf", "stat", "report", "-i", stat], 1))

    if on("cookbook") and a.perf_tp:
        # tracepoint counts per event: perf report --stats's SAMPLE events
        tl = sql_file(so, "perf_tracepoints.sql", a.perf_tp, "")
        peer = ["perf", "report", "-i", a.perf_tp, "--stats"]
        rows.append(("cookbook perf_tracepoints.sql", tl, peer, 1))
        cookbook.append(("perf_tracepoints.sql", tl, peer))
        # what the recording lost: --stats' LOST and LOST_SAMPLES counts
        tl = sql_file(so, "perf_lost.sql", a.perf_tp, "")
        rows.append(("cookbook perf_lost.sql", tl, peer, 1))
        cookbook.append(("perf_lost.sql", tl, peer))

    if on("sched") and a.perf_tp:
        # the sql/ sched files against perf sched on the tracepoint recording
        for f, cmd, goal in (("sched_timehist.sql", ["sched", "timehist"], 1),
                             ("sched_runtime.sql", ["sched", "timehist", "-s"], 1),
                             ("sched_latency.sql", ["sched", "latency"], 1),
                             ("syscall_stats.sql", ["trace", "-s"], 1)):
            rows.append(("sched %s" % f, sql_file(so, f, a.perf_tp, ""),
                         ["perf"] + cmd + ["-i", a.perf_tp], goal))
        # every line of perf trace -s's summary compared
        f = "syscall_stats.sql"
        cookbook.append((f, sql_file(so, f, a.perf_tp, ""), ["perf", "trace", "-s", "-i", a.perf_tp]))

    if on("xray"):
        # XRay: llvm-xray account (LLVM 14) rejects this 4-thread FDR log
        # ("Error processing record", then fails); -keep-going lets it finish,
        # its error report (tens of MB) is discarded.
        X = "'%s'" % a.xray
        acct = ["sh", "-c", "llvm-xray account -keep-going '%s' -instr_map='%s' 2>/dev/null"
                % (a.xray, a.xray_bin)]
        rows.append(("XRay count(*)", sql(so, "SELECT count(*) FROM events(%s)" % X), acct, 20))
        rows.append(("XRay per-function stats",
                     sql(so, "SELECT func_id, count(*), min(dur), max(dur), sum(dur) FROM xray_calls(%s, "
                             "'binary=%s') GROUP BY func_id" % (X, a.xray_bin)), acct, 5))
        # the sql/ XRay files against the llvm-xray commands they answer like
        # (account -keep-going drops records of this log: timed, not compared)
        def xray_file(name):
            return [SQLITE, "-batch", "-cmd", ".load " + so, "-cmd", ".parameter set @trace '%s'" % a.xray,
                    "-cmd", ".parameter set @binary '%s'" % a.xray_bin, ":memory:",
                    ".read " + os.path.join(SQL_DIR, name)]
        stack = "llvm-xray stack -all-stacks -stack-format=flame -instr_map='%s' '%s'" % (a.xray_bin, a.xray)
        rows.append(("cookbook xray_account.sql", xray_file("xray_account.sql"), acct, 2))
        rows.append(("cookbook xray_folded.sql", xray_file("xray_folded.sql"),
                     ["sh", "-c", stack + " 2>/dev/null"], 2))
        rows.append(("cookbook xray_stacks.sql", xray_file("xray_stacks.sql"),
                     ["sh", "-c", stack.replace(" -all-stacks", " -all-stacks -aggregate-threads") + " 2>/dev/null"], 2))
    if on("small"):
        rows.append(("small trace, whole process (<=20 ms)",
                     sql(so, "SELECT count(*) FROM events('%s')" % a.small), None, None))

    head = ("goal", "tracelite median (min-max)", "peer median (min-max)", "ratio", "goal",
            "met", "RSS tl MiB", "anon tl MiB", "RSS peer MiB")
    table = [head]
    log = open(a.log, "w")
    for goal, tl, peer, want in rows:
        print("  timing: " + goal.strip(), file=sys.stderr, flush=True)
        if tl[0] == "second" or peer is None:
            t = measure_second(so, tl[1], tl[2], runs, log) if tl[0] == "second" else measure(tl, runs, log)
            p = None if peer is None else measure(peer, runs, log)
        else:
            # in turn with the peer (or our own full scan) it is compared with
            t, p = measure_pair(tl, peer[1] if peer[0] == "self" else peer,
                                self_runs if peer[0] == "self" else runs, log)
        ratio, met, goal_txt = "-", "-", "-"
        if isinstance(t, Exception):
            ratio, met = "tracelite " + str(t), "no"
        elif peer is None:
            ratio, met, want = "-", "yes" if t[0] <= 0.020 else "no", None
            goal_txt = "<= 20 ms"
        elif isinstance(p, Exception):
            ratio = "peer " + str(p)
        else:
            r = p[0] / t[0]
            ratio, met = "%.2fx" % r, "-" if want is None else "yes" if r >= want else "no"
        if want is not None:
            goal_txt = ">= %.2fx" % want if want < 10 else ">= %.0fx" % want
        rss = lambda m, i=3: "-" if m is None or isinstance(m, Exception) or m[i] is None \
            else "%.1f" % (m[i] / 1024)
        table.append((goal, fmt(t), "(own scan) " + fmt(p) if peer and peer[0] == "self"
                      else ("-" if p is None else fmt(p)), ratio, goal_txt, met, rss(t), rss(t, 4),
                      "-" if peer and peer[0] == "self" else rss(p)))
    if len(table) > 1:
        print_table(table)
    if cookbook:
        print("\ncookbook: the top rows (samples or value, key) of each file and of its perf command")
        for name, tl, peer in cookbook:
            got = top_rows(name, tl, peer)
            if got is None:
                print("  %s: failed" % name)
                continue
            print("  %s: %s" % (name, "the same" if got[0] == got[1] else "DIFFER"))
            if got[0] != got[1]:
                for x, y in zip(got[0], got[1]):
                    print("    ours %r\n    perf %r" % (x, y))
    if on("scale"):
        if a.scale_small:
            small = dict(kv.split("=", 1) for kv in a.scale_small.split(","))
            scale(so, small, {"CTF": a.ctf, "perf": a.perf, "XRay": a.xray}, runs, log)
        else:
            print("\nscale: compares the full-size recordings with the small ones, so it runs at BENCH_SCALE=full only")
    worst = max((m[3] for k, m in _cache.items() if k[0] == SQLITE and not isinstance(m, Exception)),
                default=0)
    anon = max((m[4] for k, m in _cache.items() if k[0] == SQLITE and not isinstance(m, Exception)),
               default=0)
    print("\npeak RSS of tracelite queries: %.1f MiB, of it anonymous (allocated, not the trace's"
          " mapped pages): %.1f MiB (goal <= 64 MiB plus the index)" % (worst / 1024, anon / 1024))
    print("runs per command: %d after one warm-up (%d in the rows against our own full scan); first output"
          " lines of each command in %s" % (runs, self_runs, a.log))


if __name__ == "__main__":
    main()
