-- perf_sched_timehist.sql: the sched_switch timeline, one row per switch.
--
-- Answers: when each task left a CPU, how long it had waited before it ran,
-- how long it waited after being woken (scheduling delay) and how long it
-- ran, as `perf sched timehist` prints it (time, cpu, task, wait time, sch
-- delay, run time). perf's rules, kept here: run time is the time since the
-- previous switch on the same CPU (0 for a CPU's first switch); wait time
-- is the time from the task's previous switch-out to that previous switch
-- on this CPU (0 when there is none, or when it would be negative); sch
-- delay is the time from the task's first wakeup (sched_wakeup,
-- sched_wakeup_new or sched_waking naming it) after its previous
-- switch-out to that previous switch on this CPU (0 without such a wakeup,
-- or when the wakeup came later); times in msec cut to microseconds as
-- perf prints them. The idle task is `<idle>`, per CPU. A task's name is
-- its thread's name at the time, as perf keeps it: the latest COMM record
-- of the thread (perf names the threads running when it started from
-- /proc, so a kworker shows its work queue, `kworker/1:1-vir`), else the
-- prev_comm of the switch.
-- Needs a trace with sched:sched_switch (`perf record -e sched:sched_switch
-- -e sched:sched_wakeup -a`; without wakeups sch delay is 0, as in perf).
--
-- Parameters:
--   @trace    the perf.data file
-- Example:
--   sqlite> .load ./tracelite
--   sqlite> .parameter set @trace 'perf.data'
--   sqlite> .read sql/perf_sched_timehist.sql
-- Columns: time (s.us), cpu, task (comm[tid]), wait_ms, sch_delay_ms,
--          run_ms, ts (ns), tid
WITH comm AS MATERIALIZED (
  SELECT track, ts, args ->> '$.comm' AS comm
  FROM events(@trace) WHERE type = 'COMM'
), ev AS (
  SELECT rowid, ts, cpu, track, name = 'sched:sched_switch' AS sw,
         CASE WHEN name = 'sched:sched_switch' THEN args ->> '$.prev_pid'
              ELSE args ->> '$.pid' END AS tid,
         args ->> '$.prev_comm' AS comm
  FROM events(@trace)
  WHERE type = 'SAMPLE' AND name IN ('sched:sched_switch', 'sched:sched_wakeup',
                                     'sched:sched_wakeup_new', 'sched:sched_waking')
), g AS (
  -- grp: the task's switch-outs before the row; a switch-out and the
  -- wakeups since the one before it share a grp
  SELECT *, coalesce(sum(sw) OVER (PARTITION BY tid, CASE WHEN tid = 0 THEN cpu END
                                   ORDER BY ts, rowid
                                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS grp
  FROM ev
), r AS (
  SELECT *, min(CASE WHEN NOT sw THEN ts END)
              OVER (PARTITION BY tid, CASE WHEN tid = 0 THEN cpu END, grp) AS ready
  FROM g
), t AS (
  SELECT rowid, ts, cpu, tid, ready,
         coalesce((SELECT c.comm FROM comm c WHERE c.track = r.track AND c.ts <= r.ts
                   ORDER BY c.ts DESC LIMIT 1), comm) AS comm,
         lag(ts) OVER (PARTITION BY cpu ORDER BY ts, rowid) AS tprev,
         lag(ts) OVER (PARTITION BY tid, CASE WHEN tid = 0 THEN cpu END ORDER BY ts, rowid) AS tlast
  FROM r WHERE sw
), d AS (
  SELECT *, CASE WHEN tlast <= tprev THEN tprev - tlast ELSE 0 END AS wait,
         CASE WHEN ready <= tprev THEN tprev - ready ELSE 0 END AS delay,
         coalesce(ts - tprev, 0) AS run
  FROM t
)
SELECT printf('%d.%06d', ts / 1000000000, ts / 1000 % 1000000) AS time,
       printf('[%04d]', cpu) AS cpu,
       CASE WHEN tid = 0 THEN '<idle>' ELSE comm || '[' || tid || ']' END AS task,
       printf('%d.%03d', wait / 1000000, wait / 1000 % 1000) AS wait_ms,
       printf('%d.%03d', delay / 1000000, delay / 1000 % 1000) AS sch_delay_ms,
       printf('%d.%03d', run / 1000000, run / 1000 % 1000) AS run_ms,
       ts, tid
FROM d ORDER BY ts, rowid;
