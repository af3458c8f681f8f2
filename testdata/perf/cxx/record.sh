#!/bin/sh
# Record cxx.data and plt.data: cpu-clock samples with frame-pointer
# callchains of two small programs, and store what perf says about them
# when it may only use the files stored here:
#
#   cxxprog.cpp  C++ functions perf demangles (a class template in nested
#                namespaces, a lambda, a static function, an anonymous
#                namespace, a constructor, an operator, std::thread)
#   pltprog.c    a loop of libc calls through the program's PLT stubs
#   symfs/       both programs, at the paths the traces name them by
#                (/tmp/tracelite-cxx/...), under a --symfs root that holds
#                nothing else: libc, libstdc++ and ld.so frames stay unresolved
#   kallsyms     the lines of /proc/kallsyms the kernel frames need
#   NAME.script.txt   perf script -F ip,sym,symoff,dso with these
#   NAME.report.txt   perf report --no-children --sort sym -g none -n
#   NAME.readelf.txt  readelf -SsW -r of the program: sections, symbols, relocations
#
# Run as root:  cd testdata/perf/cxx && sh record.sh
set -e
PERF=${PERF:-perf}
DIR=/tmp/tracelite-cxx
FLAGS="-O1 -g0 -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls"
mkdir -p $DIR symfs$DIR
g++ $FLAGS -pthread -o $DIR/cxxprog cxxprog.cpp
gcc $FLAGS -fno-builtin -o $DIR/pltprog pltprog.c
cp $DIR/cxxprog $DIR/pltprog symfs$DIR/
$PERF record -q -N -g -e cpu-clock -c 100000 -o cxx.data -- $DIR/cxxprog 4 >/dev/null 2>&1
$PERF record -q -N -g -e cpu-clock -c 100000 -o plt.data -- $DIR/pltprog 4000000 >/dev/null 2>&1
rm -f cxx.data.old plt.data.old

# Only the files here: no build-id cache, no /proc/kallsyms.
export PERF_BUILDID_DIR="$(mktemp -d)"
for t in cxx plt; do $PERF script -f -i $t.data -F ip 2>/dev/null; done > $DIR/ips.txt
sh ../kallsyms-for.sh $DIR/ips.txt > kallsyms
for t in cxx plt; do
  $PERF script -f -i $t.data --symfs=symfs --kallsyms=kallsyms -F ip,sym,symoff,dso > $t.script.txt 2>/dev/null
  $PERF script -f -i $t.data --symfs=symfs --kallsyms=kallsyms -G -F comm,tid,time,ip,sym,symoff,dso \
    > $t.samples.txt 2>/dev/null
  $PERF report -f -i $t.data --symfs=symfs --kallsyms=kallsyms --no-children --sort sym -g none -n --stdio \
    > $t.report.txt 2>/dev/null
done
rm -rf "$PERF_BUILDID_DIR"
readelf -SsW -r symfs$DIR/cxxprog > cxx.readelf.txt
readelf -SsW -r symfs$DIR/pltprog > plt.readelf.txt
