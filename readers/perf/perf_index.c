/*
** perf_index.c: the walk over a perf.data file's records that builds the
** chunk index (PerfData and TlTrace.index) when the trace is opened.
**
** A chunk ends after a FINISHED_ROUND record once it holds
** PERF_CHUNK_ROUND_MIN bytes (rounds of a few records, as tracepoint
** recordings have, share chunks), or once it holds about 1 MiB, at a point where no compressed output is pending, so that a scan
** can start at any chunk. Each chunk knows the time range and the CPUs of
** its records; ts windows and cpu filters skip whole chunks. It also keeps
** what its SAMPLE rows show when they all show the same (PerfChunkKey).
** It knows the types of its records: a scan of one type (LOST) reads only
** the chunks that hold it. Each attribute gets its SAMPLE records' count
** and their earliest and latest time (PerfAttr.nSamples, tsFirst, tsLast:
** event_types shows them).
*/
#include "perf_scan.h"

#include <stdlib.h>
#include <string.h>

#define PERF_CHUNK_BYTES   ((uint64_t)1<<20)
#define PERF_CHUNK_CPU_MIN ((uint64_t)8<<10)  /* a chunk this large ends where the CPU changes */
#define PERF_CHUNK_ROUND_MIN ((uint64_t)64<<10) /* ... and at a round's end */

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
** The open walk's plan for SAMPLE records of the usual shapes: an attr
** whose sample_type has fixed-size fields (before READ) and at most a
** callchain and raw data (tracepoints) after them has each field the index
** needs at a known offset of the body. One plan per attr.
*/
typedef struct AttrPlan AttrPlan;
struct AttrPlan {
  int bOk;                        /* the plan applies */
  uint32_t nFix;                  /* bytes of the fixed fields */
  int offTime, offCpu, offPeriod; /* their offsets in the body, or -1 */
  int bChain;                     /* a callchain follows them */
  int bRaw;                       /* then raw data */
  uint64_t st;                    /* the sample_type */
};
typedef struct OpenPlan OpenPlan;
struct OpenPlan {
  int nAttr;                      /* p->nAttr it was made for (-1: none made) */
  int bOk;                        /* some attr has a plan */
  AttrPlan *a;                    /* one per attr */
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
  free(pl->a);
  memset(pl, 0, sizeof(*pl));
  pl->nAttr = p->nAttr;
  if( p->nAttr==0 || (pl->a = calloc((size_t)p->nAttr, sizeof(AttrPlan)))==0 ) return;
  for(i=0; i<p->nAttr; i++){
    AttrPlan *ap = &pl->a[i];
    ap->st = p->aAttr[i].sample_type;
    if( ap->st & ~(mFix|PS_CALLCHAIN|PS_RAW) ) continue;
    ap->nFix = 8*(uint32_t)__builtin_popcountll(ap->st & mFix);
    ap->offTime = plan_offset(ap->st, PS_TIME);
    ap->offCpu = plan_offset(ap->st, PS_CPU);
    ap->offPeriod = plan_offset(ap->st, PS_PERIOD);
    ap->bChain = (ap->st & PS_CALLCHAIN)!=0;
    ap->bRaw = (ap->st & PS_RAW)!=0;
    ap->bOk = 1;
    pl->bOk = 1;
  }
}

