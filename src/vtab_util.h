/*
** vtab_util.h: the machinery every tracelite virtual table shares.
**
** A table is described by a TlTableDef (its name, catalog id, schema and
** which columns take pushdown); tl_vtab_register() creates a module that is
** both an eponymous table-valued function, events('trace', 'options'), and
** a CREATE VIRTUAL TABLE module, events(path='trace', binary='app'). The
** module knows nothing about formats: rows come from tl_query_next().
*/
#ifndef TL_VTAB_UTIL_H
#define TL_VTAB_UTIL_H

#include <stdint.h>

#include "sqlite3ext.h"

/* TlTableDef.eRows */
#define TL_ROWS_DERIVED 0         /* facts derived from records: a hundredth of them */
#define TL_ROWS_RECORDS 1         /* about one per record (events, calls, frames) */
#define TL_ROWS_PACKETS 2         /* one per packet of the index */
#define TL_ROWS_FEW     3         /* a few (warnings, trace_info) */

typedef struct TlTableDef TlTableDef;
struct TlTableDef {
  const char *zName;              /* module name, e.g. "events" */
  int iTable;                     /* TL_TAB_* */
  const char *zColumns;           /* visible columns, "ts INTEGER, ..." */
  int nCol;                       /* number of visible columns */
  int iTsCol;                     /* column for ts window pushdown, or -1 */
  int iCpuCol;                    /* column for cpu = / IN pushdown, or -1 */
  int iKeyCol;                    /* column for key = pushdown, or -1 */
  int iTypeCol;                   /* TEXT column for type = pushdown, or 0 for
                                  ** none (no table has it first) */
  int iDepthCol;                  /* INTEGER column for depth range pushdown,
                                  ** or 0 for none */
  int eRows;                      /* how many rows a full scan gives, for the
                                  ** plan's cost: TL_ROWS_* */
  uint64_t mPerRow;               /* columns of about one value per row (bit
                                  ** i: column i; ts, texts of the record):
                                  ** the engine's grouping (group.h) keeps
                                  ** the INTEGER ones varying within a
                                  ** group (a GROUP BY only), and is not
                                  ** planned for a query using another */
};

/* Register the module for pDef (static storage). Returns an SQLite code. */
int tl_vtab_register(sqlite3 *db, const TlTableDef *pDef);

/* Does text value v hold a NUL before its end (a path would be cut)? */
int tl_value_has_nul(sqlite3_value *v);

/* Per-table registration functions, one per file under vtab/. */
int events_vtab_register(sqlite3*);
int tracks_vtab_register(sqlite3*);
int symbols_vtab_register(sqlite3*);
int event_types_vtab_register(sqlite3*);
int packets_vtab_register(sqlite3*);
int perf_features_vtab_register(sqlite3*);
int xray_functions_vtab_register(sqlite3*);
int callchains_vtab_register(sqlite3*);
int xray_calls_vtab_register(sqlite3*);
int calls_vtab_register(sqlite3*);
int trace_warnings_vtab_register(sqlite3*);
int trace_files_vtab_register(sqlite3*);
int sched_slices_vtab_register(sqlite3*);
int thread_states_vtab_register(sqlite3*);
int syscalls_vtab_register(sqlite3*);
int sched_threads_vtab_register(sqlite3*);
int syscall_stats_vtab_register(sqlite3*);
int call_stats_vtab_register(sqlite3*);
int call_stacks_vtab_register(sqlite3*);
int trace_info_vtab_register(sqlite3*);
/* flamegraph(stack, value [, title]): the aggregate of src/flamegraph.c. */
int flamegraph_register(sqlite3*);

#endif /* TL_VTAB_UTIL_H */
