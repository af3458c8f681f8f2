#!/bin/sh
# The bench-size check of the speedscope export (too slow for make test):
# sql/speedscope-calls.sql writes the calls of TRACE (an XRay log with its
# BINARY, or a CTF trace with cyg-profile or system calls), with the
# exporting shell's peak anonymous memory sampled (and its time and peak
# resident size from /usr/bin/time when installed); then speedscope in
# headless Chromium opens the file and draws it (check.js, with a long
# timeout), and the time it took is printed.
#
#   sh tests/browser/bench.sh build/tracelite.so TRACE [BINARY]
#   SQL=speedscope-spans.sql sh tests/browser/bench.sh build/tracelite.so CTF-TRACE
#   SQL=chrome-profile.sql sh tests/browser/bench.sh build/tracelite.so TRACE [BINARY]
#
# A Chrome export (SQL=chrome-*.sql) is written to TRACE.json, the others
# to TRACE.speedscope.json (speedscope picks its importer by that name).
#
# Needs what run.sh needs; OUT (default: a temporary directory) keeps the
# export, SPEEDSCOPE_TIMEOUT the seconds speedscope may take (default 900),
# SQL the sql/ file (default speedscope-calls.sql).
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
so=$(cd "$(dirname "$1")" && pwd)/$(basename "$1" .so)
trace=$2
binary=$3
out=${OUT:-$(mktemp -d)}
case ${SQL:-speedscope-calls.sql} in
  chrome-*) f=$out/$(basename "$trace").json ;;
  *) f=$out/$(basename "$trace").speedscope.json ;;
esac
set -- sqlite3 -batch -cmd ".load $so" -cmd ".parameter set @trace '$trace'"
[ -n "$binary" ] && set -- "$@" -cmd ".parameter set @binary '$binary'"
[ -x /usr/bin/time ] && set -- /usr/bin/time -o "$f.time" -f '%e s %U u %S s %M KB' "$@"
t0=$(date +%s)
"$@" :memory: ".read $root/sql/${SQL:-speedscope-calls.sql}" > "$f" &
pid=$!
peak=0
while kill -0 $pid 2>/dev/null; do
  # the shell itself when /usr/bin/time runs it
  p=$(pgrep -P $pid sqlite3 || echo $pid)
  a=$(awk '/^RssAnon:/ { print $2 }' /proc/$p/status 2>/dev/null || true)
  [ -n "$a" ] && [ "$a" -gt "$peak" ] && peak=$a
  sleep 0.5
done
wait $pid
t1=$(date +%s)
echo "export: $(wc -c < "$f") bytes in $((t1 - t0)) s, peak anonymous memory ${peak} KB: $f"
[ -f "$f.time" ] && echo "export (/usr/bin/time): $(tail -n 1 "$f.time")"
export SPEEDSCOPE_TIMEOUT=${SPEEDSCOPE_TIMEOUT:-900}
node "$here/check.js" speedscope "$f" "$f.png" "$(basename "$trace")"
echo "speedscope: $(($(date +%s) - t1)) s"
