/*
** trace_warnings.c: the `trace_warnings` table.
**
** What the reader skipped or found cut short while reading the trace. An
** empty result means the trace was read completely.
**
** Usage:
**     SELECT * FROM trace_warnings('trace' [, 'options']);
**     CREATE VIRTUAL TABLE temp.t USING trace_warnings(path='trace' [, key='value' ...]);
**
** HIDDEN columns: path (the trace file or directory), options (key=value
** pairs, see README.md). Rows come from the trace's reader through
** tl_query_next(); this file only describes the table.
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include "tables.h"
#include "vtab_util.h"

static const TlTableDef trace_warningsDef = {
  .zName    = "trace_warnings",
  .iTable   = TL_TAB_WARNINGS,
  .eRows    = TL_ROWS_FEW,
  .zColumns = "id INTEGER, file TEXT, offset INTEGER, message TEXT",
  .nCol     = TL_TW_NCOL,
  .iTsCol   = -1,
  .iCpuCol  = -1,
  .iKeyCol  = -1,
};

int trace_warnings_vtab_register(sqlite3 *db){
  return tl_vtab_register(db, &trace_warningsDef);
}
