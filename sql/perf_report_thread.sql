-- perf_report_thread.sql: samples per thread.
--
-- Answers: how many samples of each event each thread took, with their
-- period and share of the event's period, as
--   perf report --no-children -g none --sort pid -n --stdio
-- prints them (its Pid:Command column is the thread id and the thread's
-- last name). Threads are tracks: a tid the kernel reused is two rows.
-- Thread 0 is `swapper`, a thread never named `:tid`, as perf prints them.
--
-- Parameters:
--   @trace    the perf.data file
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'perf.data'
--   sqlite> .read sql/perf_report_thread.sql
-- Columns: event, samples, period, overhead, tid, comm
WITH s AS (
  SELECT e.name AS event, e.value AS period, e.tid, e.track
  FROM events(@trace) e WHERE e.type = 'SAMPLE'
)
SELECT s.event, count(*) AS samples, sum(s.period) AS period,
       printf('%.2f%%', 100.0 * sum(s.period) / sum(sum(s.period)) OVER (PARTITION BY s.event)) AS overhead,
       s.tid,
       coalesce(t.name, CASE WHEN s.tid = 0 THEN 'swapper' ELSE ':' || s.tid END) AS comm
FROM s LEFT JOIN tracks(@trace) t ON t.id = s.track
GROUP BY s.event, s.track
ORDER BY s.event, sum(s.period) DESC, s.tid;
