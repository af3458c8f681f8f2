-- flamegraph_xray.sql: a flame graph of an XRay log's calls, as one SVG.
--
-- Answers: one row, one value: a self-contained interactive SVG (hover,
-- click to zoom, Search) drawn by the flamegraph() aggregate, one tower
-- per thread (`thread_TID`), each call's frame under its caller's. With
-- @value 'time' (the default) each frame is as wide as the time spent in
-- the function and its callees (ns of the log's TSC): each call adds its
-- own time without its callees' to its stack, as flamegraph.pl wants it
-- (sql/xray_folded.sql's 'self'); with 'count' a frame is as wide as the
-- calls at its stack and below (`llvm-xray stack -stack-format=flame
-- -aggregation-type=count` drawn by flamegraph.pl). Calls still open at the
-- end of the log are left out. Functions are named with @binary, else
-- `#<function id>`. The stacks are built from xray_calls' parent links
-- here, holding the log's calls in a temporary table while they are.
--
-- Parameters:
--   @trace    the XRay log (xray-log.app.XXXXXX)
--   @binary   optional: the instrumented binary, for function names
--   @value    optional: 'time' (default) or 'count'
--   @title    optional: the picture's title (default: "XRay calls")
-- Example:
--   sqlite3 -cmd '.load ./tracelite' -cmd ".parameter set @trace 'xray-log.app.abc123'" \
--     -cmd ".parameter set @binary './app'" :memory: '.read sql/flamegraph_xray.sql' > xray.svg
-- Columns: svg
WITH RECURSIVE
c AS MATERIALIZED (
  SELECT id, tid, parent, dur, coalesce(name, '#' || func_id) AS name
  FROM xray_calls(@trace, CASE WHEN @binary IS NOT NULL THEN 'binary="' || replace(@binary, '"', '""') || '"' END)
  WHERE dur IS NOT NULL
),
-- each call's stack, walked up from the call to the outermost caller
up(id, anc, path) AS (
  SELECT id, parent, name FROM c
  UNION ALL
  SELECT up.id, c.parent, c.name || ';' || up.path FROM up JOIN c ON c.id = up.anc
)
SELECT flamegraph('thread_' || c.tid || ';' || up.path,
                  CASE WHEN @value = 'count' THEN 1
                       ELSE c.dur - coalesce((SELECT sum(k.dur) FROM c AS k WHERE k.parent = c.id), 0) END,
                  coalesce(@title, 'XRay calls')) AS svg
FROM up JOIN c USING (id)
WHERE up.anc IS NULL;
