/*
** vtab_util.c: the shared virtual table machinery (see vtab_util.h).
**
** Plan encoding (xBestIndex -> xFilter).
**
** idxNum is a set of bits, each a promise to SQLite that the plan made by
** setting orderByConsumed (so SQLite does not sort) and that xFilter
** passes on to the reader:
**
**   1  TL_PLAN_ORDERED      rows in ascending ts (ORDER BY ts consumed):
**                           TlFilter.bOrdered
**   8  TL_PLAN_COLLAPSE     rows with equal values of the GROUP BY or
**                           DISTINCT columns together, the engine's grouped
**                           output (src/group.c, from the reader's tallies
**                           when it offers them): idxStr says which columns;
**                           a GROUP BY's other columns of about one value per
**                           row vary within a group (tl_group_set_vary)
**
** At most one bit is set, and only when the plan knew the trace and its
** options (path and options constants, SQLite 3.38 or later) and the
** options did not say accel=off. 0 asks for no order.
**
** idxStr is one letter per argv[] entry, in argv order, then ':' and
** colUsed in hex (TlFilter.mCols):
**
**   P  path = ?          O  options = ?
**   g  ts > ?            G  ts >= ?         e  ts = ?
**   l  ts < ?            L  ts <= ?
**   c  cpu = ?           C  cpu IN (...)    (all values at once)
**   r  rowid = ?         k  key column = ?
**   t  type column = ?   (binary collation)
**   x  depth > ?         X  depth >= ?      q  depth = ?
**   y  depth < ?         Y  depth <= ?
**
** e.g. "PGL:2045": path = ?, ts >= ?, ts <= ?; colUsed 0x2045. With
** TL_PLAN_COLLAPSE, ':' and the GROUP BY columns in hex follow, then, for
** a GROUP BY (sqlite3_vtab_distinct() 1, which SQLite 3.40 also gives when
** an ORDER BY on the same terms follows and then takes the rows' order as
** sorted), ':' and the terms in order: the column in hex and '+' or '-'
** (descending) each, e.g. ":3+a-".
**
** Every pushed constraint is checked exactly again on each row before it
** is returned, so the reader's filtering is only an optimisation and the
** constraints can be omitted from SQLite's own checks.
**
** accel=off (an option of every table, not part of the trace cache key):
** the plan consumes no ORDER BY when it sees it, and xFilter sets
** TlFilter.bPlain and checks that every row the reader gives is a plain
** one (one record: no repeats, no lazy value or rowid).
*/
#include "vtab_util.h"
SQLITE_EXTENSION_INIT3

#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "group.h"
#include "trace.h"

#define TL_PLAN_ORDERED 1
#define TL_PLAN_COLLAPSE 8        /* the engine's grouped output (group.h) */
#define TL_PLAN_MAX_OPS 64        /* idxStr letters at most (argv entries) */

typedef struct TlVtab TlVtab;
struct TlVtab {
  sqlite3_vtab base;              /* Base class - must be first */
  sqlite3 *db;                    /* the connection */
  const TlTableDef *pDef;         /* which table */
  char *zPath;                    /* CREATE VIRTUAL TABLE path=, or NULL */
  char *zOptions;                 /* CREATE VIRTUAL TABLE options, or NULL */
};

typedef struct TlCursor TlCursor;
struct TlCursor {
  sqlite3_vtab_cursor base;       /* Base class - must be first */
  TlTrace *pTrace;                /* the trace (a cache reference) */
  TlQuery *pQuery;                /* the running scan */
  TlGroup *pGroup;                /* or the engine's grouped output */
  uint64_t mGroupBy;              /* TL_PLAN_COLLAPSE: the GROUP BY columns */
  int nOrd;                       /* and the order its groups must come in */
  int aOrdCol[TL_MAX_NCOL], aOrdDesc[TL_MAX_NCOL];  /* (tl_group_set_order) */
  TlFilter filter;                /* what the scan was asked for */
  int64_t *aCpu;                  /* filter.aCpu storage (sqlite3_malloc) */
  char *zType;                    /* filter.zType storage (sqlite3_malloc) */
  TlFilterCols cols;              /* the columns filter is about */
  TlRow row;                      /* the current row */
  int64_t iRepeat;                /* which of row's repeats is current */
  int64_t nRepeatLeft;            /* repeats of row still to come */
  int bEof;                       /* no current row */
  char *zPath;                    /* path of this scan (sqlite3_malloc) */
  char *zOptions;                 /* options of this scan, or NULL */
  TlPoll poll;                    /* asks vtab_interrupted() while it reads */
};

/* ---- helpers ------------------------------------------------------------ */

/*
** Has sqlite3_interrupt() been called on connection pArg? SQLite 3.40 has
** no sqlite3_is_interrupted() (3.41), but its parser stops at the first
** space of a statement while the connection's interrupt flag is set, and
** nothing clears the flag while a statement runs: preparing "SELECT 1"
** tells. (Called at most every TL_POLL_MS by tl_poll(); a few us each.)
*/
static int vtab_interrupted(void *pArg){
  sqlite3_stmt *pStmt = 0;
  int rc = sqlite3_prepare_v2((sqlite3*)pArg, "SELECT 1", -1, &pStmt, 0);
  sqlite3_finalize(pStmt);
  return rc==SQLITE_INTERRUPT;
}

/* Make p, asking db, the thread's current TlPoll; returns the previous. */
static TlPoll *vtab_poll_begin(TlPoll *p, sqlite3 *db){
  if( p->xStop==0 ){
    memset(p, 0, sizeof(*p));
    p->xStop = vtab_interrupted;
  }
  p->pArg = db;
  p->bStopped = 0;
  return tl_poll_swap(p);
}

/* Set the vtab's error message from a TlErr, naming the file; return rc. */
static int vtab_error(sqlite3_vtab *pVtab, const char *zPath, const TlErr *pErr){
  int n = tl_err_format(pErr, zPath, 0, 0);    /* the length: any */
  sqlite3_free(pVtab->zErrMsg);
  pVtab->zErrMsg = sqlite3_malloc(n + 1);
  if( pVtab->zErrMsg ) tl_err_format(pErr, zPath, pVtab->zErrMsg, n + 1);
  /* Only a failed allocation is SQLITE_NOMEM: a cap (TL_ELIMIT) is an
  ** error with its message, which SQLITE_NOMEM would lose. */
  switch( pErr->rc ){
    case TL_ENOMEM:   return SQLITE_NOMEM;
    case TL_EINTR:    return SQLITE_INTERRUPT;
    case TL_ECORRUPT: return SQLITE_CORRUPT_VTAB;
    default:          return SQLITE_ERROR;
  }
}

int tl_value_has_nul(sqlite3_value *v){
  const char *z = (const char*)sqlite3_value_text(v);
  return z && strlen(z) < (size_t)sqlite3_value_bytes(v);
}

