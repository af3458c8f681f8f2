/*
** xray_open.c: open an XRay log (layout in xray.h).
**
** One walk at open builds the packet index (FDR: one packet per buffer;
** basic mode: runs of records of one thread) and the thread list. A scan
** starts at any packet: every FDR buffer names its thread, process, CPU and
** base TSC, and basic records are self-contained.
*/
#include "xray_rec.h"

#include <stdlib.h>
#include <string.h>

/*
** The byte order of a header: the one in which version and type make
** sense (type 0 with version 1-3, type 1 with version 1-5), or -1.
*/
static int xray_byte_order(const uint8_t *a){
  int k;
  for(k=0; k<2; k++){
    int bo = k ? TL_BE : TL_LE;
    unsigned ver = tl_load_u16_unchecked(a, bo), type = tl_load_u16_unchecked(a+2, bo);
    if( type<=1 && ver>=1 && ver<=(type ? 5u : 3u) ) return bo;
  }
  return -1;
}

int xrayProbe(const uint8_t *a, size_t n, const char *zPath, int bDir){
  uint16_t ver, type;
  (void)zPath;
  if( bDir || n<XR_HDR ) return 0;
  if( memcmp(a, "\177ELF", 4)==0 ) return 20;      /* an instrumented binary: its map */
  {
    XrData d;
    memset(&d, 0, sizeof(d));
    d.bo = xray_byte_order(a);
    if( d.bo<0 ) return 0;
    ver = tl_load_u16_unchecked(a, d.bo);
    type = tl_load_u16_unchecked(a+2, d.bo);
    /* the flag word's other bits are not cleared by every runtime: not checked */
    if( n==XR_HDR ) return 30;                       /* an empty log */
    if( type==1 ){
      if( !fdr_is_meta(&d, a[XR_HDR]) ) return 0;
      if( fdr_meta_kind(&d, a[XR_HDR])!=XR_EXTENTS && fdr_meta_kind(&d, a[XR_HDR])!=XR_NEW_BUFFER ) return 0;
      return 80;
    }
    if( n>=XR_HDR+4 && tl_load_u16_unchecked(a+XR_HDR, d.bo)<=1 && a[XR_HDR+3]<=3 ) return 50;
    (void)ver;
    return 0;
  }
}

void xrayClose(void *pData){
  XrData *p = pData;
  if( p==0 ) return;
  xray_map_free(&p->map);
  free(p->aThread);
  free(p);
}

/*
** Open's walk, past a record it took the long way: the plain function
** records that follow in the same buffer, at once. Stops before a record
** that is not one (metadata, a bad type, one whose TSC would pass tscMax or
** wrap, the buffer's end; past the little-endian loop also one with call
** arguments after it), which the long way then reads. Returns how many it
** passed, with *pLast the last one's TSC. (Their TSCs only grow from the
** record before them, so that one's is their least.)
*/
static uint64_t fdr_func_run(XrCur *c, uint64_t tscMax, uint64_t *pLast){
  size_t i = c->b.i, end = c->iBufEnd;
  uint64_t tsc = c->tsc, n = 0;
  uint32_t w, d;
  if( !c->bInBuf || c->p->nType!=1 ) return 0;
  if( c->p->bo==TL_LE && i<=end && end - i>=XR_FUNC && tscMax>=UINT32_MAX ){
    /* The usual run, a few instructions a record: records of type 0-3 (bits
    ** 0 and 3 of the first byte clear) while no delta can pass tscMax or
    ** wrap. Call arguments after a record are not counted either way (the
    ** long way skips one it meets alone), so they need not stop it. What
    ** stops it, the loop below goes on from. */
    const uint8_t *a = c->b.a;
    size_t i0 = i, iLast = end - XR_FUNC;
    uint64_t tscSafe = tscMax - UINT32_MAX;
    while( i<=iLast && tsc<=tscSafe && (a[i] & 9)==0 ){
      tsc += tl_load_u32_unchecked(a + i + 4, TL_LE);
      i += XR_FUNC;
    }
    n = (i - i0) / XR_FUNC;
  }
  while( fdr_plain_at(c, i, &w, &d) ){
    uint64_t t = tsc + d;
    if( t<tsc || t>tscMax ) break;
    tsc = t;
    i += XR_FUNC;
    n++;
  }
  c->b.i = i;
  c->tsc = tsc;
  *pLast = tsc;
  return n;
}

