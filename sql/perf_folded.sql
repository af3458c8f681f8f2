-- perf_folded.sql: folded stacks of perf samples, for flame graphs.
--
-- Answers: one line per distinct stack, `comm;outermost;...;innermost N`,
-- the input flamegraph.pl and speedscope take: what `perf script |
-- stackcollapse-perf.pl` (FlameGraph) prints: the command name at the
-- sample's time (events.comm, spaces made `_`), then the frames named by
-- the script's rules from the outermost in (events.stack; docs/tables.md
-- has the rules). N is the sum of the samples' periods. Only the samples
-- of one event are folded, by default the first sample's (the script's
-- default), and only samples with a callchain. Lines sorted as the script sorts them (byte order).
--
-- Parameters:
--   @trace    the perf.data file (recorded with -g or --call-graph)
--   @options  optional tracelite options for symbol lookup (symfs=, kallsyms=)
--   @event    optional: the event to fold (default: the first sample's)
--   @value    optional: 'period' (default) or 'samples' (count samples)
-- Example, to an SVG:
--   sqlite3 -batch -separator ' ' \
--     -cmd '.load ./tracelite' -cmd ".parameter set @trace 'perf.data'" \
--     :memory: '.read sql/perf_folded.sql' | flamegraph.pl > perf.svg
-- Columns: stack, value
WITH ev AS (
  SELECT coalesce(@event, (SELECT name FROM events(@trace) WHERE type = 'SAMPLE' ORDER BY ts LIMIT 1)) AS name
), f AS (
  SELECT replace(comm, ' ', '_') || CASE WHEN stack = '' THEN '' ELSE ';' || stack END AS folded,
         CASE coalesce(@value, 'period') WHEN 'samples' THEN count(*) ELSE sum(coalesce(value, 1)) END AS value
  FROM events(@trace, @options)
  WHERE type = 'SAMPLE' AND stack IS NOT NULL AND name = (SELECT name FROM ev)
  GROUP BY 1
)
SELECT folded AS stack, value FROM f ORDER BY CAST(folded AS BLOB);
