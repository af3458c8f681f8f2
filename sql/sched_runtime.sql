-- sched_runtime.sql: run time per task, as `perf sched timehist -s`
-- prints it.
--
-- Answers: for each task (thread), how often it left a CPU, how long it
-- ran in total and its shortest, average and longest run (msec cut to
-- microseconds, as perf prints them), and how long it waited in all (the
-- sum of sched_timehist.sql's wait time). From the sched_slices table: the
-- slices that ended; the idle task is left out (perf reports it as idle
-- stats). The task is named as perf names it: its latest name, with
-- `[tid]` or `[tid/pid]`.
-- Works on perf.data with sched:sched_switch and on LTTng kernel traces.
--
-- Parameters:
--   @trace    the trace (perf.data file, CTF directory)
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'perf.data'
--   sqlite> .read sql/sched_runtime.sql
-- Columns: task, switches, run_ms, min_run_ms, avg_run_ms, max_run_ms, wait_ms
WITH s AS (
  SELECT tid, pid, comm, coalesce(dur, 0) AS run, coalesce(wait_time, 0) AS wait, ts_end
  FROM sched_slices(@trace) WHERE ts_end IS NOT NULL AND tid != 0
), t AS (
  SELECT tid, count(*) AS switches, sum(run) AS run, min(run) AS mn,
         CAST(avg(run) AS INTEGER) AS av, max(run) AS mx, sum(wait) AS wait,
         max(ts_end) AS last
  FROM s GROUP BY tid
), n AS (
  SELECT t.*, s.pid, s.comm FROM t JOIN s ON s.tid = t.tid AND s.ts_end = t.last
)
SELECT CASE WHEN pid IS NULL OR pid = tid THEN coalesce(comm, ':' || tid) || '[' || tid || ']'
            ELSE coalesce(comm, ':' || tid) || '[' || tid || '/' || pid || ']' END AS task,
       switches,
       printf('%d.%03d', run / 1000000, run / 1000 % 1000) AS run_ms,
       printf('%d.%03d', mn / 1000000, mn / 1000 % 1000) AS min_run_ms,
       printf('%d.%03d', av / 1000000, av / 1000 % 1000) AS avg_run_ms,
       printf('%d.%03d', mx / 1000000, mx / 1000 % 1000) AS max_run_ms,
       printf('%d.%03d', wait / 1000000, wait / 1000 % 1000) AS wait_ms
FROM n
ORDER BY run DESC, tid;
