/*
** perf.c: the perf.data reader: open (headers, attributes, features, one
** walk over the records that builds the chunk index and the thread list)
** and the scans of events, callchains, tracks, event_types, perf_features.
** Layout in perf.h; record walking in perf_walk.c; attrs and samples in
** perf_decode.c; features in perf_feat.c.
**
** The index: a chunk ends after a FINISHED_ROUND record, or once it holds
** about 1 MiB, at a point where no compressed output is pending, so that
** a scan can start at any chunk. Each chunk knows the time range and the
** CPUs of its records; ts windows and cpu filters skip whole chunks.
*/
#include "perf_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map.h"

#define PERF_MAGIC2        0x32454c4946524550ull    /* "PERFILE2" little-endian */
#define PERF_MAGIC1        0x454c494646524550ull    /* "PERFFILE" */
#define PERF_FILE_HDR      104
#define PERF_CHUNK_BYTES   ((uint64_t)1<<20)
#define PERF_CHUNK_CPU_MIN ((uint64_t)8<<10)  /* a chunk this large ends where the CPU changes */
#define PERF_MAX_ATTRS     65536
#define PERF_MAX_THREADS   (1u<<20)
#define PERF_MAX_FEAT_COPY ((size_t)16<<20)
#define PERF_PKT_ROUND_END 1                        /* TlPacket.flags: ends after FINISHED_ROUND */
#define PERF_PKT_CUT       2                        /* TlPacket.flags: runs into damaged data, so its
                                                    ** counts are not the rows a scan gives */
#define PERF_PKT_NOCPU     4                        /* TlPacket.flags: a row without a cpu */
#define PERF_PKT_SAMPLE_NOCPU 8                     /* TlPacket.flags: a SAMPLE row without a cpu */
/* TlPacket.nEvents: records with a known type; TlPacket.iAux: SAMPLE records */
#define PERF_RUN_MAX       1024                     /* rows one repeated row stands for at most */
#define PERF_MAX_ORDER_BYTES ((uint64_t)128<<20)    /* two rounds buffered for ORDER BY ts */

static const char *const azKernelType[PERF_KERNEL_MAX] = {
  0, "MMAP", "LOST", "COMM", "EXIT", "THROTTLE", "UNTHROTTLE", "FORK", "READ",
  "SAMPLE", "MMAP2", "AUX", "ITRACE_START", "LOST_SAMPLES", "SWITCH",
  "SWITCH_CPU_WIDE", "NAMESPACES", "KSYMBOL", "BPF_EVENT", "CGROUP",
  "TEXT_POKE", "AUX_OUTPUT_HW_ID"
};
static const char *const azUserType[PERF_USER_MAX - PERF_HEADER_ATTR] = {
  "ATTR", "EVENT_TYPE", "TRACING_DATA", "BUILD_ID", "FINISHED_ROUND",
  "ID_INDEX", "AUXTRACE_INFO", "AUXTRACE", "AUXTRACE_ERROR", "THREAD_MAP",
  "CPU_MAP", "STAT_CONFIG", "STAT", "STAT_ROUND", "EVENT_UPDATE", "TIME_CONV",
  "FEATURE", "COMPRESSED", "FINISHED_INIT", "COMPRESSED2"
};

const char *tl_perf_type_name(uint32_t type){
  if( type<PERF_KERNEL_MAX ) return azKernelType[type];
  if( type>=PERF_HEADER_ATTR && type<PERF_USER_MAX ) return azUserType[type - PERF_HEADER_ATTR];
  return 0;
}

/* ---- open ---------------------------------------------------------------- */

/* Empty the thread list (its array stays allocated). */
static void threads_clear(PerfData *p){
  size_t k;
  for(k=0; k<p->nThread; k++){ free(p->aThread[k].zComm); free(p->aThread[k].zCommFirst); }
  p->nThread = 0;
  p->bTidReused = 0;
  tl_map_free(&p->threads);
  tl_map_init(&p->threads);
}

static void perf_free(PerfData *p){
  int i;
  if( p==0 ) return;
  for(i=0; i<p->nAttr; i++) free(p->aAttr[i].zName);
  for(i=0; i<p->nFeat; i++) free(p->aFeat[i].aCopy);
  threads_clear(p);
  free(p->aAttr); free(p->aId); free(p->aFeat); free(p->aThread); free(p->aKey);
  tl_map_free(&p->threads);       /* (empty after threads_clear) */
  perf_tp_free(p);
  perf_sym_free(p);
  free(p);
}

static void perfClose(void *pData){ perf_free((PerfData*)pData); }

static int cmp_id(const void *x, const void *y){
  uint64_t a = ((const PerfId*)x)->id, b = ((const PerfId*)y)->id;
  return a<b ? -1 : a>b;
}

static int add_attr(PerfData *p, const PerfAttr *a){
  if( p->nAttr>=PERF_MAX_ATTRS ) return TL_ECORRUPT;
  if( p->nAttr==p->nAttrAlloc ){
    int nNew = p->nAttrAlloc ? p->nAttrAlloc*2 : 8;
    PerfAttr *aNew = realloc(p->aAttr, (size_t)nNew*sizeof(PerfAttr));
    if( aNew==0 ) return TL_ENOMEM;
    p->aAttr = aNew;
    p->nAttrAlloc = nNew;
  }
  p->aAttr[p->nAttr++] = *a;
  return TL_OK;
}

/* Add the n ids at b (u64 each, checked by the caller) for attr iAttr. */
static int add_ids(PerfData *p, TlBytes *b, uint64_t n, int iAttr){
  uint64_t k;
  if( n==0 ) return TL_OK;
  if( n > tl_bytes_left(b)/8 ) return TL_ECORRUPT;
  if( p->nId + n > (size_t)p->nIdAlloc ){
    size_t nNew = p->nIdAlloc ? p->nIdAlloc : 64;
    PerfId *aNew;
    while( nNew < p->nId + n ) nNew *= 2;
    aNew = realloc(p->aId, nNew*sizeof(PerfId));
    if( aNew==0 ) return TL_ENOMEM;
    p->aId = aNew;
    p->nIdAlloc = nNew;
  }
  for(k=0; k<n; k++){
    tl_bytes_u64e(b, &p->aId[p->nId].id);
    p->aId[p->nId].iAttr = iAttr;
    p->nId++;
  }
  qsort(p->aId, p->nId, sizeof(PerfId), cmp_id);
  return TL_OK;
}

static int add_feat(PerfData *p, int id, uint64_t iOff, uint64_t n,
                    const uint8_t *aCopy){
  PerfFeat *f;
  if( p->nFeat==p->nFeatAlloc ){
    int nNew = p->nFeatAlloc ? p->nFeatAlloc*2 : 16;
    PerfFeat *aNew = realloc(p->aFeat, (size_t)nNew*sizeof(PerfFeat));
    if( aNew==0 ) return TL_ENOMEM;
    p->aFeat = aNew;
    p->nFeatAlloc = nNew;
  }
  f = &p->aFeat[p->nFeat];
  memset(f, 0, sizeof(*f));
  f->id = id;
  f->iOff = iOff;
  f->n = n;
  if( aCopy ){
    f->aCopy = malloc(n ? (size_t)n : 1);
    if( f->aCopy==0 ) return TL_ENOMEM;
    if( n ) memcpy(f->aCopy, aCopy, (size_t)n);
  }
  p->nFeat++;
  return TL_OK;
}

static int body_pid_tid(const PerfRec *r, int64_t *pPid, int64_t *pTid);

typedef struct OpenCtx OpenCtx;
/* What the index and the thread list need from one record. */
typedef struct RecInfo RecInfo;
struct RecInfo {
  int iAttr;                      /* its attr */
  int bTs; int64_t ts;            /* time */
  int bCpu; uint32_t cpu;
  int bTid; int64_t pid, tid;
  PerfSample s;                   /* the sample or trailer */
  int bSample;                    /* s is a full sample */
};

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