/*
** Take the walk's next record at once if it is a SAMPLE the plan reads
** whole (in the file's bytes inside the window, or whole in decompressed
** output): its fields as rec_info() gives them into *ri, r as the walk
** gives it, and the walk past it. 0 (nothing taken) when the general way
** must read it: other types, an attr without a plan, a sample too short
** for its fields, callchain or raw data (which that way reports).
*/
static int open_sample_fast(const PerfData *p, const OpenPlan *pl, PerfWalk *w, PerfRec *r,
                            RecInfo *ri){
  const uint8_t *a;
  const AttrPlan *ap;
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
  if( size > nLeft || size < 8 ) return 0;
  r->type = PERF_SAMPLE;
  r->misc = tl_load_u16_unchecked(a+4, bo);
  r->size = size;
  r->body = tl_bytes(a + 8, (size_t)size - 8, bo);
  ri->iAttr = p->nAttr>1 ? perf_attr_of(p, r) : 0;
  ap = &pl->a[ri->iAttr];
  if( !ap->bOk || size < 8 + ap->nFix + (ap->bChain ? 8 : 0) ) return 0;
  if( ap->bChain || ap->bRaw ){
    uint64_t iNext = 8 + (uint64_t)ap->nFix;     /* what follows the fixed fields */
    if( ap->bChain ){
      uint64_t nChain = tl_load_u64_unchecked(a + iNext, bo);
      if( nChain > ((uint64_t)size - iNext - 8)/8 ) return 0;
      iNext += 8 + 8*nChain;
    }
    /* the raw data's u32 size, then as many bytes (as perf_sample_decode
    ** checks them) */
    if( ap->bRaw && (size - iNext < 4
                     || tl_load_u32_unchecked(a + iNext, bo) > size - iNext - 4) ) return 0;
  }
  if( bInner ){
    r->iOff = w->iCont;
    r->iRowid = PERF_INNER_ROWID(w->iCont, w->iInner);
  }else{
    r->iOff = w->iOff;
    r->iRowid = (int64_t)w->iOff;
  }
  ri->bSample = 1;
  ri->bTs = ap->offTime>=0;
  ri->ts = ri->bTs ? (int64_t)tl_load_u64_unchecked(a + 8 + ap->offTime, bo) : 0;
  ri->bCpu = ap->offCpu>=0;
  ri->cpu = ri->bCpu ? tl_load_u32_unchecked(a + 8 + ap->offCpu, bo) : 0;
  ri->s.mHave = ap->st;
  ri->s.period = ap->offPeriod>=0 ? tl_load_u64_unchecked(a + 8 + ap->offPeriod, bo) : 0;
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

/* A SAMPLE record of the attr ri->iAttr, in its attr's count and times. */
static inline void attr_note_sample(PerfData *p, const RecInfo *ri){
  PerfAttr *a = &p->aAttr[ri->iAttr];
  a->nSamples++;
  if( !ri->bTs ) return;
  if( !a->bTs ){
    a->bTs = 1;
    a->tsFirst = a->tsLast = ri->ts;
  }else if( ri->ts<a->tsFirst ){
    a->tsFirst = ri->ts;
  }else if( ri->ts>a->tsLast ){
    a->tsLast = ri->ts;
  }
}

/*
** Attributes or ids came after samples (pipe mode): a sample counted in
** the walk may belong to another attr now, as the scans see it. Count the
** attrs' samples again with every attr known. Damaged data ends this walk
** where it ended the first (bCut: its warning was given); any other error
** (the file changed since) is the open's.
*/
static int attr_recount(TlTrace *pTrace, PerfData *p, int bCut, TlErr *pErr){
  PerfWalk w;
  PerfRec r;
  RecInfo ri;
  int i, rc;
  for(i=0; i<p->nAttr; i++){
    p->aAttr[i].nSamples = 0;
    p->aAttr[i].bTs = 0;
  }
  for(i=0; i<perf_ranges(p); i++){
    uint64_t iStart, iEnd;
    perf_range(p, i, &iStart, &iEnd);
    perf_walk_init(&w, pTrace, p, iStart, iEnd, pErr);
    while( (rc = perf_walk_next(&w, &r))==TL_ROW ){
      if( r.type==PERF_SAMPLE && p->nAttr>0 && rec_info(p, &r, &ri)==0 ) attr_note_sample(p, &ri);
    }
    perf_walk_free(&w);
    if( rc==TL_ECORRUPT && bCut ){ tl_err_clear(pErr); rc = TL_OK; }
    if( rc<0 ) return rc;
  }
  return TL_OK;
}

/* The index walk's state. */
typedef struct IndexCtx IndexCtx;
struct IndexCtx {
  TlTrace *pTrace;
  PerfData *p;
  TlErr *pErr;
  PerfWalk w;
  PerfRec r;
  TlPacket pk;                    /* the chunk being filled */
  PerfChunkKey key;               /* its key */
  OpenPlan plan;
  int bRound;                     /* the last record was a FINISHED_ROUND */
  int bCorrupt;                   /* the walk stopped at damaged data */
  int bSampleSeen;
  int bAttrLate;                  /* an attr or ids came after a sample */
  uint64_t iEnd;                  /* the end of the region walked */
  int bRounds;                    /* it has FINISHED_ROUND records */
  /* the time-order merge's rule (perf_scan.c, next_ordered) on every
  ** record: the latest time after each of the last rounds, the rounds
  ** ended, the latest time so far; the lag the records need */
  PerfRounds rounds;
  int64_t tsMax;
  int iLag;
};

/* The chunk bit of a cpu (CPUs from 63 up share bit 63). */
static inline uint64_t cpu_bit(uint32_t cpu){
  return cpu<63 ? (uint64_t)1<<cpu : (uint64_t)1<<63;
}

/* Fold a record's time and cpu into its chunk. */
static inline void chunk_note_ts_cpu(TlPacket *pk, const RecInfo *ri, int bSample){
  if( ri->bTs ){
    if( ri->ts<pk->tsBegin ) pk->tsBegin = ri->ts;
    if( ri->ts>pk->tsEnd ) pk->tsEnd = ri->ts;
  }else{
    pk->flags |= PERF_PKT_NOTS | (bSample ? PERF_PKT_SAMPLE_NOTS : 0);
  }
  /* a record without a cpu never matches a cpu filter: it sets no bit */
  if( ri->bCpu ) pk->mCpu |= cpu_bit(ri->cpu);
  else pk->flags |= PERF_PKT_NOCPU | (bSample ? PERF_PKT_SAMPLE_NOCPU : 0);
}

/*
** perf writes each CPU's buffer in one piece: a chunk per piece lets a cpu
** filter skip the other CPUs' chunks. Should a record of this cpu at iOff
** (not inside compressed data) start a new chunk, the current one holding
** nBefore records before it (and ending with a round when bAfterRound)?
*/
static inline int chunk_cpu_ends(const TlPacket *pk, const PerfRec *r, const RecInfo *ri,
                                 uint64_t nBefore, int bAfterRound){
  return ri->bCpu && r->iRowid==(int64_t)r->iOff && nBefore>0 && pk->mCpu!=0
      && (bAfterRound || r->iOff - pk->iOff >= PERF_CHUNK_CPU_MIN)
      && !(pk->mCpu & cpu_bit(ri->cpu));
}

/*
** A record's time against the time-order merge's rule: the least lag
** (1: perf's rule) with which no record before it could have gone out
** later than it; the file's lag is the most any record needs, 0 when one
** needs more than PERF_ROUND_LAG_MAX (the merge then goes by chunks). A
** record of time 0 after records gone out (perf's synthesized ones at
** the end, for one; perf gives them out where they are) fits no lag: the
** trace does not offer ORDER BY ts (PerfData.nLate; perf_open.c).
*/
static inline void round_note(IndexCtx *x, const RecInfo *ri){
  if( !ri->bTs ) return;
  if( ri->ts<perf_rounds_flush(&x->rounds, 1) ){
    int k = 2;
    while( k<=PERF_ROUND_LAG_MAX && ri->ts<perf_rounds_flush(&x->rounds, k) ) k++;
    if( ri->ts==0 ) x->p->nLate++;
    else if( k>PERF_ROUND_LAG_MAX ) x->iLag = -1;
    else if( x->iLag>=0 && k>x->iLag ) x->iLag = k;
  }
  if( ri->ts>x->tsMax ) x->tsMax = ri->ts;
}

/* A FINISHED_ROUND: the latest time so far is that of the rounds up to it. */
static inline void round_end(IndexCtx *x){
  perf_rounds_end(&x->rounds, x->tsMax);
}

/* A sample of the usual shape, read at once by open_sample_fast(). */
static inline int index_fast_sample(IndexCtx *x, const RecInfo *ri){
  PerfData *p = x->p;
  TlPacket *pk = &x->pk;
  if( chunk_cpu_ends(pk, &x->r, ri, pk->nEvents, x->bRound) ){
    int rc;
    if( x->bRound ) pk->flags |= PERF_PKT_ROUND_END;
    rc = chunk_close(x->pTrace, p, pk, &x->key, x->r.iOff);
    if( rc ) return tl_err_set(x->pErr, rc, x->r.iOff, "out of memory");
  }
  x->bRound = 0;
  p->aTypeCount[PERF_SAMPLE]++;
  pk->flags |= perf_pkt_type_bit(PERF_SAMPLE);
  x->bSampleSeen = 1;
  pk->nEvents++;
  pk->iAux++;
  chunk_key_note(&x->key, p, ri);
  attr_note_sample(p, ri);
  chunk_note_ts_cpu(pk, ri, 1);
  round_note(x, ri);
  return TL_OK;
}

/* Any other record the walk gives. */
static inline int index_record(IndexCtx *x){
  PerfData *p = x->p;
  TlPacket *pk = &x->pk;
  const PerfRec *r = &x->r;
  RecInfo ri;
  int rc, bSample = r->type==PERF_SAMPLE, bAfterRound = x->bRound;
  if( r->type<PERF_USER_MAX ) p->aTypeCount[r->type]++;
  if( tl_perf_type_name(r->type)==0 ){ p->nUnknown++; return TL_OK; }
  if( r->type>=PERF_HEADER_ATTR ){
    if( x->bSampleSeen && (r->type==PERF_HEADER_ATTR || r->type==PERF_ID_INDEX) ){
      /* a sample's event could differ now from what the scan will see */
      free(p->aKey);
      p->aKey = 0;
      x->bAttrLate = 1;
    }
    rc = perf_open_user_record(x->pTrace, p, r, x->pErr);
    if( rc ) return rc;
  }
  if( bSample ) x->bSampleSeen = 1;
  x->bRound = r->type==PERF_FINISHED_ROUND;
  if( x->bRound ){
    x->bRounds = 1;
    round_end(x);
  }
  pk->nEvents++;
  if( bSample ) pk->iAux++;
  if( rec_info(p, r, &ri) ){
    perf_warn_at(x->pTrace, p, r->iOff,
        "SAMPLE record of %u bytes is shorter than its sample_type needs", r->size);
    pk->flags |= PERF_PKT_NOCPU | PERF_PKT_SAMPLE_NOCPU    /* its row has no cpu */
               | PERF_PKT_NOTS | PERF_PKT_SAMPLE_NOTS      /* nor time */
               | perf_pkt_type_bit(r->type);
    chunk_key_note(&x->key, p, 0);
    return TL_OK;
  }
  if( chunk_cpu_ends(pk, r, &ri, pk->nEvents-1, bAfterRound) ){
    /* this record starts the next chunk */
    pk->nEvents--;
    if( bSample ) pk->iAux--;
    if( bAfterRound ) pk->flags |= PERF_PKT_ROUND_END;
    rc = chunk_close(x->pTrace, p, pk, &x->key, r->iOff);
    if( rc ) return tl_err_set(x->pErr, rc, r->iOff, "out of memory");
    pk->nEvents = 1;
    pk->iAux = bSample;
  }
  pk->flags |= perf_pkt_type_bit(r->type);
  if( bSample ) chunk_key_note(&x->key, p, &ri);
  if( bSample && p->nAttr>0 ) attr_note_sample(p, &ri);
  if( p->nPart==0 && (r->type==PERF_MMAP || r->type==PERF_MMAP2 || r->type==PERF_FORK)
   && perf_maps_note(x->pTrace, p, r, ri.bTs, ri.ts) ){
    return tl_err_set(x->pErr, TL_ENOMEM, r->iOff, "out of memory");
  }
  chunk_note_ts_cpu(pk, &ri, bSample);
  round_note(x, &ri);
  return TL_OK;
}

/*
** The walk stopped at damaged data: keep what comes before it. The last
** chunk runs to the end of the data, so a scan gives its good records,
** then this error.
*/
static int index_cut(IndexCtx *x){
  PerfData *p = x->p;
  int rc;
  perf_warn_at(x->pTrace, p, x->pErr->iOff, "%s", x->pErr->zMsg);
  tl_err_clear(x->pErr);
  x->pk.nEvents++;
  x->pk.flags |= PERF_PKT_CUT;
  x->bCorrupt = 1;
  rc = chunk_close(x->pTrace, p, &x->pk, &x->key, x->iEnd);
  if( rc ) rc = tl_err_set(x->pErr, rc, x->w.iOff, "out of memory");
  return rc;
}

/*
** A directory's file has no FINISHED_ROUND records (perf writes none there:
** a CPU's buffer is in time order, all but the odd side-band record). A
** scan in time order holds the records since the round before last; chunk
** c of [iFirst, n) ends a round when no record after it is earlier than
** the latest of the chunks before it: the least time of the chunks after
** c and the most of those before c, over their time ranges. A file in time
** order has every chunk end a round: the scan holds two chunks.
*/
static void index_rounds(TlIndex *x, size_t iFirst){
  size_t n = x->n - iFirst, c;
  int64_t tsMax = TL_TS_MIN, *aMinAfter;
  if( n==0 ) return;
  aMinAfter = malloc(n*sizeof(int64_t));
  if( aMinAfter==0 ) return;                    /* (no round: one, and correct) */
  aMinAfter[n-1] = TL_TS_MAX;
  for(c=n-1; c>0; c--){
    const TlPacket *pk = &x->a[iFirst + c];
    aMinAfter[c-1] = pk->tsBegin < aMinAfter[c] ? pk->tsBegin : aMinAfter[c];
  }
  for(c=0; c<n; c++){
    TlPacket *pk = &x->a[iFirst + c];
    if( aMinAfter[c] >= tsMax ) pk->flags |= PERF_PKT_ROUND_END;
    if( pk->tsEnd > tsMax ) tsMax = pk->tsEnd;
  }
  free(aMinAfter);
}

/*
** The chunks of region k (the data section, or a directory's file k: its
** chunks are stream k of the index), its rounds (index_rounds).
*/
static int index_region(IndexCtx *x, int k){
  TlTrace *pTrace = x->pTrace;
  PerfData *p = x->p;
  TlErr *pErr = x->pErr;
  uint64_t iStart, iEnd;
  size_t iFirst = pTrace->index.n;
  int rc = TL_OK;
  perf_range(p, k, &iStart, &iEnd);
  memset(&x->pk, 0, sizeof(x->pk));
  memset(&x->key, 0, sizeof(x->key));
  x->pk.iOff = iStart;
  x->pk.tsBegin = TL_TS_MAX;
  x->pk.tsEnd = TL_TS_MIN;
  x->pk.iStream = p->nPart ? k : -1;
  x->pk.iFile = p->nPart ? (uint32_t)k : 0;
  x->pk.iCpu = -1;
  x->pk.nDiscarded = TL_UNKNOWN;
  x->pk.iSeq = -1;
  x->iEnd = iEnd;
  x->bRounds = x->bRound = x->bCorrupt = 0;
  x->rounds.n = 0;
  x->tsMax = TL_TS_MIN;
  perf_walk_init(&x->w, pTrace, p, iStart, iEnd, pErr);
  perf_walk_ahead(&x->w);
  for(;;){
    RecInfo ri;
    if( perf_walk_clean(&x->w) && x->pk.nEvents>0
     && ((x->bRound && x->w.iOff - x->pk.iOff >= PERF_CHUNK_ROUND_MIN)
         || x->w.iOff - x->pk.iOff >= PERF_CHUNK_BYTES) ){
      if( x->bRound ) x->pk.flags |= PERF_PKT_ROUND_END;
      rc = chunk_close(pTrace, p, &x->pk, &x->key, x->w.iOff);
      if( rc ){ rc = tl_err_set(pErr, rc, x->w.iOff, "out of memory"); break; }
      x->bRound = 0;
    }
    if( x->plan.nAttr!=p->nAttr ) plan_make(p, &x->plan);
    if( x->plan.bOk && open_sample_fast(p, &x->plan, &x->w, &x->r, &ri) ){
      rc = index_fast_sample(x, &ri);
      if( rc ) break;
      continue;
    }
    rc = perf_walk_next(&x->w, &x->r);
    if( rc==TL_DONE ){ rc = TL_OK; break; }
    if( rc==TL_ECORRUPT ){ rc = index_cut(x); break; }
    if( rc<0 ) break;
    rc = index_record(x);
    if( rc ) break;
  }
  if( rc==TL_OK && !x->bCorrupt ){
    rc = chunk_close(pTrace, p, &x->pk, &x->key, x->w.iOff);
    if( rc ) rc = tl_err_set(pErr, rc, x->w.iOff, "out of memory");
  }
  perf_walk_free(&x->w);
  if( rc==TL_OK && p->nPart && !x->bRounds ) index_rounds(&pTrace->index, iFirst);
  return rc;
}

/*
** A directory's maps, given to the symbols model in time order across its
** files (the order of the maps of one address decides which one holds).
*/
static int index_dir_maps(TlTrace *pTrace, PerfData *p, TlErr *pErr){
  PerfMerge t;
  PerfMergeIn *x = 0;
  int rc = perf_merge_open(&t, pTrace, p, pErr);
  while( rc==TL_OK ){
    rc = perf_merge_next(&t, p, pErr, &x);
    if( rc==TL_DONE ){ rc = TL_OK; break; }
    if( rc<0 ) break;
    rc = TL_OK;
    if( (x->r.type==PERF_MMAP || x->r.type==PERF_MMAP2 || x->r.type==PERF_FORK)
     && perf_maps_note(pTrace, p, &x->r, x->ri.bTs, x->ri.ts) ){
      rc = TL_ENOMEM;
    }
  }
  perf_merge_close(&t);
  if( rc==TL_ENOMEM ) rc = tl_err_set(pErr, rc, TL_NO_OFFSET, "out of memory");
  return rc;
}

int perf_index_build(TlTrace *pTrace, PerfData *p, TlErr *pErr){
  IndexCtx x;
  int rc = TL_OK, k, bCut = 0;
  memset(&x, 0, sizeof(x));
  x.pTrace = pTrace;
  x.p = p;
  x.pErr = pErr;
  p->aKey = malloc(256*sizeof(PerfChunkKey));
  p->nKeyAlloc = p->aKey ? 256 : 0;
  x.plan.nAttr = -1;
  x.iLag = 1;
  for(k=0; rc==TL_OK && k<perf_ranges(p); k++){
    rc = index_region(&x, k);
    bCut |= x.bCorrupt;
  }
  p->iRoundLag = x.iLag<0 ? 0 : x.iLag;
  if( x.iLag<0 ) p->nLate++;
  free(x.plan.a);
  if( rc==TL_OK && p->nPart ) rc = index_dir_maps(pTrace, p, pErr);
  if( rc==TL_OK && x.bAttrLate ){
    rc = attr_recount(pTrace, p, bCut, pErr);
  }
  return rc;
}
