-- perf_report_dso.sql: where the samples are, by executable or library.
--
-- Answers: which files (DSOs) the samples of each event landed in, with
-- their sample count, period and share of the event's period, as
--   perf report --no-children -g none --sort dso -n --stdio
-- prints them (the file's base name, `[kernel.kallsyms]` for the kernel).
-- The file of a sample is the one of its own address (events.dso), with or
-- without callchains. One pass over the samples.
--
-- Parameters:
--   @trace    the perf.data file
--   @options  optional tracelite options (symfs=, kallsyms=, buildid_dir=)
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'perf.data'
--   sqlite> .read sql/perf_report_dso.sql
-- Columns: event, samples, period, overhead, dso
WITH g AS (
  SELECT name AS event, dso, count(*) AS n, sum(value) AS period
  FROM events(@trace, @options) WHERE type = 'SAMPLE' AND ip IS NOT NULL
  GROUP BY name, dso
), s AS (
  -- the file's base name, as perf shows it
  SELECT event, n, period, replace(dso, rtrim(dso, replace(dso, '/', '')), '') AS dso FROM g
)
SELECT event, sum(n) AS samples, sum(period) AS period,
       printf('%.2f%%', 100.0 * sum(period) / sum(sum(period)) OVER (PARTITION BY event)) AS overhead,
       dso
FROM s GROUP BY event, dso
ORDER BY event, sum(period) DESC, dso;
