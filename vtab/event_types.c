/*
** event_types.c: the `event_types` table.
**
** One row per event class: CPEL event definitions, CTF event classes, perf
** attributes, XRay record kinds.
**
** Usage:
**     SELECT * FROM event_types('trace' [, 'options']);
**     CREATE VIRTUAL TABLE temp.t USING event_types(path='trace' [, key='value' ...]);
**
** HIDDEN columns: path (the trace file or directory), options (key=value
** pairs, see README.md). Rows come from the trace's reader through
** tl_query_next(); this file only describes the table.
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include "tables.h"
#include "vtab_util.h"

static const TlTableDef event_typesDef = {
  .zName    = "event_types",
  .iTable   = TL_TAB_EVENT_TYPES,
  .zColumns = "id INTEGER, name TEXT, stream INTEGER, kind TEXT, format TEXT, args TEXT",
  .nCol     = TL_ET_NCOL,
  .iTsCol   = -1,
  .iCpuCol  = -1,
  .iKeyCol  = -1,
};

int event_types_vtab_register(sqlite3 *db){
  return tl_vtab_register(db, &event_typesDef);
}
