/*
** perf_threads.c: perf's records as inputs of the threads model
** (model_threads.h: tracks, the events' track column), read on first use
** by a walk of its own. What is perf's here: which records say what about
** threads, and their order: a round's records are applied in time order.
*/
#include "perf_scan.h"

#include <stdlib.h>
#include <string.h>

#define PERF_MISC_COMM_EXEC (1u<<13)   /* COMM: the name comes from an exec */

/* Drop the thread list (built again on next use). */
void perf_threads_clear(PerfData *p){
  tl_threads_free(p->pThreads);
  p->pThreads = 0;
  p->bTidReused = 0;
}

/* What the thread list needs from one record, held until its round ends. */
typedef struct ThrRec ThrRec;
struct ThrRec {
  int64_t ts;                     /* its time, else the last time before it */
  uint64_t iSeq;                  /* file order */
  int64_t pid, tid;               /* the record's (for FORK the parent's) */
  int64_t bodyPid, bodyTid;       /* FORK/EXIT: the thread born or ended */
  int64_t ppid, ptid;             /* FORK: the parent */
  char *zComm;                    /* COMM: the new name (owned) */
  uint8_t type, bTs, bTid, bBody, bExec;
};
#define PERF_THR_BUF_MAX (1u<<18)  /* records held before applying them anyway */

/* The thread list being built. */
typedef struct ThrCtx ThrCtx;
struct ThrCtx {
  TlTrace *pTrace;
  TlThreads *m;
  ThrRec *aThr; size_t nThr, nThrAlloc;
  uint64_t iSeq;
  int64_t tsCarry;
};

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

/* An input's result: TL_DONE (a thread dropped at the cap) is warned of. */
static int thread_input(ThrCtx *c, int rc){
  if( rc!=TL_DONE ) return rc;
  tl_trace_warn(c->pTrace, 0, TL_NO_OFFSET,
      "more than %u threads: tracks lists the first %u", TL_THREADS_MAX, TL_THREADS_MAX);
  return TL_OK;
}

/* One held record as inputs of the model: what its body says of a
** thread born or ended, then the record itself, then a COMM's name. */
static int thread_apply(ThrCtx *c, const ThrRec *e){
  int64_t ts = e->bTs ? e->ts : TL_THREADS_NO_TS;
  int rc = TL_OK;
  if( e->bBody && e->type==PERF_EXIT ){
    rc = thread_input(c, tl_threads_exit(c->m, ts, e->bodyPid, e->bodyTid));
  }else if( e->bBody ){
    rc = thread_input(c, tl_threads_fork(c->m, ts, e->ppid, e->ptid, e->bodyPid, e->bodyTid));
  }
  if( rc==TL_OK && e->bTid ){
    rc = thread_input(c, tl_threads_record(c->m, ts, e->pid, e->tid, e->type==PERF_SAMPLE));
  }
  if( rc==TL_OK && e->zComm ){
    rc = thread_input(c, tl_threads_comm(c->m, ts, e->pid, e->tid, e->zComm,
                                         strlen(e->zComm), e->bExec));
  }
  return rc;
}

/*
** Apply the held records to the thread list in time order. Records of
** different CPUs interleave within a round, so a new thread's first sample
** may come before the FORK that made it: sorting the round first is what
** lets a FORK that reuses a tid start the new thread before its records.
*/
static int thread_flush(ThrCtx *c){
  size_t k;
  int rc = TL_OK;
  if( c->nThr>1 && thr_sort(c) ) qsort(c->aThr, c->nThr, sizeof(ThrRec), cmp_thr);
  for(k=0; k<c->nThr && rc==TL_OK; k++) rc = thread_apply(c, &c->aThr[k]);
  for(k=0; k<c->nThr; k++) free(c->aThr[k].zComm);
  c->nThr = 0;
  return rc;
}

/* Hold what the thread list needs from record r; applied at the round's end. */
static int thread_note(ThrCtx *c, const PerfRec *r, const RecInfo *ri){
  ThrRec *e;
  int64_t pid = 0, tid = 0;
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
  if( bBody ){
    TlBytes b = r->body;
    uint32_t ppid = 0, ptid = 0;
    e->bodyPid = pid;
    e->bodyTid = tid;
    /* pid, ppid, tid, ptid: body_pid_tid read them, so they are there */
    if( tl_bytes_skip(&b, 4)==0 && tl_bytes_u32e(&b, &ppid)==0
     && tl_bytes_skip(&b, 4)==0 && tl_bytes_u32e(&b, &ptid)==0 ){
      e->ppid = (int32_t)ppid;
      e->ptid = (int32_t)ptid;
    }
  }
  if( r->type==PERF_COMM && ri->bTid ){
    TlBytes cb = r->body;
    const char *z;
    size_t n;
    if( tl_bytes_skip(&cb, 8)==0 && tl_bytes_cstr(&cb, &z, &n)==0 ){
      e->zComm = tl_strndup(z, n);
      if( e->zComm==0 ) return TL_ENOMEM;
      e->bExec = (r->misc & PERF_MISC_COMM_EXEC)!=0;
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
  PerfMerge t;
  PerfMergeIn *x = 0;
  size_t k;
  int rc;
  memset(&c, 0, sizeof(c));
  c.pTrace = pTrace;
  c.m = p->pThreads = tl_threads_new();
  if( c.m==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  rc = perf_merge_open(&t, pTrace, p, pErr);
  while( rc==TL_OK ){
    rc = perf_merge_next(&t, p, pErr, &x);
    if( rc==TL_DONE ){ rc = TL_OK; break; }
    if( rc<0 ) break;
    rc = thread_note(&c, &x->r, &x->ri);
    if( rc==TL_OK && x->r.type==PERF_FINISHED_ROUND ) rc = thread_flush(&c);
    if( rc ){ rc = tl_err_set(pErr, rc, x->r.iOff, "out of memory"); break; }
  }
  if( rc==TL_ENOMEM ) rc = tl_err_set(pErr, rc, TL_NO_OFFSET, "out of memory");
  if( rc==TL_OK ){
    rc = thread_flush(&c);
    if( rc ) rc = tl_err_set(pErr, rc, TL_NO_OFFSET, "out of memory");
  }
  p->bTidReused = tl_threads_reused(c.m);
  for(k=0; k<c.nThr; k++) free(c.aThr[k].zComm);
  free(c.aThr);
  perf_merge_close(&t);
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
