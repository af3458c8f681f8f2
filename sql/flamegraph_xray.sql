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
-- end of the log add nothing to their own frame, and the calls that
-- finished inside them count at theirs, as in sql/xray_folded.sql.
-- Functions are named with @binary, else `#<function id>`. The stacks are
-- the call_stacks table's rows (each thread's calls at each stack, summed
-- in C in one pass over the log), then the picture.
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
WITH c AS (
  SELECT tid, stack, calls, total_dur, name, func_id, depth
  FROM call_stacks(@trace, CASE WHEN @binary IS NOT NULL THEN 'binary="' || replace(@binary, '"', '""') || '"' END)
),
-- each stack's own value, and (time) its finished calls' time taken from
-- its caller's stack
v AS (
  SELECT tid, stack, CASE WHEN @value = 'count' THEN calls ELSE total_dur END AS w FROM c
  UNION ALL
  SELECT tid, substr(stack, 1, length(stack) - 1 - CASE
           WHEN name IS NOT NULL THEN length(name)
           WHEN substr(stack, -length('#' || func_id)) = '#' || func_id THEN length('#' || func_id)
           ELSE length(stack) - length(rtrim(stack, replace(stack, ';', ''))) END), -total_dur
  FROM c
  WHERE coalesce(@value, 'time') <> 'count' AND total_dur IS NOT NULL AND depth > 0
),
folded AS (
  SELECT tid, stack, sum(w) AS w FROM v GROUP BY tid, stack
)
SELECT flamegraph('thread_' || tid || ';' || stack, w, coalesce(@title, 'XRay calls')) AS svg
FROM folded;
