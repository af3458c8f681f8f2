/*
** trace_info.c: the `trace_info` table.
**
** One row per (key, value) of what a trace says about itself: CTF's env
** block and clock classes, perf.data's header features, the XRay log
** header, the CPEL file header. Keys with one meaning across formats are
** shared (hostname, os_release, arch, tracer, tracer_version, cmdline,
** clock, clock_freq, ...); docs/tables.md lists them per format.
**
** Usage:
**     SELECT key, value FROM trace_info('trace' [, 'options']);
**     CREATE VIRTUAL TABLE temp.t USING trace_info(path='trace' [, key='value' ...]);
**
** HIDDEN columns: path (the trace file or directory), options (key=value
** pairs, see README.md). Rows come from the reader's xInfo through
** tl_query_next(); this file only describes the table.
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include "tables.h"
#include "vtab_util.h"

static const TlTableDef trace_infoDef = {
  .zName    = "trace_info",
  .iTable   = TL_TAB_TRACE_INFO,
  .eRows    = TL_ROWS_FEW,
  .zColumns = "id INTEGER, trace TEXT, key TEXT, value, source TEXT",
  .nCol     = TL_TI_NCOL,
  .iTsCol   = -1,
  .iCpuCol  = -1,
  .iKeyCol  = -1,
};

int trace_info_vtab_register(sqlite3 *db){
  return tl_vtab_register(db, &trace_infoDef);
}
