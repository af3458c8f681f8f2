-- Chrome trace-event JSON of an XRay log's function calls, for the
-- Perfetto UI (ui.perfetto.dev), chrome://tracing and speedscope: what
-- `llvm-xray convert -output-format=trace_event` writes, with each call as
-- one complete event (ph "X", ts and dur in microseconds, nanoseconds kept
-- as three decimals) instead of a begin/end pair. A call still open when the
-- log ends is a begin event (ph "B"), as llvm-xray leaves it. Names are the
-- functions' (with @binary) or their ids; args holds func_id and depth.
--
-- One event per row, written as it is read (constant memory at any size):
-- the JSON array form, "[" and the first event on the first row, "," and
-- an event on each other row, "]" on the last (sql/chrome-events.sql has
-- the calls too, with the log's other events and thread names).
--
--   sqlite3 :memory: '.load ./tracelite' ".parameter set @trace 'xray-log.app.abc123'" \
--           ".parameter set @binary './app'" '.read sql/chrome-xray.sql' > calls.json
WITH opt(o) AS (
  SELECT coalesce(@options,
                  CASE WHEN @binary IS NULL THEN NULL
                       ELSE 'binary=''' || replace(@binary, '''', '''''') || '''' END)
), doc(e) AS NOT MATERIALIZED (
  SELECT json_object('ph', CASE WHEN dur IS NULL THEN 'B' ELSE 'X' END,
                     'name', coalesce(name, CAST(func_id AS TEXT)), 'cat', 'xray',
                     'ts', json(CASE WHEN ts >= 0 THEN printf('%d.%03d', ts / 1000, ts % 1000)
                                     ELSE printf('-%d.%03d', -ts / 1000, -ts % 1000) END),
                     'dur', json(CASE WHEN dur IS NULL THEN NULL
                                      ELSE printf('%d.%03d', dur / 1000, dur % 1000) END),
                     'pid', coalesce(pid, 0), 'tid', coalesce(tid, 0),
                     'args', json_object('func_id', func_id, 'depth', depth))
  FROM opt, xray_calls(@trace, opt.o)
  WHERE ts IS NOT NULL
)
SELECT '[' || e FROM (SELECT e FROM doc LIMIT 1)
UNION ALL
SELECT ',' || e FROM (SELECT e FROM doc LIMIT -1 OFFSET 1)
UNION ALL
SELECT CASE WHEN EXISTS (SELECT 1 FROM doc) THEN ']' ELSE '[]' END;
