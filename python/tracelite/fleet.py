"""One query over a fleet of traces, on Dask's distributed scheduler.

    from tracelite import fleet
    r = fleet.run("perf_report_sym", "runs/*.data",
                  combine="SELECT event, symbol, sum(samples) AS samples"
                          " FROM fleet GROUP BY 1, 2 ORDER BY 3 DESC")
    r.columns, r.rows          # the combined table (or the union without combine)
    r.errors                   # (trace, message) of each trace that failed

    python3 -m tracelite.fleet --scheduler tcp://HOST:8786 \\
        --sql sql/perf_report_sym.sql 'runs/*.data' [--out result.db]

Each task opens one trace (or a batch of small ones) on a worker and runs
the query with @trace bound to it; the rows come back with a `trace` column
in front. Their union is the table `fleet` of a temporary SQLite database,
where `combine` runs. A trace that fails gives one row of `errors` with the
reader's message; the others go on. docs/python.md has the details.
"""
import argparse
import glob
import os
import sqlite3
import sys
import time

import tracelite

__all__ = ["run", "Result", "main"]

GLOB_CHARS = "*?["
BIG_TRACE = 64 << 20        # traces this size or more get a task each
MAX_BATCH = 64
TASK_ATTEMPTS = 3           # a task lost with its worker is submitted again


class Result:
    """What a fleet run gives back.

    fleet_columns, fleet_rows: the union, `trace` first, in the order the
    traces were given. combined_columns, combined_rows: the combine query's
    result (None without one). columns, rows: the combined table if there is
    one, else the union. errors: (trace, message) per failed trace.
    tasks: (trace, worker, seconds) per trace, the seconds spent in the query.
    seconds: wall time of the run, from submitting the first task.
    """

    def __init__(self):
        self.fleet_columns, self.fleet_rows = ["trace"], []
        self.combined_columns = self.combined_rows = None
        self.errors, self.tasks = [], []
        self.seconds = 0.0
        self.ntasks = 0

    @property
    def columns(self):
        return self.combined_columns if self.combined_columns is not None else self.fleet_columns

    @property
    def rows(self):
        return self.combined_rows if self.combined_rows is not None else self.fleet_rows

    def dataframe(self, which="result"):
        """A pandas DataFrame of `result` (columns/rows), `fleet` or `errors`."""
        import pandas as pd
        cols, rows = {"result": (self.columns, self.rows),
                      "fleet": (self.fleet_columns, self.fleet_rows),
                      "errors": (["trace", "error"], self.errors)}[which]
        return pd.DataFrame.from_records(rows, columns=cols)


# ---- on the workers -----------------------------------------------------------

def _worker_name():
    try:
        from distributed import get_worker
        w = get_worker()
        return str(w.name) if w.name is not None else w.address
    except Exception:           # not in a worker (tests, a plain call)
        return ""


def run_batch(sql, traces, params, so=None):
    """Runs sql on each trace of traces (a list of (label, path)) in this
    process: (worker, [(label, columns, rows, error, seconds), ...]). A
    failing trace gives its error text; it does not stop the batch."""
    if so:
        os.environ.setdefault("TRACELITE_SO", so)
    out = []
    for label, path in traces:
        t0 = time.perf_counter()
        try:
            db = tracelite.shared()
            cols, rows = tracelite.execute(db, sql, dict(params, trace=path))
            err = None
        except Exception as e:   # sqlite3.Error, apsw.Error, tracelite.Error
            cols, rows, err = [], [], str(e) or type(e).__name__
        out.append((label, cols, rows, err, time.perf_counter() - t0))
    return _worker_name(), out


def expand_here(pattern, so=None):
    """The paths the glob pattern matches in this process (on this worker's
    disk), sorted as the shell sorts them: trace_files(pattern)'s paths."""
    if so:
        os.environ.setdefault("TRACELITE_SO", so)
    try:
        return [p for (p,) in tracelite.query("SELECT path FROM trace_files(@p)", p=pattern)]
    except Exception:            # no extension here: Python's glob, sorted
        return sorted(glob.glob(pattern))


# ---- on the client ---------------------------------------------------------------

