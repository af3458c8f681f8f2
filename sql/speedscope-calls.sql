-- The function calls of a trace (the calls table: XRay calls, LTTng-UST
-- cyg-profile calls, system calls) in speedscope's own file format
-- (https://www.speedscope.app/file-format-schema.json), one "evented"
-- profile per thread: an open event ("O") at each call's start and a close
-- event ("C") at its end, frames by index into one shared frame list.
--
-- speedscope opens this form at sizes where its Chrome trace-event importer
-- does not finish (docs/exports.md, "speedscope and large traces"): the
-- events are replayed in one pass, with times in integer nanoseconds from
-- the trace's first call (exact at any trace length; microseconds since
-- the epoch as a double are not: 0.25 us steps, and calls shorter than
-- that no longer nest).
--
-- One event per row, written as the query makes it; the shell writes any
-- size with its memory flat. Two passes over the calls: the first collects
-- the frame names and each thread's first and last time, the second sorts
-- the events by thread and time (SQLite's sorter spills to temporary files
-- beyond its cache, so the disk, not the memory, holds a large trace's
-- events while they are sorted).
--
--   sqlite3 :memory: '.load ./tracelite' ".parameter set @trace 'xray-log.app.abc123'" \
--           ".parameter set @binary './app'" '.read sql/speedscope-calls.sql' > calls.speedscope.json
--
-- A name ending in .speedscope.json lets speedscope skip its format guess.
-- @binary (optional) names the instrumented binary of an XRay log;
-- @options (optional) is passed to the table as is and replaces what
-- @binary makes. A call still open at the end of its thread closes at the
-- thread's last time; at one instant, calls end (innermost first) before
-- calls start (outermost first), and a call of no duration opens and closes
-- in place.
WITH opt(o) AS (
  SELECT coalesce(@options,
                  CASE WHEN @binary IS NULL THEN NULL
                       ELSE 'binary=''' || replace(@binary, '''', '''''') || '''' END)
), c AS NOT MATERIALIZED (
  SELECT id, CASE WHEN tid IS NULL THEN 'cpu ' || coalesce(cpu, '?') ELSE 'tid ' || tid END AS th,
         pid, coalesce(name, CAST(func_id AS TEXT)) AS fn, ts, dur, depth
  FROM opt, calls(@trace, opt.o)
  WHERE ts IS NOT NULL
), pass1 AS MATERIALIZED (   -- one row per thread and function
  SELECT th, max(pid) AS pid, fn, min(ts) AS t0, max(coalesce(ts + dur, ts)) AS t1
  FROM c GROUP BY th, fn
), frames AS MATERIALIZED (
  SELECT fn, row_number() OVER (ORDER BY fn) - 1 AS ix FROM pass1 GROUP BY fn
), threads AS MATERIALIZED (
  SELECT th, max(pid) AS pid, max(t1) AS t1, row_number() OVER (ORDER BY th) AS n
  FROM pass1 GROUP BY th
), origin(t0) AS MATERIALIZED (
  SELECT min(t0) FROM pass1
), ev AS NOT MATERIALIZED (
  -- per call an open (e 1) and a close (e 0); k orders one instant's
  -- events: 0 the close of a call with a duration, 1 an open, 2 the close
  -- of a call of no duration, right after its open
  SELECT c.th, c.id, f.ix, c.depth,
         CASE WHEN two.e = 1 THEN c.ts ELSE coalesce(c.ts + c.dur, t.t1) END - o.t0 AS at,
         CASE WHEN two.e = 1 THEN 1 WHEN coalesce(c.dur, t.t1 - c.ts) = 0 THEN 2 ELSE 0 END AS k
  FROM c CROSS JOIN (SELECT 1 AS e UNION ALL SELECT 0) AS two
         CROSS JOIN origin o
         JOIN frames f ON f.fn = c.fn JOIN threads t ON t.th = c.th
), sorted AS NOT MATERIALIZED (
  SELECT th, ix, at, k,
         row_number() OVER (PARTITION BY th
                            ORDER BY at, k <> 0, CASE WHEN k = 0 THEN -depth ELSE depth END, id, k) AS rn
  FROM ev
)
SELECT '{"$schema":"https://www.speedscope.app/file-format-schema.json","exporter":"tracelite",'
       || '"name":' || json_quote(@trace) || ',"activeProfileIndex":0,"shared":{"frames":'
       || (SELECT json_group_array(json_object('name', fn)) FROM (SELECT fn FROM frames ORDER BY ix))
       || '},"profiles":['
UNION ALL
SELECT CASE WHEN s.rn > 1 THEN ','
            -- a thread's first event: its profile's header (the object
            -- without its closing brace), after the previous profile's end
            ELSE (SELECT CASE WHEN t.n > 1 THEN ']},' ELSE '' END
                         || rtrim(json_object('type', 'evented',
                                              'name', t.th || coalesce(' pid ' || t.pid, ''),
                                              'unit', 'nanoseconds', 'startValue', 0,
                                              'endValue', t.t1 - (SELECT t0 FROM origin)), '}')
                         || ',"events":['
                  FROM threads t WHERE t.th = s.th) END
       || '{"type":"' || CASE WHEN s.k = 1 THEN 'O' ELSE 'C' END || '","frame":' || s.ix
       || ',"at":' || s.at || '}'
FROM sorted s
UNION ALL
SELECT CASE WHEN EXISTS (SELECT 1 FROM threads) THEN ']}]}' ELSE ']}' END;
