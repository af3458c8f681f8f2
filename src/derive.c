/*
** derive.c: tables derived from another table's rows (derive.h).
**
** A derived table is the rows of a source table summed by a model sum
** (src/model/): call_stats is the rows of calls summed per function
** (callstats.c), call_stacks the same rows summed per thread and call
** stack (stackstats.c). A query of one opens a query of the source on the
** same trace (so counted scans, grouped output, helper threads, progress=
** and accel= apply to that scan as to any other), asks for the columns the
** sum needs, and gives it every row; the rows are then the sum's. SQLite
** meets a row per function or stack, not a row per call.
**
** Each derived table is one entry of aDerive: its source, the columns
** read, and the four steps that adapt a row to its sum.
*/
#include "derive.h"

#include <stdlib.h>
#include <string.h>

#include "model/callstats.h"
#include "model/stackstats.h"
#include "trace.h"

#define COL(i) ((uint64_t)1<<(i))

typedef struct DeriveDef DeriveDef;
struct DeriveDef {
  int iTable;                     /* the derived table */
  int iFrom;                      /* the table whose rows it sums */
  uint64_t mCols;                 /* iFrom's columns the sum reads */
  const char *zWhat;              /* what grows, for the max_memory= error */
  void *(*xNew)(uint64_t nMaxBytes);
  int (*xAdd)(void*, const TlVal *aRow);     /* TL_OK, TL_ENOMEM, TL_ELIMIT */
  int (*xNext)(void*, TlVal *aOut);          /* 1, 0 after the last, -1 no memory */
  void (*xFree)(void*);
};

static int val_text(const TlVal *v, const char **pz, size_t *pn){
  if( v->t!=TL_TEXT ){ *pz = 0; *pn = 0; return 0; }
  *pz = v->z; *pn = v->n;
  return 1;
}

/* ---- call_stats: calls per function ----------------------------------- */

static void *cs_new(uint64_t nMax){ return tl_callstats_new(nMax); }
static void cs_free(void *p){ tl_callstats_free(p); }

static int cs_add(void *p, const TlVal *a){
  const char *z;
  size_t n;
  /* (a call still open at the end has no duration: not counted) */
  if( a[TL_XC_FUNC_ID].t!=TL_INT || a[TL_XC_DUR].t!=TL_INT ) return TL_OK;
  val_text(&a[TL_XC_NAME], &z, &n);
  return tl_callstats_add(p, a[TL_XC_FUNC_ID].i, z, n, a[TL_XC_DUR].i);
}

static int cs_next(void *p, TlVal *a){
  TlCallStat s;
  int rc = tl_callstats_next(p, &s);
  if( rc<=0 ) return rc;
  tl_val_int(&a[TL_CS_FUNC_ID], s.funcId);
  tl_val_textz(&a[TL_CS_NAME], s.zName);
  tl_val_int(&a[TL_CS_CALLS], (int64_t)s.nCalls);
  tl_val_int(&a[TL_CS_TOTAL_DUR], s.total);
  tl_val_int(&a[TL_CS_MIN_DUR], s.min);
  tl_val_int(&a[TL_CS_MED_DUR], s.med);
  tl_val_int(&a[TL_CS_P90_DUR], s.p90);
  tl_val_int(&a[TL_CS_P99_DUR], s.p99);
  tl_val_int(&a[TL_CS_MAX_DUR], s.max);
  return 1;
}

/* ---- call_stacks: calls per thread and stack ------------------------------ */

static void *ck_new(uint64_t nMax){ return tl_stackstats_new(nMax); }
static void ck_free(void *p){ tl_stackstats_free(p); }

static int ck_add(void *p, const TlVal *a){
  TlStackStat c;
  memset(&c, 0, sizeof(c));
  if( a[TL_XC_TID].t==TL_INT ){ c.bTid = 1; c.tid = a[TL_XC_TID].i; }
  val_text(&a[TL_XC_STACK], &c.zStack, &c.nStack);
  if( a[TL_XC_FUNC_ID].t==TL_INT ){ c.bFunc = 1; c.funcId = a[TL_XC_FUNC_ID].i; }
  val_text(&a[TL_XC_NAME], &c.zName, &c.nName);
  if( a[TL_XC_DEPTH].t==TL_INT ){ c.bDepth = 1; c.depth = a[TL_XC_DEPTH].i; }
  return tl_stackstats_add(p, &c, a[TL_XC_DUR].t==TL_INT, a[TL_XC_DUR].i);
}

static int ck_next(void *p, TlVal *a){
  TlStackStat s;
  int rc = tl_stackstats_next(p, &s);
  if( rc<=0 ) return rc;
  if( s.bTid ) tl_val_int(&a[TL_CK_TID], s.tid);
  if( s.bFunc ) tl_val_int(&a[TL_CK_FUNC_ID], s.funcId);
  if( s.zName ) tl_val_text(&a[TL_CK_NAME], s.zName, s.nName);
  if( s.zStack ) tl_val_text(&a[TL_CK_STACK], s.zStack, s.nStack);
  if( s.bDepth ) tl_val_int(&a[TL_CK_DEPTH], s.depth);
  tl_val_int(&a[TL_CK_CALLS], (int64_t)s.nDone);
  tl_val_int(&a[TL_CK_OPEN_CALLS], (int64_t)(s.nCalls - s.nDone));
  if( s.nDone ){
    tl_val_int(&a[TL_CK_TOTAL_DUR], s.total);
    tl_val_int(&a[TL_CK_MIN_DUR], s.min);
    tl_val_int(&a[TL_CK_MAX_DUR], s.max);
  }
  return 1;
}

