/*
** ctf_scan.c: event scans. One cursor per stream that can match the
** filter, started at the first packet whose end is not before the window.
** An ordered events scan is the engine's merge of one scan per stream
** (tl_ctf_streams); the derived tables and the CPUs' threads merge the
** cursors' events here, with the base's heap. Count mode
** and counts by name are in ctf_count.c, the other tables' rows in
** ctf_rows.c.
*/
#include <stdlib.h>
#include <string.h>

#include "ctf/ctf_cur.h"
#include "model_sched.h"

/*
** Open packet iPkt on cursor c with at most nMax of its bytes in the
** decoder (all of them when the packet has no more).
*/
static int ctf_open_pkt(const CtfScan *pScan, CtfCur *c, uint64_t nMax, TlErr *pErr){
  TlTrace *t = pScan->pTrace;
  const TlPacket *tp = &t->index.a[c->iPkt];
  uint64_t nWant = tp->nSize < nMax ? tp->nSize : nMax;
  TlBytes b;
  CtfPkt pk;
  int rc = tl_win_get(&c->win, tp->iOff, (size_t)nWant, TL_LE, &b, pErr);
  if( rc ) return rc;
  tl_packet_note_read(tp);
  if( b.n < nWant ){
    return tl_err_set(pErr, TL_EIO, tp->iOff, "packet of %llu bytes not readable",
                      (unsigned long long)tp->nSize);
  }
  tl_ctf_bits_init(&c->dec.bits, b.a, b.n, (uint64_t)b.n*8);
  c->dec.iFileOff = tp->iOff;
  rc = tl_ctf_pkt_read(c->pTr, &c->dec, c->pStm->pSrc->nSize, &pk, pErr);
  if( rc ) return rc;
  if( !(tp->flags & CTF_PF_CUT) && pk.nBits/8 != tp->nSize ){
    /* the index was built from other bytes */
    return tl_err_set(pErr, TL_EIO, tp->iOff,
        "%s changed while it was read: the packet here has %llu bytes, had %llu",
        c->pStm->pSrc->zPath, (unsigned long long)(pk.nBits/8),
        (unsigned long long)tp->nSize);
  }
  c->dec.bits.nBitEnd = pk.nContent < (uint64_t)b.n*8 ? pk.nContent : (uint64_t)b.n*8;
  c->nPktContent = pk.nContent < tp->nSize*8 ? pk.nContent : tp->nSize*8;
  c->bPart = nWant < tp->nSize;
  c->iPartOff = 0;
  c->nPktVals = c->dec.nVal;
  c->bClock = (tp->flags & CTF_PF_TSBEGIN)!=0;
  c->clock = tp->iAux;
  c->iEv = 0;
  c->iCpu = pk.bCpu && pk.iCpu < INT64_MAX ? (int64_t)pk.iCpu : -1;
  c->iCurPkt = c->iPkt;
  c->pSC = pk.pSC;
  c->aSkip = pScan->bSkip && pk.iSC>=0 && c->pTr->aaSkip ? c->pTr->aaSkip[pk.iSC] : 0;
  c->pHdr = c->aSkip && c->pTr->aHdr[pk.iSC].bOk ? &c->pTr->aHdr[pk.iSC] : 0;
  c->iClock = pk.iClock;
  c->bCut = (tp->flags & CTF_PF_CUT)!=0;
  c->bOpen = 1;
  c->iPkt++;
  return TL_OK;
}

int tl_ctf_cur_open_pkt(const CtfScan *pScan, CtfCur *c, TlErr *pErr){
  return ctf_open_pkt(pScan, c, UINT64_MAX, pErr);
}

size_t tl_ctf_part_size = CTF_PART;

