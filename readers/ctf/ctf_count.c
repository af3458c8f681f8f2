/*
** ctf_count.c: events counted rather than read. The counting hooks
** (reader.h) count each packet's events with the header and skip plans
** alone (time windows compared as clock values) for the engine's counted
** scans; the tally hooks count them so by event class, for the engine's
** grouped output (GROUP BY name).
*/
#include <stdlib.h>
#include <string.h>

#include "progress.h"
#include "ctf/ctf_cur.h"

/* The count job of cursor c's open packet (see tl_ctf_count_plans()). */
static void ctf_count_job(CtfCur *c, int64_t *aTally, TlCtfCount *j){
  j->pHdr = c->pHdr;
  j->aSkip = c->aSkip;
  j->sc = c->pSC;
  j->d = &c->dec;
  j->clock = c->clock;
  j->bClock = c->bClock;
  j->aTally = aTally;
  j->n = 0;
  j->rc = 0;
}

/* After job j of cursor c: as ctf_count_packet() returns. */
static int ctf_count_end(CtfCur *c, const TlCtfCount *j, const CtfMark *m, uint64_t *pn){
  if( j->rc ){
    if( !c->bPart ) ctf_rewind(&c->dec, m);
    return -1;
  }
  c->clock = j->clock;
  c->bClock = j->bClock;
  c->bOpen = 0;
  *pn = j->n;
  return 0;
}

/*
** Cursor c's packet opened whole again when a part of it is open, at its
** first event (where a count that fails leaves the cursor): TL_OK or an
** error in *pErr.
*/
static int ctf_cur_whole(const CtfScan *pScan, CtfCur *c, TlErr *pErr){
  int rc;
  if( !c->bPart || !c->bOpen ) return TL_OK;
  c->iPkt = c->iCurPkt;
  rc = tl_ctf_cur_open_pkt(pScan, c, pErr);
  if( rc ) tl_err_file(pErr, pScan->pTrace->index.azFile[c->pStm->iFile]);
  return rc;
}

/*
** After job j stopped in a part of cursor c's packet (rc -1 at an event,
** or 0 at the part's end), its next part from that event on: 1 when the
** count goes on there, 0 when the packet has no more. A part that cannot
** be read fails the job (rc -1): the packet is then read whole, event by
** event, and that read reports the error.
*/
static int ctf_count_more(const CtfScan *pScan, CtfCur *c, TlCtfCount *j){
  TlErr err;
  int rc;
  if( !c->bPart || j->rc < -1 ) return 0;
  tl_err_clear(&err);
  rc = tl_ctf_cur_next_part(pScan, c, c->dec.bits.iBit, &err);
  if( rc<0 ) j->rc = -1;
  return rc==1;
}

/*
** Count the events of cursor c's open packet with the header and skip plans
** alone, leaving the packet done: 0 with *pn, or -1 with the cursor back at
** the packet's first event when an event needs the general decoder (no
** plan, damage, the file's end): then it is read event by event (a packet
** read in parts is opened whole again first, ctf_cur_whole()). aTally, when
** not NULL, counts the events of each class of the packet's stream class
** (by index; zeroed by the caller; partial after -1).
*/
static int ctf_count_packet(const CtfScan *pScan, CtfCur *c, uint64_t *pn, int64_t *aTally){
  TlCtfCount j;
  CtfMark m;
  uint64_t n = 0;
  if( c->pHdr==0 || c->pSC==0 ) return -1;
  m = ctf_mark(&c->dec);
  ctf_count_job(c, aTally, &j);
  do{
    tl_ctf_count_plans(&j);
    n += j.n;
  }while( j.rc<=0 && ctf_count_more(pScan, c, &j) );
  j.n = n;
  return ctf_count_end(c, &j, &m, pn);
}

