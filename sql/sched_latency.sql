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
-- One pass of thread_states, kept; its rows are sorted once (GROUP BY
-- thread and name), the rest works on a few rows per thread (window
-- functions or one GROUP BY per question sorted every row again, and cost
-- more than reading them).
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
), tc AS MATERIALIZED (
  -- per thread and name: its waits (Runnable intervals that ended), their
  -- sum and maximum, its run time; its first start (states of unknown
  -- start counted), first Running start and last end (open: the greatest)
  SELECT tid, comm,
         count(*) FILTER (WHERE state = 'Runnable' AND dur IS NOT NULL) AS waits,
         coalesce(sum(dur) FILTER (WHERE state = 'Runnable'), 0) AS total,
         coalesce(max(dur) FILTER (WHERE state = 'Runnable'), -1) AS mx,
         coalesce(sum(runtime) FILTER (WHERE state = 'Running'), 0) AS runtime,
         count(*) FILTER (WHERE ts IS NULL) AS nots,
         min(ts) AS t0, min(ts) FILTER (WHERE state = 'Running') AS r0,
         max(coalesce(ts_end, 9223372036854775807)) AS t1
  FROM st GROUP BY tid, comm
), nm AS (
  -- a thread's name: that of its last state
  SELECT tid, comm FROM (SELECT tid, comm, max(t1) FROM tc GROUP BY tid)
), t AS MATERIALIZED (
  -- run1: its first state is Running with a known start (first seen
  -- switched in: one switch with no wait)
  SELECT tid, nm.comm, coalesce(sum(nots) = 0 AND min(t0) = min(r0), 0) AS run1,
         sum(waits) AS waits, sum(total) AS total, max(mx) AS mx, sum(runtime) AS runtime
  FROM tc JOIN nm USING (tid) GROUP BY tid
), g AS MATERIALIZED (
  SELECT comm, count(*) AS n, min(tid) AS tid, sum(waits + run1) AS switches, sum(total) AS total,
         max(max(mx), 0) AS mx, max(run1) AS run1, sum(runtime) AS runtime
  FROM t WHERE waits + run1 > 0 GROUP BY comm
), m AS (
  -- the longest wait first of equal ones, as perf keeps it (a first switch
  -- counts as a wait of 0 from time 0)
  SELECT g.comm, CASE WHEN g.mx = 0 AND g.run1 THEN 0 ELSE min(st.ts) END AS mx0
  FROM g JOIN t USING (comm) JOIN st ON st.tid = t.tid AND st.dur = g.mx AND st.state = 'Runnable'
  WHERE t.waits + t.run1 > 0
  GROUP BY g.comm
)
SELECT CASE WHEN n = 1 THEN comm || ':' || tid ELSE comm || ':(' || n || ')' END AS task,
       printf('%.3f', runtime / 1e6) AS runtime_ms,
       switches,
       printf('%.3f', (total / switches) / 1e6) AS avg_delay_ms,
       printf('%.3f', mx / 1e6) AS max_delay_ms,
       printf('%d.%06d', coalesce(mx0, 0) / 1000000000, coalesce(mx0, 0) / 1000 % 1000000) AS max_delay_start_s,
       printf('%d.%06d', coalesce(mx0 + mx, 0) / 1000000000, coalesce(mx0 + mx, 0) / 1000 % 1000000) AS max_delay_end_s
FROM g LEFT JOIN m USING (comm)
ORDER BY total / switches DESC, mx DESC, switches DESC, runtime DESC;
