/*
** sched_slices.c: the `sched_slices` table.
**
** One row per period a thread ran on a CPU, from the trace's scheduler
** events (perf sched_switch tracepoints, LTTng kernel sched_switch), as
** Perfetto's sched_slice; wait_time and sched_delay as perf sched timehist.
**
** Usage:
**     SELECT * FROM sched_slices('trace' [, 'options']);
**     CREATE VIRTUAL TABLE temp.t USING sched_slices(path='trace' [, key='value' ...]);
**
** ts = / BETWEEN and cpu = / IN are pushed down: the reader reads from the
** trace's start (a state needs what came before) and stops once every row
** starting in the window has ended. Rows come from the trace's reader
** through tl_query_next(); this file only describes the table.
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include "tables.h"
#include "vtab_util.h"

static const TlTableDef sched_slicesDef = {
  .zName    = "sched_slices",
  .iTable   = TL_TAB_SCHED_SLICES,
  .zColumns = "ts INTEGER, dur INTEGER, cpu INTEGER, tid INTEGER, pid INTEGER, comm TEXT, prio INTEGER, end_state TEXT, ts_end INTEGER, wait_time INTEGER, sched_delay INTEGER, runtime INTEGER",
  .nCol     = TL_SS_NCOL,
  .iTsCol   = TL_SS_TS,
  .iCpuCol  = TL_SS_CPU,
  .iKeyCol  = -1,
  /* (about one value per row: a GROUP BY keeps them varying, tl_group_set_vary) */
  .mPerRow  = ((uint64_t)1<<TL_SS_DUR) | ((uint64_t)1<<TL_SS_TS_END)
            | ((uint64_t)1<<TL_SS_WAIT_TIME) | ((uint64_t)1<<TL_SS_SCHED_DELAY)
            | ((uint64_t)1<<TL_SS_RUNTIME),
};

int sched_slices_vtab_register(sqlite3 *db){
  return tl_vtab_register(db, &sched_slicesDef);
}
