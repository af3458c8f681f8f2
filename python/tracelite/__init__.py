"""tracelite from Python: SQL over trace files, one trace or a fleet of them.

    import tracelite
    db = tracelite.connect()                 # a connection with the extension loaded
    rows = tracelite.query("perf_report_sym", trace="perf.data")   # a sql/ file by name
    rows = tracelite.query("SELECT name, count(*) FROM events(@trace) GROUP BY 1",
                           trace="run.cpel")
    df = tracelite.query("perf_report_sym", trace="perf.data", pandas=True)

The extension is found by TRACELITE_SO, beside this package, in the source
tree this package sits in, or where `make install` put it. Where Python's
sqlite3 module cannot load extensions, APSW (Debian: python3-apsw) is used
instead. tracelite.fleet runs one query over many traces on Dask.
"""
import os
import re
import sqlite3
import threading

__all__ = ["connect", "query", "sql_text", "parameters", "bind", "execute", "shared", "find_so",
           "sql_dir", "columns_of", "Error"]

# realpath: the source tree links tracelite/ at its root to python/tracelite
HERE = os.path.dirname(os.path.realpath(__file__))

try:                                    # written by `make install`
    from . import _install
except ImportError:                     # a source tree
    _install = None


class Error(Exception):
    """tracelite could not be loaded, or a query failed."""


def find_so():
    """The path of tracelite.so: $TRACELITE_SO, the file beside this
    package, the source tree's build, or the installed one."""
    env = os.environ.get("TRACELITE_SO")
    if env:
        return env
    cands = [os.path.join(HERE, "tracelite.so"),
             os.path.join(HERE, "..", "..", "tracelite.so")]
    if _install is not None:
        cands.append(_install.SO)
    for so in cands:
        if os.path.exists(so):
            return os.path.normpath(so)
    raise Error("tracelite.so not found: set TRACELITE_SO to its path "
                "(looked in: %s)" % ", ".join(os.path.normpath(c) for c in cands))


def sql_dir():
    """The folder of the sql/ cookbook files."""
    if _install is not None and os.path.isdir(_install.SQL_DIR):
        return _install.SQL_DIR
    return os.path.normpath(os.path.join(HERE, "..", "..", "sql"))


def _loaded(db, enable, load, so):
    """db with the extension so loaded by its load function, loading
    allowed (enable) only meanwhile."""
    enable(True)
    try:
        load(so)
    finally:
        enable(False)
    return db


def _load_sqlite3(so):
    db = sqlite3.connect(":memory:", check_same_thread=False)
    return _loaded(db, db.enable_load_extension, db.load_extension, so)


def _load_apsw(so):
    import apsw
    db = apsw.Connection(":memory:")
    return _loaded(db, db.enableloadextension, db.loadextension, so)


def connect(so=None):
    """An in-memory database with tracelite loaded: a sqlite3.Connection,
    or an apsw.Connection where the sqlite3 module cannot load extensions
    (built without --enable-loadable-sqlite-extensions: pyenv's and
    python.org's builds, macOS's system Python)."""
    so = so or find_so()
    if hasattr(sqlite3.Connection, "enable_load_extension"):
        try:
            return _load_sqlite3(so)
        except sqlite3.Error as e:
            raise Error("cannot load %s: %s" % (so, e)) from None
    try:
        import apsw     # noqa: F401
    except ImportError:
        raise Error("this Python's sqlite3 module cannot load extensions and APSW "
                    "is not installed: install python3-apsw (Debian) or apsw (pip), "
                    "or use a python3 built with --enable-loadable-sqlite-extensions "
                    "(Debian's /usr/bin/python3 is)") from None
    try:
        return _load_apsw(so)
    except Exception as e:      # apsw.Error has no common base with sqlite3's
        raise Error("cannot load %s: %s" % (so, e)) from None


def sql_text(sql):
    """The SQL of sql: a cookbook file by name (`perf_report_sym` or
    `perf_report_sym.sql`), a path to a .sql file, or SQL itself."""
    if "\n" not in sql and "\0" not in sql and os.path.isfile(sql):
        path = sql
    elif re.search(r"\s", sql.strip()):
        return sql
    else:
        name = sql if sql.endswith(".sql") else sql + ".sql"
        path = os.path.join(sql_dir(), os.path.basename(name))
        if not os.path.isfile(path):
            raise Error("no cookbook file %s in %s" % (name, sql_dir()))
    with open(path, encoding="utf-8") as f:
        return f.read()


# Comments, string literals and quoted names, which hold no parameters.
_SKIP = re.compile(r"--[^\n]*|/\*.*?\*/|'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|`[^`]*`|\[[^\]]*\]",
                   re.S)
_PARAM = re.compile(r"[@:$]([A-Za-z_][A-Za-z0-9_]*)")


def parameters(sql):
    """The names of the named parameters (@name, :name, $name) of sql, in
    order of first use."""
    names = []
    for m in _PARAM.finditer(_SKIP.sub(" ", sql)):
        if m.group(1) not in names:
            names.append(m.group(1))
    return names


def bind(sql, params):
    """The bindings for sql: every parameter it names, NULL unless given
    (the cookbook's optional parameters, like the shell's unset ones)."""
    return {name: params.get(name) for name in parameters(sql)}


def columns_of(cur):
    """The column names of an executed cursor (sqlite3 or APSW)."""
    if getattr(cur, "description", None) is not None and not hasattr(cur, "getdescription"):
        return [d[0] for d in cur.description]
    try:
        return [d[0] for d in cur.getdescription()]
    except Exception:           # APSW: a statement without rows has finished
        return []


def execute(db, sql, params):
    """(columns, rows) of sql on db with params bound by name."""
    cur = db.cursor()
    cur.execute(sql, bind(sql, params))
    cols = columns_of(cur)
    rows = [tuple(r) for r in cur.fetchall()] if hasattr(cur, "fetchall") else [tuple(r) for r in cur]
    return cols, rows


_local = threading.local()


def shared():
    """One connection per thread and extension path, kept for later queries
    (the extension keeps each trace's index between queries)."""
    so = find_so()
    dbs = getattr(_local, "dbs", None)
    if dbs is None:
        dbs = _local.dbs = {}
    if so not in dbs:
        dbs[so] = connect(so)
    return dbs[so]


def query(sql, db=None, pandas=False, **params):
    """The rows of sql (a cookbook name, a .sql path or SQL) with params
    bound to its @parameters: a list of tuples, or a pandas DataFrame with
    pandas=True. db: a connection from connect() (default: one kept per
    thread)."""
    text = sql_text(sql)
    cols, rows = execute(db if db is not None else shared(), text, params)
    if not pandas:
        return rows
    try:
        import pandas as pd
    except ImportError:
        raise Error("pandas=True: pandas is not installed (Debian: python3-pandas)") from None
    return pd.DataFrame.from_records(rows, columns=cols)