/*
** Open cursor c's next packet a count reads (its cpu_id may still fail a
** cpu filter), a part at a time when bPart (tl_ctf_cur_open_part()):
** TL_ROW, TL_DONE after the stream's last, or an error.
*/
static int ctf_cur_open_next(const CtfScan *pScan, CtfCur *c, int bPart, TlErr *pErr){
  int rc;
  if( !ctf_cur_seek_pkt(pScan, c) ) return TL_DONE;
  rc = bPart ? tl_ctf_cur_open_part(pScan, c, pErr) : tl_ctf_cur_open_pkt(pScan, c, pErr);
  if( rc ){
    tl_err_file(pErr, pScan->pTrace->index.azFile[c->pStm->iFile]);
    return rc;
  }
  return TL_ROW;
}

/*
** May the open packet of cursor c be counted whole for a time window? Its
** clock starts at the packet's timestamp_begin and only grows, so every
** event is at or after it: that must be in the window, and the header's
** timestamp_end too (else the packet likely crosses the end; the last
** event's time, checked after the count, is what decides).
*/
static int ctf_pkt_in_window(const CtfScan *pScan, const CtfCur *c){
  const TlPacket *tp = &pScan->pTrace->index.a[c->iCurPkt];
  int64_t ns;
  if( pScan->f.tsLo==TL_TS_MIN && pScan->f.tsHi==TL_TS_MAX ) return 1;
  if( !(tp->flags & CTF_PF_TSBEGIN) || !c->bClock || tp->tsEnd > pScan->f.tsHi ) return 0;
  return ctf_ns(&c->pTr->m, pScan->p->bExact, c->iClock, c->clock, &ns)==0 && ns>=pScan->f.tsLo;
}

/* After a count: is the packet's last event (its clock now) in the window? */
static int ctf_pkt_end_in_window(const CtfScan *pScan, const CtfCur *c){
  int64_t ns;
  if( pScan->f.tsHi==TL_TS_MAX ) return 1;
  return c->bClock && ctf_ns(&c->pTr->m, pScan->p->bExact, c->iClock, c->clock, &ns)==0
      && ns<=pScan->f.tsHi;
}

/*
** The window's bounds as values of cursor c's clock, whose times only grow
** with the value: *pcLo the least value whose time is at or after tsLo,
** *pcHi the greatest whose time is at or before tsHi, found by bisection
** (64 conversions each) and checked at their edges. -1 when the clock
** cannot say (out of range at a bound, an empty range): then each event's
** time is worked out.
*/
static int ctf_window_clocks(const CtfScan *pScan, const CtfCur *c, uint64_t *pcLo, uint64_t *pcHi){
  const TlCtfModel *m = &c->pTr->m;
  int bExact = pScan->p->bExact, iClock = c->iClock;
  int64_t ns;
  uint64_t lo = 0, hi = UINT64_MAX;
  /* the least value whose time is >= tsLo (a time out of range counts as above) */
  while( lo<hi ){
    uint64_t mid = lo + (hi - lo)/2;
    if( ctf_ns(m, bExact, iClock, mid, &ns) || ns>=pScan->f.tsLo ) hi = mid; else lo = mid + 1;
  }
  if( ctf_ns(m, bExact, iClock, lo, &ns) || ns<pScan->f.tsLo ) return -1;
  if( lo>0 && (ctf_ns(m, bExact, iClock, lo - 1, &ns) || ns>=pScan->f.tsLo) ) return -1;
  *pcLo = lo;
  /* the least value whose time is > tsHi (or out of range): *pcHi is the one before */
  lo = 0;
  hi = UINT64_MAX;
  while( lo<hi ){
    uint64_t mid = lo + (hi - lo)/2;
    if( ctf_ns(m, bExact, iClock, mid, &ns) || ns>pScan->f.tsHi ) hi = mid; else lo = mid + 1;
  }
  if( ctf_ns(m, bExact, iClock, lo, &ns) || ns>pScan->f.tsHi ){
    if( lo==0 ) return -1;
    lo--;
  }
  if( ctf_ns(m, bExact, iClock, lo, &ns) || ns>pScan->f.tsHi || lo<*pcLo ) return -1;
  *pcHi = lo;
  return 0;
}

