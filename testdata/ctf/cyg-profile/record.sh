#!/bin/sh
# Records the cyg-profile trace: cyg.c built with -finstrument-functions,
# run under an LTTng-UST session with liblttng-ust-cyg-profile.so preloaded
# (lttng_ust_cyg_profile:func_entry/func_exit, vpid/vtid contexts). Run as
# root on Debian 12 with lttng-tools, liblttng-ust-dev and babeltrace2.
#
#   trace/        the CTF trace
#   trace.bt2.txt babeltrace2 --clock-seconds --no-delta --fields=emf trace
#                 (the reference for the calls: tests/test_calls.c)
#   cyg.nm.txt    nm of the program (the functions' addresses)
set -e
cd "$(dirname "$0")"
CC=${CC:-cc}
$CC -O0 -g -no-pie -finstrument-functions -o cyg cyg.c -lpthread
pgrep -x lttng-sessiond >/dev/null || { lttng-sessiond --daemonize; sleep 1; }
rm -rf trace
lttng create tl-cyg-profile --output="$PWD/trace" >/dev/null
lttng enable-event -u 'lttng_ust_cyg_profile*' >/dev/null
lttng add-context -u -t vtid -t vpid >/dev/null
lttng start >/dev/null
LD_PRELOAD=liblttng-ust-cyg-profile.so ./cyg
lttng stop >/dev/null
lttng destroy >/dev/null
babeltrace2 --clock-seconds --no-delta --fields=emf trace >trace.bt2.txt
nm cyg | grep -i ' t ' | sort >cyg.nm.txt
rm -f cyg