/*
** The largest alignment in bytes (at least 1) of the reads of cursor c's
** header and skip plans, kept for its stream class. Parts of a packet
** start at multiples of it, so each read aligns in the part as in the
** whole packet (alignments are powers of two, from the packet's start).
*/
static uint64_t ctf_part_align(CtfCur *c){
  const TlCtfStreamClass *sc = c->pSC;
  uint64_t a = 8;
  int i, k;
  if( c->pPartSC==sc ) return c->nPartAlign;
  for(i=0; i<c->pHdr->nOp; i++){
    if( c->pHdr->aOp[i].nAlign > a ) a = c->pHdr->aOp[i].nAlign;
  }
  for(k=0; k<sc->nEvent; k++){
    const TlCtfSkip *s = &c->aSkip[k];
    if( !s->bOk ) continue;
    for(i=0; i<s->nOp; i++) if( s->aOp[i].nAlign > a ) a = s->aOp[i].nAlign;
  }
  c->pPartSC = sc;
  c->nPartAlign = a/8;
  return c->nPartAlign;
}

int tl_ctf_cur_open_part(const CtfScan *pScan, CtfCur *c, TlErr *pErr){
  size_t iPkt = c->iPkt;
  int rc = ctf_open_pkt(pScan, c, tl_ctf_part_size, pErr);
  if( rc==TL_OK && c->bPart && (c->pHdr==0 || c->pSC==0 || ctf_part_align(c) > tl_ctf_part_size/4) ){
    c->iPkt = iPkt;                 /* no plans (or huge alignments): whole */
    rc = ctf_open_pkt(pScan, c, UINT64_MAX, pErr);
  }else if( rc && c->dec.bPastEnd && pScan->pTrace->index.a[iPkt].nSize > tl_ctf_part_size ){
    tl_err_clear(pErr);             /* a header and context longer than a part */
    c->iPkt = iPkt;
    rc = ctf_open_pkt(pScan, c, UINT64_MAX, pErr);
  }
  return rc;
}

int tl_ctf_cur_next_part(const CtfScan *pScan, CtfCur *c, uint64_t iBit, TlErr *pErr){
  const TlPacket *tp = &pScan->pTrace->index.a[c->iCurPkt];
  uint64_t iEnd = c->iPartOff + c->dec.bits.n;   /* bytes of the packet held */
  uint64_t iAt = c->iPartOff + iBit/8, iOff, n;
  TlBytes b;
  int rc;
  if( !c->bPart || iEnd*8 >= c->nPktContent || iAt > iEnd ) return 0;
  iOff = iAt & ~(ctf_part_align(c) - 1);
  /* at least a part, and more than the bytes held from there (an event
  ** longer than a part) */
  n = iEnd - iOff < tl_ctf_part_size/2 ? tl_ctf_part_size : 2*(iEnd - iOff);
  if( n > tp->nSize - iOff ) n = tp->nSize - iOff;
  rc = tl_win_get(&c->win, tp->iOff + iOff, (size_t)n, TL_LE, &b, pErr);
  if( rc ) return rc;
  if( b.n < n ){
    return tl_err_set(pErr, TL_EIO, tp->iOff, "packet of %llu bytes not readable",
                      (unsigned long long)tp->nSize);
  }
  tl_ctf_bits_init(&c->dec.bits, b.a, b.n, c->nPktContent - iOff*8);
  c->dec.bits.iBit = (c->iPartOff*8 + iBit) - iOff*8;
  c->dec.iFileOff = tp->iOff + iOff;
  c->iPartOff = iOff;
  return 1;
}

/* First packet of stream s to read for the filter. */
static size_t ctf_first_pkt(const TlTrace *t, const CtfStm *s, const TlFilter *f){
  if( f->tsLo==TL_TS_MIN ) return s->iPkt0;
  return s->iPkt0 + tl_packets_first_end_ge(&t->index.a[s->iPkt0], s->nPkt, f->tsLo);
}

