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
--     named tracks (perf comms, CTF stream paths, CPEL track names), with
--     "ts":0 and "cat":"__metadata" (speedscope's profile importer needs a
--     first event with pid, tid, ph and cat, and sorts the events by ts);
--   complete events ("ph":"X", ts and dur) for XRay function calls (open
--     calls at the end of the log: "B", as llvm-xray leaves them);
--   begin/end events ("ph":"B"/"E", matched per thread by the viewer) for
--     CTF events that open and close a span: *:func_entry/*:func_exit
--     (LTTng-UST cyg-profile, named by the function address),
--     syscall_entry_*/syscall_exit_* (named by the syscall), and other
--     *_entry/*_exit and *_begin/*_end pairs (named without the suffix);
--   Chrome's CPU profile events for perf samples with a callchain
--     ("ph":"P", as Chrome's V8 sampler writes them, read by speedscope as
--     a sampled profile per thread and by the Perfetto UI as CPU profile
--     samples): one profile per thread and event, id "0x<n>": a "Profile"
--     (args.data.startTime, integer us), then "ProfileChunk"s holding its
--     call tree (cpuProfile.nodes: id, parent, callFrame.functionName;
--     node 1 the root "(root)"; frames named as events.stack names them,
--     the outermost nearest the root), then chunks of 200 samples
--     (cpuProfile.samples: the leaf node of each; timeDeltas: us since the
--     profile's previous sample, so each sample's time is startTime plus
--     the deltas so far, its ts cut to whole us as perf script prints it;
--     speedscope then shows these profiles and nothing else of the file);
--   instant events ("ph":"i", thread scope) for every other perf sample,
--     CTF event, CPEL event and XRay custom or typed event, with the
--     event's args and cpu in args;
--   counter events ("ph":"C") for CTF events carrying LTTng perf counter
--     contexts (fields perf_*): one series per field, per thread; and for
--     perf samples with PERF_SAMPLE_READ values (args.read, `perf record
--     -e '{a,b}:S'`): a counter track "perf counters tid T id I" (I the
--     group leader's id: one per CPU of the recording) with one series per
--     group member, its count as read (since enabled: perf script prints
--     the change since the id's previous sample as each line's period).
--
-- The perf profiles read the samples with a callchain twice: for their
-- distinct stacks (the call tree is built from those: a row per distinct
-- call path), then to give each its node (merged into the tree by a sort:
-- no lookup per sample) and its time delta (sorted by thread and time).
-- SQLite's sorters and temporary tables spill to temporary files beyond
-- their caches, so memory hardly grows with the samples (docs/exports.md
-- has numbers).
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
         callchain IS NOT NULL AS cc,
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
), rl AS MATERIALIZED (
  -- perf: where an event's PERF_SAMPLE_READ values are in args.read, by
  -- its read_format: v0 the first value, step from one member to the next,
  -- idx the id's offset from its value (NULL without ID)
  SELECT name AS ename, grp, CASE WHEN grp THEN 1 + te ELSE 0 END AS v0, 1 + hasid + lost AS step,
         CASE WHEN NOT hasid THEN NULL WHEN grp THEN 1 ELSE 1 + te END AS idx
  FROM (SELECT name, instr(rf, '|GROUP|') > 0 AS grp, instr(rf, '|ID|') > 0 AS hasid,
               instr(rf, '|LOST|') > 0 AS lost,
               (instr(rf, '|TOTAL_TIME_ENABLED|') > 0) + (instr(rf, '|TOTAL_TIME_RUNNING|') > 0) AS te
        FROM (SELECT name, '|' || (args ->> '$.read_format') || '|' AS rf, min(id)
              FROM fmt, event_types(@trace) WHERE fmt.f = 'perf' AND kind = 'attr' GROUP BY name))
), rid AS MATERIALIZED (   -- perf: the event of each sample id
  SELECT j.value AS id, t.name FROM fmt, event_types(@trace) t, json_each(t.args, '$.ids') j
  WHERE fmt.f = 'perf' AND t.kind = 'attr'
), smp AS NOT MATERIALIZED (   -- perf samples with a callchain: the profiles' samples
  SELECT ts, coalesce(pid, 0) AS pid, coalesce(tid, track, 0) AS tid, name AS event,
         CASE WHEN coalesce(stack, '') = '' THEN '' ELSE ';' || stack END AS leaf, rowid AS r
  FROM opt, events(@trace, opt.o)
  WHERE (SELECT f FROM fmt) = 'perf' AND type = 'SAMPLE' AND callchain IS NOT NULL AND ts IS NOT NULL
), stk AS MATERIALIZED (   -- each profile's stacks: one per thread and event
  SELECT pid, tid, event, leaf, min(ts) AS t0 FROM smp GROUP BY pid, tid, event, leaf
), prof AS MATERIALIZED (
  SELECT pid, tid, event, min(t0) / 1000 AS t0, row_number() OVER (ORDER BY pid, tid, event) AS pn
  FROM stk GROUP BY pid, tid, event
), split(pid, tid, event, prefix, frame, rest) AS (
  -- the call tree: a node per distinct prefix (';a;b') of a profile's
  -- stacks, the root '' (Chrome's "(root)")
  SELECT pid, tid, event, '', '(root)', substr(leaf, 2) || CASE WHEN leaf = '' THEN '' ELSE ';' END
  FROM stk
  UNION ALL
  SELECT pid, tid, event, prefix || ';' || substr(rest, 1, instr(rest, ';') - 1),
         substr(rest, 1, instr(rest, ';') - 1), substr(rest, instr(rest, ';') + 1)
  FROM split WHERE rest <> ''
), node AS MATERIALIZED (
  -- ids in depth-first order (k: the prefix with ';' below every other
  -- byte): a parent before its children, a node's parent the nearest node
  -- before it one level up
  SELECT pid, tid, event, frame, lvl, k, row_number() OVER (PARTITION BY pid, tid, event ORDER BY k) AS id
  FROM (SELECT pid, tid, event, frame, replace(prefix, ';', char(1)) AS k,
               length(prefix) - length(replace(prefix, ';', '')) AS lvl
        FROM split GROUP BY pid, tid, event, prefix)
), leafs AS NOT MATERIALIZED (
  -- each sample's node, by merging (no lookup) the samples into the nodes
  -- sorted by k: ids grow with k, so the last id met is the sample's node
  SELECT pid, tid, event, ts, r, node FROM (
    SELECT pid, tid, event, ts, r, c,
           max(id) OVER (PARTITION BY pid, tid, event ORDER BY k, c ROWS UNBOUNDED PRECEDING) AS node
    FROM (SELECT pid, tid, event, k, id, 0 AS c, NULL AS ts, NULL AS r FROM node
          UNION ALL
          SELECT pid, tid, event, replace(leaf, ';', char(1)), NULL, 1, ts, r FROM smp))
  WHERE c
), tick AS NOT MATERIALIZED (   -- each sample's time (us) since its profile's last
  SELECT pid, tid, event, node, us, us - coalesce(lag(us) OVER w, us) AS d, row_number() OVER w AS rn
  FROM (SELECT pid, tid, event, node, ts / 1000 AS us, ts, r FROM leafs)
  WINDOW w AS (PARTITION BY pid, tid, event ORDER BY ts, r)
), chunk AS MATERIALIZED (   -- 200 samples a chunk
  SELECT pid, tid, event, rn, samples, deltas, us, t1 FROM (
    SELECT pid, tid, event, rn, json_group_array(node) OVER c AS samples,
           json_group_array(d) OVER c AS deltas, us, last_value(us) OVER c AS t1
    FROM tick
    WINDOW c AS (PARTITION BY pid, tid, event ORDER BY rn ROWS BETWEEN CURRENT ROW AND 199 FOLLOWING))
  WHERE (rn - 1) % 200 = 0
), nodes AS MATERIALIZED (   -- 500 nodes a chunk
  -- (the root without "parent": a null is not a node id)
  SELECT pid, tid, event, id, j FROM (
    SELECT pid, tid, event, id,
           json_group_array(CASE WHEN par IS NULL
                                 THEN json_object('id', id, 'callFrame', json_object('functionName', frame))
                                 ELSE json_object('id', id, 'parent', par,
                                                  'callFrame', json_object('functionName', frame)) END)
             OVER (PARTITION BY pid, tid, event ORDER BY id ROWS BETWEEN CURRENT ROW AND 499 FOLLOWING) AS j
    FROM (SELECT pid, tid, event, id, frame, par FROM (
            -- each node as a parent of the level below (c 0), and as a
            -- child (c 1) taking the last parent met before it at its level
            SELECT pid, tid, event, id, frame, c,
                   max(CASE WHEN c THEN NULL ELSE id END)
                     OVER (PARTITION BY pid, tid, event, l ORDER BY k, c) AS par
            FROM (SELECT pid, tid, event, id, frame, lvl + 1 AS l, k, 0 AS c FROM node
                  UNION ALL
                  SELECT pid, tid, event, id, frame, lvl, k, 1 FROM node))
          WHERE c))
  WHERE (id - 1) % 500 = 0
), doc(e) AS NOT MATERIALIZED (
  SELECT json_object('ph', 'M', 'cat', '__metadata', 'name', 'thread_name', 'ts', 0,
                     'pid', coalesce(pid, 0), 'tid', coalesce(tid, id),
                     'args', json_object('name', name))
  FROM tr
  UNION ALL
  SELECT json_object('ph', 'M', 'cat', '__metadata', 'name', 'process_name', 'ts', 0,
                     'pid', pid, 'tid', tid, 'args', json_object('name', name))
  FROM tr WHERE pid = tid
  UNION ALL
  SELECT coalesce(inst || ',' || ctr, inst, ctr) FROM (
    SELECT CASE WHEN cc THEN NULL   -- a perf sample with a callchain: in its profile
                WHEN ph IS NOT NULL THEN
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
         END AS inst,
         CASE WHEN args LIKE '%"perf\_%' ESCAPE '\' THEN
              json_object('ph', 'C', 'name', 'perf counters tid ' || tid, 'cat', 'counter',
                          'ts', json(us), 'pid', pid, 'tid', tid,
                          'args', (SELECT json_group_object(key, value) FROM json_each(args)
                                   WHERE key LIKE 'perf\_%' ESCAPE '\'))
              -- perf PERF_SAMPLE_READ: the counters' values as read (since
              -- enabled), one series per group member, by the leader's id
              WHEN rl.ename IS NOT NULL AND args LIKE '%"read":[%' THEN
              json_object('ph', 'C', 'cat', 'counter', 'ts', json(us), 'pid', pid, 'tid', tid,
                          'name', 'perf counters tid ' || tid
                                  || coalesce(' id ' || json_extract(args, '$.read[' || (rl.v0 + rl.idx) || ']'), ''),
                          'args', (SELECT json_group_object(
                                            CASE WHEN NOT rl.grp THEN ev.name
                                                 WHEN rl.idx IS NULL THEN 'member ' || ((j.key - rl.v0) / rl.step)
                                                 ELSE coalesce((SELECT m.name FROM rid m
                                                                WHERE m.id = json_extract(args, '$.read[' || (j.key + rl.idx) || ']')),
                                                               'id ' || json_extract(args, '$.read[' || (j.key + rl.idx) || ']')) END,
                                            j.value)
                                   FROM json_each(args, '$.read') j
                                   WHERE j.key >= rl.v0 AND (j.key - rl.v0) % rl.step = 0
                                     AND (rl.grp OR j.key = rl.v0)))
         END AS ctr
    FROM ev LEFT JOIN rl ON rl.ename = ev.name AND ev.type = 'SAMPLE')
  WHERE inst IS NOT NULL OR ctr IS NOT NULL
  UNION ALL
  -- perf samples with a callchain: Chrome's CPU profile events, a profile
  -- per thread and event ("Profile", then "ProfileChunk"s with its nodes,
  -- then with its samples and their time deltas, in integer us)
  SELECT json_object('ph', 'P', 'cat', 'perf', 'name', 'Profile', 'id', printf('0x%x', pn),
                     'ts', t0, 'pid', pid, 'tid', tid,
                     'args', json_object('data', json_object('startTime', t0, 'event', event)))
  FROM prof
  UNION ALL
  SELECT json_object('ph', 'P', 'cat', 'perf', 'name', 'ProfileChunk', 'id', printf('0x%x', p.pn),
                     'ts', p.t0, 'pid', p.pid, 'tid', p.tid,
                     'args', json_object('data', json_object('cpuProfile', json_object('nodes', json(x.j)))))
  FROM nodes x CROSS JOIN prof p WHERE p.pid = x.pid AND p.tid = x.tid AND p.event = x.event
  UNION ALL
  SELECT json_object('ph', 'P', 'cat', 'perf', 'name', 'ProfileChunk', 'id', printf('0x%x', p.pn),
                     'ts', c.us, 'pid', p.pid, 'tid', p.tid,
                     'args', json_object('data', json_object('cpuProfile', json_object('samples', json(c.samples)),
                                                             'timeDeltas', json(c.deltas), 'endTime', c.t1)))
  FROM chunk c CROSS JOIN prof p WHERE p.pid = c.pid AND p.tid = c.tid AND p.event = c.event
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