static const DeriveDef aDerive[] = {
  { TL_TAB_CALL_STATS, TL_TAB_CALLS,
    COL(TL_XC_FUNC_ID) | COL(TL_XC_NAME) | COL(TL_XC_DUR),
    "call_stats: the calls' distinct durations", cs_new, cs_add, cs_next, cs_free },
  { TL_TAB_CALL_STACKS, TL_TAB_CALLS,
    COL(TL_XC_TID) | COL(TL_XC_STACK) | COL(TL_XC_FUNC_ID) | COL(TL_XC_NAME)
    | COL(TL_XC_DEPTH) | COL(TL_XC_DUR),
    "call_stacks: the threads' distinct stacks", ck_new, ck_add, ck_next, ck_free },
};

static const DeriveDef *derive_def(int iTable){
  size_t i;
  for(i=0; i<sizeof(aDerive)/sizeof(aDerive[0]); i++){
    if( aDerive[i].iTable==iTable ) return &aDerive[i];
  }
  return 0;
}

/* ---- the engine's side ----------------------------------------------------- */

struct TlDerive {
  const DeriveDef *pDef;
  void *pSum;
  int nCol;                       /* the derived table's columns */
  int64_t iRow;
  TlErr err;
};

int tl_derive_is(int iTable){
  return derive_def(iTable)!=0;
}

/* Repeat k of query q's row pRow, the columns of mCols, into a: TL_OK or
** < 0 (a lazy value asked for failed). */
static int derive_row(TlQuery *q, const TlRow *pRow, int64_t k, uint64_t mCols, int nCol,
                      TlVal *a){
  int j;
  for(j=0; j<nCol; j++){
    tl_val_null(&a[j]);
    if( (mCols>>j) & 1 ){
      int rc = tl_query_row_value(q, pRow, k, j, &a[j]);
      if( rc ) return rc;
    }
  }
  return TL_OK;
}

/* d's error after query q failed with rc (its own, else one naming rc). */
static int derive_fail(TlDerive *d, TlQuery *q, int rc){
  d->err = *tl_query_err(q);
  if( d->err.rc==0 ) tl_err_set(&d->err, rc, TL_NO_OFFSET, "reading rows failed");
  return d->err.rc;
}

/* Give the rows of query q to d's sum: TL_OK or < 0 with d->err set. */
static int derive_rows(TlDerive *d, TlQuery *q, int nFromCol, uint64_t nMax){
  TlVal a[TL_MAX_NCOL];
  TlRow row;
  int rc;
  memset(&row, 0, sizeof(row));
  while( (rc = tl_query_next(q, &row))==TL_ROW ){
    int64_t k, nRep = row.nRepeat>0 ? row.nRepeat : 1;
    for(k=0; k<nRep; k++){
      rc = derive_row(q, &row, k, d->pDef->mCols, nFromCol, a);
      if( rc ) return derive_fail(d, q, rc);
      rc = d->pDef->xAdd(d->pSum, a);
      if( rc==TL_ELIMIT ){
        return tl_err_set(&d->err, TL_ELIMIT, TL_NO_OFFSET,
                          "%s need more than max_memory=%llu MiB (raise max_memory=)",
                          d->pDef->zWhat, (unsigned long long)(nMax>>20));
      }
      if( rc ) return tl_err_set(&d->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    }
  }
  return rc<0 ? derive_fail(d, q, rc) : TL_OK;
}

int tl_derive_open(TlTrace *pTrace, int iTable, const TlFilter *pFilter, TlDerive **ppDerive,
                   TlErr *pErr){
  const DeriveDef *pDef = derive_def(iTable);
  TlDerive *d;
  TlQuery *q = 0;
  TlFilter f;
  uint64_t nMax = tl_trace_max_memory(pTrace);
  int rc, nFromCol;
  *ppDerive = 0;
  if( pDef==0 ) return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET, "no such derived table");
  nFromCol = tl_table_ncol(pDef->iFrom);
  d = calloc(1, sizeof(*d));
  if( d==0 || (d->pSum = pDef->xNew(nMax))==0 ){
    free(d);
    return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  d->pDef = pDef;
  d->nCol = tl_table_ncol(iTable);
  tl_err_clear(&d->err);
  memset(&f, 0, sizeof(f));
  f.tsLo = TL_TS_MIN;
  f.tsHi = TL_TS_MAX;
  f.nCpu = -1;
  f.mCols = pDef->mCols;
  f.eProgress = pFilter->eProgress;
  f.bPlain = pFilter->bPlain;
  rc = tl_query_open(pTrace, pDef->iFrom, &f, &q, pErr);
  if( rc==TL_OK ){
    rc = derive_rows(d, q, nFromCol, nMax);
    if( rc ) *pErr = d->err;
  }
  tl_query_close(q);
  if( rc ){
    tl_derive_close(d);
    return rc;
  }
  *ppDerive = d;
  return TL_OK;
}

int tl_derive_next(TlDerive *d, TlVal *a, int64_t *piRowid){
  int rc, j;
  if( d->err.rc ) return d->err.rc;
  for(j=0; j<d->nCol; j++) tl_val_null(&a[j]);
  rc = d->pDef->xNext(d->pSum, a);
  if( rc<0 ) return tl_err_set(&d->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  if( rc==0 ) return TL_DONE;
  *piRowid = d->iRow++;
  return TL_ROW;
}

const TlErr *tl_derive_err(TlDerive *d){
  return &d->err;
}

void tl_derive_close(TlDerive *d){
  if( d==0 ) return;
  if( d->pSum ) d->pDef->xFree(d->pSum);
  free(d);
}
