/*
** syscall_stats.c: the `syscall_stats` table.
**
** One row per thread and kind of system call (a number, or a name): its
** calls, errors and times, summed from the thread's `syscalls` rows as
** perf trace -s and lttng-syscallstats sum them. The scheduling model sums
** them in the pass that pairs the calls (model_sched.h), so a query reads
** a row per thread and call, not a row per call.
**
** Usage:
**     SELECT * FROM syscall_stats('trace' [, 'options']);
**     CREATE VIRTUAL TABLE temp.t USING syscall_stats(path='trace' [, key='value' ...]);
**
** Nothing is pushed down: every row needs the whole trace. Rows come from
** the trace's reader through tl_query_next(); this file only describes the
** table.
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include "tables.h"
#include "vtab_util.h"

static const TlTableDef syscall_statsDef = {
  .zName    = "syscall_stats",
  .iTable   = TL_TAB_SYSCALL_STATS,
  .zColumns = "tid INTEGER, pid INTEGER, comm TEXT, nr INTEGER, name TEXT, events INTEGER, calls INTEGER, errors INTEGER, total_dur INTEGER, min_dur INTEGER, max_dur INTEGER, avg_dur REAL, stddev_dur REAL",
  .nCol     = TL_SX_NCOL,
  .iTsCol   = -1,
  .iCpuCol  = -1,
  .iKeyCol  = -1,
  .eRows    = TL_ROWS_FEW,
};

int syscall_stats_vtab_register(sqlite3 *db){
  return tl_vtab_register(db, &syscall_statsDef);
}
