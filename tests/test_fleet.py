#!/usr/bin/python3
"""The Python package and tracelite.fleet on a real Dask cluster.

    /usr/bin/python3 tests/test_fleet.py --so build/tracelite.so

Starts `dask scheduler` and two `dask worker` processes on 127.0.0.1 (TCP,
free ports, killed at the end whatever happens), runs fleet queries over
the traces in testdata/ (CTF, perf.data, XRay, CPEL) and checks that the
rows equal the same SQL run in this one process over trace_files(); kills a
worker in the middle of a run of slow queries and checks the answer is
still complete; checks that a damaged trace shows in `errors` with the
reader's own message. Also: tracelite.query() and the cookbook, the APSW
fallback, `make install` of the package, the command line. Skipped (exit 0,
with the reason) when Python's `distributed` (Debian: python3-distributed)
is missing. Run by `make test`.
"""
import argparse
import atexit
import io
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import types
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TD = os.path.join(ROOT, "testdata")
sys.path.insert(0, os.path.join(ROOT, "python"))

import tracelite                                   # noqa: E402

try:
    import distributed
    from tracelite import fleet
except ImportError as e:
    distributed = None
    WHY = "%s (Debian: python3-distributed)" % e

# Traces of the four formats, linked into one folder so that one glob takes
# them all: name in the folder -> testdata path.
TRACES = {
    "cpel-demo.cpel": "cpel/demo.cpel",
    "cpel-states.cpel": "cpel/states.cpel",
    "ctf-multi": "ctf/ust-multi",
    "ctf-pid": "ctf/ust-pid",
    "ctf-types": "ctf/ust-types",
    "perf-cpu-clock-g.data": "perf/cpu-clock-g.data",
    "perf-multi.data": "perf/multi.data",
    "perf-pipe.data": "perf/pipe.data",
    "perf-sched.data": "perf/sched.data",
    "perf-zstd.data": "perf/zstd.data",
    "xray-basic.xray": "xray/basic.xray",
    "xray-fdr.xray": "xray/fdr.xray",
}
DAMAGED = os.path.join(TD, "perf", "bad", "no-attr.data")   # a reader error, found by fuzzing

PER_NAME = ("SELECT name, type, count(*) AS n, min(ts) AS first, max(ts) AS last"
            " FROM events(@trace) GROUP BY 1, 2")
PER_NAME_ONE_PROCESS = (
    "SELECT f.path, e.name, e.type, count(*), min(e.ts), max(e.ts)"
    " FROM trace_files(@pattern) f, events(f.path) e"
    " WHERE f.format IS NOT NULL GROUP BY 1, 2, 3")
# about half a second of SQLite per trace, the same value for every trace
SPIN = ("(SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL"
        " SELECT x + 1 FROM c WHERE x < @spin) SELECT x FROM c))")
SLOW = ("SELECT name, type, count(*) AS n, min(ts) AS first, max(ts) AS last, %s AS spin"
        " FROM events(@trace) GROUP BY 1, 2" % SPIN)
SPIN_N = 1000000
COMBINE_COMM = ("SELECT event, comm, sum(samples) AS samples, sum(period) AS period"
                " FROM fleet GROUP BY 1, 2 ORDER BY 4 DESC, 2")

TMP = None
PROCS = []          # the dask processes we started
SCHED = None        # tcp://127.0.0.1:port
CLIENT = None
LOGS = []


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_all():
    """Kills every process this test started, by its own process group."""
    global CLIENT
    if CLIENT is not None:
        try:
            CLIENT.close()
        except Exception:
            pass
        CLIENT = None
    for p in PROCS:
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
        p.wait()
    PROCS.clear()


def start(name, args, env):
    log = open(os.path.join(TMP, name + ".log"), "w")
    LOGS.append(log.name)
    p = subprocess.Popen([sys.executable, "-m", "dask"] + args, stdout=log, stderr=log,
                         env=env, cwd=TMP, start_new_session=True)
    PROCS.append(p)
    return p


