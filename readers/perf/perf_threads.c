/*
** perf_threads.c: the thread list of a perf.data trace (tracks, the events'
** track column), built on first use by a walk of its own.
*/
#include "perf_scan.h"

#include <stdlib.h>
#include <string.h>

#include "map.h"

#define PERF_MAX_THREADS   (1u<<20)

/* Empty the thread list (its array stays allocated). */
void perf_threads_clear(PerfData *p){
  size_t k;
  for(k=0; k<p->nThread; k++){ free(p->aThread[k].zComm); free(p->aThread[k].zCommFirst); }
  p->nThread = 0;
  p->bTidReused = 0;
  tl_map_free(&p->threads);
  tl_map_init(&p->threads);
}

/* What the thread list needs from one record, held until its round ends. */
typedef struct ThrRec ThrRec;
struct ThrRec {
  int64_t ts;                     /* its time, else the last time before it */
  uint64_t iSeq;                  /* file order */
  int64_t pid, tid;               /* the record's (for FORK the parent's) */
  int64_t bodyTid;                /* FORK/EXIT: the thread born or ended */
  char *zComm;                    /* COMM: the new name (owned) */
  uint8_t type, bTs, bTid, bBody;
};
#define PERF_THR_BUF_MAX (1u<<18)  /* records held before applying them anyway */

/* The thread list being built. */
typedef struct ThrCtx ThrCtx;
struct ThrCtx {
  TlTrace *pTrace;
  PerfData *p;
  int bThreadCap;
  ThrRec *aThr; size_t nThr, nThrAlloc;
  uint64_t iSeq;
  int64_t tsCarry;
};

/*
** Threads. A tid the kernel reuses names several threads: a FORK of tid T
** at time t, after an EXIT of T's latest thread whose records all came
** before t, starts a new thread of T. A record belongs to the thread of its
** tid that started last at or before its time (records without a time to
** the first), both while the file is first walked and when it is scanned,
** as perf attributes samples after processing events in time order.
*/
static uint32_t thread_find(const PerfData *p, int64_t tid, int bTs, int64_t ts){
  uint32_t i;
  if( !tl_map_get(&p->threads, (uint64_t)tid, &i) ) return UINT32_MAX;
  while( p->aThread[i].iPrev!=UINT32_MAX && (!bTs || p->aThread[i].tsStart>ts) ){
    i = p->aThread[i].iPrev;
  }
  return i;
}

int64_t perf_track_id(const PerfData *p, int64_t tid, int bTs, int64_t ts){
  uint32_t i;
  if( !p->bTidReused || (i = thread_find(p, tid, bTs, ts))==UINT32_MAX ) return tid;
  return p->aThread[i].id;
}

/* A new thread of tid (a later one if iPrev is not UINT32_MAX); NULL at the cap. */
static PerfThread *thread_new(ThrCtx *c, int64_t tid, uint32_t iPrev, int64_t tsStart, int *pRc){
  PerfData *p = c->p;
  PerfThread *t;
  if( p->nThread>=PERF_MAX_THREADS ){
    if( !c->bThreadCap ){
      tl_trace_warn(c->pTrace, 0, TL_NO_OFFSET,
          "more than %u threads: tracks lists the first %u", PERF_MAX_THREADS, PERF_MAX_THREADS);
      c->bThreadCap = 1;
    }
    return 0;
  }
  if( p->nThread==p->nThreadAlloc ){
    size_t nNew = p->nThreadAlloc ? p->nThreadAlloc*2 : 64;
    PerfThread *aNew = realloc(p->aThread, nNew*sizeof(PerfThread));
    if( aNew==0 ){ *pRc = TL_ENOMEM; return 0; }
    p->aThread = aNew;
    p->nThreadAlloc = nNew;
  }
  t = &p->aThread[p->nThread];
  memset(t, 0, sizeof(*t));
  t->tid = tid;
  t->pid = -1;
  t->iPrev = iPrev;
  t->tsStart = tsStart;
  t->id = iPrev==UINT32_MAX ? tid : p->aThread[iPrev].id + ((int64_t)1<<32);
  if( tl_map_put(&p->threads, (uint64_t)tid, (uint32_t)p->nThread) ){ *pRc = TL_ENOMEM; return 0; }
  if( iPrev!=UINT32_MAX ) p->bTidReused = 1;
  p->nThread++;
  return t;
}

/* The thread a record of tid at ts belongs to, created if new. */
static PerfThread *thread_get(ThrCtx *c, int64_t tid, int bTs, int64_t ts, int *pRc){
  uint32_t i = thread_find(c->p, tid, bTs, ts);
  if( i!=UINT32_MAX ) return &c->p->aThread[i];
  return thread_new(c, tid, UINT32_MAX, INT64_MIN, pRc);
}

