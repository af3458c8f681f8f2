/*
** extension.c: the entry point of the tracelite SQLite extension.
**
**     sqlite> .load ./tracelite
**     sqlite> SELECT name, count(*) FROM events('perf.data') GROUP BY name;
**
** Registers every table (one per file under vtab/, trace_files included),
** the aggregate flamegraph() (flamegraph.c), the scalar function
** tracelite_version() and, where SQLite lacks them, the percentile
** aggregates (percentile.c). Only sqlite3_tracelite_init
** is exported.
*/
#include <pthread.h>

#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1

#include "trace.h"
#include "percentile.h"
#include "vtab_util.h"

#define TL_EXPORT __attribute__((visibility("default")))
#define TL_VERSION "0.1.0"

TL_EXPORT int sqlite3_tracelite_init(sqlite3 *db, char **pzErrMsg,
                                     const sqlite3_api_routines *pApi);

/* tracelite_version(): the extension's version and its formats. */
static void versionFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  sqlite3_str *p = sqlite3_str_new(0);
  int i;
  (void)argc; (void)argv;
  sqlite3_str_appendf(p, "tracelite %s (", TL_VERSION);
  for(i=0; tl_readers[i]; i++){
    sqlite3_str_appendf(p, "%s%s", i ? " " : "", tl_readers[i]->zName);
  }
  sqlite3_str_appendchar(p, 1, ')');
  sqlite3_result_text(ctx, sqlite3_str_finish(p), -1, sqlite3_free);
}

/*
** SQLITE_EXTENSION_INIT2 without a data race: each connection that loads
** the extension gives the host's API table, the same pointer every time,
** and connections load it on several threads at once. The first store is
** made under a lock and published (release); a later load sees it
** (acquire), so its thread's calls through sqlite3_api come after it and no
** thread writes the pointer while another reads it.
*/
static void extension_api(const sqlite3_api_routines *pApi){
#ifdef SQLITE_CORE
  (void)pApi;                       /* linked in: no API table */
#else
  static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
  if( __atomic_load_n(&sqlite3_api, __ATOMIC_ACQUIRE)==pApi ) return;
  pthread_mutex_lock(&mutex);
  if( __atomic_load_n(&sqlite3_api, __ATOMIC_ACQUIRE)!=pApi ){
    __atomic_store_n(&sqlite3_api, pApi, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&mutex);
#endif
}

TL_EXPORT int sqlite3_tracelite_init(sqlite3 *db, char **pzErrMsg,
                                     const sqlite3_api_routines *pApi){
  typedef int (*RegisterFn)(sqlite3*);
  static const RegisterFn aReg[] = {
    events_vtab_register,
    tracks_vtab_register,
    symbols_vtab_register,
    event_types_vtab_register,
    packets_vtab_register,
    perf_features_vtab_register,
    xray_functions_vtab_register,
    callchains_vtab_register,
    xray_calls_vtab_register,
    trace_warnings_vtab_register,
    trace_files_vtab_register,
    tl_percentile_register,
    sched_slices_vtab_register,
    thread_states_vtab_register,
    trace_info_vtab_register,
    flamegraph_register,
    calls_vtab_register,
    syscalls_vtab_register,
    sched_threads_vtab_register,
    syscall_stats_vtab_register,
    call_stats_vtab_register,
    call_stacks_vtab_register,
  };
  size_t i;
  int rc = SQLITE_OK;
  extension_api(pApi);
  if( sqlite3_libversion_number() < 3031000 ){
    if( pzErrMsg ) *pzErrMsg = sqlite3_mprintf("tracelite needs SQLite 3.31 or later");
    return SQLITE_ERROR;
  }
  for(i=0; i<sizeof(aReg)/sizeof(aReg[0]) && rc==SQLITE_OK; i++){
    rc = aReg[i](db);
  }
  if( rc==SQLITE_OK ){
    rc = sqlite3_create_function(db, "tracelite_version", 0,
                                 SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                 0, versionFunc, 0, 0);
  }
  return rc;
}