/* Set up cursor c (zeroed) on stream s (track iTrack) of the scan's trace. */
void tl_ctf_cur_init(CtfScan *pScan, CtfCur *c, const CtfStm *s, int64_t iTrack){
  c->pTr = &pScan->p->aTr[s->iTr];
  c->pStm = s;
  c->iTrack = iTrack;
  tl_win_init(&c->win, s->pSrc);
  tl_ctf_dec_init(&c->dec);
  c->dec.pnShared = pScan->f.pnHeld ? pScan->f.pnHeld : &pScan->nDecBytes;
  c->dec.nSharedMax = tl_trace_max_memory(pScan->pTrace);
  c->dec.nMaxVals = pScan->p->nMaxVals;
}

void tl_ctf_cur_free(CtfCur *c){
  tl_win_free(&c->win);
  tl_ctf_dec_free(&c->dec);
}

/*
** Set up cursor c (zeroed) on stream iStm of the scan's trace, at the
** packets the filter leaves it: all of a plain scan's reading of the stream.
*/
void tl_ctf_cur_start(CtfScan *pScan, CtfCur *c, int iStm){
  const CtfStm *s = &pScan->p->aStm[iStm];
  tl_ctf_cur_init(pScan, c, s, iStm);
  c->iPkt = ctf_first_pkt(pScan->pTrace, s, &pScan->f);
  c->iPktEnd = s->iPkt0 + s->nPkt;
  if( pScan->f.bRowid ){
    uint64_t iPkt = (uint64_t)pScan->f.iRowid >> CTF_EV_BITS;
    if( pScan->f.iRowid < 0 || iPkt < s->iPkt0 || iPkt >= s->iPkt0 + s->nPkt ){
      c->iPkt = c->iPktEnd;
    }else{
      c->iPkt = (size_t)iPkt;
    }
  }
}

