/*
** syscalls.c: the `syscalls` table.
**
** One row per system call of a thread, from its entry to its exit, from
** the trace's system call events (perf's raw_syscalls, LTTng's
** syscall_entry_X / syscall_exit_X), paired as perf trace -s pairs them.
**
** Usage:
**     SELECT * FROM syscalls('trace' [, 'options']);
**     CREATE VIRTUAL TABLE temp.t USING syscalls(path='trace' [, key='value' ...]);
**
** ts = / BETWEEN and cpu = / IN are pushed down: the reader reads from the
** trace's start (a call's thread needs what came before) and stops once
** every call entered in the window has ended. Rows come from the trace's
** reader through tl_query_next(); this file only describes the table.
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include "tables.h"
#include "vtab_util.h"

static const TlTableDef syscallsDef = {
  .zName    = "syscalls",
  .iTable   = TL_TAB_SYSCALLS,
  .zColumns = "ts INTEGER, dur INTEGER, tid INTEGER, pid INTEGER, comm TEXT, cpu INTEGER, nr INTEGER, name TEXT, ret INTEGER, ts_end INTEGER",
  .nCol     = TL_SC_NCOL,
  .iTsCol   = TL_SC_TS,
  .iCpuCol  = TL_SC_CPU,
  .iKeyCol  = -1,
  /* (about one value per row: a GROUP BY keeps them varying, tl_group_set_vary) */
  .mPerRow  = ((uint64_t)1<<TL_SC_DUR) | ((uint64_t)1<<TL_SC_TS_END),
};

int syscalls_vtab_register(sqlite3 *db){
  return tl_vtab_register(db, &syscallsDef);
}
