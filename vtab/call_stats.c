/*
** call_stats.c: the `call_stats` table.
**
** One row per function: its finished calls, the total, shortest, median,
** 90th and 99th percentile and longest of their durations, as llvm-xray
** account sums them. The engine sums the rows of `calls` in C, in one
** pass, when the query opens (src/derive.c, src/model/callstats.c), so a
** query reads a row per function, not a row per call.
**
** Usage:
**     SELECT * FROM call_stats('trace' [, 'options']);
**     CREATE VIRTUAL TABLE temp.t USING call_stats(path='trace' [, key='value' ...]);
**
** Nothing is pushed down: every row needs the whole trace.
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include "tables.h"
#include "vtab_util.h"

static const TlTableDef call_statsDef = {
  .zName    = "call_stats",
  .iTable   = TL_TAB_CALL_STATS,
  .zColumns = "func_id INTEGER, name TEXT, calls INTEGER, total_dur INTEGER, min_dur INTEGER, med_dur INTEGER, p90_dur INTEGER, p99_dur INTEGER, max_dur INTEGER",
  .nCol     = TL_CS_NCOL,
  .iTsCol   = -1,
  .iCpuCol  = -1,
  .iKeyCol  = -1,
  .eRows    = TL_ROWS_FEW,
};

int call_stats_vtab_register(sqlite3 *db){
  return tl_vtab_register(db, &call_statsDef);
}
