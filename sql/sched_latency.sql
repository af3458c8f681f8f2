-- sched_latency.sql: scheduling latency per task, as `perf sched latency`
-- prints it.
--
-- Answers: for each task (threads of one name together, as perf merges
-- them; each thread alone with @pids = 1, as perf sched latency -p), how
-- long it ran, how often it was switched in after waiting for a CPU, and
-- how long it waited from being made runnable (woken, or preempted) to
-- running: on average and at most, with when the longest wait began and
-- ended. The waits are the Runnable intervals of thread_states that ended
-- with the thread running, made runnable by a switch out in state R or by
-- sched_wakeup or sched_wakeup_new (perf sched latency takes neither
-- sched_waking nor a preemption, R+); a thread first seen when it is
-- switched in counts one switch with no wait (as perf counts it). The run
-- time is the sum of the sched_stat_runtime events' runtime (0 without
-- them), as perf takes it. Tasks are `comm:tid` for one thread,
-- `comm:(n)` for n threads of that name; the idle task is left out.
-- Sorted as perf sorts by default: average, then maximum, switches, run
-- time, all descending.
-- From the sched_threads table: the scheduling model sums each thread's
-- waits in its one pass (columns switches, delay, max_delay,
-- max_delay_ts, runtime), so this file reads one row per thread, not one
-- per state, and sorts no state.
-- Works on perf.data (`perf sched record`) and on LTTng kernel traces.
--
-- Parameters:
--   @trace    the trace (perf.data file, CTF directory)
--   @pids     1: one row per thread (perf sched latency -p); unset: per name
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'perf.data'
--   sqlite> .read sql/sched_latency.sql
-- Columns: task, runtime_ms, switches, avg_delay_ms, max_delay_ms,
--          max_delay_start_s, max_delay_end_s (as perf prints them)
WITH s AS MATERIALIZED (
  -- one row per thread that was switched in: its waits, summed by the
  -- scheduling model as perf sched latency sums them; k the task
  SELECT *, CASE WHEN @pids THEN tid ELSE comm END AS k
  FROM sched_threads(@trace) WHERE switches > 0
), g AS MATERIALIZED (
  SELECT k, comm, count(*) AS n, min(tid) AS tid, sum(switches) AS switches, sum(delay) AS total,
         max(max_delay) AS mx, sum(runtime) AS runtime
  FROM s GROUP BY k
), m AS (
  -- the longest wait first of equal ones, as perf keeps it (none longer
  -- than 0: time 0)
  SELECT g.k, min(s.max_delay_ts) AS mx0
  FROM g JOIN s ON s.k = g.k AND s.max_delay = g.mx
  GROUP BY g.k
)
SELECT CASE WHEN n = 1 THEN comm || ':' || tid ELSE comm || ':(' || n || ')' END AS task,
       printf('%.3f', runtime / 1e6) AS runtime_ms,
       switches,
       printf('%.3f', (total / switches) / 1e6) AS avg_delay_ms,
       printf('%.3f', mx / 1e6) AS max_delay_ms,
       printf('%d.%06d', coalesce(mx0, 0) / 1000000000, coalesce(mx0, 0) / 1000 % 1000000) AS max_delay_start_s,
       printf('%d.%06d', coalesce(mx0 + mx, 0) / 1000000000, coalesce(mx0 + mx, 0) / 1000 % 1000000) AS max_delay_end_s
FROM g LEFT JOIN m USING (k)
ORDER BY total / switches DESC, mx DESC, switches DESC, runtime DESC;
