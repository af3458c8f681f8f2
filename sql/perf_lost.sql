-- perf_lost.sql: what the recording lost.
--
-- Answers: how many samples the kernel could not write (LOST records: the
-- ring buffer was full) and how many perf dropped (LOST_SAMPLES), per
-- event and CPU, with the time of the first and last loss. The totals are
-- what `perf report --stats` counts (LOST events; LOST_SAMPLES per event)
-- and the header of `perf report` calls "Total Lost Samples"; `perf script
-- --show-lost-events` prints each LOST record. No rows: nothing was lost.
-- Only the parts of the file that hold such records are read (the index
-- knows each chunk's record types).
--
-- Parameters:
--   @trace    the perf.data file
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'perf.data'
--   sqlite> .read sql/perf_lost.sql
-- Columns: type (LOST or LOST_SAMPLES), event, cpu, records, lost, first_ts, last_ts
WITH ids AS (
  SELECT j.value AS id, t.name AS event
  FROM event_types(@trace) t, json_each(t.args -> '$.ids') j
  WHERE t.kind = 'attr'
)
SELECT e.type, ids.event, e.cpu, count(*) AS records,
       sum(e.args ->> '$.lost') AS lost,
       min(e.ts) AS first_ts, max(e.ts) AS last_ts
FROM events(@trace) e LEFT JOIN ids ON ids.id = e.args ->> '$.id'
WHERE e.type IN ('LOST', 'LOST_SAMPLES')
GROUP BY e.type, ids.event, e.cpu
ORDER BY e.type, ids.event, e.cpu;
