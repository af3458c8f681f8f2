/*
** perf_tally.c: the tally hooks of the perf.data reader (reader.h): the
** frames of a chunk's samples, each a callchains row, tallied by the
** columns a query groups on (symbol, dso, depth, ...) for the engine's
** grouped output, without the rows going through SQLite one by one.
*/
#include "perf_scan.h"

#include <stdlib.h>

uint64_t perf_tally_cols(const TlTrace *pTrace, int iTable, const TlFilter *f){
  (void)pTrace; (void)f;
  if( iTable!=TL_TAB_CALLCHAINS ) return 0;
  /* (not srcline and inlined: the text of an inlined function's row is
  ** the scan's own, not kept at its address; not ts, which the engine
  ** moves for clock=) */
  return ((uint64_t)1<<TL_CC_EVENT) | ((uint64_t)1<<TL_CC_CPU)
       | ((uint64_t)1<<TL_CC_DEPTH) | ((uint64_t)1<<TL_CC_IP) | ((uint64_t)1<<TL_CC_CONTEXT)
       | ((uint64_t)1<<TL_CC_SYMBOL) | ((uint64_t)1<<TL_CC_DSO);
}

/*
** A kernel frame left for later: kallsyms was being read by another
** thread when it came (TlScan.bSymTry), so rather than wait, the state
** keeps its row (the used columns; n such rows in a run) and tallies it
** once kallsyms is read: at a later packet, when too many wait, or at the
** state's last packet (xTallyEnd).
*/
#define PERF_LATER_MAX 8192       /* rows kept at most, then they wait */

typedef struct PerfLater PerfLater;
struct PerfLater {
  uint64_t ip;
  uint64_t n;
  TlVal a[TL_CC_NCOL];
};

typedef struct PerfTally PerfTally;
struct PerfTally {
  TlScan *s;
  PerfLater *aLater;
  size_t nLater;
};

int perf_tally_open(TlTrace *pTrace, int iTable, const TlFilter *f, void **ppState, TlErr *pErr){
  const PerfData *p = pTrace->pData;
  PerfTally *t;
  TlScan *s = 0;
  int rc, i;
  *ppState = 0;
  if( iTable!=TL_TAB_CALLCHAINS ) return TL_DONE;
  for(i=0; i<p->nAttr; i++){
    /* user stacks unwound: the unwinder's modules carry over from sample to
    ** sample, so a chunk's frames may depend on the chunks before it */
    if( p->aAttr[i].sample_type & PS_STACK_USER ) return TL_DONE;
  }
  t = calloc(1, sizeof(*t));
  if( t==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  rc = perf_scan_open(pTrace, iTable, f, &s, pErr);
  if( rc ){
    free(t);
    return rc;
  }
  s->bSymTry = 1;
  t->s = s;
  *ppState = t;
  return TL_OK;
}

void perf_tally_close(void *pState){
  PerfTally *t = pState;
  if( t==0 ) return;
  perf_scan_close(t->s);
  free(t->aLater);
  free(t);
}

/* Keep frame row a (its used columns) for later: TL_OK or TL_ENOMEM. */
static int later_add(PerfTally *t, uint64_t ip, const TlVal *a){
  const TlScan *s = t->s;
  PerfLater *e;
  int k;
  if( t->nLater>0 ){
    /* the same frame again (same address, same values): one more row */
    e = &t->aLater[t->nLater-1];
    for(k=0; k<TL_CC_NCOL && e->ip==ip; k++){
      const TlVal *x = &e->a[k], *y = &a[k];
      if( !tl_col_used(&s->f, k) || k==TL_CC_SYMBOL || k==TL_CC_DSO ) continue;
      if( x->t!=y->t || (x->t==TL_INT && x->i!=y->i)
       || ((x->t==TL_TEXT || x->t==TL_BLOB) && (x->z!=y->z || x->n!=y->n)) ) break;
      if( x->t==TL_REAL && memcmp(&x->r, &y->r, sizeof(double)) ) break;
    }
    if( k==TL_CC_NCOL && e->ip==ip ){
      e->n++;
      return TL_OK;
    }
  }
  if( t->aLater==0 ){
    t->aLater = malloc(PERF_LATER_MAX*sizeof(PerfLater));
    if( t->aLater==0 ) return TL_ENOMEM;
  }
  e = &t->aLater[t->nLater++];
  e->ip = ip;
  e->n = 1;
  for(k=0; k<TL_CC_NCOL; k++){
    if( tl_col_used(&s->f, k) ) e->a[k] = a[k];
    else e->a[k].t = TL_NULL;
  }
  return TL_OK;
}

/*
** The rows kept for later, named and tallied: all (bWait, reading
** kallsyms first if need be) or none (when another thread still reads it).
*/
static int later_flush(PerfTally *t, TlTally *pTally, int bWait){
  TlScan *s = t->s;
  size_t i;
  if( t->nLater==0 || (!bWait && !tl_symbols_kernel_try(s->p->pSyms, s->pTrace)) ) return TL_OK;
  for(i=0; i<t->nLater; i++){
    PerfLater *e = &t->aLater[i];
    const char *zSym, *zDso;
    int rc;
    perf_symbolize(s->pTrace, s->p, -1, e->ip, INT64_MIN, 1, &zSym, &zDso);
    tl_val_textz(&e->a[TL_CC_SYMBOL], zSym);
    tl_val_textz(&e->a[TL_CC_DSO], zDso);
    rc = tl_tally_add(pTally, e->a, e->n);
    if( rc ) return rc;
  }
  t->nLater = 0;
  return TL_OK;
}

/* The frames of chunk iPacket, one row each, to the tally. */
int perf_tally_packet(void *pState, size_t iPacket, TlTally *pTally, TlErr *pErr){
  PerfTally *t = pState;
  TlScan *s = t->s;
  TlVal a[TL_MAX_NCOL];
  TlRow row;
  int rc = later_flush(t, pTally, 0);
  if( rc ) return rc;
  s->iChunk = iPacket;
  s->iChunkEnd = iPacket + 1;
  s->bInChunk = 0;
  s->r.type = 0;                  /* (no frame left of an earlier sample) */
  s->nSrc = s->iSrc = 0;
  memset(&row, 0, sizeof(row));
  row.a = a;
  for(;;){
    int k;
    for(k=0; k<TL_CC_NCOL; k++) a[k].t = TL_NULL;
    rc = perf_next_frame(s, &row);
    if( rc!=TL_ROW ) break;
    if( s->bSymLater ){
      rc = later_add(t, (uint64_t)a[TL_CC_IP].i, a);
      if( rc==TL_OK && t->nLater==PERF_LATER_MAX ) rc = later_flush(t, pTally, 1);
      if( rc==TL_ENOMEM ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    }else{
      rc = tl_tally_add(pTally, a, 1);
    }
    if( rc ) return rc;
  }
  if( rc<0 ){
    *pErr = s->err;
    return rc;
  }
  return TL_OK;
}

int perf_tally_end(void *pState, TlTally *pTally, TlErr *pErr){
  (void)pErr;
  return later_flush(pState, pTally, 1);
}
