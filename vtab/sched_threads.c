/*
** sched_threads.c: the `sched_threads` table.
**
** One row per thread with scheduling states, its waits for a CPU as perf
** sched latency counts them (perf sched latency -p's rows, one per thread
** before it merges threads of one name): switches, the total and longest
** wait and when the longest began, the sched_stat_runtime run time. The
** scheduling model sums them in its one pass (model_sched.h), so a query
** reads a row per thread, not a row per state.
**
** Usage:
**     SELECT * FROM sched_threads('trace' [, 'options']);
**     CREATE VIRTUAL TABLE temp.t USING sched_threads(path='trace' [, key='value' ...]);
**
** Nothing is pushed down: every row needs the whole trace. Rows come from
** the trace's reader through tl_query_next(); this file only describes the
** table.
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include "tables.h"
#include "vtab_util.h"

static const TlTableDef sched_threadsDef = {
  .zName    = "sched_threads",
  .iTable   = TL_TAB_SCHED_THREADS,
  .zColumns = "tid INTEGER, pid INTEGER, comm TEXT, switches INTEGER, delay INTEGER, max_delay INTEGER, max_delay_ts INTEGER, runtime INTEGER, slices INTEGER, run_time INTEGER, min_run INTEGER, max_run INTEGER, wait_time INTEGER",
  .nCol     = TL_ST_NCOL,
  .iTsCol   = -1,
  .iCpuCol  = -1,
  .iKeyCol  = -1,
  .eRows    = TL_ROWS_FEW,
};

int sched_threads_vtab_register(sqlite3 *db){
  return tl_vtab_register(db, &sched_threadsDef);
}
