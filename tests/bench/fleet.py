#!/usr/bin/python3
"""fleet.py: tracelite.fleet on a local Dask cluster against one process.

    /usr/bin/python3 tests/bench/fleet.py --so ./tracelite.so [--traces 200] [--runs 3]

Copies the traces of testdata/ (CTF, perf.data, XRay, CPEL; copies, not
links: the extension keeps an index per file, and links would share it)
until there are --traces of them in one folder, then times the same query
(events per name and type of each trace):

  one process  the sqlite3 shell (a new process each run) over
               trace_files('DIR/*') joined with events(f.path)
  fleet        tracelite.fleet.run() on a LocalCluster of one worker process
               per CPU, one thread each: with its default batching, and with
               one trace per task

Each timed run follows an untimed one (page cache, imports); every fleet
run reads a new copy of the traces, so that the workers have no index kept
from the run before (the one-process side is a new process each time). It
prints the median wall time of each, the ratio fleet / one process, the
cluster's start time, and the overhead per trace of a task:
(wall time x worker threads - the time the queries took inside the
workers) / traces, the time each trace costs the fleet beyond its own
query (scheduling, sending the task and its rows, the worker's share of
idle time). The goal is under 50 ms. Run by `make bench` (BENCH_ONLY=fleet
for this table alone).
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

SOURCES = ["cpel/demo.cpel", "cpel/states.cpel", "ctf/ust-multi", "ctf/ust-pid",
           "ctf/ust-types", "perf/cpu-clock-g.data", "perf/multi.data", "perf/pipe.data",
           "perf/sched.data", "perf/zstd.data", "xray/basic.xray", "xray/fdr.xray"]
QUERY = ("SELECT name, type, count(*) AS n, min(ts) AS first, max(ts) AS last"
         " FROM events(@trace) GROUP BY 1, 2")
ONE_PROCESS = ("SELECT f.path, e.name, e.type, count(*), min(e.ts), max(e.ts)"
               " FROM trace_files('%s') f, events(f.path) e GROUP BY 1, 2, 3")
GOAL_MS = 50


def make_fleet(folder, n):
    """n copies of the SOURCES traces in folder, named NNNN-<name>."""
    for i in range(n):
        src = os.path.join(ROOT, "testdata", SOURCES[i % len(SOURCES)])
        dst = os.path.join(folder, "%04d-%s" % (i, os.path.basename(src)))
        if os.path.isdir(src):
            shutil.copytree(src, dst)
        else:
            shutil.copyfile(src, dst)


def one_process(so, pattern):
    """Wall seconds of the query in a new sqlite3 shell, and its rows."""
    t0 = time.perf_counter()
    p = subprocess.run(["sqlite3", "-batch", "-bail", ":memory:", ".load " + so,
                        ONE_PROCESS % pattern], capture_output=True, text=True, check=True)
    return time.perf_counter() - t0, p.stdout.count("\n")


def timed_fleet(fleet, client, parent, n, batch):
    """A fleet run over a new copy of the traces: the workers have no index
    of these files yet."""
    folder = tempfile.mkdtemp(dir=parent)
    make_fleet(folder, n)
    r = fleet.run(QUERY, os.path.join(folder, "*"), scheduler=client, batch=batch)
    shutil.rmtree(folder)
    if r.errors:
        raise SystemExit("fleet bench: %s: %s" % r.errors[0])
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--so", default=os.path.join(ROOT, "tracelite.so"))
    ap.add_argument("--traces", type=int, default=200)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    so = os.path.abspath(a.so)
    os.environ["TRACELITE_SO"] = so
    try:
        from distributed import Client, LocalCluster
        from tracelite import fleet
    except ImportError as e:
        print("fleet: skipped: %s (Debian: python3-distributed)" % e)
        return 0
    folder = tempfile.mkdtemp(prefix="tl-fleet-bench-")
    try:
        pattern = os.path.join(folder, "one", "*")
        os.makedirs(os.path.dirname(pattern))
        make_fleet(os.path.dirname(pattern), a.traces)
        one_process(so, pattern)
        single = [one_process(so, pattern) for _ in range(a.runs)]
        t0 = time.perf_counter()
        cluster = LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True,
                               dashboard_address=":0")
        client = Client(cluster)
        start = time.perf_counter() - t0
        nthreads = sum(client.nthreads().values())
        rows = {}
        for batch, label in ((None, "fleet, default batches"), (1, "fleet, one trace per task")):
            timed_fleet(fleet, client, folder, a.traces, batch)
            rows[label] = [timed_fleet(fleet, client, folder, a.traces, batch)
                           for _ in range(a.runs)]
        client.close()
        cluster.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    one = statistics.median(s for s, _ in single)
    nrows = single[0][1]
    print("fleet: %d traces (copies of testdata/, 4 formats), %d worker processes x 1 thread,"
          " %d runs each, medians" % (a.traces, a.workers, a.runs))
    print("  %-28s %9s %12s %9s %16s" % ("", "wall s", "fleet/one", "tasks", "overhead/trace"))
    print("  %-28s %9.3f %12s %9s %16s" % ("one process (trace_files)", one, "", "", ""))
    worst = 0.0
    for label, runs in rows.items():
        wall = statistics.median(r.seconds for r in runs)
        over = statistics.median((r.seconds * nthreads - sum(s for _, _, s in r.tasks))
                                 / len(r.tasks) for r in runs) * 1000
        worst = max(worst, over)
        if len(runs[0].fleet_rows) != nrows:
            raise SystemExit("fleet bench: %d rows, one process %d" % (len(runs[0].fleet_rows), nrows))
        print("  %-28s %9.3f %12.2f %9d %13.1f ms" % (label, wall, wall / one, runs[0].ntasks, over))
    print("  cluster start %.2f s (not in the times above); overhead goal < %d ms per trace: %s"
          % (start, GOAL_MS, "met" if worst < GOAL_MS else "MISSED"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
