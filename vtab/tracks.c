/*
** tracks.c: the `tracks` table.
**
** One row per thread (perf, XRay), stream (CTF) or track (CPEL); events.track
** joins tracks.id.
**
** Usage:
**     SELECT * FROM tracks('trace' [, 'options']);
**     CREATE VIRTUAL TABLE temp.t USING tracks(path='trace' [, key='value' ...]);
**
** HIDDEN columns: path (the trace file or directory), options (key=value
** pairs, see README.md). Rows come from the trace's reader through
** tl_query_next(); this file only describes the table.
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include "tables.h"
#include "vtab_util.h"

static const TlTableDef tracksDef = {
  .zName    = "tracks",
  .iTable   = TL_TAB_TRACKS,
  .zColumns = "id INTEGER, kind TEXT, name TEXT, pid INTEGER, tid INTEGER, cpu INTEGER, first_ts INTEGER, last_ts INTEGER, events INTEGER, args TEXT",
  .nCol     = TL_TR_NCOL,
  .iTsCol   = -1,
  .iCpuCol  = -1,
  .iKeyCol  = -1,
};

int tracks_vtab_register(sqlite3 *db){
  return tl_vtab_register(db, &tracksDef);
}
