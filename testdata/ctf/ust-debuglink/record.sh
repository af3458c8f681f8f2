#!/bin/sh
# Records the ust-debuglink trace: LTTng-UST events with the ip, vpid and
# vtid contexts and the statedump, from a program and a shared library
# built with -g and no build id (-Wl,--build-id=none), whose debug info
# is split off into separate files named by a GNU debug link
# (objcopy --only-keep-debug, --strip-debug, --add-gnu-debuglink), and
# writes babeltrace2's debug-info output beside it. Run as root on Debian
# 12 with lttng-tools, liblttng-ust-dev and babeltrace2 installed.
#
# The programs are built and run in /opt/tracelite-lnk (the trace names
# them by that absolute path) and kept under symfs/ with that path:
#
#   lnk_app                 the program (no DWARF; .gnu_debuglink
#   .debug/lnk_app.debug    "lnk_app.debug": found in the .debug/ folder)
#   liblnk.so               the library (no DWARF; .gnu_debuglink
#   liblnk.so.debug         "liblnk.so.debug": found beside it)
#
# The statedump gives their debug_link events (no build_id events).
# debuglink.bt2.txt: `babeltrace2 --clock-seconds --no-delta --debug-info
# --debug-info-target-prefix=symfs trace`, one line per event.
set -e
cd "$(dirname "$0")"
HERE=$PWD
D=/opt/tracelite-lnk
rm -rf "$D" trace symfs
mkdir -p "$D/.debug"
cp lnk_tp.h lnk_lib.c lnk_app.c "$D"
cd "$D"
CC=${CC:-cc}
FLAGS="-g -O0 -fdebug-prefix-map=$D=. -Wl,--build-id=none"
$CC $FLAGS -fPIC -shared -I. -o liblnk.so lnk_lib.c -llttng-ust -ldl
$CC $FLAGS -I. -o lnk_app lnk_app.c -L. -llnk -llttng-ust -ldl -Wl,-rpath,"$D"
objcopy --only-keep-debug liblnk.so liblnk.so.debug
objcopy --strip-debug --add-gnu-debuglink=liblnk.so.debug liblnk.so
objcopy --only-keep-debug lnk_app .debug/lnk_app.debug
objcopy --strip-debug --add-gnu-debuglink=.debug/lnk_app.debug lnk_app
pgrep -x lttng-sessiond >/dev/null || { lttng-sessiond --daemonize; sleep 1; }
lttng create tl-debuglink --output="$HERE/trace" >/dev/null
lttng enable-event -u -a >/dev/null
lttng add-context -u -t ip -t vpid -t vtid >/dev/null
lttng start >/dev/null
./lnk_app 3
lttng destroy >/dev/null
cd "$HERE"
mkdir -p "symfs$D/.debug"
cp "$D/lnk_app" "$D/liblnk.so" "$D/liblnk.so.debug" "symfs$D"
cp "$D/.debug/lnk_app.debug" "symfs$D/.debug"
babeltrace2 --clock-seconds --no-delta --debug-info \
  --debug-info-target-prefix=symfs trace > debuglink.bt2.txt
rm -rf "$D"
