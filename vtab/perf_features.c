/*
** perf_features.c: the `perf_features` table.
**
** One row per perf.data feature section present (perf report --header-only).
**
** Usage:
**     SELECT * FROM perf_features('trace' [, 'options']);
**     CREATE VIRTUAL TABLE temp.t USING perf_features(path='trace' [, key='value' ...]);
**
** HIDDEN columns: path (the trace file or directory), options (key=value
** pairs, see README.md). Rows come from the trace's reader through
** tl_query_next(); this file only describes the table.
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include "tables.h"
#include "vtab_util.h"

static const TlTableDef perf_featuresDef = {
  .zName    = "perf_features",
  .iTable   = TL_TAB_PERF_FEATURES,
  .zColumns = "id INTEGER, name TEXT, size INTEGER, value TEXT",
  .nCol     = TL_PF_NCOL,
  .iTsCol   = -1,
  .iCpuCol  = -1,
  .iKeyCol  = -1,
};

int perf_features_vtab_register(sqlite3 *db){
  return tl_vtab_register(db, &perf_featuresDef);
}
