-- xray_folded.sql: folded call stacks of an XRay log, for flame graphs.
--
-- Answers: one line per thread and call stack, `thread_TID;outer;...;inner
-- N`, as `llvm-xray stack -all-stacks -stack-format=flame` prints it (its
-- lines end the stack with `;`; these do not, which flamegraph.pl and
-- speedscope read the same). N is, with @value:
--   'time'  (default) the summed duration in ns of the calls at that stack,
--           callees included: llvm-xray's -aggregation-type=time (with the
--           log's TSC in ns);
--   'count' the number of calls at that stack: -aggregation-type=count;
--   'self'  the time spent in the function itself, callees' time taken
--           out: the value a flame graph wants, so that each frame's width
--           is its total time.
-- Calls still open at the end of the log are left out. Functions are named
-- when @binary is set (demangled, as llvm-xray -instr_map names them), else
-- `#<function id>`.
--
-- Parameters:
--   @trace    the XRay log (xray-log.app.XXXXXX)
--   @binary   optional: the instrumented binary, for function names
--   @value    optional: 'time', 'count' or 'self'
-- Example, to an SVG:
--   sqlite3 -batch -separator ' ' -cmd '.load ./tracelite' \
--     -cmd ".parameter set @trace 'xray-log.app.abc123'" \
--     -cmd ".parameter set @binary './app'" -cmd ".parameter set @value 'self'" \
--     :memory: '.read sql/xray_folded.sql' | flamegraph.pl > xray.svg
-- Columns: stack, value
WITH RECURSIVE
c AS MATERIALIZED (
  SELECT id, tid, parent, dur, coalesce(name, '#' || func_id) AS name
  FROM xray_calls(@trace, CASE WHEN @binary IS NOT NULL THEN 'binary="' || replace(@binary, '"', '""') || '"' END)
  WHERE dur IS NOT NULL
),
kids AS MATERIALIZED (
  SELECT parent AS id, sum(dur) AS dur FROM c WHERE parent IS NOT NULL GROUP BY parent
),
p(id, tid, path) AS (
  SELECT id, tid, name FROM c WHERE parent IS NULL
  UNION ALL
  SELECT c.id, c.tid, p.path || ';' || c.name FROM c JOIN p ON c.parent = p.id
)
SELECT 'thread_' || p.tid || ';' || p.path AS stack,
       CASE coalesce(@value, 'time')
         WHEN 'count' THEN count(*)
         WHEN 'self' THEN sum(c.dur - coalesce(k.dur, 0))
         ELSE sum(c.dur) END AS value
FROM p JOIN c USING (id) LEFT JOIN kids k USING (id)
GROUP BY p.tid, p.path
ORDER BY CAST(stack AS BLOB);
