-- The spans of a CTF trace in speedscope's own file format
-- (https://www.speedscope.app/file-format-schema.json): the events that
-- open and close a span, the pairs sql/chrome-events.sql writes as "B" and
-- "E" (*:func_entry/*:func_exit named by the function's address,
-- syscall_entry_*/syscall_exit_* by the system call, other *_entry/*_exit
-- and *_begin/*_end by the name without the suffix), as one "evented"
-- profile per thread: an open event ("O") where a span begins, a close
-- event ("C") where it ends, frames by index into one shared frame list.
--
-- speedscope's Chrome trace-event importer does not open a large trace
-- (docs/exports.md, "speedscope and large traces"); this form it reads in
-- one pass, with times in integer nanoseconds from the trace's start
-- (exact at any length).
--
-- The events are paired per thread (vtid/tid, else the stream) as the
-- trace-event viewers pair "B" and "E": an end closes the thread's newest
-- open span, whatever its name; an end with no span open (begun before the
-- recording) is left out, and a span still open at the end of the trace
-- closes at the trace's end, innermost first.
--
-- One event per row, written as the query makes it; the shell writes any
-- size with its memory flat. The event names are listed first (without
-- reading the events), then the span events are read once and sorted,
-- four times, by SQLite's sorter, which keeps a few MB in memory and
-- spills the rest to temporary files: a large trace takes disk while it is
-- sorted, not memory.
--
--   sqlite3 :memory: '.load ./tracelite' ".parameter set @trace 'lttng-trace/'" \
--           '.read sql/speedscope-spans.sql' > spans.speedscope.json
--
-- @options (optional) is passed to every table as is.
WITH opt(o) AS (
  SELECT @options
), fmt(f) AS (
  SELECT format FROM trace_files(@trace)
), names AS MATERIALIZED (   -- e 1 opens a span, -1 closes one; fn the span's name
  SELECT name, e,
         CASE WHEN e = -1 OR name GLOB '*:func_entry' THEN NULL
              WHEN name GLOB 'syscall_entry_*' THEN substr(name, 15)
              ELSE substr(name, 1, length(name) - 6) END AS fn
  FROM (SELECT name,
               CASE WHEN name GLOB '*:func_entry' OR name GLOB 'syscall_entry_*'
                      OR name GLOB '*_entry' OR name GLOB '*_begin' THEN 1
                    WHEN name GLOB '*:func_exit' OR name GLOB 'syscall_exit_*'
                      OR name GLOB '*_exit' OR name GLOB '*_end' THEN -1 END AS e
        FROM opt, events(@trace, opt.o) WHERE name IS NOT NULL GROUP BY name)
  WHERE e IS NOT NULL AND (SELECT f FROM fmt) = 'ctf'
), frames AS MATERIALIZED (
  SELECT fn, row_number() OVER (ORDER BY fn) - 1 AS ix
  FROM (SELECT fn FROM names WHERE fn IS NOT NULL
        UNION
        SELECT printf('%#x', args ->> '$.addr')
        FROM opt, events(@trace, opt.o)
        WHERE name GLOB '*:func_entry'
          AND EXISTS (SELECT 1 FROM names WHERE name GLOB '*:func_entry'))
), span AS NOT MATERIALIZED (   -- th: vtid/tid, else -1 - the stream's track
  SELECT ev.rowid AS id, ev.ts, coalesce(ev.tid, -1 - ev.track) AS th, ev.pid, n.e,
         CASE WHEN n.e = 1 THEN (SELECT ix FROM frames f
                                 WHERE f.fn = coalesce(n.fn, printf('%#x', ev.args ->> '$.addr'))) END AS ix
  FROM opt CROSS JOIN events(@trace, opt.o) AS ev CROSS JOIN names AS n
  WHERE n.name = ev.name AND ev.ts IS NOT NULL
), walk AS NOT MATERIALIZED (   -- s: opens minus closes so far on the thread
  SELECT *, sum(e) OVER (PARTITION BY th ORDER BY ts, id ROWS UNBOUNDED PRECEDING) AS s
  FROM span
), level AS NOT MATERIALIZED (
  -- m: the lowest s before this event (0 at most): a close that takes s
  -- below it has no span open and is left out; s - m spans are open after
  -- the event, so an open's frame and the close that matches it have
  -- depth lv on the thread
  SELECT id, ts, th, pid, e, ix, s - m - (e = 1) AS lv
  FROM (SELECT *, min(0, coalesce(min(s) OVER (PARTITION BY th ORDER BY ts, id
                                               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)) AS m
        FROM walk)
  WHERE e = 1 OR s >= m
), paired AS NOT MATERIALIZED (
  -- at one depth of a thread opens and closes alternate: a close's frame
  -- is the open before it, an open with no close after it is still open
  -- at the end
  SELECT id, ts, th, pid, e, lv,
         CASE WHEN e = 1 THEN ix ELSE lag(ix) OVER d END AS ix,
         e = 1 AND lead(e) OVER d IS NULL AS open_at_end
  FROM level WINDOW d AS (PARTITION BY th, lv ORDER BY ts, id)
), origin(t0, t1) AS MATERIALIZED (   -- the trace's first and last time
  SELECT coalesce(min(first_ts), (SELECT min(ts) FROM opt, events(@trace, opt.o))),
         coalesce(max(last_ts), (SELECT max(ts) FROM opt, events(@trace, opt.o)))
  FROM opt, tracks(@trace, opt.o)
), ev AS NOT MATERIALIZED (
  -- each span event, and a close at the trace's end of a span still open
  -- (k 1: after all others, innermost first)
  SELECT p.th, p.pid, p.ix, CASE WHEN x.k = 0 THEN p.e ELSE -1 END AS e,
         CASE WHEN x.k = 0 THEN p.ts ELSE max(o.t1, p.ts) END - o.t0 AS at,
         x.k, CASE WHEN x.k = 0 THEN p.id ELSE -p.lv END AS seq
  FROM paired p CROSS JOIN (SELECT 0 AS k UNION ALL SELECT 1) AS x CROSS JOIN origin o
  WHERE x.k = 0 OR p.open_at_end
), sorted AS NOT MATERIALIZED (
  SELECT th, pid, ix, e, at, lag(th) OVER w AS prev_th, lead(th) OVER w IS NULL AS last
  FROM ev WINDOW w AS (ORDER BY th, k, at, seq)
)
SELECT '{"$schema":"https://www.speedscope.app/file-format-schema.json","exporter":"tracelite",'
       || '"name":' || json_quote(@trace) || ',"activeProfileIndex":0,"shared":{"frames":'
       || (SELECT json_group_array(json_object('name', fn)) FROM (SELECT fn FROM frames ORDER BY ix))
       || '},"profiles":['
UNION ALL
SELECT CASE WHEN s.th IS s.prev_th THEN ','
            -- a thread's first event: the previous profile's end, this
            -- profile's start (every profile spans the whole trace); the
            -- last event ends the last profile
            ELSE CASE WHEN s.prev_th IS NULL THEN '' ELSE ']},' END
                 || '{"type":"evented","name":'
                 || json_quote(CASE WHEN s.th < 0 THEN 'stream ' || (-1 - s.th)
                                    ELSE 'tid ' || s.th || coalesce(' pid ' || s.pid, '') END)
                 || ',"unit":"nanoseconds","startValue":0,"endValue":'
                 || (SELECT max(t1 - t0, 0) FROM origin) || ',"events":[' END
       || '{"type":"' || CASE WHEN s.e = 1 THEN 'O' ELSE 'C' END || '","frame":' || s.ix
       || ',"at":' || s.at || '}' || CASE WHEN s.last THEN ']}' ELSE '' END
FROM sorted s
UNION ALL
SELECT ']}';
