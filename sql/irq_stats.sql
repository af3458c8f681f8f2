-- irq_stats.sql: how long interrupt handlers ran, per interrupt, as
-- lttng-analyses' `lttng-irqstats` prints it.
--
-- Answers: for each hard IRQ (number and handler name) and each softirq
-- vector, how many times its handler ran and its shortest, average and
-- longest run and their standard deviation, in microseconds. A run is an
-- entry matched with the next exit of the same IRQ (vector) on the same
-- CPU (irq_handler_entry / irq_handler_exit, softirq_entry /
-- softirq_exit); an exit with no entry is not counted. stdev is the sample
-- standard deviation ('?' for a single run), as lttng-irqstats prints it.
-- Works on LTTng kernel traces and on perf.data recorded with the irq:
-- tracepoints.
--
-- Parameters:
--   @trace    the trace (CTF directory, perf.data file)
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'lttng-kernel-trace/'
--   sqlite> .read sql/irq_stats.sql
-- Columns: kind ('hard', 'soft'), irq, name, count, min_us, avg_us, max_us,
--          stdev_us
WITH e AS MATERIALIZED (
  SELECT ts, cpu,
         CASE WHEN name IN ('irq_handler_entry', 'irq:irq_handler_entry',
                            'irq_handler_exit', 'irq:irq_handler_exit') THEN 'hard' ELSE 'soft' END AS kind,
         name LIKE '%entry' AS bEntry,
         coalesce(args ->> '$.irq', args ->> '$.vec') AS irq, args ->> '$.name' AS iname
  FROM events(@trace)
  WHERE name IN ('irq_handler_entry', 'irq_handler_exit', 'softirq_entry', 'softirq_exit',
                 'irq:irq_handler_entry', 'irq:irq_handler_exit', 'irq:softirq_entry',
                 'irq:softirq_exit')
), p AS (
  SELECT *, lag(bEntry) OVER w AS prevEntry, lag(irq) OVER w AS prevIrq, lag(ts) OVER w AS prevTs,
         lag(iname) OVER w AS prevName
  FROM e WINDOW w AS (PARTITION BY cpu, kind ORDER BY ts)
), d AS (
  SELECT kind, irq, prevName AS iname, ts - prevTs AS ns, (ts - prevTs) / 1000.0 AS us
  FROM p WHERE NOT bEntry AND prevEntry AND prevIrq = irq
), s AS (
  SELECT kind, CAST(irq AS INTEGER) AS irq, max(iname) AS name, count(*) AS n, min(us) AS mn,
         avg(us) AS av, (sum(ns) * 1.0 / count(*)) / 1000.0 AS avus, max(us) AS mx, sum(us * us) AS sq
  FROM d GROUP BY kind, CAST(irq AS INTEGER)
), r AS (
  -- the average as lttng-irqstats computes it (total ns / count, in usec)
  -- and its digits past the third decimal: rounded as the double they come
  -- from says (Python's '%0.03f'), not as its 16 digits do
  SELECT *, printf('%!.20f', avus) AS avtxt FROM s
)
SELECT kind, irq, name, n AS count, printf('%.3f', mn) AS min_us,
       printf('%.3f', CAST(substr(avtxt, 1, instr(avtxt, '.') + 3) AS REAL)
                      + CASE WHEN substr(avtxt, instr(avtxt, '.') + 4) > '5' THEN 0.001 ELSE 0 END) AS avg_us,
       printf('%.3f', mx) AS max_us,
       CASE WHEN n > 1 THEN printf('%.3f', sqrt(max(sq - n * av * av, 0) / (n - 1))) ELSE '?' END AS stdev_us
FROM r
ORDER BY kind, irq;
