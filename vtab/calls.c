/*
** calls.c: the `calls` table.
**
** One row per function call of any format whose records the model can
** pair into calls (readers/model_calls.h), with the columns of xray_calls:
** XRay function records (the rows of xray_calls), LTTng-UST cyg-profile
** func_entry/func_exit per thread, kernel syscall entry/exit per thread
** (or CPU). Calls still open at the end have no dur.
**
** Usage:
**     SELECT * FROM calls('trace' [, 'options']);
**     CREATE VIRTUAL TABLE temp.t USING calls(path='trace' [, key='value' ...]);
**
** HIDDEN columns: path (the trace file or directory), options (key=value
** pairs, see README.md). Rows come from the trace's reader through
** tl_query_next(); this file only describes the table.
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include "tables.h"
#include "vtab_util.h"

static const TlTableDef callsDef = {
  .zName    = "calls",
  .iTable   = TL_TAB_CALLS,
  .eRows    = TL_ROWS_RECORDS,
  .zColumns = "id INTEGER, tid INTEGER, pid INTEGER, cpu INTEGER, func_id INTEGER, name TEXT, ts INTEGER, dur INTEGER, depth INTEGER, parent INTEGER, stack TEXT",
  .nCol     = TL_XC_NCOL,
  .iTsCol   = TL_XC_TS,
  .iCpuCol  = TL_XC_CPU,
  .iKeyCol  = -1,
  /* (about one value per row: a GROUP BY keeps them varying, tl_group_set_vary) */
  .mPerRow  = ((uint64_t)1<<TL_XC_ID) | ((uint64_t)1<<TL_XC_DUR)
            | ((uint64_t)1<<TL_XC_PARENT),
};

int calls_vtab_register(sqlite3 *db){
  return tl_vtab_register(db, &callsDef);
}
