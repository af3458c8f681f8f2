/*
** reorder.c: records put back in time order (reorder.h).
*/
#include "reorder.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "num.h"

#define REORDER_BLK ((size_t)64<<10)    /* a block's bytes for records */

typedef struct TlReorderRec TlReorderRec;
struct TlReorderRec {
  int64_t ts;
  uint64_t iSeq;                  /* the order it came in */
  TlReorderRec *pNext;            /* the next of its run */
  uint32_t iBlk;                  /* its block */
  uint32_t nHead, nBody;
  uint32_t unused;
  /* then the header (nHead rounded up to 8 bytes), then the body */
};

typedef struct TlReorderBlk TlReorderBlk;
struct TlReorderBlk {
  size_t n, nAlloc;               /* bytes used, bytes after this struct */
  uint64_t nLive;                 /* its records not yet given back (the
                                  ** one given back last counts until the
                                  ** next pop) */
};

typedef struct TlReorderRun TlReorderRun;
struct TlReorderRun {
  TlReorderRec *pHead, *pTail;    /* its records, least first; NULL: empty */
  int64_t tsHead; uint64_t iSeqHead;  /* its head's (the heap's key) */
  int64_t tsTail;                 /* its last record's time */
  uint32_t iLane;                 /* the lane it takes records of */
};

static size_t round8(size_t n){ return (n + 7) & ~(size_t)7; }

void tl_reorder_init(TlReorder *q, uint64_t nMax){
  int k;
  memset(q, 0, sizeof(*q));
  q->nMax = nMax;
  q->iCur = UINT32_MAX;
  for(k=0; k<=TL_REORDER_LANES; k++) q->aLane[k] = -1;
}

void tl_reorder_free(TlReorder *q){
  uint32_t k;
  for(k=0; k<q->nBlk; k++) free(q->aBlk[k]);
  free(q->aBlk);
  free(q->aBlkFree);
  free(q->pSpare);
  free(q->aRun);
  free(q->aRunFree);
  free(q->aHeap);
  tl_reorder_init(q, q->nMax);
}

/* Does run x's head come before run y's? */
static int run_less(const TlReorder *q, uint32_t x, uint32_t y){
  const TlReorderRun *a = &q->aRun[x], *b = &q->aRun[y];
  return a->tsHead<b->tsHead || (a->tsHead==b->tsHead && a->iSeqHead<b->iSeqHead);
}

static void heap_down(TlReorder *q, uint32_t i){
  uint32_t *h = q->aHeap, v = h[i];
  for(;;){
    uint32_t c = 2*i+1;
    if( c>=q->nHeap ) break;
    if( c+1<q->nHeap && run_less(q, h[c+1], h[c]) ) c++;
    if( !run_less(q, h[c], v) ) break;
    h[i] = h[c];
    i = c;
  }
  h[i] = v;
}

static void heap_up(TlReorder *q, uint32_t i){
  uint32_t *h = q->aHeap, v = h[i];
  while( i>0 && run_less(q, v, h[(i-1)/2]) ){
    h[i] = h[(i-1)/2];
    i = (i-1)/2;
  }
  h[i] = v;
}

/* Room in array *pa (of *pnAlloc elements of sz bytes) for element n, by
** tl_grow: TL_OK, or an error when memory or the limit says no (the bytes
** added are counted). */
static int grow(TlReorder *q, void **pa, uint32_t n, size_t *pnAlloc, size_t sz){
  size_t nOld = *pnAlloc;
  void *aNew;
  if( n<nOld ) return TL_OK;
  if( n>=UINT32_MAX/4 ) return TL_ELIMIT;
  /* (tl_grow doubles the room, 64 elements at first) */
  if( q->nBytes + (uint64_t)(nOld ? nOld : 64)*sz > q->nMax ) return TL_ELIMIT;
  aNew = tl_grow(*pa, pnAlloc, n, sz);
  if( aNew==0 ) return TL_ENOMEM;
  q->nBytes += (uint64_t)(*pnAlloc - nOld)*sz;
  *pa = aNew;
  return TL_OK;
}

/* A block no record needs: kept as the spare (one of the usual size), or freed. */
static void blk_release(TlReorder *q, uint32_t i){
  TlReorderBlk *b = q->aBlk[i];
  if( q->pSpare==0 && b->nAlloc==REORDER_BLK ){
    q->pSpare = b;
  }else{
    q->nBytes -= sizeof(TlReorderBlk) + b->nAlloc;
    free(b);
  }
  q->aBlk[i] = 0;
  q->aBlkFree[q->nBlkFree++] = i;
}

/* A block with room for need bytes becomes the one records go to. */
static int blk_new(TlReorder *q, size_t need){
  size_t nAlloc = need>REORDER_BLK ? need : REORDER_BLK;
  TlReorderBlk *b;
  uint32_t i;
  int rc;
  if( q->nBlkFree==0 ){
    rc = grow(q, (void**)&q->aBlk, q->nBlk, &q->nBlkAlloc, sizeof(TlReorderBlk*));
    if( rc==TL_OK ) rc = grow(q, (void**)&q->aBlkFree, q->nBlk, &q->nBlkFreeAlloc, sizeof(uint32_t));
    if( rc ) return rc;
    q->aBlk[q->nBlk] = 0;
    q->aBlkFree[q->nBlkFree++] = q->nBlk++;
  }
  if( q->pSpare && q->pSpare->nAlloc>=nAlloc ){
    b = q->pSpare;
    q->pSpare = 0;
  }else{
    if( q->nBytes + sizeof(TlReorderBlk) + nAlloc > q->nMax ) return TL_ELIMIT;
    b = malloc(sizeof(TlReorderBlk) + nAlloc);
    if( b==0 ) return TL_ENOMEM;
    b->nAlloc = nAlloc;
    q->nBytes += sizeof(TlReorderBlk) + nAlloc;
  }
  b->n = 0;
  b->nLive = 0;
  i = q->aBlkFree[--q->nBlkFree];
  q->aBlk[i] = b;
  /* the block before: freed now if nothing in it is held */
  if( q->iCur!=UINT32_MAX && q->aBlk[q->iCur]->nLive==0 ) blk_release(q, q->iCur);
  q->iCur = i;
  return TL_OK;
}