/*
** The events of cursor c's open packet in the time window, by the plans and
** each event's time: they are consecutive (times only grow in a stream), so
** *piFirst events come before them and *pn are in it; *pbPast when an event
** after them is past the window (so is the rest of the stream). 0 with the
** packet done, or -1 with the cursor back at its first event when an event
** needs the general decoder. Events with no time in ns are in no window.
*/
static int ctf_count_window(const CtfScan *pScan, CtfCur *c, int64_t *piFirst, uint64_t *pn,
                            int *pbPast){
  TlCtfDec *d = &c->dec;
  CtfMark m = ctf_mark(d);
  uint64_t clock = c->clock, n = 0;
  int64_t iFirst = 0;
  int bClock = c->bClock;
  uint64_t cLo, cHi;
  *pbPast = 0;
  if( c->pHdr==0 || c->pSC==0 ) return -1;
  if( c->iClock>=0 && ctf_window_clocks(pScan, c, &cLo, &cHi)==0 ){
    /* compare the events' clock values with the bounds' */
    TlCtfCount j;
    uint64_t nFirst = 0, nFirstPart;
    ctf_count_job(c, 0, &j);
    do{
      tl_ctf_count_plans_window(&j, cLo, cHi, &nFirstPart, pbPast);
      nFirst += nFirstPart;
      n += j.n;
    }while( (j.rc<0 || !*pbPast) && ctf_count_more(pScan, c, &j) );
    if( j.rc==0 ){
      c->clock = j.clock;
      c->bClock = j.bClock;
      c->bOpen = 0;
      *piFirst = (int64_t)nFirst;
      *pn = n;
      return 0;
    }
    /* (an event with no clock, or no plan) */
    n = 0;
    *pbPast = 0;
    if( !c->bPart ) ctf_rewind(d, &m);
  }
  if( c->bPart ){
    TlErr err;
    if( ctf_cur_whole(pScan, c, &err) ) return -1;
    m = ctf_mark(d);
  }
  while( d->bits.iBit < d->bits.nBitEnd ){
    uint64_t iStart = d->bits.iBit;
    int64_t ns;
    if( ctf_plan_event(c, &clock, &bClock)==0 || d->bits.iBit==iStart ){
      ctf_rewind(d, &m);
      return -1;
    }
    if( !bClock || ctf_ns(&c->pTr->m, pScan->p->bExact, c->iClock, clock, &ns) ){
      if( n>0 ){ *pbPast = 1; break; }     /* past the ns range: so is the rest */
      iFirst++;
    }else if( ns < pScan->f.tsLo ){
      iFirst++;
    }else if( ns > pScan->f.tsHi ){
      *pbPast = 1;
      break;
    }else{
      n++;
    }
  }
  c->clock = clock;
  c->bClock = bClock;
  c->bOpen = 0;
  *piFirst = iFirst;
  *pn = n;
  return 0;
}

/* ---- the counting hooks (reader.h: xCountCols ... xPacketValue) ---------- */

uint64_t tl_ctf_count_cols(const TlTrace *pTrace, int iTable, const TlFilter *f){
  (void)pTrace;
  if( iTable!=TL_TAB_EVENTS ) return 0;
  /* a packet fixes cpu, track and type; ts and ts_raw for a window only */
  return ((uint64_t)1<<TL_EV_CPU) | ((uint64_t)1<<TL_EV_TRACK) | ((uint64_t)1<<TL_EV_TYPE)
       | (f->tsLo!=TL_TS_MIN || f->tsHi!=TL_TS_MAX
          ? ((uint64_t)1<<TL_EV_TS) | ((uint64_t)1<<TL_EV_TS_RAW) : 0);
}

/* The state is an events scan: a cursor per stream, each counting its
** stream's packets in order, and the replay cursor. */
int tl_ctf_count_open(TlTrace *pTrace, int iTable, const TlFilter *f, void **ppState,
                      TlErr *pErr){
  TlScan *pScan = 0;
  int rc;
  *ppState = 0;
  if( iTable!=TL_TAB_EVENTS ) return TL_DONE;
  rc = tl_ctf_scan_open(pTrace, iTable, f, &pScan, pErr);
  if( rc ) return rc;
  ((CtfScan*)pScan)->iStashPkt = SIZE_MAX;
  *ppState = pScan;
  return TL_OK;
}

void tl_ctf_count_close(void *pState){
  tl_ctf_scan_close(pState);
}