static int ctf_events_open(CtfScan *pScan){
  TlTrace *t = pScan->pTrace;
  CtfData *p = pScan->p;
  int i;
  size_t nCurMax = (size_t)(p->nStm ? p->nStm : 1);
  pScan->aCur = calloc(nCurMax, sizeof(CtfCur));
  pScan->aKey = calloc(nCurMax, sizeof(int64_t));
  if( pScan->aCur==0 || pScan->aKey==0 || tl_heap_init(&pScan->heap, (int)nCurMax, pScan->aKey) ){
    return tl_err_set(&pScan->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  for(i=0; i<p->nStm; i++){
    const CtfStm *s = &p->aStm[i];
    CtfCur *c;
    if( s->nPkt==0 ) continue;
    if( pScan->f.bStream && pScan->f.iStream!=i ) continue;
    if( tl_source_check(s->pSrc, &pScan->err) ){
      tl_err_file(&pScan->err, t->index.azFile[s->iFile]);
      return pScan->err.rc;
    }
    c = &pScan->aCur[pScan->nCur++];
    tl_ctf_cur_start(pScan, c, i);
  }
  return TL_OK;
}

/*
** The next event in time order: the cursors' events merged by the heap.
** TL_ROW with pScan->iLast the cursor holding it, TL_DONE, or an error.
*/
static int ctf_merge_next(CtfScan *pScan){
  int rc;
  if( !pScan->bStarted ){
    int i;
    pScan->bStarted = 1;
    for(i=0; i<pScan->nCur; i++){
      const CtfCur *c = &pScan->aCur[i];
      rc = ctf_cur_next(pScan, &pScan->aCur[i]);
      if( rc<0 ) return rc;
      if( rc==TL_ROW ){
        pScan->aKey[i] = c->bTs ? c->ts : INT64_MIN;
        tl_heap_push(&pScan->heap, i);
      }
    }
  }else if( pScan->iLast>=0 ){
    const CtfCur *c = &pScan->aCur[pScan->iLast];
    rc = ctf_cur_next(pScan, &pScan->aCur[pScan->iLast]);
    if( rc<0 ) return rc;
    if( rc==TL_ROW ){
      pScan->aKey[pScan->iLast] = c->bTs ? c->ts : INT64_MIN;
      tl_heap_top_moved(&pScan->heap);
    }else{
      tl_heap_pop(&pScan->heap);
    }
  }
  pScan->iLast = tl_heap_top(&pScan->heap);
  return pScan->iLast<0 ? TL_DONE : TL_ROW;
}

int tl_ctf_merge_next(CtfScan *pScan){ return ctf_merge_next(pScan); }

/*
** The next event in file order (a plain scan not asked for time order):
** the streams one after the other, each read through. As ctf_merge_next().
*/
static int ctf_stream_next(CtfScan *pScan){
  pScan->bStarted = 1;
  pScan->iLast = -1;
  while( pScan->iSeqCur < pScan->nCur ){
    int rc = ctf_cur_next(pScan, &pScan->aCur[pScan->iSeqCur]);
    if( rc<0 ) return rc;
    if( rc==TL_ROW ){
      pScan->iLast = pScan->iSeqCur;
      return TL_ROW;
    }
    pScan->iSeqCur++;
  }
  return TL_DONE;
}

/* comm: the procname context field (LTTng's add-context -t procname), as text. */
static void ctf_comm(const TlCtfDec *pDec, TlVal *pVal){
  static const int aiScope[2] = { TL_CTF_SCOPE_EV_SCONTEXT, TL_CTF_SCOPE_EV_CONTEXT };
  int s;
  for(s=0; s<2; s++){
    int i = tl_ctf_dec_member(pDec, pDec->aRoot[aiScope[s]], "procname");
    if( i>=0 && pDec->aVal[i].z ){
      tl_val_text(pVal, pDec->aVal[i].z, pDec->aVal[i].n);
      return;
    }
  }
}

/* One row per event: of the merged streams, or (plain, unordered) in file order. */
static int ctf_events_next(CtfScan *pScan, TlRow *pRow){
  CtfCur *c;
  TlVal *a = pScan->aCol;
  int rc, k;
  rc = (pScan->f.bStream || (pScan->f.bPlain && !pScan->f.bOrdered)) && !pScan->pThreads
     ? ctf_stream_next(pScan) : ctf_merge_next(pScan);
  if( rc!=TL_ROW ) return rc;
  c = &pScan->aCur[pScan->iLast];
  for(k=0; k<TL_EV_NCOL; k++) tl_val_null(&a[k]);
  if( c->bTs ) tl_val_int(&a[TL_EV_TS], c->ts);
  if( c->bClock ) tl_val_int(&a[TL_EV_TS_RAW], (int64_t)c->clock);
  if( c->iCpu>=0 ) tl_val_int(&a[TL_EV_CPU], c->iCpu);
  tl_val_int(&a[TL_EV_TRACK], c->iTrack);
  if( tl_col_used(&pScan->f, TL_EV_TYPE) ) tl_val_text(&a[TL_EV_TYPE], "event", 5);
  if( tl_col_used(&pScan->f, TL_EV_NAME) ) tl_val_textz(&a[TL_EV_NAME], c->pEC->zName);
  if( tl_col_used(&pScan->f, TL_EV_PID) || tl_col_used(&pScan->f, TL_EV_TID) ){
    static const char *const azPid[2][2] = { {"vpid", "pid"}, {"vtid", "tid"} };
    static const int aiScope[2] = { TL_CTF_SCOPE_EV_SCONTEXT, TL_CTF_SCOPE_EV_CONTEXT };
    int w, s, k2;
    for(w=0; w<2; w++){
      for(s=0; s<2 && a[TL_EV_PID+w].t==TL_NULL; s++){
        for(k2=0; k2<2; k2++){
          int i = tl_ctf_dec_member(&c->dec, c->dec.aRoot[aiScope[s]], azPid[w][k2]);
          if( tl_ctf_dec_is_int(&c->dec, i) ){
            tl_val_int(&a[TL_EV_PID+w], c->dec.aVal[i].v.i);
            break;
          }
        }
      }
    }
  }
  if( tl_col_used(&pScan->f, TL_EV_COMM) ) ctf_comm(&c->dec, &a[TL_EV_COMM]);
  if( pScan->pThreads && tl_ctf_thread_cols(pScan, c, a) ) return pScan->err.rc;
  if( pScan->pDbg ) tl_ctf_dbg_cols(pScan, c, a);
  if( tl_col_used(&pScan->f, TL_EV_TEXT) || tl_col_used(&pScan->f, TL_EV_ARGS) ){
    TlCtfScopes sc;
    sc.aVal = c->dec.aVal;
    memcpy(sc.aRoot, c->dec.aRoot, sizeof(sc.aRoot));
    if( tl_col_used(&pScan->f, TL_EV_TEXT) ){
      tl_str_reset(&pScan->sText);
      tl_ctf_render_text(&sc, &pScan->sText);
      if( pScan->sText.n==0 && !pScan->sText.bErr ) tl_val_text(&a[TL_EV_TEXT], "", 0);
      else tl_val_str(&a[TL_EV_TEXT], &pScan->sText);
    }
    if( tl_col_used(&pScan->f, TL_EV_ARGS) ){
      tl_str_reset(&pScan->sArgs);
      tl_ctf_render_args(&sc, &pScan->sArgs);
      tl_val_str(&a[TL_EV_ARGS], &pScan->sArgs);
    }
  }
  pRow->iRowid = c->iRowid;
  pRow->a = a;
  return TL_ROW;
}

/* Does the scan use a column of ctf_debuginfo.c, in a trace that has its events? */
static int ctf_dbg_used(const CtfData *p, const TlFilter *f){
  return (tl_col_used(f, TL_EV_SYMBOL) || tl_col_used(f, TL_EV_DSO) || tl_col_used(f, TL_EV_SYMOFF)
          || tl_col_used(f, TL_EV_DSO_OFFSET) || tl_col_used(f, TL_EV_SRCLINE))
      && tl_ctf_dbg_has_events(p);
}

void tl_ctf_scan_close(TlScan *pScan0){
  CtfScan *pScan = (CtfScan*)pScan0;
  int i;
  if( pScan==0 ) return;
  tl_ctf_sched_close(pScan);
  tl_ctf_calls_close(pScan);
  tl_ctf_thread_close(pScan);
  tl_ctf_dbg_close(pScan);
  for(i=0; i<pScan->nCur; i++) tl_ctf_cur_free(&pScan->aCur[i]);
  if( pScan->bReplay ) tl_ctf_cur_free(&pScan->replay);
  if( pScan->bPair ) tl_ctf_cur_free(&pScan->pair);
  free(pScan->aTally);
  free(pScan->aStash);
  free(pScan->aCur);
  tl_heap_free(&pScan->heap);
  free(pScan->aKey);
  free(pScan->aCpu);
  tl_str_free(&pScan->sText);
  tl_str_free(&pScan->sArgs);
  free(pScan);
}

int tl_ctf_scan_open(TlTrace *t, int iTable, const TlFilter *pFilter,
                       TlScan **ppScan, TlErr *pErr){
  CtfScan *pScan;
  int rc = TL_OK;
  *ppScan = 0;
  int bSched = tl_sched_out_of_table(iTable) || iTable==TL_TAB_CALLS;
  if( iTable!=TL_TAB_EVENTS && iTable!=TL_TAB_TRACKS && iTable!=TL_TAB_EVENT_TYPES && !bSched ){
    return TL_DONE;
  }
  pScan = calloc(1, sizeof(*pScan));
  if( pScan==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  pScan->pTrace = t;
  pScan->p = (CtfData*)t->pData;
  pScan->iTable = iTable;
  pScan->f = *pFilter;
  pScan->iLast = -1;
  tl_str_init(&pScan->sText);
  tl_str_init(&pScan->sArgs);
  if( pFilter->nCpu>0 ){
    pScan->aCpu = malloc(sizeof(int64_t)*(size_t)pFilter->nCpu);
    if( pScan->aCpu==0 ){ tl_ctf_scan_close((TlScan*)pScan); return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory"); }
    memcpy(pScan->aCpu, pFilter->aCpu, sizeof(int64_t)*(size_t)pFilter->nCpu);
    pScan->f.aCpu = pScan->aCpu;
  }
  pScan->bSkip = !tl_col_used(pFilter, TL_EV_PID) && !tl_col_used(pFilter, TL_EV_TID)
               && !tl_col_used(pFilter, TL_EV_COMM)
               && !tl_col_used(pFilter, TL_EV_TEXT) && !tl_col_used(pFilter, TL_EV_ARGS)
               && !ctf_dbg_used(pScan->p, pFilter);
  if( bSched ){
    /* every event from the start, in time order, its fields decoded */
    pScan->f.tsLo = TL_TS_MIN;
    pScan->f.tsHi = TL_TS_MAX;
    pScan->f.nCpu = -1;
    pScan->f.aCpu = 0;
    pScan->f.bRowid = 0;
    pScan->f.bOrdered = 1;
    pScan->bSkip = 0;
    rc = iTable==TL_TAB_CALLS ? tl_ctf_calls_open(pScan) : tl_ctf_sched_open(pScan, pFilter);
  }
  if( iTable==TL_TAB_EVENTS
   && (tl_col_used(pFilter, TL_EV_PID) || tl_col_used(pFilter, TL_EV_TID)
       || tl_col_used(pFilter, TL_EV_COMM)) ){
    rc = tl_ctf_thread_open(pScan);
  }
  if( rc==TL_OK && iTable==TL_TAB_EVENTS && ctf_dbg_used(pScan->p, pFilter) ){
    rc = tl_ctf_dbg_open(pScan);
  }
  if( rc==TL_OK && (iTable==TL_TAB_EVENTS || bSched) ) rc = ctf_events_open(pScan);
  if( rc ){
    *pErr = pScan->err;
    tl_ctf_scan_close((TlScan*)pScan);
    return rc;
  }
  *ppScan = (TlScan*)pScan;
  return TL_OK;
}

int tl_ctf_streams(const TlTrace *t, int iTable, const TlFilter *f){
  const CtfData *p = (const CtfData*)t->pData;
  /* the CPUs' threads are followed over every stream's events at once */
  if( iTable!=TL_TAB_EVENTS || tl_ctf_thread_wanted(p, f) ) return 0;
  return p->nStm;
}

int tl_ctf_scan_next(TlScan *pScan0, TlRow *pRow){
  CtfScan *pScan = (CtfScan*)pScan0;
  int rc;
  if( pScan->err.rc ) return pScan->err.rc;
  switch( pScan->iTable ){
    case TL_TAB_EVENTS:
      rc = ctf_events_next(pScan, pRow);
      break;
    case TL_TAB_TRACKS:      rc = tl_ctf_tracks_next(pScan, pRow); break;
    case TL_TAB_EVENT_TYPES: rc = tl_ctf_event_types_next(pScan, pRow); break;
    case TL_TAB_SCHED_SLICES: case TL_TAB_THREAD_STATES: case TL_TAB_SYSCALLS:
    case TL_TAB_SCHED_THREADS: case TL_TAB_SYSCALL_STATS:
      rc = tl_ctf_sched_next(pScan, pRow);
      break;
    case TL_TAB_CALLS:       rc = tl_ctf_calls_next(pScan, pRow); break;
    default:                 rc = TL_DONE; break;
  }
  return rc;
}

const TlErr *tl_ctf_scan_err(TlScan *pScan){
  return &((CtfScan*)pScan)->err;
}

