/*
** vtab_util.c: the shared virtual table machinery (see vtab_util.h).
**
** Plan encoding (xBestIndex -> xFilter). idxNum bit 1: the scan must return
** rows in ascending ts (ORDER BY ts consumed). idxStr is one letter per
** argv[] entry, in argv order, then ':' and colUsed in hex:
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
** Every pushed constraint is checked exactly again on each row before it
** is returned, so the reader's filtering is only an optimisation and the
** constraints can be omitted from SQLite's own checks.
*/
#include "vtab_util.h"
SQLITE_EXTENSION_INIT3

#include <math.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace.h"

#define TL_PLAN_ORDERED 1
#define TL_PLAN_GROUPED 2         /* TlFilter.bGroupName */
#define TL_PLAN_GROUPED_CPU 4     /* TlFilter.bGroupCpu */

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
  TlFilter filter;                /* what the scan was asked for */
  int64_t *aCpu;                  /* filter.aCpu storage (sqlite3_malloc) */
  char *zType;                    /* filter.zType storage (sqlite3_malloc) */
  size_t nType;                   /* its length */
  TlRow row;                      /* the current row */
  int64_t iRepeat;                /* which of row's repeats is current */
  int64_t nRepeatLeft;            /* repeats of row still to come */
  int bEof;                       /* no current row */
  char *zPath;                    /* path of this scan (sqlite3_malloc) */
  char *zOptions;                 /* options of this scan, or NULL */
};

/* ---- helpers ------------------------------------------------------------ */

