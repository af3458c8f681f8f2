/*
** xray_functions.c: the `xray_functions` table.
**
** One row per function of an XRay instrumentation map (option binary=).
**
** Usage:
**     SELECT * FROM xray_functions('trace' [, 'options']);
**     CREATE VIRTUAL TABLE temp.t USING xray_functions(path='trace' [, key='value' ...]);
**
** HIDDEN columns: path (the trace file or directory), options (key=value
** pairs, see README.md). Rows come from the trace's reader through
** tl_query_next(); this file only describes the table.
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include "tables.h"
#include "vtab_util.h"

static const TlTableDef xray_functionsDef = {
  .zName    = "xray_functions",
  .iTable   = TL_TAB_XRAY_FUNCTIONS,
  .zColumns = "func_id INTEGER, address INTEGER, name TEXT, kinds TEXT, always_instrument INTEGER, sleds INTEGER",
  .nCol     = TL_XF_NCOL,
  .iTsCol   = -1,
  .iCpuCol  = -1,
  .iKeyCol  = -1,
};

int xray_functions_vtab_register(sqlite3 *db){
  return tl_vtab_register(db, &xray_functionsDef);
}
