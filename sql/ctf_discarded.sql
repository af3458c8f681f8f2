-- ctf_discarded.sql: events the tracer discarded, and packets it lost.
--
-- Answers: for each stream, each stretch of time in which the tracer
-- discarded events (its ring buffer was full) or lost packets (a gap in
-- packet_seq_num), as the warnings `babeltrace2 --clock-seconds` prints:
-- "Tracer discarded N events between [from] and [to] ... within stream
-- ...". The stretch runs from the end of the stream's previous packet (or
-- the packet's beginning for the first) to the end of the packet that
-- counts them. stream_discarded is the stream's total. No rows: nothing
-- was discarded or lost.
--
-- Parameters:
--   @trace    the trace directory
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'lttng-traces/my-session'
--   sqlite> .read sql/ctf_discarded.sql
-- Columns: stream (file), stream_class_id, stream_id, cpu, discarded,
--          lost_packets, from_ts, to_ts, stream_discarded
WITH p AS (
  SELECT p.id, p.stream, p.cpu, p.discarded, p.ts_begin, p.ts_end, p.seq,
         lag(p.ts_end) OVER w AS prev_end, lag(p.seq) OVER w AS prev_seq
  FROM packets(@trace) p
  WINDOW w AS (PARTITION BY p.stream ORDER BY p.offset)
)
SELECT t.name AS stream, t.args ->> '$.stream_class_id' AS stream_class_id,
       t.args ->> '$.stream_instance_id' AS stream_id, p.cpu,
       coalesce(p.discarded, 0) AS discarded,
       coalesce(p.seq - p.prev_seq - 1, 0) AS lost_packets,
       coalesce(p.prev_end, p.ts_begin) AS from_ts, p.ts_end AS to_ts,
       sum(coalesce(p.discarded, 0)) OVER (PARTITION BY p.stream) AS stream_discarded
FROM p JOIN tracks(@trace) t ON t.id = p.stream
WHERE p.discarded > 0 OR p.seq - p.prev_seq > 1
ORDER BY t.name, p.ts_end;
