-- xray_account.sql: per-function call statistics of an XRay log.
--
-- Answers: for each function the number of calls and the minimum, median,
-- 90th and 99th percentile, maximum and sum of their durations in seconds,
-- as `llvm-xray account` prints them (rows by function id). Calls still
-- open at the end of the log are not counted, as llvm-xray does not count
-- them. With @binary the last column is the function's name, as
-- `llvm-xray account -instr_map` prints it after the source location it
-- finds in debug information (`<invalid>:0:0: ` without it).
--
-- The sums are the call_stats table's: the calls of each function summed in
-- C in one pass over the log, their percentiles at llvm-xray's index (p of
-- n sorted durations is a[floor(n * p)], the median a[n / 2]), so SQLite
-- meets a row per function, not a row per call.
--
-- llvm-xray prints each value as C's printf("%.6f") prints the double
-- cycles / frequency, which rounds the double's exact value (8500 ns is
-- 0.00000849999... s: 0.000008), where SQLite's printf rounds its decimal
-- digits half up: the microseconds are rounded here in integers, a
-- half-way value up or down as the double lies above or below it (found
-- exactly by Dekker's product q * 1e9 = p + e), an exact half to even.
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
WITH s AS (
  SELECT func_id, calls AS n, name, min_dur AS v0, med_dur AS v1, p90_dur AS v2,
         p99_dur AS v3, max_dur AS v4, total_dur AS v5
  FROM call_stats(@trace, CASE WHEN @binary IS NOT NULL THEN 'binary="' || replace(@binary, '"', '""') || '"' END)
),
-- each value (ns) on a row of its own, for the rounding
v(func_id, k, x) AS (
            SELECT func_id, 0, v0 FROM s
  UNION ALL SELECT func_id, 1, v1 FROM s
  UNION ALL SELECT func_id, 2, v2 FROM s
  UNION ALL SELECT func_id, 3, v3 FROM s
  UNION ALL SELECT func_id, 4, v4 FROM s
  UNION ALL SELECT func_id, 5, v5 FROM s
),
q AS (SELECT func_id, k, x, x / 1e9 AS q FROM v),
h AS (SELECT *, 134217729.0 * q AS c FROM q),
e AS (SELECT func_id, k, x, q * 1e9 AS p, c - (c - q) AS qh, q - (c - (c - q)) AS ql FROM h),
r AS (
  SELECT func_id, k, x / 1000 AS us, x % 1000 AS rem,
         (p - x) + ((qh * 1e9 - p) + ql * 1e9) AS side   -- sign of q * 1e9 - x
  FROM e
),
t AS (
  SELECT func_id, k,
         us + (rem > 500 OR (rem = 500 AND (side > 0 OR (side = 0 AND us % 2 = 1)))) AS us
  FROM r
),
f AS (SELECT func_id, k, printf('%d.%06d', us / 1000000, us % 1000000) AS z FROM t)
SELECT s.func_id AS funcid,
       s.n AS count,
       max(CASE f.k WHEN 0 THEN f.z END) AS min,
       max(CASE f.k WHEN 1 THEN f.z END) AS med,
       max(CASE f.k WHEN 2 THEN f.z END) AS "90p",
       max(CASE f.k WHEN 3 THEN f.z END) AS "99p",
       max(CASE f.k WHEN 4 THEN f.z END) AS max,
       max(CASE f.k WHEN 5 THEN f.z END) AS sum,
       s.name AS function
FROM s JOIN f USING (func_id)
GROUP BY s.func_id
ORDER BY s.func_id;