/* Tallying: n zeroed counts (NULL: none, or no memory). */
static int64_t *ctf_tally_zero_n(CtfScan *pScan, int n){
  if( n<=0 ) return 0;
  if( n > pScan->nTally ){
    int64_t *aNew = realloc(pScan->aTally, sizeof(int64_t)*(size_t)n);
    if( aNew==0 ) return 0;
    pScan->aTally = aNew;
    pScan->nTally = n;
  }
  memset(pScan->aTally, 0, sizeof(int64_t)*(size_t)n);
  return pScan->aTally;
}

/*
** Tallying: the scan's per-class counts, zeroed, for stream class sc's
** event classes (NULL sc or no memory: NULL; ctf_count_packet() then
** fails and the packet is read event by event, or the caller reports it).
*/
static int64_t *ctf_tally_zero(CtfScan *pScan, const TlCtfStreamClass *sc){
  return ctf_tally_zero_n(pScan, sc ? sc->nEvent : 0);
}

/* Tallying: the row's cpu, track and type (its name is the class's). */
static void ctf_tally_row(CtfScan *pScan, int64_t iCpu, int64_t iTrack){
  TlVal *a = pScan->aTallyRow;
  int k;
  for(k=0; k<TL_EV_NCOL; k++) tl_val_null(&a[k]);
  if( iCpu>=0 ) tl_val_int(&a[TL_EV_CPU], iCpu);
  tl_val_int(&a[TL_EV_TRACK], iTrack);
  tl_val_text(&a[TL_EV_TYPE], "event", 5);
}

/* Tallying: a packet's events by class (aTally) to the tally, by name. */
static int ctf_tally_classes(CtfScan *pScan, const TlCtfStreamClass *sc, const int64_t *aTally){
  int j;
  for(j=0; j<sc->nEvent; j++){
    int rc;
    if( aTally[j]==0 ) continue;
    tl_val_textz(&pScan->aTallyRow[TL_EV_NAME], sc->aEvent[j].zName);
    rc = tl_tally_add(pScan->pTally, pScan->aTallyRow, (uint64_t)aTally[j]);
    if( rc ) return rc;
  }
  return TL_OK;
}

/*
** Events of cursor c's open packet read one by one (bPktByEvent): *pn of
** them in the window (an event with no time is in none). A time past the
** window ends the stream.
*/
static int ctf_count_by_event_pkt(CtfScan *pScan, CtfCur *c, uint64_t *pn){
  int bWindow = pScan->f.tsLo!=TL_TS_MIN || pScan->f.tsHi!=TL_TS_MAX;
  const TlCtfEventClass *pRun = 0;  /* tallying: the class of the run of events */
  uint64_t n = 0, nRun = 0;
  int rc = ctf_cur_whole(pScan, c, &pScan->err), rcAdd = TL_OK;
  if( rc ) return rc;
  c->bPktByEvent = 1;
  while( (rc = ctf_cur_next(pScan, c))==TL_ROW ){
    if( bWindow && !c->bTs ) continue;
    n++;
    if( !pScan->bTallyNow ) continue;
    if( c->pEC!=pRun && nRun>0 ){
      tl_val_textz(&pScan->aTallyRow[TL_EV_NAME], pRun->zName);
      rcAdd = tl_tally_add(pScan->pTally, pScan->aTallyRow, nRun);
      if( rcAdd ) break;
      nRun = 0;
    }
    pRun = c->pEC;
    nRun++;
  }
  c->bPktByEvent = 0;
  if( rc>=0 && rcAdd==TL_OK && nRun>0 ){
    tl_val_textz(&pScan->aTallyRow[TL_EV_NAME], pRun->zName);
    rcAdd = tl_tally_add(pScan->pTally, pScan->aTallyRow, nRun);
  }
  if( rcAdd ) return rcAdd;
  if( rc<0 ) return rc;
  if( c->bOpen ){                 /* past the window: so is the rest */
    c->bOpen = 0;
    c->iPkt = c->iPktEnd;
  }
  *pn = n;
  return TL_OK;
}