/* The walk at open: the packet being built, the threads seen. */
typedef struct XrWalk XrWalk;
struct XrWalk {
  TlTrace *pTrace;
  XrData *p;
  XrCur c;
  TlErr *pErr;
  TlMap threads;                  /* tid -> index in p->aThread */
  TlPacket pk;                    /* the packet being built */
  size_t iPkStart;                /* its offset */
  uint64_t nRun;                  /* basic mode: records of the run so far */
  uint32_t runTid;                /* and its thread */
  int bRun;
  uint64_t tscOk;                 /* the greatest cycle count that has a ts */
  uint64_t tscLo, tscHi;          /* the packet's, in cycles */
  int bPkTs;                      /* it has any */
  uint32_t tidLast, iTLast;       /* the last record's thread */
  int bLastT;
  TlWin win;                      /* the part of the file c reads */
  uint64_t nFile;                 /* the file's size */
};

#define XR_WALK_CHUNK ((size_t)1<<20)     /* bytes the walk reads at once */
#define XR_WALK_MARGIN ((size_t)64<<10)   /* basic: left before a refill */

/*
** Before the walk's next record: unless the window reaches the end of the
** file, make it hold all of the next FDR buffer (at a buffer's start) or at
** least XR_WALK_MARGIN bytes (basic mode: a record and its payloads), by
** reading a new window from the next record on. Cursor offsets are the
** window's: they move with it (c.iBase is the window's file offset; the
** buffer bounds may wrap below zero, and add back to the same offsets).
*/
static int walk_refill(XrWalk *w){
  XrCur *c = &w->c;
  uint64_t iAbs = c->iBase + c->b.i, nNeed = XR_WALK_MARGIN;
  size_t nLeft = c->iEnd - c->b.i, shift = c->b.i;
  TlBytes b;
  int rc;
  if( c->iBase + c->iEnd >= w->nFile || c->b.i > c->iEnd ) return TL_OK;
  if( w->p->nType==1 ){
    if( c->bInBuf && c->b.i < c->iBufEnd ) return TL_OK;    /* all in the window */
    nNeed = XR_META + w->p->nBufSize;
    if( w->p->nVersion>=2 && nLeft>=XR_META ){
      nNeed = XR_META + tl_load_u64_unchecked(c->b.a + c->b.i + 1, w->p->bo);
      if( nNeed<XR_META ) nNeed = w->nFile;                 /* wrapped: all */
    }
  }
  if( nNeed > w->nFile - iAbs ) nNeed = w->nFile - iAbs;
  if( nLeft>=nNeed ) return TL_OK;
  rc = tl_win_get(&w->win, iAbs, nNeed > XR_WALK_CHUNK ? (size_t)nNeed : XR_WALK_CHUNK,
                  w->p->bo, &b, w->pErr);
  if( rc ) return rc;
  c->b = b;
  c->iBase = iAbs;
  c->iEnd = b.n;
  c->iBufStart -= shift;
  c->iBufEnd -= shift;
  return TL_OK;
}

/* Parse the 32-byte file header at b into p. */
static int open_header(TlTrace *pTrace, XrData *p, const TlBytes *b, TlErr *pErr){
  if( b->n<XR_HDR ){
    return tl_err_set(pErr, TL_ECORRUPT, b->n, "expected a 32-byte XRay file header, the file has %zu bytes", b->n);
  }
  p->bo = xray_byte_order(b->a);
  if( p->bo<0 ) p->bo = TL_LE;       /* format=xray on a header we do not know: say why below */
  p->nVersion = tl_load_u16_unchecked(b->a, p->bo);
  p->nType = tl_load_u16_unchecked(b->a+2, p->bo);
  p->bConstTsc = (b->a[4] & 1)!=0;
  p->bNonstopTsc = (b->a[4] & 2)!=0;
  p->freq = tl_load_u64_unchecked(b->a+8, p->bo);
  if( p->freq>=2 ) p->freqInv = (uint64_t)(((unsigned __int128)1 << 64) / p->freq);
  p->nBufSize = tl_load_u64_unchecked(b->a+16, p->bo);
  if( p->nType>1 ){
    return tl_err_set(pErr, TL_EUNSUPPORTED, 2, "XRay log type %d is not supported (0 basic, 1 FDR)", p->nType);
  }
  if( p->nVersion<1 || p->nVersion>(p->nType ? 5 : 3) ){
    return tl_err_set(pErr, TL_EUNSUPPORTED, 0, "XRay %s log version %d is not supported (expected 1-%d)",
                      p->nType ? "FDR" : "basic", p->nVersion, p->nType ? 5 : 3);
  }
  if( b->n==XR_HDR ){
    tl_trace_warn(pTrace, 0, XR_HDR, "the log has a header and no records");
  }
  if( p->freq==0 ){
    tl_trace_warn(pTrace, 0, 8, "cycle frequency is 0: ts is NULL, ts_raw has the TSC");
  }
  return TL_OK;
}

