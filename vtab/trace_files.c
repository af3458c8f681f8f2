/*
** trace_files.c: the `trace_files` table-valued function.
**
** One row per file or directory that a glob(3) pattern matches, with the
** trace format it looks like, so one query can run over many traces:
**
**     SELECT f.path, count(*)
**     FROM trace_files('run-*.data') f, events(f.path)
**     GROUP BY 1;
**
** Columns: path (as glob(3) gives it, sorted), size (bytes; for a directory
** the bytes of the regular files beneath it), kind ('file', 'dir' or
** 'other'), mtime (Unix seconds), format (the reader that claims it, as
** format= names it: 'perf', 'ctf', 'xray', 'cpel'; NULL when it is not a
** trace tracelite reads). HIDDEN column: pattern.
**
** It is eponymous only (no CREATE VIRTUAL TABLE) and, like every table that
** touches files named in SQL, DIRECTONLY. The format is found lazily, only
** for rows whose format column is read.
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include <assert.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "progress.h"
#include "trace.h"
#include "vtab_util.h"

#define TF_COL_PATH    0
#define TF_COL_SIZE    1
#define TF_COL_KIND    2
#define TF_COL_MTIME   3
#define TF_COL_FORMAT  4
#define TF_COL_PATTERN 5

typedef struct TfCursor TfCursor;
struct TfCursor {
  sqlite3_vtab_cursor base;       /* Base class - must be first */
  glob_t g;                       /* the matches */
  int bGlob;                      /* g holds a result to globfree() */
  size_t i;                       /* current match */
  int bStat;                      /* st is filled for match i */
  int bStatOk;                    /* stat() succeeded */
  struct stat st;                 /* the current match's stat */
  int bFormat;                    /* zFormat is known for match i */
  const char *zFormat;            /* its format (static) or NULL */
};

/* xConnect: declare the schema. */
static int tfConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                     sqlite3_vtab **ppVtab, char **pzErr){
  sqlite3_vtab *p;
  int rc;
  (void)pAux; (void)argc; (void)argv; (void)pzErr;
  *ppVtab = 0;
  rc = sqlite3_declare_vtab(db, "CREATE TABLE x(path TEXT, size INTEGER, "
                            "kind TEXT, mtime INTEGER, format TEXT, pattern HIDDEN)");
  if( rc!=SQLITE_OK ) return rc;
  p = sqlite3_malloc(sizeof(*p));
  if( p==0 ) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  /* It lists and reads files named in SQL: keep it out of schemas. */
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  *ppVtab = p;
  return SQLITE_OK;
}

/* xDisconnect: free the table. */
static int tfDisconnect(sqlite3_vtab *pVtab){
  sqlite3_free(pVtab);
  return SQLITE_OK;
}

/* xOpen: a cursor with no matches yet. */
static int tfOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor){
  TfCursor *pCur = sqlite3_malloc(sizeof(*pCur));
  (void)pVtab;
  if( pCur==0 ) return SQLITE_NOMEM;
  memset(pCur, 0, sizeof(*pCur));
  *ppCursor = &pCur->base;
  return SQLITE_OK;
}

static void tf_reset(TfCursor *pCur){
  if( pCur->bGlob ) globfree(&pCur->g);
  pCur->bGlob = 0;
  memset(&pCur->g, 0, sizeof(pCur->g));
  pCur->i = 0;
  pCur->bStat = pCur->bFormat = 0;
}

