#!/bin/sh
# Record perf stat record files and a --namespaces recording, with what
# perf itself says about them:
#
#   stat.data     perf stat record -e task-clock,context-switches,page-faults
#                 of sleep 0.1 (one thread)
#   stat-a.data   the same, system-wide (-a: one STAT record per CPU),
#                 with cpu-migrations
#   X.report.txt  perf stat report
#   X.dump.txt    perf report -D: the STAT, STAT_ROUND, STAT_CONFIG,
#                 THREAD_MAP and CPU_MAP records' fields
#   ns.data       perf record --namespaces -e cpu-clock of true
#   ns.script.txt perf script --show-namespace-events -F comm,tid,event
#
# Run as root:  cd testdata/perf/stat && sh record.sh
set -e
PERF=${PERF:-perf}
$PERF stat record -o stat.data -e task-clock,context-switches,page-faults -- sleep 0.1 >/dev/null 2>&1
$PERF stat record -a -o stat-a.data -e task-clock,context-switches,cpu-migrations,page-faults -- sleep 0.1 >/dev/null 2>&1
for t in stat stat-a; do
  $PERF stat report -i $t.data > $t.report.txt 2>&1
  $PERF report -D -i $t.data 2>/dev/null | grep -A2 'PERF_RECORD_\(STAT\|THREAD_MAP\|CPU_MAP\)' > $t.dump.txt || true
done
$PERF record -q --namespaces -e cpu-clock -c 100000 -o ns.data -- true >/dev/null 2>&1
$PERF script -f -i ns.data --show-namespace-events -F comm,tid,event > ns.script.txt 2>/dev/null
rm -f stat.data.old stat-a.data.old ns.data.old