/*
** The events of packet iPkt of cursor c's stream in the scan's window:
** TL_OK with *pn and, when they are consecutive, *piFirst events before
** them (*pbArith: rowids follow), or an error in the scan's.
*/
static int ctf_count_pkt(CtfScan *pScan, CtfCur *c, size_t iPkt, uint64_t *pn,
                         int64_t *piFirst, int *pbArith){
  const TlPacket *tp = &pScan->pTrace->index.a[iPkt];
  uint64_t n = 0;
  int64_t iFirst = 0, *aTally;
  int rc, k, bPast = 0, bOtherCpu = 0;
  *pn = 0;
  *pbArith = 0;
  if( iPkt < c->iPkt || iPkt >= c->iPktEnd || (tp->flags & CTF_PF_DUP) ) return TL_OK;
  if( tp->tsBegin!=TL_TS_MIN && tp->tsBegin > pScan->f.tsHi ){
    c->iPkt = c->iPktEnd;         /* (the stream's later packets too) */
    return TL_OK;
  }
  c->iPkt = iPkt;
  c->bOpen = 0;
  rc = ctf_cur_open_next(pScan, c, 1, &pScan->err);
  if( rc!=TL_ROW ) return rc<0 ? rc : TL_OK;
  if( pScan->f.nCpu>=0 ){
    /* every event of the packet has its cpu_id: all match or none; none:
    ** still counted, for the damage a plain scan meets in it */
    for(k=0; k<pScan->f.nCpu && pScan->f.aCpu[k]!=c->iCpu; k++){}
    bOtherCpu = c->iCpu<0 || k>=pScan->f.nCpu;
  }
  pScan->bTallyNow = pScan->pTally && !bOtherCpu;
  if( pScan->bTallyNow ) ctf_tally_row(pScan, c->iCpu, c->iTrack);
  aTally = pScan->bTallyNow ? ctf_tally_zero(pScan, c->pSC) : 0;
  if( c->bByEvent || (pScan->bTallyNow && aTally==0) ){
    rc = ctf_count_by_event_pkt(pScan, c, &n);
    if( rc ) return rc;
  }else if( ctf_pkt_in_window(pScan, c) ){
    if( ctf_count_packet(pScan, c, &n, aTally) ){
      c->bByEvent = 1;            /* (a packet its plans cannot count: the
                                  ** stream's others likely too) */
      rc = ctf_count_by_event_pkt(pScan, c, &n);
      if( rc ) return rc;
    }else if( n>0 && !ctf_pkt_end_in_window(pScan, c) ){
      /* it runs past the window after all: count it again by clock values
      ** (tallying: event by event) */
      c->iPkt = c->iCurPkt;
      rc = ctf_cur_open_next(pScan, c, 1, &pScan->err);
      if( rc<0 ) return rc;
      if( pScan->bTallyNow || ctf_count_window(pScan, c, &iFirst, &n, &bPast) ){
        rc = ctf_count_by_event_pkt(pScan, c, &n);
        if( rc ) return rc;
      }else{
        *pbArith = 1;
      }
    }else{
      *pbArith = 1;
      if( aTally ){
        rc = ctf_tally_classes(pScan, c->pSC, aTally);
        if( rc ) return rc;
      }
    }
  }else if( pScan->bTallyNow || ctf_count_window(pScan, c, &iFirst, &n, &bPast) ){
    rc = ctf_count_by_event_pkt(pScan, c, &n);
    if( rc ) return rc;
  }else{
    *pbArith = 1;
  }
  if( bPast ){
    /* the rest of the stream is past the window */
    c->bOpen = 0;
    c->iPkt = c->iPktEnd;
  }
  *piFirst = iFirst;
  *pn = bOtherCpu ? 0 : n;
  return TL_OK;
}

/*
** Count (or tally) packet iPacket with the cursor of its stream (the index
** holds a stream's packets together, streams in the cursors' order): TL_OK
** with *ppCur (NULL: no cursor reads it) and *pn, or an error in *pErr,
** the one a plain scan meets first.
*/
/* The cursor of packet iPacket's stream, or NULL when none reads it. */
static CtfCur *ctf_count_cur(CtfScan *pScan, size_t iPacket){
  while( pScan->iCountCur < pScan->nCur ){
    const CtfStm *s = pScan->aCur[pScan->iCountCur].pStm;
    if( iPacket < s->iPkt0 + s->nPkt ) break;
    pScan->iCountCur++;
  }
  if( pScan->iCountCur >= pScan->nCur ) return 0;
  if( iPacket < pScan->aCur[pScan->iCountCur].pStm->iPkt0 ) return 0;
  return &pScan->aCur[pScan->iCountCur];
}

