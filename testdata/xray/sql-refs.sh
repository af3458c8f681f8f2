#!/bin/sh
# What llvm-xray stack says about the committed logs, for the sql/
# library's tests (tests/sql_library.py): folded stacks per thread
# (X.flame-time.txt, X.flame-count.txt) and with the threads aggregated
# (X.stacks-time.txt, X.stacks-count.txt).
#
#     cd testdata/xray && sh sql-refs.sh
set -e
XRAY=${XRAY:-llvm-xray}
for f in fdr basic fdr-O2; do
  map=app.map.elf
  [ $f = fdr-O2 ] && map=app-O2.map.elf
  for a in time count; do
    $XRAY stack -instr_map=$map -all-stacks -stack-format=flame -aggregation-type=$a $f.xray > $f.flame-$a.txt
    $XRAY stack -instr_map=$map -all-stacks -aggregate-threads -stack-format=flame -aggregation-type=$a $f.xray > $f.stacks-$a.txt
  done
done