struct OpenCtx {
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
static PerfThread *thread_new(OpenCtx *c, int64_t tid, uint32_t iPrev, int64_t tsStart, int *pRc){
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
static PerfThread *thread_get(OpenCtx *c, int64_t tid, int bTs, int64_t ts, int *pRc){
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
static int thr_sort(OpenCtx *c){
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
static int thread_flush(OpenCtx *c){
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
static int thread_note(OpenCtx *c, const PerfRec *r, const RecInfo *ri){
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


/* pid/tid stored in the body of some side-band records. */
static int body_pid_tid(const PerfRec *r, int64_t *pPid, int64_t *pTid){
  TlBytes b = r->body;
  uint32_t pid, tid;
  switch( r->type ){
    case PERF_MMAP: case PERF_MMAP2: case PERF_COMM: case PERF_READ:
    case PERF_ITRACE_START: case PERF_NAMESPACES:
      if( tl_bytes_u32e(&b, &pid) || tl_bytes_u32e(&b, &tid) ) return 0;
      break;
    case PERF_FORK: case PERF_EXIT: {
      uint32_t ppid, ptid;
      if( tl_bytes_u32e(&b, &pid) || tl_bytes_u32e(&b, &ppid)
       || tl_bytes_u32e(&b, &tid) || tl_bytes_u32e(&b, &ptid) ) return 0;
      break;
    }
    default:
      return 0;
  }
  *pPid = (int32_t)pid;
  *pTid = (int32_t)tid;
  return 1;
}

/* Decode what a row needs: attr, sample or trailer, ts, cpu, pid, tid. */
static int rec_info(const PerfData *p, const PerfRec *r, RecInfo *ri){
  const PerfAttr *a;
  /* the fields before s; the decoders below clear s themselves */
  ri->iAttr = 0;
  ri->bTs = ri->bCpu = ri->bTid = ri->bSample = 0;
  ri->ts = ri->pid = ri->tid = 0;
  ri->cpu = 0;
  if( p->nAttr==0 ){ memset(&ri->s, 0, sizeof(ri->s)); return 0; }
  ri->iAttr = perf_attr_of(p, r);
  a = &p->aAttr[ri->iAttr];
  if( r->type==PERF_SAMPLE ){
    if( perf_sample_decode(a, r, &ri->s) ) return -1;
    ri->bSample = 1;
  }else if( r->type<PERF_HEADER_ATTR ){
    if( perf_trailer_decode(a, r, &ri->s) ) ri->s.mHave = 0;
  }else{
    memset(&ri->s, 0, sizeof(ri->s));
  }
  if( ri->s.mHave & PS_TIME ){ ri->bTs = 1; ri->ts = (int64_t)ri->s.time; }
  if( ri->s.mHave & PS_CPU ){ ri->bCpu = 1; ri->cpu = ri->s.cpu; }
  /* A record that names its thread in its body (MMAP, COMM, ...) belongs
  ** to that thread, as perf attaches it; the trailer of the ones perf
  ** synthesizes at the start is zeros. FORK and EXIT keep the trailer's. */
  if( r->type!=PERF_SAMPLE && r->type!=PERF_FORK && r->type!=PERF_EXIT
   && body_pid_tid(r, &ri->pid, &ri->tid) ){
    ri->bTid = 1;
  }else if( ri->s.mHave & PS_TID ){
    ri->bTid = 1;
    ri->pid = (int32_t)ri->s.pid;
    ri->tid = (int32_t)ri->s.tid;
  }else if( body_pid_tid(r, &ri->pid, &ri->tid) ){
    ri->bTid = 1;
  }
  if( !ri->bTs && (r->type==PERF_FORK || r->type==PERF_EXIT) ){
    TlBytes b = r->body;
    uint64_t t;
    if( tl_bytes_skip(&b, 16)==0 && tl_bytes_u64e(&b, &t)==0 ){ ri->bTs = 1; ri->ts = (int64_t)t; }
  }
  return 0;
}

/* The user records that define attributes, ids, names and features. */
static int open_user_record(OpenCtx *c, const PerfRec *r, TlErr *pErr){
  PerfData *p = c->p;
  TlBytes b = r->body;
  int rc = TL_OK;
  switch( r->type ){
    case PERF_HEADER_ATTR: {
      PerfAttr a;
      uint32_t nSize;
      TlBytes attrBytes;
      TlBytes peek = b;
      if( tl_bytes_skip(&peek, 4) || tl_bytes_u32e(&peek, &nSize) ) break;
      if( nSize==0 ) nSize = 64;
      if( tl_bytes_sub(&b, nSize, &attrBytes) || perf_attr_parse(&attrBytes, p->bo, &a) ){
        return tl_err_set(pErr, TL_ECORRUPT, r->iOff,
            "HEADER_ATTR record of %u bytes is shorter than its attr size %u", r->size, nSize);
      }
      rc = add_attr(p, &a);
      if( rc==TL_OK ) rc = add_ids(p, &b, tl_bytes_left(&b)/8, p->nAttr-1);
      if( rc ) return tl_err_set(pErr, rc, r->iOff, rc==TL_ENOMEM ? "out of memory" : "too many attributes");
      break;
    }
    case PERF_ID_INDEX: {
      uint64_t nr, k;
      if( tl_bytes_u64e(&b, &nr) || nr > tl_bytes_left(&b)/32 ) break;
      for(k=0; k<nr; k++){
        uint64_t id, idx, cpu, tid;
        TlBytes one;
        tl_bytes_u64e(&b, &id); tl_bytes_u64e(&b, &idx);
        tl_bytes_u64e(&b, &cpu); tl_bytes_u64e(&b, &tid);
        if( idx < (uint64_t)p->nAttr && perf_attr_for_id(p, id)==0 ){
          uint8_t a8[8];
          int i;
          for(i=0; i<8; i++) a8[i] = (uint8_t)(id >> (p->bo==TL_LE ? 8*i : 8*(7-i)));
          one = tl_bytes(a8, 8, p->bo);
          rc = add_ids(p, &one, 1, (int)idx);
          if( rc ) return tl_err_set(pErr, rc, r->iOff, "out of memory");
        }
      }
      break;
    }
    case PERF_EVENT_UPDATE: {
      uint64_t type, id;
      if( tl_bytes_u64e(&b, &type) || tl_bytes_u64e(&b, &id) ) break;
      if( type==2 ){                     /* PERF_EVENT_UPDATE__NAME */
        const PerfAttr *a = perf_attr_for_id(p, id);
        const uint8_t *z = tl_bytes_left(&b) ? memchr(b.a + b.i, 0, tl_bytes_left(&b)) : 0;
        if( a && z && !a->bNameFromDesc ){
          PerfAttr *pa = &p->aAttr[a - p->aAttr];
          char *zNew = tl_strndup((const char*)(b.a + b.i), (size_t)(z - (b.a + b.i)));
          if( zNew==0 ) return tl_err_set(pErr, TL_ENOMEM, r->iOff, "out of memory");
          free(pa->zName);
          pa->zName = zNew;
        }
      }
      break;
    }
    case PERF_HEADER_TRACING_DATA: {
      /* the payload follows the record; only in the file itself */
      uint32_t n;
      TlWin win;
      TlBytes td;
      if( PERF_ROWID_IS_INNER(r->iRowid) || tl_bytes_u32e(&b, &n) || p->nTp ) break;
      tl_win_init(&win, c->pTrace->pSrc);
      rc = tl_win_get(&win, r->iOff + r->size, n, p->bo, &td, pErr);
      if( rc==TL_OK ) rc = perf_tracing_parse(c->pTrace, p, td, r->iOff + r->size, pErr);
      tl_win_free(&win);
      if( rc ) return rc;
      break;
    }
    case PERF_HEADER_BUILD_ID: {
      /* pipe mode: one build_id_event, the layout of the BUILD_ID feature's entries */
      if( perf_buildid_entry(p, r->misc, r->body) ){
        return tl_err_set(pErr, TL_ENOMEM, r->iOff, "out of memory");
      }
      break;
    }
    case PERF_HEADER_FEATURE: {
      uint64_t id;
      if( tl_bytes_u64e(&b, &id) || id==0 || id>=PF_MAX ) break;
      if( tl_bytes_left(&b) > PERF_MAX_FEAT_COPY ) break;
      rc = add_feat(p, (int)id, TL_UNKNOWN, tl_bytes_left(&b), b.a + b.i);
      if( rc ) return tl_err_set(pErr, rc, r->iOff, "out of memory");
      break;
    }
    default:
      break;
  }
  return TL_OK;
}

/* Parse the file-mode header: attrs, ids, data section, feature table. */
static int open_file_header(OpenCtx *c, TlWin *pWin, TlErr *pErr){
  PerfData *p = c->p;
  TlTrace *pTrace = c->pTrace;
  uint64_t nFile = pTrace->pSrc->nSize;
  uint64_t hsize, attrSize, attrOff, attrLen, evOff, evLen, aFeat[4];
  TlBytes b;
  uint64_t k, nAttr;
  int rc, i;

  rc = tl_win_get(pWin, 0, PERF_FILE_HDR, p->bo, &b, pErr);
  if( rc ) return rc;
  if( b.n<PERF_FILE_HDR ){
    return tl_err_set(pErr, TL_ECORRUPT, b.n, "expected a %d-byte perf.data header, the file has %zu bytes",
                      PERF_FILE_HDR, b.n);
  }
  tl_bytes_skip(&b, 8);
  tl_bytes_u64e(&b, &hsize);
  tl_bytes_u64e(&b, &attrSize);
  tl_bytes_u64e(&b, &attrOff);
  tl_bytes_u64e(&b, &attrLen);
  tl_bytes_u64e(&b, &p->iData);
  tl_bytes_u64e(&b, &p->nData);
  tl_bytes_u64e(&b, &evOff);
  tl_bytes_u64e(&b, &evLen);
  for(i=0; i<4; i++) tl_bytes_u64e(&b, &aFeat[i]);
  if( hsize==PERF_FILE_HDR-32 ){
    memset(aFeat, 0, sizeof(aFeat));   /* an early header, before the feature bits */
  }else if( hsize<PERF_FILE_HDR ){
    return tl_err_set(pErr, TL_ECORRUPT, 8, "header size %llu is less than %d",
                      (unsigned long long)hsize, PERF_FILE_HDR);
  }
  if( attrSize<64+16 || attrSize>65536 ){
    return tl_err_set(pErr, TL_ECORRUPT, 16, "attr_size %llu is outside 80..65536",
                      (unsigned long long)attrSize);
  }
  if( attrOff>nFile || attrLen>nFile-attrOff ){
    return tl_err_set(pErr, TL_ECORRUPT, 24,
        "attrs section (offset %llu, %llu bytes) lies outside the %llu-byte file",
        (unsigned long long)attrOff, (unsigned long long)attrLen, (unsigned long long)nFile);
  }
  nAttr = attrLen/attrSize;
  if( nAttr>PERF_MAX_ATTRS ){
    return tl_err_set(pErr, TL_ECORRUPT, 32, "%llu attributes is more than %d",
                      (unsigned long long)nAttr, PERF_MAX_ATTRS);
  }
  for(k=0; k<nAttr; k++){
    PerfAttr a;
    TlBytes ab, ids;
    uint64_t idOff, idLen;
    uint64_t iOff = attrOff + k*attrSize;
    rc = tl_win_get(pWin, iOff, (size_t)attrSize, p->bo, &b, pErr);
    if( rc ) return rc;
    if( tl_bytes_sub(&b, (size_t)attrSize-16, &ab) || perf_attr_parse(&ab, p->bo, &a)
     || tl_bytes_u64e(&b, &idOff) || tl_bytes_u64e(&b, &idLen) ){
      return tl_err_set(pErr, TL_ECORRUPT, iOff, "expected a %llu-byte attribute",
                        (unsigned long long)attrSize);
    }
    rc = add_attr(p, &a);
    if( rc ) return tl_err_set(pErr, rc, iOff, "out of memory");
    if( idLen ){
      if( idOff>nFile || idLen>nFile-idOff ){
        return tl_err_set(pErr, TL_ECORRUPT, iOff + attrSize - 16,
            "ids of attribute %llu (offset %llu, %llu bytes) lie outside the file",
            (unsigned long long)k, (unsigned long long)idOff, (unsigned long long)idLen);
      }
      rc = tl_win_get(pWin, idOff, (size_t)idLen, p->bo, &ids, pErr);
      if( rc ) return rc;
      rc = add_ids(p, &ids, idLen/8, p->nAttr-1);
      if( rc ) return tl_err_set(pErr, rc, idOff, "out of memory");
    }
  }
  /* The data section; a file cut short keeps what is there. */
  if( p->iData>nFile ){
    return tl_err_set(pErr, TL_ECORRUPT, 40, "data section starts at %llu, past the end of the %llu-byte file",
                      (unsigned long long)p->iData, (unsigned long long)nFile);
  }
  if( p->nData==0 && nFile>p->iData ){
    tl_trace_warn(pTrace, 0, 48,
        "the header says the data section is empty (perf did not finish writing): reading to the end of the file");
    p->nData = nFile - p->iData;
  }else if( p->nData > nFile - p->iData ){
    tl_trace_warn(pTrace, 0, nFile,
        "the data section should end at %llu but the file ends at %llu: the file was cut short",
        (unsigned long long)(p->iData + p->nData), (unsigned long long)nFile);
    p->nData = nFile - p->iData;
    return TL_OK;                       /* the feature table is gone too */
  }
  /* Features: one {offset, size} per bit set, after the data section. */
  {
    uint64_t iTab = p->iData + p->nData;
    for(i=1; i<PF_MAX; i++){
      uint64_t fOff, fLen;
      if( !(aFeat[i/64] & ((uint64_t)1<<(i%64))) ) continue;
      rc = tl_win_get(pWin, iTab, 16, p->bo, &b, pErr);
      if( rc ) return rc;
      if( tl_bytes_u64e(&b, &fOff) || tl_bytes_u64e(&b, &fLen) ){
        tl_trace_warn(pTrace, 0, iTab, "the feature table is cut short at feature %d", i);
        break;
      }
      if( fOff>nFile || fLen>nFile-fOff ){
        tl_trace_warn(pTrace, 0, iTab, "feature %d (offset %llu, %llu bytes) lies outside the file",
                      i, (unsigned long long)fOff, (unsigned long long)fLen);
      }else{
        rc = add_feat(p, i, fOff, fLen, 0);
        if( rc ) return tl_err_set(pErr, rc, iTab, "out of memory");
      }
      iTab += 16;
    }
  }
  return TL_OK;
}

static int perfProbe(const uint8_t *a, size_t n, const char *zPath, int bDir){
  uint64_t m;
  (void)zPath;
  if( bDir || n<16 ) return 0;
  m = tl_load_u64_unchecked(a, TL_LE);
  if( m==PERF_MAGIC2 || m==__builtin_bswap64(PERF_MAGIC2) ) return 100;
  if( m==PERF_MAGIC1 || m==__builtin_bswap64(PERF_MAGIC1) ) return 90;
  return 0;
}

/*
** Close the current chunk [pk->iOff, iEnd) into the index, with its key
** (p->aKey, while kept).
*/
static int chunk_close(TlTrace *pTrace, PerfData *p, TlPacket *pk, PerfChunkKey *pKey,
                       uint64_t iEnd){
  int rc;
  if( pk->nEvents==0 ){ pk->iOff = iEnd; memset(pKey, 0, sizeof(*pKey)); return TL_OK; }
  pk->nSize = iEnd - pk->iOff;
  pk->nContent = pk->nSize;
  if( pk->tsBegin>pk->tsEnd ){ pk->tsBegin = TL_TS_MAX; pk->tsEnd = TL_TS_MIN; }
  rc = tl_index_add(&pTrace->index, pk);
  if( rc==TL_OK && p->aKey ){
    if( p->nKey>=p->nKeyAlloc ){
      size_t nNew = p->nKeyAlloc ? p->nKeyAlloc*2 : 256;
      PerfChunkKey *aNew = realloc(p->aKey, nNew*sizeof(*aNew));
      if( aNew==0 ) return TL_ENOMEM;
      p->aKey = aNew;
      p->nKeyAlloc = nNew;
    }
    p->aKey[p->nKey++] = *pKey;
  }
  memset(pKey, 0, sizeof(*pKey));
  pk->iOff = iEnd;
  pk->nEvents = 0;
  pk->tsBegin = TL_TS_MAX;
  pk->tsEnd = TL_TS_MIN;
  pk->mCpu = 0;
  pk->flags = 0;
  pk->iAux = 0;
  return rc;
}

/*
** Fold what a decoded SAMPLE row shows in cpu, value and name (as
** fill_event() fills them; ri NULL: it did not decode) into its chunk's key.
*/
static inline void chunk_key_note(PerfChunkKey *pKey, const PerfData *p, const RecInfo *ri){
  const PerfAttr *a;
  int bValue = 1;
  int64_t value = 0;
  uint32_t cpu;
  if( pKey->eState==PERF_KEY_MIXED ) return;
  if( ri==0 || p->nAttr==0 ){ pKey->eState = PERF_KEY_MIXED; return; }
  a = &p->aAttr[ri->iAttr];
  cpu = ri->bCpu ? ri->cpu : 0;
  if( ri->s.mHave & PS_PERIOD ) value = (int64_t)ri->s.period;
  else if( !(a->flags & PA_FREQ) ) value = (int64_t)a->period;
  else bValue = 0;
  /* (fields compared one by one: no key built on the stack to compare,
  ** whose byte stores a wide load would wait for) */
  if( pKey->eState==PERF_KEY_NONE ){
    pKey->eState = PERF_KEY_SAME;
    pKey->bCpu = (uint8_t)(ri->bCpu!=0);
    pKey->cpu = cpu;
    pKey->bValue = (uint8_t)bValue;
    pKey->value = value;
    pKey->iAttr = ri->iAttr;
    return;
  }
  if( value!=pKey->value || cpu!=pKey->cpu || ri->iAttr!=pKey->iAttr
   || (ri->bCpu!=0)!=pKey->bCpu || bValue!=pKey->bValue ){
    pKey->eState = PERF_KEY_MIXED;
  }
}

/*
** The open walk's plan for SAMPLE records of the usual shape: every attr
** has the same sample_type, of fixed-size fields (before READ) and at most
** a callchain after them, so each field is at a known offset of the body.
*/
typedef struct OpenPlan OpenPlan;
struct OpenPlan {
  int nAttr;                      /* p->nAttr it was made for (-1: none made) */
  int bOk;                        /* the plan applies */
  uint64_t st;                    /* the sample_type */
  uint32_t nFix;                  /* bytes of the fixed fields */
  int offTime, offCpu, offPeriod; /* their offsets in the body, or -1 */
  int bChain;                     /* a callchain follows them */
};

static int plan_offset(uint64_t st, uint64_t bit){
  /* (the fixed fields in body order, 8 bytes each) */
  static const uint64_t aOrder[] = { PS_IDENTIFIER, PS_IP, PS_TID, PS_TIME, PS_ADDR,
                                     PS_ID, PS_STREAM_ID, PS_CPU, PS_PERIOD };
  int k, off = 0;
  if( !(st & bit) ) return -1;
  for(k=0; aOrder[k]!=bit; k++) if( st & aOrder[k] ) off += 8;
  return off;
}

static void plan_make(const PerfData *p, OpenPlan *pl){
  const uint64_t mFix = PS_IDENTIFIER|PS_IP|PS_TID|PS_TIME|PS_ADDR|PS_ID|PS_STREAM_ID|PS_CPU|PS_PERIOD;
  int i;
  memset(pl, 0, sizeof(*pl));
  pl->nAttr = p->nAttr;
  if( p->nAttr==0 ) return;
  pl->st = p->aAttr[0].sample_type;
  for(i=1; i<p->nAttr; i++) if( p->aAttr[i].sample_type!=pl->st ) return;
  if( pl->st & ~(mFix|PS_CALLCHAIN) ) return;
  pl->nFix = 8*(uint32_t)__builtin_popcountll(pl->st & mFix);
  pl->offTime = plan_offset(pl->st, PS_TIME);
  pl->offCpu = plan_offset(pl->st, PS_CPU);
  pl->offPeriod = plan_offset(pl->st, PS_PERIOD);
  pl->bChain = (pl->st & PS_CALLCHAIN)!=0;
  pl->bOk = 1;
}

/*
** Take the walk's next record at once if it is a SAMPLE the plan reads
** whole (in the file's bytes inside the window, or whole in decompressed
** output): its fields as rec_info() gives them into *ri, r as the walk
** gives it, and the walk past it. 0 (nothing taken) when the general way
** must read it: other types, a sample too short for its fields or
** callchain (which that way reports), another attr's sample_type.
*/
static int open_sample_fast(const PerfData *p, const OpenPlan *pl, PerfWalk *w, PerfRec *r,
                            RecInfo *ri){
  const uint8_t *a;
  uint64_t nLeft, iRel;
  uint16_t size;
  int bo = p->bo, bInner = w->iOut < w->nOut;
  if( bInner ){
    nLeft = w->nOut - w->iOut;
    a = w->aOut + w->iOut;
  }else{
    if( w->bMidFrame || w->iOff >= w->iEnd || w->iOff < w->iWin ) return 0;
    iRel = w->iOff - w->iWin;
    if( iRel >= w->nWin ) return 0;
    nLeft = w->nWin - iRel;
    if( w->iEnd - w->iOff < nLeft ) nLeft = w->iEnd - w->iOff;
    a = w->aWin + iRel;
  }
  if( nLeft < 8 ) return 0;
  if( tl_load_u32_unchecked(a, bo)!=PERF_SAMPLE ) return 0;
  size = tl_load_u16_unchecked(a+6, bo);
  if( size > nLeft || size < 8 + pl->nFix + (pl->bChain ? 8 : 0) ) return 0;
  if( pl->bChain ){
    uint64_t nChain = tl_load_u64_unchecked(a + 8 + pl->nFix, bo);
    if( nChain > ((uint64_t)size - 8 - pl->nFix - 8)/8 ) return 0;
  }
  r->type = PERF_SAMPLE;
  r->misc = tl_load_u16_unchecked(a+4, bo);
  r->size = size;
  r->body = tl_bytes(a + 8, (size_t)size - 8, bo);
  if( bInner ){
    r->iOff = w->iCont;
    r->iRowid = PERF_INNER_ROWID(w->iCont, w->iInner);
  }else{
    r->iOff = w->iOff;
    r->iRowid = (int64_t)w->iOff;
  }
  ri->iAttr = p->nAttr>1 ? perf_attr_of(p, r) : 0;
  if( p->aAttr[ri->iAttr].sample_type!=pl->st ) return 0;
  ri->bSample = 1;
  ri->bTs = pl->offTime>=0;
  ri->ts = ri->bTs ? (int64_t)tl_load_u64_unchecked(a + 8 + pl->offTime, bo) : 0;
  ri->bCpu = pl->offCpu>=0;
  ri->cpu = ri->bCpu ? tl_load_u32_unchecked(a + 8 + pl->offCpu, bo) : 0;
  ri->s.mHave = pl->st;
  ri->s.period = pl->offPeriod>=0 ? tl_load_u64_unchecked(a + 8 + pl->offPeriod, bo) : 0;
  if( bInner ){
    w->iInner++;
    w->iOut += size;
  }else{
    w->iOff += size;
    if( w->iOff - w->iWin + 4096 <= w->nWin ){
      __builtin_prefetch(w->aWin + (w->iOff - w->iWin) + 4096);
    }
  }
  return 1;
}

static int perfOpen(TlTrace *pTrace, TlErr *pErr){
  OpenCtx c;
  PerfData *p;
  TlWin win;
  TlBytes b;
  uint64_t magic, hsize;
  PerfWalk w;
  PerfRec r;
  TlPacket pk;
  int rc = TL_OK, i;
  int bRound = 0;
  int bCorrupt = 0;               /* the walk stopped at damaged data */
  int bSampleSeen = 0;
  PerfChunkKey key;
  OpenPlan plan;

  if( pTrace->pSrc==0 ){
    return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET, "a perf.data trace is a file, not a directory");
  }
  p = calloc(1, sizeof(*p));
  if( p==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  if( perf_sym_init(pTrace, p) ){
    free(p);
    return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  memset(&c, 0, sizeof(c));
  c.pTrace = pTrace;
  c.p = p;
  tl_map_init(&p->threads);
  tl_win_init(&win, pTrace->pSrc);
  memset(&w, 0, sizeof(w));

  rc = tl_win_get(&win, 0, 16, TL_LE, &b, pErr);
  if( rc ) goto open_done;
  if( b.n<16 ){
    rc = tl_err_set(pErr, TL_ECORRUPT, 0, "expected a 16-byte perf.data header");
    goto open_done;
  }
  magic = tl_load_u64_unchecked(b.a, TL_LE);
  if( magic==PERF_MAGIC1 ){
    /* Version 1 ("PERFFILE", the same in either byte order): the layout of
    ** version 2, whose byte order perf tells from the header size (pipe
    ** mode: 16) or the attr_size (file mode: a plausible attr + section). */
    uint64_t h = tl_load_u64_unchecked(b.a + 8, TL_LE);
    TlBytes b24;
    if( h==16 ) p->bo = TL_LE;
    else if( h==__builtin_bswap64((uint64_t)16) ) p->bo = TL_BE;
    else{
      uint64_t as;
      rc = tl_win_get(&win, 0, 24, TL_LE, &b24, pErr);
      if( rc ) goto open_done;
      if( b24.n<24 ){
        rc = tl_err_set(pErr, TL_ECORRUPT, b24.n, "expected a perf.data header, the file ends");
        goto open_done;
      }
      as = tl_load_u64_unchecked(b24.a + 16, TL_LE);
      if( as>=64+16 && as<=65536 ) p->bo = TL_LE;
      else if( __builtin_bswap64(as)>=64+16 && __builtin_bswap64(as)<=65536 ) p->bo = TL_BE;
      else{
        rc = tl_err_set(pErr, TL_ECORRUPT, 16,
            "perf.data version 1: expected an attr_size that gives the byte order");
        goto open_done;
      }
    }
  }else if( magic==PERF_MAGIC2 ) p->bo = TL_LE;
  else if( magic==__builtin_bswap64(PERF_MAGIC2) ) p->bo = TL_BE;
  else{
    rc = tl_err_set(pErr, TL_ECORRUPT, 0, "expected the perf.data magic \"PERFILE2\"");
    goto open_done;
  }
  hsize = tl_load_u64_unchecked(b.a + 8, p->bo);
  if( hsize==16 ){
    p->bPipe = 1;
    p->iData = 16;
    p->nData = pTrace->pSrc->nSize - 16;
  }else{
    rc = open_file_header(&c, &win, pErr);
    if( rc ) goto open_done;
    for(i=0; i<p->nFeat; i++){
      if( p->aFeat[i].id==PF_EVENT_DESC ){
        rc = perf_event_desc_apply(pTrace, p, &p->aFeat[i], pErr);
        if( rc ) goto open_done;
      }
      if( p->aFeat[i].id==PF_TRACING_DATA ){
        TlBytes td;
        rc = tl_win_get(&win, p->aFeat[i].iOff, (size_t)p->aFeat[i].n, p->bo, &td, pErr);
        if( rc==TL_OK ) rc = perf_tracing_parse(pTrace, p, td, p->aFeat[i].iOff, pErr);
        if( rc ) goto open_done;
      }
      if( p->aFeat[i].id==PF_BUILD_ID ){
        /* the build ids of the mapped files, for symbols */
        TlBytes bb;
        TlErr e2;
        tl_err_clear(&e2);
        if( p->aFeat[i].iOff!=UINT64_MAX
         && tl_win_get(&win, p->aFeat[i].iOff, (size_t)p->aFeat[i].n, p->bo, &bb, &e2)==TL_OK
         && perf_buildids_note(p, bb) ){
          rc = tl_err_set(pErr, TL_ENOMEM, p->aFeat[i].iOff, "out of memory");
          goto open_done;
        }
      }
    }
  }

  /* One walk over the records: user records, threads, chunks. */
  memset(&pk, 0, sizeof(pk));
  memset(&key, 0, sizeof(key));
  p->aKey = malloc(256*sizeof(PerfChunkKey));
  p->nKeyAlloc = p->aKey ? 256 : 0;
  pk.iOff = p->iData;
  pk.tsBegin = TL_TS_MAX;
  pk.tsEnd = TL_TS_MIN;
  pk.iStream = -1;
  pk.iCpu = -1;
  pk.nDiscarded = TL_UNKNOWN;
  pk.iSeq = -1;
  perf_walk_init(&w, pTrace, p->bo, p->iData, p->iData + p->nData, pErr);
  plan.nAttr = -1;
  plan.bOk = 0;
  for(;;){
    RecInfo ri;
    if( perf_walk_clean(&w) && pk.nEvents>0
     && (bRound || w.iOff - pk.iOff >= PERF_CHUNK_BYTES) ){
      if( bRound ) pk.flags |= PERF_PKT_ROUND_END;
      rc = chunk_close(pTrace, p, &pk, &key, w.iOff);
      if( rc ){ rc = tl_err_set(pErr, rc, w.iOff, "out of memory"); break; }
      bRound = 0;
    }
    if( plan.nAttr!=p->nAttr ) plan_make(p, &plan);
    if( plan.bOk && open_sample_fast(p, &plan, &w, &r, &ri) ){
      /* a sample of the usual shape, read at once: as below */
      uint64_t mBit = ri.bCpu ? (ri.cpu<63 ? (uint64_t)1<<ri.cpu : (uint64_t)1<<63) : 0;
      if( ri.bCpu && r.iRowid==(int64_t)r.iOff && pk.nEvents>0 && pk.mCpu!=0
       && r.iOff - pk.iOff >= PERF_CHUNK_CPU_MIN && !(pk.mCpu & mBit) ){
        rc = chunk_close(pTrace, p, &pk, &key, r.iOff);
        if( rc ){ rc = tl_err_set(pErr, rc, r.iOff, "out of memory"); break; }
      }
      p->aTypeCount[PERF_SAMPLE]++;
      bSampleSeen = 1;
      pk.nEvents++;
      pk.iAux++;
      chunk_key_note(&key, p, &ri);
      p->aAttr[ri.iAttr].nSamples++;
      if( ri.bTs ){
        if( ri.ts<pk.tsBegin ) pk.tsBegin = ri.ts;
        if( ri.ts>pk.tsEnd ) pk.tsEnd = ri.ts;
      }
      if( ri.bCpu ) pk.mCpu |= mBit;
      else pk.flags |= PERF_PKT_NOCPU | PERF_PKT_SAMPLE_NOCPU;
      continue;
    }
    rc = perf_walk_next(&w, &r);
    if( rc==TL_DONE ){ rc = TL_OK; break; }
    if( rc==TL_ECORRUPT ){
      /* Keep what comes before the damage: the last chunk runs to the end
      ** of the data, so a scan gives its good records, then this error. */
      tl_trace_warn(pTrace, 0, pErr->iOff, "%s", pErr->zMsg);
      tl_err_clear(pErr);
      pk.nEvents++;
      pk.flags |= PERF_PKT_CUT;
      bCorrupt = 1;
      rc = chunk_close(pTrace, p, &pk, &key, p->iData + p->nData);
      if( rc ) rc = tl_err_set(pErr, rc, w.iOff, "out of memory");
      break;
    }
    if( rc<0 ) break;
    if( r.type<PERF_USER_MAX ) p->aTypeCount[r.type]++;
    if( tl_perf_type_name(r.type)==0 ){ p->nUnknown++; continue; }
    if( r.type>=PERF_HEADER_ATTR ){
      if( bSampleSeen && (r.type==PERF_HEADER_ATTR || r.type==PERF_ID_INDEX) && p->aKey ){
        /* a sample's event could differ now from what the scan will see */
        free(p->aKey);
        p->aKey = 0;
      }
      rc = open_user_record(&c, &r, pErr);
      if( rc ) break;
    }
    if( r.type==PERF_SAMPLE ) bSampleSeen = 1;
    if( r.type==PERF_FINISHED_ROUND ) bRound = 1;
    pk.nEvents++;
    if( r.type==PERF_SAMPLE ) pk.iAux++;
    if( rec_info(p, &r, &ri) ){
      tl_trace_warn(pTrace, 0, r.iOff,
          "SAMPLE record of %u bytes is shorter than its sample_type needs", r.size);
      pk.flags |= PERF_PKT_NOCPU | PERF_PKT_SAMPLE_NOCPU;   /* its row has no cpu */
      chunk_key_note(&key, p, 0);
      continue;
    }
    if( ri.bCpu && r.iRowid==(int64_t)r.iOff && pk.nEvents>1 && pk.mCpu!=0
     && r.iOff - pk.iOff >= PERF_CHUNK_CPU_MIN
     && !(pk.mCpu & (ri.cpu<63 ? ((uint64_t)1<<ri.cpu) : ((uint64_t)1<<63))) ){
      /* perf writes each CPU's buffer in one piece: a chunk per piece lets
      ** a cpu filter skip the other CPUs' chunks (this record starts the
      ** next one; it is not inside compressed data) */
      pk.nEvents--;
      if( r.type==PERF_SAMPLE ) pk.iAux--;
      rc = chunk_close(pTrace, p, &pk, &key, r.iOff);
      if( rc ){ rc = tl_err_set(pErr, rc, r.iOff, "out of memory"); break; }
      pk.nEvents = 1;
      pk.iAux = r.type==PERF_SAMPLE;
    }
    if( r.type==PERF_SAMPLE ) chunk_key_note(&key, p, &ri);
    if( r.type==PERF_SAMPLE && p->nAttr>0 ) p->aAttr[ri.iAttr].nSamples++;
    if( (r.type==PERF_MMAP || r.type==PERF_MMAP2 || r.type==PERF_FORK)
     && perf_maps_note(pTrace, p, &r, ri.bTs, ri.ts) ){
      rc = tl_err_set(pErr, TL_ENOMEM, r.iOff, "out of memory");
      break;
    }
    if( ri.bTs ){
      if( ri.ts<pk.tsBegin ) pk.tsBegin = ri.ts;
      if( ri.ts>pk.tsEnd ) pk.tsEnd = ri.ts;
    }
    /* a record without a cpu never matches a cpu filter: it sets no bit */
    if( ri.bCpu ) pk.mCpu |= ri.cpu<63 ? ((uint64_t)1<<ri.cpu) : ((uint64_t)1<<63);
    else pk.flags |= PERF_PKT_NOCPU | (r.type==PERF_SAMPLE ? PERF_PKT_SAMPLE_NOCPU : 0);
  }
  if( rc==TL_OK && !bCorrupt ){
    rc = chunk_close(pTrace, p, &pk, &key, w.iOff);
    if( rc ) rc = tl_err_set(pErr, rc, w.iOff, "out of memory");
  }
  if( rc ) goto open_done;

  /* Names: EVENT_DESC (pipe-mode features), EVENT_UPDATE, else the type. */
  for(i=0; i<p->nFeat && p->bPipe; i++){
    if( p->aFeat[i].id==PF_EVENT_DESC ){
      rc = perf_event_desc_apply(pTrace, p, &p->aFeat[i], pErr);
      if( rc ) goto open_done;
    }
  }
  for(i=0; i<p->nAttr; i++){
    const PerfTp *t = p->aAttr[i].type==2 ? perf_tp_find(p, p->aAttr[i].config) : 0;
    if( p->aAttr[i].zName==0 && t ){
      p->aAttr[i].zName = tl_strndup(t->zName, strlen(t->zName));
      if( p->aAttr[i].zName==0 ){ rc = tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory"); goto open_done; }
    }
    if( p->aAttr[i].zName==0 ){
      char z[64];
      perf_attr_default_name(&p->aAttr[i], z, sizeof(z));
      p->aAttr[i].zName = tl_strndup(z, strlen(z));
      if( p->aAttr[i].zName==0 ){ rc = tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory"); goto open_done; }
    }
  }
  if( p->nUnknown ){
    tl_trace_warn(pTrace, 0, TL_NO_OFFSET, "%llu records of unknown types were skipped",
                  (unsigned long long)p->nUnknown);
  }
  pTrace->nEventsHint = tl_index_events(&pTrace->index);
  {
    /* GROUP BY cpu reads the chunks once per CPU they hold: offer it when
    ** that is about one read of the file, and CPUs have bits of their own */
    uint64_t nAll = 0, nRead = 0;
    int bHigh = 0;
    size_t k;
    for(k=0; k<pTrace->index.n; k++){
      const TlPacket *q = &pTrace->index.a[k];
      nAll += q->nSize;
      nRead += q->nSize * (uint64_t)__builtin_popcountll(q->mCpu & ~((uint64_t)1<<63));
      if( q->mCpu>>63 ) bHigh = 1;
    }
    if( !bHigh && nRead <= nAll + nAll/2 ) pTrace->mGroupCpu |= 1u<<TL_TAB_EVENTS;
  }
  perf_maps_finish(p);
  {
    /* Time order needs two rounds in memory: allow it when that is small. */
    uint64_t nPrev = 0, nCur = 0;
    size_t k;
    for(k=0; k<pTrace->index.n; k++){
      nCur += pTrace->index.a[k].nSize;
      if( nPrev + nCur > PERF_MAX_ORDER_BYTES ){
        pTrace->mOrdered &= ~(1u<<TL_TAB_EVENTS);
        break;
      }
      if( pTrace->index.a[k].flags & PERF_PKT_ROUND_END ){ nPrev = nCur; nCur = 0; }
    }
  }

open_done:
  {
    size_t k;
    for(k=0; k<c.nThr; k++) free(c.aThr[k].zComm);
    free(c.aThr);
  }
  perf_walk_free(&w);
  tl_win_free(&win);
  if( rc ){ perf_free(p); return rc; }
  pTrace->pData = p;
  return TL_OK;
}

/*
** The thread list (tracks, the events' track column), built on first use
** by a walk of its own: a query that needs neither does not pay for it.
** Records are attributed as perfOpen's walk would: a damaged record ends
** the walk (the open warned about it), a sample too short is skipped.
*/
static int threads_build(TlTrace *pTrace, PerfData *p, TlErr *pErr){
  OpenCtx c;
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

/* Build the thread list once per trace, whichever scan comes first. */
static int threads_ready(TlTrace *pTrace, TlErr *pErr){
  PerfData *p = pTrace->pData;
  int rc = TL_OK;
  if( __atomic_load_n(&p->bThreads, __ATOMIC_ACQUIRE) ) return TL_OK;
  tl_trace_lock(pTrace);
  if( !p->bThreads ){
    rc = threads_build(pTrace, p, pErr);
    if( rc ){
      threads_clear(p);           /* start again next time */
    }else{
      __atomic_store_n(&p->bThreads, 1, __ATOMIC_RELEASE);
    }
  }
  tl_trace_unlock(pTrace);
  return rc;
}

/* ---- scans --------------------------------------------------------------- */

struct TlScan {
  TlTrace *pTrace;
  const PerfData *p;
  int iTable;
  TlFilter f;
  TlErr err;
  size_t iChunk;                  /* next chunk to open */
  size_t iChunkEnd;               /* one past the last chunk to read */
  int bInChunk;                   /* w is walking a chunk */
  PerfWalk w;
  PerfRec r;                      /* current record (callchains: its frames) */
  RecInfo ri;
  uint64_t iFrame;                /* callchains: next frame of r */
  uint64_t iDepth;                /* callchains: depth of the next real frame */
  const char *zContext;           /* callchains: current context */
  size_t iRow;                    /* metadata tables */
  size_t iSym;                    /* symbols: next symbol of dso iRow */
  TlStr args, cc, tmp;
  int eType;                      /* events: the one record type wanted, or -1 */
  size_t nType;                   /* strlen(f.zType) */
  int bInfo;                      /* rows need rec_info (else type and rowid only) */
  uint64_t mNeed;                 /* events: columns to fill (used or checked) */
  int bPeek;                      /* events: a ts or cpu filter to try before decoding */
  int bPeekChunk;                 /* the chunk holds other CPUs than its pass's */
  /* count(*): a chunk's count stands for its rows (one row repeated), no
  ** record is read; a rowid asked for is found by walking the chunk
  ** (perfScanRowid), onward from the last one found */
  int bCount;                     /* chunks' counts may stand for their rows */
  int bLazy;                      /* the record read last is a counted chunk's rows */
  int bRowLazy;                   /* the row given last is (rowids: perfScanRowid) */
  uint64_t nBlock;                /* its rows */
  size_t iCountChunk;             /* the counted chunk */
  size_t iWalkChunk;              /* the chunk w walks for rowids, or SIZE_MAX */
  uint64_t nWalked;               /* rows of it w has passed */
  /* GROUP BY cpu: one pass over the chunks per CPU (rows without a cpu
  ** first), each pass reading the chunks that hold that CPU */
  int bGroup;
  int iGroup;                     /* -2 not started, -1 no cpu, 0..62 that
                                  ** CPU, 63 CPUs from 63 up (cpuGroup) */
  int64_t cpuGroup;               /* the CPU of this pass */
  uint64_t mCpuAll;               /* CPUs of the chunks in range */
  size_t iChunkFirst;             /* where each pass starts */
  /* callchains GROUP BY symbol: the frames counted by symbol first, then
  ** one row per symbol repeated as many times (rowids number the rows) */
  /* rows of equal values in a row (next_event_run) */
  int bRun, bRunPend, bRunDone;
  int bKey;                       /* SAMPLE runs: a chunk whose SAMPLE rows all
                                  ** show the same (PerfData.aKey) is not read */
  size_t nRun;
  int64_t aRun[PERF_RUN_MAX];     /* the run's rowids */
  struct PerfSymCount { const char *zSym; int64_t n; } *aSymCount;
  size_t nSymCount, iSymCount;
  int bSymCounted;
  int64_t iSymRow, iSymBase;
  /* ORDER BY ts: rows with no time first, then a heap over two rounds */
  int iPhase;                     /* 0: no-time rows; 1: merge; 2: done */
  struct HeapEnt *aHeap; size_t nHeap, nHeapAlloc;
  uint64_t nHeapBytes, iSeq;
  int64_t tsFlush;                /* entries with ts <= this may go out */
  int64_t tsMaxDone;              /* max ts of the rounds read before the current */
  int64_t tsMaxCur;               /* max ts of the round being read */
  uint8_t *aOwned;                /* body of the row last popped */
};

typedef struct HeapEnt HeapEnt;
struct HeapEnt {
  int64_t ts;                     /* sort key */
  uint64_t iSeq;                  /* ties: file order */
  PerfRec r;                      /* the record; r.body points into aBody */
  uint8_t *aBody;                 /* malloc'd copy of the body */
};

static const TlErr *perfScanErr(TlScan *s){ return &s->err; }

/* First chunk that holds rowid (by file offset), or n. */
static size_t chunk_of_offset(const TlIndex *x, uint64_t iOff){
  size_t lo = 0, hi = x->n;
  while( lo<hi ){
    size_t mid = lo + (hi-lo)/2;
    if( x->a[mid].iOff + x->a[mid].nSize <= iOff ) lo = mid+1; else hi = mid;
  }
  return lo;
}

static void perfScanClose(TlScan*);

static int perfScanOpen(TlTrace *pTrace, int iTable, const TlFilter *pFilter,
                        TlScan **ppScan, TlErr *pErr){
  TlScan *s;
  *ppScan = 0;
  switch( iTable ){
    case TL_TAB_EVENTS: case TL_TAB_TRACKS: case TL_TAB_EVENT_TYPES:
    case TL_TAB_PERF_FEATURES: case TL_TAB_CALLCHAINS: case TL_TAB_SYMBOLS:
      break;
    default:
      return TL_DONE;
  }
  s = calloc(1, sizeof(*s));
  if( s==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  s->pTrace = pTrace;
  s->p = pTrace->pData;
  s->iTable = iTable;
  s->f = *pFilter;
  tl_err_clear(&s->err);
  tl_str_init(&s->args);
  tl_str_init(&s->cc);
  tl_str_init(&s->tmp);
  s->iChunkEnd = pTrace->index.n;
  s->iWalkChunk = SIZE_MAX;
  s->eType = -1;
  s->bInfo = 1;
  if( iTable==TL_TAB_EVENTS ){
    if( pFilter->zType ){
      /* type = 'X': the other types are skipped by their header alone */
      int t;
      for(t=0; t<PERF_USER_MAX; t++){
        const char *z = tl_perf_type_name((uint32_t)t);
        if( z && strcmp(z, pFilter->zType)==0 ) break;
      }
      s->eType = t;                       /* PERF_USER_MAX: no type has it */
      s->nType = strlen(pFilter->zType);
    }
    /* The columns SQLite uses and the ones the vtab checks the filter on. */
    s->mNeed = pFilter->mCols & (((uint64_t)1<<TL_EV_NCOL)-1);   /* not path, options */
    if( pFilter->tsLo!=TL_TS_MIN || pFilter->tsHi!=TL_TS_MAX || pFilter->bOrdered ){
      s->mNeed |= (uint64_t)1<<TL_EV_TS;
    }
    if( pFilter->nCpu>=0 ) s->mNeed |= (uint64_t)1<<TL_EV_CPU;
    if( pFilter->zType ) s->mNeed |= (uint64_t)1<<TL_EV_TYPE;
    s->bPeek = pFilter->tsLo!=TL_TS_MIN || pFilter->tsHi!=TL_TS_MAX || pFilter->nCpu>=0;
    /* Only type (and rowid) wanted, nothing checked on ts or cpu: no decode. */
    s->bInfo = (s->mNeed & ~((uint64_t)1<<TL_EV_TYPE))!=0
            || pFilter->tsLo!=TL_TS_MIN || pFilter->tsHi!=TL_TS_MAX || pFilter->nCpu>=0
            || pFilter->bOrdered;
    /* No column but a type that is known without reading: the index's
    ** per-chunk counts of SAMPLE records (or of all records) are enough. */
    s->bCount = !s->bInfo && !pFilter->bRowid
             && (s->eType==PERF_SAMPLE || (s->eType<0 && !(s->mNeed & ((uint64_t)1<<TL_EV_TYPE))));
  }
  if( (iTable==TL_TAB_TRACKS || (iTable==TL_TAB_EVENTS && (s->mNeed>>TL_EV_TRACK & 1)))
   && threads_ready(pTrace, pErr) ){
    perfScanClose(s);
    return pErr->rc;
  }
  /* A rowid (events) or sample rowid (callchains) names one chunk. */
  if( (iTable==TL_TAB_EVENTS && pFilter->bRowid) || (iTable==TL_TAB_CALLCHAINS && pFilter->bKey) ){
    int64_t iSeek = iTable==TL_TAB_EVENTS ? pFilter->iRowid : pFilter->iKey;
    if( iSeek<0 ){
      s->iChunk = s->iChunkEnd;
    }else{
      s->iChunk = chunk_of_offset(&pTrace->index, PERF_ROWID_OFFSET(iSeek));
      s->iChunkEnd = s->iChunk < pTrace->index.n ? s->iChunk+1 : s->iChunk;
    }
  }
  if( iTable==TL_TAB_EVENTS && pFilter->bGroupCpu && !pFilter->bOrdered ){
    size_t k;
    s->bGroup = 1;
    s->bInfo = 1;
    s->bCount = 0;
    s->mNeed |= (uint64_t)1<<TL_EV_CPU;
    s->iGroup = -2;
    s->iChunkFirst = s->iChunk;
    for(k=s->iChunk; k<s->iChunkEnd; k++) s->mCpuAll |= pTrace->index.a[k].mCpu;
    s->iChunk = s->iChunkEnd;     /* the first pass starts at the first row */
  }
  /* only values that repeat from record to record: runs of them are one row */
  s->bRun = iTable==TL_TAB_EVENTS && s->bInfo && !pFilter->bOrdered && !pFilter->bRowid
         && (s->mNeed & ~(((uint64_t)1<<TL_EV_TYPE) | ((uint64_t)1<<TL_EV_CPU)
                          | ((uint64_t)1<<TL_EV_VALUE) | ((uint64_t)1<<TL_EV_NAME)))==0;
  s->bKey = s->bRun && s->eType==PERF_SAMPLE && s->p->aKey && s->p->nKey==pTrace->index.n;
  *ppScan = s;
  return TL_OK;
}

static void perfScanClose(TlScan *s){
  size_t k;
  if( s==0 ) return;
  for(k=0; k<s->nHeap; k++) free(s->aHeap[k].aBody);
  free(s->aHeap);
  free(s->aOwned);
  free(s->aSymCount);
  perf_walk_free(&s->w);
  tl_str_free(&s->args);
  tl_str_free(&s->cc);
  tl_str_free(&s->tmp);
  free(s);
}

/*
** Could an events row with this time and cpu pass the ts and cpu filter?
** (The vtab checks again; this only saves building the rows it would drop.)
*/
static int ts_cpu_may_match(const TlFilter *f, int bTs, int64_t ts, int bCpu, uint32_t cpu){
  if( f->tsLo!=TL_TS_MIN || f->tsHi!=TL_TS_MAX ){
    if( !bTs || ts<f->tsLo || ts>f->tsHi ) return 0;
  }
  if( f->nCpu>=0 ){
    int k;
    if( !bCpu ) return 0;
    for(k=0; k<f->nCpu && f->aCpu[k]<(int64_t)cpu; k++){}
    if( k>=f->nCpu || f->aCpu[k]!=(int64_t)cpu ) return 0;
  }
  return 1;
}

static int row_may_match(const TlScan *s){
  return ts_cpu_may_match(&s->f, s->ri.bTs, s->ri.ts, s->ri.bCpu, s->ri.cpu);
}

/* Start s->w on chunk pk (a read of it, for packets.args.reads). */
static void walk_chunk(TlScan *s, const TlPacket *pk){
  perf_walk_free(&s->w);
  perf_walk_init(&s->w, s->pTrace, s->p->bo, pk->iOff, pk->iOff + pk->nSize, &s->err);
  tl_packet_note_read(pk);
}

/* Is the walk's current record one the scan gives (its type wanted, known)? */
static int record_wanted(const TlScan *s){
  return (s->eType<0 || s->r.type==(uint32_t)s->eType) && tl_perf_type_name(s->r.type)!=0;
}

/* Does a chunk hold rows of the current cpu group? */
static int chunk_in_group(const TlScan *s, const TlPacket *pk){
  if( pk->flags & PERF_PKT_CUT ) return 1;          /* its counts stop at the damage */
  if( s->iGroup<0 ){
    return (pk->flags & (s->eType==PERF_SAMPLE ? PERF_PKT_SAMPLE_NOCPU : PERF_PKT_NOCPU))!=0;
  }
  return (pk->mCpu >> (s->iGroup<63 ? s->iGroup : 63)) & 1;
}

/* Is a row with this cpu in the current group? */
static int row_in_group(const TlScan *s, int bCpu, uint32_t cpu){
  if( s->iGroup<0 ) return !bCpu;
  return bCpu && (int64_t)cpu==s->cpuGroup;
}

/*
** CPUs numbered 63 and up share the chunks' bit 63: the least of them at or
** above lo, found by reading those chunks. TL_ROW with *pCpu, or TL_DONE.
*/
static int group_find_high(TlScan *s, int64_t lo, int64_t *pCpu){
  const TlIndex *x = &s->pTrace->index;
  size_t k;
  int64_t best = -1;
  for(k=s->iChunkFirst; k<s->iChunkEnd; k++){
    const TlPacket *pk = &x->a[k];
    int rc;
    if( !(pk->flags & PERF_PKT_CUT) && !(pk->mCpu>>63) ) continue;
    walk_chunk(s, pk);
    while( (rc = perf_walk_next(&s->w, &s->r))==TL_ROW ){
      if( !record_wanted(s) || rec_info(s->p, &s->r, &s->ri) ) continue;
      if( s->ri.bCpu && (int64_t)s->ri.cpu>=lo && (best<0 || (int64_t)s->ri.cpu<best) ){
        best = (int64_t)s->ri.cpu;
      }
    }
    if( rc<0 ) return rc;
  }
  if( best<0 ) return TL_DONE;
  *pCpu = best;
  return TL_ROW;
}

/* Start the next cpu group's pass: TL_ROW, TL_DONE after the last, or < 0. */
static int group_next(TlScan *s){
  for(;;){
    int rc;
    int64_t c = 0;
    if( s->iGroup==-2 ){
      s->iGroup = -1;
      s->cpuGroup = -1;
    }else if( s->iGroup<63 ){
      int g = s->iGroup + 1;
      while( g<63 && !((s->mCpuAll>>g) & 1) ) g++;
      s->iGroup = g;
      s->cpuGroup = g;
      if( g==63 ){
        if( !(s->mCpuAll>>63) ) return TL_DONE;
        rc = group_find_high(s, 63, &c);
        if( rc!=TL_ROW ) return rc;
        s->cpuGroup = c;
      }
    }else{
      rc = group_find_high(s, s->cpuGroup + 1, &c);
      if( rc!=TL_ROW ) return rc;
      s->cpuGroup = c;
    }
    s->iChunk = s->iChunkFirst;
    s->bInChunk = 0;
    if( s->f.nCpu>=0 ){
      /* a cpu filter: only its CPUs' passes, and no row without a cpu */
      int k;
      if( s->iGroup<0 ) continue;
      for(k=0; k<s->f.nCpu && s->f.aCpu[k]<s->cpuGroup; k++){}
      if( k>=s->f.nCpu || s->f.aCpu[k]!=s->cpuGroup ) continue;
    }
    return TL_ROW;
  }
}

/* The next record of the chunks that may match; TL_ROW with s->r, s->ri. */
static int next_record(TlScan *s){
  const TlIndex *x = &s->pTrace->index;
  s->bLazy = 0;
  for(;;){
    int rc;
    if( !s->bInChunk ){
      while( s->iChunk < s->iChunkEnd
          && (!tl_packet_may_match(&x->a[s->iChunk], s->f.tsLo, s->f.tsHi, s->f.aCpu, s->f.nCpu)
              || (s->bGroup && !chunk_in_group(s, &x->a[s->iChunk]))) ){
        s->iChunk++;
      }
      if( s->iChunk >= s->iChunkEnd ){
        if( !s->bGroup ) return TL_DONE;
        rc = group_next(s);
        if( rc!=TL_ROW ) return rc;
        continue;
      }
      if( s->bCount && !(x->a[s->iChunk].flags & PERF_PKT_CUT) ){
        const TlPacket *pk = &x->a[s->iChunk];
        uint64_t n = s->eType==PERF_SAMPLE ? pk->iAux : pk->nEvents;
        s->iCountChunk = s->iChunk++;
        if( n==0 ) continue;
        s->nBlock = n;
        s->bLazy = 1;
        return TL_ROW;
      }
      if( s->bKey && !(x->a[s->iChunk].flags & PERF_PKT_CUT)
       && s->p->aKey[s->iChunk].eState!=PERF_KEY_MIXED ){
        /* its SAMPLE rows are one row repeated, known without reading it */
        const PerfChunkKey *k = &s->p->aKey[s->iChunk];
        uint64_t n = x->a[s->iChunk].iAux;
        s->iCountChunk = s->iChunk++;
        if( k->eState==PERF_KEY_NONE || n==0 ) continue;
        if( !ts_cpu_may_match(&s->f, 0, 0, k->bCpu, k->cpu) ) continue;
        if( s->bGroup && !row_in_group(s, k->bCpu, k->cpu) ) continue;
        s->r.type = PERF_SAMPLE;
        memset(&s->ri, 0, sizeof(s->ri));
        s->ri.iAttr = k->iAttr;
        s->ri.bCpu = k->bCpu;
        s->ri.cpu = k->cpu;
        s->ri.bSample = 1;
        if( k->bValue ){ s->ri.s.mHave = PS_PERIOD; s->ri.s.period = (uint64_t)k->value; }
        s->nBlock = n;
        s->bLazy = 1;
        return TL_ROW;
      }
      s->iWalkChunk = SIZE_MAX;
      walk_chunk(s, &x->a[s->iChunk]);
      s->bPeekChunk = s->bGroup && s->iGroup>=0 && __builtin_popcountll(x->a[s->iChunk].mCpu)>1;
      s->bInChunk = 1;
      s->iChunk++;
    }
    rc = perf_walk_next(&s->w, &s->r);
    if( rc==TL_DONE ){ s->bInChunk = 0; continue; }
    if( rc<0 ) return rc;
    if( !record_wanted(s) ) continue;
    if( !s->bInfo ) return TL_ROW;
    if( (s->bPeek || s->bPeekChunk) && s->r.type==PERF_SAMPLE && s->p->nAttr>0 ){
      /* a sample's time and cpu first: most fail a narrow filter */
      int bTs, bCpu;
      int64_t ts = 0;
      uint32_t cpu = 0;
      perf_sample_peek(&s->p->aAttr[perf_attr_of(s->p, &s->r)], &s->r, &bTs, &ts, &bCpu, &cpu);
      if( !ts_cpu_may_match(&s->f, bTs, ts, bCpu, cpu) ) continue;
      /* (a sample the peek gives a cpu may still have none when it does
      ** not decode: the pass for rows without a cpu keeps those) */
      if( s->bGroup && s->iGroup>=0 && !row_in_group(s, bCpu, cpu) ) continue;
    }
    if( rec_info(s->p, &s->r, &s->ri) ){
      memset(&s->ri, 0, sizeof(s->ri));
      s->ri.iAttr = 0;
    }
    if( s->iTable==TL_TAB_EVENTS && !row_may_match(s) ) continue;
    if( s->bGroup && !row_in_group(s, s->ri.bCpu, s->ri.cpu) ) continue;
    return TL_ROW;
  }
}

/* JSON of the fields of side-band records. */
static void side_args(TlScan *s, TlStr *o){
  const PerfRec *r = &s->r;
  TlBytes b = r->body;
  uint32_t u32a, u32b;
  uint64_t u64a, u64b, u64c;
  const char *z;
  size_t n;
  switch( r->type ){
    case PERF_MMAP:
      if( tl_bytes_skip(&b, 8) || tl_bytes_u64e(&b, &u64a) || tl_bytes_u64e(&b, &u64b)
       || tl_bytes_u64e(&b, &u64c) || tl_bytes_cstr(&b, &z, &n) ) break;
      tl_json_key(o, "addr"); tl_json_uint(o, u64a);
      tl_json_key(o, "len"); tl_json_uint(o, u64b);
      tl_json_key(o, "pgoff"); tl_json_uint(o, u64c);
      tl_json_key(o, "filename"); tl_json_str(o, z, n);
      break;
    case PERF_MMAP2: {
      uint32_t prot, flags;
      if( tl_bytes_skip(&b, 8) || tl_bytes_u64e(&b, &u64a) || tl_bytes_u64e(&b, &u64b)
       || tl_bytes_u64e(&b, &u64c) ) break;
      tl_json_key(o, "addr"); tl_json_uint(o, u64a);
      tl_json_key(o, "len"); tl_json_uint(o, u64b);
      tl_json_key(o, "pgoff"); tl_json_uint(o, u64c);
      if( r->misc & (1u<<14) ){          /* PERF_RECORD_MISC_MMAP_BUILD_ID */
        uint8_t nId;
        const uint8_t *aId;
        if( tl_bytes_u8(&b, &nId) || tl_bytes_skip(&b, 3) || tl_bytes_ptr(&b, 20, &aId) ) break;
        tl_json_key(o, "build_id"); tl_json_hex(o, aId, nId<=20 ? nId : 20);
      }else{
        uint64_t ino, gen;
        if( tl_bytes_u32e(&b, &u32a) || tl_bytes_u32e(&b, &u32b)
         || tl_bytes_u64e(&b, &ino) || tl_bytes_u64e(&b, &gen) ) break;
        tl_json_key(o, "maj"); tl_json_uint(o, u32a);
        tl_json_key(o, "min"); tl_json_uint(o, u32b);
        tl_json_key(o, "ino"); tl_json_uint(o, ino);
        tl_json_key(o, "ino_generation"); tl_json_uint(o, gen);
      }
      if( tl_bytes_u32e(&b, &prot) || tl_bytes_u32e(&b, &flags) || tl_bytes_cstr(&b, &z, &n) ) break;
      tl_json_key(o, "prot"); tl_json_uint(o, prot);
      tl_json_key(o, "flags"); tl_json_uint(o, flags);
      tl_json_key(o, "filename"); tl_json_str(o, z, n);
      break;
    }
    case PERF_COMM:
      if( tl_bytes_skip(&b, 8) || tl_bytes_cstr(&b, &z, &n) ) break;
      tl_json_key(o, "comm"); tl_json_str(o, z, n);
      tl_json_key(o, "exec"); tl_json_bool(o, (r->misc & (1u<<13))!=0);
      break;
    case PERF_FORK: case PERF_EXIT: {
      uint32_t pid, ppid, tid, ptid;
      if( tl_bytes_u32e(&b, &pid) || tl_bytes_u32e(&b, &ppid) || tl_bytes_u32e(&b, &tid)
       || tl_bytes_u32e(&b, &ptid) || tl_bytes_u64e(&b, &u64a) ) break;
      tl_json_key(o, "pid"); tl_json_int(o, (int32_t)pid);
      tl_json_key(o, "tid"); tl_json_int(o, (int32_t)tid);
      tl_json_key(o, "ppid"); tl_json_int(o, (int32_t)ppid);
      tl_json_key(o, "ptid"); tl_json_int(o, (int32_t)ptid);
      tl_json_key(o, "time"); tl_json_uint(o, u64a);
      break;
    }
    case PERF_LOST:
      if( tl_bytes_u64e(&b, &u64a) || tl_bytes_u64e(&b, &u64b) ) break;
      tl_json_key(o, "id"); tl_json_uint(o, u64a);
      tl_json_key(o, "lost"); tl_json_uint(o, u64b);
      break;
    case PERF_LOST_SAMPLES:
      if( tl_bytes_u64e(&b, &u64a) ) break;
      tl_json_key(o, "lost"); tl_json_uint(o, u64a);
      break;
    case PERF_THROTTLE: case PERF_UNTHROTTLE:
      if( tl_bytes_u64e(&b, &u64a) || tl_bytes_u64e(&b, &u64b) || tl_bytes_u64e(&b, &u64c) ) break;
      tl_json_key(o, "time"); tl_json_uint(o, u64a);
      tl_json_key(o, "id"); tl_json_uint(o, u64b);
      tl_json_key(o, "stream_id"); tl_json_uint(o, u64c);
      break;
    case PERF_SWITCH:
      tl_json_key(o, "out"); tl_json_bool(o, (r->misc & (1u<<13))!=0);
      tl_json_key(o, "preempt"); tl_json_bool(o, (r->misc & (1u<<14))!=0);
      break;
    case PERF_SWITCH_CPU_WIDE:
      if( tl_bytes_u32e(&b, &u32a) || tl_bytes_u32e(&b, &u32b) ) break;
      tl_json_key(o, "out"); tl_json_bool(o, (r->misc & (1u<<13))!=0);
      tl_json_key(o, "preempt"); tl_json_bool(o, (r->misc & (1u<<14))!=0);
      tl_json_key(o, "next_prev_pid"); tl_json_int(o, (int32_t)u32a);
      tl_json_key(o, "next_prev_tid"); tl_json_int(o, (int32_t)u32b);
      break;
    case PERF_KSYMBOL: {
      uint16_t kt, kf;
      if( tl_bytes_u64e(&b, &u64a) || tl_bytes_u32e(&b, &u32a) || tl_bytes_u16e(&b, &kt)
       || tl_bytes_u16e(&b, &kf) || tl_bytes_cstr(&b, &z, &n) ) break;
      tl_json_key(o, "addr"); tl_json_uint(o, u64a);
      tl_json_key(o, "len"); tl_json_uint(o, u32a);
      tl_json_key(o, "ksym_type"); tl_json_uint(o, kt);
      tl_json_key(o, "flags"); tl_json_uint(o, kf);
      tl_json_key(o, "name"); tl_json_str(o, z, n);
      break;
    }
    case PERF_CGROUP:
      if( tl_bytes_u64e(&b, &u64a) || tl_bytes_cstr(&b, &z, &n) ) break;
      tl_json_key(o, "id"); tl_json_uint(o, u64a);
      tl_json_key(o, "path"); tl_json_str(o, z, n);
      break;
    case PERF_AUX:
      if( tl_bytes_u64e(&b, &u64a) || tl_bytes_u64e(&b, &u64b) || tl_bytes_u64e(&b, &u64c) ) break;
      tl_json_key(o, "aux_offset"); tl_json_uint(o, u64a);
      tl_json_key(o, "aux_size"); tl_json_uint(o, u64b);
      tl_json_key(o, "flags"); tl_json_uint(o, u64c);
      break;
    case PERF_AUXTRACE:
      if( tl_bytes_u64e(&b, &u64a) || tl_bytes_u64e(&b, &u64b) ) break;
      tl_json_key(o, "size"); tl_json_uint(o, u64a);
      tl_json_key(o, "offset"); tl_json_uint(o, u64b);
      break;
    case PERF_TIME_CONV:
      if( tl_bytes_u64e(&b, &u64a) || tl_bytes_u64e(&b, &u64b) || tl_bytes_u64e(&b, &u64c) ) break;
      tl_json_key(o, "time_shift"); tl_json_uint(o, u64a);
      tl_json_key(o, "time_mult"); tl_json_uint(o, u64b);
      tl_json_key(o, "time_zero"); tl_json_uint(o, u64c);
      break;
    case PERF_HEADER_FEATURE:
      if( tl_bytes_u64e(&b, &u64a) ) break;
      tl_json_key(o, "feature"); tl_json_uint(o, u64a);
      if( perf_feature_name((int)u64a) ){ tl_json_key(o, "name"); tl_json_strz(o, perf_feature_name((int)u64a)); }
      break;
    default:
      break;
  }
}

/* JSON of a sample's fields that have no column of their own. */
static void sample_args(TlScan *s, TlStr *o){
  const PerfSample *x = &s->ri.s;
  uint64_t st = x->mHave;
  if( st & (PS_ID|PS_IDENTIFIER) ){ tl_json_key(o, "id"); tl_json_uint(o, x->id); }
  if( st & PS_STREAM_ID ){ tl_json_key(o, "stream_id"); tl_json_uint(o, x->stream_id); }
  if( st & PS_ADDR ){ tl_json_key(o, "addr"); tl_json_int(o, (int64_t)x->addr); }
  if( st & PS_PERIOD ){ tl_json_key(o, "period"); tl_json_uint(o, x->period); }
  if( st & PS_READ ){
    TlBytes b = x->read;
    uint64_t v;
    tl_json_key(o, "read");
    tl_json_arr_begin(o);
    while( tl_bytes_u64e(&b, &v)==0 ) tl_json_uint(o, v);
    tl_json_arr_end(o);
  }
  if( st & PS_RAW ){
    const PerfAttr *a = &s->p->aAttr[s->ri.iAttr];
    const PerfTp *t = a->type==2 ? perf_tp_find(s->p, a->config) : 0;
    if( t ) perf_tp_decode(t, x->aRaw, x->nRaw, s->p->bo, o, 0);
    else{ tl_json_key(o, "raw"); tl_json_hex(o, x->aRaw, x->nRaw); }
  }
  if( st & PS_BRANCH_STACK ){
    uint64_t k;
    if( x->bHwIdx ){ tl_json_key(o, "branch_hw_index"); tl_json_int(o, (int64_t)x->hwIdx); }
    tl_json_key(o, "branches");
    tl_json_arr_begin(o);
    for(k=0; k<x->nBranch; k++){
      const uint8_t *e = x->aBranch + k*24;
      tl_json_obj_begin(o);
      tl_json_key(o, "from"); tl_json_int(o, (int64_t)tl_load_u64_unchecked(e, s->p->bo));
      tl_json_key(o, "to"); tl_json_int(o, (int64_t)tl_load_u64_unchecked(e+8, s->p->bo));
      tl_json_key(o, "flags"); tl_json_uint(o, tl_load_u64_unchecked(e+16, s->p->bo));
      tl_json_obj_end(o);
    }
    tl_json_arr_end(o);
  }
  if( st & PS_REGS_USER ){
    uint64_t k;
    tl_json_key(o, "regs_user_abi"); tl_json_uint(o, x->regsUserAbi);
    tl_json_key(o, "regs_user");
    tl_json_arr_begin(o);
    for(k=0; k<x->nRegsUser; k++) tl_json_int(o, (int64_t)tl_load_u64_unchecked(x->aRegsUser + 8*k, s->p->bo));
    tl_json_arr_end(o);
  }
  if( st & PS_STACK_USER ){
    tl_json_key(o, "stack_user_size"); tl_json_uint(o, x->stackSize);
    tl_json_key(o, "stack_user_dyn_size"); tl_json_uint(o, x->stackDyn);
  }
  if( st & (PS_WEIGHT|PS_WEIGHT_STRUCT) ){ tl_json_key(o, "weight"); tl_json_uint(o, x->weight); }
  if( st & PS_DATA_SRC ){ tl_json_key(o, "data_src"); tl_json_uint(o, x->data_src); }
  if( st & PS_TRANSACTION ){ tl_json_key(o, "transaction"); tl_json_uint(o, x->transaction); }
  if( st & PS_REGS_INTR ){
    uint64_t k;
    tl_json_key(o, "regs_intr_abi"); tl_json_uint(o, x->regsIntrAbi);
    tl_json_key(o, "regs_intr");
    tl_json_arr_begin(o);
    for(k=0; k<x->nRegsIntr; k++) tl_json_int(o, (int64_t)tl_load_u64_unchecked(x->aRegsIntr + 8*k, s->p->bo));
    tl_json_arr_end(o);
  }
  if( st & PS_PHYS_ADDR ){ tl_json_key(o, "phys_addr"); tl_json_uint(o, x->phys_addr); }
  if( st & PS_CGROUP ){ tl_json_key(o, "cgroup"); tl_json_uint(o, x->cgroup); }
  if( st & PS_DATA_PAGE_SIZE ){ tl_json_key(o, "data_page_size"); tl_json_uint(o, x->data_page_size); }
  if( st & PS_CODE_PAGE_SIZE ){ tl_json_key(o, "code_page_size"); tl_json_uint(o, x->code_page_size); }
  if( st & PS_AUX ){ tl_json_key(o, "aux_size"); tl_json_uint(o, x->auxSize); }
}

static int heap_less(const HeapEnt *x, const HeapEnt *y){
  return x->ts<y->ts || (x->ts==y->ts && x->iSeq<y->iSeq);
}

static int heap_push(TlScan *s){
  HeapEnt e;
  size_t i;
  if( s->nHeapBytes + s->r.body.n > 2*PERF_MAX_ORDER_BYTES ){
    return tl_err_set(&s->err, TL_ENOMEM, s->r.iOff,
        "ORDER BY ts needs more than %llu bytes of records in memory: query without it",
        (unsigned long long)(2*PERF_MAX_ORDER_BYTES));
  }
  if( s->nHeap==s->nHeapAlloc ){
    size_t nNew = s->nHeapAlloc ? s->nHeapAlloc*2 : 256;
    HeapEnt *aNew = realloc(s->aHeap, nNew*sizeof(HeapEnt));
    if( aNew==0 ) return tl_err_set(&s->err, TL_ENOMEM, s->r.iOff, "out of memory");
    s->aHeap = aNew;
    s->nHeapAlloc = nNew;
  }
  e.ts = s->ri.ts;
  e.iSeq = s->iSeq++;
  e.r = s->r;
  e.aBody = malloc(s->r.body.n ? s->r.body.n : 1);
  if( e.aBody==0 ) return tl_err_set(&s->err, TL_ENOMEM, s->r.iOff, "out of memory");
  if( s->r.body.n ) memcpy(e.aBody, s->r.body.a, s->r.body.n);
  e.r.body = tl_bytes(e.aBody, s->r.body.n, s->r.body.bo);
  s->nHeapBytes += s->r.body.n;
  i = s->nHeap++;
  while( i>0 && heap_less(&e, &s->aHeap[(i-1)/2]) ){
    s->aHeap[i] = s->aHeap[(i-1)/2];
    i = (i-1)/2;
  }
  s->aHeap[i] = e;
  return TL_OK;
}

/* Remove the least entry into s->r (its body owned by s->aOwned). */
static void heap_pop(TlScan *s){
  HeapEnt last;
  size_t i = 0;
  free(s->aOwned);
  s->aOwned = s->aHeap[0].aBody;
  s->r = s->aHeap[0].r;
  s->nHeapBytes -= s->r.body.n;
  last = s->aHeap[--s->nHeap];
  for(;;){
    size_t c = 2*i+1;
    if( c>=s->nHeap ) break;
    if( c+1<s->nHeap && heap_less(&s->aHeap[c+1], &s->aHeap[c]) ) c++;
    if( !heap_less(&s->aHeap[c], &last) ) break;
    s->aHeap[i] = s->aHeap[c];
    i = c;
  }
  if( s->nHeap ) s->aHeap[i] = last;
}

/*
** The next record in time order. perf writes a FINISHED_ROUND after each
** pass over its buffers; a record of round R is never earlier than the
** latest time of round R-2, so after reading round R every buffered
** record up to the latest time of round R-1 can go out (perf's own rule).
*/
static int next_ordered(TlScan *s){
  const TlIndex *x = &s->pTrace->index;
  for(;;){
    int rc;
    if( s->nHeap && s->aHeap[0].ts <= s->tsFlush ){
      heap_pop(s);
      if( rec_info(s->p, &s->r, &s->ri) ){ memset(&s->ri, 0, sizeof(s->ri)); }
      return TL_ROW;
    }
    if( !s->bInChunk ){
      const TlPacket *pk;
      if( s->iChunk >= s->iChunkEnd ){
        if( s->nHeap==0 ) return TL_DONE;
        s->tsFlush = TL_TS_MAX;
        continue;
      }
      pk = &x->a[s->iChunk];
      if( pk->tsEnd!=TL_TS_MIN && pk->tsEnd>s->tsMaxCur ) s->tsMaxCur = pk->tsEnd;
      if( tl_packet_may_match(pk, s->f.tsLo, s->f.tsHi, s->f.aCpu, s->f.nCpu) ){
        walk_chunk(s, pk);
        s->bInChunk = 1;
      }else{
        s->bInChunk = 2;                /* nothing to read, only the round's end */
      }
    }
    rc = s->bInChunk==2 ? TL_DONE : perf_walk_next(&s->w, &s->r);
    if( rc<0 ) return rc;
    if( rc==TL_DONE ){
      /* the chunk is done; at a round's end the previous round may go out */
      if( x->a[s->iChunk].flags & PERF_PKT_ROUND_END ){
        s->tsFlush = s->tsMaxDone;
        if( s->tsMaxCur>s->tsMaxDone ) s->tsMaxDone = s->tsMaxCur;
      }
      s->iChunk++;
      s->bInChunk = 0;
      continue;
    }
    if( !record_wanted(s) ) continue;
    if( rec_info(s->p, &s->r, &s->ri) || !s->ri.bTs ) continue;
    if( s->ri.ts<s->f.tsLo || s->ri.ts>s->f.tsHi ) continue;
    if( s->ri.ts>s->tsMaxCur ) s->tsMaxCur = s->ri.ts;
    rc = heap_push(s);
    if( rc ) return rc;
  }
}

/* The next events row: file order, or time order when asked. */
static int next_event_record(TlScan *s){
  int rc;
  if( !s->f.bOrdered || !(s->pTrace->mOrdered & (1u<<TL_TAB_EVENTS)) ) return next_record(s);
  if( s->iPhase==0 ){
    /* rows without a time come first; a ts bound excludes them anyway */
    if( s->f.tsLo==TL_TS_MIN ){
      while( (rc = next_record(s))==TL_ROW ){
        if( !s->ri.bTs ) return TL_ROW;
      }
      if( rc<0 ) return rc;
    }
    s->iPhase = 1;
    s->iChunk = 0;
    s->bInChunk = 0;
    s->tsFlush = TL_TS_MIN;
    s->tsMaxDone = TL_TS_MIN;
    s->tsMaxCur = TL_TS_MIN;
  }
  return next_ordered(s);
}

/* The current record's events row. */
static int fill_event(TlScan *s, TlRow *pRow){
  const PerfAttr *a;
  TlVal *v = pRow->a;
  const uint64_t m = s->mNeed;
  s->bRowLazy = s->bLazy;
  pRow->iRowid = s->bLazy ? TL_ROWID_LAZY : s->r.iRowid;
  if( s->bLazy ) pRow->nRepeat = (int64_t)s->nBlock;
  if( !s->bInfo ){
    if( s->eType>=0 ) tl_val_text(&v[TL_EV_TYPE], s->f.zType, s->nType);
    else if( !s->bLazy ) tl_val_textz(&v[TL_EV_TYPE], tl_perf_type_name(s->r.type));
    return TL_ROW;
  }
  a = s->p->nAttr ? &s->p->aAttr[s->ri.iAttr] : 0;
#define NEED(c) ((m>>(c)) & 1)
  if( s->ri.bTs ){ tl_val_int(&v[TL_EV_TS], s->ri.ts); tl_val_int(&v[TL_EV_TS_RAW], s->ri.ts); }
  if( s->ri.bCpu ) tl_val_int(&v[TL_EV_CPU], s->ri.cpu);
  if( s->ri.bTid ){
    tl_val_int(&v[TL_EV_PID], s->ri.pid);
    tl_val_int(&v[TL_EV_TID], s->ri.tid);
    if( NEED(TL_EV_TRACK) ){
      tl_val_int(&v[TL_EV_TRACK], perf_track_id(s->p, s->ri.tid, s->ri.bTs, s->ri.ts));
    }
  }
  if( NEED(TL_EV_TYPE) ) tl_val_textz(&v[TL_EV_TYPE], tl_perf_type_name(s->r.type));
  if( s->r.type==PERF_SAMPLE && a ){
    if( NEED(TL_EV_NAME) ) tl_val_textz(&v[TL_EV_NAME], a->zName);
    if( s->ri.s.mHave & PS_PERIOD ) tl_val_int(&v[TL_EV_VALUE], (int64_t)s->ri.s.period);
    else if( !(a->flags & PA_FREQ) ) tl_val_int(&v[TL_EV_VALUE], (int64_t)a->period);
    if( s->ri.s.mHave & PS_IP ) tl_val_int(&v[TL_EV_IP], (int64_t)s->ri.s.ip);
#undef NEED
    if( (s->ri.s.mHave & PS_RAW) && a->type==2 && tl_col_used(&s->f, TL_EV_TEXT) ){
      const PerfTp *t = perf_tp_find(s->p, a->config);
      if( t ){
        tl_str_reset(&s->tmp);
        tl_str_append(&s->tmp, "", 0);
        if( perf_printfmt_render(t->pFmt, t, s->ri.s.aRaw, s->ri.s.nRaw, s->p->bo, &s->tmp) ){
          /* no usable print fmt: the fields as name=value */
          TlStr scratch;
          tl_str_init(&scratch);
          tl_str_reset(&s->tmp);
          tl_str_append(&s->tmp, "", 0);
          perf_tp_decode(t, s->ri.s.aRaw, s->ri.s.nRaw, s->p->bo, &scratch, &s->tmp);
          tl_str_free(&scratch);
        }
        tl_val_str(&v[TL_EV_TEXT], &s->tmp);
      }
    }
    if( (s->ri.s.mHave & PS_CALLCHAIN) && tl_col_used(&s->f, TL_EV_CALLCHAIN) ){
      uint64_t k;
      tl_str_reset(&s->cc);
      tl_json_arr_begin(&s->cc);
      for(k=0; k<s->ri.s.nCallchain; k++){
        /* as signed 64-bit, like the ip column: exact in SQLite's JSON */
        tl_json_int(&s->cc, (int64_t)tl_load_u64_unchecked(s->ri.s.aCallchain + 8*k, s->p->bo));
      }
      tl_json_arr_end(&s->cc);
      tl_val_str(&v[TL_EV_CALLCHAIN], &s->cc);
    }
  }
  if( tl_col_used(&s->f, TL_EV_ARGS) ){
    tl_str_reset(&s->args);
    tl_json_obj_begin(&s->args);
    if( s->r.type==PERF_SAMPLE ) sample_args(s, &s->args);
    else side_args(s, &s->args);
    if( s->r.type!=PERF_SAMPLE && (s->ri.s.mHave & (PS_ID|PS_IDENTIFIER)) ){
      tl_json_key(&s->args, "id"); tl_json_uint(&s->args, s->ri.s.id);
    }
    tl_json_key(&s->args, "misc"); tl_json_uint(&s->args, s->r.misc);
    tl_json_obj_end(&s->args);
    tl_val_str(&v[TL_EV_ARGS], &s->args);
  }
  return TL_ROW;
}

/* What a row with only type, cpu, value and name used shows of a record. */
typedef struct PerfRowKey PerfRowKey;
struct PerfRowKey {
  uint32_t type;
  int bCpu; uint32_t cpu;
  int bValue; int64_t value;
  const char *zName;
};

/* The key of the current record, as fill_event() fills those columns. */
static void row_key(const TlScan *s, PerfRowKey *k){
  const PerfAttr *a = s->p->nAttr ? &s->p->aAttr[s->ri.iAttr] : 0;
  memset(k, 0, sizeof(*k));
  k->type = s->r.type;
  if( s->ri.bCpu ){ k->bCpu = 1; k->cpu = s->ri.cpu; }
  if( s->r.type==PERF_SAMPLE && a ){
    k->zName = a->zName;
    if( s->ri.s.mHave & PS_PERIOD ){ k->bValue = 1; k->value = (int64_t)s->ri.s.period; }
    else if( !(a->flags & PA_FREQ) ){ k->bValue = 1; k->value = (int64_t)a->period; }
  }
}

static int row_key_equal(const PerfRowKey *x, const PerfRowKey *y){
  return x->type==y->type && x->bCpu==y->bCpu && x->cpu==y->cpu && x->bValue==y->bValue
      && x->value==y->value && x->zName==y->zName;
}

/*
** Rows that use only type, cpu, value and name: consecutive records that
** show the same values are one row repeated (up to PERF_RUN_MAX), their
** rowids kept for xScanRowid. The record that ends a run starts the next.
*/
static int next_event_run(TlScan *s, TlRow *pRow){
  PerfRowKey k0, k1;
  size_t n = 1;
  int rc;
  if( s->bRunPend ){
    s->bRunPend = 0;
  }else{
    if( s->bRunDone ) return TL_DONE;
    rc = next_event_record(s);
    if( rc!=TL_ROW ) return rc;
  }
  rc = fill_event(s, pRow);
  if( rc!=TL_ROW || s->bLazy ) return rc;     /* (a chunk's rows are one row) */
  row_key(s, &k0);
  s->aRun[0] = s->r.iRowid;
  while( n<PERF_RUN_MAX ){
    rc = next_event_record(s);
    if( rc!=TL_ROW ){
      /* done, or an error the next call returns (s->err) */
      if( rc==TL_DONE ) s->bRunDone = 1;
      break;
    }
    if( s->bLazy ){ s->bRunPend = 1; break; }
    row_key(s, &k1);
    if( !row_key_equal(&k0, &k1) ){ s->bRunPend = 1; break; }
    s->aRun[n++] = s->r.iRowid;
  }
  s->nRun = n;
  if( n>1 ){
    pRow->iRowid = TL_ROWID_LAZY;
    pRow->nRepeat = (int64_t)n;
  }
  return TL_ROW;
}

static int next_event(TlScan *s, TlRow *pRow){
  int rc;
  if( s->bRun ) return next_event_run(s, pRow);
  rc = next_event_record(s);
  if( rc!=TL_ROW ) return rc;
  return fill_event(s, pRow);
}

/* Callchain context markers (PERF_CONTEXT_*), as signed values. */
static const char *context_name(int64_t v){
  switch( v ){
    case -32:   return "hv";
    case -128:  return "kernel";
    case -512:  return "user";
    case -2048: return "guest";
    case -2176: return "guest_kernel";
    case -2560: return "guest_user";
    default:    return 0;
  }
}

static int next_frame(TlScan *s, TlRow *pRow){
  TlVal *v = pRow->a;
  for(;;){
    if( s->r.type==PERF_SAMPLE && s->iFrame < s->ri.s.nCallchain ){
      uint64_t ip = tl_load_u64_unchecked(s->ri.s.aCallchain + 8*s->iFrame, s->p->bo);
      const char *zCtx = context_name((int64_t)ip);
      s->iFrame++;
      if( zCtx ){ s->zContext = zCtx; continue; }
      if( s->f.bDepth ){
        /* a depth range: skip the frames above it, end the chain below it */
        if( (int64_t)s->iDepth > s->f.depthHi ){ s->iFrame = s->ri.s.nCallchain; continue; }
        if( (int64_t)s->iDepth < s->f.depthLo ){ s->iDepth++; continue; }
      }
      /* stable, not unique across every file: the sample's rowid, shifted,
      ** with the frame's index in the chain */
      pRow->iRowid = (int64_t)(((uint64_t)s->r.iRowid << 10) | ((s->iFrame - 1) & 1023));
      tl_val_int(&v[TL_CC_EVENT], s->r.iRowid);
      if( s->ri.bTs ) tl_val_int(&v[TL_CC_TS], s->ri.ts);
      if( s->ri.bCpu ) tl_val_int(&v[TL_CC_CPU], s->ri.cpu);
      tl_val_int(&v[TL_CC_DEPTH], (int64_t)s->iDepth);
      tl_val_int(&v[TL_CC_IP], (int64_t)ip);
      if( s->zContext ) tl_val_textz(&v[TL_CC_CONTEXT], s->zContext);
      if( tl_col_used(&s->f, TL_CC_SYMBOL) || tl_col_used(&s->f, TL_CC_DSO) ){
        const char *zSym, *zDso;
        int bKernel = s->zContext ? strcmp(s->zContext, "kernel")==0 : (ip>>63)!=0;
        perf_symbolize(s->pTrace, s->p, s->ri.bTid ? s->ri.pid : -1, ip,
                       s->ri.bTs ? s->ri.ts : INT64_MIN, bKernel, &zSym, &zDso);
        tl_val_textz(&v[TL_CC_SYMBOL], zSym);
        tl_val_textz(&v[TL_CC_DSO], zDso);
      }
      s->iDepth++;
      return TL_ROW;
    }
    {
      int rc = next_record(s);
      if( rc!=TL_ROW ) return rc;
      if( s->f.bKey && s->r.iRowid!=s->f.iKey ){ s->r.type = 0; continue; }
      s->iFrame = 0;
      s->iDepth = 0;
      s->zContext = 0;
    }
  }
}

static int cmp_sym_count(const void *a, const void *b){
  const char *x = ((const struct PerfSymCount*)a)->zSym, *y = ((const struct PerfSymCount*)b)->zSym;
  if( x==0 || y==0 ) return (x!=0) - (y!=0);
  return strcmp(x, y);
}

/*
** callchains grouped by symbol (f.bGroupName): every frame the filter keeps
** is symbolized and counted by its symbol's text (NULL apart); then one row
** per symbol stands for its frames (TlRow.nRepeat).
*/
static int next_frame_grouped(TlScan *s, TlRow *pRow){
  TlVal *v = pRow->a;
  if( !s->bSymCounted ){
    TlMap bySym;                  /* symbol text pointer -> index in aSymCount */
    TlVal aTmp[TL_MAX_NCOL];
    TlRow tmp;
    size_t nAlloc = 0, i, j;
    int rc;
    tl_map_init(&bySym);
    tmp.a = aTmp;
    for(;;){
      const char *z;
      uint32_t iSlot;
      int k;
      for(k=0; k<TL_MAX_NCOL; k++) aTmp[k].t = TL_NULL;
      rc = next_frame(s, &tmp);
      if( rc!=TL_ROW ) break;
      z = aTmp[TL_CC_SYMBOL].t==TL_TEXT ? aTmp[TL_CC_SYMBOL].z : 0;
      if( !tl_map_get(&bySym, (uint64_t)(uintptr_t)z, &iSlot) ){
        if( s->nSymCount==nAlloc ){
          size_t nNew = nAlloc ? nAlloc*2 : 256;
          struct PerfSymCount *aNew = realloc(s->aSymCount, nNew*sizeof(*aNew));
          if( aNew==0 ){ rc = TL_ENOMEM; break; }
          s->aSymCount = aNew;
          nAlloc = nNew;
        }
        iSlot = (uint32_t)s->nSymCount++;
        s->aSymCount[iSlot].zSym = z;
        s->aSymCount[iSlot].n = 0;
        if( tl_map_put(&bySym, (uint64_t)(uintptr_t)z, iSlot) ){ rc = TL_ENOMEM; break; }
      }
      s->aSymCount[iSlot].n++;
    }
    tl_map_free(&bySym);
    if( rc==TL_ENOMEM ) return tl_err_set(&s->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    if( rc<0 ) return rc;
    /* symbols of different files may share a name */
    if( s->nSymCount>1 ) qsort(s->aSymCount, s->nSymCount, sizeof(*s->aSymCount), cmp_sym_count);
    for(i=0, j=0; i<s->nSymCount; i++){
      if( j>0 && cmp_sym_count(&s->aSymCount[j-1], &s->aSymCount[i])==0 ){
        s->aSymCount[j-1].n += s->aSymCount[i].n;
      }else{
        s->aSymCount[j++] = s->aSymCount[i];
      }
    }
    s->nSymCount = j;
    s->bSymCounted = 1;
  }
  if( s->iSymCount >= s->nSymCount ) return TL_DONE;
  tl_val_textz(&v[TL_CC_SYMBOL], s->aSymCount[s->iSymCount].zSym);
  if( s->f.bDepth && s->f.depthLo==s->f.depthHi ) tl_val_int(&v[TL_CC_DEPTH], s->f.depthLo);
  pRow->iRowid = TL_ROWID_LAZY;
  pRow->nRepeat = s->aSymCount[s->iSymCount].n;
  s->iSymBase = s->iSymRow;
  s->iSymRow += s->aSymCount[s->iSymCount].n;
  s->iSymCount++;
  return TL_ROW;
}

/* symbols: the ELF symbols of every mapped file that could be read, then
** the kernel's from kallsyms=. */
static int next_symbol(TlScan *s, TlRow *pRow){
  return perf_symbols_next(s->pTrace, s->p, &s->iRow, &s->iSym, pRow);
}

static int next_track(TlScan *s, TlRow *pRow){
  const PerfThread *t;
  TlVal *v = pRow->a;
  if( s->iRow >= s->p->nThread ) return TL_DONE;
  t = &s->p->aThread[s->iRow];
  pRow->iRowid = (int64_t)s->iRow;
  s->iRow++;
  tl_val_int(&v[TL_TR_ID], t->id);
  tl_val_text(&v[TL_TR_KIND], "thread", 6);
  tl_val_textz(&v[TL_TR_NAME], t->zComm);
  if( t->pid>=0 ) tl_val_int(&v[TL_TR_PID], t->pid);
  tl_val_int(&v[TL_TR_TID], t->tid);
  if( t->bTs ){
    tl_val_int(&v[TL_TR_FIRST_TS], t->tsFirst);
    tl_val_int(&v[TL_TR_LAST_TS], t->tsLast);
  }
  tl_val_int(&v[TL_TR_EVENTS], (int64_t)t->nEvents);
  if( tl_col_used(&s->f, TL_TR_ARGS) ){
    tl_str_reset(&s->args);
    tl_json_obj_begin(&s->args);
    tl_json_key(&s->args, "samples"); tl_json_uint(&s->args, t->nSamples);
    if( t->zCommFirst ){ tl_json_key(&s->args, "comm_first"); tl_json_strz(&s->args, t->zCommFirst); }
    tl_json_obj_end(&s->args);
    tl_val_str(&v[TL_TR_ARGS], &s->args);
  }
  return TL_ROW;
}

static int next_event_type(TlScan *s, TlRow *pRow){
  const PerfAttr *a;
  TlVal *v = pRow->a;
  size_t k;
  int bFirst = 1;
  if( s->iRow >= (size_t)s->p->nAttr ) return TL_DONE;
  a = &s->p->aAttr[s->iRow];
  pRow->iRowid = (int64_t)s->iRow;
  tl_val_int(&v[TL_ET_ID], (int64_t)s->iRow);
  tl_val_textz(&v[TL_ET_NAME], a->zName);
  tl_val_text(&v[TL_ET_KIND], "attr", 4);
  tl_str_reset(&s->tmp);
  tl_str_append(&s->tmp, "", 0);
  perf_sample_type_text(a->sample_type, &s->tmp);
  tl_val_str(&v[TL_ET_FORMAT], &s->tmp);
  if( tl_col_used(&s->f, TL_ET_ARGS) ){
    TlStr *o = &s->args;
    tl_str_reset(o);
    tl_json_obj_begin(o);
    tl_json_key(o, "type"); tl_json_uint(o, a->type);
    tl_json_key(o, "config"); tl_json_uint(o, a->config);
    tl_json_key(o, (a->flags & PA_FREQ) ? "sample_freq" : "sample_period"); tl_json_uint(o, a->period);
    tl_json_key(o, "sample_type"); tl_json_uint(o, a->sample_type);
    tl_json_key(o, "read_format");
    {
      TlStr rf;
      tl_str_init(&rf);
      tl_str_append(&rf, "", 0);
      perf_read_format_text(a->read_format, &rf);
      tl_json_str(o, rf.z ? rf.z : "", rf.n);
      tl_str_free(&rf);
    }
    tl_json_key(o, "flags"); tl_json_uint(o, a->flags);
    tl_json_key(o, "sample_id_all"); tl_json_bool(o, (a->flags & PA_SAMPLE_ID_ALL)!=0);
    tl_json_key(o, "samples"); tl_json_uint(o, a->nSamples);
    tl_json_key(o, "ids");
    tl_json_arr_begin(o);
    for(k=0; k<s->p->nId; k++){
      if( s->p->aId[k].iAttr==(int)s->iRow ){ tl_json_uint(o, s->p->aId[k].id); bFirst = 0; }
    }
    tl_json_arr_end(o);
    tl_json_obj_end(o);
    tl_val_str(&v[TL_ET_ARGS], o);
  }
  (void)bFirst;
  s->iRow++;
  return TL_ROW;
}

static int next_feature(TlScan *s, TlRow *pRow){
  const PerfFeat *f;
  TlVal *v = pRow->a;
  int rc;
  if( s->iRow >= (size_t)s->p->nFeat ) return TL_DONE;
  f = &s->p->aFeat[s->iRow];
  pRow->iRowid = (int64_t)s->iRow;
  s->iRow++;
  tl_val_int(&v[TL_PF_ID], f->id);
  if( perf_feature_name(f->id) ) tl_val_textz(&v[TL_PF_NAME], perf_feature_name(f->id));
  tl_val_int(&v[TL_PF_SIZE], (int64_t)f->n);
  if( tl_col_used(&s->f, TL_PF_VALUE) ){
    tl_str_reset(&s->tmp);
    rc = perf_feature_value(s->pTrace, s->p, f, &s->tmp, &s->err);
    if( rc ) return rc;
    if( s->tmp.n ) tl_val_str(&v[TL_PF_VALUE], &s->tmp);
  }
  return TL_ROW;
}

static int perfScanNext(TlScan *s, TlRow *pRow){
  if( s->err.rc ) return s->err.rc;
  switch( s->iTable ){
    case TL_TAB_EVENTS:        return next_event(s, pRow);
    case TL_TAB_CALLCHAINS:    return s->f.bGroupName ? next_frame_grouped(s, pRow) : next_frame(s, pRow);
    case TL_TAB_SYMBOLS:       return next_symbol(s, pRow);
    case TL_TAB_TRACKS:        return next_track(s, pRow);
    case TL_TAB_EVENT_TYPES:   return next_event_type(s, pRow);
    case TL_TAB_PERF_FEATURES: return next_feature(s, pRow);
    default:                   return TL_DONE;
  }
}

/*
** The rowid of the iRepeat-th row of a counted chunk: walk the chunk to it,
** onward from the row found last when it is not past this one.
*/
static int perfScanRowid(TlScan *s, int64_t iRepeat, int64_t *piRowid){
  const TlIndex *x = &s->pTrace->index;
  const TlPacket *pk;
  /* (a run's and a group's rowids are known, even when reading ahead for
  ** the run met an error, which the next row returns) */
  if( s->iTable==TL_TAB_CALLCHAINS ){
    /* grouped frames: the rows' numbers */
    *piRowid = s->iSymBase + iRepeat;
    return TL_OK;
  }
  if( s->bRun && !s->bRowLazy ){
    if( iRepeat<0 || (uint64_t)iRepeat>=s->nRun ){
      return tl_err_set(&s->err, TL_EMISUSE, TL_NO_OFFSET, "row %lld of a run of %zu",
                        (long long)iRepeat, s->nRun);
    }
    *piRowid = s->aRun[iRepeat];
    return TL_OK;
  }
  if( s->err.rc ) return s->err.rc;
  if( !s->bRowLazy ){ *piRowid = s->r.iRowid; return TL_OK; }
  if( iRepeat<0 || (uint64_t)iRepeat>=s->nBlock ){
    return tl_err_set(&s->err, TL_EMISUSE, TL_NO_OFFSET, "row %lld of a chunk of %llu rows",
                      (long long)iRepeat, (unsigned long long)s->nBlock);
  }
  pk = &x->a[s->iCountChunk];
  if( s->iWalkChunk!=s->iCountChunk || s->nWalked > (uint64_t)iRepeat ){
    walk_chunk(s, pk);
    s->iWalkChunk = s->iCountChunk;
    s->nWalked = 0;
  }
  while( s->nWalked <= (uint64_t)iRepeat ){
    int rc = perf_walk_next(&s->w, &s->r);
    if( rc==TL_DONE ){
      /* the file no longer holds what its index says */
      s->iWalkChunk = SIZE_MAX;
      return tl_err_set(&s->err, TL_ECORRUPT, pk->iOff + pk->nSize,
                        "expected %llu more records in this part of the file",
                        (unsigned long long)(s->nBlock - s->nWalked));
    }
    if( rc<0 ){ s->iWalkChunk = SIZE_MAX; return rc; }
    if( !record_wanted(s) ) continue;
    s->nWalked++;
  }
  *piRowid = s->r.iRowid;
  return TL_OK;
}

static const char *const perfOptions[] = { "symfs", "kallsyms", "buildid_dir", 0 };

const TlReaderDef tl_perf_reader = {
  .zName      = "perf",
  .azOptions  = perfOptions,
  .mOrdered   = 1u<<TL_TAB_EVENTS,
  .mGroupName = 1u<<TL_TAB_CALLCHAINS,
  .xProbe     = perfProbe,
  .xOpen      = perfOpen,
  .xClose     = perfClose,
  .xScanOpen  = perfScanOpen,
  .xScanNext  = perfScanNext,
  .xScanClose = perfScanClose,
  .xScanErr   = perfScanErr,
  .xScanRowid = perfScanRowid,
};
