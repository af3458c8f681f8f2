/*
** ctf_cur.h: reading one event of a stream cursor (the decoder's hot path).
** Static inline so that the files reading event by event (ctf_scan.c,
** ctf_count.c, ctf_walk.c) each have it in reach of the compiler's inlining.
*/
#ifndef TL_CTF_CUR_H
#define TL_CTF_CUR_H

#include "ctf/ctf_int.h"

/* Apply the event header's id and timestamp fields. */
static inline void ctf_cur_header(CtfCur *c, uint64_t *pId, int *pbId){
  const TlCtfDec *d = &c->dec;
  int r = d->aRoot[TL_CTF_SCOPE_EV_HEADER];
  uint32_t i, end;
  if( r<0 ) return;
  end = (uint32_t)r + d->aVal[r].nSub;
  for(i=(uint32_t)r; i<end; i++){
    const TlCtfVal *v = &d->aVal[i];
    const TlCtfField *f = v->pField;
    if( f->eRole==TL_CTF_ROLE_ID ){
      *pId = v->v.u;
      *pbId = 1;
    }else if( f->eRole==TL_CTF_ROLE_CLOCK ){
      c->clock = c->bClock ? tl_ctf_clock_update(c->clock, v->v.u, (unsigned)f->nBits) : v->v.u;
      c->bClock = 1;
    }
  }
}


/*
** One event of cursor c's open packet by the header and skip plans alone
** (c->pHdr set): its class, with the clock after it in *pClock, *pbClock;
** or NULL with the decoder back at the event when it needs the general
** decoder (no plan for its class, damage, the packet's end).
*/
static inline const TlCtfEventClass *ctf_plan_event(CtfCur *c, uint64_t *pClock, int *pbClock){
  CtfMark m = ctf_mark(&c->dec);
  int iEC = tl_ctf_plan_event(c->pHdr, c->aSkip, c->pSC, &c->dec, pClock, pbClock);
  if( iEC>=0 ) return &c->pSC->aEvent[iEC];
  ctf_rewind(&c->dec, &m);
  return 0;
}

/*
** Move cursor c past the packets the filter rules out (copies, and those
** out of the window or of other CPUs by the index): 1 when c->iPkt is a
** packet to open, 0 when the stream has no more for the filter.
*/
static inline int ctf_cur_seek_pkt(const CtfScan *pScan, CtfCur *c){
  const TlTrace *t = pScan->pTrace;
  for(; c->iPkt < c->iPktEnd; c->iPkt++){
    const TlPacket *tp = &t->index.a[c->iPkt];
    if( tp->tsBegin!=TL_TS_MIN && tp->tsBegin > pScan->f.tsHi ) return 0;
    if( !(tp->flags & CTF_PF_DUP)
     && tl_packet_may_match(tp, pScan->f.tsLo, pScan->f.tsHi, pScan->f.aCpu, pScan->f.nCpu) ){
      return 1;
    }
  }
  return 0;
}