def _pairs(traces):
    """(host or None, path or pattern) of each entry of traces: a glob or
    path string, a list of them, or (host, path) pairs (a pandas DataFrame
    with columns host and path too)."""
    if isinstance(traces, (str, os.PathLike)):
        return [(None, os.fspath(traces))]
    if hasattr(traces, "itertuples") and hasattr(traces, "columns"):
        return [(str(h), str(p)) for h, p in traces[["host", "path"]].itertuples(index=False)]
    out = []
    for t in traces:
        if isinstance(t, (str, os.PathLike)):
            out.append((None, os.fspath(t)))
        else:
            host, path = t
            out.append((str(host) if host else None, os.fspath(path)))
    return out


def _is_glob(path):
    return any(c in path for c in GLOB_CHARS) and not os.path.exists(path)


def _make_client(scheduler, local_workers):
    """(client, things to close): the given Client, a Client of the
    scheduler at that address, or of a new LocalCluster."""
    from distributed import Client, LocalCluster
    if scheduler is not None and not isinstance(scheduler, str):
        return scheduler, []
    if scheduler:
        c = Client(scheduler)
        return c, [c]
    n = local_workers or os.cpu_count() or 1
    cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                           dashboard_address=":0")   # any free port, no warning
    c = Client(cluster)
    return c, [c, cluster]


def _worker_matches(info, host):
    """Whether the worker (scheduler_info()'s entry) is the one host names:
    its address, host name or IP, or its --name."""
    addr = info.get("id") or ""
    return host in (addr, info.get("host"), str(info.get("name")),
                    addr.split("://")[-1].rsplit(":", 1)[0])


def _batches(items, size):
    """items (label, path) cut into lists of at most size, a big file alone."""
    out, cur = [], []
    for label, path in items:
        try:
            big = os.stat(path).st_size >= BIG_TRACE
        except OSError:
            big = False
        if big:
            out.append([(label, path)])
            continue
        cur.append((label, path))
        if len(cur) >= size:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


class _Progress:
    """A one-line progress bar on stderr."""

    def __init__(self, total, on):
        self.total, self.on, self.done, self.failed = total, on, 0, 0
        self.t0 = time.monotonic()

    def add(self, n, failed):
        self.done += n
        self.failed += failed
        last = self.done >= self.total
        if self.on and (last or sys.stderr.isatty()):
            w = 30
            k = w * self.done // self.total if self.total else w
            sys.stderr.write("\rfleet [%s%s] %d/%d traces, %d failed, %.1f s" % (
                "#" * k, "." * (w - k), self.done, self.total, self.failed,
                time.monotonic() - self.t0))
            if last:
                sys.stderr.write("\n")
            sys.stderr.flush()


def _quote(name):
    return '"%s"' % name.replace('"', '""')


def _columns(cols):
    """The union's columns: trace, then the query's (a query column named
    trace becomes trace_1)."""
    return ["trace"] + [c + "_1" if c == "trace" else c for c in cols]


def _write_table(db, name, cols, rows):
    db.execute("DROP TABLE IF EXISTS %s" % name)
    db.execute("CREATE TABLE %s(%s)" % (name, ", ".join(_quote(c) for c in cols)))
    if cols:
        db.executemany("INSERT INTO %s VALUES(%s)" % (name, ", ".join("?" * len(cols))), rows)


def _assemble(res, order, results, combine, params, out):
    """Fills res from results (label -> (worker, cols, rows, error, s)):
    the union in the order of order, errors, the combine query, the out file."""
    cols = next((r[1] for r in results.values() if r[1]), [])
    res.fleet_columns = _columns(cols)
    for label in order:
        worker, c, rows, err, secs = results[label]
        if err is not None:
            res.errors.append((label, err))
            continue
        res.tasks.append((label, worker, secs))
        res.fleet_rows.extend((label,) + tuple(r) for r in rows)
    db = sqlite3.connect(out or ":memory:")
    try:
        db.execute("DROP TABLE IF EXISTS temp.fleet")
        _write_table(db, "temp.fleet", res.fleet_columns, res.fleet_rows)
        if combine:
            cols, rows = tracelite.execute(db, tracelite.sql_text(combine), params)
            res.combined_columns, res.combined_rows = cols, rows
        if out:
            _write_table(db, "main.fleet", res.fleet_columns, res.fleet_rows)
            _write_table(db, "main.errors", ["trace", "error"], res.errors)
            if combine:
                _write_table(db, "main.combined", res.combined_columns, res.combined_rows)
            db.commit()
    finally:
        db.close()


