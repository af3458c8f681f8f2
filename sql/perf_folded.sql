-- perf_folded.sql: folded stacks of perf samples, for flame graphs.
--
-- Answers: one line per distinct stack, `comm;outermost;...;innermost N`,
-- the input flamegraph.pl and speedscope take: what `perf script |
-- stackcollapse-perf.pl` (FlameGraph) prints. Its rules, kept here: the
-- command name at the sample's time (spaces made `_`), then the frames'
-- symbols from the outermost in; in a symbol `;` becomes `:`, `"` and `'`
-- go, and everything from the first `(` goes (unless it opens
-- `(anonymous namespace)` or the name looks like a Go method,
-- `pkg.(*T).M`); an unnamed frame of a known file is `[file]`, else
-- `[unknown]`; a file whose name holds " (" (`/memfd:x (deleted)`) makes
-- the script keep the symbol with a space after it. N is the sum of the
-- samples' periods. Only the samples of one event are folded, by default
-- the first sample's (the script's default), and only samples with a
-- callchain. Lines sorted as the script sorts them (byte order).
--
-- Parameters:
--   @trace    the perf.data file (recorded with -g or --call-graph)
--   @options  optional tracelite options for symbol lookup (symfs=, kallsyms=)
--   @event    optional: the event to fold (default: the first sample's)
--   @value    optional: 'period' (default) or 'samples' (count samples)
-- Example, to an SVG:
--   sqlite3 -batch -separator ' ' \
--     -cmd '.load ./tracelite' -cmd ".parameter set @trace 'perf.data'" \
--     :memory: '.read sql/perf_folded.sql' | flamegraph.pl > perf.svg
-- Columns: stack, value
WITH
comm AS MATERIALIZED (
  SELECT track, ts, args ->> '$.comm' AS comm
  FROM events(@trace) WHERE type = 'COMM'
),
fork AS MATERIALIZED (
  SELECT ts, args ->> '$.tid' AS tid, args ->> '$.ptid' AS ptid
  FROM events(@trace) WHERE type = 'FORK'
),
s AS (
  SELECT e.rowid AS id, coalesce(e.value, 1) AS period,
         replace(coalesce(
           (SELECT c.comm FROM comm c WHERE c.track = e.track AND c.ts <= e.ts
            ORDER BY c.ts DESC LIMIT 1),
           (SELECT c.comm FROM fork f JOIN comm c ON c.track = f.ptid AND c.ts <= f.ts
            WHERE f.tid = e.tid AND f.ts <= e.ts ORDER BY f.ts DESC, c.ts DESC LIMIT 1),
           CASE WHEN e.tid = 0 THEN 'swapper' ELSE ':' || e.tid END), ' ', '_') AS comm
  FROM events(@trace) e
  WHERE e.type = 'SAMPLE'
    AND e.name = coalesce(@event, (SELECT name FROM events(@trace) WHERE type = 'SAMPLE' ORDER BY ts LIMIT 1))
),
f AS (
  SELECT event, depth,
         replace(replace(replace(replace(
           CASE WHEN instr(sym, '(') > 0 AND NOT sym GLOB '*.(*).*'
                THEN substr(sym, 1, instr(sym, '(') - 1) ELSE sym END,
           char(1), '(anonymous namespace)'), ';', ':'), '"', ''), '''', '') AS fn
  FROM (SELECT event, depth,
               CASE WHEN instr(dso, ' (') > 0 THEN symbol || ' ('
                    WHEN symbol = '[unknown]' AND dso != '[unknown]'
                    THEN '[' || replace(dso, rtrim(dso, replace(dso, '/', '')), '') || ']'
                    ELSE replace(symbol, '(anonymous namespace)', char(1)) END AS sym
        FROM callchains(@trace, @options))
),
chain AS (
  SELECT event, depth,
         group_concat(fn, ';') OVER (PARTITION BY event ORDER BY depth DESC
                                     ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS frames
  FROM f
)
SELECT s.comm || ';' || chain.frames AS stack,
       CASE coalesce(@value, 'period') WHEN 'samples' THEN count(*) ELSE sum(s.period) END AS value
FROM s JOIN chain ON chain.event = s.id AND chain.depth = 0
GROUP BY 1
ORDER BY CAST(stack AS BLOB);
