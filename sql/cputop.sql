-- cputop.sql: the share of the trace's time each thread and each CPU spent
-- running, as lttng-analyses' `lttng-cputop` prints it.
--
-- Answers: which threads used the CPUs most (Per-TID Usage: the thread's
-- run time as a percentage of the trace's time range), and how busy each
-- CPU was (Per-CPU Usage: its time running any thread but the idle task,
-- and, as lttng-cputop counts it, all its time before its first switch,
-- whatever ran).
-- From sched_slices: a slice is counted from its start (from the trace's
-- start when it was running before its CPU's first switch) to its end or
-- the trace's end.
-- A thread is named as lttng-analyses names it: by the name the first
-- sched_switch that names it gives. The time range is from the first to the last event of the trace. Rows:
-- kind 'tid' (the ten busiest threads, as `comm (tid)`) then kind 'cpu'.
-- Works on LTTng kernel traces and on perf.data with sched_switch.
--
-- Parameters:
--   @trace    the trace (CTF directory, perf.data file)
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'lttng-kernel-trace/'
--   sqlite> .read sql/cputop.sql
-- Columns: kind, what, usage_pct (2 decimals), busy_ns
WITH r AS MATERIALIZED (
  SELECT min(ts) AS t0, max(ts) AS t1 FROM events(@trace) WHERE ts IS NOT NULL
), s AS MATERIALIZED (
  SELECT tid, cpu, comm, ts_end, ts IS NULL AS bFirst,
         min(coalesce(ts_end, r.t1), r.t1) - max(coalesce(ts, r.t0), r.t0) AS busy
  FROM sched_slices(@trace), r
), sw AS MATERIALIZED (
  SELECT ts, args FROM events(@trace) WHERE name IN ('sched_switch', 'sched:sched_switch')
), nm AS (
  SELECT tid, name FROM (
    SELECT tid, name, row_number() OVER (PARTITION BY tid ORDER BY ts, k) AS n
    FROM (SELECT ts, 0 AS k, coalesce(args ->> '$.prev_tid', args ->> '$.prev_pid') AS tid,
                 args ->> '$.prev_comm' AS name FROM sw
          UNION ALL
          SELECT ts, 1, coalesce(args ->> '$.next_tid', args ->> '$.next_pid'),
                 args ->> '$.next_comm' FROM sw))
  WHERE n = 1
), t AS (
  SELECT tid, sum(busy) AS busy, max(ts_end) AS last FROM s WHERE tid != 0 GROUP BY tid
), c AS (
  SELECT cpu, sum(CASE WHEN tid != 0 OR bFirst THEN busy ELSE 0 END) AS busy FROM s GROUP BY cpu
)
SELECT * FROM (
  SELECT 'tid' AS kind,
         coalesce((SELECT nm.name FROM nm WHERE nm.tid = t.tid),
                  (SELECT s.comm FROM s WHERE s.tid = t.tid ORDER BY s.ts_end IS NULL, s.ts_end LIMIT 1))
           || ' (' || tid || ')' AS what,
         printf('%.2f', 100.0 * busy / (r.t1 - r.t0)) AS usage_pct, busy AS busy_ns
  FROM t, r ORDER BY busy DESC, tid LIMIT 10
)
UNION ALL
SELECT 'cpu', 'CPU ' || cpu, printf('%.2f', 100.0 * busy / (r.t1 - r.t0)), busy
FROM c, r
ORDER BY kind DESC, busy_ns DESC;