/* The greatest cycle count whose ts is at most INT64_MAX ns (0 without a
** frequency): ns grow with cycles, so a binary search finds it. */
static uint64_t open_tsc_limit(const XrData *p){
  uint64_t lo = 0, hi = UINT64_MAX;
  int bOk;
  if( p->freq==0 ) return 0;
  while( lo<hi ){
    uint64_t mid = lo + (hi - lo)/2 + 1;
    tsc_ns(p, mid, &bOk);
    if( bOk ) lo = mid; else hi = mid - 1;
  }
  return lo;
}

/* Start the packet after the one just added, at iStart. */
static void walk_packet_reset(XrWalk *w, size_t iStart){
  w->pk.nEvents = 0; w->pk.tsBegin = TL_TS_MAX; w->pk.tsEnd = TL_TS_MIN; w->pk.mCpu = 0;
  w->pk.flags = 0;
  w->bPkTs = 0; w->tscLo = UINT64_MAX; w->tscHi = 0;
  w->iPkStart = iStart;
  w->nRun = 0;
}

/* Add the packet built so far, which ends at iEnd, to the index. */
static int walk_packet_add(XrWalk *w, size_t iEnd){
  int bOk;
  TlPacket *pk = &w->pk;
  pk->iOff = w->iPkStart;
  pk->nSize = iEnd - w->iPkStart;
  pk->nContent = pk->nSize;
  if( w->bPkTs ){
    pk->tsBegin = tsc_ns(w->p, w->tscLo, &bOk);
    pk->tsEnd = tsc_ns(w->p, w->tscHi, &bOk);
  }
  if( tl_index_add(&w->pTrace->index, pk) ) return tl_err_set(w->pErr, TL_ENOMEM, iEnd, "out of memory");
  return TL_OK;
}

/*
** Packet boundaries, before record e (read from iBefore, in a buffer that
** started at iBufBefore if bBufBefore): FDR buffers; basic runs of one
** thread.
*/
static int walk_packet_edge(XrWalk *w, const XrEv *e, size_t iBefore, int bBufBefore, size_t iBufBefore){
  int bNewPacket;
  if( w->p->nType==1 ){
    /* a record from a buffer that began during this call */
    bNewPacket = !bBufBefore || w->c.iBase + w->c.iBufStart!=iBufBefore;
    if( bNewPacket ) iBefore = w->c.iBase + w->c.iBufStart;
  }else{
    bNewPacket = w->bRun && (e->tid!=w->runTid || w->nRun>=XR_BASIC_RUN);
  }
  if( bNewPacket && w->pk.nEvents ){
    int rc = walk_packet_add(w, iBefore);
    if( rc ) return rc;
    walk_packet_reset(w, iBefore);
  }else if( bNewPacket ){
    w->iPkStart = iBefore;
  }
  return TL_OK;
}

