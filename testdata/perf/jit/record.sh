#!/bin/sh
# Record jit.data: cpu-clock samples with callchains of node running
# fib.js (copied to /tmp/tracelite-jit/) with --perf-basic-prof, which
# writes its JIT map /tmp/perf-PID.map, and store what perf says about the
# frames:
#
#   jit.script.txt   perf script -F ip,sym,symoff,dso (the map at its place)
#   jit.report.txt   perf report --no-children --sort sym -g none -n
#   symfs/tmp/perf-PID.map
#                    the lines of the JIT map that hold a sampled address
#                    (the whole map is some 2,000 lines of node's builtins)
#
# Run as root:  cd testdata/perf/jit && sh record.sh
set -e
PERF=${PERF:-perf}
DIR=/tmp/tracelite-jit
mkdir -p $DIR && cp fib.js $DIR/
(cd $DIR && $PERF record -q -N -g -e cpu-clock -c 2500000 -o jit.data -- \
  node --perf-basic-prof fib.js >/dev/null 2>&1)
mv $DIR/jit.data jit.data
pid=$($PERF script -f -i jit.data -F pid 2>/dev/null | awk 'NF { print $1; exit }')
map=/tmp/perf-$pid.map
$PERF script -f -i jit.data -F ip,sym,symoff,dso > jit.script.txt 2>/dev/null
$PERF report -f -i jit.data --no-children --sort sym -g none -n --stdio > jit.report.txt 2>/dev/null
rm -rf symfs && mkdir -p symfs/tmp
python3 - "$map" jit.script.txt "symfs$map" <<'PY'
import sys
mapf, script, out = sys.argv[1:]
ips = set()
for line in open(script):
    f = line.split()
    if f and f[-1] == '(' + mapf + ')':
        ips.add(int(f[0], 16))
with open(out, 'w') as o:
    for line in open(mapf):
        f = line.split(' ', 2)
        s, n = int(f[0], 16), int(f[1], 16)
        if any(s <= a < s + n for a in ips):
            o.write(line)
PY
rm -rf "$map" $DIR
