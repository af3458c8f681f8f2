/*
** group_vary.c: per-entry lists of varying values, spilled past a cap
** (group_vary.h).
*/
#include "group_vary.h"
#include "source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VARY_READ_WORDS 65536       /* words read back from a file at once */
#define VARY_FIRST_WORDS 64         /* a list's first allocation, doubled up to */
#define VARY_FULL_WORDS 32768       /* this: then a full array becomes a segment
                                    ** and the next is a new one (no copy) */

struct TlVarySeg {
  int64_t *a;                       /* tuples in memory (taken from another
                                    ** store), or NULL: */
  int iFd;                          /* in file aFd[iFd] */
  uint64_t iOff;                    /* at this offset */
  uint64_t n;                       /* words */
};

static void tl_vary_init(TlVary *p, int nW, uint64_t nCap){
  memset(p, 0, sizeof(*p));
  p->nW = nW>0 ? nW : 1;
  p->nCap = nCap;
  p->aFd[0] = -1;
  p->nFd = 1;
  p->iMovedTo = -1;
}

static void list_free(TlVaryList *l){
  size_t k;
  for(k=0; k<l->nSeg; k++) free(l->aSeg[k].a);
  free(l->aSeg);
  free(l->a);
  memset(l, 0, sizeof(*l));
}

static void tl_vary_free(TlVary *p){
  uint64_t nSpilled = p->nSpilled;
  size_t k;
  int i;
  for(k=0; k<p->nList; k++) list_free(&p->aList[k]);
  free(p->aList);
  for(i=0; i<p->nFd; i++) if( p->aFd[i]>=0 ) close(p->aFd[i]);
  tl_vary_init(p, p->nW, p->nCap);
  p->nSpilled = nSpilled;         /* (a count for tests, over the query) */
}

