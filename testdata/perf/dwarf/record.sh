#!/bin/sh
# Record DWARF callchains (--call-graph dwarf,4096: user registers and a
# copy of the stack with each sample) of small programs without frame
# pointers, and store what perf says about them when it may only use the
# files stored here:
#
#   dwprog.c, dwprog.cpp  C and C++, built at -O0 and -O2 with -g: threads,
#                         static functions (inlined at -O2), templates, a
#                         lambda, calls into libdwlib.so and back
#   dwlib.c               the shared library (-O2 -g)
#   symfs/                the programs and the library at the paths the
#                         traces name them by (/tmp/tracelite-dwarf/...),
#                         under a --symfs root that holds nothing else:
#                         unwinding stops at the first libc frame
#   kallsyms              the lines of /proc/kallsyms the kernel frames need
#   NAME.script.txt       perf script -F ip,sym,dso
#   NAME.inline.txt       perf script -F ip,sym,dso --inline
#   NAME.srcline.txt      perf script -F ip,srcline
#   NAME.report.txt       perf report --no-children --sort sym -n
#
# Run as root:  cd testdata/perf/dwarf && sh record.sh
set -e
PERF=${PERF:-perf}
DIR=/tmp/tracelite-dwarf
mkdir -p $DIR symfs$DIR
# the build folder is not kept in the DWARF (it would name this machine's)
export CFLAGS_MAP="-fdebug-prefix-map=$(pwd)=/src/tracelite/testdata/perf/dwarf"
gcc -O2 -g $CFLAGS_MAP -fPIC -shared -o $DIR/libdwlib.so dwlib.c
gcc -O0 -g $CFLAGS_MAP -pthread -o $DIR/c-O0 dwprog.c -L$DIR -ldwlib -Wl,-rpath,$DIR
gcc -O2 -g $CFLAGS_MAP -pthread -o $DIR/c-O2 dwprog.c -L$DIR -ldwlib -Wl,-rpath,$DIR
g++ -O0 -g $CFLAGS_MAP -pthread -o $DIR/cxx-O0 dwprog.cpp -L$DIR -ldwlib -Wl,-rpath,$DIR
g++ -O2 -g $CFLAGS_MAP -pthread -o $DIR/cxx-O2 dwprog.cpp -L$DIR -ldwlib -Wl,-rpath,$DIR
cp $DIR/libdwlib.so $DIR/c-O0 $DIR/c-O2 $DIR/cxx-O0 $DIR/cxx-O2 symfs$DIR/
for t in c-O0 c-O2 cxx-O0 cxx-O2; do
  $PERF record -q -N -z -e cpu-clock -c 1000000 --call-graph dwarf,4096 -o $t.data -- $DIR/$t 60000 >/dev/null 2>&1
done
rm -f *.data.old

# Only the files here: no build-id cache, no /proc/kallsyms.
export PERF_BUILDID_DIR="$(mktemp -d)"
for t in c-O0 c-O2 cxx-O0 cxx-O2; do $PERF script -f -i $t.data -F ip 2>/dev/null; done > $DIR/ips.txt
sh ../kallsyms-for.sh $DIR/ips.txt > kallsyms
O="--symfs=symfs --kallsyms=kallsyms"
for t in c-O0 c-O2 cxx-O0 cxx-O2; do
  $PERF script -f -i $t.data $O -F ip,sym,dso > $t.script.txt 2>/dev/null
  $PERF script -f -i $t.data $O -F ip,sym,dso --inline > $t.inline.txt 2>/dev/null
  $PERF script -f -i $t.data $O -F ip,srcline > $t.srcline.txt 2>/dev/null
  $PERF report -f -i $t.data $O --no-children --sort sym -n --stdio > $t.report.txt 2>/dev/null
done
rm -rf "$PERF_BUILDID_DIR"
