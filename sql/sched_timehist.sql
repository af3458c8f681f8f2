-- sched_timehist.sql: one row per time a task left a CPU, as
-- `perf sched timehist` prints it.
--
-- Answers: when each task left a CPU, how long it had been off a CPU
-- before it ran (wait time), how long of that it had been woken and
-- waiting for the CPU (sch delay) and how long it ran (run time). From
-- the sched_slices table: one row per slice that ended, at its end. perf's
-- rules, kept by the model: run time is the time since the CPU's previous
-- switch (0 for a CPU's first switch); wait time is from the task's
-- previous switch-out (0 when none); sch delay from its first wakeup
-- (sched_wakeup, sched_wakeup_new or sched_waking) since then (0 when
-- none); times in msec cut to microseconds as perf prints them. The task
-- is `comm[tid]`, `comm[tid/pid]` for a thread of another process, and
-- `<idle>` for the idle task.
-- Works on perf.data with sched:sched_switch (`perf sched record`, `perf
-- record -e 'sched:*' -a`) and on LTTng kernel traces with sched_switch
-- and sched_waking / sched_wakeup.
--
-- Parameters:
--   @trace    the trace (perf.data file, CTF directory)
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'perf.data'
--   sqlite> .read sql/sched_timehist.sql
-- Columns: time (s.us), cpu, task, wait_ms, sch_delay_ms, run_ms, ts (ns),
--          tid
SELECT printf('%d.%06d', ts_end / 1000000000, ts_end / 1000 % 1000000) AS time,
       printf('[%04d]', cpu) AS cpu,
       CASE WHEN tid = 0 THEN '<idle>'
            WHEN pid IS NULL OR pid = tid THEN coalesce(comm, ':' || tid) || '[' || tid || ']'
            ELSE coalesce(comm, ':' || tid) || '[' || tid || '/' || pid || ']' END AS task,
       printf('%d.%03d', coalesce(wait_time, 0) / 1000000, coalesce(wait_time, 0) / 1000 % 1000) AS wait_ms,
       printf('%d.%03d', coalesce(sched_delay, 0) / 1000000, coalesce(sched_delay, 0) / 1000 % 1000) AS sch_delay_ms,
       printf('%d.%03d', coalesce(dur, 0) / 1000000, coalesce(dur, 0) / 1000 % 1000) AS run_ms,
       ts_end AS ts, tid
FROM sched_slices(@trace)
WHERE ts_end IS NOT NULL
ORDER BY ts_end, cpu;
