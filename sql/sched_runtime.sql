-- sched_runtime.sql: run time per task, as `perf sched timehist -s`
-- prints it.
--
-- Answers: for each task (thread), how often it left a CPU, how long it
-- ran in total and its shortest, average and longest run (msec cut to
-- microseconds, as perf prints them), and how long it waited in all (the
-- sum of sched_timehist.sql's wait time). From the sched_threads table:
-- the scheduling model sums each thread's slices that ended (columns
-- slices, run_time, min_run, max_run, wait_time: sched_slices summed per
-- thread) in its one pass, so this file reads one row per thread, not one
-- per slice. The idle task is left out (perf reports it as idle stats).
-- The task is named as perf names it: its latest name, with `[tid]` or
-- `[tid/pid]`.
-- Works on perf.data with sched:sched_switch and on LTTng kernel traces.
--
-- Parameters:
--   @trace    the trace (perf.data file, CTF directory)
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'perf.data'
--   sqlite> .read sql/sched_runtime.sql
-- Columns: task, switches, run_ms, min_run_ms, avg_run_ms, max_run_ms, wait_ms
WITH n AS (
  SELECT tid, pid, comm, slices AS switches, run_time AS run, min_run AS mn,
         CAST(CAST(run_time AS REAL) / slices AS INTEGER) AS av, max_run AS mx,
         wait_time AS wait
  FROM sched_threads(@trace) WHERE slices > 0
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
