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
# Switches and wakeups, system-wide, briefly: perf sched timehist's sch delay.
$PERF record -q -e sched:sched_switch -e sched:sched_wakeup -e sched:sched_wakeup_new -a -o wakeup.data -- sh -c 'sleep 0.02; ls >/dev/null; sleep 0.02' >/dev/null 2>&1
# Context switch records.
$PERF record -q -e cpu-clock -c 200000 --switch-events -o switch.data -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; sleep 0.01' >/dev/null 2>&1

# One tid used by two processes in turn (the second gets the first's pid
# through ns_last_pid; retried until it does): tracks tells them apart.
d=$(mktemp -d)
printf 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done\n' > $d/child.sh
cp "$(command -v sh)" $d/rerun
for try in 1 2 3 4 5; do
  $PERF record -q -e cpu-clock -c 200000 -o reuse.data -- sh -c "sh $d/child.sh & p=\$!; wait \$p; echo \$((p-1)) > /proc/sys/kernel/ns_last_pid; $d/rerun $d/child.sh & q=\$!; wait \$q; [ \$p = \$q ] && touch $d/ok" >/dev/null 2>&1
  [ -f $d/ok ] && break
done
rm -rf $d
$PERF script -f -i reuse.data --show-task-events -F comm,tid,time,event > reuse.script.txt 2>/dev/null

# Tracepoints whose print formats use __print_hex_str, %pI4 and %pI6c: a
# neighbour entry for documentation addresses (192.0.2.55, 2001:db8::55)
# added, changed and removed on the default route's device.
dev=$(ip route show default | awk '{print $5; exit}')
if [ -n "$dev" ]; then
  $PERF record -q -e neigh:neigh_update -e neigh:neigh_update_done -a -o neigh.data -- sh -c "
    ip neigh add 192.0.2.55 lladdr 02:00:00:00:00:09 dev $dev nud permanent
    ip neigh change 192.0.2.55 lladdr 02:00:00:00:0a:0b dev $dev nud permanent
    ip neigh del 192.0.2.55 dev $dev
    ip -6 neigh add 2001:db8::55 lladdr 02:00:00:00:00:0c dev $dev nud permanent
    ip -6 neigh del 2001:db8::55 dev $dev" >/dev/null 2>&1
  $PERF script -f -i neigh.data -F trace > neigh.trace.txt 2>/dev/null
fi

# Lost samples: a one-page ring buffer and a fast sample rate, so the
# kernel writes LOST records (and perf LOST_SAMPLES); retried until it does.
for try in 1 2 3 4 5 6 7 8; do
  $PERF record -q -z -e cpu-clock -c 1000 -g -m 1 -o lost.data -- sh -c 'i=0; while [ $i -lt 1500 ]; do i=$((i+1)); done' >/dev/null 2>&1
  $PERF report -f -i lost.data --stats 2>/dev/null | grep -q 'LOST events' && break
done

# DWARF callchains: user registers and stack copies.
$PERF record -q -e cpu-clock -c 2000000 --call-graph dwarf,1024 -o dwarf.data -- sh -c 'i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done' >/dev/null 2>&1
$PERF script -f -i dwarf.data -F tid,time,uregs > dwarf.regs.txt 2>/dev/null

# On CLOCK_MONOTONIC (-k): the CLOCK_DATA and CLOCKID features (trace_info).
$PERF record -q -k CLOCK_MONOTONIC -e cpu-clock -c 100000 -o clock.data -- sleep 0.01 >/dev/null 2>&1
$PERF report -f -i clock.data --header-only > clock.header.txt 2>/dev/null

# A group read at each sample (PERF_SAMPLE_READ, ':S'): the leader's samples
# carry every member's count; perf script prints, as each line's period, a
# member's change since the previous sample of its id (no line for 0).
$PERF record -q -e '{cpu-clock,task-clock,page-faults}:S' -c 200000 -o read.data -- sh -c 'i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done' >/dev/null 2>&1
$PERF script -f -i read.data --ns -F tid,time,event,period > read.script.txt 2>/dev/null
# One event reading itself (':S' alone): no group, the value first.
$PERF record -q -e 'cpu-clock:S' -c 500000 -o read-single.data -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' >/dev/null 2>&1
$PERF script -f -i read-single.data --ns -F tid,time,event,period > read-single.script.txt 2>/dev/null

for f in cpu-clock-g multi zstd pipe sched switch dwarf; do
  $PERF script -f -i $f.data -F comm,tid,cpu,time,event,ip,period > $f.script.txt 2>/dev/null || \
  $PERF script -f -i $f.data > $f.script.txt 2>/dev/null
  $PERF report -f -i $f.data --stats > $f.stats.txt 2>/dev/null || true
  $PERF report -f -i $f.data --header-only > $f.header.txt 2>/dev/null || true
  $PERF buildid-list -i $f.data > $f.buildids.txt 2>/dev/null || true
done
$PERF script -f -i sched.data -F comm,tid,cpu,time,event,trace > sched.trace.txt 2>/dev/null
# The file offset of every SAMPLE record, from the raw dump (rowids).
$PERF report -f -D -i multi.data 2>/dev/null | \
  awk '/PERF_RECORD_SAMPLE/ { for(i=1;i<NF;i++) if($i ~ /^0x/ && $(i+1) ~ /^\[0x/){ print $i; break } }' > multi.sample-offsets.txt
# -I adds the memory topology and the other features --header-only leaves out.
$PERF report -f -i cpu-clock-g.data --header-only -I > cpu-clock-g.header-I.txt 2>/dev/null
# A copy cut short in the middle of a record.
head -c $(( $(stat -c %s cpu-clock-g.data) * 2 / 3 + 3 )) cpu-clock-g.data > cut.data
