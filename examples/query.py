#!/usr/bin/env python3
"""Query trace files with tracelite from Python's standard library.

    python3 examples/query.py [--so ./tracelite.so] [--options 'binary=./app'] TRACE...
    python3 examples/query.py --chrome trace.json TRACE

The first form prints, for each trace, its events per name: count, first
and last ts (nanoseconds). The second writes the trace's Chrome
trace-event JSON with sql/chrome-events.sql (sql/chrome-xray.sql with
--xray), for the Perfetto UI or chrome://tracing.

Only the sqlite3 module is used. It must be able to load extensions:
Debian's and most distributions' python3 can; some builds (pyenv and
python.org builds without --enable-loadable-sqlite-extensions, macOS's
system Python) cannot, and this script says so.
"""
import argparse
import os
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def default_so():
    """tracelite.so of a source tree (beside examples/) or of an install
    (PREFIX/lib, with this script in PREFIX/share/tracelite/examples)."""
    for so in (os.path.join(HERE, "..", "tracelite.so"),
               os.path.join(HERE, "..", "..", "..", "lib", "tracelite.so")):
        if os.path.exists(so):
            return os.path.normpath(so)
    return "tracelite"      # let SQLite search the library path


def connect(so):
    """An in-memory database with tracelite loaded from the file so."""
    db = sqlite3.connect(":memory:")
    if not hasattr(db, "enable_load_extension"):
        sys.exit("query.py: this Python's sqlite3 module cannot load extensions "
                 "(built without --enable-loadable-sqlite-extensions); "
                 "try the system's python3")
    db.enable_load_extension(True)
    try:
        # SQLite finds the entry point, sqlite3_tracelite_init, from the file name.
        db.load_extension(so)
    finally:
        db.enable_load_extension(False)
    return db


def events_per_name(db, trace, options):
    """(name, count, first ts, last ts) for each event name of the trace."""
    return db.execute(
        "SELECT name, count(*), min(ts), max(ts) FROM events(?, ?)"
        " WHERE name IS NOT NULL GROUP BY name ORDER BY name",
        (trace, options)).fetchall()


def chrome_json(db, sql_dir, trace, binary, xray, out):
    """Write the Chrome trace-event document of the trace to the file OUT,
    one event a line as the query gives them (any size, little memory)."""
    name = "chrome-xray.sql" if xray else "chrome-events.sql"
    with open(os.path.join(sql_dir, name), encoding="utf-8") as f:
        sql = f.read()
    # @trace, @binary and @options in the file are named parameters for sqlite3.
    for (row,) in db.execute(sql, {"trace": trace, "binary": binary, "options": None}):
        out.write(row + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("traces", nargs="+", metavar="TRACE")
    ap.add_argument("--so", default=default_so(),
                    help="the extension (default: tracelite.so of this tree or install)")
    ap.add_argument("--options", default=None, help="the options string, e.g. binary=./app")
    ap.add_argument("--chrome", metavar="FILE", help="write Chrome trace-event JSON to FILE")
    ap.add_argument("--xray", action="store_true", help="with --chrome: XRay calls as slices")
    ap.add_argument("--binary", default=None, help="with --chrome: the XRay instrumented binary")
    ap.add_argument("--sql-dir", default=os.path.join(HERE, "..", "sql"),
                    help="where chrome-*.sql are (an install puts them in PREFIX/share/tracelite/sql)")
    args = ap.parse_args()

    db = connect(args.so)
    try:
        if args.chrome:
            with open(args.chrome, "w", encoding="utf-8") as f:
                chrome_json(db, args.sql_dir, args.traces[0], args.binary, args.xray, f)
            return 0
        for trace in args.traces:
            for name, n, first, last in events_per_name(db, trace, args.options):
                print(f"{trace}\t{name}\t{n}\t{first}\t{last}")
    except sqlite3.Error as e:
        sys.exit(f"query.py: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