/* Strip one level of '...' or "..." quotes; returns a sqlite3_malloc copy. */
static char *unquote(const char *z, int n){
  char *zOut;
  int i, j;
  while( n>0 && (z[0]==' ' || z[0]=='\t') ){ z++; n--; }
  while( n>0 && (z[n-1]==' ' || z[n-1]=='\t') ) n--;
  zOut = sqlite3_malloc64((sqlite3_uint64)n + 1);
  if( zOut==0 ) return 0;
  if( n>=2 && (z[0]=='\'' || z[0]=='"') && z[n-1]==z[0] ){
    char q = z[0];
    for(i=1, j=0; i<n-1; i++){
      zOut[j++] = z[i];
      if( z[i]==q && i+1<n-1 && z[i+1]==q ) i++;
    }
    zOut[j] = 0;
  }else{
    memcpy(zOut, z, (size_t)n);
    zOut[n] = 0;
  }
  return zOut;
}

/*
** Turn CREATE VIRTUAL TABLE arguments (key=value) into a path and an
** options string. "options=" appends its text; other keys become options.
*/
static int parse_create_args(TlVtab *p, int argc, const char *const *argv,
                             char **pzErr){
  int i;
  sqlite3_str *pOpt = sqlite3_str_new(0);
  for(i=3; i<argc; i++){
    const char *zArg = argv[i];
    const char *zEq = strchr(zArg, '=');
    char *zKey, *zVal;
    if( zEq==0 ){
      *pzErr = sqlite3_mprintf("%s: expected key=value, got \"%s\"",
                               p->pDef->zName, zArg);
      sqlite3_free(sqlite3_str_finish(pOpt));
      return SQLITE_ERROR;
    }
    zKey = unquote(zArg, (int)(zEq - zArg));
    zVal = unquote(zEq+1, (int)strlen(zEq+1));
    if( zKey==0 || zVal==0 ){
      sqlite3_free(zKey); sqlite3_free(zVal);
      sqlite3_free(sqlite3_str_finish(pOpt));
      return SQLITE_NOMEM;
    }
    if( strcmp(zKey, "path")==0 ){
      sqlite3_free(p->zPath);
      p->zPath = zVal;
      zVal = 0;
    }else if( strcmp(zKey, "options")==0 ){
      sqlite3_str_appendf(pOpt, "%s%s", sqlite3_str_length(pOpt) ? "," : "", zVal);
    }else{
      /* Re-quote the value so that it survives the options grammar. */
      sqlite3_str_appendf(pOpt, "%s%s='", sqlite3_str_length(pOpt) ? "," : "", zKey);
      {
        const char *c;
        for(c=zVal; *c; c++){
          if( *c=='\'' ) sqlite3_str_appendchar(pOpt, 1, '\'');
          sqlite3_str_appendchar(pOpt, 1, *c);
        }
      }
      sqlite3_str_appendchar(pOpt, 1, '\'');
    }
    sqlite3_free(zKey);
    sqlite3_free(zVal);
  }
  if( sqlite3_str_length(pOpt) ){
    p->zOptions = sqlite3_str_finish(pOpt);
    if( p->zOptions==0 ) return SQLITE_NOMEM;
  }else{
    sqlite3_free(sqlite3_str_finish(pOpt));
  }
  if( argc>3 && p->zPath==0 ){
    *pzErr = sqlite3_mprintf("%s: CREATE VIRTUAL TABLE needs path='trace file'",
                             p->pDef->zName);
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

/* ---- methods -------------------------------------------------------------- */

/*
** xConnect and xCreate: declare the schema (the table's columns plus the
** hidden path and options) and, for CREATE VIRTUAL TABLE, take the path
** and options from the arguments.
*/
static int tlConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                     sqlite3_vtab **ppVtab, char **pzErr){
  const TlTableDef *pDef = (const TlTableDef*)pAux;
  TlVtab *p;
  char *zSql;
  int rc;
  *ppVtab = 0;
  p = sqlite3_malloc(sizeof(*p));
  if( p==0 ) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->db = db;
  p->pDef = pDef;
  rc = parse_create_args(p, argc, argv, pzErr);
  if( rc==SQLITE_OK ){
    zSql = sqlite3_mprintf("CREATE TABLE x(%s, path HIDDEN, options HIDDEN)",
                           pDef->zColumns);
    if( zSql==0 ){
      rc = SQLITE_NOMEM;
    }else{
      rc = sqlite3_declare_vtab(db, zSql);
      sqlite3_free(zSql);
    }
  }
  if( rc==SQLITE_OK ){
    /* Tables read files named in SQL: keep them out of schemas (views,
    ** triggers) that another party could have written. */
    sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
    *ppVtab = &p->base;
  }else{
    sqlite3_free(p->zPath);
    sqlite3_free(p->zOptions);
    sqlite3_free(p);
  }
  return rc;
}

/* xDisconnect and xDestroy: free the table (nothing is stored). */
static int tlDisconnect(sqlite3_vtab *pVtab){
  TlVtab *p = (TlVtab*)pVtab;
  sqlite3_free(p->zPath);
  sqlite3_free(p->zOptions);
  sqlite3_free(p);
  return SQLITE_OK;
}

/* xOpen: a cursor with no scan yet. */
static int tlOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor){
  TlCursor *pCur;
  (void)pVtab;
  pCur = sqlite3_malloc(sizeof(*pCur));
  if( pCur==0 ) return SQLITE_NOMEM;
  memset(pCur, 0, sizeof(*pCur));
  pCur->bEof = 1;
  *ppCursor = &pCur->base;
  return SQLITE_OK;
}

/* End the cursor's scan and give back its trace reference. */
static void cursor_reset(TlCursor *pCur){
  tl_query_close(pCur->pQuery);
  pCur->pQuery = 0;
  tl_group_close(pCur->pGroup);
  pCur->pGroup = 0;
  pCur->mGroupBy = 0;
  tl_trace_release(pCur->pTrace);
  pCur->pTrace = 0;
  sqlite3_free(pCur->aCpu);
  pCur->aCpu = 0;
  sqlite3_free(pCur->zType);
  pCur->zType = 0;
  sqlite3_free(pCur->zPath);
  pCur->zPath = 0;
  sqlite3_free(pCur->zOptions);
  pCur->zOptions = 0;
  pCur->nRepeatLeft = 0;
  pCur->bEof = 1;
}

