-- perf_report_sym.sql: where the samples are, by symbol.
--
-- Answers: which functions the samples of each event landed in, with their
-- sample count, period and share of the event's period, as
--   perf report --no-children -g none --sort sym -n --stdio
-- prints them (Overhead, Samples, Symbol; `[k]` kernel, `[.]` user).
-- Differences: perf lists each unresolved address on its own line
-- (`[.] 0x...12997`); here they are one `[unknown]` line per level.
-- Needs samples with callchains (`perf record -g`): the symbol of a sample
-- is the one of its innermost frame (callchains.depth = 0).
--
-- Parameters:
--   @trace    the perf.data file
--   @options  optional tracelite options for symbol lookup, as perf's
--             --symfs/--kallsyms: 'symfs=/ kallsyms=/proc/kallsyms'
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'perf.data'
--   sqlite> .parameter set @options 'kallsyms=/proc/kallsyms'
--   sqlite> .read sql/perf_report_sym.sql
-- Columns: event, samples, period, overhead, symbol
WITH s AS (
  SELECT e.name AS event, e.value AS period,
         CASE WHEN c.context = 'kernel' THEN '[k] ' ELSE '[.] ' END || c.symbol AS symbol
  FROM callchains(@trace, @options) c JOIN events(@trace, @options) e ON e.rowid = c.event
  WHERE c.depth = 0
)
SELECT event, count(*) AS samples, sum(period) AS period,
       printf('%.2f%%', 100.0 * sum(period) / sum(sum(period)) OVER (PARTITION BY event)) AS overhead,
       symbol
FROM s GROUP BY event, symbol
ORDER BY event, sum(period) DESC, symbol;