/* After an error: the one a plain scan meets first, into *pErr. */
static int ctf_count_fail(CtfScan *pScan, TlErr *pErr){
  TlErr err = pScan->err;
  if( tl_ctf_plain_error(pScan)==TL_OK ) pScan->err = err;
  *pErr = pScan->err;
  return pScan->err.rc;
}

static int ctf_count_at(CtfScan *pScan, size_t iPacket, CtfCur **ppCur, uint64_t *pn,
                        TlErr *pErr){
  CtfCur *c = ctf_count_cur(pScan, iPacket);
  int rc;
  *pn = 0;
  *ppCur = 0;
  if( c==0 ) return TL_OK;
  rc = ctf_count_pkt(pScan, c, iPacket, pn, &pScan->iCountFirst, &pScan->bCountArith);
  if( rc<0 ) return ctf_count_fail(pScan, pErr);
  *ppCur = c;
  return TL_OK;
}

int tl_ctf_packet_count(void *pState, size_t iPacket, uint64_t *pn, TlVal *aRow, TlErr *pErr){
  CtfScan *pScan = pState;
  CtfCur *c;
  int rc = ctf_count_at(pScan, iPacket, &c, pn, pErr);
  if( rc || c==0 ) return rc;
  pScan->iCountPkt = iPacket;
  pScan->nReplayed = -1;
  if( c->iCpu>=0 ) tl_val_int(&aRow[TL_EV_CPU], c->iCpu); else tl_val_null(&aRow[TL_EV_CPU]);
  tl_val_int(&aRow[TL_EV_TRACK], c->iTrack);
  tl_val_text(&aRow[TL_EV_TYPE], "event", 5);
  return TL_OK;
}

/*
** The k-th event counted in the current packet, read again event by event
** into pScan->replay (ctf_cur_next passes over the events before a time
** window, as the count did, and the count took no event without a time in
** one), onward from the event found last when it is not past this one.
*/
static int ctf_replay_to(CtfScan *pScan, int64_t k){
  CtfCur *r = &pScan->replay;
  const CtfCur *c = &pScan->aCur[pScan->iCountCur < pScan->nCur ? pScan->iCountCur : 0];
  int rc;
  if( !pScan->bReplay || r->pStm!=c->pStm ){
    if( pScan->bReplay ) tl_ctf_cur_free(r);
    memset(r, 0, sizeof(*r));
    tl_ctf_cur_init(pScan, r, c->pStm, c->iTrack);
    pScan->bReplay = 1;
    pScan->nReplayed = -1;
  }
  if( pScan->nReplayed<0 || pScan->nReplayed > k+1 || r->iCurPkt!=pScan->iCountPkt ){
    r->iPkt = pScan->iCountPkt;
    r->iPktEnd = pScan->iCountPkt + 1;
    r->bOpen = 0;
    r->bPktByEvent = 1;
    rc = tl_ctf_cur_open_pkt(pScan, r, &pScan->err);
    if( rc ){
      tl_err_file(&pScan->err, pScan->pTrace->index.azFile[r->pStm->iFile]);
      return rc;
    }
    pScan->nReplayed = 0;
  }
  while( pScan->nReplayed <= k ){
    rc = ctf_cur_next(pScan, r);
    if( rc<0 ) return rc;
    if( rc==TL_ROW && !r->bTs && (pScan->f.tsLo!=TL_TS_MIN || pScan->f.tsHi!=TL_TS_MAX) ){
      continue;                   /* in no window, so not counted */
    }
    if( rc==TL_DONE ){
      pScan->nReplayed = -1;
      return tl_err_set(&pScan->err, TL_ECORRUPT, pScan->pTrace->index.a[pScan->iCountPkt].iOff,
                        "a packet read again has fewer events than its count (%lld)",
                        (long long)k + 1);
    }
    pScan->nReplayed++;
  }
  return TL_OK;
}