/* xClose: free everything, even after an error. */
static int tlClose(sqlite3_vtab_cursor *cur){
  TlCursor *pCur = (TlCursor*)cur;
  cursor_reset(pCur);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

/*
** Under accel=off (TlFilter.bPlain), is the current row a plain one: one
** record, with its rowid and every value given? A reader that ignores
** bPlain is caught here rather than trusted.
*/
static int row_is_plain(const TlCursor *pCur, int nCol){
  int i;
  if( pCur->row.nRepeat>1 || pCur->row.iRowid==TL_ROWID_LAZY ) return 0;
  for(i=0; i<nCol; i++){
    if( pCur->row.a[i].t==TL_LAZY ) return 0;
  }
  return 1;
}

/* The error for a row that is not plain under accel=off. */
static int plain_row_error(sqlite3_vtab_cursor *cur){
  TlCursor *pCur = (TlCursor*)cur;
  TlErr err;
  tl_err_clear(&err);
  tl_err_set(&err, TL_EMISUSE, TL_NO_OFFSET,
      "the %s reader gave an accelerated row under accel=off (table %s)",
      pCur->pTrace ? pCur->pTrace->pReader->zName : "?",
      ((TlVtab*)cur->pVtab)->pDef->zName);
  pCur->bEof = 1;
  return vtab_error(cur->pVtab, pCur->zPath, &err);
}

/* The reader's next row that passes the constraints (tlNext). */
static __attribute__((noinline)) int next_row(sqlite3_vtab_cursor *cur){
  TlCursor *pCur = (TlCursor*)cur;
  const TlTableDef *pDef = ((TlVtab*)cur->pVtab)->pDef;
  for(;;){
    int rc;
    if( pCur->pGroup ){
      /* collapsed rows: made of rows that passed the constraints */
      rc = tl_group_next(pCur->pGroup, &pCur->row);
      if( rc==TL_DONE ){ pCur->bEof = 1; return SQLITE_OK; }
      if( rc<0 ){
        pCur->bEof = 1;
        return vtab_error(cur->pVtab, pCur->zPath, tl_group_err(pCur->pGroup));
      }
      pCur->bEof = 0;
      pCur->iRepeat = 0;
      pCur->nRepeatLeft = pCur->row.nRepeat>1 ? pCur->row.nRepeat-1 : 0;
      return SQLITE_OK;
    }
    if( pCur->pQuery==0 ){ pCur->bEof = 1; return SQLITE_OK; }
    rc = tl_query_next(pCur->pQuery, &pCur->row);
    if( rc==TL_DONE ){ pCur->bEof = 1; return SQLITE_OK; }
    if( rc<0 ){
      pCur->bEof = 1;
      return vtab_error(cur->pVtab, pCur->zPath, tl_query_err(pCur->pQuery));
    }
    if( pCur->filter.bPlain && !row_is_plain(pCur, pDef->nCol) ){
      return plain_row_error(cur);
    }
    if( tl_filter_match(&pCur->filter, &pCur->cols, &pCur->row) ){
      pCur->bEof = 0;
      pCur->iRepeat = 0;
      pCur->nRepeatLeft = pCur->row.nRepeat>1 ? pCur->row.nRepeat-1 : 0;
      return SQLITE_OK;
    }
    /* In ts order, a row past the window ends the scan. */
    if( pCur->filter.bOrdered && pDef->iTsCol>=0 ){
      const TlVal *v = &pCur->row.a[pDef->iTsCol];
      if( v->t==TL_INT && v->i>pCur->filter.tsHi ){ pCur->bEof = 1; return SQLITE_OK; }
    }
  }
}

/*
** xNext: the next row that passes the constraints. A repeat of the row (a
** row that stands for many) is the usual case of large counts: it alone
** stays here, without the reader's call and the registers that call needs.
*/
static int tlNext(sqlite3_vtab_cursor *cur){
  TlCursor *pCur = (TlCursor*)cur;
  if( pCur->nRepeatLeft>0 ){
    /* the same values again: they passed the constraints already */
    pCur->nRepeatLeft--;
    pCur->iRepeat++;
    pCur->row.iRowid = TL_ROWID_LAZY;
    if( pCur->row.aVary ) pCur->row.a[pCur->row.iVary].i = pCur->row.aVary[pCur->iRepeat];
    return SQLITE_OK;
  }else{
    TlPoll *pPrev = vtab_poll_begin(&pCur->poll, ((TlVtab*)cur->pVtab)->db);
    int rc = next_row(cur);
    tl_poll_swap(pPrev);
    return rc;
  }
}

/*
** Numeric value of a constraint's right-hand side, as SQLite would compare
** it with an INTEGER column: returns 0 for NULL (matches nothing), 1 for an
** integer (*pi), 2 for a real (*pr), 3 for text or blob (greater than any
** number).
*/
static int rhs_kind(sqlite3_value *v, sqlite3_int64 *pi, double *pr){
  switch( sqlite3_value_numeric_type(v) ){
    case SQLITE_NULL:    return 0;
    case SQLITE_INTEGER: *pi = sqlite3_value_int64(v); return 1;
    case SQLITE_FLOAT:   *pr = sqlite3_value_double(v); return 2;
    default:             return 3;
  }
}

/*
** Narrow [*pLo, *pHi] by "ts OP v". Sets *pbEmpty when nothing can match.
*/
static void narrow_ts(char op, sqlite3_value *v, int64_t *pLo, int64_t *pHi,
                      int *pbEmpty){
  sqlite3_int64 i = 0;
  double r = 0;
  int k = rhs_kind(v, &i, &r);
  int64_t lo = TL_TS_MIN, hi = TL_TS_MAX;
  if( k==0 ){ *pbEmpty = 1; return; }
  if( k==3 ){
    /* Every number is less than any text: ts < 'x' always, ts > 'x' never. */
    if( op=='g' || op=='G' || op=='e' ) *pbEmpty = 1;
    return;
  }
  if( k==2 ){
    /* Map the real bound onto the integers it admits. */
    if( isnan(r) ){ *pbEmpty = 1; return; }
    switch( op ){
      case 'g': r = floor(r) + 1; op = 'G'; break;
      case 'G': r = ceil(r); break;
      case 'l': r = ceil(r) - 1; op = 'L'; break;
      case 'L': r = floor(r); break;
      case 'e': if( r!=floor(r) ){ *pbEmpty = 1; return; } break;
    }
    if( r >= 9223372036854775808.0 ){
      if( op=='G' || op=='e' ){ *pbEmpty = 1; }
      return;
    }
    if( r < -9223372036854775808.0 ){
      if( op=='L' || op=='e' ){ *pbEmpty = 1; }
      return;
    }
    i = (sqlite3_int64)r;
  }
  switch( op ){
    case 'g': if( i==INT64_MAX ){ *pbEmpty = 1; return; } lo = i+1; break;
    case 'G': lo = i; break;
    case 'l': if( i==INT64_MIN ){ *pbEmpty = 1; return; } hi = i-1; break;
    case 'L': hi = i; break;
    case 'e': lo = hi = i; break;
  }
  if( lo > *pLo ) *pLo = lo;
  if( hi < *pHi ) *pHi = hi;
  if( *pLo > *pHi ) *pbEmpty = 1;
}

/* An exact integer from v for an = constraint, or 0 if none can match. */
static int rhs_exact_int(sqlite3_value *v, int64_t *pOut){
  sqlite3_int64 i = 0;
  double r = 0;
  switch( rhs_kind(v, &i, &r) ){
    case 1: *pOut = i; return 1;
    case 2:
      if( r==floor(r) && r>=-9223372036854775808.0 && r<9223372036854775808.0 ){
        *pOut = (int64_t)r;
        return 1;
      }
      return 0;
    default: return 0;
  }
}

static int cmp_i64(const void *a, const void *b){
  int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
  return x<y ? -1 : x>y;
}

/*
** Intersect the cursor's cpu set with the values in aNew[0..n). The first
** cpu constraint sets it.
*/
static int cpu_intersect(TlCursor *pCur, int64_t *aNew, int n){
  int i, j, k;
  qsort(aNew, (size_t)n, sizeof(int64_t), cmp_i64);
  for(i=0, j=0; i<n; i++){                      /* distinct */
    if( j==0 || aNew[j-1]!=aNew[i] ) aNew[j++] = aNew[i];
  }
  n = j;
  if( pCur->filter.nCpu<0 ){
    sqlite3_free(pCur->aCpu);
    pCur->aCpu = aNew;
    pCur->filter.aCpu = aNew;
    pCur->filter.nCpu = n;
    return SQLITE_OK;
  }
  for(i=0, k=0; i<pCur->filter.nCpu; i++){
    for(j=0; j<n; j++){
      if( aNew[j]==pCur->aCpu[i] ){ pCur->aCpu[k++] = pCur->aCpu[i]; break; }
    }
  }
  pCur->filter.nCpu = k;
  sqlite3_free(aNew);
  return SQLITE_OK;
}

/* Is sqlite3_vtab_in() and friends there (SQLite 3.38)? */
static int have_vtab_in(void){
  return sqlite3_libversion_number() >= 3038000;
}

/* Start the cursor's filter from the plan, before any constraint. */
static void filter_begin(TlCursor *pCur, int idxNum, const char *idxStr){
  const TlTableDef *pDef = ((TlVtab*)pCur->base.pVtab)->pDef;
  const char *zColon = strchr(idxStr, ':');
  memset(&pCur->cols, 0, sizeof(pCur->cols));
  pCur->cols.iTs = pDef->iTsCol;
  pCur->cols.iCpu = pDef->iCpuCol;
  pCur->cols.iKey = pDef->iKeyCol;
  pCur->cols.iDepth = pDef->iDepthCol;
  pCur->cols.iType = pDef->iTypeCol;
  memset(&pCur->filter, 0, sizeof(pCur->filter));
  pCur->filter.tsLo = TL_TS_MIN;
  pCur->filter.tsHi = TL_TS_MAX;
  pCur->filter.nCpu = -1;
  pCur->filter.bOrdered = (idxNum & TL_PLAN_ORDERED)!=0;
  pCur->filter.mCols = zColon ? strtoull(zColon+1, 0, 16) : ~(uint64_t)0;
  pCur->nOrd = 0;
  if( (idxNum & TL_PLAN_COLLAPSE) && zColon && strchr(zColon+1, ':') ){
    const char *z = strchr(zColon+1, ':')+1;
    char *zEnd = 0;
    pCur->mGroupBy = strtoull(z, &zEnd, 16);
    if( zEnd && *zEnd==':' ){
      z = zEnd+1;
      while( pCur->nOrd<TL_MAX_NCOL ){
        long iCol = strtol(z, &zEnd, 16);
        if( zEnd==z || (*zEnd!='+' && *zEnd!='-') ) break;
        pCur->aOrdCol[pCur->nOrd] = (int)iCol;
        pCur->aOrdDesc[pCur->nOrd++] = *zEnd=='-';
        z = zEnd+1;
      }
    }
  }
}

/*
** "column = v" for an integer column the filter holds once (rowid, key):
** sets *pb and *pi, or *pbEmpty when v matches no integer or another
** value was asked for already.
*/
static void filter_eq(sqlite3_value *v, int *pb, int64_t *pi, int *pbEmpty){
  int64_t x;
  if( !rhs_exact_int(v, &x) ){ *pbEmpty = 1; return; }
  if( *pb && *pi!=x ) *pbEmpty = 1;
  *pb = 1;
  *pi = x;
}

/* "cpu IN (...)": every integer of the list, all at once (sqlite3_vtab_in). */
static int filter_cpu_in(TlCursor *pCur, sqlite3_value *v){
  sqlite3_value *pVal = 0;
  int n = 0, nAlloc = 16, rc;
  int64_t x;
  int64_t *a = sqlite3_malloc64(sizeof(int64_t)*(sqlite3_uint64)nAlloc);
  if( a==0 ) return SQLITE_NOMEM;
  if( have_vtab_in() ){
    for(rc = sqlite3_vtab_in_first(v, &pVal);
        rc==SQLITE_OK && pVal;
        rc = sqlite3_vtab_in_next(v, &pVal)){
      if( !rhs_exact_int(pVal, &x) ) continue;
      if( n==nAlloc ){
        int64_t *aNew;
        nAlloc *= 2;
        aNew = sqlite3_realloc64(a, sizeof(int64_t)*(sqlite3_uint64)nAlloc);
        if( aNew==0 ){ sqlite3_free(a); return SQLITE_NOMEM; }
        a = aNew;
      }
      a[n++] = x;
    }
    if( rc!=SQLITE_OK && rc!=SQLITE_DONE ){ sqlite3_free(a); return rc; }
  }
  return cpu_intersect(pCur, a, n);
}

/* "cpu = v": a set of one CPU, or of none when v is no integer. */
static int filter_cpu_eq(TlCursor *pCur, sqlite3_value *v){
  int64_t *a = sqlite3_malloc64(sizeof(int64_t));
  if( a==0 ) return SQLITE_NOMEM;
  return cpu_intersect(pCur, a, rhs_exact_int(v, &a[0]));
}

/*
** "type = v". The column is TEXT: a number compares as its text; NULL and
** blobs equal no text. Two different values match nothing.
*/
static int filter_type(TlCursor *pCur, sqlite3_value *v, int *pbEmpty){
  const char *z;
  if( sqlite3_value_type(v)==SQLITE_NULL || sqlite3_value_type(v)==SQLITE_BLOB ){
    *pbEmpty = 1;
    return SQLITE_OK;
  }
  z = (const char*)sqlite3_value_text(v);
  if( z==0 ) return SQLITE_NOMEM;
  if( pCur->zType ){
    if( strcmp(pCur->zType, z)!=0 ) *pbEmpty = 1;
    return SQLITE_OK;
  }
  pCur->zType = sqlite3_mprintf("%s", z);
  if( pCur->zType==0 ) return SQLITE_NOMEM;
  pCur->cols.nType = strlen(z);
  pCur->filter.zType = pCur->zType;
  return SQLITE_OK;
}

/* "depth OP v": the same integer narrowing as ts, on the depth range. */
static void filter_depth(TlFilter *f, char op, sqlite3_value *v, int *pbEmpty){
  static const char azOp[] = "xgXGylYLqe";   /* depth letter, ts letter */
  if( !f->bDepth ){
    f->bDepth = 1;
    f->depthLo = INT64_MIN;
    f->depthHi = INT64_MAX;
  }
  narrow_ts(strchr(azOp, op)[1], v, &f->depthLo, &f->depthHi, pbEmpty);
}

/*
** Add the constraint of plan letter op (not P or O) with value v to the
** cursor's filter; sets *pbEmpty when no row can match. SQLite code.
*/
static int filter_constraint(TlCursor *pCur, char op, sqlite3_value *v, int *pbEmpty){
  TlFilter *f = &pCur->filter;
  switch( op ){
    case 'g': case 'G': case 'l': case 'L': case 'e':
      narrow_ts(op, v, &f->tsLo, &f->tsHi, pbEmpty);
      break;
    case 'x': case 'X': case 'y': case 'Y': case 'q':
      filter_depth(f, op, v, pbEmpty);
      break;
    case 'c': return filter_cpu_eq(pCur, v);
    case 'C': return filter_cpu_in(pCur, v);
    case 'r': filter_eq(v, &f->bRowid, &f->iRowid, pbEmpty); break;
    case 'k': filter_eq(v, &f->bKey, &f->iKey, pbEmpty); break;
    case 't': return filter_type(pCur, v, pbEmpty);
    default: break;
  }
  return SQLITE_OK;
}

/*
** Keep the scan's path and options in the cursor: the options of CREATE
** VIRTUAL TABLE and of the call are merged (the call's win).
*/
static int cursor_names(TlCursor *pCur, const TlVtab *pTab, const char *zPath,
                        const char *zOptions){
  pCur->zPath = sqlite3_mprintf("%s", zPath);
  if( pCur->zPath==0 ) return SQLITE_NOMEM;
  if( pTab->zOptions && zOptions!=pTab->zOptions ){
    pCur->zOptions = sqlite3_mprintf("%s,%s", pTab->zOptions, zOptions ? zOptions : "");
  }else if( zOptions ){
    pCur->zOptions = sqlite3_mprintf("%s", zOptions);
  }else{
    return SQLITE_OK;
  }
  return pCur->zOptions ? SQLITE_OK : SQLITE_NOMEM;
}

/*
** accel=off (TlFilter.bPlain): a plain per-record scan, never grouped.
** The plan sets TL_PLAN_ORDERED only when it opened the trace, which it does only when it knows the
** options (constants, or CREATE VIRTUAL TABLE's from xConnect), and only
** when they do not say accel=off: so these bits do not come with
** accel=off. Were ORDER BY ts consumed by a plan that could not see
** accel=off, bOrdered is kept: SQLite relies on the promised order and
** does not sort. Likewise TL_PLAN_COLLAPSE, which a plan may choose
** without the trace: the engine still groups, over the reader's plain
** rows.
*/
static void filter_plain(TlCursor *pCur){
  pCur->filter.bPlain = 1;
}

/*
** Parse the scan's options (once), open the trace with them (from the
** cache when it was opened before), take the query's own options
** (progress=, accel=) into the filter and start the reader's scan, unless
** no row can match (bEmpty).
*/
static int filter_start(sqlite3_vtab_cursor *cur, int bEmpty){
  TlCursor *pCur = (TlCursor*)cur;
  const TlTableDef *pDef = ((TlVtab*)cur->pVtab)->pDef;
  TlOpts opts;
  TlErr err;
  int rc;
  tl_opts_init(&opts);
  tl_err_clear(&err);
  rc = tl_opts_parse(&opts, pCur->zOptions, &err);
  if( rc==TL_OK ){
    rc = tl_trace_open_for(pCur->zPath, &opts, pDef->iTable, pCur->filter.mCols, &pCur->pTrace, &err);
  }
  if( rc==TL_OK ){
    pCur->filter.eProgress = tl_trace_opts_progress(&opts);
    if( tl_trace_opts_plain(&opts) ) filter_plain(pCur);
  }
  tl_opts_free(&opts);
  if( rc ) return vtab_error(cur->pVtab, pCur->zPath, &err);
  if( bEmpty ){
    pCur->bEof = 1;
    return SQLITE_OK;
  }
  if( pCur->mGroupBy ){
    uint64_t mPerRow = pDef->mPerRow | (pDef->iTsCol>=0 ? (uint64_t)1<<pDef->iTsCol : 0);
    rc = tl_group_open(pCur->pTrace, pDef->iTable, pDef->nCol, &pCur->filter, &pCur->cols,
                       pCur->mGroupBy, &pCur->pGroup, &err);
    if( rc==TL_OK ){
      tl_group_set_order(pCur->pGroup, pCur->nOrd, pCur->aOrdCol, pCur->aOrdDesc);
      /* (the plan took such columns only for a GROUP BY, see plan_collapse()) */
      tl_group_set_vary(pCur->pGroup, pCur->filter.mCols & ~pCur->mGroupBy & mPerRow);
    }
  }else{
    rc = tl_query_open(pCur->pTrace, pDef->iTable, &pCur->filter, &pCur->pQuery, &err);
  }
  if( rc ) return vtab_error(cur->pVtab, pCur->zPath, &err);
  return tlNext(cur);
}

/*
** xFilter: turn the plan's arguments (idxStr, see the top of this file)
** into the path, the options and a TlFilter, then start the scan.
*/
static int tlFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr,
                    int argc, sqlite3_value **argv){
  TlCursor *pCur = (TlCursor*)cur;
  TlVtab *pTab = (TlVtab*)cur->pVtab;
  const TlTableDef *pDef = pTab->pDef;
  const char *zPath = pTab->zPath;
  const char *zOptions = pTab->zOptions;
  int bEmpty = 0;
  int i, rc;

  cursor_reset(pCur);
  if( idxStr==0 ) idxStr = "";
  filter_begin(pCur, idxNum, idxStr);
  for(i=0; i<argc && idxStr[i] && idxStr[i]!=':'; i++){
    if( (idxStr[i]=='P' || idxStr[i]=='O') && tl_value_has_nul(argv[i]) ){
      sqlite3_free(cur->pVtab->zErrMsg);
      cur->pVtab->zErrMsg = sqlite3_mprintf("%s: the %s holds a NUL character: \"%s\"",
          pDef->zName, idxStr[i]=='P' ? "trace path" : "options string", sqlite3_value_text(argv[i]));
      return SQLITE_ERROR;
    }
    if( idxStr[i]=='P' ){
      if( sqlite3_value_type(argv[i])==SQLITE_NULL ){
        sqlite3_free(cur->pVtab->zErrMsg);
        cur->pVtab->zErrMsg = sqlite3_mprintf("%s: the trace path is NULL", pDef->zName);
        return SQLITE_ERROR;
      }
      zPath = (const char*)sqlite3_value_text(argv[i]);
    }else if( idxStr[i]=='O' ){
      zOptions = (const char*)sqlite3_value_text(argv[i]);
    }else{
      rc = filter_constraint(pCur, idxStr[i], argv[i], &bEmpty);
      if( rc ) return rc;
    }
  }
  if( pCur->filter.nCpu==0 ) bEmpty = 1;
  if( zPath==0 ){
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = sqlite3_mprintf(
        "%s: no trace given; use %s('file') or CREATE VIRTUAL TABLE ... USING %s(path='file')",
        pDef->zName, pDef->zName, pDef->zName);
    return SQLITE_ERROR;
  }
  rc = cursor_names(pCur, pTab, zPath, zOptions);
  if( rc ) return rc;
  {
    TlPoll *pPrev = vtab_poll_begin(&pCur->poll, pTab->db);
    rc = filter_start(cur, bEmpty);
    tl_poll_swap(pPrev);
    return rc;
  }
}

