/*
** count.c: counted scans (count.h). One row per packet that holds rows
** passing the filter, standing for them (TlRow.nRepeat); the reader counts
** them by its cheapest means and answers rowids and values when asked.
*/
#include "count.h"

#include <stdlib.h>

struct TlCount {
  TlTrace *pTrace;
  const TlReaderDef *pReader;
  TlFilter f;                     /* the scan's filter (aCpu borrowed) */
  void *pState;                   /* the reader's */
  int nCol;                       /* the table's columns */
  uint64_t mLazy;                 /* columns counted rows give (the used ones and
                                  ** those the filter is about, unused or not):
                                  ** TL_LAZY unless the reader fixes them */
  size_t iNext;                   /* next packet to count */
  size_t iCur;                    /* the current row's packet */
  uint64_t nCur;                  /* its rows */
  TlErr err;
};

/* The columns of a table of nCol columns (not the hidden ones). */
static uint64_t visible_cols(int nCol){
  return nCol>=64 ? ~(uint64_t)0 : (((uint64_t)1<<nCol) - 1);
}

/*
** May a scan with filter f be counted by the trace's reader? 1 with
** *pmCols the columns counted rows give (the used ones among them), or 0.
*/
static int count_allowed(const TlTrace *pTrace, int iTable, int nCol, const TlFilter *f,
                         uint64_t *pmCols){
  const TlReaderDef *r = pTrace->pReader;
  if( !r->xCountCols || !r->xCountOpen || !r->xPacketCount || !r->xPacketValue ) return 0;
  if( f->bPlain || f->bOrdered ) return 0;
  if( f->bRowid || f->bKey || f->bDepth ) return 0;
  if( iTable<0 || iTable>=32 || !((r->mCount>>iTable) & 1) ) return 0;
  *pmCols = r->xCountCols(pTrace, iTable, f) & visible_cols(nCol);
  return (f->mCols & visible_cols(nCol) & ~*pmCols)==0;
}

int tl_count_open(TlTrace *pTrace, int iTable, int nCol, const TlFilter *f, TlCount **ppCount,
                  TlErr *pErr){
  TlCount *c;
  uint64_t mCols = 0;
  int rc;
  *ppCount = 0;
  if( !count_allowed(pTrace, iTable, nCol, f, &mCols) ) return TL_DONE;
  c = calloc(1, sizeof(*c));
  if( c==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  rc = pTrace->pReader->xCountOpen(pTrace, iTable, f, &c->pState, pErr);
  if( rc ){
    free(c);
    return rc;
  }
  c->pTrace = pTrace;
  c->pReader = pTrace->pReader;
  c->f = *f;
  c->nCol = nCol;
  c->mLazy = mCols;
  c->iCur = SIZE_MAX;
  tl_err_clear(&c->err);
  *ppCount = c;
  return TL_OK;
}

int tl_count_next(TlCount *c, TlRow *pRow){
  const TlIndex *x = &c->pTrace->index;
  const TlFilter *f = &c->f;
  TlVal *a = pRow->a;
  if( c->err.rc ) return c->err.rc;
  while( c->iNext < x->n ){
    size_t i = c->iNext++;
    uint64_t n = 0;
    int j, rc;
    if( !tl_packet_may_match(&x->a[i], f->tsLo, f->tsHi, f->aCpu, f->nCpu) ) continue;
    for(j=0; j<c->nCol; j++) a[j].t = (c->mLazy>>j & 1) ? TL_LAZY : TL_NULL;
    rc = c->pReader->xPacketCount(c->pState, i, &n, a, &c->err);
    if( rc<0 ){
      if( c->err.rc==0 ) tl_err_set(&c->err, rc, TL_NO_OFFSET, "counting a packet failed");
      return c->err.rc;
    }
    if( n==0 ) continue;
    c->iCur = i;
    c->nCur = n;
    pRow->iRowid = TL_ROWID_LAZY;
    pRow->nRepeat = (int64_t)n;
    return TL_ROW;
  }
  return TL_DONE;
}

/* Column iCol (-1: rowid) of repeat iRepeat of the current row. */
static int count_value(TlCount *c, int64_t iRepeat, int iCol, TlVal *pOut){
  int rc;
  if( c->err.rc ) return c->err.rc;
  if( c->iCur==SIZE_MAX || iRepeat<0 || (uint64_t)iRepeat>=c->nCur ){
    return tl_err_set(&c->err, TL_EMISUSE, TL_NO_OFFSET, "no counted row %lld",
                      (long long)iRepeat);
  }
  rc = c->pReader->xPacketValue(c->pState, c->iCur, (uint64_t)iRepeat, iCol, pOut, &c->err);
  if( rc<0 && c->err.rc==0 ) tl_err_set(&c->err, rc, TL_NO_OFFSET, "a counted row's value failed");
  return rc<0 ? c->err.rc : TL_OK;
}

int tl_count_rowid(TlCount *c, int64_t iRepeat, int64_t *piRowid){
  TlVal v;
  int rc;
  tl_val_null(&v);
  rc = count_value(c, iRepeat, -1, &v);
  if( rc ) return rc;
  *piRowid = v.i;
  return TL_OK;
}

int tl_count_value(TlCount *c, int64_t iRepeat, int iCol, TlVal *pOut){
  tl_val_null(pOut);
  if( iCol<0 || iCol>=c->nCol ) return TL_OK;
  return count_value(c, iRepeat, iCol, pOut);
}

const TlErr *tl_count_err(TlCount *c){
  return &c->err;
}

void tl_count_close(TlCount *c){
  if( c==0 ) return;
  if( c->pReader->xCountClose ) c->pReader->xCountClose(c->pState);
  free(c);
}
