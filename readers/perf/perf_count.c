/*
** perf_count.c: the counting hooks of the perf.data reader (reader.h:
** xCountCols ... xPacketValue). A chunk's rows are its index counts (all
** records, or SAMPLE records) when the chunk is whole and the ts window and
** CPU set cover all of it; else they are counted by walking its records,
** as the events scan filters them (type by header, then ts and cpu).
*/
#include "perf_scan.h"

#include <stdlib.h>
#include <string.h>

typedef struct PerfCount PerfCount;
struct PerfCount {
  TlTrace *pTrace;
  const PerfData *p;
  TlFilter f;                     /* the scan's filter (aCpu borrowed) */
  int eType;                      /* the one record type wanted, -1 any known,
                                  ** PERF_USER_MAX none */
  int bCheck;                     /* a ts window or a CPU set: records are
                                  ** checked one by one when walked */
  PerfWalk w;                     /* walks a chunk */
  PerfRec r;                      /* its current record */
  RecInfo ri;                     /* r's, when decoded (bInfo) */
  int bInfo;
  size_t iWalk;                   /* the chunk w walks for values, or SIZE_MAX */
  uint64_t nPassed;               /* rows of it w has passed (r the last) */
  TlErr err;                      /* the walk's errors */
};

uint64_t perf_count_cols(const TlTrace *pTrace, int iTable, const TlFilter *f){
  (void)pTrace;
  return iTable==TL_TAB_EVENTS ? tl_count_events_cols(f) : 0;
}