def start_cluster(so):
    """dask scheduler and workers w1, w2 (one thread each, no nanny, so
    killing one kills it for good)."""
    global SCHED, CLIENT
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), TRACELITE_SO=so)
    port = free_port()
    SCHED = "tcp://127.0.0.1:%d" % port
    start("scheduler", ["scheduler", "--host", "127.0.0.1", "--port", str(port),
                        "--no-dashboard"], env)
    workers = {}
    for name in ("w1", "w2"):
        workers[name] = start(name, [
            "worker", SCHED, "--host", "127.0.0.1", "--name", name, "--nthreads", "1",
            "--no-nanny", "--no-dashboard", "--local-directory", os.path.join(TMP, name)], env)
    CLIENT = distributed.Client(SCHED, timeout=60)
    CLIENT.wait_for_workers(2, timeout=120)
    return workers


def one_process_each(sql, traces, **params):
    """sql run in this process on each trace (a list, or the traces
    trace_files(pattern) lists): the rows with the trace's path in front, as
    the fleet's union has them."""
    db = tracelite.connect()
    if isinstance(traces, str):
        traces = [p for (p,) in tracelite.query(
            "SELECT path FROM trace_files(@p) WHERE format IS NOT NULL", db=db, p=traces)]
    rows = []
    for path in traces:
        rows += [(path,) + r for r in tracelite.query(sql, db=db, trace=path, **params)]
    return rows


