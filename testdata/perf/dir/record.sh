#!/bin/sh
# Record thr.data, a perf data directory: perf record --threads writes
# thr.data/data (header, attrs, the records perf synthesizes, features) and
# thr.data/data.N (one per recording thread: the records of its CPUs),
# here cpu-clock samples of two shell loops, one on CPU 0 and one on CPU 1. What perf says:
#
#   thr.script.txt    perf script -F comm,tid,cpu,time,event,ip,period
#   thr.stats.txt     perf report --stats
#   thr.report-comm.txt  perf report --sort comm -n
#   thr.stats-no-0.txt   perf report --stats of a copy without data.0
#
# and cg.data, the same loops with their callchains (-g):
#
#   cg.script.txt     perf script -F comm,tid,cpu,time,event,ip (a sample's
#                     line, then its callchain's addresses, one a line)
#
# Run as root:  cd testdata/perf/dir && sh record.sh
set -e
PERF=${PERF:-perf}
loop='i=0; while [ $i -lt 60000 ]; do i=$((i+1)); done'
rm -rf thr.data
$PERF record -q --threads -e cpu-clock -c 500000 --sample-cpu -o thr.data -- sh -c "taskset -c 0 sh -c '$loop' & taskset -c 1 sh -c '$loop'; wait" >/dev/null 2>&1
$PERF script -f -i thr.data -F comm,tid,cpu,time,event,ip,period > thr.script.txt 2>/dev/null
$PERF report -f -i thr.data --stats > thr.stats.txt 2>/dev/null
$PERF report -f -i thr.data --sort comm -n --stdio > thr.report-comm.txt 2>/dev/null
d=$(mktemp -d)
cp -r thr.data "$d/" && rm "$d/thr.data/data.0"
$PERF report -f -i "$d/thr.data" --stats > thr.stats-no-0.txt 2>/dev/null
rm -rf "$d"
rm -rf cg.data
$PERF record -q --threads -e cpu-clock -c 500000 -g --sample-cpu -o cg.data -- sh -c "taskset -c 0 sh -c '$loop' & taskset -c 1 sh -c '$loop'; wait" >/dev/null 2>&1
$PERF script -f -i cg.data -F comm,tid,cpu,time,event,ip > cg.script.txt 2>/dev/null