int perf_count_open(TlTrace *pTrace, int iTable, const TlFilter *f, void **ppState,
                    TlErr *pErr){
  PerfCount *c;
  *ppState = 0;
  if( iTable!=TL_TAB_EVENTS ) return TL_DONE;
  c = calloc(1, sizeof(*c));
  if( c==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  c->pTrace = pTrace;
  c->p = pTrace->pData;
  c->f = *f;
  c->eType = f->zType ? perf_type_of_name(f->zType) : -1;
  c->bCheck = f->tsLo!=TL_TS_MIN || f->tsHi!=TL_TS_MAX || f->nCpu>=0;
  c->iWalk = SIZE_MAX;
  tl_err_clear(&c->err);
  *ppState = c;
  return TL_OK;
}

void perf_count_close(void *pState){
  PerfCount *c = pState;
  if( c==0 ) return;
  perf_walk_free(&c->w);
  free(c);
}

/* Start c->w on chunk i (a read of it, for packets.args.reads). */
static void count_walk(PerfCount *c, size_t i){
  const TlPacket *pk = &c->pTrace->index.a[i];
  if( c->w.pTrace ) perf_walk_seek(&c->w, pk->iOff, pk->iOff + pk->nSize);
  else perf_walk_init(&c->w, c->pTrace, c->p, pk->iOff, pk->iOff + pk->nSize, &c->err);
  perf_walk_stop(&c->w, 1);         /* (the engine's threads take the chunks in turn) */
  tl_packet_note_read(pk);
  c->iWalk = i;
  c->nPassed = 0;
}

/* Is the walk's current record a row that passes the filter (as the events
** scan's next_record and the vtab's check decide)? */
static int count_passes(PerfCount *c){
  const PerfRec *r = &c->r;
  c->bInfo = 0;
  if( (c->eType>=0 && r->type!=(uint32_t)c->eType) || tl_perf_type_name(r->type)==0 ) return 0;
  if( !c->bCheck ) return 1;
  if( r->type==PERF_SAMPLE && c->p->nAttr>0 ){
    /* a sample's time and cpu first: most fail a narrow filter */
    int bTs, bCpu;
    int64_t ts = 0;
    uint32_t cpu = 0;
    perf_sample_peek(&c->p->aAttr[perf_attr_of(c->p, r)], r, &bTs, &ts, &bCpu, &cpu);
    if( !ts_cpu_may_match(&c->f, bTs, ts, bCpu, cpu) ) return 0;
  }
  if( rec_info(c->p, r, &c->ri) ) memset(&c->ri, 0, sizeof(c->ri));
  c->bInfo = 1;
  return ts_cpu_may_match(&c->f, c->ri.bTs, c->ri.ts, c->ri.bCpu, c->ri.cpu);
}

/* Is cpu in the filter's CPU set? */
static int cpu_in_set(const TlFilter *f, int64_t cpu){
  int k;
  for(k=0; k<f->nCpu; k++) if( f->aCpu[k]==cpu ) return 1;
  return 0;
}

/*
** Do the ts window and CPU set take every row of chunk i as the index
** counts them (SAMPLE rows alone when bSample)? 1 all of them, -1 none
** (SAMPLE rows all of one cpu not in the set), 0 it takes a walk to say.
*/
static int chunk_covered(const PerfCount *c, size_t i, int bSample){
  const TlFilter *f = &c->f;
  const TlPacket *pk = &c->pTrace->index.a[i];
  if( f->tsLo!=TL_TS_MIN || f->tsHi!=TL_TS_MAX ){
    if( pk->flags & (bSample ? PERF_PKT_SAMPLE_NOTS : PERF_PKT_NOTS) ) return 0;
    if( pk->tsBegin<f->tsLo || pk->tsEnd>f->tsHi ) return 0;
  }
  if( f->nCpu>=0 ){
    uint64_t mSet = 0;
    int k;
    if( bSample && c->p->aKey && c->p->nKey==c->pTrace->index.n
     && c->p->aKey[i].eState==PERF_KEY_SAME ){
      /* its SAMPLE rows all show one cpu (or none) */
      const PerfChunkKey *pKey = &c->p->aKey[i];
      return pKey->bCpu && cpu_in_set(f, pKey->cpu) ? 1 : -1;
    }
    if( pk->flags & (bSample ? PERF_PKT_SAMPLE_NOCPU : PERF_PKT_NOCPU) ) return 0;
    for(k=0; k<f->nCpu; k++){
      if( f->aCpu[k]>=0 && f->aCpu[k]<63 ) mSet |= (uint64_t)1<<f->aCpu[k];
    }
    if( pk->mCpu & ~mSet ) return 0;              /* (bit 63: CPUs from 63 up) */
  }
  return 1;
}

/* The rows of chunk i by walking its records: TL_OK with *pn, or < 0. */
static int count_by_walk(PerfCount *c, size_t i, uint64_t *pn){
  uint64_t n = 0;
  int rc;
  count_walk(c, i);
  c->iWalk = SIZE_MAX;            /* (the walk's end is not a value's start) */
  while( (rc = perf_walk_next(&c->w, &c->r))==TL_ROW ){
    if( count_passes(c) ) n++;
  }
  if( rc<0 ) return rc;
  *pn = n;
  return TL_OK;
}

/*
** The rows of chunk i when the index answers (1, with *pn), else 0: a
** chunk cut by damage is walked (its counts stop at the damage: the walk
** meets it as a scan does), so is one the filter takes in part.
*/
static int count_from_index(const PerfCount *c, size_t i, uint64_t *pn){
  const TlPacket *pk = &c->pTrace->index.a[i];
  int eCover;
  *pn = 0;
  if( pk->flags & PERF_PKT_CUT ) return 0;
  if( c->eType==PERF_USER_MAX ) return 1;       /* no type has that name */
  if( !perf_chunk_may_hold(pk, c->eType) ) return 1;   /* none of that type */
  eCover = c->eType<0 ? chunk_covered(c, i, 0)
         : c->eType==PERF_SAMPLE ? chunk_covered(c, i, 1) : 0;
  if( eCover==0 ) return 0;
  *pn = eCover<0 ? 0 : c->eType<0 ? pk->nEvents : pk->iAux;
  return 1;
}

uint64_t perf_packet_count_bytes(void *pState, size_t iPacket){
  const PerfCount *c = pState;
  uint64_t n;
  return count_from_index(c, iPacket, &n) ? 0 : c->pTrace->index.a[iPacket].nSize;
}

int perf_packet_count(void *pState, size_t iPacket, uint64_t *pn, TlVal *aRow, TlErr *pErr){
  PerfCount *c = pState;
  int rc;
  if( !count_from_index(c, iPacket, pn) ){
    rc = count_by_walk(c, iPacket, pn);
    if( rc<0 ){ *pErr = c->err; return rc; }
  }else if( c->eType==PERF_USER_MAX || *pn==0 ){
    return TL_OK;
  }
  if( aRow[TL_EV_TYPE].t==TL_LAZY && c->eType>=0 ){
    tl_val_text(&aRow[TL_EV_TYPE], c->f.zType, strlen(c->f.zType));
  }
  if( aRow[TL_EV_CPU].t==TL_LAZY && c->f.nCpu==1 ) tl_val_int(&aRow[TL_EV_CPU], c->f.aCpu[0]);
  return TL_OK;
}

int perf_packet_value(void *pState, size_t iPacket, uint64_t k, int iCol, TlVal *pOut,
                      TlErr *pErr){
  PerfCount *c = pState;
  const TlPacket *pk = &c->pTrace->index.a[iPacket];
  if( c->iWalk!=iPacket || c->nPassed > k+1 ){
    count_walk(c, iPacket);
  }
  while( c->nPassed <= k ){
    int rc = perf_walk_next(&c->w, &c->r);
    if( rc==TL_DONE ){
      /* the file no longer holds what its index says */
      c->iWalk = SIZE_MAX;
      tl_err_set(&c->err, TL_ECORRUPT, pk->iOff + pk->nSize,
                 "expected %llu more records in this part of the file",
                 (unsigned long long)(k + 1 - c->nPassed));
      rc = TL_ECORRUPT;
    }
    if( rc<0 ){ c->iWalk = SIZE_MAX; *pErr = c->err; return rc; }
    if( count_passes(c) ) c->nPassed++;
  }
  if( iCol>=0 && !c->bInfo ){
    if( rec_info(c->p, &c->r, &c->ri) ) memset(&c->ri, 0, sizeof(c->ri));
    c->bInfo = 1;
  }
  switch( iCol ){
    case -1: tl_val_int(pOut, c->r.iRowid); break;
    case TL_EV_TS: case TL_EV_TS_RAW:
      if( c->ri.bTs ) tl_val_int(pOut, c->ri.ts);
      break;
    case TL_EV_CPU:
      if( c->ri.bCpu ) tl_val_int(pOut, c->ri.cpu);
      break;
    case TL_EV_TYPE: tl_val_textz(pOut, tl_perf_type_name(c->r.type)); break;
    default: break;
  }
  return TL_OK;
}
