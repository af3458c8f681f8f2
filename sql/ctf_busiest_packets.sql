-- ctf_busiest_packets.sql: the packets that hold the most events.
--
-- Answers: which packets of a CTF trace are the fullest, with their
-- stream, CPU, time range and size, busiest first (@limit rows, default
-- 20): where a trace was busiest, and which packets a time-window query
-- will have to decode. The event count per packet is what babeltrace2's
-- sink.text.details shows between a packet's beginning and end messages.
-- Counting decodes every event of the trace once.
--
-- Parameters:
--   @trace    the trace directory
--   @limit    optional: how many packets (default 20)
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'lttng-traces/my-session'
--   sqlite> .read sql/ctf_busiest_packets.sql
-- Columns: packet, stream (file), stream_class_id, stream_id, cpu, events,
--          ts_begin, ts_end, size, events_per_ms
WITH n AS (
  SELECT rowid >> 28 AS packet, count(*) AS events FROM events(@trace) GROUP BY 1
)
SELECT p.id AS packet, t.name AS stream, t.args ->> '$.stream_class_id' AS stream_class_id,
       t.args ->> '$.stream_instance_id' AS stream_id, p.cpu, n.events,
       p.ts_begin, p.ts_end, p.size,
       CASE WHEN p.ts_end > p.ts_begin THEN printf('%.1f', n.events * 1e6 / (p.ts_end - p.ts_begin)) END AS events_per_ms
FROM n JOIN packets(@trace) p ON p.id = n.packet JOIN tracks(@trace) t ON t.id = p.stream
ORDER BY n.events DESC, p.id
LIMIT coalesce(@limit, 20);