def combine_here(cols, rows, combine):
    """The combine query over rows in a table fleet, in this process."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE fleet(%s)" % ", ".join('"%s"' % c for c in cols))
    db.executemany("INSERT INTO fleet VALUES(%s)" % ",".join("?" * len(cols)), rows)
    return db.execute(combine).fetchall()


class Package(unittest.TestCase):
    """tracelite.connect / query / the cookbook, without Dask."""

    def test_query_cookbook_by_name(self):
        trace = os.path.join(TD, "perf", "sched.data")
        with open(os.path.join(ROOT, "sql", "perf_report_comm.sql")) as f:
            text = f.read()
        db = tracelite.connect()
        want = db.execute(text, {"trace": trace}).fetchall()
        self.assertTrue(want)
        self.assertEqual(tracelite.query("perf_report_comm", trace=trace), want)
        self.assertEqual(tracelite.query("perf_report_comm.sql", trace=trace), want)
        self.assertEqual(tracelite.query(os.path.join(ROOT, "sql", "perf_report_comm.sql"),
                                         trace=trace), want)
        # optional parameters (@options here) are NULL unless given
        self.assertEqual(tracelite.parameters(tracelite.sql_text("perf_report_sym")),
                         ["trace", "options"])
        self.assertTrue(tracelite.query("perf_report_sym", trace=trace))
        with self.assertRaises(tracelite.Error):
            tracelite.query("no_such_file")

    def test_parameters_skip_strings_and_comments(self):
        sql = "-- @a\nSELECT '@b', \"@c\", /* @d */ @e, :f, $g FROM t WHERE x = @e"
        self.assertEqual(tracelite.parameters(sql), ["e", "f", "g"])
        for name in os.listdir(os.path.join(ROOT, "sql")):
            self.assertIn("trace", tracelite.parameters(tracelite.sql_text(name)), name)

    def test_pandas(self):
        try:
            import pandas    # noqa: F401
        except ImportError:
            self.skipTest("pandas is not installed")
        df = tracelite.query(PER_NAME, trace=os.path.join(TD, "cpel", "demo.cpel"), pandas=True)
        self.assertEqual(list(df.columns), ["name", "type", "n", "first", "last"])
        self.assertEqual(int(df["n"].sum()), 300)   # make_demo.py writes 300 events

    def test_apsw_when_sqlite3_cannot_load(self):
        demo = os.path.join(TD, "cpel", "demo.cpel")
        want = tracelite.query(PER_NAME, trace=demo)
        real, saved = tracelite.sqlite3, sys.modules.get("apsw")
        # the sqlite3 module of pyenv's and python.org's builds: no enable_load_extension
        tracelite.sqlite3 = types.SimpleNamespace(Connection=object, Error=real.Error)
        try:
            try:
                import apsw
            except ImportError:
                apsw = None
                print("(APSW is not installed: only its missing-package message is tested)")
            if apsw is not None:
                db = tracelite.connect()
                self.assertIsInstance(db, apsw.Connection)
                self.assertEqual(tracelite.query(PER_NAME, db=db, trace=demo), want)
            sys.modules["apsw"] = None          # import apsw fails
            with self.assertRaises(tracelite.Error) as cm:
                tracelite.connect()
            self.assertIn("python3-apsw", str(cm.exception))
        finally:
            tracelite.sqlite3 = real
            if saved is None:
                sys.modules.pop("apsw", None)
            else:
                sys.modules["apsw"] = saved

    def test_make_install(self):
        prefix = os.path.join(TMP, "prefix")
        env = {k: v for k, v in os.environ.items()
               if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "TRACELITE_SO")}
        make = ["make", "-s", "-C", ROOT, "PREFIX=" + prefix, "PYTHON=" + sys.executable]
        subprocess.run(make + ["install"], check=True, env=env, stdout=subprocess.DEVNULL)
        site = os.path.join(prefix, "lib", "python%d.%d" % sys.version_info[:2], "dist-packages")
        # from another folder, no TRACELITE_SO: the installed .so and sql/ are found
        code = ("import tracelite; print(tracelite.find_so()); "
                "print(len(tracelite.query('cpel_latency', trace=%r, start=2, end=1)))"
                % os.path.join(TD, "cpel", "states.cpel"))
        out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                             text=True, cwd=TMP, env=dict(env, PYTHONPATH=site)).stdout.split()
        self.assertEqual(out, [os.path.join(prefix, "lib", "tracelite.so"), "3"])
        subprocess.run(make + ["uninstall"], check=True, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        left = [os.path.join(d, f) for d, _, fs in os.walk(prefix) for f in fs]
        self.assertEqual(left, [])
        self.assertFalse(os.path.exists(os.path.join(prefix, "lib", "python%d.%d" % sys.version_info[:2])))


class Fleet(unittest.TestCase):
    """tracelite.fleet on the cluster of start_cluster()."""

    pattern = None

    @classmethod
    def setUpClass(cls):
        folder = os.path.join(TMP, "traces")
        os.makedirs(folder)
        for name, rel in TRACES.items():
            os.symlink(os.path.join(TD, rel), os.path.join(folder, name))
        cls.pattern = os.path.join(folder, "*")
        cls.paths = [os.path.join(folder, n) for n in sorted(TRACES)]

    def test_1_all_formats_equal_trace_files(self):
        r = fleet.run(PER_NAME, self.pattern, scheduler=CLIENT)
        self.assertEqual(r.errors, [])
        self.assertEqual(r.fleet_columns, ["trace", "name", "type", "n", "first", "last"])
        want = tracelite.query(PER_NAME_ONE_PROCESS, pattern=self.pattern)
        self.assertEqual(r.rows, want)
        self.assertEqual(sorted({row[0] for row in r.rows}), self.paths)
        # the four formats, as trace_files() names them
        formats = {f for (f,) in tracelite.query(
            "SELECT DISTINCT format FROM trace_files(@p)", p=self.pattern)}
        self.assertEqual(formats, {"cpel", "ctf", "perf", "xray"})
        # every trace ran once
        self.assertEqual(sorted(t for t, _, _ in r.tasks), self.paths)

    def test_2_cookbook_combine_and_out_file(self):
        pattern = os.path.join(TMP, "traces", "perf-*")
        out = os.path.join(TMP, "fleet.db")
        r = fleet.run("perf_report_comm", pattern, scheduler=SCHED, combine=COMBINE_COMM,
                      out=out, batch=2)
        self.assertEqual(r.errors, [])
        union = one_process_each(tracelite.sql_text("perf_report_comm"), pattern)
        self.assertEqual(r.fleet_rows, union)
        self.assertEqual(r.columns, ["event", "comm", "samples", "period"])
        self.assertEqual(r.rows, combine_here(r.fleet_columns, union, COMBINE_COMM))
        self.assertEqual(r.ntasks, 3)                       # 5 traces, 2 per task
        db = sqlite3.connect(out)
        self.assertEqual(db.execute("SELECT * FROM fleet").fetchall(), union)
        self.assertEqual(db.execute("SELECT * FROM combined").fetchall(), r.rows)
        self.assertEqual(db.execute("SELECT count(*) FROM errors").fetchone(), (0,))

    def test_3_damaged_and_missing_traces_in_errors(self):
        missing = os.path.join(TMP, "traces", "gone.data")
        r = fleet.run(PER_NAME, self.paths + [DAMAGED, missing], scheduler=CLIENT, batch=3)
        # the reader's own message, as the same query gives it in one process
        want = {}
        db = tracelite.connect()
        for path in (DAMAGED, missing):
            with self.assertRaises(sqlite3.Error) as cm:
                tracelite.query(PER_NAME, db=db, trace=path)
            want[path] = str(cm.exception)
        self.assertEqual(dict(r.errors), want)
        self.assertIn("offset", want[DAMAGED])
        self.assertEqual(r.rows, tracelite.query(PER_NAME_ONE_PROCESS, pattern=self.pattern))

    def test_4_traces_pinned_to_workers(self):
        folder = os.path.join(TMP, "traces")
        pairs = [("w1", os.path.join(folder, "cpel-*")), ("w2", os.path.join(folder, "xray-fdr.xray")),
                 ("nohost", os.path.join(folder, "ctf-pid"))]
        r = fleet.run(PER_NAME, pairs, scheduler=CLIENT)
        where = {t: w for t, w, _ in r.tasks}
        self.assertEqual(where, {"w1:" + os.path.join(folder, "cpel-demo.cpel"): "w1",
                                 "w1:" + os.path.join(folder, "cpel-states.cpel"): "w1",
                                 "w2:" + os.path.join(folder, "xray-fdr.xray"): "w2"})
        self.assertEqual(r.errors, [("nohost:" + os.path.join(folder, "ctf-pid"),
                                     "no worker on host nohost")])
        want = one_process_each(PER_NAME, [os.path.join(folder, n) for n in
                                           ("cpel-demo.cpel", "cpel-states.cpel", "xray-fdr.xray")])
        self.assertEqual([row[1:] for row in r.rows], [row[1:] for row in want])

    def test_5_command_line(self):
        pattern = os.path.join(TMP, "traces", "perf-*")
        out = os.path.join(TMP, "cli.db")
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), TRACELITE_SO=SO)
        p = subprocess.run([sys.executable, "-m", "tracelite.fleet", "--scheduler", SCHED,
                            "--sql", os.path.join(ROOT, "sql", "perf_report_comm.sql"),
                            "--combine", COMBINE_COMM, "--out", out, pattern, DAMAGED],
                           capture_output=True, text=True, env=env, cwd=TMP, timeout=120)
        self.assertEqual(p.returncode, 2, p.stderr)          # 2: some trace failed
        self.assertIn("6/6 traces, 1 failed", p.stderr)
        self.assertIn("fleet: %s: %s:" % (DAMAGED, DAMAGED), p.stderr)
        db = sqlite3.connect(out)
        cols = [d[0] for d in db.execute("SELECT * FROM fleet").description]
        union = one_process_each(tracelite.sql_text("perf_report_comm"), pattern)
        self.assertEqual(db.execute("SELECT * FROM fleet").fetchall(), union)
        want = combine_here(cols, union, COMBINE_COMM)
        self.assertEqual(db.execute("SELECT * FROM combined").fetchall(), want)
        self.assertEqual(db.execute("SELECT trace FROM errors").fetchall(), [(DAMAGED,)])
        table = io.StringIO()
        fleet._print_table(["event", "comm", "samples", "period"], want, table)
        self.assertEqual(p.stdout, table.getvalue())

    def test_6_local_cluster(self):
        pattern = os.path.join(TMP, "traces", "cpel-*")
        r = fleet.run(PER_NAME, pattern, local_workers=1)
        self.assertEqual(r.errors, [])
        self.assertEqual(r.rows, tracelite.query(PER_NAME_ONE_PROCESS, pattern=pattern))

    def test_9_worker_killed_in_the_middle(self):
        victim = WORKERS["w2"]
        watcher = distributed.Client(SCHED, timeout=30)
        seen = {}

        def kill_when_busy():
            """SIGKILL w2 once it runs a task and some results are in
            (seen["running"]: the tasks it had then)."""
            while not seen.get("stop"):
                busy = watcher.processing()
                addr = [a for a, info in watcher.scheduler_info()["workers"].items()
                        if str(info.get("name")) == "w2"]
                if addr and busy.get(addr[0]) and seen.get("go"):
                    seen["running"] = list(busy[addr[0]])
                    os.kill(victim.pid, signal.SIGKILL)
                    return
                time.sleep(0.05)

        # about half a second a trace on this machine, whatever its speed
        t0 = time.perf_counter()
        tracelite.query(SLOW, trace=self.paths[0], spin=SPIN_N)
        took = time.perf_counter() - t0
        spin = int(SPIN_N * max(1.0, 0.5 / took))
        killer = threading.Thread(target=kill_when_busy)
        killer.start()
        # by then each worker has finished a trace or two
        timer = threading.Timer(1.0 + took * spin / SPIN_N, lambda: seen.setdefault("go", True))
        timer.start()
        try:
            r = fleet.run(SLOW, self.paths, scheduler=CLIENT, batch=1, spin=spin)
        finally:
            seen["stop"] = True
            killer.join()
            timer.cancel()
            watcher.close()
        self.assertTrue(seen.get("running"), "w2 was not killed during the run")
        victim.wait(timeout=30)
        self.assertEqual(r.errors, [])
        want = [row + (spin,) for row in tracelite.query(PER_NAME_ONE_PROCESS, pattern=self.pattern)]
        self.assertEqual(r.rows, want)
        self.assertIn("w1", {w for _, w, _ in r.tasks})


def main():
    global TMP, SO, WORKERS
    ap = argparse.ArgumentParser()
    ap.add_argument("--so", default=os.path.join(ROOT, "tracelite.so"))
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    SO = os.path.abspath(a.so)
    os.environ["TRACELITE_SO"] = SO
    if distributed is None:
        print("[     SKIP ] test_fleet.py: %s" % WHY)
        return 0
    TMP = tempfile.mkdtemp(prefix="tl-fleet-")
    atexit.register(shutil.rmtree, TMP, True)
    atexit.register(stop_all)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    t0 = time.monotonic()
    try:
        WORKERS = start_cluster(SO)
        suite = unittest.TestSuite()
        loader = unittest.TestLoader()
        suite.addTests(loader.loadTestsFromTestCase(Package))
        suite.addTests(loader.loadTestsFromTestCase(Fleet))
        res = unittest.TextTestRunner(verbosity=2 if a.v else 1, stream=sys.stdout).run(suite)
        ok = res.wasSuccessful()
    finally:
        stop_all()
    if not ok:
        for log in LOGS:
            with open(log, errors="replace") as f:
                tail = f.read()[-2000:]
            print("---- %s\n%s" % (os.path.basename(log), tail))
    print("test_fleet.py: %s in %.1f s" % ("ok" if ok else "FAILED", time.monotonic() - t0))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
