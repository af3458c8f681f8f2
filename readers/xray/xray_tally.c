/*
** xray_tally.c: the tally hooks of the XRay reader (reader.h: xTallyCols
** ... xTallyClose) for xray_calls: the calls that the records of the
** packets given end, each a row with its rowid (tl_tally_row()), for the
** engine's grouped output (GROUP BY func_id with sum(dur): the engine keeps
** the durs by function). A thread's calls depend on its own records only,
** and the engine gives all packets of a thread (its stream) to one state
** in order: so each state matches its threads as one scan would, and gives
** a thread's calls still open once its last packet is read.
*/
#include "xray_rec.h"

#include <stdlib.h>
#include <string.h>

typedef struct XrTally XrTally;
struct XrTally {
  TlScan *s;                      /* the calls' scan, one packet at a time */
  uint8_t *aLast;                 /* per packet: the last of its thread */
};

/* The calls tables, unfiltered: every column but the stack. */
uint64_t xray_tally_cols(const TlTrace *pTrace, int iTable, const TlFilter *f){
  (void)pTrace;
  if( iTable!=TL_TAB_XRAY_CALLS && iTable!=TL_TAB_CALLS ) return 0;
  if( f->tsLo!=TL_TS_MIN || f->tsHi!=TL_TS_MAX || f->nCpu>=0 || f->bRowid || f->bKey
   || f->zType || f->bDepth || f->bPlain ) return 0;
  return (((uint64_t)1<<TL_XC_NCOL) - 1) & ~((uint64_t)1<<TL_XC_STACK);
}

int xray_tally_open(TlTrace *pTrace, int iTable, const TlFilter *f, void **ppState, TlErr *pErr){
  const XrData *p = pTrace->pData;
  const TlIndex *x = &pTrace->index;
  XrTally *t;
  TlMap last;
  size_t k;
  *ppState = 0;
  if( p->bMapOnly || xray_tally_cols(pTrace, iTable, f)==0 ) return TL_DONE;
  /* (a packet's records are its thread's, or the calls are scanned) */
  for(k=0; k<x->n; k++){
    if( x->a[k].iStream<0 || (x->a[k].flags & XR_PKT_MIXED) ) return TL_DONE;
  }
  t = calloc(1, sizeof(*t));
  if( t==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  t->s = calloc(1, sizeof(TlScan));
  t->aLast = calloc(x->n ? x->n : 1, 1);
  tl_map_init(&last);
  if( t->s==0 || t->aLast==0 ) goto no_mem;
  xray_scan_init(t->s, pTrace, TL_TAB_XRAY_CALLS, f);
  /* each thread's last packet */
  for(k=0; k<x->n; k++){
    if( tl_map_put(&last, (uint64_t)x->a[k].iStream, (uint32_t)k) ) goto no_mem;
  }
  for(k=0; k<x->n; k++){
    uint32_t iLast = 0;
    if( tl_map_get(&last, (uint64_t)x->a[k].iStream, &iLast) && iLast==k ) t->aLast[k] = 1;
  }
  tl_map_free(&last);
  *ppState = t;
  return TL_OK;

 no_mem:
  tl_map_free(&last);
  xray_tally_close(t);
  return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
}

void xray_tally_close(void *pState){
  XrTally *t = pState;
  if( t==0 ) return;
  xray_scan_free(t->s);
  free(t->aLast);
  free(t);
}

int xray_tally_packet(void *pState, size_t iPacket, TlTally *pTally, TlErr *pErr){
  XrTally *t = pState;
  TlScan *s = t->s;
  const TlPacket *pk = &s->pTrace->index.a[iPacket];
  int rc;
  s->pTally = pTally;
  rc = xray_calls_packet(s, iPacket);
  if( rc==TL_OK && t->aLast[iPacket] ) rc = xray_calls_drain(s, (uint32_t)pk->iStream);
  s->pTally = 0;
  if( rc<0 && s->err.rc ) *pErr = s->err;
  return rc;
}

/* Call c of stack st's thread as a tally's row (xray_calls' columns). */
int xray_tally_call(TlScan *s, const XrStack *st, const TlCall *c){
  TlVal a[TL_XC_NCOL];
  XrCall o;
  int bOk;
  /* (the used columns only: the engine reads no other) */
  a[TL_XC_NAME].t = a[TL_XC_TS].t = a[TL_XC_DUR].t = a[TL_XC_PID].t = a[TL_XC_PARENT].t = TL_NULL;
  o.c = *c;
  tl_val_int(&a[TL_XC_FUNC_ID], c->fr.funcId);
  if( s->f.mCols!=((uint64_t)1<<TL_XC_FUNC_ID | (uint64_t)1<<TL_XC_DUR) ){
    tl_val_int(&a[TL_XC_ID], c->fr.id);
    tl_val_int(&a[TL_XC_TID], st->tid);
    if( st->bPid ) tl_val_int(&a[TL_XC_PID], st->pid);
    tl_val_int(&a[TL_XC_CPU], c->fr.cpu);
    tl_val_int(&a[TL_XC_DEPTH], (int64_t)c->depth);
    if( c->bParent ) tl_val_int(&a[TL_XC_PARENT], c->parent);
  }
  if( tl_col_used(&s->f, TL_XC_NAME) ){
    const XrFunc *fn = xray_map_func(&s->p->map, c->fr.funcId);
    /* (the map's names stay at their address: the engine's memo knows them) */
    if( fn && fn->zName ) tl_val_text(&a[TL_XC_NAME], fn->zName, strlen(fn->zName));
  }
  if( tl_col_used(&s->f, TL_XC_TS) ){
    int64_t ts = tsc_ns(s->p, c->fr.ts, &bOk);
    if( bOk ) tl_val_int(&a[TL_XC_TS], ts);
  }
  if( tl_col_used(&s->f, TL_XC_DUR) ){
    int64_t d = call_dur(s, &o);
    if( d!=XR_DUR_NULL ) tl_val_int(&a[TL_XC_DUR], d);
  }
  return tl_tally_row(s->pTally, a, c->fr.id);
}
