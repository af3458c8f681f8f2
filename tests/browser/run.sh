#!/bin/sh
# The exports in a real browser (make test): speedscope opens the Chrome
# export of a CTF trace with begin/end spans, of perf samples with
# callchains (CPU profile events), of an XRay log's calls, the CPU
# profile form (sql/chrome-profile.sql) of an XRay log's calls and of a
# CTF trace's spans, the speedscope files of an XRay log's calls and of a
# CTF trace's spans, and the folded stacks of a perf recording; the flame graph SVGs of an XRay
# log (call counts: llvm-xray's folded counts) and of perf samples render
# with every frame as wide as its folded count, zoom and search.
#
#   sh tests/browser/run.sh build/tracelite.so
#
# Needs Chromium (Debian: chromium; CHROMIUM names another), node, and
# `npm install` run in tests/browser/ (playwright-core, speedscope; .ci/run
# does both). Without them it says what is missing and passes.
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
so=${1:-build/tracelite.so}
so=$(cd "$(dirname "$so")" && pwd)/$(basename "$so" .so)
chromium=${CHROMIUM:-/usr/bin/chromium}
skip() { echo "browser tests: SKIPPED: $1"; exit 0; }
[ -x "$chromium" ] || skip "no Chromium at $chromium (Debian: apt-get install chromium)"
command -v node >/dev/null || skip "node is not installed (Debian: apt-get install nodejs npm)"
[ -d "$here/node_modules/playwright-core" ] && [ -d "$here/node_modules/speedscope" ] || \
  skip "playwright-core and speedscope are not installed (cd tests/browser && npm install)"
command -v sqlite3 >/dev/null || skip "the sqlite3 shell is not installed"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
td=$root/testdata
q() {  # q FILE.sql OUT param=value...: the sql/ file's rows through the shell
  f=$1; o=$2; shift 2
  set -- sqlite3 -batch -separator ' ' -cmd ".load $so" "$@"
  "$@" :memory: ".read $root/sql/$f" > "$o"
}
cd "$out"
q chrome-events.sql ust.json -cmd ".parameter set @trace '$td/clock/ust'"
q chrome-events.sql lost.json -cmd ".parameter set @trace '$td/perf/lost.data'"
q chrome-xray.sql xray.json -cmd ".parameter set @trace '$td/xray/fdr.xray'" \
  -cmd ".parameter set @binary '$td/xray/app.map.elf'"
q speedscope-calls.sql fdr.speedscope.json -cmd ".parameter set @trace '$td/xray/fdr.xray'" \
  -cmd ".parameter set @binary '$td/xray/app.map.elf'"
q speedscope-spans.sql spans.speedscope.json -cmd ".parameter set @trace '$td/ctf/spans/trace'"
q chrome-profile.sql fdr-profile.json -cmd ".parameter set @trace '$td/xray/fdr.xray'" \
  -cmd ".parameter set @binary '$td/xray/app.map.elf'"
q chrome-profile.sql spans-profile.json -cmd ".parameter set @trace '$td/ctf/spans/trace'"
q perf_folded.sql lost.folded.txt -cmd ".parameter set @trace '$td/perf/lost.data'"
q flamegraph_xray.sql fdr-count.svg -cmd ".parameter set @trace '$td/xray/fdr.xray'" \
  -cmd ".parameter set @binary '$td/xray/app.map.elf'" -cmd ".parameter set @value 'count'"
q flamegraph_perf.sql lost.svg -cmd ".parameter set @trace '$td/perf/lost.data'"

rc=0
export CHROMIUM="$chromium"
node "$here/check.js" speedscope ust.json ust.png || rc=1
node "$here/check.js" speedscope lost.json lost-chrome.png || rc=1
node "$here/check.js" speedscope xray.json xray.png || rc=1
node "$here/check.js" speedscope lost.folded.txt lost.png || rc=1
node "$here/check.js" speedscope fdr.speedscope.json fdr-speedscope.png fdr.xray || rc=1
node "$here/check.js" speedscope spans.speedscope.json spans-speedscope.png spans/trace || rc=1
node "$here/check.js" speedscope fdr-profile.json fdr-profile.png || rc=1
node "$here/check.js" speedscope spans-profile.json spans-profile.png || rc=1
# the XRay picture against llvm-xray's own folded counts; perf's against ours
node "$here/check.js" svg fdr-count.svg "$td/xray/fdr.flame-count.txt" || rc=1
node "$here/check.js" svg lost.svg lost.folded.txt || rc=1
[ $rc = 0 ] && echo "browser tests: ok"
exit $rc
