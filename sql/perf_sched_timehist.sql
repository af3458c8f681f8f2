-- perf_sched_timehist.sql: the sched_switch timeline, one row per switch.
--
-- Answers: when each task left a CPU, how long it had waited before it ran
-- and how long it ran, as `perf sched timehist` prints it (time, cpu, task,
-- wait time, run time; its `sch delay` needs sched_wakeup and is left out).
-- perf's rules, kept here: run time is the time since the previous switch
-- on the same CPU (0 for a CPU's first switch); wait time is the time from
-- the task's previous switch-out to that previous switch on this CPU (0
-- when there is none, or when it would be negative); times in msec cut to
-- microseconds as perf prints them. The idle task is `<idle>`, per CPU.
-- Needs a trace with sched:sched_switch (`perf record -e sched:sched_switch -a`).
--
-- Parameters:
--   @trace    the perf.data file
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'perf.data'
--   sqlite> .read sql/perf_sched_timehist.sql
-- Columns: time (s.us), cpu, task (comm[tid]), wait_ms, run_ms, ts (ns), tid
WITH sw AS (
  SELECT rowid, ts, cpu, args ->> '$.prev_pid' AS tid, args ->> '$.prev_comm' AS comm
  FROM events(@trace) WHERE type = 'SAMPLE' AND name = 'sched:sched_switch'
), t AS (
  SELECT rowid, ts, cpu, tid, comm,
         lag(ts) OVER (PARTITION BY cpu ORDER BY ts, rowid) AS tprev,
         lag(ts) OVER (PARTITION BY tid, CASE WHEN tid = 0 THEN cpu END ORDER BY ts, rowid) AS tlast
  FROM sw
), d AS (
  SELECT *, CASE WHEN tlast <= tprev THEN tprev - tlast ELSE 0 END AS wait,
         coalesce(ts - tprev, 0) AS run
  FROM t
)
SELECT printf('%d.%06d', ts / 1000000000, ts / 1000 % 1000000) AS time,
       printf('[%04d]', cpu) AS cpu,
       CASE WHEN tid = 0 THEN '<idle>' ELSE comm || '[' || tid || ']' END AS task,
       printf('%d.%03d', wait / 1000000, wait / 1000 % 1000) AS wait_ms,
       printf('%d.%03d', run / 1000000, run / 1000 % 1000) AS run_ms,
       ts, tid
FROM d ORDER BY ts, rowid;