/* xEof */
static int tlEof(sqlite3_vtab_cursor *cur){
  return ((TlCursor*)cur)->bEof;
}

/* tlColumn's other cases: hidden columns, values worked out on demand, text
** to copy, reals, blobs and NULL. */
static __attribute__((noinline)) int column_other(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i){
  TlCursor *pCur = (TlCursor*)cur;
  const TlTableDef *pDef = ((TlVtab*)cur->pVtab)->pDef;
  if( i==pDef->nCol ){
    sqlite3_result_text(ctx, pCur->zPath, -1, SQLITE_TRANSIENT);
  }else if( i==pDef->nCol+1 ){
    if( pCur->zOptions ) sqlite3_result_text(ctx, pCur->zOptions, -1, SQLITE_TRANSIENT);
  }else if( i>=0 && i<pDef->nCol ){
    const TlVal *v = &pCur->row.a[i];
    TlVal lazy;
    if( v->t==TL_LAZY ){
      /* a value of this repeat only: the reader works it out now */
      if( pCur->pQuery==0 ) return SQLITE_OK;
      if( tl_query_value(pCur->pQuery, pCur->iRepeat, i, &lazy)<0 ){
        return vtab_error(cur->pVtab, pCur->zPath, tl_query_err(pCur->pQuery));
      }
      v = &lazy;
    }
    switch( v->t ){
      case TL_INT:  sqlite3_result_int64(ctx, v->i); break;
      case TL_REAL: sqlite3_result_double(ctx, v->r); break;
      case TL_TEXT:
        sqlite3_result_text64(ctx, v->z, v->n, v->bKept ? SQLITE_STATIC : SQLITE_TRANSIENT, SQLITE_UTF8);
        break;
      case TL_BLOB:
        sqlite3_result_blob64(ctx, v->z, v->n, SQLITE_TRANSIENT);
        break;
      default: break;              /* NULL */
    }
  }
  return SQLITE_OK;
}

