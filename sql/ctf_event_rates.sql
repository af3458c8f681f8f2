-- ctf_event_rates.sql: events per second, per event name and CPU.
--
-- Answers: how many events of each name each CPU recorded in each second
-- of a CTF trace (LTTng, barectf, ...): one row per (second, event, cpu),
-- the second being the whole seconds of the event's time as `babeltrace2
-- --clock-seconds` prints it ([seconds.ns]), the CPU the packet context's
-- cpu_id (NULL when the trace has none). Counting babeltrace2's output
-- lines by second, name and cpu_id gives the same numbers. Events without
-- a clock (NULL ts) have a NULL second.
--
-- Parameters:
--   @trace    the trace directory (or any directory above its metadata)
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'lttng-traces/my-session'
--   sqlite> .read sql/ctf_event_rates.sql
-- Columns: second, event, cpu, events
SELECT ts / 1000000000 AS second, name AS event, cpu, count(*) AS events
FROM events(@trace)
GROUP BY 1, 2, 3
ORDER BY 1, 2, 3;
