#!/bin/sh
# Record sym.data: cpu-clock samples with frame-pointer callchains of a small
# program (symprog.c) whose samples land in named functions, and store what
# perf says about them when it may only use the files stored here:
#
#   symfs/       the program, at the path the trace names it by
#                (/tmp/tracelite-sym/symprog), under a --symfs root that
#                holds nothing else: libc and ld.so frames stay unresolved
#   kallsyms     the lines of /proc/kallsyms the kernel frames need (each
#                hit symbol and the one after it, which ends it, and _text)
#   sym.script.txt   perf script -F comm,tid,time,ip,sym,dso with these
#   sym.report.txt   perf report --no-children -g none --sort sym -n
#   symprog.readelf.txt  readelf -sW of the program: its symbol tables
#
# Run as root:  cd testdata/perf/sym && sh record.sh
set -e
PERF=${PERF:-perf}
BIN=/tmp/tracelite-sym/symprog
mkdir -p "$(dirname $BIN)" symfs"$(dirname $BIN)"
cc -O1 -g0 -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls -o $BIN symprog.c
cp $BIN symfs$BIN
$PERF record -q -N -e cpu-clock -c 100000 -g -o sym.data -- $BIN 12 >/dev/null 2>&1

# Only the files here: no build-id cache, no /proc/kallsyms.
export PERF_BUILDID_DIR="$(mktemp -d)"
$PERF script -f -i sym.data -F ip > /tmp/tracelite-sym/ips.txt 2>/dev/null
sh ../kallsyms-for.sh /tmp/tracelite-sym/ips.txt > kallsyms
$PERF script -f -i sym.data --symfs=symfs --kallsyms=kallsyms -F comm,tid,time,ip,sym,dso > sym.script.txt 2>/dev/null
$PERF script -f -i sym.data --symfs=symfs --kallsyms=kallsyms -G -F comm,tid,time,ip,sym,symoff,dso > sym.samples.txt 2>/dev/null
$PERF report -f -i sym.data --symfs=symfs --kallsyms=kallsyms --no-children -g none --sort sym -n --stdio > sym.report.txt 2>/dev/null
rm -rf "$PERF_BUILDID_DIR"
readelf -sW symfs$BIN > symprog.readelf.txt
