/*
** call_stacks.c: the `call_stacks` table.
**
** One row per thread and call stack: the innermost function, the stack's
** depth, its calls (finished, and still open at the end) and the total,
** shortest and longest of their durations, as llvm-xray stack
** -all-stacks sums them. The engine sums the rows of `calls` in C, in one
** pass, when the query opens (src/derive.c, src/model/stackstats.c), so a
** query reads a row per stack, not a row per call.
**
** Usage:
**     SELECT * FROM call_stacks('trace' [, 'options']);
**     CREATE VIRTUAL TABLE temp.t USING call_stacks(path='trace' [, key='value' ...]);
**
** Nothing is pushed down: every row needs the whole trace.
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include "tables.h"
#include "vtab_util.h"

static const TlTableDef call_stacksDef = {
  .zName    = "call_stacks",
  .iTable   = TL_TAB_CALL_STACKS,
  .zColumns = "tid INTEGER, func_id INTEGER, name TEXT, stack TEXT, depth INTEGER, calls INTEGER, open_calls INTEGER, total_dur INTEGER, min_dur INTEGER, max_dur INTEGER",
  .nCol     = TL_CK_NCOL,
  .iTsCol   = -1,
  .iCpuCol  = -1,
  .iKeyCol  = -1,
  .eRows    = TL_ROWS_FEW,
};

int call_stacks_vtab_register(sqlite3 *db){
  return tl_vtab_register(db, &call_stacksDef);
}
