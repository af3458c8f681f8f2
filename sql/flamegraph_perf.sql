-- flamegraph_perf.sql: a flame graph of perf samples, as one SVG.
--
-- Answers: one row, one value: a self-contained interactive SVG (hover
-- for a frame's value, click to zoom, Search for a regular expression)
-- drawn by the flamegraph() aggregate from the folded stacks that
-- sql/perf_folded.sql lists (`comm;outermost;...;innermost`, the command
-- name at the sample's time, spaces made `_`, frames named as
-- stackcollapse-perf.pl names them): what `perf script |
-- stackcollapse-perf.pl | flamegraph.pl` draws, without either script.
-- Each frame is as wide as the summed period of the samples under it
-- (@value 'samples': their count). Only samples of one event, by default
-- the first sample's, and only samples with a callchain (`perf record -g`).
--
-- Parameters:
--   @trace    the perf.data file (recorded with -g or --call-graph)
--   @options  optional tracelite options for symbol lookup (symfs=, kallsyms=)
--   @event    optional: the event to draw (default: the first sample's)
--   @value    optional: 'period' (default) or 'samples'
--   @title    optional: the picture's title (default: "perf <event>")
-- Example:
--   sqlite3 -cmd '.load ./tracelite' -cmd ".parameter set @trace 'perf.data'" \
--     :memory: '.read sql/flamegraph_perf.sql' > perf.svg
-- Columns: svg
WITH ev AS (
  SELECT coalesce(@event, (SELECT name FROM events(@trace) WHERE type = 'SAMPLE' ORDER BY ts LIMIT 1)) AS name
)
SELECT flamegraph(replace(comm, ' ', '_') || CASE WHEN stack = '' THEN '' ELSE ';' || stack END,
                  CASE WHEN @value = 'samples' THEN 1 ELSE coalesce(value, 1) END,
                  coalesce(@title, 'perf ' || (SELECT name FROM ev))) AS svg
FROM events(@trace, @options)
WHERE type = 'SAMPLE' AND stack IS NOT NULL AND name = (SELECT name FROM ev);
