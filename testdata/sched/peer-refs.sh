#!/bin/sh
# peer-refs.sh: lttng-analyses' outputs for the LTTng kernel traces among
# the peer traces (PEER, default ../../../shared/peer-traces), into peer/.
# Needs python3-lttnganalyses, run with Debian's /usr/bin/python3.
#   bug446190 (lttng-modules 2.5: sys_NAME / exit_syscall): lttng-analyses
#   reads the tracer version (which its sched and syscall rules need) only
#   from a directory whose name ends in "kernel"; run on the trace's own
#   directory it fails ("Error: Cannot run analysis: 'State' object has no
#   attribute 'tracer_version'"), so it is run through a link named kernel.
#   perf-taskset2 (perf data convert --to-ctf): lttng-analyses knows only
#   LTTng's event names (sched_switch, not sched:sched_switch) and reports
#   nothing; perf's own tools do not read CTF.
#   tracefile-rotation: its streams do not overlap (lttng-analyses says "Trace
#   has no intersection"), hence --no-intersection for every trace.
#   flipping-endianness has no wakeup, system call or softirq events: its
#   schedstats and syscallstats are empty.
set -e
PEER=${PEER:-../../../shared/peer-traces}
TC=$PEER/ctf/tracecompass-test-traces
BT=$PEER/ctf/babeltrace/ctf-traces/succeed
LINK=$(mktemp -d)
trap 'rm -rf "$LINK"' EXIT
ln -s "$(cd "$TC/bug446190" && pwd)" "$LINK/kernel"
for t in "flipping-endianness:$TC/flipping-endianness" \
         "tracefile-rotation:$BT/lttng-tracefile-rotation/kernel" \
         "bug446190:$LINK/kernel"; do
  name=${t%%:*}; path=${t#*:}
  for tool in cputop schedstats syscallstats irqstats; do
    /usr/bin/python3 /usr/bin/lttng-$tool --no-progress --no-intersection "$path" \
      > peer/$name.$tool.txt 2>&1 || true
  done
done