static int tl_vary_list_new(TlVary *p, size_t *piList, TlErr *pErr){
  if( p->nList==p->nListAlloc ){
    size_t nNew = p->nListAlloc ? p->nListAlloc*2 : 16;
    TlVaryList *aNew = realloc(p->aList, nNew*sizeof(TlVaryList));
    if( aNew==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    p->aList = aNew;
    p->nListAlloc = nNew;
  }
  memset(&p->aList[p->nList], 0, sizeof(TlVaryList));
  *piList = p->nList++;
  return TL_OK;
}

/* Room for one more segment in list l. */
static int seg_room(TlVaryList *l, TlErr *pErr){
  if( l->nSeg==l->nSegAlloc ){
    size_t nNew = l->nSegAlloc ? l->nSegAlloc*2 : 4;
    TlVarySeg *aNew = realloc(l->aSeg, nNew*sizeof(TlVarySeg));
    if( aNew==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    l->aSeg = aNew;
    l->nSegAlloc = nNew;
  }
  return TL_OK;
}

/* Memory a (n words, taken) as list l's last segment; l's current tuples,
** when a is them, are then none. */
static int seg_push_mem(TlVaryList *l, int64_t *a, uint64_t n, TlErr *pErr){
  int rc = seg_room(l, pErr);
  if( rc ){
    if( a!=l->a ) free(a);
    return rc;
  }
  l->aSeg[l->nSeg].a = a;
  l->aSeg[l->nSeg].iFd = 0;
  l->aSeg[l->nSeg].iOff = 0;
  l->aSeg[l->nSeg].n = n;
  l->nSeg++;
  if( a==l->a ){
    l->a = 0;
    l->n = l->nAlloc = 0;
  }
  return TL_OK;
}

/* Write n words at a to the store's own file (made on first use) at its end:
** TL_OK with *piOff, or < 0. */
static int file_write(TlVary *p, const int64_t *a, uint64_t n, uint64_t *piOff, TlErr *pErr){
  size_t nByte = (size_t)n*sizeof(int64_t), nDone = 0;
  if( p->aFd[0]<0 ){
    int rc = tl_tmpfile("GROUP BY", &p->aFd[0], pErr);
    if( rc ) return rc;
  }
  while( nDone<nByte ){
    ssize_t w = pwrite(p->aFd[0], (const char*)a + nDone, nByte - nDone, (off_t)(p->nTmp + nDone));
    if( w<=0 ){
      return tl_err_set(pErr, TL_EIO, TL_NO_OFFSET, "GROUP BY: cannot write the temporary file: %s",
                        w<0 ? strerror(errno) : "no space");
    }
    nDone += (size_t)w;
  }
  *piOff = p->nTmp;
  p->nTmp += nByte;
  p->nSpilled += nByte;
  return TL_OK;
}

/* Every tuple in memory out to the file, each list's as blocks in order. */
static int vary_spill(TlVary *p, TlErr *pErr){
  size_t k, j;
  int rc;
  for(k=0; k<p->nList; k++){
    TlVaryList *l = &p->aList[k];
    for(j=0; j<l->nSeg; j++){
      TlVarySeg *s = &l->aSeg[j];
      if( s->a==0 ) continue;
      rc = file_write(p, s->a, s->n, &s->iOff, pErr);
      if( rc ) return rc;
      free(s->a);
      s->a = 0;
      s->iFd = 0;
    }
    if( l->n ){
      TlVarySeg *s;
      rc = seg_room(l, pErr);
      if( rc ) return rc;
      s = &l->aSeg[l->nSeg];
      rc = file_write(p, l->a, l->n, &s->iOff, pErr);
      if( rc ) return rc;
      s->a = 0;
      s->iFd = 0;
      s->n = l->n;
      l->nSeg++;
    }
    /* (freed: the next tuples may be of other lists) */
    free(l->a);
    l->a = 0;
    l->n = l->nAlloc = 0;
  }
  p->nMem = 0;
  return TL_OK;
}

static int tl_vary_add(TlVary *p, size_t iList, const int64_t *a, uint64_t n, TlErr *pErr){
  TlVaryList *l = &p->aList[iList];
  size_t nW = (size_t)p->nW;
  while( n>0 ){
    uint64_t nFit;
    if( l->n + nW > l->nAlloc ){
      size_t nFull = VARY_FULL_WORDS*nW;
      size_t nNew = l->nAlloc ? (l->nAlloc>=nFull ? nFull : l->nAlloc*2) : VARY_FIRST_WORDS*nW;
      size_t nMore = l->nAlloc>=nFull ? nFull : nNew - l->nAlloc;
      int64_t *aNew;
      if( p->nMem + nMore*sizeof(int64_t) > p->nCap && p->nMem>0 ){
        int rc = vary_spill(p, pErr);
        if( rc ) return rc;
        nNew = nMore = VARY_FIRST_WORDS*nW;
      }
      if( l->nAlloc>=nFull ){
        /* a full array: a segment of its own, the next one new */
        int rc = seg_push_mem(l, l->a, l->n, pErr);
        if( rc ) return rc;
        aNew = malloc(nFull*sizeof(int64_t));
      }else{
        aNew = realloc(l->a, nNew*sizeof(int64_t));
      }
      if( aNew==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
      p->nMem += nMore*sizeof(int64_t);
      l->a = aNew;
      l->nAlloc = nNew;
    }
    nFit = (l->nAlloc - l->n)/nW;
    if( nFit>n ) nFit = n;
    if( nW==1 && nFit==1 ){
      l->a[l->n++] = a[0];
    }else{
      uint64_t i;
      for(i=0; i<nFit; i++, l->n+=nW) memcpy(l->a + l->n, a, nW*sizeof(int64_t));
    }
    n -= nFit;
  }
  return TL_OK;
}

/* tl_vary_add() of one row where its list has room (the usual case). */
static int tl_vary_add1(TlVary *p, size_t iList, const int64_t *a, TlErr *pErr){
  TlVaryList *l = &p->aList[iList];
  if( p->nW==1 && l->n<l->nAlloc ){
    l->a[l->n++] = a[0];
    return TL_OK;
  }
  return tl_vary_add(p, iList, a, 1, pErr);
}

/* The files of pSrc become p's (once): the index in p of pSrc's file 0. */
static int vary_adopt(TlVary *p, TlVary *pSrc, TlErr *pErr){
  int i;
  if( pSrc->iMovedTo>=0 ) return pSrc->iMovedTo;
  if( p->nFd + pSrc->nFd > TL_VARY_FILES ){
    return tl_err_set(pErr, TL_ELIMIT, TL_NO_OFFSET, "GROUP BY: too many temporary files");
  }
  pSrc->iMovedTo = p->nFd;
  p->nSpilled += pSrc->nSpilled;
  for(i=0; i<pSrc->nFd; i++){
    p->aFd[p->nFd++] = pSrc->aFd[i];
    pSrc->aFd[i] = -1;
  }
  return pSrc->iMovedTo;
}

static int tl_vary_take(TlVary *p, size_t iDst, TlVary *pSrc, size_t iSrc, TlErr *pErr){
  TlVaryList *d = &p->aList[iDst], *s = &pSrc->aList[iSrc];
  size_t k;
  int rc, iBase = vary_adopt(p, pSrc, pErr);
  if( iBase<0 ){
    list_free(s);
    return iBase;
  }
  /* d's tuples in memory first become a segment (the order is kept) */
  if( d->n ){
    rc = seg_push_mem(d, d->a, d->n, pErr);
    if( rc ) goto done;
  }
  for(k=0; k<s->nSeg; k++){
    rc = seg_room(d, pErr);
    if( rc ) goto done;
    d->aSeg[d->nSeg] = s->aSeg[k];
    if( s->aSeg[k].a==0 ) d->aSeg[d->nSeg].iFd += iBase;
    else{
      p->nMem += s->aSeg[k].n*sizeof(int64_t);
      pSrc->nMem -= s->aSeg[k].n*sizeof(int64_t);
    }
    s->aSeg[k].a = 0;
    d->nSeg++;
  }
  s->nSeg = 0;
  if( s->n ){
    int64_t *a = s->a;
    p->nMem += s->nAlloc*sizeof(int64_t);
    pSrc->nMem -= s->nAlloc*sizeof(int64_t);
    s->a = 0;
    rc = seg_push_mem(d, a, s->n, pErr);
    if( rc ) goto done;
  }
  rc = TL_OK;
 done:
  list_free(s);
  return rc;
}

static void tl_vary_read_begin(const TlVary *p, size_t iList, TlVaryRead *r){
  memset(r, 0, sizeof(*r));
  r->pList = &p->aList[iList];
}

/* Read n words at offset iOff of file fd into a. */
static int file_read(int fd, int64_t *a, size_t n, uint64_t iOff, TlErr *pErr){
  size_t nDone = 0;
  while( nDone < n*sizeof(int64_t) ){
    ssize_t r = pread(fd, (char*)a + nDone, n*sizeof(int64_t) - nDone, (off_t)(iOff + nDone));
    if( r<=0 ){
      return tl_err_set(pErr, TL_EIO, TL_NO_OFFSET, "GROUP BY: cannot read the temporary file "
                        "back: %s", r<0 ? strerror(errno) : "it is shorter than written");
    }
    nDone += (size_t)r;
  }
  return TL_OK;
}

static int tl_vary_read_next(const TlVary *p, TlVaryRead *r, const int64_t **pa, size_t *pn,
                      TlErr *pErr){
  const TlVaryList *l = r->pList;
  size_t nW = (size_t)p->nW;
  for(;;){
    if( r->nLeft>0 ){
      const TlVarySeg *s = &l->aSeg[r->iSeg-1];
      size_t n = r->nLeft > VARY_READ_WORDS ? VARY_READ_WORDS - VARY_READ_WORDS%nW : (size_t)r->nLeft;
      int rc;
      if( r->aBuf==0 ){
        r->aBuf = malloc(VARY_READ_WORDS*sizeof(int64_t));
        if( r->aBuf==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
      }
      rc = file_read(p->aFd[s->iFd], r->aBuf, n, r->iOff, pErr);
      if( rc ) return rc;
      r->iOff += n*sizeof(int64_t);
      r->nLeft -= n;
      *pa = r->aBuf;
      *pn = n/nW;
      return TL_ROW;
    }
    if( r->bDone ) return TL_DONE;
    if( r->iSeg<l->nSeg ){
      const TlVarySeg *s = &l->aSeg[r->iSeg++];
      if( s->n==0 ) continue;
      if( s->a ){
        *pa = s->a;
        *pn = (size_t)s->n/nW;
        return TL_ROW;
      }
      r->iOff = s->iOff;
      r->nLeft = s->n;
      continue;
    }
    r->bDone = 1;
    if( l->n==0 ) return TL_DONE;
    *pa = l->a;
    *pn = l->n/nW;
    return TL_ROW;
  }
}

static void tl_vary_read_end(TlVaryRead *r){
  free(r->aBuf);
  r->aBuf = 0;
}

/* ---- the varying columns of a grouped output ------------------------------ */

void tl_gvary_init(TlGroupVary *p){
  memset(p, 0, sizeof(*p));
  tl_vary_init(&p->store, 1, 0);
}

void tl_gvary_set(TlGroupVary *p, uint64_t mVary, int nCol){
  int c;
  tl_gvary_free(p);
  p->mVary = mVary;
  p->nW = 0;
  for(c=0; c<nCol && c<TL_MAX_NCOL; c++){
    if( mVary>>c & 1 ){
      p->aWCol[p->nW] = c;
      p->aWOf[c] = p->nW++;
    }
  }
  tl_vary_init(&p->store, p->nW, 0);
}

void tl_gvary_row(TlGroupVary *p, const TlVal *aRow){
  int i;
  p->bRow = 0;
  for(i=0; i<p->nW; i++){
    const TlVal *v = &aRow[p->aWCol[i]];
    int bInt = v->t==TL_INT;
    p->aW[i] = bInt ? v->i : 0;
    p->bRow |= bInt;
  }
}

/* List *piList (1 + index), made if 0. */
static int gvary_list(TlGroupVary *p, size_t *piList, TlErr *pErr){
  size_t i = 0;
  int rc;
  if( *piList ) return TL_OK;
  rc = tl_vary_list_new(&p->store, &i, pErr);
  if( rc==TL_OK ) *piList = i + 1;
  return rc;
}

int tl_gvary_note(TlGroupVary *p, size_t *piList, uint64_t n, uint64_t nCap, TlErr *pErr){
  int rc = gvary_list(p, piList, pErr);
  if( rc ) return rc;
  p->store.nCap = p->nCap ? p->nCap : nCap;
  if( n==1 ) return tl_vary_add1(&p->store, *piList-1, p->aW, pErr);
  return tl_vary_add(&p->store, *piList-1, p->aW, n, pErr);
}

int tl_gvary_merge(TlGroupVary *p, size_t *piDst, TlGroupVary *pSrc, size_t iSrc, TlErr *pErr){
  int rc = gvary_list(p, piDst, pErr);
  if( rc ) return rc;
  return tl_vary_take(&p->store, *piDst-1, &pSrc->store, iSrc-1, pErr);
}

void tl_gvary_reset(TlGroupVary *p){
  if( p->bOut ) tl_vary_read_end(&p->vr);
  p->bOut = 0;
  tl_vary_free(&p->store);
}

void tl_gvary_free(TlGroupVary *p){
  tl_gvary_reset(p);
}

void tl_gvary_begin(TlGroupVary *p, size_t iList){
  tl_vary_read_begin(&p->store, iList-1, &p->vr);
  p->bOut = 1;
  p->nChunk = p->iChunk = 0;
  p->nGiven = 0;
}

int tl_gvary_next(TlGroupVary *p, TlVal *aVal, int nCol, TlRow *pRow, uint64_t nWant,
                  uint64_t *piBase, TlErr *pErr){
  const int64_t *a;
  size_t nRun = 1, nW = (size_t)p->nW;
  int c;
  if( p->iChunk>=p->nChunk ){
    int rc = tl_vary_read_next(&p->store, &p->vr, &p->aChunk, &p->nChunk, pErr);
    if( rc!=TL_ROW ){
      tl_vary_read_end(&p->vr);
      p->bOut = 0;
      if( rc==TL_DONE && p->nGiven!=nWant ){
        return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET, "GROUP BY: an entry's values were lost");
      }
      return rc;
    }
    p->iChunk = 0;
  }
  a = p->aChunk + p->iChunk*nW;
  for(c=0; c<nCol; c++){
    if( (p->mVary>>c & 1) && aVal[c].t==TL_INT ) aVal[c].i = a[p->aWOf[c]];
  }
  if( nW==1 ){
    /* the rest of the chunk as one row, its column varying */
    nRun = p->nChunk - p->iChunk;
    pRow->aVary = a;
    pRow->iVary = p->aWCol[0];
  }else{
    while( p->iChunk + nRun < p->nChunk && memcmp(a, a + nRun*nW, nW*sizeof(int64_t))==0 ) nRun++;
  }
  pRow->nRepeat = (int64_t)nRun;
  *piBase = p->nGiven;
  p->nGiven += nRun;
  p->iChunk += nRun;
  return TL_ROW;
}

uint64_t tl_gvary_spilled(const TlGroupVary *p){
  return p->store.nSpilled;
}
