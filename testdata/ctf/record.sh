#!/bin/sh
# Records the CTF test traces with LTTng-UST and writes babeltrace2's output
# for each beside it. Run as root on Debian 12 with lttng-tools,
# liblttng-ust-dev and babeltrace2 installed. Needs a session daemon
# (started here when none runs).
#
#   ust-types  every field type LTTng-UST writes (tl_tp.h), vpid/vtid
#              contexts, per-UID buffers, one channel, two threads pinned
#              to CPUs 0 and 1, and the libc wrapper's lttng_ust_libc:*
#              events (malloc, free, ... of the program)
#   ust-multi  two channels (tl:ints, and tl:tick) with 4 KiB
#              sub-buffers: many packets per stream, index/ files
#   ust-pid    per-PID buffers, the program run twice: two traces side by
#              side under ust/pid/
#   ust-discard  buffers too small for the program run without pauses:
#              discarded events (no NAME.bt2.txt; see sql-refs.sh)
#   ust-counters  perf counter contexts (perf:thread:task-clock,
#              context-switches, page-fault) and vtid on tl:tick
#
# For each trace NAME: NAME.bt2.txt = `babeltrace2 --clock-seconds --no-delta
# --fields=emf NAME` ("[seconds.ns] event: fields", one line per event; the
# emf field is absent from these traces, so no prefix is printed), and
# NAME.counts.txt = its event count, per-name and per-CPU counts, first and
# last ts in ns, derived from NAME.bt2.txt and the packet contexts.
set -e
cd "$(dirname "$0")"
CC=${CC:-cc}
$CC -O1 -I. -o tl_app tl_app.c tl_tp.c -llttng-ust -ldl -lpthread
pgrep -x lttng-sessiond >/dev/null || { lttng-sessiond --daemonize; sleep 1; }

record() {   # record NAME [buffer option]; the caller enables events, runs the app
  rm -rf "$1"
  lttng create "tl-$1" --output="$PWD/$1" >/dev/null
}

# ust-types
record ust-types
lttng enable-channel -u chan --subbuf-size=4096 --num-subbuf=4 >/dev/null
lttng enable-event -u -c chan 'tl:ints,tl:mixed,lttng_ust_libc:*' >/dev/null
lttng add-context -u -c chan -t vpid -t vtid >/dev/null
lttng start >/dev/null
LD_PRELOAD=liblttng-ust-libc-wrapper.so.1 ./tl_app 10
lttng destroy >/dev/null

# ust-multi
record ust-multi
lttng enable-channel -u chan_a --subbuf-size=4096 --num-subbuf=8 >/dev/null
lttng enable-channel -u chan_b --subbuf-size=4096 --num-subbuf=8 >/dev/null
lttng enable-event -u -c chan_a 'tl:ints' >/dev/null
lttng enable-event -u -c chan_b 'tl:tick' >/dev/null
lttng start >/dev/null
./tl_app 300
lttng destroy >/dev/null

# ust-pid
record ust-pid
lttng enable-channel -u --buffers-pid chan --subbuf-size=16384 --num-subbuf=4 >/dev/null
lttng enable-event -u -c chan 'tl:tick' >/dev/null
lttng start >/dev/null
./tl_app 5
./tl_app 5
lttng destroy >/dev/null
# ust-discard: two 4 KiB sub-buffers and no pause between rounds, so the
# tracer discards events (babeltrace2 warns about them; sql-refs.sh keeps
# its warnings)
record ust-discard
lttng enable-channel -u chan --subbuf-size=4096 --num-subbuf=2 >/dev/null
lttng enable-event -u -c chan 'tl:ints,tl:tick' >/dev/null
lttng start >/dev/null
./tl_app 3000 burst
lttng destroy >/dev/null
# ust-counters: LTTng's perf counter contexts (software counters, read
# per thread at each event): the exports' counter events
record ust-counters
lttng enable-channel -u chan --subbuf-size=16384 --num-subbuf=4 >/dev/null
lttng enable-event -u -c chan 'tl:tick' >/dev/null
lttng add-context -u -c chan -t vtid -t perf:thread:task-clock \
  -t perf:thread:context-switches -t perf:thread:page-fault >/dev/null
lttng start >/dev/null
./tl_app 5
lttng destroy >/dev/null
rm -f tl_app

for t in ust-types ust-multi ust-pid ust-counters; do
  babeltrace2 --clock-seconds --no-delta --fields=emf "$t" > "$t.bt2.txt"
  python3 - "$t" <<'PY'
import collections, re, subprocess, sys
name = sys.argv[1]
ts, names = [], collections.Counter()
for line in open(name + ".bt2.txt"):
    m = re.match(r"\[(\d+)\.(\d{9})\] (\S+): ", line)
    ts.append(int(m.group(1)) * 10**9 + int(m.group(2)))
    names[m.group(3)] += 1
cpus = collections.Counter()
for line in open(name + ".bt2.txt"):
    m = re.search(r"\{ cpu_id = (\d+) \}", line)
    cpus[int(m.group(1)) if m else -1] += 1
with open(name + ".counts.txt", "w") as f:
    f.write("events %d\n" % len(ts))
    f.write("first_ts %d\nlast_ts %d\n" % (min(ts), max(ts)))
    for n, c in sorted(names.items()):
        f.write("name %s %d\n" % (n, c))
    for n, c in sorted(cpus.items()):
        f.write("cpu %d %d\n" % (n, c))
PY
done
# trace_info's reference: the metadata as babeltrace2 prints it, each
# trace after a "# babeltrace2 ..." line (tests/test_exports.c)
for t in ust-types ust-pid; do
  for d in $(find $t -name metadata | sort); do
    d=$(dirname $d); echo "# babeltrace2 -o ctf-metadata $d"; babeltrace2 -o ctf-metadata $d
  done > $t.metadata.txt
done
ls -lR ust-types ust-multi ust-pid | head -60