int tl_ctf_packet_value(void *pState, size_t iPacket, uint64_t k, int iCol, TlVal *pOut,
                        TlErr *pErr){
  CtfScan *pScan = pState;
  const CtfCur *r = &pScan->replay;
  int rc;
  if( iPacket!=pScan->iCountPkt ){
    return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET, "packet %zu is not the one counted last",
                      iPacket);
  }
  if( iCol<0 && pScan->bCountArith ){
    tl_val_int(pOut, ((int64_t)iPacket << CTF_EV_BITS) + pScan->iCountFirst + (int64_t)k);
    return TL_OK;
  }
  rc = ctf_replay_to(pScan, (int64_t)k);
  if( rc<0 ){ *pErr = pScan->err; return rc; }
  if( iCol<0 ) tl_val_int(pOut, r->iRowid);
  if( iCol==TL_EV_TS && r->bTs ) tl_val_int(pOut, r->ts);
  if( iCol==TL_EV_TS_RAW && r->bClock ) tl_val_int(pOut, (int64_t)r->clock);
  return TL_OK;
}

/* ---- the tally hooks (reader.h: xTallyCols ... xTallyClose) -------------- */

uint64_t tl_ctf_tally_cols(const TlTrace *pTrace, int iTable, const TlFilter *f){
  (void)pTrace; (void)f;
  if( iTable!=TL_TAB_EVENTS ) return 0;
  /* a packet fixes cpu, track and type; the plans count by class, so name */
  return ((uint64_t)1<<TL_EV_NAME) | ((uint64_t)1<<TL_EV_CPU) | ((uint64_t)1<<TL_EV_TRACK)
       | ((uint64_t)1<<TL_EV_TYPE);
}

/* (the state is a counted scan's: tl_ctf_count_open, tl_ctf_count_close) */
/*
** Tallying with no time window and no CPU set: packet iPkt of cursor c's
** stream and the stream's next packet counted side by side by the plans
** (two chains of dependent reads, tl_ctf_count_plans_pair()); the second's
** counts by class are kept for the call that asks for it (the engine gives
** a stream's packets to one state, in order). 1 when packet iPkt is
** tallied, 0 when it is left to ctf_count_pkt(), or an error.
*/
static int ctf_tally_pair(CtfScan *pScan, CtfCur *c, size_t iPkt){
  const TlIndex *x = &pScan->pTrace->index;
  CtfCur *b = &pScan->pair;
  TlCtfCount ja, jb;
  CtfMark ma, mb;
  int64_t *aA, *aB;
  uint64_t nA = 0, nB = 0;
  int rc, rA, rB;
  if( pScan->f.tsLo!=TL_TS_MIN || pScan->f.tsHi!=TL_TS_MAX || pScan->f.nCpu>=0 ) return 0;
  if( c->bByEvent || iPkt < c->iPkt || iPkt+1 >= c->iPktEnd ) return 0;
  if( (x->a[iPkt].flags | x->a[iPkt+1].flags) & CTF_PF_DUP ) return 0;
  if( !pScan->bPair || b->pStm!=c->pStm ){
    if( pScan->bPair ) tl_ctf_cur_free(b);
    memset(b, 0, sizeof(*b));
    tl_ctf_cur_init(pScan, b, c->pStm, c->iTrack);
    pScan->bPair = 1;
  }
  b->iPkt = iPkt+1;
  b->iPktEnd = iPkt+2;
  b->bOpen = 0;
  if( ctf_cur_open_next(pScan, b, 0, &pScan->err)!=TL_ROW ){
    tl_err_clear(&pScan->err);      /* (found again when that packet is asked) */
    return 0;
  }
  if( b->pHdr==0 || b->pSC==0 || b->pSC->nEvent<=0 ) return 0;
  c->iPkt = iPkt;
  c->bOpen = 0;
  rc = ctf_cur_open_next(pScan, c, 0, &pScan->err);
  if( rc!=TL_ROW ) return rc<0 ? rc : 0;
  if( c->pHdr==0 || c->pSC==0 || c->pSC->nEvent<=0 ) return 0;
  aA = ctf_tally_zero_n(pScan, c->pSC->nEvent + b->pSC->nEvent);
  if( aA==0 ) return 0;
  aB = aA + c->pSC->nEvent;
  ma = ctf_mark(&c->dec);
  mb = ctf_mark(&b->dec);
  ctf_count_job(c, aA, &ja);
  ctf_count_job(b, aB, &jb);
  tl_ctf_count_plans_pair(&ja, &jb);
  rA = ctf_count_end(c, &ja, &ma, &nA);
  rB = ctf_count_end(b, &jb, &mb, &nB);
  if( rB==0 && b->pSC->nEvent <= pScan->nStash ){
    memcpy(pScan->aStash, aB, sizeof(int64_t)*(size_t)b->pSC->nEvent);
  }else if( rB==0 ){
    int64_t *aNew = realloc(pScan->aStash, sizeof(int64_t)*(size_t)b->pSC->nEvent);
    if( aNew==0 ) rB = -1;
    else{
      pScan->aStash = aNew;
      pScan->nStash = b->pSC->nEvent;
      memcpy(pScan->aStash, aB, sizeof(int64_t)*(size_t)b->pSC->nEvent);
    }
  }
  if( rB==0 ){
    pScan->iStashPkt = iPkt+1;
    pScan->pStashSC = b->pSC;
    pScan->iStashCpu = b->iCpu;
  }
  ctf_tally_row(pScan, c->iCpu, c->iTrack);
  pScan->bTallyNow = 1;
  if( rA ){
    /* (a packet the plans cannot count: the stream's others likely too) */
    c->bByEvent = 1;
    rc = ctf_count_by_event_pkt(pScan, c, &nA);
  }else{
    rc = ctf_tally_classes(pScan, c->pSC, aA);
  }
  return rc<0 ? rc : 1;
}

