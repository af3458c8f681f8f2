-- perf_report_comm.sql: samples by command name.
--
-- Answers: which commands the samples of each event belong to, with their
-- sample count, period and share of the event's period, as
--   perf report --no-children -g none --sort comm -n --stdio
-- prints them. A sample's command is its thread's name at the sample's
-- time: the latest COMM record of the thread at or before it, else the name
-- its parent had when it forked it (perf's rule), else `swapper` for
-- thread 0 and `:tid` for a thread never named (as perf prints it).
-- Works without callchains.
--
-- Parameters:
--   @trace    the perf.data file
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'perf.data'
--   sqlite> .read sql/perf_report_comm.sql
-- Columns: event, samples, period, overhead, comm
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
  SELECT e.name AS event, e.value AS period,
         coalesce(
           (SELECT c.comm FROM comm c WHERE c.track = e.track AND c.ts <= e.ts
            ORDER BY c.ts DESC LIMIT 1),
           (SELECT c.comm FROM fork f JOIN comm c ON c.track = f.ptid AND c.ts <= f.ts
            WHERE f.tid = e.tid AND f.ts <= e.ts ORDER BY f.ts DESC, c.ts DESC LIMIT 1),
           CASE WHEN e.tid = 0 THEN 'swapper' ELSE ':' || e.tid END) AS comm
  FROM events(@trace) e WHERE e.type = 'SAMPLE'
)
SELECT event, count(*) AS samples, sum(period) AS period,
       printf('%.2f%%', 100.0 * sum(period) / sum(sum(period)) OVER (PARTITION BY event)) AS overhead,
       comm
FROM s GROUP BY event, comm
ORDER BY event, sum(period) DESC, comm;
