#!/bin/sh
# run.sh: the benchmark (`make bench`). Checks the tools, records the traces
# (record.sh, kept in $BENCH_DATA between runs) and prints the timing table
# (bench.py). Run from the repository root after building tracelite.so, as
# root on Debian 12.
#   BENCH_DATA  where traces go (default /tmp/tracelite-bench)
#   BENCH_SCALE full (default) or small (a few minutes in all)
#   BENCH_RUNS  timed runs per command (default 5, at least 5)
#   BENCH_SELF_RUNS  timed runs of the rows comparing two tracelite queries
#               (default 11, at least BENCH_RUNS)
#   BENCH_ONLY  groups to time, comma-separated: ctf,perf,cookbook,sched,xray,small,scale,fleet
#               (default all; scale compares the small and full recordings,
#               so it runs at full scale only)
#   STACKCOLLAPSE  FlameGraph's stackcollapse-perf.pl: the cookbook group folds
#               perf script through it (else through perf's own stackcollapse)
set -e
export BENCH_DATA=${BENCH_DATA:-/tmp/tracelite-bench}
export BENCH_SCALE=${BENCH_SCALE:-full}
HERE=$(dirname "$0")
PY=${PYTHON:-/usr/bin/python3}
# the fleet group (tests/bench/fleet.py) records nothing and needs no root
if [ "$BENCH_ONLY" = fleet ]; then
  exec "$PY" "$HERE/fleet.py" --so ./tracelite.so --runs "${BENCH_RUNS:-5}"
fi

if [ "$(id -u)" != 0 ]; then
  echo "bench: run as root (perf record and the LTTng session daemon need it)" >&2
  exit 1
fi

# command -> Debian package
missing=
for pair in perf:linux-perf lttng:lttng-tools lttng-sessiond:lttng-tools \
    babeltrace2:babeltrace2 clang++:clang llvm-xray:llvm cc:gcc \
    /usr/bin/sqlite3:sqlite3 python3:python3; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing="$missing ${pair#*:}"
done
dpkg -s liblttng-ust-dev >/dev/null 2>&1 || missing="$missing liblttng-ust-dev"
if [ -n "$missing" ]; then
  echo "bench: installing missing packages:$missing" >&2
  apt-get install -y $missing >&2 || {
    echo "bench: please install:$missing" >&2; exit 1; }
fi

mkdir -p "$BENCH_DATA"
echo "bench: recording ($BENCH_SCALE) into $BENCH_DATA" >&2
paths=$("$HERE/record.sh")
eval "$paths"
echo "$paths" | sed 's/^/  /' >&2
# the scale table compares the full recordings with the small ones
scale_small=
case ",${BENCH_ONLY:-scale}," in
  *,scale,*)
    if [ "$BENCH_SCALE" = full ]; then
      small=$(BENCH_SCALE=small "$HERE/record.sh")
      scale_small=$(echo "$small" | sed -n 's/^CTF=/CTF=/p; s/^PERF=/perf=/p; s/^XRAY=/XRay=/p' | paste -sd, -)
    fi ;;
esac
echo "bench: timing (warm cache, 1 warm-up + ${BENCH_RUNS:-5} runs each)" >&2
python3 "$HERE/bench.py" --so ./tracelite --runs "${BENCH_RUNS:-5}" --self-runs "${BENCH_SELF_RUNS:-11}" \
  --log "$BENCH_DATA/bench-$BENCH_SCALE.log" --only "${BENCH_ONLY:-}" --small testdata/perf/multi.data \
  --scale-small "$scale_small" \
  --ctf "$CTF" --perf "$PERF" --perfz "$PERFZ" --xray "$XRAY" --xray-bin "$XRAY_BIN" \
  --perf-tp "$PERFTP" --perf-dwarf "${PERFD:-}"
case ",${BENCH_ONLY:-fleet}," in
  *,fleet,*) echo; "$PY" "$HERE/fleet.py" --so ./tracelite.so --runs "${BENCH_RUNS:-5}" ;;
esac
