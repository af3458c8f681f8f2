/*
** derive.c: tables derived from another table's rows (derive.h).
**
** call_stats is the rows of calls summed per function. A query of it opens
** a query of calls on the same trace (so counted scans, helper threads,
** progress= and accel= apply to that scan as to any other), asks for the
** three columns the sums need, and gives every finished call to the
** model's sum (src/model/callstats.c); the rows are then the model's, one
** per function. SQLite meets a row per function, not a row per call.
*/
#include "derive.h"

#include <stdlib.h>
#include <string.h>

#include "model/callstats.h"
#include "trace.h"

struct TlDerive {
  TlCallStats *pStats;
  int64_t iRow;
  TlErr err;
};

int tl_derive_is(int iTable){
  return iTable==TL_TAB_CALL_STATS;
}

/* Column iCol of repeat k of query q's row pRow into *pV (a lazy one asked
** for, a varying one from aVary): TL_OK or < 0. */
static int derive_value(TlQuery *q, const TlRow *pRow, int64_t k, int iCol, TlVal *pV){
  if( pRow->aVary && pRow->iVary==iCol && pRow->nRepeat>0 ){
    tl_val_int(pV, pRow->aVary[k]);
    return TL_OK;
  }
  if( pRow->a[iCol].t!=TL_LAZY ){
    *pV = pRow->a[iCol];
    return TL_OK;
  }
  return tl_query_value(q, k, iCol, pV);
}

/* Sum the calls of query q into d: TL_OK or < 0 with d->err set. */
static int derive_calls(TlDerive *d, TlQuery *q, uint64_t nMax){
  TlRow row;
  int rc;
  memset(&row, 0, sizeof(row));
  while( (rc = tl_query_next(q, &row))==TL_ROW ){
    int64_t k, nRep = row.nRepeat>0 ? row.nRepeat : 1;
    for(k=0; k<nRep; k++){
      TlVal vId, vName, vDur;
      if( derive_value(q, &row, k, TL_XC_FUNC_ID, &vId)
       || derive_value(q, &row, k, TL_XC_NAME, &vName)
       || derive_value(q, &row, k, TL_XC_DUR, &vDur) ){
        d->err = *tl_query_err(q);
        return d->err.rc ? d->err.rc : tl_err_set(&d->err, TL_EIO, TL_NO_OFFSET, "reading calls failed");
      }
      /* (a call still open at the end has no duration: not counted) */
      if( vId.t!=TL_INT || vDur.t!=TL_INT ) continue;
      rc = tl_callstats_add(d->pStats, vId.i, vName.t==TL_TEXT ? vName.z : 0,
                            vName.t==TL_TEXT ? vName.n : 0, vDur.i);
      if( rc==TL_ELIMIT ){
        return tl_err_set(&d->err, TL_ELIMIT, TL_NO_OFFSET,
            "call_stats: the calls' distinct durations need more than max_memory=%llu MiB"
            " (raise max_memory=)", (unsigned long long)(nMax>>20));
      }
      if( rc ) return tl_err_set(&d->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    }
  }
  if( rc<0 ){
    d->err = *tl_query_err(q);
    if( d->err.rc==0 ) tl_err_set(&d->err, rc, TL_NO_OFFSET, "reading calls failed");
    return d->err.rc;
  }
  return TL_OK;
}

int tl_derive_open(TlTrace *pTrace, int iTable, const TlFilter *pFilter, TlDerive **ppDerive,
                   TlErr *pErr){
  TlDerive *d;
  TlQuery *q = 0;
  TlFilter f;
  uint64_t nMax = tl_trace_max_memory(pTrace);
  int rc;
  *ppDerive = 0;
  if( !tl_derive_is(iTable) ) return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET, "no such derived table");
  d = calloc(1, sizeof(*d));
  if( d==0 || (d->pStats = tl_callstats_new(nMax))==0 ){
    free(d);
    return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  tl_err_clear(&d->err);
  memset(&f, 0, sizeof(f));
  f.tsLo = TL_TS_MIN;
  f.tsHi = TL_TS_MAX;
  f.nCpu = -1;
  f.mCols = ((uint64_t)1<<TL_XC_FUNC_ID) | ((uint64_t)1<<TL_XC_NAME) | ((uint64_t)1<<TL_XC_DUR);
  f.eProgress = pFilter->eProgress;
  f.bPlain = pFilter->bPlain;
  rc = tl_query_open(pTrace, TL_TAB_CALLS, &f, &q, pErr);
  if( rc==TL_OK ){
    rc = derive_calls(d, q, nMax);
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
  TlCallStat s;
  int rc, j;
  if( d->err.rc ) return d->err.rc;
  rc = tl_callstats_next(d->pStats, &s);
  if( rc<0 ) return tl_err_set(&d->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  if( rc==0 ) return TL_DONE;
  for(j=0; j<TL_CS_NCOL; j++) tl_val_null(&a[j]);
  tl_val_int(&a[TL_CS_FUNC_ID], s.funcId);
  tl_val_textz(&a[TL_CS_NAME], s.zName);
  tl_val_int(&a[TL_CS_CALLS], (int64_t)s.nCalls);
  tl_val_int(&a[TL_CS_TOTAL_DUR], s.total);
  tl_val_int(&a[TL_CS_MIN_DUR], s.min);
  tl_val_int(&a[TL_CS_MED_DUR], s.med);
  tl_val_int(&a[TL_CS_P90_DUR], s.p90);
  tl_val_int(&a[TL_CS_P99_DUR], s.p99);
  tl_val_int(&a[TL_CS_MAX_DUR], s.max);
  *piRowid = d->iRow++;
  return TL_ROW;
}

const TlErr *tl_derive_err(TlDerive *d){
  return &d->err;
}

void tl_derive_close(TlDerive *d){
  if( d==0 ) return;
  tl_callstats_free(d->pStats);
  free(d);
}
