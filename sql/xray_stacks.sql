-- xray_stacks.sql: the call stacks of an XRay log, all threads together.
--
-- Answers: for each distinct call stack (outermost function first), how
-- many calls ended there, on how many threads, and their total, shortest
-- and longest duration in ns (callees included), busiest first. The calls
-- and total are what `llvm-xray stack -all-stacks -aggregate-threads
-- -stack-format=flame` prints with -aggregation-type=count and =time.
-- Calls still open at the end of the log are left out. Functions are named
-- when @binary is set, else `#<function id>`.
--
-- Parameters:
--   @trace    the XRay log
--   @binary   optional: the instrumented binary, for function names
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'xray-log.app.abc123'
--   sqlite> .parameter set @binary './app'
--   sqlite> .read sql/xray_stacks.sql
-- Columns: stack, depth, calls, threads, total_ns, min_ns, max_ns
WITH RECURSIVE
c AS MATERIALIZED (
  SELECT id, tid, parent, dur, coalesce(name, '#' || func_id) AS name
  FROM xray_calls(@trace, CASE WHEN @binary IS NOT NULL THEN 'binary="' || replace(@binary, '"', '""') || '"' END)
  WHERE dur IS NOT NULL
),
p(id, depth, path) AS (
  SELECT id, 0, name FROM c WHERE parent IS NULL
  UNION ALL
  SELECT c.id, p.depth + 1, p.path || ';' || c.name FROM c JOIN p ON c.parent = p.id
)
SELECT p.path AS stack, p.depth, count(*) AS calls, count(DISTINCT c.tid) AS threads,
       sum(c.dur) AS total_ns, min(c.dur) AS min_ns, max(c.dur) AS max_ns
FROM p JOIN c USING (id)
GROUP BY p.path
ORDER BY total_ns DESC, stack;
