-- The calls of an XRay log, or the spans of a CTF trace, as Chrome's CPU
-- profile events ("ph":"P", Profile and ProfileChunk, as Chrome's V8
-- sampler writes them): the form speedscope imports in one pass, so that
-- it opens traces whose calls and spans it cannot open as the "X"/"B"/"E"
-- events of sql/chrome-xray.sql and sql/chrome-events.sql (their
-- importer's time grows with the square of a thread's events,
-- docs/exports.md).
--
-- The calls are the rows of xray_calls (named as in sql/chrome-xray.sql);
-- the spans the CTF begin/end pairs that sql/chrome-events.sql writes as
-- "B" and "E" (*:func_entry/*:func_exit named by the function's address,
-- syscall_entry_*/syscall_exit_* by the system call, other
-- *_entry/*_exit, *_begin/*_end by the name without the suffix), an end
-- closing its thread's newest open span, an end with none open left out.
--
-- One profile per thread (id "0x<n>", a thread_name metadata event names
-- it "tid T pid P", or "stream N" for a CTF stream without vtid/tid) with
-- a sample at every begin and every end: the sample's node is the call
-- path open from that instant on (node 1 "(root)" when none is), its time
-- delta the microseconds since the thread's previous sample (nanoseconds
-- as three decimals; the first from the trace's start). speedscope turns a
-- change of node into frames left and entered at the sample's time, so
-- each call starts and ends at its own time, to the nanosecond. At one
-- instant calls end (innermost first) before calls start (outermost
-- first); a call of no duration is a sample of its own that speedscope
-- draws with no width. Every profile ends with two samples of the root at
-- the trace's end: calls and spans still open end there. Times: startTime
-- 0 (the trace's start: its first record, CTF packets' first time), the
-- last chunk's endTime the trace's end, both in microseconds.
--
-- Memory: the transitions, the walk that gives each one the path open
-- after it, the paths and the samples are temporary tables (SQLite spills
-- them to temporary files beyond its page cache: under SQLITE_TMPDIR,
-- TMPDIR or /var/tmp), the chunks hold 100000 samples, and the rows are
-- written one event each. The output is the JSON array form as in
-- sql/chrome-events.sql. The file is several statements: run it with the
-- shell's .read (the rows are its one SELECT's; the temporary tables,
-- tl_prof_*, are dropped at the end).
--
--   sqlite3 :memory: '.load ./tracelite' ".parameter set @trace 'xray-log.app.abc123'" \
--           ".parameter set @binary './app'" '.read sql/chrome-profile.sql' > calls.json
--
-- @binary (optional) names the instrumented binary of an XRay log;
-- @options (optional) is passed to every table as is and replaces what
-- @binary makes.
DROP TABLE IF EXISTS temp.tl_prof_tr;
DROP TABLE IF EXISTS temp.tl_prof_fr;
DROP TABLE IF EXISTS temp.tl_prof_smp;
DROP TABLE IF EXISTS temp.tl_prof_node;
DROP TABLE IF EXISTS temp.tl_prof_t;
DROP TABLE IF EXISTS temp.tl_prof_names;
-- the frames' names (ix), the trace's start and end
CREATE TEMP TABLE tl_prof_fr(ix INTEGER PRIMARY KEY, fn TEXT UNIQUE);
CREATE TEMP TABLE tl_prof_t(o TEXT, fmt TEXT, t0 INTEGER, t1 INTEGER);
INSERT INTO tl_prof_t(o, fmt)
  SELECT coalesce(@options,
                  CASE WHEN @binary IS NULL THEN NULL
                       ELSE 'binary=''' || replace(@binary, '''', '''''') || '''' END),
         (SELECT format FROM trace_files(@trace));
UPDATE tl_prof_t SET
  t0 = (SELECT coalesce(min(first_ts), (SELECT min(ts) FROM tl_prof_t, events(@trace, tl_prof_t.o)))
        FROM tl_prof_t, tracks(@trace, tl_prof_t.o)),
  t1 = (SELECT coalesce(max(last_ts), (SELECT max(ts) FROM tl_prof_t, events(@trace, tl_prof_t.o)))
        FROM tl_prof_t, tracks(@trace, tl_prof_t.o));
-- the transitions, in the order of the walk: by thread (th: the tid, for a
-- CTF stream without one -1 - its track), time and, at one instant, ends
-- before starts; e 1 a start (ix its frame), -1 an end
CREATE TEMP TABLE tl_prof_tr(seq INTEGER PRIMARY KEY, th INTEGER, pid INTEGER, ts INTEGER,
                             e INTEGER, ix INTEGER);
-- CTF: the span events' names (e 1 opens, -1 closes; fn the span's name),
-- listed without reading the events
CREATE TEMP TABLE tl_prof_names(name TEXT PRIMARY KEY, e INTEGER, fn TEXT);
INSERT INTO tl_prof_names
  SELECT name, e,
         CASE WHEN e = -1 OR name GLOB '*:func_entry' THEN NULL
              WHEN name GLOB 'syscall_entry_*' THEN substr(name, 15)
              ELSE substr(name, 1, length(name) - 6) END
  FROM (SELECT name,
               CASE WHEN name GLOB '*:func_entry' OR name GLOB 'syscall_entry_*'
                      OR name GLOB '*_entry' OR name GLOB '*_begin' THEN 1
                    WHEN name GLOB '*:func_exit' OR name GLOB 'syscall_exit_*'
                      OR name GLOB '*_exit' OR name GLOB '*_end' THEN -1 END AS e
        FROM tl_prof_t, events(@trace, tl_prof_t.o)
        WHERE tl_prof_t.fmt = 'ctf' AND name IS NOT NULL GROUP BY name)
  WHERE e IS NOT NULL;
INSERT INTO tl_prof_fr(fn)
  SELECT fn FROM (
    SELECT fn FROM tl_prof_names WHERE fn IS NOT NULL
    UNION
    SELECT printf('%#x', args ->> '$.addr') FROM tl_prof_t, events(@trace, tl_prof_t.o)
    WHERE name GLOB '*:func_entry' AND EXISTS (SELECT 1 FROM tl_prof_names WHERE name GLOB '*:func_entry')
    UNION
    SELECT coalesce(name, CAST(func_id AS TEXT)) FROM tl_prof_t, xray_calls(@trace, tl_prof_t.o)
    WHERE tl_prof_t.fmt = 'xray' GROUP BY func_id)
  ORDER BY fn;
WITH tr AS NOT MATERIALIZED (
  -- k orders one instant's transitions of a thread: 0 the end of a call
  -- with a duration (the deepest first), 1 a start (the outermost first),
  -- 2 the end of a call of no duration (right after its start); CTF
  -- events keep their order (k 1, by rowid)
  SELECT coalesce(ev.tid, -1 - ev.track) AS th, ev.pid, ev.ts, n.e,
         CASE WHEN n.e = 1 THEN (SELECT ix FROM tl_prof_fr f
                                 WHERE f.fn = coalesce(n.fn, printf('%#x', ev.args ->> '$.addr'))) END AS ix,
         1 AS k, 0 AS depth, ev.rowid AS id
  FROM tl_prof_t CROSS JOIN events(@trace, tl_prof_t.o) AS ev CROSS JOIN tl_prof_names AS n
  WHERE tl_prof_t.fmt = 'ctf' AND n.name = ev.name AND ev.ts IS NOT NULL
  UNION ALL
  SELECT c.tid, c.pid, CASE WHEN two.e = 1 THEN c.ts ELSE c.ts + c.dur END, two.e,
         CASE WHEN two.e = 1 THEN (SELECT ix FROM tl_prof_fr f WHERE f.fn = coalesce(c.name, CAST(c.func_id AS TEXT))) END,
         CASE WHEN two.e = 1 THEN 1 WHEN c.dur = 0 THEN 2 ELSE 0 END,
         CASE WHEN two.e = -1 AND c.dur > 0 THEN -c.depth ELSE c.depth END, c.id
  FROM tl_prof_t CROSS JOIN xray_calls(@trace, tl_prof_t.o) AS c CROSS JOIN (SELECT 1 AS e UNION ALL SELECT -1) AS two
  WHERE tl_prof_t.fmt = 'xray' AND c.ts IS NOT NULL AND (two.e = 1 OR c.dur IS NOT NULL)
)
INSERT INTO tl_prof_tr(th, pid, ts, e, ix)
  SELECT th, pid, ts, e, ix FROM tr ORDER BY th, ts, k <> 0, depth, id, k;
-- the walk: each transition's path after it (st: the frames' ix from the
-- outermost, joined by ';'; '' none), its time since the thread's
-- previous one (d, ns), the thread's first transition (f)
CREATE TEMP TABLE tl_prof_smp(g INTEGER, seq INTEGER, th INTEGER, pid INTEGER, ts INTEGER,
                              d INTEGER, st TEXT, PRIMARY KEY(g, seq)) WITHOUT ROWID;
WITH RECURSIVE w(seq, th, pid, ts, d, st, f) AS (
  SELECT seq, th, pid, ts, ts - (SELECT t0 FROM tl_prof_t), CASE WHEN e = 1 THEN CAST(ix AS TEXT) ELSE '' END, seq
  FROM tl_prof_tr WHERE seq = 1
  UNION ALL
  SELECT t.seq, t.th, t.pid, CASE WHEN t.th IS NOT w.th THEN t.ts ELSE max(t.ts, w.ts) END,
         CASE WHEN t.th IS NOT w.th THEN t.ts - (SELECT t0 FROM tl_prof_t) ELSE max(t.ts - w.ts, 0) END,
         CASE WHEN t.th IS NOT w.th THEN CASE WHEN t.e = 1 THEN CAST(t.ix AS TEXT) ELSE '' END
              WHEN t.e = 1 THEN CASE WHEN w.st = '' THEN CAST(t.ix AS TEXT) ELSE w.st || ';' || t.ix END
              ELSE rtrim(rtrim(w.st, '0123456789'), ';') END,
         CASE WHEN t.th IS NOT w.th THEN t.seq ELSE w.f END
  FROM w JOIN tl_prof_tr t ON t.seq = w.seq + 1
)
-- g: the thread's chunk of 100000 samples, in the order of the walk
INSERT INTO tl_prof_smp
  SELECT (CASE WHEN th < 0 THEN 4194304 - th ELSE th END) * 16777216 + (seq - f) / 100000,
         seq, th, pid, ts, d, st FROM w;
-- each thread's last chunk: two samples of the root at the trace's end
-- (the calls still open end there)
INSERT INTO tl_prof_smp
  SELECT l.g0 + 16777215, x.n, l.th, l.pid, max(t.t1, l.ts),
         CASE WHEN x.n = 1 THEN max(t.t1 - l.ts, 0) ELSE 0 END, ''
  FROM (SELECT th, g0, (SELECT ts FROM tl_prof_smp s WHERE s.g BETWEEN g0 AND g0 + 16777214
                        ORDER BY s.g DESC, s.seq DESC LIMIT 1) AS ts,
               (SELECT pid FROM tl_prof_smp s WHERE s.g BETWEEN g0 AND g0 + 16777214
                        ORDER BY s.g DESC, s.seq DESC LIMIT 1) AS pid
        FROM (SELECT th, (CASE WHEN th < 0 THEN 4194304 - th ELSE th END) * 16777216 AS g0
              FROM (SELECT DISTINCT th FROM tl_prof_smp))) AS l,
       tl_prof_t t, (SELECT 1 AS n UNION ALL SELECT 2) AS x;
-- the call tree of each thread: a node per path, ids in path order (a
-- parent before its children, the root '' first)
CREATE TEMP TABLE tl_prof_node(th INTEGER, st TEXT, id INTEGER, PRIMARY KEY(th, st)) WITHOUT ROWID;
INSERT INTO tl_prof_node
  SELECT th, st, row_number() OVER (PARTITION BY th ORDER BY st) FROM (SELECT DISTINCT th, st FROM tl_prof_smp);
WITH th AS MATERIALIZED (
  SELECT n.th, (SELECT pid FROM tl_prof_smp s WHERE s.g >= (CASE WHEN n.th < 0 THEN 4194304 - n.th ELSE n.th END) * 16777216
                ORDER BY s.g, s.seq LIMIT 1) AS pid,
         row_number() OVER (ORDER BY n.th) AS pn
  FROM tl_prof_node n WHERE n.st = ''
), doc(e) AS NOT MATERIALIZED (
  SELECT json_object('ph', 'M', 'cat', '__metadata', 'name', 'thread_name', 'ts', 0,
                     'pid', coalesce(pid, 0), 'tid', CASE WHEN th < 0 THEN -1 - th ELSE th END,
                     'args', json_object('name', CASE WHEN th < 0 THEN 'stream ' || (-1 - th)
                                                      ELSE 'tid ' || th || coalesce(' pid ' || pid, '') END))
  FROM th
  UNION ALL
  SELECT json_object('ph', 'P', 'cat', 'profile', 'name', 'Profile', 'id', printf('0x%x', pn),
                     'ts', json(printf('%d.%03d', t.t0 / 1000, t.t0 % 1000)),
                     'pid', coalesce(pid, 0), 'tid', CASE WHEN th < 0 THEN -1 - th ELSE th END,
                     'args', json_object('data', json_object('startTime', 0)))
  FROM th, tl_prof_t t
  UNION ALL
  -- the nodes, 500 a chunk
  SELECT json_object('ph', 'P', 'cat', 'profile', 'name', 'ProfileChunk', 'id', printf('0x%x', th.pn),
                     'ts', json(printf('%d.%03d', t.t0 / 1000, t.t0 % 1000)),
                     'pid', coalesce(th.pid, 0), 'tid', CASE WHEN th.th < 0 THEN -1 - th.th ELSE th.th END,
                     'args', json_object('data', json_object('cpuProfile', json_object('nodes', json(x.j)))))
  FROM (SELECT th, json_group_array(j) AS j FROM (
          SELECT n.th, n.id,
                 CASE WHEN n.st = '' THEN json_object('id', 1, 'callFrame', json_object('functionName', '(root)'))
                      ELSE json_object('id', n.id,
                                       'parent', (SELECT p.id FROM tl_prof_node p
                                                  WHERE p.th = n.th AND p.st = rtrim(rtrim(n.st, '0123456789'), ';')),
                                       'callFrame', json_object('functionName',
                                         (SELECT fn FROM tl_prof_fr f
                                          WHERE f.ix = CAST(substr(n.st, length(rtrim(n.st, '0123456789')) + 1) AS INTEGER))))
                 END AS j
          FROM tl_prof_node n)
        GROUP BY th, (id - 1) / 500) AS x
       JOIN th ON th.th = x.th CROSS JOIN tl_prof_t t
  UNION ALL
  -- the samples, 100000 a chunk: each one's node and its time delta (the
  -- arrays written as text: no JSON value of 100000 elements is built)
  SELECT '{"ph":"P","cat":"profile","name":"ProfileChunk","id":"' || printf('0x%x', (SELECT pn FROM th WHERE th.th = c.th))
         || '","ts":' || printf('%d.%03d', c.ts / 1000, c.ts % 1000)
         || ',"pid":' || coalesce((SELECT pid FROM th WHERE th.th = c.th), 0)
         || ',"tid":' || CASE WHEN c.th < 0 THEN -1 - c.th ELSE c.th END
         || ',"args":{"data":{"cpuProfile":{"samples":[' || c.nodes || ']},"timeDeltas":[' || c.deltas
         || '],"endTime":' || c.t || '}}}'
  FROM (SELECT s.g, s.th, min(s.ts) AS ts, group_concat(n.id) AS nodes,
               group_concat(printf('%d.%03d', s.d / 1000, s.d % 1000)) AS deltas,
               (SELECT printf('%d.%03d', (t1 - t0) / 1000, (t1 - t0) % 1000) FROM tl_prof_t) AS t
        FROM tl_prof_smp s JOIN tl_prof_node n ON n.th = s.th AND n.st = s.st
        GROUP BY s.g) AS c
)
SELECT '[' || e FROM (SELECT e FROM doc LIMIT 1)
UNION ALL
SELECT ',' || e FROM (SELECT e FROM doc LIMIT -1 OFFSET 1)
UNION ALL
SELECT CASE WHEN EXISTS (SELECT 1 FROM doc) THEN ']' ELSE '[]' END;
DROP TABLE temp.tl_prof_tr;
DROP TABLE temp.tl_prof_fr;
DROP TABLE temp.tl_prof_smp;
DROP TABLE temp.tl_prof_node;
DROP TABLE temp.tl_prof_t;
DROP TABLE temp.tl_prof_names;
