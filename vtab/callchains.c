/*
** callchains.c: the `callchains` table.
**
** One row per frame of a perf sample's callchain; event is the sample's
** rowid in events. event =, ts windows and cpu are pushed down.
**
** Usage:
**     SELECT * FROM callchains('trace' [, 'options']);
**     CREATE VIRTUAL TABLE temp.t USING callchains(path='trace' [, key='value' ...]);
**
** HIDDEN columns: path (the trace file or directory), options (key=value
** pairs, see README.md). Rows come from the trace's reader through
** tl_query_next(); this file only describes the table.
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include "tables.h"
#include "vtab_util.h"

static const TlTableDef callchainsDef = {
  .zName    = "callchains",
  .iTable   = TL_TAB_CALLCHAINS,
  .eRows    = TL_ROWS_RECORDS,
  .zColumns = "event INTEGER, ts INTEGER, cpu INTEGER, depth INTEGER, ip INTEGER, context TEXT, symbol TEXT, dso TEXT, srcline TEXT, inlined INTEGER",
  .nCol     = TL_CC_NCOL,
  .iTsCol   = TL_CC_TS,
  .iCpuCol  = TL_CC_CPU,
  .iKeyCol  = TL_CC_EVENT,
  .iDepthCol = TL_CC_DEPTH,
  .mPerRow  = ((uint64_t)1<<TL_CC_EVENT) | ((uint64_t)1<<TL_CC_TS),
};

int callchains_vtab_register(sqlite3 *db){
  return tl_vtab_register(db, &callchainsDef);
}