/* xClose: free the matches and the cursor. */
static int tfClose(sqlite3_vtab_cursor *cur){
  TfCursor *pCur = (TfCursor*)cur;
  tf_reset(pCur);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

/* xNext: the next match; stat and format are found when asked for. */
static int tfNext(sqlite3_vtab_cursor *cur){
  TfCursor *pCur = (TfCursor*)cur;
  pCur->i++;
  pCur->bStat = pCur->bFormat = 0;
  return SQLITE_OK;
}

/*
** xFilter: run glob(3) on the pattern (argv[0]). No match gives no rows;
** a read error on a directory is skipped, as the shell does. idxNum is 1
** when the pattern was given.
*/
static int tfFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr,
                    int argc, sqlite3_value **argv){
  TfCursor *pCur = (TfCursor*)cur;
  const char *zPattern;
  int rc;
  (void)idxStr;
  tf_reset(pCur);
  if( idxNum!=1 || argc<1 ) return SQLITE_OK;
  zPattern = (const char*)sqlite3_value_text(argv[0]);
  if( zPattern==0 || zPattern[0]==0 ) return SQLITE_OK;
  if( tl_value_has_nul(argv[0]) ){
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = sqlite3_mprintf("trace_files: the pattern holds a NUL character: \"%s\"", zPattern);
    return SQLITE_ERROR;
  }
  rc = glob(zPattern, 0, 0, &pCur->g);
  if( rc==0 ){
    pCur->bGlob = 1;
  }else if( rc==GLOB_NOMATCH ){
    pCur->bGlob = 1;
    pCur->g.gl_pathc = 0;
  }else if( rc==GLOB_NOSPACE ){
    globfree(&pCur->g);
    return SQLITE_NOMEM;
  }else{
    globfree(&pCur->g);
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = sqlite3_mprintf("trace_files: cannot read the directories of \"%s\"", zPattern);
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

/* xEof */
static int tfEof(sqlite3_vtab_cursor *cur){
  TfCursor *pCur = (TfCursor*)cur;
  return !pCur->bGlob || pCur->i >= pCur->g.gl_pathc;
}

/* xColumn */
static int tfColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i){
  TfCursor *pCur = (TfCursor*)cur;
  const char *zPath = pCur->g.gl_pathv[pCur->i];
  if( i==TF_COL_PATH ){
    sqlite3_result_text(ctx, zPath, -1, SQLITE_TRANSIENT);
    return SQLITE_OK;
  }
  if( i==TF_COL_FORMAT ){
    if( !pCur->bFormat ){
      pCur->zFormat = tl_trace_sniff(zPath);
      pCur->bFormat = 1;
    }
    if( pCur->zFormat ) sqlite3_result_text(ctx, pCur->zFormat, -1, SQLITE_STATIC);
    return SQLITE_OK;
  }
  if( i==TF_COL_PATTERN ) return SQLITE_OK;
  if( !pCur->bStat ){
    pCur->bStatOk = stat(zPath, &pCur->st)==0;
    pCur->bStat = 1;
  }
  if( !pCur->bStatOk ) return SQLITE_OK;      /* a dangling link: NULLs */
  switch( i ){
    case TF_COL_SIZE:
      sqlite3_result_int64(ctx, S_ISDIR(pCur->st.st_mode)
          ? (sqlite3_int64)tl_path_size(zPath) : (sqlite3_int64)pCur->st.st_size);
      break;
    case TF_COL_KIND:
      sqlite3_result_text(ctx, S_ISREG(pCur->st.st_mode) ? "file"
                             : S_ISDIR(pCur->st.st_mode) ? "dir" : "other", -1, SQLITE_STATIC);
      break;
    case TF_COL_MTIME:
      sqlite3_result_int64(ctx, (sqlite3_int64)pCur->st.st_mtime);
      break;
    default:
      assert( 0 );
      break;
  }
  return SQLITE_OK;
}

/* xRowid: the match's position in the sorted list. */
static int tfRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  TfCursor *pCur = (TfCursor*)cur;
  *pRowid = (sqlite_int64)pCur->i;
  return SQLITE_OK;
}

/*
** xBestIndex: the pattern must be given with = (idxNum 1); if it is there
** but not usable yet, SQLITE_CONSTRAINT makes the planner put this table
** outside. The list is short and cheap next to reading traces.
*/
static int tfBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  int i, iPattern = -1, bUnusable = 0;
  for(i=0; i<pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *c = &pInfo->aConstraint[i];
    if( c->iColumn!=TF_COL_PATTERN || c->op!=SQLITE_INDEX_CONSTRAINT_EQ ) continue;
    if( !c->usable ){ bUnusable = 1; continue; }
    iPattern = i;
    break;
  }
  if( iPattern<0 ){
    if( bUnusable ) return SQLITE_CONSTRAINT;
    sqlite3_free(pVtab->zErrMsg);
    pVtab->zErrMsg = sqlite3_mprintf("trace_files: no pattern given; use trace_files('dir/*.data')");
    return SQLITE_ERROR;
  }
  pInfo->aConstraintUsage[iPattern].argvIndex = 1;
  pInfo->aConstraintUsage[iPattern].omit = 1;
  pInfo->idxNum = 1;
  pInfo->estimatedRows = 100;
  pInfo->estimatedCost = 100;
  return SQLITE_OK;
}

static sqlite3_module traceFilesModule = {
  .iVersion    = 0,
  .xCreate     = 0,               /* eponymous only */
  .xConnect    = tfConnect,
  .xBestIndex  = tfBestIndex,
  .xDisconnect = tfDisconnect,
  .xDestroy    = tfDisconnect,
  .xOpen       = tfOpen,
  .xClose      = tfClose,
  .xFilter     = tfFilter,
  .xNext       = tfNext,
  .xEof        = tfEof,
  .xColumn     = tfColumn,
  .xRowid      = tfRowid,
};

int trace_files_vtab_register(sqlite3 *db){
  return sqlite3_create_module(db, "trace_files", &traceFilesModule, 0);
}
