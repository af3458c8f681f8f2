-- perf_report_dso.sql: where the samples are, by executable or library.
--
-- Answers: which files (DSOs) the samples of each event landed in, with
-- their sample count, period and share of the event's period, as
--   perf report --no-children -g none --sort dso -n --stdio
-- prints them (the file's base name, `[kernel.kallsyms]` for the kernel).
-- Needs samples with callchains (`perf record -g`): the file of a sample
-- is the one of its innermost frame (callchains.depth = 0).
--
-- Parameters:
--   @trace    the perf.data file
--   @options  optional tracelite options (symfs=, kallsyms=, buildid_dir=)
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'perf.data'
--   sqlite> .read sql/perf_report_dso.sql
-- Columns: event, samples, period, overhead, dso
WITH s AS (
  SELECT e.name AS event, e.value AS period,
         replace(c.dso, rtrim(c.dso, replace(c.dso, '/', '')), '') AS dso
  FROM callchains(@trace, @options) c JOIN events(@trace, @options) e ON e.rowid = c.event
  WHERE c.depth = 0
)
SELECT event, count(*) AS samples, sum(period) AS period,
       printf('%.2f%%', 100.0 * sum(period) / sum(sum(period)) OVER (PARTITION BY event)) AS overhead,
       dso
FROM s GROUP BY event, dso
ORDER BY event, sum(period) DESC, dso;
