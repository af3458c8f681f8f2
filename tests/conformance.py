#!/usr/bin/env python3
"""Conformance: tracelite's answers against the reference tools' outputs.

For every trace under the peer-traces folder that a format module knows,
compare what tracelite reports with what the MANIFEST or the stored
reference output says, and print one line per trace:

    PASS cpel/fdio-vpp/...  rows=... (what was compared)
    FAIL perf/...           what differed

Format modules live in tests/conformance/<format>.py and define
run(db_factory, peer_dir) yielding (name, ok, detail) tuples; ok None
means skipped, and detail says why. Exit status is 1 when any trace fails.
"""
import argparse
import importlib.util
import os
import sqlite3
import sys


def db_factory(so_path):
    def make():
        db = sqlite3.connect(":memory:")
        db.enable_load_extension(True)
        db.load_extension(os.path.abspath(so_path))
        return db
    return make


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--so", required=True)
    ap.add_argument("--peer", required=True)
    ap.add_argument("formats", nargs="*")
    args = ap.parse_args()
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "conformance")
    mods = sorted(f[:-3] for f in os.listdir(here) if f.endswith(".py") and not f.startswith("_"))
    if args.formats:
        mods = [m for m in mods if m in args.formats]
    npass = nfail = nskip = 0
    for name in mods:
        spec = importlib.util.spec_from_file_location(name, os.path.join(here, name + ".py"))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        for trace, ok, detail in mod.run(db_factory(args.so), args.peer):
            print("%s %s  %s" % ("SKIP" if ok is None else "PASS" if ok else "FAIL", trace, detail))
            if ok is None:
                nskip += 1
            elif ok:
                npass += 1
            else:
                nfail += 1
    print("conformance: %d passed, %d failed, %d skipped" % (npass, nfail, nskip))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