/*
** Read the next event of cursor c into its current event. TL_ROW, TL_DONE
** (the stream has nothing more in the window), or an error in *pErr.
*/
static inline int ctf_cur_read(const CtfScan *pScan, CtfCur *c, TlErr *pErr){
  TlTrace *t = pScan->pTrace;
  TlCtfDec *d = &c->dec;
  for(;;){
    const TlCtfStreamClass *sc;
    uint64_t id = 0, iStart;
    int bId = 0, rc;
    if( !c->bOpen ){
      if( !ctf_cur_seek_pkt(pScan, c) ) return TL_DONE;
      rc = tl_ctf_cur_open_pkt(pScan, c, pErr);
      if( rc ) goto stream_error;
    }
    if( d->bits.iBit >= d->bits.nBitEnd ){
      c->bOpen = 0;
      if( pScan->f.bRowid || c->bPktByEvent ) return TL_DONE;
      continue;
    }
    iStart = d->bits.iBit;
    sc = c->pSC;
    if( sc==0 ){
      rc = tl_err_set(pErr, TL_ECORRUPT, d->iFileOff + iStart/8,
                      "event data in a trace whose metadata defines no stream class");
      goto stream_error;
    }
    tl_ctf_dec_truncate(d, c->nPktVals);
    if( c->pHdr ){
      /* no values wanted: the header's and the event's plans, when both run */
      int bClock = c->bClock;
      uint64_t clock = c->clock;
      c->pEC = ctf_plan_event(c, &clock, &bClock);
      if( c->pEC ){
        c->clock = clock;
        c->bClock = bClock;
        goto decoded;
      }
    }
    rc = tl_ctf_dec_scope(d, TL_CTF_SCOPE_EV_HEADER, sc->pEvHeader, pErr);
    if( rc ) goto event_error;
    ctf_cur_header(c, &id, &bId);
    if( !bId ){
      if( sc->nEvent==1 ) id = sc->aEvent[0].id;
    }
    c->pEC = tl_ctf_event_class(sc, id);
    if( c->pEC==0 ){
      rc = tl_err_set(pErr, TL_ECORRUPT, d->iFileOff + iStart/8,
                      "event of class id %llu, which stream class %llu does not define",
                      (unsigned long long)id, (unsigned long long)sc->id);
      goto stream_error;
    }
    if( c->aSkip==0 || !c->aSkip[c->pEC - sc->aEvent].bOk
     || tl_ctf_skip_run(&c->aSkip[c->pEC - sc->aEvent], d) ){
      /* the general decoder: values wanted, no plan, or an error to report */
      rc = tl_ctf_dec_scope(d, TL_CTF_SCOPE_EV_SCONTEXT, sc->pEvContext, pErr);
      if( rc==TL_OK ) rc = tl_ctf_dec_scope(d, TL_CTF_SCOPE_EV_CONTEXT, c->pEC->pContext, pErr);
      if( rc==TL_OK ) rc = tl_ctf_dec_scope(d, TL_CTF_SCOPE_EV_PAYLOAD, c->pEC->pPayload, pErr);
      if( rc ) goto event_error;
    }
  decoded:
    if( d->bits.iBit==iStart ){
      rc = tl_err_set(pErr, TL_ECORRUPT, d->iFileOff + iStart/8,
                      "event of class %llu takes no bits: the stream cannot advance",
                      (unsigned long long)c->pEC->id);
      goto stream_error;
    }
    c->iRowid = ((int64_t)c->iCurPkt << CTF_EV_BITS) + c->iEv;
    c->iEv++;
    c->bTs = 0;
    if( c->bClock ){
      int64_t ns;
      if( ctf_ns(&c->pTr->m, pScan->p->bExact, c->iClock, c->clock, &ns)==0 ){
        c->ts = ns;
        c->bTs = 1;
      }else if( c->iClock>=0 && !__atomic_exchange_n(&pScan->p->bWarnedClock, 1, __ATOMIC_RELAXED) ){
        /* (once a trace: helpers of a count by name may meet it at once) */
        tl_trace_warn(t, t->index.azFile[c->pStm->iFile], d->iFileOff + iStart/8,
                      "clock value %llu cycles is outside the ns range from the clock's"
                      " origin; such events have ts NULL and their cycles in ts_raw",
                      (unsigned long long)c->clock);
      }
    }
    if( pScan->f.bRowid && c->iRowid!=pScan->f.iRowid ) continue;
    if( c->bTs && c->ts < pScan->f.tsLo ) continue;
    if( c->bTs && c->ts > pScan->f.tsHi ) return TL_DONE;
    return TL_ROW;
  event_error:
    if( d->bPastEnd && c->bCut ){
      /* The file was cut inside this packet: what came before stands. */
      tl_err_clear(pErr);
      tl_trace_warn(t, t->index.azFile[c->pStm->iFile], d->iFileOff + iStart/8,
                    "the file ends inside an event; the rest of the stream is missing");
      c->bOpen = 0;
      c->iPkt = c->iPktEnd;
      return TL_DONE;
    }
  stream_error:
    tl_err_file(pErr, t->index.azFile[c->pStm->iFile]);
    return rc ? rc : TL_ECORRUPT;
  }
}

/* ctf_cur_read() with its errors in the scan's. */
static inline int ctf_cur_next(CtfScan *pScan, CtfCur *c){
  return ctf_cur_read(pScan, c, &pScan->err);
}

#endif /* TL_CTF_CUR_H */
