/*
** thread_states.c: the `thread_states` table.
**
** One row per interval of a thread's scheduling state (Running, Runnable,
** Sleeping, ...), from the trace's scheduler events, as Perfetto's
** thread_state.
**
** Usage:
**     SELECT * FROM thread_states('trace' [, 'options']);
**     CREATE VIRTUAL TABLE temp.t USING thread_states(path='trace' [, key='value' ...]);
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

static const TlTableDef thread_statesDef = {
  .zName    = "thread_states",
  .iTable   = TL_TAB_THREAD_STATES,
  .zColumns = "ts INTEGER, dur INTEGER, tid INTEGER, pid INTEGER, comm TEXT, state TEXT, cpu INTEGER, waker_tid INTEGER, io_wait INTEGER, ts_end INTEGER, wakeup TEXT, runtime INTEGER",
  .nCol     = TL_TS_NCOL,
  .iTsCol   = TL_TS_TS,
  .iCpuCol  = TL_TS_CPU,
  .iKeyCol  = -1,
  /* (about one value per row: a GROUP BY keeps them varying, tl_group_set_vary) */
  .mPerRow  = ((uint64_t)1<<TL_TS_DUR) | ((uint64_t)1<<TL_TS_TS_END)
            | ((uint64_t)1<<TL_TS_RUNTIME),
};

int thread_states_vtab_register(sqlite3 *db){
  return tl_vtab_register(db, &thread_statesDef);
}
