-- cpel_latency.sql: per-track latency from a start event to an end event.
--
-- Answers: for each track of a CPEL file, how long it took from an event
-- of code @start to the next event of code @end on the same track: the
-- number of such intervals and their mean, standard deviation (the
-- unbiased one), total, shortest and longest, in microseconds, most total
-- time first. The rules are those of VPP's cpelatency: events in file
-- order; a start marks its track's start time (a later start replaces
-- it); an end on a track with a start time counts end - start and clears
-- it; tracks whose name begins with "kernel " are left out unless
-- @kernel = 1 (cpelatency's --kernel-included). The columns are
-- cpelatency's Mean(us), Stdev(us), Total(us) and N. One difference: with
-- track definitions cpelatency finds an event's track by its datum string
-- (a "pid:N tid:M" name, in the logs it was written for); here the track
-- is always the event's own, as cpelatency does without definitions.
--
-- Parameters:
--   @trace    the .cpel file
--   @start    the start event code (default 2, as cpelatency)
--   @end      the end event code (default 1, as cpelatency)
--   @kernel   optional: 1 to keep "kernel ..." tracks
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'vpp.cpel'
--   sqlite> .parameter set @start 2
--   sqlite> .parameter set @end 1
--   sqlite> .read sql/cpel_latency.sql
-- Columns: track, n, mean_us, stdev_us, total_us, min_us, max_us
WITH e AS (
  SELECT rowid, ts, track, args ->> '$.code' AS code,
         lag(args ->> '$.code') OVER w AS prev_code, lag(ts) OVER w AS prev_ts
  FROM events(@trace)
  WHERE args ->> '$.code' IN (coalesce(@start, 2), coalesce(@end, 1))
  WINDOW w AS (PARTITION BY track ORDER BY rowid)
), d AS (
  SELECT track, ts - prev_ts AS ns FROM e
  WHERE code = coalesce(@end, 1) AND prev_code = coalesce(@start, 2) AND prev_ts > 0
), s AS (
  SELECT track, count(*) AS n, avg(ns) AS mean, sum(ns) AS total, min(ns) AS mn, max(ns) AS mx
  FROM d GROUP BY track
), v AS (
  SELECT s.*, CASE WHEN n > 1 THEN sum((d.ns - mean) * (d.ns - mean)) / (n - 1) ELSE 0 END AS var
  FROM s JOIN d USING (track) GROUP BY track
)
SELECT t.name AS track, v.n,
       printf('%.3f', v.mean / 1000) AS mean_us,
       printf('%.3f', sqrt(v.var) / 1000) AS stdev_us,
       printf('%.3f', v.total / 1000.0) AS total_us,
       printf('%.3f', v.mn / 1000.0) AS min_us,
       printf('%.3f', v.mx / 1000.0) AS max_us
FROM v JOIN tracks(@trace) t ON t.id = v.track
WHERE v.mean > 0 AND (coalesce(@kernel, 0) = 1 OR t.name NOT LIKE 'kernel %')
ORDER BY v.total DESC, t.name;