static int cmp_thr(const void *a, const void *b){
  const ThrRec *x = a, *y = b;
  if( x->ts!=y->ts ) return x->ts < y->ts ? -1 : 1;
  return x->iSeq < y->iSeq ? -1 : x->iSeq > y->iSeq;
}

/*
** Sort the held records by (ts, file order). A round is the contents of
** perf's per-CPU buffers one after another, so it is a few runs already in
** order: find them and merge them pairwise (a stable merge keeps file order
** on equal times). Returns nonzero, sorting nothing, when out of memory.
*/
static int thr_sort(ThrCtx *c){
  size_t n = c->nThr, nRun = 0, k;
  size_t *aRun;                   /* run starts, then n */
  ThrRec *aSrc = c->aThr, *aDst;
  for(k=1; k<n; k++) if( aSrc[k].ts<aSrc[k-1].ts ) nRun++;
  if( nRun==0 ) return 0;
  aRun = malloc((nRun+2)*sizeof(size_t));
  aDst = malloc(n*sizeof(ThrRec));
  if( aRun==0 || aDst==0 ){ free(aRun); free(aDst); return 1; }
  nRun = 0;
  aRun[nRun++] = 0;
  for(k=1; k<n; k++) if( aSrc[k].ts<aSrc[k-1].ts ) aRun[nRun++] = k;
  aRun[nRun] = n;
  while( nRun>1 ){
    size_t r, nOut = 0;
    ThrRec *aTmp;
    for(r=0; r<nRun; r+=2){
      size_t i = aRun[r], iEnd = aRun[r+1];
      size_t j = iEnd, jEnd = r+2<=nRun ? aRun[r+2] : iEnd;
      size_t o = i;
      if( r+1>=nRun ) jEnd = j;
      while( i<iEnd && j<jEnd ){
        if( aSrc[j].ts<aSrc[i].ts ) aDst[o++] = aSrc[j++];
        else aDst[o++] = aSrc[i++];
      }
      while( i<iEnd ) aDst[o++] = aSrc[i++];
      while( j<jEnd ) aDst[o++] = aSrc[j++];
      aRun[nOut++] = aRun[r];
    }
    aRun[nOut] = n;
    nRun = nOut;
    aTmp = aSrc; aSrc = aDst; aDst = aTmp;
  }
  if( aSrc!=c->aThr ){
    memcpy(c->aThr, aSrc, n*sizeof(ThrRec));
    aDst = aSrc;
  }
  free(aDst);
  free(aRun);
  return 0;
}

/*
** Apply the held records to the thread list in time order. Records of
** different CPUs interleave within a round, so a new thread's first sample
** may come before the FORK that made it: sorting the round first is what
** lets a FORK that reuses a tid start the new thread before its records.
*/
static int thread_flush(ThrCtx *c){
  PerfData *p = c->p;
  size_t k;
  int rc = TL_OK;
  /* The last tid looked up, while it names one thread only and no thread
  ** was added since: most records repeat the tid before them. */
  int64_t tidLast = 0;
  uint32_t iCached = UINT32_MAX;
  size_t nThreadLast = 0;
  if( c->nThr>1 && thr_sort(c) ) qsort(c->aThr, c->nThr, sizeof(ThrRec), cmp_thr);
  for(k=0; k<c->nThr && rc==TL_OK; k++){
    ThrRec *e = &c->aThr[k];
    PerfThread *t;
    uint32_t iLast;
    if( e->bBody && e->bTs ){
      if( e->type==PERF_EXIT ){
        t = thread_get(c, e->bodyTid, 1, e->ts, &rc);
        if( t ) t->bExited = 1;
      }else if( tl_map_get(&p->threads, (uint64_t)e->bodyTid, &iLast) ){
        /* FORK of a tid whose latest thread has ended: a new thread */
        const PerfThread *last = &p->aThread[iLast];
        if( last->bExited && last->bTs && last->tsLast<e->ts && e->ts>last->tsStart ){
          thread_new(c, e->bodyTid, iLast, e->ts, &rc);
        }
      }
      if( rc ) break;
    }
    if( !e->bTid ) continue;
    if( iCached!=UINT32_MAX && e->tid==tidLast && p->nThread==nThreadLast ){
      t = &p->aThread[iCached];
    }else{
      uint32_t iLatest;
      t = thread_get(c, e->tid, e->bTs, e->ts, &rc);
      if( t==0 ) continue;
      iCached = UINT32_MAX;
      if( t->iPrev==UINT32_MAX && tl_map_get(&p->threads, (uint64_t)e->tid, &iLatest)
       && &p->aThread[iLatest]==t ){
        tidLast = e->tid;
        iCached = iLatest;
        nThreadLast = p->nThread;
      }
    }
    t->nEvents++;
    if( e->pid>=0 ) t->pid = e->pid;
    if( e->type==PERF_SAMPLE ) t->nSamples++;
    if( e->bTs ){
      if( !t->bTs || e->ts<t->tsFirst ) t->tsFirst = e->ts;
      if( !t->bTs || e->ts>t->tsLast ) t->tsLast = e->ts;
      t->bTs = 1;
    }
    if( e->zComm ){
      if( t->zCommFirst==0 ){
        t->zCommFirst = strdup(e->zComm);
        if( t->zCommFirst==0 ) rc = TL_ENOMEM;
      }
      free(t->zComm);
      t->zComm = e->zComm;
      e->zComm = 0;
    }
  }
  for(k=0; k<c->nThr; k++) free(c->aThr[k].zComm);
  c->nThr = 0;
  return rc;
}