/*
** xColumn: the row's value; the hidden columns give back path and options.
** Integers and text kept by the reader (given without a copy) are the
** values of rows repeated millions of times: they return at once.
*/
static int tlColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i){
  TlCursor *pCur = (TlCursor*)cur;
  if( (unsigned)i < (unsigned)((TlVtab*)cur->pVtab)->pDef->nCol ){
    const TlVal *v = &pCur->row.a[i];
    if( v->t==TL_INT ){
      sqlite3_result_int64(ctx, v->i);
      return SQLITE_OK;
    }
    if( v->t==TL_TEXT && v->bKept && v->n<=INT_MAX ){
      sqlite3_result_text(ctx, v->z, (int)v->n, SQLITE_STATIC);
      return SQLITE_OK;
    }
  }
  return column_other(cur, ctx, i);
}

/* xRowid: the reader's stable row id (a file offset or an index). */
static int tlRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  TlCursor *pCur = (TlCursor*)cur;
  int64_t i = pCur->row.iRowid;
  if( i==TL_ROWID_LAZY && pCur->pGroup ){
    if( tl_group_rowid(pCur->pGroup, pCur->iRepeat, &i)<0 ){
      return vtab_error(cur->pVtab, pCur->zPath, tl_group_err(pCur->pGroup));
    }
    pCur->row.iRowid = i;
  }else if( i==TL_ROWID_LAZY && pCur->pQuery ){
    /* a row counted from the index: the reader finds where it is */
    if( tl_query_rowid(pCur->pQuery, &pCur->row, pCur->iRepeat, &i)<0 ){
      return vtab_error(cur->pVtab, pCur->zPath, tl_query_err(pCur->pQuery));
    }
    pCur->row.iRowid = i;
  }
  *pRowid = i;
  return SQLITE_OK;
}

