-- perf_tracepoints.sql: how often each tracepoint fired.
--
-- Answers: for each tracepoint event of the trace (sched:sched_switch,
-- syscalls:sys_enter_openat, ...) the number of samples, the time of the
-- first and last, and the mean rate per second over the trace's sampled
-- time. The counts are the per-event `SAMPLE events` of `perf report
-- --stats` (and the `Samples: N of event` lines of `perf report`), the
-- times the first and last of each event's lines of `perf script --ns -F
-- time,event`; the rate is over the span from the first sample of any
-- event to the last.
--
-- The numbers are the trace's own (event_types' `samples`, `first_ts` and
-- `last_ts`, counted once when the trace is opened): no sample is read.
--
-- Parameters:
--   @trace    the perf.data file
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'perf.data'
--   sqlite> .read sql/perf_tracepoints.sql
-- Columns: event, samples, first_ts, last_ts, per_second
WITH attr AS (
  SELECT name, args ->> '$.type' AS type, args ->> '$.samples' AS samples,
         args ->> '$.first_ts' AS first_ts, args ->> '$.last_ts' AS last_ts
  FROM event_types(@trace) WHERE kind = 'attr'
), span AS (
  SELECT max(last_ts) - min(first_ts) AS ns FROM attr
)
SELECT name AS event, sum(samples) AS samples, min(first_ts) AS first_ts, max(last_ts) AS last_ts,
       CASE WHEN span.ns > 0 THEN printf('%.1f', sum(samples) * 1e9 / span.ns) END AS per_second
FROM attr, span
WHERE type = 2
GROUP BY name
HAVING sum(samples) > 0
ORDER BY sum(samples) DESC, name;
