#!/bin/sh
# Record threads-inherit.data: cpu-clock samples of threads-inherit.c,
# whose threads never name themselves (no prctl(PR_SET_NAME)), so perf
# names each after the thread that made it. Beside it, what perf says:
#
#   threads-inherit.script.txt      perf script -F comm,pid,tid,time
#   threads-inherit.report-pid.txt  perf report --sort pid
#   threads-inherit.samples.txt     perf script -F comm,tid,time,ip,sym,symoff,dso
#                                   with no file to name addresses from
#
# Run as root:  cd testdata/perf && sh threads-inherit.sh
set -e
PERF=${PERF:-perf}
d=$(mktemp -d)
cc -O1 -pthread -o $d/threadprog threads-inherit.c
$PERF record -q -e cpu-clock -c 100000 --sample-cpu -o threads-inherit.data $d/threadprog >/dev/null 2>&1
rm -rf $d
$PERF script -f -i threads-inherit.data -F comm,pid,tid,time > threads-inherit.script.txt 2>/dev/null
$PERF report -f -i threads-inherit.data --no-children -g none -n --stdio -w 8,12,40 --sort pid \
    > threads-inherit.report-pid.txt 2>/dev/null
PERF_BUILDID_DIR="$(mktemp -d)" $PERF script -f -i threads-inherit.data --symfs=/nonexistent --kallsyms=no-kallsyms \
    -F comm,tid,time,ip,sym,symoff,dso > threads-inherit.samples.txt 2>/dev/null
