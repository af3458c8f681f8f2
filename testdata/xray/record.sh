#!/bin/sh
# Build app.cc with XRay instrumentation and record one FDR and one basic
# log, then store what llvm-xray makes of them. Needs clang++ 14 and the
# XRay runtime (Debian: clang, libclang-rt-14-dev, llvm).
#
#     cd testdata/xray && sh record.sh
set -e
clang++ -O1 -fxray-instrument -fxray-modes=xray-basic,xray-fdr -pthread -o app app.cc
rm -f fdr-* basic-*
XRAY_OPTIONS="patch_premain=false xray_logfile_base=fdr-" \
  XRAY_FDR_OPTIONS="func_duration_threshold_us=0 buffer_size=512 buffer_max=64" ./app xray-fdr 2>/dev/null
XRAY_OPTIONS="patch_premain=false xray_logfile_base=basic-" \
  XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./app xray-basic 2>/dev/null
mv fdr-* fdr.xray
mv basic-* basic.xray
for f in fdr basic; do
  llvm-xray convert -output-format=yaml $f.xray > $f.yaml
  llvm-xray convert -instr_map=./app -symbolize -output-format=yaml $f.xray > $f.sym.yaml
  llvm-xray account -instr_map=./app $f.xray > $f.account.txt 2>/dev/null || true
done
llvm-xray fdr-dump fdr.xray > fdr.fdr-dump.txt
llvm-xray extract --symbolize ./app > instr-map.yaml
rm -f app    # 300 KB with the runtime: not kept

# The same code linked without the XRay runtime (stubs.c stands in for its
# API): an 18 KB binary with the same instrumentation map, kept for binary=.
clang++ -O1 -fxray-instrument -c -o app.o app.cc
clang -c -o stubs.o stubs.c
clang++ -O1 -pthread -o app.map.elf app.o stubs.o
strip --strip-debug app.map.elf
rm -f app.o stubs.o
llvm-xray extract --symbolize app.map.elf > app.map.yaml
for f in fdr basic; do
  llvm-xray convert -instr_map=app.map.elf -symbolize -output-format=yaml $f.xray > $f.sym.yaml
  llvm-xray account -instr_map=app.map.elf $f.xray > $f.account.txt
done
