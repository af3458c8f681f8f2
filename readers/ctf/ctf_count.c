/*
** ctf_count.c: events counted rather than read. The counting hooks
** (reader.h) count each packet's events with the header and skip plans
** alone (time windows compared as clock values) for the engine's counted
** scans; GROUP BY name counts them by event class on helper threads while
** rows are given name by name.
*/
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"
#include "ctf/ctf_cur.h"

/*
** Events counted by name (f.bGroupName) by one thread: the cursors it
** counts are its own, the scan is only read. What it has counted goes to
** the pipe's shared counts after each packet (ctf_tally_publish()).
*/
typedef struct CtfTally CtfTally;
struct CtfTally {
  const CtfScan *pScan;
  CtfPipe *pPipe;
  TlErr *pErr;                    /* where its errors go */
  struct CtfNameCount {
    const char *zName;
    int iSorted;                  /* its index in pPipe->azName */
    int64_t n;                    /* events counted */
    int64_t nPub;                 /* of them, added to the pipe's counts */
  } *aName;
  int nName, nNameAlloc;          /* entries used, allocated in aName */
  int64_t *aTally;                /* a packet's events by class index */
  int nTally;                     /* entries allocated in aTally */
  uint64_t nPktBytes;             /* bytes of the packets it opened */
  uint64_t nPubBytes;             /* of them, added to the pipe's */
  int bOwnThread;                 /* on a thread of its own: the packets it
                                  ** opens are not on this one's progress line */
  int bStop;                      /* the pipe asked it to stop */
};

/* One thread's share of a count by name: its cursors and its counts. */
typedef struct CtfHelper CtfHelper;
struct CtfHelper {
  CtfTally t;
  TlErr err;
  CtfCur *aCur;
  int nCur;
  int rc;
  int bThread;                    /* runs on thread th */
  pthread_t th;
};

/*
** A count by name on helper threads while this one gives rows: the names of
** all event classes, sorted once; each helper adds its counts after each
** packet; the rows of a name come as its count grows, and the next name's
** only once every helper is done (then every count is whole).
*/
struct CtfPipe {
  pthread_mutex_t mu;             /* guards aCounted, nBytes, nRunning, bStop */
  pthread_cond_t cv;              /* a helper added counts or finished */
  const char **azName;            /* distinct event class names, strcmp order */
  int nName;
  int64_t *aCounted;              /* events counted so far, by azName index */
  uint64_t nBytes;                /* packet bytes counted so far */
  int nRunning;                   /* helpers not finished */
  int bStop;                      /* helpers stop at their next packet */
  CtfHelper aHelper[2];
  int nHelper;
  int bJoined;                    /* every helper's thread was joined */
};


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
    ctf_rewind(&c->dec, m);
    return -1;
  }
  c->clock = j->clock;
  c->bClock = j->bClock;
  c->bOpen = 0;
  *pn = j->n;
  return 0;
}

/*
** ctf_count_packet() of cursor a and, when b is not NULL, of cursor b at
** once (their packets are independent: tl_ctf_count_plans_pair() reads
** them side by side). Returns a's result; *prB is b's.
*/
static int ctf_count_packets(CtfCur *a, CtfCur *b, uint64_t *pnA, uint64_t *pnB,
                             int64_t *aTallyA, int64_t *aTallyB, int *prB){
  TlCtfCount ja, jb;
  CtfMark ma, mb;
  int bA = a->pHdr!=0 && a->pSC!=0, bB = b!=0 && b->pHdr!=0 && b->pSC!=0;
  if( b && !bB ) *prB = -1;
  if( !bA ){
    if( bB ) *prB = ctf_count_packets(b, 0, pnB, 0, aTallyB, 0, 0);
    return -1;
  }
  ma = ctf_mark(&a->dec);
  ctf_count_job(a, aTallyA, &ja);
  if( bB ){
    mb = ctf_mark(&b->dec);
    ctf_count_job(b, aTallyB, &jb);
    tl_ctf_count_plans_pair(&ja, &jb);
    *prB = ctf_count_end(b, &jb, &mb, pnB);
  }else{
    tl_ctf_count_plans(&ja);
  }
  return ctf_count_end(a, &ja, &ma, pnA);
}

