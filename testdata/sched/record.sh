#!/bin/sh
# record.sh: the scheduling test recordings and their reference outputs.
# Run as root from this directory; needs perf, babeltrace2 and
# python3-lttnganalyses (lttng-cputop etc., run with /usr/bin/python3).
#   sched.data     perf sched record (sched_switch, wakeups, migrations,
#                  fork/exec/exit)
#   tp.data        perf record -a -e 'sched:*'
#   trace.data     perf trace record (syscalls and sched)
#   syscalls-lost.data
#                  raw_syscalls of threads in blocking reads (perf bench
#                  sched messaging -t) through a one-page buffer: records
#                  are lost, so exits come without their entries
#   sched-ctf/     sched.data as CTF (perf data convert --to-ctf --all:
#                  with the COMM, FORK, EXIT and MMAP records too)
set -e
perf sched record -o sched.data -- sh -c 'for i in 1 2 3; do (dd if=/dev/zero bs=16k count=300 2>/dev/null | gzip -1 >/dev/null; sleep 0.01) & done; wait; sleep 0.02' 2>record.log
perf record -q -a -e 'sched:*' -o tp.data -- sh -c 'for i in 1 2; do (dd if=/dev/zero bs=16k count=200 2>/dev/null | gzip -1 >/dev/null; sleep 0.01) & done; wait' 2>>record.log
perf trace record -q -o trace.data -- sh -c 'ls / >/dev/null; sleep 0.01; cat /proc/self/status >/dev/null' 2>>record.log
perf record -q -e raw_syscalls:sys_enter,raw_syscalls:sys_exit -m 1 -o syscalls-lost.data -- perf bench sched messaging -t -g 1 -l 3 >/dev/null 2>>record.log
rm -rf sched-ctf
perf data convert -i sched.data --to-ctf sched-ctf --all 2>>record.log
for f in sched tp; do
  perf sched timehist -i $f.data > $f.timehist.txt 2>/dev/null
  perf sched timehist -s -i $f.data > $f.runtime.txt 2>/dev/null
  perf sched latency -i $f.data > $f.latency.txt 2>/dev/null
  perf sched latency -p -i $f.data > $f.latency-p.txt 2>/dev/null
done
perf trace -s -i trace.data > trace.summary.txt 2>&1
perf trace -s -i syscalls-lost.data > syscalls-lost.summary.txt 2>&1
perf script -i trace.data -F event,trace 2>/dev/null | grep raw_syscalls > trace.syscalls.txt
