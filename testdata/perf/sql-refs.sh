#!/bin/sh
# What perf itself says about the committed test traces, for the sql/
# library's tests (tests/sql_library.py): each output is named
# <trace>.<what>.txt beside its trace. Needs perf, not root; the traces stay
# as they are (lost.data is recorded by record.sh). Folded stacks need
# FlameGraph's stackcollapse-perf.pl (not packaged in Debian 12; the
# references were made with github.com/brendangregg/FlameGraph at commit
# 41fee1f99f9276008b7cd112fca19dc3ea84ac32): give its path in STACKCOLLAPSE.
#
#     cd testdata/perf && STACKCOLLAPSE=.../stackcollapse-perf.pl sh sql-refs.sh
set -e
PERF=${PERF:-perf}
# no build-id cache: perf may only use the files named here
export PERF_BUILDID_DIR="$(mktemp -d)"
SYM="--symfs=sym/symfs --kallsyms=sym/kallsyms"
# -w: columns wide enough that perf does not cut names (it sizes them by
# the threads' last names)
report() { $PERF report -f --no-children -g none -n --stdio -w 8,12,40 "$@" 2>/dev/null; }

report -i sym/sym.data $SYM --sort dso > sym/sym.report-dso.txt
for s in comm pid cpu; do report -i sched.data --sort $s > sched.report-$s.txt; done
for t in multi wakeup neigh; do report -i $t.data --sort cpu > $t.report-cpu.txt; done
report -i lost.data --sort comm > lost.report-comm.txt
# a recording without -g, and no file to name its addresses from (a symfs
# root that does not exist, an empty kallsyms: no-kallsyms): perf lists them by address
NOSYM="--symfs=/nonexistent --kallsyms=no-kallsyms"
for s in sym dso comm; do report -i threads-inherit.data $NOSYM --sort $s > threads-inherit.report-$s.txt; done

$PERF sched timehist -f -i sched.data > sched.timehist.txt 2>/dev/null
$PERF sched timehist -f -i sched.data -s > sched.timehist-summary.txt 2>/dev/null
$PERF sched timehist -f -i wakeup.data > wakeup.timehist.txt 2>/dev/null

# folded stacks: perf script through stackcollapse-perf.pl (sched.data has
# no callchains: the script folds nothing)
STACKCOLLAPSE=${STACKCOLLAPSE:-stackcollapse-perf.pl}
for t in sym/sym lost sched; do
  $PERF script -f -i $t.data $SYM 2>/dev/null | LC_ALL=C perl "$STACKCOLLAPSE" 2>/dev/null > $t.folded.txt
done

# each sample's time (ns) and event: the first and last of each event's
# (event_types' first_ts and last_ts, sql/perf_tracepoints.sql)
for t in sched wakeup multi pipe dir/thr; do
  $PERF script -f -i $t.data --ns -F time,event 2>/dev/null > $t.times.txt
done

$PERF report -f -i lost.data --stats > lost.stats.txt 2>/dev/null
$PERF script -f -i lost.data --show-lost-events -F comm,tid,time,event 2>/dev/null | grep PERF_RECORD_LOST > lost.lost.txt
rm -rf "$PERF_BUILDID_DIR"
