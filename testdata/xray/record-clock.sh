#!/bin/sh
# An FDR log whose clock is known: CLOCK_MONOTONIC and CLOCK_REALTIME read
# just before and just after the run (clock.times.txt), for clock=. Needs
# clang++ 14 and the XRay runtime, as record.sh.
#
#     cd testdata/xray && sh record-clock.sh
set -e
rm -f clk-*
clang++ -O1 -fxray-instrument -fxray-modes=xray-fdr -pthread -o app-clock app.cc
mono() { python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC))'; }
m0=$(mono); r0=$(date +%s%N)
XRAY_OPTIONS="patch_premain=false xray_logfile_base=clk-" \
  XRAY_FDR_OPTIONS="func_duration_threshold_us=0 buffer_size=512 buffer_max=64" ./app-clock xray-fdr 2>/dev/null
r1=$(date +%s%N); m1=$(mono)
mv clk-* clock.xray
printf 'monotonic_before %s\nmonotonic_after %s\nrealtime_before %s\nrealtime_after %s\n' \
  "$m0" "$m1" "$r0" "$r1" > clock.times.txt
llvm-xray fdr-dump clock.xray > clock.fdr-dump.txt
rm -f app-clock
