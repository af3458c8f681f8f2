/*
** xray_calls.c: the `xray_calls` table.
**
** One row per XRay function call: an entry matched with its exit. `stack`
** is the call's path of function names, outermost first, joined by ';'
** (as llvm-xray stack -stack-format=flame names it), made only when used.
**
** Usage:
**     SELECT * FROM xray_calls('trace' [, 'options']);
**     CREATE VIRTUAL TABLE temp.t USING xray_calls(path='trace' [, key='value' ...]);
**
** HIDDEN columns: path (the trace file or directory), options (key=value
** pairs, see README.md). Rows come from the trace's reader through
** tl_query_next(); this file only describes the table.
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include "tables.h"
#include "vtab_util.h"

static const TlTableDef xray_callsDef = {
  .zName    = "xray_calls",
  .iTable   = TL_TAB_XRAY_CALLS,
  .eRows    = TL_ROWS_RECORDS,
  .zColumns = "id INTEGER, tid INTEGER, pid INTEGER, cpu INTEGER, func_id INTEGER, name TEXT, ts INTEGER, dur INTEGER, depth INTEGER, parent INTEGER, stack TEXT",
  .nCol     = TL_XC_NCOL,
  .iTsCol   = TL_XC_TS,
  .iCpuCol  = TL_XC_CPU,
  .iKeyCol  = -1,
  /* (GROUP BY func_id with dur: the engine keeps the durs by function,
  ** tl_group_set_vary) */
  .mPerRow  = ((uint64_t)1<<TL_XC_ID) | ((uint64_t)1<<TL_XC_TS) | ((uint64_t)1<<TL_XC_DUR)
            | ((uint64_t)1<<TL_XC_PARENT),
};

int xray_calls_vtab_register(sqlite3 *db){
  return tl_vtab_register(db, &xray_callsDef);
}
