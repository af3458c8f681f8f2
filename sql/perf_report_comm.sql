-- perf_report_comm.sql: samples by command name.
--
-- Answers: which commands the samples of each event belong to, with their
-- sample count, period and share of the event's period, as
--   perf report --no-children -g none --sort comm -n --stdio
-- prints them. A sample's command is its thread's name at the sample's
-- time (events.comm, perf's rules: a thread has the name of the thread that
-- made it until it names itself; `swapper` for thread 0 and `:tid` for a
-- thread never named). Works without callchains; one pass over the samples.
--
-- Parameters:
--   @trace    the perf.data file
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'perf.data'
--   sqlite> .read sql/perf_report_comm.sql
-- Columns: event, samples, period, overhead, comm
WITH s AS (
  SELECT name AS event, value AS period, comm
  FROM events(@trace) WHERE type = 'SAMPLE'
)
SELECT event, count(*) AS samples, sum(period) AS period,
       printf('%.2f%%', 100.0 * sum(period) / sum(sum(period)) OVER (PARTITION BY event)) AS overhead,
       comm
FROM s GROUP BY event, comm
ORDER BY event, sum(period) DESC, comm;