def run(sql, traces, scheduler=None, combine=None, out=None, batch=None,
        progress=False, local_workers=None, so=None, **params):
    """Runs sql (a cookbook name, a .sql path or SQL with @trace) on every
    trace, each on a Dask worker, and returns a Result.

    traces: a glob, a path, a list of them, or (host, path) pairs for
    traces on the workers' own disks (path may be a glob, expanded on that
    host; the trace column is then host:path). scheduler: an address
    (tcp://host:8786), a distributed.Client, or None for a LocalCluster of
    local_workers processes (default: one per CPU). combine: SQL over the
    table `fleet` (the union). out: an SQLite file that gets the tables
    fleet, errors and combined. batch: traces per task (default: about four
    tasks per worker thread, at most 64 traces, a trace of 64 MiB or more
    alone). so: the extension's path on the workers (default: theirs).
    params: the query's other @parameters."""
    text = tracelite.sql_text(sql)
    if "trace" not in tracelite.parameters(text):
        raise tracelite.Error("the query has no @trace parameter")
    params = {k: v for k, v in params.items() if k != "trace"}
    client, closers = _make_client(scheduler, local_workers)
    if scheduler is None and so is None:
        try:
            so = tracelite.find_so()    # same machine: the workers use ours
        except tracelite.Error:
            pass
    try:
        return _run(client, text, _pairs(traces), combine, out, batch, progress, so, params)
    finally:
        for c in closers:
            c.close()


def _results(client, ac):
    """(future, its value or its exception) as they complete: the futures
    done together are gathered in one round trip, one by one if that fails."""
    for done in ac.batches():
        try:
            values = client.gather(done)
        except Exception:
            values = []
            for f in done:
                try:
                    values.append(f.result())
                except Exception as e:
                    values.append(e)
        yield from zip(done, values)


