#!/usr/bin/env python3
"""lint.py: the rules of docs/architecture.md that a compiler does not check.

  layers     each file includes only headers of its own layer or the ones
             below it (base < readers < model < engine < vtab)
  sizes      no C file over 1,500 lines, no function over 200 lines
  unchecked  the _unchecked loads of src/base/bytes.h appear only in the
             files listed in tests/unchecked.list

Run by `make check` and `make test`; prints each breach and exits 1.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_FILE_LINES = 1500
MAX_FUNC_LINES = 200

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def rel(p):
    return os.path.relpath(p, ROOT)


def sources(dirs, exts=('.c', '.h')):
    for d in dirs:
        for base, _, files in os.walk(os.path.join(ROOT, d)):
            for f in sorted(files):
                if f.endswith(exts):
                    yield os.path.join(base, f)


def layer_of(path):
    """The layer a file of ours belongs to, or None (tests, tools)."""
    r = rel(path)
    if r.startswith('src/base/'):
        return 'base'
    if r.startswith('src/model/'):
        return 'model'
    if r.startswith('readers/'):
        parts = r.split('/')
        # readers/reader.h, tables.h and model_*.h are the reader contract
        return 'contract' if len(parts) == 2 and r.endswith('.h') else 'reader'
    if r.startswith('src/'):
        return 'engine'
    if r.startswith('vtab/'):
        return 'vtab'
    return None


def resolve(name, path):
    """The file an #include "name" in path means, with -Isrc/base -Isrc -Ireaders."""
    for d in (os.path.dirname(path), os.path.join(ROOT, 'src/base'),
              os.path.join(ROOT, 'src'), os.path.join(ROOT, 'readers')):
        p = os.path.normpath(os.path.join(d, name))
        if os.path.exists(p):
            return p
    return None


# What each layer may include (by the included file's layer). The contract
# (readers/reader.h, tables.h, model_*.h) is what readers and the model share.
ALLOWED = {
    'base': {'base'},
    'contract': {'base', 'contract'},
    'reader': {'base', 'contract', 'reader'},
    'model': {'base', 'contract', 'model'},
    'engine': {'base', 'contract', 'model', 'engine'},
    'vtab': {'base', 'contract', 'engine'},
}
# The format registry names each reader's definition: the one engine file
# that includes a reader's own header.
REGISTRY = {'src/formats.c'}


def check_layers(out):
    for path in sources(['src', 'readers', 'vtab']):
        lay = layer_of(path)
        text = open(path, encoding='utf-8', errors='replace').read()
        for name in INCLUDE.findall(text):
            if name in ('sqlite3ext.h', 'sqlite3.h'):
                if lay not in ('engine', 'vtab'):
                    out.append(f'{rel(path)}: includes {name} ({lay} layer)')
                continue
            target = resolve(name, path)
            if target is None:
                continue
            tl = layer_of(target)
            if tl is None:
                continue
            ok = tl in ALLOWED[lay]
            if lay == 'reader' and tl == 'reader':
                # a reader uses only its own folder
                ok = os.path.dirname(target) == os.path.dirname(path)
            if lay == 'engine' and tl == 'reader' and rel(path) in REGISTRY:
                ok = True
            if not ok:
                out.append(f'{rel(path)}: includes {rel(target)} '
                           f'({lay} layer may not use the {tl} layer)')


FUNC_START = re.compile(r'^[A-Za-z_][\w \t\*]*\b\w+\s*\(')


def functions(lines):
    """(first line text, first line, last line) of each top-level function."""
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if FUNC_START.match(line) and not line.startswith(('typedef', 'struct ', 'enum ', 'union ')):
            # the parameters may wrap; the body opens where they close
            depth, j = 0, i
            while j < n and j - i < 16:
                depth += lines[j].count('(') - lines[j].count(')')
                if depth <= 0:
                    break
                j += 1
            if j < n and depth <= 0 and lines[j].rstrip().endswith('{'):
                k = j + 1
                while k < n and not lines[k].startswith('}'):
                    k += 1
                yield line.strip(), i, k
                i = k + 1
                continue
        i += 1


def check_sizes(out):
    for path in sources(['src', 'readers', 'vtab', 'tests'], ('.c',)):
        lines = open(path, encoding='utf-8', errors='replace').read().split('\n')
        if len(lines) - 1 > MAX_FILE_LINES:
            out.append(f'{rel(path)}: {len(lines) - 1} lines (at most {MAX_FILE_LINES})')
        for name, a, b in functions(lines):
            if b - a + 1 > MAX_FUNC_LINES:
                out.append(f'{rel(path)}:{a + 1}: function of {b - a + 1} lines '
                           f'(at most {MAX_FUNC_LINES}): {name[:60]}')


def check_unchecked(out):
    listed = set()
    with open(os.path.join(ROOT, 'tests/unchecked.list')) as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if line:
                listed.add(line)
    for path in sources(['src', 'readers', 'vtab']):
        text = open(path, encoding='utf-8', errors='replace').read()
        if re.search(r'\w+_unchecked\s*\(', text) and rel(path) not in listed:
            out.append(f'{rel(path)}: uses an _unchecked load but is not in tests/unchecked.list')
    for name in sorted(listed):
        if not os.path.exists(os.path.join(ROOT, name)):
            out.append(f'tests/unchecked.list: {name} does not exist')


def main():
    out = []
    check_layers(out)
    check_sizes(out)
    check_unchecked(out)
    for line in out:
        print('lint:', line)
    if out:
        print(f'lint: {len(out)} problem(s)')
        return 1
    print('lint: layers, sizes and unchecked loads ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