int tl_ctf_tally_packet(void *pState, size_t iPacket, TlTally *pTally, TlErr *pErr){
  CtfScan *pScan = pState;
  CtfCur *c;
  uint64_t n;
  int rc;
  pScan->pTally = pTally;
  if( pScan->iStashPkt==iPacket && (c = ctf_count_cur(pScan, iPacket))!=0 ){
    /* counted beside the packet before it */
    ctf_tally_row(pScan, pScan->iStashCpu, c->iTrack);
    rc = ctf_tally_classes(pScan, pScan->pStashSC, pScan->aStash);
  }else if( (c = ctf_count_cur(pScan, iPacket))!=0
         && (rc = ctf_tally_pair(pScan, c, iPacket))!=0 ){
    if( rc<0 ) rc = ctf_count_fail(pScan, pErr);
    else rc = TL_OK;
  }else{
    rc = ctf_count_at(pScan, iPacket, &c, &n, pErr);
  }
  pScan->iStashPkt = pScan->iStashPkt==iPacket ? SIZE_MAX : pScan->iStashPkt;
  pScan->pTally = 0;
  pScan->bTallyNow = 0;
  return rc;
}

/*
** The names a tallied event can have: its class's (ctf_tally_classes(),
** ctf_count_by_event_pkt()), so those of every event class of every
** stream class of every trace (an event of no class is an error).
*/
int tl_ctf_tally_values(TlTrace *pTrace, int iTable, int iCol, int (*xValue)(void*, const TlVal*),
                        void *pArg){
  const CtfData *p = pTrace->pData;
  int i, k, j, rc;
  if( iTable!=TL_TAB_EVENTS || iCol!=TL_EV_NAME ) return TL_DONE;
  for(i=0; i<p->nTr; i++) if( !p->aTr[i].bModel ) return TL_DONE;
  for(i=0; i<p->nTr; i++){
    const TlCtfModel *m = &p->aTr[i].m;
    for(k=0; k<m->nStream; k++){
      for(j=0; j<m->aStream[k].nEvent; j++){
        TlVal v;
        tl_val_textz(&v, m->aStream[k].aEvent[j].zName);
        rc = xValue(pArg, &v);
        if( rc ) return rc;
      }
    }
  }
  return TL_OK;
}
