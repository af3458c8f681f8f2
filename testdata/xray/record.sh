#!/bin/sh
# Build app.cc with XRay instrumentation and record one FDR and one basic
# log, then store what llvm-xray makes of them. Needs clang++ 14 and the
# XRay runtime (Debian: clang, libclang-rt-14-dev, llvm).
#
#     cd testdata/xray && sh record.sh
set -e
rm -f fdr-* basic-* o2-*
# At -O2 the compiler turns tail_caller's call into a tail call: function-tail-exit records.
clang++ -O2 -fxray-instrument -fxray-modes=xray-basic,xray-fdr -pthread -o app-O2 app.cc
XRAY_OPTIONS="patch_premain=false xray_logfile_base=o2-" \
  XRAY_FDR_OPTIONS="func_duration_threshold_us=0 buffer_size=512 buffer_max=64" ./app-O2 xray-fdr 2>/dev/null
mv o2-* fdr-O2.xray
rm -f app-O2
clang++ -O2 -fxray-instrument -c -o app.o app.cc
clang -c -o stubs.o stubs.c
clang++ -O2 -pthread -o app-O2.map.elf app.o stubs.o
strip --strip-debug app-O2.map.elf
llvm-xray extract --symbolize app-O2.map.elf > app-O2.map.yaml
llvm-xray convert -output-format=yaml fdr-O2.xray > fdr-O2.yaml
llvm-xray convert -instr_map=app-O2.map.elf -symbolize -output-format=yaml fdr-O2.xray > fdr-O2.sym.yaml
llvm-xray account -instr_map=app-O2.map.elf fdr-O2.xray > fdr-O2.account.txt

clang++ -O1 -fxray-instrument -fxray-modes=xray-basic,xray-fdr -pthread -o app app.cc
XRAY_OPTIONS="patch_premain=false xray_logfile_base=fdr-" \
  XRAY_FDR_OPTIONS="func_duration_threshold_us=0 buffer_size=512 buffer_max=64" ./app xray-fdr 2>/dev/null
XRAY_OPTIONS="patch_premain=false xray_logfile_base=basic-" \
  XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./app xray-basic 2>/dev/null
mv fdr-* fdr.xray
mv basic-* basic.xray
# The runtime's default duration threshold (5 us): short calls are left out.
XRAY_OPTIONS="patch_premain=false xray_logfile_base=def-" \
  XRAY_FDR_OPTIONS="buffer_size=512 buffer_max=64" ./app xray-fdr 2>/dev/null
mv def-* fdr-default.xray
XRAY_OPTIONS="patch_premain=false xray_logfile_base=defb-" ./app xray-basic 2>/dev/null
mv defb-* basic-default.xray
for f in fdr basic fdr-default basic-default; do
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
for f in fdr basic fdr-default basic-default; do
  llvm-xray convert -instr_map=app.map.elf -symbolize -output-format=yaml $f.xray > $f.sym.yaml
  llvm-xray account -instr_map=app.map.elf $f.xray > $f.account.txt
done

# Chrome trace-event JSON (begin/end pairs), the reference for
# sql/chrome-xray.sql.
llvm-xray convert -instr_map=app.map.elf -symbolize -output-format=trace_event fdr.xray > fdr.trace_event.json
llvm-xray convert -instr_map=app-O2.map.elf -symbolize -output-format=trace_event fdr-O2.xray > fdr-O2.trace_event.json
