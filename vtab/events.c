/*
** events.c: the `events` table.
**
** One row per event or record of any format. ts is nanoseconds (README.md,
** Timestamps); ts windows, cpu = / IN, rowid = and ORDER BY ts are pushed
** down to the reader's packet index.
**
** Usage:
**     SELECT * FROM events('trace' [, 'options']);
**     CREATE VIRTUAL TABLE temp.t USING events(path='trace' [, key='value' ...]);
**
** type = 'X' (binary collation) is pushed down too: readers may skip the
** records of other types without decoding them.
**
** HIDDEN columns: path (the trace file or directory), options (key=value
** pairs, see README.md). Rows come from the trace's reader through
** tl_query_next(); this file only describes the table.
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include "tables.h"
#include "vtab_util.h"

static const TlTableDef eventsDef = {
  .zName    = "events",
  .iTable   = TL_TAB_EVENTS,
  .eRows    = TL_ROWS_RECORDS,
  .zColumns = "ts INTEGER, ts_raw INTEGER, cpu INTEGER, pid INTEGER, tid INTEGER, track INTEGER, type TEXT, name TEXT, value INTEGER, ip INTEGER, text TEXT, args TEXT, callchain TEXT, comm TEXT, symbol TEXT, dso TEXT, symoff INTEGER, stack TEXT, dso_offset INTEGER, srcline TEXT",
  .nCol     = TL_EV_NCOL,
  .iTsCol   = TL_EV_TS,
  .iCpuCol  = TL_EV_CPU,
  .iKeyCol  = -1,
  .iTypeCol = TL_EV_TYPE,
  .mPerRow  = ((uint64_t)1<<TL_EV_TS) | ((uint64_t)1<<TL_EV_TS_RAW) | ((uint64_t)1<<TL_EV_TEXT)
            | ((uint64_t)1<<TL_EV_ARGS) | ((uint64_t)1<<TL_EV_CALLCHAIN) | ((uint64_t)1<<TL_EV_STACK),
};

int events_vtab_register(sqlite3 *db){
  return tl_vtab_register(db, &eventsDef);
}
