/*
** xray_count.c: the counting hooks of the XRay reader (reader.h:
** xCountCols ... xPacketValue). A packet's rows are its index count when
** it is whole and the ts window and CPU set cover all of it; else they are
** counted by reading its records (kind, time and cpu of each).
*/
#include "xray_rec.h"

#include <stdlib.h>
#include <string.h>

/* The kinds of row the events table shows (type). */
static const char *const azType[] = {
  "function-enter", "function-exit", "function-tail-exit", "function-enter-arg",
  "custom-event", "typed-event"
};

uint64_t xray_count_cols(const TlTrace *pTrace, int iTable, const TlFilter *f){
  (void)pTrace;
  return iTable==TL_TAB_EVENTS ? tl_count_events_cols(f) : 0;
}

/* The counted scan's state is an events scan: its file, filter and cw. */
int xray_count_open(TlTrace *pTrace, int iTable, const TlFilter *f, void **ppState,
                    TlErr *pErr){
  TlScan *s;
  *ppState = 0;
  if( iTable!=TL_TAB_EVENTS || ((const XrData*)pTrace->pData)->bMapOnly ) return TL_DONE;
  s = calloc(1, sizeof(*s));
  if( s==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  xray_scan_init(s, pTrace, iTable, f);
  *ppState = s;
  return TL_OK;
}

void xray_count_close(void *pState){
  xray_scan_free(pState);
}

/* Is the record a row that passes the filter exactly (as the vtab checks)? */
static int count_passes(const TlScan *s, const XrEv *e){
  const TlFilter *f = &s->f;
  if( f->zType && strcmp(e->zKind, f->zType)!=0 ) return 0;
  if( f->tsLo!=TL_TS_MIN || f->tsHi!=TL_TS_MAX ){
    int bOk;
    int64_t ts = tsc_ns(s->p, e->tsc, &bOk);
    if( !bOk || ts<f->tsLo || ts>f->tsHi ) return 0;
  }
  if( f->nCpu>=0 ){
    int k;
    for(k=0; k<f->nCpu && f->aCpu[k]!=(int64_t)e->cpu; k++){}
    if( k>=f->nCpu ) return 0;
  }
  return 1;
}

/* Does the filter take every record of packet pk (its count whole)? */
static int packet_covered(const TlScan *s, const TlPacket *pk){
  const TlFilter *f = &s->f;
  if( pk->flags & XR_PKT_CUT ) return 0;
  if( f->zType ) return 0;
  if( f->tsLo!=TL_TS_MIN || f->tsHi!=TL_TS_MAX ){
    if( (pk->flags & XR_PKT_NOTS) || pk->tsBegin>pk->tsEnd ) return 0;
    if( pk->tsBegin<f->tsLo || pk->tsEnd>f->tsHi ) return 0;
  }
  if( f->nCpu>=0 ){
    uint64_t mSet = 0;
    int k;
    for(k=0; k<f->nCpu; k++){
      if( f->aCpu[k]>=0 && f->aCpu[k]<63 ) mSet |= (uint64_t)1<<f->aCpu[k];
    }
    if( pk->mCpu & ~mSet ) return 0;              /* (bit 63: CPUs from 63 up) */
  }
  return 1;
}

/* Is zType a kind no record has? */
static int type_unknown(const char *zType){
  size_t k;
  for(k=0; k<sizeof(azType)/sizeof(azType[0]); k++){
    if( strcmp(azType[k], zType)==0 ) return 0;
  }
  return 1;
}

/* Start s->cw on packet i (a read of it, for packets.args.reads). */
static int count_walk(TlScan *s, size_t i){
  const TlPacket *pk = &s->pTrace->index.a[i];
  int rc = cur_packet(s, &s->cw, &s->winW, pk);
  if( rc ){ s->iWalkPacket = SIZE_MAX; return rc; }
  tl_packet_note_read(pk);
  s->iWalkPacket = i;
  s->nWalked = 0;
  return TL_OK;
}

uint64_t xray_packet_count_bytes(void *pState, size_t iPacket){
  const TlScan *s = pState;
  const TlPacket *pk = &s->pTrace->index.a[iPacket];
  if( packet_covered(s, pk) ) return 0;
  if( !(pk->flags & XR_PKT_CUT) && s->f.zType && type_unknown(s->f.zType) ) return 0;
  return pk->nSize;
}

int xray_packet_count(void *pState, size_t iPacket, uint64_t *pn, TlVal *aRow, TlErr *pErr){
  TlScan *s = pState;
  const TlPacket *pk = &s->pTrace->index.a[iPacket];
  uint64_t n = 0;
  int rc;
  *pn = 0;
  if( packet_covered(s, pk) ){
    *pn = pk->nEvents;
  }else if( !(pk->flags & XR_PKT_CUT) && s->f.zType && type_unknown(s->f.zType) ){
    *pn = 0;
  }else{
    /* read its records (a damaged one is the error a scan meets) */
    rc = count_walk(s, iPacket);
    s->iWalkPacket = SIZE_MAX;
    if( rc ){ *pErr = s->err; return rc; }
    while( (rc = cur_next(&s->cw, &s->ew))==TL_ROW ){
      if( count_passes(s, &s->ew) ) n++;
    }
    if( rc<0 ){ *pErr = s->err; return rc; }
    *pn = n;
  }
  if( aRow[TL_EV_TYPE].t==TL_LAZY && s->f.zType ){
    tl_val_text(&aRow[TL_EV_TYPE], s->f.zType, strlen(s->f.zType));
  }
  if( aRow[TL_EV_CPU].t==TL_LAZY && s->f.nCpu==1 ) tl_val_int(&aRow[TL_EV_CPU], s->f.aCpu[0]);
  return TL_OK;
}

int xray_packet_value(void *pState, size_t iPacket, uint64_t k, int iCol, TlVal *pOut,
                      TlErr *pErr){
  TlScan *s = pState;
  const TlPacket *pk = &s->pTrace->index.a[iPacket];
  XrEv *e = &s->ew;
  int bOk;
  int64_t ts;
  if( (s->iWalkPacket!=iPacket || s->nWalked > k+1) && count_walk(s, iPacket) ){
    *pErr = s->err;
    return s->err.rc;
  }
  while( s->nWalked <= k ){
    int rc = cur_next(&s->cw, e);
    if( rc!=TL_ROW ){
      s->iWalkPacket = SIZE_MAX;
      if( rc==TL_DONE ){
        /* the file no longer holds what its index says */
        tl_err_set(&s->err, TL_ECORRUPT, pk->iOff + pk->nSize,
                   "expected %llu more records in this part of the file",
                   (unsigned long long)(k + 1 - s->nWalked));
      }
      *pErr = s->err;
      return s->err.rc;
    }
    if( count_passes(s, e) ) s->nWalked++;
  }
  switch( iCol ){
    case -1: tl_val_int(pOut, (int64_t)e->iOff); break;
    case TL_EV_TS:
      ts = tsc_ns(s->p, e->tsc, &bOk);
      if( bOk ) tl_val_int(pOut, ts);
      break;
    case TL_EV_TS_RAW:
      if( e->tsc<=(uint64_t)INT64_MAX ) tl_val_int(pOut, (int64_t)e->tsc);
      else tl_val_real(pOut, (double)e->tsc);
      break;
    case TL_EV_CPU: tl_val_int(pOut, e->cpu); break;
    case TL_EV_TYPE: tl_val_textz(pOut, e->zKind); break;
    default: break;
  }
  return TL_OK;
}
