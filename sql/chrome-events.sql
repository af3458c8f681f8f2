-- Chrome trace-event JSON of a trace's events, for the Perfetto UI
-- (ui.perfetto.dev, "Open trace file") and chrome://tracing.
--
-- One instant event (ph "i", thread scope) per perf sample, CTF event, CPEL
-- event and XRay custom or typed event; perf's side-band records (MMAP,
-- COMM, ...) and XRay function records are left out (sql/chrome-xray.sql
-- exports XRay calls as slices). ts is in microseconds with the
-- nanoseconds kept as three decimals; pid and tid are the event's own, or
-- for formats without them (CPEL, CTF streams without vpid/vtid) pid 0 and
-- the track's id as tid. Tracks with a name become thread_name metadata
-- events. args holds the event's args column (every decoded field) and its
-- cpu. The whole document is one row of one column:
--
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'perf.data'
--   sqlite> .headers off
--   sqlite> .mode list
--   sqlite> .output trace.json
--   sqlite> .read sql/chrome-events.sql
--   sqlite> .output stdout
--
-- @binary (optional) names the instrumented binary of an XRay log, for
-- function names. The document is built in memory: export a time window of
-- a large trace rather than all of it (add a ts condition to the ev CTE).
WITH opt(o) AS (
  SELECT CASE WHEN @binary IS NULL THEN NULL
              ELSE 'binary=''' || replace(@binary, '''', '''''') || '''' END
), ev AS (
  SELECT ts, cpu, pid, tid, track, type, name, args
  FROM opt, events(@trace, opt.o)
  WHERE type IN ('SAMPLE', 'event', 'custom-event', 'typed-event')
), tr AS (
  SELECT id, name, pid, tid FROM opt, tracks(@trace, opt.o) WHERE name IS NOT NULL
), doc(e) AS (
  SELECT json_object('ph', 'M', 'name', 'thread_name',
                     'pid', coalesce(pid, 0), 'tid', coalesce(tid, id),
                     'args', json_object('name', name))
  FROM tr
  UNION ALL
  SELECT json_object('ph', 'i', 's', 't', 'name', coalesce(name, type), 'cat', type,
                     'ts', json(CASE WHEN ts >= 0 THEN printf('%d.%03d', ts / 1000, ts % 1000)
                                     ELSE printf('-%d.%03d', -ts / 1000, -ts % 1000) END),
                     'pid', coalesce(pid, 0), 'tid', coalesce(tid, track, 0),
                     'args', CASE WHEN cpu IS NULL THEN json(coalesce(args, '{}'))
                                  ELSE json_set(coalesce(args, '{}'), '$.cpu', cpu) END)
  FROM ev WHERE ts IS NOT NULL
)
SELECT json_object('displayTimeUnit', 'ns',
                   'traceEvents', (SELECT json_group_array(json(e)) FROM doc)) AS json;
