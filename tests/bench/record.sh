#!/bin/sh
# record.sh: records the benchmark traces with the real tools into $BENCH_DATA
# (default /tmp/tracelite-bench). A recording that already exists is kept, so
# a second run only times queries. Sizes come from BENCH_SCALE (full, small)
# and can be set one by one:
#   BENCH_CTF_EVENTS   LTTng-UST events, 2 threads on CPUs 0 and 1
#                      (full 15000000, small 1500000)
#   BENCH_PERF_SECONDS length of each perf record run, cpu-clock every 20 us,
#                      -g, 4 threads (full 30, small 3)
#   BENCH_XRAY_OPS     ops per thread of the XRay FDR program, 4 threads,
#                      ~11 records per op (full 560000 = ~25M records, small 56000)
#   BENCH_TP_LOOPS     loops of perf bench sched messaging (4 groups) under
#                      perf record -a of the sched and raw_syscalls
#                      tracepoints (full 800 = ~6.5M events, small 100)
# Prints the paths it made as shell assignments (CTF=, PERF=, PERFZ=, XRAY=,
# XRAY_BIN=, PERFD=) on stdout; everything else goes to stderr. Run as root.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=${BENCH_DATA:-/tmp/tracelite-bench}
case ${BENCH_SCALE:-full} in
  small) ctf=1500000 secs=3 ops=56000 tp=100 ;;
  full)  ctf=15000000 secs=30 ops=560000 tp=800 ;;
  *) echo "record.sh: BENCH_SCALE is full or small" >&2; exit 2 ;;
esac
CTF_EVENTS=${BENCH_CTF_EVENTS:-$ctf}
PERF_SECONDS=${BENCH_PERF_SECONDS:-$secs}
XRAY_OPS=${BENCH_XRAY_OPS:-$ops}
TP_LOOPS=${BENCH_TP_LOOPS:-$tp}
BIN=$DATA/bin
mkdir -p "$BIN"
exec 3>&1 1>&2   # results on fd 3, progress on stderr

# Programs are built once: perf.data and the XRay log refer to their binary.
[ -x "$BIN/ctf_app" ] || cc -O2 -I"$HERE" -o "$BIN/ctf_app" \
  "$HERE/ctf_app.c" "$HERE/bench_tp.c" -llttng-ust -ldl -lpthread
[ -x "$BIN/perf_load" ] || cc -O1 -g -fno-omit-frame-pointer -fno-inline \
  -pthread -o "$BIN/perf_load" "$HERE/perf_load.c"
[ -x "$BIN/xray_load" ] || clang++ -O2 -fno-optimize-sibling-calls \
  -fxray-instrument -fxray-instruction-threshold=1 -pthread \
  -o "$BIN/xray_load" "$HERE/xray_load.cc"

# CTF: one blocking per-UID channel with 1 MiB sub-buffers (one stream per
# CPU); the application waits for room instead of discarding events.
CTF=$DATA/ctf-$CTF_EVENTS
if [ ! -d "$CTF" ]; then
  echo "record: CTF, $CTF_EVENTS events"
  pgrep -x lttng-sessiond >/dev/null || { lttng-sessiond --daemonize; sleep 1; }
  s=tlbench$$
  rm -rf "$CTF.tmp"
  lttng create "$s" --output="$CTF.tmp" >/dev/null
  lttng enable-channel -u -s "$s" --subbuf-size=1M --num-subbuf=8 \
    --blocking-timeout=inf big >/dev/null
  lttng enable-event -u -s "$s" -c big 'tlbench:*' >/dev/null
  lttng add-context -u -s "$s" -c big -t vtid >/dev/null
  lttng start "$s" >/dev/null
  LTTNG_UST_ALLOW_BLOCKING=1 "$BIN/ctf_app" "$CTF_EVENTS"
  lttng destroy "$s" >/dev/null
  mv "$CTF.tmp" "$CTF"
fi
CTF=$(dirname "$(find "$CTF" -name metadata | head -n 1)")

# perf: cpu-clock sampling every 20 us with frame-pointer call chains, the
# CPU of each sample; the same again compressed with zstd (-z).
PERF=$DATA/perf-${PERF_SECONDS}s.data
PERFZ=$DATA/perf-${PERF_SECONDS}s-z.data
for f in "$PERF" "$PERFZ"; do
  [ -f "$f" ] && continue
  echo "record: $(basename "$f"), $PERF_SECONDS s"
  z=; [ "$f" = "$PERFZ" ] && z=-z
  perf record -q $z -e cpu-clock -c 20000 -g --sample-cpu -o "$f.tmp" \
    -- "$BIN/perf_load" 4 "$PERF_SECONDS"
  mv "$f.tmp" "$f"
done

# perf with DWARF call graphs (--call-graph dwarf): the user registers and
# 4 KiB of the user stack with each sample, every 2 ms (each sample is a
# stack copy: a sample per 20 us would be tens of GB).
PERFD=$DATA/perf-dwarf-${PERF_SECONDS}s.data
if [ ! -f "$PERFD" ]; then
  echo "record: $(basename "$PERFD"), $PERF_SECONDS s"
  perf record -q -e cpu-clock -c 2000000 --call-graph dwarf,4096 --sample-cpu -o "$PERFD.tmp" \
    -- "$BIN/perf_load" 4 "$PERF_SECONDS"
  mv "$PERFD.tmp" "$PERFD"
fi

# XRay: FDR mode, every function instrumented, 4 threads.
XRAY=$DATA/xray-$XRAY_OPS.log
if [ ! -f "$XRAY" ]; then
  echo "record: XRay, 4 x $XRAY_OPS ops"
  rm -rf "$DATA/xray.tmp"; mkdir "$DATA/xray.tmp"
  XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr verbosity=0 xray_logfile_base=$DATA/xray.tmp/" \
    "$BIN/xray_load" 4 "$XRAY_OPS" 2>/dev/null
  mv "$DATA"/xray.tmp/* "$XRAY"
  rmdir "$DATA/xray.tmp"
fi

# perf tracepoints: the scheduler's and the system calls', system-wide,
# while perf bench sched messaging switches and wakes threads
PERFTP=$DATA/perf-tp-$TP_LOOPS.data
if [ ! -f "$PERFTP" ]; then
  echo "record: $(basename "$PERFTP"), sched messaging x $TP_LOOPS"
  perf record -q -a -e 'sched:sched_switch' -e 'sched:sched_wakeup' -e 'sched:sched_wakeup_new' \
    -e 'sched:sched_waking' -e 'sched:sched_migrate_task' -e 'sched:sched_process_fork' \
    -e 'sched:sched_process_exit' -e 'sched:sched_process_exec' -e 'sched:sched_process_free' \
    -e 'sched:sched_stat_runtime' -e 'raw_syscalls:sys_enter' -e 'raw_syscalls:sys_exit' \
    -o "$PERFTP.tmp" -- perf bench sched messaging -g 4 -l "$TP_LOOPS" >/dev/null
  mv "$PERFTP.tmp" "$PERFTP"
fi

printf 'CTF=%s\nPERF=%s\nPERFZ=%s\nXRAY=%s\nXRAY_BIN=%s\nPERFTP=%s\nPERFD=%s\n' \
  "$CTF" "$PERF" "$PERFZ" "$XRAY" "$BIN/xray_load" "$PERFTP" "$PERFD" >&3
