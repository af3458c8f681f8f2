-- llvm-xray account from the xray_calls table: for each function the number
-- of calls and the minimum, median, 90th and 99th percentile, maximum and
-- sum of their durations in seconds, as `llvm-xray account` prints them
-- (rows by function id). Calls still open at the end of the log are not
-- counted, as llvm-xray does not count them.
--
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'xray-log.app.abc123'
--   sqlite> .read sql/xray_account.sql
WITH d AS (
  SELECT func_id, dur FROM xray_calls(@trace) WHERE dur IS NOT NULL
), r AS (
  SELECT func_id, dur,
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
       printf('%.6f', sum(dur) / 1e9) AS sum
FROM r
GROUP BY func_id
ORDER BY func_id;