/* Hold what the thread list needs from record r; applied at the round's end. */
static int thread_note(ThrCtx *c, const PerfRec *r, const RecInfo *ri){
  ThrRec *e;
  int64_t pid, tid;
  int bBody = (r->type==PERF_FORK || r->type==PERF_EXIT) && body_pid_tid(r, &pid, &tid);
  if( !ri->bTid && !bBody ) return TL_OK;
  if( c->nThr>=PERF_THR_BUF_MAX ){
    int rc = thread_flush(c);
    if( rc ) return rc;
  }
  if( c->nThr==c->nThrAlloc ){
    size_t nNew = c->nThrAlloc ? c->nThrAlloc*2 : 256;
    ThrRec *aNew = realloc(c->aThr, nNew*sizeof(ThrRec));
    if( aNew==0 ) return TL_ENOMEM;
    c->aThr = aNew;
    c->nThrAlloc = nNew;
  }
  e = &c->aThr[c->nThr];
  memset(e, 0, sizeof(*e));
  if( ri->bTs ) c->tsCarry = ri->ts;
  e->ts = ri->bTs ? ri->ts : c->tsCarry;
  e->iSeq = c->iSeq++;
  e->bTs = (uint8_t)ri->bTs;
  e->bTid = (uint8_t)ri->bTid;
  e->pid = ri->pid;
  e->tid = ri->tid;
  e->type = (uint8_t)r->type;
  e->bBody = (uint8_t)bBody;
  if( bBody ) e->bodyTid = tid;
  if( r->type==PERF_COMM && ri->bTid ){
    TlBytes cb = r->body;
    const char *z;
    size_t n;
    if( tl_bytes_skip(&cb, 8)==0 && tl_bytes_cstr(&cb, &z, &n)==0 ){
      e->zComm = tl_strndup(z, n);
      if( e->zComm==0 ) return TL_ENOMEM;
    }
  }
  c->nThr++;
  return TL_OK;
}

/*
** The thread list (tracks, the events' track column), built on first use
** by a walk of its own: a query that needs neither does not pay for it.
** Records are attributed as the index walk would: a damaged record ends
** the walk (the open warned about it), a sample too short is skipped.
*/
static int threads_build(TlTrace *pTrace, PerfData *p, TlErr *pErr){
  ThrCtx c;
  PerfWalk w;
  PerfRec r;
  RecInfo ri;
  size_t k;
  int rc;
  memset(&c, 0, sizeof(c));
  c.pTrace = pTrace;
  c.p = p;
  perf_walk_init(&w, pTrace, p->bo, p->iData, p->iData + p->nData, pErr);
  for(;;){
    rc = perf_walk_next(&w, &r);
    if( rc==TL_DONE ){ rc = TL_OK; break; }
    if( rc==TL_ECORRUPT ){ tl_err_clear(pErr); rc = TL_OK; break; }
    if( rc<0 ) break;
    if( tl_perf_type_name(r.type)==0 || rec_info(p, &r, &ri) ) continue;
    rc = thread_note(&c, &r, &ri);
    if( rc==TL_OK && r.type==PERF_FINISHED_ROUND ) rc = thread_flush(&c);
    if( rc ){ rc = tl_err_set(pErr, rc, r.iOff, "out of memory"); break; }
  }
  if( rc==TL_OK ){
    rc = thread_flush(&c);
    if( rc ) rc = tl_err_set(pErr, rc, w.iOff, "out of memory");
  }
  for(k=0; k<c.nThr; k++) free(c.aThr[k].zComm);
  free(c.aThr);
  perf_walk_free(&w);
  return rc;
}

int perf_threads_ready(TlTrace *pTrace, TlErr *pErr){
  PerfData *p = pTrace->pData;
  int rc = TL_OK;
  if( __atomic_load_n(&p->bThreads, __ATOMIC_ACQUIRE) ) return TL_OK;
  tl_trace_lock(pTrace);
  if( !p->bThreads ){
    rc = threads_build(pTrace, p, pErr);
    if( rc ){
      perf_threads_clear(p);           /* start again next time */
    }else{
      __atomic_store_n(&p->bThreads, 1, __ATOMIC_RELEASE);
    }
  }
  tl_trace_unlock(pTrace);
  return rc;
}
