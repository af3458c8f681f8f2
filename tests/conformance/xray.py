"""XRay conformance: every record of each peer log against llvm-xray convert.

For each `<name>.xray` under peer-traces/xray with `<name>.expected-nosym.yaml`
(llvm-xray 14 `convert -output-format=yaml`), the rows of events(<log>) must
be the records llvm-xray lists: kind, function id, cpu, thread, process, tsc
and call arguments, compared as sorted lists.
"""
import os
import re

FIELD = re.compile(r"(\w[\w-]*): (\[[^\]]*\]|'[^']*'|[^,}]+)")


def yaml_records(path):
    out = []
    with open(path) as f:
        for line in f:
            if not line.startswith("  - {"):
                continue
            d = {k: v.strip() for k, v in FIELD.findall(line)}
            kind = d.get("kind", "")
            func = d.get("func-id", "") if kind.startswith("function") else ""
            args = d.get("args", "").strip("[] ").replace(" ", "")
            out.append("|".join([kind, func, d.get("cpu", ""), d.get("thread", ""),
                                 d.get("process", ""), d.get("tsc", ""), args]))
    return sorted(out)


def sql_records(db, path):
    rows = db.execute(
        "SELECT type, coalesce(value, ''), cpu, tid, coalesce(pid, ''), ts_raw, "
        "coalesce((SELECT group_concat(value, ',') FROM json_each(args, '$.args')), '') "
        "FROM events(?)", (path,)).fetchall()
    return sorted("|".join(str(c) for c in r) for r in rows)


def run(make_db, peer):
    root = os.path.join(peer, "xray")
    for dirpath, _, files in sorted(os.walk(root)):
        for f in sorted(files):
            if not f.endswith(".xray"):
                continue
            path = os.path.join(dirpath, f)
            name = os.path.relpath(path, peer)
            yaml = path[:-5] + ".expected-nosym.yaml"
            if not os.path.exists(yaml):
                yield name, False, "no llvm-xray output beside it"
                continue
            want = yaml_records(yaml)
            try:
                got = sql_records(make_db(), path)
            except Exception as e:
                yield name, False, "error: %s" % e
                continue
            names = ""
            symyaml = path[:-5] + ".expected.yaml"
            imap = os.path.join(dirpath, "instr-map.yaml")
            if got == want and os.path.exists(symyaml) and os.path.exists(imap):
                # names through llvm-xray extract's map, against convert -symbolize
                wantn = sorted(re.findall(r"function: '([^']*)'.*kind: (function[a-z-]*), tsc: (\d+)", l)[0]
                               for l in open(symyaml) if l.startswith("  - {") and "kind: function" in l)
                gotn = sorted((r[0], r[1], str(r[2])) for r in make_db().execute(
                    "SELECT name, type, ts_raw FROM events(?, 'binary=' || ?) WHERE type LIKE 'function%'",
                    (path, imap)).fetchall())
                if gotn != wantn:
                    yield name, False, "records equal, names differ from -symbolize"
                    continue
                names = ", names equal -symbolize's"
            if got == want:
                yield name, True, "%d records equal llvm-xray's%s" % (len(got), names)
            else:
                diff = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
                yield name, False, "%d rows vs %d records; first difference: ours %s, llvm-xray %s" % (
                    len(got), len(want), got[diff] if diff < len(got) else None,
                    want[diff] if diff < len(want) else None)
