#!/bin/sh
# Record user cpu-clock samples with frame-pointer callchains of a program built with -g and no build id
# (-Wl,--build-id=none) whose debug info and symbol table are split off
# into a separate file named by its GNU debug link (objcopy
# --only-keep-debug, then --strip-all --add-gnu-debuglink), and store
# what perf says about them when it may only use the files stored here:
#
#   lnkprog.c             the program (static functions, -O0,
#                         frame pointers)
#   symfs/                the program at the path the trace names it by
#                         (/opt/tracelite-perflnk/lnkprog, no symbols but
#                         .dynsym) and its debug file in the .debug/
#                         folder beside it (lnkprog.debug)
#   lnk.script.txt        perf script -F ip,sym,dso,srcline
#
# Run as root:  cd testdata/perf/debuglink && sh record.sh
set -e
PERF=${PERF:-perf}
HERE=$(pwd)
D=/opt/tracelite-perflnk
rm -rf $D symfs && mkdir -p $D/.debug symfs$D/.debug
cp lnkprog.c $D && cd $D
gcc -O0 -g -fno-omit-frame-pointer -fdebug-prefix-map=$D=. -Wl,--build-id=none -o lnkprog lnkprog.c
objcopy --only-keep-debug lnkprog .debug/lnkprog.debug
objcopy --strip-all --add-gnu-debuglink=.debug/lnkprog.debug lnkprog
cd "$HERE"
$PERF record -q -N -e cpu-clock:u -c 1000000 -g -o lnk.data -- $D/lnkprog 20000 >/dev/null 2>&1
rm -f lnk.data.old
cp $D/lnkprog symfs$D/ && cp $D/.debug/lnkprog.debug symfs$D/.debug/
rm -rf $D
export PERF_BUILDID_DIR="$(mktemp -d)"
$PERF script -f -i lnk.data --symfs=symfs -F ip,sym,dso,srcline > lnk.script.txt 2>/dev/null
rm -rf "$PERF_BUILDID_DIR"
