-- sched_latency.sql: scheduling latency per task, as `perf sched latency`
-- prints it.
--
-- Answers: for each task (threads of one name together, as perf merges
-- them), how long it ran, how often it was switched in after waiting for
-- a CPU, and how long it waited from being made runnable (woken, or
-- preempted) to running: on average and at most, with when the longest
-- wait began and ended. The waits are the Runnable intervals of
-- thread_states that ended with the thread running, made runnable by a
-- switch out in state R or by sched_wakeup or sched_wakeup_new (perf
-- sched latency takes neither sched_waking nor a preemption, R+); a thread first seen
-- when it is switched in counts one switch with no wait (as perf counts
-- it). The run time is the sum of the sched_stat_runtime events' runtime
-- (thread_states.runtime of its Running rows; 0 without them), as perf
-- takes it. Tasks are `comm:tid` for one thread,
-- `comm:(n)` for n threads of that name; the idle task is left out.
-- Sorted as perf sorts by default: average, then maximum, switches, run
-- time, all descending.
-- Works on perf.data (`perf sched record`) and on LTTng kernel traces.
--
-- Parameters:
--   @trace    the trace (perf.data file, CTF directory)
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'perf.data'
--   sqlite> .read sql/sched_latency.sql
-- Columns: task, runtime_ms, switches, avg_delay_ms, max_delay_ms,
--          max_delay_start_s, max_delay_end_s (as perf prints them)
WITH st AS MATERIALIZED (
  -- the states perf sched latency sees: it takes sched_wakeup and
  -- sched_wakeup_new, not sched_waking
  SELECT tid, ts, dur, ts_end, state, comm, runtime FROM thread_states(@trace)
  WHERE wakeup IS NOT 'sched_waking' AND state != 'Runnable (Preempted)'
), w AS MATERIALIZED (
  -- each switch in after waiting: its delay, start and end
  SELECT tid, dur AS delay, ts AS t0, ts_end AS t1 FROM st
  WHERE state LIKE 'Runnable%' AND ts IS NOT NULL AND ts_end IS NOT NULL
  UNION ALL
  SELECT tid, 0, 0, 0 FROM (
    SELECT tid, ts, state, row_number() OVER (PARTITION BY tid ORDER BY ts IS NOT NULL, ts) AS k FROM st)
  WHERE k = 1 AND state = 'Running' AND ts IS NOT NULL
), rt AS MATERIALIZED (
  SELECT tid, sum(runtime) AS runtime FROM st WHERE state = 'Running' GROUP BY tid
), nm AS MATERIALIZED (
  SELECT tid, comm FROM (SELECT tid, comm, row_number() OVER (PARTITION BY tid ORDER BY ts_end IS NULL DESC, ts_end DESC) AS k FROM st)
  WHERE k = 1
), wn AS MATERIALIZED (
  -- the longest wait first of equal ones, as perf keeps it
  SELECT w.*, nm.comm, row_number() OVER (PARTITION BY nm.comm ORDER BY delay DESC, t0) AS r
  FROM w JOIN nm USING (tid)
), g AS (
  SELECT comm, count(DISTINCT tid) AS n, min(tid) AS tid, count(*) AS switches,
         sum(delay) AS total, max(delay) AS mx,
         max(CASE WHEN r = 1 THEN t0 END) AS mx0, max(CASE WHEN r = 1 THEN t1 END) AS mx1
  FROM wn GROUP BY comm
), rc AS (
  -- the run time of the threads with a switch, by name
  SELECT nm.comm, sum(rt.runtime) AS runtime
  FROM rt JOIN nm USING (tid) WHERE rt.tid IN (SELECT tid FROM w) GROUP BY nm.comm
)
SELECT CASE WHEN n = 1 THEN comm || ':' || tid ELSE comm || ':(' || n || ')' END AS task,
       printf('%.3f', coalesce(runtime, 0) / 1e6) AS runtime_ms,
       switches,
       printf('%.3f', (total / switches) / 1e6) AS avg_delay_ms,
       printf('%.3f', mx / 1e6) AS max_delay_ms,
       printf('%d.%06d', mx0 / 1000000000, mx0 / 1000 % 1000000) AS max_delay_start_s,
       printf('%d.%06d', mx1 / 1000000000, mx1 / 1000 % 1000000) AS max_delay_end_s
FROM g LEFT JOIN rc USING (comm)
ORDER BY total / switches DESC, mx DESC, switches DESC, coalesce(runtime, 0) DESC;
