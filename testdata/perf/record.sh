#!/bin/sh
# Record the small perf.data test files with the real perf, and store what
# perf itself says about them (perf script, perf report --stats and
# --header-only) beside them. Run as root (software events, tracepoints).
#
#     cd testdata/perf && sh record.sh
set -e
PERF=${PERF:-perf}
work() { i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done; }

# cpu-clock samples with callchains, one short workload.
$PERF record -q -e cpu-clock -c 100000 -g -o cpu-clock-g.data -- sh -c 'i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done' >/dev/null 2>&1
# Several events in one file, sample CPU and time and data addresses.
$PERF record -q -e cpu-clock -e task-clock -c 200000 --sample-cpu -T -d -o multi.data -- sh -c 'i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done' >/dev/null 2>&1
# zstd-compressed records.
$PERF record -q -z -e cpu-clock -c 100000 -o zstd.data -- sh -c 'i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done' >/dev/null 2>&1
# Pipe mode.
$PERF record -q -e cpu-clock -c 100000 -o - -- sh -c 'i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done' > pipe.data 2>/dev/null
# Tracepoints, system-wide, briefly.
$PERF record -q -e sched:sched_switch -e sched:sched_process_exec -a -o sched.data -- sh -c 'sleep 0.05; ls >/dev/null; sleep 0.05' >/dev/null 2>&1
# Context switch records.
$PERF record -q -e cpu-clock -c 200000 --switch-events -o switch.data -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; sleep 0.01' >/dev/null 2>&1

# DWARF callchains: user registers and stack copies.
$PERF record -q -e cpu-clock -c 2000000 --call-graph dwarf,1024 -o dwarf.data -- sh -c 'i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done' >/dev/null 2>&1
$PERF script -f -i dwarf.data -F tid,time,uregs > dwarf.regs.txt 2>/dev/null

for f in cpu-clock-g multi zstd pipe sched switch dwarf; do
  $PERF script -f -i $f.data -F comm,tid,cpu,time,event,ip,period > $f.script.txt 2>/dev/null || \
  $PERF script -f -i $f.data > $f.script.txt 2>/dev/null
  $PERF report -f -i $f.data --stats > $f.stats.txt 2>/dev/null || true
  $PERF report -f -i $f.data --header-only > $f.header.txt 2>/dev/null || true
  $PERF buildid-list -i $f.data > $f.buildids.txt 2>/dev/null || true
done
$PERF script -f -i sched.data -F comm,tid,cpu,time,event,trace > sched.trace.txt 2>/dev/null
# -I adds the memory topology and the other features --header-only leaves out.
$PERF report -f -i cpu-clock-g.data --header-only -I > cpu-clock-g.header-I.txt 2>/dev/null
# A copy cut short in the middle of a record.
head -c $(( $(stat -c %s cpu-clock-g.data) * 2 / 3 + 3 )) cpu-clock-g.data > cut.data
