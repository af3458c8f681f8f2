-- xray_account.sql: per-function call statistics of an XRay log.
--
-- Answers: for each function the number of calls and the minimum, median,
-- 90th and 99th percentile, maximum and sum of their durations in seconds,
-- as `llvm-xray account` prints them (rows by function id; its percentile
-- rule: the value at index floor(n * p) of the sorted durations). Calls
-- still open at the end of the log are not counted, as llvm-xray does not
-- count them. With @binary the last column is the function's name, as
-- `llvm-xray account -instr_map` prints it after the source location it
-- finds in debug information (`<invalid>:0:0: ` without it).
--
-- Parameters:
--   @trace    the XRay log (xray-log.app.XXXXXX)
--   @binary   optional: the instrumented binary, for function names
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'xray-log.app.abc123'
--   sqlite> .parameter set @binary './app'
--   sqlite> .read sql/xray_account.sql
-- Columns: funcid, count, min, med, 90p, 99p, max, sum, function
WITH d AS (
  SELECT func_id, dur, name
  FROM xray_calls(@trace, CASE WHEN @binary IS NOT NULL THEN 'binary="' || replace(@binary, '"', '""') || '"' END)
  WHERE dur IS NOT NULL
), r AS (
  SELECT func_id, dur, name,
         row_number() OVER (PARTITION BY func_id ORDER BY dur) - 1 AS i,
         count(*) OVER (PARTITION BY func_id) AS n
  FROM d
)
SELECT func_id AS funcid,
       n AS count,
       printf('%.6f', min(dur) / 1e9) AS min,
       printf('%.6f', max(CASE WHEN i = n / 2 THEN dur END) / 1e9) AS med,
       printf('%.6f', max(CASE WHEN i = CAST(n * 0.9 AS INTEGER) THEN dur END) / 1e9) AS "90p",
       printf('%.6f', max(CASE WHEN i = CAST(n * 0.99 AS INTEGER) THEN dur END) / 1e9) AS "99p",
       printf('%.6f', max(dur) / 1e9) AS max,
       printf('%.6f', sum(dur) / 1e9) AS sum,
       max(name) AS function
FROM r
GROUP BY func_id
ORDER BY func_id;