/*
** What xBestIndex works out, step by step (tlBestIndex).
*/
typedef struct TlPlan TlPlan;
struct TlPlan {
  char zOps[TL_PLAN_MAX_OPS+1];   /* idxStr letters, one per argv[] entry */
  int nOps;                       /* letters used */
  int iPath, iOptions;            /* aConstraint of path = / options =, or -1 */
  int bNoPath;                    /* no path at all: a plan not to pick */
  int bTsLo, bTsHi, bTsEq;        /* ts bounds pushed */
  int bCpu, bRowid, bKey, bType;  /* cpu, rowid, key and type = pushed */
  int bDepth;                     /* a depth range pushed */
  int bPlain;                     /* the options are known and say accel=off */
  TlTrace *pTrace;                /* the trace when path and options are known */
  uint64_t mCollapse;             /* TL_PLAN_COLLAPSE: the GROUP BY columns */
  int bInterrupted;               /* sqlite3_interrupt() stopped its opening */
};

/* Pass constraint i to xFilter as the next argv[] entry, under letter op. */
static void plan_use(sqlite3_index_info *pInfo, TlPlan *pPlan, int i, char op){
  pInfo->aConstraintUsage[i].argvIndex = pPlan->nOps + 1;
  pInfo->aConstraintUsage[i].omit = 1;
  pPlan->zOps[pPlan->nOps++] = op;
}

/*
** Path and options equality, first in argv. SQLITE_CONSTRAINT when one is
** there but not usable (an argument from a table not yet scanned: the
** planner must put that table outside; checking options = x after the scan
** would compare with the options column, and drop every row).
*/
static int plan_args(const TlVtab *p, sqlite3_index_info *pInfo, TlPlan *pPlan){
  const int iPathCol = p->pDef->nCol, iOptCol = p->pDef->nCol + 1;
  int i;
  for(i=0; i<pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *c = &pInfo->aConstraint[i];
    if( c->iColumn!=iPathCol && c->iColumn!=iOptCol ) continue;
    if( c->op!=SQLITE_INDEX_CONSTRAINT_EQ ) continue;
    if( !c->usable ) return SQLITE_CONSTRAINT;
    if( c->iColumn==iPathCol && pPlan->iPath<0 ) pPlan->iPath = i;
    if( c->iColumn==iOptCol && pPlan->iOptions<0 ) pPlan->iOptions = i;
  }
  /* No path and none from CREATE VIRTUAL TABLE: a plan SQLite should not
  ** pick, not an error here, because the planner also asks about each
  ** branch of an OR alone, without the path argument. If it is the only
  ** plan, xFilter says the trace is missing. */
  if( pPlan->iPath<0 && p->zPath==0 ) pPlan->bNoPath = 1;
  if( pPlan->iPath>=0 ) plan_use(pInfo, pPlan, pPlan->iPath, 'P');
  if( pPlan->iOptions>=0 ) plan_use(pInfo, pPlan, pPlan->iOptions, 'O');
  return SQLITE_OK;
}

/* The letter of a range constraint (op) for the letters of >, >=, <, <=, =. */
static char range_op(int op, const char *zLetters){
  switch( op ){
    case SQLITE_INDEX_CONSTRAINT_GT: return zLetters[0];
    case SQLITE_INDEX_CONSTRAINT_GE: return zLetters[1];
    case SQLITE_INDEX_CONSTRAINT_LT: return zLetters[2];
    case SQLITE_INDEX_CONSTRAINT_LE: return zLetters[3];
    case SQLITE_INDEX_CONSTRAINT_EQ: return zLetters[4];
    default: return 0;
  }
}