/* Into *piT the index in p->aThread of thread tid, made if new, or
** UINT32_MAX past XR_MAX_THREADS (not listed): TL_OK or TL_ENOMEM. */
static int walk_thread(XrWalk *w, uint32_t tid, uint64_t iOff, uint32_t *piT){
  XrData *p = w->p;
  uint32_t iT;
  if( w->bLastT && tid==w->tidLast ){
    *piT = w->iTLast;
    return TL_OK;
  }
  if( !tl_map_get(&w->threads, tid, &iT) ){
    if( p->nThread>=XR_MAX_THREADS ){ *piT = UINT32_MAX; return TL_OK; }
    if( p->nThread==p->nAlloc ){
      size_t nNew = p->nAlloc ? p->nAlloc*2 : 16;
      XrThread *aNew = realloc(p->aThread, nNew*sizeof(XrThread));
      if( aNew==0 ) return tl_err_set(w->pErr, TL_ENOMEM, iOff, "out of memory");
      p->aThread = aNew;
      p->nAlloc = nNew;
    }
    iT = (uint32_t)p->nThread++;
    memset(&p->aThread[iT], 0, sizeof(XrThread));
    p->aThread[iT].tid = tid;
    if( tl_map_put(&w->threads, tid, iT) ) return tl_err_set(w->pErr, TL_ENOMEM, iOff, "out of memory");
  }
  w->bLastT = 1; w->tidLast = tid; w->iTLast = iT;
  *piT = iT;
  return TL_OK;
}

/*
** Count record e on thread t (its TSC has a ts if bOk), then the plain
** function records after it in its buffer: the same packet, thread and
** CPU, counted at once; their TSCs are at or after its, so with a frequency
** it has a ts and theirs are the greatest.
*/
static void walk_count(XrWalk *w, XrThread *t, const XrEv *e, int bOk){
  const XrData *p = w->p;
  uint64_t n, last = 0;
  t->nEvents++;
  if( e->bPid ) t->pid = e->pid;
  if( bOk ){
    if( !t->bTs || e->tsc<t->tscFirst ) t->tscFirst = e->tsc;
    if( !t->bTs || e->tsc>t->tscLast ) t->tscLast = e->tsc;
    t->bTs = 1;
  }
  n = fdr_func_run(&w->c, p->freq ? w->tscOk : UINT64_MAX, &last);
  if( n ){
    w->pk.nEvents += n;
    t->nEvents += n;
    if( p->freq ){
      if( last>w->tscHi ) w->tscHi = last;
      if( last>t->tscLast ) t->tscLast = last;
    }
  }
}

/* One record (and the plain run after it) of the walk: TL_ROW, TL_DONE, or
** an error. A damaged record ends the walk with a warning. */
static int walk_step(XrWalk *w){
  XrEv e;
  uint32_t iT = 0;
  int bOk, rc = walk_refill(w);
  size_t iBefore = w->c.iBase + w->c.b.i;        /* (file offsets) */
  size_t iBufBefore = w->c.iBase + w->c.iBufStart;
  int bBufBefore = w->c.bInBuf;
  if( rc ) return rc;
  rc = cur_next(&w->c, &e);
  if( rc==TL_DONE ) return TL_DONE;
  if( rc<0 ){
    /* keep what came before; the scan of the last packet reports it */
    tl_trace_warn(w->pTrace, 0, w->pErr->iOff, "%s", w->pErr->zMsg);
    tl_err_clear(w->pErr);
    w->pk.nEvents++;
    w->pk.flags |= XR_PKT_CUT;
    w->c.b.i = w->c.iEnd;
    return TL_DONE;
  }
  rc = walk_packet_edge(w, &e, iBefore, bBufBefore, iBufBefore);
  if( rc ) return rc;
  w->bRun = 1; w->runTid = e.tid; w->nRun++;
  if( w->pk.nEvents>0 && w->pk.iStream!=(int64_t)e.tid ) w->pk.flags |= XR_PKT_MIXED;
  w->pk.nEvents++;
  w->pk.iStream = e.tid;
  /* times in cycles until the packet and the threads are done: ns grow
  ** with cycles, so the least and greatest convert to the least and
  ** greatest ns (of the cycles that have a ts at all) */
  bOk = w->p->freq!=0 && e.tsc<=w->tscOk;
  if( bOk ){
    if( e.tsc<w->tscLo ) w->tscLo = e.tsc;
    if( e.tsc>w->tscHi ) w->tscHi = e.tsc;
    w->bPkTs = 1;
  }else{
    w->pk.flags |= XR_PKT_NOTS;
  }
  w->pk.mCpu |= e.cpu<63 ? ((uint64_t)1<<e.cpu) : ((uint64_t)1<<63);
  rc = walk_thread(w, e.tid, e.iOff, &iT);
  if( rc ) return rc;
  if( iT==UINT32_MAX ) return TL_ROW;   /* a thread past the list's cap */
  walk_count(w, &w->p->aThread[iT], &e, bOk);
  return TL_ROW;
}

