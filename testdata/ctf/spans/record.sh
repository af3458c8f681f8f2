#!/bin/sh
# Records the spans trace: spans.c with the tracepoint provider "tlspan"
# (span_tp.h), two threads, vtid/vpid contexts. Each thread's first event
# is the end of a request begun before the session started; each thread
# ends with a request and a step begun that never end (the session stops
# first). Run as root on Debian 12 with lttng-tools, liblttng-ust-dev and
# babeltrace2.
#
#   trace/         the CTF trace
#   trace.bt2.txt  babeltrace2 --clock-seconds --no-delta --fields=emf trace
#                  (the reference of sql/speedscope-spans.sql's test,
#                  tests/test_tooling.c)
set -e
cd "$(dirname "$0")"
CC=${CC:-cc}
$CC -O1 -I. -o spans spans.c -llttng-ust -ldl -lpthread
pgrep -x lttng-sessiond >/dev/null || { lttng-sessiond --daemonize; sleep 1; }
rm -rf trace go done stop
lttng create tl-spans --output="$PWD/trace" >/dev/null
lttng enable-event -u 'tlspan:*' >/dev/null
lttng add-context -u -t vtid -t vpid >/dev/null
./spans 10 &
sleep 1                          # the threads' first request has begun
lttng start >/dev/null
touch go
while [ ! -f done ]; do sleep 0.1; done
lttng stop >/dev/null
touch stop
wait
lttng destroy >/dev/null
rm -f spans go done stop
babeltrace2 --clock-seconds --no-delta --fields=emf trace >trace.bt2.txt
