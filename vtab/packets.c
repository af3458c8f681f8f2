/*
** packets.c: the `packets` table.
**
** One row per entry of the packet index the pushdown uses: CTF packets,
** perf chunks, XRay buffers, CPEL event sections.
**
** Usage:
**     SELECT * FROM packets('trace' [, 'options']);
**     CREATE VIRTUAL TABLE temp.t USING packets(path='trace' [, key='value' ...]);
**
** HIDDEN columns: path (the trace file or directory), options (key=value
** pairs, see README.md). Rows come from the trace's reader through
** tl_query_next(); this file only describes the table.
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include "tables.h"
#include "vtab_util.h"

static const TlTableDef packetsDef = {
  .zName    = "packets",
  .iTable   = TL_TAB_PACKETS,
  .eRows    = TL_ROWS_PACKETS,
  .zColumns = "id INTEGER, stream INTEGER, cpu INTEGER, file TEXT, offset INTEGER, size INTEGER, content_size INTEGER, ts_begin INTEGER, ts_end INTEGER, events INTEGER, discarded INTEGER, seq INTEGER, args TEXT",
  .nCol     = TL_PK_NCOL,
  .iTsCol   = -1,
  .iCpuCol  = -1,
  .iKeyCol  = -1,
};

int packets_vtab_register(sqlite3 *db){
  return tl_vtab_register(db, &packetsDef);
}
