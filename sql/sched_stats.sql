-- sched_stats.sql: scheduling latency per thread, as lttng-analyses'
-- `lttng-schedstats` prints it (its per-TID table).
--
-- Answers: for each thread, how many times it was woken and then switched
-- in, and the shortest, average and longest time from the wakeup to the
-- switch in, with their standard deviation, in microseconds. From
-- thread_states: a Runnable interval made by a wakeup (sched_waking,
-- sched_wakeup or sched_wakeup_new: the first of them), up to the switch
-- in that ends it; a thread switched out runnable (preempted) has no
-- wakeup and is not counted, as in lttng-schedstats. The average is
-- rounded as lttng-schedstats rounds its float, stdev is the sample standard deviation ('?' for one
-- latency); a thread is named as at its first latency.
-- Works on LTTng kernel traces and on perf.data with the sched tracepoints.
--
-- Parameters:
--   @trace    the trace (CTF directory, perf.data file)
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'lttng-kernel-trace/'
--   sqlite> .read sql/sched_stats.sql
-- Columns: process (`comm (tid)`), count, min_us, avg_us, max_us, stdev_us
WITH st AS MATERIALIZED (
  SELECT tid, comm, ts, ts_end, state, wakeup,
         lead(state) OVER w AS nstate, lead(wakeup) OVER w AS nwakeup, lead(ts_end) OVER w AS nend,
         lag(wakeup) OVER w AS pwakeup, lag(state) OVER w AS pstate
  FROM thread_states(@trace) WINDOW w AS (PARTITION BY tid ORDER BY ts)
), l AS MATERIALIZED (
  -- a sched_wakeup after a sched_waking continues the same wait
  SELECT tid, comm, ts,
         CASE WHEN wakeup = 'sched_waking' AND nstate = 'Runnable' AND nwakeup = 'sched_wakeup'
              THEN nend ELSE ts_end END - ts AS ns
  FROM st
  WHERE state = 'Runnable' AND wakeup IS NOT NULL AND ts IS NOT NULL
    AND NOT (wakeup = 'sched_wakeup' AND pstate IS 'Runnable' AND pwakeup IS 'sched_waking')
    AND (CASE WHEN wakeup = 'sched_waking' AND nstate = 'Runnable' AND nwakeup = 'sched_wakeup'
              THEN nend ELSE ts_end END) IS NOT NULL
), s AS (
  SELECT tid, (SELECT comm FROM l l2 WHERE l2.tid = l.tid ORDER BY ts LIMIT 1) AS comm,
         count(*) AS n, min(ns) / 1000.0 AS mn, (sum(ns) * 1.0 / count(*)) / 1000.0 AS av,
         max(ns) / 1000.0 AS mx, sum((ns / 1000.0) * (ns / 1000.0)) AS sq, avg(ns / 1000.0) AS avf
  FROM l GROUP BY tid
), r AS (
  -- the average's digits past the third decimal: rounded as the double
  -- they come from says (Python's '%.3f'), not as its 16 digits do
  SELECT *, printf('%!.20f', av) AS avtxt FROM s
)
SELECT coalesce(comm, '') || ' (' || tid || ')' AS process, n AS count,
       printf('%.3f', mn) AS min_us,
       printf('%.3f', CAST(substr(avtxt, 1, instr(avtxt, '.') + 3) AS REAL)
                      + CASE WHEN substr(avtxt, instr(avtxt, '.') + 4) > '5' THEN 0.001 ELSE 0 END) AS avg_us,
       printf('%.3f', mx) AS max_us,
       CASE WHEN n > 1 THEN printf('%.3f', sqrt(max(sq - n * avf * avf, 0) / (n - 1))) ELSE '?' END AS stdev_us
FROM r
ORDER BY lower(comm), tid;