/*
** The plan letter of usable constraint i (see the top of this file), or 0
** when it is not pushed down; notes what it narrows in *pPlan.
*/
static char plan_constraint_op(const TlTableDef *pDef, sqlite3_index_info *pInfo,
                               int i, TlPlan *pPlan){
  const struct sqlite3_index_constraint *c = &pInfo->aConstraint[i];
  const int bEq = c->op==SQLITE_INDEX_CONSTRAINT_EQ;
  char op;
  if( c->iColumn>=0 && c->iColumn==pDef->iTsCol ){
    op = range_op(c->op, "gGlLe");
    if( op=='g' || op=='G' ) pPlan->bTsLo = 1;
    if( op=='l' || op=='L' ) pPlan->bTsHi = 1;
    if( op=='e' ) pPlan->bTsEq = 1;
    return op;
  }
  if( c->iColumn>=0 && c->iColumn==pDef->iCpuCol && bEq ){
    pPlan->bCpu = 1;
    if( have_vtab_in() && sqlite3_vtab_in(pInfo, i, -1) ){
      sqlite3_vtab_in(pInfo, i, 1);   /* all values at once */
      return 'C';
    }
    return 'c';
  }
  if( c->iColumn==-1 && bEq ){ pPlan->bRowid = 1; return 'r'; }
  if( c->iColumn>=0 && c->iColumn==pDef->iKeyCol && bEq ){ pPlan->bKey = 1; return 'k'; }
  if( pDef->iDepthCol>0 && c->iColumn==pDef->iDepthCol ){
    op = range_op(c->op, "xXyYq");
    if( op ) pPlan->bDepth = 1;
    return op;
  }
  if( pDef->iTypeCol>0 && c->iColumn==pDef->iTypeCol && bEq ){
    const char *zColl = sqlite3_vtab_collation(pInfo, i);
    if( zColl==0 || sqlite3_stricmp(zColl, "BINARY")==0 ){
      pPlan->bType = 1;
      return 't';
    }
  }
  return 0;
}

/* Push down every usable constraint the table knows, in argv order. */
static void plan_constraints(const TlTableDef *pDef, sqlite3_index_info *pInfo,
                             TlPlan *pPlan){
  int i;
  for(i=0; i<pInfo->nConstraint && pPlan->nOps<TL_PLAN_MAX_OPS; i++){
    char op;
    if( !pInfo->aConstraint[i].usable ) continue;
    op = plan_constraint_op(pDef, pInfo, i, pPlan);
    if( op ) plan_use(pInfo, pPlan, i, op);
  }
}

/*
** The options the scan will get, when they are known at planning time:
** CREATE VIRTUAL TABLE's (from xConnect) and those of an options argument
** whose value is a constant, merged as xFilter merges them. Returns 1 with
** *pOpts filled (the caller frees it), or 0.
*/
static int plan_options(const TlVtab *p, sqlite3_index_info *pInfo, int iOptions,
                        TlOpts *pOpts){
  TlErr err;
  tl_opts_init(pOpts);
  tl_err_clear(&err);
  if( tl_opts_parse(pOpts, p->zOptions, &err) ) goto plan_options_none;
  if( iOptions>=0 ){
    sqlite3_value *v = 0;
    if( sqlite3_vtab_rhs_value(pInfo, iOptions, &v)!=SQLITE_OK || v==0 ) goto plan_options_none;
    if( tl_value_has_nul(v) ) goto plan_options_none;
    if( tl_opts_parse(pOpts, (const char*)sqlite3_value_text(v), &err) ) goto plan_options_none;
  }
  return 1;

plan_options_none:
  tl_opts_free(pOpts);
  return 0;
}

/*
** If the options are known at planning time, note whether they say
** accel=off; if the path is known too, open the trace (it is cached for
** xFilter) so that the plan can use its size and reader.
*/
static void plan_trace(TlVtab *p, sqlite3_index_info *pInfo, TlPlan *pPlan){
  const char *zPath = p->zPath;
  struct stat st;
  TlOpts opts;
  TlErr err;
  if( !have_vtab_in() ) return;         /* sqlite3_vtab_rhs_value: 3.38 */
  if( !plan_options(p, pInfo, pPlan->iOptions, &opts) ) return;
  pPlan->bPlain = tl_trace_opts_plain(&opts);
  if( pPlan->iPath>=0 ){
    sqlite3_value *v = 0;
    if( sqlite3_vtab_rhs_value(pInfo, pPlan->iPath, &v)!=SQLITE_OK || v==0
     || tl_value_has_nul(v) ){         /* (a NUL: an error in xFilter) */
      zPath = 0;
    }else{
      zPath = (const char*)sqlite3_value_text(v);
    }
  }
  /* A FIFO can be read once: leave it to xFilter. */
  if( zPath && stat(zPath, &st)==0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) ){
    /* While no statement runs, SQLite clears the interrupt flag as a new
    ** one starts to parse: a statement of ours kept running (stepped once)
    ** lets vtab_interrupted() see it while the trace opens. */
    TlPoll poll, *pPrev;
    sqlite3_stmt *pKeep = 0;
    tl_err_clear(&err);
    if( sqlite3_prepare_v2(p->db, "SELECT 1", -1, &pKeep, 0)==SQLITE_OK ) sqlite3_step(pKeep);
    memset(&poll, 0, sizeof(poll));
    pPrev = vtab_poll_begin(&poll, p->db);
    if( tl_trace_open_for(zPath, &opts, p->pDef->iTable, (uint64_t)pInfo->colUsed, &pPlan->pTrace, &err) ){
      pPlan->pTrace = 0;
    }
    tl_poll_swap(pPrev);
    sqlite3_finalize(pKeep);
    /* interrupted while it planned: the statement fails to prepare, as
    ** SQLite's own parser makes it */
    if( err.rc==TL_EINTR ) pPlan->bInterrupted = 1;
  }
  tl_opts_free(&opts);
}

/* Is the query's one ORDER BY term for grouping only (GROUP BY, DISTINCT)? */
static int plan_distinct(sqlite3_index_info *pInfo){
  int e;
  if( !have_vtab_in() ) return 0;        /* sqlite3_vtab_distinct: 3.38 */
  e = sqlite3_vtab_distinct(pInfo);
  return e==1 || e==2;
}

/* The table's INTEGER columns (bit i: column i), from its declaration. */
static uint64_t def_int_cols(const TlTableDef *pDef){
  const char *z = pDef->zColumns;
  uint64_t m = 0;
  int i;
  for(i=0; z && *z && i<64; i++){
    const char *zType = strchr(z, ' ');
    const char *zEnd = strchr(z, ',');
    if( zType && (zEnd==0 || zType<zEnd) && strncmp(zType+1, "INTEGER", 7)==0 ) m |= (uint64_t)1<<i;
    if( zEnd==0 ) break;
    z = zEnd + 1;
    while( *z==' ' ) z++;
  }
  return m;
}

/*
** The engine's grouped output (TL_PLAN_COLLAPSE) for GROUP BY or DISTINCT
** on visible columns (every ORDER BY term one, rows only to be grouped):
** the GROUP BY columns (bit i: column i), or 0 when the plan cannot take
** it. The rows collapse by every used column but, for a GROUP BY, the
** INTEGER ones of about one value per row (the ts column, mPerRow): those
** vary within a group (tl_group_set_vary). Such a column grouped on, a
** text one used, or one used by a DISTINCT would make about as many
** entries as rows: SQLite's sorter does better.
*/
static uint64_t plan_collapse(const TlTableDef *pDef, sqlite3_index_info *pInfo,
                              const TlPlan *pPlan){
  sqlite3_uint64 mBy = 0, mUsed, mPerRow;
  int i;
  if( pPlan->bRowid || pDef->nCol>=63 || pInfo->nOrderBy<1 ) return 0;
  for(i=0; i<pInfo->nOrderBy; i++){
    int iCol = pInfo->aOrderBy[i].iColumn;
    if( iCol<0 || iCol>=pDef->nCol ) return 0;
    mBy |= (sqlite3_uint64)1<<iCol;
  }
  if( !plan_distinct(pInfo) ) return 0;
  mUsed = pInfo->colUsed & (((sqlite3_uint64)1<<pDef->nCol)-1);
  mPerRow = pDef->mPerRow | (pDef->iTsCol>=0 ? (sqlite3_uint64)1<<pDef->iTsCol : 0);
  if( (mUsed & mPerRow)==0 ) return mBy;
  if( (mBy & mPerRow)!=0 || sqlite3_vtab_distinct(pInfo)!=1 ) return 0;
  return (mUsed & mPerRow & ~def_int_cols(pDef))==0 ? mBy : 0;
}

