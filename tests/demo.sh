#!/bin/sh
# Sample queries on the bundled test data, one block per format present.
so=${1:-./tracelite.so}
run() {
  echo
  echo "-- $1"
  sqlite3 -header -column :memory: ".load $so" "$1"
}
echo "tracelite demo: $(sqlite3 :memory: ".load $so" 'SELECT tracelite_version()')"
if [ -f testdata/cpel/demo.cpel ]; then
  t=testdata/cpel/demo.cpel
  run "SELECT ts, name, text FROM events('$t') WHERE ts BETWEEN 1000000000 AND 1000010000"
  run "SELECT t.name AS track, e.name AS event, count(*) AS n FROM events('$t') e JOIN tracks('$t') t ON e.track = t.id GROUP BY 1, 2 ORDER BY 1, 2"
  run "SELECT id, name, format, args FROM event_types('$t')"
  run "SELECT offset, size, events, ts_begin, ts_end FROM packets('$t')"
fi
if [ -d testdata/ctf/ust-multi ]; then
  t=testdata/ctf/ust-multi
  run "SELECT name, cpu, count(*) AS n, min(ts) AS first, max(ts) AS last FROM events('$t') GROUP BY 1, 2"
  run "SELECT name, text FROM events('testdata/ctf/ust-types') WHERE name = 'tl:mixed' LIMIT 2"
  run "SELECT args ->> '\$.u64' AS u64, args ->> '\$.hex32' AS hex32 FROM events('testdata/ctf/ust-types') WHERE name = 'tl:ints' LIMIT 2"
  run "SELECT id, file, cpu, size, ts_begin, ts_end, discarded, seq FROM packets('$t') LIMIT 6"
  run "SELECT t.name AS stream, count(*) FROM events('testdata/ctf/ust-pid') e JOIN tracks('testdata/ctf/ust-pid') t ON e.track = t.id GROUP BY 1"
fi
if [ -f testdata/perf/multi.data ]; then
  t=testdata/perf/multi.data
  run "SELECT name, cpu, count(*) AS samples, sum(value) AS period FROM events('$t') WHERE type = 'SAMPLE' GROUP BY 1, 2"
  run "SELECT type, count(*) FROM events('$t') GROUP BY type ORDER BY 2 DESC"
  run "SELECT name, value FROM perf_features('$t') WHERE name IN ('HOSTNAME', 'VERSION', 'NRCPUS', 'CMDLINE')"
  t=testdata/perf/sym/sym.data
  o="symfs=testdata/perf/sym/symfs kallsyms=testdata/perf/sym/kallsyms buildid_dir=/nonexistent"
  run "SELECT symbol, dso, count(*) AS samples FROM callchains('$t', '$o') WHERE depth = 0 GROUP BY 1, 2 ORDER BY 3 DESC LIMIT 5"
  t=testdata/perf/sched.data
  run "SELECT printf('%d.%06d', ts / 1000000000, ts / 1000 % 1000000) AS time, cpu, args ->> '\$.prev_comm' AS prev, args ->> '\$.next_comm' AS next FROM events('$t') WHERE name = 'sched:sched_switch' LIMIT 5"
  t=testdata/sched/trace.data
  run "SELECT comm, tid, nr, calls, errors, total_dur, round(avg_dur) AS avg_ns, max_dur FROM syscall_stats('$t') WHERE calls > 0 ORDER BY total_dur DESC LIMIT 5"
fi
if [ -f testdata/xray/fdr.xray ]; then
  t=testdata/xray/fdr.xray
  b=testdata/xray/app.map.elf
  run "SELECT tid, type, name, count(*) FROM events('$t', 'binary=$b') GROUP BY 1, 2, 3 ORDER BY 1, 4 DESC LIMIT 8"
  run "SELECT name, count(*) AS calls, sum(dur) AS total_ns, max(depth) AS deepest FROM xray_calls('$t', 'binary=$b') GROUP BY name ORDER BY total_ns DESC"
  echo
  echo "-- .read sql/xray_account.sql"
  sqlite3 -header -column :memory: ".load $so" ".parameter set @trace '$t'" ".parameter set @binary '$b'" ".read sql/xray_account.sql"
  echo
  echo "-- .read sql/chrome-xray.sql (Chrome trace-event JSON, first 300 bytes)"
  sqlite3 :memory: ".load $so" ".parameter set @trace '$t'" ".parameter set @binary '$b'" \
    ".read sql/chrome-xray.sql" | head -c 300; echo
fi
# Every trace of every format at once.
run "SELECT f.path, f.format, count(*) AS events FROM trace_files('testdata/*/*') f, events(f.path) WHERE f.format IS NOT NULL GROUP BY 1 ORDER BY 2, 1"
exit 0
