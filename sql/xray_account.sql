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
-- llvm-xray's rules, where they are not SQL's:
--   - its percentile p of n sorted durations a[] is a[floor(n * p)] (the
--     median: a[n / 2]), where percentile_disc(dur, p) is a[i] with i =
--     floor(p * (n - 1)), one less when frac(n * p) < p: then a[i + 1]
--     comes from percentile_cont(dur, p) = a[i] + (a[i + 1] - a[i]) * t,
--     t = p * (n - 1) - i (at least 1 - p there, so the division is safe
--     and rounds back to the integer ns);
--   - it prints each value as C's printf("%.6f") prints the double
--     cycles / frequency, which rounds the double's exact value (8500 ns
--     is 0.00000849999... s: 0.000008), where SQLite's printf rounds its
--     decimal digits half up: the microseconds are rounded here in integers,
--     a half-way value up or down as the double lies above or below it
--     (found exactly by Dekker's product q * 1e9 = p + e), an exact half
--     to even.
-- One scan: the calls come function by function, so the aggregates hold
-- the durations of one function at a time, each counted by distinct value
-- (6 x 32-64 bytes a distinct duration, never more than 6 x 8 bytes a
-- call).
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
WITH g AS (
  SELECT func_id, count(*) AS n, max(name) AS name, min(dur) AS v0, max(dur) AS v4, sum(dur) AS v5,
         percentile_disc(dur, 0.5) AS d1, percentile_cont(dur, 0.5) AS c1,
         percentile_disc(dur, 0.9) AS d2, percentile_cont(dur, 0.9) AS c2,
         percentile_disc(dur, 0.99) AS d3, percentile_cont(dur, 0.99) AS c3
  FROM xray_calls(@trace, CASE WHEN @binary IS NOT NULL THEN 'binary="' || replace(@binary, '"', '""') || '"' END)
  WHERE dur IS NOT NULL
  GROUP BY func_id
),
-- a[floor(n * p)]: a[i], or a[i + 1] from the interpolation
s AS (
  SELECT func_id, n, name, v0, v4, v5,
         CASE WHEN n / 2 > CAST(0.5 * (n - 1) AS INTEGER)
              THEN d1 + round((c1 - d1) / (0.5 * (n - 1) - CAST(0.5 * (n - 1) AS INTEGER))) ELSE d1 END AS v1,
         CASE WHEN CAST(n * 0.9 AS INTEGER) > CAST(0.9 * (n - 1) AS INTEGER)
              THEN d2 + round((c2 - d2) / (0.9 * (n - 1) - CAST(0.9 * (n - 1) AS INTEGER))) ELSE d2 END AS v2,
         CASE WHEN CAST(n * 0.99 AS INTEGER) > CAST(0.99 * (n - 1) AS INTEGER)
              THEN d3 + round((c3 - d3) / (0.99 * (n - 1) - CAST(0.99 * (n - 1) AS INTEGER))) ELSE d3 END AS v3
  FROM g
),
-- each value (ns) on a row of its own, for the rounding
v(func_id, k, x) AS (
            SELECT func_id, 0, v0 FROM s
  UNION ALL SELECT func_id, 1, CAST(v1 AS INTEGER) FROM s
  UNION ALL SELECT func_id, 2, CAST(v2 AS INTEGER) FROM s
  UNION ALL SELECT func_id, 3, CAST(v3 AS INTEGER) FROM s
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
