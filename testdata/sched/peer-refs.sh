#!/bin/sh
# peer-refs.sh: lttng-analyses' outputs for the LTTng kernel traces among
# the peer traces (PEER, default ../../../shared/peer-traces), into peer/.
# Needs python3-lttnganalyses, run with Debian's /usr/bin/python3.
#   bug446190: lttng-analyses fails on it ("'State' object has no
#   attribute 'tracer_version'": the trace's metadata has no tracer
#   version), so it has no reference here.
set -e
PEER=${PEER:-../../../shared/peer-traces}
TC=$PEER/ctf/tracecompass-test-traces
BT=$PEER/ctf/babeltrace/ctf-traces/succeed
for t in "flipping-endianness:$TC/flipping-endianness" \
         "tracefile-rotation:$BT/lttng-tracefile-rotation/kernel"; do
  name=${t%%:*}; path=${t#*:}
  for tool in cputop schedstats syscallstats irqstats; do
    /usr/bin/python3 /usr/bin/lttng-$tool --no-progress --no-intersection "$path" \
      > peer/$name.$tool.txt 2>&1 || true
  done
done
