-- perf_report_cpu.sql: samples per CPU.
--
-- Answers: how many samples of each event each CPU took, with their period
-- and share of the event's period, as
--   perf report --no-children -g none --sort cpu -n --stdio
-- prints them. The CPU is known when the samples carry it (`perf record
-- -a`, `--sample-cpu`, tracepoints); otherwise perf prints -1 and this
-- query NULL.
--
-- Parameters:
--   @trace    the perf.data file
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'perf.data'
--   sqlite> .read sql/perf_report_cpu.sql
-- Columns: event, samples, period, overhead, cpu
SELECT name AS event, count(*) AS samples, sum(value) AS period,
       printf('%.2f%%', 100.0 * sum(value) / sum(sum(value)) OVER (PARTITION BY name)) AS overhead,
       cpu
FROM events(@trace) WHERE type = 'SAMPLE'
GROUP BY name, cpu
ORDER BY name, sum(value) DESC, cpu;