/* A run for a lane's records from now on: its index, or an error (< 0). */
static int64_t run_new(TlReorder *q, uint32_t iLane){
  uint32_t i;
  TlReorderRun *r;
  if( q->nRunFree ){
    i = q->aRunFree[--q->nRunFree];
  }else{
    /* (every run may be free, or in the heap) */
    int rc = grow(q, (void**)&q->aRun, q->nRun, &q->nRunAlloc, sizeof(TlReorderRun));
    if( rc==TL_OK ) rc = grow(q, (void**)&q->aRunFree, q->nRun, &q->nRunFreeAlloc, sizeof(uint32_t));
    if( rc==TL_OK ) rc = grow(q, (void**)&q->aHeap, q->nRun, &q->nHeapAlloc, sizeof(uint32_t));
    if( rc ) return rc;
    i = q->nRun++;
  }
  r = &q->aRun[i];
  memset(r, 0, sizeof(*r));
  r->iLane = iLane;
  q->aLane[iLane] = (int32_t)i;
  return i;
}

size_t tl_reorder_rec_bytes(size_t nHead, size_t nBody){
  return sizeof(TlReorderRec) + round8(nHead) + round8(nBody);
}

int tl_reorder_push(TlReorder *q, int64_t ts, uint32_t iLane,
                    const void *pHead, size_t nHead, const void *pBody, size_t nBody){
  size_t need;
  TlReorderBlk *b;
  TlReorderRec *p;
  TlReorderRun *r;
  int64_t iRun;
  if( nHead>UINT32_MAX/2 || nBody>UINT32_MAX/2 ) return TL_ELIMIT;
  need = tl_reorder_rec_bytes(nHead, nBody);
  if( q->iCur==UINT32_MAX || q->aBlk[q->iCur]->nAlloc - q->aBlk[q->iCur]->n < need ){
    int rc = blk_new(q, need);
    if( rc ) return rc;
  }
  if( iLane>TL_REORDER_LANES ) iLane = TL_REORDER_LANES;
  /* its lane's run, unless it is earlier than the run's last */
  iRun = q->aLane[iLane];
  if( iRun<0 || (q->aRun[iRun].pHead && ts<q->aRun[iRun].tsTail) ){
    iRun = run_new(q, iLane);
    if( iRun<0 ) return (int)iRun;
  }
  b = q->aBlk[q->iCur];
  p = (TlReorderRec*)((uint8_t*)(b+1) + b->n);
  b->n += need;
  b->nLive++;
  p->ts = ts;
  p->iSeq = q->iSeq++;
  p->pNext = 0;
  p->iBlk = q->iCur;
  p->nHead = (uint32_t)nHead;
  p->nBody = (uint32_t)nBody;
  p->unused = 0;
  if( nHead ) memcpy(p+1, pHead, nHead);
  if( nBody ) memcpy((uint8_t*)(p+1) + round8(nHead), pBody, nBody);
  r = &q->aRun[iRun];
  if( r->pHead==0 ){
    r->pHead = r->pTail = p;
    r->tsHead = ts;
    r->iSeqHead = p->iSeq;
    q->aHeap[q->nHeap++] = (uint32_t)iRun;
    heap_up(q, q->nHeap-1);
  }else{
    r->pTail->pNext = p;
    r->pTail = p;
  }
  r->tsTail = ts;
  q->nRec++;
  return TL_OK;
}

int tl_reorder_least(const TlReorder *q, int64_t *pTs){
  if( q->nHeap==0 ) return 0;
  *pTs = q->aRun[q->aHeap[0]].tsHead;
  return 1;
}

int tl_reorder_pop(TlReorder *q, void **ppHead, const uint8_t **ppBody, size_t *pnBody){
  uint32_t iRun;
  TlReorderRun *r;
  TlReorderRec *p;
  if( q->pOut ){
    /* the record given back last is no longer needed, nor maybe its block */
    uint32_t iBlk = q->pOut->iBlk;
    q->pOut = 0;
    if( --q->aBlk[iBlk]->nLive==0 ){
      if( iBlk!=q->iCur ) blk_release(q, iBlk);
      else q->aBlk[iBlk]->n = 0;            /* records go to its start again */
    }
  }
  if( q->nHeap==0 ) return 0;
  iRun = q->aHeap[0];
  r = &q->aRun[iRun];
  p = r->pHead;
  r->pHead = p->pNext;
  if( r->pHead ){
    r->tsHead = r->pHead->ts;
    r->iSeqHead = r->pHead->iSeq;
    heap_down(q, 0);
  }else{
    r->pTail = 0;
    q->aHeap[0] = q->aHeap[--q->nHeap];
    if( q->nHeap ) heap_down(q, 0);
    /* a run its lane has left behind is done with */
    if( q->aLane[r->iLane]!=(int32_t)iRun ) q->aRunFree[q->nRunFree++] = iRun;
  }
  q->pOut = p;
  q->nRec--;
  *ppHead = p+1;
  *ppBody = (const uint8_t*)(p+1) + round8(p->nHead);
  *pnBody = p->nBody;
  return 1;
}