/*
** Consume the ORDER BY when the reader can give that order without a
** sort: ascending ts when the trace scans in ts order (TL_PLAN_ORDERED);
** else, for GROUP BY or DISTINCT on any visible columns, equal values
** together by the engine (TL_PLAN_COLLAPSE, pPlan->mCollapse). Never under accel=off, and
** only when the trace is known.
*/
static void plan_order(const TlTableDef *pDef, sqlite3_index_info *pInfo,
                       TlPlan *pPlan){
  const TlTrace *pTrace = pPlan->pTrace;
  int iCol;
  if( pInfo->nOrderBy<1 || pPlan->bPlain ) return;
  iCol = pInfo->aOrderBy[0].iColumn;
  /* (no trace: the path or the options are bound parameters, not known
  ** yet; only the engine's grouping is open to the plan) */
  if( pTrace && pInfo->nOrderBy==1 && pDef->iTsCol>=0 && iCol==pDef->iTsCol && !pInfo->aOrderBy[0].desc
   && (pTrace->mOrdered & (1u<<pDef->iTable)) ){
    pInfo->orderByConsumed = 1;
    pInfo->idxNum |= TL_PLAN_ORDERED;
  }else if( (pPlan->mCollapse = plan_collapse(pDef, pInfo, pPlan))!=0 ){
    pInfo->orderByConsumed = 1;
    pInfo->idxNum |= TL_PLAN_COLLAPSE;
  }
}

/* The rows a full scan of the table gives, estimated (pTrace may be NULL). */
static double plan_rows(const TlTableDef *pDef, TlTrace *pTrace){
  double nRec = pTrace ? tl_trace_estimate(pTrace) : 1e6;
  switch( pDef->eRows ){
    case TL_ROWS_RECORDS: return nRec;
    case TL_ROWS_PACKETS: return pTrace ? (pTrace->index.n ? (double)pTrace->index.n : 1) : 1e3;
    case TL_ROWS_FEW:     return 20;
    default:              return nRec/100 + 10;
  }
}

/*
** For the engine's grouped output of a GROUP BY (sqlite3_vtab_distinct() 1):
** ":" and its terms, each the column in hex and '+' or '-', into z (see the
** top of this file); "" for DISTINCT, whose rows may come in any order.
*/
static void plan_order_terms(sqlite3_index_info *pInfo, char *z, size_t n){
  int i;
  size_t k;
  z[0] = 0;
  if( sqlite3_vtab_distinct(pInfo)!=1 ) return;
  k = (size_t)snprintf(z, n, ":");
  for(i=0; i<pInfo->nOrderBy && i<TL_MAX_NCOL && k<n; i++){
    k += (size_t)snprintf(z+k, n-k, "%x%c", (unsigned)pInfo->aOrderBy[i].iColumn,
                          pInfo->aOrderBy[i].desc ? '-' : '+');
  }
}

/* Rows and cost: nRows for a full scan, narrowed by what is pushed down. */
static void plan_cost(sqlite3_index_info *pInfo, const TlPlan *pPlan, double nRows){
  if( pPlan->bRowid ){
    nRows = 1;
    pInfo->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
  }else{
    if( pPlan->bTsEq ) nRows = nRows/1000 + 1;
    else if( pPlan->bTsLo && pPlan->bTsHi ) nRows = nRows/20 + 1;
    else if( pPlan->bTsLo || pPlan->bTsHi ) nRows = nRows/3 + 1;
    if( pPlan->bCpu ) nRows = nRows/2 + 1;
    if( pPlan->bKey ) nRows = nRows/1000 + 1;
    if( pPlan->bType ) nRows = nRows/2 + 1;
    if( pPlan->bDepth ) nRows = nRows/4 + 1;
  }
  pInfo->estimatedRows = (sqlite3_int64)nRows;
  pInfo->estimatedCost = 10.0 + nRows;
  if( pPlan->bNoPath ) pInfo->estimatedCost = 1e300;
}

/*
** xBestIndex: take path/options equality as arguments, ts ranges, cpu =/IN,
** rowid =, the key, type and depth columns as pushdown, consume ORDER BY
** when the reader gives that order, and estimate the cost from the index.
*/
static int tlBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  TlVtab *p = (TlVtab*)pVtab;
  const TlTableDef *pDef = p->pDef;
  TlPlan plan;
  int rc;

  memset(&plan, 0, sizeof(plan));
  plan.iPath = plan.iOptions = -1;
  rc = plan_args(p, pInfo, &plan);
  if( rc ) return rc;
  plan_constraints(pDef, pInfo, &plan);
  plan_trace(p, pInfo, &plan);
  if( plan.bInterrupted ){
    sqlite3_free(p->base.zErrMsg);
    p->base.zErrMsg = sqlite3_mprintf("interrupted");
    return SQLITE_INTERRUPT;
  }
  plan_order(pDef, pInfo, &plan);
  plan_cost(pInfo, &plan, plan_rows(pDef, plan.pTrace));
  tl_trace_release(plan.pTrace);

  plan.zOps[plan.nOps] = 0;
  if( plan.mCollapse ){
    char zOrd[TL_MAX_NCOL*4+2];
    plan_order_terms(pInfo, zOrd, sizeof(zOrd));
    pInfo->idxStr = sqlite3_mprintf("%s:%llx:%llx%s", plan.zOps,
        (unsigned long long)pInfo->colUsed, (unsigned long long)plan.mCollapse, zOrd);
  }else{
    pInfo->idxStr = sqlite3_mprintf("%s:%llx", plan.zOps,
                                    (unsigned long long)pInfo->colUsed);
  }
  if( pInfo->idxStr==0 ) return SQLITE_NOMEM;
  pInfo->needToFreeIdxStr = 1;
  return SQLITE_OK;
}

static const sqlite3_module tlModule = {
  .iVersion    = 0,
  .xCreate     = tlConnect,
  .xConnect    = tlConnect,
  .xBestIndex  = tlBestIndex,
  .xDisconnect = tlDisconnect,
  .xDestroy    = tlDisconnect,
  .xOpen       = tlOpen,
  .xClose      = tlClose,
  .xFilter     = tlFilter,
  .xNext       = tlNext,
  .xEof        = tlEof,
  .xColumn     = tlColumn,
  .xRowid      = tlRowid,
};

int tl_vtab_register(sqlite3 *db, const TlTableDef *pDef){
  union { const TlTableDef *pc; void *p; } u;   /* pAux is not const */
  u.pc = pDef;
  return sqlite3_create_module(db, pDef->zName, &tlModule, u.p);
}