/*
** Count the events of cursor c's open packet with the header and skip plans
** alone, leaving the packet done: 0 with *pn, or -1 with the cursor back at
** the packet's first event when an event needs the general decoder (no
** plan, damage, the file's end): then it is read event by event. aTally,
** when not NULL, counts the events of each class of the packet's stream
** class (by index; zeroed by the caller; partial after -1).
*/
static int ctf_count_packet(CtfCur *c, uint64_t *pn, int64_t *aTally){
  return ctf_count_packets(c, 0, pn, 0, aTally, 0, 0);
}

/*
** Open cursor c's next packet a count reads (its cpu_id may still fail a
** cpu filter): TL_ROW, TL_DONE after the stream's last, or an error.
*/
static int ctf_cur_open_next(const CtfScan *pScan, CtfCur *c, TlErr *pErr){
  int rc;
  if( !ctf_cur_seek_pkt(pScan, c) ) return TL_DONE;
  rc = tl_ctf_cur_open_pkt(pScan, c, pErr);
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
    uint64_t nFirst = 0;
    ctf_count_job(c, 0, &j);
    tl_ctf_count_plans_window(&j, cLo, cHi, &nFirst, pbPast);
    if( j.rc==0 ){
      c->clock = j.clock;
      c->bClock = j.bClock;
      c->bOpen = 0;
      *piFirst = (int64_t)nFirst;
      *pn = j.n;
      return 0;
    }
    ctf_rewind(d, &m);             /* (an event with no clock, or no plan) */
    *pbPast = 0;
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

/* The index of zName in the pipe's sorted names, or -1. */
static int ctf_pipe_find(const CtfPipe *pp, const char *zName){
  const char **pz = pp->nName==0 ? 0
                  : bsearch(&zName, pp->azName, (size_t)pp->nName, sizeof(char*), tl_ctf_cmp_str);
  return pz ? (int)(pz - pp->azName) : -1;
}

/* Ask the pipe's helpers to stop at their next packet. */
static void ctf_pipe_stop(CtfPipe *pp){
  pthread_mutex_lock(&pp->mu);
  pp->bStop = 1;
  pthread_mutex_unlock(&pp->mu);
}

/*
** The entry of t counting events named zName, added if new: its index, or
** -1 with an error in *t->pErr.
*/
static int ctf_name_slot(CtfTally *t, const char *zName){
  int j;
  for(j=0; j<t->nName && t->aName[j].zName!=zName; j++){}
  if( j==t->nName ){
    int iSorted = ctf_pipe_find(t->pPipe, zName);
    if( iSorted<0 ){
      /* every class is one of the models' (ctf_pipe_start()) */
      tl_err_set(t->pErr, TL_ECORRUPT, TL_NO_OFFSET, "event class \"%s\" is in no metadata", zName);
      return -1;
    }
    if( t->nName >= t->nNameAlloc ){
      int n = t->nNameAlloc ? t->nNameAlloc*2 : 16;
      struct CtfNameCount *aNew = realloc(t->aName, sizeof(*aNew)*(size_t)n);
      if( aNew==0 ){
        tl_err_set(t->pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
        return -1;
      }
      t->aName = aNew;
      t->nNameAlloc = n;
    }
    t->aName[j].zName = zName;
    t->aName[j].iSorted = iSorted;
    t->aName[j].n = 0;
    t->aName[j].nPub = 0;
    t->nName++;
  }
  return j;
}

/* Add n events named zName to t's counts. */
static int ctf_name_add(CtfTally *t, const char *zName, int64_t n){
  int iSlot = ctf_name_slot(t, zName);
  if( iSlot<0 ) return t->pErr->rc;
  t->aName[iSlot].n += n;
  return TL_OK;
}

/* A zeroed tally for n classes, from offset i of t->aTally. */
static int64_t *ctf_tally_buf(CtfTally *t, int i, int n){
  if( i + n > t->nTally ){
    int64_t *aNew = realloc(t->aTally, sizeof(int64_t)*(size_t)(i + n));
    if( aNew==0 ) return 0;
    t->aTally = aNew;
    t->nTally = i + n;
  }
  memset(t->aTally + i, 0, sizeof(int64_t)*(size_t)n);
  return t->aTally + i;
}

/* Add a packet's tally of stream class sc's events to the names' counts. */
static int ctf_tally_names(CtfTally *t, const TlCtfStreamClass *sc, const int64_t *aTally){
  int j;
  for(j=0; j<sc->nEvent; j++){
    int rc;
    if( aTally[j]==0 ) continue;
    rc = ctf_name_add(t, sc->aEvent[j].zName, aTally[j]);
    if( rc ) return rc;
  }
  return TL_OK;
}

/*
** Count the open packets of cursors a and, when not NULL, b by class into
** t's names (at once when both can be). A cursor whose packet the plans
** cannot count gets bByEvent, its packet back at its first event.
*/
static int ctf_count_open_by_name(CtfTally *t, CtfCur *a, CtfCur *b){
  const TlCtfStreamClass *sa = a->pSC, *sb = b ? b->pSC : 0;
  int64_t *tA = 0, *tB = 0;
  uint64_t nA, nB;
  int rB = -1, rc;
  if( sa==0 || sa->nEvent<=0 ){
    a->bByEvent = 1;
    return b ? ctf_count_open_by_name(t, b, 0) : TL_OK;
  }
  if( b && (sb==0 || sb->nEvent<=0) ){
    b->bByEvent = 1;
    b = 0;
  }
  tA = ctf_tally_buf(t, 0, sa->nEvent + (b ? sb->nEvent : 0));
  if( tA==0 ) return tl_err_set(t->pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  if( b ) tB = tA + sa->nEvent;
  if( ctf_count_packets(a, b, &nA, &nB, tA, tB, &rB) ){
    a->bByEvent = 1;
  }else{
    rc = ctf_tally_names(t, sa, tA);
    if( rc ) return rc;
  }
  if( b ){
    if( rB ){
      b->bByEvent = 1;
    }else{
      rc = ctf_tally_names(t, sb, tB);
      if( rc ) return rc;
    }
  }
  return TL_OK;
}

/* Open cursor c's next packet for t: ctf_cur_open_next(), noting its bytes. */
static int ctf_tally_open(CtfTally *t, CtfCur *c){
  int rc = ctf_cur_open_next(t->pScan, c, t->pErr);
  if( rc==TL_ROW ) t->nPktBytes += t->pScan->pTrace->index.a[c->iCurPkt].nSize;
  return rc;
}

/*
** Add what t counted since its last call to the pipe's counts and wake the
** thread giving rows; bLast: t's helper is done. Sets t->bStop when the
** pipe asks the helpers to stop.
*/
static void ctf_tally_publish(CtfTally *t, int bLast){
  CtfPipe *pp = t->pPipe;
  int k;
  pthread_mutex_lock(&pp->mu);
  for(k=0; k<t->nName; k++){
    pp->aCounted[t->aName[k].iSorted] += t->aName[k].n - t->aName[k].nPub;
    t->aName[k].nPub = t->aName[k].n;
  }
  if( t->bOwnThread ) pp->nBytes += t->nPktBytes - t->nPubBytes;
  t->nPubBytes = t->nPktBytes;
  if( bLast ) pp->nRunning--;
  t->bStop = pp->bStop;
  pthread_mutex_unlock(&pp->mu);
  pthread_cond_broadcast(&pp->cv);
}

/*
** Count the packets of cursors a and, when not NULL, b (each a stream's
** packets or half of them) by event class into t's names with the plans, a
** packet of each at once while both have packets, publishing after each.
** A cursor stops at its last packet or at a packet the plans cannot count
** (bByEvent: ctf_count_by_event() reads the rest). TL_OK or an error.
*/
static int ctf_count_streams_by_name(CtfTally *t, CtfCur *a, CtfCur *b){
  int rc;
  while( b && !a->bByEvent && !b->bByEvent && !t->bStop ){
    int rcB;
    rc = ctf_tally_open(t, a);
    if( rc<0 ) return rc;
    if( rc!=TL_ROW ) break;                       /* a is done: b alone */
    rcB = ctf_tally_open(t, b);
    if( rcB<0 ) return rcB;
    rc = ctf_count_open_by_name(t, a, rcB==TL_ROW ? b : 0);
    if( rc ) return rc;
    ctf_tally_publish(t, 0);
    if( rcB!=TL_ROW ) break;                      /* b is done: a alone */
  }
  if( b ){
    rc = ctf_count_streams_by_name(t, b, 0);
    if( rc<0 ) return rc;
  }
  while( !a->bByEvent && !t->bStop ){
    rc = ctf_tally_open(t, a);
    if( rc<0 ) return rc;
    if( rc!=TL_ROW ) return TL_OK;
    rc = ctf_count_open_by_name(t, a, 0);
    if( rc ) return rc;
    ctf_tally_publish(t, 0);
  }
  return TL_OK;
}

/*
** The rest of cursor c's packets, from its open packet, event by event,
** into t's names (published every so many events).
*/
static int ctf_count_by_event(CtfTally *t, CtfCur *c){
  const TlTrace *tr = t->pScan->pTrace;
  const TlCtfEventClass *pLast = 0;
  size_t iPkt = c->iCurPkt;       /* its bytes are counted (ctf_tally_open) */
  int iLast = -1, nSince = 0, rc = TL_DONE;
  while( !t->bStop && (rc = ctf_cur_read(t->pScan, c, t->pErr))==TL_ROW ){
    if( c->iCurPkt!=iPkt ){
      iPkt = c->iCurPkt;
      t->nPktBytes += tr->index.a[iPkt].nSize;
    }
    if( c->pEC!=pLast ){
      iLast = ctf_name_slot(t, c->pEC->zName);
      if( iLast<0 ) return t->pErr->rc;
      pLast = c->pEC;
    }
    t->aName[iLast].n++;
    if( ++nSince==4096 ){
      nSince = 0;
      ctf_tally_publish(t, 0);
    }
  }
  return rc==TL_DONE || rc==TL_ROW ? TL_OK : rc;
}

/* A helper's count: its cursors with the plans, then their rests by event. */
static void *ctf_helper_main(void *pArg){
  CtfHelper *h = pArg;
  int i, rc = TL_OK;
  for(i=0; rc>=0 && i<h->nCur; i+=2){
    rc = ctf_count_streams_by_name(&h->t, &h->aCur[i], i+1<h->nCur ? &h->aCur[i+1] : 0);
  }
  for(i=0; rc>=0 && i<h->nCur; i++){
    if( h->aCur[i].bByEvent ) rc = ctf_count_by_event(&h->t, &h->aCur[i]);
  }
  h->rc = rc<0 ? rc : TL_OK;
  if( rc<0 ){
    ctf_pipe_stop(h->t.pPipe);      /* the others' counts are of no use now */
  }
  ctf_tally_publish(&h->t, 1);
  return 0;
}

/*
** Start the count by name: the sorted names of every event class of the
** trace's models, then the cursors split by packets between two helpers
** (two cursors a stream, see ctf_events_open(); each helper with its own
** cursors, counts and errors; the trace and the scan are only read), each on
** its own thread, or on this one when there is one cursor or no thread.
*/
static int ctf_pipe_start(CtfScan *pScan){
  CtfData *p = pScan->p;
  CtfPipe *pp;
  size_t nAll = 0, nFirst = 0;
  int i, j, k, nFirstCur = 0, nNameMax = 0;
  pp = pScan->pPipe = calloc(1, sizeof(CtfPipe));
  if( pp==0 ) return tl_err_set(&pScan->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  pthread_mutex_init(&pp->mu, 0);
  pthread_cond_init(&pp->cv, 0);
  pp->bJoined = 1;
  for(i=0; i<p->nTr; i++){
    if( !p->aTr[i].bModel ) continue;
    for(j=0; j<p->aTr[i].m.nStream; j++) nNameMax += p->aTr[i].m.aStream[j].nEvent;
  }
  pp->azName = malloc(sizeof(char*)*(size_t)(nNameMax ? nNameMax : 1));
  if( pp->azName==0 ) return tl_err_set(&pScan->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  for(i=0; i<p->nTr; i++){
    if( !p->aTr[i].bModel ) continue;
    for(j=0; j<p->aTr[i].m.nStream; j++){
      const TlCtfStreamClass *sc = &p->aTr[i].m.aStream[j];
      for(k=0; k<sc->nEvent; k++){
        if( sc->aEvent[k].zName ) pp->azName[pp->nName++] = sc->aEvent[k].zName;
      }
    }
  }
  /* classes of different streams or traces may share a name */
  if( pp->nName>1 ) qsort(pp->azName, (size_t)pp->nName, sizeof(char*), tl_ctf_cmp_str);
  for(i=0, j=0; i<pp->nName; i++){
    if( j==0 || strcmp(pp->azName[j-1], pp->azName[i])!=0 ) pp->azName[j++] = pp->azName[i];
  }
  pp->nName = j;
  pp->aCounted = calloc((size_t)(pp->nName ? pp->nName : 1), sizeof(int64_t));
  if( pp->aCounted==0 ) return tl_err_set(&pScan->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");

  /* the first helper takes cursors up to half the packets, the second the rest */
  for(i=0; i<pScan->nCur; i++) nAll += pScan->aCur[i].iPktEnd - pScan->aCur[i].iPkt;
  while( nFirstCur<pScan->nCur && nFirst*2<nAll ){
    nFirst += pScan->aCur[nFirstCur].iPktEnd - pScan->aCur[nFirstCur].iPkt;
    nFirstCur++;
  }
  if( nFirstCur==0 ) nFirstCur = pScan->nCur;
  for(i=0; i<2; i++){
    CtfHelper *h = &pp->aHelper[pp->nHelper];
    h->aCur = pScan->aCur + (i ? nFirstCur : 0);
    h->nCur = i ? pScan->nCur - nFirstCur : nFirstCur;
    if( h->nCur==0 ) continue;
    tl_err_clear(&h->err);
    h->t.pScan = pScan;
    h->t.pPipe = pp;
    h->t.pErr = &h->err;
    pp->nHelper++;
  }
  pp->nRunning = pp->nHelper;
  pp->bJoined = 0;
  if( pp->nHelper>1 ){
    for(i=0; i<pp->nHelper; i++){
      CtfHelper *h = &pp->aHelper[i];
      h->t.bOwnThread = 1;
      h->bThread = pthread_create(&h->th, 0, ctf_helper_main, h)==0;
      if( !h->bThread ) h->t.bOwnThread = 0;
    }
  }
  for(i=0; i<pp->nHelper; i++){
    if( !pp->aHelper[i].bThread ) ctf_helper_main(&pp->aHelper[i]);
  }
  return TL_OK;
}

/*
** Wait for every helper of the pipe (asking them to stop first when bStop)
** and take the first one's error, if any, into the scan's.
*/
static int ctf_pipe_join(CtfScan *pScan, int bStop){
  CtfPipe *pp = pScan->pPipe;
  int i;
  if( pp->bJoined ) return TL_OK;
  if( bStop ) ctf_pipe_stop(pp);
  for(i=0; i<pp->nHelper; i++){
    if( pp->aHelper[i].bThread ) pthread_join(pp->aHelper[i].th, 0);
  }
  pp->bJoined = 1;
  for(i=0; i<pp->nHelper; i++){
    if( pp->aHelper[i].rc<0 ){
      pScan->err = pp->aHelper[i].err;
      return pScan->err.rc;
    }
  }
  return TL_OK;
}

void tl_ctf_pipe_free(CtfScan *pScan){
  CtfPipe *pp = pScan->pPipe;
  int i;
  if( pp==0 ) return;
  ctf_pipe_join(pScan, 1);
  for(i=0; i<pp->nHelper; i++){
    free(pp->aHelper[i].t.aName);
    free(pp->aHelper[i].t.aTally);
  }
  free(pp->azName);
  free(pp->aCounted);
  pthread_mutex_destroy(&pp->mu);
  pthread_cond_destroy(&pp->cv);
  free(pp);
  pScan->pPipe = 0;
}

/*
** Events grouped by name (f.bGroupName, only name used): every stream is
** read once, in any order, counting events by class on the helpers; the
** rows come name by name in strcmp order, a name's as its count grows (one
** row repeated for the events counted since the last), the next name's once
** the count is whole. The same rows as a scan in time order, grouped. A
** helper's error comes when its count is needed: before the first name ends.
*/
int tl_ctf_events_grouped(CtfScan *pScan, TlRow *pRow){
  CtfPipe *pp;
  TlVal *a = pScan->aCol;
  const char *zName;
  int64_t nNew;
  int k, rc;
  if( !pScan->bStarted ){
    pScan->bStarted = 1;
    rc = ctf_pipe_start(pScan);
    if( rc<0 ) return rc;
    pScan->iName = 0;
    pScan->nNameGiven = 0;
  }
  pp = pScan->pPipe;
  for(;;){
    int nRunning;
    uint64_t nBytes;
    if( pScan->iName >= pp->nName ){
      /* (with no names at all, the helpers may still find an error) */
      rc = ctf_pipe_join(pScan, 0);
      return rc<0 ? rc : TL_DONE;
    }
    pthread_mutex_lock(&pp->mu);
    while( pp->aCounted[pScan->iName]==pScan->nNameGiven && pp->nRunning>0 ){
      pthread_cond_wait(&pp->cv, &pp->mu);
    }
    nNew = pp->aCounted[pScan->iName] - pScan->nNameGiven;
    nRunning = pp->nRunning;
    nBytes = pp->nBytes;
    pthread_mutex_unlock(&pp->mu);
    tl_progress_add(nBytes - pScan->nBytesNoted);
    pScan->nBytesNoted = nBytes;
    if( nRunning==0 ){
      rc = ctf_pipe_join(pScan, 0);
      if( rc<0 ) return rc;
    }
    if( nNew>0 ) break;
    pScan->iName++;                 /* (every count is whole) */
    pScan->nNameGiven = 0;
  }
  for(k=0; k<TL_EV_NCOL; k++) tl_val_null(&a[k]);
  /* (the name of many repeats: given to SQLite without a copy each) */
  zName = pp->azName[pScan->iName];
  tl_val_text_kept(&a[TL_EV_NAME], zName, strlen(zName));
  pScan->iGroupBase = pScan->nNameGiven;
  pScan->nNameGiven += nNew;
  pRow->iRowid = TL_ROWID_LAZY;
  pRow->nRepeat = nNew;
  pRow->a = a;
  return TL_ROW;
}

/*
** A repeated row's rowid: of a counted packet's iRepeat-th event, its index
** in the packet; of a name's rows (GROUP BY name), the rowid of one event
** of that name, each of them given once over the name's rows (the k-th
** repeat of the name's rows, counted from its first, is its k-th event in a
** plain scan's order), found by a walk that starts only when asked.
*/
int tl_ctf_scan_rowid(TlScan *pScan0, int64_t iRepeat, int64_t *piRowid){
  CtfScan *pScan = (CtfScan*)pScan0;
  if( pScan->f.bGroupName ){
    const CtfPipe *pp = pScan->pPipe;
    if( pp==0 || pScan->iName >= pp->nName ){
      return tl_err_set(&pScan->err, TL_EMISUSE, TL_NO_OFFSET, "a rowid asked with no row");
    }
    return tl_ctf_group_rowid(pScan, pp->azName[pScan->iName], pScan->iGroupBase + iRepeat,
                              piRowid);
  }
  return tl_err_set(&pScan->err, TL_EMISUSE, TL_NO_OFFSET, "a rowid asked with no row");
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
  *ppState = pScan;
  return TL_OK;
}

void tl_ctf_count_close(void *pState){
  tl_ctf_scan_close(pState);
}

/*
** Events of cursor c's open packet read one by one (bPktByEvent): *pn of
** them in the window (an event with no time is in none). A time past the
** window ends the stream.
*/
static int ctf_count_by_event_pkt(CtfScan *pScan, CtfCur *c, uint64_t *pn){
  int bWindow = pScan->f.tsLo!=TL_TS_MIN || pScan->f.tsHi!=TL_TS_MAX;
  uint64_t n = 0;
  int rc;
  c->bPktByEvent = 1;
  while( (rc = ctf_cur_next(pScan, c))==TL_ROW ){
    if( !bWindow || c->bTs ) n++;
  }
  c->bPktByEvent = 0;
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
  int64_t iFirst = 0;
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
  rc = ctf_cur_open_next(pScan, c, &pScan->err);
  if( rc!=TL_ROW ) return rc<0 ? rc : TL_OK;
  if( pScan->f.nCpu>=0 ){
    /* every event of the packet has its cpu_id: all match or none; none:
    ** still counted, for the damage a plain scan meets in it */
    for(k=0; k<pScan->f.nCpu && pScan->f.aCpu[k]!=c->iCpu; k++){}
    bOtherCpu = c->iCpu<0 || k>=pScan->f.nCpu;
  }
  if( c->bByEvent ){
    rc = ctf_count_by_event_pkt(pScan, c, &n);
    if( rc ) return rc;
  }else if( ctf_pkt_in_window(pScan, c) ){
    if( ctf_count_packet(c, &n, 0) ){
      c->bByEvent = 1;            /* (a packet its plans cannot count: the
                                  ** stream's others likely too) */
      rc = ctf_count_by_event_pkt(pScan, c, &n);
      if( rc ) return rc;
    }else if( n>0 && !ctf_pkt_end_in_window(pScan, c) ){
      /* it runs past the window after all: count it again by clock values */
      c->iPkt = c->iCurPkt;
      rc = ctf_cur_open_next(pScan, c, &pScan->err);
      if( rc<0 ) return rc;
      if( ctf_count_window(pScan, c, &iFirst, &n, &bPast) ){
        rc = ctf_count_by_event_pkt(pScan, c, &n);
        if( rc ) return rc;
      }else{
        *pbArith = 1;
      }
    }else{
      *pbArith = 1;
    }
  }else if( ctf_count_window(pScan, c, &iFirst, &n, &bPast) ){
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

int tl_ctf_packet_count(void *pState, size_t iPacket, uint64_t *pn, TlVal *aRow, TlErr *pErr){
  CtfScan *pScan = pState;
  CtfCur *c;
  int rc;
  *pn = 0;
  /* the cursor of the packet's stream (the index holds a stream's packets
  ** together, streams in the cursors' order) */
  while( pScan->iCountCur < pScan->nCur ){
    const CtfStm *s = pScan->aCur[pScan->iCountCur].pStm;
    if( iPacket < s->iPkt0 + s->nPkt ) break;
    pScan->iCountCur++;
  }
  if( pScan->iCountCur >= pScan->nCur ) return TL_OK;
  c = &pScan->aCur[pScan->iCountCur];
  if( iPacket < c->pStm->iPkt0 ) return TL_OK;
  rc = ctf_count_pkt(pScan, c, iPacket, pn, &pScan->iCountFirst, &pScan->bCountArith);
  if( rc<0 ){
    /* the error a plain scan reports, when it meets one */
    TlErr err = pScan->err;
    if( tl_ctf_plain_error(pScan)==TL_OK ) pScan->err = err;
    *pErr = pScan->err;
    return pScan->err.rc;
  }
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