/* Set the vtab's error message from a TlErr, naming the file; return rc. */
static int vtab_error(sqlite3_vtab *pVtab, const char *zPath, const TlErr *pErr){
  char zMsg[TL_ERR_MSG + 512];
  tl_err_format(pErr, zPath, zMsg, (int)sizeof(zMsg));
  sqlite3_free(pVtab->zErrMsg);
  pVtab->zErrMsg = sqlite3_mprintf("%s", zMsg);
  switch( pErr->rc ){
    case TL_ENOMEM:   return SQLITE_NOMEM;
    case TL_ECORRUPT: return SQLITE_CORRUPT_VTAB;
    default:          return SQLITE_ERROR;
  }
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

/* Does the current row pass every pushed constraint? */
static int row_matches(TlCursor *pCur){
  const TlTableDef *pDef = ((TlVtab*)pCur->base.pVtab)->pDef;
  const TlFilter *f = &pCur->filter;
  const TlVal *a = pCur->row.a;
  if( f->bRowid && pCur->row.iRowid!=f->iRowid ) return 0;
  if( pDef->iTsCol>=0 && (f->tsLo!=TL_TS_MIN || f->tsHi!=TL_TS_MAX) ){
    const TlVal *v = &a[pDef->iTsCol];
    if( v->t==TL_LAZY ){
      /* the reader vouches for every repeat */
    }else if( v->t!=TL_INT || v->i<f->tsLo || v->i>f->tsHi ) return 0;
  }
  if( pDef->iCpuCol>=0 && f->nCpu>=0 ){
    const TlVal *v = &a[pDef->iCpuCol];
    int lo = 0, hi = f->nCpu;
    if( v->t!=TL_INT ) return 0;
    while( lo<hi ){                 /* aCpu is sorted */
      int mid = (lo+hi)/2;
      if( f->aCpu[mid]<v->i ) lo = mid+1; else hi = mid;
    }
    if( lo>=f->nCpu || f->aCpu[lo]!=v->i ) return 0;
  }
  if( pDef->iKeyCol>=0 && f->bKey ){
    const TlVal *v = &a[pDef->iKeyCol];
    if( v->t!=TL_INT || v->i!=f->iKey ) return 0;
  }
  if( pDef->iDepthCol>0 && f->bDepth ){
    const TlVal *v = &a[pDef->iDepthCol];
    if( v->t!=TL_INT || v->i<f->depthLo || v->i>f->depthHi ) return 0;
  }
  if( pDef->iTypeCol>0 && f->zType ){
    const TlVal *v = &a[pDef->iTypeCol];
    if( v->t!=TL_TEXT || v->n!=pCur->nType || memcmp(v->z, f->zType, v->n)!=0 ) return 0;
  }
  return 1;
}

/* The reader's next row that passes the constraints (tlNext). */
static __attribute__((noinline)) int next_row(sqlite3_vtab_cursor *cur){
  TlCursor *pCur = (TlCursor*)cur;
  const TlTableDef *pDef = ((TlVtab*)cur->pVtab)->pDef;
  for(;;){
    int rc;
    if( pCur->pQuery==0 ){ pCur->bEof = 1; return SQLITE_OK; }
    rc = tl_query_next(pCur->pQuery, &pCur->row);
    if( rc==TL_DONE ){ pCur->bEof = 1; return SQLITE_OK; }
    if( rc<0 ){
      pCur->bEof = 1;
      return vtab_error(cur->pVtab, pCur->zPath, tl_query_err(pCur->pQuery));
    }
    if( row_matches(pCur) ){
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
  }
  return next_row(cur);
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

/*
** xFilter: open the trace (from the cache when it was opened before), turn
** the constraints into a TlFilter and start the reader's scan.
*/
static int tlFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr,
                    int argc, sqlite3_value **argv){
  TlCursor *pCur = (TlCursor*)cur;
  TlVtab *pTab = (TlVtab*)cur->pVtab;
  const TlTableDef *pDef = pTab->pDef;
  const char *zPath = pTab->zPath;
  const char *zOptions = pTab->zOptions;
  int bEmpty = 0;
  int i;
  int rc;
  TlErr err;
  const char *zColon;

  cursor_reset(pCur);
  memset(&pCur->filter, 0, sizeof(pCur->filter));
  pCur->filter.tsLo = TL_TS_MIN;
  pCur->filter.tsHi = TL_TS_MAX;
  pCur->filter.nCpu = -1;
  pCur->filter.bOrdered = (idxNum & TL_PLAN_ORDERED)!=0;
  pCur->filter.bGroupName = (idxNum & TL_PLAN_GROUPED)!=0;
  pCur->filter.bGroupCpu = (idxNum & TL_PLAN_GROUPED_CPU)!=0;
  pCur->filter.mCols = ~(uint64_t)0;
  if( idxStr==0 ) idxStr = "";
  zColon = strchr(idxStr, ':');
  if( zColon ) pCur->filter.mCols = strtoull(zColon+1, 0, 16);

  for(i=0; i<argc && idxStr[i] && idxStr[i]!=':'; i++){
    sqlite3_value *v = argv[i];
    int64_t x;
    switch( idxStr[i] ){
      case 'P':
        if( sqlite3_value_type(v)==SQLITE_NULL ){
          sqlite3_free(cur->pVtab->zErrMsg);
          cur->pVtab->zErrMsg = sqlite3_mprintf("%s: the trace path is NULL", pDef->zName);
          return SQLITE_ERROR;
        }
        zPath = (const char*)sqlite3_value_text(v);
        break;
      case 'O':
        zOptions = (const char*)sqlite3_value_text(v);
        break;
      case 'g': case 'G': case 'l': case 'L': case 'e':
        narrow_ts(idxStr[i], v, &pCur->filter.tsLo, &pCur->filter.tsHi, &bEmpty);
        break;
      case 'x': case 'X': case 'y': case 'Y': case 'q': {
        /* the same integer narrowing as ts, on the depth range */
        static const char azOp[] = "xgXGylYLqe";
        if( !pCur->filter.bDepth ){
          pCur->filter.bDepth = 1;
          pCur->filter.depthLo = INT64_MIN;
          pCur->filter.depthHi = INT64_MAX;
        }
        narrow_ts(strchr(azOp, idxStr[i])[1], v, &pCur->filter.depthLo,
                  &pCur->filter.depthHi, &bEmpty);
        break;
      }
      case 'c': {
        int64_t *a = sqlite3_malloc64(sizeof(int64_t));
        if( a==0 ) return SQLITE_NOMEM;
        if( rhs_exact_int(v, &x) ){
          a[0] = x;
          cpu_intersect(pCur, a, 1);
        }else{
          cpu_intersect(pCur, a, 0);
        }
        break;
      }
      case 'C': {
        sqlite3_value *pVal = 0;
        int n = 0, nAlloc = 16;
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
        cpu_intersect(pCur, a, n);
        break;
      }
      case 'r':
        if( rhs_exact_int(v, &x) ){
          if( pCur->filter.bRowid && pCur->filter.iRowid!=x ) bEmpty = 1;
          pCur->filter.bRowid = 1;
          pCur->filter.iRowid = x;
        }else{
          bEmpty = 1;
        }
        break;
      case 't':
        /* The column is TEXT: a number compares as its text; NULL and
        ** blobs equal no text. Two different values match nothing. */
        if( sqlite3_value_type(v)==SQLITE_NULL || sqlite3_value_type(v)==SQLITE_BLOB ){
          bEmpty = 1;
        }else{
          const char *z = (const char*)sqlite3_value_text(v);
          if( z==0 ) return SQLITE_NOMEM;
          if( pCur->zType ){
            if( strcmp(pCur->zType, z)!=0 ) bEmpty = 1;
          }else{
            pCur->zType = sqlite3_mprintf("%s", z);
            if( pCur->zType==0 ) return SQLITE_NOMEM;
            pCur->nType = strlen(z);
            pCur->filter.zType = pCur->zType;
          }
        }
        break;
      case 'k':
        if( rhs_exact_int(v, &x) ){
          if( pCur->filter.bKey && pCur->filter.iKey!=x ) bEmpty = 1;
          pCur->filter.bKey = 1;
          pCur->filter.iKey = x;
        }else{
          bEmpty = 1;
        }
        break;
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
  pCur->zPath = sqlite3_mprintf("%s", zPath);
  if( pCur->zPath==0 ) return SQLITE_NOMEM;
  if( zOptions ){
    pCur->zOptions = sqlite3_mprintf("%s", zOptions);
    if( pCur->zOptions==0 ) return SQLITE_NOMEM;
  }
  /* Options from CREATE VIRTUAL TABLE and from the call are merged. */
  if( pTab->zOptions && zOptions!=pTab->zOptions ){
    sqlite3_free(pCur->zOptions);
    pCur->zOptions = sqlite3_mprintf("%s,%s", pTab->zOptions, zOptions ? zOptions : "");
    if( pCur->zOptions==0 ) return SQLITE_NOMEM;
  }

  tl_err_clear(&err);
  rc = tl_trace_open(pCur->zPath, pCur->zOptions, &pCur->pTrace, &err);
  if( rc ) return vtab_error(cur->pVtab, pCur->zPath, &err);
  if( bEmpty ){
    pCur->bEof = 1;
    return SQLITE_OK;
  }
  pCur->filter.eProgress = tl_options_progress(pCur->zOptions);
  rc = tl_query_open(pCur->pTrace, pDef->iTable, &pCur->filter, &pCur->pQuery, &err);
  if( rc ) return vtab_error(cur->pVtab, pCur->zPath, &err);
  return tlNext(cur);
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
  if( i==TL_ROWID_LAZY && pCur->pQuery ){
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
** If the path is a constant known at planning time, open the trace (it is
** cached for xFilter) so that the plan can use its size and reader.
*/
static TlTrace *plan_trace(TlVtab *p, sqlite3_index_info *pInfo, int iPath,
                           int iOptions){
  const char *zPath = p->zPath;
  const char *zOptions = p->zOptions;
  sqlite3_value *v = 0;
  TlTrace *pTrace = 0;
  TlErr err;
  char *zOptBuf = 0;
  if( sqlite3_libversion_number() < 3038000 ) return 0;
  if( iPath>=0 ){
    if( sqlite3_vtab_rhs_value(pInfo, iPath, &v)!=SQLITE_OK || v==0 ) return 0;
    zPath = (const char*)sqlite3_value_text(v);
  }
  if( iOptions>=0 ){
    sqlite3_value *vo = 0;
    if( sqlite3_vtab_rhs_value(pInfo, iOptions, &vo)!=SQLITE_OK || vo==0 ) return 0;
    if( p->zOptions ){
      zOptBuf = sqlite3_mprintf("%s,%s", p->zOptions, (const char*)sqlite3_value_text(vo));
      if( zOptBuf==0 ) return 0;
      zOptions = zOptBuf;
    }else{
      zOptions = (const char*)sqlite3_value_text(vo);
    }
  }
  if( zPath==0 ){ sqlite3_free(zOptBuf); return 0; }
  {
    /* A FIFO can be read once: leave it to xFilter. */
    struct stat st;
    if( stat(zPath, &st) || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) ){
      sqlite3_free(zOptBuf);
      return 0;
    }
  }
  tl_err_clear(&err);
  if( tl_trace_open(zPath, zOptions, &pTrace, &err) ) pTrace = 0;
  sqlite3_free(zOptBuf);
  return pTrace;
}

/*
** xBestIndex: take path/options equality as arguments, ts ranges, cpu =/IN,
** rowid = and the key column as pushdown, consume ORDER BY ts when the
** reader merges in time order, and estimate the cost from the index.
*/
static int tlBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  TlVtab *p = (TlVtab*)pVtab;
  const TlTableDef *pDef = p->pDef;
  const int iPathCol = pDef->nCol, iOptCol = pDef->nCol + 1;
  char zPlan[64 + 20];
  int nPlan = 0;
  int nArg = 0;
  int i;
  int iPath = -1, iOptions = -1;
  int bArgUnusable = 0, bNoPath = 0;
  int bTsLo = 0, bTsHi = 0, bTsEq = 0, bCpu = 0, bRowid = 0, bKey = 0, bType = 0;
  int bDepth = 0, bDepthEq = 0;
  double nRows;
  TlTrace *pTrace;

  /* Path and options first: they come first in argv. */
  for(i=0; i<pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *c = &pInfo->aConstraint[i];
    if( c->iColumn!=iPathCol && c->iColumn!=iOptCol ) continue;
    if( c->op!=SQLITE_INDEX_CONSTRAINT_EQ ) continue;
    if( !c->usable ){
      /* An argument from a table not yet scanned: make the planner put
      ** that table outside (checking options = x after the scan would
      ** compare with the options column, and drop every row). */
      bArgUnusable = 1;
      continue;
    }
    if( c->iColumn==iPathCol && iPath<0 ) iPath = i;
    if( c->iColumn==iOptCol && iOptions<0 ) iOptions = i;
  }
  if( bArgUnusable ) return SQLITE_CONSTRAINT;
  if( iPath<0 ){
    /* No path and none from CREATE VIRTUAL TABLE: a plan SQLite should not
    ** pick, not an error here, because the planner also asks about each
    ** branch of an OR alone, without the path argument. If it is the only
    ** plan, xFilter says the trace is missing. */
    if( p->zPath==0 ) bNoPath = 1;
  }else{
    pInfo->aConstraintUsage[iPath].argvIndex = ++nArg;
    pInfo->aConstraintUsage[iPath].omit = 1;
    zPlan[nPlan++] = 'P';
  }
  if( iOptions>=0 ){
    pInfo->aConstraintUsage[iOptions].argvIndex = ++nArg;
    pInfo->aConstraintUsage[iOptions].omit = 1;
    zPlan[nPlan++] = 'O';
  }

  for(i=0; i<pInfo->nConstraint && nPlan<64; i++){
    const struct sqlite3_index_constraint *c = &pInfo->aConstraint[i];
    char op = 0;
    if( !c->usable ) continue;
    if( c->iColumn>=0 && c->iColumn==pDef->iTsCol ){
      switch( c->op ){
        case SQLITE_INDEX_CONSTRAINT_GT: op = 'g'; bTsLo = 1; break;
        case SQLITE_INDEX_CONSTRAINT_GE: op = 'G'; bTsLo = 1; break;
        case SQLITE_INDEX_CONSTRAINT_LT: op = 'l'; bTsHi = 1; break;
        case SQLITE_INDEX_CONSTRAINT_LE: op = 'L'; bTsHi = 1; break;
        case SQLITE_INDEX_CONSTRAINT_EQ: op = 'e'; bTsEq = 1; break;
        default: break;
      }
    }else if( c->iColumn>=0 && c->iColumn==pDef->iCpuCol
           && c->op==SQLITE_INDEX_CONSTRAINT_EQ ){
      op = 'c';
      if( have_vtab_in() && sqlite3_vtab_in(pInfo, i, -1) ){
        sqlite3_vtab_in(pInfo, i, 1);
        op = 'C';
      }
      bCpu = 1;
    }else if( c->iColumn==-1 && c->op==SQLITE_INDEX_CONSTRAINT_EQ ){
      op = 'r';
      bRowid = 1;
    }else if( c->iColumn>=0 && c->iColumn==pDef->iKeyCol
           && c->op==SQLITE_INDEX_CONSTRAINT_EQ ){
      op = 'k';
      bKey = 1;
    }else if( pDef->iDepthCol>0 && c->iColumn==pDef->iDepthCol ){
      switch( c->op ){
        case SQLITE_INDEX_CONSTRAINT_GT: op = 'x'; break;
        case SQLITE_INDEX_CONSTRAINT_GE: op = 'X'; break;
        case SQLITE_INDEX_CONSTRAINT_LT: op = 'y'; break;
        case SQLITE_INDEX_CONSTRAINT_LE: op = 'Y'; break;
        case SQLITE_INDEX_CONSTRAINT_EQ: op = 'q'; bDepthEq = 1; break;
        default: break;
      }
      if( op ) bDepth = 1;
    }else if( pDef->iTypeCol>0 && c->iColumn==pDef->iTypeCol
           && c->op==SQLITE_INDEX_CONSTRAINT_EQ ){
      const char *zColl = sqlite3_vtab_collation(pInfo, i);
      if( zColl==0 || sqlite3_stricmp(zColl, "BINARY")==0 ){
        op = 't';
        bType = 1;
      }
    }
    if( op ){
      pInfo->aConstraintUsage[i].argvIndex = ++nArg;
      pInfo->aConstraintUsage[i].omit = 1;
      zPlan[nPlan++] = op;
    }
  }

  pTrace = plan_trace(p, pInfo, iPath, iOptions);
  nRows = pTrace ? tl_trace_estimate(pTrace, pDef->iTable) : 1e6;

  if( pInfo->nOrderBy==1 && pDef->iTsCol>=0
   && pInfo->aOrderBy[0].iColumn==pDef->iTsCol && !pInfo->aOrderBy[0].desc
   && pTrace && (pTrace->mOrdered & (1u<<pDef->iTable)) ){
    pInfo->orderByConsumed = 1;
    pInfo->idxNum |= TL_PLAN_ORDERED;
  }else if( pInfo->nOrderBy==1 && pDef->iTable==TL_TAB_EVENTS
         /* (grouping only: the term's direction does not matter; SQLite
         ** gives GROUP BY the direction of an ORDER BY on an aggregate) */
         && pInfo->aOrderBy[0].iColumn==TL_EV_NAME
         && have_vtab_in() && (sqlite3_vtab_distinct(pInfo)==1 || sqlite3_vtab_distinct(pInfo)==2)
         && pDef->nCol<63 && (pInfo->colUsed & (((sqlite3_uint64)1<<pDef->nCol)-1))
                             ==(sqlite3_uint64)1<<TL_EV_NAME
         && pTrace && (pTrace->pReader->mGroupName & (1u<<pDef->iTable)) ){
    /* GROUP BY name or DISTINCT name over name alone: equal names together
    ** is all SQLite needs, which the reader gives without a sort. */
    pInfo->orderByConsumed = 1;
    pInfo->idxNum |= TL_PLAN_GROUPED;
  }else if( pInfo->nOrderBy==1 && pDef->iTable==TL_TAB_CALLCHAINS
         && pInfo->aOrderBy[0].iColumn==TL_CC_SYMBOL
         && have_vtab_in() && (sqlite3_vtab_distinct(pInfo)==1 || sqlite3_vtab_distinct(pInfo)==2)
         && pDef->nCol<63
         && ((pInfo->colUsed & (((sqlite3_uint64)1<<pDef->nCol)-1))==(sqlite3_uint64)1<<TL_CC_SYMBOL
             || (bDepthEq && (pInfo->colUsed & (((sqlite3_uint64)1<<pDef->nCol)-1))
                             ==(((sqlite3_uint64)1<<TL_CC_SYMBOL) | ((sqlite3_uint64)1<<TL_CC_DEPTH))))
         && pTrace && (pTrace->pReader->mGroupName & (1u<<pDef->iTable)) ){
    /* GROUP BY symbol over symbol alone (and one depth): the same */
    pInfo->orderByConsumed = 1;
    pInfo->idxNum |= TL_PLAN_GROUPED;
  }else if( pInfo->nOrderBy==1 && pDef->iTable==TL_TAB_XRAY_CALLS
         && pInfo->aOrderBy[0].iColumn==TL_XC_FUNC_ID && !bRowid
         && have_vtab_in() && (sqlite3_vtab_distinct(pInfo)==1 || sqlite3_vtab_distinct(pInfo)==2)
         && pDef->nCol<63
         && (pInfo->colUsed & (((sqlite3_uint64)1<<pDef->nCol)-1)
             & ~(((sqlite3_uint64)1<<TL_XC_FUNC_ID) | ((sqlite3_uint64)1<<TL_XC_NAME)
                 | ((sqlite3_uint64)1<<TL_XC_DUR)))==0
         && pTrace && (pTrace->pReader->mGroupName & (1u<<pDef->iTable)) ){
    /* xray_calls GROUP BY func_id over func_id, name, dur: the reader keeps
    ** the durs by function (a temporary file past a bound) and gives them
    ** function by function, so SQLite does not sort */
    pInfo->orderByConsumed = 1;
    pInfo->idxNum |= TL_PLAN_GROUPED;
  }else if( pInfo->nOrderBy==1 && pDef->iCpuCol>=0
         && pInfo->aOrderBy[0].iColumn==pDef->iCpuCol
         && have_vtab_in() && (sqlite3_vtab_distinct(pInfo)==1 || sqlite3_vtab_distinct(pInfo)==2)
         && pTrace && (pTrace->mGroupCpu & (1u<<pDef->iTable)) ){
    /* GROUP BY cpu or DISTINCT cpu: equal CPUs together, without a sort */
    pInfo->orderByConsumed = 1;
    pInfo->idxNum |= TL_PLAN_GROUPED_CPU;
  }
  tl_trace_release(pTrace);

  if( bRowid ){
    nRows = 1;
    pInfo->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
  }else{
    if( bTsEq ) nRows = nRows/1000 + 1;
    else if( bTsLo && bTsHi ) nRows = nRows/20 + 1;
    else if( bTsLo || bTsHi ) nRows = nRows/3 + 1;
    if( bCpu ) nRows = nRows/2 + 1;
    if( bKey ) nRows = nRows/1000 + 1;
    if( bType ) nRows = nRows/2 + 1;
    if( bDepth ) nRows = nRows/4 + 1;
  }
  pInfo->estimatedRows = (sqlite3_int64)nRows;
  pInfo->estimatedCost = 10.0 + nRows;
  if( bNoPath ) pInfo->estimatedCost = 1e300;

  zPlan[nPlan] = 0;
  pInfo->idxStr = sqlite3_mprintf("%s:%llx", zPlan,
                                  (unsigned long long)pInfo->colUsed);
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
