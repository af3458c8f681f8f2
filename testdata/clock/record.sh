#!/bin/sh
# Records one program (marker.c) with perf and LTTng-UST at the same time,
# for the clock= alignment test (tests/test_exports.c). Run as root on
# Debian 12 with perf, lttng-tools, liblttng-ust-dev and babeltrace2.
#
#   perf.data   perf record -k CLOCK_MONOTONIC -e syscalls:sys_enter_getppid
#   ust/        the LTTng-UST session: tl:tick and the cyg-profile
#               func_entry/func_exit of work() (vpid, vtid contexts)
#
# References: perf.script.txt (`perf script --ns -F tid,time,event`: the
# syscalls' monotonic times), ust.cycles.txt (`babeltrace2 --clock-cycles`:
# LTTng's raw clock values, CLOCK_MONOTONIC ns at 1 GHz), ust.bt2.txt
# (`babeltrace2 --clock-seconds`: the same on the epoch).
set -e
cd "$(dirname "$0")"
CC=${CC:-cc}
PERF=${PERF:-perf}
$CC -O1 -finstrument-functions -I../ctf -o marker marker.c ../ctf/tl_tp.c -llttng-ust -ldl
pgrep -x lttng-sessiond >/dev/null || { lttng-sessiond --daemonize; sleep 1; }
rm -rf ust perf.data
lttng create tl-clock --output="$PWD/ust" >/dev/null
lttng enable-channel -u chan --subbuf-size=16384 --num-subbuf=4 >/dev/null
lttng enable-event -u -c chan 'tl:tick,lttng_ust_cyg_profile:*' >/dev/null
lttng add-context -u -c chan -t vpid -t vtid >/dev/null
lttng start >/dev/null
LD_PRELOAD=liblttng-ust-cyg-profile.so $PERF record -q -k CLOCK_MONOTONIC \
  -e syscalls:sys_enter_getppid -o perf.data -- ./marker 20 >/dev/null 2>&1
lttng destroy >/dev/null
rm -f marker
chmod -R a+rX ust perf.data
$PERF script -f -i perf.data --ns -F tid,time,event > perf.script.txt 2>/dev/null
$PERF report -f -i perf.data --header-only > perf.header.txt 2>/dev/null
babeltrace2 --clock-cycles --no-delta ust > ust.cycles.txt
babeltrace2 --clock-seconds --no-delta ust > ust.bt2.txt
