-- perf_report_sym.sql: where the samples are, by symbol.
--
-- Answers: which functions the samples of each event landed in, with their
-- sample count, period and share of the event's period, as
--   perf report --no-children -g none --sort sym -n --stdio
-- prints them (Overhead, Samples, Symbol; `[k]` kernel, `[.]` user).
-- An address no symbol covers is listed on its own line as perf lists it:
-- its offset in the mapped file (`[.] 0x0000000000012997`: the address
-- less the map's start, plus the map's file offset, from the MMAP/MMAP2
-- record of the process, or of the same file in another process, e.g. the
-- parent it was forked from), or the address itself when no map covers it.
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
WITH maps AS MATERIALIZED (
  SELECT pid, ts, args ->> '$.addr' AS addr, args ->> '$.len' AS len,
         args ->> '$.pgoff' AS pgoff, args ->> '$.filename' AS file
  FROM events(@trace, @options) WHERE type IN ('MMAP', 'MMAP2')
), s AS (
  SELECT e.name AS event, e.value AS period,
         CASE WHEN c.context = 'kernel' THEN '[k] ' ELSE '[.] ' END ||
         CASE WHEN c.symbol <> '[unknown]' THEN c.symbol
              ELSE coalesce(
                (SELECT printf('0x%016x', c.ip - m.addr + m.pgoff) FROM maps m
                 WHERE m.pid = e.pid AND m.ts <= e.ts AND c.ip >= m.addr AND c.ip - m.addr < m.len
                 ORDER BY m.ts DESC LIMIT 1),
                (SELECT printf('0x%016x', c.ip - m.addr + m.pgoff) FROM maps m
                 WHERE m.file = c.dso AND m.ts <= e.ts AND c.ip >= m.addr AND c.ip - m.addr < m.len
                 ORDER BY m.ts DESC LIMIT 1),
                printf('0x%016x', c.ip)) END AS symbol
  FROM callchains(@trace, @options) c JOIN events(@trace, @options) e ON e.rowid = c.event
  WHERE c.depth = 0
)
SELECT event, count(*) AS samples, sum(period) AS period,
       printf('%.2f%%', 100.0 * sum(period) / sum(sum(period)) OVER (PARTITION BY event)) AS overhead,
       symbol
FROM s GROUP BY event, symbol
ORDER BY event, sum(period) DESC, symbol;