def _run(client, text, pairs, combine, out, batch, progress, so, params):
    from distributed import as_completed
    res = Result()
    workers = client.scheduler_info()["workers"]
    nthreads = sum(w.get("nthreads", 1) for w in workers.values()) or 1
    results = {}
    order = []          # labels in the order given
    groups = {}         # host -> [(label, path)]
    for host, path in pairs:
        if host is not None and not any(_worker_matches(w, host) for w in workers.values()):
            order.append("%s:%s" % (host, path))
            results[order[-1]] = ("", [], [], "no worker on host %s" % host, 0.0)
            continue
        if _is_glob(path):
            if host is None:
                paths = expand_here(path)
            else:
                paths = client.submit(expand_here, path, so, workers=[host],
                                      allow_other_workers=False, pure=False).result()
        else:
            paths = [path]
        for p in paths:
            label = p if host is None else "%s:%s" % (host, p)
            if label not in results:
                order.append(label)
                results[label] = None
                # a path of this machine's is made absolute: a worker's
                # folder is not ours (the trace column keeps it as given)
                groups.setdefault(host, []).append((label, p if host else os.path.abspath(p)))
    ntraces = sum(len(v) for v in groups.values())
    size = batch or max(1, min(MAX_BATCH, ntraces // (4 * nthreads)))
    futures = {}        # future -> (host, batch, attempt)

    def submit(host, b, attempt):
        kw = {"workers": [host], "allow_other_workers": False} if host else {}
        f = client.submit(run_batch, text, b, params, so, pure=False, **kw)
        futures[f] = (host, b, attempt)
        return f

    t0 = time.perf_counter()
    for host, items in groups.items():
        for b in _batches(items, size):
            submit(host, b, 1)
    res.ntasks = len(futures)
    bar = _Progress(ntraces, progress)
    ac = as_completed(list(futures))
    for f, value in _results(client, ac):
        host, b, attempt = futures.pop(f)
        try:
            if isinstance(value, BaseException):
                raise value
            worker, got = value
            for label, cols, rows, err, secs in got:
                results[label] = (worker, cols, rows, err, secs)
        except Exception as e:
            # The task failed, not a trace: the scheduler gave up on it
            # (KilledWorker: a worker died running it, maybe because of one
            # of its traces), or its result was lost with its worker on the
            # way here. Again, a trace per task, a few times.
            if attempt < TASK_ATTEMPTS:
                for one in ([t] for t in b):
                    ac.add(submit(host, one, attempt + 1))
                continue
            for label, _ in b:
                results[label] = ("", [], [], "task failed: %s: %s" % (type(e).__name__, e), 0.0)
        bar.add(len(b), sum(1 for label, _ in b if results[label][3] is not None))
    res.seconds = time.perf_counter() - t0
    _assemble(res, order, results, combine, params, out)
    return res


# ---- the command -------------------------------------------------------------------

def _value(text):
    """A --param value: an integer or a real number when it reads as one (as
    the sqlite3 shell's .parameter set does), else text."""
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def _print_table(cols, rows, f):
    cells = [[("" if v is None else str(v)) for v in r] for r in rows]
    width = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(cols)]
    f.write("  ".join(c.ljust(w) for c, w in zip(cols, width)).rstrip() + "\n")
    f.write("  ".join("-" * w for w in width) + "\n")
    for r in cells:
        f.write("  ".join(v.ljust(w) for v, w in zip(r, width)).rstrip() + "\n")


def _read_hosts(path):
    """(host, path) pairs of a file of `HOST PATH` lines (# comments)."""
    pairs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                host, _, p = line.partition(" ")
                pairs.append((host, p.strip()))
    return pairs


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python3 -m tracelite.fleet",
        description="Run one tracelite query over many traces on a Dask cluster.")
    ap.add_argument("traces", nargs="*", metavar="TRACE",
                    help="trace paths or glob patterns (quoted)")
    ap.add_argument("--sql", required=True,
                    help="a sql/ cookbook file (path or name) or SQL with @trace")
    ap.add_argument("--combine", help="SQL over the table fleet (the union of the traces' rows)")
    ap.add_argument("--param", "-p", action="append", default=[], metavar="NAME=VALUE",
                    help="another @parameter of the query")
    ap.add_argument("--scheduler", help="the Dask scheduler, tcp://HOST:8786 "
                    "(default: a local cluster, one worker per CPU)")
    ap.add_argument("--workers", type=int, help="workers of the local cluster")
    ap.add_argument("--hosts", metavar="FILE",
                    help="traces on the workers' disks: lines `HOST PATH-OR-GLOB`")
    ap.add_argument("--batch", type=int, help="traces per task")
    ap.add_argument("--out", metavar="DB", help="write tables fleet, errors, combined to this SQLite file")
    ap.add_argument("--so", help="tracelite.so on the workers (default: TRACELITE_SO or the installed one)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    a = ap.parse_args(argv)
    params = {}
    for kv in a.param:
        k, sep, v = kv.partition("=")
        if not sep:
            ap.error("--param wants NAME=VALUE, not %r" % kv)
        params[k.lstrip("@:$")] = _value(v)
    traces = list(a.traces)
    if a.hosts:
        traces += _read_hosts(a.hosts)
    if not traces:
        ap.error("no traces: give paths or patterns, or --hosts FILE")
    try:
        r = run(a.sql, traces, scheduler=a.scheduler, combine=a.combine, out=a.out,
                batch=a.batch, progress=not a.no_progress, local_workers=a.workers,
                so=a.so, **params)
    except (tracelite.Error, sqlite3.Error, OSError) as e:
        sys.stderr.write("fleet: %s\n" % e)
        return 1
    _print_table(r.columns, r.rows, sys.stdout)
    for trace, err in r.errors:
        sys.stderr.write("fleet: %s: %s\n" % (trace, err))
    sys.stderr.write("fleet: %d traces, %d failed, %d tasks, %.2f s\n" % (
        len(r.tasks) + len(r.errors), len(r.errors), r.ntasks, r.seconds))
    return 2 if r.errors else 0


if __name__ == "__main__":
    # the functions the workers run must be tracelite.fleet's, not __main__'s
    from tracelite import fleet as _fleet
    sys.exit(_fleet.main())
