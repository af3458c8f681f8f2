#!/bin/sh
# Build names.cc (C++ names of every kind) with XRay instrumentation of
# every function, record one FDR and one basic log, and store what
# llvm-xray makes of them. Needs clang++ 14 and the XRay runtime.
#
#     cd testdata/xray && sh record-names.sh
set -e
XRAY=${XRAY:-llvm-xray}
rm -f names-fdr.xray names-basic.xray nf-* nb-*
CXXFLAGS="-O0 -fxray-instrument -fxray-instruction-threshold=1"
clang++ $CXXFLAGS -fxray-modes=xray-basic,xray-fdr -pthread -o names names.cc
# llvm-xray 14 reads an FDR log's threads in the order of a hash of their
# ids and account fails when that is not time order ("Error processing
# record"): record again until it is.
for i in 1 2 3 4 5 6 7 8 9 10; do
  rm -f nf-*
  XRAY_OPTIONS="patch_premain=false xray_logfile_base=nf-" \
    XRAY_FDR_OPTIONS="func_duration_threshold_us=0" ./names xray-fdr 2>/dev/null
  $XRAY account nf-* >/dev/null 2>&1 && break
done
XRAY_OPTIONS="patch_premain=false xray_logfile_base=nb-" \
  XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./names xray-basic 2>/dev/null
mv nf-* names-fdr.xray
mv nb-* names-basic.xray
rm -f names
# The map binary: the same objects linked with stubs.c in place of the
# runtime (same instrumentation map, no runtime), debug info stripped.
clang++ $CXXFLAGS -c -o names.o names.cc
clang -c -o stubs.o stubs.c
clang++ -O0 -pthread -o names.map.elf names.o stubs.o
strip --strip-debug names.map.elf
rm -f names.o stubs.o
$XRAY extract --symbolize names.map.elf > names.map.yaml
for f in names-fdr names-basic; do
  $XRAY convert -instr_map=names.map.elf -symbolize -output-format=yaml $f.xray > $f.sym.yaml
  $XRAY account -instr_map=names.map.elf $f.xray > $f.account.txt
  for a in time count; do
    $XRAY stack -instr_map=names.map.elf -all-stacks -stack-format=flame -aggregation-type=$a $f.xray > $f.flame-$a.txt
    $XRAY stack -instr_map=names.map.elf -all-stacks -aggregate-threads -stack-format=flame -aggregation-type=$a $f.xray > $f.stacks-$a.txt
  done
done
# The references with every call's stack or record are large and
# repetitive: kept xz-compressed (the tests read them through xz -dc).
xz -9 -f names-*.sym.yaml names-*.flame-*.txt names-*.stacks-*.txt
