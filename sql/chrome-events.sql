-- Chrome trace-event JSON of a trace, for the Perfetto UI (ui.perfetto.dev,
-- "Open trace file"), chrome://tracing and speedscope, written as it is
-- read: one event per row, so the shell writes a trace of any size to a
-- file with constant memory.
--
-- The output is the JSON array form of the trace-event format: the first
-- row is "[" and the first event, every other event row starts with ",",
-- and the last row is "]". The file is one JSON document; cut short (an
-- interrupted export) it is still the array form without its closing
-- bracket, which the viewers also read.
--
--   thread_name and process_name metadata events ("ph":"M") from the
--     named tracks (perf comms, CTF stream paths, CPEL track names);
--   complete events ("ph":"X", ts and dur) for XRay function calls (open
--     calls at the end of the log: "B", as llvm-xray leaves them);
--   begin/end events ("ph":"B"/"E", matched per thread by the viewer) for
--     CTF events that open and close a span: *:func_entry/*:func_exit
--     (LTTng-UST cyg-profile, named by the function address),
--     syscall_entry_*/syscall_exit_* (named by the syscall), and other
--     *_entry/*_exit and *_begin/*_end pairs (named without the suffix);
--   instant events ("ph":"i", thread scope) for every other perf sample,
--     CTF event, CPEL event and XRay custom or typed event, with the
--     event's args and cpu in args;
--   counter events ("ph":"C") for CTF events carrying LTTng perf counter
--     contexts (fields perf_*): one series per field, per thread.
--
-- ts is in microseconds with the nanoseconds kept as three decimals; pid
-- and tid are the event's own, or for formats without them (CPEL, CTF
-- streams without vpid/vtid) pid 0 and the track's id as tid. Scheduling
-- slices and other spans are one more arm of the doc CTE below.
--
--   sqlite3 :memory: '.load ./tracelite' ".parameter set @trace 'perf.data'" \
--           '.read sql/chrome-events.sql' > trace.json
--
-- @binary (optional) names the instrumented binary of an XRay log, for
-- function names; @options (optional) is passed to every table as is
-- (clock=monotonic, ...) and replaces what @binary makes.
WITH opt(o) AS (
  SELECT coalesce(@options,
                  CASE WHEN @binary IS NULL THEN NULL
                       ELSE 'binary=''' || replace(@binary, '''', '''''') || '''' END)
), fmt(f) AS (
  SELECT format FROM trace_files(@trace)
), tr AS NOT MATERIALIZED (
  SELECT id, name, pid, tid FROM opt, tracks(@trace, opt.o) WHERE name IS NOT NULL
), ev AS NOT MATERIALIZED (
  SELECT ts, cpu, coalesce(pid, 0) AS pid, coalesce(tid, track, 0) AS tid, type, name, args,
         CASE WHEN ts >= 0 THEN printf('%d.%03d', ts / 1000, ts % 1000)
              ELSE printf('-%d.%03d', -ts / 1000, -ts % 1000) END AS us,
         -- CTF spans: 'B' or 'E' and the span's name, else NULL
         CASE WHEN (SELECT f FROM fmt) <> 'ctf' THEN NULL
              WHEN name GLOB '*:func_entry' OR name GLOB 'syscall_entry_*'
                OR name GLOB '*_entry' OR name GLOB '*_begin' THEN 'B'
              WHEN name GLOB '*:func_exit' OR name GLOB 'syscall_exit_*'
                OR name GLOB '*_exit' OR name GLOB '*_end' THEN 'E' END AS ph
  FROM opt, events(@trace, opt.o)
  WHERE type IN ('SAMPLE', 'event', 'custom-event', 'typed-event') AND ts IS NOT NULL
), doc(e) AS NOT MATERIALIZED (
  SELECT json_object('ph', 'M', 'name', 'thread_name',
                     'pid', coalesce(pid, 0), 'tid', coalesce(tid, id),
                     'args', json_object('name', name))
  FROM tr
  UNION ALL
  SELECT json_object('ph', 'M', 'name', 'process_name', 'pid', pid, 'tid', tid,
                     'args', json_object('name', name))
  FROM tr WHERE pid = tid
  UNION ALL
  SELECT CASE WHEN ph IS NOT NULL THEN
           json_object('ph', ph, 'cat', 'span', 'ts', json(us), 'pid', pid, 'tid', tid,
                       'name', CASE WHEN name GLOB '*:func_e*' THEN printf('%#x', args ->> '$.addr')
                                    WHEN name GLOB 'syscall_e*' THEN substr(name, instr(substr(name, 9), '_') + 9)
                                    WHEN name GLOB '*_entry' OR name GLOB '*_begin' THEN substr(name, 1, length(name) - 6)
                                    WHEN name GLOB '*_exit' THEN substr(name, 1, length(name) - 5)
                                    ELSE substr(name, 1, length(name) - 4) END,
                       'args', json_set(coalesce(args, '{}'), '$.event', name, '$.cpu', cpu))
         ELSE
           json_object('ph', 'i', 's', 't', 'name', coalesce(name, type), 'cat', type,
                       'ts', json(us), 'pid', pid, 'tid', tid,
                       'args', CASE WHEN cpu IS NULL THEN json(coalesce(args, '{}'))
                                    ELSE json_set(coalesce(args, '{}'), '$.cpu', cpu) END)
         END
         || CASE WHEN args LIKE '%"perf\_%' ESCAPE '\' THEN
              ',' || json_object('ph', 'C', 'name', 'perf counters tid ' || tid, 'cat', 'counter',
                                 'ts', json(us), 'pid', pid, 'tid', tid,
                                 'args', (SELECT json_group_object(key, value) FROM json_each(args)
                                          WHERE key LIKE 'perf\_%' ESCAPE '\'))
            ELSE '' END
  FROM ev
  UNION ALL
  SELECT json_object('ph', CASE WHEN dur IS NULL THEN 'B' ELSE 'X' END,
                     'name', coalesce(name, CAST(func_id AS TEXT)), 'cat', 'xray',
                     'ts', json(CASE WHEN ts >= 0 THEN printf('%d.%03d', ts / 1000, ts % 1000)
                                     ELSE printf('-%d.%03d', -ts / 1000, -ts % 1000) END),
                     'dur', json(CASE WHEN dur IS NULL THEN NULL
                                      ELSE printf('%d.%03d', dur / 1000, dur % 1000) END),
                     'pid', coalesce(pid, 0), 'tid', coalesce(tid, 0),
                     'args', json_object('func_id', func_id, 'depth', depth))
  FROM opt, xray_calls(@trace, opt.o)
  WHERE (SELECT f FROM fmt) = 'xray' AND ts IS NOT NULL
)
SELECT '[' || e FROM (SELECT e FROM doc LIMIT 1)
UNION ALL
SELECT ',' || e FROM (SELECT e FROM doc LIMIT -1 OFFSET 1)
UNION ALL
SELECT CASE WHEN EXISTS (SELECT 1 FROM doc) THEN ']' ELSE '[]' END;