/*
** The walk over the records of the file, whose first window is b (from
** offset 0, in w's window): the packet index and the threads.
*/
static int open_walk(TlTrace *pTrace, XrData *p, TlWin *pWin, const TlBytes *b,
                     TlErr *pErr){
  XrWalk w;
  size_t k;
  int rc, bOk;
  memset(&w, 0, sizeof(w));
  w.pTrace = pTrace;
  w.p = p;
  w.pErr = pErr;
  w.win = *pWin;                  /* (its buffer: handed back at the end) */
  w.nFile = pTrace->pSrc->nSize;
  /* read ahead in windows as the walk asks for them: an FDR buffer, else
  ** XR_WALK_CHUNK (a buffer size past the window cap: no reading ahead) */
  if( p->nType!=1 || p->nBufSize < XR_WALK_CHUNK - XR_META ){
    (void)tl_win_walk(&w.win, 0, w.nFile, XR_WALK_CHUNK);
  }else if( p->nBufSize <= TL_WIN_MAX ){
    (void)tl_win_walk(&w.win, 0, w.nFile, (size_t)(XR_META + p->nBufSize));
  }
  tl_map_init(&w.threads);
  w.tscOk = open_tsc_limit(p);
  w.c.pTrace = pTrace;
  w.c.p = p;
  w.c.b = tl_bytes(b->a, b->n, p->bo);
  w.c.b.i = XR_HDR;
  w.c.iEnd = b->n;
  w.c.pErr = pErr;
  w.pk.iStream = -1; w.pk.iCpu = -1; w.pk.nDiscarded = TL_UNKNOWN; w.pk.iSeq = -1;
  walk_packet_reset(&w, XR_HDR);
  while( (rc = walk_step(&w))==TL_ROW ){}
  if( rc==TL_DONE ) rc = TL_OK;
  for(k=0; k<p->nThread; k++){
    XrThread *t = &p->aThread[k];
    if( t->bTs ){
      t->tsFirst = tsc_ns(p, t->tscFirst, &bOk);
      t->tsLast = tsc_ns(p, t->tscLast, &bOk);
    }
  }
  if( rc==TL_OK && w.pk.nEvents ) rc = walk_packet_add(&w, w.c.iBase + w.c.b.i);
  p->monoOff = w.c.monoOff;
  p->bMonoOff = w.c.bMonoOff;
  tl_map_free(&w.threads);
  *pWin = w.win;
  return rc;
}

int xrayOpen(TlTrace *pTrace, TlErr *pErr){
  XrData *p;
  TlWin win;
  TlBytes b;
  int rc;
  const char *zBinary = tl_opts_get(&pTrace->opts, "binary");
  if( pTrace->pSrc==0 ){
    return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET, "an XRay log is a file, not a directory");
  }
  p = calloc(1, sizeof(*p));
  if( p==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  tl_win_init(&win, pTrace->pSrc);
  rc = tl_win_get(&win, 0, XR_WALK_CHUNK, TL_LE, &b, pErr);
  if( rc==TL_OK && b.n>=4 && memcmp(b.a, "\177ELF", 4)==0 ){
    /* xray_functions('app'): the binary's map, no records */
    p->bMapOnly = 1;
    rc = tl_win_get(&win, 0, (size_t)pTrace->pSrc->nSize, TL_LE, &b, pErr);
    if( rc==TL_OK ) rc = xray_map_parse(b.a, b.n, pTrace->zPath, &p->map, pErr);
  }else{
    if( rc==TL_OK && zBinary ) rc = xray_map_load(zBinary, tl_trace_mmap(pTrace), &p->map, pErr);
    if( rc==TL_OK ) rc = open_header(pTrace, p, &b, pErr);
    if( rc==TL_OK ) rc = open_walk(pTrace, p, &win, &b, pErr);
    if( rc==TL_OK ) pTrace->nEventsHint = tl_index_events(&pTrace->index);
    if( rc==TL_OK ) xray_clock_apply(pTrace, p);
  }
  tl_win_free(&win);
  if( rc ){ xrayClose(p); return rc; }
  pTrace->pData = p;
  return TL_OK;
}
