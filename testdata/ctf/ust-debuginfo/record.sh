#!/bin/sh
# Records the ust-debuginfo trace: LTTng-UST events with the ip, vpid and
# vtid contexts and the statedump (on by default), from a program and two
# shared libraries built with -g, and writes babeltrace2's debug-info
# output beside it. Run as root on Debian 12 with lttng-tools,
# liblttng-ust-dev and babeltrace2 installed.
#
# The programs are built and run in /opt/tracelite-dbg (the trace names
# them by that absolute path) and kept under symfs/ with that path, so
# that symfs=symfs (tracelite) and --debug-info-target-prefix=symfs
# (babeltrace2) find them:
#
#   dbg_app           the program: dbg:hit from main and from a thread
#   libdbg.so         linked by dbg_app: the probes, and dbg:hit from
#                     dbg_lib_work
#   libdbgplugin.so   dlopened and dlclosed each round (liblttng-ust-dl
#                     preloaded: lttng_ust_dl:dlopen/dlclose events)
#
# debuginfo.bt2.txt: `babeltrace2 --clock-seconds --no-delta
# --debug-info --debug-info-target-prefix=symfs trace`, one line per event;
# debuginfo-nofiles.bt2.txt: the same with a prefix under which no file is
# found (/nonexistent).
set -e
cd "$(dirname "$0")"
HERE=$PWD
D=/opt/tracelite-dbg
rm -rf "$D" trace symfs
mkdir -p "$D"
cp dbg_tp.h dbg_lib.c dbg_plugin.c dbg_app.c "$D"
cd "$D"
CC=${CC:-cc}
$CC -g -O0 -fPIC -shared -I. -o libdbg.so dbg_lib.c -llttng-ust -ldl
$CC -g -O0 -fPIC -shared -I. -o libdbgplugin.so dbg_plugin.c -llttng-ust -ldl
$CC -g -O0 -I. -o dbg_app dbg_app.c -L. -ldbg -llttng-ust -ldl -lpthread -Wl,-rpath,"$D"
pgrep -x lttng-sessiond >/dev/null || { lttng-sessiond --daemonize; sleep 1; }
lttng create tl-debuginfo --output="$HERE/trace" >/dev/null
lttng enable-event -u -a >/dev/null
lttng add-context -u -t ip -t vpid -t vtid >/dev/null
lttng start >/dev/null
LD_PRELOAD=liblttng-ust-dl.so LD_LIBRARY_PATH="$D" ./dbg_app 3
lttng destroy >/dev/null
cd "$HERE"
mkdir -p "symfs$D"
cp "$D/dbg_app" "$D/libdbg.so" "$D/libdbgplugin.so" "symfs$D"
babeltrace2 --clock-seconds --no-delta --debug-info \
  --debug-info-target-prefix=symfs trace > debuginfo.bt2.txt
babeltrace2 --clock-seconds --no-delta --debug-info \
  --debug-info-target-prefix=/nonexistent trace > debuginfo-nofiles.bt2.txt
rm -rf "$D"
