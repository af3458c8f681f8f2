-- cpel_state.sql: state residency per track.
--
-- Answers: how long each track held the state that an event of code @code
-- begins (which thread had the CPU, when @code means "now running"): the
-- state passes from track to track at each such event, in file order, and
-- each interval, up to the next such event on any track, belongs to the
-- track of the event that began it. Per track: the number of intervals,
-- their mean, standard deviation (unbiased), total, shortest and longest
-- in microseconds, most total time first. These are the rules and the
-- Mean(us), Stdev(us), Total(us), N columns of VPP's cpelstate; as there,
-- tracks whose name begins with "kernel " are left out unless @kernel = 1.
-- cpelstate also leaves out tracks without a definition; here they are
-- rows named by their number.
--
-- Parameters:
--   @trace    the .cpel file
--   @code     the state event code (default 1, as cpelstate)
--   @kernel   optional: 1 to keep "kernel ..." tracks
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'vpp.cpel'
--   sqlite> .parameter set @code 1
--   sqlite> .read sql/cpel_state.sql
-- Columns: track, n, mean_us, stdev_us, total_us, min_us, max_us
WITH e AS (
  SELECT track, lead(ts) OVER (ORDER BY rowid) - ts AS ns
  FROM events(@trace)
  WHERE args ->> '$.code' = coalesce(@code, 1)
), d AS (
  SELECT track, ns FROM e WHERE ns IS NOT NULL
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
