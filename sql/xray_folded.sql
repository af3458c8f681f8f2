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
-- Every stack llvm-xray prints is here: a call still open at the end of
-- the log (a program that exits from inside main) adds 0 to its stack, and
-- the calls that finished inside it count at theirs. The rows are the
-- call_stacks table's, each thread's calls at each stack summed in C in
-- one pass over the log, so the file reads a row per thread and stack.
-- Functions are named when @binary is set (as llvm-xray -instr_map names
-- them), else `#<function id>`.
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
-- each thread's stacks; for self time also how much of the stack is its
-- last frame (its name, #id without one, else the text after the last ';')
WITH t AS (
  SELECT tid, stack, calls AS n, total_dur AS total,
         CASE WHEN @value = 'self' AND depth > 0 THEN CASE
               WHEN name IS NOT NULL THEN length(name)
               WHEN substr(stack, -length('#' || func_id)) = '#' || func_id THEN length('#' || func_id)
               ELSE length(stack) - length(rtrim(stack, replace(stack, ';', ''))) END END AS cut
  FROM call_stacks(@trace, CASE WHEN @binary IS NOT NULL THEN 'binary="' || replace(@binary, '"', '""') || '"' END)
),
-- self time: the time of each stack's callees, by their caller's stack
k AS (
  SELECT tid, substr(stack, 1, length(stack) - 1 - cut) AS stack, sum(total) AS kids
  FROM t
  WHERE total IS NOT NULL AND cut IS NOT NULL
  GROUP BY 1, 2
)
SELECT 'thread_' || tid || ';' || stack AS stack,
       CASE coalesce(@value, 'time')
         WHEN 'count' THEN n
         WHEN 'self' THEN coalesce(total, 0) - coalesce(kids, 0)
         ELSE coalesce(total, 0) END AS value
FROM t LEFT JOIN k USING (tid, stack)
ORDER BY CAST(stack AS BLOB);
