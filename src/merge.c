/*
** merge.c: the ts-order merge (merge.h). One reader scan per stream, each
** holding its current row; a heap of the streams that have one, by the
** row's ts. A row given stays the stream scan's until the next call, which
** moves that stream on first.
*/
#include "merge.h"

#include <stdlib.h>

#include "heap.h"

struct TlMerge {
  TlTrace *pTrace;
  const TlReaderDef *pReader;
  int nCol;                       /* the table's columns */
  int iTsCol;                     /* the column the rows are ordered by */
  int nScan;                      /* stream scans opened */
  TlScan **aScan;                 /* by stream, the streams not opened left out */
  TlRow *aRow;                    /* each scan's current row */
  TlVal *aVal;                    /* nCol values for each scan's rows */
  int64_t *aKey;                  /* each current row's ts (NULL: INT64_MIN) */
  TlHeap heap;                    /* the scans with a current row */
  int bStarted;                   /* every scan asked for its first row */
  int iLast;                      /* the scan whose row was given last, or -1 */
  int iErr;                       /* the scan that failed, or -1 */
  TlErr err;                      /* the merge's own error */
  uint64_t nHeld;                 /* bytes the stream scans hold decoded */
};

/*
** Which of the reader's nStream streams to open for filter f: aOpen[s]
** is 0 when the index has packets of stream s and none may match.
*/
static void merge_streams(const TlTrace *t, const TlFilter *f, int nStream, uint8_t *aOpen){
  const TlIndex *x = &t->index;
  size_t k;
  int s;
  for(s=0; s<nStream; s++) aOpen[s] = 2;    /* 2: no packet of it seen */
  for(k=0; k<x->n; k++){
    const TlPacket *p = &x->a[k];
    if( p->iStream<0 || p->iStream>=nStream ) continue;
    s = (int)p->iStream;
    if( aOpen[s]==1 ) continue;
    aOpen[s] = tl_packet_may_match(p, f->tsLo, f->tsHi, f->aCpu, f->nCpu) ? 1 : 0;
  }
}

/* Move scan i on to its next row: in the heap with its key, or out of it. */
static int merge_step(TlMerge *m, int i, int bInHeap){
  TlRow *r = &m->aRow[i];
  TlVal *a = &m->aVal[(size_t)i*(size_t)m->nCol];
  const TlVal *v;
  int rc, j;
  if( r->a==a || r->a==0 ){
    /* the reader wrote its last row into a (or none came yet) */
    for(j=0; j<m->nCol; j++) a[j].t = TL_NULL;
  }
  r->a = a;
  r->iRowid = 0;
  r->nRepeat = 0;
  r->aVary = 0;
  rc = m->pReader->xScanNext(m->aScan[i], r);
  if( rc<0 ){
    m->iErr = i;
    return rc;
  }
  if( rc!=TL_ROW ){
    if( bInHeap ) tl_heap_pop(&m->heap);
    return TL_OK;
  }
  v = &r->a[m->iTsCol];
  m->aKey[i] = v->t==TL_INT ? v->i : INT64_MIN;
  if( bInHeap ) tl_heap_top_moved(&m->heap);
  else tl_heap_push(&m->heap, i);
  return TL_OK;
}

int tl_merge_open(TlTrace *t, int iTable, int nCol, int iTsCol, const TlFilter *f,
                  TlMerge **ppMerge, TlErr *pErr){
  const TlReaderDef *r = t->pReader;
  TlMerge *m;
  uint8_t *aOpen;
  int nStream, s, rc = TL_OK;
  *ppMerge = 0;
  if( !f->bOrdered || f->bStream || r->xStreams==0 || iTsCol<0 || iTsCol>=nCol ) return TL_DONE;
  if( iTable<0 || iTable>=32 || !((t->mOrdered>>iTable) & 1) ) return TL_DONE;
  nStream = r->xStreams(t, iTable, f);
  if( nStream<=0 ) return TL_DONE;
  m = calloc(1, sizeof(*m));
  aOpen = malloc((size_t)nStream);
  if( m ) m->aScan = calloc((size_t)nStream, sizeof(TlScan*));
  if( m ) m->aRow = calloc((size_t)nStream, sizeof(TlRow));
  if( m ) m->aVal = calloc((size_t)nStream*(size_t)nCol, sizeof(TlVal));
  if( m ) m->aKey = calloc((size_t)nStream, sizeof(int64_t));
  if( m==0 || aOpen==0 || m->aScan==0 || m->aRow==0 || m->aVal==0 || m->aKey==0
   || tl_heap_init(&m->heap, nStream, m->aKey) ){
    free(aOpen);
    tl_merge_close(m);
    return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  m->pTrace = t;
  m->pReader = r;
  m->nCol = nCol;
  m->iTsCol = iTsCol;
  m->iLast = -1;
  m->iErr = -1;
  merge_streams(t, f, nStream, aOpen);
  for(s=0; s<nStream && rc==TL_OK; s++){
    TlFilter fs = *f;
    TlScan *pScan = 0;
    if( !aOpen[s] ) continue;
    fs.bStream = 1;
    fs.iStream = s;
    fs.pnHeld = &m->nHeld;
    rc = r->xScanOpen(t, iTable, &fs, &pScan, pErr);
    if( rc==TL_DONE ){ rc = TL_OK; continue; }
    if( rc==TL_OK && pScan ) m->aScan[m->nScan++] = pScan;
  }
  free(aOpen);
  if( rc ){
    tl_merge_close(m);
    return rc;
  }
  *ppMerge = m;
  return TL_OK;
}

int tl_merge_next(TlMerge *m, TlRow *pRow){
  int rc, i;
  if( m->iErr>=0 ) return m->pReader->xScanErr(m->aScan[m->iErr])->rc;
  if( !m->bStarted ){
    m->bStarted = 1;
    for(i=0; i<m->nScan; i++){
      rc = merge_step(m, i, 0);
      if( rc ) return rc;
    }
  }else if( m->iLast>=0 ){
    rc = merge_step(m, m->iLast, 1);
    if( rc ) return rc;
  }
  m->iLast = tl_heap_top(&m->heap);
  if( m->iLast<0 ) return TL_DONE;
  *pRow = m->aRow[m->iLast];
  return TL_ROW;
}

int tl_merge_rowid(TlMerge *m, int64_t iRepeat, int64_t *piRowid){
  if( m->iLast<0 || m->pReader->xScanRowid==0 ) return TL_OK;
  return m->pReader->xScanRowid(m->aScan[m->iLast], iRepeat, piRowid);
}

int tl_merge_value(TlMerge *m, int64_t iRepeat, int iCol, TlVal *pOut){
  if( m->iLast<0 || m->pReader->xScanValue==0 ) return TL_OK;
  return m->pReader->xScanValue(m->aScan[m->iLast], iRepeat, iCol, pOut);
}

const TlErr *tl_merge_err(TlMerge *m){
  if( m->iErr>=0 ) return m->pReader->xScanErr(m->aScan[m->iErr]);
  if( m->iLast>=0 ) return m->pReader->xScanErr(m->aScan[m->iLast]);
  return &m->err;
}

void tl_merge_close(TlMerge *m){
  int i;
  if( m==0 ) return;
  for(i=0; i<m->nScan; i++) m->pReader->xScanClose(m->aScan[i]);
  tl_heap_free(&m->heap);
  free(m->aScan);
  free(m->aRow);
  free(m->aVal);
  free(m->aKey);
  free(m);
}
