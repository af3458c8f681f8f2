-- xray_stacks.sql: the call stacks of an XRay log, all threads together.
--
-- Answers: for each distinct call stack (outermost function first), how
-- many calls ended there, on how many threads, and their total, shortest
-- and longest duration in ns (callees included), busiest first. The calls
-- and total are what `llvm-xray stack -all-stacks -aggregate-threads
-- -stack-format=flame` prints with -aggregation-type=count and =time.
-- A call still open at the end of the log counts at its stack with no
-- time (calls 0 if none ended there), as llvm-xray prints it. One GROUP BY
-- over the call_stacks table, whose rows are each thread's calls at each
-- stack, summed in C in one pass over the log (a row per thread and stack,
-- not per call). Functions are named when @binary is set, else
-- `#<function id>`.
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
SELECT stack, min(depth) AS depth, sum(calls) AS calls, count(DISTINCT tid) AS threads,
       coalesce(sum(total_dur), 0) AS total_ns, min(min_dur) AS min_ns, max(max_dur) AS max_ns
FROM call_stacks(@trace, CASE WHEN @binary IS NOT NULL THEN 'binary="' || replace(@binary, '"', '""') || '"' END)
GROUP BY stack
ORDER BY total_ns DESC, stack;
