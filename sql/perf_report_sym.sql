-- perf_report_sym.sql: where the samples are, by symbol.
--
-- Answers: which functions the samples of each event landed in, with their
-- sample count, period and share of the event's period, as
--   perf report --no-children -g none --sort sym -n --stdio
-- prints them (Overhead, Samples, Symbol; `[k]` kernel, `[.]` user).
-- The symbol of a sample is the one of its own address (events.symbol),
-- with or without callchains. An address no symbol covers is listed on its
-- own line as perf lists it: its offset in the mapped file
-- (`[.] 0x0000000000012997`, events.dso_offset), or the address itself when
-- no map covers it. Kernel addresses (the upper half) are `[k]`.
-- One pass over the samples.
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
WITH g AS (
  -- grouped by the columns themselves first: few groups, no sort of the
  -- samples (the engine collapses equal rows, docs/architecture.md)
  SELECT name AS event, ip, symbol, dso_offset, count(*) AS n, sum(value) AS period
  FROM events(@trace, @options) WHERE type = 'SAMPLE' AND ip IS NOT NULL
  GROUP BY name, ip, symbol, dso_offset
), s AS (
  SELECT event, n, period,
         CASE WHEN ip < 0 THEN '[k] ' ELSE '[.] ' END ||
         CASE WHEN symbol <> '[unknown]' THEN symbol
              ELSE printf('0x%016x', coalesce(dso_offset, ip)) END AS symbol
  FROM g
)
SELECT event, sum(n) AS samples, sum(period) AS period,
       printf('%.2f%%', 100.0 * sum(period) / sum(sum(period)) OVER (PARTITION BY event)) AS overhead,
       symbol
FROM s GROUP BY event, symbol
ORDER BY event, sum(period) DESC, symbol;
