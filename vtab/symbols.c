/*
** symbols.c: the `symbols` table.
**
** One row per symbol the trace knows: the CPEL symbol table, ELF symbols of
** perf-mapped files and kallsyms, XRay instrumented functions.
**
** Usage:
**     SELECT * FROM symbols('trace' [, 'options']);
**     CREATE VIRTUAL TABLE temp.t USING symbols(path='trace' [, key='value' ...]);
**
** HIDDEN columns: path (the trace file or directory), options (key=value
** pairs, see README.md). Rows come from the trace's reader through
** tl_query_next(); this file only describes the table.
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include "tables.h"
#include "vtab_util.h"

static const TlTableDef symbolsDef = {
  .zName    = "symbols",
  .iTable   = TL_TAB_SYMBOLS,
  .zColumns = "id INTEGER, addr INTEGER, size INTEGER, name TEXT, module TEXT, kind TEXT, args TEXT",
  .nCol     = TL_SY_NCOL,
  .iTsCol   = -1,
  .iCpuCol  = -1,
  .iKeyCol  = -1,
};

int symbols_vtab_register(sqlite3 *db){
  return tl_vtab_register(db, &symbolsDef);
}
