-- perf_report_thread.sql: samples per thread.
--
-- Answers: how many samples of each event each thread took, with their
-- period and share of the event's period, as
--   perf report --no-children -g none --sort pid -n --stdio
-- prints them (its Pid:Command column is the thread id and the thread's
-- last name). Threads are tracks: a tid the kernel reused is two rows.
-- Thread 0 is `swapper`, a thread never named `:tid`, as perf prints them.
-- One pass over the samples, then one name per thread.
--
-- Parameters:
--   @trace    the perf.data file
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'perf.data'
--   sqlite> .read sql/perf_report_thread.sql
-- Columns: event, samples, period, overhead, tid, comm
WITH s AS (
  SELECT name AS event, track, tid, count(*) AS samples, sum(value) AS period
  FROM events(@trace) WHERE type = 'SAMPLE'
  GROUP BY name, track, tid
)
SELECT s.event, s.samples, s.period,
       printf('%.2f%%', 100.0 * s.period / sum(s.period) OVER (PARTITION BY s.event)) AS overhead,
       s.tid,
       coalesce(t.name, CASE WHEN s.tid = 0 THEN 'swapper' ELSE ':' || s.tid END) AS comm
FROM s LEFT JOIN tracks(@trace) t ON t.id = s.track
ORDER BY s.event, s.period DESC, s.tid;
