#!/bin/sh
# Record vdso.data: cpu-clock samples with callchains of vdprog.c (built at
# /tmp/tracelite-vdso/vdprog), which spends its time in the vdso's
# clock_gettime, and store what perf says about its frames:
#
#   vdso.script.txt  perf script -F ip,sym,symoff,dso
#   buildid/[vdso]/ID/vdso
#                    the vdso image perf record kept in its build-id cache
#                    (~/.debug), which names [vdso] frames
#
# Run as root:  cd testdata/perf/vdso && sh record.sh
set -e
PERF=${PERF:-perf}
DIR=/tmp/tracelite-vdso
mkdir -p $DIR
gcc -O1 -fno-omit-frame-pointer -o $DIR/vdprog vdprog.c
cache=${PERF_BUILDID_DIR:-$HOME/.debug}
$PERF record -q -g -e cpu-clock -c 1000000 -o vdso.data -- $DIR/vdprog >/dev/null 2>&1
rm -f vdso.data.old
$PERF script -f -i vdso.data -F ip,sym,symoff,dso > vdso.script.txt 2>/dev/null
id=$($PERF buildid-list -i vdso.data 2>/dev/null | awk '$2 == "[vdso]" { print $1 }')
rm -rf buildid && mkdir -p "buildid/[vdso]/$id"
cp "$cache/[vdso]/$id/vdso" "buildid/[vdso]/$id/vdso"
rm -rf $DIR
