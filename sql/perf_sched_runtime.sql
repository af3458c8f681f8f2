-- perf_sched_runtime.sql: run time and wait time per task.
--
-- Answers: for each task (thread), how often it was switched out, how long
-- it ran in total (and its shortest, average and longest run) and how long
-- it waited, from sched:sched_switch alone, with the rules of `perf sched
-- timehist` (see perf_sched_timehist.sql). The count and run times are the
-- columns of `perf sched timehist -s` (sched-in, run-time, min-run,
-- avg-run, max-run, in msec cut to microseconds as perf prints them);
-- wait_ms is the sum of timehist's wait time column. The task's name is
-- its last prev_comm; the idle task is left out (timehist reports it as
-- idle stats).
--
-- Parameters:
--   @trace    the perf.data file
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'perf.data'
--   sqlite> .read sql/perf_sched_runtime.sql
-- Columns: task, switches, run_ms, min_run_ms, avg_run_ms, max_run_ms, wait_ms
WITH sw AS (
  SELECT rowid, ts, cpu, args ->> '$.prev_pid' AS tid, args ->> '$.prev_comm' AS comm
  FROM events(@trace) WHERE type = 'SAMPLE' AND name = 'sched:sched_switch'
), t AS (
  SELECT rowid, ts, cpu, tid, comm,
         lag(ts) OVER (PARTITION BY cpu ORDER BY ts, rowid) AS tprev,
         lag(ts) OVER (PARTITION BY tid ORDER BY ts, rowid) AS tlast,
         last_value(comm) OVER (PARTITION BY tid ORDER BY ts, rowid
                                ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS name
  FROM sw
), d AS (
  SELECT tid, name, CASE WHEN tlast <= tprev THEN tprev - tlast ELSE 0 END AS wait,
         coalesce(ts - tprev, 0) AS run
  FROM t WHERE tid != 0
)
SELECT task, switches,
       printf('%d.%03d', run / 1000000, run / 1000 % 1000) AS run_ms,
       printf('%d.%03d', mn / 1000000, mn / 1000 % 1000) AS min_run_ms,
       printf('%d.%03d', av / 1000000, av / 1000 % 1000) AS avg_run_ms,
       printf('%d.%03d', mx / 1000000, mx / 1000 % 1000) AS max_run_ms,
       printf('%d.%03d', wait / 1000000, wait / 1000 % 1000) AS wait_ms
FROM (SELECT name || '[' || tid || ']' AS task, tid, count(*) AS switches, sum(run) AS run,
             min(run) AS mn, CAST(avg(run) AS INTEGER) AS av, max(run) AS mx, sum(wait) AS wait
      FROM d GROUP BY tid)
ORDER BY run DESC, tid;
