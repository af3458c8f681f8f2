-- perf_stat.sql: the counters of a `perf stat record` file, as
-- `perf stat report` prints them.
--
-- Answers: each counter's total (summed over CPUs and threads, scaled by
-- enabled/running time when the counter was multiplexed, as perf scales
-- it), clock events in msec with their CPUs utilized (task-clock over the
-- elapsed time), other software events per second of task-clock (K/sec,
-- M/sec, G/sec as perf shortens them), and the elapsed time of the last
-- FINAL round. Reads the STAT, STAT_ROUND records' args (perf report -D's
-- names); one pass. Hardware metrics (insn per cycle, ...) are not
-- computed. With interval rounds (perf stat record -I), the totals are of
-- all of them.
--
-- Parameters:
--   @trace    the perf.data file perf stat record wrote
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'perf.data'
--   sqlite> .read sql/perf_stat.sql
-- Columns: event, counts (msec for clocks), unit, metric, metric_unit, running (% of enabled)
WITH r AS (
  SELECT rowid AS id, type, json_extract(args, '$.event') AS event, json_extract(args, '$.value') AS val,
         json_extract(args, '$.enabled') AS ena, json_extract(args, '$.running') AS run,
         json_extract(args, '$.time') AS time, json_extract(args, '$.type') AS round
  FROM events(@trace) WHERE type IN ('STAT', 'STAT_ROUND')
),
c AS (
  SELECT event, sum(val) AS val, sum(ena) AS ena, sum(run) AS run,
         event IN ('task-clock', 'cpu-clock') AS clock, min(id) AS first
  FROM r WHERE type = 'STAT' GROUP BY event
),
s AS (
  SELECT event, clock, first, ena, run,
         CASE WHEN run = 0 THEN NULL WHEN run < ena THEN CAST(1.0 * val * ena / run AS INTEGER) ELSE val END AS n
  FROM c
),
t AS (
  SELECT (SELECT max(time) FROM r WHERE type = 'STAT_ROUND' AND round = 'FINAL') AS elapsed,
         (SELECT sum(n) FROM s WHERE clock) AS nsecs
),
m AS (
  SELECT s.*, CASE WHEN clock THEN 1.0 * n / t.elapsed
                   WHEN t.nsecs > 0 THEN 1e9 * n / t.nsecs END AS rate
  FROM s, t
)
SELECT event, counts, unit, metric, metric_unit, running FROM (
SELECT event,
       CASE WHEN n IS NULL THEN '<not counted>' WHEN clock THEN printf('%.2f', n / 1e6) ELSE n END AS counts,
       CASE WHEN clock THEN 'msec' ELSE '' END AS unit,
       CASE WHEN rate IS NULL THEN ''
            WHEN clock THEN printf('%.3f', rate)
            WHEN rate >= 1e9 THEN printf('%.3f', rate / 1e9)
            WHEN rate >= 1e6 THEN printf('%.3f', rate / 1e6)
            WHEN rate >= 1e3 THEN printf('%.3f', rate / 1e3)
            ELSE printf('%.3f', rate) END AS metric,
       CASE WHEN rate IS NULL THEN ''
            WHEN clock THEN 'CPUs utilized'
            WHEN rate >= 1e9 THEN 'G/sec' WHEN rate >= 1e6 THEN 'M/sec' WHEN rate >= 1e3 THEN 'K/sec'
            ELSE '/sec' END AS metric_unit,
       CASE WHEN run < ena THEN printf('%.2f%%', 100.0 * run / ena) ELSE '' END AS running,
       first AS k
FROM m
UNION ALL
SELECT 'seconds time elapsed', printf('%.9f', elapsed / 1e9), '', '', '', '', NULL FROM t WHERE elapsed IS NOT NULL

) ORDER BY k IS NULL, k;
