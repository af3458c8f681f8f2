-- perf_tracepoints.sql: how often each tracepoint fired.
--
-- Answers: for each tracepoint event of the trace (sched:sched_switch,
-- syscalls:sys_enter_openat, ...) the number of samples, the time of the
-- first and last, and the mean rate per second over the trace's sampled
-- time. The counts are the per-event `SAMPLE events` of `perf report
-- --stats` (and the `Samples: N of event` lines of `perf report`).
--
-- Parameters:
--   @trace    the perf.data file
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'perf.data'
--   sqlite> .read sql/perf_tracepoints.sql
-- Columns: event, samples, first_ts, last_ts, per_second
WITH tp AS (
  SELECT name FROM event_types(@trace) WHERE kind = 'attr' AND args ->> '$.type' = 2
), s AS (
  SELECT e.name, e.ts FROM events(@trace) e WHERE e.type = 'SAMPLE' AND e.name IN (SELECT name FROM tp)
), span AS (
  SELECT max(ts) - min(ts) AS ns FROM events(@trace) WHERE type = 'SAMPLE'
)
SELECT name AS event, count(*) AS samples, min(ts) AS first_ts, max(ts) AS last_ts,
       CASE WHEN span.ns > 0 THEN printf('%.1f', count(*) * 1e9 / span.ns) END AS per_second
FROM s, span
GROUP BY name
ORDER BY count(*) DESC, name;
